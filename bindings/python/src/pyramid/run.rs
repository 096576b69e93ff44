//! `PyramidRun`: one pyramid run driven step by step (the core's sans-IO state machine),
//! decided by the ADR's exit decision or by the `fail_fast` / `risk_bounded` policy (the
//! core's `LiveRun`).

use std::sync::Mutex;

use earlyexit::{pyramid::policy::LiveRun, Naming, Value};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::error::OrRaise;
use crate::pyramid::exit::{exit_config_value, PyExitDecision};
use crate::pyramid::layers::layer_specs_value;
use crate::pyramid::policy::run_options_value;
use crate::pyramid::result::{PyPyramidAction, PyTestPyramidResult};
use crate::shims::{self, core_from_snapshot, lock, locked, repr_of, EngineClass};
use crate::value::{to_value, NoneIs};

/// One pyramid run driven step by step (the core's sans-IO state machine).
#[pyclass(frozen, module = "earlyexit._native", name = "PyramidRun")]
pub struct PyPyramidRun {
    inner: Mutex<LiveRun>,
}

impl EngineClass for PyPyramidRun {
    type Core = LiveRun;

    fn core(&self) -> &Mutex<LiveRun> {
        &self.inner
    }

    fn restore(py: Python<'_>, snapshot: &Bound<'_, PyAny>, _analytics: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(PyPyramidRun { inner: Mutex::new(core_from_snapshot(py, snapshot)?) })
    }
}

#[pymethods]
impl PyPyramidRun {
    /// `start(config, total_layers, layers, *, policy, mode, model, policy_config)`: `layers`
    /// lists each layer as `(name, runner)`, a mapping with `name` and optional `cost_ms`, or
    /// an object with those attributes; the keywords choose the policy (None: the default).
    #[staticmethod]
    #[pyo3(signature = (config, total_layers, layers, *, policy = None, mode = None, model = None, policy_config = None, run_id = None, label = None, now = None))]
    #[allow(clippy::too_many_arguments)]
    fn start(
        py: Python<'_>,
        config: Option<&Bound<'_, PyAny>>,
        total_layers: &Bound<'_, PyAny>,
        layers: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
        model: Option<&Bound<'_, PyAny>>,
        policy_config: Option<&Bound<'_, PyAny>>,
        run_id: Option<&Bound<'_, PyAny>>,
        label: Option<&Bound<'_, PyAny>>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let config = exit_config_value(config)?;
        let total = to_value(total_layers, NoneIs::Absent)?;
        let options = run_options_value(py, policy, mode, model, policy_config, run_id, label, now)?;
        let specs = layer_specs_value(layers)?;
        let host = crate::pyramid::policy::host_services();
        let run = LiveRun::start_value_at(&config, &total, &specs, &options, &Value::Null, Naming::Snake, host)
            .or_raise(py)?;
        Ok(PyPyramidRun { inner: Mutex::new(run) })
    }

    /// What to do next (does not advance anything).
    fn next(&self) -> PyPyramidAction {
        PyPyramidAction { inner: lock(&self.inner).next() }
    }

    /// Feeds the pending layer's result; returns the exit decision for a run layer, `None`
    /// for a verified one.
    fn submit(
        &self,
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        result: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PyExitDecision>> {
        let layer = to_value(layer, NoneIs::Absent)?;
        let result = to_value(result, NoneIs::Absent)?;
        let decision = locked(&self.inner, |run| run.submit_value(&layer, &result, Naming::Snake)).or_raise(py)?;
        Ok(decision.map(|inner| PyExitDecision { inner }))
    }

    /// The assembled result (an `invalid_step` error before the run is done).
    fn result(&self, py: Python<'_>) -> PyResult<PyTestPyramidResult> {
        let inner = locked(&self.inner, |run| run.result()).or_raise(py)?;
        Ok(PyTestPyramidResult { inner })
    }

    /// Whether the run is finished.
    #[getter]
    fn is_done(&self) -> bool {
        lock(&self.inner).is_done()
    }

    /// The portable snapshot as JSON text (the run's inputs, replayed on restore).
    fn to_json(&self) -> String {
        shims::to_json(self)
    }

    /// Restores `to_json()` text (or its parsed dict).
    #[staticmethod]
    fn from_json(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<Self> {
        <Self as EngineClass>::restore(py, snapshot, None)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::reduce_engine(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        repr_of("PyramidRun", &[("next", self.next().into_bound_py_any(py)?)])
    }
}
