//! The hook's input: the JSON object Claude Code writes on standard input for a `Stop` or
//! `SubagentStop` event (its hooks reference). Keys this hook does not read
//! (`background_tasks`, newer ones) are ignored; the input is read up to a bound.

use std::io::Read;

use serde::Deserialize;

/// Bytes of payload read: a larger one is refused (the hook lets the stop through).
pub const MAX_PAYLOAD_BYTES: usize = 4 << 20;

/// The fields of a `Stop` / `SubagentStop` payload the hook reads.
#[derive(Debug, Default, Deserialize)]
pub struct Payload {
    pub session_id: String,
    #[serde(default)]
    pub transcript_path: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
    #[serde(default)]
    pub stop_hook_active: Option<bool>,
    #[serde(default)]
    pub last_assistant_message: Option<String>,
    #[serde(default)]
    pub agent_id: Option<String>,
    #[serde(default)]
    pub agent_type: Option<String>,
    #[serde(default)]
    pub agent_transcript_path: Option<String>,
}

impl Payload {
    /// Whether this is a subagent's stop.
    pub fn is_subagent(&self) -> bool {
        self.hook_event_name.as_deref() == Some("SubagentStop") || self.agent_id.is_some()
    }

    /// The transcript the event's iteration is read from: the subagent's own for
    /// `SubagentStop`, else the session's.
    pub fn transcript(&self) -> Result<&str, String> {
        let (path, key) = if self.is_subagent() {
            (self.agent_transcript_path.as_deref(), "agent_transcript_path")
        } else {
            (self.transcript_path.as_deref(), "transcript_path")
        };
        path.filter(|p| !p.is_empty()).ok_or_else(|| format!("the payload has no {key}"))
    }
}

/// Reads and parses the payload from `source` (standard input): at most
/// [`MAX_PAYLOAD_BYTES`], one JSON object (serde_json's nesting limit applies).
pub fn read(source: impl Read) -> Result<Payload, String> {
    let bytes = crate::state::read_bounded(source, MAX_PAYLOAD_BYTES)
        .map_err(|e| format!("reading the payload: {e}"))?
        .ok_or_else(|| format!("the payload is over {MAX_PAYLOAD_BYTES} bytes"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("the payload is not a Stop hook's JSON object: {e}"))
}
