//! The MCP server's messages on the wire (`earlyexit mcp`: one JSON-RPC 2.0 message per line
//! on standard input): how long a line may be, how a message is read, and the errors a
//! message the server cannot take is answered with. The reading itself (lines, the
//! envelope, the order of the handshake) is the crate `earlyexit-mcp-wire`'s; every limit
//! and every message is here, and `docs/limits.md` states them.
//!
//! Every error here has code `invalid_config` (a tool's arguments are its config) and names
//! the part of the message that is wrong (`message`, `jsonrpc`, `id`, `method`,
//! `params.arguments`, ...).

use crate::limits::MAX_DOCUMENT_BYTES;
use crate::value::{concat, over_limit, Error, ErrorCode, ErrorKind, JsonReading, Result, Value, OVER_THE_LIMITS};

/// Bytes a message may add around one document at its limit (the JSON-RPC envelope, the
/// tool's name, its other arguments): 1 MiB.
pub const ENVELOPE_BYTES: usize = 1 << 20;

/// Bytes of one message (one line, without its line end): a document at its limit
/// ([`MAX_DOCUMENT_BYTES`], 256 MiB) plus [`ENVELOPE_BYTES`]: 269,484,032. A longer line is
/// refused without being held: the server keeps its first [`ID_WINDOW_BYTES`] and skips the
/// rest.
pub const MAX_MESSAGE_BYTES: usize = MAX_DOCUMENT_BYTES + ENVELOPE_BYTES;

/// Bytes at the start of a refused line searched for its `id` (clients write it before
/// `params`): 64 KiB. A refused line whose id is not there is answered with `id: null`.
pub const ID_WINDOW_BYTES: usize = 64 << 10;

/// Nesting depth at which the values of a `tools/call`'s arguments start (inside the
/// message, its `params` and its `arguments`): each argument is read within the document
/// limits on its own, as a call's arguments are in every binding.
pub const ARGUMENTS_DEPTH: usize = 3;

/// How a message is read: the document limits (depth 256 for the whole line), values and
/// string bytes counted per argument.
const READING: JsonReading = JsonReading::message(MAX_MESSAGE_BYTES, ARGUMENTS_DEPTH);

/// The field an error about the message as a whole names.
pub const MESSAGE: &str = "message";

const CODE: ErrorCode = ErrorCode::InvalidConfig;

/// Reads one message's text with the core's JSON reader (numbers to the nearest f64, a
/// lone surrogate escape read as U+FFFD, `JSON.parse`'s rule for repeated keys), within
/// [`MAX_MESSAGE_BYTES`] and the document limits.
pub fn parse_message(text: &str) -> Result<Value> {
    Value::parse_json_as(text, CODE, MESSAGE, READING)
}

/// The message's bytes as UTF-8 text, or the error naming the first byte that is not.
pub fn message_text(bytes: &[u8]) -> Result<&str> {
    crate::value::utf8_text(bytes, CODE, MESSAGE)
}

/// Whether a reading error is a limit the message went over (rather than text that is not JSON).
pub fn is_over_the_limits(error: &Error) -> bool {
    error.message().starts_with(OVER_THE_LIMITS)
}

/// A line longer than [`MAX_MESSAGE_BYTES`].
pub fn message_too_long() -> Error {
    let text = over_limit("a message of more than ", MAX_MESSAGE_BYTES, " bytes");
    Error::new(CODE, ErrorKind::Range, MESSAGE, concat(&[MESSAGE, " is ", &text]))
}

/// A message that is not a JSON object.
pub fn not_an_object(got: &Value) -> Error {
    crate::host::type_error(CODE, MESSAGE, "a JSON-RPC 2.0 message (an object)", got)
}

/// A message whose `jsonrpc` is not `"2.0"`.
pub fn wrong_version(got: Option<&Value>) -> Error {
    let got = got.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
    Error::new(CODE, ErrorKind::Range, "jsonrpc", concat(&["jsonrpc must be the string \"2.0\", got ", &got]))
}

/// A message with neither a `method` (a request, a notification) nor a `result` or an
/// `error` with an `id` (a response).
pub fn no_method() -> Error {
    Error::new(
        CODE,
        ErrorKind::Type,
        "method",
        "method must be a string (a request or a notification), or the message a response with an id and a result or an error, got nothing (missing)",
    )
}

/// A part of the message of the wrong type: `field` (`method`, `id`, `params`,
/// `params.name`, `params.arguments`) must be `expected`.
pub fn wrong_type(field: &str, expected: &str, got: &Value) -> Error {
    crate::host::type_error(CODE, field, expected, got)
}

/// A number in the envelope (outside a tool's arguments, where the tool names it) that is
/// not finite (`1e400`): JSON-RPC has no such number.
pub fn not_finite(field: &str, got: &Value) -> Error {
    Error::new(CODE, ErrorKind::Range, field, concat(&[field, " must be a finite number, got ", &got.describe()]))
}

/// A message the MCP library does not read as one of its messages (`detail`: its words).
pub fn unreadable(detail: &str) -> Error {
    Error::new(CODE, ErrorKind::Type, MESSAGE, concat(&["message is not an MCP message: ", detail]))
}

/// A request other than `initialize` (or `ping`) before `initialize`.
pub fn before_initialize(method: &str) -> Error {
    Error::new(
        CODE,
        ErrorKind::Range,
        "method",
        concat(&["method '", method, "' came before 'initialize': the first request must be 'initialize' (or 'ping')"]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_holds_a_document_at_its_limit_and_its_envelope() {
        assert_eq!(MAX_MESSAGE_BYTES, 269_484_032);
        assert_eq!(message_too_long().message(), "message is over the limits: a message of more than 269484032 bytes");
        assert!(is_over_the_limits(&Error::new(CODE, ErrorKind::Range, "m", over_limit("x", 1, "y"))));
    }

    #[test]
    fn arguments_are_each_within_the_document_limits() {
        // A string argument is a document (read as such by the tool), not limited as a string.
        let big = "x".repeat(crate::limits::MAX_STRING_BYTES + 1);
        let call = concat(&[r#"{"id":1,"params":{"arguments":{"snapshot":""#, &big, r#""}}}"#]);
        assert!(parse_message(&call).is_ok());
        // A string inside an argument is a string of a value.
        let inner = concat(&[r#"{"id":1,"params":{"arguments":{"config":{"a":""#, &big, r#""}}}}"#]);
        assert!(parse_message(&inner).is_err_and(|e| is_over_the_limits(&e)));
        // Depth: 256 for the whole line.
        let deep = |n: usize| concat(&["[".repeat(n).as_str(), "]".repeat(n).as_str()]);
        assert!(parse_message(&deep(256)).is_ok());
        assert!(parse_message(&deep(257)).is_err_and(|e| is_over_the_limits(&e)));
        assert!(parse_message("[1,").is_err_and(|e| !is_over_the_limits(&e)));
    }
}
