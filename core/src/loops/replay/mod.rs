//! Replay a loop-stopping policy over recorded trajectories: where would it have stopped,
//! why, which output would it have returned, and how does that compare with what the run
//! could have reached? The format (one run per JSONL line) is documented in `docs/replay.md`.
//!
//! The replay drives the engine's own stateless rules (`decide_over`
//! over a slice of the run, [`LoopTally`](crate::loops::LoopTally),
//! [`BestIteration`](crate::loops::BestIteration), the built-in analytics), so a replayed
//! decision is exactly the decision a live [`crate::EarlyStopping`] with the same config
//! would have made after the same records. Nothing is copied per iteration: each decision
//! reads the prefix of the run's observations, so 1,000,000 iterations replay in well under
//! a second (`cargo run --release -p earlyexit --example replay_bench`).
//!
//! The files, lowest first: `runs` ([`ReplayRun`]) < `lines` (the fast reader of plain JSONL
//! lines) < `input` (an array of runs or JSONL text) < `policy` ([`LoopPolicy`], built from
//! a [`LoopPreset`](crate::loops::LoopPreset)) < `play` ([`replay_loops`], [`LoopReplay`], and
//! [`LoopReplayStream`] for a host that feeds runs one at a time). `kernel` is the hot path
//! both the replay and the calibration run; `family` (the calibration's policy family and its
//! path) < `calibrate` (Learn-then-Test over the path, [`calibrate_loop_policy`]).

pub(crate) mod artifact;
pub(crate) mod calibrate;
pub(crate) mod family;
pub(crate) mod input;
mod kernel;
pub(crate) mod lifecycle;
mod lines;
pub(crate) mod plan;
pub(crate) mod play;
mod policy;
pub(crate) mod runs;

pub use artifact::{enforced_from_artifact, policy_from_artifact, EnforcedArtifact};
pub use calibrate::{
    calibrate_loop_policy, CalibrationStatus, CandidateFigures, FrontierRow, LoopCalibration, LoopCalibrationPlan,
    LoopCalibrationRequest, DEFAULT_VALID_DAYS,
};
pub use family::{DEFAULT_PATH_STEPS, MAX_PATH_STEPS};
pub use input::{parse_jsonl, runs_from_lines, runs_from_value};
pub use plan::{calibration_plan, CalibrationPlan, MAX_TASKS_TO_CERTIFY, PLAN_PREMATURE_STOPS};
pub use play::{replay_loops, replay_run, LoopReplay, LoopReplayStream, ReplaySummary, RunOutcome};
pub(crate) use policy::nested_at;
pub use policy::LoopPolicy;
pub(crate) use runs::implied_quality_delta;
pub use runs::{ReplayIteration, ReplayRun, TaskKey, TASKS_KEY};
