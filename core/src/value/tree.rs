//! The dynamic [`Value`] every binding converts its host objects to, and the builders the
//! core's writers use.

use crate::num;
use crate::value::text::concat;

/// A JSON-like value with object keys kept in insertion order (JS objects keep it, and the
/// JavaScript implementations' outputs are compared key by key). `Undefined` keys are simply absent.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// JS `null` (Python: only produced by the core; a Python `None` means "absent").
    Null,
    /// A boolean.
    Bool(bool),
    /// Any number, including NaN and the infinities (rejected where they are not allowed).
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, keys in insertion order.
    Object(Vec<(String, Value)>),
    /// A host value with no JSON counterpart (a function, a symbol, a bigint, an arbitrary
    /// Python object), described by its type name for error messages.
    Other(String),
}

impl Value {
    /// An object from `(key, value)` pairs.
    pub fn object(entries: Vec<(&str, Value)>) -> Value {
        let mut out = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            out.push((k.to_string(), v));
        }
        Value::Object(out)
    }

    /// A string value.
    pub fn string(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    /// `Number(n)` or `Null`.
    pub fn opt_number(n: Option<f64>) -> Value {
        n.map_or(Value::Null, Value::Number)
    }

    /// Looks a key up in an object (the last occurrence wins, as in `JSON.parse`).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// A short description for error messages: `NaN`, `string "75"`, `null`, `object`.
    pub fn describe(&self) -> String {
        match self {
            Value::Null => "null".to_string(),
            Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
            Value::Number(n) => num::to_js_string(*n),
            Value::String(s) => {
                // The first 40 characters, found by a plain scan (`chars().take(40).collect()`
                // instantiates an iterator-specialized String extend, ~270 bytes of wasm).
                let mut end = s.len();
                for (count, (i, _)) in s.char_indices().enumerate() {
                    if count == 40 {
                        end = i;
                        break;
                    }
                }
                let mut shown = s.get(..end).unwrap_or(s).to_string();
                if shown.len() < s.len() {
                    shown.push_str("...");
                }
                concat(&["string \"", &shown, "\""])
            }
            Value::Array(_) => "array".to_string(),
            Value::Object(_) => "object".to_string(),
            Value::Other(t) => t.clone(),
        }
    }
}

/// Builds a result object one entry per call.
///
/// Why: written inline, each `("key".to_string(), Value::Number(x))` entry compiles to an
/// allocation, a copy and the value's construction at every site (~100 bytes of WebAssembly
/// each, hundreds of entries); one out-of-line call per entry keeps a site to its arguments.
pub(crate) struct ObjectBuilder {
    entries: Vec<(String, Value)>,
}

impl ObjectBuilder {
    pub(crate) fn new() -> Self {
        ObjectBuilder { entries: Vec::with_capacity(8) }
    }

    #[inline(never)]
    pub(crate) fn value(&mut self, key: &str, value: Value) -> &mut Self {
        self.entries.push((key.to_string(), value));
        self
    }

    #[inline(never)]
    pub(crate) fn number(&mut self, key: &str, n: f64) -> &mut Self {
        self.value(key, Value::Number(n))
    }

    /// `Number(n)` or `null`.
    #[inline(never)]
    pub(crate) fn opt_number(&mut self, key: &str, n: Option<f64>) -> &mut Self {
        self.value(key, n.map_or(Value::Null, Value::Number))
    }

    /// The entry only when `n` is `Some`.
    #[inline(never)]
    pub(crate) fn some_number(&mut self, key: &str, n: Option<f64>) -> &mut Self {
        if let Some(n) = n {
            self.number(key, n);
        }
        self
    }

    #[inline(never)]
    pub(crate) fn boolean(&mut self, key: &str, b: bool) -> &mut Self {
        self.value(key, Value::Bool(b))
    }

    #[inline(never)]
    pub(crate) fn string(&mut self, key: &str, s: &str) -> &mut Self {
        self.value(key, Value::String(s.to_string()))
    }

    /// The entry only when `s` is `Some`.
    pub(crate) fn some_string(&mut self, key: &str, s: Option<&str>) -> &mut Self {
        if let Some(s) = s {
            self.string(key, s);
        }
        self
    }

    pub(crate) fn build(&mut self) -> Value {
        Value::Object(std::mem::take(&mut self.entries))
    }
}

/// `Value::Array` of `to_value` over `items`: a plain loop, because every
/// `iter().map(..).collect()` instantiates its own iterator-specialized collect (~350 bytes of
/// WebAssembly each).
pub(crate) fn array_of<T>(items: &[T], to_value: impl Fn(&T) -> Value) -> Value {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(to_value(item));
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_shows_the_first_40_characters() {
        let forty = "é".repeat(40);
        assert_eq!(Value::string(forty.as_str()).describe(), concat(&["string \"", &forty, "\""]));
        let longer = concat(&[&forty, "x"]);
        assert_eq!(Value::string(longer).describe(), concat(&["string \"", &forty, "...\""]));
        assert_eq!(Value::string("").describe(), "string \"\"");
    }
}
