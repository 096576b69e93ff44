//! `_Loop`: the core's refine loop (`earlyexit::loops::Loop`) over Python outputs, which the
//! package's `Loop` wraps; and the automatic fingerprint of an output.

use std::sync::{Arc, Mutex};

/// An output the loop keeps: shared, so the core's loop can hold it as best and last at once.
type Output = Arc<Py<PyAny>>;

use earlyexit::kit::loops::loop_policy;
use earlyexit::loops::{Kept, Loop, LoopOptions, StepInput};
use earlyexit::loops::{ResourceUsage, VerificationStatus};
use earlyexit::LoopPolicy;
use earlyexit::{ErrorCode, IterationRecord, Naming, StoppingDecision, Value};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::error::{raise, OrRaise};
use crate::loops::decision::PyStoppingDecision;
use crate::loops::engine::policy_value;
use crate::loops::now_iso;
use crate::loops::records::PyIterationRecord;
use crate::shims::{lock, locked};
use crate::value::{to_py, to_value, NoneIs};

/// Whether `value` is plain JSON (no host object inside).
fn is_json(value: &Value) -> bool {
    match value {
        Value::Other(_) => false,
        Value::Number(n) => n.is_finite(),
        Value::Array(items) => items.iter().all(is_json),
        Value::Object(entries) => entries.iter().all(|(_, v)| is_json(v)),
        _ => true,
    }
}

/// The SHA-256 (hex) of an output: `str` as UTF-8, `bytes` as they are, a JSON value (dict,
/// list, str, number, bool, None) as its RFC 8785 canonical JSON; `None` for anything else.
#[pyfunction]
pub fn output_fingerprint(output: &Bound<'_, PyAny>) -> Option<String> {
    if let Ok(text) = output.cast::<PyString>() {
        return Some(earlyexit_digest::sha256_hex(crate::value::string_of(text).as_bytes()));
    }
    if let Ok(bytes) = output.cast::<PyBytes>() {
        return Some(earlyexit_digest::sha256_hex(bytes.as_bytes()));
    }
    let value = to_value(output, NoneIs::Null).ok()?;
    if !is_json(&value) {
        return None;
    }
    earlyexit_digest::value_sha256(&value, ErrorCode::InvalidResult, "output").ok()
}

/// A number as the fast path takes it: an exact `float` or `int` (never a `bool`).
fn plain_number(value: &Bound<'_, PyAny>) -> Option<f64> {
    if value.is_exact_instance_of::<PyFloat>() || value.is_exact_instance_of::<PyInt>() {
        value.extract::<f64>().ok()
    } else {
        None
    }
}

/// An optional argument of the fast path: `None` for `None` (not given), `Some(Some(x))` when
/// `read` takes it, `Some(None)` (leave it to the general path) otherwise.
fn optional<'py, T>(
    value: &Bound<'py, PyAny>,
    read: impl FnOnce(&Bound<'py, PyAny>) -> Option<T>,
) -> Option<Option<T>> {
    if value.is_none() {
        Some(None)
    } else {
        read(value).map(Some)
    }
}

/// An exact `bool`.
fn plain_bool(value: &Bound<'_, PyAny>) -> Option<bool> {
    value.is_exact_instance_of::<PyBool>().then(|| value.is_truthy().ok()).flatten()
}

/// An exact `str`.
fn plain_string(value: &Bound<'_, PyAny>) -> Option<String> {
    if value.is_exact_instance_of::<PyString>() {
        Some(value.cast::<PyString>().ok()?.to_cow().ok()?.into_owned())
    } else {
        None
    }
}

/// The step's arguments read without a value tree, when they are of the plain kinds: numbers
/// (`quality`, `confidence`, `tokens`, `cost_usd`, `time_ms`) exact `float` or `int`, `done`,
/// `good` and `verified` exact `bool`s, `error` and `fingerprint` exact `str`s, `files`
/// absent. Anything else (`None` from here) goes through the general path; so does what the
/// core then refuses, which it refuses before changing anything.
#[allow(clippy::too_many_arguments)]
fn fast_step(
    quality: &Bound<'_, PyAny>,
    confidence: &Bound<'_, PyAny>,
    verified: &Bound<'_, PyAny>,
    done: &Bound<'_, PyAny>,
    good: &Bound<'_, PyAny>,
    tokens: &Bound<'_, PyAny>,
    cost_usd: &Bound<'_, PyAny>,
    time_ms: &Bound<'_, PyAny>,
    error: &Bound<'_, PyAny>,
    files: &Bound<'_, PyAny>,
    fingerprint: &Bound<'_, PyAny>,
) -> Option<(f64, StepInput)> {
    if !files.is_none() {
        return None;
    }
    let quality = plain_number(quality)?;
    let verification = optional(verified, plain_bool)?.map(|passed| {
        if passed {
            VerificationStatus::Passed
        } else {
            VerificationStatus::Failed
        }
    });
    let input = StepInput {
        confidence: optional(confidence, plain_number)?,
        verification,
        done: optional(done, plain_bool)?.unwrap_or(false),
        good: optional(good, plain_bool)?,
        usage: ResourceUsage {
            tokens_used: optional(tokens, plain_number)?,
            token_cost_usd: optional(cost_usd, plain_number)?,
            execution_time_ms: optional(time_ms, plain_number)?,
        },
        error: optional(error, plain_string)?,
        files: None,
        fingerprint: optional(fingerprint, plain_string)?,
    };
    Some((quality, input))
}

/// A step's answer: the decision, after the scale notice's warning when there is one (level 2:
/// the frame that called the package's `Loop.step`, which calls this).
fn decided(py: Python<'_>, inner: StoppingDecision, notice: Option<&'static str>) -> PyResult<PyStoppingDecision> {
    if let Some(notice) = notice {
        let message = std::ffi::CString::new(notice).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &message, 2)?;
    }
    Ok(PyStoppingDecision { inner })
}

/// The names of `step`'s arguments after the output, in order (the core's step fields).
const STEP_ARGUMENTS: [&str; 11] = [
    "quality",
    "confidence",
    "verified",
    "done",
    "good",
    "tokens",
    "cost_usd",
    "time_ms",
    "error",
    "files",
    "fingerprint",
];

fn build(
    py: Python<'_>,
    policy: &LoopPolicy,
    options: LoopOptions,
    shadow: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyLoop> {
    let looped = match shadow.filter(|s| !s.is_none()) {
        None => Loop::new(policy, options),
        Some(s) => Loop::with_shadow(policy, options, crate::loops::calibrate::shadow_candidate(py, s)?),
    };
    Ok(PyLoop { inner: Mutex::new(looped.or_raise(py)?) })
}

/// The core's refine loop over Python outputs.
#[pyclass(frozen, module = "earlyexit._native", name = "_Loop")]
pub struct PyLoop {
    inner: Mutex<Loop<Output>>,
}

fn kept<'py>(py: Python<'py>, k: Option<&Kept<Output>>) -> PyResult<Py<PyAny>> {
    match k {
        None => Ok(py.None()),
        Some(k) => Ok(PyTuple::new(
            py,
            [
                k.iteration.into_pyobject(py)?.into_any(),
                k.output.bind(py).clone(),
                k.quality.into_pyobject(py)?.into_any(),
            ],
        )?
        .into_any()
        .unbind()),
    }
}

#[pymethods]
impl PyLoop {
    #[new]
    #[pyo3(signature = (policy, options, shadow = None))]
    fn new(
        py: Python<'_>,
        policy: Option<&Bound<'_, PyAny>>,
        options: &Bound<'_, PyDict>,
        shadow: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        // A string is a preset name (`"recommended"`), or a policy's JSON text.
        let policy = match policy.filter(|p| !p.is_none()) {
            Some(p) => match p.cast::<PyString>() {
                Ok(text) if !crate::value::string_of(text).trim_start().starts_with('{') => {
                    Value::string(crate::value::string_of(text).as_str())
                }
                _ => policy_value(py, p)?,
            },
            None => Value::Null,
        };
        let policy = loop_policy(&policy, Naming::Snake).or_raise(py)?;
        let options = LoopOptions::from_value(&to_value(options.as_any(), NoneIs::Absent)?).or_raise(py)?;
        build(py, &policy, options, shadow)
    }

    /// A loop enforcing a loop calibration (a `LoopCalibration`, its artifact dict or JSON
    /// text): its calibrated policy when promoted and current, else its most conservative with
    /// the calibrated one in shadow (`shadow_reason`).
    #[staticmethod]
    #[pyo3(signature = (artifact, options, shadow = None))]
    fn from_artifact(
        py: Python<'_>,
        artifact: &Bound<'_, PyAny>,
        options: &Bound<'_, PyDict>,
        shadow: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let enforced = crate::loops::calibrate::calibrated_enforced(py, artifact)?;
        let options = LoopOptions::from_value(&to_value(options.as_any(), NoneIs::Absent)?).or_raise(py)?;
        let given = match shadow.filter(|s| !s.is_none()) {
            Some(s) => Some(crate::loops::calibrate::shadow_candidate(py, s)?),
            None => None,
        };
        let looped = Loop::from_enforced(enforced, options, given).or_raise(py)?;
        Ok(PyLoop { inner: Mutex::new(looped) })
    }

    /// Why the shadow candidate runs in shadow rather than enforced, when the loop put it
    /// there itself (an artifact not promoted or expired); `None` otherwise.
    #[getter]
    fn shadow_reason(&self) -> Option<String> {
        lock(&self.inner).shadow_reason().map(str::to_string)
    }

    /// The run's shadow receipt (`None` without a shadow), called `id`.
    fn receipt<'py>(&self, py: Python<'py>, id: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let receipt = lock(&self.inner).receipt(id);
        receipt.map(|r| to_py(py, &r)).transpose()
    }

    /// Records one iteration and decides; returns the decision, after warning (`UserWarning`,
    /// attributed to the caller of the package's `Loop.step`) with the scale notice when the
    /// loop gives it now. The step's arguments come positionally (`None`: not given), so no
    /// dict is made per step.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (output, quality, confidence, verified, done, good, tokens, cost_usd, time_ms, error, files, fingerprint, /))]
    fn step(
        &self,
        py: Python<'_>,
        output: Py<PyAny>,
        quality: &Bound<'_, PyAny>,
        confidence: &Bound<'_, PyAny>,
        verified: &Bound<'_, PyAny>,
        done: &Bound<'_, PyAny>,
        good: &Bound<'_, PyAny>,
        tokens: &Bound<'_, PyAny>,
        cost_usd: &Bound<'_, PyAny>,
        time_ms: &Bound<'_, PyAny>,
        error: &Bound<'_, PyAny>,
        files: &Bound<'_, PyAny>,
        fingerprint: &Bound<'_, PyAny>,
    ) -> PyResult<PyStoppingDecision> {
        // The common step (a number, maybe a confidence, `done` and a str fingerprint) goes to
        // the core without a value tree; whatever the core refuses there changed nothing and
        // goes through the general path below, which words the error as for any input.
        let fast =
            fast_step(quality, confidence, verified, done, good, tokens, cost_usd, time_ms, error, files, fingerprint);
        if let Some((quality, input)) = fast {
            let output = Arc::new(output.clone_ref(py));
            let answer = locked(&self.inner, |l| {
                l.step(output, quality, input, now_iso).cloned().map(|d| (d, l.scale_notice()))
            });
            if let Ok((inner, notice)) = answer {
                return decided(py, inner, notice);
            }
        }
        let given = [quality, confidence, verified, done, good, tokens, cost_usd, time_ms, error, files, fingerprint];
        let mut entries = Vec::with_capacity(given.len());
        for (name, value) in STEP_ARGUMENTS.iter().zip(given) {
            if !value.is_none() {
                entries.push(((*name).to_string(), to_value(value, NoneIs::Absent)?));
            }
        }
        let (quality, input) = StepInput::from_value(&Value::Object(entries)).or_raise(py)?;
        let answer = locked(&self.inner, |l| {
            l.step(Arc::new(output), quality, input, now_iso).cloned().map(|d| (d, l.scale_notice()))
        });
        let (inner, notice) = answer.or_raise(py)?;
        decided(py, inner, notice)
    }

    /// `step` given only an output, a quality and a fingerprint (`None`: the output's automatic
    /// one, as the package's `Loop.step` computes it), answering `(stop, trigger, reason,
    /// output)`: the decision's fields and what the loop hands back after the step, in one
    /// call, for a caller that copies them into its own state (the LangGraph guard's node).
    #[pyo3(signature = (output, quality, fingerprint, /))]
    fn step_fields<'py>(
        &self,
        py: Python<'py>,
        output: Py<PyAny>,
        quality: &Bound<'py, PyAny>,
        fingerprint: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let none = py.None().into_bound(py);
        let automatic;
        let fingerprint = if fingerprint.is_none() {
            automatic = output_fingerprint(output.bind(py)).into_bound_py_any(py)?;
            &automatic
        } else {
            fingerprint
        };
        let decision =
            self.step(py, output, quality, &none, &none, &none, &none, &none, &none, &none, &none, &none, fingerprint)?;
        let handed = lock(&self.inner).output().map(|k| k.output.clone_ref(py));
        let d = &decision.inner;
        PyTuple::new(
            py,
            [
                d.stop.into_bound_py_any(py)?,
                d.trigger.as_str().into_bound_py_any(py)?,
                d.reason.as_str().into_bound_py_any(py)?,
                handed.map_or(none.clone(), |o| o.into_bound(py)),
            ],
        )
    }

    /// `step` given an output, a quality, the tokens and the error (`None`: not given), with
    /// the output's automatic fingerprint (as the package's `Loop.step` computes it without a
    /// `fingerprint_of`): an agent turn's fields in one call instead of two (the fingerprint,
    /// then a twelve-argument step), for the OpenAI Agents guard's turn.
    #[pyo3(signature = (output, quality, tokens, error, /))]
    fn step_usage(
        &self,
        py: Python<'_>,
        output: Py<PyAny>,
        quality: &Bound<'_, PyAny>,
        tokens: &Bound<'_, PyAny>,
        error: &Bound<'_, PyAny>,
    ) -> PyResult<PyStoppingDecision> {
        let none = py.None().into_bound(py);
        let fingerprint = output_fingerprint(output.bind(py)).into_bound_py_any(py)?;
        self.step(py, output, quality, &none, &none, &none, &none, tokens, &none, &none, error, &none, &fingerprint)
    }

    /// `step_fields` with the automatic fingerprint, answering the LangGraph guard's state
    /// update in the same call: `{"records": records + [{"output", "quality"}] (a new list),
    /// "output": <what the loop hands back>, "stop", "trigger", "reason", "iteration"}`.
    /// Nothing is built when the step is refused.
    #[pyo3(signature = (output, quality, records, iteration, /))]
    fn step_update<'py>(
        &self,
        py: Python<'py>,
        output: Py<PyAny>,
        quality: &Bound<'py, PyAny>,
        records: &Bound<'py, PyList>,
        iteration: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let none = py.None().into_bound(py);
        let fingerprint = output_fingerprint(output.bind(py)).into_bound_py_any(py)?;
        let given = output.clone_ref(py).into_bound(py);
        let decision = self.step(
            py,
            output,
            quality,
            &none,
            &none,
            &none,
            &none,
            &none,
            &none,
            &none,
            &none,
            &none,
            &fingerprint,
        )?;
        let handed = lock(&self.inner).output().map(|k| k.output.clone_ref(py));
        let record = PyDict::new(py);
        record.set_item(intern!(py, "output"), given)?;
        record.set_item(intern!(py, "quality"), quality)?;
        let extended = PyList::new(py, records.iter().chain(std::iter::once(record.into_any())))?;
        let d = &decision.inner;
        let update = PyDict::new(py);
        update.set_item(intern!(py, "records"), extended)?;
        update.set_item(intern!(py, "output"), handed.map_or(none, |o| o.into_bound(py)))?;
        update.set_item(intern!(py, "stop"), d.stop)?;
        update.set_item(intern!(py, "trigger"), d.trigger.as_str())?;
        update.set_item(intern!(py, "reason"), d.reason.as_str())?;
        update.set_item(intern!(py, "iteration"), iteration)?;
        Ok(update)
    }

    #[getter]
    fn scale(&self) -> f64 {
        lock(&self.inner).options().scale
    }

    /// The run label the loop was given (what a store records the run under).
    #[getter]
    fn run_label(&self) -> Option<String> {
        lock(&self.inner).options().run_label.clone()
    }

    #[getter]
    fn best(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        kept(py, lock(&self.inner).best())
    }

    #[getter]
    fn last(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        kept(py, lock(&self.inner).last())
    }

    #[getter]
    fn completed(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        kept(py, lock(&self.inner).completed())
    }

    #[getter]
    fn output(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        kept(py, lock(&self.inner).output())
    }

    #[getter]
    fn decision(&self) -> Option<PyStoppingDecision> {
        lock(&self.inner).decision().cloned().map(|inner| PyStoppingDecision { inner })
    }

    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let records: Vec<IterationRecord> = lock(&self.inner).history().to_vec();
        PyTuple::new(py, records.into_iter().map(|inner| PyIterationRecord { inner }))
    }

    /// The run in the replay form (`id` when the loop has no task).
    fn run<'py>(&self, py: Python<'py>, id: &str) -> PyResult<Bound<'py, PyAny>> {
        let run = lock(&self.inner).run(id);
        to_py(py, &run)
    }

    /// Closes the run (`good` on the output's iteration) and returns it.
    #[pyo3(signature = (good, id))]
    fn finish<'py>(&self, py: Python<'py>, good: Option<bool>, id: &str) -> PyResult<Bound<'py, PyAny>> {
        let run = locked(&self.inner, |l| l.finish(good, id));
        to_py(py, &run)
    }

    /// The loop as JSON text (outputs as JSON values when `outputs`).
    fn to_json(&self, py: Python<'_>, outputs: bool) -> PyResult<String> {
        let l = lock(&self.inner);
        let convert = |o: &Output| to_value(o.bind(py), NoneIs::Null).ok().filter(is_json);
        let value = l.to_value(outputs, convert).or_raise(py)?;
        Ok(value.to_json())
    }

    /// A loop from `to_json`'s text; `outputs` (a dict by key: `best`, `last`, `completed`)
    /// gives the outputs when the text leaves them out.
    #[staticmethod]
    #[pyo3(signature = (text, outputs = None))]
    fn from_json(py: Python<'_>, text: &str, outputs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let value = Value::parse_json(text, ErrorCode::InvalidSnapshot, "snapshot").or_raise(py)?;
        let read = Loop::from_value(&value, |key, v| {
            if let Some(given) = outputs.and_then(|o| o.get_item(key).ok().flatten()) {
                return Ok(Arc::new(given.unbind()));
            }
            Ok(Arc::new(match v {
                Some(v) => to_py(py, v).map(Bound::unbind).unwrap_or_else(|_| py.None()),
                None => py.None(),
            }))
        });
        Ok(PyLoop { inner: Mutex::new(read.map_err(|e| raise(py, e))?) })
    }
}
