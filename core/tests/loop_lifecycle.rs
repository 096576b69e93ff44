//! The pyramid's lifecycle for loop policies: promotion on an audit split disjoint from
//! calibration by task (exact Clopper-Pearson bound within the risk), and the drift check
//! that demotes an expired or drifted artifact.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit::loops::replay::{calibrate_value, loop_drift_value, promote_loop_value};
use earlyexit::loops::replay::LoopCalibrationPlan;
use earlyexit::{ErrorCode, Naming, Value};

mod test_sha256;
use test_sha256::TestSha256;

const NOW: i64 = 1_780_000_000_000;

/// `n` runs from `from`, in `dataset`: good at once, or (every `late`-th) after two misses.
fn runs(from: usize, n: usize, dataset: &str, late: usize) -> Value {
    let items: Vec<String> = (from..from + n)
        .map(|i| {
            let its = if late > 0 && i % late == 0 {
                r#"{"quality_score":10,"confidence":0.1,"verification_status":"failed","good":false},
                   {"quality_score":10,"confidence":0.1,"verification_status":"failed","good":false},
                   {"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}"#
            } else {
                r#"{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true},
                   {"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}"#
            };
            format!(r#"{{"id":"t{i}","dataset":"{dataset}","iterations":[{its}]}}"#)
        })
        .collect();
    Value::parse_json(&format!("[{}]", items.join(",")), ErrorCode::InvalidReplay, "runs").unwrap()
}

fn artifact() -> Value {
    let options = Value::parse_json(r#"{"risk":0.1,"delta":0.1}"#, ErrorCode::InvalidConfig, "").unwrap();
    let sequential = |plan: &LoopCalibrationPlan| plan.evaluate_all();
    calibrate_value(&runs(0, 150, "d", 0), &options, Naming::Js, &TestSha256, NOW, &sequential).unwrap()
}

fn now(ms: i64) -> Value {
    Value::Number(ms as f64)
}

#[test]
fn a_disjoint_audit_promotes_and_the_promotion_is_recorded() {
    let a = artifact();
    assert_eq!(
        a.get("body").and_then(|b| b.get("tasks")).map(|t| matches!(t, Value::Array(x) if x.len() == 150)),
        Some(true)
    );
    let answer = promote_loop_value(&a, &runs(150, 100, "d", 0), &TestSha256, &now(NOW + 1), Naming::Js).unwrap();
    assert_eq!(answer.get("promoted"), Some(&Value::Bool(true)), "{}", answer.get("reason").unwrap().describe());
    let promoted = answer.get("artifact").unwrap().clone();
    let p = promoted.get("promotion").unwrap();
    assert_eq!(p.get("trials"), Some(&Value::Number(100.0)));
    assert_eq!(p.get("method").and_then(Value::as_str), Some("clopper-pearson"));
    // The promoted artifact reads back (its promotion is its own) and drifts on a new dataset.
    let drift =
        loop_drift_value(&promoted, &runs(300, 20, "other", 0), &TestSha256, &now(NOW + 2), Naming::Js).unwrap();
    assert_eq!(drift.get("status").and_then(Value::as_str), Some("drifted"));
    assert_eq!(drift.get("artifact").and_then(|a| a.get("promotion")), Some(&Value::Null), "demoted");
    let fresh = loop_drift_value(&promoted, &runs(300, 20, "d", 0), &TestSha256, &now(NOW + 2), Naming::Js).unwrap();
    assert_eq!(fresh.get("status").and_then(Value::as_str), Some("fresh"), "{:?}", fresh.get("reasons"));
    // A premature stop after promotion demotes it (the recommended family stops late runs early
    // only when its path chose an aggressive policy: count what the check says either way).
    let late = loop_drift_value(&promoted, &runs(400, 30, "d", 3), &TestSha256, &now(NOW + 2), Naming::Js).unwrap();
    let premature = late.get("prematureTasks").and_then(Value::as_f64).unwrap();
    assert_eq!(late.get("status").and_then(Value::as_str) == Some("drifted"), premature > 0.0);
}

#[test]
fn an_audit_sharing_a_task_or_an_artifact_of_the_other_kind_is_refused() {
    let a = artifact();
    let e = promote_loop_value(&a, &runs(140, 20, "d", 0), &TestSha256, &now(NOW + 1), Naming::Js).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "auditRuns"));
    assert!(e.message().contains("d/t140"), "{}", e.message());
    let pyramid = Value::parse_json(r#"{"kind":"pyramid"}"#, ErrorCode::InvalidArtifact, "").unwrap();
    let e = promote_loop_value(&pyramid, &runs(150, 5, "d", 0), &TestSha256, &now(NOW), Naming::Js).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_artifact", "kind"));
    let e = loop_drift_value(&pyramid, &runs(150, 5, "d", 0), &TestSha256, &now(NOW), Naming::Js).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_artifact", "kind"));
}

#[test]
fn an_expired_artifact_is_never_promoted_and_drifts_as_expired() {
    let a = artifact();
    let later = NOW + 91 * 86_400_000; // loop artifacts are valid 90 days by default
    let answer = promote_loop_value(&a, &runs(150, 50, "d", 0), &TestSha256, &now(later), Naming::Js).unwrap();
    assert_eq!(answer.get("promoted"), Some(&Value::Bool(false)));
    let drift = loop_drift_value(&a, &runs(150, 5, "d", 0), &TestSha256, &now(later), Naming::Js).unwrap();
    assert_eq!(drift.get("status").and_then(Value::as_str), Some("expired"));
    let within =
        loop_drift_value(&a, &runs(150, 5, "d", 0), &TestSha256, &now(NOW + 89 * 86_400_000), Naming::Js).unwrap();
    assert_eq!(within.get("status").and_then(Value::as_str), Some("fresh"));
}
