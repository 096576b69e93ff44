//! Replay a pyramid policy over recorded runs: what it would have run, where it would have
//! stopped and why, and whether it would have missed a failure; aggregated into compute
//! saved (nominal, and actual with verification counted as run), failure recall and the
//! false-pass rate with a Wilson 95% interval. Also the policy's shadow mode and its
//! Learn-then-Test calibration, which are replays too.
//!
//! A recorded run is `{id?, timestamp?, layers: [{name?, durationMs, failed, total?, passed?,
//! flakyRatio?, coverage?}]}` (JSONL: one run per line; see docs/replay-pyramids.md). The
//! ground truth of a run is whether any of its layers failed. A policy *catches* a failing
//! run when some layer it ran (verification included) failed; otherwise it declared the run
//! green and *missed* the failure.
//!
//! The ADR's presets replay through [`PyramidRun`](crate::PyramidRun) exactly as a live run would: each layer
//! becomes a `LayerResult` with `passRate = passed / total` (or 0/1 from `failed` without
//! counts), `coverage` (default 1) and `flakyRatio` (default 0).
//!
//! A host that streams a large file feeds runs one at a time: `read_run_line` reads each
//! line (through [`JsonlLines`](crate::value::jsonl::JsonlLines)), a [`PyramidReplayStream`]
//! replays it, and [`CalibrationRequest`] checks calibration's options before any run is read;
//! the answers are exactly those of the whole-text entry points.

mod calibrate;
pub(crate) mod lifecycle;
mod play;
pub(crate) mod runs;
pub(crate) mod values;

pub use crate::pyramid::policy::{read_pyramid_artifact, PyramidArtifact};
pub use calibrate::{calibrate, Calibration, CalibrationStep, DEFAULT_GRID};
pub use lifecycle::{calibration_artifact, check_drift, promote, ArtifactRequest, DEFAULT_VALIDITY_MS};
pub use play::{
    replay, shadow, summarize, Learn, PyramidReplayStream, ReplayPolicy, ReplayReport, ReplaySummary, RunReplay,
};
pub use runs::{parse_runs, parse_runs_jsonl, RecordedLayer, RecordedRun};
pub use values::{CalibrationRequest, PolicyName, POLICY_NAMES};
