//! Shadow mode for loops: the candidate decides beside the enforced policy without stopping
//! the loop, the decision carries its first would-be stop, and the run's receipt is labelled
//! from the iterations' `good` (else a passed verification), chains in the one receipt log
//! with the pyramid's and is counted by label with Wilson intervals.

use earlyexit::loops::replay::LoopPolicy;
use earlyexit::loops::shadow::ShadowCandidate;
use earlyexit::loops::{Loop, LoopOptions, StepInput};
use earlyexit::receipt_log::{append_receipts, verify_receipts};
use earlyexit::{ErrorCode, Naming, Trigger, Value, VerificationStatus};

mod test_sha256;
use test_sha256::TestSha256;

/// A candidate that stops at the second iteration whatever happens.
fn at_two() -> ShadowCandidate {
    let policy =
        Value::parse_json(r#"{"any": [{"condition": "max_iterations", "limit": 2}]}"#, ErrorCode::InvalidConfig, "")
            .unwrap();
    ShadowCandidate::from_value(&policy, Naming::Js, 0, &TestSha256).unwrap()
}

fn capped(limit: u64) -> LoopOptions {
    LoopOptions { max_iterations: Some(limit), task: Some("t-1".into()), ..Default::default() }
}

/// Runs `qualities` (good where `goods` says so) and answers the receipt.
fn run(goods: &[Option<bool>], limit: u64) -> (Loop<String>, Value) {
    let mut l = Loop::with_shadow(&LoopPolicy::recommended(), capped(limit), at_two()).unwrap();
    for (i, good) in goods.iter().enumerate() {
        let input = StepInput { good: *good, ..Default::default() };
        let d =
            l.step(format!("out {i}"), 40.0 + i as f64 * 10.0, input, || "2026-01-01T00:00:00.000Z".into()).unwrap();
        if d.stop {
            break;
        }
    }
    l.finish(None, "run-a");
    let receipt = l.receipt("run-a").unwrap();
    (l, receipt)
}

#[test]
fn the_candidate_never_stops_the_loop_and_its_first_stop_is_kept() {
    let (l, receipt) = run(&[None, None, None, Some(true)], 4);
    let d = l.decision().unwrap();
    assert!(d.stop, "the enforced cap stops at 4");
    assert_eq!(d.trigger, Trigger::MaxIterations);
    let w = d.would_stop.as_ref().expect("the candidate fired");
    assert_eq!((w.iteration, w.trigger), (2, Trigger::MaxIterations));
    assert_eq!(d.to_value().get("would_stop").and_then(|w| w.get("iteration")), Some(&Value::Number(2.0)));
    assert_eq!(l.history().len(), 4, "every iteration ran");
    assert_eq!(receipt.get("label").and_then(Value::as_str), Some("premature_stop"));
    assert_eq!(receipt.get("stoppedAt"), Some(&Value::Number(2.0)));
    assert_eq!(receipt.get("iterationsSaved"), Some(&Value::Number(2.0)));
    assert_eq!(receipt.get("firstGood"), Some(&Value::Number(4.0)));
    assert_eq!(receipt.get("finalBestQuality"), Some(&Value::Number(70.0)));
}

#[test]
fn labels_follow_good_then_verification() {
    let label =
        |goods: &[Option<bool>], limit| run(goods, limit).1.get("label").and_then(Value::as_str).map(str::to_string);
    assert_eq!(label(&[Some(true), None, None], 3).as_deref(), Some("correct_stop"));
    assert_eq!(label(&[Some(false), Some(false), Some(false)], 3).as_deref(), Some("correct_stop"));
    assert_eq!(label(&[None, None, None], 3).as_deref(), Some("unknown"));
    assert_eq!(label(&[Some(true)], 1).as_deref(), Some("no_stop"));
    // A passed verification stands in for `good`.
    let mut l = Loop::with_shadow(&LoopPolicy::recommended(), capped(3), at_two()).unwrap();
    for i in 0..3 {
        let verification = Some(if i == 2 { VerificationStatus::Passed } else { VerificationStatus::Failed });
        l.step(String::new(), 10.0, StepInput { verification, ..Default::default() }, || {
            "2026-01-01T00:00:00.000Z".into()
        })
        .unwrap();
    }
    assert_eq!(l.receipt("r").unwrap().get("label").and_then(Value::as_str), Some("premature_stop"));
}

#[test]
fn a_shadow_needs_a_capped_enforced_policy() {
    let e = Loop::<String>::with_shadow(&LoopPolicy::recommended(), LoopOptions::default(), at_two()).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "shadow"));
    let capped_config =
        Value::parse_json(r#"{"preset": "recommended", "config": {"maxIterations": 5}}"#, ErrorCode::InvalidConfig, "")
            .unwrap();
    let policy = LoopPolicy::from_value(&capped_config, Naming::Js).unwrap();
    assert!(Loop::<String>::with_shadow(&policy, LoopOptions::default(), at_two()).is_ok());
}

#[test]
fn candidates_are_presets_policies_or_loop_artifacts() {
    let preset = ShadowCandidate::from_value(&Value::string("seed"), Naming::Js, 0, &TestSha256).unwrap();
    assert_eq!(preset.name, "seed");
    let object = Value::parse_json(r#"{"preset": "recommended"}"#, ErrorCode::InvalidConfig, "").unwrap();
    assert_eq!(ShadowCandidate::from_value(&object, Naming::Js, 0, &TestSha256).unwrap().name, "recommended");
    let e = ShadowCandidate::from_value(&Value::string("nope"), Naming::Js, 0, &TestSha256).unwrap_err();
    assert!(e.field().starts_with("shadow"), "{}", e.field());
    let pyramid =
        Value::parse_json(r#"{"kind": "pyramid", "schemaVersion": 2}"#, ErrorCode::InvalidConfig, "").unwrap();
    let e = ShadowCandidate::from_value(&pyramid, Naming::Js, 0, &TestSha256).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_artifact", "shadow.kind"));
}

#[test]
fn loop_receipts_chain_and_count_with_wilson_intervals() {
    let receipts: Vec<Value> = [
        (&[None, None, Some(true)][..], "a"),
        (&[Some(true), None, None][..], "b"),
        (&[Some(true)][..], "c"),
        (&[None, None, None][..], "d"),
    ]
    .iter()
    .map(|(goods, id)| {
        let mut l = Loop::with_shadow(&LoopPolicy::recommended(), capped(goods.len() as u64), at_two()).unwrap();
        for good in goods.iter() {
            l.step(String::new(), 50.0, StepInput { good: *good, ..Default::default() }, || {
                "2026-01-01T00:00:00.000Z".into()
            })
            .unwrap();
        }
        l.receipt(id).unwrap()
    })
    .collect();
    let log = append_receipts("", &receipts, &TestSha256).unwrap();
    let check = verify_receipts(&log, &TestSha256);
    assert!(check.valid(), "{:?}", check.broken);
    assert_eq!(check.receipts, 4);
    let report = check.to_value();
    let labels = report.get("labels").unwrap();
    for (label, n) in [("premature_stop", 1.0), ("correct_stop", 1.0), ("no_stop", 1.0), ("unknown", 1.0)] {
        assert_eq!(labels.get(label), Some(&Value::Number(n)), "{label}");
    }
    let premature = report.get("rates").and_then(|r| r.get("prematureStop")).unwrap();
    assert_eq!(premature.get("of"), Some(&Value::Number(2.0)));
    assert!(matches!(premature.get("wilson"), Some(Value::Array(a)) if a.len() == 2));
    assert!(report.get("rates").and_then(|r| r.get("falsePass")).is_none(), "a loop log has the loop's rates");
    // The same receipt again is a retried step: nothing appended.
    assert_eq!(append_receipts(&log, &receipts[..1], &TestSha256).unwrap(), "");
}

#[test]
fn a_loop_receipt_that_contradicts_itself_is_refused() {
    let (_, receipt) = run(&[None, None, Some(true)], 3);
    let Value::Object(entries) = receipt else { panic!() };
    let with = |key: &str, v: Value| {
        let mut e = entries.clone();
        for (k, val) in e.iter_mut() {
            if k == key {
                *val = v.clone();
            }
        }
        Value::Object(e)
    };
    for (key, v, field) in [
        ("label", Value::string("correct_stop"), "receipts[0].label"),
        ("iterationsSaved", Value::Number(0.0), "receipts[0].iterationsSaved"),
        ("stoppedAt", Value::Number(9.0), "receipts[0].stoppedAt"),
        ("kind", Value::string("pipeline"), "receipts[0].kind"),
    ] {
        let e = append_receipts("", &[with(key, v)], &TestSha256).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_receipt", field), "{key}");
    }
}

#[test]
fn a_snapshot_keeps_the_shadow() {
    let (l, receipt) = run(&[None, None, Some(true)], 3);
    let value = l.to_value(false, |_| None).unwrap();
    let back = Loop::<String>::from_value(&value, |_, _| Ok(String::new())).unwrap();
    assert_eq!(back.receipt("run-a"), Some(receipt));
}

#[test]
fn an_engine_carries_a_shadow_through_its_snapshot_and_reset() {
    let config = earlyexit::EarlyStoppingConfig { max_iterations: Some(5), ..Default::default() };
    let mut engine = earlyexit::EarlyStopping::new(config).unwrap();
    engine.set_shadow(Some(at_two())).unwrap();
    for i in 1..=3u64 {
        let result = earlyexit::IterationResult::new(40.0 + i as f64, 0.5, VerificationStatus::Failed, 1.0);
        engine.record(i, result, || "2026-01-01T00:00:00.000Z".into()).unwrap();
    }
    let d = engine.should_stop();
    assert!(!d.stop);
    assert_eq!(d.would_stop.as_ref().map(|w| w.iteration), Some(2));
    let back = earlyexit::EarlyStopping::from_snapshot(&engine.to_snapshot()).unwrap();
    assert_eq!(back.shadow().and_then(|s| s.would_stop()).map(|w| w.iteration), Some(2));
    engine.reset();
    assert_eq!(engine.should_stop().would_stop, None);
    let mut uncapped = earlyexit::EarlyStopping::new(Default::default()).unwrap();
    let e = uncapped.set_shadow(Some(at_two())).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "shadow"));
}
