//! A user label: the slice of runs a run belongs to besides its stage set (a branch, a
//! runner pool), as recorded runs, live runs' options, receipts and artifacts carry it.

use crate::value::{self, Error, ErrorCode, ErrorKind, Result, Value};

/// The longest user label, in characters.
pub const MAX_LABEL_CHARS: usize = 128;

/// Reads a user label (a slice of runs: a branch, a runner pool): a string of 1 to
/// [`MAX_LABEL_CHARS`] characters, not blank, without control characters; errors name `path`.
pub fn read_label(value: &Value, path: &str, code: ErrorCode) -> Result<String> {
    let Value::String(text) = value else {
        let message = value::concat(&[path, " must be a string (a label such as a branch), got ", &value.describe()]);
        return Err(Error::new(code, ErrorKind::Type, path, message));
    };
    let chars = text.chars().count();
    if chars == 0 || chars > MAX_LABEL_CHARS || text.trim().is_empty() || text.chars().any(char::is_control) {
        let message = value::concat(&[
            path,
            " must be 1 to ",
            &crate::num::uint_string(MAX_LABEL_CHARS as u64),
            " characters, not blank, without control characters, got ",
            &value.describe(),
        ]);
        return Err(Error::new(code, ErrorKind::Range, path, message));
    }
    Ok(text.clone())
}
