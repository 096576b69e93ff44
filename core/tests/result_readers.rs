//! The result readers (each `from_value` beside its writer's `to_value`): every result a real
//! engine run produces reads back from its snake_case value as an equal object, and a
//! tampered value gets a typed error naming the field (what Python's pickling of results relies on).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::analytics::{AnalyticsRecord, IterationAnalytics};
use earlyexit::loops::analytics::{AnalyticsSummary, IterationSelection};
use earlyexit::loops::{EarlyStopping, StoppingSummary};
use earlyexit::pyramid::{Action, PyramidRun, TestPyramidResult};
use earlyexit::{
    DiminishingReturnsReport, ErrorCode, ErrorKind, ExitConfig, ExitDecision, IterationRecord, Naming, Speculation,
    StoppingDecision, Trigger, Value,
};

fn json(text: &str) -> Value {
    Value::parse_json(text, ErrorCode::InvalidConfig, "test").unwrap()
}

/// Runs a loop over `(quality, confidence, status, extra json)` and returns the engine and
/// the decision after every record.
fn run_loop(config: &str, steps: &[(f64, f64, &str, &str)]) -> (EarlyStopping, Vec<StoppingDecision>) {
    let mut engine = EarlyStopping::from_config_value(&json(config), Naming::Js).unwrap();
    let mut decisions = Vec::new();
    let mut previous: Option<f64> = None;
    for (i, (q, c, status, extra)) in steps.iter().enumerate() {
        let delta = previous.map_or(0.0, |p| q - p);
        let result = json(&format!(
            r#"{{"quality_score":{q},"confidence":{c},"verification_status":"{status}","quality_delta":{delta}{extra}}}"#
        ));
        engine
            .record_value(&Value::Number((i + 1) as f64), &result, Naming::Snake, || "2026-01-01T00:00:00.000Z".into())
            .unwrap();
        previous = Some(*q);
        decisions.push(engine.should_stop());
    }
    (engine, decisions)
}

const FLAT: [(f64, f64, &str, &str); 4] = [(70.0, 0.5, "failed", ""); 4];
const TOKENS: &str = r#","tokens_used":100,"token_cost_usd":0.1,"execution_time_ms":2.5"#;

/// One real decision per trigger and variant, with the engines that made them.
fn loops() -> Vec<(EarlyStopping, Vec<StoppingDecision>)> {
    let rising = [(40.0, 0.4, "failed", TOKENS), (60.0, 0.5, "failed", TOKENS), (80.0, 0.6, "failed", "")];
    vec![
        run_loop(r#"{"requireVerification":true}"#, &[(95.0, 0.95, "passed", "")]),
        run_loop(r#"{"requireVerification":false}"#, &[(95.0, 0.95, "failed", "")]),
        run_loop("{}", &FLAT),
        run_loop(r#"{"plateauMode":"absolute","plateauImprovementThreshold":2}"#, &FLAT),
        run_loop(r#"{"maxIterations":3,"enablePlateauDetection":false}"#, &rising),
        run_loop(r#"{"maxTotalTokens":150,"maxTotalCostUsd":1,"maxWallClockMs":1000}"#, &rising),
        run_loop(
            r#"{"regressionTolerance":5,"regressionPatience":2,"enablePlateauDetection":false}"#,
            &[(80.0, 0.5, "failed", ""), (60.0, 0.5, "failed", ""), (60.0, 0.5, "failed", "")],
        ),
        run_loop(
            r#"{"noImprovementPatience":2,"enablePlateauDetection":false}"#,
            &[(80.0, 0.5, "failed", ""), (75.0, 0.5, "failed", ""), (76.0, 0.5, "failed", "")],
        ),
        run_loop(r#"{"minIterations":3}"#, &[(95.0, 0.95, "passed", "")]),
        run_loop("{}", &[]),
    ]
}

#[test]
fn loop_results_read_back_equal() {
    let mut triggers = Vec::new();
    for (mut engine, decisions) in loops() {
        for d in decisions.iter().chain([&engine.should_stop()]) {
            triggers.push(d.trigger);
            assert_eq!(&StoppingDecision::from_value(&d.to_value(), "").unwrap(), d);
        }
        for record in engine.history() {
            assert_eq!(&IterationRecord::from_value(&record.to_value(), "").unwrap(), record);
        }
        let summary = engine.generate_summary();
        assert_eq!(StoppingSummary::from_value(&summary.to_value()).unwrap(), summary);
    }
    for t in [
        Trigger::None,
        Trigger::HighConfidence,
        Trigger::QualityPlateau,
        Trigger::MaxIterations,
        Trigger::BudgetExhausted,
        Trigger::QualityRegression,
        Trigger::NoImprovement,
    ] {
        assert!(triggers.contains(&t), "no decision with trigger {}", t.as_str());
    }
}

#[test]
fn a_diminishing_returns_decision_reads_back_equal() {
    let report = DiminishingReturnsReport {
        detected: true,
        iteration: earlyexit::loops::ReportedIteration::Null,
        reason: "flat".into(),
    };
    let decision = earlyexit::kit::loops::diminishing_returns_decision(&report).unwrap();
    assert_eq!(StoppingDecision::from_value(&decision.to_value(), "").unwrap(), decision);
    let absent = DiminishingReturnsReport { iteration: earlyexit::loops::ReportedIteration::Absent, ..report };
    assert_eq!(DiminishingReturnsReport::from_result_value(&absent.to_value()).unwrap(), absent);
}

const NOW: &str = "2026-01-01T00:00:00.000Z";

fn analytics() -> IterationAnalytics {
    let mut a = IterationAnalytics::from_config_value(&Value::Null, Naming::Snake).unwrap();
    let records = [
        r#"{"iteration_number":1,"quality_score":60,"verification_status":"passed","tokens_used":5,"execution_time_ms":1.25}"#,
        r#"{"iteration_number":2,"quality_score":60.1,"verification_status":"failed"}"#,
        r#"{"iteration_number":3,"quality_score":60.2,"verification_status":"passed"}"#,
        r#"{"iteration_number":4,"quality_score":60.3,"verification_status":"passed"}"#,
    ];
    for r in records {
        a.record_value(&json(r), Naming::Snake, NOW).unwrap();
    }
    a
}

#[test]
fn analytics_results_read_back_equal() {
    let empty = IterationAnalytics::from_config_value(&Value::Null, Naming::Snake).unwrap();
    for mut a in [empty, analytics()] {
        for record in a.records() {
            assert_eq!(&AnalyticsRecord::from_value(&record.to_value(), "").unwrap(), record);
        }
        let selection = a.select_best_iteration_value();
        assert_eq!(IterationSelection::from_value(&selection).unwrap().to_value(), selection);
        let summary = a.summary_value(NOW).unwrap();
        let read = AnalyticsSummary::from_value(&summary).unwrap();
        assert_eq!(read.to_value(), summary);
        assert_eq!(AnalyticsSummary::from_value(&read.to_value()).unwrap(), read);
        let report = a.detect_diminishing_returns();
        assert_eq!(DiminishingReturnsReport::from_result_value(&report.to_value()).unwrap(), report);
    }
}

/// Runs a 4-layer pyramid where every layer returns `layer` (JSON), collecting the actions.
fn pyramid(config: ExitConfig, layer: &str, costs: bool) -> (Vec<Action>, TestPyramidResult) {
    let specs = format!(
        r#"[{{"name":"a","cost_ms":1}},{{"name":"b","cost_ms":2.5}},{{"name":"c","cost_ms":3}},{{"name":"d"{}}}]"#,
        if costs { r#","cost_ms":4"# } else { "" }
    );
    let layers = earlyexit::kit::pyramid::parse_layers(&json(&specs), Naming::Snake).unwrap();
    let mut run = PyramidRun::start(config, 4, layers).unwrap();
    let mut actions = Vec::new();
    loop {
        let action = run.next();
        actions.push(action);
        match action {
            Action::Run(i) | Action::Verify(i) => {
                run.submit_value(&Value::Number(i as f64), &json(layer), Naming::Snake).unwrap();
            }
            Action::Done => break,
        }
    }
    (actions, run.result().unwrap())
}

#[test]
fn pyramid_results_read_back_equal() {
    let good = r#"{"pass_rate":1,"coverage":0.95,"flaky_ratio":0,"name":"x","extra":[1,{"k":null}]}"#;
    let weak = r#"{"pass_rate":0.5,"coverage":0.5,"flaky_ratio":0}"#;
    let flaky = r#"{"pass_rate":0.95,"coverage":0.95,"flaky_ratio":0.2}"#;
    let no_verify = ExitConfig { verification_layers: 0, ..ExitConfig::default() };
    let mut kinds = Vec::new();
    for (config, layer, costs) in [
        (ExitConfig::default(), good, false),
        (ExitConfig::default(), weak, true),
        (ExitConfig::default(), flaky, false),
        (no_verify, good, true),
    ] {
        let (actions, result) = pyramid(config, layer, costs);
        for action in actions {
            kinds.push(action.to_value().get("action").and_then(Value::as_str).unwrap().to_string());
            assert_eq!(Action::from_value(&action.to_value()).unwrap(), action);
        }
        for s in &result.speculations {
            assert_eq!(&Speculation::from_value(&s.to_value(), Naming::Snake, "").unwrap(), s);
        }
        for naming in [Naming::Snake, Naming::Js] {
            assert_eq!(TestPyramidResult::from_value(&result.to_value(naming), naming).unwrap(), result);
        }
    }
    assert!(["run", "verify", "done"].iter().all(|k| kinds.iter().any(|seen| seen == k)));
    let empty = PyramidRun::start(ExitConfig::default(), 1, Vec::new()).unwrap().result().unwrap();
    assert_eq!(empty.exit_layer, -1);
    assert_eq!(TestPyramidResult::from_value(&empty.to_value(Naming::Snake), Naming::Snake).unwrap(), empty);
}

#[test]
fn exit_decisions_of_every_reason_read_back_equal() {
    let exit = earlyexit::CoherenceEarlyExit::new(ExitConfig::default(), 4).unwrap();
    let mut reasons = Vec::new();
    for (lambda, prev, concentration, layer) in [
        (50.0, 50.0, 0.0, 0),
        (50.0, 50.0, 0.0, 1),
        (80.0, 80.0, 0.0, 1),
        (80.0, 80.0, 0.6, 1),
        (80.0, 50.0, 0.0, 2),
        (80.0, 70.0, 0.4, 1),
    ] {
        let signal = earlyexit::QualitySignal {
            lambda,
            lambda_prev: prev,
            boundary_edges: 0,
            boundary_concentration: concentration,
            partition_count: 0,
            flags: 0,
        };
        let decision = exit.should_exit(&signal, layer);
        reasons.push(decision.reason);
        for naming in [Naming::Snake, Naming::Js] {
            assert_eq!(ExitDecision::from_value(&decision.to_value(naming), naming).unwrap(), decision);
        }
    }
    reasons.sort_by_key(|r| r.as_str());
    reasons.dedup();
    assert_eq!(reasons.len(), 6, "every exit reason");
}

/// `value` with `path` (dot-separated, numbers index arrays) set to `item` (`None` removes it).
fn tamper(value: &Value, path: &str, item: Option<Value>) -> Value {
    let mut text = value.to_json();
    let mut v: serde_like::Doc = serde_like::parse(&text);
    v.set(path, item);
    text = v.to_json();
    json(&text)
}

mod serde_like {
    //! A tiny mutable tree over `Value` (the core's `Value` has no setters for tests).
    use earlyexit::Value;

    pub struct Doc(pub Value);

    pub fn parse(text: &str) -> Doc {
        Doc(super::json(text))
    }

    impl Doc {
        pub fn set(&mut self, path: &str, item: Option<Value>) {
            let keys: Vec<&str> = path.split('.').collect();
            set_in(&mut self.0, &keys, item);
        }
        pub fn to_json(&self) -> String {
            self.0.to_json()
        }
    }

    fn set_in(value: &mut Value, keys: &[&str], item: Option<Value>) {
        let (first, rest) = keys.split_first().unwrap();
        match value {
            Value::Object(entries) => {
                let at = entries.iter().position(|(k, _)| k == first);
                if rest.is_empty() {
                    match (at, item) {
                        (Some(i), Some(v)) => entries[i].1 = v,
                        (Some(i), None) => {
                            entries.remove(i);
                        }
                        (None, Some(v)) => entries.push(((*first).to_string(), v)),
                        (None, None) => {}
                    }
                } else {
                    set_in(&mut entries[at.unwrap()].1, rest, item);
                }
            }
            Value::Array(items) => {
                let i: usize = first.parse().unwrap();
                if rest.is_empty() {
                    items[i] = item.unwrap();
                } else {
                    set_in(&mut items[i], rest, item);
                }
            }
            _ => panic!("no {first} here"),
        }
    }
}

fn assert_error<T: std::fmt::Debug>(result: earlyexit::Result<T>, kind: ErrorKind, field: &str) {
    let e = result.unwrap_err();
    assert_eq!((e.kind(), e.field()), (kind, field), "{e}");
}

#[test]
fn tampered_values_get_typed_errors_naming_the_field() {
    let (_, decisions) = &loops()[5];
    let budget = decisions.last().unwrap().to_value();
    assert_eq!(decisions.last().unwrap().trigger, Trigger::BudgetExhausted);
    let read = |v: &Value| StoppingDecision::from_value(v, "");
    let s = |t: &str| Some(Value::string(t));
    let n = |x: f64| Some(Value::Number(x));
    assert_error(read(&tamper(&budget, "confidence", s("high"))), ErrorKind::Type, "confidence");
    assert_error(read(&tamper(&budget, "stop", None)), ErrorKind::Type, "stop");
    assert_error(read(&tamper(&budget, "colour", n(1.0))), ErrorKind::Type, "colour");
    assert_error(read(&tamper(&budget, "confidence", n(1.5))), ErrorKind::Range, "confidence");
    assert_error(read(&tamper(&budget, "budgets.0.observed", n(-1.0))), ErrorKind::Range, "budgets[0].observed");
    assert_error(read(&tamper(&budget, "details.budget", s("time"))), ErrorKind::Range, "details.budget");
    assert_error(read(&tamper(&budget, "details", None)), ErrorKind::Range, "details");
    assert_error(
        read(&tamper(&budget, "best_quality_score", Some(Value::Null))),
        ErrorKind::Range,
        "best_quality_score",
    );
    assert_error(read(&tamper(&budget, "trigger", s("bored"))), ErrorKind::Range, "trigger");

    let (mut engine, _) = loops().remove(5);
    let summary = engine.generate_summary().to_value();
    let read = |v: &Value| StoppingSummary::from_value(v);
    assert_error(read(&tamper(&summary, "config.maxIterations", n(0.0))), ErrorKind::Range, "config.maxIterations");
    assert_error(read(&tamper(&summary, "config", Some(Value::Null))), ErrorKind::Type, "config");
    assert_error(read(&tamper(&summary, "final_verification", s("maybe"))), ErrorKind::Range, "final_verification");
    assert_error(
        read(&StoppingSummary::Empty.to_value()).map(|_| ()).and(read(&tamper(
            &StoppingSummary::Empty.to_value(),
            "total_iterations",
            n(2.0),
        ))),
        ErrorKind::Range,
        "total_iterations",
    );
    let record = engine.history()[0].to_value();
    assert_error(
        IterationRecord::from_value(&tamper(&record, "tokens_used", n(-5.0)), ""),
        ErrorKind::Range,
        "tokens_used",
    );
    assert_error(IterationRecord::from_value(&tamper(&record, "timestamp", None), ""), ErrorKind::Type, "timestamp");

    let mut a = analytics();
    let summary = a.summary_value(NOW).unwrap();
    assert_error(
        AnalyticsSummary::from_value(&tamper(&summary, "quality_trajectory", s("sideways"))),
        ErrorKind::Range,
        "quality_trajectory",
    );
    assert_error(AnalyticsSummary::from_value(&tamper(&summary, "extra", n(1.0))), ErrorKind::Type, "extra");
    assert_error(
        AnalyticsSummary::from_value(&tamper(&summary, "diminishing_returns_detected", s("yes"))),
        ErrorKind::Type,
        "diminishing_returns_detected",
    );
    assert_error(
        AnalyticsSummary::from_value(&tamper(&summary, "iterations.1.timestamp", s("yesterday"))),
        ErrorKind::Range,
        "iterations[1].timestamp",
    );
    let selection = a.select_best_iteration_value();
    assert_error(
        IterationSelection::from_value(&tamper(&selection, "selected.quality_delta", None)),
        ErrorKind::Type,
        "selected.quality_delta",
    );

    let (_, result) = pyramid(ExitConfig::default(), r#"{"pass_rate":1,"coverage":0.95,"flaky_ratio":0}"#, true);
    let value = result.to_value(Naming::Snake);
    let read = |v: &Value| TestPyramidResult::from_value(v, Naming::Snake);
    assert_error(read(&tamper(&value, "layers.0.pass_rate", n(2.0))), ErrorKind::Range, "layers[0].pass_rate");
    assert_error(read(&tamper(&value, "exit_layer", n(-2.0))), ErrorKind::Range, "exit_layer");
    assert_error(read(&tamper(&value, "layers_executed.0", n(0.5))), ErrorKind::Range, "layers_executed[0]");
    assert_error(read(&tamper(&value, "compute_saved_ms", None)), ErrorKind::Type, "compute_saved_ms");
    assert_error(
        read(&tamper(&value, "speculations.0.predicted", s("maybe"))),
        ErrorKind::Range,
        "speculations[0].predicted",
    );
    assert_error(Action::from_value(&json(r#"{"action":"done","layer":1}"#)), ErrorKind::Type, "layer");
    assert_error(Action::from_value(&json(r#"{"action":"run","layer":-1}"#)), ErrorKind::Range, "layer");
}
