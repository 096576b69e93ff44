//! `earlyexit-dev generate [--check]` (`make generate`): writes every generated file (see
//! the crate's docs), or with `--check` writes nothing and fails with the diff that would
//! make the stale ones current.

use std::process::ExitCode;

use earlyexit_dev::{check, root, Status};

const USAGE: &str = "usage: earlyexit-dev generate [--check]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only_check = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["generate"] => false,
        ["generate", "--check"] => true,
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = root();
    let files = match check(&root) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("earlyexit-dev: cannot read the generated files under {}: {e}", root.display());
            return ExitCode::FAILURE;
        }
    };
    let mut stale = 0;
    for (path, text, status) in files {
        let name = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
        match status {
            Status::Current => println!("current {name}"),
            Status::Stale(diff) if only_check => {
                stale += 1;
                println!("stale {name}:\n{diff}");
            }
            Status::Stale(_) => {
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("earlyexit-dev: cannot write {name}: {e}");
                    return ExitCode::FAILURE;
                }
                println!("wrote {name}");
            }
        }
    }
    let problems = earlyexit_dev::shapes::problems(&root);
    for problem in &problems {
        println!("hand-written shape {problem}");
    }
    if !problems.is_empty() {
        println!("{} hand-written shape(s) differ from the core's tables: edit them by hand", problems.len());
    }
    if stale > 0 {
        println!("{stale} generated file(s) stale: apply the diff above, or run `make generate`");
        return ExitCode::FAILURE;
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
