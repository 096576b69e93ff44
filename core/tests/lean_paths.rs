//! The lean entry points the JS layer uses (they keep the WebAssembly module small) give
//! exactly what the owning engines give: `normalize_snapshot` = `from_snapshot` then
//! `to_snapshot`, `fresh_snapshot` = a new engine's snapshot, `result_value` =
//! `result()?.to_value()`, and `is_rfc3339_bytes` = `is_rfc3339`.

use earlyexit::time::{is_rfc3339, is_rfc3339_bytes};
use earlyexit::{EarlyStopping, EarlyStoppingConfig, Naming, PyramidRun, Value};

fn json(text: &str) -> Value {
    Value::parse_json(text, earlyexit::ErrorCode::InvalidConfig, "test").unwrap()
}

fn engine_with_history() -> EarlyStopping {
    let config = json(r#"{"plateauConsecutiveCount":2,"maxTotalTokens":1000,"regressionTolerance":1}"#);
    let mut engine = EarlyStopping::from_config_value(&config, Naming::Js).unwrap();
    for (i, q) in [60.0, 70.0, 70.5, 70.6].into_iter().enumerate() {
        let result = json(&format!(
            r#"{{"quality_score":{q},"confidence":0.6,"verification_status":"passed","quality_delta":0,"timestamp":"2026-01-01T00:00:0{i}Z","tokens_used":10}}"#
        ));
        engine.record_value(&Value::Number((i + 1) as f64), &result, Naming::Js, String::new).unwrap();
    }
    engine.should_stop();
    engine
}

#[test]
fn normalize_snapshot_is_restore_then_write() {
    let snapshot = engine_with_history().to_snapshot();
    let restored = EarlyStopping::from_snapshot(&snapshot).unwrap().to_snapshot();
    assert_eq!(EarlyStopping::normalize_snapshot(&snapshot).unwrap(), restored);
    assert_eq!(restored, snapshot);
}

#[test]
fn normalize_snapshot_refuses_what_from_snapshot_refuses() {
    let Value::Object(mut entries) = engine_with_history().to_snapshot() else { panic!("not an object") };
    for (key, value) in entries.iter_mut() {
        if key == "history" {
            if let Value::Array(records) = value {
                // A usage figure that makes the running total overflow.
                records.push(json(
                    r#"{"iteration_number":5,"quality_score":70,"confidence":0.6,"verification_status":"passed","quality_delta":0,"timestamp":"2026-01-01T00:00:05Z","tokens_used":1.7e308}"#,
                ));
                records.push(json(
                    r#"{"iteration_number":6,"quality_score":70,"confidence":0.6,"verification_status":"passed","quality_delta":0,"timestamp":"2026-01-01T00:00:06Z","tokens_used":1.7e308}"#,
                ));
            }
        }
    }
    let bad = Value::Object(entries);
    let lean = EarlyStopping::normalize_snapshot(&bad).unwrap_err();
    let owning = EarlyStopping::from_snapshot(&bad).err().unwrap();
    assert_eq!(lean, owning);
    assert_eq!(lean.field(), "history[5].tokens_used");
}

#[test]
fn fresh_snapshot_is_a_new_engine_s() {
    for config in [EarlyStoppingConfig::default(), EarlyStoppingConfig::recommended()] {
        let engine = EarlyStopping::new(config.clone()).unwrap();
        assert_eq!(EarlyStopping::fresh_snapshot(&config), engine.to_snapshot());
    }
}

#[test]
fn result_value_is_result_to_value() {
    let layers = json(r#"[{"name":"unit","costMs":5},{"name":"integration","costMs":50},{"name":"e2e"}]"#);
    let mut run = PyramidRun::start_value(&json("{}"), &Value::Number(3.0), &layers, Naming::Js).unwrap();
    assert!(run.result_value(Naming::Js).is_err());
    let result = json(r#"{"passRate":1,"coverage":0.95,"flakyRatio":0,"extra":"kept"}"#);
    for _ in 0..6 {
        if let earlyexit::Action::Run(layer) | earlyexit::Action::Verify(layer) = run.next() {
            run.submit_value(&Value::Number(layer as f64), &result, Naming::Js).unwrap();
        }
    }
    assert_eq!(run.next(), earlyexit::Action::Done);
    for naming in [Naming::Js, Naming::Snake] {
        assert_eq!(run.result_value(naming).unwrap(), run.result().unwrap().to_value(naming));
    }
}

#[test]
fn timestamp_bytes_agree_with_text() {
    for text in ["2026-01-01T00:00:00Z", "2024-02-29t23:59:60.5+01:00", "2023-02-29T00:00:00Z", "", "2026-01-01"] {
        assert_eq!(is_rfc3339_bytes(text.as_bytes()), is_rfc3339(text), "{text}");
    }
}
