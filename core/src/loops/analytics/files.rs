//! Where the upstream form's saves write (`saveAnalytics`, `saveReport`) and the path
//! arguments they take. The core does no I/O: it names the file, a binding writes it.

use crate::loops::analytics::engine::IterationAnalytics;
use crate::value::{self, FieldName, Naming, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const FILENAME: FieldName = FieldName::same("filename");

/// Which file [`IterationAnalytics::file_target`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavedFile {
    /// The summary (`saveAnalytics`).
    Summary,
    /// The markdown report (`saveReport`).
    Report,
}

/// Where a save writes (see [`IterationAnalytics::file_target`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileTarget {
    /// The caller's file name, as given.
    Given(String),
    /// upstream's default: `name` inside the folder `dir`.
    Default {
        /// The storage folder.
        dir: String,
        /// The file's name.
        name: String,
    },
}

impl IterationAnalytics {
    /// Where `saveAnalytics(filename)` or `saveReport(filename)` write (see [`file_target`]).
    pub fn file_target(&self, filename: &Value, file: SavedFile, naming: Naming) -> Result<FileTarget> {
        file_target(self.loop_id(), &self.config.storage_path, filename, file, naming)
    }
}

/// Where `saveAnalytics(filename)` (`file` = [`SavedFile::Summary`]) or `saveReport(filename)`
/// write for an analytics object with `loop_id` and `storage_path`: the `filename` given (a
/// non-empty string), else upstream's default, `<storagePath>/<loopId>.json` or
/// `<storagePath>/<loopId>-report.md` (the binding joins the two with its path module). The
/// config-object form has no `loopId` to name a default file, so it needs a `filename`.
pub fn file_target(
    loop_id: Option<&str>,
    storage_path: &str,
    filename: &Value,
    file: SavedFile,
    naming: Naming,
) -> Result<FileTarget> {
    let field = FILENAME.spelled(naming);
    match filename {
        Value::Null => {}
        Value::Other(t) if t == "undefined" => {}
        other => return path_argument(other, field).map(FileTarget::Given),
    }
    let Some(loop_id) = loop_id else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            field,
            value::concat(&[
                field,
                " must be given: this IterationAnalytics was made with the config-object form and has no loopId \
                 to name its file",
            ]),
        ));
    };
    let suffix = match file {
        SavedFile::Summary => ".json",
        SavedFile::Report => "-report.md",
    };
    Ok(FileTarget::Default { dir: storage_path.to_string(), name: value::concat(&[loop_id, suffix]) })
}

/// A path argument (`saveAnalytics(filename)`, `IterationAnalytics.load(filepath)`): a
/// non-empty string. upstream treats `''` (and every falsy value) as "use the default"; a
/// path is a value here, so an empty one is refused.
pub fn path_argument(value: &Value, field: &str) -> Result<String> {
    match value {
        Value::String(s) if !s.is_empty() => Ok(s.clone()),
        Value::String(_) => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            field,
            value::concat(&[field, " must be a non-empty string, got string \"\""]),
        )),
        other => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            field,
            value::concat(&[field, " must be a string, got ", &other.describe()]),
        )),
    }
}
