//! JUnit / xUnit reports and Cobertura coverage files: the command reads the files, the
//! library `earlyexit-junit` reads the XML (and the core says what it means).

use std::io::Read;

use earlyexit_junit::{JunitReports, MAX_REPORT_BYTES};

use crate::core_api::Value;
use crate::output::Failure;

/// A layer result from JUnit reports: the core's `{passRate, coverage, flakyRatio,
/// durationMs, total, passed, failed, flaky, skipped}`, with coverage from a Cobertura file,
/// a number, or 1 (not measured).
pub fn layer_result(reports: &[String], coverage_xml: Option<&str>, coverage: Option<f64>) -> Result<Value, Failure> {
    let mut read = JunitReports::new();
    for path in reports {
        // One file in memory at a time.
        read.add_bytes(path, &read_file(path)?).map_err(Failure::core)?;
    }
    let coverage = match coverage_xml {
        Some(path) => Some(read_cobertura(path)?),
        None => coverage,
    };
    read.layer_result(coverage).map_err(Failure::core)
}

/// Cobertura's `line-rate` (coverage.py's `coverage xml`).
pub fn read_cobertura(path: &str) -> Result<f64, Failure> {
    earlyexit_junit::read_cobertura_bytes(path, &read_file(path)?).map_err(Failure::core)
}

/// A file's bytes, at most one more than the library reads (enough for it to refuse a larger
/// file without the command holding it whole).
fn read_file(path: &str) -> Result<Vec<u8>, Failure> {
    let failed = |e: std::io::Error| Failure::Input { path: path.to_string(), message: e.to_string() };
    let file = std::fs::File::open(path).map_err(failed)?;
    let most = MAX_REPORT_BYTES as u64 + 1;
    // Sized once from the file's length when known: no doubling past what is read.
    let expected = file.metadata().map_or(0, |m| m.len().min(most));
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    file.take(most).read_to_end(&mut bytes).map_err(failed)?;
    Ok(bytes)
}
