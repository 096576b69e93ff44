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
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (line_index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let path = index_path("runs", runs.len());
        match read(line, &path) {
            Ok(run) => runs.push(run),
            Err(e) if !name_lines => return Err(as_replay_error(e)),
            Err(e) => {
                let line_number = uint_string(line_index as u64 + 1);
                let message = concat(&[&path, " (line ", &line_number, "): ", e.message()]);
                let field = if e.field().starts_with("runs[") { e.field().to_string() } else { path };
                return Err(Error::new(CODE, e.kind(), field, message));
            }
        }
    }
    Ok(runs)
}
