//! The built-in diminishing-returns source's values: `AnalyticsConfig`, `AnalyticsRecord`,
//! `DiminishingReturnsReport`, `IterationSelection` and `AnalyticsSummary`; the engine,
//! `IterationAnalytics`, is in `engine`.

pub mod engine;

use earlyexit::{
    analytics::{AnalyticsConfig, AnalyticsRecord, SnapshotPath},
    loop_stopping::ReportedIteration,
    results::AnalyticsSummary,
    DiminishingReturnsReport, ErrorCode, Naming, Value,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::error::OrRaise;
use crate::shims::{self, core_value, repr_of, CoreValue};
use crate::value::options_value;

core_value!(named: PyAnalyticsConfig);
core_value!(fixed: PyAnalyticsRecord, PyDiminishingReturnsReport);

/// `IterationAnalytics` config, immutable.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "AnalyticsConfig")]
#[derive(Clone, PartialEq)]
pub struct PyAnalyticsConfig {
    pub(crate) inner: AnalyticsConfig,
}

#[pymethods]
impl PyAnalyticsConfig {
    #[new]
    #[pyo3(signature = (config = None, /, **options))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = options_value(config, options)?;
        let inner =
            AnalyticsConfig::default().merged(&value, Naming::Snake, "", ErrorCode::InvalidConfig).or_raise(py)?;
        Ok(PyAnalyticsConfig { inner })
    }

    /// A copy with some options changed.
    #[pyo3(signature = (**changes))]
    fn replace(&self, py: Python<'_>, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = options_value(None, changes)?;
        let inner = self.inner.merged(&value, Naming::Snake, "", ErrorCode::InvalidConfig).or_raise(py)?;
        Ok(PyAnalyticsConfig { inner })
    }

    #[getter]
    fn storage_path(&self) -> &str {
        &self.inner.storage_path
    }
    #[getter]
    fn diminishing_returns_threshold(&self) -> f64 {
        self.inner.diminishing_returns_threshold
    }
    #[getter]
    fn consecutive_count_threshold(&self) -> u64 {
        self.inner.consecutive_count_threshold
    }
    #[getter]
    fn quality_threshold(&self) -> f64 {
        self.inner.quality_threshold
    }
    #[getter]
    fn selection_criteria(&self) -> &'static str {
        self.inner.selection_criteria.as_str()
    }

    /// `getConfig()` as the JS API returns it (camelCase keys).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        shims::repr(py, self)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        shims::reduce_by_class(slf)
    }
}

/// One analytics record (`quality_delta` computed from the previous score).
#[pyclass(frozen, eq, module = "earlyexit._native", name = "AnalyticsRecord")]
#[derive(Clone, PartialEq)]
pub struct PyAnalyticsRecord {
    pub(crate) inner: AnalyticsRecord,
}

#[pymethods]
impl PyAnalyticsRecord {
    #[getter]
    fn iteration_number(&self) -> u64 {
        self.inner.iteration_number
    }
    #[getter]
    fn quality_score(&self) -> f64 {
        self.inner.quality_score
    }
    #[getter]
    fn verification_status(&self) -> &'static str {
        self.inner.verification_status.as_str()
    }
    #[getter]
    fn quality_delta(&self) -> f64 {
        self.inner.quality_delta
    }
    #[getter]
    fn tokens_used(&self) -> Option<f64> {
        self.inner.usage.tokens_used
    }
    #[getter]
    fn token_cost_usd(&self) -> Option<f64> {
        self.inner.usage.token_cost_usd
    }
    #[getter]
    fn execution_time_ms(&self) -> Option<f64> {
        self.inner.usage.execution_time_ms
    }
    #[getter]
    fn timestamp(&self) -> &str {
        &self.inner.timestamp
    }
    #[getter]
    fn output_snapshot_path(&self) -> Option<&str> {
        match &self.inner.output_snapshot_path {
            SnapshotPath::Path(p) => Some(p),
            SnapshotPath::Null | SnapshotPath::Absent => None,
        }
    }
    #[getter]
    fn reflections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.reflections.iter().map(String::as_str))
    }

    /// The record as `recordIteration()` returns it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        shims::repr(py, self)
    }
}

/// `{detected, iteration, reason}`: what `detect_diminishing_returns()` answers.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "DiminishingReturnsReport")]
#[derive(Clone, PartialEq)]
pub struct PyDiminishingReturnsReport {
    pub(crate) inner: DiminishingReturnsReport,
}

#[pymethods]
impl PyDiminishingReturnsReport {
    #[getter]
    fn detected(&self) -> bool {
        self.inner.detected
    }
    #[getter]
    fn iteration(&self) -> Option<u64> {
        match self.inner.iteration {
            ReportedIteration::At(n) => Some(n),
            ReportedIteration::Null | ReportedIteration::Absent => None,
        }
    }
    #[getter]
    fn reason(&self) -> &str {
        &self.inner.reason
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __bool__(&self) -> bool {
        self.inner.detected
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        shims::repr(py, self)
    }
}

/// `{selected, reason}`: what `select_best_iteration()` answers.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "IterationSelection")]
#[derive(Clone, PartialEq)]
pub struct PyIterationSelection {
    pub(crate) selected: Option<AnalyticsRecord>,
    pub(crate) reason: String,
}

#[pymethods]
impl PyIterationSelection {
    #[getter]
    fn selected(&self) -> Option<PyAnalyticsRecord> {
        self.selected.clone().map(|inner| PyAnalyticsRecord { inner })
    }
    #[getter]
    fn reason(&self) -> &str {
        &self.reason
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        repr_of(
            "IterationSelection",
            &[("selected", self.selected().into_bound_py_any(py)?), ("reason", self.reason().into_bound_py_any(py)?)],
        )
    }
}

impl CoreValue for PyIterationSelection {
    fn core_value(&self, _naming: Naming) -> Value {
        Value::object(vec![
            ("selected", self.selected.as_ref().map_or(Value::Null, AnalyticsRecord::to_value)),
            ("reason", Value::string(self.reason.as_str())),
        ])
    }
}

/// What `summary()` answers: upstream's `generateSummary()`.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "AnalyticsSummary")]
#[derive(Clone, PartialEq)]
pub struct PyAnalyticsSummary {
    pub(crate) inner: AnalyticsSummary,
}

impl CoreValue for PyAnalyticsSummary {
    fn core_value(&self, _naming: Naming) -> Value {
        self.inner.to_value()
    }
}

#[pymethods]
impl PyAnalyticsSummary {
    #[getter]
    fn loop_id(&self) -> Option<&str> {
        self.inner.loop_id.as_deref()
    }
    #[getter]
    fn task_description(&self) -> Option<&str> {
        self.inner.task_description.as_deref()
    }
    #[getter]
    fn start_time(&self) -> Option<&str> {
        self.inner.start_time.as_deref()
    }
    #[getter]
    fn end_time(&self) -> Option<&str> {
        self.inner.end_time.as_deref()
    }
    #[getter]
    fn iterations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.iterations.iter().map(|r| PyAnalyticsRecord { inner: r.clone() }))
    }
    #[getter]
    fn total_iterations(&self) -> u64 {
        self.inner.total_iterations
    }
    #[getter]
    fn optimal_iteration(&self) -> Option<u64> {
        self.inner.optimal_iteration
    }
    #[getter]
    fn final_iteration(&self) -> u64 {
        self.inner.final_iteration
    }
    #[getter]
    fn selected_iteration(&self) -> Option<u64> {
        self.inner.selected_iteration
    }
    #[getter]
    fn selection_reason(&self) -> &str {
        &self.inner.selection_reason
    }
    #[getter]
    fn total_tokens(&self) -> f64 {
        self.inner.total_tokens
    }
    #[getter]
    fn total_cost_usd(&self) -> f64 {
        self.inner.total_cost_usd
    }
    #[getter]
    fn total_time_ms(&self) -> f64 {
        self.inner.total_time_ms
    }
    #[getter]
    fn diminishing_returns_detected(&self) -> bool {
        self.inner.diminishing_returns_detected
    }
    #[getter]
    fn diminishing_returns_iteration(&self) -> Option<u64> {
        self.inner.diminishing_returns_iteration
    }
    #[getter]
    fn quality_trajectory(&self) -> &'static str {
        self.inner.quality_trajectory.as_str()
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        shims::repr(py, self)
    }
}
