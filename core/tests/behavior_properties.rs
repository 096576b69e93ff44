//! Property tests of the behaviour detectors and interventions: arbitrary histories and
//! thresholds (NaN, infinities, wrong types, nulls, host values) never panic and are either
//! refused with a field under the argument or answered with well-formed detections: `detect`
//! is the five detectors in order, every number finite, every detection intervened on at the
//! level `determine_level` gives, and every intervention read back as it was written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::behavior::{
    detect_value, determine_level, Detection, Detector, Intervention, LogEntry, Thresholds,
};
use earlyexit::{ErrorCode, Naming, Value};
use proptest::prelude::*;

fn scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => prop_oneof![Just(0.0), Just(0.02), Just(0.5), Just(1.0), Just(10.0), Just(100.0), 0.0..=1.0f64, 0.0..=100.0f64]
            .prop_map(Value::Number),
        1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-1.0), Just(1.5), Just(101.0)].prop_map(Value::Number),
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => prop_oneof![Just("E1"), Just("404"), Just("7"), Just(""), Just("fix the parser"), Just(" A  b\u{feff}")]
            .prop_map(Value::string),
        1 => Just(Value::Other("function".into())),
    ]
    .boxed()
}

fn files() -> BoxedStrategy<Value> {
    proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("c")].prop_map(Value::string), 0..4)
        .prop_map(Value::Array)
        .boxed()
}

/// A field's value: mostly of its kind (`valid`), sometimes anything (`scalar`), so that both
/// detections and refusals happen.
fn mostly(valid: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![12 => valid, 1 => scalar()].boxed()
}

fn text() -> BoxedStrategy<Value> {
    prop_oneof![Just("E1"), Just("404"), Just("7"), Just(""), Just("fix the parser"), Just("the parser is fixed")]
        .prop_map(Value::string)
        .boxed()
}

fn fraction() -> BoxedStrategy<Value> {
    prop_oneof![Just(0.2), Just(0.21), 0.0..=1.0f64].prop_map(Value::Number).boxed()
}

fn iteration() -> BoxedStrategy<Value> {
    let coverage = prop_oneof![Just(0.0), Just(90.0), Just(70.0), 0.0..=100.0f64].prop_map(Value::Number).boxed();
    let analysis = (
        mostly(text()),
        mostly(text()),
        mostly(files()),
        mostly(fraction()),
        mostly(files()),
        mostly(text()),
        mostly(any::<bool>().prop_map(Value::Bool).boxed()),
        mostly(coverage),
    )
        .prop_map(|(failure, error, blockers, completion, artifacts, learnings, tests, coverage)| {
            let keys = [
                "failureClass",
                "error",
                "blockers",
                "completionPercentage",
                "artifactsModified",
                "learnings",
                "testsPassing",
                "coveragePercent",
            ];
            let values = [failure, error, blockers, completion, artifacts, learnings, tests, coverage];
            // Mostly the right kind of value per field, so that detections happen too.
            Value::Object(keys.iter().zip(values).map(|(k, v)| (k.to_string(), v)).collect())
        });
    let max = prop_oneof![1u32..6].prop_map(|n| Value::Number(f64::from(n))).boxed();
    let number = prop_oneof![0u32..10].prop_map(|n| Value::Number(f64::from(n))).boxed();
    (
        proptest::option::of(analysis),
        proptest::option::of((mostly(text()), mostly(max))),
        proptest::option::of(mostly(number)),
    )
        .prop_map(|(analysis, context, number)| {
            let mut entries = Vec::new();
            if let Some(a) = analysis {
                entries.push(("analysis".to_string(), a));
            }
            if let Some((objective, max)) = context {
                entries.push((
                    "context".to_string(),
                    Value::object(vec![("objective", objective), ("maxIterations", max)]),
                ));
            }
            if let Some(n) = number {
                entries.push(("number".to_string(), n));
            }
            Value::Object(entries)
        })
        .boxed()
}

/// Every number in `value` is finite.
fn finite(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_finite(),
        Value::Array(items) => items.iter().all(finite),
        Value::Object(entries) => entries.iter().all(|(_, v)| finite(v)),
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn histories_are_refused_by_field_or_answered_well_formed(history in proptest::collection::vec(iteration(), 0..12)) {
        let thresholds = Thresholds::DEFAULT.to_value(Naming::Js);
        let history = Value::Array(history);
        match detect_value(&thresholds, &history, None, Naming::Js) {
            Err(e) => prop_assert!(e.field().starts_with("history"), "{e}"),
            Ok(Value::Array(found)) => {
                // detect is the five detectors, in order.
                let mut each = Vec::new();
                for detector in Detector::ALL {
                    let one = detect_value(&thresholds, &history, Some(detector), Naming::Js).unwrap();
                    if one != Value::Null {
                        each.push(one);
                    }
                }
                prop_assert_eq!(&found, &each);
                for value in &found {
                    prop_assert!(finite(value), "{}", value.to_json());
                    let detection = Detection::from_value(value, "detection", Naming::Js, ErrorCode::InvalidDetection).unwrap();
                    prop_assert_eq!(&detection.to_value(Naming::Js), value);
                    let intervention = Intervention::new(detection.clone(), "2026-01-01T00:00:00.000Z", "detection").unwrap();
                    prop_assert_eq!(intervention.level(), determine_level(&detection));
                    let written = intervention.to_value(Naming::Js, true);
                    let read = LogEntry::from_value(&written, "entry", Naming::Js).unwrap();
                    prop_assert_eq!(read, LogEntry::Intervention(intervention));
                }
            }
            Ok(other) => prop_assert!(false, "not an array: {other:?}"),
        }
    }

    #[test]
    fn thresholds_are_refused_by_field_or_kept(group in 0usize..5, a in scalar(), b in scalar()) {
        let names = [
            ("stuck", "sameErrorCount", "noProgressIterations"),
            ("oscillation", "undoRedoCycles", "fileChurnThreshold"),
            ("deviation", "objectiveSimilarity", "scopeCreepRatio"),
            ("resource", "costMultiplier", "iterationMultiplier"),
            ("regression", "testPassToFail", "coverageDropPercent"),
        ];
        let (name, first, second) = names[group];
        let partial = Value::object(vec![(name, Value::object(vec![(first, a), (second, b)]))]);
        match Thresholds::DEFAULT.merged(&partial, "thresholds", Naming::Js) {
            Err(e) => prop_assert!(e.field().starts_with("thresholds."), "{e}"),
            Ok(merged) => {
                let written = merged.to_value(Naming::Js);
                prop_assert_eq!(Thresholds::from_value(&written, "thresholds", Naming::Js).unwrap(), merged);
            }
        }
    }
}
