//! Pyramid replay and the risk-bounded policy, in batch: each call hands the whole input
//! to the core once and returns plain dicts (snake_case keys; the model document keeps
//! the JS spelling so it moves between languages unchanged).

use earlyexit::pyramid::replay;
use earlyexit::{ErrorCode, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::{PyModule, PyString};

use crate::convert::{raise, to_py, to_value, NoneIs, OrRaise};

/// A model argument: None (empty model), a dict, or JSON text.
fn model_value(py: Python<'_>, model: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match model {
        None => Ok(Value::Null),
        Some(m) if m.is_none() => Ok(Value::Null),
        Some(m) => {
            if let Ok(text) = m.cast::<PyString>() {
                let text = crate::convert::string_of(text);
                return Value::parse_json(&text, ErrorCode::InvalidSnapshot, "model").map_err(|e| raise(py, e));
            }
            to_value(m, NoneIs::Null)
        }
    }
}

/// An options object from named arguments (None = absent).
fn options(entries: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(entries.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect())
}

fn opt(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => to_value(o, NoneIs::Absent).map(Some),
    }
}

fn model_opt(py: Python<'_>, model: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    let v = model_value(py, model)?;
    Ok((!matches!(v, Value::Null)).then_some(v))
}

/// Replays a pyramid policy over recorded runs.
#[pyfunction]
#[pyo3(signature = (runs, *, policy = None, config = None, model = None, learn = None))]
pub fn replay_pyramids<'py>(
    py: Python<'py>,
    runs: &Bound<'py, PyAny>,
    policy: Option<&Bound<'py, PyAny>>,
    config: Option<&Bound<'py, PyAny>>,
    model: Option<&Bound<'py, PyAny>>,
    learn: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(vec![
        ("policy", opt(policy)?),
        ("config", opt(config)?),
        ("model", model_opt(py, model)?),
        ("learn", opt(learn)?),
    ]);
    let runs = crate::convert::runs_value(py, runs)?;
    let out = py.detach(|| replay::replay_value(&runs, &opts, Naming::Snake)).or_raise(py)?;
    to_py(py, &out)
}

/// Shadow mode: every layer ran; what would the policy have run and missed?
#[pyfunction]
#[pyo3(signature = (runs, *, policy = None, config = None, model = None))]
pub fn shadow_pyramids<'py>(
    py: Python<'py>,
    runs: &Bound<'py, PyAny>,
    policy: Option<&Bound<'py, PyAny>>,
    config: Option<&Bound<'py, PyAny>>,
    model: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(vec![("policy", opt(policy)?), ("config", opt(config)?), ("model", model_opt(py, model)?)]);
    let runs = crate::convert::runs_value(py, runs)?;
    let out = py.detach(|| replay::shadow_value(&runs, &opts, Naming::Snake)).or_raise(py)?;
    to_py(py, &out)
}

/// Learn-then-Test calibration of the risk budget.
#[pyfunction]
#[pyo3(signature = (runs, risk, delta, *, policy = None, config = None, model = None, grid = None, warmup = None))]
#[allow(clippy::too_many_arguments)]
pub fn calibrate_pyramid_policy<'py>(
    py: Python<'py>,
    runs: &Bound<'py, PyAny>,
    risk: &Bound<'py, PyAny>,
    delta: &Bound<'py, PyAny>,
    policy: Option<&Bound<'py, PyAny>>,
    config: Option<&Bound<'py, PyAny>>,
    model: Option<&Bound<'py, PyAny>>,
    grid: Option<&Bound<'py, PyAny>>,
    warmup: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(vec![
        ("risk", Some(to_value(risk, NoneIs::Null)?)),
        ("delta", Some(to_value(delta, NoneIs::Null)?)),
        ("policy", opt(policy)?),
        ("config", opt(config)?),
        ("model", model_opt(py, model)?),
        ("grid", opt(grid)?),
        ("warmup", opt(warmup)?),
    ]);
    let runs = crate::convert::runs_value(py, runs)?;
    let out = py.detach(|| replay::calibrate_value(&runs, &opts, Naming::Snake)).or_raise(py)?;
    to_py(py, &out)
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
    let out = replay::decide_value(&model, &layers, &outcomes, &opts, Naming::Snake).or_raise(py)?;
    to_py(py, &out)
}

/// Learns one finished run; returns the new model document.
#[pyfunction]
#[pyo3(signature = (model, ran, *, policy = None, config = None))]
pub fn pyramid_policy_update<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    ran: &Bound<'py, PyAny>,
    policy: Option<&Bound<'py, PyAny>>,
    config: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(vec![("policy", opt(policy)?), ("config", opt(config)?)]);
    let model = model_value(py, Some(model))?;
    let ran = to_value(ran, NoneIs::Absent)?;
    let out = replay::update_value(&model, &ran, &opts, Naming::Snake).or_raise(py)?;
    to_py(py, &out)
}

/// Registers this file's functions (one line in the module init).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(replay_pyramids, m)?)?;
    m.add_function(wrap_pyfunction!(shadow_pyramids, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate_pyramid_policy, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid_policy_decide, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid_policy_update, m)?)?;
    Ok(())
}
