//! snake_case input (Python, Rust) reads each field under either spelling: what `to_dict()`
//! returns and the JSON formats use (the JS spelling) as well as snake_case. An object that
//! gives one field both ways is a type error naming the field (snake_case path, the reader's
//! code) and changes nothing. JS input keeps its one spelling.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit;
use earlyexit::{
    loops::analytics::AnalyticsConfig, pyramid, CoherenceEarlyExit, EarlyStopping, EarlyStoppingConfig, ErrorCode,
    ErrorKind, ExitConfig, IterationAnalytics, LayerResult, Naming, PyramidRun, QualitySignal, Value,
};

fn json(text: &str) -> Value {
    Value::parse_json(text, ErrorCode::InvalidSnapshot, "test").unwrap()
}

/// `f` over the JS-spelled and the snake_case-spelled object gives the same answer, and over
/// an object with both spellings of `field` the type error (`code`, `path`).
fn check<T: PartialEq + std::fmt::Debug>(
    what: &str,
    js: &str,
    snake: &str,
    both: &str,
    code: ErrorCode,
    path: &str,
    f: impl Fn(&Value) -> earlyexit::Result<T>,
) {
    let from_js = f(&json(js)).unwrap_or_else(|e| panic!("{what}: JS spelling refused: {}", e.message()));
    let from_snake = f(&json(snake)).unwrap_or_else(|e| panic!("{what}: snake_case refused: {}", e.message()));
    assert_eq!(from_js, from_snake, "{what}");
    let error = f(&json(both)).err().unwrap_or_else(|| panic!("{what}: both spellings accepted"));
    assert_eq!((error.error_code(), error.kind(), error.field()), (code, ErrorKind::Type, path), "{what}");
    assert!(error.message().contains("is given twice"), "{what}: {}", error.message());
}

#[test]
fn configs_read_either_spelling() {
    check(
        "EarlyStoppingConfig",
        r#"{"plateauConsecutiveCount": 4, "maxTotalCostUsd": 2}"#,
        r#"{"plateau_consecutive_count": 4, "max_total_cost_usd": 2}"#,
        r#"{"plateau_consecutive_count": 4, "plateauConsecutiveCount": 4}"#,
        ErrorCode::InvalidConfig,
        "plateau_consecutive_count",
        |v| EarlyStoppingConfig::default().merged(v, Naming::Snake, "config", ErrorCode::InvalidConfig),
    );
    check(
        "AnalyticsConfig",
        r#"{"qualityThreshold": 60, "selectionCriteria": "highest_quality"}"#,
        r#"{"quality_threshold": 60, "selection_criteria": "highest_quality"}"#,
        r#"{"qualityThreshold": 60, "quality_threshold": 61}"#,
        ErrorCode::InvalidConfig,
        "quality_threshold",
        |v| AnalyticsConfig::default().merged(v, Naming::Snake, "", ErrorCode::InvalidConfig),
    );
    check(
        "ExitConfig",
        r#"{"exitLayer": 2, "minLambdaForExit": 70}"#,
        r#"{"exit_layer": 2, "min_lambda_for_exit": 70}"#,
        r#"{"exit_layer": 2, "exitLayer": 2}"#,
        ErrorCode::InvalidConfig,
        "exit_layer",
        |v| ExitConfig::from_value(v, Naming::Snake),
    );
}

#[test]
fn results_signals_and_layer_specs_read_either_spelling() {
    check(
        "LayerResult",
        r#"{"passRate": 0.8, "coverage": 0.9, "flakyRatio": 0.1, "previousLambda": 70, "durationMs": 5}"#,
        r#"{"pass_rate": 0.8, "coverage": 0.9, "flaky_ratio": 0.1, "previous_lambda": 70, "duration_ms": 5}"#,
        r#"{"pass_rate": 0.8, "coverage": 0.9, "flaky_ratio": 0.1, "durationMs": 5, "duration_ms": 5}"#,
        ErrorCode::InvalidLayerResult,
        "duration_ms",
        |v| LayerResult::from_value(v, Naming::Snake, "").map(|r| r.to_value(Naming::Snake)),
    );
    check(
        "QualitySignal",
        r#"{"lambda": 90, "lambdaPrev": 88, "boundaryConcentration": 0.1, "partitionCount": 1}"#,
        r#"{"lambda": 90, "lambda_prev": 88, "boundary_concentration": 0.1, "partition_count": 1}"#,
        r#"{"lambda": 90, "lambda_prev": 88, "lambdaPrev": 88, "boundary_concentration": 0.1}"#,
        ErrorCode::InvalidSignal,
        "lambda_prev",
        |v| QualitySignal::from_value(v, Naming::Snake),
    );
    let exit = CoherenceEarlyExit::from_values(&Value::Null, &Value::Number(4.0), Naming::Snake).unwrap();
    check(
        "shouldExit",
        r#"{"lambda": 90, "lambdaPrev": 88, "boundaryConcentration": 0.1}"#,
        r#"{"lambda": 90, "lambda_prev": 88, "boundary_concentration": 0.1}"#,
        r#"{"lambda": 90, "lambdaPrev": 88, "boundaryConcentration": 0.1, "boundary_concentration": 0.1}"#,
        ErrorCode::InvalidSignal,
        "boundary_concentration",
        |v| exit.should_exit_value(v, &Value::Number(1.0), Naming::Snake),
    );
    layers_read_cost_ms_only("PyramidRun.start layers", |v| {
        PyramidRun::start_value(&Value::Null, &Value::Number(2.0), v, Naming::Snake).map(|_| ())
    });
}

/// Layers are the exception to the either-spelling rule: a snake_case layer reads `cost_ms`
/// only, and the JS spelling `costMs` (beside `cost_ms` or alone) is a near miss,
/// `unknown_option` on the key as written with a did-you-mean.
fn layers_read_cost_ms_only(what: &str, f: impl Fn(&Value) -> earlyexit::Result<()>) {
    assert!(f(&json(r#"[{"name": "unit", "cost_ms": 10}, {"name": "e2e"}]"#)).is_ok(), "{what}");
    for layers in [
        r#"[{"name": "unit", "costMs": 10}, {"name": "e2e"}]"#,
        r#"[{"name": "unit", "cost_ms": 1, "costMs": 1}, {"name": "e2e"}]"#,
    ] {
        let error = f(&json(layers)).err().unwrap_or_else(|| panic!("{what}: costMs accepted"));
        assert_eq!((error.error_code(), error.field()), (ErrorCode::UnknownOption, "layers[0].costMs"), "{what}");
        assert!(error.message().contains("did you mean 'cost_ms'"), "{what}: {}", error.message());
    }
}

#[test]
fn a_submitted_result_spelled_either_way_is_the_same_run_and_both_change_nothing() {
    let layers = json(r#"[{"name": "unit", "cost_ms": 10}, {"name": "e2e", "cost_ms": 100}]"#);
    let start = || PyramidRun::start_value(&Value::Null, &Value::Number(2.0), &layers, Naming::Snake).unwrap();
    let (mut by_js, mut by_snake) = (start(), start());
    let js = json(r#"{"passRate": 1, "coverage": 0.95, "flakyRatio": 0, "suite": "api"}"#);
    let snake = json(r#"{"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0, "suite": "api"}"#);
    by_js.next();
    by_snake.next();
    let a = by_js.submit_value(&Value::Number(0.0), &js, Naming::Snake).unwrap();
    let b = by_snake.submit_value(&Value::Number(0.0), &snake, Naming::Snake).unwrap();
    assert_eq!(a, b);
    assert_eq!(by_js.to_snapshot().to_json(), by_snake.to_snapshot().to_json());
    let mut run = start();
    run.next();
    let before = run.clone();
    let both = json(r#"{"pass_rate": 1, "coverage": 0.95, "flakyRatio": 0, "flaky_ratio": 0}"#);
    let error = run.submit_value(&Value::Number(0.0), &both, Naming::Snake).unwrap_err();
    assert_eq!((error.error_code(), error.field()), (ErrorCode::InvalidLayerResult, "layers[0].flaky_ratio"));
    assert_eq!(run, before);
}

#[test]
fn engines_and_configure_read_either_spelling_and_both_change_nothing() {
    let js = json(r#"{"plateauConsecutiveCount": 4}"#);
    let snake = json(r#"{"plateau_consecutive_count": 4}"#);
    let a = EarlyStopping::from_config_value(&js, Naming::Snake).unwrap();
    let b = EarlyStopping::from_config_value(&snake, Naming::Snake).unwrap();
    assert_eq!(a.config(), b.config());
    let mut engine = EarlyStopping::from_config_value(&Value::Null, Naming::Snake).unwrap();
    engine.configure_value(&json(r#"{"minQualityThreshold": 60}"#), Naming::Snake).unwrap();
    assert_eq!(engine.config().min_quality_threshold, 60.0);
    let before = engine.config().clone();
    let error = engine
        .configure_value(&json(r#"{"minQualityThreshold": 50, "min_quality_threshold": 50}"#), Naming::Snake)
        .unwrap_err();
    assert_eq!((error.error_code(), error.field()), (ErrorCode::InvalidConfig, "min_quality_threshold"));
    assert_eq!(engine.config(), &before);
    let a = IterationAnalytics::from_config_value(&json(r#"{"consecutiveCountThreshold": 3}"#), Naming::Snake);
    let b = IterationAnalytics::from_config_value(&json(r#"{"consecutive_count_threshold": 3}"#), Naming::Snake);
    assert_eq!(a.unwrap().config(), b.unwrap().config());
}

#[test]
fn replay_inputs_read_either_spelling() {
    let run =
        |layer: &str| format!(r#"[{{"layers": [{layer}, {{"name": "e2e", "durationMs": 9, "failed": false}}]}}]"#);
    check(
        "replayPyramids runs",
        &run(r#"{"name": "unit", "durationMs": 1, "failed": true, "flakyRatio": 0.1}"#),
        &run(r#"{"name": "unit", "duration_ms": 1, "failed": true, "flaky_ratio": 0.1}"#),
        &run(r#"{"name": "unit", "duration_ms": 1, "durationMs": 1, "failed": true}"#),
        ErrorCode::InvalidReplay,
        "runs[0].layers[0].duration_ms",
        |v| kit::pyramid::replay::replay_value(v, &Value::Null, Naming::Snake),
    );
    let runs = json(&run(r#"{"name": "unit", "duration_ms": 1, "failed": false}"#));
    check(
        "replayPyramids config",
        r#"{"policy": "risk_bounded", "config": {"riskBudget": 0.01, "priorFailures": 2}}"#,
        r#"{"policy": "risk_bounded", "config": {"risk_budget": 0.01, "prior_failures": 2}}"#,
        r#"{"policy": "risk_bounded", "config": {"risk_budget": 0.01, "riskBudget": 0.01}}"#,
        ErrorCode::InvalidConfig,
        "config.risk_budget",
        |v| kit::pyramid::replay::replay_value(&runs, v, Naming::Snake),
    );
    let js_runs = json(&run(r#"{"name": "unit", "durationMs": 1, "failed": false}"#));
    let model =
        kit::pyramid::replay::replay_value(&js_runs, &json(r#"{"policy": "risk_bounded"}"#), Naming::Js).unwrap();
    // The model document has one spelling in every language (like snapshots); the layers
    // and outcomes beside it are input.
    let model = model.get("model").unwrap().clone();
    layers_read_cost_ms_only("pyramidPolicyDecide layers", |layers| {
        let options = json(r#"{"policy": "risk_bounded"}"#);
        kit::pyramid::replay::decide_value(&model, layers, &Value::Array(vec![]), &options, Naming::Snake).map(|_| ())
    });
    let loops = json(
        r#"[{"id": "a", "iterations": [{"quality_score": 50, "confidence": 0.9, "verification_status": "passed"}]}]"#,
    );
    check(
        "replayLoops policy config",
        r#"{"config": {"noImprovementPatience": 2}, "returns": "best"}"#,
        r#"{"config": {"no_improvement_patience": 2}, "returns": "best"}"#,
        r#"{"config": {"no_improvement_patience": 2, "noImprovementPatience": 2}}"#,
        ErrorCode::InvalidReplay,
        "config.no_improvement_patience",
        |p| kit::loops::replay::replay_value(&loops, p, Naming::Snake),
    );
}

#[test]
fn js_input_keeps_its_one_spelling() {
    let error = ExitConfig::from_value(&json(r#"{"exit_layer": 2}"#), Naming::Js).unwrap_err();
    assert_eq!((error.error_code(), error.field()), (ErrorCode::UnknownOption, "exit_layer"));
    // A snake_case key is a runner's own extra key in JS, kept as given.
    let result = LayerResult::from_value(
        &json(r#"{"passRate": 1, "coverage": 1, "flakyRatio": 0, "pass_rate": 0}"#),
        Naming::Js,
        "",
    )
    .unwrap();
    assert_eq!(result.pass_rate, 1.0);
    assert_eq!(result.extra_entries().map(|(k, _)| k).collect::<Vec<_>>(), ["pass_rate"]);
}

#[test]
fn count_quality_partitions_is_public_at_the_root_and_is_the_signals_count() {
    for text in [
        r#"{"passRate": 1, "coverage": 1, "flakyRatio": 0}"#,
        r#"{"passRate": 0.89, "coverage": 0.69, "flakyRatio": 0.051}"#,
        r#"{"passRate": 0.9, "coverage": 0.7, "flakyRatio": 0.05}"#,
    ] {
        let result = LayerResult::from_value(&json(text), Naming::Js, "").unwrap();
        let count = earlyexit::count_quality_partitions(&result);
        assert_eq!(count, pyramid::calculate_quality_signal(&result).partition_count, "{text}");
    }
}

#[test]
fn same_field_pairs_each_option_with_its_other_spelling_only() {
    use earlyexit::kit::value::same_field;
    let lists: [&[earlyexit::value::FieldName]; 5] = [
        earlyexit::loops::CONFIG_FIELDS,
        &earlyexit::loops::analytics::ANALYTICS_CONFIG_FIELDS,
        &earlyexit::pyramid::EXIT_CONFIG_FIELDS,
        &earlyexit::pyramid::LAYER_RESULT_FIELDS,
        &earlyexit::pyramid::policy::POLICY_CONFIG_FIELDS,
    ];
    for list in lists {
        for f in list {
            assert!(same_field(f.js(), f.snake()) && same_field(f.snake(), f.js()), "{}", f.js());
            for g in list.iter().filter(|g| g.js() != f.js()) {
                assert!(!same_field(f.js(), g.snake()) && !same_field(f.snake(), g.js()), "{} / {}", f.js(), g.js());
            }
        }
    }
}
