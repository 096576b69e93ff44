//! The receipt log as the command writes it: a retried `pyramid result --receipts` appends a
//! run's receipt once, with no blank lines, and writes nothing when there is nothing to write;
//! `receipts verify` refuses a receipt that contradicts itself; and pyramid replay totals
//! never overflow to a `null` in the JSON.

mod support;

use std::path::Path;
use std::process::Output;

use earlyexit::Value;

use support::{code, finished_shadow_run, json, run, s};

fn result(state: &Path, log: &Path) -> Output {
    run(&["--json", "pyramid", "result", "--state", s(state), "--receipts", s(log)])
}

#[test]
fn a_retried_result_step_appends_the_receipt_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("receipts.jsonl");
    let state = finished_shadow_run(dir.path(), "build-41", "0.5");
    for _ in 0..3 {
        assert_eq!(code(&result(&state, &log)), 12, "the build is red");
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 1, "{text:?}");
    assert!(text.ends_with('\n') && !text.contains("\n\n"), "{text:?}");
    let other = finished_shadow_run(dir.path(), "build-42", "0.5");
    assert_eq!(code(&result(&other, &log)), 12);
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 2, "{text:?}");
    assert!(!text.contains("\n\n"), "{text:?}");
    let verify = run(&["--json", "receipts", "verify", s(&log)]);
    assert_eq!(code(&verify), 0, "{}", String::from_utf8_lossy(&verify.stderr));
    let check = json(&verify);
    assert_eq!(check.get("receipts").and_then(Value::as_f64), Some(2.0));
    assert_eq!(check.get("repeated").and_then(Value::as_f64), Some(0.0));
}

#[test]
fn a_run_without_a_receipt_writes_nothing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("receipts.jsonl");
    // Every layer passes: fail_fast never exits early, so there is no receipt.
    let state = finished_shadow_run(dir.path(), "green", "1");
    let out = result(&state, &log);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!log.exists(), "no log is created for nothing");
    // An existing log is left byte for byte.
    let red = finished_shadow_run(dir.path(), "red", "0.5");
    assert_eq!(code(&result(&red, &log)), 12);
    let before = std::fs::read(&log).unwrap();
    assert_eq!(code(&result(&state, &log)), 0);
    assert_eq!(std::fs::read(&log).unwrap(), before);
}

#[test]
fn verify_breaks_at_a_receipt_that_contradicts_itself() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("receipts.jsonl");
    let state = finished_shadow_run(dir.path(), "build-41", "0.5");
    assert_eq!(code(&result(&state, &log)), 12);
    // The line states its label twice; the hash covers the last (the real) one.
    let text = std::fs::read_to_string(&log).unwrap();
    let forged =
        text.replacen("\"label\":\"needless_run\"", "\"label\":\"correct_skip\",\"label\":\"needless_run\"", 1);
    assert_ne!(forged, text);
    std::fs::write(&log, &forged).unwrap();
    let verify = run(&["--json", "receipts", "verify", s(&log)]);
    assert_eq!(code(&verify), 12, "{}", String::from_utf8_lossy(&verify.stdout));
    let reason =
        json(&verify).get("brokenAt").and_then(|b| b.get("reason")).and_then(Value::as_str).map(str::to_string);
    assert!(reason.as_deref().is_some_and(|r| r.contains("'label' repeated")), "{reason:?}");
    // Nothing is appended to it.
    let other = finished_shadow_run(dir.path(), "build-42", "0.5");
    let out = result(&other, &log);
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), forged);
}

#[test]
fn pyramid_replay_totals_that_would_overflow_are_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let runs = dir.path().join("runs.jsonl");
    let line = r#"{"layers":[{"name":"a","durationMs":1e308,"failed":false}]}"#;
    std::fs::write(&runs, format!("{line}\n{line}\n")).unwrap();
    let out = run(&["--json", "replay", "pyramids", s(&runs)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(&out), 2, "{err} {}", String::from_utf8_lossy(&out.stdout));
    assert!(err.contains("invalid_replay") && err.contains("runs[1].layers") && err.contains("running total"), "{err}");
    // One such run replays, its total finite.
    std::fs::write(&runs, format!("{line}\n")).unwrap();
    let out = run(&["--json", "replay", "pyramids", s(&runs)]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let total = json(&out).get("summary").and_then(|s| s.get("totalMs")).and_then(Value::as_f64);
    assert_eq!(total, Some(1e308));
}
