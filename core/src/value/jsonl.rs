//! The one reader of replay input, for loop replay and pyramid replay alike: JSONL text
//! (or the bytes of a file), one run per line. One reader, one verdict: a byte-order mark,
//! a blank line, a syntax error, a line over the limits or text that is not UTF-8 get the
//! same answer from both replays in every language.

use crate::num::uint_string;
use crate::value::error::{Error, ErrorCode, ErrorKind, Result};
use crate::value::json::utf8_text;
use crate::value::reader::index_path;
use crate::value::text::concat;
use crate::value::tree::Value;

const CODE: ErrorCode = ErrorCode::InvalidReplay;

/// Replay input given as bytes (a file read as bytes): its text, which must be UTF-8 (code
/// `invalid_replay`, field `runs`, naming the first byte that is not). Bytes are never
/// decoded lossily: a replaced character would change an id or a layer name silently.
pub fn text_of_bytes(bytes: &[u8]) -> Result<&str> {
    utf8_text(bytes, CODE, "runs")
}

/// The error for `runs` that is neither a list of runs nor JSONL text.
pub(crate) fn runs_type_error(got: &Value) -> Error {
    Error::new(
        CODE,
        ErrorKind::Type,
        "runs",
        concat(&["runs must be an array of runs or JSONL text, got ", &got.describe()]),
    )
}

/// Every replay problem carries one code, `invalid_replay` (an unknown key too, with the
/// same suggestion), so a caller can tell bad replay input from a bad engine call.
pub(crate) fn as_replay_error(e: Error) -> Error {
    if e.error_code() == CODE {
        e
    } else {
        e.nested(CODE, "")
    }
}

/// Reads JSONL text: `read(line, path)` reads each non-blank line as the run at `path`
/// (`runs[i]`, `i` counting runs, not lines; each line one JSON document within the document
/// limits). A byte-order mark before the first line is not part of it. Every error has code
/// `invalid_replay`; with `name_lines` its message starts `runs[i] (line n): `. A syntax
/// error is a range error, as for any bad text.
pub(crate) fn read_lines<T>(
    text: &str,
    name_lines: bool,
    mut read: impl FnMut(&str, &str) -> Result<T>,
) -> Result<Vec<T>> {
    let mut runs = Vec::new();
    let mut lines = JsonlLines { name_lines, ..JsonlLines::new() };
    // `split`, not `lines`: `line` removes the `\r` of a `\r\n` itself.
    for line in text.split('\n') {
        if let Some(run) = lines.line(line, &mut read)? {
            runs.push(run);
        }
    }
    Ok(runs)
}

/// The JSONL reader of both replays, one line at a time, for hosts that stream a file (or
/// several) instead of holding its text: memory is bounded by the longest line. Runs are
/// counted across every text fed (`runs[i]` continues), lines within each text
/// ([`JsonlLines::start_text`] restarts them at 1 and allows a byte-order mark again). A
/// stream read this way gets exactly the runs and errors the whole text would.
#[derive(Clone, Debug)]
pub struct JsonlLines {
    runs: usize,
    line_index: u64,
    name_lines: bool,
}

impl Default for JsonlLines {
    fn default() -> Self {
        Self::new()
    }
}

impl JsonlLines {
    /// A reader at the start of its first text.
    pub fn new() -> Self {
        JsonlLines { runs: 0, line_index: 0, name_lines: true }
    }

    /// Starts the next text (file): line numbers restart at 1; run indices go on.
    pub fn start_text(&mut self) {
        self.line_index = 0;
    }

    /// Runs read so far (non-blank lines).
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The number (1-based) of the last line fed in the current text.
    pub fn line_number(&self) -> u64 {
        self.line_index
    }

    /// Feeds one line without its terminator (a `\r` before the `\n` is removed here too, as
    /// `str::lines` does): `None` for a blank line, else what `read(line, path)` made of it.
    pub fn line<T>(&mut self, line: &str, read: impl FnOnce(&str, &str) -> Result<T>) -> Result<Option<T>> {
        self.line_index += 1;
        let mut line = line.strip_suffix('\r').unwrap_or(line);
        if self.line_index == 1 {
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        if line.trim().is_empty() {
            return Ok(None);
        }
        let path = index_path("runs", self.runs);
        match read(line, &path) {
            Ok(run) => {
                self.runs += 1;
                Ok(Some(run))
            }
            Err(e) if !self.name_lines => Err(as_replay_error(e)),
            Err(e) => Err(self.line_error(&path, e)),
        }
    }

    /// [`JsonlLines::line`] for a line given as bytes: it must be UTF-8 (else `invalid_replay`,
    /// naming the run, its line and the first bad byte within the line).
    pub fn line_bytes<T>(&mut self, line: &[u8], read: impl FnOnce(&str, &str) -> Result<T>) -> Result<Option<T>> {
        match std::str::from_utf8(line) {
            Ok(text) => self.line(text, read),
            Err(_) => {
                self.line_index += 1;
                let path = index_path("runs", self.runs);
                let e =
                    utf8_text(line, CODE, &path).err().unwrap_or_else(|| Error::new(CODE, ErrorKind::Range, &path, ""));
                Err(self.line_error(&path, e))
            }
        }
    }

    /// Feeds a line the host stopped reading once it was longer than any line could be
    /// ([`MAX_DOCUMENT_BYTES`](crate::limits::MAX_DOCUMENT_BYTES) plus a line's terminator
    /// and a byte-order mark): the error [`JsonlLines::line`] gives a line over the document
    /// limit, without the host holding the whole line.
    pub fn line_too_long(&mut self) -> Error {
        self.line_index += 1;
        let path = index_path("runs", self.runs);
        let message = crate::value::over_limit("a document of more than ", crate::limits::MAX_DOCUMENT_BYTES, " bytes");
        let e = Error::new(CODE, ErrorKind::Range, &path, message);
        self.line_error(&path, e)
    }

    /// Bytes a host reads of one line (terminator included) before it can tell the line
    /// is over the document limit whatever follows: the limit, a byte-order mark (3 bytes),
    /// `\r\n` (2), and one byte over.
    pub const READ_LIMIT: usize = crate::limits::MAX_DOCUMENT_BYTES + 6;

    fn line_error(&self, path: &str, e: Error) -> Error {
        let line_number = uint_string(self.line_index);
        let message = concat(&[path, " (line ", &line_number, "): ", e.message()]);
        let field = if e.field().starts_with("runs[") { e.field().to_string() } else { path.to_string() };
        Error::new(CODE, e.kind(), field, message)
    }
}
