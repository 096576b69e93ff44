//! RFC 8785 (JSON Canonicalization Scheme) text of a [`Value`]: what a digest is taken over.
//!
//! RFC 8785 serializes numbers and strings exactly as ECMAScript's `JSON.stringify` does
//! (its section 3.2.2), which is what the core's writer ([`Value::to_json`]) already does and
//! is tested to do against two oracles; what it adds is the order of object keys (sorted by
//! their UTF-16 code units, recursively) and the refusal of what has no JSON form. So the
//! core's own writer, with keys sorted, is the canonicalizer: no second serializer to keep in
//! step with the first, and nothing outside the standard library.

use crate::value::error::{Error, ErrorCode, ErrorKind, Result};
use crate::value::json::{write_json, write_json_string};
use crate::value::reader::{index_path, join_path};
use crate::value::text::concat;
use crate::value::tree::Value;

impl Value {
    /// The RFC 8785 canonical JSON text of this value: object keys sorted by UTF-16 code
    /// units (a repeated key keeps its last value, as `JSON.parse` does), numbers and strings
    /// as `JSON.stringify` writes them, no whitespace. A non-finite number or a host value
    /// with no JSON form is a range error (`code`) naming its path under `field`.
    pub fn canonical_json(&self, code: ErrorCode, field: &str) -> Result<String> {
        let mut out = String::new();
        write(self, field, code, &mut out)?;
        Ok(out)
    }
}

fn write(value: &Value, path: &str, code: ErrorCode, out: &mut String) -> Result<()> {
    match value {
        Value::Number(n) if !n.is_finite() => Err(Error::new(
            code,
            ErrorKind::Range,
            path,
            concat(&[path, " must be a finite number (canonical JSON has no NaN or infinity)"]),
        )),
        Value::Other(kind) => {
            Err(Error::new(code, ErrorKind::Type, path, concat(&[path, " has no JSON form (", kind, ")"])))
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if always_written(item) {
                    write_json(item, out);
                } else {
                    write(item, &index_path(path, i), code, out)?;
                }
            }
            out.push(']');
            Ok(())
        }
        Value::Object(entries) => {
            // Indices in key order (UTF-16 code units, compared without collecting them).
            // Stable: of a repeated key, the last entry ends its run.
            let mut order: Vec<usize> = (0..entries.len()).collect();
            let key = |i: usize| entries.get(i).map_or("", |(k, _)| k.as_str());
            order.sort_by(|&a, &b| key(a).encode_utf16().cmp(key(b).encode_utf16()));
            out.push('{');
            let mut first = true;
            for (n, &i) in order.iter().enumerate() {
                if order.get(n + 1).is_some_and(|&next| key(next) == key(i)) {
                    continue;
                }
                let Some((name, item)) = entries.get(i) else { continue };
                if !first {
                    out.push(',');
                }
                first = false;
                write_json_string(name, out);
                out.push(':');
                if always_written(item) {
                    write_json(item, out);
                } else {
                    write(item, &join_path(path, name), code, out)?;
                }
            }
            out.push('}');
            Ok(())
        }
        scalar => {
            write_json(scalar, out);
            Ok(())
        }
    }
}

/// A value that cannot fail (no path needed for its error): a string, a boolean, `null` or
/// a finite number.
fn always_written(value: &Value) -> bool {
    match value {
        Value::String(_) | Value::Bool(_) | Value::Null => true,
        Value::Number(n) => n.is_finite(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> String {
        let value = Value::parse_json(text, ErrorCode::InvalidArtifact, "doc").unwrap_or(Value::Null);
        value.canonical_json(ErrorCode::InvalidArtifact, "doc").unwrap_or_default()
    }

    #[test]
    fn rfc_8785_section_3_2_2_example() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        let expected = "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\
                        \"string\":\"\u{20ac}$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
        assert_eq!(canonical(input), expected);
    }

    #[test]
    fn rfc_8785_section_3_2_3_sorts_by_utf16_code_units() {
        let input = r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh",
          "1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#;
        let out = canonical(input);
        let keys: Vec<&str> = ["\\r", "1", "\u{80}", "\u{f6}", "\u{20ac}", "\u{1f600}", "\u{fb33}"].to_vec();
        let mut at = 0;
        for key in keys {
            let found = out.get(at..).and_then(|rest| rest.find(&concat(&["\"", key, "\":"]))).map(|i| i + at);
            assert!(found.is_some(), "{key} not after byte {at} in {out}");
            at = found.unwrap_or(0) + 1;
        }
    }

    #[test]
    fn nested_objects_sort_and_repeated_keys_keep_the_last() {
        let value = Value::Object(vec![
            ("b".into(), Value::Object(vec![("z".into(), Value::Number(-0.0)), ("a".into(), Value::Bool(true))])),
            ("a".into(), Value::Number(1.0)),
            ("a".into(), Value::Number(2.0)),
        ]);
        assert_eq!(
            value.canonical_json(ErrorCode::InvalidArtifact, "x").ok().as_deref(),
            Some(r#"{"a":2,"b":{"a":true,"z":0}}"#)
        );
    }

    #[test]
    fn what_has_no_json_form_is_refused_with_its_path() {
        let value = Value::object(vec![("runs", Value::Array(vec![Value::Number(f64::NAN)]))]);
        let err = value.canonical_json(ErrorCode::InvalidArtifact, "artifact").err();
        assert_eq!(err.as_ref().map(Error::field), Some("artifact.runs[0]"));
        let value = Value::object(vec![("f", Value::Other("function".into()))]);
        assert_eq!(
            value.canonical_json(ErrorCode::InvalidReceipt, "").err().map(|e| e.field().to_string()).as_deref(),
            Some("f")
        );
    }
}
