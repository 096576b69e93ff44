//! `EarlyStoppingConfig`: the loop options and the named presets.

use earlyexit::{EarlyStoppingConfig, ErrorCode, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::OrRaise;
use crate::shims::value_class;
use crate::value::{options_value, AnyValue};

value_class! {
    /// `EarlyStoppingConfig`: the seed's seven options, immutable.
    "EarlyStoppingConfig" => PyEarlyStoppingConfig(EarlyStoppingConfig) {
        value: named,
        pickle: class,
        repr: snake,
    }
    getters {
        high_confidence_threshold: f64 = |c| c.high_confidence_threshold;
        plateau_consecutive_count: u64 = |c| c.plateau_consecutive_count;
        plateau_improvement_threshold: f64 = |c| c.plateau_improvement_threshold;
        min_quality_threshold: f64 = |c| c.min_quality_threshold;
        require_verification: bool = |c| c.require_verification;
        enable_plateau_detection: bool = |c| c.enable_plateau_detection;
        enable_diminishing_returns: bool = |c| c.enable_diminishing_returns;
        /// Opt-in: `'reported'` (the seed's) or `'computed'`; `None` when not set.
        plateau_delta_source: Option<&'static str> = |c| c.plateau_delta_source.map(|s| s.as_str());
        /// Opt-in: `'relative'` (the seed's) or `'absolute'`; `None` when not set.
        plateau_mode: Option<&'static str> = |c| c.plateau_mode.map(|m| m.as_str());
        min_iterations: Option<u64> = |c| c.min_iterations;
        max_iterations: Option<u64> = |c| c.max_iterations;
        max_total_tokens: Option<f64> = |c| c.max_total_tokens;
        max_total_cost_usd: Option<f64> = |c| c.max_total_cost_usd;
        max_wall_clock_ms: Option<f64> = |c| c.max_wall_clock_ms;
        regression_tolerance: Option<f64> = |c| c.regression_tolerance;
        regression_patience: Option<u64> = |c| c.regression_patience;
        /// Opt-in: the quality every record of a plateau window must reach; `None` when not set.
        plateau_min_quality: Option<f64> = |c| c.plateau_min_quality;
        /// Opt-in: records without a new best that give up (trigger `no_improvement`).
        no_improvement_patience: Option<u64> = |c| c.no_improvement_patience;
        /// Opt-in resume safety: iteration numbers must increase; `None` when not set.
        strict_iterations: Option<bool> = |c| c.strict_iterations;
        /// Opt-in: the no-improvement patience while the best is at or below `floor_quality`.
        floor_patience: Option<u64> = |c| c.floor_patience;
        /// Opt-in: the floor of `floor_patience` (default 0); `None` when not set.
        floor_quality: Option<f64> = |c| c.floor_quality;
    }
    methods {
        #[new]
        #[pyo3(signature = (config = None, /, **options))]
        fn new(
            py: Python<'_>,
            config: Option<&Bound<'_, PyAny>>,
            options: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<Self> {
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
            let inner =
                self.inner.merged(&value, Naming::Snake, "options", ErrorCode::InvalidConfig).or_raise(py)?;
            Ok(PyEarlyStoppingConfig { inner })
        }

        /// A named preset (`'seed'`, the default, or `'recommended'`) with keyword overrides.
        #[staticmethod]
        #[pyo3(signature = (name, /, **overrides))]
        fn from_preset(py: Python<'_>, name: AnyValue, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
            Ok(PyEarlyStoppingConfig { inner: preset_config(py, &name.0, overrides)? })
        }
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
