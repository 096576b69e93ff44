//! The JUnit reader's conformance vectors (`tests/vectors/junit/junit.json`), shared by every
//! suite that reads reports (this crate, Python's `read_junit`, the command): each case names
//! a report fixture of that folder (and a Cobertura file) and the layer result or error the
//! reader answers. The expected values are this reader's, the command's own: the vectors hold
//! every binding to it. `JUNIT_VECTORS_WRITE=1` rewrites the file from the cases below.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::path::PathBuf;

use earlyexit::{ErrorCode, Value};
use earlyexit_junit::{read_cobertura_bytes, JunitReports};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/junit")
}

/// (id, report, coverage file)
const CASES: [(&str, &str, Option<&str>); 9] = [
    ("pytest: a failure and a skip", "pytest.xml", None),
    ("pytest with Cobertura coverage", "pytest.xml", Some("cobertura.xml")),
    ("Surefire's flakyFailure", "surefire-flaky.xml", None),
    ("only skipped tests: none ran", "only-skipped.xml", None),
    ("not a JUnit report", "not-junit.xml", None),
    ("not well-formed XML", "truncated.xml", None),
    ("a DOCTYPE declaring an entity", "entity.xml", None),
    ("not UTF-8", "latin1.xml", None),
    ("a Cobertura line-rate above 1", "surefire-flaky.xml", Some("cobertura-bad-rate.xml")),
];

/// What the reader answers for one case: `{returns}` or `{error: {code, on}}` where `on` is
/// `report` or `coverage` (each binding spells that argument its own way).
fn answer(report: &str, coverage: Option<&str>) -> Value {
    let read = |name: &str| std::fs::read(dir().join(name)).unwrap();
    let error = |e: earlyexit::Error, on: &str| {
        Value::object(vec![(
            "error",
            Value::object(vec![("code", Value::string(e.code())), ("on", Value::string(on))]),
        )])
    };
    let coverage = match coverage {
        None => None,
        Some(name) => match read_cobertura_bytes(name, &read(name)) {
            Ok(c) => Some(c),
            Err(e) => return error(e, "coverage"),
        },
    };
    let mut reports = JunitReports::new();
    if let Err(e) = reports.add_bytes(report, &read(report)) {
        return error(e, "report");
    }
    match reports.layer_result(coverage) {
        Ok(v) => Value::object(vec![("returns", v)]),
        Err(e) => error(e, "report"),
    }
}

fn generated() -> Value {
    let cases = CASES.iter().map(|&(id, report, coverage)| {
        let mut entries = vec![("id", Value::string(id)), ("report", Value::string(report))];
        if let Some(c) = coverage {
            entries.push(("coverageXml", Value::string(c)));
        }
        let Value::Object(answer) = answer(report, coverage) else { unreachable!() };
        let mut value = Value::object(entries);
        if let Value::Object(e) = &mut value {
            e.extend(answer);
        }
        value
    });
    Value::object(vec![("cases", Value::Array(cases.collect()))])
}

#[test]
fn the_shared_report_vectors_are_what_the_reader_answers() {
    let path = dir().join("junit.json");
    let want = generated();
    if std::env::var_os("JUNIT_VECTORS_WRITE").is_some() {
        std::fs::write(&path, want.to_json() + "\n").unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let have = Value::parse_json(&text, ErrorCode::InvalidReplay, "junit.json").unwrap();
    assert_eq!(
        have, want,
        "tests/vectors/junit/junit.json is stale: JUNIT_VECTORS_WRITE=1 cargo test -p earlyexit-junit --test vectors"
    );
}
