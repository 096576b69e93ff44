//! Replay, shadow mode and calibration of pyramid policies, through the host-value API the
//! bindings use and the Rust API.

use earlyexit::kit::pyramid::replay::replay_value;
use earlyexit::pyramid::policy::{OutcomeModel, PolicyConfig};
use earlyexit::pyramid::replay::{
    calibrate, parse_runs_jsonl, replay, shadow, Learn, RecordedRun, ReplayPolicy, DEFAULT_GRID,
};
use earlyexit::{ExitConfig, Naming, Value};

fn parse(text: &str) -> Value {
    Value::parse_json(text, earlyexit::ErrorCode::InvalidReplay, "test").unwrap()
}

fn layer(name: &str, ms: f64, failed: bool) -> String {
    format!(r#"{{"name":"{name}","durationMs":{ms},"failed":{failed}}}"#)
}

fn run(layers: &[(&str, f64, bool)]) -> String {
    let inner: Vec<String> = layers.iter().map(|(n, m, f)| layer(n, *m, *f)).collect();
    format!(r#"{{"layers":[{}]}}"#, inner.join(","))
}

fn runs(lines: &[String]) -> Vec<RecordedRun> {
    parse_runs_jsonl(&lines.join("\n"), Naming::Js).unwrap()
}

#[test]
fn malformed_input_names_the_path() {
    let good = run(&[("a", 1.0, false)]);
    let cases = [
        (
            r#"{"layers":[{"name":"a","durationMs":1,"failed":false},{"name":"b","durationMs":-1,"failed":false}]}"#,
            "runs[3].layers[1].durationMs",
        ),
        (r#"{"layers":[{"name":"a","durationMs":1}]}"#, "runs[3].layers[0].failed"),
        (r#"{"layers":[]}"#, "runs[3].layers"),
        (r#"{"layers":[{"name":"a","durationMs":1,"failed":false,"passed":3}]}"#, "runs[3].layers[0].total"),
        (r#"{"layers":[{"name":"a","durationMs":1,"failed":false,"total":2,"passed":3}]}"#, "runs[3].layers[0].passed"),
        (
            r#"{"layers":[{"name":"a","durationMs":1,"failed":false},{"name":"a","durationMs":1,"failed":true}]}"#,
            "runs[3].layers[1].name",
        ),
        (r#"{"layers":[{"name":"a","durationMs":1,"failed":false,"flakyRatio":2}]}"#, "runs[3].layers[0].flakyRatio"),
        (r#"{"layerz":[]}"#, "runs[3].layerz"),
        (r#"{"layers":[{"name":"a","durationMs":1,"failed":false}"#, "runs[3]"),
    ];
    for (bad, field) in cases {
        let text = [good.as_str(), &good, "", &good, bad].join("\n");
        let err = parse_runs_jsonl(&text, Naming::Js).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_replay", field), "{bad}: {}", err.message());
        let arr = Value::Array(vec![parse(&good), parse(&good), parse(&good), Value::Null]);
        let err = replay_value(&arr, &Value::Null, Naming::Js).unwrap_err();
        assert_eq!(err.field(), "runs[3]");
    }
    // Python spelling names the snake_case path.
    let snake = parse(r#"[{"layers":[{"name":"a","duration_ms":"x","failed":false}]}]"#);
    let err = replay_value(&snake, &Value::Null, Naming::Snake).unwrap_err();
    assert_eq!(err.field(), "runs[0].layers[0].duration_ms");
    let err = replay_value(&Value::Array(vec![]), &parse(r#"{"policy":"fastest"}"#), Naming::Js).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "policy"));
}

#[test]
fn fail_fast_stops_at_the_first_failure_and_counts_savings() {
    let data = runs(&[
        run(&[("unit", 1.0, false), ("e2e", 9.0, false)]),
        run(&[("unit", 1.0, true), ("e2e", 9.0, true)]),
        run(&[("unit", 1.0, false), ("e2e", 9.0, true)]),
    ]);
    let policy = ReplayPolicy::Policy { config: PolicyConfig::FAIL_FAST, model: OutcomeModel::new() };
    let report = replay(&data, &policy, Learn::Ran).unwrap();
    let reasons: Vec<&str> = report.runs.iter().map(|r| r.reason).collect();
    assert_eq!(reasons, ["completed", "layer_failed", "layer_failed"]);
    assert_eq!(report.runs[1].executed, vec![0]);
    let s = &report.summary;
    assert_eq!((s.failing_runs, s.caught, s.missed, s.declared_green), (2, 2, 0, 1));
    assert_eq!(s.saved_actual_ms, 9.0);
    assert_eq!(s.saved_actual, Some(9.0 / 30.0));
    assert_eq!(s.recall, Some(1.0));
    assert_eq!(s.false_pass_rate, Some(0.0));
    let (lo, hi) = s.false_pass_ci.unwrap();
    assert!(lo == 0.0 && (hi - 0.793_450_6).abs() < 1e-6, "{hi}");
    // The model learned only what ran: e2e ran twice after a green unit.
    let model = report.model.unwrap();
    assert_eq!(model.layer("e2e").map(|l| l.trials.round()), Some(2.0));
}

#[test]
fn adr_default_verification_counts_as_run() {
    // A green first layer: the ADR exits at layer 0 (its adaptive exit layer), verifies
    // layers 1 and 2, and never runs layer 3, whose failure it misses.
    let data = runs(&[run(&[("unit", 1.0, false), ("int", 2.0, false), ("e2e", 3.0, false), ("perf", 4.0, true)])]);
    let report = replay(&data, &ReplayPolicy::Adr(ExitConfig::DEFAULT), Learn::None).unwrap();
    let r = &report.runs[0];
    assert_eq!(r.reason, "confident_exit");
    assert_eq!(r.exit_layer, 0);
    assert_eq!(r.executed, vec![0, 1, 2]);
    assert_eq!(r.verified_layers, 2);
    assert_eq!((r.saved_nominal_ms, r.saved_actual_ms), (9.0, 4.0));
    assert!(r.missed && !r.caught);
    assert_eq!(report.summary.recall, Some(0.0));
}

#[test]
fn risk_bounded_skips_once_history_bounds_the_risk_and_shadow_reports_misses() {
    let mut lines = Vec::new();
    for i in 0..400 {
        lines.push(run(&[("fast", 1.0, i % 4 == 0), ("slow", 10.0, false)]));
    }
    lines.push(run(&[("fast", 1.0, false), ("slow", 10.0, true)]));
    let data = runs(&lines);
    let config = PolicyConfig::RISK_BOUNDED;
    let report = shadow(&data, &config, &OutcomeModel::new()).unwrap();
    let last = report.runs.last().unwrap();
    assert_eq!(last.reason, "risk_bounded");
    assert!(last.missed && last.risk.unwrap() <= 0.01);
    assert!(report.runs[0].reason != "risk_bounded", "no history, no skip");
    assert_eq!(report.summary.missed, 1);
    // The shadow model learned the full runs, including the late failure of `slow`.
    let slow = report.model.unwrap().layer("slow").unwrap().clone();
    assert!(slow.failures > 0.9 && slow.trials > 100.0);
}

#[test]
fn calibrate_certifies_budgets_in_sequence_and_stops_at_the_first_failure() {
    // `slow` fails after a green `fast` in 3% of runs: budgets below that never skip
    // (certified: nothing missed), budgets above it skip and miss (not certified).
    let mut lines = Vec::new();
    for i in 0..2000 {
        let fast_fails = i % 2 == 0;
        lines.push(run(&[("fast", 1.0, fast_fails), ("slow", 10.0, !fast_fails && i % 33 == 1)]));
    }
    let data = runs(&lines);
    let c =
        calibrate(&data, &PolicyConfig::RISK_BOUNDED, &OutcomeModel::new(), 0.005, 0.1, &DEFAULT_GRID, 0.5).unwrap();
    assert!(c.risk_budget > 0.0 && c.risk_budget < 0.05, "{c:?}");
    let last = c.steps.last().unwrap();
    assert!(!last.certified && last.missed > 0);
    assert!(c.steps.iter().rev().skip(1).all(|s| s.certified && s.missed == 0));
    assert_eq!(c.config.risk_budget, c.risk_budget);
    // Bad arguments.
    let err = calibrate(&data, &PolicyConfig::RISK_BOUNDED, &OutcomeModel::new(), 0.0, 0.1, &DEFAULT_GRID, 0.5);
    assert_eq!(err.unwrap_err().field(), "risk");
    let err = calibrate(&data, &PolicyConfig::RISK_BOUNDED, &OutcomeModel::new(), 0.01, 0.1, &[0.2, 0.1], 0.5);
    assert_eq!(err.unwrap_err().field(), "grid[1]");
}

#[test]
fn host_value_api_round_trips_the_model() {
    let data = parse(&format!("[{},{}]", run(&[("a", 1.0, false), ("b", 2.0, true)]), run(&[("a", 1.0, false)])));
    let out = replay_value(&data, &parse(r#"{"policy":"risk_bounded","learn":"all"}"#), Naming::Js).unwrap();
    assert_eq!(out.get("policy"), Some(&Value::string("risk_bounded")));
    let model = out.get("model").unwrap();
    let again = OutcomeModel::from_value(model, Naming::Js).unwrap();
    assert_eq!(again.layer("b").map(|l| l.failures), Some(1.0));
    let summary = out.get("summary").unwrap();
    assert_eq!(summary.get("failingRuns"), Some(&Value::Number(1.0)));
    let opts = Value::Object(vec![("policy".into(), Value::string("risk_bounded")), ("model".into(), model.clone())]);
    let out = replay_value(&data, &opts, Naming::Js).unwrap();
    assert!(out.get("runs").is_some());
    let bad = parse(r#"{"model":{"version":1,"engine":"PyramidOutcomeModel","layers":[{"name":"a"}]}}"#);
    let err = replay_value(&data, &bad, Naming::Js).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_snapshot", "model.layers[0].trials"));
}

/// tests/vectors/policy/pyramid_policy.json: expected values from the independent JS model
/// in tests/vectors/gen_pyramid_policy.mjs.
#[test]
fn policy_vectors_match_the_independent_model() {
    use earlyexit::kit::pyramid::replay::decide_value;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/policy/pyramid_policy.json");
    let doc = parse(&std::fs::read_to_string(path).unwrap());
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-3);
    let Some(Value::Array(decides)) = doc.get("decide") else { panic!("no decide cases") };
    assert!(decides.len() >= 30);
    for case in decides {
        let name = case.get("name").unwrap().as_str().unwrap();
        let opts = Value::Object(vec![("config".into(), case.get("config").unwrap().clone())]);
        let got = decide_value(
            case.get("model").unwrap(),
            case.get("layers").unwrap(),
            case.get("outcomes").unwrap(),
            &opts,
            Naming::Js,
        )
        .unwrap();
        let want = case.get("expected").unwrap();
        for key in ["action", "layer", "reason"] {
            assert_eq!(got.get(key), want.get(key), "{name}: {key}");
        }
        match (got.get("risk").unwrap(), want.get("risk").unwrap()) {
            (Value::Number(a), Value::Number(b)) => assert!(close(*a, *b), "{name}: risk {a} vs {b}"),
            (a, b) => assert_eq!(a, b, "{name}: risk"),
        }
    }
    let Some(Value::Array(replays)) = doc.get("replay") else { panic!("no replay cases") };
    for case in replays {
        let name = case.get("name").unwrap().as_str().unwrap();
        let opts = Value::Object(vec![
            ("policy".into(), case.get("policy").unwrap().clone()),
            ("config".into(), case.get("config").unwrap().clone()),
        ]);
        let out = replay_value(case.get("runs").unwrap(), &opts, Naming::Js).unwrap();
        let Some(Value::Array(runs_out)) = out.get("runs") else { panic!() };
        let executed: Vec<Value> = runs_out.iter().map(|r| r.get("executed").unwrap().clone()).collect();
        assert_eq!(Value::Array(executed), *case.get("executed").unwrap(), "{name}: executed");
        let summary = out.get("summary").unwrap();
        let Some(Value::Object(want)) = case.get("expected") else { panic!() };
        for (key, w) in want {
            let g = summary.get(key).unwrap();
            match (g, w) {
                (Value::Number(a), Value::Number(b)) => {
                    assert!(close(*a, *b) || (a - b).abs() < 1e-15, "{name}: {key}")
                }
                (Value::Array(a), Value::Array(b)) => {
                    for (x, y) in a.iter().zip(b) {
                        let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                        assert!((x - y).abs() < 1e-12, "{name}: {key} {x} vs {y}");
                    }
                }
                _ => assert_eq!(g, w, "{name}: {key}"),
            }
        }
    }
}

mod no_panics {
    use super::*;
    use earlyexit::kit::pyramid::replay::{calibrate_value, decide_value, shadow_value, update_value};
    use proptest::prelude::*;

    fn number() -> impl Strategy<Value = Value> {
        prop_oneof![
            4 => (0u32..2000).prop_map(|n| Value::Number(f64::from(n) / 10.0)),
            1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-1.0), Just(1e308), Just(-0.0), Just(0.5)]
                .prop_map(Value::Number),
        ]
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            number(),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::Null),
            prop_oneof![Just("a"), Just("b"), Just("risk_bounded"), Just("fail_fast"), Just("")]
                .prop_map(Value::string),
        ]
    }

    fn layer() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            Just("name"),
            Just("durationMs"),
            Just("failed"),
            Just("total"),
            Just("passed"),
            Just("flakyRatio"),
            Just("coverage"),
            Just("costMs"),
            Just("layer"),
            Just("trials"),
            Just("failures"),
            Just("costWeight")
        ];
        let valid = (prop_oneof![Just("a"), Just("b"), Just("c")], number(), any::<bool>()).prop_map(|(n, d, f)| {
            Value::Object(vec![
                ("name".into(), Value::string(n)),
                ("durationMs".into(), d.clone()),
                ("costMs".into(), d),
                ("failed".into(), Value::Bool(f)),
                ("layer".into(), Value::Number(0.0)),
            ])
        });
        prop_oneof![
            3 => valid,
            1 => proptest::collection::vec((key, scalar()), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
            1 => scalar(),
        ]
    }

    fn runs() -> impl Strategy<Value = Value> {
        proptest::collection::vec(
            prop_oneof![
                4 => proptest::collection::vec(layer(), 0..4).prop_map(|l| Value::Object(vec![("layers".into(), Value::Array(l))])),
                1 => scalar(),
            ],
            0..12,
        )
        .prop_map(Value::Array)
    }

    fn options() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            Just("policy"),
            Just("learn"),
            Just("risk"),
            Just("delta"),
            Just("warmup"),
            Just("grid"),
            Just("config")
        ];
        let config = proptest::collection::vec(
            (
                prop_oneof![
                    Just("riskBudget"),
                    Just("confidence"),
                    Just("forgetting"),
                    Just("priorPasses"),
                    Just("reorder")
                ],
                scalar(),
            ),
            0..3,
        )
        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
        prop_oneof![
            Just(Value::Null),
            proptest::collection::vec((key, prop_oneof![scalar(), config]), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn every_entry_point_answers_without_panicking(runs in runs(), opts in options(), layers in proptest::collection::vec(layer(), 0..4)) {
            for naming in [Naming::Js, Naming::Snake] {
                let _ = replay_value(&runs, &opts, naming);
                let _ = shadow_value(&runs, &opts, naming);
                let _ = calibrate_value(&runs, &opts, naming);
            }
            let list = Value::Array(layers);
            let _ = decide_value(&Value::Null, &list, &list, &opts, Naming::Js);
            if let Ok(model) = update_value(&Value::Null, &list, &opts, Naming::Js) {
                let _ = decide_value(&model, &list, &Value::Array(vec![]), &opts, Naming::Js);
                prop_assert!(OutcomeModel::from_value(&model, Naming::Js).is_ok());
            }
        }
    }
}
