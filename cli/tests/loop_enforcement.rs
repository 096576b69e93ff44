//! `earlyexit loop record --policy ARTIFACT` enforces what the core's rule says: an artifact not
//! promoted enforces its calibration's most conservative policy, runs the calibrated one in
//! shadow and says why (stderr, once; the state file keeps it); `--shadow` beside it is refused
//! naming the flag; once `promote loops` has promoted it, the calibrated policy is enforced.

use std::path::Path;
use std::process::{Command, Output};

use earlyexit::Value;

mod support;
use support::code_field;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_earlyexit")).args(args).output().expect("the binary runs")
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn err(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn parse(text: &str) -> Value {
    Value::parse_json(text.trim(), earlyexit::ErrorCode::InvalidConfig, "").expect("JSON")
}

/// `n` runs from task `from`, good from the first iteration on (JSONL).
fn runs(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| {
            format!(
                r#"{{"id":"t{i}","dataset":"d","iterations":[{{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}},{{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}}]}}"#
            ) + "\n"
        })
        .collect()
}

fn record(state: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--json", "loop", "record", "--state", s(state), "--quality", "95", "--confidence", "0.99"];
    args.extend_from_slice(&["--verification", "passed"]);
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn an_unpromoted_artifact_is_enforced_conservatively_until_promote_loops() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, audit) = (dir.path().join("runs.jsonl"), dir.path().join("audit.jsonl"));
    std::fs::write(&corpus, runs(0, 150)).unwrap();
    std::fs::write(&audit, runs(150, 100)).unwrap();
    let (artifact, promoted) = (dir.path().join("a.json"), dir.path().join("p.json"));
    let cal = run(&["calibrate", "loops", s(&corpus), "--risk", "0.1", "--delta", "0.1", "--out", s(&artifact)]);
    assert_eq!(code(&cal), 0, "{}", err(&cal));
    let doc = parse(&std::fs::read_to_string(&artifact).unwrap());
    let Some(Value::Array(rows)) = doc.get("body").and_then(|b| b.get("frontier")) else { panic!("a frontier") };
    let conservative = rows[0].get("policy").unwrap().get("config").unwrap().clone();
    assert_ne!(doc.get("policy").and_then(|p| p.get("config")), Some(&conservative), "a policy past the first row");

    // Not promoted: the conservative config runs, the calibrated policy in shadow; the first
    // record already shows where the calibrated one would stop, and the loop goes on.
    let state = dir.path().join("loop.json");
    let first = record(&state, &["--policy", s(&artifact)]);
    assert_eq!(code(&first), 0, "{}", err(&first));
    let answer = parse(&String::from_utf8_lossy(&first.stdout));
    let would = answer.get("decision").and_then(|d| d.get("would_stop")).expect("the shadow fired");
    assert_eq!(would.get("iteration"), Some(&Value::Number(1.0)));
    let snapshot = parse(&std::fs::read_to_string(&state).unwrap());
    assert_eq!(
        snapshot.get("config").map(|c| c.get("highConfidenceThreshold")),
        Some(conservative.get("highConfidenceThreshold"))
    );
    let shadow = snapshot.get("shadow").expect("the calibrated policy in shadow");
    assert_eq!(shadow.get("policy").and_then(|p| p.get("config")), doc.get("policy").and_then(|p| p.get("config")));
    let reason = shadow.get("reason").and_then(Value::as_str).expect("a reason").to_string();
    assert!(reason.contains("not promoted"), "{reason}");
    assert_eq!(err(&first), format!("{reason}\n"), "said once, on stderr");
    let second = record(&state, &["--policy", s(&artifact)]);
    assert_eq!((code(&second), err(&second)), (0, String::new()));

    // Another shadow beside it: refused naming the flag, no state written.
    let fresh = dir.path().join("fresh.json");
    let refused = record(&fresh, &["--policy", s(&artifact), "--shadow", r#"{"preset": "recommended"}"#]);
    assert_eq!(code(&refused), 2, "{}", err(&refused));
    let (error, field) = code_field(&refused);
    assert_eq!((error.as_str(), field.as_str()), ("invalid_config", "shadow"), "{}", err(&refused));
    assert!(!fresh.exists());

    // Promoted on a disjoint audit split: the calibrated policy is enforced, nothing in shadow.
    let promote = run(&["promote", "loops", "--artifact", s(&artifact), "--out", s(&promoted), s(&audit)]);
    assert_eq!(code(&promote), 0, "{}", err(&promote));
    let enforced = dir.path().join("enforced.json");
    let out = record(&enforced, &["--policy", s(&promoted)]);
    assert_eq!(code(&out), 10, "the calibrated policy stops at once: {}", err(&out));
    assert_eq!(err(&out), "");
    let snapshot = parse(&std::fs::read_to_string(&enforced).unwrap());
    assert!(snapshot.get("shadow").is_none());
    assert_eq!(
        snapshot.get("config").and_then(|c| c.get("highConfidenceThreshold")),
        doc.get("policy").and_then(|p| p.get("config")).and_then(|c| c.get("highConfidenceThreshold"))
    );
    // A promoted artifact takes a shadow the caller gives.
    let with =
        record(&dir.path().join("with.json"), &["--policy", s(&promoted), "--shadow", r#"{"preset": "recommended"}"#]);
    assert_eq!(code(&with), 10, "{}", err(&with));
}
