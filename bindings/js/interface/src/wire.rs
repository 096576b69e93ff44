//! The text format that carries values across the JS boundary, in both directions.
//!
//! It is JSON, written and read by the JS layer (`bindings/js/api/codec.js`, `encode` and `unwrap`) and
//! by this module, plus one extension for what JSON cannot hold: an object whose only
//! key is `"\u0000"` stands for a non-JSON value (`{"\u0000":"NaN"}`, `"Infinity"`,
//! `"-Infinity"`, or a host type name such as `"undefined"` or `"function"`). A real key
//! that starts with `\u0000` is escaped by one more `\u0000`. `-0` is written as `-0`,
//! which `JSON.parse` reads back as negative zero. So a JS value reaches the core as the
//! exact [`Value`] it stands for (NaN stays NaN, a function stays "a function" for the
//! error message), and the core's results reach JS bit for bit.
//!
//! One string per call keeps a crossing cheap for napi and wasm alike (one string each
//! way instead of a native call per property).

use earlyexit::value::JsonReading;
use earlyexit::{kit::num, Error, ErrorCode, Value};

/// `[a, b].concat()` without std's generic `join`: the core's one copy.
pub(crate) use earlyexit::kit::value::concat;

/// The key that marks a non-JSON value.
pub const TAG: &str = "\u{0}";

earlyexit_js_fast::contract_table! {
    /// The first character of an answer that is not plain JSON (`""` is `undefined`).
    ANSWER_MARKS: u8, js "";
    /// `!{"code","kind","field","message"}`: an error.
    ANSWER_ERROR = b'!';
    /// `~<json>`: JSON holding tags.
    ANSWER_TAGGED = b'~';
}

/// Parses the arguments of a call within the core's limits on call arguments
/// ([`JsonReading::arguments`]: values counted per argument, or per item of each argument
/// for a batch call, `per_item`). The JS layer checks its values before it writes them, so
/// this is a backstop: a JS layer bug or a value over the limits fails here (code
/// `invalid_config`, field `arguments`).
pub fn decode(text: &str, per_item: bool) -> Result<Value, Error> {
    let value = Value::parse_json_as(text, ErrorCode::InvalidConfig, "arguments", JsonReading::arguments(per_item))?;
    // A byte scan, not `str::contains`: the substring searcher is ~1.3 KB of WebAssembly.
    Ok(if text.as_bytes().windows(6).any(|w| w == b"\\u0000") { untag(value) } else { value })
}

fn untag(value: Value) -> Value {
    match value {
        Value::Object(entries) => {
            if let [(key, Value::String(what))] = entries.as_slice() {
                if key == TAG {
                    return match what.as_str() {
                        "NaN" => Value::Number(f64::NAN),
                        "Infinity" => Value::Number(f64::INFINITY),
                        "-Infinity" => Value::Number(f64::NEG_INFINITY),
                        other => Value::Other(other.to_string()),
                    };
                }
            }
            // In place, by plain loops: each `into_iter().map(..).collect()` instantiates
            // its own in-place-collect code in the wasm module.
            let mut entries = entries;
            for (key, item) in entries.iter_mut() {
                if let Some(rest) = key.strip_prefix(TAG) {
                    *key = rest.to_string();
                }
                *item = untag(std::mem::replace(item, Value::Null));
            }
            Value::Object(entries)
        }
        Value::Array(mut items) => {
            for item in items.iter_mut() {
                *item = untag(std::mem::replace(item, Value::Null));
            }
            Value::Array(items)
        }
        other => other,
    }
}

/// Argument `i` of a call's arguments (absent arguments are `null`): the one reader behind
/// every op's argument struct (`contract::args`), so reading by name adds no code per op.
pub fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

/// What a call answers: the JS layer reads the first character.
/// `""` = `undefined`; `!{...}` = an error; `?` = the decision needs the outside
/// diminishing-returns source; `~<json>` = JSON holding tags; otherwise plain JSON.
pub struct Writer {
    out: String,
    tagged: bool,
}

impl Writer {
    fn new() -> Self {
        Writer { out: String::with_capacity(128), tagged: false }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => self.number(*n),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                }
                self.out.push(']');
            }
            Value::Object(entries) => {
                self.out.push('{');
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    if key.starts_with(TAG) {
                        self.tagged = true;
                        self.string(&concat(&[TAG, key]));
                    } else {
                        self.string(key);
                    }
                    self.out.push(':');
                    self.value(item);
                }
                self.out.push('}');
            }
            Value::Other(name) => self.tag(name),
        }
    }

    fn number(&mut self, n: f64) {
        if n == 0.0 {
            self.out.push_str(if n.is_sign_negative() { "-0" } else { "0" });
        } else if n.is_finite() {
            num::push_js_string(&mut self.out, n);
        } else if n.is_nan() {
            self.tag("NaN");
        } else if n > 0.0 {
            self.tag("Infinity");
        } else {
            self.tag("-Infinity");
        }
    }

    fn tag(&mut self, what: &str) {
        self.tagged = true;
        self.out.push_str("{\"\\u0000\":");
        self.string(what);
        self.out.push('}');
    }

    fn string(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.out.push('"');
        let mut start = 0;
        for (i, byte) in s.bytes().enumerate() {
            let escape: &str = match byte {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0..=0x1f => "",
                _ => continue,
            };
            self.out.push_str(s.get(start..i).unwrap_or_default());
            if escape.is_empty() {
                self.out.push_str("\\u00");
                self.out.push(char::from(HEX[usize::from(byte >> 4)]));
                self.out.push(char::from(HEX[usize::from(byte & 15)]));
            } else {
                self.out.push_str(escape);
            }
            start = i + 1;
        }
        self.out.push_str(s.get(start..).unwrap_or_default());
        self.out.push('"');
    }

    fn finish(self) -> String {
        if self.tagged {
            let mut marked = String::with_capacity(self.out.len() + 1);
            marked.push(char::from(ANSWER_TAGGED));
            marked.push_str(&self.out);
            marked
        } else {
            self.out
        }
    }
}

/// A value for the JS layer.
pub fn encode(value: &Value) -> String {
    let mut writer = Writer::new();
    writer.value(value);
    writer.finish()
}

/// A plain string result (no JSON needed for the common case of a bare string).
pub fn encode_str(s: &str) -> String {
    let mut writer = Writer::new();
    writer.string(s);
    writer.finish()
}

/// An error for the JS layer: `!{"code","kind","field","message"}`; the JS layer throws
/// a `TypeError` or `RangeError` carrying `.code` and `.field`.
pub fn encode_error(error: &Error) -> String {
    let mut writer = Writer::new();
    writer.out.push(char::from(ANSWER_ERROR));
    writer.out.push_str("{\"code\":");
    writer.string(error.code());
    writer.out.push_str(",\"kind\":");
    writer.string(error.kind().as_str());
    writer.out.push_str(",\"field\":");
    writer.string(error.field());
    writer.out.push_str(",\"message\":");
    writer.string(error.message());
    writer.out.push('}');
    writer.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_what_json_cannot_hold() {
        let text = r#"[{"\u0000":"NaN"},{"\u0000":"-Infinity"},-0,{"\u0000\u0000k":{"\u0000":"function"}},"a\u0000b"]"#;
        let value = decode(text, false).unwrap_or(Value::Null);
        let Value::Array(items) = &value else { panic!("not an array") };
        assert!(items[0].as_f64().is_some_and(f64::is_nan));
        assert_eq!(items[1], Value::Number(f64::NEG_INFINITY));
        assert!(items[2].as_f64().is_some_and(|n| n == 0.0 && n.is_sign_negative()));
        assert_eq!(items[3], Value::object(vec![("\u{0}k", Value::Other("function".into()))]));
        assert_eq!(items[4], Value::string("a\u{0}b"));
        assert_eq!(encode(&value), format!("~{text}"));
    }

    #[test]
    fn plain_json_is_unmarked() {
        let value = Value::object(vec![("q", Value::Number(0.1)), ("s", Value::string("x\"\n\u{1}"))]);
        assert_eq!(encode(&value), r#"{"q":0.1,"s":"x\"\n\u0001"}"#);
    }
}
