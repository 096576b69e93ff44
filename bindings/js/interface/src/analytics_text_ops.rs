//! IterationAnalytics's occasional ops, stateless over its snapshot: the markdown report, the
//! quality chart, `formatDuration`, upstream's load (a saved summary to a snapshot), the
//! assignment of upstream's public fields (a snapshot to a changed snapshot), where a save
//! writes, and the check of one record written into `iterations`. Op codes `IA_TEXT_*` (230..=237 in `contract::OPS`).
//!
//! Why stateless: the wasm package's engines module has a size budget every page pays for;
//! these ops are text generation and file handling that a loop calls once, if ever, so the
//! wasm build answers them in its replay module (loaded on first use; `init({ replay: true })`
//! in a browser) from the engine's snapshot, and the engines module does not link them. The
//! napi addon answers them like any other op. The per-record ops, and the summary that an
//! upstream-form object saves after each record, stay in the engines module.

use earlyexit::loops::analytics::{self, FileTarget, SavedFile};
use earlyexit::{IterationAnalytics, Naming, Result, Value};

use crate::op::{
    IA_TEXT_ASSIGN as ASSIGN, IA_TEXT_CHART as CHART, IA_TEXT_DURATION as DURATION, IA_TEXT_FILE as FILE,
    IA_TEXT_FROM_SUMMARY as FROM_SUMMARY, IA_TEXT_PATH_CHECK as PATH_CHECK, IA_TEXT_RECORD_CHECK as RECORD_CHECK,
    IA_TEXT_REPORT as REPORT,
};

/// `IA_TEXT_FILE`'s last argument: which file a save writes (`SavedFile`), by name.
pub const FILE_KINDS: [(&str, &str); 2] = [("SUMMARY", "json"), ("REPORT", "report")];

/// Whether `op` is one of this file's (never without the `replay` feature: the wasm engines
/// module leaves these ops to the replay module, so none of their code is linked into it).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay") && (REPORT..=RECORD_CHECK).contains(&op)
}

fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

fn restored(snapshot: &Value) -> Result<IterationAnalytics> {
    IterationAnalytics::from_snapshot(snapshot)
}

/// Answers one of this file's ops (`None`: nothing to answer).
pub fn exec(op: u32, args: &[Value]) -> Result<Option<Value>> {
    let now = |i: usize| arg(args, i).as_str().unwrap_or_default();
    let value = match op {
        REPORT => Value::String(restored(arg(args, 0))?.report_value(arg(args, 1), Naming::Js, now(2))?),
        CHART => Value::String(restored(arg(args, 0))?.quality_chart()),
        DURATION => Value::String(IterationAnalytics::format_duration(arg(args, 0))?),
        FROM_SUMMARY => {
            let loaded = IterationAnalytics::from_summary(
                arg(args, 0),
                arg(args, 1),
                Naming::Js,
                arg(args, 2).as_str(),
                arg(args, 3).as_bool() == Some(true),
            )?;
            Value::Array(vec![loaded.to_snapshot(), Value::Bool(loaded.persists())])
        }
        ASSIGN => {
            let mut a = restored(arg(args, 0))?;
            a.assign(arg(args, 1).as_str().unwrap_or_default(), arg(args, 2), Naming::Js)?;
            a.to_snapshot()
        }
        FILE => {
            let report = FILE_KINDS.iter().any(|(name, kind)| *name == "REPORT" && arg(args, 3).as_str() == Some(kind));
            let file = if report { SavedFile::Report } else { SavedFile::Summary };
            let storage_path = arg(args, 1).as_str().unwrap_or_default();
            match analytics::file_target(arg(args, 0).as_str(), storage_path, arg(args, 2), file, Naming::Js)? {
                FileTarget::Given(path) => Value::object(vec![("path", Value::String(path))]),
                FileTarget::Default { dir, name } => {
                    Value::object(vec![("dir", Value::String(dir)), ("name", Value::String(name))])
                }
            }
        }
        RECORD_CHECK => {
            analytics::check_written_record(arg(args, 0), arg(args, 1).as_str().unwrap_or_default(), Naming::Js)?;
            return Ok(None);
        }
        _ => {
            debug_assert_eq!(op, PATH_CHECK);
            analytics::path_argument(arg(args, 0), "filepath")?;
            return Ok(None);
        }
    };
    Ok(Some(value))
}
