//! `earlyexit pyramid` in shadow mode with a receipt log, and `earlyexit receipts verify`.

use std::path::Path;
use std::process::{Command, Output};

use earlyexit::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_earlyexit")).args(args).output().expect("the binary runs")
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    Value::parse_json(text.trim(), earlyexit::ErrorCode::InvalidConfig, "stdout").expect("JSON")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A fail_fast run in shadow mode whose first layer fails; its result appended to `log`.
fn shadow_run(dir: &Path, id: &str, log: &Path) -> Value {
    let state = dir.join(format!("{id}.json"));
    let start = run(&[
        "--json",
        "pyramid",
        "start",
        "--state",
        s(&state),
        "--layer",
        "unit=10",
        "--layer",
        "e2e=90",
        "--policy",
        "fail_fast",
        "--mode",
        "shadow",
        "--run-id",
        id,
    ]);
    assert_eq!(code(&start), 0, "{}", String::from_utf8_lossy(&start.stderr));
    for (layer, rate) in [("unit", "0.5"), ("e2e", "1")] {
        let out = run(&[
            "--json",
            "pyramid",
            "submit",
            "--state",
            s(&state),
            layer,
            "--pass-rate",
            rate,
            "--flaky",
            "0",
            "--coverage",
            "1",
        ]);
        assert!(matches!(code(&out), 0 | 10), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let result = run(&["--json", "pyramid", "result", "--state", s(&state), "--receipts", s(log)]);
    assert_eq!(code(&result), 12, "the build is red: {}", String::from_utf8_lossy(&result.stderr));
    json(&result)
}

#[test]
fn shadow_runs_append_a_chained_log_that_verifies() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("receipts.jsonl");
    let result = shadow_run(dir.path(), "b1", &log);
    assert_eq!(result.get("layersExecuted").map(Value::to_json).as_deref(), Some("[0,1]"), "every layer ran");
    let receipt = result.get("shadow").and_then(|s| s.get("receipts")).map(Value::to_json).unwrap_or_default();
    assert!(receipt.contains("\"label\":\"needless_run\"") && receipt.contains("\"runId\":\"b1\""), "{receipt}");
    shadow_run(dir.path(), "b2", &log);
    let verify = run(&["--json", "receipts", "verify", s(&log)]);
    assert_eq!(code(&verify), 0);
    let check = json(&verify);
    assert_eq!(check.get("receipts").and_then(Value::as_f64), Some(2.0));
    // An edited line breaks the chain there: exit 12 and the line.
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replacen("\"runId\":\"b1\"", "\"runId\":\"b9\"", 1)).unwrap();
    let broken = run(&["--json", "receipts", "verify", s(&log)]);
    assert_eq!(code(&broken), 12);
    assert_eq!(json(&broken).get("brokenAt").and_then(|b| b.get("line")).and_then(Value::as_f64), Some(1.0));
}

#[test]
fn bad_policy_flags_are_named() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("s.json");
    let out = run(&["--json", "pyramid", "start", "--state", s(&state), "--layer", "a", "--mode", "shadow"]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--mode") && err.contains("needs policy"), "{err}");
    let artifact = dir.path().join("artifact.json");
    std::fs::write(&artifact, r#"{"kind":"pyramid","schemaVersion":7}"#).unwrap();
    let out = run(&["--json", "pyramid", "start", "--state", s(&state), "--layer", "a", "--policy", s(&artifact)]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid_artifact") && err.contains("reads version 1"), "{err}");
}
