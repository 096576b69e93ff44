//! Pyramid replay in batch: `replay_pyramids`, `shadow_pyramids` and
//! `calibrate_pyramid_policy` hand the whole input to the core once and return plain dicts
//! (snake_case keys).

use earlyexit::kit;
use earlyexit::Naming;
use pyo3::prelude::*;

use crate::error::OrRaise;
use crate::pyramid::policy::{model_opt, opt, options};
use crate::value::{runs_value, to_py, to_value, NoneIs};

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
    let runs = runs_value(py, runs)?;
    let out = py.detach(|| kit::pyramid::replay::replay_value(&runs, &opts, Naming::Snake)).or_raise(py)?;
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
    let runs = runs_value(py, runs)?;
    let out = py.detach(|| kit::pyramid::replay::shadow_value(&runs, &opts, Naming::Snake)).or_raise(py)?;
    to_py(py, &out)
}

/// Learn-then-Test calibration of the risk budget.
#[pyfunction]
#[pyo3(signature = (runs, risk, delta, *, policy = None, config = None, model = None, grid = None, warmup = None, created_at = None, expires_at = None))]
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
    created_at: Option<&Bound<'py, PyAny>>,
    expires_at: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = options(vec![
        ("risk", Some(to_value(risk, NoneIs::Null)?)),
        ("delta", Some(to_value(delta, NoneIs::Null)?)),
        ("policy", opt(policy)?),
        ("config", opt(config)?),
        ("model", model_opt(py, model)?),
        ("grid", opt(grid)?),
        ("warmup", opt(warmup)?),
        ("created_at", opt(created_at)?),
        ("expires_at", opt(expires_at)?),
    ]);
    let runs = runs_value(py, runs)?;
    let now = crate::artifact::now_value(None)?;
    let out = py
        .detach(|| {
            kit::pyramid::replay::calibrate_artifact_value(
                &runs,
                &opts,
                Naming::Snake,
                &earlyexit_digest::Sha256Hasher,
                &now,
            )
        })
        .or_raise(py)?;
    to_py(py, &out)
}
