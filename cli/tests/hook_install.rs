//! `earlyexit hook claude-code --install / --uninstall` on existing settings files: merged
//! (other keys and hooks kept, in their order), a backup first, idempotent, exactly our
//! entry removed, and a file that is not a JSON object refused unchanged.

mod hook_common;

use std::path::Path;
use std::process::Output;

use hook_common::{bin, git};
use serde_json::{json, Value};

fn run(dir: &Path, args: &[&str]) -> Output {
    bin().args(["hook", "claude-code"]).args(args).current_dir(dir).output().expect("runs")
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("settings")).expect("JSON")
}

const EXISTING: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]
  },
  "env": {"FOO": "1"}
}"#;

#[test]
fn install_merges_backs_up_and_uninstall_removes_exactly_ours() {
    let dir = tempfile::tempdir().expect("tmp");
    git(dir.path(), &["init", "-q"]);
    let settings = dir.path().join(".claude").join("settings.json");
    std::fs::create_dir_all(settings.parent().expect("parent")).expect("mkdir");
    std::fs::write(&settings, EXISTING).expect("write");
    let out = run(dir.path(), &["--install", "--promise", "ALL DONE", "--check", "npm test", "--subagents"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let backup = dir.path().join(".claude").join("settings.json.earlyexit-backup");
    assert_eq!(std::fs::read_to_string(&backup).expect("backup"), EXISTING);
    let v = read(&settings);
    let text = std::fs::read_to_string(&settings).expect("settings");
    // Keys keep their order.
    let at = |k: &str| text.find(k).expect(k);
    assert!(at("\"model\"") < at("\"permissions\"") && at("\"hooks\"") < at("\"env\""));
    let stop = v["hooks"]["Stop"].as_array().expect("Stop");
    assert_eq!(stop.len(), 2);
    assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
    assert_eq!(
        stop[1]["hooks"][0],
        json!({"type": "command", "command": "earlyexit hook claude-code --check 'npm test' --promise 'ALL DONE'", "timeout": 360})
    );
    assert_eq!(v["hooks"]["SubagentStop"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "audit.sh");
    let exclude = std::fs::read_to_string(dir.path().join(".git").join("info").join("exclude")).expect("exclude");
    assert!(exclude.lines().any(|l| l == "/.earlyexit/"), "{exclude}");

    // Again: still one entry of ours, the new options.
    let out = run(dir.path(), &["--install", "--fingerprint", "message"]);
    assert!(out.status.success());
    let v = read(&settings);
    let stop = v["hooks"]["Stop"].as_array().expect("Stop");
    assert_eq!(stop.len(), 2);
    assert_eq!(stop[1]["hooks"][0]["command"], "earlyexit hook claude-code --fingerprint message");
    assert!(v["hooks"].get("SubagentStop").is_none(), "the earlier SubagentStop entry was ours: replaced");
    let exclude = std::fs::read_to_string(dir.path().join(".git").join("info").join("exclude")).expect("exclude");
    assert_eq!(exclude.lines().filter(|l| *l == "/.earlyexit/").count(), 1);

    let out = run(dir.path(), &["--uninstall"]);
    assert!(out.status.success());
    assert_eq!(read(&settings), serde_json::from_str::<Value>(EXISTING).expect("json"));
    let out = run(dir.path(), &["--uninstall"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no earlyexit hook to remove"));
}

#[test]
fn install_creates_settings_and_uninstall_leaves_an_empty_object() {
    let dir = tempfile::tempdir().expect("tmp");
    let user = dir.path().join("home").join("settings.json");
    let out = run(dir.path(), &["--install", "--settings", user.to_str().expect("utf8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        read(&user),
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "earlyexit hook claude-code"}]}]}})
    );
    let out = run(dir.path(), &["--uninstall", "--settings", user.to_str().expect("utf8")]);
    assert!(out.status.success());
    assert_eq!(read(&user), json!({}));
}

#[test]
fn settings_that_are_not_an_object_are_refused_unchanged() {
    let dir = tempfile::tempdir().expect("tmp");
    let settings = dir.path().join("s.json");
    for text in ["[1, 2]", "\"x\"", "{not json", "{\"hooks\": []}", "{\"hooks\": {\"Stop\": {}}}"] {
        std::fs::write(&settings, text).expect("write");
        let out = run(dir.path(), &["--install", "--settings", settings.to_str().expect("utf8")]);
        assert!(!out.status.success(), "{text}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("left as it is"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(&settings).expect("read"), text);
        assert!(!dir.path().join("s.json.earlyexit-backup").exists());
    }
}

#[test]
fn install_refuses_bad_options_before_writing() {
    let dir = tempfile::tempdir().expect("tmp");
    let settings = dir.path().join("s.json");
    let out = run(dir.path(), &["--install", "--settings", settings.to_str().expect("utf8"), "--max-cost-usd", "5"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--usd-per-mtok"));
    assert!(!settings.exists());
}

/// Every long flag `hook claude-code --help` lists is documented in docs/cli.md.
#[test]
fn every_flag_of_the_hook_is_in_the_docs() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md")).expect("docs");
    assert!(docs.contains("`earlyexit hook claude-code`"));
    let out = bin().args(["hook", "claude-code", "--help"]).output().expect("runs");
    let help = String::from_utf8_lossy(&out.stdout);
    let missing: Vec<String> = help
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter_map(|w| w.strip_prefix("--"))
        .map(|f| f.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>())
        .filter(|f| !f.is_empty() && f != "help" && !docs.contains(&format!("--{f}")))
        .collect();
    assert!(missing.is_empty(), "in --help but not in docs/cli.md: {missing:?}");
}
