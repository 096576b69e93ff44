//! # earlyexit
//!
//! Decide when an iterative process should stop. Two engines, in one dependency-free core:
//!
//! * [`loops`]: should an agent's refinement loop stop (high confidence with verification,
//!   a quality plateau, diminishing returns, opt-in budgets and give-up rules)? A drop-in
//!   for aiwg's `early-stopping.mjs`: [`EarlyStopping`], with [`loops::analytics`] (its
//!   built-in diminishing-returns source, a drop-in for `iteration-analytics.mjs`) and
//!   [`loops::replay`] (loop policies replayed over recorded runs).
//! * [`pyramid`]: may a test run skip its remaining layers? ADR-033's controller as a
//!   sans-IO state machine ([`PyramidRun`]), with [`pyramid::policy`] (a fail-fast,
//!   risk-bounded policy) and [`pyramid::replay`] (policies replayed over recorded runs).
//!
//! Both stand on a ground floor that knows neither: [`value`] (the dynamic [`Value`] every
//! binding converts its host objects to, JSON, field-naming readers, [`Error`], the
//! [`limits`] and the [`snapshot`] checks) and [`time`] (RFC 3339 timestamps). What only
//! the bindings and the command call (host messages, the stateless `*_value` adapters over
//! [`Value`], numbers written as JavaScript writes them) lives in a module hidden from
//! these docs.
//!
//! For valid input every number is computed in the order of the JavaScript implementations
//! the engines reproduce (bit-identical f64), and every string is built as JavaScript builds
//! it. Every fallible entry point returns [`Error`] with a stable code and the offending
//! field; nothing panics. Bindings hand host values to the core as [`Value`]s, so
//! validation, field names and messages live here once for Python, Node and WebAssembly.
//!
//! ```
//! use earlyexit::{EarlyStopping, EarlyStoppingConfig, IterationResult, Trigger, VerificationStatus};
//!
//! let mut engine = EarlyStopping::new(EarlyStoppingConfig::default())?;
//! for (iteration, quality) in [(1, 80.0), (2, 80.5), (3, 80.6)] {
//!     let result = IterationResult::new(quality, 0.6, VerificationStatus::Failed, quality - 80.0);
//!     engine.record(iteration, result, || "2026-01-01T00:00:00.000Z".to_string())?;
//! }
//! let decision = engine.should_stop();
//! assert!(decision.stop);
//! assert_eq!(decision.trigger, Trigger::QualityPlateau);
//! # Ok::<(), earlyexit::Error>(())
//! ```

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]
#![warn(missing_docs)]

pub mod artifact;
mod host;
#[doc(hidden)]
pub mod kit;
pub mod loops;
mod num;
pub mod pyramid;
pub mod receipt_log;
pub mod time;
pub mod value;

pub use loops::analytics::{AnalyticsConfig, IterationAnalytics, SelectionCriteria, Trajectory};
pub use loops::replay::{replay_loops, LoopPolicy, LoopReplay, LoopReplayStream, ReplayRun};
pub use loops::{
    Budget, DiminishingReturnsReport, EarlyStopping, EarlyStoppingConfig, IterationRecord, IterationResult, LoopPreset,
    Observation, Recorded, ReturnPolicy, StopCondition, StopPolicy, StoppingDecision, StoppingDetails, Trigger,
    VerificationStatus, LOOP_PRESETS,
};
pub use pyramid::{
    calculate_quality_signal, count_quality_partitions, Action, CoherenceEarlyExit, ExitConfig, ExitDecision,
    ExitPreset, ExitReason, FailingLayer, LayerResult, LayerSpec, Outcome, PyramidRun, QualitySignal, Speculation,
    SpeculativeExecutor, TestPyramidResult, Verdict, EXIT_PRESETS,
};
pub use value::{limits, snapshot};
pub use value::{Error, ErrorCode, ErrorKind, Naming, Result, Value};
