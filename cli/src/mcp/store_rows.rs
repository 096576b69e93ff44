//! The rows of the run store's tools (`runs_*`, the command's `earlyexit runs` subcommands)
//! and the store arguments of `pyramid_result`, in the tools' table (`tools_table`). Every
//! store argument names its store: the server never uses `EARLYEXIT_STORE` or the default
//! file (docs/store.md, "From MCP").

use serde_json::json;

use super::tool_row::{Arg, Effect, Kind, Rule, ToolRow};
use crate::core_api::MAX_SAFE_INTEGER;

const fn arg(name: &'static str, kind: Kind, description: &'static str) -> Arg {
    Arg { name, kind, description, required: false }
}

/// `runs_list`'s `limit`: its default and its maximum, so an answer stays bounded.
pub(super) const LIST_LIMIT: (u64, u64) = (100, 1000);
/// The most JSONL `runs_export` answers inline (bytes); more needs `out`.
pub(super) const INLINE_EXPORT_BYTES: usize = 4 << 20;

fn store() -> Arg {
    Arg {
        name: "store",
        kind: Kind::String,
        description: "the run store, sqlite:PATH (its file inside the server's roots, symbolic links followed; never \
            created by a tool that only reads) or postgresql://...; required: the server has no default store",
        required: true,
    }
}

fn name(what: &'static str) -> Arg {
    Arg { name: "name", kind: Kind::String, description: what, required: true }
}

fn out(what: &'static str) -> Arg {
    arg("out", Kind::File, what)
}

/// The run filter of `runs_list` and `runs_export`.
fn select(limit: Arg) -> Vec<Arg> {
    vec![
        store(),
        arg("run_label", Kind::String, "only runs recorded with this label"),
        arg("dataset", Kind::String, "only runs of this dataset"),
        arg("since", Kind::String, "only runs recorded at or after this time (RFC 3339)"),
        limit,
    ]
}

/// `pyramid_result`'s arguments: the session, and what it writes to a store.
pub(super) fn pyramid_result_args(session: Arg) -> Vec<Arg> {
    vec![
        session,
        arg(
            "store",
            Kind::String,
            "the run store log and merge_model write to, sqlite:PATH (inside the server's roots; created when missing) \
             or postgresql://...; needs log or merge_model (the server has no default store)",
        ),
        arg("log", Kind::String, "with store: the name of the store's receipt log the run's shadow receipts are appended to"),
        arg(
            "merge_model",
            Kind::String,
            "with store: learn the run (its policy's ran) into the store's pyramid outcome model of this name, in one transaction",
        ),
        arg("build_id", Kind::String, "with merge_model: the build's id (the model's builds are kept by it)"),
        arg("build_seq", Kind::Integer((0, MAX_SAFE_INTEGER)), "with merge_model: the build's sequence number"),
    ]
}

/// `pyramid_result`'s rules: what goes to a store names the store, and a merge its build.
pub(super) const PYRAMID_RESULT_RULES: &[Rule] = &[
    Rule::Needs("log", "store"),
    Rule::Needs("merge_model", "store"),
    Rule::Needs("merge_model", "build_id"),
    Rule::Needs("merge_model", "build_seq"),
    Rule::Needs("build_id", "merge_model"),
    Rule::Needs("build_seq", "merge_model"),
    Rule::Needs("build_id", "build_seq"),
    Rule::Needs("build_seq", "build_id"),
];

fn object(description: &'static str) -> serde_json::Value {
    json!({"type": "object", "description": description})
}

/// The store's tools, in the order `tools/list` answers them after the others.
pub(super) fn rows() -> Vec<ToolRow> {
    let max = LIST_LIMIT.1;
    let read_only = Effect::ReadOnly;
    let writes_a_file = Effect::Writes { destructive: true, idempotent: true };
    vec![
        ToolRow {
            name: "runs_list",
            title: "List stored runs",
            description: "The store's loop runs (oldest first) the filter selects, each {runId, runLabel, recordedAt, id, \
                dataset, iterations}: at most limit (default 100, at most 1000); more is true when the store holds more.",
            effect: read_only,
            args: select(arg("limit", Kind::Integer((1, max)), "at most this many runs (default 100)")),
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"count": {"type": "integer"}, "more": {"type": "boolean"},
                    "runs": {"type": "array", "items": {"type": "object"}}}, "required": ["count", "more", "runs"]})
            },
        },
        ToolRow {
            name: "runs_export",
            title: "Export stored runs",
            description: "The store's loop runs the filter selects as JSONL (the form replay and calibration read): \
                written to out (atomically), or answered as text up to 4 MiB (more is refused naming out).",
            effect: writes_a_file,
            args: {
                let mut args = select(arg("limit", Kind::Integer((1, MAX_SAFE_INTEGER)), "at most this many runs (the oldest first)"));
                args.push(out("the file to write the JSONL to (replaced if it exists) instead of answering it"));
                args
            },
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"count": {"type": "integer"}, "out": {"type": "string"},
                    "text": {"type": "string"}}, "required": ["count"]})
            },
        },
        ToolRow {
            name: "runs_import",
            title: "Import runs into a store",
            description: "Add the runs of JSONL files (paths) or JSONL text to the store in one transaction: all or none; \
                a run already in the store is left out (read and added say how many). A missing sqlite store is \
                created (inside the roots).",
            effect: Effect::Writes { destructive: false, idempotent: true },
            args: vec![
                store(),
                arg("paths", Kind::Files, "JSONL files of runs (or text)"),
                arg("text", Kind::String, "the runs as JSONL text, one run per line (or paths)"),
                arg("run_label", Kind::String, "the label every imported run is recorded with"),
                arg("pyramid", Kind::Boolean, "the runs are recorded pyramid runs (calibrate_pyramids' store reads them); default false"),
            ],
            rules: &[Rule::OneOf(&["paths", "text"])],
            output: || {
                json!({"type": "object", "properties": {"read": {"type": "integer"}, "added": {"type": "integer"}},
                    "required": ["read", "added"]})
            },
        },
        ToolRow {
            name: "runs_check",
            title: "Check a store",
            description: "Check the whole store: SQLite's integrity check, then every run, receipt chain, artifact and \
                model read back; answers the counts (a store that fails is a tool error).",
            effect: read_only,
            args: vec![store()],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"valid": {"type": "boolean"}, "schemaVersion": {"type": "integer"},
                    "runs": {"type": "integer"}, "receiptLogs": {"type": "integer"}, "receipts": {"type": "integer"},
                    "artifacts": {"type": "integer"}, "models": {"type": "integer"}}, "required": ["valid", "runs"]})
            },
        },
        ToolRow {
            name: "runs_model",
            title: "A stored outcome model",
            description: "The pyramid outcome model NAME of the store (pyramid_result's merge_model merges into it); with \
                out, also written to that file (pyramid_start's model reads it).",
            effect: writes_a_file,
            args: vec![store(), name("the model's name in the store"), out("the file to write the model to (replaced if it exists)")],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"name": {"type": "string"}, "out": {"type": "string"},
                    "model": object("the outcome model document")}, "required": ["name", "model"]})
            },
        },
        ToolRow {
            name: "runs_artifact",
            title: "A stored calibration artifact",
            description: "The calibration artifact NAME of the store (calibrate_loops' out store:NAME and the promote \
                and drift tools write it); with out, also written to that file.",
            effect: writes_a_file,
            args: vec![store(), name("the artifact's name in the store"), out("the file to write the artifact to (replaced if it exists)")],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"name": {"type": "string"}, "out": {"type": "string"},
                    "artifact": object("the calibration artifact")}, "required": ["name", "artifact"]})
            },
        },
        ToolRow {
            name: "runs_artifacts",
            title: "List stored artifacts",
            description: "Every artifact of the store with its kind, its state now (promoted, shadow or expired), its \
                expiry and its SHA-256.",
            effect: read_only,
            args: vec![store()],
            rules: &[],
            output: || {
                json!({"type": "object", "properties": {"artifacts": {"type": "array", "items": {"type": "object"}}},
                    "required": ["artifacts"]})
            },
        },
    ]
}
