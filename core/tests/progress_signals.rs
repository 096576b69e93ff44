//! The progress signals: `fingerprint` and `completed` on a record, and the conditions that
//! read them (`unchanged(k)`, `revisit(window)`, `completed`), as the policy JSON, the
//! builders, the engine, its snapshot and replay take them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::policy::{PolicyState, StopCondition};
use earlyexit::loops::replay::LoopPolicy;
use earlyexit::{EarlyStopping, ErrorCode, Naming, Trigger, Value};

const NOW: fn() -> String = || "2026-01-01T00:00:00.000Z".to_string();

fn json(text: &str) -> Value {
    Value::parse_json(text, ErrorCode::InvalidConfig, "test").unwrap()
}

fn engine(policy: &str) -> EarlyStopping {
    let mut es = EarlyStopping::new(Default::default()).unwrap();
    es.set_policy(Some(LoopPolicy::engine_policy(&json(policy), Naming::Js).map_err(|e| panic!("{e:?}")).unwrap()));
    es
}

fn record(es: &mut EarlyStopping, i: u64, extra: &str) -> earlyexit::Result<()> {
    let text = format!(
        r#"{{"quality_score":50,"confidence":0.1,"verification_status":"skipped","quality_delta":0,"timestamp":"2026-01-01T00:00:00.000Z"{extra}}}"#
    );
    es.record_value(&Value::Number(i as f64), &json(&text), Naming::Js, NOW).map(|_| ())
}

/// The iteration (1-based) at which `policy` first stops over `fingerprints` (`None` = no
/// fingerprint on that record), with its trigger.
fn first_stop(policy: &str, fingerprints: &[Option<&str>]) -> Option<(usize, Trigger)> {
    let mut es = engine(policy);
    for (i, f) in fingerprints.iter().enumerate() {
        let extra = f.map_or(String::new(), |f| format!(r#","fingerprint":"{f}""#));
        record(&mut es, i as u64 + 1, &extra).unwrap();
        let d = es.should_stop();
        if d.stop {
            return Some((i + 1, d.trigger));
        }
    }
    None
}

const UNCHANGED_3: &str = r#"{"any":[{"condition":"unchanged","k":3}]}"#;
const REVISIT_2: &str = r#"{"any":[{"condition":"revisit","window":2}]}"#;
const REVISIT_4: &str = r#"{"any":[{"condition":"revisit","window":4}]}"#;

#[test]
fn unchanged_fires_when_k_plus_one_records_share_a_fingerprint() {
    let a = Some("A");
    assert_eq!(first_stop(UNCHANGED_3, &[a, a, a, a]), Some((4, Trigger::Unchanged)));
    assert_eq!(first_stop(UNCHANGED_3, &[a, a, a]), None);
    // A record without a fingerprint equals nothing: the run starts again after it.
    assert_eq!(first_stop(UNCHANGED_3, &[a, a, None, a, a, a]), None);
    assert_eq!(first_stop(UNCHANGED_3, &[a, a, Some("B"), a, a, a, a]), Some((7, Trigger::Unchanged)));
    assert_eq!(first_stop(r#"{"any":[{"condition":"unchanged","k":1}]}"#, &[a, a]), Some((2, Trigger::Unchanged)));
    assert_eq!(first_stop(UNCHANGED_3, &[None, None, None, None, None]), None);
}

#[test]
fn revisit_fires_on_a_fingerprint_seen_before_the_previous_record() {
    let (a, b, c) = (Some("A"), Some("B"), Some("C"));
    assert_eq!(first_stop(REVISIT_2, &[a, b, a]), Some((3, Trigger::Revisit)));
    // A, A is `unchanged`, never a revisit, however long the run.
    assert_eq!(first_stop(REVISIT_2, &[a, a, a, a]), None);
    assert_eq!(first_stop(REVISIT_2, &[a, b, a, a]), Some((3, Trigger::Revisit)));
    let revisit_3 = r#"{"any":[{"condition":"revisit","window":3}]}"#;
    assert_eq!(first_stop(revisit_3, &[b, a, b, b]), Some((3, Trigger::Revisit)));
    assert_eq!(first_stop(REVISIT_2, &[b, b, a, a, a]), None);
    // Out of the window: A, B, C, A with window 2 looks at B only.
    assert_eq!(first_stop(REVISIT_2, &[a, b, c, a]), None);
    assert_eq!(first_stop(REVISIT_4, &[a, b, c, a]), Some((4, Trigger::Revisit)));
    // Absent fingerprints equal nothing.
    assert_eq!(first_stop(REVISIT_2, &[None, b, None]), None);
    assert_eq!(first_stop(REVISIT_2, &[a, None, a]), Some((3, Trigger::Revisit)));
}

#[test]
fn a_stop_lists_the_condition_in_fired_with_its_details() {
    let mut es = engine(REVISIT_4);
    for (i, f) in ["A", "B", "C", "B"].iter().enumerate() {
        record(&mut es, i as u64 + 1, &format!(r#","fingerprint":"{f}""#)).unwrap();
    }
    let d = es.should_stop().to_value();
    assert_eq!(d.get("trigger").and_then(Value::as_str), Some("revisit"));
    assert_eq!(
        d.get("reason").and_then(Value::as_str),
        Some("Revisit: the fingerprint of iteration 2 came back within a window of 4")
    );
    let details = d.get("details").unwrap();
    assert_eq!(details.get("first_seen_iteration").and_then(Value::as_f64), Some(2.0));
    assert_eq!(details.get("fingerprint").and_then(Value::as_str), Some("B"));
    let Some(Value::Array(fired)) = d.get("fired") else { panic!("fired") };
    assert_eq!(fired[0].get("condition").and_then(Value::as_str), Some("revisit"));
}

#[test]
fn completed_fires_on_the_record_that_reports_it() {
    let policy = r#"{"any":["completed",{"condition":"max_iterations","limit":2}]}"#;
    let mut es = engine(policy);
    record(&mut es, 1, r#","completed":false"#).unwrap();
    assert!(!es.should_stop().stop);
    record(&mut es, 2, r#","completed":true"#).unwrap();
    let d = es.should_stop();
    // Listed first, completion wins over the cap reached on the same record.
    assert_eq!(d.trigger, Trigger::Completed);
    assert_eq!(d.reason, "Completed: iteration 2 reported the task done");
}

#[test]
fn the_fields_are_checked_and_a_bad_one_changes_nothing() {
    let mut es = engine(UNCHANGED_3);
    let long = "x".repeat(257);
    let cases = [
        (format!(r#","fingerprint":"{long}""#), "fingerprint", "range"),
        (r#","fingerprint":7"#.to_string(), "fingerprint", "type"),
        (r#","completed":"yes""#.to_string(), "completed", "type"),
    ];
    for (extra, field, kind) in cases {
        let e = record(&mut es, 1, &extra).unwrap_err();
        assert_eq!((e.code(), e.field(), e.kind().as_str()), ("invalid_result", field, kind), "{extra}");
    }
    assert!(es.history().is_empty());
    // 256 characters (not bytes) is the limit.
    record(&mut es, 1, &format!(r#","fingerprint":"{}""#, "é".repeat(256))).unwrap();
}

#[test]
fn k_and_window_are_read_with_their_ranges() {
    for (policy, field) in [
        (r#"{"any":[{"condition":"unchanged","k":0}]}"#, "policy.any[0].k"),
        (r#"{"any":[{"condition":"unchanged"}]}"#, "policy.any[0].k"),
        (r#"{"any":[{"condition":"revisit","window":1}]}"#, "policy.any[0].window"),
        (r#"{"any":[{"condition":"revisit","window":2.5}]}"#, "policy.any[0].window"),
        (r#"{"any":[{"condition":"completed","k":1}]}"#, "policy.any[0].k"),
    ] {
        let e = LoopPolicy::engine_policy(&json(policy), Naming::Js).unwrap_err();
        assert_eq!(e.field(), field, "{policy}");
    }
    // Builders and the JSON form agree, and the form reads back equal.
    for c in [StopCondition::unchanged(3), StopCondition::revisit(4), StopCondition::completed()] {
        let back = StopCondition::from_value(&c.to_value(), "policy", ErrorCode::InvalidConfig).unwrap();
        assert_eq!(back, c);
    }
}

#[test]
fn history_and_snapshots_carry_the_fields_only_when_given() {
    let mut es = engine(REVISIT_2);
    record(&mut es, 1, r#","fingerprint":"A""#).unwrap();
    record(&mut es, 2, "").unwrap();
    let history = es.history();
    assert_eq!(history[0].to_value().get("fingerprint").and_then(Value::as_str), Some("A"));
    assert!(history[1].to_value().get("fingerprint").is_none());
    assert!(history[1].to_value().get("completed").is_none());
    let snapshot = es.to_snapshot();
    let mut back = EarlyStopping::from_snapshot(&snapshot).unwrap();
    record(&mut back, 3, r#","fingerprint":"A""#).unwrap();
    assert_eq!(back.should_stop().trigger, Trigger::Revisit);
}

#[test]
fn the_policy_state_reads_back_what_it_wrote() {
    let when =
        StopCondition::Any(vec![StopCondition::revisit(3), StopCondition::unchanged(2), StopCondition::completed()]);
    let mut state = PolicyState::new(&when);
    let mut es = engine(r#"{"any":[{"condition":"revisit","window":3},{"condition":"unchanged","k":2},"completed"]}"#);
    for (i, f) in ["A", "B", "B"].iter().enumerate() {
        record(&mut es, i as u64 + 1, &format!(r#","fingerprint":"{f}""#)).unwrap();
    }
    for r in es.history() {
        state.observe(r.observation, r.usage.as_deref(), r.behavior.as_deref(), 70.0);
    }
    let back = PolicyState::from_value(&state.to_value(), &when).unwrap();
    assert_eq!(back, state);
    // A policy without progress conditions writes no progress keys.
    let plain = PolicyState::new(&StopCondition::max_iterations(3));
    assert!(plain.to_value().get("progress").is_none());
}

#[test]
fn the_implied_delta_is_the_score_minus_the_previous_records() {
    let mut es = EarlyStopping::new(Default::default()).unwrap();
    assert_eq!(es.implied_quality_delta(Some(1), 40.0), 0.0);
    record(&mut es, 1, "").unwrap(); // quality 50
    assert_eq!(es.implied_quality_delta(Some(2), 62.5), 12.5);
    assert_eq!(es.implied_quality_delta(None, 45.0), -5.0);
    // An iteration at or before the first record has no previous one.
    assert_eq!(es.implied_quality_delta(Some(1), 45.0), 0.0);
}

#[test]
fn replay_reads_the_fields_and_counts_the_triggers() {
    use earlyexit::loops::replay::replay_loops;
    use earlyexit::loops::replay::runs_from_value;
    let runs = json(
        r#"[{"id": "a", "iterations": [
              {"quality_score": 40, "confidence": 0, "verification_status": "skipped", "fingerprint": "A"},
              {"quality_score": 45, "confidence": 0, "verification_status": "skipped", "fingerprint": "B"},
              {"quality_score": 50, "confidence": 0, "verification_status": "skipped", "fingerprint": "A"},
              {"quality_score": 55, "confidence": 0, "verification_status": "skipped"}]},
            {"id": "b", "iterations": [
              {"quality_score": 40, "confidence": 0, "verification_status": "skipped", "completed": true},
              {"quality_score": 45, "confidence": 0, "verification_status": "skipped"}]}]"#,
    );
    let runs = runs_from_value(&runs, Naming::Js).unwrap();
    let policy =
        LoopPolicy::from_value(&json(r#"{"any": ["completed", {"condition": "revisit", "window": 2}]}"#), Naming::Js)
            .unwrap();
    let summary = replay_loops(&runs, &policy).unwrap().summary.to_value();
    let triggers = summary.get("triggers").unwrap();
    assert_eq!(triggers.get("revisit").and_then(Value::as_f64), Some(1.0));
    assert_eq!(triggers.get("completed").and_then(Value::as_f64), Some(1.0));
    assert!(triggers.get("unchanged").is_none()); // no stop by it: the key stays out
}
