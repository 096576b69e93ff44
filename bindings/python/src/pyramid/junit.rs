//! `read_junit`: a JUnit / xUnit report (and a Cobertura coverage file) read into a
//! `LayerResult` by the command's own reader (`earlyexit-junit`), with its rules, limits
//! and errors. This module only takes the Python argument (text, bytes or a path) and reads
//! files.

use std::io::Read;
use std::path::PathBuf;

use earlyexit::{ErrorCode, LayerResult, Naming};
use earlyexit_junit::{JunitReports, MAX_REPORT_BYTES};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::error::{raise, OrRaise};
use crate::pyramid::signal::PyLayerResult;
use crate::value::{to_value, NoneIs};

/// What an argument holds: XML text, bytes (UTF-8), and the name errors show.
enum Source {
    Text(String, String),
    Bytes(Vec<u8>, String),
}

/// `str` is XML text, `bytes` are UTF-8, an `os.PathLike` is a file (read up to one byte past
/// the reader's limit, enough for it to refuse a larger file); anything else is a type error
/// naming `field`.
fn source_of(py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Source> {
    if obj.is_instance_of::<PyString>() {
        return Ok(Source::Text(obj.extract()?, "<str>".to_string()));
    }
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok(Source::Bytes(bytes.as_bytes().to_vec(), "<bytes>".to_string()));
    }
    if obj.hasattr("__fspath__")? {
        let path: PathBuf = obj.extract()?;
        let name = path.display().to_string();
        // OSError (FileNotFoundError, PermissionError) as Python raises it for any file.
        let file = std::fs::File::open(&path)?;
        let mut bytes = Vec::new();
        file.take(MAX_REPORT_BYTES as u64 + 1).read_to_end(&mut bytes)?;
        return Ok(Source::Bytes(bytes, name));
    }
    let got = to_value(obj, NoneIs::Null)?;
    let expected = "XML text (str), UTF-8 bytes or a path (os.PathLike)";
    Err(raise(py, earlyexit::kit::host::type_error(ErrorCode::InvalidLayerResult, field, expected, &got)))
}

/// Reads a JUnit / xUnit XML report into a `LayerResult` (`pass_rate`, `flaky_ratio`,
/// `duration_ms`, the counts `total`, `passed`, `failed`, `flaky`, and `skipped` in
/// `extra`), with the command's rules: skipped tests are left out, a test rerun is counted
/// once (flaky when it passed on a rerun), Surefire's `flakyFailure` marks a flaky test.
/// `coverage_xml` (a Cobertura file: text, bytes or a path) gives `coverage`, else 1 (not
/// measured). A report the reader refuses is `invalid_layer_result` naming `source` (or
/// `coverage_xml`), its message naming the file.
#[pyfunction]
#[pyo3(signature = (source, coverage_xml = None))]
pub fn read_junit(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    coverage_xml: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyLayerResult> {
    let report = source_of(py, source, "source")?;
    let coverage = match coverage_xml {
        None => None,
        Some(obj) if obj.is_none() => None,
        Some(obj) => Some(match source_of(py, obj, "coverage_xml")? {
            Source::Text(text, name) => earlyexit_junit::read_cobertura(&name, &text),
            Source::Bytes(bytes, name) => earlyexit_junit::read_cobertura_bytes(&name, &bytes),
        }),
    };
    let mut read = JunitReports::new();
    let added = match &report {
        Source::Text(text, name) => read.add(name, text),
        Source::Bytes(bytes, name) => read.add_bytes(name, bytes),
    };
    // The reader names the i-th report `junit[i]` (the command takes several); here it is `source`.
    let named = |e: earlyexit::Error| {
        let field = e.field().to_string();
        let renamed = if field == "junit[0]" || field == "junit" { "source" } else { field.as_str() };
        earlyexit::kit::host::respelled(e, &field, renamed)
    };
    added.map_err(named).or_raise(py)?;
    let coverage = coverage.transpose().or_raise(py)?;
    let value = read.layer_result(coverage).map_err(named).or_raise(py)?;
    let inner = LayerResult::from_value(&value, Naming::Js, "").or_raise(py)?;
    Ok(PyLayerResult { inner })
}
