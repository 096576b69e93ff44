//! Shadow-mode receipt logs: `verify_receipts` and `append_receipts`, hashed with
//! `earlyexit-digest` (SHA-256 over RFC 8785 canonical JSON), as every binding hashes.

use earlyexit::artifact::Sha256;
use earlyexit::kit::host::type_error;
use earlyexit::kit::{loops, pyramid};
use earlyexit::receipt_log;
use earlyexit::{ErrorCode, Naming, Value};
use earlyexit_digest::Sha256Hasher;
use pyo3::prelude::*;

use crate::error::OrRaise;
use crate::value::{to_py, to_value, NoneIs};

fn text_arg(py: Python<'_>, value: &Bound<'_, PyAny>, field: &str) -> PyResult<String> {
    match value.extract::<String>() {
        Ok(text) => Ok(text),
        Err(_) => {
            let got = to_value(value, NoneIs::Null)?;
            Err(type_error(ErrorCode::InvalidReceipt, field, "a string (JSONL text)", &got)).or_raise(py)
        }
    }
}

/// Recomputes a JSONL receipt log's hash chain: `{valid, receipts, head, brokenAt, labels}`.
#[pyfunction]
pub fn verify_receipts<'py>(py: Python<'py>, jsonl_text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let text = text_arg(py, jsonl_text, "text")?;
    let check = py.detach(|| receipt_log::verify_receipts(&text, &Sha256Hasher));
    to_py(py, &check.to_value())
}

/// The JSONL lines that append `receipts` to the log `log` (its text; `""` or `None` for a
/// new one), each chained to the one before.
#[pyfunction]
pub fn append_receipts<'py>(
    py: Python<'py>,
    log: Option<&Bound<'py, PyAny>>,
    receipts: &Bound<'py, PyAny>,
) -> PyResult<String> {
    let log = match log {
        None => String::new(),
        Some(v) if v.is_none() => String::new(),
        Some(v) => text_arg(py, v, "log")?,
    };
    let receipts = match to_value(receipts, NoneIs::Null)? {
        earlyexit::Value::Array(items) => items,
        other => {
            return Err(type_error(ErrorCode::InvalidReceipt, "receipts", "a list of receipts", &other)).or_raise(py)
        }
    };
    py.detach(|| receipt_log::append_receipts(&log, &receipts, &Sha256Hasher)).or_raise(py)
}

/// A `now` argument as the core reads it (milliseconds or RFC 3339 text): `None` is the
/// host clock, a `datetime` its timestamp, anything else as given (the core checks it).
pub(crate) fn now_value(now: Option<&Bound<'_, PyAny>>) -> PyResult<earlyexit::Value> {
    match now {
        Some(v) if !v.is_none() => {
            if v.hasattr("timestamp")? && !v.is_instance_of::<pyo3::types::PyString>() {
                let seconds: f64 = v.call_method0("timestamp")?.extract()?;
                return Ok(earlyexit::Value::Number((seconds * 1000.0).round()));
            }
            to_value(v, NoneIs::Null)
        }
        _ => {
            let ms =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
            Ok(earlyexit::Value::Number(ms as f64))
        }
    }
}

/// A lifecycle step of the core over an artifact and runs (a drift check, a promotion), with
/// `now` as the core reads it.
type Step = fn(&Value, &Value, &dyn Sha256, &Value, Naming) -> earlyexit::Result<Value>;

fn lifecycle<'py>(
    py: Python<'py>,
    artifact: Value,
    runs: &Bound<'py, PyAny>,
    now: Option<&Bound<'py, PyAny>>,
    step: Step,
) -> PyResult<Bound<'py, PyAny>> {
    let runs = crate::value::runs_value(py, runs)?;
    let now = now_value(now)?;
    let out = py.detach(|| step(&artifact, &runs, &Sha256Hasher, &now, Naming::Snake)).or_raise(py)?;
    to_py(py, &out)
}

/// Whether a calibration artifact still holds for recent runs.
#[pyfunction]
#[pyo3(signature = (artifact, runs, now = None))]
pub fn check_pyramid_drift<'py>(
    py: Python<'py>,
    artifact: &Bound<'py, PyAny>,
    runs: &Bound<'py, PyAny>,
    now: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let artifact = to_value(artifact, NoneIs::Null)?;
    lifecycle(py, artifact, runs, now, pyramid::replay::drift_value)
}

/// Promotes a calibration artifact on audit runs disjoint from its calibration corpus.
#[pyfunction]
#[pyo3(signature = (artifact, audit_runs, now = None))]
pub fn promote_pyramid_policy<'py>(
    py: Python<'py>,
    artifact: &Bound<'py, PyAny>,
    audit_runs: &Bound<'py, PyAny>,
    now: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let artifact = to_value(artifact, NoneIs::Null)?;
    lifecycle(py, artifact, audit_runs, now, pyramid::replay::promote_value)
}

/// Whether a loop calibration artifact still holds for recent runs.
#[pyfunction]
#[pyo3(signature = (artifact, runs, now = None))]
pub fn check_loop_drift<'py>(
    py: Python<'py>,
    artifact: &Bound<'py, PyAny>,
    runs: &Bound<'py, PyAny>,
    now: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let artifact = loop_artifact(artifact)?;
    lifecycle(py, artifact, runs, now, loops::replay::loop_drift_value)
}

/// Promotes a loop calibration artifact on audit runs that share no task with its calibration.
#[pyfunction]
#[pyo3(signature = (artifact, audit_runs, now = None))]
pub fn promote_loop_policy<'py>(
    py: Python<'py>,
    artifact: &Bound<'py, PyAny>,
    audit_runs: &Bound<'py, PyAny>,
    now: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let artifact = loop_artifact(artifact)?;
    lifecycle(py, artifact, audit_runs, now, loops::replay::promote_loop_value)
}

/// A loop artifact as Python hands it over: a `LoopCalibration`, its artifact dict or JSON text.
fn loop_artifact(artifact: &Bound<'_, PyAny>) -> PyResult<earlyexit::Value> {
    match artifact.cast::<crate::loops::calibrate::PyLoopCalibration>() {
        Ok(calibration) => Ok(calibration.get().artifact.clone()),
        Err(_) => to_value(artifact, NoneIs::Null),
    }
}
