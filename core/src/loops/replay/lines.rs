//! A reader for plain, valid JSONL run lines that skips the value tree (reading the input is
//! most of a replay's time in the bindings). It answers `None` for anything it does not
//! handle exactly as the general reader would (escapes in strings, duplicate or unknown
//! keys, numeric ids, `null` where a string is expected, out-of-range values, bad JSON),
//! and the general reader then takes the line, so results and errors never depend on which
//! reader ran (`core/tests/loop_replay.rs` checks both on every vector and on mutations).

use crate::loops::replay::runs::{implied_quality_delta, ReplayIteration, ReplayRun};
use crate::loops::{Observation, ResourceUsage, VerificationStatus};

struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    /// Values read, counted as the general reader counts them (its limits hold here too).
    values: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        (self.peek() == Some(byte)).then(|| self.pos += 1)
    }

    /// A string without escapes or control characters.
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.pos;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' => return None,
                c if c < 0x20 => return None,
                _ => self.pos += 1,
            }
        }
        let s = self.text.get(start..self.pos)?;
        if s.len() > crate::limits::MAX_STRING_BYTES {
            return None;
        }
        self.pos += 1;
        Some(s)
    }

    /// A JSON number (the general reader's grammar and conversion).
    fn number(&mut self) -> Option<f64> {
        self.skip_ws();
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return None;
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return None;
            }
            self.digits();
        }
        crate::num::parse_f64(self.text.get(start..self.pos)?)
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        self.skip_ws();
        if self.bytes.get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    /// `,` (more to come: true) or the closing byte (done: false).
    fn next_or_close(&mut self, close: u8) -> Option<bool> {
        self.skip_ws();
        match self.peek()? {
            b',' => {
                self.pos += 1;
                Some(true)
            }
            c if c == close => {
                self.pos += 1;
                Some(false)
            }
            _ => None,
        }
    }
}

fn in_range(n: f64, min: f64, max: f64) -> Option<f64> {
    (n.is_finite() && n >= min && n <= max).then_some(n)
}

/// One plain run line, or `None` (the general reader decides).
pub(super) fn read_run(line: &str) -> Option<ReplayRun> {
    // Over a limit: the general reader words the error.
    if line.len() > crate::limits::MAX_DOCUMENT_BYTES {
        return None;
    }
    let mut sc = Scanner { bytes: line.as_bytes(), text: line, pos: 0, values: 1 };
    sc.eat(b'{')?;
    let (mut id, mut dataset, mut split, mut iterations) = (None, None, None, None);
    loop {
        let key = sc.string()?;
        sc.eat(b':')?;
        sc.values += 1;
        let slot_taken = match key {
            "id" => id.replace(sc.string()?.to_string()).is_some(),
            "dataset" => dataset.replace(sc.string()?.to_string()).is_some(),
            "split" => split.replace(sc.string()?.to_string()).is_some(),
            "iterations" => iterations.replace(read_iterations(&mut sc)?).is_some(),
            _ => return None,
        };
        if slot_taken {
            return None; // a duplicate key: JSON.parse's last-wins is the general reader's business
        }
        if !sc.next_or_close(b'}')? {
            break;
        }
    }
    sc.skip_ws();
    if sc.pos != sc.bytes.len() {
        return None;
    }
    let iterations = iterations?;
    if iterations.is_empty() || sc.values > crate::limits::MAX_VALUES {
        return None;
    }
    Some(ReplayRun { id: id?, dataset, split, iterations })
}

fn read_iterations(sc: &mut Scanner<'_>) -> Option<Vec<ReplayIteration>> {
    sc.eat(b'[')?;
    let mut items = Vec::new();
    sc.skip_ws();
    if sc.peek() == Some(b']') {
        sc.pos += 1;
        return Some(items);
    }
    let mut previous: Option<f64> = None;
    loop {
        let item = read_iteration(sc, items.len() as u64 + 1, previous)?;
        previous = Some(item.observation.quality_score);
        items.push(item);
        if !sc.next_or_close(b']')? {
            return Some(items);
        }
    }
}

fn read_iteration(sc: &mut Scanner<'_>, iteration: u64, previous: Option<f64>) -> Option<ReplayIteration> {
    sc.eat(b'{')?;
    sc.values += 1;
    let mut seen = 0u8;
    let (mut quality, mut confidence, mut status, mut delta) = (None, None, None, None);
    let mut usage = ResourceUsage::default();
    let mut good = None;
    loop {
        let key = sc.string()?;
        sc.eat(b':')?;
        sc.values += 1;
        let bit = match key {
            "quality_score" => {
                quality = Some(in_range(sc.number()?, 0.0, 100.0)?);
                1
            }
            "confidence" => {
                confidence = Some(in_range(sc.number()?, 0.0, 1.0)?);
                2
            }
            "verification_status" => {
                status = Some(VerificationStatus::parse(sc.string()?)?);
                4
            }
            "quality_delta" => {
                delta = Some(in_range(sc.number()?, f64::MIN, f64::MAX)?);
                8
            }
            "tokens_used" => {
                usage.tokens_used = Some(in_range(sc.number()?, 0.0, f64::MAX)?);
                16
            }
            "token_cost_usd" => {
                usage.token_cost_usd = Some(in_range(sc.number()?, 0.0, f64::MAX)?);
                32
            }
            "execution_time_ms" => {
                usage.execution_time_ms = Some(in_range(sc.number()?, 0.0, f64::MAX)?);
                64
            }
            "good" => {
                good = if sc.literal(b"true") {
                    Some(true)
                } else if sc.literal(b"false") {
                    Some(false)
                } else if sc.literal(b"null") {
                    None
                } else {
                    return None;
                };
                128
            }
            _ => return None,
        };
        if seen & bit != 0 {
            return None; // duplicate key
        }
        seen |= bit;
        if !sc.next_or_close(b'}')? {
            break;
        }
    }
    let quality_score = quality?;
    let has_usage = seen & (16 | 32 | 64) != 0;
    Some(ReplayIteration {
        observation: Observation {
            iteration,
            quality_score,
            confidence: confidence?,
            quality_delta: delta.unwrap_or_else(|| implied_quality_delta(previous, quality_score)),
            verification_status: status?,
        },
        usage: has_usage.then_some(usage),
        good,
        behavior: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::replay::runs::CODE;
    use crate::value::{Naming, Result, Value};

    /// The general reader on one line (what `parse_jsonl` does when the plain reader declines).
    fn general(line: &str) -> Result<ReplayRun> {
        let value = Value::parse_json(line, CODE, "runs[0]")?;
        ReplayRun::from_value(&value, Naming::Js, "runs[0]")
    }

    fn lines() -> Vec<String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/replay/loop_replay.json");
        let doc = Value::parse_json(&std::fs::read_to_string(path).unwrap(), CODE, "doc").unwrap();
        let Some(Value::Object(sets)) = doc.get("runSets") else { panic!("no run sets") };
        let mut out = Vec::new();
        for (_, runs) in sets {
            let Value::Array(runs) = runs else { panic!() };
            out.extend(runs.iter().map(Value::to_json));
        }
        out.push(r#" { "id" : "spaced" , "iterations" : [ { "quality_score" : 1E1 , "confidence" : 0.5 , "verification_status" : "failed" , "good" : null } ] } "#.to_string());
        out
    }

    #[test]
    fn the_plain_reader_agrees_with_the_general_one_or_declines() {
        let mut checked = 0;
        let mut plain = 0;
        let mut seed: u64 = 7;
        for line in lines() {
            let mut variants = vec![line.clone()];
            // Mutations: drop, duplicate or replace single bytes, and swap known tokens, so the
            // plain reader meets broken JSON, bad values, escapes and duplicate keys.
            for _ in 0..40 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let bytes = line.as_bytes();
                let at = (seed as usize) % bytes.len().max(1);
                let mut m = bytes.to_vec();
                match seed % 6 {
                    0 => {
                        m.remove(at);
                    }
                    1 => m.insert(at, m[at]),
                    2 => m[at] = b"0123456789-.eE\",:{}[] \\"[(seed as usize / 7) % 23],
                    3 => m = line.replacen("failed", "Failed", 1).into_bytes(),
                    4 => m = line.replacen("\"confidence\"", "\"quality_score\"", 1).into_bytes(),
                    _ => m = line.replacen(":0", ":1e999", 1).into_bytes(),
                }
                if let Ok(text) = String::from_utf8(m) {
                    variants.push(text);
                }
            }
            for text in variants {
                checked += 1;
                if let Some(run) = read_run(&text) {
                    plain += 1;
                    assert_eq!(general(&text).as_ref(), Ok(&run), "{text}");
                }
            }
        }
        assert!(plain > 100 && checked > plain, "{plain} of {checked} read by the plain reader");
    }
}
