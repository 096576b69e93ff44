//! Reading host values with typed, field-naming errors: [`ObjectReader`] for objects (unknown
//! keys refused with a suggestion), checks for standalone arguments, and field paths.

use crate::num;
use crate::value::error::{Error, ErrorCode, ErrorKind, Result};
use crate::value::names::{FieldName, Naming};
use crate::value::text::{concat, join};
use crate::value::tree::Value;

/// Appends `.name` (or `name` at the root) to a field path.
pub(crate) fn join_path(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        concat(&[prefix, ".", name])
    }
}

/// Appends `[index]` to a field path.
pub(crate) fn index_path(prefix: &str, index: usize) -> String {
    concat(&[prefix, "[", &crate::num::uint_string(index as u64), "]"])
}

/// The non-empty array a reader found at `path` (`item`; `None` when missing): a `Type` error
/// ("must be `expected`, got ...") when it is not an array, a `Range` error when it is empty
/// ("must hold at least one `one`").
pub(crate) fn nonempty_array<'v>(
    item: Option<&'v Value>,
    path: &str,
    code: ErrorCode,
    expected: &str,
    one: &str,
) -> Result<&'v [Value]> {
    match item {
        Some(Value::Array(items)) if !items.is_empty() => Ok(items),
        Some(Value::Array(_)) => {
            Err(Error::new(code, ErrorKind::Range, path.to_string(), concat(&[path, " must hold at least one ", one])))
        }
        other => {
            let got = other.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
            let message = concat(&[path, " must be ", expected, ", got ", &got]);
            Err(Error::new(code, ErrorKind::Type, path.to_string(), message))
        }
    }
}

/// Levenshtein distance over characters, ignoring ASCII case, for "did you mean" suggestions.
///
/// ASCII folding only: every option name is ASCII, and Unicode `to_lowercase` would pull its
/// case tables (~5 KB) into the size-budgeted WebAssembly build for no practical difference.
fn edit_distance(a: &str, b: &str) -> usize {
    // Plain loops: each `collect` here would instantiate its own iterator-specialized code.
    let mut b_chars: Vec<char> = Vec::with_capacity(b.len());
    for c in b.chars() {
        b_chars.push(c.to_ascii_lowercase());
    }
    let b = b_chars;
    let mut row: Vec<usize> = Vec::with_capacity(b.len() + 1);
    for j in 0..=b.len() {
        row.push(j);
    }
    for (i, ca) in a.chars().map(|c| c.to_ascii_lowercase()).enumerate() {
        let mut diagonal = i;
        let mut left = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(0);
            let cost = usize::from(ca != *cb);
            let best = (diagonal + cost).min(up + 1).min(left + 1);
            diagonal = up;
            if let Some(slot) = row.get_mut(j + 1) {
                *slot = best;
            }
            left = best;
        }
    }
    row.last().copied().unwrap_or(0)
}

/// The error for `key`, which is none of `known` (spelled for `naming`), at `path.key`:
/// "unknown option 'key'; did you mean 'closest'? Valid options: ...". The suggestion is
/// `suggest` when given, else the closest known name when it is within half the longer
/// name's length (letter case aside).
pub(crate) fn unknown_key(
    code: ErrorCode,
    path: &str,
    key: &str,
    known: &[FieldName],
    naming: Naming,
    suggest: Option<&str>,
) -> Error {
    // Plain loops, not `map(..).collect()` and `min_by_key`: fewer iterator
    // instantiations in the wasm module. The first closest name wins, as with min_by_key.
    let mut names: Vec<&str> = Vec::with_capacity(known.len());
    let mut closest = "";
    let mut closest_distance = usize::MAX;
    for f in known {
        let name = f.spelled(naming);
        let distance = edit_distance(key, name);
        if distance < closest_distance {
            closest = name;
            closest_distance = distance;
        }
        names.push(name);
    }
    let mut msg = concat(&["unknown option '", key, "'"]);
    let suggestion = match suggest {
        Some(name) => Some(name),
        None => (closest_distance <= closest.len().max(key.len()) / 2).then_some(closest),
    };
    if let Some(name) = suggestion {
        msg.push_str("; did you mean '");
        msg.push_str(name);
        msg.push_str("'?");
    }
    msg.push_str(" Valid options: ");
    msg.push_str(&join(&names, ", "));
    Error::new(code, ErrorKind::Type, join_path(path, key), msg)
}

/// The known name that `key` nearly spells, if any: a spelling of one of `known` (either
/// naming's, `other` included: another binding's spelling) that is not one `naming` reads,
/// but that `key` equals or is within edit distance 2 of, letter case aside; answered in
/// `naming`'s spelling. `aliases`: with snake_case names, the JS spelling is read too (as
/// [`ObjectReader`] reads mappings), so it is no near-miss.
pub(crate) fn near_miss<'k>(key: &str, known: &'k [FieldName], naming: Naming, aliases: bool) -> Option<&'k str> {
    let reads = |f: &FieldName| f.spelled(naming) == key || (aliases && naming == Naming::Snake && f.js() == key);
    if known.iter().any(reads) {
        return None;
    }
    let mut best: Option<&'k str> = None;
    let mut best_distance = 3;
    for f in known {
        for spelling in [f.js(), f.snake()] {
            let distance = edit_distance(key, spelling);
            if distance < best_distance {
                best = Some(f.spelled(naming));
                best_distance = distance;
            }
        }
    }
    best
}

/// Reads one object argument: rejects unknown keys with a suggestion, and reads known
/// fields with typed, field-naming errors.
pub(crate) struct ObjectReader<'a> {
    entries: &'a [(String, Value)],
    path: &'a str,
    naming: Naming,
    code: ErrorCode,
}

impl<'a> ObjectReader<'a> {
    /// `value` must be an object; otherwise a type error on `path` (or `what` at the root).
    pub fn new(value: &'a Value, path: &'a str, what: &str, naming: Naming, code: ErrorCode) -> Result<Self> {
        match value {
            Value::Object(entries) => Ok(ObjectReader { entries, path, naming, code }),
            other => {
                let field = if path.is_empty() { what } else { path };
                Err(Error::new(
                    code,
                    ErrorKind::Type,
                    field,
                    concat(&[field, " must be an object, got ", &other.describe()]),
                ))
            }
        }
    }

    /// Full path of a field for messages and `Error::field()`.
    pub fn path_of(&self, field: FieldName) -> String {
        join_path(self.path, field.spelled(self.naming))
    }

    /// Whether `key` names `field`: its spelling for this naming or, with snake_case names,
    /// its JS spelling too.
    pub fn spells(&self, field: &FieldName, key: &str) -> bool {
        field.spelled(self.naming) == key || (self.naming == Naming::Snake && field.js() == key)
    }

    /// Rejects the first key (in the object's own order) that is not in `known`, then (with
    /// snake_case names) a field given under both of its spellings.
    pub fn reject_unknown(&self, known: &[FieldName]) -> Result<()> {
        for (key, _) in self.entries {
            if !known.iter().any(|f| self.spells(f, key)) {
                // Inside a document (a snapshot, an artifact, a receipt) every problem is the
                // document's: one code for the whole of it.
                let code = if matches!(
                    self.code,
                    ErrorCode::InvalidSnapshot | ErrorCode::InvalidArtifact | ErrorCode::InvalidReceipt
                ) {
                    self.code
                } else {
                    ErrorCode::UnknownOption
                };
                return Err(unknown_key(code, self.path, key, known, self.naming, None));
            }
        }
        self.reject_both_spellings(known)
    }

    /// With snake_case names, refuses the first field of `known` (in its order) that the
    /// object gives under both spellings (`pass_rate` and `passRate`): a type error on the
    /// snake_case path, with the reader's code. Readers that keep unknown keys call it
    /// themselves; `reject_unknown` calls it.
    pub fn reject_both_spellings(&self, known: &[FieldName]) -> Result<()> {
        if self.naming != Naming::Snake {
            return Ok(());
        }
        for field in known {
            let (js, snake) = (field.js(), field.snake());
            if js != snake && self.find(js).is_some() && self.find(snake).is_some() {
                let path = self.path_of(*field);
                let message = concat(&[&path, " is given twice, as ", js, " and as ", snake, "; give one of them"]);
                return Err(Error::new(self.code, ErrorKind::Type, path, message));
            }
        }
        Ok(())
    }

    /// The value of the entry named `key` (the last one, as in `JSON.parse`).
    fn find(&self, key: &str) -> Option<&'a Value> {
        self.entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of a known field, if present (with snake_case names, under either spelling).
    pub fn get(&self, field: FieldName) -> Option<&'a Value> {
        let key = field.spelled(self.naming);
        match self.find(key) {
            None if self.naming == Naming::Snake && field.js() != key => self.find(field.js()),
            found => found,
        }
    }

    fn type_error(&self, field: FieldName, expected: &str, got: Option<&Value>) -> Error {
        let path = self.path_of(field);
        let got = got.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
        Error::new(self.code, ErrorKind::Type, path.clone(), concat(&[&path, " must be ", expected, ", got ", &got]))
    }

    /// A range error on `field` with `requirement` ("a finite number between 0 and 1").
    pub fn range_error(&self, field: FieldName, requirement: &str, got: &Value) -> Error {
        let path = self.path_of(field);
        Error::new(
            self.code,
            ErrorKind::Range,
            path.clone(),
            concat(&[&path, " must be ", requirement, ", got ", &got.describe()]),
        )
    }

    /// A required finite number within `min..=max`.
    pub fn number(&self, field: FieldName, min: f64, max: f64) -> Result<f64> {
        let value = self.get(field);
        match value {
            Some(v @ Value::Number(n)) => {
                check_range(*n, min, max).ok_or_else(|| self.range_error(field, &range_text(min, max), v))
            }
            other => Err(self.type_error(field, "a number", other)),
        }
    }

    /// An optional finite number within `min..=max`.
    pub fn opt_number(&self, field: FieldName, min: f64, max: f64) -> Result<Option<f64>> {
        match self.get(field) {
            None => Ok(None),
            Some(_) => self.number(field, min, max).map(Some),
        }
    }

    /// A required integer within `min..=max` (both within 2^53).
    pub fn integer(&self, field: FieldName, min: u64, max: u64) -> Result<u64> {
        let value = self.get(field);
        match value {
            Some(v @ Value::Number(n)) => {
                check_integer(*n, min, max).ok_or_else(|| self.range_error(field, &integer_text(min, max), v))
            }
            other => Err(self.type_error(field, "an integer", other)),
        }
    }

    /// An optional integer within `min..=max`.
    pub fn opt_integer(&self, field: FieldName, min: u64, max: u64) -> Result<Option<u64>> {
        match self.get(field) {
            None => Ok(None),
            Some(_) => self.integer(field, min, max).map(Some),
        }
    }

    /// A required boolean.
    pub fn boolean(&self, field: FieldName) -> Result<bool> {
        match self.get(field) {
            Some(Value::Bool(b)) => Ok(*b),
            other => Err(self.type_error(field, "a boolean", other)),
        }
    }

    /// A required string.
    pub fn string(&self, field: FieldName) -> Result<&'a str> {
        match self.get(field) {
            Some(Value::String(s)) => Ok(s),
            other => Err(self.type_error(field, "a string", other)),
        }
    }

    /// An optional string.
    pub fn opt_string(&self, field: FieldName) -> Result<Option<&'a str>> {
        match self.get(field) {
            None => Ok(None),
            Some(_) => self.string(field).map(Some),
        }
    }

    /// A required string that must be one of `allowed`.
    pub fn choice(&self, field: FieldName, allowed: &[&str]) -> Result<&'a str> {
        let s = self.string(field)?;
        if allowed.contains(&s) {
            Ok(s)
        } else {
            let requirement = concat(&["one of '", &join(allowed, "', '"), "'"]);
            Err(self.range_error(field, &requirement, &Value::String(s.to_string())))
        }
    }
}

/// `Some(n)` when `n` is finite and within `min..=max`.
pub(crate) fn check_range(n: f64, min: f64, max: f64) -> Option<f64> {
    (n.is_finite() && n >= min && n <= max).then_some(n)
}

/// `sum + value`, or a range error (`code`, `field`) when the running total would no longer
/// be finite: each value is finite, but a sum of huge ones can overflow to Infinity, which
/// no JSON document carries and no total honestly reports. The one rule for every running
/// total of costs, tokens and durations (loop usage, pyramid costs and savings).
pub(crate) fn add_to_total(sum: f64, value: f64, field: &str, code: ErrorCode) -> Result<f64> {
    let total = sum + value;
    if total.is_finite() {
        return Ok(total);
    }
    Err(Error::new(
        code,
        ErrorKind::Range,
        field,
        concat(&[
            field,
            " would make the running total overflow: ",
            &num::to_js_string(sum),
            " + ",
            &num::to_js_string(value),
            " is not a finite number",
        ]),
    ))
}

/// Largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// `Some(n as u64)` when `n` is an integer within `min..=max`.
pub(crate) fn check_integer(n: f64, min: u64, max: u64) -> Option<u64> {
    if n.is_finite() && n.fract() == 0.0 && n >= min as f64 && n <= max as f64 {
        Some(n as u64)
    } else {
        None
    }
}

pub(crate) fn range_text(min: f64, max: f64) -> String {
    if max == f64::MAX {
        concat(&["a finite number >= ", &num::to_js_string(min)])
    } else if min == f64::MIN {
        "a finite number".to_string()
    } else {
        concat(&["a finite number between ", &num::to_js_string(min), " and ", &num::to_js_string(max)])
    }
}

pub(crate) fn integer_text(min: u64, max: u64) -> String {
    if max >= MAX_SAFE_INTEGER {
        concat(&["an integer >= ", &crate::num::uint_string(min)])
    } else {
        concat(&["an integer between ", &crate::num::uint_string(min), " and ", &crate::num::uint_string(max)])
    }
}

/// Validates a standalone integer argument such as an iteration number or a layer index.
pub(crate) fn integer_argument(value: &Value, field: &str, code: ErrorCode, min: u64, max: u64) -> Result<u64> {
    match value {
        Value::Number(n) => check_integer(*n, min, max).ok_or_else(|| {
            Error::new(
                code,
                ErrorKind::Range,
                field,
                concat(&[field, " must be ", &integer_text(min, max), ", got ", &value.describe()]),
            )
        }),
        other => Err(Error::new(
            code,
            ErrorKind::Type,
            field,
            concat(&[field, " must be an integer, got ", &other.describe()]),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::field_name;

    #[test]
    fn suggestion_names_closest_key() {
        let v = Value::object(vec![("plateauCount", Value::Number(3.0))]);
        let reader = ObjectReader::new(&v, "", "config", Naming::Js, ErrorCode::InvalidConfig)
            .unwrap_or_else(|_| unreachable!());
        let known = [field_name!("plateauConsecutiveCount", "plateau_consecutive_count"), FieldName::same("x")];
        let err = reader.reject_unknown(&known).err().unwrap_or_else(|| unreachable!());
        assert_eq!(err.code(), "unknown_option");
        assert_eq!(err.field(), "plateauCount");
        assert!(err.message().contains("did you mean 'plateauConsecutiveCount'"), "{}", err.message());
    }
}
