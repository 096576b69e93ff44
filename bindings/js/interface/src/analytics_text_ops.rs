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

use earlyexit::kit;
use earlyexit::loops::analytics::{FileTarget, SavedFile};
use earlyexit::{IterationAnalytics, Naming, Result, Value};

use crate::args;
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

fn restored(snapshot: &Value) -> Result<IterationAnalytics> {
    IterationAnalytics::from_snapshot(snapshot)
}

/// Answers one of this file's ops (`None`: nothing to answer).
pub fn exec(op: u32, args: &[Value]) -> Result<Option<Value>> {
    let value = match op {
        REPORT => {
            let a = args::IA_TEXT_REPORT::read(args);
            let now = a.now.as_str().unwrap_or_default();
            Value::String(restored(a.snapshot)?.report_value(a.options, Naming::Js, now)?)
        }
        CHART => Value::String(restored(args::IA_TEXT_CHART::read(args).snapshot)?.quality_chart()),
        DURATION => Value::String(IterationAnalytics::format_duration(args::IA_TEXT_DURATION::read(args).ms)?),
        FROM_SUMMARY => {
            let a = args::IA_TEXT_FROM_SUMMARY::read(args);
            let loaded = IterationAnalytics::from_summary(
                a.summary,
                a.config,
                Naming::Js,
                a.folder.as_str(),
                a.files.as_bool() == Some(true),
            )?;
            Value::Array(vec![loaded.to_snapshot(), Value::Bool(loaded.persists())])
        }
        ASSIGN => {
            let given = args::IA_TEXT_ASSIGN::read(args);
            let mut a = restored(given.snapshot)?;
            a.assign(given.field.as_str().unwrap_or_default(), given.value, Naming::Js)?;
            a.to_snapshot()
        }
        FILE => {
            let a = args::IA_TEXT_FILE::read(args);
            let report = FILE_KINDS.iter().any(|(name, kind)| *name == "REPORT" && a.kind.as_str() == Some(kind));
            let file = if report { SavedFile::Report } else { SavedFile::Summary };
            let storage_path = a.storage_path.as_str().unwrap_or_default();
            match kit::loops::analytics::file_target(a.loop_id.as_str(), storage_path, a.filename, file, Naming::Js)? {
                FileTarget::Given(path) => Value::object(vec![("path", Value::String(path))]),
                FileTarget::Default { dir, name } => {
                    Value::object(vec![("dir", Value::String(dir)), ("name", Value::String(name))])
                }
            }
        }
        RECORD_CHECK => {
            let a = args::IA_TEXT_RECORD_CHECK::read(args);
            kit::loops::analytics::check_written_record(a.record, a.path.as_str().unwrap_or_default(), Naming::Js)?;
            return Ok(None);
        }
        _ => {
            debug_assert_eq!(op, PATH_CHECK);
            kit::loops::analytics::path_argument(args::IA_TEXT_PATH_CHECK::read(args).filepath, "filepath")?;
            return Ok(None);
        }
    };
    Ok(Some(value))
}
