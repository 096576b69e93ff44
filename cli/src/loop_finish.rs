//! Shadow mode from the command line: `loop record --shadow` (the candidate a new state file
//! keeps) and `earlyexit loop finish` (the run's receipt, appended to a receipt log).

use std::path::{Path, PathBuf};

use clap::Args;

use crate::core_api::{self, EarlyStopping, Value};
use crate::output::{self, code, with_file, with_flag, Answer, Failure};
use crate::state;
use earlyexit::loops::shadow::{RunNames, ShadowCandidate};

#[derive(Args, Debug)]
pub struct FinishArgs {
    /// The state file of a loop recorded with --shadow.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// Whether the output the loop hands back (its policy's best, or last, iteration) was
    /// good: yes or no (omit when unknown; a passed verification stands in for it).
    #[arg(long, value_name = "yes|no")]
    good: Option<String>,
    /// The run's id (one per run; default: the SHA-256 of the state file's text).
    #[arg(long, value_name = "ID")]
    run_id: Option<String>,
    /// The task the run worked on (repeated runs of one task share it).
    #[arg(long, value_name = "ID")]
    task: Option<String>,
    /// The dataset of the task.
    #[arg(long, value_name = "NAME")]
    dataset: Option<String>,
    /// The run's label (a branch, a pool): receipts are counted per label too.
    #[arg(long, value_name = "LABEL")]
    label: Option<String>,
    /// A receipt log (JSONL, hash-chained) to append the receipt to; created when missing.
    #[arg(long, value_name = "FILE")]
    receipts: Option<PathBuf>,
    /// A JSONL file of runs (the replay and calibration form) to append the run to.
    #[arg(long, value_name = "FILE")]
    runs: Option<PathBuf>,
}

/// The run in the replay and calibration form: `{id, dataset?, iterations}`, each record as
/// recorded without its number and timestamp, `good` on the returned iteration when given.
fn run_line(engine: &EarlyStopping, id: &str, dataset: Option<&str>, good: Option<(u64, bool)>) -> Value {
    let iterations = engine
        .history()
        .iter()
        .filter_map(|record| {
            let Value::Object(mut entries) = record.to_value() else { return None };
            entries.retain(|(k, _)| k != "iteration_number" && k != "timestamp");
            if let Some((_, g)) = good.filter(|(i, _)| *i == record.observation.iteration) {
                entries.push(("good".to_string(), Value::Bool(g)));
            }
            Some(Value::Object(entries))
        })
        .collect();
    let mut entries = vec![("id".to_string(), Value::string(id))];
    if let Some(dataset) = dataset {
        entries.push(("dataset".to_string(), Value::string(dataset)));
    }
    entries.push(("iterations".to_string(), Value::Array(iterations)));
    Value::Object(entries)
}

/// The `--shadow` argument: JSON text when it starts with `{` or `"`, else a file to read.
pub fn shadow_arg(given: Option<&str>, store: &Option<String>) -> Result<Option<ShadowCandidate>, Failure> {
    let Some(given) = given else { return Ok(None) };
    if let Some(name) = crate::store_artifact::name_of(given) {
        let value = crate::store_artifact::read(store, name, "--shadow")?;
        return core_api::shadow_candidate(&value).map(Some).map_err(|e| with_file(e, given));
    }
    let trimmed = given.trim_start();
    let (text, source) = if trimmed.starts_with('{') || trimmed.starts_with('"') {
        (given.to_string(), None)
    } else {
        (state::read_input(given)?, Some(given))
    };
    let in_source = |e| match source {
        Some(path) => with_file(e, path),
        None => with_flag(e, "--shadow"),
    };
    let value = core_api::parse_json(&text, "invalid_config", "shadow").map_err(in_source)?;
    core_api::shadow_candidate(&value).map(Some).map_err(in_source)
}

/// `--shadow` given for an existing state file: the candidate it keeps, or an error.
pub fn adopt_shadow(path: &Path, engine: &EarlyStopping, given: Option<ShadowCandidate>) -> Result<(), Failure> {
    match (given, engine.shadow()) {
        (None, _) => Ok(()),
        (Some(given), Some(kept)) if given == *kept.candidate() => Ok(()),
        (Some(_), _) => Err(Failure::Usage(format!(
            "{} holds a loop with another shadow (or none); --shadow only sets up a new state file (delete it, \
             or use another one)",
            path.display()
        ))),
    }
}

fn yes_no(given: Option<&str>) -> Result<Option<bool>, Failure> {
    match given {
        None => Ok(None),
        Some("yes") => Ok(Some(true)),
        Some("no") => Ok(Some(false)),
        Some(other) => Err(Failure::Usage(format!("--good must be yes or no, got {other:?}"))),
    }
}

pub fn finish(args: &FinishArgs) -> Result<Answer, Failure> {
    let good = yes_no(args.good.as_deref())?;
    let file = args.state.display().to_string();
    let Some(text) = state::read(&args.state)? else {
        return Err(Failure::Input { path: file, message: "no such state file".into() });
    };
    let snapshot = core_api::parse_snapshot(&text).map_err(|e| with_file(e, &file))?;
    let engine = EarlyStopping::from_snapshot(&snapshot).map_err(|e| with_file(e, &file))?;
    let run_id = args.run_id.clone().unwrap_or_else(|| earlyexit_digest::sha256_hex(text.as_bytes()));
    let names = RunNames {
        run_id: Some(&run_id),
        task: args.task.as_deref(),
        dataset: args.dataset.as_deref(),
        run_label: args.label.as_deref(),
    };
    let Some(receipt) = core_api::loop_receipt(&engine, good, &names) else {
        return Err(Failure::Usage(format!("{file} holds no shadow: record the loop with --shadow to get receipts")));
    };
    let mut appended = 0;
    if let Some(log) = &args.receipts {
        let locked = state::lock(log)?;
        let text = locked.read()?.unwrap_or_default();
        let lines = earlyexit::receipt_log::append_receipts(
            &text,
            std::slice::from_ref(&receipt),
            &earlyexit_digest::Sha256Hasher,
        )
        .map_err(|e| with_file(e, &log.display().to_string()))?;
        // A receipt already in the log (a retried step) appends nothing.
        appended = lines.lines().filter(|l| !l.is_empty()).count();
        if appended > 0 {
            let whole = text + &lines;
            locked.write(whole.strip_suffix('\n').unwrap_or(&whole))?;
        }
    }
    if let Some(path) = &args.runs {
        let output = core_api::output_iteration(&engine);
        let line =
            run_line(&engine, args.task.as_deref().unwrap_or(&run_id), args.dataset.as_deref(), output.zip(good));
        let locked = state::lock(path)?;
        let mut text = locked.read()?.unwrap_or_default();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&line.to_json());
        locked.write(&text)?;
    }
    let label = receipt.get("label").and_then(Value::as_str).unwrap_or_default().to_string();
    let stopped = receipt.get("stoppedAt").and_then(Value::as_f64);
    let mut human = match stopped {
        Some(at) => format!(
            "shadow would have stopped at iteration {} of {}: {label}",
            core_api::js_number(at),
            core_api::js_number(receipt.get("iterations").and_then(Value::as_f64).unwrap_or(0.0))
        ),
        None => format!("shadow never fired: {label}"),
    };
    if let Some(log) = &args.receipts {
        human.push_str(&format!("\n  {} receipt appended to {}", appended, log.display()));
    }
    let doc = Value::object(vec![("receipt", receipt), ("appended", Value::Number(appended as f64))]);
    Ok(Answer { json: output::json(&doc), human, code: code::GO_ON })
}
