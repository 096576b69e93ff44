//! Renders the JS contract (`crate::contract`, the fast paths' tables and key lists, and the
//! core's name lists, limits and constant answers) into the files the JS layer reads:
//!
//! - `bindings/js/api/contract.generated.mjs`, the one module the JS layer's fragments and
//!   the wasm package's glue import (`bindings/js/build.mjs` inlines it into `api.cjs` /
//!   `api.mjs` and copies it into the wasm package as `contract.mjs` / `contract.cjs`): the
//!   ops, the slot and code tables, the core's names by code, limits and constant answers,
//!   the host's messages (`host_messages`), and builders of the results the JS layer
//!   assembles, rendered from the key lists of `earlyexit_js_fast::keys` (one object literal
//!   per shape; a key without a value here stops the generator);
//! - the string-literal unions of `bindings/js/index.d.ts` (each `export type X = ...;`
//!   statement below is rewritten in place, the rest of the file is left as it is).
//!
//! `cargo run -p earlyexit-js --bin gen-js-contract` writes them;
//! `tests::generated_files_are_current` renders them in memory and fails on any difference.
//! Native only: nothing here reaches a binding.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use earlyexit::loops::behavior::{
    DetectionType, InterventionLevel, Severity, Thresholds, INTERVENTION_LEVELS, LOG_LIMIT,
};
use earlyexit::loops::{Budget, EarlyStoppingConfig, StoppingSummary, Trigger};
use earlyexit::{ErrorCode, Naming, Value};
use earlyexit_js_fast::keys::{self, Key};
use earlyexit_js_fast::slots::Table;

use crate::contract::{Module, OPS, TABLES};
use crate::fast_pyramid::{EXIT_REASONS, OUTCOMES, VERDICTS};

/// The generated module, relative to `bindings/js/`.
pub const MODULE_PATH: &str = "api/contract.generated.mjs";
/// The types whose unions are rewritten, relative to `bindings/js/`.
pub const TYPES_PATH: &str = "index.d.ts";
/// The command that writes the files (named in the staleness test's failure).
pub const COMMAND: &str = "cargo run -p earlyexit-js --bin gen-js-contract";

/// `bindings/js/`, from this crate's manifest.
pub fn js_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// A JS string literal in single quotes.
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A number as JS writes it (the contract's values are integers).
fn number(n: f64) -> String {
    earlyexit::num::to_js_string(n)
}

/// A value as a JS literal (JSON with single-quoted strings: the values here are plain).
fn literal(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(*n),
        Value::String(s) => string(s),
        Value::Array(items) => format!("[{}]", items.iter().map(literal).collect::<Vec<_>>().join(", ")),
        Value::Object(entries) => format!(
            "{{ {} }}",
            entries.iter().map(|(k, v)| format!("{}: {}", key(k), literal(v))).collect::<Vec<_>>().join(", ")
        ),
        Value::Other(other) => panic!("no JS literal for {other}"),
    }
}

/// An object key: bare when it is an identifier.
fn key(k: &str) -> String {
    let ident = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        k.to_string()
    } else {
        string(k)
    }
}

fn strings<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    format!("[{}]", names.into_iter().map(string).collect::<Vec<_>>().join(", "))
}

/// Rust doc text as a JS comment's text: intra-doc link targets dropped.
fn doc_text(doc: &str) -> Vec<String> {
    doc.lines()
        .map(|line| {
            let line = line.strip_prefix(' ').unwrap_or(line);
            let mut out = String::new();
            let mut rest = line;
            while let Some(at) = rest.find("](crate::") {
                let before = &rest[..at];
                let open = before.rfind('[').unwrap_or(0);
                out.push_str(&before[..open]);
                out.push_str(&before[open + 1..]);
                rest = &rest[at + 1..];
                rest = rest.find(')').map_or("", |close| &rest[close + 1..]);
            }
            out.push_str(rest);
            out.replace("[`", "`").replace("`]", "`").trim_end().to_string()
        })
        .collect()
}

/// A `/** ... */` comment at `indent`, or nothing for an empty doc.
fn comment(out: &mut String, indent: &str, doc: &str) {
    let lines = doc_text(doc);
    match lines.as_slice() {
        [] => {}
        [one] => {
            let _ = writeln!(out, "{indent}/** {one} */");
        }
        many => {
            let _ = writeln!(out, "{indent}/**");
            for line in many {
                let _ = writeln!(out, "{indent} *{}{line}", if line.is_empty() { "" } else { " " });
            }
            let _ = writeln!(out, "{indent} */");
        }
    }
}

/// `CYCLE` for `Cycle`, `LAYERS_CHANGED` for `LayersChanged`.
fn screaming(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

fn export_const(out: &mut String, doc: &str, name: &str, value: &str) {
    comment(out, "", doc);
    let _ = writeln!(out, "export const {name} = {value};");
}

fn frozen_list(out: &mut String, doc: &str, name: &str, names: &[&str]) {
    export_const(out, doc, name, &format!("Object.freeze({})", strings(names.iter().copied())));
}

fn table(out: &mut String, table: &Table) {
    let _ = writeln!(out, "\n// --- {} ({})", table.name, doc_text(table.doc).join(" "));
    for entry in table.entries {
        export_const(out, entry.doc, entry.js, &number(entry.value));
    }
}

/// The core's name lists the JS layer reads by code or shows, with their union types.
struct Names {
    js: &'static str,
    ts: Option<&'static str>,
    doc: &'static str,
    names: Vec<&'static str>,
}

fn name_lists() -> Vec<Names> {
    let list = |js, ts, doc, names: Vec<&'static str>| Names { js, ts, doc, names };
    vec![
        list(
            "ERROR_CODES",
            Some("ErrorCode"),
            "Every error code (`error.code`).",
            ErrorCode::ALL.map(ErrorCode::as_str).to_vec(),
        ),
        list(
            "STATUSES",
            Some("VerificationStatus"),
            "Verification statuses by code (`IN_STATUS`, a high-confidence stop's status slot).",
            earlyexit::VerificationStatus::NAMES.to_vec(),
        ),
        list("TRIGGERS", Some("Trigger"), "Triggers, `none` first.", Trigger::ALL.map(Trigger::as_str).to_vec()),
        list("BUDGETS", None, "Budgets by code (a budget's slot).", Budget::ALL.map(Budget::as_str).to_vec()),
        list(
            "EXIT_REASONS",
            Some("ExitReason"),
            "Exit reasons by code (`P_EXIT_REASON`, `P_OUT_REASON`).",
            EXIT_REASONS.map(|r| r.as_str()).to_vec(),
        ),
        list(
            "OUTCOMES",
            Some("Outcome"),
            "Layer outcomes by code (`P_PREDICTED`, `P_OUT_ACTUAL`).",
            OUTCOMES.map(|o| o.as_str()).to_vec(),
        ),
        list(
            "VERDICTS",
            Some("Verdict"),
            "A pyramid run's verdicts by code (`P_OUT_VERDICT`).",
            VERDICTS.map(|v| v.as_str()).to_vec(),
        ),
        list(
            "LOOP_PRESETS",
            Some("LoopPresetName"),
            "The loop presets (`loopPreset(name)`), the default first.",
            earlyexit::loops::LOOP_PRESETS.to_vec(),
        ),
        list(
            "PYRAMID_POLICIES",
            Some("PyramidPolicyName"),
            "The pyramid replay's policies.",
            earlyexit::pyramid::replay::POLICY_NAMES.to_vec(),
        ),
        list(
            "DETECTION_TYPES",
            Some("DetectionType"),
            "What a behaviour detector finds (`detection.type`), in upstream's order of checks.",
            DetectionType::NAMES.to_vec(),
        ),
        list("SEVERITIES", Some("Severity"), "A detection's severities, mildest first.", Severity::NAMES.to_vec()),
        list(
            "INTERVENTION_LEVEL_NAMES",
            Some("InterventionLevel"),
            "The intervention levels, mildest first.",
            InterventionLevel::NAMES.to_vec(),
        ),
        list(
            "CONDITION_KINDS",
            Some("StopConditionKind"),
            "The kinds of leaf stop condition (the codes a decision's `fired` and `interventions` report).",
            earlyexit::loops::ConditionKind::NAMES.to_vec(),
        ),
        list(
            "LOAD_ERROR_CODES",
            Some("LoadErrorCode"),
            "The wasm package's error codes about loading and trap recovery (host_messages.rs).",
            crate::host_messages::LOAD_ERROR_CODES.to_vec(),
        ),
    ]
}

fn field_names(fields: &[earlyexit::value::FieldName]) -> Vec<&'static str> {
    fields.iter().map(|f| f.js()).collect()
}

/// The generated module's text.
pub fn module() -> String {
    let mut out = String::new();
    out.push_str(
        "// Generated by `cargo run -p earlyexit-js --bin gen-js-contract` from the Rust side of the JS\n\
         // contract (bindings/js/interface/src/contract.rs, bindings/js/interface/src/fast_pyramid.rs,\n\
         // bindings/js/fast/src/slots.rs and keys.rs) and the core's tables: edit those and run it again,\n\
         // never this file (render::tests::generated_files_are_current fails when it is stale).\n\
         //\n\
         // Plain constants only, so bindings/js/build.mjs can inline the module into the JS layer's one\n\
         // scope (api.cjs / api.mjs) and copy it into the wasm package for its glue (contract.mjs / .cjs).\n\n",
    );
    export_const(
        &mut out,
        "The contract's fingerprint: `OP.HELLO` answers the same number from a native module built\nfrom these tables (`FINGERPRINT` in contract.rs).",
        "CONTRACT",
        &number(f64::from(crate::contract::FINGERPRINT)),
    );

    let _ = writeln!(out, "\n// --- ops (contract.rs `ops!`)");
    comment(&mut out, "", "Op codes of `native.exec(op, args)` and `new native.NativeEngine().call(op, args)`: each op's\narguments (one array in the wire format) and answer.");
    out.push_str("export const OP = Object.freeze({\n");
    for op in OPS {
        comment(&mut out, "  ", op.doc);
        let _ = writeln!(out, "  {}: {},", op.name, op.code);
    }
    out.push_str("});\n");
    comment(
        &mut out,
        "",
        "The ops the wasm package's replay module answers (every other op is the engines module's),\nand the public function behind each, which the error before the module is loaded names.",
    );
    out.push_str("export const REPLAY_OPS = Object.freeze({\n");
    for op in OPS.iter().filter(|op| op.module == Module::Replay) {
        let _ = writeln!(out, "  {}: {},", op.code, string(op.public));
    }
    out.push_str("});\n");

    for t in &TABLES {
        table(&mut out, t);
    }
    let _ = writeln!(out, "\n// --- the wire format (wire.rs; its answers' first characters: ANSWER_MARKS above)");
    export_const(
        &mut out,
        "The key that marks a value JSON cannot hold (`{\"\\u0000\": \"NaN\"}`).",
        "WIRE_TAG",
        &string(crate::wire::TAG),
    );

    let _ = writeln!(out, "\n// --- the core's names");
    for list in name_lists() {
        frozen_list(&mut out, list.doc, list.js, &list.names);
    }
    let codes: Vec<String> =
        ErrorCode::ALL.iter().map(|c| format!("{}: {}", screaming(&format!("{c:?}")), string(c.as_str()))).collect();
    export_const(&mut out, "Error codes by name.", "ERROR_CODE", &format!("Object.freeze({{ {} }})", codes.join(", ")));
    let codes = earlyexit_js_fast::slots::LOOP_CODES.entries.iter().filter(|e| e.js.starts_with("CODE_"));
    let mut by_code = vec![Trigger::None.as_str(); 1 + codes.map(|e| e.value.max(0.0) as usize).max().unwrap_or(0)];
    for stop in keys::DETAILS {
        by_code[stop.code as usize] = stop.trigger.as_str();
    }
    frozen_list(
        &mut out,
        "The trigger of each decision code (`none` for the codes that do not stop).",
        "CODE_TRIGGER",
        &by_code,
    );
    let problems: Vec<String> = earlyexit::host::Problem::ALL
        .iter()
        .map(|p| format!("{}: {}", screaming(&format!("{p:?}")), *p as u8))
        .collect();
    export_const(
        &mut out,
        "What the JS layer found itself, by number (`OP.HOST_ERROR`; `earlyexit::host::Problem`).",
        "PROBLEM",
        &format!("Object.freeze({{ {} }})", problems.join(", ")),
    );
    let limits: Vec<String> = earlyexit::limits::ALL.iter().map(|l| format!("{}: {}", l.js, l.value)).collect();
    export_const(
        &mut out,
        "The size limits (docs/limits.md), exported as `LIMITS`.",
        "LIMITS",
        &format!("Object.freeze({{ {} }})", limits.join(", ")),
    );
    frozen_list(
        &mut out,
        "The keys a loop result (and a history record) may have.",
        "RECORD_FIELDS",
        &field_names(&earlyexit::loops::RESULT_FIELDS),
    );
    frozen_list(
        &mut out,
        "The behaviour fields a loop result (and a history record) may have beside those, in the order a record keeps them.",
        "BEHAVIOR_RECORD_FIELDS",
        &field_names(&earlyexit::loops::behavior::BehaviorIteration::result_fields()),
    );
    frozen_list(
        &mut out,
        "The keys of a layer result the core reads (the pyramid's fast path takes those it has slots for).",
        "LAYER_RESULT_FIELDS",
        &field_names(&earlyexit::pyramid::LAYER_RESULT_FIELDS),
    );
    frozen_list(
        &mut out,
        "The keys the core reads of a diminishing-returns source's report (keys.rs `REPORT`).",
        "REPORT_KEYS",
        &keys::REPORT.map(|k| k.name),
    );
    frozen_list(
        &mut out,
        "The keys of an IterationAnalytics record, in upstream's order.",
        "ANALYTICS_RECORD_FIELDS",
        &field_names(&earlyexit::loops::analytics::RECORD_FIELDS),
    );

    let _ = writeln!(out, "\n// --- the core's constant answers");
    export_const(
        &mut out,
        "`shouldStop()` before any record.",
        "REASON_NO_ITERATIONS",
        &string(earlyexit::loops::REASON_NO_ITERATIONS),
    );
    export_const(
        &mut out,
        "`shouldStop()` when nothing stops.",
        "REASON_CONTINUE",
        &string(earlyexit::loops::REASON_CONTINUE),
    );
    export_const(
        &mut out,
        "`generateSummary()` with no records.",
        "EMPTY_SUMMARY",
        &format!("Object.freeze({})", literal(&StoppingSummary::empty_value())),
    );
    let kinds: Vec<String> =
        crate::analytics_text_ops::FILE_KINDS.iter().map(|(name, kind)| format!("{name}: {}", string(kind))).collect();
    export_const(
        &mut out,
        "`OP.IA_TEXT_FILE`'s last argument: which file a save writes.",
        "FILE_KIND",
        &format!("Object.freeze({{ {} }})", kinds.join(", ")),
    );
    let done = earlyexit::Action::Done.to_value().get("action").cloned().expect("an action");
    export_const(&mut out, "`PyramidRun.next()`'s `action` when the run is done.", "STEP_DONE", &literal(&done));
    let fresh = earlyexit::EarlyStopping::fresh_snapshot(&EarlyStoppingConfig::default());
    let header: Vec<(String, Value)> = ["version", "engine"]
        .iter()
        .map(|k| (k.to_string(), fresh.get(k).cloned().expect("a snapshot's header")))
        .collect();
    export_const(
        &mut out,
        "An EarlyStopping snapshot's `version` and `engine`.",
        "SNAPSHOT",
        &format!("Object.freeze({})", literal(&Value::Object(header))),
    );

    let _ = writeln!(out, "\n// --- the behaviour detectors and interventions (earlyexit::loops::behavior)");
    export_const(
        &mut out,
        "upstream's `THRESHOLDS` (the JS layer exports a plain copy, as upstream's is).",
        "DEFAULT_THRESHOLDS",
        &format!("Object.freeze({})", literal(&Thresholds::DEFAULT.to_value(Naming::Js))),
    );
    let levels: Vec<String> =
        INTERVENTION_LEVELS.iter().map(|(name, level)| format!("{name}: {}", string(level.as_str()))).collect();
    export_const(
        &mut out,
        "upstream's `INTERVENTION_LEVELS`: each level under its constant's name.",
        "LEVELS_BY_NAME",
        &format!("Object.freeze({{ {} }})", levels.join(", ")),
    );
    export_const(&mut out, "How many interventions the log keeps.", "LOG_LIMIT", &number(LOG_LIMIT as f64));

    messages(&mut out);
    builders(&mut out);
    out
}

/// `MESSAGES` (a template is a function of its placeholders) and `HOST_CODES`.
fn messages(out: &mut String) {
    use crate::host_messages::{placeholders, MESSAGES};
    let _ = writeln!(out, "\n// --- the host's own errors (host_messages.rs says why they are worded there)");
    comment(out, "", "The texts of the errors only the JS host meets; a template is a function of its values.");
    out.push_str("export const MESSAGES = Object.freeze({\n");
    for m in MESSAGES {
        comment(out, "  ", m.doc);
        let names = placeholders(m.text);
        if names.is_empty() {
            let _ = writeln!(out, "  {}: {},", m.name, string(m.text));
            continue;
        }
        // 'a ' + what + ' b': the text between the placeholders, each a literal.
        let mut parts = Vec::new();
        let mut rest = m.text;
        while let Some((at, name)) =
            names.iter().filter_map(|n| rest.find(&format!("{{{n}}}")).map(|at| (at, *n))).min()
        {
            if at > 0 {
                parts.push(string(&rest[..at]));
            }
            parts.push(name.to_string());
            rest = &rest[at + name.len() + 2..];
        }
        if !rest.is_empty() {
            parts.push(string(rest));
        }
        let _ = writeln!(out, "  {}: ({}) => {},", m.name, names.join(", "), parts.join(" + "));
    }
    out.push_str("});\n");
    let mut codes: Vec<(&str, &str)> = Vec::new();
    for m in MESSAGES.iter().filter(|m| !m.code.is_empty()) {
        if !codes.iter().any(|(_, c)| *c == m.code) {
            codes.push((m.name, m.code));
        }
    }
    let entries: Vec<String> = codes.iter().map(|(name, code)| format!("{name}: {}", string(code))).collect();
    export_const(
        out,
        "The `.code` of each of them that has one.",
        "HOST_CODES",
        &format!("Object.freeze({{ {} }})", entries.join(", ")),
    );
}

/// A result object's keys and, for each, the JS expression of its value (`None`: the
/// builder cannot make that key, and the generator stops: a key the core added needs a
/// value here) and, for an optional key, when it is present.
struct Shape {
    name: &'static str,
    doc: &'static str,
    params: &'static str,
    prelude: &'static [&'static str],
    keys: &'static [Key],
    value: fn(&str) -> Option<&'static str>,
    present: fn(&str) -> Option<&'static str>,
}

fn object(entries: &[(&str, String)]) -> String {
    let fields: Vec<String> =
        entries.iter().map(|(k, v)| if k == v { k.to_string() } else { format!("{k}: {v}") }).collect();
    format!("{{ {} }}", fields.join(", "))
}

/// `export function name(params) { ... }`: one object literal per shape. Optional keys with
/// one condition: two literals (`cond ? with : without`). Otherwise the optional keys after
/// the last required one are assigned after the literal, each under its condition, and an
/// optional key among the required ones chooses between two literals (as the hand-written
/// builders did: one hidden class per shape).
fn shape(out: &mut String, shape: &Shape) {
    let value =
        |k: &Key| (shape.value)(k.name).unwrap_or_else(|| panic!("{}: no value for key {}", shape.name, k.name));
    let present =
        |k: &Key| (shape.present)(k.name).unwrap_or_else(|| panic!("{}: no condition for key {}", shape.name, k.name));
    let entries = |keep: &dyn Fn(&Key) -> bool| -> Vec<(&str, String)> {
        shape.keys.iter().filter(|k| keep(k)).map(|k| (k.name, value(k).to_string())).collect()
    };
    // An optional key whose condition is `true` is always written (its value may be undefined).
    let optional: Vec<&Key> = shape.keys.iter().filter(|k| k.optional && present(k) != "true").collect();
    let mut conditions: Vec<&str> = optional.iter().map(|k| present(k)).collect();
    conditions.dedup();
    let last_required = shape.keys.iter().rposition(|k| !optional.contains(&k)).unwrap_or(0);
    let trailing: Vec<&Key> = shape.keys.iter().skip(last_required + 1).collect();
    comment(out, "", shape.doc);
    let _ = writeln!(out, "export function {}({}) {{", shape.name, shape.params);
    for line in shape.prelude {
        let _ = writeln!(out, "  {line}");
    }
    // `keep` keys, the optional ones with condition `cond` in `with` only.
    let choose = |cond: &str, keep: &dyn Fn(&Key) -> bool| {
        let with = object(&entries(&|k| keep(k)));
        let without = object(&entries(&|k| keep(k) && !(optional.contains(&k) && present(k) == cond)));
        format!("{cond}\n    ? {with}\n    : {without}")
    };
    if conditions.len() <= 1 {
        let literal = match conditions.first() {
            None => object(&entries(&|_| true)),
            Some(cond) => choose(cond, &|_| true),
        };
        let _ = writeln!(out, "  return {literal};\n}}");
        return;
    }
    let middle: Vec<&str> = optional.iter().filter(|k| !trailing.contains(k)).map(|k| present(k)).collect();
    assert!(middle.windows(2).all(|w| w[0] == w[1]), "{}: optional keys in the middle with two conditions", shape.name);
    let head = |k: &Key| !trailing.contains(&k);
    let literal = match middle.first() {
        None => object(&entries(&head)),
        Some(cond) => choose(cond, &head),
    };
    let _ = writeln!(out, "  const o = {literal};");
    for k in trailing {
        let _ = writeln!(out, "  if ({}) o.{} = {};", present(k), k.name, value(k));
    }
    out.push_str("  return o;\n}\n");
}

/// The slot of key `i` from `base` (`OUT_DETAIL + 2`, `j + 1`).
fn slot(base: &str, i: usize) -> String {
    if i == 0 {
        base.to_string()
    } else {
        format!("{base} + {i}")
    }
}

/// A key's value from its slot, as its kind reads it.
fn read(kind: keys::Kind, at: &str) -> String {
    use keys::Kind;
    match kind {
        Kind::Number => format!("s[{at}]"),
        Kind::Bool => format!("s[{at}] !== 0"),
        Kind::Status => format!("STATUSES[s[{at}]]"),
        Kind::Budget => format!("BUDGETS[s[{at}]]"),
        Kind::Steps => format!("stepsOf(s, s[{at}])"),
        Kind::ReportIteration => "report.iteration".into(),
        Kind::ReportReason => "report.reason".into(),
    }
}

/// A list of records of `keys`, `stride` slots each from `at` (budgets, plateau steps).
fn list(out: &mut String, name: &str, doc: &str, at: &str, stride: &str, list_keys: &[keys::DetailKey]) {
    comment(out, "", doc);
    let entries: Vec<(&str, String)> =
        list_keys.iter().enumerate().map(|(i, k)| (k.name, read(k.kind, &slot("j", i)))).collect();
    let _ = writeln!(out, "export function {name}(s, count) {{");
    let _ = writeln!(out, "  const at = {at};\n  const list = new Array(count);\n  for (let i = 0; i < count; i++) {{");
    let _ = writeln!(
        out,
        "    const j = at + {stride} * i;\n    list[i] = {};\n  }}\n  return list;\n}}",
        object(&entries)
    );
}

/// `detailsOf(code, s, report)`: each stop's details (keys.rs `DETAILS`, key `i` in detail slot `i`).
fn details(out: &mut String) {
    use keys::{DetailKey, Kind};
    comment(
        out,
        "",
        "The details of stop `code` from the detail slots of `s` (`report`: the source's report, for\ndiminishing returns); `undefined` for a code that does not stop.",
    );
    out.push_str("export function detailsOf(code, s, report) {\n  switch (code) {\n");
    let codes = earlyexit_js_fast::slots::LOOP_CODES.entries;
    for stop in keys::DETAILS {
        let code = codes.iter().find(|e| e.js.starts_with("CODE_") && e.value == stop.code).expect("a code").js;
        let entries = |keep: &dyn Fn(&DetailKey) -> bool| -> Vec<(&str, String)> {
            let keys = stop.keys.iter().enumerate().filter(|(_, k)| keep(k));
            keys.map(|(i, k)| (k.name, read(k.kind, &slot("OUT_DETAIL", i)))).collect()
        };
        let optional: Vec<(usize, &DetailKey)> = stop
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| matches!(k.kind, Kind::Status | Kind::ReportIteration))
            .collect();
        let literal = match optional.as_slice() {
            [] => object(&entries(&|_| true)),
            [(i, k)] => {
                let absent = match k.kind {
                    Kind::Status => format!("s[{}] === STATUS_ABSENT", slot("OUT_DETAIL", *i)),
                    _ => "report.iteration === undefined".to_string(),
                };
                let without = object(&entries(&|d| d.name != k.name));
                format!("{absent}\n        ? {without}\n        : {}", object(&entries(&|_| true)))
            }
            _ => panic!("{code}: more than one optional detail"),
        };
        let _ = writeln!(out, "    case {code}:\n      return {literal};");
    }
    out.push_str("    default:\n      return undefined;\n  }\n}\n");
}

/// The builders of the results the JS layer assembles, from the key lists (keys.rs).
fn builders(out: &mut String) {
    out.push_str(
        "\n// --- builders: the objects the JS layer assembles, with the keys and order of the core's\n\
         // writers (keys.rs, each list tested against its writer). One literal per shape, so V8 keeps\n\
         // one hidden class per shape; bindings/js/build.mjs inlines them into the layer's scope.\n",
    );
    let doc = "A plateau's `improvements`: `count` steps from the slot `OUT_IMPROVEMENTS_AT` names.";
    list(out, "stepsOf", doc, "s[OUT_IMPROVEMENTS_AT]", "IMPROVEMENT_SLOTS", &keys::PLATEAU_STEP);
    let doc = "A decision's `budgets`: `count` statuses from `OUT_BUDGETS`.";
    list(out, "budgetsOf", doc, "OUT_BUDGETS", "BUDGET_STATUS_SLOTS", &keys::BUDGET_STATUS);
    details(out);
    for s in &SHAPES {
        shape(out, s);
    }
}

/// The same name for a key and the builder's parameter that holds its value.
fn same(k: &str) -> Option<&'static str> {
    const NAMES: [&str; 14] = [
        "stop",
        "reason",
        "confidence",
        "trigger",
        "details",
        "config",
        "history",
        "layers",
        "speculations",
        "selected",
        "predicted",
        "verified",
        "actual",
        "correct",
    ];
    NAMES.iter().find(|n| **n == k).copied().or(match k {
        "layer" => Some("layer"),
        "name" => Some("name"),
        "costMs" => Some("costMs"),
        "timestamp" => Some("timestamp"),
        _ => None,
    })
}

const SHAPES: [Shape; 11] = [
    Shape {
        name: "decisionOf",
        doc: "`shouldStop()`'s decision (`StoppingDecision`), the best record and the budgets from the slots of `s`.",
        params: "stop, reason, confidence, trigger, details, s",
        prelude: &["const best = s[OUT_BEST_PRESENT] !== 0;", "const budgetCount = s[OUT_BUDGET_COUNT];"],
        keys: &keys::DECISION,
        value: |k| match k {
            "best_iteration" => Some("best ? s[OUT_BEST_ITERATION] : null"),
            "best_quality_score" => Some("best ? s[OUT_BEST_QUALITY] : null"),
            "budgets" => Some("budgetsOf(s, budgetCount)"),
            _ => same(k),
        },
        present: |k| match k {
            "details" => Some("details !== undefined"),
            "budgets" => Some("budgetCount !== 0"),
            _ => None,
        },
    },
    Shape {
        name: "answerOf",
        doc: "A check method's answer (`checkHighConfidence()` and the others): the decision without its extras.",
        params: "stop, reason, confidence, trigger, details",
        prelude: &[],
        keys: &keys::CHECK_ANSWER,
        value: same,
        present: |k| (k == "details").then_some("details !== undefined"),
    },
    Shape {
        name: "recordOf",
        doc: "A history record (`IterationRecord`); `flags` (`FLAG_*`) says which usage fields it has.",
        params: "iteration, quality, confidence, status, delta, timestamp, flags, tokens, cost, time",
        prelude: &[],
        keys: &keys::RECORD,
        value: |k| match k {
            "iteration_number" => Some("iteration"),
            "quality_score" => Some("quality"),
            "verification_status" => Some("status"),
            "quality_delta" => Some("delta"),
            "tokens_used" => Some("tokens"),
            "token_cost_usd" => Some("cost"),
            "execution_time_ms" => Some("time"),
            _ => same(k),
        },
        present: |k| match k {
            "tokens_used" => Some("flags & FLAG_TOKENS"),
            "token_cost_usd" => Some("flags & FLAG_COST"),
            "execution_time_ms" => Some("flags & FLAG_TIME"),
            _ => None,
        },
    },
    Shape {
        name: "summaryOf",
        doc: "`generateSummary()` over a non-empty history (`StoppingSummary`): `decision` is the summary's\n`shouldStop()`, `last` the last record.",
        params: "total, decision, last, config",
        prelude: &[],
        keys: &keys::SUMMARY,
        value: |k| match k {
            "total_iterations" => Some("total"),
            "stopped_early" => Some("decision.stop"),
            "stopping_trigger" => Some("decision.trigger"),
            "stopping_reason" => Some("decision.reason"),
            "stopping_confidence" => Some("decision.confidence"),
            "final_quality" => Some("last.quality_score"),
            "final_confidence" => Some("last.confidence"),
            "final_verification" => Some("last.verification_status"),
            "details" => Some("decision.details"),
            _ => same(k),
        },
        present: |k| (k == "details").then_some("decision.details !== undefined"),
    },
    Shape {
        name: "snapshotOf",
        doc: "An EarlyStopping snapshot (`toJSON()`).",
        params: "config, history, reason, details",
        prelude: &[],
        keys: &keys::SNAPSHOT,
        value: |k| match k {
            "version" => Some("SNAPSHOT.version"),
            "engine" => Some("SNAPSHOT.engine"),
            "stoppingReason" => Some("reason"),
            "stoppingDetails" => Some("details"),
            _ => same(k),
        },
        present: |_| None,
    },
    Shape {
        name: "selectionOf",
        doc: "`selectBestIteration()`'s answer, with the record object the JS layer holds.",
        params: "selected, reason",
        prelude: &[],
        keys: &keys::SELECTION,
        value: same,
        present: |_| None,
    },
    Shape {
        name: "speculationOf",
        doc: "One speculation (`Speculation`): `actual` and `correct` once verified.",
        params: "predicted, confidence, verified, actual, correct",
        prelude: &[],
        keys: &keys::SPECULATION,
        value: same,
        present: |k| matches!(k, "actual" | "correct").then_some("verified"),
    },
    Shape {
        name: "failingLayerOf",
        doc: "A failing layer (`FailingLayer`).",
        params: "layer, name",
        prelude: &[],
        keys: &keys::FAILING_LAYER,
        value: same,
        present: |_| None,
    },
    Shape {
        name: "layerSpecOf",
        doc: "What the core reads of a layer (`LayerSpec`); an absent cost is `undefined`, which the encoder drops.",
        params: "name, costMs",
        prelude: &[],
        keys: &keys::LAYER_SPEC,
        value: same,
        // Always written: the encoder drops an undefined value, as the core reads an absent key.
        present: |k| (k == "costMs").then_some("true"),
    },
    Shape {
        name: "calibrateOptionsOf",
        doc: "`calibratePyramidPolicy`'s `risk` and `delta` as the options keys the core reads.",
        params: "risk, delta",
        prelude: &[],
        keys: &keys::CALIBRATE_ARGUMENTS,
        value: |k| match k {
            "risk" => Some("risk"),
            "delta" => Some("delta"),
            _ => None,
        },
        present: |_| None,
    },
    Shape {
        name: "pyramidResultOf",
        doc: "A pyramid run's result (`TestPyramidResult`) from the summary slots of `s` and the run's own lists.",
        params: "s, layers, speculations, executed, failing",
        prelude: &["const saved = s[P_OUT_SAVED];"],
        keys: &keys::PYRAMID_RESULT,
        value: |k| match k {
            "exitedEarly" => Some("s[P_OUT_EXITED] !== 0"),
            "exitLayer" => Some("s[P_OUT_EXIT_LAYER]"),
            "exitReason" => Some("EXIT_REASONS[s[P_OUT_REASON]]"),
            "confidence" => Some("s[P_OUT_CONFIDENCE]"),
            "skippedLayers" => Some("s[P_OUT_SKIPPED]"),
            "layersExecuted" => Some("executed"),
            "verifiedLayers" => Some("s[P_OUT_VERIFIED]"),
            "mispredictions" => Some("s[P_OUT_MISPREDICTIONS]"),
            "computeSavedMs" => Some("saved === saved ? saved : null"),
            "verdict" => Some("VERDICTS[s[P_OUT_VERDICT]]"),
            "failingLayers" => Some("failing"),
            _ => same(k),
        },
        present: |_| None,
    },
];

/// `text` with each listed `export type X = ...;` statement rendered from its list (the
/// layout kept: one line, or one member per line).
pub fn types(text: &str) -> String {
    let mut text = text.to_string();
    for list in name_lists() {
        let Some(ts) = list.ts else { continue };
        let head = format!("export type {ts} =");
        let start = text.find(&head).unwrap_or_else(|| panic!("{TYPES_PATH} has no `{head}`"));
        let end = start + text[start..].find(';').expect("a type statement ends with ;") + 1;
        let multiline = text[start..end].contains('\n');
        let members: Vec<String> = list.names.iter().map(|n| string(n)).collect();
        let rendered = if multiline {
            format!("{head}\n{};", members.iter().map(|m| format!("  | {m}")).collect::<Vec<_>>().join("\n"))
        } else {
            format!("{head} {};", members.join(" | "))
        };
        text.replace_range(start..end, &rendered);
    }
    text
}

/// Every generated file: its path under `bindings/js/` and its text (`types` from the
/// current `index.d.ts`).
pub fn files(dir: &Path) -> std::io::Result<Vec<(PathBuf, String)>> {
    let types_path = dir.join(TYPES_PATH);
    let current = std::fs::read_to_string(&types_path)?;
    Ok(vec![(dir.join(MODULE_PATH), module()), (types_path, types(&current))])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked-in files are what the tables give (run the generator after changing a table).
    #[test]
    fn generated_files_are_current() {
        for (path, expected) in files(&js_dir()).expect("bindings/js is readable") {
            let found = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(found == expected, "{} is stale: run `{COMMAND}`", path.display());
        }
    }

    #[test]
    fn doc_links_and_names_render_for_js() {
        assert_eq!(
            doc_text(" `[]` -> [`FINGERPRINT`](crate::contract::FINGERPRINT), and [`x`]."),
            ["`[]` -> `FINGERPRINT`, and `x`."]
        );
        assert_eq!(screaming("LayersChanged"), "LAYERS_CHANGED");
        assert_eq!(string("a'b\\\u{0}"), "'a\\'b\\\\\\u0000'");
        let text = "x\nexport type Verdict = 'a';\nexport type Outcome =\n  | 'b';\ny";
        let mut lists = text.to_string();
        lists.push_str("\nexport type ErrorCode = 'c';\nexport type VerificationStatus = 'd';\nexport type Trigger = 'e';\nexport type ExitReason = 'f';\nexport type LoopPresetName = 'g';\nexport type PyramidPolicyName = 'h';\nexport type LoadErrorCode = 'i';\nexport type DetectionType = 'j';\nexport type Severity = 'k';\nexport type InterventionLevel = 'l';\nexport type StopConditionKind = 'm';");
        let rendered = types(&lists);
        assert!(rendered.starts_with("x\nexport type Verdict = 'failed' | 'passed' | 'unverified';\nexport type Outcome =\n  | 'pass'\n  | 'flaky'\n  | 'fail';\ny"), "{rendered}");
    }
}
