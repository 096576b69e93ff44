//! Pyramid costs follow the rule of every running total (the loop engine's usage sums): each
//! cost is finite, and one that would make a sum of them overflow to Infinity is refused,
//! typed, before anything changes. Replay totals, a live run's savings and the model's
//! learned costs never come back as Infinity (or `null` in JSON).

use earlyexit::kit::pyramid::replay::replay_value;
use earlyexit::pyramid::policy::{
    ObservedLayer, OutcomeModel, PolicyConfig, PolicyRun, RunMode, RunOptions, RunPolicy,
};
use earlyexit::{LayerResult, LayerSpec, Naming, PyramidRun, Value};

fn parse(text: &str) -> Value {
    Value::parse_json(text, earlyexit::ErrorCode::InvalidConfig, "t").unwrap()
}

#[test]
fn a_pyramid_run_whose_costs_sum_past_f64_is_refused_at_start() {
    let layers = parse(
        r#"[{"name":"a","costMs":1e308},{"name":"b","costMs":1e308},{"name":"c","costMs":1e308},{"name":"d","costMs":1e308}]"#,
    );
    let err = PyramidRun::start_value(&Value::Null, &Value::Number(4.0), &layers, Naming::Js).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "layers[1].costMs"), "{}", err.message());
    assert!(err.message().contains("running total"), "{}", err.message());
    // Python's layers are read under `cost_ms` only (`costMs` there is a near miss).
    let snake = parse(
        r#"[{"name":"a","cost_ms":1e308},{"name":"b","cost_ms":1e308},{"name":"c","cost_ms":1e308},{"name":"d","cost_ms":1e308}]"#,
    );
    let err = PyramidRun::start_value(&Value::Null, &Value::Number(4.0), &snake, Naming::Snake).unwrap_err();
    assert_eq!(err.field(), "layers[1].cost_ms");
    let specs: Vec<LayerSpec> =
        ["a", "b"].iter().map(|n| LayerSpec { name: (*n).into(), cost_ms: Some(f64::MAX) }).collect();
    let err = PyramidRun::start(earlyexit::ExitConfig::default(), 2, specs.clone()).unwrap_err();
    assert_eq!(err.field(), "layers[1].cost_ms");
    // The largest costs that still sum to a finite number run.
    let fine = parse(r#"[{"name":"a","costMs":8e307},{"name":"b","costMs":8e307}]"#);
    assert!(PyramidRun::start_value(&Value::Null, &Value::Number(2.0), &fine, Naming::Js).is_ok());
    // A policy run too.
    let options = RunOptions { mode: RunMode::Shadow, ..RunOptions::new(RunPolicy::FailFast, OutcomeModel::new()) };
    let err = PolicyRun::start(options, specs).unwrap_err();
    assert_eq!(err.field(), "layers[1].cost_ms");
}

#[test]
fn a_duration_that_would_overflow_a_live_runs_costs_is_refused_and_changes_nothing() {
    let options = RunOptions { mode: RunMode::Shadow, ..RunOptions::new(RunPolicy::FailFast, OutcomeModel::new()) };
    let specs = vec![
        LayerSpec { name: "unit".into(), cost_ms: Some(1e308) },
        LayerSpec { name: "e2e".into(), cost_ms: Some(1.0) },
    ];
    let mut run = PolicyRun::start(options, specs).unwrap();
    let before = run.to_snapshot();
    // Layer 1's duration replaces its cost; with layer 0's 1e308 the receipt's savings overflow.
    let mut submitted = LayerResult::new(1.0, 1.0, 0.0);
    submitted.duration_ms = Some(1.0);
    run.submit(0, submitted).unwrap();
    let after_first = run.to_snapshot();
    let err = run.submit_value(
        &Value::Number(1.0),
        &parse(r#"{"passRate":1,"coverage":1,"flakyRatio":0,"durationMs":1e308}"#),
        Naming::Js,
    );
    // Layer 0 ran in 1 ms: 1 + 1e308 is finite.
    assert!(err.is_ok(), "{err:?}");
    assert_ne!(before, after_first);

    let options = RunOptions { mode: RunMode::Shadow, ..RunOptions::new(RunPolicy::FailFast, OutcomeModel::new()) };
    let specs = vec![
        LayerSpec { name: "unit".into(), cost_ms: Some(1.0) },
        LayerSpec { name: "e2e".into(), cost_ms: Some(1e308) },
    ];
    let mut run = PolicyRun::start(options, specs).unwrap();
    let before = run.to_snapshot();
    let bad = parse(r#"{"passRate":1,"coverage":1,"flakyRatio":0,"durationMs":1e308}"#);
    let err = run.submit_value(&Value::Number(0.0), &bad, Naming::Js).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_layer_result", "layers[0].durationMs"), "{}", err.message());
    assert_eq!(run.to_snapshot(), before, "nothing changed");
    let err = run.submit_value(&Value::Number(0.0), &bad, Naming::Snake).unwrap_err();
    assert_eq!(err.field(), "layers[0].duration_ms");
}

#[test]
fn replay_totals_never_overflow() {
    // Within one run.
    let one = parse(
        r#"[{"layers":[{"name":"a","durationMs":1e308,"failed":false},{"name":"b","durationMs":1e308,"failed":false}]}]"#,
    );
    let err = replay_value(&one, &Value::Null, Naming::Js).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_replay", "runs[0].layers[1].durationMs"), "{}", err.message());
    let err = replay_value(&one, &Value::Null, Naming::Snake).unwrap_err();
    assert_eq!(err.field(), "runs[0].layers[1].duration_ms");
    // Across runs: the run that would make the summary's total overflow.
    let run = r#"{"layers":[{"name":"a","durationMs":1e308,"failed":false}]}"#;
    let two = parse(&format!("[{run},{run}]"));
    for policy in [r#"{"policy":"default"}"#, r#"{"policy":"risk_bounded","learn":"all"}"#] {
        let err = replay_value(&two, &parse(policy), Naming::Js).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_replay", "runs[1].layers"), "{policy}: {}", err.message());
    }
    let out = replay_value(&parse(&format!("[{run}]")), &Value::Null, Naming::Js).unwrap();
    let total = out.get("summary").and_then(|s| s.get("totalMs")).and_then(Value::as_f64);
    assert_eq!(total, Some(1e308));
}

#[test]
fn the_model_refuses_a_duration_that_would_overflow_its_cost_total() {
    let config = PolicyConfig { forgetting: 1.0, ..PolicyConfig::RISK_BOUNDED };
    let ran = [ObservedLayer { name: "e2e".into(), failed: false, duration_ms: Some(1e308) }];
    let mut model = OutcomeModel::new();
    model.update(&config, &ran).unwrap();
    let before = model.clone();
    // The mean is kept as total / weight: 1e308 * 1 + 1e308 overflows.
    let err = model.update(&config, &ran).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "ran[0].durationMs"), "{}", err.message());
    assert_eq!(model, before, "nothing changed");
    // The model as JSON never carries a null cost it would then refuse.
    let doc = model.to_value(Naming::Js);
    assert!(OutcomeModel::from_value(&doc, Naming::Js).is_ok());
    // Smaller durations learn as before.
    model.update(&config, &[ObservedLayer { name: "e2e".into(), failed: false, duration_ms: Some(1.0) }]).unwrap();
}
