//! ADR-033's exit decision: `EarlyExitConfig`, `ExitDecision`, `CoherenceEarlyExit`.

use earlyexit::{CoherenceEarlyExit, ErrorCode, ExitConfig, ExitDecision, Naming, QualitySignal, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::error::OrRaise;
use crate::pyramid::signal::PyQualitySignal;
use crate::shims::{self, core_value, repr_of};
use crate::value::{options_value, to_value, NoneIs};

core_value!(named: PyEarlyExitConfig, PyExitDecision);

/// ADR-033's `EarlyExitConfig`; keyword construction merges over `DEFAULT`.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "EarlyExitConfig")]
#[derive(Clone, PartialEq)]
pub struct PyEarlyExitConfig {
    pub(crate) inner: ExitConfig,
}

#[pymethods]
impl PyEarlyExitConfig {
    #[new]
    #[pyo3(signature = (config = None, /, **options))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = options_value(config, options)?;
        Ok(PyEarlyExitConfig { inner: ExitConfig::from_value(&value, Naming::Snake).or_raise(py)? })
    }

    /// `DEFAULT_EXIT_CONFIG`.
    #[classattr]
    #[pyo3(name = "DEFAULT")]
    fn default_preset() -> Self {
        PyEarlyExitConfig { inner: ExitConfig::DEFAULT }
    }
    /// `AGGRESSIVE_EXIT_CONFIG`.
    #[classattr]
    #[pyo3(name = "AGGRESSIVE")]
    fn aggressive_preset() -> Self {
        PyEarlyExitConfig { inner: ExitConfig::AGGRESSIVE }
    }
    /// `CONSERVATIVE_EXIT_CONFIG`.
    #[classattr]
    #[pyo3(name = "CONSERVATIVE")]
    fn conservative_preset() -> Self {
        PyEarlyExitConfig { inner: ExitConfig::CONSERVATIVE }
    }

    /// A copy with some options changed.
    #[pyo3(signature = (**changes))]
    fn replace(&self, py: Python<'_>, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = options_value(None, changes)?;
        Ok(PyEarlyExitConfig {
            inner: self.inner.merged(&value, Naming::Snake, "", ErrorCode::InvalidConfig).or_raise(py)?,
        })
    }

    #[getter]
    fn exit_layer(&self) -> u64 {
        self.inner.exit_layer
    }
    #[getter]
    fn min_lambda_for_exit(&self) -> f64 {
        self.inner.min_lambda_for_exit
    }
    #[getter]
    fn min_lambda_stability(&self) -> f64 {
        self.inner.min_lambda_stability
    }
    #[getter]
    fn max_boundary_concentration(&self) -> f64 {
        self.inner.max_boundary_concentration
    }
    #[getter]
    fn speculative_tests(&self) -> u64 {
        self.inner.speculative_tests
    }
    #[getter]
    fn verification_layers(&self) -> u64 {
        self.inner.verification_layers
    }
    #[getter]
    fn adaptive_exit_layer(&self) -> bool {
        self.inner.adaptive_exit_layer
    }
    #[getter]
    fn min_confidence(&self) -> f64 {
        self.inner.min_confidence
    }

    /// The config as the JS API shows it (camelCase keys).
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

/// An exit config argument: `None` (the default), an `EarlyExitConfig`, or a mapping merged
/// over the default.
pub(crate) fn exit_config_value(config: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match config {
        None => Ok(Value::Null),
        Some(c) => to_value(c, NoneIs::Absent),
    }
}

/// ADR-033's `EarlyExitDecision`.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "ExitDecision")]
#[derive(Clone, PartialEq)]
pub struct PyExitDecision {
    pub(crate) inner: ExitDecision,
}

#[pymethods]
impl PyExitDecision {
    #[getter]
    fn can_exit(&self) -> bool {
        self.inner.can_exit
    }
    #[getter]
    fn confidence(&self) -> f64 {
        self.inner.confidence
    }
    #[getter]
    fn exit_layer(&self) -> i64 {
        self.inner.exit_layer
    }
    #[getter]
    fn reason(&self) -> &'static str {
        self.inner.reason.as_str()
    }
    #[getter]
    fn enable_speculation(&self) -> bool {
        self.inner.enable_speculation
    }
    #[getter]
    fn explanation(&self) -> &str {
        &self.inner.explanation
    }

    /// The decision as the JS API returns it (camelCase keys).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<shims::ResultReduce<'py>> {
        shims::reduce_result(slf)
    }

    fn __bool__(&self) -> bool {
        self.inner.can_exit
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        shims::repr(py, self)
    }
}

/// ADR-033's `CoherenceEarlyExit(config, totalLayers)`; immutable, so freely shared.
#[pyclass(frozen, module = "earlyexit._native", name = "CoherenceEarlyExit")]
pub struct PyCoherenceEarlyExit {
    inner: CoherenceEarlyExit,
}

pub(crate) fn signal_of(py: Python<'_>, signal: &Bound<'_, PyAny>) -> PyResult<QualitySignal> {
    if let Ok(typed) = signal.cast::<PyQualitySignal>() {
        return Ok(typed.get().inner);
    }
    let value = to_value(signal, NoneIs::Absent)?;
    QualitySignal::from_value(&value, Naming::Snake).or_raise(py)
}

#[pymethods]
impl PyCoherenceEarlyExit {
    #[new]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, total_layers: &Bound<'_, PyAny>) -> PyResult<Self> {
        let config = exit_config_value(config)?;
        let total = to_value(total_layers, NoneIs::Absent)?;
        Ok(PyCoherenceEarlyExit {
            inner: CoherenceEarlyExit::from_values(&config, &total, Naming::Snake).or_raise(py)?,
        })
    }

    /// ADR-033's `shouldExit(signal, layer)`.
    fn should_exit(
        &self,
        py: Python<'_>,
        signal: &Bound<'_, PyAny>,
        layer: &Bound<'_, PyAny>,
    ) -> PyResult<PyExitDecision> {
        let layer_value = to_value(layer, NoneIs::Absent)?;
        let signal_value = to_value(signal, NoneIs::Absent)?; // a QualitySignal as its snake_case value
        let inner = self.inner.should_exit_value(&signal_value, &layer_value, Naming::Snake).or_raise(py)?;
        Ok(PyExitDecision { inner })
    }

    /// ADR-033's `calculateAdaptiveExitLayer(signal)`.
    fn adaptive_exit_layer(&self, py: Python<'_>, signal: &Bound<'_, PyAny>) -> PyResult<i64> {
        Ok(self.inner.adaptive_exit_layer(&signal_of(py, signal)?))
    }

    #[getter]
    fn config(&self) -> PyEarlyExitConfig {
        PyEarlyExitConfig { inner: self.inner.config().clone() }
    }

    #[getter]
    fn total_layers(&self) -> u64 {
        self.inner.total_layers()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        repr_of(
            "CoherenceEarlyExit",
            &[
                ("config", self.config().into_bound_py_any(py)?),
                ("total_layers", self.total_layers().into_bound_py_any(py)?),
            ],
        )
    }
}
