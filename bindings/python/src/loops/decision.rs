//! What the loop engine answers: `StoppingDecision` (`should_stop()`) and `StoppingSummary`
//! (`summary()`).

use earlyexit::{loop_stopping::StoppingSummary, EarlyStoppingConfig, StoppingDecision};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::loops::config::PyEarlyStoppingConfig;
use crate::shims::{self, core_value, repr_of};
use crate::value::{to_py, to_py_or_none};

core_value!(fixed: PyStoppingDecision, PyStoppingSummary);

/// What `should_stop()` answers.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "StoppingDecision")]
#[derive(Clone, PartialEq)]
pub struct PyStoppingDecision {
    pub(crate) inner: StoppingDecision,
}

#[pymethods]
impl PyStoppingDecision {
    #[getter]
    fn stop(&self) -> bool {
        self.inner.stop
    }
    #[getter]
    fn reason(&self) -> &str {
        &self.inner.reason
    }
    #[getter]
    fn confidence(&self) -> f64 {
        self.inner.confidence
    }
    #[getter]
    fn trigger(&self) -> &'static str {
        self.inner.trigger.as_str()
    }
    /// The seed's `details` (a new dict on each access), or `None` when the loop goes on.
    #[getter]
    fn details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py_or_none(py, self.inner.details.as_ref().map(|d| d.to_value()).as_ref())
    }
    #[getter]
    fn best_iteration(&self) -> Option<u64> {
        self.inner.best.map(|b| b.0)
    }
    #[getter]
    fn best_quality_score(&self) -> Option<f64> {
        self.inner.best.map(|b| b.1)
    }
    /// Where each configured budget stands (a new list of dicts; empty with no budget).
    #[getter]
    fn budgets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.to_value().get("budgets") {
            Some(list) => to_py(py, list),
            None => Ok(pyo3::types::PyList::empty(py).into_any()),
        }
    }

    /// The decision as the JS API returns it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __bool__(&self) -> bool {
        self.inner.stop
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let d = &self.inner;
        let mut fields = vec![
            ("stop", d.stop.into_bound_py_any(py)?),
            ("trigger", d.trigger.as_str().into_bound_py_any(py)?),
            ("reason", d.reason.as_str().into_bound_py_any(py)?),
            ("confidence", d.confidence.into_bound_py_any(py)?),
        ];
        if d.details.is_some() {
            fields.push(("details", self.details(py)?));
        }
        fields.push(("best_iteration", self.best_iteration().into_bound_py_any(py)?));
        fields.push(("best_quality_score", self.best_quality_score().into_bound_py_any(py)?));
        repr_of("StoppingDecision", &fields)
    }
}

/// What `summary()` answers (the seed's `generateSummary()`).
#[pyclass(frozen, eq, module = "earlyexit._native", name = "StoppingSummary")]
#[derive(Clone, PartialEq)]
pub struct PyStoppingSummary {
    pub(crate) inner: StoppingSummary,
}

impl PyStoppingSummary {
    fn full(
        &self,
    ) -> Option<(&usize, &StoppingDecision, &earlyexit::loop_stopping::FinalRecord, &EarlyStoppingConfig)> {
        match &self.inner {
            StoppingSummary::Empty => None,
            StoppingSummary::Full { total_iterations, decision, last, config } => {
                Some((total_iterations, decision, last, config))
            }
        }
    }
}

#[pymethods]
impl PyStoppingSummary {
    #[getter]
    fn total_iterations(&self) -> usize {
        self.full().map_or(0, |f| *f.0)
    }
    #[getter]
    fn stopped_early(&self) -> bool {
        self.full().is_some_and(|f| f.1.stop)
    }
    /// Only on an empty history: `'No iterations completed'`.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        self.full().is_none().then_some("No iterations completed")
    }
    #[getter]
    fn stopping_trigger(&self) -> Option<&'static str> {
        self.full().map(|f| f.1.trigger.as_str())
    }
    #[getter]
    fn stopping_reason(&self) -> Option<String> {
        self.full().map(|f| f.1.reason.clone())
    }
    #[getter]
    fn stopping_confidence(&self) -> Option<f64> {
        self.full().map(|f| f.1.confidence)
    }
    #[getter]
    fn final_quality(&self) -> Option<f64> {
        self.full().map(|f| f.2.quality_score)
    }
    #[getter]
    fn final_confidence(&self) -> Option<f64> {
        self.full().map(|f| f.2.confidence)
    }
    #[getter]
    fn final_verification(&self) -> Option<&'static str> {
        self.full().map(|f| f.2.verification_status.as_str())
    }
    #[getter]
    fn config(&self) -> Option<PyEarlyStoppingConfig> {
        self.full().map(|f| PyEarlyStoppingConfig { inner: f.3.clone() })
    }
    #[getter]
    fn details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py_or_none(py, self.full().and_then(|f| f.1.details.as_ref()).map(|d| d.to_value()).as_ref())
    }

    /// The summary as the JS API returns it (`config` with camelCase keys).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut fields = vec![
            ("total_iterations", self.total_iterations().into_bound_py_any(py)?),
            ("stopped_early", self.stopped_early().into_bound_py_any(py)?),
        ];
        match self.full() {
            None => fields.push(("reason", self.reason().into_bound_py_any(py)?)),
            Some((_, decision, last, _)) => {
                fields.push(("stopping_trigger", decision.trigger.as_str().into_bound_py_any(py)?));
                fields.push(("stopping_reason", decision.reason.as_str().into_bound_py_any(py)?));
                fields.push(("final_quality", last.quality_score.into_bound_py_any(py)?));
            }
        }
        repr_of("StoppingSummary", &fields)
    }
}
