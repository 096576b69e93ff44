//! Engine 1 for Python: `EarlyStopping`, its config, history records, decisions and summary.

use std::sync::Mutex;

use earlyexit::loops::StoppingSummary;
use earlyexit::{
    DiminishingReturnsReport, EarlyStopping, EarlyStoppingConfig, ErrorCode, IterationRecord, Naming, StoppingDecision,
    Value,
};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::IntoPyObjectExt;
use pyo3::PyTraverseError;

use crate::analytics_engine::PyIterationAnalytics;
use crate::convert::{
    lock, locked, options_value, raise, repr_of, to_py, to_py_or_none, to_value, AnyValue, NoneIs, OrRaise,
};
use crate::wrapper::{self, core_value};

core_value!(named: PyEarlyStoppingConfig);
core_value!(fixed: PyIterationRecord, PyStoppingDecision, PyStoppingSummary);

/// The current time as `new Date().toISOString()` prints it (the core has no clock).
pub fn now_iso() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    earlyexit::time::iso_from_millis(ms)
}

// ---------------------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------------------

/// `EarlyStoppingConfig`: the seed's seven options, immutable.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "EarlyStoppingConfig")]
#[derive(Clone, PartialEq)]
pub struct PyEarlyStoppingConfig {
    pub(crate) inner: EarlyStoppingConfig,
}

#[pymethods]
impl PyEarlyStoppingConfig {
    #[new]
    #[pyo3(signature = (config = None, /, **options))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = options_value(config, options)?;
        let inner = EarlyStoppingConfig::default()
            .merged(&value, Naming::Snake, "config", ErrorCode::InvalidConfig)
            .or_raise(py)?;
        Ok(PyEarlyStoppingConfig { inner })
    }

    /// A copy with some options changed (validated like the constructor).
    #[pyo3(signature = (**changes))]
    fn replace(&self, py: Python<'_>, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = options_value(None, changes)?;
        let inner = self.inner.merged(&value, Naming::Snake, "options", ErrorCode::InvalidConfig).or_raise(py)?;
        Ok(PyEarlyStoppingConfig { inner })
    }

    #[getter]
    fn high_confidence_threshold(&self) -> f64 {
        self.inner.high_confidence_threshold
    }
    #[getter]
    fn plateau_consecutive_count(&self) -> u64 {
        self.inner.plateau_consecutive_count
    }
    #[getter]
    fn plateau_improvement_threshold(&self) -> f64 {
        self.inner.plateau_improvement_threshold
    }
    #[getter]
    fn min_quality_threshold(&self) -> f64 {
        self.inner.min_quality_threshold
    }
    #[getter]
    fn require_verification(&self) -> bool {
        self.inner.require_verification
    }
    #[getter]
    fn enable_plateau_detection(&self) -> bool {
        self.inner.enable_plateau_detection
    }
    #[getter]
    fn enable_diminishing_returns(&self) -> bool {
        self.inner.enable_diminishing_returns
    }
    /// Opt-in: `'reported'` (the seed's) or `'computed'`; `None` when not set.
    #[getter]
    fn plateau_delta_source(&self) -> Option<&'static str> {
        self.inner.plateau_delta_source.map(|s| s.as_str())
    }
    /// Opt-in: `'relative'` (the seed's) or `'absolute'`; `None` when not set.
    #[getter]
    fn plateau_mode(&self) -> Option<&'static str> {
        self.inner.plateau_mode.map(|m| m.as_str())
    }
    #[getter]
    fn min_iterations(&self) -> Option<u64> {
        self.inner.min_iterations
    }
    #[getter]
    fn max_iterations(&self) -> Option<u64> {
        self.inner.max_iterations
    }
    #[getter]
    fn max_total_tokens(&self) -> Option<f64> {
        self.inner.max_total_tokens
    }
    #[getter]
    fn max_total_cost_usd(&self) -> Option<f64> {
        self.inner.max_total_cost_usd
    }
    #[getter]
    fn max_wall_clock_ms(&self) -> Option<f64> {
        self.inner.max_wall_clock_ms
    }
    #[getter]
    fn regression_tolerance(&self) -> Option<f64> {
        self.inner.regression_tolerance
    }
    #[getter]
    fn regression_patience(&self) -> Option<u64> {
        self.inner.regression_patience
    }
    /// Opt-in: the quality every record of a plateau window must reach; `None` when not set.
    #[getter]
    fn plateau_min_quality(&self) -> Option<f64> {
        self.inner.plateau_min_quality
    }
    /// Opt-in: records without a new best that give up (trigger `no_improvement`).
    #[getter]
    fn no_improvement_patience(&self) -> Option<u64> {
        self.inner.no_improvement_patience
    }
    /// Opt-in resume safety: iteration numbers must increase; `None` when not set.
    #[getter]
    fn strict_iterations(&self) -> Option<bool> {
        self.inner.strict_iterations
    }

    /// A named preset (`'seed'`, the default, or `'recommended'`) with keyword overrides.
    #[staticmethod]
    #[pyo3(signature = (name, /, **overrides))]
    fn from_preset(py: Python<'_>, name: AnyValue, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(PyEarlyStoppingConfig { inner: preset_config(py, &name.0, overrides)? })
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

/// A named preset's config with keyword overrides merged (validated).
fn preset_config(py: Python<'_>, name: &Value, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<EarlyStoppingConfig> {
    let preset = EarlyStoppingConfig::preset_value(name, "name").or_raise(py)?;
    let changes = options_value(None, overrides)?;
    preset.merged(&changes, Naming::Snake, "options", ErrorCode::InvalidConfig).or_raise(py)
}

// ---------------------------------------------------------------------------------------
// Records, decisions, summary
// ---------------------------------------------------------------------------------------

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
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
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
    fn full(&self) -> Option<(&usize, &StoppingDecision, &earlyexit::loops::FinalRecord, &EarlyStoppingConfig)> {
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
        wrapper::to_dict(py, self)
    }

    /// Pickles (and copies) as `_restore_result(class name, snake_case dict)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<wrapper::ResultReduce<'py>> {
        wrapper::reduce_result(slf)
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

// ---------------------------------------------------------------------------------------
// The engine
// ---------------------------------------------------------------------------------------

/// Where diminishing-returns reports come from.
enum Source {
    Absent,
    /// The built-in analytics: asked directly, no Python round trip.
    Builtin(Py<PyIterationAnalytics>),
    /// Any object with `detect_diminishing_returns()`; its answers are validated by the core.
    Object(Py<PyAny>),
}

/// Marks "the decision needs the outside source": the core aborts the decision with the
/// engine unchanged, the binding asks the source without holding the lock, then decides.
struct NeedReport;

/// The seed's `EarlyStopping`, safe to share between threads.
#[pyclass(frozen, module = "earlyexit._native", name = "EarlyStopping")]
pub struct PyEarlyStopping {
    engine: Mutex<EarlyStopping>,
    source: Source,
}

impl PyEarlyStopping {
    fn with_source(py: Python<'_>, engine: EarlyStopping, analytics: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let source = match analytics {
            None => Source::Absent,
            Some(a) if a.is_none() => Source::Absent,
            Some(a) => {
                if let Ok(builtin) = a.cast::<PyIterationAnalytics>() {
                    Source::Builtin(builtin.clone().unbind())
                } else if a.getattr("detect_diminishing_returns").is_ok_and(|m| m.is_callable()) {
                    Source::Object(a.clone().unbind())
                } else {
                    let got =
                        to_value(a, NoneIs::Absent).unwrap_or_else(|_| Value::Other(crate::convert::type_name(a)));
                    return Err(raise(py, earlyexit::loops::invalid_analytics_source(Naming::Snake, &got)));
                }
            }
        };
        Ok(PyEarlyStopping { engine: Mutex::new(engine), source })
    }

    /// Runs `decide` (a `should_stop_with` or `generate_summary_with` call) with the source.
    fn with_report<T>(
        &self,
        py: Python<'_>,
        decide: impl Fn(&mut EarlyStopping, Report) -> Result<T, NeedReport>,
    ) -> PyResult<T> {
        let first = match &self.source {
            Source::Absent => locked(&self.engine, |es| decide(es, Report::NoSource)),
            Source::Builtin(analytics) => {
                // Lock order: engine, then analytics (analytics methods never take an engine lock).
                let report = || locked(&analytics.get().inner, |a| a.detect_diminishing_returns());
                locked(&self.engine, |es| decide(es, Report::Builtin(&report)))
            }
            Source::Object(_) => locked(&self.engine, |es| decide(es, Report::NotYet)),
        };
        let Source::Object(source) = &self.source else {
            return first.or_else(|NeedReport| unreachable_need(py));
        };
        if let Ok(v) = first {
            return Ok(v); // stopped earlier, or the check is off: the source is not asked
        }
        // Asked without holding the lock: its code may take the GIL's turn or call back.
        let answer = source.bind(py).call_method0("detect_diminishing_returns")?;
        let value = to_value(&answer, NoneIs::Null)?;
        let report = DiminishingReturnsReport::from_value(&value, Naming::Snake).or_raise(py)?;
        let second = locked(&self.engine, |es| decide(es, Report::Given(report)));
        second.or_else(|NeedReport| unreachable_need(py))
    }

    fn analytics_object<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match &self.source {
            Source::Absent => py.None().into_bound(py),
            Source::Builtin(a) => a.bind(py).clone().into_any(),
            Source::Object(o) => o.bind(py).clone(),
        }
    }

    pub(crate) fn restore(
        py: Python<'_>,
        snapshot: &Bound<'_, PyAny>,
        analytics: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let engine = wrapper::restore(py, snapshot)?;
        Self::with_source(py, engine, analytics)
    }
}

#[cold]
fn unreachable_need<T>(_py: Python<'_>) -> PyResult<T> {
    Err(pyo3::exceptions::PySystemError::new_err("earlyexit: a report was requested twice (internal error)"))
}

/// The common call `record(i, score, confidence, "passed", delta)` read straight into a
/// core `IterationResult`, skipping the host-value object the general path builds and parses
/// (most of a record's cost, see docs/benchmarks.md). `None` for anything but an `int`
/// iteration, `float`/`int` numbers (not `bool`) and a known status string.
fn fast_record_args(
    iteration: &Bound<'_, PyAny>,
    quality_score: &Bound<'_, PyAny>,
    confidence: &Bound<'_, PyAny>,
    verification_status: &Bound<'_, PyAny>,
    quality_delta: &Bound<'_, PyAny>,
) -> Option<(u64, earlyexit::IterationResult)> {
    fn number(obj: &Bound<'_, PyAny>) -> Option<f64> {
        if let Ok(f) = obj.cast::<pyo3::types::PyFloat>() {
            return Some(f.value());
        }
        if obj.is_exact_instance_of::<pyo3::types::PyInt>() {
            return obj.extract::<i64>().ok().map(|i| i as f64);
        }
        None
    }
    if !iteration.is_exact_instance_of::<pyo3::types::PyInt>() {
        return None;
    }
    let iteration = iteration.extract::<u64>().ok()?;
    let status = verification_status.cast::<pyo3::types::PyString>().ok()?;
    let status = earlyexit::VerificationStatus::parse(&status.to_cow().ok()?)?;
    let result =
        earlyexit::IterationResult::new(number(quality_score)?, number(confidence)?, status, number(quality_delta)?);
    Some((iteration, result))
}

/// The report a decision may use.
enum Report<'a> {
    /// No source attached.
    NoSource,
    /// The built-in analytics, asked directly.
    Builtin(&'a dyn Fn() -> DiminishingReturnsReport),
    /// An outside source not asked yet: a decision that needs it aborts with `NeedReport`.
    NotYet,
    /// What the outside source answered (validated).
    Given(DiminishingReturnsReport),
}

fn decide_stop(es: &mut EarlyStopping, report: Report<'_>) -> Result<StoppingDecision, NeedReport> {
    match report {
        Report::NoSource => Ok(es.should_stop()),
        Report::Builtin(ask) => es.should_stop_with(Some(|| Ok(ask()))),
        Report::NotYet => es.should_stop_with(Some(|| Err(NeedReport))),
        Report::Given(r) => es.should_stop_with(Some(move || Ok(r))),
    }
}

fn decide_summary(es: &mut EarlyStopping, report: Report<'_>) -> Result<StoppingSummary, NeedReport> {
    match report {
        Report::NoSource => Ok(es.generate_summary()),
        Report::Builtin(ask) => es.generate_summary_with(Some(|| Ok(ask()))),
        Report::NotYet => es.generate_summary_with(Some(|| Err(NeedReport))),
        Report::Given(r) => es.generate_summary_with(Some(move || Ok(r))),
    }
}

#[pymethods]
impl PyEarlyStopping {
    #[new]
    #[pyo3(signature = (config = None, /, *, analytics = None, **options))]
    fn new(
        py: Python<'_>,
        config: Option<&Bound<'_, PyAny>>,
        analytics: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let engine = if config.is_none() && options.is_none_or(|o| o.is_empty()) {
            // `EarlyStopping()`: the defaults need no merging (a third of a short loop's cost).
            EarlyStopping::new(EarlyStoppingConfig::default()).or_raise(py)?
        } else {
            let value = options_value(config, options)?;
            EarlyStopping::from_config_value(&value, Naming::Snake).or_raise(py)?
        };
        Self::with_source(py, engine, analytics)
    }

    /// Records one iteration (keyword or positional form of `record_result`); `True` for an
    /// accepted re-record of the last iteration (`strict_iterations`), else `False`.
    #[pyo3(signature = (
        iteration, quality_score, confidence, verification_status, quality_delta,
        timestamp = None, tokens_used = None, token_cost_usd = None, execution_time_ms = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        py: Python<'_>,
        iteration: &Bound<'_, PyAny>,
        quality_score: &Bound<'_, PyAny>,
        confidence: &Bound<'_, PyAny>,
        verification_status: &Bound<'_, PyAny>,
        quality_delta: &Bound<'_, PyAny>,
        timestamp: Option<&Bound<'_, PyAny>>,
        tokens_used: Option<&Bound<'_, PyAny>>,
        token_cost_usd: Option<&Bound<'_, PyAny>>,
        execution_time_ms: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        // A timestamp given as a `str` stays on the fast path (the core validates it there);
        // anything else given goes through the general path.
        let stamp = match timestamp {
            None => Some(None),
            Some(t) if t.is_none() => Some(None),
            Some(t) if t.is_exact_instance_of::<pyo3::types::PyString>() => {
                t.cast::<pyo3::types::PyString>().ok().and_then(|s| s.to_cow().ok()).map(|s| Some(s.into_owned()))
            }
            Some(_) => None,
        };
        if let (Some(stamp), true) =
            (stamp, tokens_used.is_none() && token_cost_usd.is_none() && execution_time_ms.is_none())
        {
            if let Some((iteration, mut result)) =
                fast_record_args(iteration, quality_score, confidence, verification_status, quality_delta)
            {
                result.timestamp = stamp;
                // Valid input is recorded here; anything the core rejects changed nothing and
                // goes through the general path below, which words the error as for any input.
                if let Ok(recorded) = locked(&self.engine, |es| es.record(iteration, result, now_iso)) {
                    return Ok(recorded.is_duplicate());
                }
            }
        }
        let iteration = to_value(iteration, NoneIs::Absent)?;
        let mut entries: Vec<(String, Value)> = Vec::with_capacity(8);
        let fields = [
            ("quality_score", Some(quality_score)),
            ("confidence", Some(confidence)),
            ("verification_status", Some(verification_status)),
            ("quality_delta", Some(quality_delta)),
            ("timestamp", timestamp),
            ("tokens_used", tokens_used),
            ("token_cost_usd", token_cost_usd),
            ("execution_time_ms", execution_time_ms),
        ];
        for (key, item) in fields {
            if let Some(item) = item {
                if !item.is_none() {
                    entries.push((key.to_string(), to_value(item, NoneIs::Absent)?));
                }
            }
        }
        let result = Value::Object(entries);
        let recorded = locked(&self.engine, |es| es.record_value(&iteration, &result, Naming::Snake, now_iso));
        Ok(recorded.or_raise(py)?.is_duplicate())
    }

    /// The seed's `recordIterationResult(iteration, result)` with the result as a mapping (a
    /// missing result is the core's `invalid_result` error, as in JS). `True` when the call
    /// re-recorded the last iteration with the same result (`strict_iterations`): accepted,
    /// nothing changed.
    #[pyo3(signature = (iteration, result = AnyValue(Value::Null)))]
    fn record_result(&self, py: Python<'_>, iteration: &Bound<'_, PyAny>, result: AnyValue) -> PyResult<bool> {
        let iteration = to_value(iteration, NoneIs::Absent)?;
        let result = result.0;
        let recorded = locked(&self.engine, |es| es.record_value(&iteration, &result, Naming::Snake, now_iso));
        Ok(recorded.or_raise(py)?.is_duplicate())
    }

    /// The seed's `shouldStop()`; the argument is accepted and ignored, as the seed does.
    #[pyo3(signature = (iteration = None))]
    fn should_stop(&self, py: Python<'_>, iteration: Option<&Bound<'_, PyAny>>) -> PyResult<PyStoppingDecision> {
        let _ = iteration;
        let inner = self.with_report(py, decide_stop)?;
        Ok(PyStoppingDecision { inner })
    }

    /// The seed's `generateSummary()` (it decides, so it may set the stopping reason).
    fn summary(&self, py: Python<'_>) -> PyResult<PyStoppingSummary> {
        let inner = self.with_report(py, decide_summary)?;
        Ok(PyStoppingSummary { inner })
    }

    /// The reason of the last stopping decision (a later non-stop does not clear it).
    #[getter]
    fn stopping_reason(&self) -> Option<String> {
        lock(&self.engine).stopping_reason().map(str::to_string)
    }

    /// The details of the last stopping decision, as a new dict.
    #[getter]
    fn stopping_details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let details = lock(&self.engine).stopping_details().map(|d| d.to_value());
        to_py_or_none(py, details.as_ref())
    }

    /// Every recorded iteration, oldest first.
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let records: Vec<IterationRecord> = lock(&self.engine).history().to_vec();
        PyTuple::new(py, records.into_iter().map(|inner| PyIterationRecord { inner }))
    }

    #[getter]
    fn config(&self) -> PyEarlyStoppingConfig {
        PyEarlyStoppingConfig { inner: lock(&self.engine).config().clone() }
    }

    /// The diminishing-returns source given at construction, or `None`.
    #[getter]
    fn analytics<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.analytics_object(py)
    }

    fn __len__(&self) -> usize {
        lock(&self.engine).history().len()
    }

    /// The seed's `configure(options)`: merges options; one bad key changes nothing.
    #[pyo3(signature = (options = None, /, **changes))]
    fn configure(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyAny>>,
        changes: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let value = options_value(options, changes)?;
        locked(&self.engine, |es| es.configure_value(&value, Naming::Snake)).or_raise(py)
    }

    /// Clears history and stopping state; keeps the config.
    fn reset(&self) {
        lock(&self.engine).reset();
    }

    /// The portable snapshot as JSON text (identical in every language).
    fn to_json(&self) -> String {
        wrapper::snapshot_text(&self.engine)
    }

    /// Restores `to_json()` text (or its parsed dict); the analytics source is not part of a
    /// snapshot and is given again.
    /// An engine with a named preset's config (`'seed'` or `'recommended'`), overrides merged.
    #[staticmethod]
    #[pyo3(signature = (name, /, *, analytics = None, **overrides))]
    fn from_preset(
        py: Python<'_>,
        name: AnyValue,
        analytics: Option<&Bound<'_, PyAny>>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let engine = EarlyStopping::new(preset_config(py, &name.0, overrides)?).or_raise(py)?;
        Self::with_source(py, engine, analytics)
    }

    #[staticmethod]
    #[pyo3(signature = (snapshot, *, analytics = None))]
    fn from_json(py: Python<'_>, snapshot: &Bound<'_, PyAny>, analytics: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Self::restore(py, snapshot, analytics)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrapper::reduce_engine(py, &self.engine, self.analytics_object(py))
    }

    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let engine = lock(&me.engine).clone();
        let copy = PyEarlyStopping::with_source(slf.py(), engine, Some(&me.analytics_object(slf.py())))?;
        Bound::new(slf.py(), copy)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (len, reason, config) = {
            let es = lock(&self.engine);
            (es.history().len(), es.stopping_reason().map(str::to_string), es.config().clone())
        };
        let config = PyEarlyStoppingConfig { inner: config }.into_bound_py_any(py)?;
        repr_of(
            "EarlyStopping",
            &[
                ("iterations", len.into_bound_py_any(py)?),
                ("stopping_reason", reason.into_bound_py_any(py)?),
                ("config", config),
            ],
        )
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        match &self.source {
            Source::Absent => Ok(()),
            Source::Builtin(a) => visit.call(a),
            Source::Object(o) => visit.call(o),
        }
    }
}
