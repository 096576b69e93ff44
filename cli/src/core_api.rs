//! The one place this crate names the core (`earlyexit`): every type and function the
//! command uses, so a change of the core's module layout touches only this file. Root
//! re-exports and the module items the command names first; the other module paths below
//! are wrapped in functions.

pub use earlyexit::artifact::{DRIFT_STATUSES, PROMOTION_KEYS};
pub use earlyexit::kit::host::{host_error, policy_key_in_exit_config, respelled, type_error, unknown_argument};
pub use earlyexit::kit::pyramid::policy::no_receipt_reason;
pub use earlyexit::loops::behavior::BehaviorIteration;
pub use earlyexit::loops::{IterationResult, LoopPreset, VerificationStatus};
pub use earlyexit::pyramid::policy::{LiveRun, RunMode};
pub use earlyexit::pyramid::replay::{CalibrationRequest, PyramidReplayStream, RecordedRun};
pub use earlyexit::pyramid::replay::{Learn, POLICY_NAMES};
pub use earlyexit::pyramid::{CoherenceEarlyExit, TestPyramidResult, EXIT_PRESETS};
pub use earlyexit::value::jsonl::JsonlLines;
pub use earlyexit::value::MAX_SAFE_INTEGER;
// The Claude Code hook (`hook claude-code`): the agent rules and words, the refine loop.
pub use earlyexit::kit::loops::agent as agent_hook;
pub use earlyexit::loops::replay::{EnforcedArtifact, LoopPolicy};
pub use earlyexit::loops::shadow::ShadowCandidate;
pub use earlyexit::loops::{Loop, LoopOptions, ResourceUsage, StepInput};
pub use earlyexit::{
    Action, EarlyStopping, EarlyStoppingConfig, Error as CoreError, ErrorCode, ErrorKind, ExitConfig, ExitPreset,
    LayerResult, LoopReplayStream, Naming, StopPolicy, Value, Verdict,
};

/// Every JSON document the command reads or writes is spelled as the JS API and the
/// snapshots spell it (camelCase options, the decision's own snake_case keys).
pub const NAMING: Naming = Naming::Js;

/// A number as JavaScript prints it (`0.1`, `1e+21`), for human output.
pub fn js_number(n: f64) -> String {
    earlyexit::kit::num::to_js_string(n)
}

/// Now, as the bindings stamp a record without a timestamp.
pub fn now_iso() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    earlyexit::time::iso_from_millis(ms)
}

/// Calibrates a loop policy on `runs` (JSONL text or an array) with `options` (`{risk,
/// delta, steps, candidates, validDays}`), on every core, stamped now: the artifact.
pub fn calibrate_loops(runs: &Value, options: &Value) -> Result<Value, CoreError> {
    earlyexit_calibrate::calibrate_loops(runs, options, NAMING, earlyexit_calibrate::now_ms())
}

/// The tasks a loop calibration needs to certify (`{risk?, delta?}`, defaults 0.025 and
/// 0.1): `{risk, delta, minimumToCertify, tasksNeeded: [{prematureStops, tasks}]}`.
pub fn calibration_plan(options: &Value) -> Result<Value, CoreError> {
    earlyexit::kit::loops::replay::calibration_plan_value(options, NAMING)
}

/// The one-line notice for a loop calibration artifact that certifies nothing (`None` for
/// a certified one): what the command prints on stderr when it loads one.
pub fn uncertified_notice(artifact: &Value) -> Option<String> {
    earlyexit::kit::loops::replay::uncertified_notice(artifact)
}

/// What an enforced loop sets up from a loop calibration artifact (kind `loop`; a value or
/// its JSON text): the engine config and its composed stop policy if it has one (the
/// calibrated policy's when the artifact is promoted and current, else the calibration's most
/// conservative), the artifact's SHA-256 digest (RFC 8785 canonical JSON), which a loop
/// records as `policyArtifact`, and the calibrated policy in shadow when it is not enforced
/// (its `reason` says why).
pub fn calibrated(artifact: &Value) -> Result<Calibrated, CoreError> {
    let enforced = earlyexit::loops::replay::enforced_from_artifact(
        artifact,
        earlyexit_calibrate::now_ms(),
        &earlyexit_digest::Sha256Hasher,
    )?;
    let stop = enforced.policy.when.is_some().then(|| enforced.policy.stop_policy());
    Ok(Calibrated { config: enforced.policy.config, policy: stop, digest: enforced.sha256, shadow: enforced.shadow })
}

/// What [`calibrated`] answers.
pub struct Calibrated {
    /// The enforced config.
    pub config: EarlyStoppingConfig,
    /// The enforced composed stop policy, if any.
    pub policy: Option<StopPolicy>,
    /// The artifact's digest.
    pub digest: String,
    /// The calibrated policy in shadow, when the artifact is not promoted or has expired.
    pub shadow: Option<earlyexit::loops::shadow::ShadowCandidate>,
}

/// Whether a document given as a loop's policy is a calibration artifact (the core's one
/// rule: it has the envelope's `kind`).
pub fn is_artifact(value: &Value) -> bool {
    earlyexit::artifact::is_artifact(value)
}

/// A loop's policy from `--preset` (a name) or `--policy` (a policy object): `invalid_config`
/// naming `policy`.
pub fn loop_policy(value: &Value) -> Result<LoopPolicy, CoreError> {
    earlyexit::kit::loops::loop_policy(value, NAMING)
}

/// What a loop enforces for a loop calibration artifact (its policy, the calibrated one in
/// shadow when the artifact is not trusted to act, its SHA-256), by the core's one rule.
pub fn enforced_loop(artifact: &Value) -> Result<EnforcedArtifact, CoreError> {
    earlyexit::loops::replay::enforced_from_artifact(
        artifact,
        earlyexit_calibrate::now_ms(),
        &earlyexit_digest::Sha256Hasher,
    )
}

/// Bytes of one JSON document (a state file, one JSONL line): the core's limit.
pub const MAX_DOCUMENT_BYTES: usize = earlyexit::limits::MAX_DOCUMENT_BYTES;

/// The error for a state file over [`MAX_DOCUMENT_BYTES`] (`invalid_snapshot`, field
/// `snapshot`), worded as the core words a document over the limit.
pub fn snapshot_too_large() -> CoreError {
    earlyexit::kit::host::problem(
        earlyexit::kit::host::Problem::Size,
        ErrorCode::InvalidSnapshot,
        "snapshot",
        &Value::Null,
    )
}

/// A state file's bytes as text: UTF-8, else `invalid_snapshot` on `snapshot` naming the
/// first byte that is not.
pub fn snapshot_text(bytes: Vec<u8>) -> Result<String, CoreError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => Err(earlyexit::kit::value::utf8_text(e.as_bytes(), ErrorCode::InvalidSnapshot, "snapshot")
            .err()
            .unwrap_or_else(snapshot_too_large)),
    }
}

/// Refuses a state of `bytes` bytes that no reader could read back.
pub fn check_snapshot_size(bytes: usize) -> Result<(), CoreError> {
    if bytes > MAX_DOCUMENT_BYTES {
        return Err(snapshot_too_large());
    }
    Ok(())
}

/// The `engine` name of a loop's state file.
pub const LOOP_ENGINE: &str = earlyexit::loops::SNAPSHOT_ENGINE;

/// Parses a state file's text (code `invalid_snapshot`).
pub fn parse_snapshot(text: &str) -> Result<Value, CoreError> {
    earlyexit::snapshot::parse(text)
}

/// Parses a JSON document given to the command (a config, a policy, a model): `field` names
/// it in errors, with code `code_name` (`invalid_config`, `invalid_snapshot`, ...).
pub fn parse_json(text: &str, code_name: &str, field: &str) -> Result<Value, CoreError> {
    let code = ErrorCode::from_name(code_name).unwrap_or(ErrorCode::InvalidConfig);
    Value::parse_json_as(text, code, field, earlyexit::value::JsonReading::USER_DOCUMENT)
}

/// Text given on the command line as a number: a JSON number becomes a number, anything
/// else stays a string, so the core's type check names the field ("must be a number, got
/// string 'abc'") as it does for any host value; an integer beyond 2^53 that a number
/// cannot hold exactly is quoted as written (`earlyexit::kit::host::number_text`).
pub fn number_arg(text: &str) -> Value {
    earlyexit::kit::host::number_text(text)
}

/// The best iteration of a loop's history (`(iteration, quality)`), as decisions name it.
pub fn best_iteration(engine: &EarlyStopping) -> Option<(u64, f64)> {
    earlyexit::loops::BestIteration::over(engine.history(), engine.config().min_quality_threshold).get()
}

/// The history record of `iteration` as the snapshot holds it.
pub fn record_value(engine: &EarlyStopping, iteration: u64) -> Option<Value> {
    engine.history().iter().find(|r| r.observation.iteration == iteration).map(|r| r.to_value())
}

/// The `quality_delta` a record without one gets: the core's one rule
/// (`EarlyStopping::implied_quality_delta_of`: its quality minus the quality of the latest
/// recorded iteration before `iteration`, 0 for the first). `None` when the quality is not
/// a number (the core then names that field).
pub fn implied_delta(engine: &EarlyStopping, iteration: &Value, quality: &Value) -> Option<Value> {
    engine.implied_quality_delta_of(iteration.as_f64(), quality.as_f64()).map(Value::Number)
}

/// Checks the behaviour and progress fields of an iteration result (`fingerprint` of at
/// most 256 characters, `completed` a boolean, ...) before anything is locked or written:
/// the core's reader, its error naming the field.
pub fn check_behavior_fields(result: &Value) -> Result<(), CoreError> {
    BehaviorIteration::from_result(result, "", ErrorCode::InvalidResult).map(|_| ())
}

/// The last recorded iteration number.
pub fn last_iteration(engine: &EarlyStopping) -> Option<u64> {
    engine.history().last().map(|r| r.observation.iteration)
}

/// `generateSummary()`'s value.
pub fn summary_value(engine: &mut EarlyStopping) -> Value {
    engine.generate_summary().to_value()
}

/// A pyramid action as the step API returns it (`{action, layer}`).
pub fn action_value(action: Action) -> Value {
    action.to_value()
}

/// Refuses layers a command cannot address by name: two of one name (the policy runs'
/// rule, `layers[i].name`).
pub fn check_layer_names(layers: &[earlyexit::pyramid::LayerSpec]) -> Result<(), CoreError> {
    earlyexit::kit::pyramid::policy::check_layer_specs(layers)
}

/// Whether an observed layer result is failing (the verdict's rule, `passRate < 1`).
pub fn layer_result_failed(result: &Value) -> Result<bool, CoreError> {
    let parsed = earlyexit::LayerResult::from_value(result, NAMING, "result")?;
    Ok(earlyexit::kit::pyramid::layer_failed(&parsed))
}

/// Reads one loop replay line (see [`JsonlLines`]).
pub fn read_loop_run(line: &str, path: &str) -> Result<earlyexit::loops::replay::ReplayRun, CoreError> {
    earlyexit::kit::loops::replay::read_run_line(line, NAMING, path)
}

/// Reads one pyramid replay line.
pub fn read_pyramid_run(line: &str, path: &str) -> Result<RecordedRun, CoreError> {
    earlyexit::kit::pyramid::replay::read_run_line(line, NAMING, path)
}

/// A loop replay outcome as the library returns it.
pub fn loop_outcome_value(outcome: &earlyexit::loops::replay::RunOutcome) -> Value {
    outcome.to_value()
}

/// A loop replay summary as the library returns it.
pub fn loop_summary_value(stream: &LoopReplayStream) -> Value {
    stream.summary().to_value()
}

/// The loop replay's policy as the library returns it.
pub fn loop_policy_value(stream: &LoopReplayStream) -> Value {
    stream.policy().to_value(NAMING)
}

/// A pyramid replay row as the library returns it.
pub fn pyramid_row_value(run: &earlyexit::pyramid::replay::RunReplay) -> Value {
    earlyexit::kit::pyramid::replay::run_value(run, NAMING)
}

/// A pyramid replay summary as the library returns it.
pub fn pyramid_summary_value(stream: &PyramidReplayStream) -> Value {
    earlyexit::kit::pyramid::replay::summary_value(&stream.summary(), NAMING)
}

/// The pyramid replay's model document (null for the ADR's presets).
pub fn pyramid_model_value(stream: &PyramidReplayStream) -> Value {
    stream.model().map_or(Value::Null, |m| m.to_value(NAMING))
}

/// `pyramidPolicyDecide(model, layers, outcomes, options)`.
pub fn policy_decide(model: &Value, layers: &Value, outcomes: &Value, options: &Value) -> Result<Value, CoreError> {
    earlyexit::kit::pyramid::replay::decide_value(model, layers, outcomes, options, NAMING)
}

/// `pyramidPolicyUpdate(model, ran, options)`.
pub fn policy_update(model: &Value, ran: &Value, options: &Value) -> Result<Value, CoreError> {
    earlyexit::kit::pyramid::replay::update_value(model, ran, options, NAMING)
}

/// `replayLoops(runs, policy)` over runs given whole (JSONL text or an array).
/// A stop policy as `EarlyStopping` takes it (docs/loop-policies.md): `invalid_config`, fields under `policy`.
/// The error for a shadow given beside an artifact whose calibrated policy already runs in
/// shadow (`invalid_config` naming `shadow`).
pub fn shadow_taken() -> CoreError {
    earlyexit::loops::shadow::shadow_taken()
}

/// A shadow candidate (`--shadow`, MCP `shadow`): a preset name, a policy or a loop artifact,
/// checked against this machine's clock.
pub fn shadow_candidate(value: &Value) -> Result<earlyexit::loops::shadow::ShadowCandidate, CoreError> {
    earlyexit::loops::shadow::ShadowCandidate::from_value(
        value,
        NAMING,
        earlyexit_calibrate::now_ms(),
        &earlyexit_digest::Sha256Hasher,
    )
}

/// The shadow receipt of an engine's run (`None` without a shadow): `good` set on the
/// iteration the engine's policy returns (the best, or the last).
pub fn loop_receipt(
    engine: &EarlyStopping,
    good: Option<bool>,
    names: &earlyexit::loops::shadow::RunNames<'_>,
) -> Option<Value> {
    let shadow = engine.shadow()?;
    let returns = engine.policy().map_or(earlyexit::loops::ReturnPolicy::Last, |p| p.returns);
    let output = match returns {
        earlyexit::loops::ReturnPolicy::Best => best_iteration(engine).map(|(i, _)| i),
        earlyexit::loops::ReturnPolicy::Last => last_iteration(engine),
    };
    let goods: Vec<(u64, bool)> = output.zip(good).into_iter().collect();
    Some(shadow.receipt(engine.history(), &goods, names).to_value())
}

/// The iteration an engine's loop hands back: its policy's best, or the last.
pub fn output_iteration(engine: &EarlyStopping) -> Option<u64> {
    match engine.policy().map_or(earlyexit::loops::ReturnPolicy::Last, |p| p.returns) {
        earlyexit::loops::ReturnPolicy::Best => best_iteration(engine).map(|(i, _)| i),
        earlyexit::loops::ReturnPolicy::Last => last_iteration(engine),
    }
}

/// `promote loops`: the core's promotion at this machine's clock.
pub fn promote_loops(artifact: &Value, runs: &Value) -> Result<Value, CoreError> {
    let now = Value::Number(earlyexit_calibrate::now_ms() as f64);
    earlyexit::kit::loops::replay::promote_loop_value(artifact, runs, &earlyexit_digest::Sha256Hasher, &now, NAMING)
}

/// `drift loops`: the core's drift check at this machine's clock.
pub fn drift_loops(artifact: &Value, runs: &Value) -> Result<Value, CoreError> {
    let now = Value::Number(earlyexit_calibrate::now_ms() as f64);
    earlyexit::kit::loops::replay::loop_drift_value(artifact, runs, &earlyexit_digest::Sha256Hasher, &now, NAMING)
}

pub fn engine_policy(value: &Value) -> Result<earlyexit::StopPolicy, CoreError> {
    earlyexit::LoopPolicy::engine_policy(value, NAMING)
}

pub fn replay_loops_value(runs: &Value, policy: &Value) -> Result<Value, CoreError> {
    earlyexit::kit::loops::replay::replay_value(runs, policy, NAMING)
}

/// `replayPyramids(runs, options)` over runs given whole.
pub fn replay_pyramids_value(runs: &Value, options: &Value) -> Result<Value, CoreError> {
    earlyexit::kit::pyramid::replay::replay_value(runs, options, NAMING)
}

/// `calibratePyramidPolicy(runs, options)` over runs given whole.
pub fn calibrate_value(runs: &Value, options: &Value) -> Result<Value, CoreError> {
    earlyexit::kit::pyramid::replay::calibrate_value(runs, options, NAMING)
}

/// The JUnit model's pieces (see `earlyexit::kit::pyramid::test_report`).
pub mod test_report {
    pub use earlyexit::kit::pyramid::test_report::no_reports;
}

/// An error's kind, `type` or `range`.
pub fn error_kind(e: &CoreError) -> &'static str {
    e.kind().as_str()
}

// The run store (`runs`, `calibrate loops --store`, `receipts verify --store`): its rules and
// words, and the replay reader an import checks each line with.
pub use earlyexit::kit::host::store as store_rules;
pub use earlyexit::ReplayRun;

/// A time in milliseconds since the epoch as RFC 3339 (`2026-01-31T00:00:00.000Z`).
pub fn iso_from_millis(ms: i64) -> String {
    earlyexit::time::iso_from_millis(ms)
}
