//! `EarlyStoppingConfig`: the loop options and the named presets.

use earlyexit::kit::loops::config::Plain;
use earlyexit::{EarlyStoppingConfig, ErrorCode, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::OrRaise;
use crate::shims::value_class;
use crate::value::{options_value, AnyValue};

/// The class, one getter per config key from the core's table (`loop_config_fields!`): a
/// number, count or flag as it is, a named option as its name, `None` when unset ([`Plain`]).
macro_rules! config_class {
    ($($field:ident: $ty:ty, $name:ident = $camel:literal, $fty:expr, $doc:literal;)*) => {
        value_class! {
            /// `EarlyStoppingConfig`: the seed's seven options, immutable.
            "EarlyStoppingConfig" => PyEarlyStoppingConfig(EarlyStoppingConfig) {
                value: named,
                pickle: class,
                repr: snake,
            }
            getters {
                $( #[doc = $doc] $field: <$ty as Plain>::Out = |c| Plain::plain(&c.$field); )*
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
    };
}

earlyexit::loop_config_fields!(config_class);

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
