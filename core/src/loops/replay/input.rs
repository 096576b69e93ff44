//! A loop replay's input: an array of run objects, or JSONL text (one run per line, read by
//! the one JSONL reader both replays share, `value::jsonl`). Plain lines go through the fast
//! line reader (`lines`), every other line through the general one.

use crate::loops::replay::lines;
use crate::loops::replay::runs::{ReplayRun, CODE};
use crate::value::jsonl::as_replay_error;
use crate::value::Result;
use crate::value::{self, Naming, Value};

/// Parses an array of run objects, or JSONL text (`runs[i]...` in errors).
pub fn runs_from_value(value: &Value, naming: Naming) -> Result<Vec<ReplayRun>> {
    read_runs(value, naming).map_err(as_replay_error)
}

fn read_runs(value: &Value, naming: Naming) -> Result<Vec<ReplayRun>> {
    match value {
        Value::Array(items) => {
            // A plain loop: `map(..).collect::<Result<_>>()` instantiates iterator-specialized
            // code per run type (the wasm replay module's size).
            let mut runs = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                runs.push(ReplayRun::from_value(item, naming, &value::index_path("runs", i))?);
            }
            Ok(runs)
        }
        Value::String(text) => parse_jsonl(text, naming),
        other => Err(crate::value::jsonl::runs_type_error(other)),
    }
}

/// Parses JSONL text: one run object per line, blank lines skipped. The `i`-th run (0-based,
/// blank lines not counted) is `runs[i]` in errors, and the message names its line. The one
/// JSONL reader of loop and pyramid replay ([`crate::value::jsonl`]).
pub fn parse_jsonl(text: &str, naming: Naming) -> Result<Vec<ReplayRun>> {
    parse_lines(text, naming, true)
}

/// Parses runs serialized one per line from an array: errors name `runs[i]...` without a
/// line number, exactly as for the array itself. No line may be blank.
pub fn runs_from_lines(text: &str, naming: Naming) -> Result<Vec<ReplayRun>> {
    parse_lines(text, naming, false)
}

fn parse_lines(text: &str, naming: Naming, name_lines: bool) -> Result<Vec<ReplayRun>> {
    crate::value::jsonl::read_lines(text, name_lines, |line, path| read_run_line(line, naming, path))
}

/// Reads one JSONL line as the run at `path` (`runs[3]`), as [`parse_jsonl`] reads each of
/// its lines: for hosts that stream a file through [`JsonlLines`](crate::value::jsonl::JsonlLines).
pub fn read_run_line(line: &str, naming: Naming, path: &str) -> Result<ReplayRun> {
    // Most lines are plain (what JSON.stringify or json.dumps write for valid runs): read
    // them without building a value tree. Anything else, every invalid line included,
    // goes through the general reader, which words the error.
    if let Some(run) = lines::read_run(line) {
        return Ok(run);
    }
    let value = Value::parse_json(line, CODE, path)?;
    ReplayRun::from_value(&value, naming, path)
}
