//! The hostile JUnit and Cobertura inputs, generated at run time (kilobytes to a few MB of
//! text each, not committed): shared by the reader's tests (junit/tests/hostile.rs) and the
//! command's, which run them under an address-space limit (cli/tests/junit_limits.rs).

#![allow(dead_code)]

/// 100,000 nested `<testsuite>` elements around one test case (3.2 MB).
pub fn nested_suites(depth: usize) -> String {
    [
        "<testsuites>".to_string(),
        "<testsuite name=\"s\">".repeat(depth),
        "<testcase classname=\"c\" name=\"t\" time=\"0.5\"/>".to_string(),
        "</testsuite>".repeat(depth),
        "</testsuites>".to_string(),
    ]
    .concat()
}

/// 20 KB declaring `a` (4 KB of text) and `b` (254 references to `a`), then `&b;` used 5,000
/// times in a test case's output: 5.2 GB once expanded.
pub fn entity_text_bomb(root: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE {root} [\n<!ENTITY a \"{}\">\n<!ENTITY b \"{}\">\n]>\n{}",
        "x".repeat(4096),
        "&a;".repeat(254),
        body(root, &format!("<testcase name=\"t\"><system-out>{}</system-out></testcase>", "&b;".repeat(5000)))
    )
}

/// 600 KB declaring an entity of 254 test cases and referencing it 200,000 times: 50.8
/// million test cases once expanded.
pub fn entity_cases_bomb(root: &str) -> String {
    format!(
        "<!DOCTYPE {root} [<!ENTITY c \"{}\">]>\n{}",
        "<testcase name='t'/>".repeat(254),
        body(root, &"&c;".repeat(200_000))
    )
}

/// 125 KB repeating a 64 KB entity in an attribute (20,000 references): 1.3 GB of attribute
/// text once expanded.
pub fn entity_attribute_bomb(root: &str) -> String {
    format!(
        "<!DOCTYPE {root} [<!ENTITY v \"{}\">]>\n{}",
        "v".repeat(65_536),
        body(root, &format!("<testcase name=\"{}\"/>", "&v;".repeat(20_000)))
    )
}

/// One `<testsuite>` with a 4 MiB name and 50,000 test cases (5.4 MB).
pub fn long_suite_name(name_bytes: usize, cases: usize) -> String {
    let mut text = String::with_capacity(name_bytes + cases * 32 + 64);
    text.push_str("<testsuite name=\"");
    text.push_str(&"n".repeat(name_bytes));
    text.push_str("\">");
    for i in 0..cases {
        text.push_str(&format!("<testcase name=\"t{i}\"/>"));
    }
    text.push_str("</testsuite>");
    text
}

/// The element a bomb's body sits in: a JUnit report, or a Cobertura file (`coverage`).
fn body(root: &str, inner: &str) -> String {
    if root == "coverage" {
        format!("<coverage line-rate=\"0.5\"><sources><source>{inner}</source></sources></coverage>")
    } else {
        format!("<{root}>{inner}</{root}>")
    }
}
