//! The agent's transcript (Claude Code's JSONL: one event per line; the format is not
//! documented and has changed between versions), read from the byte offset the session's
//! state keeps to its last complete line, so an event costs what the turn wrote, whatever
//! the transcript's length. What a line of a known kind says is taken; anything else is
//! counted and skipped.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde::Deserialize;
use serde_json::Value as Json;

/// Bytes of one transcript line the reader holds; a longer line is skipped (counted).
pub const MAX_LINE_BYTES: usize = 8 << 20;
/// Edited files one event records (the first ones).
pub const MAX_FILES: usize = 1000;

/// The line kinds the reader knows (it reads `user` and `assistant`; the others carry
/// nothing an iteration needs).
const KNOWN_KINDS: [&str; 6] = ["user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation"];
/// The tool calls that edit files, and the input key naming the file.
const EDIT_TOOLS: [(&str, &str); 4] =
    [("Edit", "file_path"), ("MultiEdit", "file_path"), ("Write", "file_path"), ("NotebookEdit", "notebook_path")];

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default, rename = "isSidechain")]
    is_sidechain: bool,
    #[serde(default, rename = "isMeta")]
    is_meta: bool,
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    id: Option<String>,
    content: Option<Json>,
    usage: Option<Usage>,
}

#[derive(Clone, Copy, Default, Deserialize)]
struct Usage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: u64,
}

/// Tokens by kind (the transcript's `message.usage`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl Tokens {
    pub fn total(&self) -> u64 {
        self.input.saturating_add(self.output).saturating_add(self.cache_read).saturating_add(self.cache_write)
    }

    fn add(&mut self, u: Usage) {
        self.input = self.input.saturating_add(u.input_tokens);
        self.output = self.output.saturating_add(u.output_tokens);
        self.cache_read = self.cache_read.saturating_add(u.cache_read_input_tokens);
        self.cache_write = self.cache_write.saturating_add(u.cache_creation_input_tokens);
    }
}

/// What the transcript says happened since the offset.
#[derive(Debug, Default)]
pub struct Turn {
    /// The offset after the last complete line read.
    pub end: u64,
    pub tokens: Tokens,
    pub tool_uses: u64,
    pub tool_errors: u64,
    pub last_error: Option<String>,
    /// Files the edit tools named (relative to the project when under it).
    pub files: Vec<String>,
    /// The text of the last assistant message that had text.
    pub last_assistant_text: Option<String>,
    /// The first prompt the user typed in this part (not a tool result, not a meta line).
    pub first_prompt: Option<String>,
    /// The last one.
    pub last_prompt: Option<String>,
    /// Lines skipped: not JSON, or of a kind the reader does not know.
    pub unknown_lines: u64,
    /// Lines over [`MAX_LINE_BYTES`], skipped.
    pub long_lines: u64,
}

/// Reads `path` from `offset` (from 0 when the file is now shorter: it was replaced).
/// `sidechain`: the transcript is a subagent's own (its lines are all side-chain ones); in
/// a session's transcript, side-chain lines are a subagent's and skipped.
pub fn read_since(path: &str, offset: u64, project: &str, sidechain: bool) -> Result<Turn, String> {
    let mut file = File::open(path).map_err(|e| format!("cannot open the transcript {path}: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read the transcript {path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("the transcript {path} is not a regular file"));
    }
    let len = meta.len();
    let start = if offset > len { 0 } else { offset };
    file.seek(SeekFrom::Start(start)).map_err(|e| format!("cannot read the transcript {path}: {e}"))?;
    // What the file held when the event began: a transcript still growing is read to there.
    let mut reader = BufReader::with_capacity(1 << 16, file.take(len - start));
    let mut state = Reading { turn: Turn { end: start, ..Turn::default() }, ..Reading::default() };
    let mut line = Vec::new();
    loop {
        line.clear();
        let (read, complete, too_long) =
            read_line(&mut reader, &mut line).map_err(|e| format!("cannot read the transcript {path}: {e}"))?;
        if read == 0 || !complete {
            break; // the end, or a line still being written: read next time
        }
        state.turn.end = state.turn.end.saturating_add(read as u64);
        if too_long {
            state.turn.long_lines += 1;
            continue;
        }
        state.line(&line, project, sidechain);
    }
    state.flush_usage();
    Ok(state.turn)
}

/// Reads one line into `buf` (without its newline), holding at most [`MAX_LINE_BYTES`]:
/// (bytes consumed, ended by a newline, longer than the bound).
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<(usize, bool, bool)> {
    let mut consumed = 0usize;
    let mut too_long = false;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok((consumed, false, too_long));
        }
        let (piece, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (available.get(..i).unwrap_or_default(), Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + piece.len() > MAX_LINE_BYTES {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(piece);
            }
        }
        let used = done.unwrap_or(available.len());
        reader.consume(used);
        consumed += used;
        if done.is_some() {
            return Ok((consumed, true, too_long));
        }
    }
}

#[derive(Default)]
struct Reading {
    turn: Turn,
    seen_files: HashSet<String>,
    /// The assistant message being read (its id, its last usage, its text so far):
    /// Claude Code writes one line per content block, each with the message's usage.
    message_id: Option<String>,
    usage: Option<Usage>,
    text: String,
}

impl Reading {
    fn flush_usage(&mut self) {
        if let Some(usage) = self.usage.take() {
            self.turn.tokens.add(usage);
        }
    }

    fn line(&mut self, bytes: &[u8], project: &str, sidechain: bool) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Ok(line) = serde_json::from_slice::<Line>(bytes) else {
            self.turn.unknown_lines += 1;
            return;
        };
        let Some(kind) = line.kind.as_deref().filter(|k| KNOWN_KINDS.contains(k)) else {
            self.turn.unknown_lines += 1;
            return;
        };
        if line.is_sidechain != sidechain {
            return;
        }
        match (kind, line.message) {
            ("assistant", Some(message)) => self.assistant(message, project),
            ("user", Some(message)) if !line.is_meta => self.user(message),
            _ => {}
        }
    }

    fn assistant(&mut self, message: Message, project: &str) {
        let same = message.id.is_some() && message.id == self.message_id;
        if !same {
            self.flush_usage();
            self.message_id = message.id;
            self.text.clear();
        }
        if let Some(usage) = message.usage {
            self.usage = Some(usage); // the last line of a message holds its final count
        }
        let blocks = match &message.content {
            Some(Json::Array(blocks)) => blocks.as_slice(),
            Some(Json::String(text)) => {
                self.add_text(text);
                &[]
            }
            _ => &[],
        };
        for block in blocks {
            match block.get("type").and_then(Json::as_str) {
                Some("text") => {
                    if let Some(text) = block.get("text").and_then(Json::as_str) {
                        self.add_text(text);
                    }
                }
                Some("tool_use") => {
                    self.turn.tool_uses += 1;
                    let name = block.get("name").and_then(Json::as_str).unwrap_or("");
                    if let Some((_, key)) = EDIT_TOOLS.iter().find(|(tool, _)| *tool == name) {
                        if let Some(path) = block.get("input").and_then(|i| i.get(*key)).and_then(Json::as_str) {
                            self.add_file(path, project);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn add_text(&mut self, text: &str) {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(text);
        self.turn.last_assistant_text = Some(self.text.clone());
    }

    fn add_file(&mut self, path: &str, project: &str) {
        let shown = match path.strip_prefix(project).and_then(|p| p.strip_prefix('/')) {
            Some(relative) if !project.is_empty() => relative,
            _ => path,
        };
        if self.turn.files.len() < MAX_FILES && self.seen_files.insert(shown.to_string()) {
            self.turn.files.push(shown.to_string());
        }
    }

    fn user(&mut self, message: Message) {
        match &message.content {
            Some(Json::String(text)) => self.prompt(text),
            Some(Json::Array(blocks)) => {
                for block in blocks {
                    match block.get("type").and_then(Json::as_str) {
                        Some("tool_result") if block.get("is_error").and_then(Json::as_bool) == Some(true) => {
                            self.turn.tool_errors += 1;
                            self.turn.last_error = Some(result_text(block.get("content")));
                        }
                        Some("text") => {
                            if let Some(text) = block.get("text").and_then(Json::as_str) {
                                self.prompt(text);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    fn prompt(&mut self, text: &str) {
        // Slash commands and their output are written as user lines in tags; not a prompt.
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('<') {
            return;
        }
        if self.turn.first_prompt.is_none() {
            self.turn.first_prompt = Some(text.to_string());
        }
        self.turn.last_prompt = Some(text.to_string());
    }
}

/// A tool result's text: a string, or its text blocks joined.
fn result_text(content: Option<&Json>) -> String {
    match content {
        Some(Json::String(text)) => text.clone(),
        Some(Json::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Json::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => "tool error".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random bytes, broken JSON and real lines, read from random offsets: never a panic, and
    /// the offset returned is the start or just after a newline, within the file.
    #[test]
    fn any_bytes_from_any_offset_read_to_a_line_boundary() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("t.jsonl");
        let pieces: [&[u8]; 8] = [
            b"{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"tool_use\",\"name\":\"Edit\",\"input\":{\"file_path\":7}}],\"usage\":{\"input_tokens\":-1}}}\n",
            b"{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"is_error\":true,\"content\":[{\"text\":1}]}]}}\n",
            b"{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n",
            b"\xff\xfe\x00garbage\n",
            b"[[[[[[[[[[",
            b"\n\n",
            b"{\"type\":\"assistant\",\"message\":{\"content\":\"\xc3\"}}\n",
            b"{\"type\":\"summary\"}",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let mut bytes = Vec::new();
            for _ in 0..(next() % 12) {
                bytes.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
            }
            std::fs::write(&path, &bytes).expect("write");
            let offset = next() % (bytes.len() as u64 + 3);
            let turn = read_since(path.to_str().expect("utf8"), offset, "/p", false).expect("reads");
            let start = if offset > bytes.len() as u64 { 0 } else { offset };
            assert!(turn.end >= start && turn.end <= bytes.len() as u64);
            assert!(turn.end == start || bytes[(turn.end - 1) as usize] == b'\n');
        }
    }
}
