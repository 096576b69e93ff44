//! JUnit / xUnit XML reports and Cobertura coverage read into [earlyexit]'s layer results.
//!
//! What the elements mean and how tests count is the core's
//! ([`earlyexit::kit::pyramid::test_report`], the same words as the command's docs): this crate
//! only reads the XML, with `roxmltree`, and walks it. It takes text (`&str`, or bytes that
//! must be UTF-8) and the name the caller knows it by (a path), never a file: the `earlyexit`
//! command, its MCP server and the bindings do their own reading.
//!
//! Reading costs at most a constant times the input's size, whatever the input:
//!
//! * a document is at most [`MAX_REPORT_BYTES`] bytes and [`MAX_REPORT_NODES`] XML nodes;
//! * a document that declares an entity (`<!ENTITY` in its DOCTYPE) is refused before it is
//!   parsed: references to an entity repeat its text, so a 20 KB report could expand to
//!   5 GB (or 50 million test cases). A DOCTYPE without declarations reads (coverage.py's
//!   `<!DOCTYPE coverage SYSTEM "...">`); the predefined entities (`&amp;`) and character
//!   references never grow the text;
//! * suites nest to any depth (the walk keeps its own stack, never the thread's), and each
//!   suite path is stored once, however many cases it holds.
//!
//! Every refusal is the core's typed error: `invalid_layer_result`, field `junit[i]` for the
//! i-th report, `coverage_xml` for a Cobertura file, `junit` when no test ran.

use earlyexit::kit::pyramid::test_report::{self, AttemptStatus, ElementRole as Role, TestReportTally, Unreadable};
use earlyexit::{Error, Value};

pub use earlyexit::kit::pyramid::test_report::{MAX_REPORT_BYTES, MAX_REPORT_NODES};

/// JUnit reports read one after another into one layer result (reruns across reports count
/// once, the reports in the order added).
#[derive(Clone, Debug, Default)]
pub struct JunitReports {
    tally: TestReportTally,
    /// The reports read so far (the next one is `junit[reports]`).
    reports: usize,
}

impl JunitReports {
    /// No report yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The reports read so far.
    pub fn len(&self) -> usize {
        self.reports
    }

    /// No report read yet.
    pub fn is_empty(&self) -> bool {
        self.reports == 0
    }

    /// Reads the next report from its bytes (`source`: the name errors show, a path): the
    /// bytes must be UTF-8 text (the UTF-8 byte-order mark is skipped) of at most
    /// [`MAX_REPORT_BYTES`]. A host reading a file may stop after `MAX_REPORT_BYTES + 1`
    /// bytes: that is enough to refuse it. On an error nothing changes.
    pub fn add_bytes(&mut self, source: &str, bytes: &[u8]) -> Result<(), Error> {
        let index = self.reports;
        let text = utf8(bytes, |why, detail| test_report::unreadable_report(index, source, why, detail))?;
        self.add(source, text)
    }

    /// Reads the next report from its text (`source`: the name errors show, a path). A
    /// report that is over the limits, declares an entity, is not well-formed XML, is not a
    /// JUnit report or holds a malformed test case is refused (`invalid_layer_result`, field
    /// `junit[i]`, `i` the reports read before it) and nothing changes.
    pub fn add(&mut self, source: &str, text: &str) -> Result<(), Error> {
        let index = self.reports;
        let unreadable = |why, detail: &str| test_report::unreadable_report(index, source, why, detail);
        let doc = parse(text, unreadable)?;
        let root = doc.root_element();
        test_report::check_root(index, source, root.tag_name().name())?;
        let root_time = test_report::seconds_attribute(index, source, root.attribute("time"))?;
        // Checked first, then applied: a report refused halfway leaves the tally as it was.
        walk(root, index, source, &mut |_| {})?;
        let cases_seconds = walk(root, index, source, &mut |event| match event {
            Event::Enter(name) => self.tally.enter_suite(name),
            Event::Leave => {
                self.tally.leave_suite();
            }
            Event::Case { classname, name, status, reruns } => self.tally.add_case(classname, name, status, reruns),
        })?;
        self.tally.add_report_time(root_time, cases_seconds);
        self.reports += 1;
        Ok(())
    }

    /// The layer result of the reports read: `{passRate, coverage, flakyRatio, durationMs,
    /// total, passed, failed, flaky, skipped}` (JS spelling), `coverage` as given or 1 (not
    /// measured). No executed test (no report, or none ran): `invalid_layer_result`, field
    /// `junit`.
    pub fn layer_result(&self, coverage: Option<f64>) -> Result<Value, Error> {
        self.tally.layer_result(coverage)
    }

    /// The core's tally of what was read (counts without a layer result).
    pub fn tally(&self) -> &TestReportTally {
        &self.tally
    }
}

/// The layer result of JUnit reports given as `(source, text)` pairs, in order, with
/// `coverage` as given (or 1): [`JunitReports`] over each of them.
pub fn layer_result(reports: &[(&str, &str)], coverage: Option<f64>) -> Result<Value, Error> {
    let mut read = JunitReports::new();
    for (source, text) in reports {
        read.add(source, text)?;
    }
    read.layer_result(coverage)
}

/// Cobertura's coverage from a coverage file's bytes (see [`read_cobertura`]); they must be
/// UTF-8 text of at most [`MAX_REPORT_BYTES`].
pub fn read_cobertura_bytes(source: &str, bytes: &[u8]) -> Result<f64, Error> {
    let text = utf8(bytes, |why, detail| test_report::unreadable_coverage(source, why, detail))?;
    read_cobertura(source, text)
}

/// Cobertura's coverage (coverage.py's `coverage xml`): the root `<coverage>`'s `line-rate`,
/// 0..=1. Anything else, and a file over the limits or declaring an entity, is refused
/// (`invalid_layer_result`, field `coverage_xml`).
pub fn read_cobertura(source: &str, text: &str) -> Result<f64, Error> {
    let doc = parse(text, |why, detail| test_report::unreadable_coverage(source, why, detail))?;
    let root = doc.root_element();
    test_report::cobertura_coverage(source, root.tag_name().name(), root.attribute("line-rate"))
}

fn utf8(bytes: &[u8], unreadable: impl Fn(Unreadable, &str) -> Error) -> Result<&str, Error> {
    if bytes.len() > MAX_REPORT_BYTES {
        return Err(unreadable(Unreadable::TooLarge, ""));
    }
    std::str::from_utf8(bytes).map_err(|e| unreadable(Unreadable::NotUtf8, &e.to_string()))
}

/// What the walk reports, in document order.
enum Event<'a> {
    /// A `<testsuite>` opens (its name, `""` without one).
    Enter(&'a str),
    /// The innermost open `<testsuite>` closes.
    Leave,
    /// A `<testcase>`.
    Case { classname: &'a str, name: &'a str, status: AttemptStatus, reruns: u64 },
}

/// One step of the walk: an element to visit, or the end of a suite visited.
enum Step<'a, 'input> {
    Visit(roxmltree::Node<'a, 'input>),
    Leave,
}

/// Walks a report's elements in document order with an explicit stack (suites nest to any
/// depth without growing the thread's stack), sending each suite and case to `sink`; returns
/// the test cases' `time` summed in that order. Errors: a case without a name, a bad `time`.
fn walk<'a>(
    root: roxmltree::Node<'a, '_>,
    index: usize,
    source: &str,
    sink: &mut impl FnMut(Event<'a>),
) -> Result<f64, Error> {
    let mut cases_seconds = 0.0;
    let mut stack = vec![Step::Visit(root)];
    while let Some(step) = stack.pop() {
        let node = match step {
            Step::Leave => {
                sink(Event::Leave);
                continue;
            }
            Step::Visit(node) => node,
        };
        match test_report::element_role(node.tag_name().name()) {
            Role::Case => {
                let Some(name) = node.attribute("name") else {
                    return Err(test_report::unnamed_case(index, source, line_of(node)));
                };
                let (mut failed, mut skipped, mut reruns) = (false, false, 0u64);
                for child in node.children().filter(roxmltree::Node::is_element) {
                    match test_report::element_role(child.tag_name().name()) {
                        Role::Failure => failed = true,
                        Role::Skipped => skipped = true,
                        Role::FailedRerun => reruns += 1,
                        _ => {}
                    }
                }
                if let Some(seconds) = test_report::seconds_attribute(index, source, node.attribute("time"))? {
                    cases_seconds += seconds;
                }
                let status = AttemptStatus::of(failed, skipped);
                sink(Event::Case { classname: node.attribute("classname").unwrap_or(""), name, status, reruns });
            }
            role @ (Role::Suite | Role::Suites) => {
                if role == Role::Suite {
                    sink(Event::Enter(node.attribute("name").unwrap_or("")));
                    stack.push(Step::Leave);
                }
                // Reversed onto the stack: popped in document order.
                stack.extend(node.children().filter(roxmltree::Node::is_element).rev().map(Step::Visit));
            }
            _ => {}
        }
    }
    Ok(cases_seconds)
}

/// Parses XML with a DTD allowed (coverage.py writes a `<!DOCTYPE coverage ...>` line) once
/// [`entity_declaration`] found no entity declared, within [`MAX_REPORT_BYTES`] and
/// [`MAX_REPORT_NODES`]. roxmltree alone does not bound the cost: it limits how deeply
/// references nest, not how often they are used, and its node limit is off by default.
fn parse<'i>(text: &'i str, unreadable: impl Fn(Unreadable, &str) -> Error) -> Result<roxmltree::Document<'i>, Error> {
    if text.len() > MAX_REPORT_BYTES {
        return Err(unreadable(Unreadable::TooLarge, ""));
    }
    if let Some(at) = entity_declaration(text) {
        let position = line_and_column(text, at);
        return Err(unreadable(Unreadable::DeclaresEntity, &position));
    }
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: u32::try_from(MAX_REPORT_NODES).unwrap_or(u32::MAX),
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, options).map_err(|e| match e {
        roxmltree::Error::NodesLimitReached => unreadable(Unreadable::TooManyNodes, ""),
        e => unreadable(Unreadable::NotXml, &e.to_string()),
    })
}

fn line_of(node: roxmltree::Node) -> u64 {
    u64::from(node.document().text_pos_at(node.range().start).row)
}

/// `line L, column C` of byte `at` (columns count characters, from 1, as roxmltree's do).
fn line_and_column(text: &str, at: usize) -> String {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |last| last.chars().count()) + 1;
    format!("line {line}, column {column}")
}

/// Where the document declares an entity: the byte offset of an `<!ENTITY` in its DOCTYPE's
/// internal subset (the one place a declaration can be), or `None`. Follows the prolog as
/// roxmltree reads it (byte-order mark, XML declaration, comments, processing instructions,
/// the DOCTYPE's external ID with its quoted literals, then the subset's comments,
/// processing instructions and `<!ELEMENT`, `<!ATTLIST`, `<!NOTATION` declarations, each
/// skipped to its first `>` as roxmltree skips it); anything else there is malformed and
/// left to roxmltree to refuse.
fn entity_declaration(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = if bytes.starts_with("\u{feff}".as_bytes()) { 3 } else { 0 };
    let starts = |at: usize, prefix: &str| bytes.get(at..).is_some_and(|rest| rest.starts_with(prefix.as_bytes()));
    let skip_spaces = |mut at: usize| {
        while bytes.get(at).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        at
    };
    let after = |at: usize, end: &str| find(bytes, at, end.as_bytes()).map(|found| found + end.len());
    // The prolog, up to the DOCTYPE.
    loop {
        at = skip_spaces(at);
        if starts(at, "<!--") {
            at = after(at + 4, "-->")?;
        } else if starts(at, "<?") {
            at = after(at + 2, "?>")?;
        } else if starts(at, "<!DOCTYPE") {
            at += 9;
            break;
        } else {
            return None;
        }
    }
    // The DOCTYPE's name and external ID, up to its internal subset.
    loop {
        match bytes.get(at)? {
            b'>' => return None,
            b'[' => break,
            quote @ (b'"' | b'\'') => at = after(at + 1, if *quote == b'"' { "\"" } else { "'" })?,
            _ => at += 1,
        }
    }
    at += 1;
    loop {
        at = skip_spaces(at);
        if starts(at, "<!ENTITY") {
            return Some(at);
        } else if starts(at, "<!--") {
            at = after(at + 4, "-->")?;
        } else if starts(at, "<?") {
            at = after(at + 2, "?>")?;
        } else if starts(at, "<!ELEMENT") || starts(at, "<!ATTLIST") || starts(at, "<!NOTATION") {
            at = after(at, ">")?;
        } else {
            return None;
        }
    }
}

/// The first `needle` in `bytes` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let rest = bytes.get(from..)?;
    rest.windows(needle.len()).position(|window| window == needle).map(|found| from + found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_declarations_are_found_where_roxmltree_reads_them() {
        let subset = |inner: &str| format!("<?xml version=\"1.0\"?>\n<!DOCTYPE r [{inner}]>\n<r/>");
        assert_eq!(entity_declaration("<r/>"), None);
        assert_eq!(entity_declaration("<!DOCTYPE coverage SYSTEM \"https://x/coverage-04.dtd\">\n<coverage/>"), None);
        assert_eq!(entity_declaration("<!DOCTYPE r PUBLIC \"[\" '<!ENTITY'>\n<r/>"), None);
        assert!(entity_declaration(&subset("<!ENTITY a \"x\">")).is_some());
        assert!(
            entity_declaration(&subset("\n  <!-- <!ENTITY --> <?pi ?> <!ELEMENT r ANY> <!ENTITY % p \"\">")).is_some()
        );
        assert_eq!(entity_declaration(&subset("<!-- <!ENTITY a 'x'> -->")), None);
        assert!(entity_declaration(&format!("\u{feff}<!-- c --><?pi x?>{}", subset("<!ENTITY a 'x'>"))).is_some());
        // Malformed: roxmltree refuses it itself.
        assert_eq!(entity_declaration(&subset("junk <!ENTITY a 'x'>")), None);
    }

    #[test]
    fn positions() {
        assert_eq!(line_and_column("ab\ncé<!E", 6), "line 2, column 3");
        assert_eq!(line_and_column("<!E", 0), "line 1, column 1");
    }
}
