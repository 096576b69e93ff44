//! `IterationAnalytics` for Python: the built-in diminishing-returns source and its results.

use std::sync::Mutex;

use earlyexit::analytics::{AnalyticsConfig, AnalyticsRecord};
use earlyexit::loop_stopping::ReportedIteration;
use earlyexit::{DiminishingReturnsReport, ErrorCode, IterationAnalytics, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::convert::{keyword_entries, lock, locked, options_value, repr_of, to_value, AnyValue, NoneIs, OrRaise};
use crate::wrapper::{self, core_value, CoreValue};

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
        wrapper::to_dict(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        wrapper::repr(py, self)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        wrapper::reduce_by_class(slf)
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

    /// The record as `recordIteration()` returns it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        wrapper::repr(py, self)
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
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
    }

    fn __bool__(&self) -> bool {
        self.inner.detected
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        wrapper::repr(py, self)
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
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
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

/// What `summary()` answers (`generateSummary()`).
#[pyclass(frozen, eq, module = "earlyexit._native", name = "AnalyticsSummary")]
#[derive(Clone, PartialEq)]
pub struct PyAnalyticsSummary {
    pub(crate) value: Value,
    pub(crate) report: DiminishingReturnsReport,
}

impl CoreValue for PyAnalyticsSummary {
    fn core_value(&self, _naming: Naming) -> Value {
        self.value.clone()
    }
}

impl PyAnalyticsSummary {
    fn number(&self, key: &str) -> Option<f64> {
        self.value.get(key).and_then(Value::as_f64)
    }
}

#[pymethods]
impl PyAnalyticsSummary {
    #[getter]
    fn total_iterations(&self) -> u64 {
        self.number("total_iterations").map_or(0, |n| n as u64)
    }
    #[getter]
    fn optimal_iteration(&self) -> Option<u64> {
        self.number("optimal_iteration").map(|n| n as u64)
    }
    #[getter]
    fn final_iteration(&self) -> Option<u64> {
        self.number("final_iteration").map(|n| n as u64)
    }
    #[getter]
    fn selected_iteration(&self) -> Option<u64> {
        self.number("selected_iteration").map(|n| n as u64)
    }
    #[getter]
    fn selection_reason(&self) -> &str {
        self.value.get("selection_reason").and_then(Value::as_str).unwrap_or_default()
    }
    #[getter]
    fn diminishing_returns(&self) -> PyDiminishingReturnsReport {
        PyDiminishingReturnsReport { inner: self.report.clone() }
    }
    #[getter]
    fn trajectory(&self) -> &str {
        self.value.get("trajectory").and_then(Value::as_str).unwrap_or_default()
    }
    #[getter]
    fn total_tokens(&self) -> f64 {
        self.number("total_tokens").unwrap_or(0.0)
    }
    #[getter]
    fn total_cost_usd(&self) -> f64 {
        self.number("total_cost_usd").unwrap_or(0.0)
    }
    #[getter]
    fn total_time_ms(&self) -> f64 {
        self.number("total_time_ms").unwrap_or(0.0)
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        wrapper::repr(py, self)
    }
}

/// The built-in `IterationAnalytics`, safe to share between threads.
#[pyclass(frozen, module = "earlyexit._native", name = "IterationAnalytics")]
pub struct PyIterationAnalytics {
    pub(crate) inner: Mutex<IterationAnalytics>,
}

impl PyIterationAnalytics {
    pub(crate) fn restore(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyIterationAnalytics { inner: Mutex::new(wrapper::restore(py, snapshot)?) })
    }

    /// Records `record` (snake_case keys); returns the stored record.
    fn record_value(&self, py: Python<'_>, record: &Value) -> PyResult<PyAnalyticsRecord> {
        let inner = locked(&self.inner, |a| a.record_value(record, Naming::Snake).cloned()).or_raise(py)?;
        Ok(PyAnalyticsRecord { inner })
    }
}

#[pymethods]
impl PyIterationAnalytics {
    #[new]
    #[pyo3(signature = (config = None, /, **options))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = options_value(config, options)?;
        let inner = IterationAnalytics::from_config_value(&value, Naming::Snake).or_raise(py)?;
        Ok(PyIterationAnalytics { inner: Mutex::new(inner) })
    }

    /// Records one iteration; returns the stored record.
    #[pyo3(signature = (
        iteration_number, quality_score, verification_status,
        tokens_used = None, token_cost_usd = None, execution_time_ms = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        py: Python<'_>,
        iteration_number: &Bound<'_, PyAny>,
        quality_score: &Bound<'_, PyAny>,
        verification_status: &Bound<'_, PyAny>,
        tokens_used: Option<&Bound<'_, PyAny>>,
        token_cost_usd: Option<&Bound<'_, PyAny>>,
        execution_time_ms: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyAnalyticsRecord> {
        let record = keyword_entries([
            ("iteration_number", Some(iteration_number)),
            ("quality_score", Some(quality_score)),
            ("verification_status", Some(verification_status)),
            ("tokens_used", tokens_used),
            ("token_cost_usd", token_cost_usd),
            ("execution_time_ms", execution_time_ms),
        ])?;
        self.record_value(py, &Value::Object(record))
    }

    /// The seed's `recordIteration(record)` with the record as a mapping.
    fn record_iteration(&self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<PyAnalyticsRecord> {
        self.record_value(py, &to_value(record, NoneIs::Absent)?)
    }

    /// `{detected, iteration, reason}` (O(1): kept up to date as records arrive).
    fn detect_diminishing_returns(&self) -> PyDiminishingReturnsReport {
        PyDiminishingReturnsReport { inner: lock(&self.inner).detect_diminishing_returns() }
    }

    /// `'insufficient_data'`, `'improving'`, `'declining'`, `'stable'` or `'fluctuating'`.
    fn trajectory(&self) -> &'static str {
        lock(&self.inner).trajectory().as_str()
    }

    /// The best record (verified ones only, by default), or `None` with no records.
    #[pyo3(signature = (verified_only = AnyValue(Value::Bool(true))))]
    fn optimal_iteration(&self, py: Python<'_>, verified_only: AnyValue) -> PyResult<Option<PyAnalyticsRecord>> {
        let verified_only =
            earlyexit::analytics::verified_only_argument(&verified_only.0, Naming::Snake).or_raise(py)?;
        let analytics = lock(&self.inner);
        let record = analytics.optimal_iteration(verified_only).and_then(|i| analytics.records().get(i)).cloned();
        Ok(record.map(|inner| PyAnalyticsRecord { inner }))
    }

    /// `{selected, reason}` under the configured selection criteria.
    fn select_best_iteration(&self) -> PyIterationSelection {
        let analytics = lock(&self.inner);
        let selection = analytics.select_best_iteration();
        let selected = selection.selected.and_then(|i| analytics.records().get(i)).cloned();
        PyIterationSelection { selected, reason: selection.reason }
    }

    /// The seed's `generateSummary()`.
    fn summary(&self) -> PyAnalyticsSummary {
        let analytics = lock(&self.inner);
        PyAnalyticsSummary { value: analytics.summary_value(), report: analytics.detect_diminishing_returns() }
    }

    /// Every record, oldest first.
    #[getter]
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let records: Vec<AnalyticsRecord> = lock(&self.inner).records().to_vec();
        PyTuple::new(py, records.into_iter().map(|inner| PyAnalyticsRecord { inner }))
    }

    #[getter]
    fn config(&self) -> PyAnalyticsConfig {
        PyAnalyticsConfig { inner: lock(&self.inner).config().clone() }
    }

    fn __len__(&self) -> usize {
        lock(&self.inner).records().len()
    }

    /// Clears every record; keeps the config.
    fn reset(&self) {
        lock(&self.inner).reset();
    }

    /// The portable snapshot as JSON text.
    fn to_json(&self) -> String {
        wrapper::snapshot_text(&self.inner)
    }

    /// Restores `to_json()` text (or its parsed dict).
    #[staticmethod]
    fn from_json(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::restore(py, snapshot)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrapper::reduce_engine(py, &self.inner, py.None().into_bound(py))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (len, config) = {
            let a = lock(&self.inner);
            (a.records().len(), a.config().clone())
        };
        let config = PyAnalyticsConfig { inner: config }.into_bound_py_any(py)?;
        repr_of("IterationAnalytics", &[("records", len.into_bound_py_any(py)?), ("config", config)])
    }
}
