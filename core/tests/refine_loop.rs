//! `Loop`: the refine loop over the engine (scale, the counted iteration, completion before
//! the policy, the kept outputs, the run form and the snapshot).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::replay::runs_from_value;
use earlyexit::loops::replay::LoopPolicy;
use earlyexit::loops::{Loop, LoopOptions, StepInput};
use earlyexit::{Trigger, Value};

const NOW: fn() -> String = || "2026-01-01T00:00:00.000Z".to_string();

fn new(scale: f64, max_iterations: Option<u64>) -> Loop<String> {
    let options = LoopOptions { scale, max_iterations, task: Some("t-17".into()), ..LoopOptions::default() };
    Loop::new(&LoopPolicy::recommended(), options).unwrap()
}

fn step(l: &mut Loop<String>, q: f64, input: StepInput) -> (bool, Trigger) {
    let out = format!("draft {}", l.history().len() + 1);
    let d = l.step(out, q, input, NOW).unwrap();
    (d.stop, d.trigger)
}

#[test]
fn scores_on_0_to_1_are_mapped_and_decide_as_on_0_to_100() {
    // The same curve stops at the same iteration on either scale.
    let curve = [50.0, 60.0, 75.0, 75.2, 75.3, 75.3, 75.4, 75.4, 75.4, 75.4, 75.4];
    let stops = |scale: f64| {
        let mut l = new(scale, None);
        for (i, q) in curve.iter().enumerate() {
            if step(&mut l, q / (100.0 / scale), StepInput::default()).0 {
                return Some(i + 1);
            }
        }
        None
    };
    assert!(stops(100.0).is_some());
    assert_eq!(stops(1.0), stops(100.0));
    let mut l = new(1.0, None);
    step(&mut l, 0.5, StepInput::default());
    step(&mut l, 0.75, StepInput::default());
    let h = l.history();
    assert_eq!(
        (h[1].observation.iteration, h[1].observation.quality_score, h[1].observation.quality_delta),
        (2, 75.0, 25.0)
    );
    assert_eq!(l.best().map(|b| (b.iteration, b.quality)), Some((2, 0.75)));
}

#[test]
fn bad_input_names_the_step_argument_and_changes_nothing() {
    let mut l = new(1.0, None);
    step(&mut l, 0.5, StepInput::default());
    let e = l.step("x".into(), 2.0, StepInput::default(), NOW).unwrap_err();
    assert_eq!((e.code(), e.field(), e.kind().as_str()), ("invalid_result", "quality", "range"));
    let e = l
        .step("x".into(), 0.5, StepInput { fingerprint: Some("f".repeat(257)), ..Default::default() }, NOW)
        .unwrap_err();
    assert_eq!(e.field(), "fingerprint");
    let usage = earlyexit::loops::ResourceUsage { tokens_used: Some(-1.0), ..Default::default() };
    let e = l.step("x".into(), 0.5, StepInput { usage, ..Default::default() }, NOW).unwrap_err();
    assert_eq!(e.field(), "tokens");
    assert_eq!(l.history().len(), 1);
    assert_eq!(l.last().map(|k| k.output.as_str()), Some("draft 1"));
    for scale in [0.0, 10.0, f64::NAN] {
        let e =
            Loop::<String>::new(&LoopPolicy::recommended(), LoopOptions { scale, ..Default::default() }).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "scale"));
    }
    let e =
        Loop::<String>::new(&LoopPolicy::recommended(), LoopOptions { max_iterations: Some(0), ..Default::default() })
            .unwrap_err();
    assert_eq!(e.field(), "max_iterations");
}

#[test]
fn done_stops_with_completed_before_the_policy_and_over_the_cap() {
    let mut l = new(100.0, Some(2));
    assert_eq!(step(&mut l, 90.0, StepInput::default()), (false, Trigger::None));
    assert_eq!(step(&mut l, 40.0, StepInput { done: true, ..Default::default() }), (true, Trigger::Completed));
    // The completed output, not the best (iteration 1).
    assert_eq!(l.output().map(|k| k.iteration), Some(2));
    assert_eq!(l.best().map(|k| k.iteration), Some(1));
    let mut capped = new(100.0, Some(2));
    step(&mut capped, 90.0, StepInput::default());
    assert_eq!(step(&mut capped, 40.0, StepInput::default()), (true, Trigger::MaxIterations));
    // `recommended` returns the best.
    assert_eq!(capped.output().map(|k| k.output.as_str()), Some("draft 1"));
}

#[test]
fn fingerprints_reach_the_policy() {
    let policy = LoopPolicy::from_value(
        &Value::parse_json(
            r#"{"any": [{"condition": "unchanged", "k": 2}]}"#,
            earlyexit::ErrorCode::InvalidConfig,
            "p",
        )
        .unwrap(),
        earlyexit::Naming::Js,
    )
    .unwrap();
    let mut l: Loop<String> = Loop::new(&policy, LoopOptions::default()).unwrap();
    let fp = || StepInput { fingerprint: Some("same".into()), ..Default::default() };
    assert!(!step(&mut l, 10.0, fp()).0);
    assert!(!step(&mut l, 20.0, fp()).0);
    assert_eq!(step(&mut l, 30.0, fp()), (true, Trigger::Unchanged));
}

#[test]
fn the_run_is_the_replay_form_and_finish_marks_the_output() {
    let mut l = new(1.0, None);
    step(&mut l, 0.4, StepInput { good: Some(false), usage: tokens_used_hint(), ..Default::default() });
    step(&mut l, 0.8, StepInput::default());
    step(&mut l, 0.6, StepInput::default());
    let run = l.finish(Some(true), "fallback-id");
    assert_eq!(run.get("id").and_then(Value::as_str), Some("t-17"));
    let Some(Value::Array(items)) = run.get("iterations") else { panic!() };
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].get("good"), Some(&Value::Bool(false)));
    assert_eq!(items[1].get("good"), Some(&Value::Bool(true))); // the best: recommended's output
    assert!(items[2].get("good").is_none() && items[2].get("timestamp").is_none());
    let runs = runs_from_value(&Value::Array(vec![run]), earlyexit::Naming::Js).unwrap();
    assert_eq!(runs[0].iterations.len(), 3);
}

fn tokens_used_hint() -> earlyexit::loops::ResourceUsage {
    earlyexit::loops::ResourceUsage { tokens_used: Some(120.0), ..Default::default() }
}

#[test]
fn a_snapshot_keeps_the_engine_and_the_outputs() {
    let mut l = new(1.0, Some(5));
    step(&mut l, 0.4, StepInput::default());
    step(&mut l, 0.9, StepInput::default());
    step(&mut l, 0.5, StepInput { good: Some(true), ..Default::default() });
    let value = l.to_value(true, |s: &String| Some(Value::string(s.as_str()))).unwrap();
    let back: Loop<String> =
        Loop::from_value(&value, |_, v| Ok(v.and_then(Value::as_str).unwrap_or_default().to_string())).unwrap();
    assert_eq!(back.best(), l.best());
    assert_eq!(back.last(), l.last());
    assert_eq!(back.decision(), l.decision());
    assert_eq!(back.run("x"), l.run("x"));
    let e = l.to_value(true, |_| None).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "best.output"));
    assert!(l.to_value(false, |_| None).is_ok());
}

#[test]
fn step_arguments_and_options_are_read_with_their_names() {
    use earlyexit::{ErrorCode, Naming};
    let parse = |t: &str| Value::parse_json(t, ErrorCode::InvalidResult, "t").unwrap();
    let (q, input) = StepInput::from_value(&parse(
        r#"{"quality": 0.5, "verified": true, "done": true, "tokens": 3, "files": ["a"], "fingerprint": "f"}"#,
    ))
    .unwrap();
    assert_eq!(q, 0.5);
    assert_eq!(input.verification, Some(earlyexit::VerificationStatus::Passed));
    assert!(input.done && input.files == Some(vec!["a".to_string()]));
    for (text, field) in [
        (r#"{"quality": "x"}"#, "quality"),
        (r#"{"quality": 1, "verified": "maybe"}"#, "verified"),
        (r#"{"quality": 1, "files": ["a", 3]}"#, "files[1]"),
        (r#"{"quality": 1, "fingerprint": 5}"#, "fingerprint"),
        (r#"{"quality": 1, "done": 1}"#, "done"),
    ] {
        assert_eq!(StepInput::from_value(&parse(text)).unwrap_err().field(), field, "{text}");
    }
    let long_label = format!(r#"{{"run_label": "{}"}}"#, "x".repeat(257));
    for (text, field) in [
        (r#"{"scale": 10}"#, "scale"),
        (r#"{"task": 5}"#, "task"),
        (r#"{"dataset": ["d"]}"#, "dataset"),
        (r#"{"max_iterations": 0}"#, "max_iterations"),
        // A run label is a store name: 1 to 256 characters (refused here, not when stored).
        (r#"{"run_label": ""}"#, "run_label"),
        (long_label.as_str(), "run_label"),
    ] {
        let e = LoopOptions::from_value(&parse(text)).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", field), "{text}");
    }
    let policy = earlyexit::kit::loops::loop_policy(
        &parse(r#"{"any": [{"condition": "revisit", "window": 1}]}"#),
        Naming::Snake,
    );
    assert_eq!(policy.unwrap_err().field(), "policy.any[0].window");
    assert!(earlyexit::kit::loops::loop_policy(&parse(r#""seed""#), Naming::Snake).is_ok());
}

#[test]
fn a_wrong_looking_scale_gives_its_notice_once() {
    let mut l = new(100.0, None);
    for q in [0.2, 0.4] {
        step(&mut l, q, StepInput::default());
        assert!(l.scale_notice().is_none());
    }
    step(&mut l, 0.5, StepInput::default());
    assert_eq!(l.scale_notice(), Some(earlyexit::loops::SCALE_NOTICE));
    step(&mut l, 0.6, StepInput::default());
    assert!(l.scale_notice().is_none());
    let mut integers = new(100.0, None);
    for q in [0.0, 1.0, 0.0] {
        step(&mut integers, q, StepInput::default());
    }
    assert!(integers.scale_notice().is_none());
}
