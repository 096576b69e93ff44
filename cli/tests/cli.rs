//! The `earlyexit` binary end to end: exit codes, state files, JSON byte-identical to the
//! library's, JUnit reading, concurrency, and the docs naming every flag `--help` lists.

mod support;

use std::path::Path;
use std::process::Output;

use earlyexit::{EarlyStopping, EarlyStoppingConfig, Naming, PyramidRun, Value};

use support::{bin, code, code_field, data, parse, run, s, stderr_json, stdout, tmp};

fn record(state: &Path, q: &str, extra: &[&str]) -> Output {
    let mut args = vec!["--json", "loop", "record", "--state", s(state), "--quality", q, "--confidence", "0.82"];
    args.extend_from_slice(&["--verification", "passed"]);
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn loop_record_decides_as_the_library_and_exits_with_the_decision() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let mut engine =
        EarlyStopping::new(EarlyStoppingConfig { strict_iterations: Some(true), ..EarlyStoppingConfig::default() })
            .unwrap();
    let scores = [62.0, 71.0, 74.5, 75.0, 75.2];
    for (i, q) in scores.iter().enumerate() {
        let delta = if i == 0 { 0.0 } else { q - scores[i - 1] };
        let out = record(&state, &q.to_string(), &["--delta", &delta.to_string()]);
        let result = Value::object(vec![
            ("quality_score", Value::Number(*q)),
            ("confidence", Value::Number(0.82)),
            ("verification_status", Value::string("passed")),
            ("quality_delta", Value::Number(delta)),
        ]);
        engine.record_value(&Value::Number(i as f64 + 1.0), &result, Naming::Js, String::new).unwrap();
        let decision = engine.should_stop();
        let got = parse(&stdout(&out));
        assert_eq!(got.get("decision").unwrap().to_json(), decision.to_value().to_json(), "iteration {}", i + 1);
        assert_eq!(code(&out), if decision.stop { 10 } else { 0 });
    }
    // The state file is the library's snapshot: it restores to the same history.
    let text = std::fs::read_to_string(&state).unwrap();
    let restored = EarlyStopping::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap();
    assert_eq!(restored.history().len(), 5);
    assert_eq!(restored.config(), engine.config());
}

#[test]
fn strict_iterations_by_default_and_off_on_request() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    for q in ["60", "70"] {
        assert_eq!(code(&record(&state, q, &[])), 0);
    }
    // The same iteration again with the same fields: accepted, changes nothing, says so.
    let before = std::fs::read_to_string(&state).unwrap();
    let out = record(&state, "70", &["--iteration", "2"]);
    assert_eq!(code(&out), 0);
    assert_eq!(parse(&stdout(&out)).get("duplicate").and_then(Value::as_bool), Some(true));
    let after = std::fs::read_to_string(&state).unwrap();
    let history = |t: &str| earlyexit::snapshot::parse(t).unwrap().get("history").unwrap().to_json();
    assert_eq!(history(&before), history(&after));
    // An earlier iteration, or the last one with another result: invalid_iteration, exit 2.
    for (q, it) in [("50", "1"), ("71", "2")] {
        let out = record(&state, q, &["--iteration", it]);
        assert_eq!(code(&out), 2);
        assert_eq!(code_field(&out), ("invalid_iteration".into(), "iteration".into()));
        assert_eq!(std::fs::read_to_string(&state).unwrap(), after, "a refused record leaves the state as it was");
    }
    // Turned off for a new state file, a repeated number is a new record.
    let loose = dir.path().join("loose.json");
    assert_eq!(code(&record(&loose, "60", &["--no-strict-iterations"])), 0);
    let out = record(&loose, "60", &["--iteration", "1"]);
    assert_eq!(code(&out), 0);
    assert_eq!(parse(&stdout(&out)).get("duplicate").and_then(Value::as_bool), Some(false));
}

#[test]
fn bad_flags_name_the_core_field_and_change_nothing() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let cases: [(&[&str], &str, &str); 4] = [
        (&["--quality", "150", "--confidence", "1", "--verification", "passed"], "invalid_result", "quality_score"),
        (&["--quality", "abc", "--confidence", "1", "--verification", "passed"], "invalid_result", "quality_score"),
        (&["--quality", "50", "--confidence", "1", "--verification", "maybe"], "invalid_result", "verification_status"),
        (
            &["--quality", "50", "--confidence", "1", "--verification", "passed", "--preset", "fast"],
            "invalid_config",
            "preset",
        ),
    ];
    for (flags, code_name, field) in cases {
        let mut args = vec!["--json", "loop", "record", "--state", s(&state)];
        args.extend_from_slice(flags);
        let out = run(&args);
        assert_eq!(code(&out), 2, "{flags:?}");
        assert_eq!(code_field(&out), (code_name.to_string(), field.to_string()), "{flags:?}");
        assert!(!state.exists(), "no state file for a refused first record");
    }
    // Usage errors (clap) exit 2 too, as JSON with --json.
    let out = run(&["--json", "loop", "record", "--state", s(&state)]);
    assert_eq!(code(&out), 2);
    assert_eq!(code_field(&out).0, "usage");
}

#[test]
fn corrupt_or_truncated_state_is_reported_and_left_untouched() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    record(&state, "60", &[]);
    let good = std::fs::read_to_string(&state).unwrap();
    for broken in [&good[..good.len() / 2], "{\"version\": 1, \"engine\": \"PyramidRun\"}", ""] {
        std::fs::write(&state, broken).unwrap();
        let out = record(&state, "70", &[]);
        assert_eq!(code(&out), 2, "{broken:?}");
        assert_eq!(code_field(&out).0, "invalid_snapshot");
        assert_eq!(std::fs::read_to_string(&state).unwrap(), broken, "never overwritten");
    }
}

#[test]
fn concurrent_records_lose_nothing() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let writers = 16;
    let children: Vec<_> = (0..writers)
        .map(|i| {
            bin()
                .args(["--json", "loop", "record", "--state", s(&state), "--quality", &format!("{}", 10 + i)])
                .args(["--confidence", "0.5", "--verification", "failed", "--no-strict-iterations"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        let status = child.wait().unwrap().code();
        assert!(matches!(status, Some(0 | 10)), "a record ends with go on or stop, got {status:?}");
    }
    let text = std::fs::read_to_string(&state).unwrap();
    let engine = EarlyStopping::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap();
    assert_eq!(engine.history().len(), writers, "every parallel record is in the state");
    let numbers: Vec<u64> = engine.history().iter().map(|r| r.observation.iteration).collect();
    assert_eq!(numbers, (1..=writers as u64).collect::<Vec<_>>(), "each saw the one before it");
}

#[test]
fn status_best_reset() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    for q in ["60", "80", "70"] {
        record(&state, q, &[]);
    }
    let out = run(&["--json", "loop", "best", "--state", s(&state)]);
    assert_eq!(code(&out), 0);
    let best = parse(&stdout(&out));
    assert_eq!(best.get("best_iteration").and_then(Value::as_f64), Some(2.0));
    assert_eq!(best.get("record").and_then(|r| r.get("quality_score")).and_then(Value::as_f64), Some(80.0));
    let out = run(&["--json", "loop", "status", "--state", s(&state)]);
    assert_eq!(parse(&stdout(&out)).get("total_iterations").and_then(Value::as_f64), Some(3.0));
    assert_eq!(code(&run(&["loop", "reset", "--state", s(&state)])), 0);
    let out = run(&["--json", "loop", "best", "--state", s(&state)]);
    assert_eq!(parse(&stdout(&out)).get("best_iteration"), Some(&Value::Null));
    // A missing state file is bad input.
    assert_eq!(code(&run(&["loop", "status", "--state", s(&dir.path().join("none.json"))])), 2);
}

fn pyramid(state: &Path, args: &[&str]) -> Output {
    let mut all = vec!["--json", "pyramid"];
    all.extend_from_slice(&args[..1]);
    all.extend_from_slice(&["--state", s(state)]);
    all.extend_from_slice(&args[1..]);
    run(&all)
}

#[test]
fn pyramid_steps_and_result_match_the_library() {
    let dir = tmp();
    let state = dir.path().join("pyramid.json");
    let out = pyramid(
        &state,
        &[
            "start",
            "--layer",
            "unit=2000",
            "--layer",
            "integration=30000",
            "--layer",
            "contract=45000",
            "--layer",
            "e2e=240000",
        ],
    );
    assert_eq!((code(&out), stdout(&out)), (0, r#"{"action":"run","layer":0,"name":"unit"}"#.to_string()));
    // Starting again over an existing run needs --force.
    assert_eq!(code(&pyramid(&state, &["start", "--layer", "x"])), 2);
    let results = [("1", "0.93", "0"), ("0.995", "0.9", "0.01"), ("1", "0.88", "0")];
    let layers = Value::parse_json(
        r#"[{"name":"unit","costMs":2000},{"name":"integration","costMs":30000},{"name":"contract","costMs":45000},{"name":"e2e","costMs":240000}]"#,
        earlyexit::ErrorCode::InvalidConfig,
        "",
    )
    .unwrap();
    let mut library = PyramidRun::start_value(&Value::Null, &Value::Number(4.0), &layers, Naming::Js).unwrap();
    let mut codes = Vec::new();
    for (i, (p, c, f)) in results.iter().enumerate() {
        let layer = i.to_string();
        let out = pyramid(&state, &["submit", &layer, "--pass-rate", p, "--coverage", c, "--flaky", f]);
        codes.push(code(&out));
        let result = Value::object(vec![
            ("passRate", Value::Number(p.parse().unwrap())),
            ("coverage", Value::Number(c.parse().unwrap())),
            ("flakyRatio", Value::Number(f.parse().unwrap())),
        ]);
        library.submit_value(&Value::Number(i as f64), &result, Naming::Js).unwrap();
    }
    assert_eq!(codes, [11, 11, 10], "verify, verify, done");
    let out = pyramid(&state, &["next"]);
    assert_eq!(code(&out), 10);
    let out = pyramid(&state, &["result"]);
    assert_eq!(stdout(&out), library.result_value(Naming::Js).unwrap().to_json());
    assert_eq!(code(&out), 12, "verdict failed: integration passed 99.5%");
    // Out of turn: invalid_step, state unchanged.
    let before = std::fs::read_to_string(&state).unwrap();
    let out = pyramid(&state, &["submit", "3", "--pass-rate", "1", "--coverage", "1", "--flaky", "0"]);
    assert_eq!((code(&out), code_field(&out).0), (2, "invalid_step".to_string()));
    assert_eq!(std::fs::read_to_string(&state).unwrap(), before);
}

#[test]
fn pyramid_result_exit_codes_follow_the_verdict() {
    let dir = tmp();
    let state = dir.path().join("p.json");
    // Two green layers, no exit (exitLayer 1 of 2 with the default preset): passed, exit 0.
    pyramid(&state, &["start", "--layer", "a", "--layer", "b"]);
    pyramid(&state, &["submit", "a", "--pass-rate", "1", "--coverage", "1", "--flaky", "0"]);
    pyramid(&state, &["submit", "b", "--pass-rate", "1", "--coverage", "1", "--flaky", "0"]);
    let out = pyramid(&state, &["result"]);
    assert_eq!(parse(&stdout(&out)).get("verdict").and_then(Value::as_str), Some("passed"));
    assert_eq!(code(&out), 0);
    // The aggressive preset exits after a green first layer and verifies one of three: unverified.
    let state = dir.path().join("u.json");
    pyramid(
        &state,
        &["start", "--preset", "aggressive", "--layer", "a", "--layer", "b", "--layer", "c", "--layer", "d"],
    );
    let mut out = pyramid(&state, &["submit", "0", "--pass-rate", "1", "--coverage", "1", "--flaky", "0"]);
    while code(&out) == 0 || code(&out) == 11 {
        let next = parse(&stdout(&out));
        let layer = next.get("next").and_then(|n| n.get("layer")).and_then(Value::as_f64).unwrap();
        out = pyramid(&state, &["submit", &layer.to_string(), "--pass-rate", "1", "--coverage", "1", "--flaky", "0"]);
    }
    let out = pyramid(&state, &["result"]);
    assert_eq!(parse(&stdout(&out)).get("verdict").and_then(Value::as_str), Some("unverified"));
    assert_eq!(code(&out), 13);
    assert_eq!(code(&pyramid(&state, &["result", "--allow-unverified"])), 0);
}

#[test]
fn junit_reports_become_layer_results() {
    let dir = tmp();
    let state = dir.path().join("p.json");
    pyramid(&state, &["start", "--layer", "unit", "--layer", "e2e"]);
    let out = pyramid(
        &state,
        &["submit", "unit", "--junit", &data("surefire-flaky.xml"), "--coverage-xml", &data("cobertura.xml")],
    );
    let doc = parse(&stdout(&out));
    let result = doc.get("result").unwrap();
    assert_eq!(
        result.to_json(),
        r#"{"passRate":0.75,"coverage":0.85,"flakyRatio":0.25,"durationMs":3250,"total":4,"passed":3,"failed":1,"flaky":1,"skipped":1}"#
    );
    // Malformed, empty, not JUnit, nothing executed: invalid_layer_result, state unchanged.
    let before = std::fs::read_to_string(&state).unwrap();
    for (file, field) in [
        ("truncated.xml", "junit[0]"),
        ("empty.xml", "junit[0]"),
        ("not-junit.xml", "junit[0]"),
        ("only-skipped.xml", "junit"),
    ] {
        let out = pyramid(&state, &["submit", "e2e", "--junit", &data(file)]);
        assert_eq!(code(&out), 2, "{file}");
        assert_eq!(code_field(&out), ("invalid_layer_result".to_string(), field.to_string()), "{file}");
        assert_eq!(std::fs::read_to_string(&state).unwrap(), before);
    }
    let out = pyramid(
        &state,
        &["submit", "e2e", "--junit", &data("surefire-flaky.xml"), "--coverage-xml", &data("surefire-flaky.xml")],
    );
    assert_eq!(code_field(&out), ("invalid_layer_result".to_string(), "coverage_xml".to_string()));
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

fn loop_runs(n: usize) -> Vec<String> {
    (0..n)
        .map(|r| {
            let its: Vec<String> = (0..(1 + r % 11))
                .map(|i| {
                    let q = ((r * 17 + i * 29) % 101) as f64;
                    let status = if q > 85.0 { "passed" } else { "failed" };
                    format!(r#"{{"quality_score":{q},"confidence":{},"verification_status":"{status}"}}"#, q / 100.0)
                })
                .collect();
            format!(r#"{{"id":"r{r}","iterations":[{}]}}"#, its.join(","))
        })
        .collect()
}

fn pyramid_runs(n: usize) -> Vec<String> {
    (0..n)
        .map(|r| {
            let layers: Vec<String> = (0..4)
                .map(|j| {
                    format!(
                        r#"{{"name":"l{j}","durationMs":{},"failed":{}}}"#,
                        100 * (j + 1),
                        (r * 7 + j * 3) % 13 == 0
                    )
                })
                .collect();
            format!(r#"{{"id":"p{r}","layers":[{}]}}"#, layers.join(","))
        })
        .collect()
}

#[test]
fn replay_json_is_the_library_document_over_several_files() {
    let dir = tmp();
    let runs = loop_runs(60);
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    write_lines(&a, &runs[..25]);
    write_lines(&b, &runs[25..]);
    let whole = runs.join("\n");
    for policy in ["seed", "recommended"] {
        let out = run(&["--json", "replay", "loops", s(&a), s(&b), "--policy", policy]);
        assert_eq!(code(&out), 0);
        let library = earlyexit::kit::loops::replay::replay_value(
            &Value::string(whole.clone()),
            &Value::string(policy),
            Naming::Js,
        );
        assert_eq!(stdout(&out), library.unwrap().to_json(), "policy {policy}");
    }
    let runs = pyramid_runs(80);
    write_lines(&a, &runs[..30]);
    write_lines(&b, &runs[30..]);
    let whole = runs.join("\n");
    for policy in ["default", "fail_fast", "risk_bounded"] {
        let out = run(&["--json", "replay", "pyramids", s(&a), s(&b), "--policy", policy]);
        let options = Value::object(vec![("policy", Value::string(policy))]);
        let library =
            earlyexit::kit::pyramid::replay::replay_value(&Value::string(whole.clone()), &options, Naming::Js);
        assert_eq!(stdout(&out), library.unwrap().to_json(), "policy {policy}");
    }
    let model = dir.path().join("model.json");
    let out = run(&[
        "--json",
        "calibrate",
        "pyramids",
        s(&a),
        s(&b),
        "--risk",
        "0.2",
        "--delta",
        "0.2",
        "--model-out",
        s(&model),
    ]);
    let options = Value::object(vec![("risk", Value::Number(0.2)), ("delta", Value::Number(0.2))]);
    let library =
        earlyexit::kit::pyramid::replay::calibrate_value(&Value::string(whole), &options, Naming::Js).unwrap();
    assert_eq!(stdout(&out), library.to_json());
    assert_eq!(std::fs::read_to_string(&model).unwrap().trim_end(), library.get("model").unwrap().to_json());
}

#[test]
fn replay_errors_name_the_file_run_and_line_and_print_nothing() {
    let dir = tmp();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    write_lines(&a, &loop_runs(3));
    std::fs::write(&b, "\n{\"id\": \"x\", \"iterations\": []}\n").unwrap();
    let out = run(&["--json", "replay", "loops", s(&a), s(&b)]);
    assert_eq!(code(&out), 2);
    assert!(out.stdout.is_empty(), "no partial document");
    let e = stderr_json(&out);
    let e = e.get("error").unwrap();
    assert_eq!(e.get("field").and_then(Value::as_str), Some("runs[3].iterations"));
    assert_eq!(e.get("file").and_then(Value::as_str), Some(s(&b)));
    assert!(e.get("message").and_then(Value::as_str).unwrap().starts_with("runs[3] (line 2): "));
    let out = run(&["--json", "calibrate", "pyramids", s(&a), "--risk", "2", "--delta", "0.1"]);
    assert_eq!(code_field(&out), ("invalid_config".to_string(), "risk".to_string()));
}

/// Every long flag `--help` lists, for every subcommand, is documented in docs/cli.md.
#[test]
fn every_flag_in_help_is_in_the_docs() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md")).unwrap();
    let commands: [&[&str]; 25] = [
        &[],
        &["loop", "record"],
        &["loop", "finish"],
        &["loop", "status"],
        &["loop", "best"],
        &["loop", "reset"],
        &["pyramid", "start"],
        &["pyramid", "next"],
        &["pyramid", "submit"],
        &["pyramid", "result"],
        &["replay", "loops"],
        &["replay", "pyramids"],
        &["calibrate", "pyramids"],
        &["calibrate", "loops"],
        &["receipts", "verify"],
        &["runs", "import"],
        &["runs", "list"],
        &["runs", "export"],
        &["runs", "check"],
        &["runs", "model"],
        &["runs", "artifact"],
        &["runs", "artifacts"],
        &["promote", "loops"],
        &["drift", "loops"],
        &["mcp"],
    ];
    let mut missing = Vec::new();
    for command in commands {
        let mut args: Vec<&str> = command.to_vec();
        args.push("--help");
        let help = stdout(&run(&args));
        assert!(!help.is_empty(), "{command:?} --help");
        let title = format!("earlyexit {}", command.join(" "));
        if !command.is_empty() && !docs.contains(&format!("`{title}")) {
            missing.push(title.clone());
        }
        for word in help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
            if let Some(flag) = word.strip_prefix("--") {
                let flag: String = flag.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
                if !flag.is_empty() && flag != "help" && !docs.contains(&format!("--{flag}")) {
                    missing.push(format!("{title}: --{flag}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "in --help but not in docs/cli.md: {missing:?}");
}

/// `earlyexit calibrate loops` writes the library's artifact (certificate and corpus digest
/// as `calibrateLoopPolicy` computes them), and `loop record --policy` runs its policy.
#[test]
fn calibrate_loops_writes_the_artifact_and_loop_record_runs_it() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/replay/loop_calibration.json"),
    )
    .unwrap();
    let doc = parse(&doc);
    let Some(Value::Array(runs)) = doc.get("runs") else { panic!("runs") };
    let dir = tmp();
    let (file, candidates, out) = (dir.path().join("runs.jsonl"), dir.path().join("c.json"), dir.path().join("a.json"));
    std::fs::write(&file, runs.iter().map(Value::to_json).collect::<Vec<_>>().join("\n")).unwrap();
    let case = &doc
        .get("cases")
        .and_then(|c| match c {
            Value::Array(c) => c.first().cloned(),
            _ => None,
        })
        .unwrap();
    let options = case.get("options").unwrap();
    std::fs::write(&candidates, options.get("candidates").unwrap().to_json()).unwrap();
    let cli = run(&[
        "calibrate",
        "loops",
        s(&file),
        "--risk",
        "0.05",
        "--delta",
        "0.1",
        "--candidates",
        s(&candidates),
        "--out",
        s(&out),
    ]);
    assert_eq!(code(&cli), 0, "{}", String::from_utf8_lossy(&cli.stderr));
    assert!(stdout(&cli).starts_with("certified"), "{}", stdout(&cli));
    let artifact = parse(&std::fs::read_to_string(&out).unwrap());
    let library = earlyexit_calibrate::calibrate_loops(&Value::Array(runs.clone()), options, Naming::Js, 0).unwrap();
    for key in ["kind", "policy", "certificate", "corpusSha256", "body"] {
        assert_eq!(artifact.get(key), library.get(key), "{key}");
    }
    let state = dir.path().join("loop.json");
    let rec = run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(&state),
        "--policy",
        s(&out),
        "--quality",
        "0",
        "--confidence",
        "0",
        "--verification",
        "failed",
    ]);
    assert_eq!(code(&rec), 0, "{}", String::from_utf8_lossy(&rec.stderr));
    let snapshot = parse(&std::fs::read_to_string(&state).unwrap());
    // Not promoted: the loop enforces the calibration's most conservative candidate (patience
    // 4), runs the calibrated one (patience 3) in shadow and keeps why in the state file.
    assert_eq!(snapshot.get("config").and_then(|c| c.get("noImprovementPatience")), Some(&Value::Number(4.0)));
    let shadow = snapshot.get("shadow").unwrap();
    assert_eq!(shadow.get("name").and_then(Value::as_str), Some("calibrated"));
    let shadow_patience =
        shadow.get("policy").and_then(|p| p.get("config")).and_then(|c| c.get("noImprovementPatience"));
    assert_eq!(shadow_patience, Some(&Value::Number(3.0)));
    let reason = shadow.get("reason").and_then(Value::as_str).unwrap();
    assert!(reason.contains("not promoted"), "{reason}");
    assert!(String::from_utf8_lossy(&rec.stderr).contains(reason), "{}", String::from_utf8_lossy(&rec.stderr));
    // The state file keeps the artifact's digest: the same artifact again is fine, another
    // one (here: the same with a later expiry) is a usage error that changes nothing.
    let digest = earlyexit::artifact::digest(
        &artifact,
        &earlyexit_digest::Sha256Hasher,
        earlyexit::ErrorCode::InvalidArtifact,
        "",
    )
    .unwrap();
    assert_eq!(snapshot.get("policyArtifact"), Some(&Value::string(digest.as_str())));
    let again = |artifact: &Path| {
        run(&[
            "--json",
            "loop",
            "record",
            "--state",
            s(&state),
            "--policy",
            s(artifact),
            "--quality",
            "1",
            "--confidence",
            "0",
            "--verification",
            "failed",
        ])
    };
    assert_eq!(code(&again(&out)), 0);
    let other_artifact = dir.path().join("other.json");
    let text = std::fs::read_to_string(&out).unwrap();
    let expires = artifact.get("expiresAt").and_then(Value::as_str).unwrap().to_string();
    std::fs::write(&other_artifact, text.replace(&expires, "2999-01-01T00:00:00.000Z")).unwrap();
    let before = std::fs::read_to_string(&state).unwrap();
    let refused = again(&other_artifact);
    assert_eq!(code(&refused), 2, "{}", String::from_utf8_lossy(&refused.stderr));
    assert_eq!(std::fs::read_to_string(&state).unwrap(), before);
    // Bad input: the flag, and an artifact of the other kind.
    let bad = run(&["--json", "calibrate", "loops", s(&file), "--risk", "1"]);
    assert_eq!((code(&bad), code_field(&bad)), (2, ("invalid_config".to_string(), "risk".to_string())));
    std::fs::write(&out, std::fs::read_to_string(&out).unwrap().replace("\"kind\":\"loop\"", "\"kind\":\"pyramid\""))
        .unwrap();
    let other = run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(&dir.path().join("new.json")),
        "--policy",
        s(&out),
        "--quality",
        "0",
        "--confidence",
        "0",
        "--verification",
        "failed",
    ]);
    assert_eq!((code(&other), code_field(&other)), (2, ("invalid_artifact".to_string(), "kind".to_string())));
}

/// `--policy` (JSON text or a file) decides under a composed policy, as the library does,
/// and lists what fired; a bad policy names its path and changes nothing.
#[test]
fn loop_record_takes_a_composed_policy() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let policy = r#"{"any": [{"condition": "max_iterations", "limit": 3}, {"all": ["quality_plateau", {"condition": "no_improvement", "patience": 2}]}]}"#;
    let file = dir.path().join("policy.json");
    std::fs::write(&file, policy).unwrap();
    let mut engine =
        EarlyStopping::new(EarlyStoppingConfig { strict_iterations: Some(true), ..EarlyStoppingConfig::default() })
            .unwrap();
    let value = Value::parse_json(policy, earlyexit::ErrorCode::InvalidConfig, "policy").unwrap();
    engine.set_policy(Some(earlyexit::LoopPolicy::engine_policy(&value, Naming::Js).unwrap()));
    for (i, q) in ["60", "61", "62"].iter().enumerate() {
        let given = if i == 1 { s(&file).to_string() } else { policy.to_string() };
        let out = record(&state, q, &["--policy", &given]);
        let result = Value::object(vec![
            ("quality_score", Value::Number(q.parse().unwrap())),
            ("confidence", Value::Number(0.82)),
            ("verification_status", Value::string("passed")),
            ("quality_delta", Value::Number(if i == 0 { 0.0 } else { 1.0 })),
        ]);
        engine.record_value(&Value::Number(i as f64 + 1.0), &result, Naming::Js, String::new).unwrap();
        let expected = engine.should_stop().to_value();
        let got = parse(&stdout(&out));
        assert_eq!(got.get("decision").unwrap().to_json(), expected.to_json(), "iteration {}", i + 1);
    }
    let status = run(&["--json", "loop", "status", "--state", s(&state), "--policy", policy]);
    assert_eq!(code(&status), 10);
    let fired = run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(&state),
        "--quality",
        "62",
        "--confidence",
        "0.5",
        "--verification",
        "failed",
        "--policy",
        policy,
    ]);
    let decision = parse(&stdout(&fired));
    let fired = decision.get("decision").and_then(|d| d.get("fired")).unwrap().to_json();
    assert!(fired.contains(r#""path":"any[0]""#), "{fired}");
    let before = std::fs::read_to_string(&state).unwrap();
    let bad = record(&state, "70", &["--policy", r#"{"any": [{"condition": "no_improvement", "patience": 0}]}"#]);
    assert_eq!(code_field(&bad), ("invalid_config".to_string(), "policy.any[0].patience".to_string()));
    assert_eq!(std::fs::read_to_string(&state).unwrap(), before);
}

/// The behaviour flags give the fields detector conditions read: a stuck loop is redirected
/// (reported, exit 0), then paused (exit 10); the fields are kept in the state file; a bad
/// value names the field and its flag and changes nothing.
#[test]
fn loop_record_behaviour_flags_feed_detector_conditions() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let policy = r#"{"any": [{"condition": "stuck", "no_progress_iterations": 5}]}"#;
    let stuck = ["--policy", policy, "--error", "E1", "--completion", "10", "--file", "a.rs", "--file", "b.rs"];
    for i in 1..=4 {
        let out = record(&state, "50", &stuck);
        assert_eq!(code(&out), 0, "{i}");
        let decision = parse(&stdout(&out));
        let interventions = decision.get("decision").and_then(|d| d.get("interventions")).map(Value::to_json);
        if i >= 3 {
            assert!(interventions.unwrap_or_default().contains(r#""level":"redirect""#), "{i}");
        } else {
            assert_eq!(interventions, None, "{i}");
        }
    }
    let out = record(&state, "50", &stuck);
    assert_eq!(code(&out), 10);
    let decision = parse(&stdout(&out));
    assert_eq!(decision.get("decision").and_then(|d| d.get("trigger")).and_then(Value::as_str), Some("behavior_pause"));
    let saved = std::fs::read_to_string(&state).unwrap();
    assert!(
        saved.contains(r#""error":"E1","completion_percentage":10,"artifacts_modified":["a.rs","b.rs"]"#),
        "{saved}"
    );
    for (flag, value, field) in [
        ("--tests-passing", "maybe", "tests_passing"),
        ("--coverage", "101", "coverage_percent"),
        ("--completion", "-1", "completion_percentage"),
    ] {
        let bad = record(&state, "50", &["--policy", policy, flag, value]);
        assert_eq!(code_field(&bad), ("invalid_result".to_string(), field.to_string()), "{flag}");
        assert!(String::from_utf8_lossy(&bad.stderr).contains(flag), "{flag}");
        assert_eq!(std::fs::read_to_string(&state).unwrap(), saved);
    }
}

/// The state file keeps the policy of the first `--policy`: later calls without it decide
/// under it, the same one again is fine, and another one is refused and changes nothing.
#[test]
fn the_state_file_keeps_the_policy() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let policy = r#"{"returns": "best", "any": [{"condition": "max_iterations", "limit": 3}]}"#;
    assert_eq!(code(&record(&state, "60", &["--policy", policy])), 0);
    let snapshot = parse(&std::fs::read_to_string(&state).unwrap());
    assert_eq!(
        snapshot.get("policy").unwrap().to_json(),
        r#"{"returns":"best","any":[{"condition":"max_iterations","limit":3}]}"#
    );
    assert_eq!(code(&record(&state, "61", &[])), 0);
    assert_eq!(code(&record(&state, "62", &["--policy", policy])), 10);
    let status = run(&["--json", "loop", "status", "--state", s(&state)]);
    assert_eq!(code(&status), 10, "{}", stdout(&status));
    assert!(stdout(&status).contains("max_iterations"), "{}", stdout(&status));
    let before = std::fs::read_to_string(&state).unwrap();
    let other = r#"{"any": [{"condition": "max_iterations", "limit": 9}]}"#;
    let refused = record(&state, "63", &["--policy", other]);
    assert_eq!((code(&refused), code_field(&refused)), (2, ("invalid_config".to_string(), "policy".to_string())));
    let refused = run(&["--json", "loop", "status", "--state", s(&state), "--policy", other]);
    assert_eq!((code(&refused), code_field(&refused)), (2, ("invalid_config".to_string(), "policy".to_string())));
    assert_eq!(std::fs::read_to_string(&state).unwrap(), before);
    // The library reads the state file back with its policy.
    let engine = EarlyStopping::from_snapshot(&snapshot).unwrap();
    assert_eq!(engine.policy().map(|p| p.to_value().to_json()), Some(snapshot.get("policy").unwrap().to_json()));
}

/// `calibrate loops --candidates` takes composed policies; `loop record --policy ARTIFACT`
/// then decides under the chosen tree, and the state file keeps it.
#[test]
fn calibrate_loops_takes_composed_candidates_and_loop_record_runs_the_tree() {
    let doc = parse(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/replay/loop_calibration.json"),
        )
        .unwrap(),
    );
    let Some(Value::Array(runs)) = doc.get("runs") else { panic!("runs") };
    let dir = tmp();
    let (file, candidates, out) = (dir.path().join("runs.jsonl"), dir.path().join("c.json"), dir.path().join("a.json"));
    std::fs::write(&file, runs.iter().map(Value::to_json).collect::<Vec<_>>().join("\n")).unwrap();
    let trees: Vec<String> = [4, 3, 2]
        .iter()
        .map(|k| {
            format!(
                r#"{{"returns": "best", "config": {{"minQualityThreshold": 0}}, "any": [{{"condition": "high_confidence", "threshold": 0, "min_quality": 0}}, {{"condition": "no_improvement", "patience": {k}}}]}}"#
            )
        })
        .collect();
    std::fs::write(&candidates, format!("[{}]", trees.join(","))).unwrap();
    let cli = run(&[
        "calibrate",
        "loops",
        s(&file),
        "--risk",
        "0.05",
        "--delta",
        "0.1",
        "--candidates",
        s(&candidates),
        "--out",
        s(&out),
    ]);
    assert_eq!(code(&cli), 0, "{}", String::from_utf8_lossy(&cli.stderr));
    let artifact = parse(&std::fs::read_to_string(&out).unwrap());
    let chosen = artifact.get("policy").and_then(|p| p.get("any")).unwrap().to_json();
    assert!(chosen.contains(r#""patience":3"#), "{chosen}");
    let state = dir.path().join("loop.json");
    for q in ["10", "10", "10"] {
        let rec = run(&[
            "--json",
            "loop",
            "record",
            "--state",
            s(&state),
            "--policy",
            s(&out),
            "--quality",
            q,
            "--confidence",
            "0.1",
            "--verification",
            "failed",
        ]);
        assert!(code(&rec) == 0 || code(&rec) == 10, "{}", String::from_utf8_lossy(&rec.stderr));
    }
    // Not promoted: the state keeps the most conservative tree (patience 4) as the policy and
    // the chosen one in shadow.
    let snapshot = parse(&std::fs::read_to_string(&state).unwrap());
    let kept = snapshot.get("policy").and_then(|p| p.get("any")).map(Value::to_json).unwrap();
    assert!(kept.contains(r#""patience":4"#), "{kept}");
    let shadowed = snapshot.get("shadow").and_then(|s| s.get("policy")).and_then(|p| p.get("any")).map(Value::to_json);
    assert_eq!(shadowed, Some(chosen));
    // Without --policy, the kept trees decide: at the fourth record the shadow would stop
    // (patience 3) while the loop goes on; at the fifth the enforced tree stops it.
    let rec = || {
        run(&[
            "--json",
            "loop",
            "record",
            "--state",
            s(&state),
            "--quality",
            "10",
            "--confidence",
            "0.1",
            "--verification",
            "failed",
        ])
    };
    let fourth = rec();
    assert_eq!(code(&fourth), 0, "{}", stdout(&fourth));
    assert!(stdout(&fourth).contains(r#""would_stop""#), "{}", stdout(&fourth));
    let fifth = rec();
    assert_eq!(code(&fifth), 10, "{}", stdout(&fifth));
    assert!(stdout(&fifth).contains(r#""path":"any[1]""#), "{}", stdout(&fifth));
}
