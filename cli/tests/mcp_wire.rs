//! `earlyexit mcp` over raw standard input and output: every malformed message gets an answer
//! (the exact JSON-RPC error) or, when none is allowed, a line on standard error; a message
//! far over the line limit is refused with its id without being held (under `prlimit --as`);
//! an 18 MB snapshot is imported; a tool that would have overflowed its stack answers.
//!
//! Reading the server's answers waits at most a few minutes per answer: a guard against a
//! hang (the failure these tests were written for), not a measure of speed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value as Json};

/// How long an answer may take before the test calls it a hang: 300 s, or
/// `EARLYEXIT_TEST_HANG_SECS`.
fn hang() -> Duration {
    let secs = std::env::var("EARLYEXIT_TEST_HANG_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    Duration::from_secs(secs)
}

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<Json>,
    stderr: Receiver<String>,
}

impl Server {
    /// `earlyexit mcp`, under `prlimit --as=<bytes>` when given.
    fn start(address_space: Option<u64>) -> Server {
        let bin = env!("CARGO_BIN_EXE_earlyexit");
        let mut command = match address_space {
            Some(bytes) => {
                let mut c = Command::new("prlimit");
                c.arg(format!("--as={bytes}")).arg("--").arg(bin);
                c
            }
            None => Command::new(bin),
        };
        let mut child = command
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, answers) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Json =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().expect("stderr");
        let (etx, stderr) = channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            let _ = etx.send(text);
        });
        let stdin = child.stdin.take();
        Server { child, stdin, answers, stderr }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    fn send_json(&mut self, value: &Json) {
        self.send(value.to_string().as_bytes());
    }

    fn answer(&self) -> Json {
        self.answers.recv_timeout(hang()).expect("an answer (the server hung or died)")
    }

    /// The next `n` answers, by id (JSON text of the id; `null` for answers without one, in order).
    fn answers(&self, n: usize) -> HashMap<String, Vec<Json>> {
        let mut by_id: HashMap<String, Vec<Json>> = HashMap::new();
        for _ in 0..n {
            let answer = self.answer();
            by_id.entry(answer["id"].to_string()).or_default().push(answer);
        }
        by_id
    }

    fn initialize(&mut self) {
        self.send_json(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}));
        let answer = self.answer();
        assert_eq!(answer["id"], "init");
        assert!(answer["result"]["serverInfo"]["name"] == "earlyexit", "{answer}");
        self.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Json) -> Json {
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        let answer = self.answer();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Closes standard input: the server exits 0; its standard error.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "exit {status:?}");
        self.stderr.recv_timeout(hang()).unwrap_or_default()
    }
}

fn error(code: i64, id: Json, message: &str, field: &str, kind: &str) -> Json {
    let title = match code {
        -32700 => "Parse error",
        -32602 => "Invalid params",
        _ => "Invalid Request",
    };
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": format!("{title}: {message}"),
        "data": {"code": "invalid_config", "kind": kind, "field": field, "message": message}}})
}

/// The structured content of a tool error.
fn tool_error(answer: &Json) -> &Json {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    &answer["result"]["structuredContent"]["error"]
}

#[test]
fn messages_before_initialize_are_answered_or_dropped_and_the_server_goes_on() {
    let mut server = Server::start(None);
    // A response and a notification: dropped (before: "expect initialized request", exit 1).
    server.send(br#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    server.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    server.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let message = "method 'tools/list' came before 'initialize': the first request must be 'initialize' (or 'ping')";
    assert_eq!(server.answer(), error(-32600, json!(1), message, "method", "range"));
    server.send(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(server.answer(), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    server.initialize();
    server.send(br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
    assert!(server.answer()["result"]["tools"].as_array().is_some_and(|t| t.len() == 31));
    let log = server.finish();
    assert!(log.contains("dropped a response (id 99): it came before 'initialize'"), "{log}");
    assert!(log.contains("dropped notification 'notifications/cancelled': it came before 'initialize'"), "{log}");
}

#[test]
fn every_malformed_message_gets_one_answer_with_its_id() {
    let mut server = Server::start(None);
    server.initialize();
    let start = server.call(1, "loop_start", json!({}));
    assert_eq!(start["result"]["structuredContent"]["session"], "loop-1", "{start}");

    let record = |extra: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{{"name":"loop_record","arguments":{{"session":"loop-1","confidence":0.5,"verification_status":"failed",{extra}}}}}}}"#
        )
    };
    // Not JSON: one parse error, id null; a blank line: nothing.
    server.send(b"this is not JSON");
    server.send(b"");
    server.send(b"  \r");
    // NaN: not JSON either, but the id is in the line's head.
    server.send(record(r#""quality_score":NaN"#).replace("ID", "2").as_bytes());
    // Invalid UTF-8 in the arguments.
    let mut bytes = record(r#""quality_score":50,"learnings":"AB""#).replace("ID", "3").into_bytes();
    let at = bytes.iter().position(|&b| b == b'A').expect("A");
    bytes[at] = 0xff;
    server.send(&bytes);
    // Arguments nested deeper than the document depth (256 for the whole message).
    let deep = format!(r#""quality_score":50,"blockers":{}{}"#, "[".repeat(300), "]".repeat(300));
    server.send(record(&deep).replace("ID", "4").as_bytes());
    // `arguments` that is not an object (before: -32601, method not found).
    server.send(
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"loop_decide","arguments":"loop-1"}}"#,
    );
    // A number beyond f64 in the envelope.
    server.send(br#"{"jsonrpc":"2.0","id":6,"method":"ping","params":{"_meta":{"progressToken":1e400}}}"#);
    // A response to nothing the server asked: dropped.
    server.send(br#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    let answers = server.answers(6);
    let only = |id: &str| -> Json {
        answers.get(id).map(|a| a[0].clone()).unwrap_or_else(|| panic!("no answer for {id}: {answers:?}"))
    };
    assert_eq!(answers.get("null").map(Vec::len), Some(1), "{answers:?}");
    assert_eq!(only("null"), error(-32700, Json::Null, "invalid JSON: unexpected token at byte 0", "message", "range"));
    let at_nan = record("").find("NaN").unwrap_or(0);
    let nan = record(r#""quality_score":NaN"#).replace("ID", "2");
    let at_nan = nan.find("NaN").unwrap_or(at_nan);
    assert_eq!(
        only("2"),
        error(-32700, json!(2), &format!("invalid JSON: unexpected character at byte {at_nan}"), "message", "range")
    );
    assert_eq!(
        only("3"),
        error(-32700, json!(3), &format!("message is not UTF-8 text: invalid at byte {at}"), "message", "range")
    );
    let deep_line = record(&deep).replace("ID", "4");
    let over = deep_line.find('[').unwrap_or(0) + 256 - 3;
    assert_eq!(
        only("4"),
        error(
            -32600,
            json!(4),
            &format!("over the limits: nested deeper than 256 levels at byte {over}"),
            "message",
            "range"
        )
    );
    assert_eq!(
        only("5"),
        error(
            -32602,
            json!(5),
            "params.arguments must be an object, got string \"loop-1\"",
            "params.arguments",
            "type"
        )
    );
    assert_eq!(
        only("6"),
        error(
            -32602,
            json!(6),
            "params._meta.progressToken must be a finite number, got Infinity",
            "params._meta.progressToken",
            "range"
        )
    );

    // Numbers beyond f64 inside arguments: the tool's own typed errors; a lone surrogate
    // escape: the reader's parse error with the request's id.
    let answer = {
        server.send(record(r#""quality_score":1e400"#).replace("ID", "7").as_bytes());
        server.answer()
    };
    assert_eq!(answer["id"], 7);
    assert_eq!(tool_error(&answer)["field"], "quality_score", "{answer}");
    assert!(tool_error(&answer)["message"].as_str().is_some_and(|m| m.ends_with("got Infinity")), "{answer}");
    server.send(record(r#""quality_score":50,"verification_status":"\ud800""#).replace("ID", "8").as_bytes());
    let answer = server.answer();
    assert_eq!(answer["id"], 8);
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert!(answer["error"]["message"].as_str().is_some_and(|m| m.contains("lone UTF-16 surrogate")), "{answer}");
    // Arguments nested 150 deep (serde_json's limit was 128 with the envelope): the tool answers.
    let nested = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"loop_start","arguments":{{"config":{{"a":{}1{}}}}}}}}}"#,
        "[".repeat(150),
        "]".repeat(150)
    );
    server.send(nested.as_bytes());
    let answer = server.answer();
    assert_eq!(answer["id"], 9);
    assert_eq!(tool_error(&answer)["code"], "unknown_option", "{answer}");

    // session_close ends a session; the others go on.
    let closed = server.call(10, "session_close", json!({"session": "loop-1"}));
    assert_eq!(closed["result"]["structuredContent"], json!({"session": "loop-1", "closed": true}));
    let gone = server.call(11, "loop_decide", json!({"session": "loop-1"}));
    assert_eq!(tool_error(&gone)["code"], "invalid_step", "{gone}");
    let log = server.finish();
    assert!(log.contains("dropped a response (id 77): the server asked nothing by that id"), "{log}");
    assert!(log.contains("answered -32700 (id null): invalid JSON"), "{log}");
}

/// A 600 MB line (over the 269,484,032-byte limit) is refused with its id without being
/// held whole: the server runs in 512 MiB of address space, less than the line (it holds at
/// most the limit's worth before it knows; measured: 420 MiB suffices). Before: no answer at
/// all (rmcp dropped lines over 16 MiB).
#[test]
fn a_line_over_the_limit_is_refused_with_its_id_and_the_server_goes_on() {
    let mut server = Server::start(Some(512 << 20));
    server.initialize();
    let stdin = server.stdin.as_mut().expect("stdin");
    stdin
        .write_all(br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"loop_start","arguments":{"policy_artifact":""#)
        .expect("write");
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..600 {
        stdin.write_all(&chunk).expect("write");
    }
    stdin.write_all(b"\"}}}\n").expect("write");
    let message = "message is over the limits: a message of more than 269484032 bytes";
    assert_eq!(server.answer(), error(-32600, json!(42), message, "message", "range"));
    let answer = server.call(43, "loop_start", json!({}));
    assert!(answer["result"]["structuredContent"]["session"].is_string(), "{answer}");
    let log = server.finish();
    assert!(log.contains("is over the limit of 269484032 bytes"), "{log}");
}

/// A 120,000-record loop snapshot (about 18 MB of JSON) is imported. Before: no answer (rmcp's
/// 16 MiB line limit, under the documented 256 MiB document limit).
#[test]
fn an_18_mb_snapshot_is_imported() {
    let mut server = Server::start(None);
    server.initialize();
    let start = server.call(1, "loop_start", json!({"config": {"maxIterations": 1000000}}));
    let session = start["result"]["structuredContent"]["session"].as_str().expect("session").to_string();
    let export = server.call(2, "session_export", json!({"session": session}));
    let mut snapshot = export["result"]["structuredContent"]["snapshot"].clone();
    // The exported snapshot with a long history (the records' shape taken from a recorded one).
    let recorded = server.call(
        3,
        "loop_record",
        json!({"session": session, "quality_score": 50, "confidence": 0.5,
        "verification_status": "failed", "timestamp": "2026-01-01T00:00:00.000Z"}),
    );
    assert!(recorded["result"]["structuredContent"]["iteration"] == 1, "{recorded}");
    let one = server.call(4, "session_export", json!({"session": session}));
    let shape = one["result"]["structuredContent"]["snapshot"]["history"][0].clone();
    let history: Vec<Json> = (1..=120_000u64)
        .map(|i| {
            let mut record = shape.clone();
            record["iteration_number"] = json!(i);
            record
        })
        .collect();
    snapshot["history"] = Json::Array(history);
    let text = snapshot.to_string();
    assert!(text.len() > 16 << 20, "{} bytes", text.len());
    let answer = server.call(5, "session_import", json!({"snapshot": snapshot}));
    assert_eq!(
        answer["result"]["structuredContent"]["engine"],
        "loop",
        "{}",
        &answer.to_string()[..500.min(answer.to_string().len())]
    );
    let best = server.call(6, "loop_best", json!({"session": answer["result"]["structuredContent"]["session"]}));
    assert!(best["result"]["structuredContent"]["best_iteration"].is_number(), "{best}");
    server.finish();
}

/// A JUnit report nested 10,000 deep: the tool answers and the server goes on. Before: the
/// tool thread's 2 MiB stack overflowed and the process aborted, losing every session.
#[test]
fn a_deeply_nested_junit_report_does_not_crash_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("deep.xml");
    let depth = 10_000;
    let report = format!(
        "<testsuites>{}<testcase name=\"t\"/>{}</testsuites>",
        "<testsuite name=\"s\">".repeat(depth),
        "</testsuite>".repeat(depth)
    );
    std::fs::write(&path, report).expect("write");
    let mut server = Server::start(None);
    server.initialize();
    let start = server.call(1, "loop_start", json!({}));
    assert!(start["result"]["structuredContent"]["session"].is_string());
    let answer = server.call(2, "junit_layer_result", json!({"junit": [path.to_string_lossy()]}));
    assert!(answer.get("result").is_some(), "{answer}");
    let decide = server.call(3, "loop_decide", json!({"session": "loop-1"}));
    assert!(decide["result"]["structuredContent"]["stop"].is_boolean(), "{decide}");
    server.finish();
}

/// A client that writes lines and closes standard input at once still gets every answer: the
/// server writes them all before it exits. Before: most were lost (the process exited while
/// they waited to be written).
#[test]
fn the_answers_to_the_last_lines_are_written_before_the_server_exits() {
    let mut server = Server::start(None);
    let lines = 2000;
    let text = "this is not JSON\n".repeat(lines);
    server.stdin.as_mut().expect("stdin").write_all(text.as_bytes()).expect("write");
    drop(server.stdin.take());
    let expected = error(-32700, Json::Null, "invalid JSON: unexpected token at byte 0", "message", "range");
    for _ in 0..lines {
        assert_eq!(server.answer(), expected);
    }
    server.finish();
}

/// `pyramid_start` with `mode: shadow` (the ADR's exit decision, the default): every layer
/// runs, the result's `shadow` holds the receipt of its would-be exit, the session exports
/// and imports mid-way, and a bad mode or run id is named by its argument.
#[test]
fn the_adr_runs_in_shadow_mode_from_mcp() {
    let mut server = Server::start(None);
    server.initialize();
    let layers = json!([{"name": "unit", "costMs": 10}, {"name": "integration", "costMs": 20},
        {"name": "e2e", "costMs": 30}, {"name": "smoke", "costMs": 40}]);
    let start =
        server.call(1, "pyramid_start", json!({"layers": layers, "mode": "shadow", "run_id": "m1", "label": "main"}));
    let mut session = start["result"]["structuredContent"]["session"].as_str().expect("session").to_string();
    let mut id = 2;
    for (i, name) in ["unit", "integration", "e2e", "smoke"].iter().enumerate() {
        if i == 2 {
            // Export and import mid-way: the shadow run goes on in the new session.
            let export = server.call(id, "session_export", json!({"session": session}));
            let snapshot = export["result"]["structuredContent"]["snapshot"].clone();
            assert_eq!(snapshot["engine"], "PyramidPolicyRun", "{snapshot}");
            let imported = server.call(id + 1, "session_import", json!({"snapshot": snapshot}));
            session = imported["result"]["structuredContent"]["session"].as_str().expect("session").to_string();
            id += 2;
        }
        let rate = if *name == "smoke" { 0.5 } else { 1.0 };
        let got = server.call(
            id,
            "pyramid_submit",
            json!({"session": session, "layer": name,
            "result": {"passRate": rate, "coverage": 1, "flakyRatio": 0}}),
        );
        assert!(got["result"]["isError"] != true, "{got}");
        id += 1;
    }
    let result = server.call(id, "pyramid_result", json!({"session": session}));
    let result = &result["result"]["structuredContent"];
    assert_eq!(result["layersExecuted"], json!([0, 1, 2, 3]), "{result}");
    let receipt = &result["shadow"]["receipts"][0];
    assert_eq!(
        (&receipt["policy"], &receipt["layer"], &receipt["label"], &receipt["runId"], &receipt["runLabel"]),
        (&json!("adr"), &json!(0), &json!("false_pass"), &json!("m1"), &json!("main")),
        "{receipt}"
    );
    assert_eq!(receipt["firstMissedFailure"], json!({"layer": 3, "name": "smoke"}));
    let bad = server.call(id + 1, "pyramid_start", json!({"layers": layers, "mode": "shade"}));
    assert_eq!(tool_error(&bad)["field"], "mode", "{bad}");
    let bad = server.call(id + 2, "pyramid_start", json!({"layers": layers, "mode": "shadow", "run_id": 7}));
    assert_eq!(tool_error(&bad)["field"], "run_id", "{bad}");
    server.finish();
}
