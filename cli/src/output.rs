//! What the command prints and how it ends: exit codes, errors (text, or JSON on stderr
//! with `--json`), and JSON documents on stdout.

use std::io::Write;

use crate::core_api::{error_kind, CoreError, Value};

/// Exit codes (docs/cli.md, "Exit codes"). 0, 10, 11, 2 and 1 are the contract every
/// subcommand keeps; 12 and 13 are `pyramid result`'s verdicts, 14 `calibrate loops`'s
/// uncertified artifact.
pub mod code {
    /// Go on (record the next iteration) / run the printed layer / success.
    pub const GO_ON: u8 = 0;
    /// Internal error (an I/O failure writing state, a bug).
    pub const INTERNAL: u8 = 1;
    /// Bad input or usage.
    pub const BAD_INPUT: u8 = 2;
    /// Stop / nothing more to run.
    pub const STOP: u8 = 10;
    /// Verify the printed layer.
    pub const VERIFY: u8 = 11;
    /// `pyramid result`: the verdict is `failed`.
    pub const VERDICT_FAILED: u8 = 12;
    /// `pyramid result`: the verdict is `unverified` (without `--allow-unverified`).
    pub const VERDICT_UNVERIFIED: u8 = 13;
    /// `calibrate loops`: the artifact certifies nothing (written or printed all the same),
    /// unless `--allow-uncertified`.
    pub const UNCERTIFIED: u8 = 14;
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The core refused a value: code, kind, field and message are the core's. `flag` names
    /// the command-line flag that gave it, `file` the file it came from.
    Core { error: CoreError, flag: Option<String>, file: Option<String> },
    /// A usage problem the command words itself (exit 2).
    Usage(String),
    /// An input file that cannot be read (exit 2).
    Input { path: String, message: String },
    /// Anything else: writing state failed, an internal bug (exit 1).
    Internal(String),
}

impl Failure {
    /// A core error with no flag or file.
    pub fn core(error: CoreError) -> Self {
        Failure::Core { error, flag: None, file: None }
    }

    /// The exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Internal(_) => code::INTERNAL,
            _ => code::BAD_INPUT,
        }
    }

    /// `{error: {code, kind, field, message, flag?, file?}}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut error = serde_json::Map::new();
        match self {
            Failure::Core { error: e, flag, file } => {
                error.insert("code".into(), e.code().into());
                error.insert("kind".into(), error_kind(e).into());
                error.insert("field".into(), e.field().into());
                error.insert("message".into(), e.message().into());
                if let Some(flag) = flag {
                    error.insert("flag".into(), flag.clone().into());
                }
                if let Some(file) = file {
                    error.insert("file".into(), file.clone().into());
                }
            }
            Failure::Usage(message) => {
                error.insert("code".into(), "usage".into());
                error.insert("message".into(), message.clone().into());
            }
            Failure::Input { path, message } => {
                error.insert("code".into(), "input".into());
                error.insert("file".into(), path.clone().into());
                error.insert("message".into(), message.clone().into());
            }
            Failure::Internal(message) => {
                error.insert("code".into(), "internal".into());
                error.insert("message".into(), message.clone().into());
            }
        }
        serde_json::json!({ "error": error })
    }

    /// One line for a person.
    pub fn to_text(&self) -> String {
        match self {
            Failure::Core { error, flag, file } => {
                let mut text = format!("{} ({}): {}", error.code(), error.field(), error.message());
                if let Some(flag) = flag {
                    text.push_str(&format!(" [{flag}]"));
                }
                if let Some(file) = file {
                    text.push_str(&format!(" [in {file}]"));
                }
                text
            }
            Failure::Usage(message) => format!("usage: {message}"),
            Failure::Input { path, message } => format!("cannot read {path}: {message}"),
            Failure::Internal(message) => format!("internal error: {message}"),
        }
    }

    /// Prints the failure on stderr.
    pub fn report(&self, json: bool) {
        let mut err = std::io::stderr().lock();
        let _ = if json { writeln!(err, "{}", self.to_json()) } else { writeln!(err, "earlyexit: {}", self.to_text()) };
    }
}

impl From<CoreError> for Failure {
    fn from(error: CoreError) -> Self {
        Failure::core(error)
    }
}

/// Adds the flag that gave a value to a core error.
pub fn with_flag(error: CoreError, flag: &str) -> Failure {
    Failure::Core { error, flag: Some(flag.to_string()), file: None }
}

/// Adds the file a value came from to a core error.
pub fn with_file(error: CoreError, file: &str) -> Failure {
    Failure::Core { error, flag: None, file: Some(file.to_string()) }
}

/// What a command answers: a document and its exit code. `human` is the text for a person
/// (printed on a TTY without `--json`).
pub struct Answer {
    /// The JSON document (the core's values, so it is byte-identical to the libraries').
    pub json: String,
    /// The text for a person.
    pub human: String,
    /// The exit code.
    pub code: u8,
}

/// Prints the answer on stdout.
pub fn print(answer: &Answer, json: bool) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    let text = if json { &answer.json } else { &answer.human };
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        // A reader that stopped early (`| head`) ends the output quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| Failure::Internal(format!("writing stdout: {e}"))),
    }
}

/// A core value's compact JSON (the libraries' bytes).
pub fn json(value: &Value) -> String {
    value.to_json()
}
