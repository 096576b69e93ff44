//! A recommended pyramid policy beside the ADR's presets (which stay the default): fail
//! fast when a layer fails, and skip the remaining layers on success only while the
//! history of earlier runs bounds the risk.
//!
//! The history is an [`OutcomeModel`]: per layer (by name), a Beta-Binomial count of how
//! often the layer failed *when every layer run before it in that run had passed*, with
//! exponential forgetting, plus a forgetting-weighted mean cost. It is plain JSON,
//! versioned and validated on load, so CI can persist it between runs.
//!
//! After some layers ran and passed, the policy may stop only when the upper confidence
//! bound of P(some remaining layer fails | what ran passed) is within the user's risk
//! budget. By the chain rule that probability is 1 - prod(1 - q_j) over the remaining
//! layers, q_j = P(layer j fails | the layers before it passed), which is what the model
//! counts; each q_j is bounded by its Beta posterior quantile at level
//! 1 - (1 - confidence) / m (Bonferroni over the m remaining layers, so the joint bound
//! holds at `confidence`). A layer the model has never seen has a bound near 1, so it is
//! always run. With `reorder`, layers whose order does not matter (independent CI stages)
//! run by failure probability per expected cost, highest first, which is the order that
//! minimises expected cost under fail-fast for independent layers.
//!
//! The policy runs live as [`PolicyRun`] (the same step API as the ADR's
//! [`PyramidRun`](crate::PyramidRun); [`LiveRun`] is either, chosen by [`RunOptions`]): each
//! step is the replay's, so a live run decides as the replay of its recorded outcomes does,
//! and its result says why ([`PolicyReport`]). `docs/test-exit.md` says what the result's
//! fields mean for a reordered or fail-fast run.
//!
//! [`calibrate`](crate::pyramid::replay::calibrate) picks the most aggressive risk budget on a grid whose miss rate (failing
//! runs the policy declared green, over failing runs) is bounded by `risk` with probability
//! 1 - delta: fixed-sequence testing of H0: missRate(budget) > risk with exact binomial
//! p-values, from the most conservative budget up, as in Learn-then-Test calibration.

mod adr_receipt;
mod adr_shadow;
mod artifact;
mod config;
pub(crate) mod history;
pub(crate) mod label;
pub(crate) mod live;
mod model;
mod options;
mod receipt;
mod receipt_keys;
mod report;
pub(crate) mod shadow;

pub use adr_shadow::{AdrReceipt, AdrSkippedLayer};
pub use artifact::{read_pyramid_artifact, PyramidArtifact};
pub use config::{PolicyConfig, POLICY_CONFIG_FIELDS};
pub(crate) use history::{build_arg, history_argument, model_argument, ran_arg, read_model};
pub use history::{BuildHistory, BuildRecord, Model, CONVERTED_NOTE, DEFAULT_WINDOW, HISTORY_VERSION, MAX_WINDOW};
pub(crate) use label::read_label;
pub use label::MAX_LABEL_CHARS;
pub use live::{LiveRun, PolicyRun, POLICY_RUN_ENGINE};
pub use model::{LayerStats, ObservedLayer, OutcomeModel, PlannedLayer, PolicyDecision, StopReason, MODEL_VERSION};
pub use options::{RunMode, RunOptions, RunPolicy, RUN_OPTION_FIELDS};
pub use receipt::PYRAMID_RECEIPTS;
pub use report::{LayerCounts, PolicyReport, PolicyStep, POLICY_REPORT_FIELDS};
pub use shadow::{ReceiptLabel, ShadowReceipt, SkippedLayer, RECEIPT_VERSION};
