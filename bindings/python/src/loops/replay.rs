//! Loop replay for Python: `replay_loops(runs, policy)` replays a whole batch of recorded runs
//! in one call (the GIL released while the core works) and returns an immutable `LoopReplay`.

use earlyexit::{
    kit::{self, num},
    ErrorCode, Naming, Value,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::error::OrRaise;
use crate::value::{options_value, runs_value, to_py, to_value, NoneIs};

/// What `replay_loops` returns: `policy`, `summary` and `runs` (one dict per run, in input
/// order); `to_dict()` is the JSON the JS API's `replayLoops` returns.
#[pyclass(frozen, eq, module = "earlyexit._native", name = "LoopReplay")]
#[derive(PartialEq)]
pub struct PyLoopReplay {
    value: Value,
}

impl PyLoopReplay {
    fn part<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.value.get(key).unwrap_or(&Value::Null))
    }
}

#[pymethods]
impl PyLoopReplay {
    /// `{config, returns, analytics}`: the policy that was replayed (config keys snake_case).
    #[getter]
    fn policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, "policy")
    }
    /// The aggregates (`mean_iterations`, `share_of_available`, `mean_quality_gap`, ...).
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, "summary")
    }
    /// One dict per run: stop point, trigger, reason, returned vs best iteration, ...
    #[getter]
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, "runs")
    }
    /// `{policy, summary, runs}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.value)
    }
    /// Pickles as its JSON text (`to_dict()` as JSON), restored by `_restore_loop_replay`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((crate::shims::module_attr(py, "_restore_loop_replay")?, (self.value.to_json(),)))
    }
    fn __len__(&self) -> usize {
        match self.value.get("runs") {
            Some(Value::Array(runs)) => runs.len(),
            _ => 0,
        }
    }
    fn __repr__(&self) -> String {
        let number = |key: &str| {
            let n = self.value.get("summary").and_then(|s| s.get(key)).and_then(Value::as_f64).unwrap_or(0.0);
            num::to_js_string(n)
        };
        [
            "LoopReplay(runs=",
            &number("runs"),
            ", mean_iterations=",
            &number("mean_iterations"),
            ", mean_quality_gap=",
            &number("mean_quality_gap"),
            ", premature_stops=",
            &number("premature_stops"),
            ")",
        ]
        .concat()
    }
}

/// Replays a loop policy over recorded runs: `runs` is a list of run dicts or JSONL text;
/// `policy` a preset name or `{preset, config, returns, analytics}`, or give those as
/// keywords. Bad input raises `EarlyExitError` with code `invalid_replay` and the path
/// (`runs[3].iterations[2].quality_score`).
#[pyfunction]
#[pyo3(signature = (runs, policy = None, /, *, preset = None, config = None, returns = None, analytics = None))]
pub fn replay_loops(
    py: Python<'_>,
    runs: &Bound<'_, PyAny>,
    policy: Option<&Bound<'_, PyAny>>,
    preset: Option<&Bound<'_, PyAny>>,
    config: Option<&Bound<'_, PyAny>>,
    returns: Option<&Bound<'_, PyAny>>,
    analytics: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyLoopReplay> {
    let runs_value = runs_value(py, runs)?;
    let keywords = PyDict::new(py);
    for (key, item) in [("preset", preset), ("config", config), ("returns", returns), ("analytics", analytics)] {
        if let Some(item) = item {
            keywords.set_item(key, item)?;
        }
    }
    let policy_value = match policy {
        Some(p) if p.cast::<PyString>().is_ok() && keywords.is_empty() => to_value(p, NoneIs::Absent)?,
        Some(p) if p.cast::<PyString>().is_ok() => {
            keywords.set_item("preset", p)?;
            options_value(None, Some(&keywords))?
        }
        Some(p) if !p.is_none() => options_value(Some(p), Some(&keywords))?,
        _ if keywords.is_empty() => Value::Null,
        _ => options_value(None, Some(&keywords))?,
    };
    let value =
        py.detach(|| kit::loops::replay::replay_value(&runs_value, &policy_value, Naming::Snake)).or_raise(py)?;
    Ok(PyLoopReplay { value })
}

/// Restores a pickled `LoopReplay` from its JSON text.
#[pyfunction]
pub fn _restore_loop_replay(py: Python<'_>, text: &str) -> PyResult<PyLoopReplay> {
    let value = Value::parse_json(text, ErrorCode::InvalidReplay, "replay").or_raise(py)?;
    Ok(PyLoopReplay { value })
}
