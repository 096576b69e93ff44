//! A session's state file (one per `session_id`, and per `agent_id` for a subagent) under
//! the hook's directory: the loop (the core's `Loop` snapshot) and what the hook keeps
//! between events (the transcript offset, the task, the blocks in a row). Written with the
//! command's locking and atomic writes (`state.rs`).

use std::path::{Path, PathBuf};

use crate::core_api::{self, Loop, Value};

use super::transcript::Tokens;

/// The `kind` of a hook state file.
pub const KIND: &str = "earlyexit-claude-code-hook";
/// The state file format's version.
pub const VERSION: f64 = 1.0;
/// Characters of the last message's last line kept (the promise is read there).
const LAST_LINE_CHARS: usize = 4096;
/// Files a loop lists (the first ones).
const MAX_LOOP_FILES: usize = 1000;

/// What the hook answered last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answered {
    Block,
    Stop,
    Cap,
}

impl Answered {
    fn as_str(self) -> &'static str {
        match self {
            Answered::Block => "block",
            Answered::Stop => "stop",
            Answered::Cap => "cap",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Answered::Block, Answered::Stop, Answered::Cap].into_iter().find(|a| a.as_str() == text)
    }
}

/// A session's state.
pub struct Session {
    pub session: String,
    pub agent: Option<String>,
    pub transcript: Option<String>,
    pub offset: u64,
    pub task: Option<String>,
    pub message_sha256: Option<String>,
    pub message_last_line: Option<String>,
    pub blocks_in_a_row: u64,
    pub answered: Option<Answered>,
    pub warned_unknown: bool,
    pub tokens: Tokens,
    pub cost_usd: Option<f64>,
    pub files: Vec<String>,
    pub quality_known: bool,
    pub loops: u64,
    pub run: Option<Loop<Value>>,
}

impl Session {
    pub fn new(session: &str, agent: Option<&str>) -> Self {
        Session {
            session: session.to_string(),
            agent: agent.map(str::to_string),
            transcript: None,
            offset: 0,
            task: None,
            message_sha256: None,
            message_last_line: None,
            blocks_in_a_row: 0,
            answered: None,
            warned_unknown: false,
            tokens: Tokens::default(),
            cost_usd: None,
            files: Vec::new(),
            quality_known: false,
            loops: 0,
            run: None,
        }
    }

    /// Starts a new loop in this session (after a stop let through): the transcript offset
    /// and the notices stay.
    pub fn new_loop(&mut self) {
        self.task = None;
        self.blocks_in_a_row = 0;
        self.answered = None;
        self.tokens = Tokens::default();
        self.cost_usd = None;
        self.files.clear();
        self.quality_known = false;
        self.run = None;
    }

    /// Keeps the last message's fingerprint and last non-empty line.
    pub fn set_message(&mut self, text: &str) {
        self.message_sha256 = Some(super::fingerprint::message(text));
        let last = text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        self.message_last_line = Some(last.chars().take(LAST_LINE_CHARS).collect());
    }

    pub fn add_files(&mut self, files: &[String]) {
        for file in files {
            if self.files.len() >= MAX_LOOP_FILES {
                break;
            }
            if !self.files.contains(file) {
                self.files.push(file.clone());
            }
        }
    }

    pub fn to_value(&self) -> Result<Value, String> {
        let text = |t: &Option<String>| t.as_ref().map_or(Value::Null, |t| Value::string(t.as_str()));
        let run = match &self.run {
            Some(run) => run.to_value(true, |v| Some(v.clone())).map_err(|e| e.message().to_string())?,
            None => Value::Null,
        };
        Ok(Value::object(vec![
            ("kind", Value::string(KIND)),
            ("version", Value::Number(VERSION)),
            ("session", Value::string(self.session.as_str())),
            ("agent", text(&self.agent)),
            ("transcript", text(&self.transcript)),
            ("offset", Value::Number(self.offset as f64)),
            ("task", text(&self.task)),
            ("message_sha256", text(&self.message_sha256)),
            ("message_last_line", text(&self.message_last_line)),
            ("blocks_in_a_row", Value::Number(self.blocks_in_a_row as f64)),
            ("answered", self.answered.map_or(Value::Null, |a| Value::string(a.as_str()))),
            ("warned_unknown", Value::Bool(self.warned_unknown)),
            (
                "tokens",
                Value::object(vec![
                    ("input", Value::Number(self.tokens.input as f64)),
                    ("output", Value::Number(self.tokens.output as f64)),
                    ("cache_read", Value::Number(self.tokens.cache_read as f64)),
                    ("cache_write", Value::Number(self.tokens.cache_write as f64)),
                ]),
            ),
            ("cost_usd", self.cost_usd.map_or(Value::Null, Value::Number)),
            ("files", Value::Array(self.files.iter().map(|f| Value::string(f.as_str())).collect())),
            ("quality_known", Value::Bool(self.quality_known)),
            ("loops", Value::Number(self.loops as f64)),
            ("loop", run),
        ]))
    }

    pub fn from_text(text: &str) -> Result<Session, String> {
        let value = core_api::parse_json(text, "invalid_snapshot", "state").map_err(|e| e.message().to_string())?;
        if value.get("kind").and_then(Value::as_str) != Some(KIND) {
            return Err(format!("not a hook state file (its kind is not {KIND})"));
        }
        if value.get("version").and_then(Value::as_f64) != Some(VERSION) {
            return Err("a hook state file of another version".into());
        }
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        let count = |v: Option<&Value>| v.and_then(Value::as_f64).filter(|n| *n >= 0.0).map_or(0, |n| n as u64);
        let tokens = value.get("tokens");
        let token = |key: &str| count(tokens.and_then(|t| t.get(key)));
        let run = match value.get("loop") {
            None | Some(Value::Null) => None,
            Some(run) => Some(
                Loop::from_value(run, |_, output| Ok(output.cloned().unwrap_or(Value::Null)))
                    .map_err(|e| e.message().to_string())?,
            ),
        };
        let files = match value.get("files") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        };
        Ok(Session {
            session: text("session").unwrap_or_default(),
            agent: text("agent"),
            transcript: text("transcript"),
            offset: count(value.get("offset")),
            task: text("task"),
            message_sha256: text("message_sha256"),
            message_last_line: text("message_last_line"),
            blocks_in_a_row: count(value.get("blocks_in_a_row")),
            answered: text("answered").as_deref().and_then(Answered::parse),
            warned_unknown: value.get("warned_unknown").and_then(Value::as_bool).unwrap_or(false),
            tokens: Tokens {
                input: token("input"),
                output: token("output"),
                cache_read: token("cache_read"),
                cache_write: token("cache_write"),
            },
            cost_usd: value.get("cost_usd").and_then(Value::as_f64),
            files,
            quality_known: value.get("quality_known").and_then(Value::as_bool).unwrap_or(false),
            loops: count(value.get("loops")),
            run,
        })
    }
}

/// A name safe as a file name: the id itself when it is short and plain (Claude Code's
/// UUIDs), else `h-` and its SHA-256.
fn file_part(id: &str) -> String {
    let plain = !id.is_empty()
        && id.len() <= 80
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !id.starts_with('-');
    if plain {
        id.to_string()
    } else {
        format!("h-{}", earlyexit_digest::sha256_hex(id.as_bytes()))
    }
}

/// The state file of a session (and agent) under `dir`.
pub fn state_path(dir: &Path, session: &str, agent: Option<&str>) -> PathBuf {
    match agent {
        Some(agent) => dir.join(format!("{}.agent-{}.json", file_part(session), file_part(agent))),
        None => dir.join(format!("{}.json", file_part(session))),
    }
}

/// Creates the hook's directory with a `.gitignore` holding `*` (so nothing in it is
/// committed, and the git fingerprint never sees it).
pub fn prepare_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n").map_err(|e| format!("cannot write {}: {e}", ignore.display()))?;
    }
    Ok(())
}
