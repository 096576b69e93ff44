//! JUnit / xUnit reports and Cobertura coverage read with roxmltree; what the elements mean
//! and how they count is the core's (`pyramid::test_report`): this file only walks the XML.

use crate::core_api::test_report::{self, Unreadable};
use crate::core_api::{AttemptStatus, CoreError, ElementRole as Role, TestReportTally, Value};
use crate::output::Failure;

/// A layer result from JUnit reports: the core's `{passRate, coverage, flakyRatio,
/// durationMs, total, passed, failed, flaky, skipped}`, with coverage from a Cobertura file,
/// a number, or 1 (not measured).
pub fn layer_result(reports: &[String], coverage_xml: Option<&str>, coverage: Option<f64>) -> Result<Value, Failure> {
    let mut tally = TestReportTally::new();
    for (index, path) in reports.iter().enumerate() {
        read_report(&mut tally, index, path)?;
    }
    let coverage = match coverage_xml {
        Some(path) => Some(read_cobertura(path)?),
        None => coverage,
    };
    tally.layer_result(coverage).map_err(Failure::core)
}

fn read_text(path: &str, unreadable: impl Fn(Unreadable, &str) -> CoreError) -> Result<String, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::Input { path: path.to_string(), message: e.to_string() })?;
    String::from_utf8(bytes).map_err(|e| Failure::core(unreadable(Unreadable::NotUtf8, &e.to_string())))
}

fn read_report(tally: &mut TestReportTally, index: usize, path: &str) -> Result<(), Failure> {
    let unreadable = |why, detail: &str| test_report::unreadable_report(index, path, why, detail);
    let text = read_text(path, unreadable)?;
    let doc = parse(&text).map_err(|e| Failure::core(unreadable(Unreadable::NotXml, &e.to_string())))?;
    let root = doc.root_element();
    test_report::check_root(index, path, root.tag_name().name())?;
    let root_time = test_report::seconds_attribute(index, path, root.attribute("time"))?;
    let mut cases_seconds = 0.0;
    let mut suites: Vec<&str> = Vec::new();
    walk(root, &mut suites, tally, &mut cases_seconds, index, path)?;
    tally.add_report_time(root_time, cases_seconds);
    Ok(())
}

fn walk<'a>(
    node: roxmltree::Node<'a, '_>,
    suites: &mut Vec<&'a str>,
    tally: &mut TestReportTally,
    cases_seconds: &mut f64,
    index: usize,
    path: &str,
) -> Result<(), Failure> {
    match test_report::element_role(node.tag_name().name()) {
        Role::Case => {
            let Some(name) = node.attribute("name") else {
                return Err(Failure::core(test_report::unnamed_case(index, path, line_of(node))));
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
            if let Some(seconds) = test_report::seconds_attribute(index, path, node.attribute("time"))? {
                *cases_seconds += seconds;
            }
            let status = AttemptStatus::of(failed, skipped);
            tally.add_case(suites, node.attribute("classname").unwrap_or(""), name, status, reruns);
        }
        role @ (Role::Suite | Role::Suites) => {
            let is_suite = role == Role::Suite;
            if is_suite {
                suites.push(node.attribute("name").unwrap_or(""));
            }
            for child in node.children().filter(roxmltree::Node::is_element) {
                walk(child, suites, tally, cases_seconds, index, path)?;
            }
            if is_suite {
                suites.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

/// Parses XML with a DTD allowed: coverage.py writes a `<!DOCTYPE coverage ...>` line
/// (roxmltree still guards against entity expansion attacks).
fn parse(text: &str) -> Result<roxmltree::Document<'_>, roxmltree::Error> {
    roxmltree::Document::parse_with_options(text, roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() })
}

fn line_of(node: roxmltree::Node) -> u64 {
    u64::from(node.document().text_pos_at(node.range().start).row)
}

/// Cobertura's `line-rate` (coverage.py's `coverage xml`).
pub fn read_cobertura(path: &str) -> Result<f64, Failure> {
    let unreadable = |why, detail: &str| test_report::unreadable_coverage(path, why, detail);
    let text = read_text(path, unreadable)?;
    let doc = parse(&text).map_err(|e| Failure::core(unreadable(Unreadable::NotXml, &e.to_string())))?;
    let root = doc.root_element();
    test_report::cobertura_coverage(path, root.tag_name().name(), root.attribute("line-rate")).map_err(Failure::core)
}
