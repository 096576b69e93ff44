//! `earlyexit loop record --shadow` and `earlyexit loop finish --good`: the candidate decides
//! beside the loop's policy (the decision's would_stop), the state file keeps it, and the
//! receipt is appended to a log that `receipts verify` counts by label.

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

const AT_TWO: &str = r#"{"any": [{"condition": "max_iterations", "limit": 2}]}"#;
const CAPPED: &str = r#"{"preset": "recommended", "config": {"maxIterations": 3}}"#;

fn record(state: &Path, quality: &str, verification: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "--json",
        "loop",
        "record",
        "--state",
        s(state),
        "--quality",
        quality,
        "--confidence",
        "0.5",
        "--verification",
        verification,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn a_shadow_run_gives_a_receipt_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let (state, log) = (dir.path().join("loop.json"), dir.path().join("receipts.jsonl"));
    let first = record(&state, "40", "failed", &["--policy", CAPPED, "--shadow", AT_TWO]);
    assert_eq!(code(&first), 0, "{}", String::from_utf8_lossy(&first.stderr));
    assert!(json(&first).get("decision").and_then(|d| d.get("would_stop")).is_none());
    let second = record(&state, "50", "failed", &[]);
    assert_eq!(code(&second), 0);
    let would = json(&second).get("decision").and_then(|d| d.get("would_stop")).cloned().expect("fired");
    assert_eq!(would.get("iteration"), Some(&Value::Number(2.0)));
    // The same shadow again is fine; another one is refused.
    let third = record(&state, "60", "passed", &["--shadow", AT_TWO]);
    assert_eq!(code(&third), 10, "the enforced cap stops at 3");
    let other = record(&state, "70", "passed", &["--shadow", "\"seed\""]);
    assert_eq!(code(&other), 2, "{}", String::from_utf8_lossy(&other.stderr));

    let finish = |id: &str| {
        run(&["--json", "loop", "finish", "--state", s(&state), "--run-id", id, "--task", "t-1", "--receipts", s(&log)])
    };
    let out = finish("run-1");
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let receipt = json(&out).get("receipt").cloned().unwrap();
    assert_eq!(receipt.get("label").and_then(Value::as_str), Some("premature_stop"));
    assert_eq!(receipt.get("iterationsSaved"), Some(&Value::Number(1.0)));
    assert_eq!(json(&finish("run-1")).get("appended"), Some(&Value::Number(0.0)), "a retry appends nothing");
    let verify = run(&["--json", "receipts", "verify", s(&log)]);
    assert_eq!(code(&verify), 0, "{}", String::from_utf8_lossy(&verify.stderr));
    let report = json(&verify);
    assert_eq!(report.get("labels").and_then(|l| l.get("premature_stop")), Some(&Value::Number(1.0)));
}

#[test]
fn a_shadow_without_a_cap_or_of_the_wrong_kind_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("loop.json");
    let out = record(&state, "40", "failed", &["--shadow", AT_TWO]);
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shadow"));
    assert!(!state.exists());
    let pyramid = dir.path().join("pyramid.json");
    std::fs::write(&pyramid, r#"{"kind": "pyramid", "schemaVersion": 2}"#).unwrap();
    let out = record(&state, "40", "failed", &["--policy", CAPPED, "--shadow", s(&pyramid)]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("kind"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(&["loop", "finish", "--state", s(&state), "--good", "maybe"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn promote_and_drift_loops_refuse_the_other_kind_and_an_overlapping_audit() {
    let dir = tempfile::tempdir().unwrap();
    let line = |i: usize| {
        format!(
            r#"{{"id":"t{i}","iterations":[{{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}}]}}"#
        )
    };
    let (cal, audit, overlap) =
        (dir.path().join("cal.jsonl"), dir.path().join("audit.jsonl"), dir.path().join("o.jsonl"));
    std::fs::write(&cal, (0..60).map(line).collect::<Vec<_>>().join("\n")).unwrap();
    std::fs::write(&audit, (60..120).map(line).collect::<Vec<_>>().join("\n")).unwrap();
    std::fs::write(&overlap, (50..70).map(line).collect::<Vec<_>>().join("\n")).unwrap();
    let artifact = dir.path().join("artifact.json");
    let out = run(&["calibrate", "loops", s(&cal), "--risk", "0.1", "--delta", "0.1", "--out", s(&artifact)]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let promoted = dir.path().join("promoted.json");
    let out = run(&["--json", "promote", "loops", "--artifact", s(&artifact), "--out", s(&promoted), s(&audit)]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(json(&out).get("promoted"), Some(&Value::Bool(true)));
    let out = run(&["--json", "drift", "loops", "--artifact", s(&promoted), s(&audit)]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    let out = run(&["--json", "promote", "loops", "--artifact", s(&artifact), s(&overlap)]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("auditRuns"));
    let pyramid = dir.path().join("pyramid.json");
    std::fs::write(&pyramid, r#"{"kind":"pyramid","schemaVersion":2}"#).unwrap();
    let out = run(&["--json", "drift", "loops", "--artifact", s(&pyramid), s(&audit)]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("kind"));
}
