//! `earlyexit promote loops` and `earlyexit drift loops`: a loop calibration artifact promoted
//! on an audit split (recorded in the artifact), or checked against recent runs (and demoted).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::core_api::{self, Value};
use crate::output::{self, code, with_file, Answer, Failure};
use crate::state;
use crate::store_artifact;

#[derive(Subcommand, Debug)]
pub enum PromoteCommand {
    /// Promote a loop calibration artifact on audit runs that share no task with its
    /// calibration (exact Clopper-Pearson bound of the premature-stop rate within its risk).
    Loops(LifecycleArgs),
}

#[derive(Subcommand, Debug)]
pub enum DriftCommand {
    /// Check a loop calibration artifact against recent runs: fresh, expired or drifted.
    Loops(LifecycleArgs),
}

#[derive(Args, Debug)]
pub struct LifecycleArgs {
    /// The loop calibration artifact (`earlyexit calibrate loops --out FILE`), or store:NAME:
    /// the artifact NAME of the store, to which the answer's artifact (promoted, or demoted)
    /// is written back in one transaction.
    #[arg(long, value_name = "FILE|store:NAME")]
    artifact: String,
    /// The store of --artifact store:NAME (sqlite:PATH or postgresql://...; default the
    /// EARLYEXIT_STORE environment variable, else sqlite:.earlyexit/store.db).
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// JSONL files of loop runs (the audit split, or the recent runs), in order (`-` = standard input).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// Write the answer's artifact (promoted, or demoted) to this file, or with store:NAME
    /// store it under NAME (--store).
    #[arg(long, value_name = "FILE|store:NAME")]
    out: Option<PathBuf>,
}

/// The answer of `judge` (the core's promotion or drift check) on the artifact and the runs.
/// `--artifact store:NAME`: read, judged and written back (the answer's artifact) in one
/// transaction of the store, so concurrent promotes of one artifact queue.
fn answer(
    args: &LifecycleArgs,
    judge: impl FnOnce(&Value, &Value) -> Result<Value, core_api::CoreError>,
) -> Result<Value, Failure> {
    if args.store.is_some() && store_artifact::name_of(&args.artifact).is_none() && out_name(args).is_none() {
        return Err(Failure::Usage("--store needs --artifact or --out store:NAME (an artifact of the store)".into()));
    }
    let mut runs = String::new();
    for file in &args.files {
        runs.push_str(&state::read_input(file)?);
        if !runs.ends_with('\n') {
            runs.push('\n');
        }
    }
    let runs = Value::string(runs);
    let answer = match store_artifact::name_of(&args.artifact) {
        Some(name) => store_artifact::update(&args.store, name, "--artifact", |artifact| {
            let answer = judge(artifact, &runs)?;
            Ok((answer.get("artifact").cloned(), answer))
        })?,
        None => {
            let text = state::read_input(&args.artifact)?;
            let artifact = core_api::parse_json(&text, "invalid_artifact", "artifact")
                .map_err(|e| with_file(e, &args.artifact))?;
            judge(&artifact, &runs).map_err(|e| with_file(e, &args.artifact))?
        }
    };
    match (out_name(args), &args.out, answer.get("artifact")) {
        (Some(name), _, Some(artifact)) => {
            store_artifact::write(&args.store, name, artifact, "--out")?;
        }
        (None, Some(out), Some(artifact)) => state::lock(out)?.write_state(&output::json(artifact))?,
        _ => {}
    }
    Ok(answer)
}

/// `--out store:NAME`'s name.
fn out_name(args: &LifecycleArgs) -> Option<&str> {
    args.out.as_deref().and_then(std::path::Path::to_str).and_then(store_artifact::name_of)
}

pub fn promote(command: PromoteCommand, json: bool) -> Result<u8, Failure> {
    let PromoteCommand::Loops(args) = command;
    let answer = answer(&args, core_api::promote_loops)?;
    let promoted = answer.get("promoted") == Some(&Value::Bool(true));
    let human = format!(
        "{}: {}",
        if promoted { "promoted" } else { "not promoted" },
        answer.get("reason").and_then(Value::as_str).unwrap_or_default()
    );
    let answer = Answer { json: output::json(&answer), human, code: if promoted { code::GO_ON } else { code::STOP } };
    output::print(&answer, json)?;
    Ok(answer.code)
}

pub fn drift(command: DriftCommand, json: bool) -> Result<u8, Failure> {
    let DriftCommand::Loops(args) = command;
    let answer = answer(&args, core_api::drift_loops)?;
    let status = answer.get("status").and_then(Value::as_str).unwrap_or_default().to_string();
    let mut human = status.clone();
    if let Some(Value::Array(reasons)) = answer.get("reasons") {
        for r in reasons {
            human.push_str(&format!("\n  {}", r.get("message").and_then(Value::as_str).unwrap_or_default()));
        }
    }
    let answer =
        Answer { json: output::json(&answer), human, code: if status == "fresh" { code::GO_ON } else { code::STOP } };
    output::print(&answer, json)?;
    Ok(answer.code)
}
