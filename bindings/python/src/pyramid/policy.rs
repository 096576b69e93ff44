//! The risk-bounded pyramid policy, live: `pyramid_policy_decide` (the next step of one run)
//! and `pyramid_policy_update` (learn a finished run). The model document keeps the JS
//! spelling so it moves between languages unchanged.

use earlyexit::kit;
use earlyexit::pyramid::policy::{RunMode, RunOptions, RunPolicy};
use earlyexit::{ErrorCode, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::error::{raise, OrRaise};
use crate::value::{string_of, to_py, to_value, NoneIs};

/// A model argument: None (empty model), a dict, or JSON text.
pub(crate) fn model_value(py: Python<'_>, model: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match model {
        None => Ok(Value::Null),
        Some(m) if m.is_none() => Ok(Value::Null),
        Some(m) => {
            if let Ok(text) = m.cast::<PyString>() {
                let text = string_of(text);
                return Value::parse_json(&text, ErrorCode::InvalidSnapshot, "model").map_err(|e| raise(py, e));
            }
            to_value(m, NoneIs::Null)
        }
    }
}

/// An options object from named arguments (None = absent).
pub(crate) fn options(entries: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(entries.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect())
}

pub(crate) fn opt(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => to_value(o, NoneIs::Absent).map(Some),
    }
}

pub(crate) fn model_opt(py: Python<'_>, model: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    let v = model_value(py, model)?;
    Ok((!matches!(v, Value::Null)).then_some(v))
}

/// A live run's policy options from its keywords (`None`: not given), converted as given:
/// the core reads and checks them (`RunOptions`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_options_value(
    py: Python<'_>,
    policy: Option<&Bound<'_, PyAny>>,
    mode: Option<&Bound<'_, PyAny>>,
    model: Option<&Bound<'_, PyAny>>,
    policy_config: Option<&Bound<'_, PyAny>>,
    run_id: Option<&Bound<'_, PyAny>>,
    label: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
) -> PyResult<Value> {
    // `now`: a datetime as its milliseconds, anything else as given (None: absent, the clock).
    let now = match now {
        Some(v) if !v.is_none() => Some(crate::artifact::now_value(Some(v))?),
        _ => None,
    };
    Ok(options(vec![
        ("policy", opt(policy)?),
        ("mode", opt(mode)?),
        ("model", model_opt(py, model)?),
        ("policy_config", opt(policy_config)?),
        ("run_id", opt(run_id)?),
        ("label", opt(label)?),
        ("now", now),
    ]))
}

/// The host clock (milliseconds since the Unix epoch), the time a live run's artifact policy
/// expires against when `now` is not given.
pub(crate) fn clock_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The host's clock and SHA-256, which a live run's artifact policy is checked with (its
/// expiry, its promotion).
pub(crate) fn host_services() -> earlyexit::artifact::HostServices<'static> {
    earlyexit::artifact::HostServices::new(clock_ms(), &earlyexit_digest::Sha256Hasher)
}

/// Checks a live run's policy keywords (`EarlyExitController`'s, before any run): the
/// options normalized (`{policy, mode, policy_config, model}`), or `None` when they leave
/// the ADR deciding.
#[pyfunction]
#[pyo3(signature = (*, policy = None, mode = None, model = None, policy_config = None, run_id = None, label = None, now = None))]
#[allow(clippy::too_many_arguments)]
pub fn _run_options<'py>(
    py: Python<'py>,
    policy: Option<&Bound<'py, PyAny>>,
    mode: Option<&Bound<'py, PyAny>>,
    model: Option<&Bound<'py, PyAny>>,
    policy_config: Option<&Bound<'py, PyAny>>,
    run_id: Option<&Bound<'py, PyAny>>,
    label: Option<&Bound<'py, PyAny>>,
    now: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let given = run_options_value(py, policy, mode, model, policy_config, run_id, label, now)?;
    let host = crate::pyramid::policy::host_services();
    let options = RunOptions::from_values_at(&given, &Value::Null, Naming::Snake, host).or_raise(py)?;
    if options.policy == RunPolicy::Adr && options.mode == RunMode::Enforced {
        return Ok(py.None().into_bound(py));
    }
    to_py(py, &options.to_value(Naming::Snake))
}

/// The policy's next step for one live run.
#[pyfunction]
#[pyo3(signature = (model, layers, outcomes, *, policy = None, config = None))]
pub fn pyramid_policy_decide<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    layers: &Bound<'py, PyAny>,
    outcomes: &Bound<'py, PyAny>,
    policy: Option<&Bound<'py, PyAny>>,
    config: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(vec![("policy", opt(policy)?), ("config", opt(config)?)]);
    let model = model_value(py, Some(model))?;
    let layers = to_value(layers, NoneIs::Absent)?;
    let outcomes = to_value(outcomes, NoneIs::Absent)?;
    let out = kit::pyramid::replay::decide_value(&model, &layers, &outcomes, &opts, Naming::Snake).or_raise(py)?;
    to_py(py, &out)
}

/// Learns one finished run; returns the new model document (version 1, or version 2 with
/// `build={"id", "seq"}`, the build's key).
#[pyfunction]
#[pyo3(signature = (model, ran, *, policy = None, config = None, build = None))]
pub fn pyramid_policy_update<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    ran: &Bound<'py, PyAny>,
    policy: Option<&Bound<'py, PyAny>>,
    config: Option<&Bound<'py, PyAny>>,
    build: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(vec![("policy", opt(policy)?), ("config", opt(config)?), ("build", opt(build)?)]);
    let model = model_value(py, Some(model))?;
    let ran = to_value(ran, NoneIs::Absent)?;
    let out = kit::pyramid::replay::update_value(&model, &ran, &opts, Naming::Snake).or_raise(py)?;
    to_py(py, &out)
}
