//! The JS contract, written once: the op codes of [`exec`](crate::exec) and
//! [`Engine::call`](crate::Engine::call) with their arguments and answers ([`ops!`]), the fast
//! paths' slot and code tables ([`earlyexit_js_fast::slots`], `crate::fast_pyramid`), and
//! their [`FINGERPRINT`].
//!
//! The generator room (`dev/`, `make generate`) renders these tables (and the core's name
//! lists, limits and key lists) into `bindings/js/api/contract.generated.mjs`, the one
//! module the JS layer and the wasm package's glue import; `generate --check` (run by
//! `make test-rust`) fails when that file differs from what the tables give. `HELLO` answers the fingerprint, and the JS layer refuses to run over a
//! native module whose fingerprint is not the one it was generated with: a moved slot, a
//! renumbered op or an op whose documented arguments changed (the docs below are part of the
//! contract and of the fingerprint) needs no number bumped by hand.

use earlyexit_js_fast::slots::Table;

/// Which wasm module answers an op (the napi addon answers every op).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Module {
    /// The engines module (every op but replay).
    Engines,
    /// The replay module, loaded on first use (`exec_replay`); the op's public name says
    /// which function needs it.
    Replay,
}

/// One op: its name and code, which module answers it, the public function behind a
/// replay op, its documentation (arguments and answer) and, for a declared op, its named,
/// typed arguments and how the JS layer calls it ([`Call`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    /// The constant's name (`OP.<name>` in JS).
    pub name: &'static str,
    /// The code.
    pub code: u32,
    /// Which wasm module answers it.
    pub module: Module,
    /// For a replay op, the public function that calls it (the wasm package names it in the
    /// error it throws before the replay module is loaded); empty otherwise.
    pub public: &'static str,
    /// Its arguments and answer.
    pub doc: &'static str,
    /// How the JS layer calls it, for a declared op (the generator writes its JS function
    /// into `bindings/js/api/calls.generated.mjs`, and [`args`] holds its argument struct);
    /// `None` for an op still called by hand (`native.exec(OP.X, '[' + ... + ']')`).
    pub call: Option<Call>,
}

/// How a declared op is called from JS: where it goes, its arguments in order, what the
/// caller gets back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// `exec` (stateless: `native.exec`), `call` (on a native object the function takes
    /// first: `engine.call`), `fill` (a fresh native object filled by the op: the function
    /// answers the object, freed again when the core refuses: `filled` in `codec.js`), or
    /// `codec` (called by the encoder in `codec.js` itself, which the generated functions
    /// import: no function is generated, the arguments are declared for the handler).
    pub via: &'static str,
    /// The arguments, in the order the handler reads them.
    pub args: &'static [Arg],
    /// `unwrap` (the answer's value, or its error thrown), `raw` (the answer's text, which
    /// the caller reads itself), or `error` (the error the answer holds, for the caller to
    /// throw).
    pub answer: &'static str,
}

/// One declared argument: its name (snake_case here and in the argument struct, camelCase
/// as the JS function's parameter), its kind and, for a value, how the JS layer's encoder
/// names it in its errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The name, snake_case.
    pub name: &'static str,
    /// The kind: `Value` (any JS value, encoded by the JS function with [`where_`](Arg::where_)),
    /// `Config` (a value where `undefined` is none: `null`), `Text` (wire text the caller
    /// encoded: a cached or copied value), `Num`, `Bool` (written as they are) or `Str` (a
    /// JS string).
    pub kind: &'static str,
    /// For `Value` and `Config`: the encoder's description of the argument (an `AS_*` of
    /// `bindings/js/api/codec.js`); empty for its default.
    pub where_: &'static str,
}

/// `/// doc` `NAME = code;` (an engines op) or `NAME = code => "publicName";` (a replay op)
/// becomes `pub const NAME: u32 = code;` in `op` and a row of [`OPS`]. A declared op adds
/// `via(arg: Kind [AS_WHERE], ...) -> answer` before the `;`: its JS function is generated
/// and `args::NAME` reads its arguments by name. An op without it is still called by hand.
macro_rules! ops {
    ($( $(#[doc = $doc:literal])* $name:ident = $code:literal $(=> $public:literal)?
        $( $via:ident ( $( $arg:ident : $kind:ident $($where_:ident)? ),* ) -> $answer:ident )?; )*) => {
        /// Op codes of [`NativeEngine::call`](crate::Engine::call) and [`exec`](crate::exec)
        /// (the contract's table: `crate::contract`).
        pub mod op {
            $( $(#[doc = $doc])* pub const $name: u32 = $code; )*
        }

        /// Each declared op's arguments by name: `args::NAME::read(&args)` in its handler
        /// (the JS side: its function in `bindings/js/api/calls.generated.mjs`). The fields
        /// are the values as they crossed; the core's readers check them (typed errors naming
        /// the field), so reading them adds no code per op: each is [`arg`](crate::wire::arg).
        #[allow(non_camel_case_types)]
        pub mod args {
            $( $( ops!(@struct $name $via ($($arg)*)); )? )*
        }

        /// Every op, in code order.
        pub const OPS: &[Op] = &[$(Op {
            name: stringify!($name),
            code: $code,
            module: ops!(@module $($public)?),
            public: concat!($($public)?),
            doc: concat!($($doc, "\n"),*),
            call: ops!(@call $( $via ( $( $arg : $kind $($where_)? ),* ) -> $answer )?),
        }),*];
    };
    (@module) => { Module::Engines };
    (@module $public:literal) => { Module::Replay };
    (@call) => { None };
    (@call $via:ident ( $( $arg:ident : $kind:ident $($where_:ident)? ),* ) -> $answer:ident) => {
        Some(Call {
            via: stringify!($via),
            args: &[$(Arg { name: stringify!($arg), kind: stringify!($kind), where_: concat!($(stringify!($where_))?) }),*],
            answer: stringify!($answer),
        })
    };
    (@struct $name:ident $via:ident ()) => {};
    (@struct $name:ident $via:ident ($($arg:ident)+)) => {
        #[doc = concat!("`", stringify!($name), "`'s arguments, by name.")]
        pub struct $name<'a> {
            $( #[doc = concat!("`", stringify!($arg), "`.")] pub $arg: &'a earlyexit::Value, )+
        }
        impl<'a> $name<'a> {
            /// Reads the arguments (an absent one is `null`).
            #[inline(always)]
            #[allow(unused_assignments)]
            pub fn read(args: &'a [earlyexit::Value]) -> Self {
                let mut at = 0;
                $name { $( $arg: { let value = crate::wire::arg(args, at); at += 1; value }, )+ }
            }
        }
    };
}

ops! {
    // --- exec (stateless)
    /// `[]` -> `{contract}`: [`FINGERPRINT`](crate::contract::FINGERPRINT), which the JS layer checks on load.
    HELLO = 0 exec() -> unwrap;
    /// `[layerResult]` -> quality signal.
    SIGNAL = 1 exec(layer_result: Value AS_LAYER_RESULT) -> unwrap;
    /// `[]` -> `[DEFAULT, AGGRESSIVE, CONSERVATIVE]` exit configs.
    PRESETS = 2 exec() -> unwrap;
    /// `[got]` -> the error for an `iterationAnalytics` argument without the method.
    ANALYTICS_SOURCE_ERROR = 3 exec(got: Value AS_SOURCE) -> unwrap;
    /// `[index, got]` -> the error for a layer whose `run` is not a function.
    RUNNER_ERROR = 4 exec(index: Num, got: Value) -> unwrap;
    /// `[layer index, key]` -> nothing, or the error for a key of a layer object beside
    /// `name`, `costMs` and `run` that nearly spells one of them (`cost_ms`, `cost`:
    /// `kit::pyramid::check_layer_key`; the layer's other keys are the caller's own).
    LAYER_KEY_CHECK = 5 exec(layer_index: Num, key: Value) -> unwrap;
    // 5 was ISO_TIMESTAMP (the JS layer formats its clock's time itself), 6 LOOP_CONSTANTS
    // (names by code, constant answers, limits: constants of the generated module now).
    /// `[base config or null, config or options, "config" | "options"]` -> `[merged
    /// config, config slots]` (validated; the constructor and `configure`).
    ES_CONFIG_CHECK = 7 exec(base: Text, config: Text, root: Str) -> unwrap;
    /// `[iteration, result, usage totals?, strictIterations?, last record?]` -> the history record
    /// (validated; `timestamp` empty when the result has none), `{duplicate: true}` (what the
    /// call returns) for an accepted re-record of the last record (`strictIterations`), or the error.
    ES_RECORD_CHECK = 9 exec(iteration: Value AS_ITERATION, result: Text, usage_totals: Text, strict_iterations: Bool, last_record: Text) -> unwrap;
    // 10 is free (a draft of the seed's check methods; the fast path answers them).
    /// `[records, first index, usage totals]` -> nothing, or the error for records written to
    /// `iterationHistory` from outside (fields named `iterationHistory[i].field`; with
    /// `"iteration"` for the index, one record named `iteration`: the argument of the seed's
    /// `checkHighConfidence`).
    ES_HISTORY_CHECK = 11 exec(records: Text, first_index: Value, usage_totals: Text) -> unwrap;
    /// `[problem, code, path, got]` -> the error for what the JS layer found itself
    /// (`earlyexit::kit::host::Problem` by number: `PROBLEM`; `code` is the argument's error code).
    HOST_ERROR = 20 codec(problem: Num, code: Str, path: Str, got: Text) -> error;
    /// `[options]` -> nothing, or the error for `runWithEarlyExit`'s options (the signal
    /// crosses as the host type `"AbortSignal"` when it is one).
    RUN_OPTIONS_CHECK = 21 exec(options: Text) -> unwrap;
    /// `[report]` -> the error for a diminishing-returns report the fast check refused.
    ES_REPORT_CHECK = 24 exec(report: Text) -> unwrap;
    /// `[snapshot object or JSON text]` -> the snapshot, validated and normalized.
    ES_SNAPSHOT_CHECK = 25 exec(snapshot: Value AS_SNAPSHOT) -> unwrap;
    /// `[layer index, result]` -> the error for a layer result the fast path refused.
    PR_RESULT_CHECK = 26 exec(layer_index: Num, result: Text) -> unwrap;
    // 27 was EXIT_CONFIG_SLOTS: EXIT_CONTROLLER_CHECK answers the slots too.
    /// `[config, totalLayers]` -> `[merged config, totalLayers, the exit config's slots for
    /// the pyramid's fast path]`, validated as `CE_NEW` validates them (the
    /// `EarlyExitController` constructor, which needs no native object).
    EXIT_CONTROLLER_CHECK = 28 exec(config: Value, total_layers: Value) -> unwrap;

    // --- EarlyStopping: 10..=23 were its native-object ops. The JS layer keeps each
    // engine's state itself and uses the fast path plus the stateless `ES_*_CHECK` ops.

    // --- IterationAnalytics (a drop-in for aiwg's iteration-analytics.mjs). "now" is the
    // JS layer's clock (`new Date().toISOString()`): the core has none.
    /// `[upstream form?, loopId, taskDescription, config, now, files?]` -> whether the object
    /// saves after every record.
    IA_NEW = 30 call(upstream: Bool, loop_id: Value, task_description: Value, config: Config, now: Text, files: Bool) -> raw;
    /// `[record, now]` -> stored record.
    IA_RECORD = 31 call(record: Value AS_RESULT, now: Text) -> unwrap;
    /// `[]` -> `{detected, iteration, reason}`.
    IA_DETECT = 32 call() -> unwrap;
    /// `[]` -> trajectory string.
    IA_TRAJECTORY = 33 call() -> unwrap;
    /// `[verifiedOnly]` -> the chosen record's index, or null.
    IA_OPTIMAL = 34 call(verified_only: Value) -> unwrap;
    /// `[]` -> `[index or null, reason]`.
    IA_SELECT = 35 call() -> unwrap;
    // 36 was IA_SUMMARY: the JS layer builds the summary from IA_SAVE's pieces.
    /// `[]` -> config.
    IA_CONFIG = 37 call() -> unwrap;
    /// `[]` -> records.
    IA_RECORDS = 38 call() -> unwrap;
    /// `[]`.
    IA_RESET = 39 call() -> unwrap;
    /// `[]` -> snapshot.
    IA_TO_JSON = 40 call() -> raw;
    /// `[snapshot]`.
    IA_FROM_JSON = 41 fill(snapshot: Text) -> engine;
    /// `[now]` -> `endTime`, set to now unless it was set (what a summary does first).
    IA_SETTLE = 42 call(now: Text) -> unwrap;
    /// `[now, from]` -> `[head, records from index from, tail, record count]`: the saved
    /// summary in pieces (sets `endTime` unless set).
    IA_SAVE = 44 call(now: Text, from: Text) -> unwrap;

    // --- CoherenceEarlyExit
    /// `[config, totalLayers]`.
    CE_NEW = 50 fill(config: Config, total_layers: Value) -> engine;
    /// `[signal, layer]` -> decision.
    CE_SHOULD_EXIT = 51 call(signal: Value AS_SIGNAL, layer: Value) -> unwrap;
    /// `[signal]` -> adaptive exit layer.
    CE_ADAPTIVE = 52 call(signal: Value AS_SIGNAL) -> unwrap;
    /// `[]` -> `[config, totalLayers]` (the merged config).
    CE_CONFIG = 53 call() -> unwrap;

    // --- SpeculativeExecutor
    /// `[config]`.
    SX_NEW = 60 fill(config: Config) -> engine;
    /// `[decision, skippedCount]` -> speculations (the count validated: an integer from 0 to
    /// `limits::MAX_LAYERS`).
    SX_SPECULATE = 61 call(decision: Value AS_DECISION, skipped_count: Text) -> unwrap;
    /// `[decision]` -> one speculation.
    SX_PREDICT = 62 call(decision: Value AS_DECISION) -> unwrap;
    /// `[speculations]` -> how many layers `verify` runs (validates the speculations).
    SX_VERIFY_COUNT = 63 call(speculations: Text) -> unwrap;
    /// `[index, layerResult]` -> the observed outcome (validates the result).
    SX_CLASSIFY = 64 call(index: Num, layer_result: Text) -> unwrap;
    /// `[speculations, outcomes]` -> verified speculations.
    SX_VERIFIED = 65 call(speculations: Text, outcomes: Value) -> unwrap;
    /// `[]` -> the merged config.
    SX_CONFIG = 66 call() -> unwrap;

    // --- PyramidRun (step API)
    /// `[config, totalLayers, layers]`.
    PR_START = 70 fill(config: Text, total_layers: Text, layers: Value AS_LAYERS) -> engine;
    /// `[]` -> `{action, layer?}`.
    PR_NEXT = 71 call() -> unwrap;
    /// `[layer, result]`.
    PR_SUBMIT = 72 call(layer: Text, result: Text) -> unwrap;
    /// `[]` -> TestPyramidResult.
    PR_RESULT = 73 call() -> unwrap;
    /// `[]` -> snapshot.
    PR_TO_JSON = 74 call() -> unwrap;
    /// `[snapshot]`.
    PR_FROM_JSON = 75 call(snapshot: Text) -> raw;

    // --- loop replay and presets (`loop_replay`): one call per batch of runs
    /// `[runs (array or JSONL text), policy]` -> `{policy, summary, runs}` (an array's runs
    /// are read run by run: the limits on values apply to each run).
    LOOP_REPLAY = 80 => "replayLoops" exec(runs: Value AS_RUNS, policy: Config) -> unwrap;
    /// `[name, overrides]` -> the preset's config merged with the overrides (camelCase keys).
    LOOP_PRESET = 81 exec(name: Value, overrides: Config) -> unwrap;
    /// `[runs (array or JSONL text), options {risk, delta, steps, candidates, validDays}, nowMs]`
    /// -> the calibration artifact (kind `loop`; its `body` holds certified, status, message,
    /// frontier, warnings). Candidates run on every core natively, on one thread in wasm.
    LOOP_CALIBRATE = 82 => "calibrateLoopPolicy" exec(runs: Value AS_RUNS, options: Opt, now_ms: Value) -> unwrap;
    /// `[artifact (object or JSON text), nowMs]` -> what the engine runs: `{config, policy,
    /// notice}` (config keys camelCase; `policy` the normalized stop policy when the calibrated
    /// policy is a condition tree, else null; `notice` the line to print once when the artifact
    /// certifies nothing, else null); expired or non-loop artifacts are refused.
    LOOP_FROM_CALIBRATION = 83 => "EarlyStopping.fromCalibration" exec(artifact: Value, now_ms: Value) -> unwrap;
    /// `[policy, snapshot's policy]` -> the stop policy checked as `EarlyStopping` takes it
    /// (`invalid_config`, fields under `policy`), normalized: `{returns, any | all | k_of |
    /// not_before}`; with a snapshot's `policy` (`fromJSON`; `invalid_snapshot`), the one the
    /// restored engine decides under (a given one must agree), `null` for none.
    LOOP_POLICY_CHECK = 84 => "EarlyStopping with a policy" exec(policy: Text, snapshot_policy: Value) -> raw;
    /// On a `PolicyEngine` (the native object holding the policy, the config and the state
    /// for the engine's lifetime): `[new records, report or null, source attached]` ->
    /// the decision, or `{need_source: true}` when the source must be asked (then again with
    /// its report and no records). A bad record or report changes nothing.
    LOOP_POLICY_STEP = 85 => "EarlyStopping with a policy" call(records: Text, report: Text, source_attached: Bool) -> raw;
    /// Fills a `PolicyEngine`: `[normalized policy, config]` (a fresh state, nothing folded).
    LOOP_POLICY_OPEN = 86 => "EarlyStopping with a policy" call(policy: Text, config: Value) -> unwrap;
    /// Fills a `PolicyEngine` with an `EarlyStopping`'s shadow: `[candidate (a preset name, a
    /// policy or a loop calibration artifact; restored: as a snapshot keeps it), restored,
    /// the enforced normalized policy or null, config, nowMs]` -> the candidate as snapshots
    /// keep it (`{name, policy, artifactSha256, reason?}`). The enforced policy (or the
    /// config's checks) must hold a hard cap: `invalid_config` naming `shadow`.
    LOOP_SHADOW_OPEN = 87 => "EarlyStopping with a shadow" call(shadow: Value AS_SHADOW, restored: Bool, policy: Text, config: Value, now_ms: Num) -> unwrap;
    /// On a `PolicyEngine` holding a shadow: `[new records]` -> where the candidate would have
    /// stopped (`would_stop`: `{iteration, trigger, reason, returned_iteration,
    /// returned_quality}`, the first time it fired), or null. A bad record changes nothing.
    LOOP_SHADOW_STEP = 88 => "EarlyStopping with a shadow" call(records: Text) -> unwrap;
    /// `[options {risk, delta} or null]` -> the tasks a loop calibration needs to certify:
    /// `{risk, delta, minimumToCertify, tasksNeeded: [{prematureStops, tasks}]}`.
    LOOP_CALIBRATION_PLAN = 89 => "calibrationPlan" exec(options: Opt) -> unwrap;

    // --- pyramid replay and the risk-bounded policy, batch and live (`pyramid_replay_ops`), 220..=229
    /// `[runs, options]` -> replay report.
    PYRAMID_REPLAY = 220 => "replayPyramids" exec(runs: Value AS_RUNS, options: Opt) -> unwrap;
    /// `[runs, options]` -> shadow report.
    PYRAMID_SHADOW = 221 => "shadowPyramids" exec(runs: Value AS_RUNS, options: Opt) -> unwrap;
    /// `[runs, options, now]` -> calibration, with the artifact's keys (`now`: the JS
    /// layer's clock, the creation time unless `options.createdAt`).
    PYRAMID_CALIBRATE = 222 => "calibratePyramidPolicy" exec(runs: Value AS_RUNS, options: Value AS_OPTIONS, now: Value) -> unwrap;
    /// `[model, layers, outcomes, options]` -> decision.
    PYRAMID_DECIDE = 223 => "pyramidPolicyDecide" exec(model: Opt, layers: Value AS_LAYERS, outcomes: Value, options: Opt) -> unwrap;
    /// `[model, ran, options]` -> model document.
    PYRAMID_UPDATE = 224 => "pyramidPolicyUpdate" exec(model: Opt, ran: Value, options: Opt) -> unwrap;
    // --- live policy runs (`fail_fast`, `risk_bounded`): stateless, the run's state is its
    // snapshot, which the JS layer keeps and hands back at each step.
    /// `[config, totalLayers, layers, options, run options, clock]` (`clock`: `Date.now()`, the
    /// time an artifact policy's expiry is checked at without `now`) -> `null` when the ADR decides
    /// (no policy asked for), else `{state, next}`: the policy run's snapshot and its first
    /// action (`{action: "run", layer}` or `{action: "done"}`).
    PYRAMID_RUN_START = 225 => "EarlyExitController / PyramidRun with a policy" exec(config: Text, total_layers: Text, layers: Value AS_LAYERS, options: Text, run_options: Opt, clock: Value) -> unwrap;
    /// `[state, layer, result]` -> `{state, next}` after the pending layer's result.
    PYRAMID_RUN_SUBMIT = 226 => "EarlyExitController / PyramidRun with a policy" exec(state: Value AS_SNAPSHOT, layer: Value, result: Text) -> unwrap;
    /// `[state]` -> the finished run's TestPyramidResult (with its `policy` report).
    PYRAMID_RUN_RESULT = 227 => "EarlyExitController / PyramidRun with a policy" exec(state: Value AS_SNAPSHOT) -> unwrap;
    /// `[snapshot object or JSON text]` -> `{state, next}` (`PyramidRun.fromJSON` of a policy run).
    PYRAMID_RUN_RESTORE = 228 => "PyramidRun.fromJSON" exec(snapshot: Text) -> unwrap;
    /// `[options]` -> the options, validated and normalized (`{policy, mode, policyConfig,
    /// model}`), or `null` when they leave the ADR deciding (the `EarlyExitController` constructor).
    PYRAMID_RUN_OPTIONS = 229 => "EarlyExitController with a policy" exec(options: Text, clock: Value) -> unwrap;

    // --- IterationAnalytics's occasional ops, stateless over its snapshot
    // (`analytics_text_ops`), 230..=239
    /// `[snapshot, options, now]` -> the markdown report (`generateReport(options)`).
    IA_TEXT_REPORT = 230 => "IterationAnalytics.generateReport" exec(snapshot: Text, options: Config, now: Text) -> unwrap;
    /// `[snapshot]` -> the quality chart (`generateQualityChart()`).
    IA_TEXT_CHART = 231 => "IterationAnalytics.generateQualityChart" exec(snapshot: Text) -> unwrap;
    /// `[ms]` -> `formatDuration(ms)`.
    IA_TEXT_DURATION = 232 => "IterationAnalytics.formatDuration" exec(ms: Value) -> unwrap;
    /// `[summary, config, storage folder or null, files?]` -> `[snapshot, persist]` (upstream's
    /// load: `IterationAnalytics.load` / `fromSummary`).
    IA_TEXT_FROM_SUMMARY = 233 => "IterationAnalytics.fromSummary" exec(summary: Value, config: Config, folder: Value, files: Bool) -> unwrap;
    /// `[snapshot, field, value]` -> the snapshot with one of upstream's public fields assigned.
    IA_TEXT_ASSIGN = 234 => "IterationAnalytics's field setters" exec(snapshot: Text, field: Str, value: Text) -> raw;
    /// `[loopId or null, storagePath, filename, "json" | "report"]` -> `{path}` or `{dir, name}`.
    IA_TEXT_FILE = 235 => "IterationAnalytics.saveAnalytics" exec(loop_id: Value, storage_path: Value, filename: Value, kind: Text) -> unwrap;
    /// `[filepath]` -> nothing, or the error for a `load(filepath)` argument.
    IA_TEXT_PATH_CHECK = 236 => "IterationAnalytics.load" exec(filepath: Value) -> unwrap;
    /// `[record, path]` -> nothing, or the error for a record written into upstream's
    /// `iterations` at `path` (`iterations[3]`): a field of one of the object's records changed.
    IA_TEXT_RECORD_CHECK = 237 => "IterationAnalytics's field setters" exec(record: Value, path: Str) -> unwrap;

    // --- pyramid outcome models, version 2 (mergeable: `pyramid_replay_ops`), 240..=249
    /// `[model or null, {window} or null]` -> the version 2 model document (a version 1 one
    /// converted, with its note; `null` a new empty one).
    PYRAMID_MODEL_LOAD = 240 => "OutcomeModel" exec(model: Opt, options: Opt) -> unwrap;
    /// `[model, other]` -> the merged version 2 document (a set union of their builds).
    PYRAMID_MODEL_MERGE = 241 => "OutcomeModel.prototype.merge" exec(model: Value, other: Opt) -> unwrap;
    /// `[model, ran, build {id, seq}]` -> the version 2 document after learning the build.
    PYRAMID_MODEL_LEARN = 242 => "OutcomeModel.prototype.learn" exec(model: Value, ran: Value, build: Value) -> unwrap;
    /// `[model, config or null]` -> the version 1 statistics the policy decides from.
    PYRAMID_MODEL_STATS = 243 => "OutcomeModel.prototype.statistics" exec(model: Value, config: Opt) -> unwrap;

    // --- calibration artifacts and shadow-mode receipts (`artifact_ops`), 280..=289
    /// `[jsonl text]` -> `{valid, receipts, head, brokenAt, labels}`: the receipt log's hash
    /// chain recomputed (a break is reported, not thrown).
    RECEIPTS_VERIFY = 280 => "verifyReceipts" exec(text: Value) -> unwrap;
    /// `[log text, receipts]` -> the JSONL lines that append `receipts` to the log, chained.
    RECEIPTS_APPEND = 281 => "appendReceipts" exec(log: Opt, receipts: Value) -> unwrap;
    /// `[artifact, runs, now]` -> `{status, fresh, reasons, runs, expiresAt, now}`.
    ARTIFACT_DRIFT = 282 => "checkPyramidDrift" exec(artifact: Value AS_OPTIONS, runs: Value AS_RUNS, now: Value) -> unwrap;
    /// `[artifact, auditRuns, now]` -> `{promoted, reason, audit, artifact}`.
    ARTIFACT_PROMOTE = 283 => "promotePyramidPolicy" exec(artifact: Value AS_OPTIONS, audit_runs: Value AS_RUNS, now: Value) -> unwrap;
    /// `[artifact, auditRuns, now]` -> `{promoted, reason, audit, artifact}` for a loop artifact.
    LOOP_PROMOTE = 284 => "promoteLoopPolicy" exec(artifact: Value AS_OPTIONS, audit_runs: Value AS_RUNS, now: Value) -> unwrap;
    /// `[artifact, runs, now]` -> `{status, fresh, reasons, artifact, ...}` for a loop artifact.
    LOOP_DRIFT = 285 => "checkLoopDrift" exec(artifact: Value AS_OPTIONS, runs: Value AS_RUNS, now: Value) -> unwrap;

    // --- JUnit / xUnit reports and Cobertura coverage (`junit_ops`, earlyexit-junit), 300
    /// `[text, options or null]` (`options`: `{coverageXml}`, a Cobertura file's text) -> the
    /// layer result `{passRate, coverage, flakyRatio, durationMs, total, passed, failed,
    /// flaky, skipped}`, by the command's reader.
    JUNIT_READ = 300 => "readJunit" exec(text: Value, options: Opt) -> unwrap;

    // --- BehaviorDetector and InterventionSystem (drop-ins for aiwg's behavior-detector.mjs
    // and intervention-system.mjs; `behavior_ops`), 260..=272, stateless: the JS layer keeps
    // the objects' public fields. "now" is the JS layer's clock or the `clock` option.
    /// `[THRESHOLDS, options]` -> nothing, or the error for `new BehaviorDetector(options)`
    /// (the JS layer then builds `{ ...THRESHOLDS, ...options.thresholds }` itself).
    BD_NEW = 260 => "BehaviorDetector" exec(thresholds: Text, options: Config AS_OPTIONS) -> unwrap;
    /// `[thresholds, partial]` -> nothing, or the error for `updateThresholds(partial)`.
    BD_UPDATE = 261 => "BehaviorDetector.updateThresholds" exec(thresholds: Value AS_THRESHOLDS, partial: Config AS_THRESHOLDS) -> unwrap;
    /// `[thresholds, history, detector]` -> `detect` (detector 0: an array of detections) or
    /// one detector's detection or null (1..=5: stuck, oscillation, deviation, resource burn,
    /// regression).
    BD_DETECT = 262 => "BehaviorDetector.detect" exec(thresholds: Value AS_THRESHOLDS, history: Value AS_HISTORY, detector: Num) -> unwrap;
    /// `[options]` -> nothing, or the error for `new InterventionSystem(options)` (functions
    /// cross as the host type `"function"`).
    IS_NEW = 263 => "InterventionSystem" exec(options: Config AS_OPTIONS) -> unwrap;
    /// `[detection, now]` -> the intervention without its `detection` (the JS layer puts the
    /// caller's object there).
    IS_INTERVENE = 264 => "InterventionSystem.intervene" exec(detection: Value AS_DETECTION, now: Value) -> unwrap;
    /// `[detection]` -> `determineLevel(detection)`.
    IS_LEVEL = 265 => "InterventionSystem.determineLevel" exec(detection: Value AS_DETECTION) -> unwrap;
    /// `[detection]` -> `buildWarning(detection)`.
    IS_WARNING = 266 => "InterventionSystem.buildWarning" exec(detection: Value AS_DETECTION) -> unwrap;
    /// `[detection]` -> `buildStrategyOverride(detection)`.
    IS_STRATEGY = 267 => "InterventionSystem.buildStrategyOverride" exec(detection: Value AS_DETECTION) -> unwrap;
    /// `[prompt, warning]` -> `injectWarning(prompt, warning)`.
    IS_INJECT = 268 => "InterventionSystem.injectWarning" exec(prompt: Value, warning: Value) -> unwrap;
    /// `[approvalReason, now, isPaused, pauseReason]` -> false (not paused) or the resumption
    /// entry to log.
    IS_RESUME = 269 => "InterventionSystem.resume" exec(approval_reason: Value, now: Value, is_paused: Value, pause_reason: Value) -> unwrap;
    /// `[log length, limit]` -> the index of `getLog(limit)`'s first entry.
    IS_LOG_START = 270 => "InterventionSystem.getLog" exec(log_length: Num, limit: Value) -> unwrap;
    /// `[interventionLog, isPaused, pauseReason]` -> `getSummary()`.
    IS_SUMMARY = 271 => "InterventionSystem.getSummary" exec(intervention_log: Value AS_LOG, is_paused: Value, pause_reason: Value) -> unwrap;
    /// `[state]` -> `[takeLog, isPaused or null, pauseReason or null]`: what `importState`
    /// takes over.
    IS_IMPORT = 272 => "InterventionSystem.importState" exec(state: Value AS_STATE) -> unwrap;

    // --- Loop, the refine-loop helper (`refine_ops`), 290..=299: ops of a `PolicyEngine`
    // object holding the core's `Loop` over output handles (the outputs stay in JS). A kept
    // output is `[iteration, quality on the loop's scale, handle]`; `state` is `[decision or
    // null, best, last, completed, output]`, each a kept output or null.
    /// `[policy or preset name or null, options {scale, maxIterations, task, dataset,
    /// runLabel, fingerprintOf}, artifact or null, nowMs, shadow candidate or null]` -> the
    /// shadow reason or null (an artifact not promoted or expired runs its calibration's most
    /// conservative policy, the calibrated one in shadow); fills the object (a fresh loop;
    /// `fingerprintOf` is only checked to be a function).
    REFINE_OPEN = 290 => "Loop" call(policy: Value AS_POLICY, options: Value AS_OPTIONS, artifact: Value AS_SNAPSHOT, now_ms: Num, shadow: Value AS_SHADOW) -> unwrap;
    /// `[step {quality, confidence, verified, done, good, tokens, costUsd, timeMs, error, files,
    /// fingerprint}, nowMs, fingerprint kind (0 none, 1 the output as a JSON value, 2 bytes as
    /// the code points 0..=255 of a string), output]` -> `[handle, scale notice or null, ...state]`. A bad step changes nothing.
    REFINE_STEP = 291 => "Loop.prototype.step";
    /// `[]` -> the recorded iterations (history records).
    REFINE_HISTORY = 292 => "Loop.prototype.history" call() -> unwrap;
    /// `[id]` -> the run `{id, dataset?, iterations}` (`id` when the loop has no task).
    REFINE_RUN = 293 => "Loop.prototype.run" call(id: Str) -> unwrap;
    /// `[good or null, id]` -> the finished run (`good`, a boolean, set on the output's iteration).
    REFINE_FINISH = 294 => "Loop.prototype.finish" call(good: Value AS_STEP, id: Str) -> unwrap;
    /// `[outputs (a boolean), [[handle, output], ...]]` -> the loop's document (`invalid_snapshot`
    /// naming `best.output` for an output that is not a JSON value when `outputs`).
    REFINE_TO_JSON = 295 => "Loop.prototype.toJSON" call(outputs: Value AS_SNAPSHOT, kept: Text) -> unwrap;
    /// `[document or its JSON text]` -> `[state, [[handle, output or null], ...]]`; fills the object.
    REFINE_FROM_JSON = 296 => "Loop.fromJSON" call(snapshot: Value AS_SNAPSHOT) -> unwrap;
    /// `[id]` -> the run's shadow receipt so far (`null` without a shadow), called `id`.
    REFINE_RECEIPT = 297 => "Loop.prototype.receipt" call(id: Str) -> unwrap;
}

/// Every slot and code table: the loop's fast path, then the pyramid's.
pub const TABLES: [Table; 7] = [
    earlyexit_js_fast::slots::TABLES[0],
    earlyexit_js_fast::slots::TABLES[1],
    earlyexit_js_fast::slots::TABLES[2],
    earlyexit_js_fast::slots::TABLES[3],
    crate::fast_pyramid::PYRAMID_SLOTS,
    crate::fast_pyramid::PYRAMID_CODES,
    crate::wire::ANSWER_MARKS,
];

// The pyramid's region lies between the loop's inputs and outputs and the loop's state.
const _: () = {
    use crate::fast_pyramid::{BASE, COSTS, COST_SLOTS, MAX_LAYERS};
    use earlyexit_js_fast::slots::{IN_TIMESTAMP, MAX_FAST_TIMESTAMP, STATE};
    assert!(IN_TIMESTAMP + MAX_FAST_TIMESTAMP / 8 <= BASE && COSTS + COST_SLOTS * MAX_LAYERS <= STATE);
};

// --- the fingerprint: FNV-1a (32 bits, exact as a JS number) ----------------------------

const FNV_OFFSET: u32 = 0x811c_9dc5;
const FNV_PRIME: u32 = 0x0100_0193;

/// FNV-1a over `bytes`, then a separator (so `["ab", "c"]` and `["a", "bc"]` differ).
const fn hash_bytes(mut hash: u32, bytes: &[u8]) -> u32 {
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u32).wrapping_mul(FNV_PRIME);
        i += 1;
    }
    (hash ^ 0xff).wrapping_mul(FNV_PRIME)
}

const fn hash_number(hash: u32, value: f64) -> u32 {
    hash_bytes(hash, &value.to_bits().to_le_bytes())
}

const fn hash_ops(mut hash: u32, ops: &[Op]) -> u32 {
    let mut i = 0;
    while i < ops.len() {
        let op = &ops[i];
        hash = hash_bytes(hash, op.name.as_bytes());
        hash = hash_number(hash, op.code as f64);
        hash = hash_bytes(hash, op.public.as_bytes());
        hash = hash_bytes(hash, op.doc.as_bytes());
        if let Some(call) = op.call {
            hash = hash_bytes(hash_bytes(hash, call.via.as_bytes()), call.answer.as_bytes());
            let mut a = 0;
            while a < call.args.len() {
                let arg = &call.args[a];
                hash = hash_bytes(
                    hash_bytes(hash_bytes(hash, arg.name.as_bytes()), arg.kind.as_bytes()),
                    arg.where_.as_bytes(),
                );
                a += 1;
            }
        }
        i += 1;
    }
    hash
}

const fn hash_tables(mut hash: u32, tables: &[Table]) -> u32 {
    let mut t = 0;
    while t < tables.len() {
        let table = &tables[t];
        hash = hash_bytes(hash, table.name.as_bytes());
        let mut i = 0;
        while i < table.entries.len() {
            hash = hash_bytes(hash, table.entries[i].js.as_bytes());
            hash = hash_number(hash, table.entries[i].value);
            i += 1;
        }
        t += 1;
    }
    hash
}

/// The contract's fingerprint, which `HELLO` answers and the generated module holds,
/// computed when this crate compiles (none of the tables' text reaches a binary): [`OPS`]
/// with their documented arguments, [`TABLES`], the key lists and which slot each detail
/// is in (`earlyexit_js_fast::keys`), the limits, the statuses by code, and the length of
/// every name list the JS layer reads by code (statuses, triggers, budgets, exit reasons,
/// verdicts: the core's `NAMES` consts), and the length of the others (outcomes, whose
/// codes follow this crate's order, host problems, record fields).
pub const FINGERPRINT: u32 = {
    use earlyexit::loops::{Budget, Trigger};
    let mut hash = hash_number(hash_tables(hash_ops(FNV_OFFSET, OPS), &TABLES), KEYS_HASH as f64);
    let names: [&[&str]; 5] = [
        &earlyexit::VerificationStatus::NAMES,
        &Trigger::NAMES,
        &Budget::NAMES,
        &earlyexit::ExitReason::NAMES,
        &earlyexit::pyramid::Verdict::NAMES,
    ];
    let mut list = 0;
    while list < names.len() {
        let mut i = 0;
        while i < names[list].len() {
            hash = hash_bytes(hash, names[list][i].as_bytes());
            i += 1;
        }
        list += 1;
    }
    let limits = earlyexit::limits::ALL;
    let mut i = 0;
    while i < limits.len() {
        hash = hash_bytes(hash, limits[i].js.as_bytes());
        hash = hash_number(hash, limits[i].value as f64);
        i += 1;
    }
    let lengths = [
        crate::fast_pyramid::OUTCOMES.len(),
        earlyexit::kit::host::Problem::ALL.len(),
        earlyexit::loops::RESULT_FIELDS.len(),
        earlyexit::loops::analytics::RECORD_FIELDS.len(),
    ];
    let mut i = 0;
    while i < lengths.len() {
        hash = hash_number(hash, lengths[i] as f64);
        i += 1;
    }
    hash
};

/// The key lists' part (`earlyexit_js_fast::keys`), computed when this crate compiles.
const KEYS_HASH: u32 = {
    use earlyexit_js_fast::keys::{self, Key};
    const fn hash_keys(mut hash: u32, keys: &[Key]) -> u32 {
        let mut i = 0;
        while i < keys.len() {
            hash = hash_bytes(hash, keys[i].name.as_bytes());
            hash = hash_number(hash, keys[i].optional as u8 as f64);
            i += 1;
        }
        hash_bytes(hash, b"")
    }
    const fn hash_slot_keys(mut hash: u32, keys: &[keys::DetailKey]) -> u32 {
        let mut i = 0;
        while i < keys.len() {
            hash = hash_bytes(hash, keys[i].name.as_bytes());
            hash = hash_number(hash, keys[i].kind as u8 as f64);
            i += 1;
        }
        hash_bytes(hash, b"")
    }
    let lists: [&[Key]; 12] = [
        &keys::DECISION,
        &keys::CHECK_ANSWER,
        &keys::SELECTION,
        &keys::RECORD,
        &keys::SUMMARY,
        &keys::SNAPSHOT,
        &keys::PYRAMID_RESULT,
        &keys::SPECULATION,
        &keys::FAILING_LAYER,
        &keys::LAYER_SPEC,
        &keys::CALIBRATE_ARGUMENTS,
        &keys::REPORT,
    ];
    let mut hash = FNV_OFFSET;
    let mut l = 0;
    while l < lists.len() {
        hash = hash_keys(hash, lists[l]);
        l += 1;
    }
    hash = hash_slot_keys(hash_slot_keys(hash, &keys::BUDGET_STATUS), &keys::PLATEAU_STEP);
    let mut d = 0;
    while d < keys::DETAILS.len() {
        hash = hash_slot_keys(hash_number(hash, keys::DETAILS[d].code), keys::DETAILS[d].keys);
        d += 1;
    }
    hash
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_and_codes_are_unique() {
        let mut names = std::collections::BTreeSet::new();
        let mut codes = std::collections::BTreeSet::new();
        for op in OPS {
            assert!(names.insert(op.name), "{} twice", op.name);
            assert!(codes.insert(op.code), "{} twice", op.code);
            assert_eq!(op.module == Module::Replay, !op.public.is_empty(), "{}", op.name);
            assert!(!op.doc.trim().is_empty(), "{} has no doc", op.name);
        }
    }

    /// The replay module answers exactly the ops the table routes to it (`handles` in the
    /// ops' modules are ranges of this table), and no op outside the table is answered.
    #[test]
    #[cfg(feature = "replay")]
    fn the_replay_module_answers_exactly_the_replay_ops() {
        let unknown = |answer: String| answer.starts_with(r#"!{"code":"invalid_step","kind":"range","field":"op""#);
        for code in 0..300 {
            let listed = OPS.iter().find(|op| op.code == code);
            let replay = listed.is_some_and(|op| op.module == Module::Replay);
            assert_eq!(!unknown(crate::loop_replay::exec_replay(code, "[]")), replay, "op {code}");
            if listed.is_none() {
                assert!(unknown(crate::exec(code, "[]")), "op {code} is answered but not listed");
            }
        }
    }

    /// Numeric constants of the JS contract are declared in the contract's tables (`ops!`,
    /// `contract_table!`) and nowhere else in the JS layer's crates: a `const NAME: u32 = 7`
    /// elsewhere is an op, slot or code the generated module would not know.
    #[test]
    fn op_consts_only_here() {
        let roots = [concat!(env!("CARGO_MANIFEST_DIR"), "/src"), concat!(env!("CARGO_MANIFEST_DIR"), "/../fast/src")];
        let declaration = |line: &str| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub(crate) ").or_else(|| line.strip_prefix("pub ")).unwrap_or(line);
            let Some(rest) = line.strip_prefix("const ") else { return false };
            let Some((_, value)) = rest.split_once(" = ") else { return false };
            let numeric_type = ["u8", "u16", "u32", "u64", "usize", "i32", "i64", "f64"]
                .iter()
                .any(|t| rest.split_once(':').is_some_and(|(_, ty)| ty.trim_start().starts_with(&format!("{t} "))));
            numeric_type && value.trim_start_matches('-').starts_with(|c: char| c.is_ascii_digit())
        };
        let mut found = Vec::new();
        let mut stack: Vec<std::path::PathBuf> = roots.iter().map(std::path::PathBuf::from).collect();
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                stack.extend(std::fs::read_dir(&path).expect("readable").map(|e| e.expect("entry").path()));
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("contract.rs") {
                let text = std::fs::read_to_string(&path).expect("readable");
                for (i, line) in text.lines().enumerate() {
                    if declaration(line) {
                        found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                    }
                }
            }
        }
        assert!(found.is_empty(), "numeric constants outside the contract's tables:\n{}", found.join("\n"));
        assert!(declaration("pub const IN_X: usize = 3;") && declaration("const C: f64 = -1.0;"));
        assert!(!declaration("const C: f64 = OTHER;") && !declaration("let x: u32 = 3;"));
    }

    #[test]
    fn the_fingerprint_covers_slots_ops_and_keys() {
        // What changes with the tables.
        let moved = [Table { name: TABLES[0].name, doc: "", entries: &[] }];
        assert_ne!(hash_tables(FNV_OFFSET, &moved), hash_tables(FNV_OFFSET, &TABLES[..1]));
        let mut ops = OPS.to_vec();
        ops[1].doc = "`[layerResult, more]` -> quality signal.";
        assert_ne!(hash_ops(FNV_OFFSET, &ops), hash_ops(FNV_OFFSET, OPS));
        assert_ne!(KEYS_HASH, FNV_OFFSET);
    }
}
