//! The rules the command's state files rely on, held by the core so every binding keeps
//! them: another engine's snapshot is named as such, a byte-order mark is skipped, a
//! user's document refuses lone surrogates, an
//! over-long JSONL line gets the limit's error without being held, and layer names a host
//! addresses by name are unique.

use earlyexit::kit::pyramid::policy::check_layer_specs;
use earlyexit::value::jsonl::JsonlLines;
use earlyexit::value::JsonReading;
use earlyexit::{EarlyStopping, EarlyStoppingConfig, ErrorCode, ExitConfig, LayerSpec, Naming, PyramidRun, Value};

fn loop_snapshot(strict: bool, iterations: &[u64]) -> Value {
    let config = EarlyStoppingConfig { strict_iterations: Some(false), ..EarlyStoppingConfig::default() };
    let mut engine = EarlyStopping::new(config).unwrap();
    for &i in iterations {
        let result = Value::object(vec![
            ("quality_score", Value::Number(50.0)),
            ("confidence", Value::Number(0.5)),
            ("verification_status", Value::string("failed")),
            ("quality_delta", Value::Number(0.0)),
        ]);
        engine
            .record_value(&Value::Number(i as f64), &result, Naming::Js, || "2026-01-01T00:00:00.000Z".into())
            .unwrap();
    }
    let mut snapshot = engine.to_snapshot();
    if let Value::Object(entries) = &mut snapshot {
        for (key, value) in entries.iter_mut() {
            if key == "config" {
                if let Value::Object(config) = value {
                    for (k, v) in config.iter_mut() {
                        if k == "strictIterations" {
                            *v = Value::Bool(strict);
                        }
                    }
                }
            }
        }
    }
    snapshot
}

fn pyramid_snapshot() -> Value {
    let layers = vec![LayerSpec { name: "unit".into(), cost_ms: None }];
    PyramidRun::start(ExitConfig::default(), 1, layers).unwrap().to_snapshot()
}

#[test]
fn another_engines_snapshot_is_named_before_its_keys_are_checked() {
    let e = EarlyStopping::from_snapshot(&pyramid_snapshot()).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "engine"));
    assert_eq!(e.message(), "snapshot is of engine 'PyramidRun', expected 'EarlyStopping'");
    let e = EarlyStopping::normalize_snapshot(&pyramid_snapshot()).unwrap_err();
    assert_eq!(e.field(), "engine");
    let e = PyramidRun::from_snapshot(&loop_snapshot(false, &[1])).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "engine"));
    assert_eq!(e.message(), "snapshot is of engine 'EarlyStopping', expected 'PyramidRun'");
    // An unknown key in a snapshot of the right engine is still that.
    let mut own = loop_snapshot(false, &[1]);
    if let Value::Object(entries) = &mut own {
        entries.push(("totalLayers".into(), Value::Number(3.0)));
    }
    let e = EarlyStopping::from_snapshot(&own).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "totalLayers"));
}

#[test]
fn a_snapshots_text_may_start_with_a_byte_order_mark() {
    let text = loop_snapshot(false, &[1, 2]).to_json();
    let with_bom = format!("\u{feff}{text}");
    assert_eq!(earlyexit::snapshot::parse(&with_bom).unwrap(), earlyexit::snapshot::parse(&text).unwrap());
    // Only at the start.
    assert!(earlyexit::snapshot::parse(&format!(" \u{feff}{text}")).is_err());
}

#[test]
fn a_users_document_refuses_a_lone_surrogate() {
    let text = r#"{"objective":"fix \ud800 now","pair":"\ud83d\ude00"}"#;
    let e = Value::parse_json_as(text, ErrorCode::InvalidConfig, "policy", JsonReading::USER_DOCUMENT).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "policy"));
    assert_eq!(e.message(), "invalid JSON: a lone UTF-16 surrogate escape (not a character) at byte 24");
    let low = r#"["\udc00"]"#;
    assert!(Value::parse_json_as(low, ErrorCode::InvalidConfig, "p", JsonReading::USER_DOCUMENT).is_err());
    // A pair is a character; a document read as the libraries read one keeps U+FFFD.
    let pair = Value::parse_json_as(r#""\ud83d\ude00""#, ErrorCode::InvalidConfig, "p", JsonReading::USER_DOCUMENT);
    assert_eq!(pair.unwrap(), Value::string("\u{1F600}"));
    let lenient = Value::parse_json(text, ErrorCode::InvalidConfig, "policy").unwrap();
    assert_eq!(lenient.get("objective").and_then(Value::as_str), Some("fix \u{FFFD} now"));
}

#[test]
fn an_over_long_line_gets_the_limits_error_without_the_line() {
    let limit = earlyexit::limits::MAX_DOCUMENT_BYTES;
    let line = format!(r#"{{"id":"{}"}}"#, "a".repeat(limit));
    let read = |l: &str, path: &str| earlyexit::kit::loops::replay::read_run_line(l, Naming::Js, path);
    let mut whole = JsonlLines::new();
    assert!(whole.line("", read).unwrap().is_none());
    let expected = whole.line(&line, read).unwrap_err();
    drop(line);
    let mut streamed = JsonlLines::new();
    assert!(streamed.line("", read).unwrap().is_none());
    assert_eq!(streamed.line_too_long(), expected);
    assert_eq!(expected.message(), "runs[0] (line 2): over the limits: a document of more than 268435456 bytes");
    assert_eq!(JsonlLines::READ_LIMIT, limit + 6);
}

#[test]
fn layers_a_host_addresses_by_name_are_unique() {
    let specs =
        |names: &[&str]| names.iter().map(|n| LayerSpec { name: (*n).into(), cost_ms: None }).collect::<Vec<_>>();
    assert!(check_layer_specs(&specs(&["unit", "e2e"])).is_ok());
    let e = check_layer_specs(&specs(&["unit", "e2e", "unit"])).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "layers[2].name"));
    assert_eq!(e.message(), "layers[2].name repeats layer 'unit'");
}
