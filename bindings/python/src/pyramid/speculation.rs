//! ADR-033's speculation: `Speculation` and `SpeculativeExecutor`.

use earlyexit::kit;
use earlyexit::{
    limits::MAX_LAYERS,
    pyramid::{self, Outcome},
    ErrorCode, ExitConfig, Naming, Speculation, SpeculativeExecutor, Value,
};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::IntoPyObjectExt;

use crate::error::{raise, OrRaise};
use crate::pyramid::exit::{exit_config_value, PyEarlyExitConfig};
use crate::pyramid::layers::{layers_over_limit, runner_of};
use crate::pyramid::signal::layer_result_of;
use crate::shims::{repr_of, value_class};
use crate::value::{to_value, NoneIs};

value_class! {
    /// One prediction for a skipped layer, and what verification found if it ran.
    "Speculation" => PySpeculation(Speculation) {
        value: fixed,
        pickle: result(|v| Speculation::from_value(v, Naming::Snake, "")),
        repr: snake,
    }
    getters {
        predicted: &'static str = |s| s.predicted.as_str();
        confidence: f64 = |s| s.confidence;
        verified: bool = |s| s.verified();
        actual: Option<&'static str> = |s| s.actual.map(Outcome::as_str);
        correct: Option<bool> = |s| s.correct();
        /// In a run's result: the index of the skipped layer the prediction is about.
        layer: Option<usize> = |s| s.layer;
        /// In a run's result: that layer's name.
        name: Option<&str> = |s| s.name.as_deref();
    }
}

/// ADR-033's `SpeculativeExecutor(config)`.
#[pyclass(frozen, module = "earlyexit._native", name = "SpeculativeExecutor")]
pub struct PySpeculativeExecutor {
    config: ExitConfig,
    inner: SpeculativeExecutor,
}

#[pymethods]
impl PySpeculativeExecutor {
    #[new]
    #[pyo3(signature = (config = None))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let config = ExitConfig::from_value(&exit_config_value(config)?, Naming::Snake).or_raise(py)?;
        let inner = SpeculativeExecutor::new(&config);
        Ok(PySpeculativeExecutor { config, inner })
    }

    /// One prediction per skipped layer; `skipped` is the skipped layers (only their count
    /// is read) or the count itself. Only `decision.confidence` is read.
    fn speculate<'py>(
        &self,
        py: Python<'py>,
        decision: &Bound<'py, PyAny>,
        skipped: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let confidence =
            kit::pyramid::decision_confidence(&to_value(decision, NoneIs::Absent)?, Naming::Snake).or_raise(py)?;
        let count = skipped_count(py, skipped)?;
        let speculations = pyramid::speculate(confidence, count).or_raise(py)?;
        PyTuple::new(py, speculations.into_iter().map(|inner| PySpeculation { inner }))
    }

    /// Runs the first `verification_layers` of `layers` (the skipped layers, each
    /// `(name, runner)`, a mapping with `run`, or an object with `run()`) and records what
    /// each outcome was; the other predictions are returned as they are.
    fn verify<'py>(
        &self,
        py: Python<'py>,
        speculations: &Bound<'py, PyAny>,
        layers: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mut parsed = Vec::new();
        for (i, item) in speculations.try_iter()?.enumerate() {
            // One speculation per skipped layer: an iterator that goes on is refused, not read.
            if i == MAX_LAYERS {
                return Err(raise(py, layers_over_limit("speculations")));
            }
            let item = item?;
            if let Ok(typed) = item.cast::<PySpeculation>() {
                parsed.push(typed.get().inner.clone());
            } else {
                let path = ["speculations[", &i.to_string(), "]"].concat();
                let value = to_value(&item, NoneIs::Absent)?;
                parsed.push(Speculation::from_value(&value, Naming::Snake, &path).or_raise(py)?);
            }
        }
        let count = self.inner.verification_count(parsed.len());
        // Only the layers verification runs are read (`layers` may be a generator).
        let layers: Vec<Bound<'py, PyAny>> = layers.try_iter()?.take(count).collect::<PyResult<_>>()?;
        for (i, speculation) in parsed.iter_mut().take(count).enumerate() {
            let path = ["layers[", &i.to_string(), "]"].concat();
            let Some(layer) = layers.get(i) else {
                let missing = earlyexit::kit::host::Problem::MissingLayer;
                let error = earlyexit::kit::host::problem(missing, ErrorCode::InvalidConfig, &path, &Value::Null);
                return Err(raise(py, error));
            };
            let runner = runner_of(py, layer, i)?;
            let returned = runner.call0()?;
            let observed = layer_result_of(py, &returned, &path)?;
            self.inner.apply(speculation, &observed);
        }
        PyTuple::new(py, parsed.into_iter().map(|inner| PySpeculation { inner }))
    }

    #[getter]
    fn config(&self) -> PyEarlyExitConfig {
        PyEarlyExitConfig { inner: self.config.clone() }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        repr_of("SpeculativeExecutor", &[("config", self.config().into_bound_py_any(py)?)])
    }
}

pub(crate) fn skipped_count(py: Python<'_>, skipped: &Bound<'_, PyAny>) -> PyResult<usize> {
    // A count as a number, a sequence by its length: the core checks either (a length is
    // only a claim until the items are read, and `speculate` would allocate by it).
    let count = if skipped.is_instance_of::<pyo3::types::PyInt>() && !skipped.is_instance_of::<pyo3::types::PyBool>() {
        to_value(skipped, NoneIs::Absent)?
    } else {
        match skipped.len() {
            Ok(n) => Value::Number(n as f64),
            Err(_) => {
                let got = to_value(skipped, NoneIs::Absent)?;
                let expected = "a sequence of layers or a count";
                return Err(raise(
                    py,
                    earlyexit::kit::host::type_error(ErrorCode::InvalidConfig, "skipped", expected, &got),
                ));
            }
        }
    };
    kit::pyramid::skipped_count(&count, Naming::Snake).or_raise(py)
}
