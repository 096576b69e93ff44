//! The core's [`Error`] raised as the package's exception classes
//! (`earlyexit.EarlyExitError` / `earlyexit.EarlyExitTypeError`).

use std::borrow::Cow;

use earlyexit::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// Raises the core's error as `EarlyExitError` (a bad value) or `EarlyExitTypeError` (a
/// wrong type, a missing or unknown key), carrying `.code` and `.field`.
pub fn raise(py: Python<'_>, error: Error) -> PyErr {
    static VALUE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static TYPE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let (cell, name) = match error.kind() {
        ErrorKind::Range => (&VALUE_ERROR, "EarlyExitError"),
        ErrorKind::Type => (&TYPE_ERROR, "EarlyExitTypeError"),
    };
    let class = match cell.import(py, "earlyexit._errors", name) {
        Ok(class) => class,
        Err(import_error) => return import_error,
    };
    let field = python_field(error.field());
    let message = python_message(error.message());
    match class.call1((message, error.code(), field)) {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

/// The few root names the core spells one way only: the Python spelling of what is
/// otherwise a JS method or argument name.
fn python_field(field: &str) -> Cow<'_, str> {
    match field {
        "detectDiminishingReturns()" => Cow::Borrowed("detect_diminishing_returns()"),
        "layerResult" => Cow::Borrowed("layer_result"),
        // The run store's meta (`earlyexit-store` words them as the command's JSON does).
        "runLabel" => Cow::Borrowed("run_label"),
        "runId" => Cow::Borrowed("run_id"),
        other => Cow::Borrowed(other),
    }
}

fn python_message(message: &str) -> String {
    if message.starts_with("detectDiminishingReturns()") {
        message.replacen("detectDiminishingReturns()", "detect_diminishing_returns()", 1)
    } else if message.starts_with("layerResult ") {
        message.replacen("layerResult", "layer_result", 1)
    } else if message.starts_with("runLabel ") {
        message.replacen("runLabel", "run_label", 1)
    } else if message.starts_with("runId ") {
        message.replacen("runId", "run_id", 1)
    } else {
        message.to_string()
    }
}

/// Converts a `Result` from the core, raising its error.
pub trait OrRaise<T> {
    /// `Ok` as is, `Err` raised as the package's exception.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| raise(py, e))
    }
}
