//! tests/vectors/lifecycle/loop_lifecycle.json: loop promotion and drift, the vectors the
//! Python and Node suites read too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit::loops::replay::{calibrate_value, loop_drift_value, promote_loop_value};
use earlyexit::loops::replay::LoopCalibrationPlan;
use earlyexit::{ErrorCode, Naming, Value};

mod test_sha256;
use test_sha256::TestSha256;

const NOW: i64 = 1_780_000_000_000;

fn doc() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/lifecycle/loop_lifecycle.json");
    Value::parse_json(&std::fs::read_to_string(path).unwrap(), ErrorCode::InvalidConfig, "").unwrap()
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or_else(|| panic!("{key}"))
}

/// A run set of the vectors as runs.
fn runs(doc: &Value, set: &Value) -> Value {
    let kind = set.get("iterations").and_then(Value::as_str).unwrap();
    let iterations = doc.get("iterations").and_then(|i| i.get(kind)).unwrap().clone();
    let dataset = set.get("dataset").unwrap().clone();
    let from = num(set, "from") as usize;
    let items = (from..from + num(set, "n") as usize)
        .map(|i| {
            Value::object(vec![
                ("id", Value::string(format!("t{i}").as_str())),
                ("dataset", dataset.clone()),
                ("iterations", iterations.clone()),
            ])
        })
        .collect();
    Value::Array(items)
}

fn artifact(doc: &Value) -> Value {
    let cal = doc.get("calibration").unwrap();
    let sequential = |plan: &LoopCalibrationPlan| plan.evaluate_all();
    let options = cal.get("options").unwrap();
    calibrate_value(&runs(doc, cal.get("runs").unwrap()), options, Naming::Js, &TestSha256, NOW, &sequential).unwrap()
}

fn cases<'a>(doc: &'a Value, key: &str) -> &'a [Value] {
    match doc.get(key) {
        Some(Value::Array(items)) => items,
        _ => panic!("{key}"),
    }
}

#[test]
fn promotion_vectors() {
    let doc = doc();
    let a = artifact(&doc);
    let now = Value::Number((NOW + 1) as f64);
    for case in cases(&doc, "promotion") {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let answer = promote_loop_value(&a, &runs(&doc, case.get("audit").unwrap()), &TestSha256, &now, Naming::Js);
        if let Some(error) = case.get("error") {
            let e = answer.expect_err(name);
            assert_eq!(Some(e.code()), error.get("code").and_then(Value::as_str), "{name}");
            let field = error.get("field").and_then(Value::as_str).unwrap();
            assert!(e.field().starts_with(field), "{name}: {}", e.field());
            continue;
        }
        let answer = answer.unwrap();
        assert_eq!(answer.get("promoted"), case.get("promoted"), "{name}");
        let audit = answer.get("audit").unwrap();
        assert_eq!(num(audit, "tasks"), num(case, "tasks"), "{name}");
        assert_eq!(num(audit, "prematureTasks"), num(case, "prematureTasks"), "{name}");
        assert!(
            (num(audit, "upperBound") - num(case, "upperBound")).abs() < 1e-9,
            "{name}: {}",
            num(audit, "upperBound")
        );
        let promotion = answer.get("artifact").and_then(|x| x.get("promotion")).unwrap();
        assert_eq!(matches!(promotion, Value::Null), case.get("promoted") == Some(&Value::Bool(false)), "{name}");
    }
}

#[test]
fn drift_vectors() {
    let doc = doc();
    let a = artifact(&doc);
    let promote = cases(&doc, "promotion").first().unwrap();
    let now = Value::Number((NOW + 1) as f64);
    let promoted = promote_loop_value(&a, &runs(&doc, promote.get("audit").unwrap()), &TestSha256, &now, Naming::Js)
        .unwrap()
        .get("artifact")
        .unwrap()
        .clone();
    for case in cases(&doc, "drift") {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let artifact = if case.get("promoted") == Some(&Value::Bool(true)) { &promoted } else { &a };
        let at = match case.get("at").and_then(Value::as_str) {
            Some("expiresAt") => artifact.get("expiresAt").unwrap().clone(),
            _ => Value::Number((NOW + 2) as f64),
        };
        let report = loop_drift_value(artifact, &runs(&doc, case.get("runs").unwrap()), &TestSha256, &at, Naming::Js)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.get("status"), case.get("status"), "{name}");
        let Some(Value::Array(reasons)) = report.get("reasons") else { panic!("{name}: reasons") };
        let kinds: Vec<Value> = reasons.iter().map(|r| r.get("kind").unwrap().clone()).collect();
        assert_eq!(Some(&Value::Array(kinds)), case.get("reasons"), "{name}");
        let demoted = matches!(report.get("artifact").and_then(|x| x.get("promotion")), Some(Value::Null));
        assert_eq!(Some(&Value::Bool(demoted)), case.get("demoted"), "{name}");
    }
}
