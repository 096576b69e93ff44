//! ADR-033's exit decision: `EarlyExitConfig`, `ExitDecision`, `CoherenceEarlyExit`.

use earlyexit::{CoherenceEarlyExit, ErrorCode, ExitConfig, ExitDecision, Naming, QualitySignal, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::error::OrRaise;
use crate::pyramid::signal::PyQualitySignal;
use crate::shims::{repr_of, value_class};
use crate::value::{options_value, to_value, NoneIs};

value_class! {
    /// ADR-033's `EarlyExitConfig`; keyword construction merges over `DEFAULT`.
    "EarlyExitConfig" => PyEarlyExitConfig(ExitConfig) {
        value: named,
        pickle: class,
        repr: snake,
    }
    getters {
        exit_layer: u64 = |c| c.exit_layer;
        min_lambda_for_exit: f64 = |c| c.min_lambda_for_exit;
        min_lambda_stability: f64 = |c| c.min_lambda_stability;
        max_boundary_concentration: f64 = |c| c.max_boundary_concentration;
        speculative_tests: u64 = |c| c.speculative_tests;
        verification_layers: u64 = |c| c.verification_layers;
        adaptive_exit_layer: bool = |c| c.adaptive_exit_layer;
        min_confidence: f64 = |c| c.min_confidence;
    }
    methods {
        #[new]
        #[pyo3(signature = (config = None, /, **options))]
        fn new(
            py: Python<'_>,
            config: Option<&Bound<'_, PyAny>>,
            options: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<Self> {
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

value_class! {
    /// ADR-033's `EarlyExitDecision`.
    "ExitDecision" => PyExitDecision(ExitDecision) {
        value: named,
        pickle: result(|v| ExitDecision::from_value(v, Naming::Snake)),
        repr: snake,
    }
    getters {
        can_exit: bool = |d| d.can_exit;
        confidence: f64 = |d| d.confidence;
        exit_layer: i64 = |d| d.exit_layer;
        reason: &'static str = |d| d.reason.as_str();
        enable_speculation: bool = |d| d.enable_speculation;
        explanation: &str = |d| &d.explanation;
    }
    methods {
        fn __bool__(&self) -> bool {
            self.inner.can_exit
        }
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
