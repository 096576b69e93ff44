//! `earlyexit._native`: the Python binding of the `earlyexit` core (pyo3, abi3).
//!
//! A thin layer: Python objects are converted to the core's `Value` (snake_case names),
//! the core validates and decides, and its results come back as immutable typed objects
//! whose `to_dict()` is the JSON the JS API returns. Errors are the core's, raised as
//! `earlyexit.EarlyExitError` / `earlyexit.EarlyExitTypeError`. No panics: nothing here
//! unwraps, and the core returns errors instead of panicking.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod analytics_engine;
mod convert;
mod loop_engine;
mod loop_replay;
mod pyramid_replay;
mod results;
mod test_exit;
mod wrapper;

use earlyexit::{Error, ErrorCode, ErrorKind, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use analytics_engine::{
    PyAnalyticsConfig, PyAnalyticsRecord, PyAnalyticsSummary, PyDiminishingReturnsReport, PyIterationAnalytics,
    PyIterationSelection,
};
use convert::{to_value, NoneIs};
use loop_engine::{PyEarlyStopping, PyEarlyStoppingConfig, PyIterationRecord, PyStoppingDecision, PyStoppingSummary};
use test_exit::{
    PyCoherenceEarlyExit, PyEarlyExitConfig, PyExitDecision, PyFailingLayer, PyLayerResult, PyPyramidAction,
    PyPyramidRun, PyQualitySignal, PySpeculation, PySpeculativeExecutor, PyTestPyramidResult,
};

/// The core value an object of this module's own types stands for (snake_case keys), so
/// that a `LayerResult`, a config or a decision can be passed wherever a mapping can.
pub(crate) fn known_object_value(obj: &Bound<'_, PyAny>) -> Option<Value> {
    use wrapper::snake_value_if;
    snake_value_if::<PyLayerResult>(obj)
        .or_else(|| snake_value_if::<PyEarlyExitConfig>(obj))
        .or_else(|| snake_value_if::<PyQualitySignal>(obj))
        .or_else(|| snake_value_if::<PyExitDecision>(obj))
        .or_else(|| snake_value_if::<PySpeculation>(obj))
        .or_else(|| snake_value_if::<PyEarlyStoppingConfig>(obj))
        .or_else(|| snake_value_if::<PyAnalyticsConfig>(obj))
        .or_else(|| snake_value_if::<PyDiminishingReturnsReport>(obj))
        .or_else(|| snake_value_if::<PyIterationRecord>(obj))
        .or_else(|| snake_value_if::<PyAnalyticsRecord>(obj))
        .or_else(|| snake_value_if::<PyStoppingDecision>(obj))
}

/// A snapshot argument: JSON text (parsed by the core) or an already parsed mapping (where
/// `None` is JSON `null`).
pub(crate) fn snapshot_value(snapshot: &Bound<'_, PyAny>) -> PyResult<Value> {
    let py = snapshot.py();
    if let Ok(text) = snapshot.cast::<PyString>() {
        return earlyexit::snapshot::parse(&convert::string_of(text)).map_err(|e| convert::raise(py, e));
    }
    if let Ok(bytes) = snapshot.cast::<pyo3::types::PyBytes>() {
        let text = earlyexit::value::utf8_text(bytes.as_bytes(), earlyexit::ErrorCode::InvalidSnapshot, "snapshot");
        return text.and_then(earlyexit::snapshot::parse).map_err(|e| convert::raise(py, e));
    }
    to_value(snapshot, NoneIs::Null)
}

/// `(earlyexit._native._restore, (engine, snapshot_text, analytics))` for `__reduce__`.
pub(crate) fn reduce_with<'py>(
    py: Python<'py>,
    engine: &str,
    text: String,
    analytics: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let restore = module_attr(py, "_restore")?;
    let args = (engine, text, analytics).into_pyobject(py)?;
    Ok((restore, args).into_pyobject(py)?.into_any())
}

/// An attribute of this module (for `__reduce__` callables).
pub(crate) fn module_attr<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("earlyexit._native")?.getattr(name)
}

/// Restores a pickled engine from its portable snapshot.
#[pyfunction]
#[pyo3(signature = (engine, snapshot, analytics = None))]
fn _restore<'py>(
    py: Python<'py>,
    engine: String,
    snapshot: &Bound<'py, PyAny>,
    analytics: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    match engine.as_str() {
        "EarlyStopping" => Ok(Bound::new(py, PyEarlyStopping::restore(py, snapshot, analytics)?)?.into_any()),
        "IterationAnalytics" => Ok(Bound::new(py, PyIterationAnalytics::restore(py, snapshot)?)?.into_any()),
        "PyramidRun" => Ok(Bound::new(py, test_exit_restore(py, snapshot)?)?.into_any()),
        other => Err(convert::raise(
            py,
            Error::new(
                ErrorCode::InvalidSnapshot,
                ErrorKind::Range,
                "engine",
                ["snapshot is of unknown engine '", other, "'"].concat(),
            ),
        )),
    }
}

fn test_exit_restore(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<PyPyramidRun> {
    PyPyramidRun::restore(py, snapshot)
}

/// `Name(key=value, ...)` from a dict of snake_case fields.
pub(crate) fn repr_of_dict(name: &str, fields: &Bound<'_, PyAny>) -> PyResult<String> {
    let Ok(dict) = fields.cast::<PyDict>() else {
        return Ok([name, "()"].concat());
    };
    let mut pairs: Vec<(String, Bound<'_, PyAny>)> = Vec::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        pairs.push((convert::string_of(&k.str()?), v));
    }
    let borrowed: Vec<(&str, Bound<'_, PyAny>)> = pairs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    convert::repr_of(name, &borrowed)
}

/// A type error for an argument the core has no reader for (`verified_only`, a layer's
/// `run`, `skipped`): same shape and wording as the core's own type errors.
pub(crate) fn binding_type_error(code: ErrorCode, field: &str, expected: &str, got: &Value) -> Error {
    Error::new(code, ErrorKind::Type, field, [field, " must be ", expected, ", got ", &got.describe()].concat())
}

/// The native module. The public API is re-exported by the `earlyexit` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEarlyStoppingConfig>()?;
    m.add_class::<PyIterationRecord>()?;
    m.add_class::<PyStoppingDecision>()?;
    m.add_class::<PyStoppingSummary>()?;
    m.add_class::<PyEarlyStopping>()?;
    m.add_class::<PyAnalyticsConfig>()?;
    m.add_class::<PyAnalyticsRecord>()?;
    m.add_class::<PyDiminishingReturnsReport>()?;
    m.add_class::<PyIterationSelection>()?;
    m.add_class::<PyAnalyticsSummary>()?;
    m.add_class::<PyIterationAnalytics>()?;
    m.add_class::<PyLayerResult>()?;
    m.add_class::<PyQualitySignal>()?;
    m.add_class::<PyEarlyExitConfig>()?;
    m.add_class::<PyExitDecision>()?;
    m.add_class::<PyCoherenceEarlyExit>()?;
    m.add_class::<PySpeculation>()?;
    m.add_class::<PySpeculativeExecutor>()?;
    m.add_class::<PyTestPyramidResult>()?;
    m.add_class::<PyFailingLayer>()?;
    m.add_class::<PyPyramidAction>()?;
    m.add_class::<PyPyramidRun>()?;
    m.add_function(wrap_pyfunction!(test_exit::calculate_quality_signal_py, m)?)?;
    m.add_function(wrap_pyfunction!(test_exit::count_quality_partitions_py, m)?)?;
    m.add_function(wrap_pyfunction!(test_exit::_restore_signal, m)?)?;
    m.add_function(wrap_pyfunction!(test_exit::_layer_runners, m)?)?;
    m.add_function(wrap_pyfunction!(_restore, m)?)?;
    m.add_function(wrap_pyfunction!(convert::_conversion_visits, m)?)?;
    pyramid_replay::register(m)?;
    loop_replay::register(m)?;
    results::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The size limits (docs/limits.md), from the core's one table.
    let limits = PyDict::new(m.py());
    for limit in earlyexit::limits::ALL {
        limits.set_item(limit.snake, limit.value)?;
    }
    m.add("LIMITS", limits)?;
    Ok(())
}
