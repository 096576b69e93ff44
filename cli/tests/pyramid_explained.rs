//! `earlyexit pyramid` results that explain themselves: the new index lists and `note` in
//! the JSON, one word for a layer's outcome and another for a prediction in the text, the
//! reason a shadow run appended no receipt, and the policy's config flags.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_earlyexit")).args(args).output().expect("the binary runs")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn submit_all(state: &Path) {
    for _ in 0..8 {
        let next = run(&["--json", "pyramid", "next", "--state", s(state)]);
        let text = stdout(&next);
        let Some(at) = text.find("\"layer\":") else { return };
        let layer: String = text[at + 8..].chars().take_while(char::is_ascii_digit).collect();
        let out = run(&[
            "pyramid",
            "submit",
            "--state",
            s(state),
            &layer,
            "--pass-rate",
            "1",
            "--flaky",
            "0",
            "--coverage",
            "0.95",
        ]);
        assert!(matches!(out.status.code(), Some(0 | 10 | 11)), "{}", stderr(&out));
    }
}

#[test]
fn three_layers_under_the_default_preset_print_the_note_and_the_outcome_words() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = dir.path().join("run.json");
    let out = run(&[
        "pyramid",
        "start",
        "--state",
        s(&state),
        "--layer",
        "unit=10",
        "--layer",
        "integration=50",
        "--layer",
        "e2e=500",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    submit_all(&state);
    let json = run(&["--json", "pyramid", "result", "--state", s(&state)]);
    let text = stdout(&json);
    assert!(
        text.contains(r#""layersBeforeExit":[0],"layersVerified":[1,2],"layersNotRun":[],"note":"nothing saved: "#),
        "{text}"
    );
    assert!(text.contains(r#""layer":1,"name":"integration"}"#), "{text}");
    let human = stdout(&run(&["pyramid", "result", "--state", s(&state)]));
    assert!(human.contains("layer 0 unit: passed"), "{human}");
    assert!(human.contains("layer 1 integration: passed (verified; prediction pass: correct)"), "{human}");
    assert!(human.contains("\n  note: nothing saved: "), "{human}");
}

#[test]
fn a_shadow_run_without_an_exit_says_why_it_appended_no_receipt() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = dir.path().join("run.json");
    let log = dir.path().join("receipts.jsonl");
    let out = run(&[
        "pyramid",
        "start",
        "--state",
        s(&state),
        "--layer",
        "unit=10",
        "--layer",
        "e2e=90",
        "--policy",
        "fail_fast",
        "--mode",
        "shadow",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    submit_all(&state);
    let human = stdout(&run(&["pyramid", "result", "--state", s(&state), "--receipts", s(&log)]));
    assert!(human.contains("0 receipt(s) appended"), "{human}");
    assert!(human.contains("(no receipt: the policy would not have exited anywhere in this run"), "{human}");
}

#[test]
fn the_risk_budget_and_policy_config_flags_set_the_policys_config() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = dir.path().join("run.json");
    let policy = dir.path().join("policy.json");
    std::fs::write(&policy, r#"{"riskBudget": 0.2, "confidence": 0.9}"#).expect("write");
    let layers = ["--layer", "unit=10", "--layer", "e2e=90"];
    let start = |extra: &[&str]| {
        let mut args = vec!["--json", "pyramid", "start", "--state", s(&state), "--force", "--policy", "risk_bounded"];
        args.extend_from_slice(&layers);
        args.extend_from_slice(extra);
        run(&args)
    };
    let out = start(&["--policy-config", s(&policy), "--risk-budget", "0.07"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let saved = std::fs::read_to_string(&state).expect("the state file");
    assert!(saved.contains(r#""riskBudget":0.07"#) && saved.contains(r#""confidence":0.9"#), "{saved}");
    // A bad budget names --risk-budget; a bad file names --policy-config.
    let out = start(&["--risk-budget", "1.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--risk-budget") && stderr(&out).contains("policyConfig.riskBudget"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&policy, r#"{"riskBudgett": 0.2}"#).expect("write");
    let out = start(&["--policy-config", s(&policy)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--policy-config"), "{}", stderr(&out));
}

#[test]
fn a_risk_budget_in_the_exit_config_is_refused_with_a_did_you_mean() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = dir.path().join("run.json");
    let config = dir.path().join("exit.json");
    std::fs::write(&config, r#"{"exitLayer": 1, "riskBudget": 0.05}"#).expect("write");
    let out = run(&["--json", "pyramid", "start", "--state", s(&state), "--config", s(&config), "--layer", "unit"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("unknown_option")
            && err.contains("config.riskBudget")
            && err.contains("did you mean --risk-budget?"),
        "{err}"
    );
    assert!(!state.exists(), "nothing written");
}
