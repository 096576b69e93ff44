//! State files and streamed input under hostile conditions: a JSONL line larger than memory
//! allows, a state at the document limit, symbolic links, `kill -9` during a write, file
//! modes, another engine's state, a byte-order mark, and flags that take negative numbers.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use earlyexit::{EarlyStopping, EarlyStoppingConfig, Naming, Value};

use support::{bin, code, error_of, parse, recorded, run, s, tmp};

fn record(state: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--json", "loop", "record", "--state", s(state), "--quality", "50", "--confidence", "0.5"];
    args.extend_from_slice(&["--verification", "failed", "--no-strict-iterations"]);
    args.extend_from_slice(extra);
    run(&args)
}

fn history_len(state: &Path) -> usize {
    let text = std::fs::read_to_string(state).expect("the state reads");
    match parse(&text).get("history") {
        Some(Value::Array(items)) => items.len(),
        _ => panic!("no history in {}", state.display()),
    }
}

/// Files beside `state` that a write left (`*.tmp`).
fn temporary_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("the directory lists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tmp"))
        .collect()
}

/// A loop's state of `records` iterations, each carrying `learnings` of `pad` bytes (the
/// snapshot JSON as the command writes it).
fn big_state(records: usize, pad: usize) -> String {
    let config = EarlyStoppingConfig { strict_iterations: Some(false), ..EarlyStoppingConfig::default() };
    let mut engine = EarlyStopping::new(config).unwrap();
    let learnings = "x".repeat(pad);
    for i in 0..records {
        let result = Value::object(vec![
            ("quality_score", Value::Number(50.0)),
            ("confidence", Value::Number(0.5)),
            ("verification_status", Value::string("failed")),
            ("quality_delta", Value::Number(0.0)),
            ("learnings", Value::string(learnings.as_str())),
        ]);
        engine
            .record_value(&Value::Number(i as f64 + 1.0), &result, Naming::Js, || "2026-01-01T00:00:00.000Z".into())
            .unwrap();
    }
    engine.to_snapshot().to_json()
}

// ---------------------------------------------------------------------------------------
// A JSONL line over the document limit on standard input
// ---------------------------------------------------------------------------------------

/// Runs `args` (reading `-`) under a 1 GiB address-space cap with a 2 GiB line piped in by
/// a writer thread that streams it (and stops when the command stops reading).
fn with_huge_line(args: &[&str]) -> Output {
    let mut child = Command::new("prlimit")
        .arg("--as=1073741824")
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_earlyexit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'a'; 1 << 20];
        if stdin.write_all(br#"{"id":""#).is_err() {
            return;
        }
        for _ in 0..2048 {
            if stdin.write_all(&chunk).is_err() {
                return; // the command stopped reading
            }
        }
        let _ = stdin.write_all(b"\"}\n");
    });
    let out = child.wait_with_output().expect("the command ends");
    writer.join().expect("the writer ends");
    out
}

#[test]
fn a_line_over_the_document_limit_is_refused_without_reading_it_whole() {
    for args in [
        &["--json", "replay", "loops", "--quiet", "-"][..],
        &["--json", "replay", "pyramids", "--quiet", "-"][..],
        &["--json", "calibrate", "pyramids", "--quiet", "--risk", "0.1", "--delta", "0.1", "-"][..],
    ] {
        let out = with_huge_line(args);
        assert_eq!(code(&out), 2, "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let (code_name, field, message) = error_of(&out);
        assert_eq!((code_name.as_str(), field.as_str()), ("invalid_replay", "runs[0]"), "{args:?}");
        assert_eq!(message, "runs[0] (line 1): over the limits: a document of more than 268435456 bytes");
    }
}

// ---------------------------------------------------------------------------------------
// The document limit on state files
// ---------------------------------------------------------------------------------------

#[test]
fn a_record_that_would_put_the_state_over_the_limit_is_refused_and_changes_nothing() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let limit = earlyexit::limits::MAX_DOCUMENT_BYTES;
    // 16 records of ~16 MiB each, the last one's padding chosen so that the file (text and
    // newline) is 100 bytes under the limit: one more record cannot fit.
    let pad = earlyexit::limits::MAX_STRING_BYTES - 4096;
    let probe = big_state(16, pad).len();
    let text = big_state(16, pad + (limit - 100 - 1 - probe) / 16);
    assert!(text.len() < limit && text.len() + 1 + 200 > limit, "{}", text.len());
    std::fs::write(&state, format!("{text}\n")).unwrap();
    drop(text);
    let before = std::fs::read(&state).unwrap();
    let out = record(&state, &[]);
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    let (code_name, field, message) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_snapshot", "snapshot"));
    assert!(message.contains("over the limits: a document of more than 268435456 bytes"), "{message}");
    assert!(std::fs::read(&state).unwrap() == before, "the state file changed");
    // The state still works.
    let out = run(&["--json", "loop", "status", "--state", s(&state)]);
    assert!(recorded(&out), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn reset_works_on_an_oversize_or_corrupt_state_and_refuses_another_engines() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    // Over the limit (whitespace is cheap to read and to write).
    let mut file = std::fs::File::create(&state).unwrap();
    file.write_all(br#"{"version":1,"engine":"EarlyStopping","config":{},"history":[]"#).unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..257 {
        file.write_all(&spaces).unwrap();
    }
    file.write_all(b"}\n").unwrap();
    drop(file);
    let out = run(&["--json", "loop", "status", "--state", s(&state)]);
    assert_eq!(code(&out), 2);
    assert_eq!(error_of(&out).0, "invalid_snapshot");
    let out = run(&["--json", "loop", "reset", "--state", s(&state)]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let doc = parse(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(doc.get("reset"), Some(&Value::Bool(true)));
    let aside = dir.path().join("loop.json.unreadable");
    assert_eq!(doc.get("movedTo").and_then(Value::as_str), Some(s(&aside)));
    assert!(aside.exists() && !state.exists());
    assert!(recorded(&record(&state, &[])), "a new loop starts");
    assert_eq!(history_len(&state), 1);

    // Not JSON.
    std::fs::write(&state, "{\"version\":1,\"engine\":\"EarlySt").unwrap();
    let out = run(&["--json", "loop", "reset", "--state", s(&state)]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), "{\"version\":1,\"engine\":\"EarlySt");

    // A loop's snapshot with a corrupt history.
    let corrupt = r#"{"version":1,"engine":"EarlyStopping","config":{},"history":[{"iteration":"x"}]}"#;
    std::fs::write(&state, corrupt).unwrap();
    assert_eq!(code(&run(&["--json", "loop", "reset", "--state", s(&state)])), 0);
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), corrupt);

    // Another engine's state, and a JSON file that is no state, are refused unchanged.
    let pyramid = dir.path().join("run.json");
    let out = run(&["--json", "pyramid", "start", "--state", s(&pyramid), "--layer", "unit", "--layer", "e2e"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let before = std::fs::read(&pyramid).unwrap();
    let out = run(&["--json", "loop", "reset", "--state", s(&pyramid)]);
    assert_eq!(code(&out), 2);
    assert_eq!(error_of(&out).1, "engine");
    assert_eq!(std::fs::read(&pyramid).unwrap(), before);
    let other = dir.path().join("package.json");
    std::fs::write(&other, r#"{"name":"x","version":"1.0.0"}"#).unwrap();
    assert_eq!(code(&run(&["--json", "loop", "reset", "--state", s(&other)])), 2);
    assert_eq!(std::fs::read_to_string(&other).unwrap(), r#"{"name":"x","version":"1.0.0"}"#);
    assert!(!dir.path().join("package.json.unreadable").exists());
}

#[test]
fn reset_of_a_missing_state_leaves_no_lock_file() {
    let dir = tmp();
    let state = dir.path().join("none.json");
    let out = run(&["--json", "loop", "reset", "--state", s(&state)]);
    assert_eq!(code(&out), 2);
    assert_eq!(error_of(&out).0, "input");
    assert!(!dir.path().join("none.json.lock").exists());
    let submit = ["--json", "pyramid", "submit", "0", "--state", s(&state), "--pass-rate", "1", "--coverage", "1"];
    let out = run(&[&submit[..], &["--flaky", "0"]].concat());
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(error_of(&out).0, "input");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing is created");
}

// ---------------------------------------------------------------------------------------
// Symbolic links
// ---------------------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn writers_through_a_symlink_and_the_real_name_share_one_lock() {
    let dir = tmp();
    let real = dir.path().join("real.json");
    let link = dir.path().join("link.json");
    assert!(recorded(&record(&real, &[])));
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    let children: Vec<_> = (0..40)
        .map(|i| {
            let path = if i % 2 == 0 { &real } else { &link };
            bin()
                .args(["--json", "loop", "record", "--state", s(path), "--quality", "50", "--confidence", "0.5"])
                .args(["--verification", "failed", "--no-strict-iterations"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(recorded(&out), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(history_len(&real), 41);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
    assert!(!dir.path().join("link.json.lock").exists(), "one lock, beside the real file");
}

#[cfg(unix)]
#[test]
fn a_dangling_state_symlink_creates_its_target_and_a_lock_symlink_is_never_followed() {
    let dir = tmp();
    std::fs::create_dir(dir.path().join("states")).unwrap();
    let link = dir.path().join("loop.json");
    std::os::unix::fs::symlink("states/target.json", &link).unwrap();
    assert!(recorded(&record(&link, &[])));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(history_len(&dir.path().join("states/target.json")), 1);
    assert!(dir.path().join("states/target.json.lock").exists());

    let state = dir.path().join("s.json");
    let victim = dir.path().join("victim");
    std::os::unix::fs::symlink(&victim, dir.path().join("s.json.lock")).unwrap();
    let out = record(&state, &[]);
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(error_of(&out).0, "input");
    assert!(!victim.exists(), "the lock symlink's target was created");
    assert!(!state.exists());
}

// ---------------------------------------------------------------------------------------
// kill -9 during a write, file modes
// ---------------------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_writer_killed_mid_write_leaves_no_temporary_file_behind_the_next_write() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    // A state of ~24 MB, so that a write takes long enough to be caught in the middle.
    std::fs::write(&state, big_state(24, 1 << 20) + "\n").unwrap();
    let mut caught = 0;
    for _ in 0..20 {
        let mut child = bin()
            .args(["loop", "record", "--state", s(&state), "--quality", "50", "--confidence", "0.5"])
            .args(["--verification", "failed", "--no-strict-iterations"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill it as soon as its temporary file exists (or let it finish).
        loop {
            if !temporary_files(dir.path()).is_empty() {
                let _ = child.kill(); // SIGKILL
                caught += 1;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
        }
        child.wait().unwrap();
    }
    assert!(caught > 0, "no write was caught in progress");
    let before = history_len(&state);
    assert!(recorded(&record(&state, &[])));
    assert_eq!(history_len(&state), before + 1);
    assert_eq!(temporary_files(dir.path()), Vec::<PathBuf>::new());
}

#[cfg(unix)]
#[test]
fn a_record_keeps_an_existing_state_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp();
    let state = dir.path().join("loop.json");
    assert!(recorded(&record(&state, &[])));
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(recorded(&record(&state, &[])));
    assert_eq!(std::fs::metadata(&state).unwrap().permissions().mode() & 0o777, 0o600);
    let pyramid = dir.path().join("run.json");
    assert_eq!(code(&run(&["pyramid", "start", "--state", s(&pyramid), "--layer", "unit"])), 0);
    std::fs::set_permissions(&pyramid, std::fs::Permissions::from_mode(0o640)).unwrap();
    let submit = ["pyramid", "submit", "unit", "--state", s(&pyramid), "--pass-rate", "1", "--coverage", "1"];
    let out = run(&[&submit[..], &["--flaky", "0"]].concat());
    assert!([0, 10].contains(&code(&out)), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::metadata(&pyramid).unwrap().permissions().mode() & 0o777, 0o640);
}

// ---------------------------------------------------------------------------------------
// What a state file holds
// ---------------------------------------------------------------------------------------

#[test]
fn another_engines_state_is_named_as_such() {
    let dir = tmp();
    let pyramid = dir.path().join("run.json");
    assert_eq!(code(&run(&["pyramid", "start", "--state", s(&pyramid), "--layer", "unit"])), 0);
    let out = run(&["--json", "loop", "status", "--state", s(&pyramid)]);
    assert_eq!(code(&out), 2);
    let (code_name, field, message) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_snapshot", "engine"));
    assert_eq!(message, "snapshot is of engine 'PyramidRun', expected 'EarlyStopping'");
    let state = dir.path().join("loop.json");
    assert!(recorded(&record(&state, &[])));
    let out = run(&["--json", "pyramid", "next", "--state", s(&state)]);
    assert_eq!(code(&out), 2);
    let (code_name, field, message) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_snapshot", "engine"));
    assert_eq!(message, "snapshot is of engine 'EarlyStopping', expected 'PyramidRun'");
}

#[test]
fn a_state_file_with_a_byte_order_mark_reads() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    assert!(recorded(&record(&state, &[])));
    let text = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, format!("\u{feff}{text}")).unwrap();
    let out = run(&["--json", "loop", "status", "--state", s(&state)]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(recorded(&record(&state, &[])));
    assert_eq!(history_len(&state), 2);
}

#[test]
fn a_policy_string_with_a_lone_surrogate_is_refused() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let policy = r#"{"any":[{"condition":"deviation","objective":"fix \ud800 now"}]}"#;
    let out = record(&state, &["--policy", policy]);
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stdout));
    let (code_name, field, message) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_config", "policy"));
    assert!(message.contains("lone UTF-16 surrogate"), "{message}");
    assert!(!state.exists());
}

// ---------------------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------------------

#[test]
fn a_negative_number_reaches_the_core() {
    let dir = tmp();
    let state = dir.path().join("run.json");
    let out = run(&["--json", "pyramid", "start", "--state", s(&state), "--layer", "unit", "--now", "-1"]);
    assert_ne!(error_code_or_ok(&out), "usage", "{}", String::from_utf8_lossy(&out.stderr));
    let out =
        run(&["--json", "pyramid", "start", "--state", s(&state), "--force", "--layer", "u", "--total-layers", "-1"]);
    assert_eq!(code(&out), 2);
    let (code_name, field, _) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_config", "totalLayers"));
}

fn error_code_or_ok(out: &Output) -> String {
    if code(out) == 2 {
        error_of(out).0
    } else {
        "ok".into()
    }
}

#[test]
fn pyramid_start_refuses_two_layers_of_one_name() {
    let dir = tmp();
    let state = dir.path().join("run.json");
    let out = run(&["--json", "pyramid", "start", "--state", s(&state), "--layer", "u", "--layer", "u"]);
    assert_eq!(code(&out), 2);
    let (code_name, field, message) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_config", "layers[1].name"));
    assert_eq!(message, "layers[1].name repeats layer 'u'");
    assert!(!state.exists());
}

#[test]
fn an_integer_beyond_2_53_is_quoted_as_written() {
    let dir = tmp();
    let state = dir.path().join("loop.json");
    let out = record(&state, &["--iteration", "9007199254740993"]);
    assert_eq!(code(&out), 2);
    let (code_name, field, message) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_iteration", "iteration"));
    assert!(message.contains("got 9007199254740993 "), "{message}");
    assert!(!state.exists());
    let run_state = dir.path().join("run.json");
    let out = run(&["--json", "pyramid", "start", "--state", s(&run_state), "--layer", "u"]);
    assert_eq!(code(&out), 0);
    let out = run(&[
        "--json",
        "pyramid",
        "start",
        "--state",
        s(&run_state),
        "--force",
        "--layer",
        "u",
        "--total-layers",
        "9007199254740993",
    ]);
    assert_eq!(code(&out), 2);
    assert!(error_of(&out).2.contains("9007199254740993"), "{}", error_of(&out).2);
    // 2^53 itself is a number a double holds: refused by the range, quoted exactly.
    let out = record(&state, &["--iteration", "9007199254740992"]);
    assert!(error_of(&out).2.contains("got 9007199254740992"), "{}", error_of(&out).2);
}

/// The snapshot of a loop that recorded `iterations` without `strictIterations`, then turned
/// it on and recorded `after` (if any).
fn loop_state(iterations: &[u64], after: Option<u64>) -> Value {
    let mut engine = EarlyStopping::new(EarlyStoppingConfig::default()).expect("an engine");
    let result = earlyexit::IterationResult::new(50.0, 0.5, earlyexit::VerificationStatus::Failed, 0.0);
    let clock = || "2026-01-01T00:00:00.000Z".to_string();
    for &i in iterations {
        engine.record(i, result.clone(), clock).expect("a record");
    }
    let on = Value::object(vec![("strictIterations", Value::Bool(true))]);
    engine.configure_value(&on, Naming::Js).expect("strict");
    if let Some(i) = after {
        engine.record(i, result, clock).expect("a record");
    }
    engine.to_snapshot()
}

#[test]
fn a_strict_state_whose_history_repeats_is_refused_and_a_loop_made_strict_later_goes_on() {
    let dir = tmp();
    // Hand-edited: strict on over a history that repeats iteration 2, with no key saying so.
    let state = dir.path().join("edited.json");
    let text = loop_state(&[1, 2, 2], None).to_json();
    let text = text.replace(",\"strictIterationsFrom\":3", "");
    std::fs::write(&state, &text).unwrap();
    let out = run(&["--json", "loop", "status", "--state", s(&state)]);
    assert_eq!(code(&out), 2, "{}", String::from_utf8_lossy(&out.stdout));
    let (code_name, field, _) = error_of(&out);
    assert_eq!((code_name.as_str(), field.as_str()), ("invalid_snapshot", "history[2].iteration_number"));
    let out = run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(&state),
        "--quality",
        "50",
        "--confidence",
        "0.5",
        "--verification",
        "failed",
    ]);
    assert_eq!(code(&out), 2);
    assert_eq!(error_of(&out).1, "history[2].iteration_number");
    assert_eq!(std::fs::read_to_string(&state).unwrap(), text);
    // Written by a loop made strict after its records repeated: it reads, records and keeps the key.
    let later = dir.path().join("later.json");
    let snapshot = loop_state(&[5, 9, 2], Some(3));
    assert_eq!(snapshot.get("strictIterationsFrom"), Some(&Value::Number(3.0)));
    std::fs::write(&later, snapshot.to_json()).unwrap();
    let out = run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(&later),
        "--quality",
        "51",
        "--confidence",
        "0.5",
        "--verification",
        "failed",
    ]);
    assert!(recorded(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let saved = parse(&std::fs::read_to_string(&later).unwrap());
    assert_eq!(saved.get("strictIterationsFrom"), Some(&Value::Number(3.0)));
    assert_eq!(history_len(&later), 5);
}
