//! The size limits, in one table: what one call, one JSON document and one JSONL line may
//! hold. Every binding enforces these same numbers with typed errors (`docs/limits.md`).
//!
//! Why limits at all: without them a caller could make the core allocate by a number it
//! chose (`speculate(d, 2**40)`), exhaust the stack (a value nested 100,000 deep, or one
//! that contains itself), or exhaust a WebAssembly instance's 4 GiB of memory (a document
//! whose value tree is 16 times its text). The values are generous for real use (a
//! snapshot of a 1,000,000-record loop is about 160 MB and 8 million values) and keep the
//! worst case of any one call within what a WebAssembly instance can hold.
//!
//! The limits apply per call argument, per document and per JSONL line, never to a whole
//! stream of lines: a replay of any number of runs stays possible, each run (line, or item
//! of an array of runs) within the limits on its own.

use crate::num::uint_string;
use crate::value::error::{Error, ErrorCode, ErrorKind, Result};
use crate::value::text::concat;

/// Containers nested in one host value (a Python object, a JS value): 200 levels.
pub const MAX_VALUE_DEPTH: usize = 200;

/// Containers nested in one JSON document (a snapshot, a model, a JSONL line, the JS
/// layer's call arguments): 256 levels, so a document's own envelope (a snapshot around a
/// stored layer result, the arguments array around a value) fits around a host value at
/// its limit.
pub const MAX_DOCUMENT_DEPTH: usize = 256;

/// Values (every number, string, boolean, null, array and object counts one) in one host
/// value or one document: 16,777,216. A value tree takes at most ~64 bytes per value.
pub const MAX_VALUES: usize = 1 << 24;

/// Keys of one object: 1,048,576.
pub const MAX_OBJECT_KEYS: usize = 1 << 20;

/// Bytes (UTF-8) of one string inside a host value or a document: 16 MiB. A text given as
/// a whole argument (a snapshot's JSON text, a model's, JSONL replay input, a name) is not
/// a string inside a value: it is read as documents, each within [`MAX_DOCUMENT_BYTES`].
pub const MAX_STRING_BYTES: usize = 1 << 24;

/// Bytes (UTF-8) of one JSON document: a snapshot's or a model's text, one JSONL line:
/// 256 MiB.
pub const MAX_DOCUMENT_BYTES: usize = 1 << 28;

/// Layers of one pyramid: a layer list, a run's recorded layers, a policy model's layers,
/// and the count of skipped layers `speculate` predicts: 10,000.
pub const MAX_LAYERS: usize = 10_000;

// How the limits relate, checked when the crate compiles: room for a document's envelope
// around a host value at its depth, and no limit inside a document larger than the document.
const _: () = assert!(MAX_VALUE_DEPTH + 8 <= MAX_DOCUMENT_DEPTH);
const _: () = assert!(MAX_STRING_BYTES <= MAX_DOCUMENT_BYTES && MAX_OBJECT_KEYS <= MAX_VALUES);

/// One limit: its name (camelCase for JS, snake_case for Python) and its value. What each
/// bounds is said on its constant above and in `docs/limits.md` (not here: the table is in
/// the size-budgeted WebAssembly module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The JS spelling (`LIMITS.valueDepth`).
    pub js: &'static str,
    /// The Python spelling (`LIMITS["value_depth"]`).
    pub snake: &'static str,
    /// The value.
    pub value: usize,
}

/// Every limit, in the order `docs/limits.md` lists them (a test checks the page against it).
pub const ALL: [Limit; 7] = [
    Limit { js: "valueDepth", snake: "value_depth", value: MAX_VALUE_DEPTH },
    Limit { js: "documentDepth", snake: "document_depth", value: MAX_DOCUMENT_DEPTH },
    Limit { js: "values", snake: "values", value: MAX_VALUES },
    Limit { js: "objectKeys", snake: "object_keys", value: MAX_OBJECT_KEYS },
    Limit { js: "stringBytes", snake: "string_bytes", value: MAX_STRING_BYTES },
    Limit { js: "documentBytes", snake: "document_bytes", value: MAX_DOCUMENT_BYTES },
    Limit { js: "layers", snake: "layers", value: MAX_LAYERS },
];

/// How a host value is over a limit, as the core describes it in an error message ("config
/// must be an object, got a value nested deeper than 200 levels"). A binding that finds a
/// host value over a limit while converting it passes `Value::Other` of this description
/// in its place, so the core rejects the argument with its own code and field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Excess {
    /// Nested deeper than [`MAX_VALUE_DEPTH`].
    Depth,
    /// Contains itself (a cycle found while converting).
    Cycle,
    /// More than [`MAX_VALUES`] values.
    Values,
    /// An object with more than [`MAX_OBJECT_KEYS`] keys.
    Keys,
    /// A string longer than [`MAX_STRING_BYTES`].
    String,
    /// An object with two keys that read the same once converted to text (a Python dict
    /// holding `1` and `"1"`): the text of that key.
    CollidingKeys(String),
}

impl Excess {
    /// The description an error message shows where it names what it got.
    pub fn describe(&self) -> String {
        let limit = |n: usize| uint_string(n as u64);
        match self {
            Excess::Depth => concat(&["a value nested deeper than ", &limit(MAX_VALUE_DEPTH), " levels"]),
            Excess::Cycle => "a value that contains itself".to_string(),
            Excess::Values => concat(&["a value of more than ", &limit(MAX_VALUES), " values"]),
            Excess::Keys => concat(&["a value holding an object of more than ", &limit(MAX_OBJECT_KEYS), " keys"]),
            Excess::String => concat(&["a value holding a string of more than ", &limit(MAX_STRING_BYTES), " bytes"]),
            Excess::CollidingKeys(key) => concat(&["a value holding an object with two keys that read '", key, "'"]),
        }
    }
}

/// Refuses a list of more than [`MAX_LAYERS`] layers (`field`: the list's path). A binding
/// that reads layers from an iterator stops after `MAX_LAYERS + 1` and calls this.
pub fn check_layer_count(count: usize, code: ErrorCode, field: &str) -> Result<()> {
    if count <= MAX_LAYERS {
        return Ok(());
    }
    Err(too_many_layers(code, field))
}

/// The error for a list of layers at `field` longer than [`MAX_LAYERS`] (for a binding that
/// reads an iterator and stops at the limit, before it knows the length).
pub fn too_many_layers(code: ErrorCode, field: &str) -> Error {
    let most = uint_string(MAX_LAYERS as u64);
    let message = concat(&[field, " holds more than ", &most, " layers (the limit)"]);
    Error::new(code, ErrorKind::Range, field, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_constant_once() {
        let values: Vec<usize> = ALL.iter().map(|l| l.value).collect();
        assert_eq!(
            values,
            [
                MAX_VALUE_DEPTH,
                MAX_DOCUMENT_DEPTH,
                MAX_VALUES,
                MAX_OBJECT_KEYS,
                MAX_STRING_BYTES,
                MAX_DOCUMENT_BYTES,
                MAX_LAYERS
            ]
        );
    }
}
