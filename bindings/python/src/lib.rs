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

mod artifact;
mod error;
mod loops;
mod pyramid;
mod restore;
mod shims;
mod store;
mod value;

use earlyexit::{limits, LOOP_PRESETS};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use shims::classes;
use store::PyStore;

use loops::analytics::engine::PyIterationAnalytics;
use loops::analytics::{
    PyAnalyticsConfig, PyAnalyticsRecord, PyAnalyticsSummary, PyDiminishingReturnsReport, PyIterationSelection,
};
use loops::behavior::{
    PyBehaviorDetector, PyBehaviorThresholds, PyDetection, PyIntervention, PyInterventionSummary, PyInterventionSystem,
};
use loops::calibrate::PyLoopCalibration;
use loops::config::PyEarlyStoppingConfig;
use loops::decision::{PyStoppingDecision, PyStoppingSummary};
use loops::engine::PyEarlyStopping;
use loops::records::PyIterationRecord;
use loops::refine::PyLoop;
use loops::replay::PyLoopReplay;
use pyramid::exit::{PyCoherenceEarlyExit, PyEarlyExitConfig, PyExitDecision};
use pyramid::model::PyOutcomeModel;
use pyramid::result::{PyFailingLayer, PyPyramidAction, PyTestPyramidResult};
use pyramid::run::PyPyramidRun;
use pyramid::signal::{PyLayerResult, PyQualitySignal};
use pyramid::speculation::{PySpeculation, PySpeculativeExecutor};

// The module's classes, each once: `mapping` converts it to its value wherever a mapping is
// accepted, `result` makes `_restore_result` rebuild it, `engine` makes `_restore` rebuild it
// from its snapshot.
classes! {
    PyEarlyStoppingConfig [mapping],
    PyIterationRecord [mapping, result],
    PyStoppingDecision [mapping, result],
    PyStoppingSummary [result],
    PyEarlyStopping [engine],
    PyLoop [],
    PyAnalyticsConfig [mapping],
    PyAnalyticsRecord [mapping, result],
    PyDiminishingReturnsReport [mapping, result],
    PyIterationSelection [result],
    PyAnalyticsSummary [result],
    PyIterationAnalytics [engine],
    PyLoopReplay [],
    PyLoopCalibration [],
    PyBehaviorThresholds [mapping, result],
    PyDetection [mapping, result],
    PyIntervention [mapping, result],
    PyInterventionSummary [result],
    PyBehaviorDetector [],
    PyInterventionSystem [],
    PyLayerResult [mapping],
    PyQualitySignal [mapping],
    PyEarlyExitConfig [mapping],
    PyExitDecision [mapping, result],
    PyCoherenceEarlyExit [],
    PySpeculation [mapping, result],
    PySpeculativeExecutor [],
    PyTestPyramidResult [result],
    PyFailingLayer [result],
    PyPyramidAction [result],
    PyPyramidRun [engine],
    PyOutcomeModel [mapping],
    PyStore [],
}

/// The native module. The public API is re-exported by the `earlyexit` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_classes(m)?;
    m.add_function(wrap_pyfunction!(pyramid::signal::calculate_quality_signal_py, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::signal::count_quality_partitions_py, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::junit::read_junit, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::signal::_restore_signal, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::layers::_layer_runners, m)?)?;
    m.add_function(wrap_pyfunction!(restore::_restore, m)?)?;
    m.add_function(wrap_pyfunction!(restore::_restore_result, m)?)?;
    m.add_function(wrap_pyfunction!(loops::engine::_restore_loop_policy, m)?)?;
    m.add_function(wrap_pyfunction!(value::_conversion_visits, m)?)?;
    m.add_function(wrap_pyfunction!(loops::replay::replay_loops, m)?)?;
    m.add_function(wrap_pyfunction!(loops::refine::output_fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(loops::replay::_restore_loop_replay, m)?)?;
    m.add_function(wrap_pyfunction!(loops::calibrate::calibrate_loop_policy, m)?)?;
    m.add_function(wrap_pyfunction!(loops::calibrate::calibration_plan, m)?)?;
    m.add_function(wrap_pyfunction!(loops::calibrate::_restore_loop_calibration, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::replay::replay_pyramids, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::replay::shadow_pyramids, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::replay::calibrate_pyramid_policy, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::policy::pyramid_policy_decide, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::policy::pyramid_policy_update, m)?)?;
    m.add_function(wrap_pyfunction!(pyramid::policy::_run_options, m)?)?;
    m.add_function(wrap_pyfunction!(artifact::verify_receipts, m)?)?;
    m.add_function(wrap_pyfunction!(artifact::append_receipts, m)?)?;
    m.add_function(wrap_pyfunction!(artifact::check_pyramid_drift, m)?)?;
    m.add_function(wrap_pyfunction!(artifact::promote_pyramid_policy, m)?)?;
    m.add_function(wrap_pyfunction!(artifact::check_loop_drift, m)?)?;
    m.add_function(wrap_pyfunction!(artifact::promote_loop_policy, m)?)?;
    m.add_function(wrap_pyfunction!(store::_check_store_name, m)?)?;
    m.add("_DEFAULT_LOOP_RECEIPT_LOG", earlyexit_store::host::DEFAULT_LOOP_RECEIPT_LOG)?;
    m.add("_DEFAULT_PYRAMID_RECEIPT_LOG", earlyexit_store::host::DEFAULT_PYRAMID_RECEIPT_LOG)?;
    m.add("LOOP_PRESETS", LOOP_PRESETS.to_vec())?;
    // The behaviour detectors' defaults and the intervention levels (the core's tables).
    m.add("THRESHOLDS", PyBehaviorThresholds { inner: earlyexit::loops::behavior::Thresholds::DEFAULT })?;
    let levels = PyDict::new(m.py());
    for (name, level) in earlyexit::loops::behavior::INTERVENTION_LEVELS {
        levels.set_item(name, level.as_str())?;
    }
    m.add("INTERVENTION_LEVELS", levels)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The size limits (docs/limits.md), from the core's one table.
    let limits = PyDict::new(m.py());
    for limit in limits::ALL {
        limits.set_item(limit.snake, limit.value)?;
    }
    m.add("LIMITS", limits)?;
    Ok(())
}
