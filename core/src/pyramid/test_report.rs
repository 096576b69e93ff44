//! Test reports (JUnit / xUnit XML) folded into a layer result: the model and the formulas.
//!
//! A host parses the XML (the core has no XML reader) and feeds each `<testcase>` element
//! to a [`TestReportTally`]; this module says what each element means ([`element_role`]),
//! which attempts are one test, and how the tests become a [`LayerResult`]:
//!
//! * a **test** is identified by the names of its enclosing `<testsuite>` elements, its
//!   `classname` and its `name`; several `<testcase>` elements with one identity are
//!   attempts of one test, in the order read (the reports in the order given): pytest with
//!   pytest-rerunfailures writes one per attempt (the retried ones hold no `<failure>`), and
//!   a CI job may add the report of a rerun;
//! * an attempt **failed** when it holds `<failure>` or `<error>`, was **skipped** when it
//!   holds `<skipped>` (and no failure), and **passed** otherwise; each `<flakyFailure>`,
//!   `<flakyError>`, `<rerunFailure>` or `<rerunError>` inside it (Surefire's reruns) is one
//!   more failed attempt before it;
//! * a test's outcome is its **last** attempt that was not skipped: it **failed** when that
//!   attempt failed, and **passed** when it passed; a passed test is also **flaky** when it
//!   took more than one attempt (a runner retries only what failed) or an attempt failed. A
//!   test whose every attempt was skipped is **skipped**;
//! * `total` counts the executed tests (skipped ones excluded), `passRate = passed / total`
//!   (flaky tests count as passed, once), `flakyRatio = flaky / total`;
//! * the duration is, per report, the root element's `time` when it has one, else the sum of
//!   its test cases' `time`, summed over the reports (seconds in the XML, ms in the result).
//!
//! A set of reports with no executed test is refused (`invalid_layer_result`): a pass rate
//! of nothing is not a result. The same words are in `docs/cli.md`.

use std::collections::BTreeMap;

use crate::num::uint_string;
use crate::pyramid::signal::{LayerResult, TestCounts};
use crate::value::{self, limits, named_enum, Naming, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const CODE: ErrorCode = ErrorCode::InvalidLayerResult;

named_enum! {
    /// The elements of a JUnit report the model reads, by local name (case-sensitive, as
    /// XML is); [`ReportElement::role`] says what each is to the model.
    pub enum ReportElement {
        /// `<testsuites>`.
        Testsuites = "testsuites",
        /// `<testsuite>`.
        Testsuite = "testsuite",
        /// `<testcase>`.
        Testcase = "testcase",
        /// `<failure>`.
        Failure = "failure",
        /// `<error>`.
        Error = "error",
        /// `<skipped>`.
        Skipped = "skipped",
        /// Surefire's `<flakyFailure>`.
        FlakyFailure = "flakyFailure",
        /// Surefire's `<flakyError>`.
        FlakyError = "flakyError",
        /// Surefire's `<rerunFailure>`.
        RerunFailure = "rerunFailure",
        /// Surefire's `<rerunError>`.
        RerunError = "rerunError",
    }
}

impl ReportElement {
    /// What the element is to the model.
    pub fn role(self) -> ElementRole {
        match self {
            ReportElement::Testsuites => ElementRole::Suites,
            ReportElement::Testsuite => ElementRole::Suite,
            ReportElement::Testcase => ElementRole::Case,
            ReportElement::Failure | ReportElement::Error => ElementRole::Failure,
            ReportElement::Skipped => ElementRole::Skipped,
            ReportElement::FlakyFailure
            | ReportElement::FlakyError
            | ReportElement::RerunFailure
            | ReportElement::RerunError => ElementRole::FailedRerun,
        }
    }
}

/// What an XML element of a JUnit report is to the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementRole {
    /// `<testsuites>`: a container of suites (a report's usual root).
    Suites,
    /// `<testsuite>`: a named suite (a root too, as Surefire writes it); suites nest.
    Suite,
    /// `<testcase>`: one attempt of a test.
    Case,
    /// `<failure>` or `<error>` inside a test case: the attempt failed.
    Failure,
    /// `<skipped>` inside a test case.
    Skipped,
    /// `<flakyFailure>`, `<flakyError>`, `<rerunFailure>`, `<rerunError>`: one more failed
    /// attempt of the test case that holds it.
    FailedRerun,
    /// Anything else (`properties`, `system-out`, ...): ignored.
    Other,
}

/// The role of an element named `name` (local name, case-sensitive as XML is): any element
/// that is not a [`ReportElement`] is [`ElementRole::Other`].
pub fn element_role(name: &str) -> ElementRole {
    ReportElement::parse(name).map_or(ElementRole::Other, ReportElement::role)
}

/// How one `<testcase>` element ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttemptStatus {
    /// No failure, error or skip inside it.
    Passed,
    /// It holds `<failure>` or `<error>`.
    Failed,
    /// It holds `<skipped>` and no failure.
    Skipped,
}

impl AttemptStatus {
    /// The status of a test case from what it holds: a failure wins over a skip.
    pub fn of(failed: bool, skipped: bool) -> Self {
        if failed {
            AttemptStatus::Failed
        } else if skipped {
            AttemptStatus::Skipped
        } else {
            AttemptStatus::Passed
        }
    }
}

/// One `<testcase>` element as read.
#[derive(Clone, Debug)]
struct Case {
    /// The path of its enclosing suites: an index into [`TestReportTally`]'s interned paths,
    /// equal for two cases exactly when their suites' names are.
    suites: usize,
    classname: String,
    name: String,
    status: AttemptStatus,
    failed_reruns: u64,
}

impl Case {
    /// The test's identity: its suites, classname and name.
    fn test(&self) -> (usize, &str, &str) {
        (self.suites, &self.classname, &self.name)
    }
}

/// One test's attempts, folded in the order read.
#[derive(Clone, Copy, Debug, Default)]
struct Attempts {
    /// Attempts that ran (not skipped), reruns inside an element included.
    ran: u64,
    /// Some attempt failed.
    any_failed: bool,
    /// The last attempt that ran: `Some(true)` passed, `Some(false)` failed.
    last_passed: Option<bool>,
}

impl Attempts {
    fn add(&mut self, case: &Case) {
        // The reruns inside an element came before its own outcome: failed attempts that ran,
        // the last of them the test's last attempt when the element itself was skipped.
        self.ran = self.ran.saturating_add(case.failed_reruns);
        if case.failed_reruns > 0 {
            self.any_failed = true;
            self.last_passed = Some(false);
        }
        match case.status {
            AttemptStatus::Passed | AttemptStatus::Failed => {
                let passed = case.status == AttemptStatus::Passed;
                self.ran = self.ran.saturating_add(1);
                self.any_failed |= !passed;
                self.last_passed = Some(passed);
            }
            AttemptStatus::Skipped => {}
        }
    }

    fn count(&self, c: &mut TestCountsSummary) {
        match self.last_passed {
            Some(true) => {
                c.passed += 1;
                c.flaky += u64::from(self.ran > 1 || self.any_failed);
            }
            Some(false) => c.failed += 1,
            None => c.skipped += 1,
        }
    }
}

/// The tests of one or more reports: every `<testcase>` element in the order read, grouped
/// into tests when counted (a sort, O(n log n)).
///
/// The suites enclosing a case are interned: each distinct path of suite names (a parent
/// path and one more name) is stored once and a case holds its path's index, so memory is
/// linear in the reports' size however long the names and however many cases share them
/// (a copy of every enclosing name per case was quadratic: a 4 MiB suite name over 50,000
/// cases needed about 200 GB). Test identity stays exact: two paths share an index exactly
/// when their names are equal, name by name.
#[derive(Clone, Debug, Default)]
pub struct TestReportTally {
    cases: Vec<Case>,
    /// Path index of (parent path index, suite name); index 0 is the path of no suite.
    paths: BTreeMap<(usize, String), usize>,
    /// The suites open now (entered and not left), as path indices, innermost last.
    open: Vec<usize>,
    duration_s: f64,
}

/// The counts a tally comes to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestCountsSummary {
    /// Executed tests (skipped ones excluded).
    pub total: u64,
    /// Tests that passed (flaky ones included).
    pub passed: u64,
    /// Tests that failed in every attempt.
    pub failed: u64,
    /// Tests that failed, then passed.
    pub flaky: u64,
    /// Tests skipped in every attempt.
    pub skipped: u64,
    /// `<testcase>` elements read (attempts).
    pub cases: u64,
    /// Summed duration, ms.
    pub duration_ms: f64,
}

impl TestReportTally {
    /// An empty tally.
    pub fn new() -> Self {
        Self::default()
    }

    /// Enters a `<testsuite>` element named `name` (`""` when it has none): the cases added
    /// until the matching [`leave_suite`](Self::leave_suite) are inside it. Costs one lookup
    /// of `name` (O(|name| log n)), however many cases follow.
    pub fn enter_suite(&mut self, name: &str) {
        let parent = self.open.last().copied().unwrap_or(0);
        let next = self.paths.len() + 1;
        let path = *self.paths.entry((parent, name.to_string())).or_insert(next);
        self.open.push(path);
    }

    /// Leaves the innermost suite entered; `false` (and nothing changes) when no suite is open.
    pub fn leave_suite(&mut self) -> bool {
        self.open.pop().is_some()
    }

    /// One `<testcase>` element inside the suites open now (see
    /// [`enter_suite`](Self::enter_suite)), `failed_reruns` the flaky/rerun elements inside it.
    pub fn add_case(&mut self, classname: &str, name: &str, status: AttemptStatus, failed_reruns: u64) {
        let suites = self.open.last().copied().unwrap_or(0);
        self.cases.push(Case {
            suites,
            classname: classname.to_string(),
            name: name.to_string(),
            status,
            failed_reruns,
        });
    }

    /// One report's duration: its root's `time` when it has one, else the sum of its test
    /// cases' `time` (both in seconds, as JUnit writes them).
    pub fn add_report_time(&mut self, root_seconds: Option<f64>, cases_seconds: f64) {
        self.duration_s += root_seconds.unwrap_or(cases_seconds);
    }

    /// The counts so far.
    pub fn counts(&self) -> TestCountsSummary {
        let mut c = TestCountsSummary {
            total: 0,
            passed: 0,
            failed: 0,
            flaky: 0,
            skipped: 0,
            cases: self.cases.len() as u64,
            duration_ms: self.duration_s * 1000.0,
        };
        // By test, then in the order read (the index), so each test folds its attempts in order.
        let mut order: Vec<((usize, &str, &str), usize, &Case)> =
            self.cases.iter().enumerate().map(|(i, case)| (case.test(), i, case)).collect();
        order.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut current: Option<((usize, &str, &str), Attempts)> = None;
        for (test, _, case) in order {
            match &mut current {
                Some((name, attempts)) if *name == test => attempts.add(case),
                _ => {
                    if let Some((_, attempts)) = current.take() {
                        attempts.count(&mut c);
                    }
                    let mut attempts = Attempts::default();
                    attempts.add(case);
                    current = Some((test, attempts));
                }
            }
        }
        if let Some((_, attempts)) = current {
            attempts.count(&mut c);
        }
        c.total = c.passed + c.failed;
        c
    }

    /// The layer result the reports give, `{passRate, coverage, flakyRatio, durationMs,
    /// total, passed, failed, flaky, skipped}` (JS spelling), with `coverage` as given (1
    /// when not measured, as replay defaults it: unmeasured coverage does not lower the
    /// signal). No executed test: `invalid_layer_result` on field `junit`.
    pub fn layer_result(&self, coverage: Option<f64>) -> Result<Value> {
        let c = self.counts();
        if c.total == 0 {
            return Err(Error::new(
                CODE,
                ErrorKind::Range,
                "junit",
                value::concat(&[
                    "junit: the reports hold no executed test case (",
                    &uint_string(c.cases),
                    " test case elements, ",
                    &uint_string(c.skipped),
                    " tests skipped)",
                ]),
            ));
        }
        // Times each finite can sum (or turn, in ms) to Infinity: refused here, naming the
        // reports, rather than by the result's own check on a field the caller never gave.
        if !c.duration_ms.is_finite() {
            return Err(Error::new(
                CODE,
                ErrorKind::Range,
                "junit",
                "junit: the reports' times add up to more milliseconds than a number holds",
            ));
        }
        let total = c.total as f64;
        let mut result = LayerResult::new(c.passed as f64 / total, coverage.unwrap_or(1.0), c.flaky as f64 / total);
        result.duration_ms = Some(c.duration_ms);
        result.counts =
            TestCounts { total: Some(c.total), passed: Some(c.passed), failed: Some(c.failed), flaky: Some(c.flaky) };
        // `coverage` is the host's; the result's own checks hold it to 0..=1.
        result.validate()?;
        let mut value = result.to_value(Naming::Js);
        if let Value::Object(entries) = &mut value {
            entries.push(("skipped".to_string(), Value::Number(c.skipped as f64)));
        }
        Ok(value)
    }
}

/// The most bytes one JUnit report or Cobertura file may hold: 268,435,456 (256 MiB), the
/// document limit ([`limits::MAX_DOCUMENT_BYTES`]). A host that reads a file stops after one
/// byte more and refuses it ([`Unreadable::TooLarge`]).
pub const MAX_REPORT_BYTES: usize = limits::MAX_DOCUMENT_BYTES;

/// The most XML nodes (elements, text runs, comments, processing instructions) one report or
/// Cobertura file may hold: 16,777,216, the values of one document ([`limits::MAX_VALUES`]).
/// With entity declarations refused ([`Unreadable::DeclaresEntity`]) a document's nodes and
/// text are bounded by its size; this bounds the parsed tree (tens of bytes a node) within
/// what one process, or one WebAssembly instance, can hold.
pub const MAX_REPORT_NODES: usize = limits::MAX_VALUES;

/// Why a host could not read a report (or a coverage file) as XML; `detail` passed with it is
/// its reader's own words (the bad byte, the line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// The bytes are not UTF-8 text.
    NotUtf8,
    /// The text is not well-formed XML.
    NotXml,
    /// The document declares an entity (`<!ENTITY` in its DOCTYPE, `detail`: where). Refused:
    /// an entity's references expand its text again and again, so reading such a document
    /// could cost far more than its size (a 20 KB report expanding to 5 GB). A DOCTYPE that
    /// declares none reads (coverage.py writes `<!DOCTYPE coverage SYSTEM "...">`).
    DeclaresEntity,
    /// More than [`MAX_REPORT_BYTES`] bytes (`detail` unused).
    TooLarge,
    /// More than [`MAX_REPORT_NODES`] XML nodes (`detail` unused).
    TooManyNodes,
}

impl Unreadable {
    fn describe(self, detail: &str) -> String {
        let most = |n: usize| uint_string(n as u64);
        match self {
            Unreadable::NotUtf8 => value::concat(&["not UTF-8 text: ", detail]),
            Unreadable::NotXml => value::concat(&["not well-formed XML: ", detail]),
            Unreadable::DeclaresEntity => value::concat(&[
                "declares an entity (",
                detail,
                "): entity declarations are not read, their expansion is not bounded by the file's size",
            ]),
            Unreadable::TooLarge => value::concat(&["over the limits: more than ", &most(MAX_REPORT_BYTES), " bytes"]),
            Unreadable::TooManyNodes => {
                value::concat(&["over the limits: more than ", &most(MAX_REPORT_NODES), " XML nodes"])
            }
        }
    }
}

/// The `index`-th report given (`file`) could not be read: code `invalid_layer_result`,
/// field `junit[i]`.
pub fn unreadable_report(index: usize, file: &str, why: Unreadable, detail: &str) -> Error {
    malformed_report(index, file, &why.describe(detail))
}

/// A `<testcase>` without a `name` attribute, at `line` of the `index`-th report.
pub fn unnamed_case(index: usize, file: &str, line: u64) -> Error {
    malformed_report(
        index,
        file,
        &value::concat(&["a <testcase> without a name attribute (line ", &uint_string(line), ")"]),
    )
}

/// No report was given where a layer result is to be read from reports (code
/// `invalid_config`, field `junit`).
pub fn no_reports() -> Error {
    Error::new(ErrorCode::InvalidConfig, ErrorKind::Type, "junit", "junit must list at least one report")
}

/// A report that is not a JUnit report (`detail` says why): code `invalid_layer_result`,
/// field `junit[i]` (the i-th report given).
fn malformed_report(index: usize, file: &str, detail: &str) -> Error {
    let field = value::index_path("junit", index);
    Error::new(CODE, ErrorKind::Range, field.clone(), value::concat(&[&field, " (", file, "): ", detail]))
}

/// Checks a report's root element: `<testsuites>` or `<testsuite>`.
pub fn check_root(index: usize, file: &str, root: &str) -> Result<()> {
    match element_role(root) {
        ElementRole::Suites | ElementRole::Suite => Ok(()),
        _ => Err(malformed_report(
            index,
            file,
            &value::concat(&[
                "not a JUnit report: the root element is <",
                root,
                ">, not <",
                ReportElement::Testsuites.as_str(),
                "> or <",
                ReportElement::Testsuite.as_str(),
                ">",
            ]),
        )),
    }
}

/// A `time` attribute in seconds (`"0.25"`): a finite number >= 0, else an error naming the
/// report and the attribute. `None` when absent. JUnit writers print plain decimals; some
/// (Ant's formatter, in an English locale) group the digits before the decimal point by
/// thousands with commas (`"1,234.5"`), which reads without them. A comma anywhere else
/// (`"1,2,3"`, or a decimal comma, `"0,5"`) is refused: which number it means is not known.
pub fn seconds_attribute(index: usize, file: &str, text: Option<&str>) -> Result<Option<f64>> {
    let Some(text) = text else { return Ok(None) };
    match without_thousands_separators(text.trim()).as_deref().and_then(number_text) {
        Some(n) if n >= 0.0 => Ok(Some(n)),
        _ => Err(malformed_report(
            index,
            file,
            &value::concat(&[
                "time must be a finite number of seconds >= 0 (commas only between groups of three digits, as in 1,234.5), got '",
                text,
                "'",
            ]),
        )),
    }
}

/// `text` without the commas of a thousands grouping (`"12,345,678.5"`), or `None` when a
/// comma is anywhere else.
fn without_thousands_separators(text: &str) -> Option<String> {
    if !text.contains(',') {
        return Some(text.to_string());
    }
    let (integer, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.contains(',') {
        return None;
    }
    let digits = |group: &str| group.bytes().all(|b| b.is_ascii_digit());
    let mut groups = integer.split(',');
    let first = groups.next()?;
    if first.is_empty() || first.len() > 3 || !digits(first) {
        return None;
    }
    if groups.any(|group| group.len() != 3 || !digits(group)) {
        return None;
    }
    Some(text.replace(',', ""))
}

/// Cobertura's coverage (`<coverage line-rate="0.85">`, as coverage.py writes it): the root
/// must be `<coverage>` and its `line-rate` a number in 0..=1. Code `invalid_layer_result`,
/// field `coverage_xml`.
#[allow(clippy::manual_range_contains)] // see the `line-rate` check below
pub fn cobertura_coverage(file: &str, root: &str, line_rate: Option<&str>) -> Result<f64> {
    let fail = |detail: &str| {
        Error::new(CODE, ErrorKind::Range, "coverage_xml", value::concat(&["coverage_xml (", file, "): ", detail]))
    };
    if root != "coverage" {
        return Err(fail(&value::concat(&[
            "not a Cobertura report: the root element is <",
            root,
            ">, not <coverage>",
        ])));
    }
    let Some(text) = line_rate else {
        return Err(fail("the <coverage> element has no line-rate attribute"));
    };
    match number_text(text.trim()) {
        // Not `(0.0..=1.0).contains(&n)`: a second use of that generic in the crate changed how
        // the signal's copy is inlined, +93 B in the wasm engines module (+90 B in replay's).
        Some(n) if n >= 0.0 && n <= 1.0 => Ok(n),
        _ => Err(fail(&value::concat(&["line-rate must be a number between 0 and 1, got '", text, "'"]))),
    }
}

/// A Cobertura file that could not be read (field `coverage_xml`).
pub fn unreadable_coverage(file: &str, why: Unreadable, detail: &str) -> Error {
    Error::new(
        CODE,
        ErrorKind::Range,
        "coverage_xml",
        value::concat(&["coverage_xml (", file, "): ", &why.describe(detail)]),
    )
}

/// A finite number written as JSON writes one (what XML attributes of these formats hold).
fn number_text(text: &str) -> Option<f64> {
    match Value::parse_json(text, CODE, "") {
        Ok(Value::Number(n)) if n.is_finite() => Some(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One case inside `suites` (outermost first).
    fn case(t: &mut TestReportTally, suites: &[&str], classname: &str, name: &str, status: AttemptStatus, reruns: u64) {
        for suite in suites {
            t.enter_suite(suite);
        }
        t.add_case(classname, name, status, reruns);
        for _ in suites {
            assert!(t.leave_suite());
        }
    }

    #[test]
    fn a_test_is_its_suites_classname_and_name() {
        let mut t = TestReportTally::new();
        // The same path entered twice (a rerun report, or two sibling suites of one name) is
        // one test; the same names nested otherwise, or a name moved into the classname, not.
        case(&mut t, &["a", "b"], "c", "x", AttemptStatus::Failed, 0);
        case(&mut t, &["a", "b"], "c", "x", AttemptStatus::Passed, 0);
        case(&mut t, &["b", "a"], "c", "x", AttemptStatus::Passed, 0);
        case(&mut t, &["a"], "b", "x", AttemptStatus::Passed, 0);
        case(&mut t, &["a", "b", ""], "c", "x", AttemptStatus::Passed, 0);
        case(&mut t, &[], "c", "x", AttemptStatus::Passed, 0);
        let c = t.counts();
        assert_eq!((c.total, c.passed, c.flaky, c.cases), (5, 5, 1, 6));
        // Cases nested in a suite and its sibling, entered in one walk.
        let mut t = TestReportTally::new();
        t.enter_suite("s");
        t.add_case("c", "x", AttemptStatus::Failed, 0);
        t.enter_suite("inner");
        t.add_case("c", "x", AttemptStatus::Passed, 0);
        assert!(t.leave_suite());
        t.add_case("c", "x", AttemptStatus::Passed, 0);
        assert!(t.leave_suite());
        assert!(!t.leave_suite(), "nothing open: nothing to leave");
        let c = t.counts();
        assert_eq!((c.total, c.passed, c.flaky), (2, 2, 1));
    }

    #[test]
    fn reruns_count_once_as_flaky() {
        let mut t = TestReportTally::new();
        case(&mut t, &["s"], "c", "a", AttemptStatus::Failed, 0);
        case(&mut t, &["s"], "c", "a", AttemptStatus::Passed, 0);
        case(&mut t, &["s"], "c", "b", AttemptStatus::Passed, 2);
        case(&mut t, &["s"], "c", "d", AttemptStatus::Failed, 1);
        case(&mut t, &["s"], "c", "e", AttemptStatus::Skipped, 0);
        case(&mut t, &["t"], "c", "a", AttemptStatus::Passed, 0);
        let c = t.counts();
        assert_eq!((c.total, c.passed, c.failed, c.flaky, c.skipped, c.cases), (4, 3, 1, 2, 1, 6));
        let v = t.layer_result(None).unwrap();
        assert_eq!(v.get("passRate").and_then(Value::as_f64), Some(0.75));
        assert_eq!(v.get("flakyRatio").and_then(Value::as_f64), Some(0.5));
    }

    #[test]
    fn the_last_attempt_decides() {
        // pytest-rerunfailures: the retried attempts are bare elements, the last one says.
        let mut t = TestReportTally::new();
        for status in [AttemptStatus::Passed, AttemptStatus::Passed, AttemptStatus::Failed] {
            case(&mut t, &["pytest"], "m", "always_fails", status, 0);
        }
        case(&mut t, &["pytest"], "m", "flaky", AttemptStatus::Passed, 0);
        case(&mut t, &["pytest"], "m", "flaky", AttemptStatus::Passed, 0);
        case(&mut t, &["pytest"], "m", "passes", AttemptStatus::Passed, 0);
        let c = t.counts();
        assert_eq!((c.total, c.passed, c.failed, c.flaky), (3, 2, 1, 1));
        // A rerun report given after the first one: failed, then passed = flaky.
        let mut t = TestReportTally::new();
        case(&mut t, &["s"], "c", "x", AttemptStatus::Failed, 0);
        case(&mut t, &["s"], "c", "x", AttemptStatus::Passed, 0);
        assert_eq!((t.counts().passed, t.counts().flaky), (1, 1));
    }

    #[test]
    fn reruns_inside_a_skipped_case_are_its_last_attempts() {
        // Passed, then an element whose reruns failed and whose own attempt was skipped: the
        // last attempt that ran failed, so the test failed (it was counted passed and flaky).
        let mut t = TestReportTally::new();
        case(&mut t, &["s"], "c", "a", AttemptStatus::Passed, 0);
        case(&mut t, &["s"], "c", "a", AttemptStatus::Skipped, 1);
        let c = t.counts();
        assert_eq!((c.total, c.passed, c.failed, c.flaky), (1, 0, 1, 0));
    }

    #[test]
    fn the_layer_result_is_a_layer_result_with_the_skipped_count() {
        let mut t = TestReportTally::new();
        case(&mut t, &["s"], "c", "a", AttemptStatus::Passed, 1);
        case(&mut t, &["s"], "c", "b", AttemptStatus::Failed, 0);
        case(&mut t, &["s"], "c", "d", AttemptStatus::Skipped, 0);
        t.add_report_time(None, 1.5);
        let v = t.layer_result(Some(0.5)).unwrap();
        assert_eq!(
            v.to_json(),
            r#"{"passRate":0.5,"coverage":0.5,"flakyRatio":0.5,"durationMs":1500,"total":2,"passed":1,"failed":1,"flaky":1,"skipped":1}"#
        );
        assert!(LayerResult::from_value(&v, Naming::Js, "result").is_ok());
        // Coverage given out of range is refused, not passed on.
        let e = t.layer_result(Some(1.5)).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_layer_result", "coverage"));
    }

    #[test]
    fn element_names() {
        assert_eq!(element_role("testcase"), ElementRole::Case);
        assert_eq!(element_role("error"), ElementRole::Failure);
        assert_eq!(element_role("rerunError"), ElementRole::FailedRerun);
        assert_eq!(element_role("TestCase"), ElementRole::Other);
        let e = check_root(2, "f.xml", "html").unwrap_err();
        assert_eq!(e.field(), "junit[2]");
        assert_eq!(
            e.message(),
            "junit[2] (f.xml): not a JUnit report: the root element is <html>, not <testsuites> or <testsuite>"
        );
    }

    #[test]
    fn unreadable_files_name_the_report() {
        let e = unreadable_report(1, "u.xml", Unreadable::NotXml, "unexpected end of stream");
        assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit[1]"));
        assert_eq!(e.message(), "junit[1] (u.xml): not well-formed XML: unexpected end of stream");
        let e = unreadable_coverage("c.xml", Unreadable::NotUtf8, "invalid utf-8 sequence");
        assert_eq!(e.message(), "coverage_xml (c.xml): not UTF-8 text: invalid utf-8 sequence");
        assert_eq!(
            unnamed_case(0, "u.xml", 7).message(),
            "junit[0] (u.xml): a <testcase> without a name attribute (line 7)"
        );
        assert_eq!((no_reports().code(), no_reports().field()), ("invalid_config", "junit"));
        assert_eq!(
            unreadable_report(0, "b.xml", Unreadable::DeclaresEntity, "line 2, column 1").message(),
            "junit[0] (b.xml): declares an entity (line 2, column 1): entity declarations are not read, their expansion is not bounded by the file's size"
        );
        assert_eq!(
            unreadable_report(0, "h.xml", Unreadable::TooLarge, "").message(),
            "junit[0] (h.xml): over the limits: more than 268435456 bytes"
        );
        assert_eq!(
            unreadable_coverage("c.xml", Unreadable::TooManyNodes, "").message(),
            "coverage_xml (c.xml): over the limits: more than 16777216 XML nodes"
        );
    }

    #[test]
    fn times_too_large_for_a_duration_are_refused() {
        // Each time is finite; in ms (or summed) they were Infinity, refused on `duration_ms`.
        for times in [&[1e306][..], &[f64::MAX, f64::MAX]] {
            let mut t = TestReportTally::new();
            case(&mut t, &["s"], "c", "a", AttemptStatus::Passed, 0);
            for time in times {
                t.add_report_time(Some(*time), 0.0);
            }
            let e = t.layer_result(None).unwrap_err();
            assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit"), "{e}");
            assert_eq!(e.message(), "junit: the reports' times add up to more milliseconds than a number holds");
        }
    }

    #[test]
    fn nothing_executed_is_refused() {
        let mut t = TestReportTally::new();
        case(&mut t, &[], "c", "a", AttemptStatus::Skipped, 0);
        let e = t.layer_result(Some(0.5)).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit"));
    }

    #[test]
    fn attributes() {
        assert_eq!(seconds_attribute(0, "f", Some("1,234.5")).unwrap(), Some(1234.5));
        assert_eq!(seconds_attribute(0, "f", Some(" 12,345,678 ")).unwrap(), Some(12345678.0));
        assert_eq!(seconds_attribute(0, "f", Some("0.25")).unwrap(), Some(0.25));
        // A comma that is not a thousands separator: which number it means is not known.
        for text in ["1,2,3", "0,5", ",123", "1234,567", "1,23", "1,234.5,6", "1,,234", "1,234,", "-1,234"] {
            let e = seconds_attribute(3, "f.xml", Some(text)).unwrap_err();
            assert_eq!((e.code(), e.field()), ("invalid_layer_result", "junit[3]"), "{text}");
            assert!(e.message().contains(&format!("got '{text}'")), "{}", e.message());
        }
        assert!(seconds_attribute(0, "f", Some("-1")).is_err());
        assert!(seconds_attribute(0, "f", Some("NaN")).is_err());
        assert_eq!(cobertura_coverage("f", "coverage", Some("0.85")).unwrap(), 0.85);
        assert!(cobertura_coverage("f", "coverage", Some("1.5")).is_err());
        assert!(cobertura_coverage("f", "report", Some("0.5")).is_err());
        assert!(check_root(0, "f", "html").is_err());
    }
}
