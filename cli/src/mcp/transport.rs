//! The server's standard input and output: the MCP library (rmcp) sees only messages that
//! passed the wire reader (`earlyexit-mcp-wire`): lines of at most the message limit, read
//! with the core's JSON reader, checked as JSON-RPC 2.0, `initialize` first. Everything
//! else is answered with a JSON-RPC error (with the request's id when the line shows it) or,
//! when no answer is allowed, logged on standard error and dropped (docs/cli.md, "Messages").
//!
//! A reader thread reads standard input and a writer thread writes standard output, so a
//! line of hundreds of megabytes is read and parsed off the runtime, and the reader's
//! answers and the library's messages are written whole, one line each. A replay's per-run
//! rows wait in a temporary file until their answer is written: the answer goes out as its
//! envelope, then the rows copied from the file a piece at a time, then the rest, so it never
//! exists whole in memory ([`hold_rows`]).

use std::collections::HashSet;
use std::fs::File;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc as std_mpsc, Arc, Mutex, PoisonError};

use earlyexit_mcp_wire::{self as wire, Admission, Handshake, Kind, Line, LineReader, Message, Reading};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, JsonRpcMessage, ServerResult};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Map, Value as Json};
use tokio::sync::mpsc;

use crate::core_api::Value;

/// The reader thread's stack: the core's JSON reader and the conversion below go as deep as
/// a message may nest (256 levels).
const READER_STACK: usize = 16 << 20;

/// A `tools/call`'s arguments as the core read them (numbers as the core reads them, `1e400`
/// included, so the tool names the argument), handed to the tool through the request's
/// extensions; taken once, so they are not held twice.
#[derive(Clone, Default)]
pub struct ToolArguments(Arc<Mutex<Option<Value>>>);

impl ToolArguments {
    /// The arguments (an object), once.
    pub fn take(&self) -> Option<Value> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// One line on standard error.
pub fn log(line: &str) {
    let _ = writeln!(io::stderr().lock(), "earlyexit mcp: {line}");
}

/// What the writer thread does next.
enum Out {
    /// Write a line.
    Line(Vec<u8>),
    /// Write a line whose middle is a JSON array of the rows in `rows` (comma-separated JSON
    /// rows): `head`, `[`, the file's bytes, `]`, `tail`.
    Spliced { head: Vec<u8>, rows: File, tail: Vec<u8> },
    /// Say when every line before has been written.
    Flushed(std_mpsc::Sender<()>),
}

/// Standard output, a line at a time, from any thread.
#[derive(Clone)]
pub struct Writer(std_mpsc::Sender<Out>);

impl Writer {
    fn line(&self, mut bytes: Vec<u8>) -> bool {
        bytes.push(b'\n');
        self.0.send(Out::Line(bytes)).is_ok()
    }

    /// Waits (at most `patience`) until every line sent so far is written: the server calls
    /// it before it exits, so the answers to the last lines a client sent before it closed
    /// standard input are not lost.
    pub fn flush(&self, patience: std::time::Duration) {
        let (done, wait) = std_mpsc::channel();
        if self.0.send(Out::Flushed(done)).is_ok() {
            let _ = wait.recv_timeout(patience);
        }
    }
}

/// The transport rmcp serves over.
pub struct Stdio {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    out: Writer,
    /// Ids (JSON text) of the requests the server sent and not yet answered: a response to
    /// any other id is dropped and logged.
    asked: Arc<Mutex<HashSet<String>>>,
}

/// Starts the reader and writer threads; `closed` is raised when standard input ends.
pub fn stdio(closed: Arc<AtomicBool>) -> io::Result<Stdio> {
    let (out_tx, out_rx) = std_mpsc::channel::<Out>();
    std::thread::Builder::new().name("mcp-writer".into()).spawn(move || {
        let mut stdout = io::stdout().lock();
        let mut open = true;
        for out in out_rx {
            match out {
                Out::Line(line) if open => open = stdout.write_all(&line).and_then(|()| stdout.flush()).is_ok(),
                Out::Spliced { head, mut rows, tail } if open => {
                    open = write_spliced(&mut stdout, &head, &mut rows, &tail).is_ok();
                }
                Out::Line(_) | Out::Spliced { .. } => {} // the client is gone: nothing to write to
                Out::Flushed(done) => {
                    let _ = done.send(());
                }
            }
        }
    })?;
    // One message waits at a time: a client that writes faster than the server reads waits.
    let (in_tx, in_rx) = mpsc::channel(1);
    let asked = Arc::new(Mutex::new(HashSet::new()));
    let out = Writer(out_tx);
    let (writer, table) = (out.clone(), asked.clone());
    std::thread::Builder::new().name("mcp-reader".into()).stack_size(READER_STACK).spawn(move || {
        read_loop(io::stdin().lock(), &writer, &in_tx, &table);
        closed.store(true, Ordering::SeqCst);
    })?;
    Ok(Stdio { incoming: in_rx, out, asked })
}

/// Writes a spliced line (see [`Out::Spliced`]); the rows go through a 64 KiB buffer.
fn write_spliced(out: &mut impl Write, head: &[u8], rows: &mut File, tail: &[u8]) -> io::Result<()> {
    out.write_all(head)?;
    out.write_all(b"[")?;
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        match rows.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => out.write_all(buffer.get(..n).unwrap_or_default())?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // The line is cut short: the client sees JSON it cannot read, and the log says why.
                log(&format!("reading a replay's rows back failed: {e}"));
                return Err(e);
            }
        }
    }
    out.write_all(b"]")?;
    out.write_all(tail)?;
    out.flush()
}

/// Rows waiting for their answer, by the token that marks their place in it.
static HELD_ROWS: Mutex<Vec<(String, File)>> = Mutex::new(Vec::new());

/// Holds a replay's rows (a file of comma-separated JSON rows, read from its start) until
/// the answer that carries them is written; the token to put where the rows go, as a JSON
/// string, in the answer's structured content under `runs`. The token is random (std's
/// per-process random hash keys), so no argument or run can spell it.
pub fn hold_rows(rows: File) -> String {
    let mut hash = std::collections::hash_map::RandomState::new().build_hasher();
    hash.write_u64(std::process::id().into());
    let mut held = HELD_ROWS.lock().unwrap_or_else(PoisonError::into_inner);
    hash.write_usize(held.len());
    let token = format!("earlyexit-rows-{:016x}", hash.finish());
    held.push((token.clone(), rows));
    token
}

/// The rows an outgoing message carries (a tool's answer whose `runs` is a held token).
fn held_rows(item: &TxJsonRpcMessage<RoleServer>) -> Option<(String, File)> {
    let JsonRpcMessage::Response(response) = item else { return None };
    let ServerResult::CallToolResult(result) = &response.result else { return None };
    let token = result.structured_content.as_ref()?.get("runs")?.as_str()?;
    let mut held = HELD_ROWS.lock().unwrap_or_else(PoisonError::into_inner);
    let at = held.iter().position(|(t, _)| t == token)?;
    Some(held.swap_remove(at))
}

/// `bytes` split around the one place `token` (as a JSON string) stands; `None` unless it
/// stands exactly once.
fn split_at_token(mut bytes: Vec<u8>, token: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    let needle = serde_json::to_vec(token).ok()?;
    let mut places = bytes.windows(needle.len()).enumerate().filter(|(_, w)| *w == needle.as_slice()).map(|(i, _)| i);
    let at = places.next()?;
    if places.next().is_some() {
        return None;
    }
    let tail = bytes.split_off(at).split_off(needle.len());
    Some((bytes, tail))
}

impl Stdio {
    /// The writer, to flush before the server exits.
    pub fn writer(&self) -> Writer {
        self.out.clone()
    }
}

/// Reads `source` until it ends: each line answered, logged or handed on, in order.
fn read_loop(
    source: impl Read,
    writer: &Writer,
    incoming: &mpsc::Sender<ClientJsonRpcMessage>,
    asked: &Mutex<HashSet<String>>,
) {
    let mut lines = LineReader::new(source);
    let mut handshake = Handshake::default();
    loop {
        let reading = match lines.next_line() {
            Ok(Some(Line::Text(bytes))) => wire::read_message(&bytes),
            Ok(Some(Line::TooLong { head, bytes })) => {
                log(&format!("a line of {bytes} bytes is over the limit of {} bytes", wire::MAX_MESSAGE_BYTES));
                wire::too_long(&head)
            }
            Ok(None) => return,
            Err(e) => {
                log(&format!("reading standard input failed: {e}"));
                return;
            }
        };
        let message = match settle(reading, writer) {
            Some(message) => message,
            None => continue,
        };
        match handshake.admit(&message) {
            Admission::Pass => {}
            Admission::Drop(line) => {
                log(&line);
                continue;
            }
            Admission::Refuse(refusal) => {
                settle(Reading::Refused(refusal), writer);
                continue;
            }
        }
        if message.kind == Kind::Response {
            let id = message.id.clone().unwrap_or_default();
            if !asked.lock().unwrap_or_else(PoisonError::into_inner).remove(&id) {
                log(&format!("dropped a response (id {id}): the server asked nothing by that id"));
                continue;
            }
        }
        match to_rmcp(message) {
            Ok(message) => {
                if incoming.blocking_send(message).is_err() {
                    return; // the server stopped
                }
            }
            Err(reading) => {
                settle(reading, writer);
            }
        }
    }
}

/// Answers or logs what is not a message for the server; hands a message on.
fn settle(reading: Reading, writer: &Writer) -> Option<Message> {
    match reading {
        Reading::Message(message) => return Some(message),
        Reading::Blank => {}
        Reading::Dropped(line) => log(&line),
        Reading::Refused(refusal) => {
            log(&refusal.log_line());
            writer.line(refusal.response().into_bytes());
        }
    }
    None
}

/// The message as rmcp's, its tool arguments (if any) kept as the core's value.
fn to_rmcp(mut message: Message) -> Result<ClientJsonRpcMessage, Reading> {
    let arguments = message.take_arguments();
    let json = into_json(std::mem::replace(&mut message.value, Value::Null));
    let mut typed: ClientJsonRpcMessage =
        serde_json::from_value(json).map_err(|e| wire::unreadable(&message, &e.to_string()))?;
    if let JsonRpcMessage::Request(request) = &mut typed {
        if let ClientRequest::CallToolRequest(call) = &mut request.request {
            let arguments = arguments.unwrap_or_else(|| Value::Object(Vec::new()));
            call.extensions.insert(ToolArguments(Arc::new(Mutex::new(Some(arguments)))));
        }
    }
    Ok(typed)
}

/// A core value as serde's, consumed as it goes (so a large message is not held twice at
/// once). Numbers keep their f64 (integral ones as integers, as the core writes them); the
/// reader refused every number that is not finite outside tool arguments.
fn into_json(value: Value) -> Json {
    match value {
        Value::Null | Value::Other(_) => Json::Null,
        Value::Bool(b) => Json::Bool(b),
        Value::Number(n) => {
            if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
                Json::from(n as i64)
            } else {
                serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number)
            }
        }
        Value::String(s) => Json::String(s),
        Value::Array(items) => Json::Array(items.into_iter().map(into_json).collect()),
        Value::Object(entries) => {
            Json::Object(entries.into_iter().map(|(k, v)| (k, into_json(v))).collect::<Map<_, _>>())
        }
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item {
            if let Ok(id) = serde_json::to_string(&request.id) {
                self.asked.lock().unwrap_or_else(PoisonError::into_inner).insert(id);
            }
        }
        let held = held_rows(&item);
        let sent = match serde_json::to_vec(&item) {
            Ok(bytes) => match held {
                None => self.out.line(bytes),
                Some((token, rows)) => match split_at_token(bytes, &token) {
                    Some((head, mut tail)) => {
                        tail.push(b'\n');
                        self.out.0.send(Out::Spliced { head, rows, tail }).is_ok()
                    }
                    None => {
                        log("a replay's answer could not be written: its rows' place was not found");
                        let JsonRpcMessage::Response(response) = item else { return std::future::ready(Ok(())) };
                        let error = ErrorData::internal_error("the replay's rows could not be written", None);
                        let message: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::error(error, Some(response.id));
                        serde_json::to_vec(&message).is_ok_and(|bytes| self.out.line(bytes))
                    }
                },
            }
            .then_some(())
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "standard output is closed")),
            Err(e) => Err(io::Error::other(e)),
        };
        std::future::ready(sent)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.incoming.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.incoming.close();
        std::future::ready(Ok(()))
    }
}
