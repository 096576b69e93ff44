//! `IterationRecord`: one entry of `EarlyStopping.history`.

use earlyexit::IterationRecord;
use pyo3::prelude::*;

use crate::shims::{self, core_value};

core_value!(fixed: PyIterationRecord);

/// One entry of `EarlyStopping.history`.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "IterationRecord")]
#[derive(Clone, PartialEq)]
pub struct PyIterationRecord {
    pub(crate) inner: IterationRecord,
}

#[pymethods]
impl PyIterationRecord {
    #[getter]
    fn iteration_number(&self) -> u64 {
        self.inner.observation.iteration
    }
    #[getter]
    fn quality_score(&self) -> f64 {
        self.inner.observation.quality_score
    }
    #[getter]
    fn confidence(&self) -> f64 {
        self.inner.observation.confidence
    }
    #[getter]
    fn verification_status(&self) -> &'static str {
        self.inner.observation.verification_status.as_str()
    }
    #[getter]
    fn quality_delta(&self) -> f64 {
        self.inner.observation.quality_delta
    }
    #[getter]
    fn timestamp(&self) -> &str {
        &self.inner.timestamp
    }
    #[getter]
    fn tokens_used(&self) -> Option<f64> {
        self.inner.usage.as_ref().and_then(|u| u.tokens_used)
    }
    #[getter]
    fn token_cost_usd(&self) -> Option<f64> {
        self.inner.usage.as_ref().and_then(|u| u.token_cost_usd)
    }
    #[getter]
    fn execution_time_ms(&self) -> Option<f64> {
        self.inner.usage.as_ref().and_then(|u| u.execution_time_ms)
    }

    /// The record as `getIterationHistory()` lists it.
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
