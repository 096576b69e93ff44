//! `earlyexit promote loops` and `earlyexit drift loops`: a loop calibration artifact promoted
//! on an audit split (recorded in the artifact), or checked against recent runs (and demoted).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::core_api::{self, Value};
use crate::output::{self, code, with_file, Answer, Failure};
use crate::state;

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
    /// The loop calibration artifact (`earlyexit calibrate loops --out FILE`).
    #[arg(long, value_name = "FILE")]
    artifact: String,
    /// JSONL files of loop runs (the audit split, or the recent runs), in order (`-` = standard input).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// Write the answer's artifact (promoted, or demoted) to this file.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn inputs(args: &LifecycleArgs) -> Result<(Value, Value), Failure> {
    let text = state::read_input(&args.artifact)?;
    let artifact =
        core_api::parse_json(&text, "invalid_artifact", "artifact").map_err(|e| with_file(e, &args.artifact))?;
    let mut runs = String::new();
    for file in &args.files {
        runs.push_str(&state::read_input(file)?);
        if !runs.ends_with('\n') {
            runs.push('\n');
        }
    }
    Ok((artifact, Value::string(runs)))
}

fn write_artifact(args: &LifecycleArgs, answer: &Value) -> Result<(), Failure> {
    if let (Some(out), Some(artifact)) = (&args.out, answer.get("artifact")) {
        state::lock(out)?.write_state(&output::json(artifact))?;
    }
    Ok(())
}

pub fn promote(command: PromoteCommand, json: bool) -> Result<u8, Failure> {
    let PromoteCommand::Loops(args) = command;
    let (artifact, runs) = inputs(&args)?;
    let answer = core_api::promote_loops(&artifact, &runs).map_err(|e| with_file(e, &args.artifact))?;
    write_artifact(&args, &answer)?;
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
    let (artifact, runs) = inputs(&args)?;
    let answer = core_api::drift_loops(&artifact, &runs).map_err(|e| with_file(e, &args.artifact))?;
    write_artifact(&args, &answer)?;
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
