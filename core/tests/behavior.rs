//! The behaviour detectors and interventions against `tests/vectors/behavior/behavior.json`
//! (expected values from aiwg's `behavior-detector.mjs` and `intervention-system.mjs`, and
//! the hand-written errors and differences): every vector, through the core's Rust API and
//! the host of `vector_harness::behavior`. Prints how often each detection type and each
//! intervention level occurred.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod vector_harness;

use std::collections::BTreeMap;

use earlyexit::{ErrorCode, Value};
use vector_harness::{behavior, decode, vectors_dir};

fn vectors() -> Vec<Value> {
    let path = vectors_dir().join("behavior").join("behavior.json");
    let text = std::fs::read_to_string(path).unwrap();
    let doc = decode(Value::parse_json(&text, ErrorCode::InvalidReplay, "vectors").unwrap());
    let Some(Value::Array(vectors)) = doc.get("vectors").cloned() else { panic!("no vectors") };
    vectors
}

#[test]
fn every_behavior_vector_matches_the_reference() {
    let vectors = vectors();
    assert!(vectors.len() > 250, "{} vectors", vectors.len());
    let (mut passed, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    let mut types: BTreeMap<String, u32> = BTreeMap::new();
    let mut levels: BTreeMap<String, u32> = BTreeMap::new();
    for v in &vectors {
        let name = v.get("name").and_then(Value::as_str).unwrap();
        if let Some(Value::Array(only)) = v.get("only") {
            if !only.iter().any(|o| o.as_str() == Some("rust")) {
                skipped += 1;
                continue;
            }
        }
        if let Err(m) = behavior::run(v) {
            failures.push(format!("{name}: {m}"));
            continue;
        }
        passed += 1;
        // What the vector exercised (its answers are the references').
        let Some(Value::Array(calls)) = v.get("calls") else { continue };
        for c in calls {
            let call = c.get("call").and_then(Value::as_str).unwrap_or("");
            let returns = c.get("returns").cloned().unwrap_or(Value::Null);
            if call.starts_with("detect") {
                let found = match &returns {
                    Value::Array(items) => items.clone(),
                    Value::Null => Vec::new(),
                    one => vec![one.clone()],
                };
                for d in found {
                    *types.entry(d.get("type").and_then(Value::as_str).unwrap().to_string()).or_default() += 1;
                }
            }
            if let (true, Some(level)) = (call == "intervene", returns.get("level").and_then(Value::as_str)) {
                let from = c.get("from").and_then(Value::as_str).unwrap_or("direct");
                *levels.entry(format!("{level} ({from})")).or_default() += 1;
            }
        }
    }
    println!("behavior vectors: {passed} passed, {} failed, {skipped} skipped (not for rust)", failures.len());
    println!("detections by type: {types:?}");
    println!("intervention levels: {levels:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for t in ["stuck", "oscillation", "deviation", "resource_burn", "regression"] {
        assert!(types.contains_key(t), "no {t} detection");
    }
    for level in ["warn", "redirect", "pause", "abort"] {
        assert!(levels.contains_key(&format!("{level} (detector)")), "no {level} from a detection");
    }
    assert!(levels.contains_key("log (direct)"), "no log level");
}
