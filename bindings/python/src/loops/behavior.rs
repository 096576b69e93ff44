//! The behaviour detectors and interventions for Python (`earlyexit.loops.behavior` in the
//! core, upstream's `behavior-detector.mjs` and `intervention-system.mjs`): the values
//! `BehaviorThresholds`, `Detection`, `Intervention` and `InterventionSummary`, and the
//! objects `BehaviorDetector` and `InterventionSystem`. The host's part of the intervention
//! system lives here, as in the JS layer: the clock (or a `clock` callable), the pause state,
//! the callbacks, called in upstream's order without any lock held.

use std::sync::Mutex;

use earlyexit::kit::loops::behavior::{
    build_strategy_override, build_warning, check_timestamp, export_state, inject_warning,
};
use earlyexit::loops::behavior::{
    check_intervention_options, determine_level, text_argument, BehaviorDetector, Detection, Detector, Intervention,
    InterventionLevel, InterventionLog, InterventionSummary, LogEntry, Resume, StateImport, Thresholds,
};
use earlyexit::{ErrorCode, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::error::OrRaise;
use crate::loops::now_iso;
use crate::shims::{lock, locked, value_class, Json, Tuple};
use crate::value::{to_py, to_value, type_name, NoneIs};

const SNAKE: Naming = Naming::Snake;

value_class! {
    /// A detector's thresholds, upstream's five groups (`stuck`, `oscillation`, `deviation`,
    /// `resource`, `regression`), each a dict of the fields it has (a group given in part
    /// lacks the others, which switches their rule off).
    "BehaviorThresholds" => PyBehaviorThresholds(Thresholds) {
        value: named,
        pickle: result(|v| Thresholds::from_value(v, "thresholds", Naming::Snake)),
        repr: snake,
    }
    getters {
        stuck: Json = |t| group(t, "stuck");
        oscillation: Json = |t| group(t, "oscillation");
        deviation: Json = |t| group(t, "deviation");
        resource: Json = |t| group(t, "resource");
        regression: Json = |t| group(t, "regression");
    }
}

fn group(thresholds: &Thresholds, name: &str) -> Json {
    Json(thresholds.to_value(SNAKE).get(name).cloned())
}

value_class! {
    /// What a detector found: `type`, `severity`, `message`, `evidence` (a dict of the
    /// detector's supporting data) and `recommendations`; `to_dict()` is upstream's object
    /// (with the other keys of a detection given as a mapping, as given). A detection given
    /// by hand may carry any text as its type or severity, and leave out all but its type.
    "Detection" => PyDetection(Detection) {
        value: named,
        pickle: result(|v| Detection::from_value(v, "", Naming::Snake, ErrorCode::InvalidSnapshot)),
        repr: snake,
    }
    getters {
        r#type: &str = |d| &d.kind;
        severity: Option<&str> = |d| d.severity.as_deref();
        message: Option<&str> = |d| d.message.as_deref();
        evidence: Json = |d| Json(d.evidence_value(SNAKE));
        recommendations: Option<Tuple<&str>> = |d| d.recommendations.as_ref().map(|r| Tuple::of(r.iter().map(String::as_str)));
    }
}

value_class! {
    /// One entry of the intervention log: an intervention (`level` one of the five, with its
    /// `detection` and the level's own field: `action`, `warning`, `strategy_override`,
    /// `requires_approval`, `abort_reason`) or a resumption (`level == "resume"`, with
    /// `previous_pause_reason`). `to_dict()` is upstream's object.
    "Intervention" => PyIntervention(LogEntry) {
        value: named,
        pickle: result(|v| LogEntry::from_value(v, "", Naming::Snake)),
        repr: snake,
    }
    getters {
        level: &'static str = |e| e.level_name();
        reason: Option<&str> = |e| match e {
            LogEntry::Intervention(i) => i.reason.as_deref(),
            LogEntry::Resume(r) => r.reason.as_deref(),
        };
        detection: Option<PyDetection> = |e| e.detection().map(|d| PyDetection { inner: d.clone() });
        timestamp: &str = |e| match e {
            LogEntry::Intervention(i) => &i.timestamp,
            LogEntry::Resume(r) => &r.timestamp,
        };
        action: Option<&str> = |e| match effect(e) {
            Some(earlyexit::loops::behavior::Effect::Log { action }) => Some(action.as_str()),
            _ => None,
        };
        warning: Option<&str> = |e| match effect(e) {
            Some(earlyexit::loops::behavior::Effect::Warn { warning }) => Some(warning.as_str()),
            _ => None,
        };
        strategy_override: Option<&str> = |e| match effect(e) {
            Some(earlyexit::loops::behavior::Effect::Redirect { strategy_override }) => Some(strategy_override.as_str()),
            _ => None,
        };
        requires_approval: Option<bool> = |e| match effect(e) {
            Some(earlyexit::loops::behavior::Effect::Pause { requires_approval }) => Some(*requires_approval),
            Some(earlyexit::loops::behavior::Effect::Abort { requires_approval, .. }) => Some(*requires_approval),
            _ => None,
        };
        abort_reason: Option<&str> = |e| match effect(e) {
            Some(earlyexit::loops::behavior::Effect::Abort { abort_reason, .. }) => abort_reason.as_deref(),
            _ => None,
        };
        previous_pause_reason: Option<&str> = |e| match e {
            LogEntry::Resume(r) => r.previous_pause_reason.as_deref(),
            LogEntry::Intervention(_) => None,
        };
    }
}

fn effect(entry: &LogEntry) -> Option<&earlyexit::loops::behavior::Effect> {
    match entry {
        LogEntry::Intervention(i) => Some(&i.effect),
        LogEntry::Resume(_) => None,
    }
}

value_class! {
    /// `summary()`: `total`, `by_level` and `by_type` (counts, in the order they first
    /// occur), `is_paused`, `pause_reason`.
    "InterventionSummary" => PyInterventionSummary(InterventionSummary) {
        value: named,
        pickle: result(|v| InterventionSummary::from_value(v, Naming::Snake)),
        repr: snake,
    }
    getters {
        total: u64 = |s| s.total;
        by_level: Json = |s| Json(s.to_value(SNAKE).get("by_level").cloned());
        by_type: Json = |s| Json(s.to_value(SNAKE).get("by_type").cloned());
        is_paused: bool = |s| s.is_paused;
        pause_reason: Option<&str> = |s| s.pause_reason.as_deref();
    }
}

/// A history argument (a list of dicts, `None` in a dict meaning absent).
fn history_value(history: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match history {
        None => Ok(Value::Null),
        Some(h) => to_value(h, NoneIs::Absent),
    }
}

/// upstream's `BehaviorDetector`, safe to share between threads.
#[pyclass(frozen, module = "earlyexit._native", name = "BehaviorDetector")]
pub struct PyBehaviorDetector {
    inner: Mutex<BehaviorDetector>,
}

impl PyBehaviorDetector {
    fn run(
        &self,
        py: Python<'_>,
        history: Option<&Bound<'_, PyAny>>,
        detector: Detector,
    ) -> PyResult<Option<PyDetection>> {
        let value = history_value(history)?;
        let detector_state = *lock(&self.inner);
        let history = earlyexit::kit::loops::behavior::read_history(&value, "history", SNAKE).or_raise(py)?;
        Ok(detector_state.run(detector, &history).map(|inner| PyDetection { inner }))
    }
}

#[pymethods]
impl PyBehaviorDetector {
    /// `BehaviorDetector(thresholds=None)`: upstream's thresholds with the groups of
    /// `thresholds` (a mapping, or a `BehaviorThresholds`) in place of theirs.
    #[new]
    #[pyo3(signature = (thresholds = None, **options))]
    fn new(
        py: Python<'_>,
        thresholds: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut entries = Vec::new();
        if let Some(t) = thresholds.filter(|t| !t.is_none()) {
            entries.push(("thresholds".to_string(), to_value(t, NoneIs::Absent)?));
        }
        for (key, item) in options.into_iter().flat_map(|o| o.iter()) {
            if !item.is_none() {
                entries.push((key.str()?.to_string(), to_value(&item, NoneIs::Absent)?));
            }
        }
        let inner = BehaviorDetector::from_options(Thresholds::DEFAULT, &Value::Object(entries), SNAKE).or_raise(py)?;
        Ok(PyBehaviorDetector { inner: Mutex::new(inner) })
    }

    /// The thresholds.
    #[getter]
    fn thresholds(&self) -> PyBehaviorThresholds {
        PyBehaviorThresholds { inner: *lock(&self.inner).thresholds() }
    }

    /// The groups of `thresholds` replace this detector's whole groups (nothing changes on
    /// an error; `None`: nothing).
    #[pyo3(signature = (thresholds = None))]
    fn update_thresholds(&self, py: Python<'_>, thresholds: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let value = history_value(thresholds)?;
        locked(&self.inner, |d| d.update_thresholds(&value, SNAKE)).or_raise(py)
    }

    /// Every detector's detection over `history` (a list of upstream's iteration dicts), in
    /// upstream's order; none for an empty history.
    #[pyo3(signature = (history))]
    fn detect(&self, py: Python<'_>, history: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PyDetection>> {
        let value = history_value(history)?;
        if matches!(value, Value::Null) {
            return Ok(Vec::new());
        }
        let detector = *lock(&self.inner);
        let history = earlyexit::kit::loops::behavior::read_history(&value, "history", SNAKE).or_raise(py)?;
        Ok(detector.detect(&history).into_iter().map(|inner| PyDetection { inner }).collect())
    }

    /// The same error again and again with no progress.
    fn detect_stuck(&self, py: Python<'_>, history: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PyDetection>> {
        self.run(py, history, Detector::Stuck)
    }

    /// Undo/redo of the same files.
    fn detect_oscillation(&self, py: Python<'_>, history: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PyDetection>> {
        self.run(py, history, Detector::Oscillation)
    }

    /// Recent learnings drifting from the first iteration's objective.
    fn detect_deviation(&self, py: Python<'_>, history: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PyDetection>> {
        self.run(py, history, Detector::Deviation)
    }

    /// More iterations than the first iteration's `max_iterations` allows for.
    fn detect_resource_burn(
        &self,
        py: Python<'_>,
        history: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<PyDetection>> {
        self.run(py, history, Detector::ResourceBurn)
    }

    /// Tests passing to failing, coverage drops.
    fn detect_regression(&self, py: Python<'_>, history: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PyDetection>> {
        self.run(py, history, Detector::Regression)
    }

    /// Pickles as `BehaviorDetector(thresholds)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        let thresholds = lock(&slf.get().inner).thresholds().to_value(SNAKE);
        Ok((slf.get_type().into_any(), (to_py(slf.py(), &thresholds)?,)))
    }

    fn __repr__(&self) -> String {
        ["BehaviorDetector(", &lock(&self.inner).thresholds().to_value(SNAKE).to_json(), ")"].concat()
    }
}

/// The host's state of an intervention system: the log and the pause.
#[derive(Default)]
struct Host {
    log: InterventionLog,
    paused: bool,
    reason: Option<String>,
}

/// upstream's `InterventionSystem`, safe to share between threads: detections turned into
/// graded interventions, the log, the pause, and the callbacks.
#[pyclass(frozen, module = "earlyexit._native", name = "InterventionSystem")]
pub struct PyInterventionSystem {
    host: Mutex<Host>,
    on_intervention: Option<Py<PyAny>>,
    on_pause: Option<Py<PyAny>>,
    on_abort: Option<Py<PyAny>>,
    clock: Option<Py<PyAny>>,
}

/// A detection argument: a `Detection` or a mapping.
fn detection_of(py: Python<'_>, detection: &Bound<'_, PyAny>) -> PyResult<Detection> {
    if let Ok(typed) = detection.cast::<PyDetection>() {
        return Ok(typed.get().inner.clone());
    }
    let value = to_value(detection, NoneIs::Absent)?;
    Detection::from_value(&value, "detection", SNAKE, ErrorCode::InvalidDetection).or_raise(py)
}

impl PyInterventionSystem {
    /// The time now: the `clock` callable's answer (checked), or the system clock.
    fn now(&self, py: Python<'_>) -> PyResult<String> {
        let Some(clock) = &self.clock else { return Ok(now_iso()) };
        let answer = clock.call0(py)?;
        let Ok(text) = answer.bind(py).cast::<PyString>() else {
            let got = Value::Other(type_name(answer.bind(py)));
            return Err(text_argument(&got, "clock", false).err().map_or_else(
                || pyo3::exceptions::PyTypeError::new_err("clock must return a string"),
                |e| crate::error::raise(py, e),
            ));
        };
        let text = crate::value::string_of(text);
        check_timestamp(&text, "clock").or_raise(py)?;
        Ok(text)
    }

    fn callback(
        py: Python<'_>,
        callback: &Option<Py<PyAny>>,
        intervention: &Bound<'_, PyIntervention>,
    ) -> PyResult<()> {
        if let Some(callback) = callback {
            callback.call1(py, (intervention,))?;
        }
        Ok(())
    }
}

#[pymethods]
impl PyInterventionSystem {
    /// `InterventionSystem(on_intervention=None, on_pause=None, on_abort=None, clock=None)`:
    /// upstream's callbacks (each called with the `Intervention`), and `clock`, a callable
    /// answering the time as RFC 3339 text (default: now).
    #[new]
    #[pyo3(signature = (**options))]
    fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut entries = Vec::new();
        let mut callables: [Option<Py<PyAny>>; 4] = [None, None, None, None];
        for (key, item) in options.into_iter().flat_map(|o| o.iter()) {
            let key = key.str()?.to_string();
            if item.is_none() {
                continue;
            }
            let value =
                if item.is_callable() { Value::Other("function".into()) } else { to_value(&item, NoneIs::Absent)? };
            let at = ["on_intervention", "on_pause", "on_abort", "clock"].iter().position(|k| *k == key);
            if let (Some(at), true) = (at, item.is_callable()) {
                if let Some(slot) = callables.get_mut(at) {
                    *slot = Some(item.unbind());
                }
            }
            entries.push((key, value));
        }
        check_intervention_options(&Value::Object(entries), SNAKE).or_raise(py)?;
        let [on_intervention, on_pause, on_abort, clock] = callables;
        Ok(PyInterventionSystem { host: Mutex::new(Host::default()), on_intervention, on_pause, on_abort, clock })
    }

    /// Turns `detection` (a `Detection` or a mapping) into an intervention at its level,
    /// pausing on a pause; calls `on_pause` / `on_abort`, logs it, calls `on_intervention`
    /// (upstream's order), and returns it.
    fn intervene<'py>(&self, py: Python<'py>, detection: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyIntervention>> {
        let detection = detection_of(py, detection)?;
        let now = self.now(py)?;
        let intervention = Intervention::new(detection, &now, "detection").or_raise(py)?;
        let level = intervention.level();
        let object = Bound::new(py, PyIntervention { inner: LogEntry::Intervention(intervention.clone()) })?;
        match level {
            InterventionLevel::Pause => {
                locked(&self.host, |h| {
                    h.paused = true;
                    h.reason = intervention.reason.clone();
                });
                Self::callback(py, &self.on_pause, &object)?;
            }
            InterventionLevel::Abort => Self::callback(py, &self.on_abort, &object)?,
            _ => {}
        }
        locked(&self.host, |h| h.log.record(intervention));
        Self::callback(py, &self.on_intervention, &object)?;
        Ok(object)
    }

    /// The level `detection` gets: `"log"`, `"warn"`, `"redirect"`, `"pause"` or `"abort"`.
    fn determine_level(&self, py: Python<'_>, detection: &Bound<'_, PyAny>) -> PyResult<&'static str> {
        Ok(determine_level(&detection_of(py, detection)?).as_str())
    }

    /// The warning a `warn` intervention injects.
    fn build_warning(&self, py: Python<'_>, detection: &Bound<'_, PyAny>) -> PyResult<String> {
        build_warning(&detection_of(py, detection)?, "detection").or_raise(py)
    }

    /// The strategy a `redirect` intervention forces.
    fn build_strategy_override(&self, py: Python<'_>, detection: &Bound<'_, PyAny>) -> PyResult<String> {
        build_strategy_override(&detection_of(py, detection)?, "detection").or_raise(py)
    }

    /// `prompt` with `warning` injected before it.
    fn inject_warning(
        &self,
        py: Python<'_>,
        prompt: &Bound<'_, PyAny>,
        warning: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let prompt = text_argument(&to_value(prompt, NoneIs::Null)?, "prompt", false).or_raise(py)?;
        let warning = text_argument(&to_value(warning, NoneIs::Null)?, "warning", false).or_raise(py)?;
        Ok(inject_warning(&prompt.unwrap_or_default(), &warning.unwrap_or_default()))
    }

    /// Ends a pause, logging why (`approval_reason`); `False` when not paused.
    #[pyo3(signature = (approval_reason = None))]
    fn resume(&self, py: Python<'_>, approval_reason: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let given = match approval_reason {
            None => Value::Other("undefined".into()),
            Some(r) => to_value(r, NoneIs::Absent)?,
        };
        let reason = text_argument(&given, "approval_reason", true).or_raise(py)?;
        if !lock(&self.host).paused {
            return Ok(false);
        }
        let now = self.now(py)?;
        locked(&self.host, |h| {
            let resume = Resume::new(reason, &now, h.reason.take())?;
            h.log.record_resume(resume);
            h.paused = false;
            Ok::<_, earlyexit::Error>(())
        })
        .or_raise(py)?;
        Ok(true)
    }

    /// Whether the system is paused.
    #[getter]
    fn is_paused(&self) -> bool {
        lock(&self.host).paused
    }

    /// Why it paused (`None` when it is not paused).
    #[getter]
    fn pause_reason(&self) -> Option<String> {
        lock(&self.host).reason.clone()
    }

    /// `{"is_paused": ..., "reason": ...}` (upstream's `getPauseStatus()`).
    fn pause_status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (paused, reason) = locked(&self.host, |h| (h.paused, h.reason.clone()));
        let out = PyDict::new(py);
        out.set_item("is_paused", paused)?;
        out.set_item("reason", reason)?;
        Ok(out)
    }

    /// The last `limit` entries, oldest first (everything for `None` or 0, as upstream).
    #[pyo3(signature = (limit = None))]
    fn log<'py>(&self, py: Python<'py>, limit: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyList>> {
        let limit = match limit {
            None => Value::Null,
            Some(l) => to_value(l, NoneIs::Null)?,
        };
        let entries = locked(&self.host, |h| h.log.tail(&limit).map(<[LogEntry]>::to_vec)).or_raise(py)?;
        PyList::new(py, entries.into_iter().map(|inner| PyIntervention { inner }))
    }

    /// Counts by level and by detection type, and the pause state.
    fn summary(&self) -> PyInterventionSummary {
        let inner = locked(&self.host, |h| h.log.summary(h.paused, h.reason.as_deref()));
        PyInterventionSummary { inner }
    }

    /// Empties the log (the pause stays).
    fn clear_log(&self) {
        locked(&self.host, |h| h.log.clear());
    }

    /// Empties the log and ends the pause.
    fn reset(&self) {
        locked(&self.host, |h| *h = Host::default());
    }

    /// The state as upstream exports it (`{"interventionLog": [...], "isPaused": ...,
    /// "pauseReason": ...}`, the JS API's JSON, which `import_state` here or `importState`
    /// there takes back).
    fn export_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = locked(&self.host, |h| export_state(&h.log, h.paused, h.reason.as_deref(), Naming::Js));
        to_py(py, &value)
    }

    /// Takes over what `state` gives, as upstream does: the log, `is_paused`, and the pause
    /// reason when it is a non-empty string (either spelling of each key).
    fn import_state(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = to_value(state, NoneIs::Null)?;
        let state = StateImport::from_value(&value, SNAKE).or_raise(py)?;
        locked(&self.host, |h| {
            if let Some(log) = state.log {
                h.log = log;
            }
            if let Some(paused) = state.is_paused {
                h.paused = paused;
            }
            if let Some(reason) = state.pause_reason {
                h.reason = Some(reason);
            }
        });
        Ok(())
    }

    fn __repr__(&self) -> String {
        let (entries, paused) = locked(&self.host, |h| (h.log.entries().len(), h.paused));
        let paused = if paused { "True" } else { "False" };
        ["InterventionSystem(entries=", &earlyexit::kit::num::uint_string(entries as u64), ", is_paused=", paused, ")"]
            .concat()
    }
}
