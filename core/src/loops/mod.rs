//! Engine 1: should an agent's refinement loop stop? A drop-in for aiwg's
//! `early-stopping.mjs` ("upstream" below).
//!
//! # Order of checks in [`EarlyStopping::should_stop_with`]
//!
//! Upstream's order, first stop wins, with the opt-in options (all off by default, so the
//! default output is upstream's) placed deliberately around it:
//! 1. empty history: go on, `'No iterations completed yet'`, confidence 1.0;
//! 2. *hard limits* (opt-in), before any quality trigger because they bound cost whatever
//!    the quality says: budgets (`maxTotalTokens`, `maxTotalCostUsd`, `maxWallClockMs`, in
//!    that order; trigger `budget_exhausted`), then `maxIterations` (`max_iterations`);
//! 3. *warm-up* (opt-in `minIterations`): while fewer iterations are recorded, go on with
//!    `'Warm-up: iteration N of M'`; no quality trigger stops and the outside source is not asked;
//! 4. high confidence on the last record (confidence >= `high_confidence_threshold` and
//!    quality >= `min_quality_threshold`, and with `require_verification` a `passed`
//!    verification; a high-confidence record that is not verified falls through);
//! 5. quality plateau (if enabled) over the last `plateau_consecutive_count` records
//!    (opt-in `plateauDeltaSource`, `plateauMode`; with `plateauMinQuality` a window holding
//!    a record below that quality is no plateau);
//! 6. quality regression (opt-in `regressionTolerance`/`regressionPatience`), then no
//!    improvement (opt-in `noImprovementPatience`: that many records in a row brought no new
//!    best quality; the explicit give-up rule of the `recommended` preset);
//! 7. diminishing returns from an outside source (if enabled and one is attached), asked
//!    only when nothing above stopped (it may be costly, as in upstream);
//! 8. otherwise go on, `'Continuing iteration - no stopping criteria met'`, confidence 0.7.
//!
//! Every decision also carries the best iteration so far (`best_iteration`,
//! `best_quality_score`) and, once a budget is configured, `budgets`.
//!
//! Why hard limits first: a budget or a cap bounds what the loop may spend whatever the
//! quality says, so when a budget runs out in the same step as a plateau (or high
//! confidence) the decision is `budget_exhausted`, the reason that holds unconditionally.
//! The options, their reasons and details are described in `docs/loop-options.md`.
//!
//! This order is written once, in `verdict`: the owning engine, the replay
//! (`decide_over`) and the JS fast path (`bindings/js/fast`) all call it, so they cannot drift.
//!
//! The bindings also reach the rules as stateless functions over [`Observation`]s (in the
//! crate's hidden `kit` module), so a binding can keep the decision state in a buffer it
//! owns and call the core without a native object per engine (see
//! `docs/performance-notes.md`); a Rust program asks [`EarlyStopping`] or [`Loop`].
//!
//! # Files, lowest layer first
//!
//! Each file uses only the ones above it: `vocabulary` (statuses, triggers, budgets) <
//! `config` (the options) < `presets` (the named configs) < `records` (what an iteration
//! reports, the history) < `details` (the details of a stop) < `decision` (decisions and
//! summaries) < `state` (the compact state a decision reads) < `rules` (each rule on its
//! own) < `verdict` (the order) < `engine` ([`EarlyStopping`]) < `snapshot` (its portable
//! form). [`analytics`] (the built-in diminishing-returns source) and [`replay`] (policies
//! replayed over recorded runs) stand on top, and [`behavior`] (upstream's behaviour
//! detectors and graded interventions) beside them. Every item a Rust program calls is
//! re-exported here.

pub(crate) mod agent;
pub mod analytics;
pub mod behavior;
mod candidate;
pub(crate) mod config;
mod decision;
mod details;
pub(crate) mod engine;
pub mod policy;
mod presets;
pub(crate) mod records;
pub(crate) mod refine;
pub mod replay;
pub(crate) mod rules;
pub mod shadow;
pub(crate) mod snapshot;
pub(crate) mod state;
pub(crate) mod verdict;
mod vocabulary;

pub use config::{EarlyStoppingConfig, PlateauDeltaSource, PlateauMode, CONFIG_FIELDS, DEFAULT_REGRESSION_PATIENCE};
pub use decision::{
    BudgetStatus, ConditionIntervention, FinalRecord, FiredCondition, StoppingDecision, StoppingSummary, WouldStop,
    REASON_CONTINUE, REASON_NO_ITERATIONS,
};
pub use details::{DiminishingReturnsReport, PlateauStep, ReportedIteration, StoppingDetails};
pub use engine::EarlyStopping;
pub use policy::{ConditionKind, PolicyState, StopCondition, StopPolicy};
pub use presets::{LoopPreset, ReturnPolicy, LOOP_PRESETS};
pub(crate) use records::record_of;
pub use records::{
    IterationRecord, IterationResult, Observation, Recorded, ResourceUsage, HISTORY_FIELD, RESULT_FIELDS, RESULT_TYPES,
};
pub use refine::{Kept, Loop, LoopOptions, StepInput, LOOP_SCALES, SCALE_NOTICE};
pub(crate) use rules::{stop_reason, stop_trigger};
pub use rules::{
    REASON_HIGH_CONFIDENCE_NOT_MET, REASON_NO_ANALYTICS, REASON_NO_DIMINISHING_RETURNS, REASON_STILL_IMPROVING,
};
pub use snapshot::{SNAPSHOT_ENGINE, SNAPSHOT_VERSION, STRICT_ITERATIONS_FROM};
pub use state::{BestIteration, LoopCounters, LoopTally, ObservationWindow, ObservationWindowMut};
pub(crate) use verdict::verdict;
pub use verdict::{SeedCheck, Step, Verdict};
pub use vocabulary::{Budget, Trigger, VerificationStatus};

/// Whether the last observation stops the loop with high confidence.
#[deprecated(note = "ask `EarlyStopping::should_stop`; the stateless rule is the bindings' (`kit::loops`)")]
#[doc(hidden)]
pub fn check_high_confidence(config: &EarlyStoppingConfig, last: &Observation) -> Option<StoppingDecision> {
    rules::check_high_confidence(config, last)
}

/// Whether the history has reached a quality plateau.
#[deprecated(note = "ask `EarlyStopping::should_stop`; the stateless rule is the bindings' (`kit::loops`)")]
#[doc(hidden)]
pub fn check_plateau<R: AsRef<Observation>>(config: &EarlyStoppingConfig, history: &[R]) -> Option<StoppingDecision> {
    rules::check_plateau(config, history)
}

/// The stop a diminishing-returns report calls for.
#[deprecated(note = "ask `EarlyStopping::should_stop`; the stateless rule is the bindings' (`kit::loops`)")]
#[doc(hidden)]
pub fn diminishing_returns_decision(report: &DiminishingReturnsReport) -> Option<StoppingDecision> {
    rules::diminishing_returns_decision(report)
}
