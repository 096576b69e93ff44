//! The size limits (`earlyexit::limits`, docs/limits.md), each at its boundary: the limit
//! accepted, one more refused with a typed error naming the field. Also the counts a host
//! supplies (`speculate`, layer lists), the one replay reader and the per-line scope of
//! the limits in JSONL streams. The Python, Node and wasm suites test the same boundaries
//! through their bindings (tests/python/test_limits.py, tests/node/limits.test.mjs).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit;
use earlyexit::limits::{
    self, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_LAYERS, MAX_OBJECT_KEYS, MAX_STRING_BYTES, MAX_VALUES,
};
use earlyexit::pyramid::LayerSpec;
use earlyexit::value::{jsonl, JsonReading};
use earlyexit::{
    loops::replay, pyramid, snapshot, EarlyStopping, Error, ErrorCode, ExitConfig, Naming, PyramidRun, Value,
};

fn spec(name: &str) -> LayerSpec {
    LayerSpec { name: name.to_string(), cost_ms: None }
}

fn over_the_limits(result: Result<Value, Error>, code: &str, field: &str) -> Error {
    let e = result.expect_err("over the limit");
    assert_eq!((e.code(), e.field()), (code, field), "{}", e.message());
    assert!(e.message().contains("over the limits"), "{}", e.message());
    e
}

/// An engine snapshot padded with spaces to exactly `bytes` bytes.
fn padded_snapshot(bytes: usize) -> String {
    let mut text = EarlyStopping::new(Default::default()).unwrap().to_snapshot().to_json();
    assert!(text.len() < bytes);
    text.push_str(&" ".repeat(bytes - text.len()));
    text
}

#[test]
fn document_bytes_at_the_boundary() {
    let text = padded_snapshot(MAX_DOCUMENT_BYTES);
    let restored = EarlyStopping::from_snapshot(&snapshot::parse(&text).unwrap()).unwrap();
    assert!(restored.history().is_empty());
    let text = padded_snapshot(MAX_DOCUMENT_BYTES + 1);
    over_the_limits(snapshot::parse(&text), "invalid_snapshot", "snapshot");
}

fn nested(depth: usize) -> String {
    ["[".repeat(depth), "]".repeat(depth)].concat()
}

#[test]
fn document_depth_at_the_boundary() {
    assert!(Value::parse_json(&nested(MAX_DOCUMENT_DEPTH), ErrorCode::InvalidSnapshot, "snapshot").is_ok());
    over_the_limits(
        Value::parse_json(&nested(MAX_DOCUMENT_DEPTH + 1), ErrorCode::InvalidSnapshot, "snapshot"),
        "invalid_snapshot",
        "snapshot",
    );
    // A real document at the limit: a run's snapshot whose stored result holds an extra
    // value nested to the last level (root, `submitted`, its entry, the result: 4 levels).
    let mut run = PyramidRun::start(ExitConfig::DEFAULT, 2, vec![spec("a"), spec("b")]).unwrap();
    run.submit_value(
        &Value::Number(0.0),
        &Value::object(vec![
            ("passRate", Value::Number(0.5)),
            ("coverage", Value::Number(1.0)),
            ("flakyRatio", Value::Number(0.0)),
            ("deep", Value::parse_json(&nested(MAX_DOCUMENT_DEPTH - 4), ErrorCode::InvalidSnapshot, "x").unwrap()),
        ]),
        Naming::Js,
    )
    .unwrap();
    let text = run.to_snapshot().to_json();
    let restored = PyramidRun::from_snapshot(&snapshot::parse(&text).unwrap()).unwrap();
    assert_eq!(restored.to_snapshot().to_json(), text);
    let deeper = text.replacen("\"deep\":[", "\"deep\":[[", 1).replacen("]}}]", "]]}}]", 1);
    over_the_limits(snapshot::parse(&deeper), "invalid_snapshot", "snapshot");
}

/// `[0,0,...]` holding `values` values (the array counts one).
fn array_of_values(values: usize) -> String {
    let mut text = String::with_capacity(2 * values + 1);
    text.push('[');
    for i in 1..values {
        text.push_str(if i == 1 { "0" } else { ",0" });
    }
    text.push(']');
    text
}

#[test]
fn values_at_the_boundary() {
    // At the limit the document is read (and refused for what it is: not a snapshot).
    let e = EarlyStopping::from_snapshot(&snapshot::parse(&array_of_values(MAX_VALUES)).unwrap()).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "snapshot"));
    assert!(!e.message().contains("over the limits"), "{}", e.message());
    let e = over_the_limits(snapshot::parse(&array_of_values(MAX_VALUES + 1)), "invalid_snapshot", "snapshot");
    assert!(e.message().contains("more than 16777216 values"), "{}", e.message());
}

fn object_of_keys(keys: usize) -> String {
    let mut text = String::from("{");
    for i in 0..keys {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"k{i}\":0"));
    }
    text.push('}');
    text
}

#[test]
fn keys_per_object_at_the_boundary() {
    let value = snapshot::parse(&object_of_keys(MAX_OBJECT_KEYS)).unwrap();
    let Value::Object(entries) = &value else { panic!() };
    assert_eq!(entries.len(), MAX_OBJECT_KEYS);
    let e = EarlyStopping::from_snapshot(&value).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "k0"), "an unknown key, not a limit");
    over_the_limits(snapshot::parse(&object_of_keys(MAX_OBJECT_KEYS + 1)), "invalid_snapshot", "snapshot");
}

#[test]
fn string_bytes_at_the_boundary() {
    let with_reason = |bytes: usize| {
        let mut value = EarlyStopping::new(Default::default()).unwrap().to_snapshot();
        if let Value::Object(entries) = &mut value {
            entries.retain(|(k, _)| k != "stoppingReason");
            entries.push(("stoppingReason".into(), Value::string("x".repeat(bytes))));
        }
        value.to_json()
    };
    let restored = EarlyStopping::from_snapshot(&snapshot::parse(&with_reason(MAX_STRING_BYTES)).unwrap()).unwrap();
    assert_eq!(restored.stopping_reason().map(str::len), Some(MAX_STRING_BYTES));
    over_the_limits(snapshot::parse(&with_reason(MAX_STRING_BYTES + 1)), "invalid_snapshot", "snapshot");
    // In the JS layer's call arguments a text argument is a document or a stream, not a
    // string inside a value: only strings inside arguments are limited.
    let long = "y".repeat(MAX_STRING_BYTES + 1);
    let arguments = Value::Array(vec![Value::string(long.as_str())]).to_json();
    assert!(
        Value::parse_json_as(&arguments, ErrorCode::InvalidConfig, "arguments", JsonReading::arguments(false)).is_ok()
    );
    let inside = Value::Array(vec![Value::object(vec![("name", Value::string(long))])]).to_json();
    over_the_limits(
        Value::parse_json_as(&inside, ErrorCode::InvalidConfig, "arguments", JsonReading::arguments(false)),
        "invalid_config",
        "arguments",
    );
}

/// Before: `speculate` allocated the count it was given (Python `speculate(d, 2**40)`
/// aborted the process, "memory allocation of 17592186044416 bytes failed").
#[test]
fn speculate_counts_are_bounded() {
    assert_eq!(pyramid::speculate(0.9, MAX_LAYERS).unwrap().len(), MAX_LAYERS);
    for count in [MAX_LAYERS + 1, 1 << 40, usize::MAX] {
        let e = pyramid::speculate(0.9, count).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "skipped_layers"));
    }
    let count = |n: f64, naming| kit::pyramid::skipped_count(&Value::Number(n), naming);
    assert_eq!(count(MAX_LAYERS as f64, Naming::Js).unwrap(), MAX_LAYERS);
    for n in [MAX_LAYERS as f64 + 1.0, 4_294_967_295.0, 2f64.powi(63), -1.0, 2.5, f64::NAN] {
        let e = count(n, Naming::Js).unwrap_err();
        assert_eq!((e.code(), e.field(), e.kind().as_str()), ("invalid_config", "skippedLayers", "range"), "{n}");
        assert_eq!(count(n, Naming::Snake).unwrap_err().field(), "skipped");
    }
}

#[test]
fn layer_lists_are_bounded() {
    let layers = |n: usize| (0..n).map(|i| spec(&format!("l{i}"))).collect::<Vec<_>>();
    assert!(PyramidRun::start(ExitConfig::DEFAULT, 4, layers(MAX_LAYERS)).is_ok());
    let e = PyramidRun::start(ExitConfig::DEFAULT, 4, layers(MAX_LAYERS + 1)).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "layers"));
    let list = |n: usize| {
        Value::Array((0..n).map(|i| Value::object(vec![("name", Value::string(format!("l{i}")))])).collect())
    };
    assert!(PyramidRun::start_value(&Value::Null, &Value::Number(4.0), &list(MAX_LAYERS), Naming::Js).is_ok());
    let e = PyramidRun::start_value(&Value::Null, &Value::Number(4.0), &list(MAX_LAYERS + 1), Naming::Js).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "layers"));
    // A recorded run in a replay, and a policy's planned layers.
    let run = |n: usize| {
        let layers: Vec<String> =
            (0..n).map(|i| format!(r#"{{"name":"l{i}","durationMs":1,"failed":false}}"#)).collect();
        format!(r#"{{"layers":[{}]}}"#, layers.join(","))
    };
    assert_eq!(pyramid::replay::parse_runs_jsonl(&run(MAX_LAYERS), Naming::Js).unwrap().len(), 1);
    let e = pyramid::replay::parse_runs_jsonl(&run(MAX_LAYERS + 1), Naming::Js).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "runs[0].layers"));
    let e = kit::pyramid::replay::decide_value(
        &Value::Null,
        &list(MAX_LAYERS + 1),
        &Value::Array(vec![]),
        &Value::Null,
        Naming::Js,
    )
    .unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "layers"));
}

/// Limits apply per JSONL line, never to the stream: lines that together hold more values
/// than one document may still replay, while one line over a limit is refused with its line.
#[test]
fn jsonl_limits_apply_per_line() {
    let line = r#"{"id":"r","iterations":[{"quality_score":50,"confidence":0.5,"verification_status":"failed"}]}"#;
    // 10 values a line: 1.7 million lines hold more values than one document may.
    let lines = MAX_VALUES / 10 + 1;
    let text = vec![line; lines].join("\n");
    assert_eq!(replay::parse_jsonl(&text, Naming::Js).unwrap().len(), lines);
    let long = format!(r#"{{"id":"{}","iterations":[]}}"#, "x".repeat(MAX_STRING_BYTES + 1));
    let e = replay::parse_jsonl(&[line, &long].join("\n"), Naming::Js).unwrap_err();
    assert_eq!((e.code(), e.field(), e.kind().as_str()), ("invalid_replay", "runs[1]", "range"));
    assert!(e.message().starts_with("runs[1] (line 2): over the limits"), "{}", e.message());
}

/// Before: pyramid replay refused the byte-order mark loop replay skipped, and called a
/// syntax error a type error where loop replay called it a range error. One reader now.
#[test]
fn loop_and_pyramid_replay_read_text_alike() {
    let loop_line = r#"{"id":"r","iterations":[{"quality_score":50,"confidence":0.5,"verification_status":"failed"}]}"#;
    let pyramid_line = r#"{"id":"r","layers":[{"name":"unit","durationMs":5,"failed":false}]}"#;
    let bom = |line: &str| ["\u{feff}", line, "\n\n", line, "\r\n"].concat();
    assert_eq!(replay::parse_jsonl(&bom(loop_line), Naming::Js).unwrap().len(), 2);
    assert_eq!(pyramid::replay::parse_runs_jsonl(&bom(pyramid_line), Naming::Js).unwrap().len(), 2);
    for broken in ["{\"id\": 1,", "[1,]", "{\"id\":\"r\"} x", "nul"] {
        let loop_error = replay::parse_jsonl(&[loop_line, "", broken].join("\n"), Naming::Js).unwrap_err();
        let pyramid_error =
            pyramid::replay::parse_runs_jsonl(&[pyramid_line, "", broken].join("\n"), Naming::Js).unwrap_err();
        for e in [&loop_error, &pyramid_error] {
            assert_eq!((e.code(), e.field(), e.kind().as_str()), ("invalid_replay", "runs[1]", "range"), "{broken}");
        }
        assert_eq!(loop_error.message(), pyramid_error.message(), "{broken}");
        assert!(loop_error.message().starts_with("runs[1] (line 3): invalid JSON"), "{}", loop_error.message());
    }
    // Bytes: UTF-8 or a range error naming the byte (never a silent replacement character).
    assert_eq!(jsonl::text_of_bytes(pyramid_line.as_bytes()).unwrap(), pyramid_line);
    let e = jsonl::text_of_bytes(b"{\"id\":\"\xff\"}").unwrap_err();
    assert_eq!((e.code(), e.field(), e.kind().as_str()), ("invalid_replay", "runs", "range"));
    assert!(e.message().ends_with("invalid at byte 7"), "{}", e.message());
}

/// The table, its constants and docs/limits.md agree (the page is the users' copy).
#[test]
fn docs_list_every_limit_with_its_value() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/limits.md")).unwrap();
    for limit in limits::ALL {
        let row = page
            .lines()
            .find(|l| l.starts_with('|') && l.contains(&format!("`{}`", limit.js)))
            .unwrap_or_else(|| panic!("docs/limits.md has no row for {}", limit.js));
        let value = limit.value.to_string();
        let grouped =
            value.as_bytes().rchunks(3).rev().map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(",");
        assert!(row.contains(&grouped), "docs/limits.md row for {} lacks {grouped}: {row}", limit.js);
        assert!(row.contains(&format!("`{}`", limit.snake)), "{row}");
    }
}
