//! JSON text in and out: [`Value::to_json`] writes as `JSON.stringify` does, and
//! [`Value::parse_json`] reads as `JSON.parse` does, within the document limits.

use crate::num;
use crate::value::error::{Error, ErrorCode, ErrorKind, Result};
use crate::value::parser::{JsonParser, JsonReading};
use crate::value::text::concat;
use crate::value::tree::Value;

impl Value {
    /// Serializes exactly as JavaScript's `JSON.stringify` does for the same value
    /// (numbers via `Number.prototype.toString`, non-finite numbers as `null`).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_json(self, &mut out);
        out
    }

    /// Parses one JSON document (as `JSON.parse`, numbers to the nearest f64) within the
    /// document limits ([`crate::limits`]: bytes, depth, values, keys per object, string
    /// bytes). Errors carry `code`/`field` so a binding can report where a document came from.
    pub fn parse_json(text: &str, code: ErrorCode, field: &str) -> Result<Value> {
        Self::parse_json_as(text, code, field, JsonReading::DOCUMENT)
    }

    /// Parses JSON text read as `reading` says (a document, or a call's arguments).
    pub fn parse_json_as(text: &str, code: ErrorCode, field: &str, reading: JsonReading) -> Result<Value> {
        // Text is the right type; text that is not JSON, or is over a limit, is a bad value.
        JsonParser::new(text, reading).document().map_err(|message| Error::new(code, ErrorKind::Range, field, message))
    }
}

pub(crate) fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Null | Value::Other(_) => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.is_finite() {
                num::push_js_string(out, *n)
            } else {
                out.push_str("null")
            }
        }
        Value::String(s) => write_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(entries) => {
            out.push('{');
            let mut first = true;
            for (key, item) in entries {
                if matches!(item, Value::Other(_)) {
                    continue; // JSON.stringify drops functions and symbols
                }
                if !first {
                    out.push(',');
                }
                first = false;
                write_json_string(key, out);
                out.push(':');
                write_json(item, out);
            }
            out.push('}');
        }
    }
}

pub(crate) fn write_json_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    // Runs of characters that need no escape are copied whole: every character that does
    // (`"`, `\\`, below U+0020) is one ASCII byte, never part of a longer UTF-8 sequence, so
    // each split falls between characters.
    let bytes = s.as_bytes();
    // Most strings (keys, digests, timestamps) need no escape at all: one scan, one copy.
    if !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(s.get(start..i).unwrap_or_default());
        start = i + 1;
        if escape.is_empty() {
            let code = usize::from(b);
            out.push_str("\\u00");
            out.push(char::from(HEX.get(code >> 4).copied().unwrap_or(b'0')));
            out.push(char::from(HEX.get(code & 15).copied().unwrap_or(b'0')));
        } else {
            out.push_str(escape);
        }
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

/// Text given as bytes (a file's contents): the bytes as UTF-8, or a range error
/// (`code`, `field`) naming the first byte that is not. Never lossy: a replaced character
/// would change a name or an id without a word.
pub fn utf8_text<'a>(bytes: &'a [u8], code: ErrorCode, field: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = num::uint_string(e.valid_up_to() as u64);
        Error::new(code, ErrorKind::Range, field, concat(&[field, " is not UTF-8 text: invalid at byte ", &at]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One character at a time: what `write_json_string` must equal.
    fn escaped_by_chars(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn strings_escape_as_one_character_at_a_time() {
        let mut every: String = (0u8..0x80).map(char::from).collect();
        every.push_str("é€😀\"\\x\u{7f}\u{1f}end");
        for s in ["", "plain", "\"", "a\nb", "\u{0}", &every, "😀\t😀"] {
            let mut out = String::new();
            write_json_string(s, &mut out);
            assert_eq!(out, escaped_by_chars(s));
        }
    }

    proptest::proptest! {
        #[test]
        fn any_string_escapes_as_one_character_at_a_time(s in "\\PC*|[\\x00-\\x7f]*") {
            let mut out = String::new();
            write_json_string(&s, &mut out);
            proptest::prop_assert_eq!(out, escaped_by_chars(&s));
        }
    }

    #[test]
    fn json_round_trip_keeps_order_and_numbers() {
        let text = r#"{"b":1,"a":[true,null,"x\n\"y\u00e9"],"c":0.1,"d":-0,"e":1e21}"#;
        let value = Value::parse_json(text, ErrorCode::InvalidSnapshot, "snapshot").unwrap_or(Value::Null);
        assert_eq!(value.to_json(), r#"{"b":1,"a":[true,null,"x\n\"yé"],"c":0.1,"d":0,"e":1e+21}"#);
    }

    #[test]
    fn json_unicode_escapes_take_exactly_four_hex_digits() {
        let parse = |t: &str| Value::parse_json(t, ErrorCode::InvalidSnapshot, "snapshot");
        assert_eq!(parse(r#""\u00e9\u00C9""#).ok(), Some(Value::String("éÉ".into())));
        // A sign is not a hex digit (JSON.parse rejects these too).
        for bad in [r#""\u+0e9""#, r#""\u-0e9""#, r#""\u00g9""#] {
            let err = parse(bad).err().map(|e| e.message().to_string()).unwrap_or_default();
            assert!(err.contains("bad \\u escape at byte 3"), "{bad}: {err}");
        }
        let err = parse(r#""\u00""#).err().map(|e| e.message().to_string()).unwrap_or_default();
        assert!(err.contains("short \\u escape"), "{err}");
    }

    #[test]
    fn json_rejects_garbage_and_deep_nesting() {
        for bad in ["", "{", "[1,]", "01", "1.", "\"abc", "{\"a\" 1}", "nul", "[1] x"] {
            assert!(Value::parse_json(bad, ErrorCode::InvalidSnapshot, "snapshot").is_err(), "{bad}");
        }
        let deep = "[".repeat(10_000);
        assert!(Value::parse_json(&deep, ErrorCode::InvalidSnapshot, "snapshot").is_err());
    }
}
