//! ADR-033's layer results and quality signals: `LayerResult`, `QualitySignal`,
//! `calculate_quality_signal`, `count_quality_partitions`.

use earlyexit::{
    calculate_quality_signal, count_quality_partitions, ErrorCode, LayerResult, Naming, QualitySignal, Value,
};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::error::{raise, OrRaise};
use crate::shims::{module_attr, reduce_by, repr_of, value_class, Json, Pickle, Repr};
use crate::value::{keyword_entries, to_value, NoneIs};

value_class! {
    /// A test layer's outcome: the three rates plus optional name, duration, counts and any
    /// extra keys a runner returned (kept, as the ADR's controller spreads the runner's object).
    "LayerResult" => PyLayerResult(LayerResult) {
        value: named,
        pickle: own,
        repr: snake,
    }
    getters {
        pass_rate: f64 = |r| r.pass_rate;
        coverage: f64 = |r| r.coverage;
        flaky_ratio: f64 = |r| r.flaky_ratio;
        previous_lambda: Option<f64> = |r| r.previous_lambda;
        name: Option<&str> = |r| r.name.as_deref();
        duration_ms: Option<f64> = |r| r.duration_ms;
        total: Option<u64> = |r| r.counts.total;
        passed: Option<u64> = |r| r.counts.passed;
        failed: Option<u64> = |r| r.counts.failed;
        flaky: Option<u64> = |r| r.counts.flaky;
        /// The keys the core does not read, as a new dict.
        extra: Json = |r| Json(Some(Value::Object(r.extra_entries().map(|(k, v)| (k.to_string(), v.clone())).collect())));
    }
    methods {
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
                        let error = earlyexit::kit::host::type_error(ErrorCode::InvalidLayerResult, "extra", "a mapping", &other);
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
    }
}

impl Pickle for PyLayerResult {
    /// `LayerResult.from_dict(snake_case dict)`.
    fn reduce<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        reduce_by(slf, slf.get_type().getattr("from_dict")?)
    }
}

value_class! {
    /// ADR-033's quality signal of one layer.
    "QualitySignal" => PyQualitySignal(QualitySignal) {
        value: named,
        pickle: own,
        repr: own,
    }
    getters {
        /// `lambda` (a Python keyword, hence the trailing underscore).
        lambda_: f64 = |s| s.lambda;
        lambda_prev: f64 = |s| s.lambda_prev;
        boundary_edges: u32 = |s| s.boundary_edges;
        boundary_concentration: f64 = |s| s.boundary_concentration;
        partition_count: u32 = |s| s.partition_count;
        flags: u32 = |s| s.flags;
    }
    methods {
        /// A hand-made signal (for `CoherenceEarlyExit.should_exit`), validated by the core.
        #[new]
        #[pyo3(signature = (
            *, lambda_, lambda_prev, boundary_concentration, boundary_edges = None, partition_count = None,
            flags = None
        ))]
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
    }
}

impl Pickle for PyQualitySignal {
    /// `_restore_signal(snake_case dict)`.
    fn reduce<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        reduce_by(slf, module_attr(slf.py(), "_restore_signal")?)
    }
}

impl Repr for PyQualitySignal {
    /// Spelled with the attribute names (`lambda_`).
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
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
}

/// Restores a pickled `QualitySignal` from its snake_case dict.
#[pyfunction]
pub fn _restore_signal(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyQualitySignal> {
    let value = to_value(data, NoneIs::Absent)?;
    Ok(PyQualitySignal { inner: QualitySignal::from_value(&value, Naming::Snake).or_raise(py)? })
}

/// A layer result argument: a `LayerResult` as is, anything else through the core's parser.
pub(crate) fn layer_result_of(py: Python<'_>, obj: &Bound<'_, PyAny>, path: &str) -> PyResult<LayerResult> {
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
    Ok(count_quality_partitions(&result))
}
