//! `earlyexit hook claude-code` under its own failures and hostile input: each fails open
//! (exit 0, nothing on stdout so the stop goes through, the reason on stderr), and none
//! corrupts or loses a session's state: a malformed, huge or deeply nested payload, a
//! missing transcript, a check that cannot start or outlives its timeout (its whole process
//! group killed), concurrent events on one session, a state file a killed writer left, a
//! 20 MB transcript read incrementally, and memory under `prlimit --as`.

mod hook_common;

use hook_common::{run_hook, Answer, Session};
use serde_json::json;

/// The address space the hook may use: 1 GiB.
const ADDRESS_SPACE: &str = "--as=1073741824";

#[test]
fn a_malformed_payload_fails_open() {
    let s = Session::new(false);
    for payload in ["", "not json", "[1, 2]", "{\"transcript_path\": \"/x\"}", "{\"session_id\": 5}"] {
        let answer = Answer::of(s.hook(payload, &[], &[]));
        assert!(answer.failed_open(), "{payload:?}: {answer:?}");
        assert!(answer.stderr.contains("payload"), "{}", answer.stderr);
    }
}

#[test]
fn a_huge_or_deeply_nested_payload_fails_open() {
    let s = Session::new(false);
    let huge = format!("{{\"session_id\": \"s\", \"x\": \"{}\"}}", "a".repeat(5 << 20));
    let answer = Answer::of(run_hook(s.dir(), huge.as_bytes(), &[], &[], Some(ADDRESS_SPACE)));
    assert!(answer.failed_open(), "{answer:?}");
    assert!(answer.stderr.contains("over 4194304 bytes"), "{}", answer.stderr);
    let nested = format!("{}{}", "[".repeat(1 << 20), "]".repeat(1 << 20));
    let answer = Answer::of(run_hook(s.dir(), nested.as_bytes(), &[], &[], Some(ADDRESS_SPACE)));
    assert!(answer.failed_open(), "{answer:?}");
    let mut payload = s.stop_payload(false, None);
    payload["background_tasks"] =
        serde_json::from_str(&format!("{}{}", "[".repeat(100), "]".repeat(100))).expect("json");
    // Unknown keys are ignored however deep (within the parser's nesting limit)...
    assert!(Answer::of(s.hook(&payload.to_string(), &["--fingerprint", "none"], &[])).blocks());
    // ...and past it the payload is refused, not a crash.
    let deep = format!(
        "{{\"session_id\": \"s\", \"transcript_path\": \"/x\", \"extra\": {}{}}}",
        "{\"a\":".repeat(5000),
        "1}".repeat(5000)
    );
    assert!(Answer::of(s.hook(&deep, &[], &[])).failed_open());
}

#[test]
fn a_missing_transcript_fails_open_and_changes_nothing() {
    let s = Session::new(false);
    let mut payload = s.stop_payload(false, None);
    payload["transcript_path"] = json!(s.home.path().join("gone.jsonl").to_string_lossy());
    let answer = Answer::of(s.hook(&payload.to_string(), &["--fingerprint", "none"], &[]));
    assert!(answer.failed_open(), "{answer:?}");
    assert!(answer.stderr.contains("cannot open the transcript"), "{}", answer.stderr);
    let states = std::fs::read_dir(s.state_dir())
        .map(|d| d.filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().ends_with(".json")).count());
    assert_eq!(states.unwrap_or(0), 0, "no state written");
}

#[test]
fn a_transcript_that_is_no_regular_file_fails_open() {
    let s = Session::new(false);
    for path in ["/dev/zero", "/dev/urandom", "/"] {
        let mut payload = s.stop_payload(false, None);
        payload["transcript_path"] = json!(path);
        let answer = Answer::of(s.hook(&payload.to_string(), &["--fingerprint", "none"], &[]));
        assert!(answer.failed_open(), "{path}: {answer:?}");
    }
}

#[test]
fn a_check_that_times_out_fails_open_and_its_process_group_is_killed() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    s.turn(None, "hm", [1, 1, 0, 0]);
    let pid_file = s.home.path().join("pid");
    // The check starts a grandchild in its group, then waits for it.
    let check = format!("sleep 600 & echo $! > '{}'; wait", pid_file.display());
    let answer = s.stop(false, &["--check", &check, "--check-timeout", "0.5", "--fingerprint", "none"]);
    assert!(answer.failed_open(), "{answer:?}");
    assert!(answer.stderr.contains("longer than --check-timeout"), "{}", answer.stderr);
    let pid = std::fs::read_to_string(&pid_file).expect("the check wrote its child's pid");
    let proc = std::path::Path::new("/proc").join(pid.trim());
    // Killed: gone, or a zombie until its reaper runs. SIGKILL is delivered when the process
    // is next scheduled, so a busy machine may show it running for a moment: wait for the
    // outcome (a `sleep 600` that was not killed is still there after 30 s).
    let dead = |state: &str| state.is_empty() || state.contains(") Z");
    let mut state = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
    for _ in 0..300 {
        if dead(&state) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        state = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
    }
    assert!(dead(&state), "the check's child still runs: {state}");
    // A check that cannot start (the project directory is gone) fails open too.
    let mut payload = s.stop_payload(false, None);
    payload["cwd"] = json!(s.home.path().join("gone").to_string_lossy());
    let state_dir = s.home.path().join("state");
    let args = ["--check", "true", "--fingerprint", "none", "--dir", state_dir.to_str().expect("utf8")];
    let answer = Answer::of(s.hook(&payload.to_string(), &args, &[]));
    assert!(answer.failed_open(), "{answer:?}");
    assert!(answer.stderr.contains("the check could not start"), "{}", answer.stderr);
}

#[test]
fn concurrent_events_on_one_session_lose_nothing() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    s.turn(None, "hm", [1, 1, 0, 0]);
    let payload = s.stop_payload(true, None).to_string();
    let env = [("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "100")];
    let args = ["--fingerprint", "none", "--max-iterations", "100"];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8).map(|_| scope.spawn(|| Answer::of(s.hook(&payload, &args, &env)))).collect();
        for handle in handles {
            let answer = handle.join().expect("the thread ends");
            assert!(answer.blocks(), "{answer:?}");
        }
    });
    assert_eq!(s.status()["iterations"], json!(8));
}

#[test]
fn a_state_file_a_killed_writer_left_is_recovered() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    s.turn(None, "hm", [1, 1, 0, 0]);
    let args = ["--fingerprint", "none"];
    assert!(s.stop(false, &args).blocks());
    let state = s.state_dir().join(format!("{}.json", s.id));
    // A writer killed mid-write leaves its temporary file; the state file is whole.
    let tmp = s.state_dir().join(format!(".{}.json.earlyexit.tmp", s.id));
    std::fs::write(&tmp, "{\"kind\": \"earlyexit-claude-code-hook\", \"ver").expect("write");
    assert!(s.stop(true, &args).blocks());
    assert!(!tmp.exists(), "the dead writer's temporary file is removed");
    assert_eq!(s.status()["iterations"], json!(2));
    // A state file cut short (written by something else) is moved aside; a new loop starts.
    let text = std::fs::read_to_string(&state).expect("state");
    std::fs::write(&state, &text[..text.len() / 2]).expect("write");
    let answer = s.stop(true, &args);
    assert!(answer.blocks(), "{answer:?}");
    assert!(answer.stderr.contains("was unreadable"), "{}", answer.stderr);
    assert!(s.state_dir().join(format!("{}.json.unreadable", s.id)).exists());
    assert_eq!(s.status()["iterations"], json!(1));
}

/// A transcript of about `bytes`: turns of tool calls and results, each message's usage
/// 1 input and 2 output tokens.
fn big_transcript(s: &mut Session, bytes: u64) -> u64 {
    s.prompt("Refactor the parser.");
    let filler = "x".repeat(4000);
    let mut turns = 0;
    while std::fs::metadata(&s.transcript).map(|m| m.len()).unwrap_or(0) < bytes {
        s.turn(Some(("Read", json!({"file_path": "/src/parser.rs"}), &filler, false)), "Read it.", [1, 2, 0, 0]);
        turns += 1;
    }
    turns
}

#[test]
fn a_20_mb_transcript_is_read_once_then_from_its_offset() {
    let mut s = Session::new(false);
    let turns = big_transcript(&mut s, 20 << 20);
    let args = ["--fingerprint", "none"];
    let first = Answer::of(run_hook(
        s.dir(),
        s.stop_payload(false, None).to_string().as_bytes(),
        &args,
        &[],
        Some(ADDRESS_SPACE),
    ));
    assert!(first.blocks(), "{first:?}");
    assert!(first.reason().starts_with("Refactor the parser."));
    // Two messages a turn, 3 tokens each.
    assert_eq!(s.status()["tokens"], json!(turns * 6));
    let state = s.state_dir().join(format!("{}.json", s.id));
    let offset = |_: ()| {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&state).expect("state")).expect("json");
        v["offset"].as_u64().expect("offset")
    };
    assert_eq!(offset(()), std::fs::metadata(&s.transcript).expect("meta").len());
    // The next event reads the new turn only.
    s.turn(None, "Next.", [7, 0, 0, 0]);
    let second = s.stop(true, &args);
    assert!(second.blocks());
    assert_eq!(s.status()["tokens"], json!(turns * 6 + 7));
    assert_eq!(offset(()), std::fs::metadata(&s.transcript).expect("meta").len());
}

#[test]
fn a_line_over_the_line_limit_is_skipped_within_the_memory_bound() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    s.turn(Some(("Read", json!({"file_path": "/big"}), &"y".repeat(40 << 20), false)), "ok", [1, 1, 0, 0]);
    // A line still being written (no newline yet) is left for the next event.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&s.transcript)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"type\": \"assistant\""))
        .expect("append");
    let answer = Answer::of(run_hook(
        s.dir(),
        s.stop_payload(false, None).to_string().as_bytes(),
        &["--fingerprint", "none"],
        &[],
        Some("--as=536870912"),
    ));
    assert!(answer.blocks(), "{answer:?}");
    assert!(answer.stderr.contains("1 over 8388608 bytes"), "{}", answer.stderr);
    let len = std::fs::metadata(&s.transcript).expect("meta").len();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.state_dir().join(format!("{}.json", s.id))).expect("state"))
            .expect("json");
    assert_eq!(v["offset"].as_u64(), Some(len - "{\"type\": \"assistant\"".len() as u64));
}

#[test]
fn hostile_ids_make_plain_file_names() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    s.turn(None, "hm", [1, 1, 0, 0]);
    let mut payload = s.stop_payload(false, None);
    payload["session_id"] = json!("../../etc/passwd");
    let answer = Answer::of(s.hook(&payload.to_string(), &["--fingerprint", "none"], &[]));
    assert!(answer.blocks(), "{answer:?}");
    let names: Vec<String> = std::fs::read_dir(s.state_dir())
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.starts_with("h-") && n.ends_with(".json")), "{names:?}");
    assert_eq!(std::fs::read_to_string(s.state_dir().join(".gitignore")).expect("gitignore"), "*\n");
}
