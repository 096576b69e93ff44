//! Keeps the demo honest: the bundled data in `examples/data/` parses, every case stops
//! where its `expect` field says (replayed by the demo's own functions), the published
//! Self-Refine curves follow the derivation rule documented in `examples/data/README.md`,
//! and together the cases hit every trigger and every exit reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[allow(dead_code)]
#[path = "../examples/demo.rs"]
mod demo;

use earlyexit::Value;
use std::collections::BTreeSet;

fn cases(file: &str) -> Vec<Value> {
    let cases = demo::load_jsonl(&demo::default_data_dir().join(file)).unwrap();
    assert!(!cases.is_empty(), "{file} is empty");
    cases
}

fn expect<'a>(case: &'a Value, key: &str) -> &'a Value {
    case.get("expect")
        .and_then(|e| e.get(key))
        .unwrap_or_else(|| panic!("{}: expect.{key} missing", demo::case_id(case)))
}

fn as_index(v: &Value) -> Option<usize> {
    v.as_f64().map(|n| n as usize)
}

#[test]
fn loops_stop_where_the_data_says() {
    let mut triggers = BTreeSet::new();
    for case in cases("loops.jsonl") {
        let id = demo::case_id(&case).to_string();
        let outcome = demo::replay_loop(&case).unwrap();
        assert_eq!(outcome.stopped_at, as_index(expect(&case, "stop_at")), "{id}: stop_at");
        let trigger = outcome.decision.trigger.as_str();
        assert_eq!(Some(trigger), expect(&case, "trigger").as_str(), "{id}: trigger");
        assert_eq!(outcome.decision.best.map(|b| b.0 as usize), as_index(expect(&case, "best_iteration")), "{id}");
        assert_eq!(outcome.decision.stop, outcome.stopped_at.is_some(), "{id}");
        triggers.insert(trigger.to_string());
    }
    for trigger in ["high_confidence", "quality_plateau", "diminishing_returns", "none"] {
        assert!(triggers.contains(trigger), "no loop ends with trigger {trigger}");
    }
}

#[test]
fn published_loops_follow_the_documented_derivation() {
    let mut published = 0;
    for case in cases("loops.jsonl") {
        let id = demo::case_id(&case).to_string();
        let source = case.get("source").unwrap();
        assert!(source.get("kind").and_then(Value::as_str).is_some(), "{id}: source.kind");
        if source.get("kind").and_then(Value::as_str) != Some("published") {
            continue;
        }
        published += 1;
        for key in ["citation", "where", "published", "scaling", "derived"] {
            assert!(source.get(key).is_some(), "{id}: source.{key} missing");
        }
        let Some(Value::Array(rows)) = case.get("iterations") else { panic!("{id}: iterations") };
        let mut previous: Option<f64> = None;
        for (i, row) in rows.iter().enumerate() {
            let q = row.get("quality_score").and_then(Value::as_f64).unwrap();
            let confidence = row.get("confidence").and_then(Value::as_f64).unwrap();
            let status = row.get("verification_status").and_then(Value::as_str).unwrap();
            let delta = row.get("quality_delta").and_then(Value::as_f64).unwrap();
            assert!((confidence - q / 100.0).abs() < 1e-9, "{id} #{}: confidence = quality_score / 100", i + 1);
            assert_eq!(status, if q >= 45.0 { "passed" } else { "failed" }, "{id} #{}: passed iff >= 45", i + 1);
            let expected_delta = previous.map_or(0.0, |p| ((q - p) * 10.0).round() / 10.0);
            assert!((delta - expected_delta).abs() < 1e-9, "{id} #{}: quality_delta", i + 1);
            previous = Some(q);
        }
    }
    assert!(published >= 5, "expected the five Self-Refine curves, found {published}");
}

#[test]
fn pyramids_exit_where_the_data_says() {
    let mut reasons = BTreeSet::new();
    let mut mispredicted = 0;
    for case in cases("pyramids.jsonl") {
        let id = demo::case_id(&case).to_string();
        match case.get("kind").and_then(Value::as_str) {
            Some("signal") => {
                let decision = demo::replay_signal(&case).unwrap();
                assert_eq!(Some(decision.can_exit), expect(&case, "canExit").as_bool(), "{id}");
                assert_eq!(Some(decision.reason.as_str()), expect(&case, "reason").as_str(), "{id}");
                reasons.insert(decision.reason.as_str().to_string());
            }
            Some("run") => {
                let outcome = demo::replay_pyramid(&case).unwrap();
                let r = &outcome.result;
                assert_eq!(Some(r.exited_early), expect(&case, "exitedEarly").as_bool(), "{id}: exitedEarly");
                assert_eq!(Some(r.exit_layer as f64), expect(&case, "exitLayer").as_f64(), "{id}: exitLayer");
                assert_eq!(Some(r.exit_reason.as_str()), expect(&case, "exitReason").as_str(), "{id}: exitReason");
                let decisions = outcome.decision_reasons();
                let Value::Array(expected) = expect(&case, "decisions") else { panic!("{id}: decisions") };
                let expected: Vec<&str> = expected.iter().filter_map(Value::as_str).collect();
                assert_eq!(decisions, expected, "{id}: decision per layer run");
                let Value::Array(executed) = expect(&case, "layersExecuted") else { panic!("{id}: layersExecuted") };
                let executed: Vec<usize> = executed.iter().filter_map(as_index).collect();
                assert_eq!(r.layers_executed, executed, "{id}: layersExecuted");
                assert_eq!(Some(r.verified_layers), as_index(expect(&case, "verifiedLayers")), "{id}: verifiedLayers");
                assert_eq!(Some(r.mispredictions), as_index(expect(&case, "mispredictions")), "{id}: mispredictions");
                assert_eq!(r.compute_saved_ms, expect(&case, "computeSavedMs").as_f64(), "{id}: computeSavedMs");
                mispredicted += r.mispredictions;
                reasons.extend(decisions.iter().map(|s| s.to_string()));
            }
            other => panic!("{id}: unknown kind {other:?}"),
        }
    }
    for reason in [
        "forced_continue",
        "lambda_too_low",
        "lambda_unstable",
        "boundaries_concentrated",
        "insufficient_confidence",
        "confident_exit",
    ] {
        assert!(reasons.contains(reason), "no pyramid case reaches exit reason {reason}");
    }
    assert!(mispredicted > 0, "no case shows a verified misprediction");
}
