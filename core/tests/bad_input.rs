//! The bad-input matrix (`tests/vectors/bad_input.json`, format in `tests/vectors/README.md`):
//! every invalid input of both engines through the core. Each row's scenario (its own, or the
//! existing vector named by `sameAs`) builds an engine with state, makes the bad call, checks
//! code, field and kind, checks that the engine's snapshot is unchanged, and runs probe calls
//! whose answers must be those of an engine that never saw the bad call.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod vector_harness;

use earlyexit::{ErrorCode, Value};
use std::collections::BTreeMap;
use vector_harness::{decode, run_vector, vectors_dir, Coverage};

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(vectors_dir().join(name)).unwrap();
    decode(Value::parse_json(&text, ErrorCode::InvalidReplay, name).unwrap())
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// The scenario a row runs: its own `vector`, or the existing vector its `sameAs` names.
fn scenario(row: &Value, files: &mut BTreeMap<String, Value>) -> Result<Value, String> {
    if let Some(v) = row.get("vector") {
        return Ok(v.clone());
    }
    let same = text(row, "sameAs");
    let (file, name) = same.split_once('#').ok_or_else(|| format!("row has neither vector nor sameAs: {same}"))?;
    let doc = files.entry(file.to_string()).or_insert_with(|| load(file));
    let Some(Value::Array(vectors)) = doc.get("vectors") else { return Err(format!("{file} has no vectors")) };
    vectors
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(name))
        .cloned()
        .ok_or_else(|| format!("sameAs {same}: no such vector"))
}

/// The row's own columns must be what its scenario expects (the table is the documentation).
fn row_matches_scenario(row: &Value, v: &Value) -> Result<(), String> {
    let throws = v.get("throws").cloned().or_else(|| {
        let Some(Value::Array(calls)) = v.get("calls") else { return None };
        calls.iter().find_map(|c| c.get("throws").filter(|t| t.get("code").is_some()).cloned())
    });
    let throws = throws.ok_or("the scenario expects no error")?;
    for key in ["code", "field", "kind"] {
        if text(&throws, key) != text(row, key) {
            return Err(format!("row says {key} {}, its scenario {}", text(row, key), text(&throws, key)));
        }
    }
    Ok(())
}

#[test]
fn bad_input_matrix() {
    let doc = load("bad_input.json");
    let Some(Value::Array(rows)) = doc.get("cases") else { panic!("bad_input.json has no cases") };
    let mut files = BTreeMap::new();
    let mut coverage = Coverage::default();
    let (mut passed, mut skipped) = (0usize, 0usize);
    let mut failures = Vec::new();
    let mut by_input: BTreeMap<String, usize> = BTreeMap::new();
    for row in rows {
        if let Some(Value::Array(only)) = row.get("only") {
            if !only.iter().any(|o| o.as_str() == Some("rust")) {
                skipped += 1;
                continue;
            }
        }
        let outcome = scenario(row, &mut files).and_then(|v| {
            row_matches_scenario(row, &v)?;
            run_vector(&v, &mut coverage, &mut Vec::new())
        });
        match outcome {
            Ok(()) => {
                passed += 1;
                *by_input.entry(text(row, "input")).or_default() += 1;
            }
            Err(m) => failures.push(format!("{}: {m}", text(row, "id"))),
        }
    }
    println!("\nbad-input matrix (rust): {passed} cases passed, {} failed, {skipped} not for rust", failures.len());
    for (input, n) in &by_input {
        println!("    {n:5}  {input}");
    }
    for f in failures.iter().take(60) {
        println!("FAIL {f}");
    }
    assert!(passed >= 1000, "expected at least 1000 matrix cases, ran {passed}");
    assert!(failures.is_empty(), "{} matrix cases failed", failures.len());
}

fn json(text: &str) -> Value {
    Value::parse_json(text, ErrorCode::InvalidReplay, "test").unwrap()
}

/// A cross-field error names a key the call gave, in both spellings (it named the key already
/// configured: `minIterations` for `configure({maxIterations: 2})`).
#[test]
fn cross_field_errors_name_a_key_the_call_gave() {
    use earlyexit::loops::EarlyStopping;
    use earlyexit::Naming;
    let mut es = EarlyStopping::from_config_value(&json(r#"{"minIterations": 5}"#), Naming::Js).unwrap();
    let err = es.configure_value(&json(r#"{"maxIterations": 2}"#), Naming::Js).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "maxIterations"));
    let err = es.configure_value(&json(r#"{"max_iterations": 2}"#), Naming::Snake).unwrap_err();
    assert_eq!(err.field(), "max_iterations");
    let err = es.configure_value(&json(r#"{"maxIterations": 2, "minIterations": 3}"#), Naming::Js).unwrap_err();
    assert_eq!(err.field(), "minIterations");
    let mut es = EarlyStopping::from_config_value(
        &json(r#"{"plateauMode": "absolute", "plateauImprovementThreshold": 5}"#),
        Naming::Js,
    )
    .unwrap();
    let err = es.configure_value(&json(r#"{"plateauMode": "relative"}"#), Naming::Js).unwrap_err();
    assert_eq!((err.field(), err.kind().as_str()), ("plateauMode", "range"));
    assert!(err.message().contains("which is 5"), "{}", err.message());
}

/// A bad result inside a PyramidRun snapshot is named where it sits in the document.
#[test]
fn a_bad_submitted_result_is_named_at_its_snapshot_path() {
    use earlyexit::pyramid::PyramidRun;
    let snapshot = json(
        r#"{"version": 1, "engine": "PyramidRun", "config": {}, "totalLayers": 2, "layers": [{"name": "a"}, {"name": "b"}],
            "submitted": [{"layer": 0, "result": {"passRate": 1.5, "coverage": 1, "flakyRatio": 0}}]}"#,
    );
    let err = PyramidRun::from_snapshot(&snapshot).err().unwrap();
    assert_eq!((err.code(), err.field()), ("invalid_snapshot", "submitted[0].result.passRate"));
    assert!(err.message().starts_with("submitted[0]: result.passRate "), "{}", err.message());
}
