//! The command reading hostile JUnit and Cobertura files (generated here, see
//! junit/tests/inputs/mod.rs) under an address-space limit of 1 GiB (`prlimit --as`): each
//! is answered, or refused with exit 2 and the typed error naming the file; never an abort
//! (exit 134: the stack, or memory, ran out).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use earlyexit::Value;

#[path = "../../junit/tests/inputs/mod.rs"]
mod hostile;

/// The address space the command may use: 1 GiB.
const ADDRESS_SPACE: &str = "--as=1073741824";

fn earlyexit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_earlyexit")).args(args).output().expect("the binary runs")
}

/// `earlyexit ARGS` with at most 1 GiB of address space.
fn limited(args: &[&str]) -> Output {
    Command::new("prlimit")
        .arg(ADDRESS_SPACE)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_earlyexit"))
        .args(args)
        .output()
        .expect("prlimit (util-linux) runs")
}

struct Layer {
    _dir: tempfile::TempDir,
    state: PathBuf,
    /// The state file as started.
    initial: String,
    dir: PathBuf,
}

/// A pyramid of two layers started, waiting for layer 0.
fn started() -> Layer {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("p.json");
    let out = earlyexit(&["--json", "pyramid", "start", "--state", s(&state), "--layer", "unit", "--layer", "e2e"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let initial = std::fs::read_to_string(&state).expect("state");
    Layer { dir: dir.path().to_path_buf(), state, initial, _dir: dir }
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn write(layer: &Layer, name: &str, text: &str) -> PathBuf {
    let path = layer.dir.join(name);
    std::fs::write(&path, text).expect("written");
    path
}

fn submit(layer: &Layer, extra: &[&str]) -> Output {
    let mut args = vec!["--json", "pyramid", "submit", "unit", "--state", s(&layer.state)];
    args.extend_from_slice(extra);
    limited(&args)
}

/// Exit 2 with `{error: {code, field, message}}` on stderr; the state file unchanged.
fn refused(layer: &Layer, out: &Output, field: &str, message_starts: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit {:?} (134: aborted): {stderr}", out.status);
    let e = Value::parse_json(stderr.trim(), earlyexit::ErrorCode::InvalidConfig, "stderr").expect("JSON on stderr");
    let e = e.get("error").expect("an error object");
    let text = |key: &str| e.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    assert_eq!((text("code"), text("field")), ("invalid_layer_result".to_string(), field.to_string()), "{stderr}");
    assert!(text("message").starts_with(message_starts), "{stderr}");
    assert_eq!(std::fs::read_to_string(&layer.state).expect("state"), layer.initial, "the state changed");
}

/// An answer: exit 0 (go on), 10 (stop) or 11 (verify) with the submitted layer's result.
fn answered(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let code = out.status.code();
    assert!(matches!(code, Some(0 | 10 | 11)), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let doc = Value::parse_json(stdout.trim(), earlyexit::ErrorCode::InvalidConfig, "stdout").expect("JSON");
    doc.get("result").cloned().expect("a result")
}

#[test]
fn suites_nested_100000_deep() {
    // Aborted with exit 134 (the recursive walk overflowed the stack).
    let layer = started();
    let report = write(&layer, "deep.xml", &hostile::nested_suites(100_000));
    let result = answered(&submit(&layer, &["--junit", s(&report)]));
    assert_eq!(result.get("total").and_then(Value::as_f64), Some(1.0));
}

#[test]
fn entity_bombs_are_refused_in_reports_and_coverage() {
    // Aborted with exit 134 under this limit (5.2 GB of text, 50.8 M cases, 1.3 GB of attributes).
    let layer = started();
    let good = write(&layer, "good.xml", "<testsuite><testcase name='a'/></testsuite>");
    for (name, make) in [
        ("text", hostile::entity_text_bomb as fn(&str) -> String),
        ("cases", hostile::entity_cases_bomb),
        ("attribute", hostile::entity_attribute_bomb),
    ] {
        let report = write(&layer, &format!("{name}.xml"), &make("testsuite"));
        let out = submit(&layer, &["--junit", s(&good), "--junit", s(&report)]);
        refused(&layer, &out, "junit[1]", &format!("junit[1] ({}): declares an entity (line ", s(&report)));
        let coverage = write(&layer, &format!("{name}-coverage.xml"), &make("coverage"));
        let out = submit(&layer, &["--junit", s(&good), "--coverage-xml", s(&coverage)]);
        refused(&layer, &out, "coverage_xml", &format!("coverage_xml ({}): declares an entity (line ", s(&coverage)));
        // Without --junit, --coverage-xml with the pass rate given.
        let out = submit(&layer, &["--pass-rate", "1", "--flaky", "0", "--coverage-xml", s(&coverage)]);
        refused(&layer, &out, "coverage_xml", "coverage_xml (");
    }
}

#[test]
fn a_long_suite_name_over_many_cases() {
    // 4 MiB name x 50,000 cases: about 200 GB before (each case copied its suites' names).
    let layer = started();
    let report = write(&layer, "long.xml", &hostile::long_suite_name(4 << 20, 50_000));
    let result = answered(&submit(&layer, &["--junit", s(&report), "--junit", s(&report)]));
    assert_eq!(result.get("total").and_then(Value::as_f64), Some(50_000.0));
    assert_eq!(result.get("flaky").and_then(Value::as_f64), Some(50_000.0));
}

#[test]
fn a_file_over_256_mib_is_refused_without_reading_it_whole() {
    // A sparse file of 2 GiB: the command reads 256 MiB and one byte, then refuses it.
    let layer = started();
    let path = layer.dir.join("huge.xml");
    let file = std::fs::File::create(&path).expect("created");
    file.set_len(2 << 30).expect("sparse");
    let out = submit(&layer, &["--junit", s(&path)]);
    refused(&layer, &out, "junit[0]", &format!("junit[0] ({}): over the limits: more than 268435456 bytes", s(&path)));
    let out = submit(&layer, &["--pass-rate", "1", "--flaky", "0", "--coverage-xml", s(&path)]);
    refused(&layer, &out, "coverage_xml", "coverage_xml (");
}

#[test]
fn a_time_with_stray_commas_is_refused() {
    // Read as 123 s before.
    let layer = started();
    let report = write(&layer, "t.xml", "<testsuite><testcase name=\"t\" time=\"1,2,3\"/></testsuite>");
    refused(&layer, &submit(&layer, &["--junit", s(&report)]), "junit[0]", "junit[0] (");
}
