//! Guardrails on loop calibration from the command: `calibrate loops` exits 14 when it
//! cannot certify (the artifact written all the same) unless `--allow-uncertified`;
//! `loop record --policy ARTIFACT` says once on stderr that an artifact certifies nothing;
//! `calibrate loops --plan` prints the core's plan.

mod support;

use std::path::Path;

use earlyexit::{Naming, Value};

use support::{parse_bytes, run, s, stderr};

/// The hand-checked calibration corpus (tests/vectors/replay/loop_calibration.json): its runs
/// as a JSONL file, and case `case`'s candidates as a JSON file; its risk and delta.
fn corpus(dir: &Path, case: usize, runs: usize) -> (String, String, String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/replay/loop_calibration.json");
    let doc = parse_bytes(&std::fs::read(path).expect("the vector file"));
    let Some(Value::Array(all)) = doc.get("runs") else { panic!("runs") };
    let lines: Vec<String> = all.iter().take(runs).map(Value::to_json).collect();
    let runs_file = dir.join(format!("runs-{runs}.jsonl"));
    std::fs::write(&runs_file, lines.join("\n")).expect("write runs");
    let Some(Value::Array(cases)) = doc.get("cases") else { panic!("cases") };
    let options = cases[case].get("options").expect("options");
    let candidates = dir.join(format!("candidates-{case}.json"));
    std::fs::write(&candidates, options.get("candidates").expect("candidates").to_json()).expect("write");
    let number = |k: &str| earlyexit::kit::num::to_js_string(options.get(k).and_then(Value::as_f64).expect("number"));
    (s(&runs_file).to_string(), s(&candidates).to_string(), number("risk"), number("delta"))
}

#[test]
fn an_uncertified_calibration_exits_14_and_keeps_the_artifact() {
    let dir = tempfile::tempdir().expect("tmp");
    // Case 1: too few tasks at risk 0.01; case 0: certified at risk 0.05.
    let (runs, candidates, risk, delta) = corpus(dir.path(), 1, 100);
    let out_file = dir.path().join("uncertified.json");
    let args = ["calibrate", "loops", &runs, "--candidates", &candidates, "--risk", &risk, "--delta", &delta];
    let out = run(&[&args[..], &["--out", s(&out_file)]].concat());
    assert_eq!(out.status.code(), Some(14), "{}", stderr(&out));
    assert!(stderr(&out).contains("not certified (too_few_runs)"), "{}", stderr(&out));
    let artifact = parse_bytes(&std::fs::read(&out_file).expect("the artifact is written all the same"));
    assert_eq!(artifact.get("body").and_then(|b| b.get("certified")), Some(&Value::Bool(false)));

    // Printed on stdout without --out, still exit 14; --allow-uncertified exits 0.
    let printed = run(&args);
    assert_eq!(printed.status.code(), Some(14));
    assert_eq!(parse_bytes(&printed.stdout).get("kind").and_then(Value::as_str), Some("loop"));
    let allowed = run(&[&args[..], &["--allow-uncertified", "--out", s(&dir.path().join("again.json"))]].concat());
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert_eq!(stderr(&allowed), "");

    let (runs, candidates, risk, delta) = corpus(dir.path(), 0, 100);
    let certified = dir.path().join("certified.json");
    let out = run(&[
        "calibrate",
        "loops",
        &runs,
        "--candidates",
        &candidates,
        "--risk",
        &risk,
        "--delta",
        &delta,
        "--out",
        s(&certified),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");

    // A loop set up from the uncertified artifact says so once, on stderr: the core's notice.
    let notice = earlyexit::kit::loops::replay::uncertified_notice(&artifact).expect("a notice");
    assert!(notice.contains("too_few_runs"), "{notice}");
    let state = dir.path().join("loop.json");
    let record = |extra: &[&str]| {
        let mut a = vec!["--json", "loop", "record", "--state", s(&state), "--quality", "50", "--confidence", "0.5"];
        a.extend_from_slice(&["--verification", "failed"]);
        a.extend_from_slice(extra);
        run(&a)
    };
    // Not promoted either: the reason its calibrated policy runs in shadow follows, once.
    let reason = earlyexit::loops::replay::enforced_from_artifact(&artifact, now_ms(), &earlyexit_digest::Sha256Hasher)
        .expect("enforced")
        .shadow_reason()
        .expect("a reason")
        .to_string();
    assert!(reason.contains("not promoted"), "{reason}");
    let first = record(&["--policy", s(&out_file)]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(stderr(&first), format!("{notice}\n{reason}\n"));
    let second = record(&["--policy", s(&out_file)]);
    assert_eq!((second.status.code(), stderr(&second)), (Some(0), String::new()));
    let quiet = run(&[
        "loop",
        "record",
        "--state",
        s(&dir.path().join("certified-loop.json")),
        "--policy",
        s(&certified),
        "--quality",
        "50",
        "--confidence",
        "0.5",
        "--verification",
        "failed",
    ]);
    // A certified artifact loads without the notice; unpromoted, it still says why its
    // calibrated policy runs in shadow.
    assert_eq!((quiet.status.code(), stderr(&quiet)), (Some(0), format!("{reason}\n")));
}

#[test]
fn the_plan_is_the_cores_and_reads_no_runs() {
    let out = run(&["--json", "calibrate", "loops", "--plan"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = parse_bytes(&out.stdout);
    assert_eq!(plan, earlyexit::kit::loops::replay::calibration_plan_value(&Value::Null, Naming::Js).expect("plan"));
    assert_eq!(plan.get("minimumToCertify").and_then(Value::as_f64), Some(91.0));

    let out = run(&["calibrate", "loops", "--plan", "--risk", "0.05", "--delta", "0.05"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("risk 0.05 at delta 0.05") && text.contains("59"), "{text}");

    for (flag, value) in [("--risk", "0"), ("--risk", "1e-17"), ("--delta", "1.5"), ("--risk", "abc")] {
        let out = run(&["--json", "calibrate", "loops", "--plan", flag, value]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let error = parse_bytes(&out.stderr);
        let error = error.get("error").expect("error");
        assert_eq!(error.get("code").and_then(Value::as_str), Some("invalid_config"));
        assert_eq!(error.get("field").and_then(Value::as_str), Some(&flag[2..]));
        assert_eq!(error.get("flag").and_then(Value::as_str), Some(flag));
    }
    // --plan reads no runs: a file with it is a usage error.
    assert_eq!(run(&["calibrate", "loops", "--plan", "runs.jsonl"]).status.code(), Some(2));
}

/// This machine's clock, as the command reads it.
fn now_ms() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("a clock after 1970");
    i64::try_from(since.as_millis()).expect("a clock before 2^63 ms")
}
