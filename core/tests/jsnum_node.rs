//! Checks `earlyexit::kit::num` against reference strings produced by Node
//! (`node core/tests/data/gen_jsnum.mjs` writes `core/tests/data/jsnum_node.json` and
//! `core/tests/data/locale_node.json`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit::num::{push_fixed, push_js_string, to_fixed, to_js_string, to_locale_string};
use serde_json::Value;

fn load_cases() -> Vec<(u64, Option<u32>, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/jsnum_node.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path} (run gen_jsnum.mjs): {e}"));
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    json.as_array()
        .expect("top-level array")
        .iter()
        .map(|case| {
            let bits = case["bits"].as_str().expect("bits string");
            let bits = u64::from_str_radix(bits, 16).expect("hex bits");
            let digits = match &case["digits"] {
                Value::Null => None,
                d => Some(u32::try_from(d.as_u64().expect("digits number")).expect("u32 digits")),
            };
            let expected = case["expected"].as_str().expect("expected string").to_owned();
            (bits, digits, expected)
        })
        .collect()
}

#[test]
fn matches_node() {
    let cases = load_cases();
    assert!(cases.len() >= 10_000, "only {} cases", cases.len());
    let mut mismatches = 0usize;
    let mut buf = String::new();
    for (bits, digits, expected) in &cases {
        let x = f64::from_bits(*bits);
        let got = match digits {
            None => to_js_string(x),
            Some(d) => to_fixed(x, *d),
        };
        // The appending variants must agree with the allocating ones.
        buf.clear();
        buf.push('>');
        match digits {
            None => push_js_string(&mut buf, x),
            Some(d) => push_fixed(&mut buf, x, *d),
        }
        let appended_ok = buf.strip_prefix('>') == Some(got.as_str());
        if got != *expected || !appended_ok {
            mismatches += 1;
            if mismatches <= 20 {
                let op = match digits {
                    None => "toString()".to_owned(),
                    Some(d) => format!("toFixed({d})"),
                };
                eprintln!(
                    "mismatch: bits {bits:016x} {op}: expected {expected:?}, got {got:?}{}",
                    if appended_ok { "" } else { " (push variant differs)" }
                );
            }
        }
    }
    eprintln!("{} Node cases, {mismatches} mismatches", cases.len());
    assert_eq!(mismatches, 0, "{mismatches} of {} cases mismatched", cases.len());
}

/// `toLocaleString('en-US')` (the analytics report's token total), against Node.
#[test]
fn locale_string_matches_node() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/locale_node.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path} (run gen_jsnum.mjs): {e}"));
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    let cases = json.as_array().expect("top-level array");
    assert!(cases.len() >= 2_000, "only {} cases", cases.len());
    let mut mismatches = 0usize;
    for case in cases {
        let bits = u64::from_str_radix(case["bits"].as_str().expect("bits"), 16).expect("hex bits");
        let expected = case["expected"].as_str().expect("expected");
        let got = to_locale_string(f64::from_bits(bits));
        if got != expected {
            mismatches += 1;
            if mismatches <= 20 {
                eprintln!("mismatch: bits {bits:016x} toLocaleString(): expected {expected:?}, got {got:?}");
            }
        }
    }
    assert_eq!(mismatches, 0, "{mismatches} of {} cases mismatched", cases.len());
}
