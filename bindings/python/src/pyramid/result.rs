//! What a pyramid run gives back: `TestPyramidResult`, `FailingLayer`, and the next step,
//! `PyramidAction`.

use earlyexit::{
    pyramid::{Action, FailingLayer},
    TestPyramidResult,
};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::IntoPyObjectExt;

use crate::pyramid::signal::PyLayerResult;
use crate::pyramid::speculation::PySpeculation;
use crate::shims::{self, core_value, repr_of};

core_value!(named: PyTestPyramidResult);
core_value!(fixed: PyPyramidAction, PyFailingLayer);

/// ADR-033's `TestPyramidResult` plus the honest-accounting fields.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "TestPyramidResult")]
#[derive(Clone, PartialEq)]
pub struct PyTestPyramidResult {
    pub(crate) inner: TestPyramidResult,
}

#[pymethods]
impl PyTestPyramidResult {
    /// Not a test class (pytest collects classes named `Test*`).
    #[classattr]
    fn __test__() -> bool {
        false
    }

    #[getter]
    fn layers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.layers.iter().cloned().map(|inner| PyLayerResult { inner }))
    }
    #[getter]
    fn exited_early(&self) -> bool {
        self.inner.exited_early
    }
    #[getter]
    fn exit_layer(&self) -> i64 {
        self.inner.exit_layer
    }
    #[getter]
    fn exit_reason(&self) -> &'static str {
        self.inner.exit_reason.as_str()
    }
    #[getter]
    fn confidence(&self) -> f64 {
        self.inner.confidence
    }
    #[getter]
    fn speculations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.speculations.iter().cloned().map(|inner| PySpeculation { inner }))
    }
    #[getter]
    fn skipped_layers(&self) -> usize {
        self.inner.skipped_layers
    }
    #[getter]
    fn layers_executed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.layers_executed.iter().copied())
    }
    #[getter]
    fn verified_layers(&self) -> usize {
        self.inner.verified_layers
    }
    #[getter]
    fn mispredictions(&self) -> usize {
        self.inner.mispredictions
    }
    #[getter]
    fn compute_saved_ms(&self) -> Option<f64> {
        self.inner.compute_saved_ms
    }
    /// `'failed'`, `'passed'` or `'unverified'` (docs/pyramid-verdict.md).
    #[getter]
    fn verdict(&self) -> &'static str {
        self.inner.verdict.as_str()
    }
    /// The failing layers that ran or were verified, in the order they ran.
    #[getter]
    fn failing_layers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.failing_layers.iter().cloned().map(|inner| PyFailingLayer { inner }))
    }

    /// The result as the JS API returns it (the ADR's camelCase keys).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let r = &self.inner;
        repr_of(
            "TestPyramidResult",
            &[
                ("verdict", r.verdict.as_str().into_bound_py_any(py)?),
                ("failing_layers", self.failing_layers(py)?.into_any()),
                ("exited_early", r.exited_early.into_bound_py_any(py)?),
                ("exit_layer", r.exit_layer.into_bound_py_any(py)?),
                ("exit_reason", r.exit_reason.as_str().into_bound_py_any(py)?),
                ("confidence", r.confidence.into_bound_py_any(py)?),
                ("skipped_layers", r.skipped_layers.into_bound_py_any(py)?),
                ("layers_executed", self.layers_executed(py)?.into_any()),
                ("verified_layers", r.verified_layers.into_bound_py_any(py)?),
                ("mispredictions", r.mispredictions.into_bound_py_any(py)?),
                ("compute_saved_ms", r.compute_saved_ms.into_bound_py_any(py)?),
            ],
        )
    }
}

/// A failing layer of a pyramid run: its index and name.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "FailingLayer")]
#[derive(Clone, PartialEq)]
pub struct PyFailingLayer {
    pub(crate) inner: FailingLayer,
}

#[pymethods]
impl PyFailingLayer {
    /// The layer's index in the pyramid.
    #[getter]
    fn layer(&self) -> usize {
        self.inner.layer
    }
    /// The layer's name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
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

/// What the pyramid wants next: run layer i, verify layer i, or done.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "PyramidAction")]
#[derive(Clone, PartialEq)]
pub struct PyPyramidAction {
    pub(crate) inner: Action,
}

#[pymethods]
impl PyPyramidAction {
    /// `'run'`, `'verify'` or `'done'`.
    #[getter]
    fn action(&self) -> &'static str {
        match self.inner {
            Action::Run(_) => "run",
            Action::Verify(_) => "verify",
            Action::Done => "done",
        }
    }
    /// The layer index to run or verify; `None` when done.
    #[getter]
    fn layer(&self) -> Option<usize> {
        match self.inner {
            Action::Run(i) | Action::Verify(i) => Some(i),
            Action::Done => None,
        }
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
