//! How fast the JUnit reader is: a synthetic report of SIZE MB (default 200; `--quick`: 20)
//! built in memory (nested suites, passing, failing, skipped and flaky test cases, each with
//! a little output), read whole by `JunitReports::add`, then a quarter of it, to show the cost
//! is linear in the size. Prints MB/s (1 MB = 10^6 bytes). Run by `make bench`.

use std::time::Instant;

use earlyexit_junit::JunitReports;

fn report(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 4096);
    out.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites name=\"bench\">\n");
    let mut suite = 0;
    while out.len() < bytes {
        out.push_str(&format!("<testsuite name=\"pkg.suite{suite}\" tests=\"100\" time=\"1.5\">\n"));
        for case in 0..100 {
            let head = format!("<testcase classname=\"pkg.suite{suite}.Class\" name=\"test_{case}\" time=\"0.015\"");
            out.push_str(&head);
            match case % 25 {
                0 => out.push_str("><failure message=\"assert 1 == 2\">Traceback: line 12, assert 1 == 2</failure></testcase>\n"),
                1 => out.push_str("><skipped message=\"slow\"/></testcase>\n"),
                2 => out.push_str("><flakyFailure message=\"timeout\"><stackTrace>at Foo.bar(Foo.java:7)</stackTrace></flakyFailure></testcase>\n"),
                _ => out.push_str("><system-out>ok: checked the widget and its neighbours</system-out></testcase>\n"),
            }
        }
        out.push_str("</testsuite>\n");
        suite += 1;
    }
    out.push_str("</testsuites>\n");
    out
}

fn read(text: &str) -> (f64, String) {
    let start = Instant::now();
    let mut reports = JunitReports::new();
    reports.add("bench.xml", text).expect("the synthetic report reads");
    let result = reports.layer_result(None).expect("tests ran");
    (start.elapsed().as_secs_f64(), result.to_json())
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let mb: usize = std::env::args().filter_map(|a| a.parse().ok()).next().unwrap_or(if quick { 20 } else { 200 });
    let text = report(mb * 1_000_000);
    let quarter = report(mb * 250_000);
    let (whole, result) = read(&text);
    let (part, _) = read(&quarter);
    let rate = |bytes: usize, s: f64| bytes as f64 / 1e6 / s;
    println!(
        "JUnit reader: {:.1} MB report in {:.2} s: {:.0} MB/s ({:.1} MB in {:.2} s: {:.0} MB/s; time ratio {:.2} for 4x the bytes)",
        text.len() as f64 / 1e6,
        whole,
        rate(text.len(), whole),
        quarter.len() as f64 / 1e6,
        part,
        rate(quarter.len(), part),
        whole / part
    );
    println!("  layer result: {result}");
}
