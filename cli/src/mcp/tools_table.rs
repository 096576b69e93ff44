//! Every MCP tool, declared once: one row per tool with its name, title, description, effect
//! (read-only or what it writes), each argument (name, JSON type, description, whether it is
//! required, and the core's name list or bounds it is checked against) and the rules between
//! its arguments (one of, not both, needs). From the rows come the input schemas `tools/list`
//! answers, the tool annotations, the argument names each tool accepts and the rules its
//! arguments keep (`Args::new` refuses other names and checks the rules); the command's flags
//! are held to the same rows (`flag_parity`). Enums and bounds are read from the core's
//! tables, never retyped. Tool arguments are snake_case; the documents inside them (configs,
//! layers, results, snapshots, artifacts) are the libraries' camelCase JSON.

use serde_json::{json, Map, Value as Json};

use crate::core_api::{
    Action, CoherenceEarlyExit, ExitPreset, IterationResult, LayerResult, Learn, LoopPreset, RunMode, Verdict,
    VerificationStatus, DRIFT_STATUSES, EXIT_PRESETS, POLICY_NAMES, PROMOTION_KEYS,
};

use super::wording::EngineKind;

pub(super) use super::tool_row::{Arg, Effect, Kind, Rule, ToolRow};

const fn arg(name: &'static str, kind: Kind, description: &'static str) -> Arg {
    Arg { name, kind, description, required: false }
}

const fn required(name: &'static str, kind: Kind, description: &'static str) -> Arg {
    Arg { name, kind, description, required: true }
}

fn session() -> Arg {
    required("session", Kind::Session, "the session")
}

fn runs() -> Arg {
    arg("runs", Kind::Types(&["string", "array"]), "runs as JSONL text (one run per line) or an array of run objects")
}

fn store() -> Arg {
    arg(
        "store",
        Kind::String,
        "a run store, sqlite:PATH (its file inside the server's roots) or postgresql://... (instead of runs, paths or text)",
    )
}

/// The runs of a replay or a calibration: inline or from files, one of them.
const RUNS_OR_PATHS: Rule = Rule::OneOf(&["runs", "paths"]);

fn paths() -> Arg {
    arg("paths", Kind::Files, "JSONL files of runs, read in order as one stream")
}

fn summary_only() -> Arg {
    arg("summary_only", Kind::Boolean, "answer without the per-run rows (runs); default false")
}

fn model() -> Arg {
    arg("model", Kind::Object, "an outcome model document {version, engine: PyramidOutcomeModel, layers}")
}

/// The policies of an outcome model (`fail_fast`, `risk_bounded`): the core's policy names
/// after the ADR's presets.
fn model_policies() -> &'static [&'static str] {
    let all: &'static [&'static str] = &POLICY_NAMES;
    all.get(EXIT_PRESETS.len()..).unwrap_or(all)
}

fn model_policy() -> Arg {
    arg("policy", Kind::Names(model_policies()), "the outcome-model policy (default risk_bounded)")
}

fn layer_result() -> Json {
    let (low, high) = LayerResult::FRACTION_RANGE;
    let fraction = |d: &str| json!({"type": "number", "minimum": low, "maximum": high, "description": d});
    json!({
        "type": "object",
        "properties": {"passRate": fraction("the share of tests that passed"), "coverage": fraction("the coverage"),
            "flakyRatio": fraction("the share of flaky tests")},
        "required": ["passRate", "coverage", "flakyRatio"]
    })
}

fn layer_result_out() -> Json {
    let mut schema = layer_result();
    schema["description"] = json!("a layer result {passRate, coverage, flakyRatio, ...}");
    schema
}

fn pyramid_layers() -> Json {
    json!({"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string", "description": "the layer's name"},
        "costMs": {"type": "number", "description": "what running it costs, in milliseconds"}},
        "required": ["name"]}})
}

fn decision() -> Json {
    json!({
        "type": "object",
        "description": "the library's StoppingDecision",
        "properties": {
            "stop": {"type": "boolean"}, "reason": {"type": "string"}, "confidence": {"type": "number"},
            "trigger": {"type": "string"}, "best_iteration": {"type": ["integer", "null"]},
            "best_quality_score": {"type": ["number", "null"]}
        },
        "required": ["stop", "reason", "confidence", "trigger"]
    })
}

fn step() -> Json {
    json!({
        "type": "object",
        "description": "the pending step: action run (run the layer), verify (run it to check a prediction) or done",
        "properties": {"action": {"enum": Action::NAMES}, "layer": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["action"]
    })
}

/// What `pyramid_drift` and `loop_drift` answer: the status (the core's), why, and the
/// artifact to run with now.
fn drift_out() -> Json {
    json!({"type": "object", "properties": {"status": {"enum": DRIFT_STATUSES},
        "reasons": {"type": "array"}, "artifact": {"type": "object"}}, "required": ["status", "reasons", "artifact"]})
}

/// What `pyramid_promote` and `loop_promote` answer: the core's `{promoted, reason, audit,
/// artifact}`.
fn promotion_out() -> Json {
    let types = ["boolean", "string", "object", "object"];
    let properties: Map<String, Json> =
        PROMOTION_KEYS.iter().zip(types).map(|(key, kind)| (key.to_string(), json!({"type": kind}))).collect();
    json!({"type": "object", "properties": properties, "required": PROMOTION_KEYS})
}

fn model_out() -> Json {
    json!({"type": "object", "description": "an outcome model document {version, engine: PyramidOutcomeModel, layers}"})
}

/// The store of the artifact arguments that are `store:NAME` (docs/store.md, "Artifacts").
fn artifact_store(what: &'static str) -> Arg {
    arg("store", Kind::String, what)
}

fn artifact_args() -> Vec<Arg> {
    vec![
        required(
            "artifact",
            Kind::Types(&["object", "string"]),
            "a calibration artifact (object or JSON text), or store:NAME: the artifact NAME of store, to which the answer's artifact (promoted, or demoted) is written back in one transaction",
        ),
        artifact_store(
            "the run store of artifact store:NAME, sqlite:PATH (its file inside the server's roots) or postgresql://...",
        ),
        required("runs", Kind::Types(&["array", "string"]), "the recent runs (an array, or JSONL text)"),
        arg(
            "now",
            Kind::Types(&["string", "number"]),
            "the time to judge at (RFC 3339 or epoch milliseconds); default now",
        ),
    ]
}

/// Every tool, in the order `tools/list` answers them (docs/cli.md, "MCP server").
pub(super) fn rows() -> Vec<ToolRow> {
    let mut rows = engine_rows();
    rows.extend(super::store_rows::rows());
    rows
}

fn engine_rows() -> Vec<ToolRow> {
    let quality = IterationResult::QUALITY_SCORE_RANGE;
    let resource = Some(IterationResult::RESOURCE_RANGE);
    let read_only = Effect::ReadOnly;
    let creates = Effect::Writes { destructive: false, idempotent: false };
    vec![
        ToolRow {
            name: "loop_start",
            title: "Start a loop session",
            description: "Start a loop-stopping session (an EarlyStopping engine) from a preset, or the policy of a \
                loop calibration artifact, and a partial config; strict_iterations (default true) makes \
                iteration numbers increase; policy (a composed stop policy, docs/loop-policies.md) makes \
                the decisions, which then list the conditions that fired.",
            effect: creates,
            args: vec![
                arg("preset", Kind::Names(&LoopPreset::NAMES), "the config preset; default seed"),
                arg("policy_artifact", Kind::Types(&["object", "string"]), "a calibrate_loops artifact (instead of preset), or store:NAME: the artifact NAME of store"),
                arg("config", Kind::Object, "a partial config, camelCase keys (plateauConsecutiveCount, maxIterations, ...)"),
                arg("strict_iterations", Kind::Boolean, "iteration numbers must increase; default true"),
                arg("policy", Kind::Object, "a stop policy: {any: [...]} / {all: [...]} / {k_of, of} / {not_before, then}, with returns"),
                arg("shadow", Kind::Types(&["object", "string"]), "a candidate run in shadow (a preset name, a policy or a loop calibration artifact, or store:NAME: the artifact NAME of store): it decides, never stops the loop (decisions carry would_stop); the loop's own config or policy must hold a hard cap (maxIterations or a budget)"),
                artifact_store(
                    "the run store of policy_artifact or shadow store:NAME, sqlite:PATH (its file inside the server's roots) or postgresql://...",
                ),
            ],
            rules: &[Rule::NotBoth("preset", "policy_artifact")],
            output: || {
                json!({"type": "object", "properties": {"session": {"type": "string"},
                    "config": {"type": "object", "description": "the full config"},
                    "warning": {"type": "string", "description": "present when policy_artifact certifies nothing"}},
                    "required": ["session", "config"]})
            },
        },
        ToolRow {
            name: "loop_record",
            title: "Record a loop iteration",
            description: "Record one iteration of a loop session and decide: stop is true when the loop should stop. \
                The iteration defaults to the next one.",
            effect: creates,
            args: [
                session(),
                arg("iteration", Kind::Integer(IterationResult::ITERATION_RANGE), "the iteration number; default the next one"),
                required("quality_score", Kind::Number(Some(quality)), "the iteration's quality"),
                required("confidence", Kind::Number(Some(IterationResult::CONFIDENCE_RANGE)), "how sure the quality is"),
                required("verification_status", Kind::Names(&VerificationStatus::NAMES), "how its output was verified"),
                arg("quality_delta", Kind::Number(None), "change since the previous iteration; default the quality minus the previous one's"),
                arg("timestamp", Kind::String, "RFC 3339; default now"),
                arg("tokens_used", Kind::Number(resource), "tokens this iteration used"),
                arg("token_cost_usd", Kind::Number(resource), "its cost in US dollars"),
                arg("execution_time_ms", Kind::Number(resource), "its wall-clock time in milliseconds"),
            ]
            .into_iter()
            .chain(super::behavior_args::arguments())
            .collect(),
            rules: &[Rule::NotBoth(super::behavior_args::DONE, super::behavior_args::COMPLETED)],
            output: || {
                json!({"type": "object", "properties": {
                    "iteration": {"type": "integer"}, "duplicate": {"type": "boolean"}, "decision": decision()
                }, "required": ["iteration", "duplicate", "decision"]})
            },
        },
        ToolRow {
            name: "loop_decide",
            title: "Decide whether a loop stops",
            description: "Decide whether a loop session should stop now (shouldStop).",
            effect: read_only,
            args: vec![session()],
            rules: &[],
            output: decision,
        },
        ToolRow {
            name: "loop_best",
            title: "Best iteration of a loop",
            description: "The best iteration of a loop session so far, with its record.",
            effect: read_only,
            args: vec![session()],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {
                    "best_iteration": {"type": ["integer", "null"]}, "best_quality_score": {"type": ["number", "null"]},
                    "record": {"type": ["object", "null"]}
                }, "required": ["best_iteration", "best_quality_score", "record"]})
            },
        },
        ToolRow {
            name: "loop_finish",
            title: "Receipt of a shadow loop",
            description: "End a loop session started with shadow: its receipt (where the candidate would have \
                stopped, what it would have returned against the run's best, the iterations saved, and the label \
                correct_stop, premature_stop, no_stop or unknown), for receipts_verify's log.",
            effect: read_only,
            args: vec![
                session(),
                arg("good", Kind::Boolean, "whether the output the loop hands back was good (omit when unknown)"),
                arg("run_id", Kind::String, "the run's id (default the session id)"),
                arg("task", Kind::String, "the task the run worked on"),
                arg("dataset", Kind::String, "the task's dataset"),
                arg("label", Kind::String, "the run's label (a branch, a pool)"),
            ],
            rules: &[],
            output: || json!({"type": "object", "properties": {"receipt": {"type": "object"}}, "required": ["receipt"]}),
        },
        ToolRow {
            name: "session_export",
            title: "Export a session",
            description: "Export a session as the libraries' snapshot JSON (EarlyStopping.fromJSON / PyramidRun.fromJSON read it); \
                with path, also write it to that file atomically (never through or over a symbolic link).",
            effect: Effect::Writes { destructive: true, idempotent: true },
            args: vec![session(), arg("path", Kind::File, "the file to write (replaced if it exists)")],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"session": {"type": "string"},
                    "snapshot": {"type": "object", "description": "the snapshot"}}, "required": ["session", "snapshot"]})
            },
        },
        ToolRow {
            name: "session_import",
            title: "Import a session",
            description: "Import a snapshot (object or JSON text) of an EarlyStopping or a PyramidRun as a new session.",
            effect: creates,
            args: vec![required("snapshot", Kind::Types(&["object", "string"]), "the snapshot (object or JSON text)")],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"session": {"type": "string"}, "engine": {"enum": EngineKind::NAMES}},
                    "required": ["session", "engine"]})
            },
        },
        ToolRow {
            name: "session_close",
            title: "Close a session",
            description: "End a session: the server forgets it and frees its memory (export it first to keep it).",
            effect: Effect::Writes { destructive: true, idempotent: false },
            args: vec![session()],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"session": {"type": "string"}, "closed": {"const": true}},
                    "required": ["session", "closed"]})
            },
        },
        ToolRow {
            name: "pyramid_start",
            title: "Start a pyramid session",
            description: "Start a test-pyramid session (a PyramidRun) with an ADR preset: answers the first step.",
            effect: creates,
            args: vec![
                arg("preset", Kind::Names(&ExitPreset::NAMES), "the ADR's exit preset; default default"),
                arg("config", Kind::Object, "a partial exit config, camelCase keys"),
                required("layers", Kind::Schema(pyramid_layers), "the layers in run order"),
                arg("total_layers", Kind::Integer(CoherenceEarlyExit::TOTAL_LAYERS_RANGE), "how many layers; default the length of layers"),
                arg("mode", Kind::Names(&RunMode::NAMES), "enforced (default) or shadow: every layer runs and the result's shadow holds the receipt of where the exit decision would have exited"),
                arg("run_id", Kind::String, "the run's id in its shadow receipt"),
                arg("label", Kind::String, "the run's label in its shadow receipt (a branch, a pool)"),
            ],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"session": {"type": "string"}, "next": step()},
                    "required": ["session", "next"]})
            },
        },
        ToolRow {
            name: "pyramid_submit",
            title: "Submit a layer result",
            description: "Submit the pending layer's result (a result object, or JUnit report paths with optional coverage) \
                and answer the next step.",
            effect: creates,
            args: vec![
                session(),
                required("layer", Kind::Types(&["integer", "string"]), "the pending layer's index or name"),
                arg("result", Kind::Schema(layer_result), "the layer result {passRate, coverage, flakyRatio, ...} (or junit)"),
                arg("junit", Kind::Files, "JUnit/xUnit report files (or result)"),
                arg("coverage_xml", Kind::File, "a Cobertura coverage file"),
                arg("coverage", Kind::Number(Some(LayerResult::FRACTION_RANGE)), "coverage with junit (default 1)"),
            ],
            rules: &[
                Rule::OneOf(&["result", "junit"]),
                Rule::NotBoth("coverage", "coverage_xml"),
                Rule::Needs("coverage", "junit"),
                Rule::Needs("coverage_xml", "junit"),
            ],
            output: || {
                json!({"type": "object", "properties": {
                    "layer": {"type": "integer"}, "name": {"type": "string"},
                    "result": {"type": "object", "description": "the layer result"},
                    "decision": {"type": ["object", "null"]}, "next": step()
                }, "required": ["layer", "name", "result", "decision", "next"]})
            },
        },
        ToolRow {
            name: "pyramid_result",
            title: "Result of a pyramid",
            description: "The TestPyramidResult of a finished pyramid session, with its verdict (passed, failed, unverified); \
                with store, its shadow receipts appended to the store's receipt log (log) and the run merged into the \
                store's outcome model (merge_model), answered under stored.",
            effect: Effect::Writes { destructive: false, idempotent: false },
            args: super::store_rows::pyramid_result_args(session()),
            rules: super::store_rows::PYRAMID_RESULT_RULES,
            output: || {
                json!({"type": "object", "properties": {
                    "exitedEarly": {"type": "boolean"}, "exitReason": {"type": "string"},
                    "verdict": {"enum": Verdict::NAMES}, "failingLayers": {"type": "array"}
                }, "required": ["exitedEarly", "exitReason", "verdict", "failingLayers"]})
            },
        },
        ToolRow {
            name: "pyramid_policy_decide",
            title: "Next step of a pyramid policy",
            description: "Next step of the fail_fast or risk_bounded policy with an outcome model: outcomes so far are \
                {layer, failed} or {layer, junit: [paths]}.",
            effect: read_only,
            args: vec![
                model_policy(),
                arg("config", Kind::Object, "a partial policy config, camelCase keys"),
                model(),
                required("layers", Kind::Objects, "the layers {name, costMs?} in run order"),
                arg("outcomes", Kind::Objects, "the outcomes so far: {layer, failed} or {layer, junit: [paths]}"),
            ],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"action": {"enum": ["run", "stop"]}, "layer": {"type": "integer"},
                    "reason": {"type": "string"}}, "required": ["action"]})
            },
        },
        ToolRow {
            name: "pyramid_policy_update",
            title: "Teach an outcome model",
            description: "Teach an outcome model one run (ran = [{name, failed, durationMs?}] in run order); answers the new model.",
            effect: read_only,
            args: vec![
                model_policy(),
                arg("config", Kind::Object, "a partial policy config, camelCase keys"),
                model(),
                required("ran", Kind::Objects, "the layers the run ran, in run order: {name, failed, durationMs?}"),
            ],
            rules: &[],
            output: model_out,
        },
        ToolRow {
            name: "replay_loops",
            title: "Replay a loop policy",
            description: "Replay a loop policy (preset name or {preset, config, returns, analytics}) over recorded runs \
                (paths are streamed). Size: the answer holds one row per run (about 350 bytes each) in its \
                structured content only (its text is the answer without them); summary_only: true answers \
                {policy, summary} alone, about 1 KB however many runs.",
            effect: read_only,
            args: vec![
                runs(),
                paths(),
                arg("policy", Kind::Types(&["string", "object"]), "a preset name or {preset, config, returns, analytics}; default seed"),
                summary_only(),
            ],
            rules: &[RUNS_OR_PATHS],
            output: || {
                json!({"type": "object", "properties": {"policy": {"type": "object"}, "summary": {"type": "object"},
                    "runs": {"type": "array", "description": "one row per run; absent with summary_only"}},
                    "required": ["policy", "summary"]})
            },
        },
        ToolRow {
            name: "replay_pyramids",
            title: "Replay a pyramid policy",
            description: "Replay a pyramid policy over recorded runs (paths are streamed); model_out (with paths) writes \
                the final model. Size: the answer holds one row per run (about 220 bytes, plus its id and 3 per \
                layer run) in its structured content only (its text is the answer without them); summary_only: true answers \
                {policy, summary, model} alone, about 1.3 KB plus the model's layers however many runs.",
            effect: Effect::Writes { destructive: true, idempotent: true },
            args: vec![
                runs(),
                paths(),
                arg("policy", Kind::Names(&POLICY_NAMES), "the ADR's presets or the outcome-model policies; default default"),
                arg("config", Kind::Object, "a partial config of the policy, camelCase keys"),
                model(),
                arg("learn", Kind::Names(&Learn::NAMES), "which outcomes teach the model"),
                arg("model_out", Kind::File, "the file the final model is written to"),
                summary_only(),
            ],
            rules: &[RUNS_OR_PATHS, Rule::Needs("model_out", "paths")],
            output: || {
                json!({"type": "object", "properties": {"policy": {"type": "string"},
                    "runs": {"type": "array", "description": "one row per run; absent with summary_only"},
                    "summary": {"type": "object"}, "model": {"type": ["object", "null"]}},
                    "required": ["policy", "summary", "model"]})
            },
        },
        ToolRow {
            name: "calibrate_pyramids",
            title: "Calibrate a pyramid policy",
            description: "Calibrate the risk budget of the pyramid policy on recorded runs (Learn-then-Test): runs, \
                paths, or the pyramid runs of a store; model_out (with paths) writes the calibrated model.",
            effect: Effect::Writes { destructive: true, idempotent: true },
            args: vec![
                runs(),
                paths(),
                required("risk", Kind::Number(None), "the miss rate to certify, 0 < risk < 1"),
                required("delta", Kind::Number(None), "the chance the certificate is wrong, 0 < delta < 1"),
                model_policy(),
                arg("config", Kind::Object, "a partial policy config, camelCase keys"),
                model(),
                arg("grid", Kind::Schema(|| json!({"type": "array", "items": {"type": "number"}})), "the risk budgets to try"),
                arg("warmup", Kind::Number(None), "the share of runs that only teach the model, 0 <= warmup < 1"),
                arg("model_out", Kind::File, "the file the calibrated model is written to"),
                store(),
                arg("run_label", Kind::String, "with store: only the runs recorded with this label"),
                arg("since", Kind::String, "with store: only the runs recorded at or after this time (RFC 3339)"),
            ],
            rules: &[
                Rule::OneOf(&["runs", "paths", "store"]),
                Rule::Needs("model_out", "paths"),
                Rule::Needs("run_label", "store"),
                Rule::Needs("since", "store"),
            ],
            output: || {
                json!({"type": "object", "properties": {"riskBudget": {"type": "number"}, "config": {"type": "object"},
                    "steps": {"type": "array"}, "model": {"type": "object"}}, "required": ["riskBudget", "config", "steps", "model"]})
            },
        },
        ToolRow {
            name: "calibrate_loops",
            title: "Calibrate a loop policy",
            description: "Calibrate a loop policy on recorded loop runs (Learn-then-Test along the family's path): the \
                cheapest policy whose premature-stop rate is at most risk with probability 1 - delta; answers \
                the calibration artifact (out writes it to a file, or with store:NAME into the store the runs came \
                from, unless the request is cancelled first; loop_start's policy_artifact runs it).",
            effect: Effect::Writes { destructive: true, idempotent: false },
            args: vec![
                runs(),
                paths(),
                arg("risk", Kind::Number(None), "the premature-stop rate to certify, 0 < risk < 1 (default 0.025)"),
                arg("delta", Kind::Number(None), "the chance the certificate is wrong, 0 < delta < 1 (default 0.1)"),
                arg("steps", Kind::Number(None), "points of the family's path"),
                arg("candidates", Kind::Schema(|| json!({"type": "array", "items": {"type": ["string", "object"]}})), "the policies to try (preset names or policy objects)"),
                arg("valid_days", Kind::Number(None), "days the artifact is trusted (default 90)"),
                arg("out", Kind::File, "the file the artifact is written to, or store:NAME: stored under NAME in store (one transaction)"),
                store(),
                arg("run_label", Kind::String, "with store: only the runs recorded with this label"),
                arg("since", Kind::String, "with store: only the runs recorded at or after this time (RFC 3339)"),
            ],
            rules: &[
                Rule::OneOf(&["runs", "paths", "store"]),
                Rule::Needs("run_label", "store"),
                Rule::Needs("since", "store"),
            ],
            output: || {
                json!({"type": "object", "properties": {"kind": {"const": "loop"}, "policy": {"type": "object"},
                    "certificate": {"type": "object"}, "corpusSha256": {"type": "string"}, "body": {"type": "object"}},
                    "required": ["kind", "policy", "certificate", "corpusSha256", "body"]})
            },
        },
        ToolRow {
            name: "receipts_verify",
            title: "Verify a receipt log",
            description: "Recompute a shadow-mode receipt log's hash chain (text, or path of the JSONL file): valid, where it breaks, \
                receipts by label, false-pass and needless-run rates with Wilson intervals, per policy (slices) and per \
                run label (labelSlices).",
            effect: read_only,
            args: vec![
                arg("text", Kind::String, "the receipt log as JSONL text (or path)"),
                arg("path", Kind::File, "the receipt log (or text)"),
                store(),
                arg("log", Kind::String, "with store: the name of the store's receipt log"),
            ],
            rules: &[Rule::Needs("store", "log"), Rule::OneOf(&["text", "path", "log"]), Rule::Needs("log", "store")],
            output: || {
                json!({"type": "object", "properties": {"valid": {"type": "boolean"}, "receipts": {"type": "integer"},
                    "brokenAt": {"type": ["object", "null"]}}, "required": ["valid", "receipts", "brokenAt"]})
            },
        },
        ToolRow {
            name: "calibration_plan",
            title: "Plan a loop calibration",
            description: "How many tasks a loop calibration needs to certify a premature-stop rate at most risk with \
                probability 1 - delta, with 0, 1, 2 and 3 premature stops (minimumToCertify is the first: 91 at \
                risk 0.025 and delta 0.1). Reads no runs.",
            effect: read_only,
            args: vec![
                arg("risk", Kind::Number(None), "the premature-stop rate to certify, 0 < risk < 1 (default 0.025)"),
                arg("delta", Kind::Number(None), "the chance the certificate is wrong, 0 < delta < 1 (default 0.1)"),
            ],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"risk": {"type": "number"}, "delta": {"type": "number"},
                    "minimumToCertify": {"type": "integer"}, "tasksNeeded": {"type": "array", "items": {"type": "object",
                    "properties": {"prematureStops": {"type": "integer"}, "tasks": {"type": ["integer", "null"]}}}}},
                    "required": ["risk", "delta", "minimumToCertify", "tasksNeeded"]})
            },
        },
        ToolRow {
            name: "pyramid_drift",
            title: "Check a calibration for drift",
            description: "Whether a calibration artifact still holds for recent runs: fresh, expired or drifted, and why \
                (per stage set, stage and run label: a run's optional label is a slice). With artifact store:NAME, \
                the artifact to run with now is written back to store.",
            effect: Effect::Writes { destructive: true, idempotent: false },
            args: artifact_args(),
            rules: &[],
            output: drift_out,
        },
        ToolRow {
            name: "pyramid_promote",
            title: "Promote a calibration",
            description: "Promote a calibration artifact from shadow to enforced on audit runs disjoint from calibration \
                (exact Clopper-Pearson bound of the false-pass rate within the risk). With artifact store:NAME, the \
                answer's artifact is written back to store (promoted when it is).",
            effect: Effect::Writes { destructive: true, idempotent: false },
            args: artifact_args(),
            rules: &[],
            output: promotion_out,
        },
        ToolRow {
            name: "loop_drift",
            title: "Check a loop calibration for drift",
            description: "Whether a loop calibration artifact still holds for recent loop runs: fresh, expired or \
                drifted (a dataset unseen in calibration, a premature-stop rate outside the calibration interval, \
                a premature stop after promotion), and the artifact to run with now (demoted unless fresh); with \
                artifact store:NAME, written back to store.",
            effect: Effect::Writes { destructive: true, idempotent: false },
            args: artifact_args(),
            rules: &[],
            output: drift_out,
        },
        ToolRow {
            name: "loop_promote",
            title: "Promote a loop calibration",
            description: "Promote a loop calibration artifact on audit runs that share no task with its calibration \
                (exact Clopper-Pearson bound of the premature-stop rate within the risk). With artifact store:NAME, \
                the answer's artifact is written back to store (promoted when it is): loop_start's \
                policy_artifact store:NAME runs it.",
            effect: Effect::Writes { destructive: true, idempotent: false },
            args: artifact_args(),
            rules: &[],
            output: promotion_out,
        },
        ToolRow {
            name: "junit_layer_result",
            title: "Read JUnit reports",
            description: "Read JUnit/xUnit XML reports (and optionally Cobertura coverage) into a layer result.",
            effect: read_only,
            args: vec![
                required("junit", Kind::Files, "JUnit/xUnit report files"),
                arg("coverage_xml", Kind::File, "a Cobertura coverage file"),
                arg("coverage", Kind::Number(Some(LayerResult::FRACTION_RANGE)), "the coverage to report (default 1)"),
            ],
            rules: &[Rule::NotBoth("coverage", "coverage_xml")],
            output: layer_result_out,
        },
    ]
}

/// The row of `tool`, if it is one.
pub(super) fn row(tool: &str) -> Option<ToolRow> {
    rows().into_iter().find(|r| r.name == tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every property of every input schema is described, and every tool has a title and
    /// annotations.
    #[test]
    fn every_property_is_described() {
        let mut described = 0usize;
        for row in rows() {
            let tool = row.tool();
            assert!(tool.title.is_some() && tool.annotations.is_some(), "{}", row.name);
            let properties = tool.input_schema.get("properties").and_then(Json::as_object).cloned().unwrap_or_default();
            assert_eq!(properties.len(), row.args.len(), "{}", row.name);
            for (name, schema) in properties {
                let text = schema.get("description").and_then(Json::as_str).unwrap_or("");
                assert!(!text.is_empty(), "{}.{name} has no description", row.name);
                described += 1;
            }
        }
        assert!(described > 0);
    }

    /// `loop_record`'s bounds are the core's (read from its tables, not retyped).
    #[test]
    fn loop_record_bounds_are_the_core_s() {
        let tool = row("loop_record").map(|r| r.tool());
        let properties = tool.and_then(|t| t.input_schema.get("properties").cloned()).unwrap_or_default();
        assert_eq!(properties["quality_score"]["maximum"], json!(100.0));
        assert_eq!(properties["confidence"]["maximum"], json!(1.0));
        assert_eq!(properties["coverage_percent"]["maximum"], json!(100.0));
        assert_eq!(properties["tokens_used"]["minimum"], json!(0.0));
        assert_eq!(properties["tokens_used"].get("maximum"), None);
        assert_eq!(properties["verification_status"]["enum"], json!(["passed", "failed", "skipped"]));
    }

    /// The promotion and drift tools' output schemas are the core's answers, as they were.
    #[test]
    fn lifecycle_outputs_are_the_core_s_answers() {
        let expected = json!({"type": "object", "properties": {"promoted": {"type": "boolean"}, "reason": {"type": "string"},
            "audit": {"type": "object"}, "artifact": {"type": "object"}}, "required": ["promoted", "reason", "audit", "artifact"]});
        for name in ["pyramid_promote", "loop_promote"] {
            assert_eq!(row(name).map(|r| (r.output)()), Some(expected.clone()), "{name}");
        }
        let drift = json!({"type": "object", "properties": {"status": {"enum": ["fresh", "expired", "drifted"]},
            "reasons": {"type": "array"}, "artifact": {"type": "object"}}, "required": ["status", "reasons", "artifact"]});
        for name in ["pyramid_drift", "loop_drift"] {
            assert_eq!(row(name).map(|r| (r.output)()), Some(drift.clone()), "{name}");
        }
    }
}
