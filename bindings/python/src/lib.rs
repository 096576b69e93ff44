//! `earlyexit._native`: the Python binding of the `earlyexit` core (pyo3, abi3).
//!
//! A thin layer: Python objects are converted to the core's `Value` (snake_case names),
//! the core validates and decides, and its results come back as immutable typed objects
//! whose `to_dict()` is the JSON the JS API returns. Errors are the core's, raised as
//! `earlyexit.EarlyExitError` / `earlyexit.EarlyExitTypeError`. No panics: nothing here
//! unwraps, and the core returns errors instead of panicking.
//!
//! The files mirror the core modules they bind: `loops/` (engine 1) and `pyramid/`
//! (engine 2), with the conversions (`value`), the exceptions (`error`), what every class
//! shares (`shims`) and unpickling (`restore`) beside them.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod error;
mod loops;
mod pyramid;
mod restore;
mod shims;
mod value;

use earlyexit::{limits, loop_stopping::LOOP_PRESETS, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use loops::analytics::engine::PyIterationAnalytics;
use loops::analytics::{
    PyAnalyticsConfig, PyAnalyticsRecord, PyAnalyticsSummary, PyDiminishingReturnsReport, PyIterationSelection,
};
use loops::config::PyEarlyStoppingConfig;
use loops::decision::{PyStoppingDecision, PyStoppingSummary};
use loops::engine::PyEarlyStopping;
use loops::records::PyIterationRecord;
use loops::replay::PyLoopReplay;
use pyramid::exit::{PyCoherenceEarlyExit, PyEarlyExitConfig, PyExitDecision};
use pyramid::result::{PyFailingLayer, PyPyramidAction, PyTestPyramidResult};
use pyramid::run::PyPyramidRun;
use pyramid::signal::{PyLayerResult, PyQualitySignal};
use pyramid::speculation::{PySpeculation, PySpeculativeExecutor};

/// The core value an object of this module's own types stands for (snake_case keys), so
/// that a `LayerResult`, a config or a decision can be passed wherever a mapping can.
pub(crate) fn known_object_value(obj: &Bound<'_, PyAny>) -> Option<Value> {
    use shims::snake_value_if;
    snake_value_if::<PyLayerResult>(obj)
        .or_else(|| snake_value_if::<PyEarlyExitConfig>(obj))
        .or_else(|| snake_value_if::<PyQualitySignal>(obj))
        .or_else(|| snake_value_if::<PyExitDecision>(obj))
        .or_else(|| snake_value_if::<PySpeculation>(obj))
        .or_else(|| snake_value_if::<PyEarlyStoppingConfig>(obj))
        .or_else(|| snake_value_if::<PyAnalyticsConfig>(obj))
        .or_else(|| snake_value_if::<PyDiminishingReturnsReport>(obj))
        .or_else(|| snake_value_if::<PyIterationRecord>(obj))
        .or_else(|| snake_value_if::<PyAnalyticsRecord>(obj))
        .or_else(|| snake_value_if::<PyStoppingDecision>(obj))
}

/// The native module. The public API is re-exported by the `earlyexit` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEarlyStoppingConfig>()?;
    m.add_class::<PyIterationRecord>()?;
    m.add_class::<PyStoppingDecision>()?;
    m.add_class::<PyStoppingSummary>()?;
    m.add_class::<PyEarlyStopping>()?;
    m.add_class::<PyAnalyticsConfig>()?;
    m.add_class::<PyAnalyticsRecord>()?;
    m.add_class::<PyDiminishingReturnsReport>()?;
    m.add_class::<PyIterationSelection>()?;
    m.add_class::<PyAnalyticsSummary>()?;
    m.add_class::<PyIterationAnalytics>()?;
    m.add_class::<PyLayerResult>()?;
    m.add_class::<PyQualitySignal>()?;
    m.add_class::<PyEarlyExitConfig>()?;
    m.add_class::<PyExitDecision>()?;
    m.add_class::<PyCoherenceEarlyExit>()?;
    m.add_class::<PySpeculation>()?;
    m.add_class::<PySpeculativeExecutor>()?;
    m.add_class::<PyTestPyramidResult>()?;
    m.add_class::<PyFailingLayer>()?;
    m.add_class::<PyPyramidAction>()?;
    m.add_class::<PyPyramidRun>()?;
    m.add_class::<PyLoopReplay>()?;
    m.add_function(wrap_pyfunction!(pyramid::signal::calculate_quality_signal_py, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::signal::count_quality_partitions_py, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::signal::_restore_signal, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::layers::_layer_runners, m)?)?;
    m.add_function(wrap_pyfunction!(restore::_restore, m)?)?;
    m.add_function(wrap_pyfunction!(restore::_restore_result, m)?)?;
    m.add_function(wrap_pyfunction!(value::_conversion_visits, m)?)?;
    m.add_function(wrap_pyfunction!(loops::replay::replay_loops, m)?)?;
    m.add_function(wrap_pyfunction!(loops::replay::_restore_loop_replay, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::replay::replay_pyramids, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::replay::shadow_pyramids, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::replay::calibrate_pyramid_policy, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::policy::pyramid_policy_decide, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::policy::pyramid_policy_update, m)?)?;
    m.add("LOOP_PRESETS", LOOP_PRESETS.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The size limits (docs/limits.md), from the core's one table.
    let limits = PyDict::new(m.py());
    for limit in limits::ALL {
        limits.set_item(limit.snake, limit.value)?;
    }
    m.add("LIMITS", limits)?;
    Ok(())
}
