//! The line reader and the message reader: what each kind of line becomes.

use earlyexit_mcp_wire::{
    code, read_message, scan_head, too_long, Admission, Handshake, Head, Kind, Line, LineReader, Reading,
    ID_WINDOW_BYTES, MAX_MESSAGE_BYTES,
};

fn lines(input: &[u8], limit: usize) -> Vec<Line> {
    let mut reader = LineReader::with_limit(input, limit);
    let mut out = Vec::new();
    while let Some(line) = reader.next_line().expect("a slice reads") {
        out.push(line);
    }
    out
}

fn text(s: &str) -> Line {
    Line::Text(s.as_bytes().to_vec())
}

#[test]
fn lines_are_cut_at_line_ends_and_a_last_line_needs_none() {
    assert_eq!(lines(b"a\n\nbc\r\nd", 10), vec![text("a"), text(""), text("bc\r"), text("d")]);
    assert_eq!(lines(b"", 10), vec![]);
    assert_eq!(lines(b"\n", 10), vec![text("")]);
}

#[test]
fn a_line_over_the_limit_keeps_its_head_only_and_the_next_line_is_read() {
    let long = format!("{{\"id\":7,{}}}", "x".repeat(200_000));
    let input = format!("{long}\nnext\n");
    let got = lines(input.as_bytes(), 1000);
    let Some(Line::TooLong { head, bytes }) = got.first() else { panic!("{:?}", got.first().map(|_| ())) };
    assert_eq!(head.len(), ID_WINDOW_BYTES);
    assert_eq!(head.as_slice(), &long.as_bytes()[..ID_WINDOW_BYTES]);
    assert_eq!(*bytes, long.len() as u64);
    assert_eq!(got.get(1), Some(&text("next")));
    // Exactly at the limit is within it.
    assert_eq!(lines(b"12345\n", 5), vec![text("12345")]);
    assert!(matches!(lines(b"123456\n", 5).first(), Some(Line::TooLong { bytes: 6, .. })));
}

#[test]
fn the_limit_is_a_document_at_its_limit_and_one_mib() {
    assert_eq!(MAX_MESSAGE_BYTES, 256 * 1024 * 1024 + 1024 * 1024);
}

#[test]
fn the_head_of_a_line_shows_its_id_method_and_whether_it_is_a_response() {
    let head = scan_head(br#"{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"arguments":{"x":[1,2,"#);
    assert_eq!(head, Head { id: Some(r#""a\"b""#.into()), method: Some("tools/call".into()), response: false });
    assert_eq!(scan_head(br#"{"params":{"a":"}"},"id":12,"result"#).id.as_deref(), Some("12"));
    assert!(scan_head(br#"{"id":3,"result":{"#).response);
    // The id comes after what cannot be read whole: not taken.
    assert_eq!(scan_head(br#"{"params":{"a":NaN},"id":12}"#).id.as_deref(), Some("12"));
    assert_eq!(scan_head(br#"{"params":{"a":"x"#).id, None);
    assert_eq!(scan_head(br#"{"id":1e400}"#).id, None);
    assert_eq!(scan_head(br#"{"id":[1]}"#).id, None);
    assert_eq!(scan_head(b"not json").id, None);
}

fn refused(line: &str) -> (Option<String>, i64, String, String) {
    match read_message(line.as_bytes()) {
        Reading::Refused(r) => (r.id.clone(), r.code, r.error.field().to_string(), r.error.message().to_string()),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn each_malformed_line_gets_one_typed_answer() {
    assert_eq!(read_message(b""), Reading::Blank);
    assert_eq!(read_message(b" \t\r"), Reading::Blank);
    assert_eq!(refused("nope").1, code::PARSE_ERROR);
    assert_eq!(refused("nope").0, None);
    let nan = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"q":NaN}}}"#;
    assert_eq!(refused(nan).0.as_deref(), Some("2"));
    assert_eq!(refused(nan).1, code::PARSE_ERROR);
    let deep = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"m","params":{}{}}}"#, "[".repeat(300), "]".repeat(300));
    let (id, code, _, message) = refused(&deep);
    assert_eq!((id.as_deref(), code), (Some("3"), code::INVALID_REQUEST));
    assert!(message.starts_with("over the limits: nested deeper than 256 levels"), "{message}");
    let args = r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"t","arguments":[1]}}"#;
    assert_eq!(
        refused(args),
        (
            Some(r#""x""#.into()),
            code::INVALID_PARAMS,
            "params.arguments".into(),
            "params.arguments must be an object, got array".into()
        )
    );
    let envelope = r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"n":[1,-1e999]}}"#;
    assert_eq!(refused(envelope).2, "params.n[1]");
    assert_eq!(refused(r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#).2, "jsonrpc");
    assert_eq!(refused("[]").3, "message must be a JSON-RPC 2.0 message (an object), got array");
    assert_eq!(refused(r#"{"jsonrpc":"2.0","id":6}"#).2, "method");
    let mut invalid = br#"{"jsonrpc":"2.0","id":8,"method":"ping","params":{"s":"AB"}}"#.to_vec();
    invalid[55] = 0xff;
    let Reading::Refused(r) = read_message(&invalid) else { panic!() };
    assert_eq!((r.id.as_deref(), r.code), (Some("8"), code::PARSE_ERROR));
    assert_eq!(r.error.message(), "message is not UTF-8 text: invalid at byte 55");
}

#[test]
fn numbers_beyond_f64_in_arguments_reach_the_tool() {
    let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"q":1e400}}}"#;
    let Reading::Message(mut message) = read_message(line.as_bytes()) else { panic!() };
    assert_eq!((message.kind, message.id.as_deref()), (Kind::Request, Some("1")));
    let arguments = message.take_arguments().expect("arguments");
    assert_eq!(arguments.get("q").and_then(|q| q.as_f64()), Some(f64::INFINITY));
    // Taken out of the message.
    assert_eq!(message.take_arguments(), None);
}

/// A lone surrogate escape is not a character: the message is refused with its id, as the
/// command refuses one in a file it reads, never turned into U+FFFD (which a policy string
/// would then carry into an exported session).
#[test]
fn a_lone_surrogate_is_refused_with_the_id() {
    let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"s":"\ud800"}}}"#;
    let Reading::Refused(r) = read_message(line.as_bytes()) else { panic!() };
    assert_eq!((r.id.as_deref(), r.code), (Some("1"), code::PARSE_ERROR));
    assert!(r.error.message().contains("lone UTF-16 surrogate"), "{}", r.error.message());
}

#[test]
fn a_response_or_a_notification_is_never_answered() {
    assert!(matches!(read_message(br#"{"jsonrpc":"2.0","id":1,"result":NaN}"#), Reading::Dropped(_)));
    assert!(matches!(read_message(br#"{"jsonrpc":"2.0","error":{}}"#), Reading::Dropped(_)));
    assert!(matches!(read_message(br#"{"jsonrpc":"2.0","method":"n","params":{"x":1e400}}"#), Reading::Dropped(_)));
    // An error response a peer echoes back is a response: dropped, so errors cannot storm.
    let Reading::Refused(refusal) = read_message(b"x") else { panic!() };
    assert!(matches!(read_message(refusal.response().as_bytes()), Reading::Dropped(_)));
}

#[test]
fn the_answer_to_a_refused_line_is_one_line_of_json_rpc() {
    let Reading::Refused(refusal) = too_long(br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"#) else {
        panic!()
    };
    assert_eq!(
        refusal.response(),
        concat!(
            r#"{"jsonrpc":"2.0","id":42,"error":{"code":-32600,"message":"Invalid Request: message is over the limits: "#,
            r#"a message of more than 269484032 bytes","data":{"code":"invalid_config","kind":"range","field":"message","#,
            r#""message":"message is over the limits: a message of more than 269484032 bytes"}}}"#
        )
    );
}

#[test]
fn before_initialize_only_initialize_and_ping_pass() {
    let message = |line: &str| match read_message(line.as_bytes()) {
        Reading::Message(m) => m,
        other => panic!("{other:?}"),
    };
    let mut handshake = Handshake::default();
    assert!(matches!(handshake.admit(&message(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)), Admission::Drop(_)));
    assert!(matches!(
        handshake.admit(&message(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#)),
        Admission::Drop(_)
    ));
    let Admission::Refuse(refusal) = handshake.admit(&message(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#))
    else {
        panic!()
    };
    assert!(refusal.error.message().contains("before 'initialize'"));
    assert_eq!(handshake.admit(&message(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)), Admission::Pass);
    assert!(!handshake.initialized());
    assert_eq!(handshake.admit(&message(r#"{"jsonrpc":"2.0","id":4,"method":"initialize"}"#)), Admission::Pass);
    assert!(handshake.initialized());
    assert_eq!(handshake.admit(&message(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#)), Admission::Pass);
}

/// docs/limits.md states the message limit and the id window as the core has them.
#[test]
fn the_docs_state_the_message_limits() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/limits.md")).expect("the page");
    let grouped = |n: usize| {
        let digits = n.to_string();
        digits.as_bytes().rchunks(3).rev().map(|c| std::str::from_utf8(c).unwrap_or("")).collect::<Vec<_>>().join(",")
    };
    for (name, value) in [("message bytes", MAX_MESSAGE_BYTES), ("id window", ID_WINDOW_BYTES)] {
        let row =
            page.lines().find(|l| l.starts_with(&format!("| {name} |"))).unwrap_or_else(|| panic!("no row {name}"));
        assert!(row.contains(&grouped(value)), "{row}");
    }
}
