//! Hostile reports at full size (generated here, see inputs/mod.rs): each is read, or
//! refused with the typed error naming the report, with its cost bounded by its size. The
//! command's tests run the same inputs under an address-space limit.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod inputs;
use inputs as hostile;

use earlyexit::Value;
use earlyexit_junit::{layer_result, read_cobertura, JunitReports};

fn number(result: &Value, key: &str) -> f64 {
    result.get(key).and_then(Value::as_f64).unwrap()
}

#[test]
fn suites_nested_100000_deep_read() {
    // The recursive walk overflowed the stack (the command aborted, exit 134); on a thread of
    // 2 MiB (the MCP server's) at 10,000 levels already: read there.
    let text = hostile::nested_suites(100_000);
    let read = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || layer_result(&[("deep.xml", &text)], None))
        .unwrap()
        .join()
        .unwrap()
        .unwrap();
    assert_eq!((number(&read, "total"), number(&read, "passed"), number(&read, "durationMs")), (1.0, 1.0, 500.0));
}

#[test]
fn entity_declarations_are_refused_before_they_expand() {
    type Bomb = fn(&str) -> String;
    let bombs: [(&str, Bomb); 3] = [
        ("5.2 GB of text", hostile::entity_text_bomb),
        ("50.8 M test cases", hostile::entity_cases_bomb),
        ("1.3 GB of attributes", hostile::entity_attribute_bomb),
    ];
    for (what, bomb) in bombs {
        let (report, coverage) = (bomb("testsuites"), bomb("coverage"));
        let e = layer_result(&[("ok.xml", "<testsuite><testcase name='a'/></testsuite>"), ("bomb.xml", &report)], None)
            .unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit[1]"), "{what}: {e}");
        assert!(e.message().starts_with("junit[1] (bomb.xml): declares an entity (line "), "{what}: {e}");
        let e = read_cobertura("cov.xml", &coverage).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_layer_result", "coverage_xml"), "{what}: {e}");
        assert!(e.message().starts_with("coverage_xml (cov.xml): declares an entity (line "), "{what}: {e}");
    }
    let e = layer_result(&[("t.xml", &hostile::entity_text_bomb("testsuites"))], None).unwrap_err();
    assert_eq!(
        e.message(),
        "junit[0] (t.xml): declares an entity (line 3, column 1): entity declarations are not read, their expansion is not bounded by the file's size"
    );
}

#[test]
fn coverage_py_doctype_and_predefined_entities_read() {
    let coverage = "<?xml version=\"1.0\" ?>\n<!DOCTYPE coverage SYSTEM \"https://raw.githubusercontent.com/cobertura/web/master/htdocs/xml/coverage-04.dtd\">\n<coverage version=\"7.4.0\" line-rate=\"0.8512\"><sources><source>/a&amp;b</source></sources></coverage>";
    assert_eq!(read_cobertura("coverage.xml", coverage).unwrap(), 0.8512);
    let report = "<!DOCTYPE testsuite [<!-- no entity --><!ELEMENT testsuite ANY>]><testsuite name=\"a&lt;b\"><testcase name=\"&#x74;&amp;\"/></testsuite>";
    assert_eq!(number(&layer_result(&[("r.xml", report)], None).unwrap(), "total"), 1.0);
}

#[test]
fn a_long_suite_name_over_many_cases_reads() {
    // Each case held a copy of its suites' names: 4 MiB x 50,000 cases, about 200 GB.
    let text = hostile::long_suite_name(4 << 20, 50_000);
    let mut reports = JunitReports::new();
    reports.add("long.xml", &text).unwrap();
    reports.add("long-rerun.xml", &text).unwrap();
    let c = reports.tally().counts();
    assert_eq!((c.cases, c.total, c.passed, c.flaky), (100_000, 50_000, 50_000, 50_000));
}

#[test]
fn a_time_with_stray_commas_is_refused() {
    // "1,2,3" read as 123 s.
    let report = |time: &str| format!("<testsuite><testcase name=\"t\" time=\"{time}\"/></testsuite>");
    let e = layer_result(&[("t.xml", &report("1,2,3"))], None).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit[0]"));
    assert_eq!(
        e.message(),
        "junit[0] (t.xml): time must be a finite number of seconds >= 0 (commas only between groups of three digits, as in 1,234.5), got '1,2,3'"
    );
    let read = layer_result(&[("t.xml", &report("1,234.5"))], None).unwrap();
    assert_eq!(number(&read, "durationMs"), 1_234_500.0);
}

#[test]
fn a_refused_report_changes_nothing() {
    let mut reports = JunitReports::new();
    reports.add("a.xml", "<testsuite><testcase name='a'/></testsuite>").unwrap();
    let before = reports.tally().counts();
    // The case before the bad one would have been added had the walk not checked first.
    let e = reports.add("b.xml", "<testsuite><testcase name='b'/><testcase/></testsuite>").unwrap_err();
    assert_eq!(e.message(), "junit[1] (b.xml): a <testcase> without a name attribute (line 1)");
    assert_eq!((reports.len(), reports.tally().counts()), (1, before));
    let e = reports.add_bytes("c.xml", b"<testsuite>\xff</testsuite>").unwrap_err();
    assert_eq!(e.field(), "junit[1]");
    assert!(e.message().starts_with("junit[1] (c.xml): not UTF-8 text: "), "{e}");
    reports.add("d.xml", "<testsuite><testcase name='a'/></testsuite>").unwrap();
    assert_eq!(reports.len(), 2);
}
