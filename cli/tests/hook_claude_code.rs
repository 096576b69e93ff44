//! `earlyexit hook claude-code` on loops written here in Claude Code's formats
//! (hook_common): a runaway loop and an oscillating one stop, a completion promise stops on
//! its event and only when it stands alone, a subagent's stop reads its own transcript, the
//! block cap is never reached, a check that fails or times out, and the state and status.

mod hook_common;

use hook_common::{Answer, Session};
use serde_json::json;

const BASH_ERROR: &str = "error[E0425]: cannot find value `total` in this scope\n --> src/lib.rs:3:5";

/// The runaway loop: the same failing tool call every turn, nothing in the worktree changes.
/// Under the agent policy it stops within `unchanged(3)`'s window (the 4th event at most).
#[test]
fn a_runaway_loop_stops_within_the_policy_window() {
    let mut s = Session::new(true);
    s.prompt("Make the tests in src/lib.rs pass.");
    let mut stopped = None;
    for event in 1..=50 {
        s.turn(
            Some(("Bash", json!({"command": "cargo test"}), BASH_ERROR, true)),
            "Let me try that again.",
            [10, 50, 2000, 0],
        );
        let answer = s.stop(event > 1, &[]);
        assert_eq!(answer.code, Some(0), "{}", answer.stderr);
        if !answer.blocks() {
            stopped = Some((event, answer));
            break;
        }
        assert!(answer.reason().contains("Make the tests in src/lib.rs pass."), "{}", answer.reason());
        assert!(answer.reason().contains("tool call failed (last: error[E0425]"), "{}", answer.reason());
    }
    let (event, answer) = stopped.expect("the runaway loop stops");
    println!("runaway loop: stopped at event {event}: {}", answer.system_message());
    assert!(event <= 4, "stopped at event {event}");
    assert!(answer.system_message().starts_with("earlyexit stopped the loop after"), "{}", answer.system_message());
    let status = s.status();
    assert_eq!(status["answered"], "stop");
    assert_eq!(status["iterations"], json!(event));
}

/// The oscillating loop: the agent edits a.txt to A, B, A, B; `revisit(4)` stops it when
/// the worktree comes back to a state it was in.
#[test]
fn an_oscillating_loop_stops_by_revisit() {
    let mut s = Session::new(true);
    s.prompt("Pick the right greeting in a.txt.");
    let mut stopped = None;
    for (event, content) in ["A\n", "B\n", "A\n", "B\n", "A\n"].into_iter().enumerate() {
        let event = event + 1;
        std::fs::write(s.dir().join("a.txt"), content).expect("write");
        let file = s.dir().join("a.txt").to_string_lossy().into_owned();
        s.turn(
            Some(("Edit", json!({"file_path": file, "old_string": "x", "new_string": content}), "ok", false)),
            "Changed it.",
            [5, 20, 0, 100],
        );
        let answer = s.stop(event > 1, &[]);
        if !answer.blocks() {
            stopped = Some((event, answer));
            break;
        }
    }
    let (event, answer) = stopped.expect("the oscillating loop stops");
    println!("oscillating loop: stopped at event {event}: {}", answer.system_message());
    assert_eq!(event, 3);
    assert!(answer.system_message().contains("(revisit)"), "{}", answer.system_message());
    assert!(answer.system_message().contains("No check ran"), "{}", answer.system_message());
    assert_eq!(s.status()["files"], json!(["a.txt"]));
}

#[test]
fn a_promise_stops_on_its_event_and_prose_about_it_does_not() {
    let mut s = Session::new(false);
    s.prompt("Write the changelog.");
    let args = ["--promise", "DONE", "--fingerprint", "none"];
    s.turn(None, "I will print <promise>DONE</promise> when I am finished.", [1, 1, 0, 0]);
    let first = s.stop(false, &args);
    assert!(first.blocks(), "prose quoting the tag is no completion: {first:?}");
    assert!(first.reason().contains("end your reply with <promise>DONE</promise> alone on its last line"));
    s.turn(None, "Done, see below.\n<promise>DONE</promise> is what I print", [1, 1, 0, 0]);
    assert!(s.stop(true, &args).blocks());
    // Read from the transcript (the payload has no last_assistant_message).
    s.turn(None, "The changelog is written.\n\n<promise>DONE</promise>\n", [1, 1, 0, 0]);
    let third = s.stop(true, &args);
    assert!(!third.blocks());
    println!("promise: stopped at event 3: {}", third.system_message());
    assert!(third.system_message().contains("after 3 iterations (completed)"), "{}", third.system_message());
}

#[test]
fn a_promise_in_the_payload_wins_over_the_iteration_cap() {
    let mut s = Session::new(false);
    s.prompt("Do it.");
    let args = ["--promise", "DONE", "--fingerprint", "none", "--max-iterations", "2"];
    s.turn(None, "working", [1, 1, 0, 0]);
    assert!(s.stop(false, &args).blocks());
    s.turn(None, "still working", [1, 1, 0, 0]);
    let payload = s.stop_payload(true, Some("All done.\n<promise>DONE</promise>"));
    let answer = Answer::of(s.hook(&payload.to_string(), &args, &[]));
    assert!(answer.system_message().contains("(completed)"), "{answer:?}");
}

#[test]
fn a_subagent_stop_reads_the_agents_own_transcript() {
    let mut s = Session::new(false);
    s.prompt("Use a subagent to review the code.");
    s.turn(None, "Delegating.", [1, 1, 0, 0]);
    let agent = s.home.path().join("agent-a1b2c3d4.jsonl");
    std::fs::write(&agent, "").expect("write");
    let prompt = s.user_line("Review src/ for bugs.", true);
    let mut lines = vec![prompt];
    lines.extend(s.assistant_lines(
        vec![json!({"type": "text", "text": "No bugs.\n<promise>REVIEWED</promise>"})],
        [3, 4, 0, 0],
        true,
    ));
    Session::append_to(&agent, &lines);
    let mut payload = s.stop_payload(true, None);
    payload["hook_event_name"] = json!("SubagentStop");
    payload["agent_id"] = json!("a1b2c3d4");
    payload["agent_type"] = json!("code-reviewer");
    payload["agent_transcript_path"] = json!(agent.to_string_lossy());
    let answer = Answer::of(s.hook(&payload.to_string(), &["--promise", "REVIEWED", "--fingerprint", "none"], &[]));
    assert!(answer.system_message().contains("(completed)"), "{answer:?}");
    let state = s.state_dir().join(format!("{}.agent-a1b2c3d4.json", s.id));
    let text = std::fs::read_to_string(&state).expect("the agent's state file");
    assert!(text.contains("Review src/ for bugs."), "the agent's own task: {text}");
    assert!(!s.state_dir().join(format!("{}.json", s.id)).exists());
    // The session's own stop does not see the agent's promise.
    let main = s.stop(false, &["--promise", "REVIEWED", "--fingerprint", "none"]);
    assert!(main.blocks());
}

#[test]
fn the_block_cap_is_never_reached() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    let args = ["--fingerprint", "none"];
    // Cap 3: two blocks after which no tool ran, then the stop goes through, saying why.
    let env = [("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "3")];
    let event = |s: &Session, active: bool| Answer::of(s.hook(&s.stop_payload(active, None).to_string(), &args, &env));
    s.turn(None, "thinking", [1, 1, 0, 0]);
    assert!(event(&s, false).blocks());
    s.turn(None, "thinking", [1, 1, 0, 0]);
    assert!(event(&s, true).blocks());
    // A tool call resets Claude Code's count, and ours.
    s.turn(Some(("Read", json!({"file_path": "/x"}), "text", false)), "read it", [1, 1, 0, 0]);
    assert!(event(&s, true).blocks());
    s.turn(None, "thinking", [1, 1, 0, 0]);
    assert!(event(&s, true).blocks());
    s.turn(None, "thinking", [1, 1, 0, 0]);
    let third = event(&s, true);
    assert!(!third.blocks(), "{third:?}");
    assert!(third.system_message().contains("Claude Code ends the turn after 3 blocks in a row"), "{third:?}");
    assert_eq!(s.status()["answered"], "cap");
}

#[test]
fn the_default_cap_lets_seven_blocks_through_at_most() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    let mut blocks = 0;
    for event in 1..=9 {
        s.turn(None, &format!("thinking {event}"), [1, 1, 0, 0]);
        let answer = s.stop(event > 1, &["--fingerprint", "message"]);
        if !answer.blocks() {
            assert!(answer.system_message().contains("after 8 blocks in a row"), "{answer:?}");
            break;
        }
        blocks += 1;
    }
    assert_eq!(blocks, 7);
}

#[test]
fn a_check_sets_quality_and_the_stop_names_the_best_iteration() {
    let mut s = Session::new(true);
    s.prompt("Fix it.");
    // The check passes while a.txt says "good"; the promise is never given, so a passing
    // check alone does not complete the loop.
    let args = ["--check", "grep -q good a.txt", "--max-iterations", "3", "--promise", "DONE"];
    for (event, content) in ["bad 1\n", "good\n", "bad 2\n"].into_iter().enumerate() {
        std::fs::write(s.dir().join("a.txt"), content).expect("write");
        s.turn(
            Some(("Write", json!({"file_path": s.dir().join("a.txt"), "content": content}), "ok", false)),
            "ok",
            [1, 1, 0, 0],
        );
        let answer = s.stop(event > 0, &args);
        if event == 0 {
            assert!(answer.reason().contains("the check still fails (exit code 1)"), "{answer:?}");
        }
        if event == 2 {
            let message = answer.system_message();
            assert!(message.contains("(max_iterations)"), "{message}");
            assert!(message.contains("Best iteration: 2 (quality 100)"), "{message}");
            assert!(message.contains("with uncommitted changes; files changed by then: a.txt"), "{message}");
        }
    }
}

#[test]
fn a_junit_report_gives_the_pass_rate() {
    let mut s = Session::new(false);
    s.prompt("Fix the tests.");
    let report = r#"<testsuite name="t" tests="4" failures="1"><testcase name="a"/><testcase name="b"/><testcase name="c"/><testcase name="d"><failure message="x"/></testcase></testsuite>"#;
    std::fs::write(s.dir().join("report.xml"), report).expect("write");
    s.turn(None, "ran them", [1, 1, 0, 0]);
    let answer = s.stop(false, &["--check", "exit 1", "--junit", "report.xml", "--fingerprint", "none"]);
    assert!(answer.reason().contains("tests still failing: 1 of 4"), "{answer:?}");
    let status = s.status();
    assert_eq!(status["decision"]["best_quality_score"], json!(75));
}

#[test]
fn tokens_and_cost_come_from_the_transcript_usage() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    // Two content blocks of one message: its usage counts once.
    s.turn(Some(("Read", json!({"file_path": "/x"}), "x", false)), "done", [100, 200, 1000, 400]);
    let args = ["--fingerprint", "none", "--usd-per-mtok", "3,15,0.3,3.75"];
    assert!(s.stop(false, &args).blocks());
    let status = s.status();
    // Two messages (the tool call's and the text's), each 1,700 tokens.
    assert_eq!(status["tokens"], json!(3400));
    let cost = status["cost_usd"].as_f64().expect("a cost");
    let expected = 2.0 * (100.0 * 3.0 + 200.0 * 15.0 + 1000.0 * 0.3 + 400.0 * 3.75) / 1e6;
    assert!((cost - expected).abs() < 1e-12, "{cost} vs {expected}");
    // A token budget stops the loop.
    s.turn(None, "more", [5000, 0, 0, 0]);
    let mut t = Session::new(false);
    t.prompt("Go.");
    t.turn(None, "big", [5000, 10, 0, 0]);
    let answer = t.stop(false, &["--fingerprint", "none", "--max-tokens", "1000"]);
    assert!(answer.system_message().contains("(budget_exhausted)"), "{answer:?}");
}

#[test]
fn a_new_prompt_after_a_stop_starts_a_new_loop() {
    let mut s = Session::new(false);
    s.prompt("First task.");
    s.turn(None, "<promise>OK</promise>", [1, 1, 0, 0]);
    assert!(!s.stop(false, &["--promise", "OK", "--fingerprint", "none"]).blocks());
    s.turn(None, "Anything else?", [1, 1, 0, 0]);
    s.prompt("Not that one.");
    s.prompt("Second task.");
    s.turn(None, "working on it", [1, 1, 0, 0]);
    let answer = s.stop(false, &["--promise", "OK", "--fingerprint", "none"]);
    assert!(answer.reason().starts_with("Second task."), "{answer:?}");
    let status = s.status();
    assert_eq!(status["loop"], json!(2));
    assert_eq!(status["iterations"], json!(1));
}

#[test]
fn a_prompt_file_replaces_the_task() {
    let mut s = Session::new(false);
    s.prompt("Original task.");
    std::fs::write(s.dir().join("PROMPT.md"), "Read PROMPT.md and carry on.\n").expect("write");
    s.turn(None, "hm", [1, 1, 0, 0]);
    let answer = s.stop(false, &["--prompt", "PROMPT.md", "--fingerprint", "none"]);
    assert!(
        answer.reason().starts_with("Read PROMPT.md and carry on.\n\nearlyexit, iteration 1 of at most 25"),
        "{answer:?}"
    );
    assert!(!answer.reason().contains("Original task."));
}

#[test]
fn unknown_transcript_lines_are_skipped_and_said_once() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    Session::append_to(&s.transcript, &[json!({"type": "a-future-kind", "x": 1})]);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&s.transcript)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"not json at all\n"))
        .expect("append");
    s.turn(None, "hm", [1, 1, 0, 0]);
    let first = s.stop(false, &["--fingerprint", "none"]);
    assert!(first.blocks());
    assert!(first.stderr.contains("skipped 2 transcript lines"), "{}", first.stderr);
    Session::append_to(&s.transcript, &[json!({"type": "a-future-kind"})]);
    let second = s.stop(true, &["--fingerprint", "none"]);
    assert!(second.blocks());
    assert!(second.stderr.is_empty(), "said once: {}", second.stderr);
}

#[test]
fn bad_options_fail_open() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    s.turn(None, "hm", [1, 1, 0, 0]);
    for args in [
        &["--preset", "recommended"][..],
        &["--max-cost-usd", "1"][..],
        &["--max-iterations", "0"][..],
        &["--usd-per-mtok", "1,2,3"][..],
        &["--policy", "{\"any\": [\"no_such_condition\"]}"][..],
    ] {
        let answer = s.stop(false, args);
        assert!(answer.failed_open(), "{args:?}: {answer:?}");
    }
    // A usage error of the hook is never exit 2 (which would block the stop).
    let out = s.hook("{}", &["--no-such-flag"], &[]);
    assert_eq!(out.status.code(), Some(1));
}

/// Outside a git worktree the fingerprint is the last message: the same message four stops
/// in a row is `unchanged`.
#[test]
fn outside_git_the_same_message_stops_as_unchanged() {
    let mut s = Session::new(false);
    s.prompt("Summarise the logs.");
    let mut stopped = None;
    for event in 1..=10 {
        s.turn(None, "I cannot find the logs.", [1, 1, 0, 0]);
        let answer = s.stop(event > 1, &[]);
        if !answer.blocks() {
            stopped = Some((event, answer));
            break;
        }
        if event == 3 {
            assert!(answer.reason().contains("the same last message for 2 turns"), "{answer:?}");
        }
    }
    let (event, answer) = stopped.expect("stops");
    assert_eq!(event, 4);
    assert!(answer.system_message().contains("(unchanged)"), "{answer:?}");
}

#[test]
fn a_policy_of_ones_own_decides_and_status_finds_the_newest_state() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    let policy = r#"{"any": [{"condition": "max_iterations", "limit": 2}]}"#;
    let args = ["--policy", policy, "--fingerprint", "none"];
    s.turn(None, "one", [1, 1, 0, 0]);
    assert!(s.stop(false, &args).blocks());
    s.turn(None, "two", [1, 1, 0, 0]);
    let answer = s.stop(true, &args);
    assert!(answer.system_message().contains("after 2 iterations (max_iterations)"), "{answer:?}");
    let out = hook_common::bin()
        .args(["hook", "claude-code", "--status", "--dir"])
        .arg(s.state_dir())
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with(&format!("session {}: loop 1, 2 iterations; last answer: stop", s.id)), "{text}");
    assert!(text.contains("decision: stop (max_iterations)"), "{text}");
}

/// The promise is read in the event's whole message, however long its last line.
#[test]
fn a_long_promise_is_read_whole() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    let promise = "x".repeat(5000);
    s.turn(None, &format!("Finished.\n<promise>{promise}</promise>"), [1, 1, 0, 0]);
    let answer = s.stop(false, &["--promise", &promise, "--fingerprint", "none"]);
    assert!(answer.system_message().contains("(completed)"), "{answer:?}");
}

/// Without a promise a passing check completes the loop; with one, the promise counts only
/// when the check passes too.
#[test]
fn a_passing_check_completes_and_a_promise_needs_it() {
    let mut s = Session::new(false);
    s.prompt("Go.");
    s.turn(None, "Done.\n<promise>DONE</promise>", [1, 1, 0, 0]);
    let failing = s.stop(false, &["--check", "exit 3", "--promise", "DONE", "--fingerprint", "none"]);
    assert!(failing.blocks(), "a promise over a failing check: {failing:?}");
    assert!(failing.reason().contains("the check still fails (exit code 3)"), "{failing:?}");
    s.turn(None, "Fixed.\n<promise>DONE</promise>", [1, 1, 0, 0]);
    let passing = s.stop(true, &["--check", "true", "--promise", "DONE", "--fingerprint", "none"]);
    assert!(passing.system_message().contains("after 2 iterations (completed)"), "{passing:?}");

    let mut t = Session::new(false);
    t.prompt("Go.");
    t.turn(None, "Fixed.", [1, 1, 0, 0]);
    let answer = t.stop(false, &["--check", "true", "--fingerprint", "none"]);
    assert!(answer.system_message().contains("after 1 iteration (completed)"), "{answer:?}");
}

/// A loop calibration artifact calibrated here on `tasks` tasks, each good from its first
/// iteration (`extra`: more `calibrate loops` flags); its path.
fn calibrated_artifact(s: &Session, tasks: usize, extra: &[&str]) -> std::path::PathBuf {
    let corpus = s.dir().join("runs.jsonl");
    let good = r#"{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}"#;
    let runs: String = (0..tasks).map(|i| format!(r#"{{"id":"t{i}","iterations":[{good},{good}]}}"#) + "\n").collect();
    std::fs::write(&corpus, runs).expect("write");
    let artifact = s.dir().join("artifact.json");
    let out = hook_common::bin()
        .args(["calibrate", "loops", "--risk", "0.1", "--delta", "0.1"])
        .args(extra)
        .arg("--out")
        .arg(&artifact)
        .arg(&corpus)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    artifact
}

/// Two Stop events of a loop run with `artifact` as `--policy`: what the hook wrote on stderr
/// at each (neither fails open).
fn stderr_of_two_events(s: &mut Session, artifact: &std::path::Path) -> Vec<String> {
    s.prompt("Fix it.");
    let args = ["--policy", artifact.to_str().expect("UTF-8"), "--check", "false", "--fingerprint", "none"];
    let mut said = Vec::new();
    for event in 0..2 {
        s.turn(None, &format!("attempt {event}"), [1, 1, 0, 0]);
        let out = s.hook(&s.stop_payload(event > 0, None).to_string(), &args, &[]);
        let answer = Answer::of(out.clone());
        assert!(!answer.failed_open(), "{answer:?}");
        said.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    said
}

/// A loop calibration artifact as `--policy` follows the core's rule, as `loop record` does:
/// not promoted, it enforces the calibration's most conservative policy, runs the calibrated
/// one in shadow, and says why on stderr once per loop (not on every event).
#[test]
fn an_unpromoted_artifact_enforces_its_conservative_policy_and_says_so_once() {
    let mut s = Session::new(false);
    let artifact = calibrated_artifact(&s, 150, &[]);
    let notices = stderr_of_two_events(&mut s, &artifact);
    assert!(notices[0].contains("not promoted"), "{}", notices[0]);
    assert!(!notices[0].contains("earlyexit: earlyexit:"), "prefixed twice: {}", notices[0]);
    assert!(!notices[1].contains("not promoted"), "said again: {}", notices[1]);
    // The calibrated policy would have stopped at the second event; the enforced one goes on.
    let status = s.status();
    assert_eq!(status["answered"], "block", "{status}");
    assert_eq!(status["decision"]["would_stop"]["iteration"], 2, "{status}");
}

/// An uncertified artifact as `--policy` says so once per loop, worded as `loop record` words it.
#[test]
fn an_uncertified_artifact_says_so_once() {
    let mut s = Session::new(false);
    let artifact = calibrated_artifact(&s, 10, &["--allow-uncertified"]);
    let said = stderr_of_two_events(&mut s, &artifact);
    assert_eq!(said[0].matches("earlyexit: loading an uncertified loop calibration").count(), 1, "{}", said[0]);
    assert!(!said[0].contains("earlyexit: earlyexit:"), "prefixed twice: {}", said[0]);
    assert!(!said[1].contains("uncertified"), "said again: {}", said[1]);
}

/// `--policy store:NAME` reads the artifact of the store `EARLYEXIT_STORE` names and follows
/// the same rule as its file: not promoted, it says so once and runs the calibrated policy in
/// shadow. A name the store does not hold fails open, saying why.
#[test]
fn a_stored_artifact_as_policy_behaves_as_its_file() {
    let mut s = Session::new(false);
    let file = calibrated_artifact(&s, 150, &[]);
    let store = format!("sqlite:{}", s.dir().join("store.db").display());
    let out = hook_common::bin()
        .args(["drift", "loops", "--store", &store, "--out", "store:agent", "--artifact"])
        .arg(&file)
        .arg(s.dir().join("runs.jsonl"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    s.prompt("Fix it.");
    let args = ["--policy", "store:agent", "--check", "false", "--fingerprint", "none"];
    let mut said = Vec::new();
    for event in 0..2 {
        s.turn(None, &format!("attempt {event}"), [1, 1, 0, 0]);
        let out = s.hook(&s.stop_payload(event > 0, None).to_string(), &args, &[("EARLYEXIT_STORE", &store)]);
        let answer = Answer::of(out.clone());
        assert!(!answer.failed_open(), "{answer:?}");
        said.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    assert!(said[0].contains("not promoted"), "{}", said[0]);
    assert!(!said[1].contains("not promoted"), "said again: {}", said[1]);
    let status = s.status();
    assert_eq!(status["decision"]["would_stop"]["iteration"], 2, "{status}");
}
