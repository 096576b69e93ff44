//! Target `json_read`: the JSON reader and the one replay reader on large inputs (up to
//! 1 MiB here, against the other targets' 4 KB), where quadratic costs and limits live.
//!
//! * Any text: `Value::parse_json` answers `Ok` or an `invalid_snapshot` error naming
//!   `snapshot`; what it reads writes back to JSON that reads back the same (idempotent).
//! * Objects of up to 4,000 keys drawn from a small pool (so keys repeat), in the text
//!   either as written or reordered: the reader keeps the last value of a repeated key at
//!   its first position, exactly as a plain reference does (`JSON.parse`'s rule), on both
//!   sides of the pairwise/sorted threshold.
//! * The same text as JSONL for loop replay and pyramid replay: `Ok`, or an `invalid_replay`
//!   error whose field is `runs` or under `runs[i]`; and each replay reads a text with a
//!   byte-order mark and CRLF line ends exactly as the plain text.
//! * The depth limit: nesting just under and just over it. (The other limits need inputs of
//!   16 MiB and more, too slow per execution: core/tests/limits.rs tests them.)

use super::gen;
use arbitrary::{Result, Unstructured};
use earlyexit::limits::MAX_DOCUMENT_DEPTH;
use earlyexit::{loops::replay, pyramid, ErrorCode, Naming, Value};

/// Runs one input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = drive(&mut u);
}

fn drive(u: &mut Unstructured) -> Result<()> {
    match u.int_in_range(0u8..=3)? {
        0 => {
            let len = u.len();
            check_text(&String::from_utf8_lossy(u.bytes(len)?));
        }
        1 => check_repeated_keys(u)?,
        2 => check_replay_text(&jsonl(u)?),
        _ => check_depth(u.int_in_range(MAX_DOCUMENT_DEPTH - 2..=MAX_DOCUMENT_DEPTH + 2)?),
    }
    Ok(())
}

fn check_text(text: &str) {
    match Value::parse_json(text, ErrorCode::InvalidSnapshot, "snapshot") {
        Ok(value) => {
            let written = value.to_json();
            let again = Value::parse_json(&written, ErrorCode::InvalidSnapshot, "snapshot")
                .unwrap_or_else(|e| panic!("the writer's own text did not read back: {e}"));
            assert_eq!(again.to_json(), written, "the writer is not idempotent");
        }
        Err(e) => {
            assert_eq!((e.code(), e.field()), ("invalid_snapshot", "snapshot"), "{e}");
            assert!(!e.message().is_empty());
        }
    }
}

/// The reference for repeated keys: each key at its first position with its last value.
fn last_wins(pairs: &[(String, Value)]) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (key, value) in pairs {
        match at.get(key.as_str()) {
            Some(&i) => out[i].1 = value.clone(),
            None => {
                at.insert(key, out.len());
                out.push((key.clone(), value.clone()));
            }
        }
    }
    out
}

fn check_repeated_keys(u: &mut Unstructured) -> Result<()> {
    let pool = u.int_in_range(1usize..=64)?;
    let count = u.int_in_range(0usize..=4000)?;
    let mut pairs = Vec::with_capacity(count);
    for i in 0..count {
        let key = if u.ratio(1, 8)? { gen::key(u)? } else { format!("k{}", u.int_in_range(0..=pool)?) };
        let value = if u.ratio(1, 4)? { gen::value(u, 2)? } else { Value::Number(i as f64) };
        pairs.push((key, value));
    }
    let text = Value::Object(pairs.clone()).to_json();
    let read = Value::parse_json(&text, ErrorCode::InvalidSnapshot, "snapshot").expect("valid JSON");
    // The reference on the values as written to text (a host value's key is left out, a
    // non-finite number becomes null).
    let written: Vec<(String, Value)> = pairs
        .iter()
        .filter(|(_, v)| !matches!(v, Value::Other(_)))
        .map(|(k, v)| (k.clone(), Value::parse_json(&v.to_json(), ErrorCode::InvalidSnapshot, "v").unwrap()))
        .collect();
    let expected = Value::Object(last_wins(&written));
    assert!(
        gen::identical(&read, &expected),
        "repeated keys read wrongly:\n{}\nvs\n{}",
        read.to_json(),
        expected.to_json()
    );
    Ok(())
}

/// JSONL text: lines of runs (loop or pyramid shaped, valid or not), blank lines, noise.
fn jsonl(u: &mut Unstructured) -> Result<String> {
    let lines = u.int_in_range(0usize..=200)?;
    let mut text = String::new();
    for _ in 0..lines {
        let line = match u.int_in_range(0u8..=5)? {
            0 => String::new(),
            1 => {
                let len = u.int_in_range(0..=40)?;
                String::from_utf8_lossy(u.bytes(len)?).into_owned()
            }
            2 => gen::value(u, 3)?.to_json(),
            3 | 4 => {
                let iterations = u.int_in_range(0usize..=20)?;
                let items: Vec<String> = (0..iterations)
                    .map(|i| {
                        format!(
                            r#"{{"quality_score":{},"confidence":0.5,"verification_status":"failed"}}"#,
                            (i * 7) % 101
                        )
                    })
                    .collect();
                format!(r#"{{"id":"r","iterations":[{}]}}"#, items.join(","))
            }
            _ => r#"{"id":"p","layers":[{"name":"unit","durationMs":5,"failed":false}]}"#.to_string(),
        };
        text.push_str(&line);
        text.push('\n');
    }
    Ok(text)
}

fn check_replay_text(text: &str) {
    let with_bom = ["\u{feff}", &text.replace('\n', "\r\n")].concat();
    let loop_runs = replay::parse_jsonl(text, Naming::Js);
    let pyramid_runs = pyramid::replay::parse_runs_jsonl(text, Naming::Js);
    for e in [loop_runs.as_ref().err(), pyramid_runs.as_ref().err()].into_iter().flatten() {
        assert_eq!(e.code(), "invalid_replay", "{e}");
        assert!(e.field() == "runs" || e.field().starts_with("runs["), "{e}");
        assert!(e.message().starts_with("runs["), "a line's error names its run and line: {e}");
    }
    assert_eq!(replay::parse_jsonl(&with_bom, Naming::Js), loop_runs, "BOM / CRLF changed the loop replay");
    assert_eq!(
        pyramid::replay::parse_runs_jsonl(&with_bom, Naming::Js),
        pyramid_runs,
        "BOM / CRLF changed the pyramid replay"
    );
}

fn check_depth(depth: usize) {
    let text = ["[".repeat(depth), "]".repeat(depth)].concat();
    let read = Value::parse_json(&text, ErrorCode::InvalidSnapshot, "snapshot");
    assert_eq!(read.is_ok(), depth <= MAX_DOCUMENT_DEPTH, "depth {depth}");
}
