//! `earlyexit loop record --fingerprint TEXT --done`: the progress signals from a shell loop,
//! a bad fingerprint refused before anything is written, and the quality delta a record
//! without `--delta` gets: the core's one rule.

mod support;

use std::path::Path;
use std::process::Output;

use earlyexit::{EarlyStopping, Value};

use support::{parse_bytes, run, s};

fn record(state: &Path, q: &str, extra: &[&str]) -> Output {
    let mut args = vec!["--json", "loop", "record", "--state", s(state), "--quality", q, "--confidence", "0.5"];
    args.extend_from_slice(&["--verification", "failed"]);
    args.extend_from_slice(extra);
    run(&args)
}

fn trigger(out: &Output) -> String {
    let doc = parse_bytes(&out.stdout);
    doc.get("decision").and_then(|d| d.get("trigger")).and_then(Value::as_str).unwrap_or("").to_string()
}

#[test]
fn fingerprints_stop_an_unchanged_loop_and_done_stops_on_completion() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("loop.json");
    let policy = r#"{"any":[{"condition":"unchanged","k":2},{"condition":"revisit","window":3}]}"#;
    let first = record(&state, "50", &["--fingerprint", "A", "--policy", policy]);
    assert_eq!(first.status.code(), Some(0));
    let second = record(&state, "55", &["--fingerprint", "A"]);
    assert_eq!(second.status.code(), Some(0));
    let third = record(&state, "60", &["--fingerprint", "A"]);
    assert_eq!((third.status.code(), trigger(&third)), (Some(10), "unchanged".to_string()));
    let kept = std::fs::read_to_string(&state).expect("state");
    assert!(kept.contains(r#""fingerprint":"A""#), "{kept}");

    // A, B, A: a revisit.
    let state = dir.path().join("revisit.json");
    record(&state, "50", &["--fingerprint", "A", "--policy", policy]);
    record(&state, "55", &["--fingerprint", "B"]);
    let back = record(&state, "60", &["--fingerprint", "A"]);
    assert_eq!((back.status.code(), trigger(&back)), (Some(10), "revisit".to_string()));

    // --done records completed: true; the completed condition stops on it.
    let state = dir.path().join("done.json");
    let go_on =
        record(&state, "40", &["--policy", r#"{"any":["completed",{"condition":"max_iterations","limit":20}]}"#]);
    assert_eq!(go_on.status.code(), Some(0));
    let done = record(&state, "45", &["--done"]);
    assert_eq!((done.status.code(), trigger(&done)), (Some(10), "completed".to_string()));
    let kept = std::fs::read_to_string(&state).expect("state");
    assert!(kept.contains(r#""completed":true"#), "{kept}");
    assert_eq!(kept.matches(r#""completed":"#).count(), 1, "only the iteration marked done: {kept}");
}

#[test]
fn a_fingerprint_over_256_characters_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let long = "x".repeat(257);
    // A new state file: nothing is created, not even the lock file.
    let fresh = dir.path().join("fresh.json");
    let out = record(&fresh, "50", &["--fingerprint", &long]);
    assert_eq!(out.status.code(), Some(2));
    let error = parse_bytes(&out.stderr);
    let error = error.get("error").expect("error");
    assert_eq!(error.get("code").and_then(Value::as_str), Some("invalid_result"));
    assert_eq!(error.get("field").and_then(Value::as_str), Some("fingerprint"));
    assert_eq!(error.get("flag").and_then(Value::as_str), Some("--fingerprint"));
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);

    // An existing one: byte for byte as it was. 256 characters are fine.
    let state = dir.path().join("loop.json");
    assert_eq!(record(&state, "50", &["--fingerprint", &"y".repeat(256)]).status.code(), Some(0));
    let before = std::fs::read(&state).expect("state");
    let out = record(&state, "60", &["--fingerprint", &long]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&state).expect("state"), before);
    // Multi-byte characters count as characters, not bytes.
    assert_eq!(record(&state, "60", &["--fingerprint", &"é".repeat(256)]).status.code(), Some(0));
}

#[test]
fn the_implied_delta_is_the_cores() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("loop.json");
    // Out of order on purpose (strictIterations off): the delta is taken from the latest
    // record before the iteration, not from the last one recorded.
    let steps: [(&str, &str); 4] = [("1", "50"), ("2", "72.5"), ("5", "61"), ("3", "80")];
    let mut library = EarlyStopping::new(earlyexit::EarlyStoppingConfig::default()).expect("engine");
    for (iteration, q) in steps {
        let out = record(&state, q, &["--iteration", iteration, "--no-strict-iterations"]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let it: u64 = iteration.parse().expect("n");
        let quality: f64 = q.parse().expect("q");
        let expected = library.implied_quality_delta(Some(it), quality);
        let result = Value::object(vec![
            ("quality_score", Value::Number(quality)),
            ("confidence", Value::Number(0.5)),
            ("verification_status", Value::string("failed")),
            ("quality_delta", Value::Number(expected)),
        ]);
        library.record_value(&Value::Number(it as f64), &result, earlyexit::Naming::Js, String::new).expect("record");
        let snapshot = parse_bytes(&std::fs::read(&state).expect("state"));
        let Some(Value::Array(history)) = snapshot.get("history") else { panic!("history") };
        let last = history.last().expect("a record");
        assert_eq!(last.get("quality_delta").and_then(Value::as_f64), Some(expected), "iteration {iteration}");
    }
    // 80 at iteration 3 follows iteration 2's 72.5, not iteration 5's 61.
    assert_eq!(library.implied_quality_delta(Some(3), 80.0), 7.5);
}
