//! # earlyexit
//!
//! Decide when an iterative process should stop. Two engines, exact to their seeds:
//!
//! * [`loop_stopping`]: should an agent's refinement loop stop (high confidence with
//!   verification, quality plateau, diminishing returns)? A drop-in for the JavaScript
//!   `early-stopping.mjs`; [`analytics`] is its built-in diminishing-returns source.
//! * the test pyramid (ADR-033): [`signal`] turns a layer's result into a quality signal,
//!   [`exit_decision`] decides whether the remaining layers may be skipped, [`speculation`]
//!   predicts and verifies them, and [`pyramid`] drives a run as a sans-IO state machine.
//!
//! For valid input every number is computed in the seeds' order (bit-identical f64) and
//! every string is built as JavaScript builds it ([`jsnum`]). Every fallible entry point
//! returns [`Error`] with a stable code and the offending field; nothing panics.
//!
//! Bindings hand host values to the core as [`Value`]s, so validation, field names and
//! messages live here once for Python, Node and WebAssembly.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]
#![warn(missing_docs)]

pub mod analytics;
pub mod analytics_report;
pub mod error;
pub mod exit_decision;
mod float_parse;
pub mod host;
pub mod jsnum;
pub mod limits;
pub mod loop_replay;
pub mod loop_state;
pub mod loop_stopping;
pub mod pyramid;
pub mod pyramid_policy;
pub mod pyramid_replay;
pub mod replay_input;
pub mod results;
pub mod signal;
pub mod snapshot;
pub mod speculation;
pub mod test_report;
pub mod timestamp;
pub mod value;

#[cfg(feature = "serde")]
mod serde_impl;

pub use analytics::{AnalyticsConfig, IterationAnalytics, SelectionCriteria, Trajectory};
pub use error::{Error, ErrorCode, ErrorKind, Result};
pub use exit_decision::{CoherenceEarlyExit, ExitConfig, ExitDecision, ExitReason, EXIT_PRESETS};
pub use loop_stopping::{
    DiminishingReturnsReport, EarlyStopping, EarlyStoppingConfig, IterationRecord, IterationResult, Observation,
    Recorded, StoppingDecision, StoppingDetails, Trigger, VerificationStatus,
};
pub use pyramid::{Action, FailingLayer, LayerSpec, PyramidRun, TestPyramidResult, Verdict};
pub use signal::{calculate_quality_signal, count_quality_partitions, LayerResult, QualitySignal};
pub use speculation::{Outcome, Speculation, SpeculativeExecutor};
pub use value::{Naming, Value};

// Entry points of hosts that stream replay input or read test reports (the command-line
// tool): re-exported here so their paths do not depend on the module layout.
pub use loop_replay::{LoopPolicy, ReplayStream as LoopReplayStream};
pub use loop_stopping::LOOP_PRESETS;
pub use pyramid_replay::{CalibrationRequest, RecordedRun, ReplayStream as PyramidReplayStream};
pub use replay_input::JsonlLines;
pub use test_report::{AttemptStatus, Role as TestReportRole, TestReportTally};
