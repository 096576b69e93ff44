//! tests/vectors/policy/pyramid_slices.json (tests/vectors/gen_pyramid_slices.mjs): the label
//! slices of a calibration artifact and the drift check's label reasons, as derived there from
//! docs/test-exit.md. (The receipt-log part needs SHA-256: earlyexit-digest's tests run it.)

use earlyexit::kit::pyramid::replay::drift_value;
use earlyexit::pyramid::replay::{parse_runs, CalibrationRequest};
use earlyexit::{ErrorCode, Naming, Value};

mod test_sha256;
use test_sha256::TestSha256;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/policy/pyramid_slices.json");
    let text = std::fs::read_to_string(path).expect("the vectors");
    Value::parse_json(&text, ErrorCode::InvalidReplay, "vectors").expect("JSON")
}

fn items<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    match v.get(key) {
        Some(Value::Array(items)) => items,
        other => panic!("{key}: {other:?}"),
    }
}

fn calibrate(runs: &Value, options: &Value) -> Value {
    let request = CalibrationRequest::from_options(options, Naming::Js).unwrap();
    request.run_with_artifact(&parse_runs(runs, Naming::Js).unwrap(), &TestSha256, 0).unwrap()
}

/// The entries of `list` that have key `key`.
fn with_key(list: &[Value], key: &str) -> Value {
    Value::Array(list.iter().filter(|v| v.get(key).is_some()).cloned().collect())
}

#[test]
fn calibration_keeps_one_slice_per_label() {
    let doc = vectors();
    for v in items(&doc, "slices") {
        let artifact = calibrate(v.get("runs").unwrap(), v.get("options").unwrap());
        let slices = items(artifact.get("body").unwrap(), "slices");
        assert_eq!(&with_key(slices, "label"), v.get("labelSlices").unwrap(), "{:?}", v.get("name"));
    }
}

#[test]
fn drift_reports_label_reasons() {
    let doc = vectors();
    let drift = doc.get("drift").unwrap();
    let artifact = calibrate(drift.get("calibration").unwrap(), drift.get("options").unwrap());
    for v in items(drift, "cases") {
        let answer =
            drift_value(&artifact, v.get("recent").unwrap(), &TestSha256, drift.get("now").unwrap(), Naming::Js)
                .unwrap();
        let reasons: Vec<Value> = items(&answer, "reasons")
            .iter()
            .filter(|r| r.get("label").is_some())
            .map(|r| {
                Value::object(vec![
                    ("kind", r.get("kind").unwrap().clone()),
                    ("label", r.get("label").unwrap().clone()),
                    ("message", r.get("message").unwrap().clone()),
                ])
            })
            .collect();
        assert_eq!(&Value::Array(reasons), v.get("labelReasons").unwrap(), "{:?}", v.get("name"));
    }
}
