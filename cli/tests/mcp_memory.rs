//! `earlyexit mcp`'s replay over `paths` streams as the command does: under `prlimit --as`, a
//! 25 MB file of pyramid runs replays with `summary_only` within a limit far below the file's
//! size in memory, and the whole answer (one row per run, sent once, copied from the file the
//! rows wait in) within the same limit (docs/cli.md, "Big inputs").

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use earlyexit::{ErrorCode, Value};

/// Address space for the summary. The server's threads and allocator arenas reserve about
/// 150 MiB of it before any work (a limit of 128 MiB does not start a call), and a tool's
/// thread reserves its 64 MiB stack; the runs need only the largest line, where holding them
/// would need hundreds of MiB.
const SUMMARY_LIMIT: u64 = 256 << 20;
/// Address space for the whole answer: the same as the summary's. The rows wait in a
/// temporary file and are copied into the answer as it is written, so the server needs no
/// more for them (about 12 MB resident; it answered under 128 MiB of address space, the tool
/// thread's 64 MiB stack included). The server that parsed the rows into its answer (about
/// 238 MB resident) fails under it.
const WHOLE_LIMIT: u64 = SUMMARY_LIMIT;

fn write_runs(path: &Path, bytes: usize) -> u64 {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("create the runs file"));
    let (mut written, mut runs) = (0usize, 0u64);
    while written < bytes {
        let layers: Vec<String> = (0..6)
            .map(|j| {
                let failed = (runs * 7 + j * 3) % 11 == 0;
                format!(r#"{{"name":"layer-{j}","durationMs":{},"failed":{failed}}}"#, 1000 * (j + 1) + runs % 97)
            })
            .collect();
        let line = format!(r#"{{"id":"run-{runs}","layers":[{}]}}"#, layers.join(",")) + "\n";
        out.write_all(line.as_bytes()).expect("write a run");
        written += line.len();
        runs += 1;
    }
    out.flush().expect("flush the runs file");
    runs
}

fn prlimit_available() -> bool {
    Command::new("prlimit").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Replays `runs` through `earlyexit mcp` under `limit` bytes of address space: the answer.
fn replay_under(limit: u64, dir: &Path, runs: &Path, summary_only: bool) -> Value {
    let mut server = Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_earlyexit"))
        .args(["mcp", "--root", dir.to_str().expect("UTF-8 path")])
        // One malloc arena: under an address-space limit glibc otherwise keeps trying (and
        // failing) to map a 64 MiB arena per thread, which made this replay 100x slower.
        .env("MALLOC_ARENA_MAX", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the server starts");
    let mut stdin = server.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(server.stdout.take().expect("stdout"));
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"replay_pyramids","arguments":{{"paths":[{}],"policy":"risk_bounded","summary_only":{summary_only}}}}}}}"#,
        Value::string(runs.to_str().expect("UTF-8 path")).to_json()
    );
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &call,
    ];
    for message in messages {
        stdin.write_all(message.as_bytes()).and_then(|()| stdin.write_all(b"\n")).expect("send");
    }
    stdin.flush().expect("flush");
    let mut answer = Value::Null;
    let mut line = String::new();
    while stdout.read_line(&mut line).expect("read an answer") > 0 {
        let message = Value::parse_json(line.trim_end(), ErrorCode::InvalidConfig, "answer").expect("JSON answer");
        line.clear();
        if message.get("id").and_then(Value::as_f64) == Some(2.0) {
            answer = message;
            break;
        }
    }
    drop(stdin);
    let status = server.wait().expect("the server ends");
    assert!(status.success(), "the server exited {status:?}");
    answer
}

#[test]
fn a_25_mb_replay_over_paths_streams_under_a_memory_limit() {
    if !cfg!(target_os = "linux") || !prlimit_available() {
        eprintln!("skipped: prlimit (util-linux) is not available");
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let runs_path = dir.path().join("runs.jsonl");
    let runs = write_runs(&runs_path, 25 << 20);

    let summary = replay_under(SUMMARY_LIMIT, dir.path(), &runs_path, true);
    let result = summary.get("result").unwrap_or_else(|| panic!("no result: {}", summary.to_json()));
    assert_ne!(result.get("isError"), Some(&Value::Bool(true)), "{}", summary.to_json());
    let structured = result.get("structuredContent").expect("structured content");
    assert_eq!(structured.get("summary").and_then(|s| s.get("runs")).and_then(Value::as_f64), Some(runs as f64));
    assert!(structured.get("runs").is_none(), "summary_only leaves the rows out");

    let whole = replay_under(WHOLE_LIMIT, dir.path(), &runs_path, false);
    let result = whole.get("result").unwrap_or_else(|| panic!("no result: {}", whole.to_json()));
    let structured = result.get("structuredContent").expect("structured content");
    match structured.get("runs") {
        Some(Value::Array(rows)) => assert_eq!(rows.len() as u64, runs),
        other => panic!("no rows: {:?}", other.map(Value::to_json)),
    }
    // The text carries the document without the rows: they are sent once.
    let text = result.get("content").and_then(|c| match c {
        Value::Array(items) => items.first().and_then(|t| t.get("text")).and_then(Value::as_str).map(str::to_string),
        _ => None,
    });
    let text = Value::parse_json(&text.expect("a text block"), ErrorCode::InvalidConfig, "text").expect("JSON text");
    assert!(text.get("runs").is_none() && text.get("summary").is_some());
}
