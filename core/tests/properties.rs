//! Property tests: arbitrary numbers (NaN, infinities, subnormals, huge) and arbitrary call
//! sequences never panic, a rejected call changes nothing, snapshots round-trip exactly,
//! and the pyramid state machine never asks for a layer it should not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::EarlyStopping;
use earlyexit::pyramid::{Action, PyramidRun};
use earlyexit::{IterationAnalytics, Naming, Value};
use proptest::prelude::*;

fn any_number() -> BoxedStrategy<f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        Just(5e-324),
        Just(f64::MAX),
        -1.0e3..1.0e3f64,
        0.0..=1.0f64,
        0.0..=100.0f64,
        any::<f64>(),
    ]
    .boxed()
}

fn any_value() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => any_number().prop_map(Value::Number),
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => prop_oneof![Just("passed"), Just("failed"), Just("skipped"), Just("75"), Just(""), Just("2026-01-01T00:00:00Z")]
            .prop_map(Value::string),
        1 => Just(Value::Other("function".into())),
    ]
    .boxed()
}

fn result_value() -> BoxedStrategy<Value> {
    (
        any_value(),
        any_value(),
        any_value(),
        any_value(),
        proptest::option::of(any_value()),
        proptest::option::of(any_value()),
    )
        .prop_map(|(q, c, s, d, ts, tokens)| {
            let mut entries = vec![
                ("quality_score".to_string(), q),
                ("confidence".to_string(), c),
                ("verification_status".to_string(), s),
                ("quality_delta".to_string(), d),
            ];
            if let Some(ts) = ts {
                entries.push(("timestamp".to_string(), ts));
            }
            if let Some(t) = tokens {
                entries.push(("tokens_used".to_string(), t));
            }
            Value::Object(entries)
        })
        .boxed()
}

fn valid_result() -> BoxedStrategy<Value> {
    (0.0..=100.0f64, 0.0..=1.0f64, 0..3usize, -20.0..20.0f64)
        .prop_map(|(q, c, s, d)| {
            Value::object(vec![
                ("quality_score", Value::Number((q * 4.0).round() / 4.0)),
                ("confidence", Value::Number((c * 100.0).round() / 100.0)),
                ("verification_status", Value::string(["passed", "failed", "skipped"][s])),
                ("quality_delta", Value::Number(d.round())),
                ("timestamp", Value::string("2026-01-01T00:00:00.000Z")),
            ])
        })
        .boxed()
}

#[derive(Debug, Clone)]
enum LoopCall {
    Record(Value, Value),
    Decide,
    Configure(String, Value),
    Summary,
    Reset,
}

fn loop_call() -> BoxedStrategy<LoopCall> {
    let keys = prop_oneof![
        Just("highConfidenceThreshold"),
        Just("plateauConsecutiveCount"),
        Just("plateauImprovementThreshold"),
        Just("minQualityThreshold"),
        Just("requireVerification"),
        Just("maxIterations"),
        Just("minIterations"),
        Just("maxTotalTokens"),
        Just("regressionTolerance"),
        Just("plateauMode"),
        Just("noSuchKey"),
    ];
    prop_oneof![
        4 => (prop_oneof![(1u64..50).prop_map(|n| Value::Number(n as f64)), any_value()], prop_oneof![valid_result(), result_value()])
            .prop_map(|(i, r)| LoopCall::Record(i, r)),
        3 => Just(LoopCall::Decide),
        1 => (keys, prop_oneof![any_value(), (2u64..6).prop_map(|n| Value::Number(n as f64))])
            .prop_map(|(k, v)| LoopCall::Configure(k.to_string(), v)),
        1 => Just(LoopCall::Summary),
        1 => Just(LoopCall::Reset),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn loop_calls_never_panic_and_rejections_change_nothing(calls in proptest::collection::vec(loop_call(), 0..40)) {
        let mut engine = EarlyStopping::from_config_value(&Value::Null, Naming::Js).unwrap();
        for call in calls {
            let before = engine.clone();
            let outcome = match call {
                LoopCall::Record(i, r) => engine.record_value(&i, &r, Naming::Js, || "2026-01-01T00:00:00.000Z".into()).map(|_| ()),
                LoopCall::Decide => { engine.should_stop(); Ok(()) }
                LoopCall::Configure(k, v) => engine.configure_value(&Value::Object(vec![(k, v)]), Naming::Js),
                LoopCall::Summary => { engine.generate_summary(); Ok(()) }
                LoopCall::Reset => { engine.reset(); Ok(()) }
            };
            if let Err(e) = outcome {
                prop_assert_eq!(&engine, &before, "rejected call {} changed the engine", e);
                prop_assert!(!e.field().is_empty());
            }
            // Every state round-trips through its JSON snapshot.
            let text = engine.to_snapshot().to_json();
            let restored = EarlyStopping::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap();
            prop_assert_eq!(&restored, &engine);
        }
    }

    #[test]
    fn analytics_never_panics(records in proptest::collection::vec(prop_oneof![valid_result(), result_value()], 0..30)) {
        let mut analytics = IterationAnalytics::from_config_value(&Value::Null, Naming::Js).unwrap();
        for (i, r) in records.iter().enumerate() {
            let mut entries = match r { Value::Object(e) => e.clone(), _ => vec![] };
            entries.retain(|(k, _)| k != "confidence" && k != "quality_delta" && k != "timestamp");
            entries.push(("iteration_number".to_string(), Value::Number(i as f64 + 1.0)));
            let before = analytics.clone();
            if analytics.record_value(&Value::Object(entries), Naming::Js, "2026-01-01T00:00:00.000Z").is_err() {
                prop_assert_eq!(&analytics, &before);
            }
            analytics.summary_value("2026-01-01T00:00:00.000Z").unwrap();
        }
        let text = analytics.to_snapshot().to_json();
        prop_assert_eq!(IterationAnalytics::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap(), analytics);
    }

    #[test]
    fn pyramid_asks_only_for_layers_it_should(
        preset in 0..3usize,
        n in 0..7usize,
        total in 1..8u64,
        rates in proptest::collection::vec((0.0..=1.0f64, 0.0..=1.0f64, 0.0..=0.3f64), 7),
        bad in proptest::option::of((0..7usize, any_number())),
    ) {
        let config = [earlyexit::ExitConfig::DEFAULT, earlyexit::ExitConfig::AGGRESSIVE, earlyexit::ExitConfig::CONSERVATIVE][preset].clone();
        let layers: Vec<earlyexit::LayerSpec> = (0..n).map(|i| earlyexit::LayerSpec { name: format!("l{i}"), cost_ms: Some(1.0 + i as f64) }).collect();
        let mut run = PyramidRun::start(config.clone(), total, layers).unwrap();
        let mut asked: Vec<Action> = Vec::new();
        let mut steps = 0;
        while run.next() != Action::Done {
            steps += 1;
            prop_assert!(steps <= 2 * n + 1, "the run does not terminate");
            let action = run.next();
            let i = match action { Action::Run(i) | Action::Verify(i) => i, Action::Done => unreachable!() };
            let (p, c, f) = rates[i];
            let mut result = Value::object(vec![("passRate", Value::Number(p)), ("coverage", Value::Number(c)), ("flakyRatio", Value::Number(f))]);
            if let Some((bad_layer, x)) = bad {
                if bad_layer == i && !x.is_finite() {
                    result = Value::object(vec![("passRate", Value::Number(x)), ("coverage", Value::Number(c)), ("flakyRatio", Value::Number(f))]);
                    let before = run.clone();
                    prop_assert!(run.submit_value(&Value::Number(i as f64), &result, Naming::Js).is_err());
                    prop_assert_eq!(&run, &before);
                    result = Value::object(vec![("passRate", Value::Number(p)), ("coverage", Value::Number(c)), ("flakyRatio", Value::Number(f))]);
                }
            }
            // Submitting any other layer is an invalid step that changes nothing.
            let before = run.clone();
            prop_assert!(run.submit_value(&Value::Number((i + 1) as f64), &result, Naming::Js).is_err());
            prop_assert_eq!(&run, &before);
            run.submit_value(&Value::Number(i as f64), &result, Naming::Js).unwrap();
            asked.push(action);
        }
        let result = run.result().unwrap();
        // Layers run in order 0..=exit, then verification of the next ones, each once.
        let runs: Vec<usize> = asked.iter().filter_map(|a| if let Action::Run(i) = a { Some(*i) } else { None }).collect();
        let verifies: Vec<usize> = asked.iter().filter_map(|a| if let Action::Verify(i) = a { Some(*i) } else { None }).collect();
        prop_assert_eq!(runs.clone(), (0..runs.len()).collect::<Vec<_>>());
        let after = runs.len();
        prop_assert_eq!(verifies.clone(), (after..after + verifies.len()).collect::<Vec<_>>());
        prop_assert!(verifies.len() as u64 <= config.verification_layers);
        prop_assert_eq!(result.layers_executed.len(), asked.len());
        prop_assert_eq!(result.verified_layers, verifies.len());
        if result.exited_early {
            prop_assert_eq!(result.skipped_layers, n - runs.len());
        } else {
            prop_assert_eq!(runs.len(), n);
            prop_assert!(verifies.is_empty());
        }
        // The snapshot replays to the same run.
        let text = run.to_snapshot().to_json();
        prop_assert_eq!(PyramidRun::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap(), run);
    }

    #[test]
    fn snapshot_restore_survives_arbitrary_text(text in ".{0,200}") {
        if let Ok(v) = earlyexit::snapshot::parse(&text) {
            let _ = EarlyStopping::from_snapshot(&v);
            let _ = IterationAnalytics::from_snapshot(&v);
            let _ = PyramidRun::from_snapshot(&v);
        }
    }

    #[test]
    fn mutated_snapshots_are_rejected_or_consistent(path in 0..6usize, x in any_value()) {
        let mut engine = EarlyStopping::from_config_value(&Value::Null, Naming::Js).unwrap();
        for i in 1..=3u64 {
            let r = Value::object(vec![
                ("quality_score", Value::Number(60.0 + i as f64)),
                ("confidence", Value::Number(0.5)),
                ("verification_status", Value::string("passed")),
                ("quality_delta", Value::Number(1.0)),
                ("timestamp", Value::string("2026-01-01T00:00:00Z")),
            ]);
            engine.record_value(&Value::Number(i as f64), &r, Naming::Js, String::new).unwrap();
        }
        let Value::Object(mut top) = engine.to_snapshot() else { unreachable!() };
        let key = ["version", "engine", "config", "history", "stoppingReason", "stoppingDetails"][path];
        for entry in top.iter_mut() {
            if entry.0 == key { entry.1 = x.clone(); }
        }
        if let Ok(restored) = EarlyStopping::from_snapshot(&Value::Object(top)) {
            // Whatever was accepted must be a state that itself round-trips.
            let again = EarlyStopping::from_snapshot(&restored.to_snapshot()).unwrap();
            prop_assert_eq!(again, restored);
        }
    }
}
