//! What `earlyexit mcp` reads before its MCP library sees a message: standard input cut into
//! lines of bounded length ([`LineReader`]), each line read with the core's JSON reader and
//! checked as a JSON-RPC 2.0 message ([`read_message`]), and the order of the handshake
//! ([`Handshake`]: `initialize` first). Whatever the server cannot take is answered with a
//! JSON-RPC error carrying the request's `id` ([`Refusal`]) or, when no answer is allowed (a
//! notification, a response), logged and dropped ([`Reading::Dropped`]); never silence.
//!
//! The limits and every message are the core's (`earlyexit::kit::host::wire`); this crate only
//! cuts lines and sorts messages. It has no other dependency, so the fuzz targets link it.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![warn(missing_docs)]

use std::io::{self, BufRead, BufReader, Read};

use earlyexit::kit::host::wire;
use earlyexit::{Error, Value};

pub use earlyexit::kit::host::wire::{ID_WINDOW_BYTES, MAX_MESSAGE_BYTES};

/// The JSON-RPC 2.0 error codes the reader answers with.
pub mod code {
    /// The line is not JSON (or not UTF-8).
    pub const PARSE_ERROR: i64 = -32700;
    /// The line is JSON but not a message the server takes: not a JSON-RPC 2.0 object, over
    /// a limit, or a request before `initialize`.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The request's parameters are malformed (`tools/call` whose `arguments` is not an
    /// object; a number in the envelope that is not finite).
    pub const INVALID_PARAMS: i64 = -32602;
}

/// One line of input, without its line end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line within the limit.
    Text(Vec<u8>),
    /// A line over the limit: its first [`ID_WINDOW_BYTES`] bytes (the rest was skipped, never
    /// held) and its length.
    TooLong {
        /// The line's first bytes.
        head: Vec<u8>,
        /// The line's length in bytes.
        bytes: u64,
    },
}

/// Lines of at most `limit` bytes from a byte source. A line over the limit costs
/// [`ID_WINDOW_BYTES`] of memory whatever its length; one within it costs its length (the
/// buffer grows to at most the limit, never to twice a line).
pub struct LineReader<R> {
    source: BufReader<R>,
    limit: usize,
}

impl<R: Read> LineReader<R> {
    /// Lines of at most [`MAX_MESSAGE_BYTES`].
    pub fn new(source: R) -> Self {
        Self::with_limit(source, MAX_MESSAGE_BYTES)
    }

    /// Lines of at most `limit` bytes (tests and fuzzing use small limits).
    pub fn with_limit(source: R, limit: usize) -> Self {
        LineReader { source: BufReader::with_capacity(ID_WINDOW_BYTES, source), limit }
    }

    /// The next line (a last line without a line end counts), or `None` at the end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut line: Vec<u8> = Vec::new();
        let mut over: Option<u64> = None;
        let mut started = false;
        loop {
            let chunk = match self.source.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                return Ok(started.then(|| finish(line, over)));
            }
            started = true;
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            let part = chunk.get(..take).unwrap_or_default();
            match over.as_mut() {
                Some(bytes) => *bytes += take as u64,
                None if line.len() + take > self.limit => {
                    // Over: keep the head (where the id is), free the rest, skip the remainder.
                    let bytes = (line.len() + take) as u64;
                    line.truncate(ID_WINDOW_BYTES);
                    let room = ID_WINDOW_BYTES.saturating_sub(line.len()).min(take);
                    line.extend_from_slice(part.get(..room).unwrap_or_default());
                    line.shrink_to_fit();
                    over = Some(bytes);
                }
                None => {
                    reserve(&mut line, take, self.limit);
                    line.extend_from_slice(part);
                }
            }
            let consumed = take + usize::from(newline.is_some());
            self.source.consume(consumed);
            if newline.is_some() {
                return Ok(Some(finish(line, over)));
            }
        }
    }
}

/// Room for `extra` more bytes: doubling, but never past `limit`.
fn reserve(line: &mut Vec<u8>, extra: usize, limit: usize) {
    let needed = line.len() + extra;
    if needed <= line.capacity() {
        return;
    }
    let target = needed.max(line.capacity().saturating_mul(2).min(limit));
    line.reserve_exact(target - line.len());
}

fn finish(line: Vec<u8>, over: Option<u64>) -> Line {
    match over {
        Some(bytes) => Line::TooLong { head: line, bytes },
        None => Line::Text(line),
    }
}

/// What the start of a line tells about it, read without reading the rest: its `id` (the
/// JSON text of a string or a finite number), its `method`, and whether it is a response
/// (a `result` or an `error` key). Only keys of the top-level object that come, whole and
/// well-formed, before the first thing that is not are taken.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Head {
    /// The id's JSON text.
    pub id: Option<String>,
    /// The method.
    pub method: Option<String>,
    /// Whether a `result` or an `error` key was seen.
    pub response: bool,
}

/// Reads the [`Head`] of `bytes` (the start of a line; at most [`ID_WINDOW_BYTES`] are looked at).
pub fn scan_head(bytes: &[u8]) -> Head {
    let bytes = bytes.get(..ID_WINDOW_BYTES.min(bytes.len())).unwrap_or_default();
    let mut head = Head::default();
    let _ = Scan { bytes, pos: 0 }.walk(&mut head);
    head
}

struct Scan<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek() == Some(byte)).then(|| self.pos += 1)
    }

    /// From an opening quote to just after its closing one.
    fn skip_string(&mut self) -> Option<()> {
        self.pos += 1;
        loop {
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }

    /// One value, whole (containers by counting brackets, strings aware): `None` if the
    /// bytes end first.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                self.pos += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                let start = self.pos;
                while !matches!(self.peek()?, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    self.pos += 1;
                }
                (self.pos > start).then_some(())
            }
        }
    }

    fn walk(&mut self, head: &mut Head) -> Option<()> {
        self.skip_ws();
        self.expect(b'{')?;
        loop {
            self.skip_ws();
            if self.peek()? != b'"' {
                return None;
            }
            let start = self.pos;
            self.skip_string()?;
            let key = json_of(self.bytes.get(start..self.pos)?)?;
            self.skip_ws();
            self.expect(b':')?;
            self.skip_ws();
            if matches!(&key, Value::String(k) if k == "result" || k == "error") {
                head.response = true; // whatever follows: a response is never answered
            }
            let start = self.pos;
            self.skip_value()?;
            let text = self.bytes.get(start..self.pos)?;
            match &key {
                Value::String(k) if k == "id" && head.id.is_none() => head.id = id_text(&json_of(text)?),
                Value::String(k) if k == "method" && head.method.is_none() => {
                    head.method = json_of(text)?.as_str().map(str::to_string)
                }
                _ => {}
            }
            self.skip_ws();
            self.expect(b',')?;
        }
    }
}

/// A piece of JSON text read by the core.
fn json_of(bytes: &[u8]) -> Option<Value> {
    wire::parse_message(wire::message_text(bytes).ok()?).ok()
}

/// The JSON text of an id: a string, or a finite number.
fn id_text(id: &Value) -> Option<String> {
    match id {
        Value::String(_) => Some(id.to_json()),
        Value::Number(n) if n.is_finite() => Some(id.to_json()),
        _ => None,
    }
}

/// Whether a message is a request (it has an id and expects an answer), a notification or a
/// response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A method with an id.
    Request,
    /// A method without an id.
    Notification,
    /// A result or an error for an id.
    Response,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response => "response",
        }
    }
}

/// A JSON-RPC 2.0 message the server takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Request, notification or response.
    pub kind: Kind,
    /// The id's JSON text (requests and responses).
    pub id: Option<String>,
    /// The method (requests and notifications).
    pub method: Option<String>,
    /// The whole message, as the core read it.
    pub value: Value,
}

/// The method of a tool call.
pub const TOOLS_CALL: &str = "tools/call";

impl Message {
    /// A `tools/call` request's arguments, taken out of the message (so they are not held
    /// twice): an object, or `None` when absent or null.
    pub fn take_arguments(&mut self) -> Option<Value> {
        if self.method.as_deref() != Some(TOOLS_CALL) {
            return None;
        }
        let Value::Object(entries) = &mut self.value else { return None };
        let (_, params) = entries.iter_mut().find(|(k, _)| k == "params")?;
        let Value::Object(params) = params else { return None };
        let at = params.iter().position(|(k, _)| k == "arguments")?;
        match params.remove(at).1 {
            Value::Null => None,
            arguments => Some(arguments),
        }
    }
}

/// A message the server answers with a JSON-RPC error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The id's JSON text (`null` when unknown).
    pub id: Option<String>,
    /// The JSON-RPC error code ([`code`]).
    pub code: i64,
    /// What is wrong, as the core words it.
    pub error: Error,
}

impl Refusal {
    /// The error response, one line of JSON (without its line end): `{"jsonrpc": "2.0", "id",
    /// "error": {code, message, data: {code, kind, field, message}}}`; `data` is the core's
    /// error object, as a tool error's structured content holds it.
    pub fn response(&self) -> String {
        let data = Value::object(vec![
            ("code", Value::string(self.error.code())),
            ("kind", Value::string(self.error.kind().as_str())),
            ("field", Value::string(self.error.field())),
            ("message", Value::string(self.error.message())),
        ]);
        let title = match self.code {
            code::PARSE_ERROR => "Parse error",
            code::INVALID_PARAMS => "Invalid params",
            _ => "Invalid Request",
        };
        let message = Value::string([title, ": ", self.error.message()].concat());
        [
            r#"{"jsonrpc":"2.0","id":"#,
            self.id.as_deref().unwrap_or("null"),
            r#","error":{"code":"#,
            self.code.to_string().as_str(),
            r#","message":"#,
            message.to_json().as_str(),
            r#","data":"#,
            data.to_json().as_str(),
            "}}",
        ]
        .concat()
    }

    /// The line the server logs for it.
    pub fn log_line(&self) -> String {
        let code = self.code.to_string();
        ["answered ", code.as_str(), " (id ", self.id.as_deref().unwrap_or("null"), "): ", self.error.message()]
            .concat()
    }
}

/// What one line is.
#[derive(Clone, Debug, PartialEq)]
pub enum Reading {
    /// Blank (white space only): nothing to do, nothing to say.
    Blank,
    /// A message for the server.
    Message(Message),
    /// A message answered with an error.
    Refused(Refusal),
    /// A message that gets no answer (a notification or a response that is malformed): the
    /// server logs this line.
    Dropped(String),
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Reads one line: at most one answer or one log line per line, whatever it holds.
pub fn read_message(line: &[u8]) -> Reading {
    if is_blank(line) {
        return Reading::Blank;
    }
    let text = match wire::message_text(line) {
        Ok(text) => text,
        Err(error) => return refuse_by_head(line, code::PARSE_ERROR, error),
    };
    match wire::parse_message(text) {
        Ok(value) => classify(value),
        Err(error) => {
            let code = if wire::is_over_the_limits(&error) { code::INVALID_REQUEST } else { code::PARSE_ERROR };
            refuse_by_head(line, code, error)
        }
    }
}

/// The answer to a line over [`MAX_MESSAGE_BYTES`] (`head`: its first bytes).
pub fn too_long(head: &[u8]) -> Reading {
    refuse_by_head(head, code::INVALID_REQUEST, wire::message_too_long())
}

/// A line the core could not read: answered with the id its head shows, unless its head
/// shows a response (a response is never answered).
fn refuse_by_head(line: &[u8], code: i64, error: Error) -> Reading {
    let head = scan_head(line);
    if head.response {
        return Reading::Dropped(dropped("a response", head.id.as_deref(), error.message()));
    }
    Reading::Refused(Refusal { id: head.id, code, error })
}

fn dropped(what: &str, id: Option<&str>, why: &str) -> String {
    let id = id.map(|id| [" (id ", id, ")"].concat()).unwrap_or_default();
    ["dropped ", what, &id, ": ", why].concat()
}

fn member<'a>(entries: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Sorts a JSON value into a message, a refusal or a drop.
fn classify(value: Value) -> Reading {
    let Value::Object(entries) = &value else {
        return Reading::Refused(Refusal { id: None, code: code::INVALID_REQUEST, error: wire::not_an_object(&value) });
    };
    let response = member(entries, "result").is_some() || member(entries, "error").is_some();
    let method = member(entries, "method");
    let id = match member(entries, "id") {
        None | Some(Value::Null) => None,
        Some(id) => match id_text(id) {
            Some(text) => Some(text),
            None => {
                let error = wire::wrong_type("id", "a string or a finite number", id);
                return refuse(None, method.is_none() && response, code::INVALID_REQUEST, error);
            }
        },
    };
    // Refused or, when no answer is allowed, dropped.
    let no_answer = method.is_none() && response;
    match member(entries, "jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        other => {
            let silent = no_answer || (id.is_none() && method.is_some());
            return refuse(id, silent, code::INVALID_REQUEST, wire::wrong_version(other));
        }
    }
    let (kind, method) = match method {
        Some(Value::String(m)) => (if id.is_some() { Kind::Request } else { Kind::Notification }, Some(m.clone())),
        Some(other) => return refuse(id, false, code::INVALID_REQUEST, wire::wrong_type("method", "a string", other)),
        None if response && id.is_some() => (Kind::Response, None),
        None if response => return Reading::Dropped(dropped("a response", None, "it has no id")),
        None => return refuse(id, false, code::INVALID_REQUEST, wire::no_method()),
    };
    let silent = kind != Kind::Request;
    let tool_call = kind == Kind::Request && method.as_deref() == Some(TOOLS_CALL);
    if tool_call {
        if let Err(error) = check_tool_call(member(entries, "params")) {
            return refuse(id, silent, code::INVALID_PARAMS, error);
        }
    }
    if let Some((field, got)) = non_finite(entries, tool_call) {
        return refuse(id, silent, code::INVALID_PARAMS, wire::not_finite(&field, &got));
    }
    Reading::Message(Message { kind, id, method, value })
}

fn refuse(id: Option<String>, silent: bool, code: i64, error: Error) -> Reading {
    if silent {
        return Reading::Dropped(dropped("a message that gets no answer", id.as_deref(), error.message()));
    }
    Reading::Refused(Refusal { id, code, error })
}

/// `params` is an object whose `name` is a string and whose `arguments`, when given, an object.
fn check_tool_call(params: Option<&Value>) -> Result<(), Error> {
    let Some(Value::Object(params)) = params else {
        return Err(wire::wrong_type("params", "an object", params.unwrap_or(&Value::Null)));
    };
    match member(params, "name") {
        Some(Value::String(_)) => {}
        other => return Err(wire::wrong_type("params.name", "a string", other.unwrap_or(&Value::Null))),
    }
    match member(params, "arguments") {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(other) => Err(wire::wrong_type("params.arguments", "an object", other)),
    }
}

/// The first number that is not finite, with its path, outside a tool call's arguments
/// (where the tool names the argument and says what it must be).
fn non_finite(entries: &[(String, Value)], tool_call: bool) -> Option<(String, Value)> {
    let mut stack: Vec<(String, &Value)> = Vec::new();
    for (key, value) in entries {
        if tool_call && key == "params" {
            if let Value::Object(params) = value {
                for (k, v) in params.iter().filter(|(k, _)| k != "arguments") {
                    stack.push(([key.as_str(), ".", k.as_str()].concat(), v));
                }
                continue;
            }
        }
        stack.push((key.clone(), value));
    }
    while let Some((path, value)) = stack.pop() {
        match value {
            Value::Number(n) if !n.is_finite() => return Some((path, value.clone())),
            Value::Array(items) => stack.extend(
                items.iter().enumerate().map(|(i, v)| ([path.as_str(), "[", i.to_string().as_str(), "]"].concat(), v)),
            ),
            Value::Object(items) => {
                stack.extend(items.iter().map(|(k, v)| ([path.as_str(), ".", k.as_str()].concat(), v)))
            }
            _ => {}
        }
    }
    None
}

/// The order of the handshake: until `initialize`, a request (other than `initialize` and
/// `ping`) is refused with an error that names `initialize`, and notifications and
/// responses are dropped (logged).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Handshake {
    initialized: bool,
}

/// What the handshake makes of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Hand it to the server.
    Pass,
    /// Answer it with this error.
    Refuse(Refusal),
    /// Log this line and drop it.
    Drop(String),
}

impl Handshake {
    /// Whether `initialize` has come.
    pub fn initialized(&self) -> bool {
        self.initialized
    }

    /// Admits `message`, or says why not.
    pub fn admit(&mut self, message: &Message) -> Admission {
        if self.initialized {
            return Admission::Pass;
        }
        match (message.kind, message.method.as_deref()) {
            (Kind::Request, Some("initialize")) => {
                self.initialized = true;
                Admission::Pass
            }
            (Kind::Request, Some("ping")) => Admission::Pass,
            (Kind::Request, Some(method)) => Admission::Refuse(Refusal {
                id: message.id.clone(),
                code: code::INVALID_REQUEST,
                error: wire::before_initialize(method),
            }),
            (kind, method) => {
                let what = match method {
                    Some(method) => [kind.name(), " '", method, "'"].concat(),
                    None => ["a ", kind.name()].concat(),
                };
                Admission::Drop(dropped(&what, message.id.as_deref(), "it came before 'initialize'"))
            }
        }
    }
}

/// The answer to a message the server's MCP library could not read as one of its messages
/// (`detail`: the library's words): refused when it is a request, dropped otherwise.
pub fn unreadable(message: &Message, detail: &str) -> Reading {
    refuse(message.id.clone(), message.kind != Kind::Request, code::INVALID_REQUEST, wire::unreadable(detail))
}

/// The README's quick start, run by `cargo test` as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeQuickStart;
