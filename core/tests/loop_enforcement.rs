//! An enforced engine given a loop calibration artifact: a promoted, current one enforces its
//! calibrated policy; an unpromoted (never, or demoted by drift) or expired one enforces the
//! calibration's most conservative policy and runs the calibrated one in shadow, saying why
//! (`shadow_reason`, kept in snapshots).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit::loops::replay::{calibrate_value, loop_drift_value, promote_loop_value};
use earlyexit::loops::replay::{enforced_from_artifact, LoopCalibrationPlan, LoopPolicy};
use earlyexit::loops::{Loop, LoopOptions};
use earlyexit::{EarlyStopping, ErrorCode, IterationResult, Naming, Value, VerificationStatus};

mod test_sha256;
use test_sha256::TestSha256;

const NOW: i64 = 1_780_000_000_000;
const DAY: i64 = 86_400_000;

/// `n` runs from `from`: good at once.
fn runs(from: usize, n: usize) -> Value {
    runs_in(from, n, "d")
}

fn runs_in(from: usize, n: usize, dataset: &str) -> Value {
    let items: Vec<String> = (from..from + n)
        .map(|i| {
            format!(
                r#"{{"id":"t{i}","dataset":"{dataset}","iterations":[
                {{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}},
                {{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}}]}}"#
            )
        })
        .collect();
    Value::parse_json(&format!("[{}]", items.join(",")), ErrorCode::InvalidReplay, "runs").unwrap()
}

/// A certified calibration on the built-in family (its chosen policy more aggressive than its
/// first, most conservative row).
fn artifact() -> Value {
    let options = Value::parse_json(r#"{"risk":0.1,"delta":0.1}"#, ErrorCode::InvalidConfig, "").unwrap();
    let sequential = |plan: &LoopCalibrationPlan| plan.evaluate_all();
    calibrate_value(&runs(0, 150), &options, Naming::Js, &TestSha256, NOW, &sequential).unwrap()
}

fn promoted(a: &Value) -> Value {
    let answer = promote_loop_value(a, &runs(150, 100), &TestSha256, &Value::Number((NOW + 1) as f64), Naming::Js);
    let answer = answer.unwrap();
    assert_eq!(answer.get("promoted"), Some(&Value::Bool(true)));
    answer.get("artifact").unwrap().clone()
}

fn policy_at(a: &Value, path: &[&str]) -> LoopPolicy {
    let mut at = a;
    for key in path {
        at = at.get(key).unwrap();
    }
    LoopPolicy::from_value(at, Naming::Js).unwrap()
}

fn conservative(a: &Value) -> LoopPolicy {
    let Some(Value::Array(rows)) = a.get("body").and_then(|b| b.get("frontier")) else { panic!("no frontier") };
    LoopPolicy::from_value(rows[0].get("policy").unwrap(), Naming::Js).unwrap()
}

#[test]
fn an_unpromoted_artifact_enforces_its_conservative_policy_and_shadows_the_calibrated_one() {
    let a = artifact();
    let calibrated = policy_at(&a, &["policy"]);
    assert_ne!(calibrated, conservative(&a), "the calibration chose a policy past its first row");
    let enforced = enforced_from_artifact(&a, NOW + 1, &TestSha256).unwrap();
    assert_eq!(enforced.policy, conservative(&a));
    // The conservative policy comes with its cap (the built-in family's first row: 40).
    assert_eq!(enforced.policy.config.max_iterations, Some(40));
    let when = earlyexit::StopCondition::from_config(&enforced.policy.config);
    assert!(earlyexit::loops::shadow::holds_cap(&when));
    let shadow = enforced.shadow.clone().unwrap();
    assert_eq!((shadow.name.as_str(), &shadow.policy), ("calibrated", &calibrated));
    assert_eq!(shadow.artifact_sha256.as_deref(), Some(enforced.sha256.as_str()));
    assert!(enforced.shadow_reason().unwrap().contains("not promoted"), "{:?}", enforced.shadow_reason());

    let mut engine = EarlyStopping::from_calibration(&a, NOW + 1, &TestSha256).unwrap();
    assert_eq!(engine.config(), &conservative(&a).config);
    assert_eq!(engine.shadow_reason(), enforced.shadow_reason());
    // The calibrated policy decides beside it: it stops at once on a verified pass at full
    // confidence, which the conservative policy (threshold 1) does not.
    let r = IterationResult::new(95.0, 0.99, VerificationStatus::Passed, 0.0);
    engine.record(1, r, || "2026-01-01T00:00:00.000Z".into()).unwrap();
    let decision = engine.should_stop();
    assert!(!decision.stop, "{decision:?}");
    assert_eq!(decision.would_stop.as_ref().map(|w| w.iteration), Some(1), "{decision:?}");
    // The snapshot keeps the shadow and its reason; it reads back the same.
    let snapshot = engine.to_snapshot();
    let reason = snapshot.get("shadow").and_then(|s| s.get("reason")).and_then(Value::as_str);
    assert_eq!(reason, enforced.shadow_reason());
    let back = EarlyStopping::from_snapshot(&Value::string(snapshot.to_json().as_str()))
        .or_else(|_| EarlyStopping::from_snapshot(&snapshot))
        .unwrap();
    assert_eq!(back.shadow_reason(), enforced.shadow_reason());
    assert_eq!(back.to_snapshot(), snapshot);
}

#[test]
fn a_promoted_current_artifact_enforces_its_calibrated_policy() {
    let a = artifact();
    let p = promoted(&a);
    let enforced = enforced_from_artifact(&p, NOW + 2, &TestSha256).unwrap();
    assert_eq!(enforced.policy, policy_at(&a, &["policy"]));
    assert!(enforced.shadow.is_none() && enforced.shadow_reason().is_none());
    let engine = EarlyStopping::from_calibration(&p, NOW + 2, &TestSha256).unwrap();
    assert!(engine.shadow().is_none());
    assert!(engine.to_snapshot().get("shadow").is_none(), "a snapshot without shadow is unchanged");
}

#[test]
fn an_expired_or_drifted_artifact_is_enforced_conservatively_too() {
    let a = artifact();
    let p = promoted(&a);
    // Expired (loop artifacts: 90 days), promoted or not.
    let later = NOW + 91 * DAY;
    for artifact in [&a, &p] {
        let enforced = enforced_from_artifact(artifact, later, &TestSha256).unwrap();
        assert_eq!(enforced.policy, conservative(&a));
        let reason = enforced.shadow_reason().unwrap();
        assert!(reason.contains("expired at") && reason.contains("calibrate again"), "{reason}");
    }
    // Drifted: the drift check demotes it, and the demoted artifact runs conservatively.
    let now = Value::Number((NOW + 2) as f64);
    let drift = loop_drift_value(&p, &runs_in(300, 20, "other"), &TestSha256, &now, Naming::Js).unwrap();
    assert_eq!(drift.get("status").and_then(Value::as_str), Some("drifted"));
    let demoted = drift.get("artifact").unwrap();
    let enforced = enforced_from_artifact(demoted, NOW + 2, &TestSha256).unwrap();
    assert_eq!(enforced.policy, conservative(&a));
    assert!(enforced.shadow_reason().unwrap().contains("not promoted"));
}

#[test]
fn a_loop_enforcing_an_unpromoted_artifact_refuses_another_shadow_and_keeps_the_reason() {
    let a = artifact();
    let options = || LoopOptions { max_iterations: Some(5), task: Some("t".into()), ..Default::default() };
    let enforced = enforced_from_artifact(&a, NOW + 1, &TestSha256).unwrap();
    let given = earlyexit::loops::shadow::ShadowCandidate::from_value(
        &Value::string("recommended"),
        Naming::Js,
        NOW,
        &TestSha256,
    )
    .unwrap();
    let err = Loop::<u32>::from_enforced(enforced.clone(), options(), Some(given.clone())).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "shadow"));
    let l = Loop::<u32>::from_enforced(enforced.clone(), options(), None).unwrap();
    assert_eq!(l.shadow_reason(), enforced.shadow_reason());
    // A promoted artifact takes a shadow the caller gives.
    let p = enforced_from_artifact(&promoted(&a), NOW + 2, &TestSha256).unwrap();
    let l = Loop::<u32>::from_enforced(p, options(), Some(given)).unwrap();
    assert_eq!(l.shadow_reason(), None);
    assert_eq!(l.shadow().map(|s| s.candidate().name.as_str()), Some("recommended"));
}

#[test]
fn a_snapshot_shadow_reason_must_be_text() {
    let a = artifact();
    let engine = EarlyStopping::from_calibration(&a, NOW + 1, &TestSha256).unwrap();
    let text = engine.to_snapshot().to_json();
    let reason = format!(r#""reason":"{}""#, engine.shadow_reason().unwrap());
    let bad = text.replacen(&reason, r#""reason":5"#, 1);
    assert_ne!(bad, text);
    let snapshot = Value::parse_json(&bad, ErrorCode::InvalidSnapshot, "").unwrap();
    let err = EarlyStopping::from_snapshot(&snapshot).unwrap_err();
    assert_eq!(err.code(), "invalid_snapshot", "{err}");
}
