//! Shared checks for the portable snapshots: one JSON document per engine, with a
//! `version` and an `engine` name, the same in every language.

use crate::num::uint_string;
use crate::value::error::{Error, ErrorCode, ErrorKind, Result};
use crate::value::names::{FieldName, Naming};
use crate::value::reader::{ObjectReader, MAX_SAFE_INTEGER};
use crate::value::text::concat;
use crate::value::tree::Value;

/// The only snapshot version this build reads and writes.
pub const VERSION: u64 = 1;

/// Checks `version` and `engine` and rejects unknown top-level keys; returns a reader for
/// the rest. `fields` are all the snapshot's keys, `version` and `engine` first (a constant
/// list per engine, not a list built per call: less code in the WebAssembly module).
pub(crate) fn open<'a>(snapshot: &'a Value, engine: &str, fields: &[FieldName]) -> Result<ObjectReader<'a>> {
    let reader = ObjectReader::new(snapshot, "", "snapshot", Naming::Js, ErrorCode::InvalidSnapshot)?;
    reader.reject_unknown(fields).map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
    let version = reader.integer(FieldName::same("version"), 0, MAX_SAFE_INTEGER)?;
    if version != VERSION {
        return Err(Error::new(
            ErrorCode::InvalidSnapshot,
            ErrorKind::Range,
            "version",
            concat(&["snapshot version ", &uint_string(version), " is not supported (this build reads version 1)"]),
        ));
    }
    let name = reader.string(FieldName::same("engine"))?;
    if name != engine {
        return Err(Error::new(
            ErrorCode::InvalidSnapshot,
            ErrorKind::Range,
            "engine",
            concat(&["snapshot is of engine '", name, "', expected '", engine, "'"]),
        ));
    }
    Ok(reader)
}

/// A required array field of a snapshot (or of a value read back like one: the result
/// readers), named by its path under the reader.
pub(crate) fn array<'a>(reader: &ObjectReader<'a>, field: FieldName) -> Result<&'a [Value]> {
    match reader.get(field) {
        Some(Value::Array(items)) => Ok(items),
        other => {
            let path = reader.path_of(field);
            let got = other.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
            let message = concat(&[&path, " must be an array, got ", &got]);
            Err(Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Type, path, message))
        }
    }
}

/// Parses snapshot JSON text (code `invalid_snapshot`, field `snapshot`).
pub fn parse(text: &str) -> Result<Value> {
    Value::parse_json(text, ErrorCode::InvalidSnapshot, "snapshot")
}
