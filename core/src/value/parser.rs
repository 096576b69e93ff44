//! The JSON parser behind [`Value::parse_json`](crate::Value::parse_json): numbers to the
//! nearest f64, `JSON.parse`'s rule for repeated keys, and every document limit.

use crate::num;
use crate::value::limits;
use crate::value::text::concat;
use crate::value::tree::Value;

/// How [`Value::parse_json_as`](crate::Value::parse_json_as) reads a text: which limits of [`crate::limits`] apply where.
#[derive(Clone, Copy, Debug)]
pub struct JsonReading {
    max_bytes: usize,
    /// Values are counted per value that starts at this nesting depth (0: the whole text).
    values_scope: usize,
    /// Strings are limited from this nesting depth on (0: every string).
    strings_from: usize,
    /// A `\u` escape of a lone UTF-16 surrogate is refused (else it reads as U+FFFD, as a
    /// JS string holding one reaches the core).
    whole_characters: bool,
    /// When set, finds a key an object repeats, and such an object is refused (else
    /// `JSON.parse`'s rule: the last value wins). A function, so the search is linked only
    /// into what asks for it (not the size-budgeted WebAssembly engines module).
    repeated_key: Option<RepeatedKey>,
}

/// Finds a key an object repeats (the work counted as [`dedupe_last_wins`] counts it).
type RepeatedKey = for<'e> fn(&'e [(String, Value)], &mut u64) -> Option<&'e str>;

impl JsonReading {
    /// One JSON document (a snapshot, a model, one JSONL line): every limit, on the whole text.
    pub const DOCUMENT: JsonReading = JsonReading {
        max_bytes: limits::MAX_DOCUMENT_BYTES,
        values_scope: 0,
        strings_from: 0,
        whole_characters: false,
        repeated_key: None,
    };

    /// A document a user wrote as a file or a command-line argument (the command's
    /// policies, configs, models): [`JsonReading::DOCUMENT`], and a lone surrogate escape
    /// (`"\ud800"`) is an error rather than a character silently replaced by U+FFFD.
    pub const USER_DOCUMENT: JsonReading = JsonReading { whole_characters: true, ..JsonReading::DOCUMENT };

    /// The arguments of one call, as a JSON array (the JS layer's wire format): no limit on
    /// the text (an argument may be a whole JSONL stream), values counted per argument, or
    /// per item of each argument with `per_item` (a batch of runs: each run on its own),
    /// and strings limited inside arguments only (an argument that is text is a document or
    /// a stream of lines, read as such).
    pub const fn arguments(per_item: bool) -> JsonReading {
        JsonReading {
            max_bytes: usize::MAX,
            values_scope: if per_item { 2 } else { 1 },
            strings_from: 2,
            whole_characters: false,
            repeated_key: None,
        }
    }

    /// The same reading, but an object that repeats a key is refused, naming the key (a
    /// hashed document such as a receipt line, where the last-wins reading would let a hash
    /// cover a key the text also states otherwise). Off by default: `JSON.parse` keeps the
    /// last value.
    pub const fn refusing_repeated_keys(self) -> JsonReading {
        JsonReading { repeated_key: Some(repeated_key), ..self }
    }

    /// One protocol message of at most `max_bytes` around call arguments whose values start at
    /// nesting depth `arguments_depth` (an MCP `tools/call` line: 3, inside the message, its
    /// `params` and its `arguments`): each argument within the document limits on its own, as
    /// [`JsonReading::arguments`] reads them, so a document at its limits fits in one message.
    pub const fn message(max_bytes: usize, arguments_depth: usize) -> JsonReading {
        JsonReading {
            max_bytes,
            values_scope: arguments_depth,
            strings_from: arguments_depth + 1,
            // A lone surrogate escape is an error, not U+FFFD: the message is the client's text.
            whole_characters: true,
            repeated_key: None,
        }
    }
}

/// How every limit's message starts.
pub(crate) const OVER_THE_LIMITS: &str = "over the limits: ";

/// "over the limits: `before` `limit` `after`", the start of every limit's message.
#[inline(never)]
pub(crate) fn over_limit(before: &str, limit: usize, after: &str) -> String {
    concat(&[OVER_THE_LIMITS, before, &num::uint_string(limit as u64), after])
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

/// The first key (in sorted order for large objects) that an object repeats, if any.
fn repeated_key<'e>(entries: &'e [(String, Value)], work: &mut u64) -> Option<&'e str> {
    if entries.len() <= PAIRWISE_KEYS {
        if !repeats_pairwise(entries, work) {
            return None;
        }
        return entries.iter().enumerate().find_map(|(i, (key, _))| {
            entries.iter().take(i).any(|(earlier, _)| earlier == key).then_some(key.as_str())
        });
    }
    let order = sorted_by_key(entries, work);
    order.windows(2).find_map(|pair| match pair {
        [a, b] if key_at(entries, *a) == key_at(entries, *b) => Some(key_at(entries, *a)),
        _ => None,
    })
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

pub(crate) struct JsonParser<'a> {
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
    pub(crate) fn new(text: &'a str, reading: JsonReading) -> Self {
        JsonParser { text, bytes: text.as_bytes(), pos: 0, depth: 0, reading, values: 0, key_work: 0 }
    }

    fn fail(&self, what: &str) -> String {
        concat(&["invalid JSON: ", what, " at byte ", &num::uint_string(self.pos as u64)])
    }

    /// The message of a limit the text went over, with where.
    #[inline(never)]
    fn over(&self, before: &str, limit: usize, after: &str) -> String {
        concat(&[&over_limit(before, limit, after), " at byte ", &num::uint_string(self.pos as u64)])
    }

    pub(crate) fn document(&mut self) -> Result<Value, String> {
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
            if let Some(find) = self.reading.repeated_key {
                if let Some(key) = find(&entries, &mut self.key_work) {
                    return Err(self.fail(&concat(&["the key '", key, "' repeated in an object"])));
                }
            }
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
                            // A lone surrogate cannot live in a Rust string: replace it, or
                            // refuse it where the text is the user's own.
                            match char::from_u32(code) {
                                Some(c) => out.push(c),
                                None if self.reading.whole_characters => {
                                    return Err(self.fail("a lone UTF-16 surrogate escape (not a character)"))
                                }
                                None => out.push('\u{FFFD}'),
                            }
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
        crate::num::parse_f64(text).map(Value::Number).ok_or_else(|| self.fail("bad number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::ErrorCode;

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
                text.push_str(&concat(&["\"k", &num::uint_string(k as u64), "\":", &num::uint_string(i as u64)]));
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
                text.push_str(&concat(&["\"k", &num::uint_string(i as u64), "\":", &num::uint_string(i as u64), ","]));
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
                Some(concat(&["k", &num::uint_string(keys as u64 - 1)]).as_str())
            );
        }
    }
}
