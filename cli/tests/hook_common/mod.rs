//! Fixtures for `earlyexit hook claude-code`, written by the tests: Stop / SubagentStop
//! payloads as Claude Code's hooks reference documents them, and transcripts in the JSONL
//! format Claude Code 2.0.37 writes (one line per event: `type`, `message`, `uuid`,
//! `sessionId`, `version`, ...; one assistant line per content block, each with the
//! message's `usage`; tool results as `user` lines). Nothing is copied from a real session.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// The Claude Code version whose transcript format the fixtures follow.
pub const CLAUDE_CODE_VERSION: &str = "2.0.37";

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_earlyexit"))
}

/// A project (a git repository with one commit, or a plain directory) and a transcript
/// outside it, as Claude Code keeps them.
pub struct Session {
    pub project: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub transcript: PathBuf,
    pub id: String,
    lines: u64,
    messages: u64,
}

pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

impl Session {
    pub fn new(with_git: bool) -> Session {
        let project = tempfile::tempdir().expect("a temporary directory");
        let home = tempfile::tempdir().expect("a temporary directory");
        if with_git {
            git(project.path(), &["init", "-q"]);
            std::fs::write(project.path().join("a.txt"), "start\n").expect("write");
            git(project.path(), &["add", "a.txt"]);
            git(project.path(), &["commit", "-q", "-m", "start"]);
        }
        let transcript = home.path().join("3f1c2a9e-7b7d-4c55-9a53-1f0e6a5b8c11.jsonl");
        std::fs::write(&transcript, "").expect("write");
        Session { project, home, transcript, id: "3f1c2a9e-7b7d-4c55-9a53-1f0e6a5b8c11".into(), lines: 0, messages: 0 }
    }

    pub fn dir(&self) -> &Path {
        self.project.path()
    }

    pub fn state_dir(&self) -> PathBuf {
        self.dir().join(".earlyexit").join("claude-code")
    }

    fn base(&mut self, kind: &str, sidechain: bool) -> serde_json::Map<String, Value> {
        self.lines += 1;
        let mut line = serde_json::Map::new();
        line.insert("parentUuid".into(), Value::Null);
        line.insert("isSidechain".into(), json!(sidechain));
        line.insert("userType".into(), json!("external"));
        line.insert("cwd".into(), json!(self.project.path().to_string_lossy()));
        line.insert("sessionId".into(), json!(self.id));
        line.insert("version".into(), json!(CLAUDE_CODE_VERSION));
        line.insert("gitBranch".into(), json!("main"));
        line.insert("type".into(), json!(kind));
        line.insert("uuid".into(), json!(format!("00000000-0000-4000-8000-{:012}", self.lines)));
        line.insert("timestamp".into(), json!("2025-11-03T10:00:00.000Z"));
        line
    }

    pub fn append_to(path: &Path, lines: &[Value]) {
        let mut file = std::fs::OpenOptions::new().append(true).open(path).expect("open the transcript");
        for line in lines {
            writeln!(file, "{line}").expect("write");
        }
    }

    fn append(&self, lines: &[Value]) {
        Self::append_to(&self.transcript, lines);
    }

    /// A prompt the user typed.
    pub fn user_line(&mut self, text: &str, sidechain: bool) -> Value {
        let mut line = self.base("user", sidechain);
        line.insert("message".into(), json!({"role": "user", "content": text}));
        Value::Object(line)
    }

    /// One assistant message: text and tool calls, one line per content block (as Claude
    /// Code writes them), each carrying the message's usage.
    pub fn assistant_lines(&mut self, blocks: Vec<Value>, usage: [u64; 4], sidechain: bool) -> Vec<Value> {
        self.messages += 1;
        let id = format!("msg_01Fixture{:08}", self.messages);
        let [input, output, read, write] = usage;
        blocks
            .into_iter()
            .map(|block| {
                let mut line = self.base("assistant", sidechain);
                line.insert(
                    "message".into(),
                    json!({
                        "id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                        "content": [block], "stop_reason": null, "stop_sequence": null,
                        "usage": {"input_tokens": input, "cache_creation_input_tokens": write,
                                  "cache_read_input_tokens": read, "output_tokens": output,
                                  "service_tier": "standard"}
                    }),
                );
                line.insert("requestId".into(), json!("req_011Fixture"));
                Value::Object(line)
            })
            .collect()
    }

    /// A tool's result (`is_error` for a failed call).
    pub fn tool_result_line(&mut self, id: &str, content: &str, is_error: bool, sidechain: bool) -> Value {
        let mut line = self.base("user", sidechain);
        line.insert(
            "message".into(),
            json!({"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": content, "is_error": is_error}]}),
        );
        line.insert("toolUseResult".into(), json!(content));
        Value::Object(line)
    }

    pub fn prompt(&mut self, text: &str) {
        let line = self.user_line(text, false);
        self.append(&[line]);
    }

    /// A turn: optional tool call (name, input, result, error) then the final text.
    pub fn turn(&mut self, tool: Option<(&str, Value, &str, bool)>, text: &str, usage: [u64; 4]) {
        let mut lines = Vec::new();
        if let Some((name, input, result, is_error)) = tool {
            let id = format!("toolu_01Fixture{:08}", self.lines);
            lines.extend(self.assistant_lines(
                vec![json!({"type": "tool_use", "id": id, "name": name, "input": input})],
                usage,
                false,
            ));
            lines.push(self.tool_result_line(&id, result, is_error, false));
        }
        lines.extend(self.assistant_lines(vec![json!({"type": "text", "text": text})], usage, false));
        self.append(&lines);
    }

    /// The Stop payload of the documented hook input (plus a key this hook does not read).
    pub fn stop_payload(&self, active: bool, last_message: Option<&str>) -> Value {
        let mut payload = json!({
            "session_id": self.id,
            "transcript_path": self.transcript.to_string_lossy(),
            "cwd": self.project.path().to_string_lossy(),
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": active,
            "background_tasks": [],
        });
        if let Some(text) = last_message {
            payload["last_assistant_message"] = json!(text);
        }
        payload
    }

    /// Runs the hook on `payload` with `args`; `env` adds variables.
    pub fn hook(&self, payload: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        run_hook(self.dir(), payload.as_bytes(), args, env, None)
    }

    /// Runs one Stop event.
    pub fn stop(&self, active: bool, args: &[&str]) -> Answer {
        Answer::of(self.hook(&self.stop_payload(active, None).to_string(), args, &[]))
    }

    pub fn status(&self) -> Value {
        let dir = self.state_dir();
        let out = bin()
            .args(["--json", "hook", "claude-code", "--status", "--session", &self.id, "--dir"])
            .arg(&dir)
            .output()
            .expect("runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("status JSON")
    }
}

pub fn run_hook(dir: &Path, stdin: &[u8], args: &[&str], env: &[(&str, &str)], prlimit: Option<&str>) -> Output {
    let mut command = match prlimit {
        Some(limit) => {
            let mut c = Command::new("prlimit");
            c.arg(limit).arg("--").arg(env!("CARGO_BIN_EXE_earlyexit"));
            c
        }
        None => bin(),
    };
    command.args(["hook", "claude-code"]).args(args).current_dir(dir);
    command.env_remove("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the hook runs");
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().expect("the hook ends");
    let _ = writer.join();
    out
}

/// What the hook answered.
#[derive(Debug)]
pub struct Answer {
    pub code: Option<i32>,
    pub json: Option<Value>,
    pub stderr: String,
}

impl Answer {
    pub fn of(out: Output) -> Answer {
        let text = String::from_utf8_lossy(&out.stdout);
        let json =
            if text.trim().is_empty() { None } else { Some(serde_json::from_str(text.trim()).expect("JSON answer")) };
        Answer { code: out.status.code(), json, stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
    }

    pub fn blocks(&self) -> bool {
        self.json.as_ref().is_some_and(|j| j["decision"] == "block")
    }

    pub fn reason(&self) -> &str {
        self.json.as_ref().and_then(|j| j["reason"].as_str()).unwrap_or("")
    }

    pub fn system_message(&self) -> &str {
        self.json.as_ref().and_then(|j| j["systemMessage"].as_str()).unwrap_or("")
    }

    /// Failed open: exit 0, nothing on stdout (the stop goes through), a message on stderr.
    pub fn failed_open(&self) -> bool {
        self.code == Some(0) && self.json.is_none() && self.stderr.contains("letting the stop through")
    }
}
