//! The dynamic value every binding converts its host objects to, and the validation
//! helpers over it. Keeping parsing here means every rule, every field name and every
//! message comes from the core, whichever language called.

use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::jsnum;
use crate::limits;

/// A JSON-like value with object keys kept in insertion order (JS objects keep it, and the
/// seed's outputs are compared key by key). `Undefined` keys are simply absent.
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

/// How the caller spells names: JS camelCase (the seed's API) or snake_case (Python, Rust).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Naming {
    /// `plateauConsecutiveCount`, `layers[2].passRate`: the only spelling JS input may use.
    Js,
    /// `plateau_consecutive_count`, `layers[2].pass_rate`: how output and error fields are
    /// spelled. Input may spell each field either way (a Python dict from `to_dict()`, or one
    /// loaded from JSON, carries the JS spelling), but not both ways in one object.
    Snake,
}

/// A field known under two spellings, stored as one static string: the camelCase spelling,
/// then (when it differs) a space and the snake_case one (`"passRate pass_rate"`); build
/// two-spelling names with [`field_name!`].
///
/// Why one string: a `FieldName` is an argument of every field read, and one `&str` travels
/// as two plain values, where two `&str`s were built in memory at each of the ~170 call
/// sites in the WebAssembly module (~35 bytes each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldName {
    spellings: &'static str,
}

/// `field_name!("passRate", "pass_rate")`: a [`FieldName`] with distinct spellings (camelCase
/// first).
macro_rules! field_name {
    ($js:literal, $snake:literal) => {
        $crate::value::FieldName::pair(concat!($js, " ", $snake))
    };
}
pub(crate) use field_name;

impl FieldName {
    /// A field spelled the same in both conventions.
    pub const fn same(name: &'static str) -> Self {
        FieldName { spellings: name }
    }

    /// A field with distinct spellings, `"camelCase snake_case"` (see [`field_name!`]).
    pub const fn pair(spellings: &'static str) -> Self {
        FieldName { spellings }
    }

    /// The camelCase spelling (the seed's).
    pub fn js(&self) -> &'static str {
        self.spelled(Naming::Js)
    }

    /// The snake_case spelling.
    pub fn snake(&self) -> &'static str {
        self.spelled(Naming::Snake)
    }

    /// The spelling for `naming`.
    pub fn spelled(&self, naming: Naming) -> &'static str {
        let both = self.spellings;
        match both.bytes().position(|b| b == b' ') {
            None => both,
            Some(space) => match naming {
                Naming::Js => both.get(..space).unwrap_or(both),
                Naming::Snake => both.get(space + 1..).unwrap_or(both),
            },
        }
    }
}

/// Whether two keys name one field: equal, or one is the camelCase spelling of the other
/// (`plateauConsecutiveCount`, `plateau_consecutive_count`; every [`FieldName`] pair is
/// spelled so). A binding that merges keyword arguments over a mapping drops the mapping's
/// entry for a field the keywords give, whichever spelling the mapping used.
pub fn same_field(a: &str, b: &str) -> bool {
    a == b || snake_spelling(a) == b || snake_spelling(b) == a
}

/// `plateauConsecutiveCount` -> `plateau_consecutive_count` (an `_` before each ASCII
/// capital, which is lowered).
fn snake_spelling(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
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

    pub(crate) fn build(&mut self) -> Value {
        Value::Object(std::mem::take(&mut self.entries))
    }
}

/// The pieces joined, as `[a, b, c].concat()` gives them: one small loop instead of std's
/// generic `join`, whose specialized copy loops are ~0.9 KB of WebAssembly.
pub fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `text.replacen(from, to, 1)`: the first occurrence of `from` replaced by `to`. A byte
/// scan instead of std's two-way substring searcher (~1.5 KB of WebAssembly).
pub(crate) fn replace_first(text: &str, from: &str, to: &str) -> String {
    let (bytes, needle) = (text.as_bytes(), from.as_bytes());
    for start in 0..=bytes.len().saturating_sub(needle.len()) {
        if bytes.get(start..start + needle.len()) == Some(needle) {
            if let (Some(head), Some(tail)) = (text.get(..start), text.get(start + needle.len()..)) {
                return concat(&[head, to, tail]);
            }
        }
    }
    text.to_string()
}

/// Objects up to this many keys (a config with every option set has 19) are checked for
/// repeated keys pairwise (at most 496 comparisons, no allocation); larger ones by sorting their keys, so the check costs
/// O(n log n) comparisons instead of the O(n²) of comparing every pair.
const PAIRWISE_KEYS: usize = 32;

/// `JSON.parse`'s rule for repeated keys: the last value wins, at the first key's position.
/// `work` counts the key comparisons made.
///
/// Why a sort and not a hash map: the map (hashbrown with SipHash) is ~4.9 KB of the
/// size-budgeted WebAssembly module, this merge sort ~1 KB, and its worst case is n log n
/// whatever the keys (no hash flooding).
pub(crate) fn dedupe_last_wins(entries: &mut Vec<(String, Value)>, work: &mut u64) {
    let count = entries.len();
    if count <= PAIRWISE_KEYS && !repeats_pairwise(entries, work) {
        return; // the common case: a small object, no repeated key, nothing allocated
    }
    // Sorted by key, stably: equal keys end up adjacent, the first occurrence first. Then
    // `first[i]` is the index of the first entry with entry i's key.
    let order = sorted_by_key(entries, work);
    let mut first: Vec<usize> = Vec::with_capacity(count);
    for i in 0..count {
        first.push(i);
    }
    let mut run_first = 0;
    let mut previous = "";
    for (n, &i) in order.iter().enumerate() {
        let key = key_at(entries, i);
        if n == 0 || key != previous {
            run_first = i;
        }
        if let Some(slot) = first.get_mut(i) {
            *slot = run_first;
        }
        previous = key;
    }
    // In entry order, so the last value of a repeated key is the one left in the first's
    // slot; then the first occurrences move up, in order.
    let mut kept = 0;
    for i in 0..count {
        let f = first.get(i).copied().unwrap_or(i);
        if f == i {
            entries.swap(kept, i);
            if let Some(slot) = first.get_mut(i) {
                *slot = kept; // where the key now is
            }
            kept += 1;
        } else {
            let target = first.get(f).copied().unwrap_or(f);
            let item = entries.get_mut(i).map(|e| std::mem::replace(&mut e.1, Value::Null));
            if let (Some(item), Some(slot)) = (item, entries.get_mut(target)) {
                slot.1 = item;
            }
        }
    }
    entries.truncate(kept);
}

#[inline(never)]
fn key_at(entries: &[(String, Value)], i: usize) -> &str {
    entries.get(i).map_or("", |(k, _)| k.as_str())
}

/// Whether any key of a small object repeats (each pair compared once).
fn repeats_pairwise(entries: &[(String, Value)], work: &mut u64) -> bool {
    for (i, (key, _)) in entries.iter().enumerate() {
        for (earlier, _) in entries.iter().take(i) {
            *work += 1;
            if earlier == key {
                return true;
            }
        }
    }
    false
}

/// The entries' indices sorted stably by key (a bottom-up merge sort: n log n comparisons
/// whatever the keys).
fn sorted_by_key(entries: &[(String, Value)], work: &mut u64) -> Vec<usize> {
    let count = entries.len();
    let mut from: Vec<usize> = Vec::with_capacity(count);
    let mut to: Vec<usize> = Vec::with_capacity(count);
    for i in 0..count {
        from.push(i);
        to.push(i);
    }
    let mut width = 1;
    while width < count {
        let mut start = 0;
        while start < count {
            let middle = (start + width).min(count);
            let end = (start + 2 * width).min(count);
            let (mut left, mut right) = (start, middle);
            for slot in to.get_mut(start..end).unwrap_or_default() {
                let l = from.get(left).copied().unwrap_or(0);
                let r = from.get(right).copied().unwrap_or(0);
                let take_left = left < middle
                    && (right >= end || {
                        *work += 1;
                        key_at(entries, l) <= key_at(entries, r)
                    });
                *slot = if take_left { l } else { r };
                if take_left {
                    left += 1;
                } else {
                    right += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

/// The pieces with `separator` between them, as `parts.join(separator)` gives them.
pub(crate) fn join(parts: &[&str], separator: &str) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(part);
    }
    out
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
            Value::Number(n) => jsnum::to_js_string(*n),
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

/// How [`Value::parse_json_as`] reads a text: which limits of [`crate::limits`] apply where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonReading {
    max_bytes: usize,
    /// Values are counted per value that starts at this nesting depth (0: the whole text).
    values_scope: usize,
    /// Strings are limited from this nesting depth on (0: every string).
    strings_from: usize,
}

impl JsonReading {
    /// One JSON document (a snapshot, a model, one JSONL line): every limit, on the whole text.
    pub const DOCUMENT: JsonReading =
        JsonReading { max_bytes: limits::MAX_DOCUMENT_BYTES, values_scope: 0, strings_from: 0 };

    /// The arguments of one call, as a JSON array (the JS layer's wire format): no limit on
    /// the text (an argument may be a whole JSONL stream), values counted per argument, or
    /// per item of each argument with `per_item` (a batch of runs: each run on its own),
    /// and strings limited inside arguments only (an argument that is text is a document or
    /// a stream of lines, read as such).
    pub const fn arguments(per_item: bool) -> JsonReading {
        JsonReading { max_bytes: usize::MAX, values_scope: if per_item { 2 } else { 1 }, strings_from: 2 }
    }
}

fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Null | Value::Other(_) => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.is_finite() {
                jsnum::push_js_string(out, *n)
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

fn write_json_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let code = c as usize;
                out.push_str("\\u00");
                out.push(char::from(HEX.get(code >> 4).copied().unwrap_or(b'0')));
                out.push(char::from(HEX.get(code & 15).copied().unwrap_or(b'0')));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// "over the limits: `before` `limit` `after`", the start of every limit's message.
#[inline(never)]
pub(crate) fn over_limit(before: &str, limit: usize, after: &str) -> String {
    concat(&["over the limits: ", before, &jsnum::uint_string(limit as u64), after])
}

struct JsonParser<'a> {
    /// The document; `bytes` is the same text. Slices between ASCII delimiters are always
    /// on character boundaries, so taking them from `text` needs no UTF-8 re-validation.
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    reading: JsonReading,
    /// Values read so far in the current scope (see [`JsonReading`]).
    values: usize,
    /// Key comparisons and hash lookups made to find repeated keys (the work a test counts
    /// to show the parser linear).
    key_work: u64,
}

impl<'a> JsonParser<'a> {
    fn new(text: &'a str, reading: JsonReading) -> Self {
        JsonParser { text, bytes: text.as_bytes(), pos: 0, depth: 0, reading, values: 0, key_work: 0 }
    }

    fn fail(&self, what: &str) -> String {
        concat(&["invalid JSON: ", what, " at byte ", &jsnum::uint_string(self.pos as u64)])
    }

    /// The message of a limit the text went over, with where.
    #[inline(never)]
    fn over(&self, before: &str, limit: usize, after: &str) -> String {
        concat(&[&over_limit(before, limit, after), " at byte ", &jsnum::uint_string(self.pos as u64)])
    }

    fn document(&mut self) -> Result<Value, String> {
        if self.bytes.len() > self.reading.max_bytes {
            return Err(over_limit("a document of more than ", self.reading.max_bytes, " bytes"));
        }
        self.skip_ws();
        let value = self.value()?;
        self.skip_ws();
        if self.pos != self.bytes.len() {
            return Err(self.fail("unexpected trailing characters"));
        }
        Ok(value)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, String> {
        if self.bytes.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.fail("unexpected token"))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        if self.depth == self.reading.values_scope {
            self.values = 0;
        }
        self.values += 1;
        if self.values > limits::MAX_VALUES {
            return Err(self.over("more than ", limits::MAX_VALUES, " values"));
        }
        match self.peek() {
            Some(b'{') => self.nested(true),
            Some(b'[') => self.nested(false),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.fail("unexpected character")),
            None => Err(self.fail("unexpected end of input")),
        }
    }

    fn nested(&mut self, is_object: bool) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > limits::MAX_DOCUMENT_DEPTH {
            return Err(self.over("nested deeper than ", limits::MAX_DOCUMENT_DEPTH, " levels"));
        }
        self.pos += 1;
        let close = if is_object { b'}' } else { b']' };
        let mut entries: Vec<(String, Value)> = Vec::new();
        let mut items: Vec<Value> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                if is_object {
                    if self.peek() != Some(b'"') {
                        return Err(self.fail("expected a string key"));
                    }
                    if entries.len() == limits::MAX_OBJECT_KEYS {
                        return Err(self.over("an object of more than ", limits::MAX_OBJECT_KEYS, " keys"));
                    }
                    let key = self.string()?;
                    self.skip_ws();
                    if self.peek() != Some(b':') {
                        return Err(self.fail("expected ':'"));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let item = self.value()?;
                    entries.push((key, item));
                } else {
                    items.push(self.value()?);
                }
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(c) if c == close => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.fail("expected ',' or a closing bracket")),
                }
            }
        }
        self.depth -= 1;
        Ok(if is_object {
            // JSON.parse keeps the last of repeated keys, at the first one's position.
            dedupe_last_wins(&mut entries, &mut self.key_work);
            Value::Object(entries)
        } else {
            Value::Array(items)
        })
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.bytes.get(self.pos..self.pos + 4).ok_or_else(|| self.fail("short \\u escape"))?;
        // Exactly four hex digits (`from_str_radix` would also take a sign: `\u+123`).
        let code = digits
            .iter()
            .try_fold(0u32, |code, &b| char::from(b).to_digit(16).map(|d| code * 16 + d))
            .ok_or_else(|| self.fail("bad \\u escape"))?;
        self.pos += 4;
        Ok(code)
    }

    fn string(&mut self) -> Result<String, String> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            let chunk = self.text.get(start..self.pos).unwrap_or_default();
            out.push_str(chunk);
            if out.len() > limits::MAX_STRING_BYTES && self.depth >= self.reading.strings_from {
                return Err(self.over("a string of more than ", limits::MAX_STRING_BYTES, " bytes"));
            }
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let esc = self.peek().ok_or_else(|| self.fail("unterminated string"))?;
                    self.pos += 1;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code)
                                && self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u".as_slice())
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                } else {
                                    self.pos = save;
                                }
                            }
                            // A lone surrogate cannot live in a Rust string: replace it.
                            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.fail("bad escape")),
                    }
                }
                _ => return Err(self.fail("unterminated string")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.fail("bad number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.fail("bad number"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.fail("bad number"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }
        let text = self.text.get(start..self.pos).unwrap_or("");
        crate::float_parse::parse_f64(text).map(Value::Number).ok_or_else(|| self.fail("bad number"))
    }
}

/// Text given as bytes (a file's contents): the bytes as UTF-8, or a range error
/// (`code`, `field`) naming the first byte that is not. Never lossy: a replaced character
/// would change a name or an id without a word.
pub fn utf8_text<'a>(bytes: &'a [u8], code: ErrorCode, field: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = jsnum::uint_string(e.valid_up_to() as u64);
        Error::new(code, ErrorKind::Range, field, concat(&[field, " is not UTF-8 text: invalid at byte ", &at]))
    })
}

/// Appends `.name` (or `name` at the root) to a field path.
pub(crate) fn join_path(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        concat(&[prefix, ".", name])
    }
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

/// Appends `[index]` to a field path.
pub(crate) fn index_path(prefix: &str, index: usize) -> String {
    concat(&[prefix, "[", &crate::jsnum::uint_string(index as u64), "]"])
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
                // Plain loops, not `map(..).collect()` and `min_by_key`: fewer iterator
                // instantiations in the wasm module. The first closest name wins, as with min_by_key.
                let mut names: Vec<&str> = Vec::with_capacity(known.len());
                let mut closest = "";
                let mut closest_distance = usize::MAX;
                for f in known {
                    let name = f.spelled(self.naming);
                    let distance = edit_distance(key, name);
                    if distance < closest_distance {
                        closest = name;
                        closest_distance = distance;
                    }
                    names.push(name);
                }
                let mut msg = concat(&["unknown option '", key, "'"]);
                if edit_distance(key, closest) <= closest.len().max(key.len()) / 2 {
                    msg.push_str("; did you mean '");
                    msg.push_str(closest);
                    msg.push_str("'?");
                }
                msg.push_str(" Valid options: ");
                msg.push_str(&join(&names, ", "));
                // Inside a snapshot every problem is the snapshot's: one code for the whole document.
                let code = if self.code == ErrorCode::InvalidSnapshot {
                    ErrorCode::InvalidSnapshot
                } else {
                    ErrorCode::UnknownOption
                };
                return Err(Error::new(code, ErrorKind::Type, join_path(self.path, key), msg));
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
        concat(&["a finite number >= ", &jsnum::to_js_string(min)])
    } else if min == f64::MIN {
        "a finite number".to_string()
    } else {
        concat(&["a finite number between ", &jsnum::to_js_string(min), " and ", &jsnum::to_js_string(max)])
    }
}

pub(crate) fn integer_text(min: u64, max: u64) -> String {
    if max >= MAX_SAFE_INTEGER {
        concat(&["an integer >= ", &crate::jsnum::uint_string(min)])
    } else {
        concat(&["an integer between ", &crate::jsnum::uint_string(min), " and ", &crate::jsnum::uint_string(max)])
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

    #[test]
    fn describe_shows_the_first_40_characters() {
        let forty = "é".repeat(40);
        assert_eq!(Value::string(forty.as_str()).describe(), concat(&["string \"", &forty, "\""]));
        let longer = concat(&[&forty, "x"]);
        assert_eq!(Value::string(longer).describe(), concat(&["string \"", &forty, "...\""]));
        assert_eq!(Value::string("").describe(), "string \"\"");
    }

    #[test]
    fn replace_first_is_replacen_once() {
        for (text, from, to) in [
            ("layers[2].passRate must be a number", "layers[2].passRate", "result.passRate"),
            ("a a a", "a", "bb"),
            ("no match", "xyz", "q"),
            ("", "", "x"),
            ("abc", "", "x"),
            ("short", "much longer needle", "q"),
            ("é layers[0] é", "layers[0]", "r"),
        ] {
            assert_eq!(replace_first(text, from, to), text.replacen(from, to, 1));
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

    /// The repeated-key search costs n log n key comparisons, not n²: one object of 1,000 to
    /// 200,000 keys takes at most n·⌈log2 n⌉ comparisons (a merge sort's bound). Before, each
    /// key was compared with every earlier one: 20 billion comparisons for 200,000 keys
    /// (113 s in the bench, 24 s from Python), and this test fails at its first size.
    #[test]
    fn repeated_key_search_grows_as_n_log_n_not_n_squared() {
        let work = |keys: usize| {
            let mut text = String::from("{");
            for i in 0..keys {
                if i > 0 {
                    text.push(',');
                }
                // Keys in an order a sort has to work on (not already sorted).
                let k = (i * 7919) % keys;
                text.push_str(&concat(&["\"k", &jsnum::uint_string(k as u64), "\":", &jsnum::uint_string(i as u64)]));
            }
            text.push('}');
            let mut parser = JsonParser::new(&text, JsonReading::DOCUMENT);
            let value = parser.value();
            assert!(matches!(value, Ok(Value::Object(ref e)) if e.len() == keys));
            parser.key_work
        };
        for keys in [1_000u64, 10_000, 100_000, 200_000] {
            let bound = keys * (64 - (keys - 1).leading_zeros()) as u64;
            let w = work(keys as usize);
            assert!(w <= bound, "{keys} keys took {w} comparisons, over n log n = {bound}");
        }
        // Small objects (most of them) are compared pairwise, without allocating: 32 keys
        // cost at most 496 comparisons.
        assert!(work(32) <= 496);
    }

    #[test]
    fn repeated_keys_keep_the_last_value_at_the_first_position_at_any_size() {
        for keys in [3usize, 32, 33, 1000] {
            let mut text = String::from("{");
            for i in 0..keys {
                text.push_str(&concat(&[
                    "\"k",
                    &jsnum::uint_string(i as u64),
                    "\":",
                    &jsnum::uint_string(i as u64),
                    ",",
                ]));
            }
            // k1 again, then k0 again: JSON.parse keeps their positions and the last values.
            text.push_str("\"k1\":\"again\",\"k0\":\"last\"}");
            let value = Value::parse_json(&text, ErrorCode::InvalidSnapshot, "snapshot").unwrap_or(Value::Null);
            let Value::Object(entries) = &value else { unreachable!("{text}") };
            assert_eq!(entries.len(), keys, "{keys}");
            assert_eq!(entries.first(), Some(&("k0".to_string(), Value::string("last"))));
            assert_eq!(entries.get(1), Some(&("k1".to_string(), Value::string("again"))));
            assert_eq!(
                entries.last().map(|e| e.0.as_str()),
                Some(concat(&["k", &jsnum::uint_string(keys as u64 - 1)]).as_str())
            );
        }
    }

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
