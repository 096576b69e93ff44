//! Target `junit_read`: the JUnit / Cobertura reader (`earlyexit-junit`) on any bytes and on
//! generated reports. Not in `harness/mod.rs`: the core's corpus test includes that module,
//! and the core cannot link the reader (it depends on the core); the reader's own test
//! (junit/tests/fuzz_corpus.rs) includes this file and replays this target's corpus.
//!
//! * Any bytes, as a report and as a Cobertura file: `Ok`, or `invalid_layer_result` naming
//!   `junit[0]` / `coverage_xml` with a message that starts with that field and the source
//!   name. What reads costs at most its size: a report read holds at most one test case per
//!   19 bytes (`<testcase name=""/>`), so no entity expanded it; a report that declares an
//!   entity is refused as such. A refused report leaves the reader as it was.
//! * Generated reports (nested suites, cases with every outcome, reruns, names that repeat,
//!   an optional byte-order mark, comments, a DOCTYPE with or without an internal subset):
//!   the counts equal a plain reference of the model in `docs/cli.md` (a test is its suites'
//!   names, classname and name; its last attempt that ran decides; ...), built over a map of
//!   full identities; with an entity declared, the report is refused.
//! * Hostile shapes, small: suites nested thousands deep, entities referenced many times
//!   (in text, as test cases, in attributes), long suite names over many cases.
//! * `time` attributes: read exactly when the text is a number whose commas, if any, group
//!   the integer digits by three (checked against a reference that regroups the digits).

// `generated_counts` serves the replay test only; the fuzz target leaves it unused.
#![allow(dead_code)]

use std::collections::BTreeMap;

use arbitrary::{Result, Unstructured};
use earlyexit_junit::JunitReports;

/// Runs one input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = drive(&mut u);
}

fn drive(u: &mut Unstructured) -> Result<()> {
    match u.int_in_range(0u8..=3)? {
        0 => {
            let len = u.len();
            check_bytes(u.bytes(len)?);
        }
        1 => {
            check_generated(u)?;
        }
        2 => check_hostile(u)?,
        _ => check_time(u)?,
    }
    Ok(())
}

/// Any bytes as a report (twice: the second read counts as `junit[1]`) and as coverage.
fn check_bytes(bytes: &[u8]) {
    let mut reports = JunitReports::new();
    match reports.add_bytes("f.xml", bytes) {
        Ok(()) => {
            let cases = reports.tally().counts().cases;
            assert!(cases <= bytes.len() as u64 / 19, "{cases} test cases from {} bytes", bytes.len());
            assert_eq!(reports.len(), 1);
            // The same report again: every case is an attempt of a test already read.
            let before = reports.tally().counts();
            reports.add_bytes("g.xml", bytes).expect("the same report reads again");
            let after = reports.tally().counts();
            assert_eq!((after.cases, after.total + after.skipped), (2 * before.cases, before.total + before.skipped));
        }
        Err(e) => {
            assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit[0]"), "{e}");
            assert!(e.message().starts_with("junit[0] (f.xml): "), "{e}");
            assert!(reports.is_empty() && reports.tally().counts().cases == 0, "a refused report changed the reader");
        }
    }
    match earlyexit_junit::read_cobertura_bytes("c.xml", bytes) {
        Ok(rate) => assert!((0.0..=1.0).contains(&rate), "{rate}"),
        Err(e) => {
            assert_eq!((e.code(), e.field()), ("invalid_layer_result", "coverage_xml"), "{e}");
            assert!(e.message().starts_with("coverage_xml (c.xml): "), "{e}");
        }
    }
}

/// One generated `<testcase>`.
#[derive(Clone, Debug)]
struct Case {
    suites: Vec<String>,
    classname: String,
    name: String,
    failed: bool,
    skipped: bool,
    reruns: u64,
}

/// Names drawn from a small pool (so identities repeat), with characters XML escapes.
fn name(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => String::new(),
        1 => "a&b<c>\"'".to_string(),
        2 => "ä \u{1F600}".to_string(),
        3 => {
            let len = u.int_in_range(0usize..=12)?;
            let text: String = (0..len).map(|_| u.int_in_range(b'a'..=b'e').map(char::from)).collect::<Result<_>>()?;
            text
        }
        n => format!("n{}", n % 3),
    })
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// A report's XML and, in document order, the cases it holds.
fn report(u: &mut Unstructured, cases: &mut Vec<Case>) -> Result<String> {
    let mut xml = String::new();
    let mut open: Vec<String> = Vec::new();
    let root_is_suites = u.ratio(1, 2)?;
    if root_is_suites {
        xml.push_str("<testsuites>");
    } else {
        let suite = name(u)?;
        xml.push_str(&format!("<testsuite name=\"{}\">", escape(&suite)));
        open.push(suite);
    }
    let steps = u.int_in_range(0usize..=64)?;
    for _ in 0..steps {
        match u.int_in_range(0u8..=5)? {
            0 => {
                let suite = name(u)?;
                if u.ratio(1, 8)? {
                    xml.push_str("<testsuite>");
                    open.push(String::new());
                } else {
                    xml.push_str(&format!("<testsuite name=\"{}\">", escape(&suite)));
                    open.push(suite);
                }
            }
            1 if open.len() > usize::from(!root_is_suites) => {
                open.pop();
                xml.push_str("</testsuite>");
            }
            2 => xml.push_str(
                "<properties><property name=\"x\" value=\"y\"/></properties><!-- c --><system-out>t</system-out>",
            ),
            _ => {
                let case = Case {
                    suites: open.clone(),
                    classname: name(u)?,
                    name: name(u)?,
                    failed: u.ratio(1, 4)?,
                    skipped: u.ratio(1, 5)?,
                    reruns: u.int_in_range(0u64..=2)?,
                };
                let mut inner = String::new();
                if case.failed {
                    inner.push_str(if u.ratio(1, 2)? { "<failure message=\"m\"/>" } else { "<error/>" });
                }
                if case.skipped {
                    inner.push_str("<skipped/>");
                }
                for _ in 0..case.reruns {
                    inner.push_str(if u.ratio(1, 2)? { "<rerunFailure/>" } else { "<flakyError/>" });
                }
                let classname = if case.classname.is_empty() && u.ratio(1, 2)? {
                    String::new()
                } else {
                    format!(" classname=\"{}\"", escape(&case.classname))
                };
                xml.push_str(&format!(
                    "<testcase{classname} name=\"{}\" time=\"0.5\">{inner}</testcase>",
                    escape(&case.name)
                ));
                cases.push(case);
            }
        }
    }
    while open.len() > usize::from(!root_is_suites) {
        open.pop();
        xml.push_str("</testsuite>");
    }
    xml.push_str(if root_is_suites { "</testsuites>" } else { "</testsuite>" });
    Ok(xml)
}

/// The model as `docs/cli.md` words it, over full identities: (total, passed, failed, flaky,
/// skipped).
fn reference_counts(cases: &[Case]) -> (u64, u64, u64, u64, u64) {
    // Per test (suites, classname, name): attempts that ran, any failed, the last that ran passed.
    type Identity = (Vec<String>, String, String);
    let mut tests: BTreeMap<Identity, (u64, bool, Option<bool>)> = BTreeMap::new();
    for case in cases {
        let test = tests.entry((case.suites.clone(), case.classname.clone(), case.name.clone())).or_default();
        for _ in 0..case.reruns {
            *test = (test.0 + 1, true, Some(false));
        }
        if case.failed {
            *test = (test.0 + 1, true, Some(false));
        } else if !case.skipped {
            *test = (test.0 + 1, test.1, Some(true));
        }
    }
    let (mut passed, mut failed, mut flaky, mut skipped) = (0, 0, 0, 0);
    for (ran, any_failed, last) in tests.values() {
        match last {
            Some(true) => {
                passed += 1;
                flaky += u64::from(*ran > 1 || *any_failed);
            }
            Some(false) => failed += 1,
            None => skipped += 1,
        }
    }
    (passed + failed, passed, failed, flaky, skipped)
}

/// The generated-report mode on `data` alone: the counts of what it read (`None` when the
/// bytes ran out or the report declared an entity), for the replay test's reach check.
pub fn generated_counts(data: &[u8]) -> Option<earlyexit::kit::pyramid::test_report::TestCountsSummary> {
    check_generated(&mut Unstructured::new(data)).ok().flatten()
}

fn check_generated(u: &mut Unstructured) -> Result<Option<earlyexit::kit::pyramid::test_report::TestCountsSummary>> {
    let mut cases = Vec::new();
    let mut reports = JunitReports::new();
    let count = u.int_in_range(1usize..=3)?;
    for _ in 0..count {
        let body = report(u, &mut cases)?;
        let entity = u.int_in_range(0u8..=5)? == 0;
        let prolog = match u.int_in_range(0u8..=4)? {
            0 => "\u{feff}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".to_string(),
            1 => {
                "<?xml version=\"1.0\"?>\n<!-- a comment -->\n<!DOCTYPE testsuites SYSTEM \"junit.dtd\">\n".to_string()
            }
            2 => "<!DOCTYPE testsuites [\n  <!-- <!ENTITY -->\n  <!ELEMENT testsuites ANY>\n]>\n".to_string(),
            _ => String::new(),
        };
        let text =
            if entity { format!("<!DOCTYPE testsuites [<!ENTITY e \"x\">]>{body}") } else { format!("{prolog}{body}") };
        let before = reports.tally().counts();
        match reports.add("r.xml", &text) {
            Ok(()) => assert!(!entity, "a report declaring an entity was read: {text}"),
            Err(e) => {
                assert!(entity, "a generated report was refused: {e}\n{text}");
                assert!(e.message().contains("declares an entity (line 1, column 23)"), "{e}");
                assert_eq!(reports.tally().counts(), before, "a refused report changed the reader");
                return Ok(None);
            }
        }
    }
    let c = reports.tally().counts();
    assert_eq!(c.cases, cases.len() as u64);
    assert_eq!((c.total, c.passed, c.failed, c.flaky, c.skipped), reference_counts(&cases));
    assert_eq!(c.duration_ms, 500.0 * cases.len() as f64);
    Ok(Some(c))
}

fn check_hostile(u: &mut Unstructured) -> Result<()> {
    match u.int_in_range(0u8..=3)? {
        0 => {
            // Suites nested deep, one case at the bottom: read (no stack grows with depth).
            let depth = u.int_in_range(0usize..=5000)?;
            let text =
                ["<testsuite name=\"s\">".repeat(depth), "<testcase name=\"t\"/>".into(), "</testsuite>".repeat(depth)]
                    .concat();
            let text = format!("<testsuites>{text}</testsuites>");
            let result = earlyexit_junit::layer_result(&[("deep.xml", &text)], None).expect("deep suites read");
            assert_eq!(result.get("total").and_then(earlyexit::Value::as_f64), Some(1.0));
        }
        1 => {
            // An entity used many times, in text, as test cases or in an attribute: refused.
            let uses = u.int_in_range(1usize..=2000)?;
            let (definition, body) = match u.int_in_range(0u8..=2)? {
                0 => (
                    "x".repeat(64),
                    format!(
                        "<testsuite><testcase name=\"t\"><system-out>{}</system-out></testcase></testsuite>",
                        "&e;".repeat(uses)
                    ),
                ),
                1 => ("<testcase name='t'/>".repeat(4), format!("<testsuite>{}</testsuite>", "&e;".repeat(uses))),
                _ => (
                    "y".repeat(64),
                    format!("<testsuite name=\"{}\"><testcase name=\"t\"/></testsuite>", "&e;".repeat(uses)),
                ),
            };
            let text = format!("<!DOCTYPE testsuite [<!ENTITY e \"{definition}\">]>{body}");
            let e = earlyexit_junit::layer_result(&[("bomb.xml", &text)], None).unwrap_err();
            assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit[0]"), "{e}");
            assert!(e.message().contains("declares an entity"), "{e}");
            let coverage = format!(
                "<!DOCTYPE coverage [<!ENTITY e \"{definition}\">]><coverage line-rate=\"1\">{}</coverage>",
                "&e;".repeat(uses)
            );
            let e = earlyexit_junit::read_cobertura("c.xml", &coverage).unwrap_err();
            assert_eq!(e.field(), "coverage_xml", "{e}");
            assert!(e.message().contains("declares an entity"), "{e}");
        }
        2 => {
            // A long suite name over many cases: one test per case name.
            let len = u.int_in_range(0usize..=4096)?;
            let cases = u.int_in_range(1usize..=500)?;
            let text = format!(
                "<testsuite name=\"{}\">{}</testsuite>",
                "s".repeat(len),
                (0..cases).map(|i| format!("<testcase name=\"t{i}\"/>")).collect::<String>()
            );
            let mut reports = JunitReports::new();
            reports.add("long.xml", &text).expect("reads");
            reports.add("long.xml", &text).expect("reads again");
            let c = reports.tally().counts();
            assert_eq!(
                (c.cases, c.total, c.passed, c.flaky),
                (2 * cases as u64, cases as u64, cases as u64, cases as u64)
            );
        }
        _ => {
            // coverage.py's DOCTYPE line reads.
            let rate = u.int_in_range(0u32..=1000)? as f64 / 1000.0;
            let text = format!(
                "<?xml version=\"1.0\" ?>\n<!DOCTYPE coverage SYSTEM \"https://raw.githubusercontent.com/cobertura/web/master/htdocs/xml/coverage-04.dtd\">\n<coverage line-rate=\"{rate}\"></coverage>"
            );
            assert_eq!(earlyexit_junit::read_cobertura("c.xml", &text).expect("coverage.py's file reads"), rate);
        }
    }
    Ok(())
}

/// Commas group the integer digits by three: regrouping the digits gives the text back.
fn grouped_by_thousands(integer: &str) -> bool {
    let digits: String = integer.chars().filter(|c| *c != ',').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let mut regrouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            regrouped.push(',');
        }
        regrouped.push(c);
    }
    regrouped == integer
}

fn check_time(u: &mut Unstructured) -> Result<()> {
    const PIECES: &[&str] = &["1", "23", "456", ",", ".", "0", "e3", "-", " ", "7890", "NaN", "1e400"];
    let count = u.int_in_range(0usize..=8)?;
    let mut time = String::new();
    for _ in 0..count {
        if u.ratio(1, 16)? {
            time.push(char::from(u.int_in_range(0x20u8..=0x7e)?));
        } else {
            time.push_str(u.choose(PIECES)?);
        }
    }
    let text = format!("<testsuite><testcase name=\"t\" time=\"{}\"/></testsuite>", escape(&time));
    let read = earlyexit_junit::layer_result(&[("t.xml", &text)], None);
    let trimmed = time.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    let plain = trimmed.replace(',', "");
    let (integer, fraction) = trimmed.split_once('.').unwrap_or((trimmed, ""));
    // JSON's number grammar is stricter than Rust's (no "+1", ".5", "1.", "inf"): a number
    // Rust does not read is refused; one it reads is read as Rust reads it or refused.
    let reference = plain.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0);
    let commas_ok = !trimmed.contains(',') || (!fraction.contains(',') && grouped_by_thousands(integer));
    match read {
        Ok(result) => {
            assert!(commas_ok, "time '{time}' read though its commas do not group thousands");
            let expected = reference.unwrap_or_else(|| panic!("time '{time}' read though Rust reads no number"));
            assert_eq!(result.get("durationMs").and_then(earlyexit::Value::as_f64), Some(expected * 1000.0), "{time}");
        }
        Err(e) if e.field() == "junit" => {
            // A time read, too large for a duration in ms.
            assert!(reference.is_some_and(|n| !(n * 1000.0).is_finite()), "{time}: {e}");
        }
        Err(e) => {
            assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit[0]"), "{e}");
            if trimmed.contains(',') && !commas_ok {
                assert!(e.message().contains("commas only between groups of three digits"), "{e}");
            }
        }
    }
    Ok(())
}
