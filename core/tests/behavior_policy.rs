//! Behaviour detectors as stop conditions: each detector condition detects exactly what
//! `BehaviorDetector` detects over the whole history while keeping O(its window) records,
//! a detection stops the loop from the condition's `stop_at` level on and is reported
//! without stopping below it, and the iteration results' behaviour fields are validated
//! with the field named (nothing recorded on an error).

use earlyexit::loops::behavior::{BehaviorIteration, Detector, InterventionLevel, Thresholds};
use earlyexit::loops::policy::{BehaviorCondition, PolicyState, StopCondition, StopPolicy};
use earlyexit::loops::{Observation, StoppingDecision};
use earlyexit::{EarlyStopping, ErrorCode, Naming, Trigger, Value, VerificationStatus};

const NOW: fn() -> String = || "2026-01-01T00:00:00.000Z".to_string();

mod test_rng;
use test_rng::Rng;

/// Random behaviour fields, each often absent, from small sets so detections happen.
fn behavior(rng: &mut Rng) -> BehaviorIteration {
    let some = |rng: &mut Rng| rng.below(4) != 0;
    let files = ["a.rs", "b.rs", "c.rs"];
    BehaviorIteration {
        error: some(rng).then(|| rng.pick(&["E1", "E2", "404", ""])),
        failure_class: (rng.below(5) == 0).then(|| rng.pick(&["timeout", ""])),
        blockers: some(rng).then(|| vec![rng.pick(&["x", "y"])]),
        completion_percentage: some(rng).then(|| [0.0, 0.01, 0.5, 1.0, 40.0][rng.below(5) as usize]),
        artifacts_modified: some(rng).then(|| (0..rng.below(3) + 1).map(|_| rng.pick(&files)).collect::<Vec<_>>()),
        learnings: some(rng).then(|| rng.pick(&["fix the parser", "refactor ui", "parser tests", ""])),
        tests_passing: some(rng).then(|| rng.below(2) == 0),
        coverage_percent: some(rng).then(|| [0.0, 30.0, 55.0, 80.0][rng.below(4) as usize]),
        ..BehaviorIteration::default()
    }
}

fn condition(detector: Detector, thresholds: Thresholds) -> BehaviorCondition {
    BehaviorCondition {
        detector,
        thresholds,
        stop_at: InterventionLevel::Pause,
        objective: Some("fix the parser".to_string()),
        max_iterations: Some(4),
    }
}

fn observation(i: u64) -> Observation {
    Observation {
        iteration: i,
        quality_score: 50.0,
        confidence: 0.5,
        quality_delta: 0.0,
        verification_status: VerificationStatus::Failed,
    }
}

/// Over random histories, each detector condition's detection (from the policy state's
/// window) equals `BehaviorDetector`'s over the whole history, at every length, and the
/// state holds at most twice the condition's window.
#[test]
fn each_detector_condition_detects_what_the_detector_detects_over_the_whole_history() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let stuck_windows = [Thresholds::DEFAULT, {
        let mut t = Thresholds::DEFAULT;
        t.stuck.same_error_count = Some(2);
        t.stuck.no_progress_iterations = Some(3);
        t
    }];
    let mut detected = [0usize; 5];
    for run in 0..120 {
        let thresholds = stuck_windows[run % 2];
        for (d, detector) in Detector::ALL.into_iter().enumerate() {
            let c = condition(detector, thresholds);
            let when = StopCondition::Behavior(Box::new(c.clone()));
            let mut state = PolicyState::new(&when);
            assert_eq!(state.behavior_capacity() as u64, c.window());
            let mut history: Vec<BehaviorIteration> = Vec::new();
            for i in 1..=30u64 {
                let b = behavior(&mut rng);
                state.observe(observation(i), None, Some(&b), 70.0);
                let mut full = b.clone();
                full.number = Some(i);
                if i == 1 {
                    full.objective = c.objective.clone();
                    full.max_iterations = c.max_iterations;
                }
                history.push(full);
                let expected = detector.run(&history, &thresholds);
                assert_eq!(state.detect(&c), expected, "run {run} {detector:?} at {i}");
                detected[d] += usize::from(expected.is_some());
                // O(window): never more than twice the window kept.
                assert!(state.behavior.len() < 2 * state.behavior_capacity().max(1) + 1);
            }
        }
    }
    assert!(detected.iter().all(|n| *n > 0), "every detector fired at least once: {detected:?}");
}

/// A million records keep the state at most twice the window, and each decision reads only
/// the window: the records a detection sees are counted, not timed.
#[test]
fn the_state_stays_bounded_over_a_long_history() {
    let c = condition(Detector::Regression, Thresholds::DEFAULT);
    let when = StopCondition::Behavior(Box::new(c.clone()));
    let mut state = PolicyState::new(&when);
    let mut rng = Rng(7);
    let mut most = 0;
    for i in 1..=200_000u64 {
        state.observe(observation(i), None, Some(&behavior(&mut rng)), 70.0);
        most = most.max(state.behavior.len());
    }
    assert!(most < 2 * c.window() as usize, "{most}");
    assert_eq!(c.window(), 5);
}

fn engine(policy: &str) -> EarlyStopping {
    let mut engine = EarlyStopping::from_config_value(&Value::Null, Naming::Js).unwrap();
    let value = Value::parse_json(policy, ErrorCode::InvalidConfig, "policy").unwrap();
    let policy = earlyexit::LoopPolicy::engine_policy(&value, Naming::Snake).unwrap();
    engine.set_policy(Some(policy));
    engine
}

fn record(engine: &mut EarlyStopping, i: u64, extra: &str) -> earlyexit::Result<()> {
    let text =
        format!(r#"{{"quality_score":50,"confidence":0.5,"verification_status":"failed","quality_delta":0{extra}}}"#);
    let result = Value::parse_json(&text, ErrorCode::InvalidResult, "result").unwrap();
    engine.record_value(&Value::Number(i as f64), &result, Naming::Js, NOW).map(|_| ())
}

#[test]
fn a_stuck_loop_is_paused() {
    let mut e = engine(
        r#"{"any":[{"condition":"stuck","no_progress_iterations":5},{"condition":"max_iterations","limit":50}]}"#,
    );
    for i in 1..=4 {
        record(&mut e, i, r#","error":"E1","completion_percentage":10"#).unwrap();
        let d = e.should_stop();
        if i < 3 {
            assert!(!d.stop && d.interventions.is_empty(), "{i}");
        } else {
            // 3 or 4 repeats: high severity, a redirect (below `pause`): reported, no stop.
            assert!(!d.stop, "{i}");
            assert_eq!(d.interventions[0].level(), InterventionLevel::Redirect);
            let v = d.to_value();
            let text = v.get("interventions").unwrap().to_json();
            assert!(text.contains(r#""strategy_override":"OVERRIDE: Change approach immediately."#), "{text}");
        }
    }
    record(&mut e, 5, r#","error":"E1","completion_percentage":10"#).unwrap();
    let d = e.should_stop();
    // Five repeats: critical, a pause: the loop stops.
    assert!(d.stop);
    assert_eq!(d.trigger, Trigger::BehaviorPause);
    assert_eq!(d.reason, "Loop stuck: Same error repeated 5 times with minimal progress");
    assert_eq!(d.interventions[0].level(), InterventionLevel::Pause);
    assert_eq!(d.fired.as_ref().map(|f| f[0].path.as_str()), Some("any[0]"));
    // The decision reads back as written.
    let v = d.to_value();
    assert_eq!(StoppingDecision::from_value(&v, "decision").map(|d| d.to_value()), Ok(v));
}

#[test]
fn an_oscillating_loop_is_warned_without_stopping_unless_stop_at_allows() {
    for (stop_at, stops) in [("pause", false), ("redirect", true)] {
        let policy = format!(r#"{{"any":[{{"condition":"oscillation","stop_at":"{stop_at}"}}]}}"#);
        let mut e = engine(&policy);
        let files = ["a.rs", "b.rs", "a.rs", "b.rs", "a.rs", "b.rs"];
        let mut last = None;
        for (i, f) in files.iter().enumerate() {
            record(&mut e, i as u64 + 1, &format!(r#","artifacts_modified":["{f}"]"#)).unwrap();
            last = Some(e.should_stop());
        }
        let d = last.unwrap();
        assert_eq!(d.stop, stops, "{stop_at}");
        assert_eq!(d.interventions.len(), 1);
        assert_eq!(d.interventions[0].level(), InterventionLevel::Redirect);
        assert_eq!(d.interventions[0].stop, stops);
        if stops {
            assert_eq!(d.trigger, Trigger::BehaviorPause);
        }
    }
}

#[test]
fn a_critical_resource_burn_aborts() {
    let mut e = engine(r#"{"any":[{"condition":"resource_burn","max_iterations":2}]}"#);
    for i in 1..=5 {
        record(&mut e, i, "").unwrap();
    }
    let d = e.should_stop();
    assert!(d.stop);
    assert_eq!(d.trigger, Trigger::BehaviorAbort);
    assert_eq!(d.reason, "Resource burn: Used 5/2 iterations (250% of budget)");
}

#[test]
fn bad_behaviour_fields_are_refused_with_the_field_named_and_nothing_recorded() {
    let mut e = engine(r#"{"any":[{"condition":"test_regression"}]}"#);
    record(&mut e, 1, r#","tests_passing":true"#).unwrap();
    let cases = [
        (r#","tests_passing":null"#, "tests_passing", "type"),
        (r#","completion_percentage":101"#, "completion_percentage", "range"),
        (r#","coverage_percent":-1"#, "coverage_percent", "range"),
        (r#","artifacts_modified":["a",1]"#, "artifacts_modified[1]", "type"),
        (r#","blockers":"x""#, "blockers", "type"),
        (r#","error":5"#, "error", "type"),
        (r#","testsPassing":true"#, "testsPassing", "type"),
    ];
    for (extra, field, kind) in cases {
        let error = record(&mut e, 2, extra).err();
        assert_eq!(error.as_ref().map(|e| (e.field(), e.kind().as_str())), Some((field, kind)), "{extra}");
        assert_eq!(e.history().len(), 1);
    }
    record(&mut e, 2, r#","tests_passing":false,"coverage_percent":null"#).unwrap();
    let d = e.should_stop();
    assert!(!d.stop);
    assert_eq!(d.interventions[0].level(), InterventionLevel::Warn);
    // The history keeps the fields given, after the usual keys.
    let record = e.history()[1].to_value().to_json();
    assert!(record.ends_with(r#""tests_passing":false}"#), "{record}");
}

#[test]
fn detector_conditions_read_back_and_name_bad_settings() {
    let text = r#"{"any":[{"condition":"stuck","no_progress_iterations":4,"same_error_count":2,"stop_at":"abort"},
        "oscillation",{"condition":"deviation","objective":"o","objective_similarity":0.3},
        {"condition":"resource_burn","max_iterations":7},"test_regression"]}"#;
    let value = Value::parse_json(text, ErrorCode::InvalidConfig, "policy").unwrap();
    let when = StopCondition::from_value(&value, "policy", ErrorCode::InvalidConfig).unwrap();
    assert_eq!(StopCondition::from_value(&when.to_value(), "policy", ErrorCode::InvalidConfig), Ok(when.clone()));
    let StopCondition::Any(of) = &when else { panic!() };
    let StopCondition::Behavior(stuck) = &of[0] else { panic!() };
    assert_eq!((stuck.thresholds.stuck.same_error_count, stuck.stop_at), (Some(2), InterventionLevel::Abort));
    let StopCondition::Behavior(deviation) = &of[2] else { panic!() };
    assert_eq!(deviation.thresholds.deviation.scope_creep_ratio, Some(1.5), "others at upstream's defaults");
    let policy = StopPolicy { when, returns: earlyexit::loops::ReturnPolicy::Last };
    assert_eq!(policy.state().behavior_capacity(), 6);
    let cases = [
        (r#"{"any":["stuck"]}"#, "policy.any[0].no_progress_iterations"),
        (r#"{"any":[{"condition":"stuck","no_progress_iterations":0}]}"#, "policy.any[0].no_progress_iterations"),
        (r#"{"any":[{"condition":"oscillation","stop_at":"halt"}]}"#, "policy.any[0].stop_at"),
        (r#"{"any":[{"condition":"oscillation","objective":"o"}]}"#, "policy.any[0].objective"),
        (
            r#"{"any":[{"condition":"test_regression","coverage_drop_percent":101}]}"#,
            "policy.any[0].coverage_drop_percent",
        ),
        (r#"{"any":[{"condition":"resource_burn","max_iterations":0}]}"#, "policy.any[0].max_iterations"),
    ];
    for (text, field) in cases {
        let value = Value::parse_json(text, ErrorCode::InvalidConfig, "policy").unwrap();
        let error = StopCondition::from_value(&value, "policy", ErrorCode::InvalidConfig).err();
        assert_eq!(error.as_ref().map(|e| e.field()), Some(field), "{text}");
    }
}

/// Replay runs may carry the behaviour fields: a replayed stuck run pauses where the engine
/// does, the summary counts the new trigger, and a bad field names its path.
#[test]
fn replays_read_the_behaviour_fields() {
    use earlyexit::loops::replay::runs_from_value;
    use earlyexit::loops::replay::{replay_loops, LoopPolicy};
    let item = r#"{"quality_score": 50, "confidence": 0.5, "verification_status": "failed", "error": "E1", "completion_percentage": 10}"#;
    let text = format!(r#"[{{"id": "a", "iterations": [{}]}}]"#, [item; 7].join(","));
    let runs =
        runs_from_value(&Value::parse_json(&text, ErrorCode::InvalidReplay, "runs").unwrap(), Naming::Snake).unwrap();
    let policy = r#"{"any": [{"condition": "stuck", "no_progress_iterations": 5}]}"#;
    let policy =
        LoopPolicy::from_value(&Value::parse_json(policy, ErrorCode::InvalidReplay, "policy").unwrap(), Naming::Snake)
            .unwrap();
    let replay = replay_loops(&runs, &policy).unwrap();
    let outcome = &replay.outcomes[0];
    assert_eq!((outcome.stopped, outcome.trigger, outcome.iterations_run), (true, Trigger::BehaviorPause, 5));
    let summary = replay.summary.to_value().to_json();
    assert!(summary.contains(r#""behavior_pause":1"#), "{summary}");
    let bad = r#"[{"id": "a", "iterations": [{"quality_score": 50, "confidence": 0.5, "verification_status": "failed", "blockers": [1]}]}]"#;
    let error =
        runs_from_value(&Value::parse_json(bad, ErrorCode::InvalidReplay, "runs").unwrap(), Naming::Snake).err();
    assert_eq!(error.map(|e| e.field().to_string()).as_deref(), Some("runs[0].iterations[0].blockers[0]"));
}

/// Under `strictIterations` a re-record must repeat the behaviour fields too: the same ones
/// are an accepted duplicate, another value (or a field left out) is refused, naming it.
#[test]
fn a_strict_re_record_compares_the_behaviour_fields() {
    let config = Value::parse_json(r#"{"strictIterations": true}"#, ErrorCode::InvalidConfig, "config").unwrap();
    let mut e = EarlyStopping::from_config_value(&config, Naming::Js).unwrap();
    record(&mut e, 1, r#","error":"E1","blockers":["b"]"#).unwrap();
    record(&mut e, 1, r#","error":"E1","blockers":["b"]"#).unwrap();
    for (extra, named) in [(r#","error":"E2","blockers":["b"]"#, "error"), (r#","error":"E1""#, "blockers")] {
        let error = record(&mut e, 1, extra).err().map(|e| e.message().to_string()).unwrap_or_default();
        assert!(error.ends_with(&format!("with a different {named}")), "{error}");
    }
    assert_eq!(e.history().len(), 1);
}
