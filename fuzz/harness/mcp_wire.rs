//! Target `mcp_wire`: the MCP server's line reader and message reader (crate
//! `earlyexit-mcp-wire`) on any bytes. Not in `mod.rs` (the core's corpus test includes that
//! and links only the core): the fuzz target and `mcp-wire/tests/fuzz_corpus.rs` include this
//! file by path.
//!
//! * The bytes cut into lines with a small limit (the first byte picks it, 1..=256, so the
//!   over-limit path runs): the lines within the limit, joined with their line ends, are the
//!   input less the lines over it; a line over it keeps at most 64 KiB of head.
//! * Each line gets at most one outcome: blank, a message, a refusal or a drop. A refusal's
//!   response is one line of JSON that the core reads back, with `jsonrpc` "2.0", the
//!   refusal's id (or null) and its code; a message's id and method are those of its value.
//! * A message written back to JSON by the core reads back as the same message (as long as
//!   it holds no number that is not finite, which JSON cannot write).
//! * The head scan of any line finds an id only as a JSON string or finite number.
//! * The handshake passes nothing but `initialize` and `ping` before `initialize`.

#![allow(dead_code, clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use earlyexit::{ErrorCode, Value};
use earlyexit_mcp_wire::{
    read_message, scan_head, too_long, Admission, Handshake, Kind, Line, LineReader, Reading, ID_WINDOW_BYTES,
};

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&first, bytes)) = data.split_first() else { return };
    let limit = usize::from(first) + 1;
    let mut reader = LineReader::with_limit(bytes, limit);
    let mut kept = Vec::new();
    let mut handshake = Handshake::default();
    let mut count = 0;
    while let Some(line) = reader.next_line().expect("reading a slice cannot fail") {
        count += 1;
        assert!(count <= bytes.len() + 1, "more lines than bytes");
        let reading = match &line {
            Line::Text(text) => {
                assert!(text.len() <= limit, "a line of {} bytes passed the limit {limit}", text.len());
                assert!(!text.contains(&b'\n'));
                kept.extend_from_slice(text);
                kept.push(b'\n');
                read_message(text)
            }
            Line::TooLong { head, bytes } => {
                assert!(head.len() <= ID_WINDOW_BYTES && (*bytes as usize) > limit);
                too_long(head)
            }
        };
        check(&reading, &line);
        if let Reading::Message(message) = &reading {
            let before = handshake.initialized();
            let admitted = handshake.admit(message);
            let opening = matches!(message.method.as_deref(), Some("initialize" | "ping"));
            match admitted {
                Admission::Pass => assert!(before || (opening && message.kind == Kind::Request)),
                Admission::Refuse(_) => assert!(!before && !opening && message.kind == Kind::Request),
                Admission::Drop(_) => assert!(!before && message.kind != Kind::Request),
            }
        }
    }
    // What the reader kept is the input without the lines over the limit (each line's end
    // restored; a last line without one gets one).
    if !bytes.split(|&b| b == b'\n').any(|l| l.len() > limit) {
        let mut expected = bytes.to_vec();
        if !expected.is_empty() && expected.last() != Some(&b'\n') {
            expected.push(b'\n');
        }
        assert_eq!(kept, expected);
    }
}

fn check(reading: &Reading, line: &Line) {
    match reading {
        Reading::Blank => {
            let Line::Text(text) = line else { panic!("a line over the limit read as blank") };
            assert!(text.iter().all(|b| b" \t\r\n".contains(b)));
        }
        Reading::Refused(refusal) => {
            let response = refusal.response();
            assert!(!response.contains('\n'));
            let value = Value::parse_json(&response, ErrorCode::InvalidConfig, "response").expect("a response is JSON");
            assert_eq!(value.get("jsonrpc"), Some(&Value::string("2.0")));
            let id = value.get("id").map(Value::to_json);
            assert_eq!(id.as_deref(), Some(refusal.id.as_deref().unwrap_or("null")));
            let code = value.get("error").and_then(|e| e.get("code")).and_then(Value::as_f64);
            assert_eq!(code, Some(refusal.code as f64));
            assert!([-32700, -32600, -32602].contains(&refusal.code));
        }
        Reading::Dropped(log) => assert!(log.starts_with("dropped ") && !log.contains('\n')),
        Reading::Message(message) => {
            let method = message.value.get("method").and_then(Value::as_str);
            assert_eq!(method, message.method.as_deref());
            assert_eq!(message.kind == Kind::Response, method.is_none());
            let again = read_message(message.value.to_json().as_bytes());
            if !holds_non_finite(&message.value) {
                assert_eq!(again, Reading::Message(message.clone()), "a message written back reads differently");
            }
        }
    }
    if let Line::Text(text) = line {
        let head = scan_head(text);
        if let Some(id) = &head.id {
            let value = Value::parse_json(id, ErrorCode::InvalidConfig, "id").expect("an id is JSON");
            assert!(matches!(value, Value::String(_)) || value.as_f64().is_some_and(f64::is_finite), "{id}");
        }
    }
}

fn holds_non_finite(value: &Value) -> bool {
    match value {
        Value::Number(n) => !n.is_finite(),
        Value::Array(items) => items.iter().any(holds_non_finite),
        Value::Object(entries) => entries.iter().any(|(_, v)| holds_non_finite(v)),
        _ => false,
    }
}
