//! Loop calibration for Python: `calibrate_loop_policy(runs, risk, delta, options)` (or an
//! options dict, or keywords) calibrates in one call, the GIL released while the candidates
//! run on every core, and returns an immutable `LoopCalibration` holding the artifact.

use earlyexit::loops::replay::{self, LoopPolicy};
use earlyexit::{
    kit::{self, num},
    ErrorCode, Naming, Value,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::OrRaise;
use crate::value::{runs_value, to_py, to_value, NoneIs};

/// What `calibrate_loop_policy` returns: the calibration artifact (`artifact`, `to_json()`)
/// and its parts: `policy` (for `replay_loops` and `EarlyStopping.from_calibration`),
/// `certified`, `status`, `message`, `frontier`, `warnings`.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "LoopCalibration")]
#[derive(PartialEq)]
pub struct PyLoopCalibration {
    pub(crate) artifact: Value,
}

impl PyLoopCalibration {
    fn body(&self, key: &str) -> &Value {
        self.artifact.get("body").and_then(|b| b.get(key)).unwrap_or(&Value::Null)
    }
}

#[pymethods]
impl PyLoopCalibration {
    /// The chosen policy `{config, returns, analytics}` (config keys snake_case).
    #[getter]
    fn policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let policy = self.artifact.get("policy").unwrap_or(&Value::Null);
        let policy = LoopPolicy::from_value(policy, Naming::Js).or_raise(py)?;
        to_py(py, &policy.to_value(Naming::Snake))
    }
    /// Whether the chosen policy's premature-stop rate is certified.
    #[getter]
    fn certified(&self) -> bool {
        matches!(self.body("certified"), Value::Bool(true))
    }
    /// `'certified'`, `'not_certified'` or `'too_few_runs'`.
    #[getter]
    fn status(&self) -> &str {
        self.body("status").as_str().unwrap_or("")
    }
    /// The conclusion in words.
    #[getter]
    fn message(&self) -> &str {
        self.body("message").as_str().unwrap_or("")
    }
    /// Every candidate of the path: its policy, figures on the calibration runs and test.
    #[getter]
    fn frontier<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.body("frontier"))
    }
    /// What to be careful about (repeated ids, mixed task families, proxy ground truth).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.body("warnings"))
    }
    /// The calibration artifact as a dict (portable camelCase keys, as every binding writes it).
    #[getter]
    fn artifact<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.artifact)
    }
    /// The artifact as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.artifact)
    }
    /// The artifact as JSON text (what `EarlyStopping.from_calibration` and the JS API read).
    fn to_json(&self) -> String {
        self.artifact.to_json()
    }
    /// Pickles as the artifact's JSON text.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((crate::shims::module_attr(py, "_restore_loop_calibration")?, (self.artifact.to_json(),)))
    }
    fn __repr__(&self) -> String {
        let risk = self.artifact.get("risk").and_then(Value::as_f64).unwrap_or(0.0);
        let delta = self.artifact.get("delta").and_then(Value::as_f64).unwrap_or(0.0);
        [
            "LoopCalibration(status=",
            self.status(),
            ", risk=",
            &num::to_js_string(risk),
            ", delta=",
            &num::to_js_string(delta),
            ")",
        ]
        .concat()
    }
}

/// Calibrates a loop policy on recorded runs of one task family (Learn-then-Test): the
/// cheapest policy on the family's path whose premature-stop rate is at most `risk` with
/// probability at least `1 - delta`. `risk` may also be the options dict
/// (`{risk, delta, steps, candidates, validDays}`); keywords override.
#[pyfunction]
#[pyo3(signature = (runs, risk = None, delta = None, options = None, *, steps = None, candidates = None, valid_days = None))]
#[allow(clippy::too_many_arguments)]
pub fn calibrate_loop_policy(
    py: Python<'_>,
    runs: &Bound<'_, PyAny>,
    risk: Option<&Bound<'_, PyAny>>,
    delta: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyAny>>,
    steps: Option<&Bound<'_, PyAny>>,
    candidates: Option<&Bound<'_, PyAny>>,
    valid_days: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyLoopCalibration> {
    let (risk, options) = match risk {
        Some(r) if r.cast::<PyDict>().is_ok() && options.is_none() => (None, Some(r)),
        other => (other, options),
    };
    let mut entries: Vec<(String, Value)> = match options {
        Some(o) if !o.is_none() => match to_value(o, NoneIs::Absent)? {
            Value::Object(entries) => entries,
            other => {
                return Err(earlyexit::kit::host::type_error(
                    ErrorCode::InvalidConfig,
                    "options",
                    "a dict of options",
                    &other,
                ))
                .or_raise(py)
            }
        },
        _ => Vec::new(),
    };
    for (key, item) in
        [("risk", risk), ("delta", delta), ("steps", steps), ("candidates", candidates), ("validDays", valid_days)]
    {
        if let Some(item) = item.filter(|i| !i.is_none()) {
            let value = to_value(item, NoneIs::Null)?;
            entries.retain(|(k, _)| k != key && !(key == "validDays" && k == "valid_days"));
            entries.push((key.to_string(), value));
        }
    }
    // The options' snake_case spelling of validDays.
    for entry in &mut entries {
        if entry.0 == "valid_days" {
            entry.0 = "validDays".to_string();
        }
    }
    let options = Value::Object(entries);
    let runs = runs_value(py, runs)?;
    let now = earlyexit_calibrate::now_ms();
    let artifact =
        py.detach(|| earlyexit_calibrate::calibrate_loops(&runs, &options, Naming::Snake, now)).or_raise(py)?;
    Ok(PyLoopCalibration { artifact })
}

/// What an enforced engine runs for a calibration (a `LoopCalibration`, its artifact dict or
/// JSON text, or an `os.PathLike` naming a file of that text), checked: kind `loop`. A
/// promoted, current artifact enforces its calibrated policy; one not promoted or expired its
/// calibration's most conservative, with the calibrated policy in shadow (the core's
/// [`replay::enforced_from_artifact`]). An artifact that certifies nothing loads, with an
/// `UncertifiedCalibrationWarning` (the core's notice; Python's filters decide how often it
/// shows).
pub(crate) fn calibrated_enforced(py: Python<'_>, artifact: &Bound<'_, PyAny>) -> PyResult<replay::EnforcedArtifact> {
    let value = match artifact.cast::<PyLoopCalibration>() {
        Ok(calibration) => calibration.get().artifact.clone(),
        Err(_) => match artifact_file(py, artifact)? {
            Some(text) => Value::string(text),
            None => to_value(artifact, NoneIs::Null)?,
        },
    };
    let enforced =
        replay::enforced_from_artifact(&value, earlyexit_calibrate::now_ms(), &earlyexit_digest::Sha256Hasher)
            .or_raise(py)?;
    if let Some(notice) = kit::loops::replay::uncertified_notice(&value) {
        let category = py.import("earlyexit._errors")?.getattr("UncertifiedCalibrationWarning")?;
        let message = std::ffi::CString::new(notice).unwrap_or_default();
        PyErr::warn(py, &category, &message, 1)?;
    }
    Ok(enforced)
}

/// The text of the file an `os.PathLike` artifact names (`None` for anything else: a `str`
/// stays JSON text). Read with Python's `open`, so a missing file is its `OSError`; a file
/// over the document limit or not UTF-8 is `invalid_artifact` naming `artifact`.
fn artifact_file(py: Python<'_>, artifact: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let is_text =
        artifact.is_instance_of::<pyo3::types::PyString>() || artifact.is_instance_of::<pyo3::types::PyBytes>();
    if is_text || !artifact.hasattr("__fspath__")? {
        return Ok(None);
    }
    let limit = earlyexit::limits::MAX_DOCUMENT_BYTES;
    let file = py.import("builtins")?.call_method1("open", (artifact, "rb"))?;
    let read = file.call_method1("read", (limit + 1,));
    file.call_method0("close")?;
    let bytes: Vec<u8> = read?.extract()?;
    if bytes.len() > limit {
        let e = earlyexit::kit::host::problem(
            earlyexit::kit::host::Problem::Size,
            ErrorCode::InvalidArtifact,
            "artifact",
            &Value::Null,
        );
        return Err(crate::error::raise(py, e));
    }
    let text = earlyexit::kit::value::utf8_text(&bytes, ErrorCode::InvalidArtifact, "artifact").or_raise(py)?;
    Ok(Some(text.to_string()))
}

/// How many tasks a loop calibration needs to certify `risk` at `delta` (the core's plan):
/// `{risk, delta, minimum_to_certify, tasks_needed: [{premature_stops, tasks}]}`.
#[pyfunction]
#[pyo3(signature = (risk = None, delta = None))]
pub fn calibration_plan<'py>(
    py: Python<'py>,
    risk: Option<&Bound<'py, PyAny>>,
    delta: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut options = Vec::new();
    for (key, given) in [("risk", risk), ("delta", delta)] {
        if let Some(given) = given.filter(|g| !g.is_none()) {
            options.push((key, to_value(given, NoneIs::Absent)?));
        }
    }
    let plan = kit::loops::replay::calibration_plan_value(&Value::object(options), Naming::Snake).or_raise(py)?;
    to_py(py, &plan)
}

/// Restores a pickled `LoopCalibration` from its artifact's JSON text.
#[pyfunction]
pub fn _restore_loop_calibration(py: Python<'_>, text: &str) -> PyResult<PyLoopCalibration> {
    let artifact = Value::parse_json(text, ErrorCode::InvalidArtifact, "artifact").or_raise(py)?;
    Ok(PyLoopCalibration { artifact })
}

/// A shadow candidate as Python hands it over: a preset name, a policy (a dict or its JSON
/// text), a `LoopCalibration` or a loop artifact.
pub(crate) fn shadow_candidate(
    py: Python<'_>,
    shadow: &Bound<'_, PyAny>,
) -> PyResult<earlyexit::loops::shadow::ShadowCandidate> {
    let value = match shadow.cast::<PyLoopCalibration>() {
        Ok(calibration) => calibration.get().artifact.clone(),
        Err(_) => match shadow.cast::<pyo3::types::PyString>() {
            Ok(text) => Value::string(crate::value::string_of(text).as_str()),
            Err(_) if shadow.cast::<pyo3::types::PyDict>().is_ok_and(|d| d.contains("kind").unwrap_or(false)) => {
                to_value(shadow, NoneIs::Null)?
            }
            Err(_) => to_value(shadow, NoneIs::Absent)?,
        },
    };
    earlyexit::loops::shadow::ShadowCandidate::from_value(
        &value,
        Naming::Snake,
        earlyexit_calibrate::now_ms(),
        &earlyexit_digest::Sha256Hasher,
    )
    .or_raise(py)
}
