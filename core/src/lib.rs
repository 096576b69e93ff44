//! # earlyexit
//!
//! Decide when an iterative process should stop. Two engines, exact to their seeds:
//!
//! * [`loops`]: should an agent's refinement loop stop (high confidence with
//!   verification, quality plateau, diminishing returns)? A drop-in for the JavaScript
//!   `early-stopping.mjs`; [`analytics`] is its built-in diminishing-returns source.
//! * the test pyramid (ADR-033): [`signal`] turns a layer's result into a quality signal,
//!   [`exit_decision`] decides whether the remaining layers may be skipped, [`speculation`]
//!   predicts and verifies them, and [`pyramid`] drives a run as a sans-IO state machine.
//!
//! For valid input every number is computed in the seeds' order (bit-identical f64) and
//! every string is built as JavaScript builds it ([`num`]). Every fallible entry point
//! returns [`Error`] with a stable code and the offending field; nothing panics.
//!
//! Bindings hand host values to the core as [`Value`]s, so validation, field names and
//! messages live here once for Python, Node and WebAssembly.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]
#![warn(missing_docs)]

pub mod host;
pub mod loops;
pub mod num;
pub mod pyramid;
pub mod time;
pub mod value;

pub use loops::analytics::{AnalyticsConfig, IterationAnalytics, SelectionCriteria, Trajectory};
pub use loops::{
    DiminishingReturnsReport, EarlyStopping, EarlyStoppingConfig, IterationRecord, IterationResult, Observation,
    Recorded, StoppingDecision, StoppingDetails, Trigger, VerificationStatus,
};
pub use pyramid::{
    calculate_quality_signal, count_quality_partitions, Action, CoherenceEarlyExit, ExitConfig, ExitDecision,
    ExitReason, FailingLayer, LayerResult, LayerSpec, Outcome, PyramidRun, QualitySignal, Speculation,
    SpeculativeExecutor, TestPyramidResult, Verdict,
};
pub use value::{limits, snapshot};
pub use value::{Error, ErrorCode, ErrorKind, Naming, Result, Value};
