//! `generate --check` over the checked-in files, run as the binary is (`make test-rust` runs
//! this crate's tests): a stale generated file fails with the diff to apply.

use std::process::Command;

#[test]
fn generated_files_are_current() {
    let out = Command::new(env!("CARGO_BIN_EXE_earlyexit-dev"))
        .args(["generate", "--check"])
        .output()
        .expect("earlyexit-dev runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "generate --check failed:\n{stdout}{stderr}");
    assert!(stdout.lines().count() >= 3 && stdout.lines().all(|l| l.starts_with("current ")), "{stdout}");
}

#[test]
fn a_wrong_command_is_refused_with_the_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_earlyexit-dev")).arg("generat").output().expect("earlyexit-dev runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: earlyexit-dev generate [--check]"));
}
