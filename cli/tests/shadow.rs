//! `earlyexit pyramid` in shadow mode with a receipt log, and `earlyexit receipts verify`.

mod support;

use std::path::Path;

use earlyexit::Value;

use support::{code, finished_shadow_run, json, run, s, submit_layer};

/// A fail_fast run in shadow mode whose first layer fails; its result appended to `log`.
fn shadow_run(dir: &Path, id: &str, log: &Path) -> Value {
    let state = finished_shadow_run(dir, id, "0.5");
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
    let out = run(&["--json", "pyramid", "start", "--state", s(&state), "--layer", "a", "--mode", "shade"]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--mode") && err.contains("shadow"), "{err}");
    let artifact = dir.path().join("artifact.json");
    std::fs::write(&artifact, r#"{"kind":"pyramid","schemaVersion":7}"#).unwrap();
    let out = run(&["--json", "pyramid", "start", "--state", s(&state), "--layer", "a", "--policy", s(&artifact)]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid_artifact") && err.contains("reads versions 1 and 2"), "{err}");
}

#[test]
fn a_label_goes_into_the_receipt_and_verify_reports_rates_by_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("receipts.jsonl");
    let state = dir.path().join("s.json");
    let start = |label: &str| {
        run(&[
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
            "fail_fast",
            "--mode",
            "shadow",
            "--label",
            label,
        ])
    };
    for label in ["main", "release/2", "main"] {
        assert_eq!(code(&start(label)), 0);
        for (layer, rate) in [("unit", "0.5"), ("e2e", "1")] {
            submit_layer(&state, layer, rate);
        }
        let result = run(&["--json", "pyramid", "result", "--state", s(&state), "--receipts", s(&log)]);
        assert_eq!(code(&result), 12);
    }
    let check = json(&run(&["--json", "receipts", "verify", s(&log)]));
    let Some(Value::Array(slices)) = check.get("labelSlices") else { panic!("{}", check.to_json()) };
    let counts: Vec<_> = slices
        .iter()
        .map(|s| {
            (s.get("runLabel").and_then(Value::as_str).unwrap().to_string(), s.get("receipts").and_then(Value::as_f64))
        })
        .collect();
    assert_eq!(counts, vec![("main".to_string(), Some(2.0)), ("release/2".to_string(), Some(1.0))]);
    let out = start("");
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--label") && err.contains("not blank"), "{err}");
    let out = run(&[
        "--json",
        "pyramid",
        "start",
        "--state",
        s(&state),
        "--force",
        "--layer",
        "a",
        "--policy",
        "fail_fast",
        "--now",
        "1",
    ]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--now"));
}

#[test]
fn an_expired_artifact_runs_in_shadow_at_now_or_the_clock() {
    use earlyexit::kit::pyramid::replay::promote_value;
    use earlyexit::pyramid::replay::{parse_runs, CalibrationRequest};
    use earlyexit::Naming;
    const JAN_1: i64 = 1_767_225_600_000;
    let runs = |n: usize, offset: usize| {
        let items = (offset..offset + n)
            .map(|i| {
                let layer = |name: &str, ms: f64, failed: bool| {
                    Value::object(vec![
                        ("name", Value::string(name)),
                        ("durationMs", Value::Number(ms)),
                        ("failed", Value::Bool(failed)),
                    ])
                };
                Value::object(vec![(
                    "layers",
                    Value::Array(vec![layer("unit", 10.0, i % 5 == 0), layer("e2e", 90.0, i % 97 == 3)]),
                )])
            })
            .collect();
        Value::Array(items)
    };
    let options = Value::object(vec![
        ("risk", Value::Number(0.2)),
        ("delta", Value::Number(0.1)),
        ("createdAt", Value::string("2026-01-01T00:00:00Z")),
    ]);
    let request = CalibrationRequest::from_options(&options, Naming::Js).unwrap();
    let hasher = earlyexit_digest::Sha256Hasher;
    let calibrated =
        request.run_with_artifact(&parse_runs(&runs(600, 0), Naming::Js).unwrap(), &hasher, JAN_1).unwrap();
    let promoted =
        promote_value(&calibrated, &runs(400, 600), &hasher, &Value::string("2026-01-02T00:00:00Z"), Naming::Js)
            .unwrap();
    assert_eq!(promoted.get("promoted"), Some(&Value::Bool(true)));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let artifact = dir.path().join("artifact.json");
    std::fs::write(&artifact, promoted.get("artifact").unwrap().to_json()).unwrap();
    let state = dir.path().join("s.json");
    let reason = |now: Option<&str>| {
        let mut args = vec![
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
            s(&artifact),
        ];
        if let Some(now) = now {
            args.extend(["--now", now]);
        }
        assert_eq!(code(&run(&args)), 0);
        while let Some(Value::String(name)) =
            json(&run(&["--json", "pyramid", "next", "--state", s(&state)])).get("name").cloned()
        {
            submit_layer(&state, &name, "1");
        }
        let result = json(&run(&["--json", "pyramid", "result", "--state", s(&state)]));
        result.get("shadow").and_then(|s| s.get("reason")).and_then(Value::as_str).map(str::to_string)
    };
    assert_eq!(reason(Some("2026-01-02T00:00:00Z")), None, "fresh: enforced");
    assert_eq!(
        reason(Some("1770000000000")).as_deref(),
        Some("the artifact expired at 2026-01-31T00:00:00.000Z (now 2026-02-02T02:40:00.000Z): running in shadow mode (calibrate again)")
    );
    // Without --now the machine's clock decides (past the expiry here).
    if earlyexit_calibrate::now_ms() > JAN_1 + 30 * 86_400_000 {
        assert!(reason(None).is_some_and(|r| r.starts_with("the artifact expired at 2026-01-31")));
    }
}

/// The ADR's exit decision (the default policy) in shadow mode over `unit`, `integration`,
/// `e2e`, `smoke`, the last with pass rate `smoke`: every layer runs, and the receipt of
/// its would-be exit after unit goes into `log`.
fn adr_shadow_run(dir: &Path, id: &str, smoke: &str, log: &Path) -> Value {
    let state = dir.join(format!("{id}.json"));
    let mut args = vec!["--json", "pyramid", "start", "--state", s(&state), "--mode", "shadow", "--run-id", id];
    for layer in ["unit=10", "integration=20", "e2e=30", "smoke=40"] {
        args.extend(["--layer", layer]);
    }
    let start = run(&args);
    assert_eq!(code(&start), 0, "{}", String::from_utf8_lossy(&start.stderr));
    for (layer, rate) in [("unit", "1"), ("integration", "1"), ("e2e", "1"), ("smoke", smoke)] {
        submit_layer(&state, layer, rate);
    }
    let result = run(&["--json", "pyramid", "result", "--state", s(&state), "--receipts", s(log)]);
    let expected = if smoke == "1" { 0 } else { 12 };
    assert_eq!(code(&result), expected, "{}", String::from_utf8_lossy(&result.stderr));
    json(&result)
}

#[test]
fn the_adr_runs_in_shadow_mode_from_the_command() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("receipts.jsonl");
    let green = adr_shadow_run(dir.path(), "g1", "1", &log);
    assert_eq!(green.get("layersExecuted").map(Value::to_json).as_deref(), Some("[0,1,2,3]"), "every layer ran");
    let receipt = green.get("shadow").and_then(|s| s.get("receipts")).map(Value::to_json).unwrap_or_default();
    for part in [r#""policy":"adr""#, r#""label":"correct_skip""#, r#""layer":0"#, r#""computeSavedMs":40"#] {
        assert!(receipt.contains(part), "{part} in {receipt}");
    }
    let red = adr_shadow_run(dir.path(), "r1", "0.5", &log);
    let receipt = red.get("shadow").and_then(|s| s.get("receipts")).map(Value::to_json).unwrap_or_default();
    assert!(receipt.contains(r#""label":"false_pass""#), "{receipt}");
    let check = json(&run(&["--json", "receipts", "verify", s(&log)]));
    assert_eq!(check.get("receipts").and_then(Value::as_f64), Some(2.0));
    let slices = check.get("slices").map(Value::to_json).unwrap_or_default();
    assert!(slices.contains(r#""slice":"adr""#), "{slices}");
}
