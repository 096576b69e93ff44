//! Engine 2 for Python: layer results, quality signals, the exit decision, speculation and
//! the pyramid step API. The run loops (`EarlyExitController.run` / `run_async`) are a few
//! lines of Python over [`PyPyramidRun`] in the pure-Python package.

use std::sync::Mutex;

use earlyexit::pyramid::{self, Action, FailingLayer, Outcome, PyramidRun};
use earlyexit::{
    calculate_quality_signal, CoherenceEarlyExit, Error, ErrorCode, ErrorKind, ExitConfig, ExitDecision, LayerResult,
    Naming, QualitySignal, Speculation, SpeculativeExecutor, TestPyramidResult, Value,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::convert::{
    keyword_entries, lock, locked, options_value, raise, repr_of, to_py, to_value, type_name, NoneIs, OrRaise,
};
use crate::wrapper::{self, core_value};

core_value!(named: PyLayerResult, PyQualitySignal, PyEarlyExitConfig, PyExitDecision, PyTestPyramidResult);
core_value!(fixed: PySpeculation, PyPyramidAction, PyFailingLayer);

// ---------------------------------------------------------------------------------------
// LayerResult and QualitySignal
// ---------------------------------------------------------------------------------------

/// A test layer's outcome: the three rates plus optional name, duration, counts and any
/// extra keys a runner returned (kept, as the ADR's controller spreads the runner's object).
#[pyclass(frozen, eq, module = "earlyexit._native", name = "LayerResult")]
#[derive(Clone, PartialEq)]
pub struct PyLayerResult {
    pub(crate) inner: LayerResult,
}

#[pymethods]
impl PyLayerResult {
    #[new]
    #[pyo3(signature = (
        pass_rate, coverage, flaky_ratio, *, previous_lambda = None, name = None, duration_ms = None,
        total = None, passed = None, failed = None, flaky = None, extra = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        pass_rate: &Bound<'_, PyAny>,
        coverage: &Bound<'_, PyAny>,
        flaky_ratio: &Bound<'_, PyAny>,
        previous_lambda: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        duration_ms: Option<&Bound<'_, PyAny>>,
        total: Option<&Bound<'_, PyAny>>,
        passed: Option<&Bound<'_, PyAny>>,
        failed: Option<&Bound<'_, PyAny>>,
        flaky: Option<&Bound<'_, PyAny>>,
        extra: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut entries = keyword_entries([
            ("pass_rate", Some(pass_rate)),
            ("coverage", Some(coverage)),
            ("flaky_ratio", Some(flaky_ratio)),
            ("previous_lambda", previous_lambda),
            ("name", name),
            ("duration_ms", duration_ms),
            ("total", total),
            ("passed", passed),
            ("failed", failed),
            ("flaky", flaky),
        ])?;
        if let Some(extra) = extra {
            match to_value(extra, NoneIs::Absent)? {
                Value::Object(more) => entries.extend(more),
                Value::Null => {}
                other => {
                    let error = crate::binding_type_error(ErrorCode::InvalidLayerResult, "extra", "a mapping", &other);
                    return Err(raise(py, error));
                }
            }
        }
        let inner = LayerResult::from_value(&Value::Object(entries), Naming::Snake, "").or_raise(py)?;
        Ok(PyLayerResult { inner })
    }

    /// A layer result from a mapping with the Python (snake_case) keys.
    #[staticmethod]
    fn from_dict(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = to_value(data, NoneIs::Absent)?;
        let inner = LayerResult::from_value(&value, Naming::Snake, "").or_raise(py)?;
        Ok(PyLayerResult { inner })
    }

    #[getter]
    fn pass_rate(&self) -> f64 {
        self.inner.pass_rate
    }
    #[getter]
    fn coverage(&self) -> f64 {
        self.inner.coverage
    }
    #[getter]
    fn flaky_ratio(&self) -> f64 {
        self.inner.flaky_ratio
    }
    #[getter]
    fn previous_lambda(&self) -> Option<f64> {
        self.inner.previous_lambda
    }
    #[getter]
    fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }
    #[getter]
    fn duration_ms(&self) -> Option<f64> {
        self.inner.duration_ms
    }
    #[getter]
    fn total(&self) -> Option<u64> {
        self.inner.counts.total
    }
    #[getter]
    fn passed(&self) -> Option<u64> {
        self.inner.counts.passed
    }
    #[getter]
    fn failed(&self) -> Option<u64> {
        self.inner.counts.failed
    }
    #[getter]
    fn flaky(&self) -> Option<u64> {
        self.inner.counts.flaky
    }
    /// The keys the core does not read, as a new dict.
    #[getter]
    fn extra<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let entries: Vec<(String, Value)> =
            self.inner.extra_entries().map(|(k, v)| (k.to_string(), v.clone())).collect();
        to_py(py, &Value::Object(entries))
    }

    /// The result as the JS API shows it (camelCase keys, the runner's key order).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrapper::to_dict(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        wrapper::repr(py, self)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        wrapper::reduce_by(slf, slf.get_type().getattr("from_dict")?)
    }
}

/// ADR-033's quality signal of one layer.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "QualitySignal")]
#[derive(Clone, PartialEq)]
pub struct PyQualitySignal {
    pub(crate) inner: QualitySignal,
}

#[pymethods]
impl PyQualitySignal {
    /// A hand-made signal (for `CoherenceEarlyExit.should_exit`), validated by the core.
    #[new]
    #[pyo3(signature = (*, lambda_, lambda_prev, boundary_concentration, boundary_edges = None, partition_count = None, flags = None))]
    fn new(
        py: Python<'_>,
        lambda_: &Bound<'_, PyAny>,
        lambda_prev: &Bound<'_, PyAny>,
        boundary_concentration: &Bound<'_, PyAny>,
        boundary_edges: Option<&Bound<'_, PyAny>>,
        partition_count: Option<&Bound<'_, PyAny>>,
        flags: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let entries = keyword_entries([
            ("lambda", Some(lambda_)),
            ("lambda_prev", Some(lambda_prev)),
            ("boundary_edges", boundary_edges),
            ("boundary_concentration", Some(boundary_concentration)),
            ("partition_count", partition_count),
            ("flags", flags),
        ])?;
        let inner = QualitySignal::from_value(&Value::Object(entries), Naming::Snake).or_raise(py)?;
        Ok(PyQualitySignal { inner })
    }

    /// `lambda` (a Python keyword, hence the trailing underscore).
    #[getter]
    fn lambda_(&self) -> f64 {
        self.inner.lambda
    }
    #[getter]
    fn lambda_prev(&self) -> f64 {
        self.inner.lambda_prev
    }
    #[getter]
    fn boundary_edges(&self) -> u32 {
        self.inner.boundary_edges
    }
    #[getter]
    fn boundary_concentration(&self) -> f64 {
        self.inner.boundary_concentration
    }
    #[getter]
    fn partition_count(&self) -> u32 {
        self.inner.partition_count
    }
    #[getter]
    fn flags(&self) -> u32 {
        self.inner.flags
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrapper::to_dict(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let s = &self.inner;
        repr_of(
            "QualitySignal",
            &[
                ("lambda_", s.lambda.into_bound_py_any(py)?),
                ("lambda_prev", s.lambda_prev.into_bound_py_any(py)?),
                ("boundary_edges", s.boundary_edges.into_bound_py_any(py)?),
                ("boundary_concentration", s.boundary_concentration.into_bound_py_any(py)?),
                ("partition_count", s.partition_count.into_bound_py_any(py)?),
                ("flags", s.flags.into_bound_py_any(py)?),
            ],
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        wrapper::reduce_by(slf, crate::module_attr(slf.py(), "_restore_signal")?)
    }
}

/// Restores a pickled `QualitySignal` from its snake_case dict.
#[pyfunction]
pub fn _restore_signal(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyQualitySignal> {
    let value = to_value(data, NoneIs::Absent)?;
    Ok(PyQualitySignal { inner: QualitySignal::from_value(&value, Naming::Snake).or_raise(py)? })
}

/// A layer result argument: a `LayerResult` as is, anything else through the core's parser.
fn layer_result_of(py: Python<'_>, obj: &Bound<'_, PyAny>, path: &str) -> PyResult<LayerResult> {
    if let Ok(typed) = obj.cast::<PyLayerResult>() {
        return Ok(typed.get().inner.clone());
    }
    let value = to_value(obj, NoneIs::Absent)?;
    LayerResult::from_value(&value, Naming::Snake, path).or_raise(py)
}

/// ADR-033's `calculateQualitySignal(layerResult)`.
#[pyfunction]
#[pyo3(name = "calculate_quality_signal")]
pub fn calculate_quality_signal_py(py: Python<'_>, layer_result: &Bound<'_, PyAny>) -> PyResult<PyQualitySignal> {
    let result = layer_result_of(py, layer_result, "")?;
    Ok(PyQualitySignal { inner: calculate_quality_signal(&result) })
}

/// ADR-033's `countQualityPartitions(layerResult)`: how many of pass rate < 0.9, coverage
/// < 0.7 and flaky ratio > 0.05 hold (0..=3).
#[pyfunction]
#[pyo3(name = "count_quality_partitions")]
pub fn count_quality_partitions_py(py: Python<'_>, layer_result: &Bound<'_, PyAny>) -> PyResult<u32> {
    let result = layer_result_of(py, layer_result, "")?;
    Ok(earlyexit::count_quality_partitions(&result))
}

// ---------------------------------------------------------------------------------------
// Config and exit decision
// ---------------------------------------------------------------------------------------

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
        wrapper::to_dict(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        wrapper::repr(py, self)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        wrapper::reduce_by_class(slf)
    }
}

/// An exit config argument: `None` (the default), an `EarlyExitConfig`, or a mapping merged
/// over the default.
fn exit_config_value(config: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
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
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
    }

    fn __bool__(&self) -> bool {
        self.inner.can_exit
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        wrapper::repr(py, self)
    }
}

/// ADR-033's `CoherenceEarlyExit(config, totalLayers)`; immutable, so freely shared.
#[pyclass(frozen, module = "earlyexit._native", name = "CoherenceEarlyExit")]
pub struct PyCoherenceEarlyExit {
    inner: CoherenceEarlyExit,
}

fn signal_of(py: Python<'_>, signal: &Bound<'_, PyAny>) -> PyResult<QualitySignal> {
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

// ---------------------------------------------------------------------------------------
// Speculation
// ---------------------------------------------------------------------------------------

/// One prediction for a skipped layer, and what verification found if it ran.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "Speculation")]
#[derive(Clone, PartialEq)]
pub struct PySpeculation {
    pub(crate) inner: Speculation,
}

#[pymethods]
impl PySpeculation {
    #[getter]
    fn predicted(&self) -> &'static str {
        self.inner.predicted.as_str()
    }
    #[getter]
    fn confidence(&self) -> f64 {
        self.inner.confidence
    }
    #[getter]
    fn verified(&self) -> bool {
        self.inner.verified()
    }
    #[getter]
    fn actual(&self) -> Option<&'static str> {
        self.inner.actual.map(Outcome::as_str)
    }
    #[getter]
    fn correct(&self) -> Option<bool> {
        self.inner.correct()
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
            pyramid::decision_confidence(&to_value(decision, NoneIs::Absent)?, Naming::Snake).or_raise(py)?;
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
            if i == earlyexit::limits::MAX_LAYERS {
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
                let error = crate::binding_type_error(
                    ErrorCode::InvalidConfig,
                    &path,
                    "a layer",
                    &Value::Other("nothing (missing)".into()),
                );
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

fn skipped_count(py: Python<'_>, skipped: &Bound<'_, PyAny>) -> PyResult<usize> {
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
                return Err(raise(py, crate::binding_type_error(ErrorCode::InvalidConfig, "skipped", expected, &got)));
            }
        }
    };
    pyramid::skipped_count(&count, Naming::Snake).or_raise(py)
}

// ---------------------------------------------------------------------------------------
// Layers given to the controller
// ---------------------------------------------------------------------------------------

/// The spec the core reads (`{name, cost_ms?}`) of one layer given as `(name, runner)`, a
/// mapping, or an object with `name` (and optionally `cost_ms`).
fn layer_spec_value(layer: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(tuple) = layer.cast::<PyTuple>() {
        if let (2, Ok(name)) = (tuple.len(), tuple.get_item(0)) {
            return Ok(Value::Object(vec![("name".to_string(), to_value(&name, NoneIs::Absent)?)]));
        }
        return to_value(layer, NoneIs::Absent);
    }
    if layer.is_instance_of::<PyDict>() || layer.cast::<PyMapping>().is_ok() || layer.is_instance_of::<PyList>() {
        return to_value(layer, NoneIs::Absent);
    }
    if layer.is_instance_of::<PyString>() || layer.is_none() {
        return to_value(layer, NoneIs::Absent);
    }
    let Ok(name) = layer.getattr("name") else {
        return Ok(Value::Other(type_name(layer)));
    };
    let mut entries = vec![("name".to_string(), to_value(&name, NoneIs::Absent)?)];
    if let Ok(cost) = layer.getattr("cost_ms") {
        if !cost.is_none() {
            entries.push(("cost_ms".to_string(), to_value(&cost, NoneIs::Absent)?));
        }
    }
    Ok(Value::Object(entries))
}

/// The layer list as the core's `layers` array.
pub fn layer_specs_value(layers: &Bound<'_, PyAny>) -> PyResult<Value> {
    if layers.is_instance_of::<PyString>() || layers.is_instance_of::<PyDict>() {
        return to_value(layers, NoneIs::Absent);
    }
    let Ok(iter) = layers.try_iter() else {
        return to_value(layers, NoneIs::Absent);
    };
    let mut items = Vec::new();
    for layer in iter {
        // Past the limit the core refuses the list: stop reading (an iterator may not end).
        if items.len() > earlyexit::limits::MAX_LAYERS {
            break;
        }
        items.push(layer_spec_value(&layer?)?);
    }
    Ok(Value::Array(items))
}

/// The error for a list of layers (or speculations) an iterator kept giving past the limit.
fn layers_over_limit(field: &str) -> Error {
    let over = earlyexit::limits::MAX_LAYERS + 1;
    earlyexit::limits::check_layer_count(over, ErrorCode::InvalidConfig, field)
        .err()
        .unwrap_or_else(|| Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, field, "too many layers"))
}

/// The runner of layer `index`: the second item of a `(name, runner)` tuple, a mapping's
/// `run`, or an object's `run` method.
fn runner_of<'py>(py: Python<'py>, layer: &Bound<'py, PyAny>, index: usize) -> PyResult<Bound<'py, PyAny>> {
    let runner = if let Ok(tuple) = layer.cast::<PyTuple>() {
        tuple.get_item(1).ok()
    } else if let Ok(mapping) = layer.cast::<PyMapping>() {
        mapping.get_item("run").ok()
    } else {
        layer.getattr("run").ok()
    };
    match runner {
        Some(r) if r.is_callable() => Ok(r),
        other => {
            let got = match other {
                Some(r) => to_value(&r, NoneIs::Absent)?,
                None => Value::Other("nothing (missing)".to_string()),
            };
            Err(raise(py, earlyexit::pyramid::invalid_runner(Naming::Snake, index, &got)))
        }
    }
}

/// The runners of `layers`, in order (used by `EarlyExitController.run` / `run_async`).
#[pyfunction]
pub fn _layer_runners<'py>(py: Python<'py>, layers: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (i, layer) in layers.try_iter()?.enumerate() {
        if i == earlyexit::limits::MAX_LAYERS {
            return Err(raise(py, layers_over_limit("layers")));
        }
        list.append(runner_of(py, &layer?, i)?)?;
    }
    Ok(list)
}

// ---------------------------------------------------------------------------------------
// Pyramid results and the step API
// ---------------------------------------------------------------------------------------

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
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
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

/// One pyramid run driven step by step (the core's sans-IO state machine).
#[pyclass(frozen, module = "earlyexit._native", name = "PyramidRun")]
pub struct PyPyramidRun {
    inner: Mutex<PyramidRun>,
}

impl PyPyramidRun {
    pub(crate) fn restore(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyPyramidRun { inner: Mutex::new(wrapper::restore(py, snapshot)?) })
    }
}

#[pymethods]
impl PyPyramidRun {
    /// `start(config, total_layers, layers)`: `layers` lists each layer as `(name, runner)`,
    /// a mapping with `name` and optional `cost_ms`, or an object with those attributes.
    #[staticmethod]
    fn start(
        py: Python<'_>,
        config: Option<&Bound<'_, PyAny>>,
        total_layers: &Bound<'_, PyAny>,
        layers: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let config = exit_config_value(config)?;
        let total = to_value(total_layers, NoneIs::Absent)?;
        let specs = layer_specs_value(layers)?;
        let run = PyramidRun::start_value(&config, &total, &specs, Naming::Snake).or_raise(py)?;
        Ok(PyPyramidRun { inner: Mutex::new(run) })
    }

    /// What to do next (does not advance anything).
    fn next(&self) -> PyPyramidAction {
        PyPyramidAction { inner: lock(&self.inner).next() }
    }

    /// Feeds the pending layer's result; returns the exit decision for a run layer, `None`
    /// for a verified one.
    fn submit(
        &self,
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        result: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PyExitDecision>> {
        let layer = to_value(layer, NoneIs::Absent)?;
        let result = to_value(result, NoneIs::Absent)?;
        let decision = locked(&self.inner, |run| run.submit_value(&layer, &result, Naming::Snake)).or_raise(py)?;
        Ok(decision.map(|inner| PyExitDecision { inner }))
    }

    /// The assembled result (an `invalid_step` error before the run is done).
    fn result(&self, py: Python<'_>) -> PyResult<PyTestPyramidResult> {
        let inner = locked(&self.inner, |run| run.result()).or_raise(py)?;
        Ok(PyTestPyramidResult { inner })
    }

    /// Whether the run is finished.
    #[getter]
    fn is_done(&self) -> bool {
        lock(&self.inner).is_done()
    }

    /// The portable snapshot as JSON text (the run's inputs, replayed on restore).
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
        repr_of("PyramidRun", &[("next", self.next().into_bound_py_any(py)?)])
    }
}
