//! The command reads calibration artifacts as every binding does: a promotion must be the
//! artifact's own (`artifactSha256`) with figures that hold, and the copies of a policy inside
//! one artifact must agree; otherwise `invalid_artifact` naming the field, exit 2, and no state
//! file is written.

mod support;

use std::path::Path;
use std::process::Output;

use earlyexit::kit::pyramid::replay::promote_value;
use earlyexit::pyramid::replay::{parse_runs, CalibrationRequest};
use earlyexit::{Naming, Value};

use support::{code_field, run, s};

/// `doc` with the value at `path` (object keys) replaced by `new`.
fn with(doc: &Value, path: &[&str], new: Value) -> Value {
    let mut out = doc.clone();
    let mut at = &mut out;
    for (i, key) in path.iter().enumerate() {
        let Value::Object(entries) = at else { panic!("{key} is not in an object") };
        let slot = &mut entries.iter_mut().find(|(k, _)| k == key).expect("the key").1;
        if i + 1 == path.len() {
            *slot = new;
            return out;
        }
        at = slot;
    }
    out
}

/// `n` recorded runs of unit and e2e (unit fails every `every`-th run), from `offset`.
fn runs(n: usize, every: usize, offset: usize) -> Value {
    let layer = |name: &str, ms: f64, failed: bool| {
        Value::object(vec![
            ("name", Value::string(name)),
            ("durationMs", Value::Number(ms)),
            ("failed", Value::Bool(failed)),
        ])
    };
    Value::Array(
        (offset..offset + n)
            .map(|i| {
                Value::object(vec![(
                    "layers",
                    Value::Array(vec![layer("unit", 10.0, i % every == 0), layer("e2e", 90.0, i % 97 == 3)]),
                )])
            })
            .collect(),
    )
}

fn calibrated(every: usize) -> Value {
    let now = earlyexit_calibrate::now_ms();
    let options = Value::object(vec![("risk", Value::Number(0.2)), ("delta", Value::Number(0.1))]);
    let request = CalibrationRequest::from_options(&options, Naming::Js).unwrap();
    let runs = parse_runs(&runs(600, every, 0), Naming::Js).unwrap();
    request.run_with_artifact(&runs, &earlyexit_digest::Sha256Hasher, now).unwrap()
}

/// `pyramid start` with the artifact `policy` written to a file: the output.
fn start(dir: &Path, policy: &Value) -> (Output, bool) {
    let file = dir.join("artifact.json");
    std::fs::write(&file, policy.to_json()).unwrap();
    let state = dir.join("run.json");
    let out = run(&[
        "--json",
        "pyramid",
        "start",
        "--state",
        s(&state),
        "--force",
        "--layer",
        "unit=10",
        "--layer",
        "e2e=90",
        "--policy",
        s(&file),
    ]);
    (out, state.exists())
}

#[test]
fn pyramid_start_refuses_a_promotion_that_is_not_the_artifacts_own_or_does_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let now = Value::string(earlyexit::time::iso_from_millis(earlyexit_calibrate::now_ms()).as_str());
    let answer =
        promote_value(&calibrated(5), &runs(400, 5, 600), &earlyexit_digest::Sha256Hasher, &now, Naming::Js).unwrap();
    assert_eq!(answer.get("promoted"), Some(&Value::Bool(true)), "{answer:?}");
    let promoted = answer.get("artifact").unwrap().clone();
    let (ok, written) = start(dir.path(), &promoted);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(written);
    std::fs::remove_file(dir.path().join("run.json")).unwrap();
    // Another artifact's promotion pasted into an unpromoted one.
    let pasted = with(&calibrated(4), &["promotion"], promoted.get("promotion").unwrap().clone());
    let (out, written) = start(dir.path(), &pasted);
    let (code, (kind, field)) = (support::code(&out), code_field(&out));
    assert_eq!((code, kind.as_str()), (2, "invalid_artifact"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(field.ends_with("promotion.artifactSha256"), "{field}");
    assert!(!written, "nothing written");
    // An upper bound above the risk.
    let high = with(&promoted, &["promotion", "upperBound"], Value::Number(0.99));
    let (out, written) = start(dir.path(), &high);
    let (code, (kind, field)) = (support::code(&out), code_field(&out));
    assert_eq!((code, kind.as_str()), (2, "invalid_artifact"));
    assert!(field.ends_with("promotion.upperBound"), "{field}");
    assert!(!written);
    // A budget above the certified one.
    let unpromoted = with(&promoted, &["promotion"], Value::Null);
    let raised = with(&unpromoted, &["policy", "config", "riskBudget"], Value::Number(0.99));
    let (out, _) = start(dir.path(), &raised);
    let (code, (_, field)) = (support::code(&out), code_field(&out));
    assert_eq!(code, 2);
    assert!(field.ends_with("policy.config.riskBudget"), "{field}");
}

#[test]
fn loop_record_refuses_an_artifact_whose_policy_copies_disagree() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/replay/loop_calibration.json"),
    )
    .unwrap();
    let doc = Value::parse_json(&doc, earlyexit::ErrorCode::InvalidConfig, "doc").unwrap();
    let Some(Value::Array(cases)) = doc.get("cases") else { panic!("cases") };
    let options = cases[0].get("options").unwrap();
    let artifact = earlyexit_calibrate::calibrate_loops(
        doc.get("runs").unwrap(),
        options,
        Naming::Js,
        earlyexit_calibrate::now_ms(),
    )
    .unwrap();
    let Some(Value::Object(config)) = artifact.get("policy").and_then(|p| p.get("config")) else { panic!("config") };
    let mut config = config.clone();
    config.retain(|(k, _)| k != "maxIterations");
    config.push(("maxIterations".into(), Value::Number(1000.0)));
    let tampered = with(&artifact, &["policy", "config"], Value::Object(config));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("artifact.json");
    let state = dir.path().join("loop.json");
    let record = |artifact: &Value| {
        std::fs::write(&file, artifact.to_json()).unwrap();
        run(&[
            "--json",
            "loop",
            "record",
            "--state",
            s(&state),
            "--policy",
            s(&file),
            "--quality",
            "0",
            "--confidence",
            "0",
            "--verification",
            "failed",
        ])
    };
    let out = record(&tampered);
    let (code, (kind, field)) = (support::code(&out), code_field(&out));
    assert_eq!((code, kind.as_str()), (2, "invalid_artifact"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(field.ends_with("policy.config.maxIterations"), "{field}");
    assert!(!state.exists(), "no state file written");
    let ok = record(&artifact);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
}
