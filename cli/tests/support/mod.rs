//! What every end-to-end test of the `earlyexit` binary needs: running it, its exit code, its
//! JSON on stdout or stderr, and temporary paths. One copy, included by each test file with
//! `mod support;` (cargo builds each file in `tests/` as its own crate, so an item a given file
//! does not call is not dead code: hence the `allow`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use earlyexit::{ErrorCode, Value};

/// The binary under test, as a command to add arguments to.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_earlyexit"))
}

/// `earlyexit ARGS`, run to the end.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

/// The exit code, or -1 when a signal ended the process.
pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// A `loop record` that recorded: exit 0 (go on) or 10 (stop).
pub fn recorded(out: &Output) -> bool {
    [0, 10].contains(&code(out))
}

/// stdout as text, without the trailing newline.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}

/// stderr as text, for assertion messages.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A JSON document, parsed by the core's reader.
pub fn parse(text: &str) -> Value {
    Value::parse_json(text.trim(), ErrorCode::InvalidConfig, "text").expect("JSON")
}

/// A JSON document from raw bytes (a file, stdout or stderr), read as UTF-8.
pub fn parse_bytes(bytes: &[u8]) -> Value {
    parse(&String::from_utf8_lossy(bytes))
}

/// The JSON document on stdout.
pub fn json(out: &Output) -> Value {
    parse(&String::from_utf8_lossy(&out.stdout))
}

/// The JSON document on stderr (the command's error form under `--json`).
pub fn stderr_json(out: &Output) -> Value {
    parse(&String::from_utf8_lossy(&out.stderr))
}

/// `(code, field, message)` of the JSON error on stderr (the command's error form).
pub fn error_of(out: &Output) -> (String, String, String) {
    let doc = stderr_json(out);
    let e = doc.get("error").expect("an error object");
    let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    (text("code"), text("field"), text("message"))
}

/// `(code, field)` of the JSON error on stderr.
pub fn code_field(out: &Output) -> (String, String) {
    let (code, field, _) = error_of(out);
    (code, field)
}

/// A temporary directory, removed when dropped.
pub fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A file of `cli/tests/data/`.
pub fn data(name: &str) -> String {
    data_path(name).display().to_string()
}

/// A file of `cli/tests/data/`, as a path.
pub fn data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// `pyramid submit` of one layer's figures (flaky 0, coverage 1); the exit code is 0 or 10.
pub fn submit_layer(state: &Path, layer: &str, pass_rate: &str) {
    let args = [
        "--json",
        "pyramid",
        "submit",
        "--state",
        s(state),
        layer,
        "--pass-rate",
        pass_rate,
        "--flaky",
        "0",
        "--coverage",
        "1",
    ];
    let out = run(&args);
    assert!(matches!(code(&out), 0 | 10), "{}", stderr(&out));
}

/// A fail_fast run called `id` in shadow mode over two layers (`unit=10`, `e2e=90`), both
/// submitted: `unit_rate` is the first one's pass rate (below 1 fails it, so the policy would
/// have exited: a receipt). Returns its state file, ready for `pyramid result`.
pub fn finished_shadow_run(dir: &Path, id: &str, unit_rate: &str) -> PathBuf {
    let state = dir.join(format!("{id}.json"));
    let start = run(&[
        "--json",
        "pyramid",
        "start",
        "--state",
        s(&state),
        "--layer",
        "unit=10",
        "--layer",
        "e2e=90",
        "--policy",
        "fail_fast",
        "--mode",
        "shadow",
        "--run-id",
        id,
    ]);
    assert_eq!(code(&start), 0, "{}", stderr(&start));
    for (layer, rate) in [("unit", unit_rate), ("e2e", "1")] {
        submit_layer(&state, layer, rate);
    }
    state
}

/// The PostgreSQL store of `make test-integrations` (`EARLYEXIT_TEST_POSTGRES`), and a tag
/// unique to this test (labels, logs and models named with it, so tests sharing the
/// database see only their own); `None`, saying so, without a server.
pub fn postgres_store(test: &str) -> Option<(String, String)> {
    let Some(url) = std::env::var("EARLYEXIT_TEST_POSTGRES").ok().filter(|v| !v.is_empty()) else {
        eprintln!("skipped: no PostgreSQL server (EARLYEXIT_TEST_POSTGRES unset; make test-integrations starts one)");
        return None;
    };
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    Some((url, format!("{test}-{}-{nanos}", std::process::id())))
}
