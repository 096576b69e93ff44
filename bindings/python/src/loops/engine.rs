//! `EarlyStopping`: the seed's loop engine, safe to share between threads, with its
//! diminishing-returns source.

use std::sync::Mutex;

use earlyexit::{
    kit::loops::invalid_analytics_source,
    loops::{replay::LoopPolicy, StoppingSummary},
    DiminishingReturnsReport, EarlyStopping, EarlyStoppingConfig, IterationRecord, IterationResult, Naming,
    StoppingDecision, Value, VerificationStatus,
};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::IntoPyObjectExt;
use pyo3::PyTraverseError;

use crate::error::{raise, OrRaise};
use crate::loops::analytics::engine::PyIterationAnalytics;
use crate::loops::config::{preset_config, PyEarlyStoppingConfig};
use crate::loops::decision::{PyStoppingDecision, PyStoppingSummary};
use crate::loops::now_iso;
use crate::loops::records::PyIterationRecord;
use crate::shims::{self, core_from_snapshot, lock, locked, repr_of, EngineClass};
use crate::value::{options_value, to_py_or_none, to_value, type_name, AnyValue, NoneIs};

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
                    let got = to_value(a, NoneIs::Absent).unwrap_or_else(|_| Value::Other(type_name(a)));
                    return Err(raise(py, invalid_analytics_source(Naming::Snake, &got)));
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
}

impl EngineClass for PyEarlyStopping {
    type Core = EarlyStopping;

    fn core(&self) -> &Mutex<EarlyStopping> {
        &self.engine
    }

    fn restore(py: Python<'_>, snapshot: &Bound<'_, PyAny>, analytics: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let engine = core_from_snapshot(py, snapshot)?;
        Self::with_source(py, engine, analytics)
    }

    fn analytics<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.analytics_object(py)
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
) -> Option<(u64, IterationResult)> {
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
    let status = VerificationStatus::parse(&status.to_cow().ok()?)?;
    let result = IterationResult::new(number(quality_score)?, number(confidence)?, status, number(quality_delta)?);
    Some((iteration, result))
}

/// Unpickles an `EarlyStopping` that decided under a stop policy, as pickles made before
/// snapshots held the policy name it (the snapshot then has none, so `policy` is taken).
#[pyfunction]
pub fn _restore_loop_policy(
    py: Python<'_>,
    snapshot: &Bound<'_, PyAny>,
    analytics: Option<&Bound<'_, PyAny>>,
    policy: &Bound<'_, PyAny>,
) -> PyResult<PyEarlyStopping> {
    PyEarlyStopping::from_json(py, snapshot, analytics.filter(|a| !a.is_none()), Some(policy))
}

/// A policy argument: a mapping (or a `StopCondition` of `earlyexit.policy`), or JSON text.
pub(crate) fn policy_value(py: Python<'_>, policy: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(text) = policy.cast::<pyo3::types::PyString>() {
        let text = crate::value::string_of(text);
        return Value::parse_json(&text, earlyexit::ErrorCode::InvalidConfig, "policy").map_err(|e| raise(py, e));
    }
    to_value(policy, NoneIs::Absent)
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
    #[pyo3(signature = (config = None, /, *, analytics = None, policy = None, shadow = None, **options))]
    fn new(
        py: Python<'_>,
        config: Option<&Bound<'_, PyAny>>,
        analytics: Option<&Bound<'_, PyAny>>,
        policy: Option<&Bound<'_, PyAny>>,
        shadow: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut engine = if config.is_none() && options.is_none_or(|o| o.is_empty()) {
            // `EarlyStopping()`: the defaults need no merging (a third of a short loop's cost).
            EarlyStopping::new(EarlyStoppingConfig::default()).or_raise(py)?
        } else {
            let value = options_value(config, options)?;
            EarlyStopping::from_config_value(&value, Naming::Snake).or_raise(py)?
        };
        if let Some(policy) = policy.filter(|p| !p.is_none()) {
            let value = policy_value(py, policy)?;
            engine.set_policy(Some(LoopPolicy::engine_policy(&value, Naming::Snake).or_raise(py)?));
        }
        if let Some(shadow) = shadow.filter(|s| !s.is_none()) {
            let candidate = crate::loops::calibrate::shadow_candidate(py, shadow)?;
            engine.set_shadow(Some(candidate)).or_raise(py)?;
        }
        Self::with_source(py, engine, analytics)
    }

    /// The stop policy decisions are made under (its JSON form, a new dict), or `None`.
    #[getter]
    fn policy(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = locked(&self.engine, |es| es.policy().map(|p| p.to_value()));
        match value {
            Some(v) => Ok(crate::value::to_py(py, &v)?.unbind()),
            None => Ok(py.None()),
        }
    }

    /// Records one iteration (keyword or positional form of `record_result`); `True` for an
    /// accepted re-record of the last iteration (`strict_iterations`), else `False`.
    #[pyo3(signature = (
        iteration, quality_score, confidence, verification_status, quality_delta = None,
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
        quality_delta: Option<&Bound<'_, PyAny>>,
        timestamp: Option<&Bound<'_, PyAny>>,
        tokens_used: Option<&Bound<'_, PyAny>>,
        token_cost_usd: Option<&Bound<'_, PyAny>>,
        execution_time_ms: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        // Absent: the core's implied delta (this score minus the previous record's); a
        // quality that is not a number fails below, naming itself, before the delta is read.
        let implied;
        let quality_delta = match quality_delta.filter(|d| !d.is_none()) {
            Some(d) => d,
            None => {
                // The core's one rule for every surface (the command and MCP call it too).
                let q = quality_score.extract::<f64>().ok();
                let before = iteration.extract::<f64>().ok();
                let delta = locked(&self.engine, |es| es.implied_quality_delta_of(before, q)).unwrap_or(0.0);
                implied = pyo3::types::PyFloat::new(py, delta).into_any();
                &implied
            }
        };
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

    /// Why the shadow candidate runs in shadow rather than enforced, when the engine put it
    /// there itself (a calibration artifact not promoted or expired); `None` otherwise.
    #[getter]
    fn shadow_reason(&self) -> Option<String> {
        lock(&self.engine).shadow_reason().map(str::to_string)
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
        shims::to_json(self)
    }

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

    /// An engine enforcing a loop calibration: a `LoopCalibration`, its artifact dict or JSON
    /// text (kind `loop`; else `EarlyExitError` `invalid_artifact`). A promoted, current
    /// artifact enforces its calibrated policy; one not promoted or expired its calibration's
    /// most conservative, with the calibrated policy in shadow (`shadow_reason` says why).
    #[staticmethod]
    #[pyo3(signature = (artifact, /, *, analytics = None))]
    fn from_calibration(
        py: Python<'_>,
        artifact: &Bound<'_, PyAny>,
        analytics: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let enforced = crate::loops::calibrate::calibrated_enforced(py, artifact)?;
        let (config, policy) = enforced.policy.engine_parts();
        let mut engine = EarlyStopping::new(config).or_raise(py)?;
        engine.set_policy(policy);
        engine.set_shadow(enforced.shadow).or_raise(py)?;
        Self::with_source(py, engine, analytics)
    }

    /// Restores `to_json()` text (or its parsed dict); the analytics source is given again.
    /// The stop policy is the snapshot's when it holds one (a `policy` given too must be the
    /// same), else `policy`.
    #[staticmethod]
    #[pyo3(signature = (snapshot, *, analytics = None, policy = None))]
    fn from_json(
        py: Python<'_>,
        snapshot: &Bound<'_, PyAny>,
        analytics: Option<&Bound<'_, PyAny>>,
        policy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let given = match policy.filter(|p| !p.is_none()) {
            Some(policy) => Some(LoopPolicy::engine_policy(&policy_value(py, policy)?, Naming::Snake).or_raise(py)?),
            None => None,
        };
        let restored = <Self as EngineClass>::restore(py, snapshot, analytics)?;
        locked(&restored.engine, |es| es.adopt_policy(given)).or_raise(py)?;
        Ok(restored)
    }

    /// A pickle: the snapshot (which holds the stop policy when one is set) and the source.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::reduce_engine(py, self)
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
