//! `EarlyStoppingConfig`: the loop options and the named presets.

use earlyexit::{EarlyStoppingConfig, ErrorCode, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::OrRaise;
use crate::shims::{self, core_value};
use crate::value::{options_value, AnyValue};

core_value!(named: PyEarlyStoppingConfig);

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
        shims::to_dict(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        shims::repr(py, self)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        shims::reduce_by_class(slf)
    }
}

/// A named preset's config with keyword overrides merged (validated).
pub(crate) fn preset_config(
    py: Python<'_>,
    name: &Value,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<EarlyStoppingConfig> {
    let preset = EarlyStoppingConfig::preset_value(name, "name").or_raise(py)?;
    let changes = options_value(None, overrides)?;
    preset.merged(&changes, Naming::Snake, "options", ErrorCode::InvalidConfig).or_raise(py)
}
