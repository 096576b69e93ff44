//! Engine 2, the test pyramid (ADR-033): may a test run skip its remaining layers? The
//! controller is a sans-IO state machine (`EarlyExitController.runWithEarlyExit`, turned
//! inside out).
//!
//! The host asks [`PyramidRun::next`] what to do, runs that layer itself (sync, async,
//! in another CI job), and feeds the outcome back with [`PyramidRun::submit`]. The core
//! never calls into the host, so runner errors, async runners and cancellation stay where
//! they belong, and every run is its own value.
//!
//! Order of actions, as the ADR's loop does it: run layers 0, 1, ... in order; after each,
//! compute the quality signal (with `previousLambda` = the previous layer's lambda) and
//! ask [`CoherenceEarlyExit::should_exit`]. On an exit with speculation enabled and layers
//! left, predict every skipped layer and verify the first `verificationLayers` of them, in
//! order, one `Verify` action each. Then `Done`.
//!
//! # The verdict
//!
//! Every result says whether the build is red, green or not known to be either
//! ([`Verdict`]), from what the run observed and nothing else, so the same rule holds for
//! any policy that decides which layers run: a layer that ran or was verified is *failing*
//! when some of its tests did not pass, `passRate < 1` ([`layer_failed`]; the runner reports
//! the rate after its own flaky retries). Then the verdict is `failed` when some observed
//! layer is failing, else `passed` when every layer was observed, else `unverified` (no
//! failure seen, but a layer was skipped without being run). The ADR's 0.99 threshold
//! ([`classify_outcome`]) only grades a prediction; it never makes a red layer green here.
//! The rule and its reasons are written out for users in `docs/pyramid-verdict.md`.
//!
//! # Files, lowest layer first
//!
//! `signal` ([`LayerResult`] to [`QualitySignal`]) < `exit` ([`ExitConfig`],
//! [`CoherenceEarlyExit`]) < `speculation` (predict and verify skipped layers) < `result`
//! ([`LayerSpec`], [`Action`], [`Verdict`], [`TestPyramidResult`]) < `run` ([`PyramidRun`]),
//! every item re-exported here; [`policy`] (the fail-fast / risk-bounded policy, its
//! outcome model, and its live runs: `PolicyRun`, `LiveRun`) and [`replay`] (policies
//! replayed over recorded runs, shadow mode, calibration) stand on top. `test_report`
//! (JUnit reports a host has parsed, folded into one [`LayerResult`]) stands on `signal` only.

mod exit;
pub mod policy;
pub mod replay;
pub(crate) mod result;
pub(crate) mod run;
mod signal;
pub(crate) mod speculation;
pub(crate) mod test_report;

pub use exit::{
    CoherenceEarlyExit, ExitConfig, ExitDecision, ExitPreset, ExitReason, ExitVerdict, EXIT_CONFIG_FIELDS, EXIT_PRESETS,
};
pub(crate) use result::{check_layer_key, layer_failed};
pub use result::{Action, FailingLayer, LayerSpec, TestPyramidResult, Verdict, LAYER_KEYS, NOTE_NOTHING_SAVED};
pub(crate) use run::parse_layers;
pub use run::PyramidRun;
pub use signal::{
    calculate_quality_signal, count_quality_partitions, LayerResult, QualitySignal, TestCounts, LAYER_RESULT_FIELDS,
};
pub(crate) use speculation::classify_outcome;
pub use speculation::{speculate, Outcome, Speculation, SpeculativeExecutor};
