//! Shared checks for the portable snapshots: one JSON document per engine, with a
//! `version` and an `engine` name, the same in every language.

use crate::num::uint_string;
use crate::value::error::{Error, ErrorCode, ErrorKind, Result};
use crate::value::names::{FieldName, Naming};
use crate::value::reader::{index_path, ObjectReader, MAX_SAFE_INTEGER};
use crate::value::text::concat;
use crate::value::tree::Value;

/// The only snapshot version this build reads and writes.
pub const VERSION: u64 = 1;

/// Checks `version` and `engine` and rejects unknown top-level keys; returns a reader for
/// the rest. `fields` are all the snapshot's keys, `version` and `engine` first (a constant
/// list per engine, not a list built per call: less code in the WebAssembly module).
pub(crate) fn open<'a>(snapshot: &'a Value, engine: &str, fields: &[FieldName]) -> Result<ObjectReader<'a>> {
    let reader = ObjectReader::new(snapshot, "", "snapshot", Naming::Js, ErrorCode::InvalidSnapshot)?;
    // Another engine's snapshot is named as such before its keys are checked: its own keys
    // (a pyramid run's `totalLayers`) are not this engine's options.
    if let Some(Value::String(name)) = reader.get(FieldName::same("engine")) {
        check_engine(name, engine)?;
    }
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
    check_engine(reader.string(FieldName::same("engine"))?, engine)?;
    Ok(reader)
}

fn check_engine(name: &str, engine: &str) -> Result<()> {
    if name == engine {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::InvalidSnapshot,
        ErrorKind::Range,
        "engine",
        concat(&["snapshot is of engine '", name, "', expected '", engine, "'"]),
    ))
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

/// Parses snapshot JSON text (code `invalid_snapshot`, field `snapshot`). A byte-order mark
/// before the text is not part of it, as for JSONL replay input.
pub fn parse(text: &str) -> Result<Value> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Value::parse_json(text, ErrorCode::InvalidSnapshot, "snapshot")
}

// ---------------------------------------------------------------------------------------
// Reading results back: what every result reader shares (code `invalid_snapshot`: a result
// read back is a stored document, as a snapshot is)
// ---------------------------------------------------------------------------------------

/// An object reader at `path` (`what` names the root) that refuses keys outside `known`.
pub(crate) fn result_object<'a>(
    value: &'a Value,
    path: &'a str,
    what: &str,
    naming: Naming,
    known: &[FieldName],
) -> Result<ObjectReader<'a>> {
    let reader = ObjectReader::new(value, path, what, naming, ErrorCode::InvalidSnapshot)?;
    reader.reject_unknown(known)?;
    Ok(reader)
}

/// A required string naming one of `names` (a [`named_enum!`](crate::value) table's
/// `NAMES`), as the variant `parse` reads.
pub(crate) fn pick<T>(
    reader: &ObjectReader<'_>,
    field: FieldName,
    names: &[&str],
    parse: fn(&str) -> Option<T>,
) -> Result<T> {
    let chosen = reader.choice(field, names)?;
    // `choice` accepted the name, so `parse` reads it; the fallback is never taken.
    parse(chosen).ok_or_else(|| reader.range_error(field, "known", &Value::Null))
}

/// A key that must be present, holding `null` or a number within `min..=max`.
pub(crate) fn nullable_number(reader: &ObjectReader<'_>, field: FieldName, min: f64, max: f64) -> Result<Option<f64>> {
    match reader.get(field) {
        Some(Value::Null) => Ok(None),
        _ => reader.number(field, min, max).map(Some),
    }
}

/// A key that must be present, holding `null` or an integer within `min..=max`.
pub(crate) fn nullable_integer(reader: &ObjectReader<'_>, field: FieldName, min: u64, max: u64) -> Result<Option<u64>> {
    match reader.get(field) {
        Some(Value::Null) => Ok(None),
        _ => reader.integer(field, min, max).map(Some),
    }
}

/// A count or index that must fit `usize`.
pub(crate) fn index(reader: &ObjectReader<'_>, field: FieldName) -> Result<usize> {
    let n = reader.integer(field, 0, MAX_SAFE_INTEGER)?;
    usize::try_from(n)
        .map_err(|_| reader.range_error(field, "an index this platform can hold", &Value::Number(n as f64)))
}

/// A layer number that may be -1 (an empty pyramid's exit layer): an integer in -1..=2^53-1.
pub(crate) fn layer_number(reader: &ObjectReader<'_>, field: FieldName) -> Result<i64> {
    match reader.get(field) {
        Some(Value::Number(n)) if *n == -1.0 => Ok(-1),
        _ => reader.integer(field, 0, MAX_SAFE_INTEGER).map(|n| n as i64),
    }
}

/// Reads every item of the array `field` with `read(item, item path)`.
pub(crate) fn items<T>(
    reader: &ObjectReader<'_>,
    field: FieldName,
    read: impl Fn(&Value, &str) -> Result<T>,
) -> Result<Vec<T>> {
    let list = array(reader, field)?;
    let path = reader.path_of(field);
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        out.push(read(item, &index_path(&path, i))?);
    }
    Ok(out)
}

/// A range error on `field` saying why the value does not hold together.
pub(crate) fn inconsistent(reader: &ObjectReader<'_>, field: FieldName, why: &str) -> Error {
    let path = reader.path_of(field);
    Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Range, path.clone(), concat(&[&path, " ", why]))
}
