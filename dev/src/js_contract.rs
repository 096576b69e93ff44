//! The JS contract's module, `bindings/js/api/contract.generated.mjs`, rendered from the Rust
//! side of the contract (`earlyexit_js::contract`, the fast paths' tables and key lists) and
//! the core's name lists, limits and constant answers: the one module the JS layer's
//! fragments and the wasm package's glue import (`bindings/js/build.mjs` inlines it into
//! `api.cjs` / `api.mjs` and copies it into the wasm package as `contract.mjs` /
//! `contract.cjs`): the ops, the slot and code tables, the core's names by code, limits and
//! constant answers, the host's messages (`host_messages`), and builders of the results the
//! JS layer assembles (`crate::js_builders`; a key without a value there stops the
//! generator). Also the string-literal unions of `bindings/js/index.d.ts` ([`types`]: each
//! `export type X = ...;` statement of [`name_lists`] is rewritten in place).

use std::fmt::Write as _;

use earlyexit::loops::behavior::{
    DetectionType, InterventionLevel, Severity, Thresholds, INTERVENTION_LEVELS, LOG_LIMIT,
};
use earlyexit::loops::{Budget, EarlyStoppingConfig, StoppingSummary, Trigger};
use earlyexit::{ErrorCode, Naming, Value};
use earlyexit_js::contract::{Module, OPS, TABLES};
use earlyexit_js::fast_pyramid::{EXIT_REASONS, OUTCOMES, VERDICTS};
use earlyexit_js_fast::keys;

use crate::js_builders::builders;
use crate::js_text::{comment, export_const, frozen_list, literal, number, screaming, string, table};

/// The core's name lists the JS layer reads by code or shows, with their union types.
pub(crate) struct Names {
    /// The generated module's constant, if the JS layer reads the list.
    pub(crate) js: Option<&'static str>,
    /// The union of `index.d.ts`, if it has one.
    pub(crate) ts: Option<&'static str>,
    pub(crate) doc: &'static str,
    pub(crate) names: Vec<&'static str>,
}

pub(crate) fn name_lists() -> Vec<Names> {
    let list = |js, ts, doc, names: Vec<&'static str>| Names { js: Some(js), ts, doc, names };
    let union = |ts, names: Vec<&'static str>| Names { js: None, ts: Some(ts), doc: "", names };
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
            earlyexit_js::host_messages::LOAD_ERROR_CODES.to_vec(),
        ),
        union("PlateauDeltaSource", earlyexit::loops::PlateauDeltaSource::NAMES.to_vec()),
        union("PlateauMode", earlyexit::loops::PlateauMode::NAMES.to_vec()),
        union("SelectionCriteria", earlyexit::SelectionCriteria::NAMES.to_vec()),
        union("Trajectory", earlyexit::Trajectory::NAMES.to_vec()),
        union("ReceiptLabel", earlyexit::pyramid::policy::ReceiptLabel::NAMES.to_vec()),
        union("RunPolicyName", earlyexit::pyramid::policy::RunPolicy::NAMES.to_vec()),
    ]
}

fn field_names(fields: &[earlyexit::value::FieldName]) -> Vec<&'static str> {
    fields.iter().map(|f| f.js()).collect()
}

/// The generated module's text.
pub fn module() -> String {
    let mut out = String::new();
    out.push_str(
        "// Generated by `make generate` (dev/, crate earlyexit-dev) from the Rust side of the JS\n\
         // contract (bindings/js/interface/src/contract.rs, bindings/js/interface/src/fast_pyramid.rs,\n\
         // bindings/js/fast/src/slots.rs and keys.rs) and the core's tables: edit those and run it again,\n\
         // never this file (`make test-rust` runs `generate --check`, which fails when it is stale).\n\
         //\n\
         // Plain constants only, so bindings/js/build.mjs can inline the module into the JS layer's one\n\
         // scope (api.cjs / api.mjs) and copy it into the wasm package for its glue (contract.mjs / .cjs).\n\n",
    );
    export_const(
        &mut out,
        "The contract's fingerprint: `OP.HELLO` answers the same number from a native module built\nfrom these tables (`FINGERPRINT` in contract.rs).",
        "CONTRACT",
        &number(f64::from(earlyexit_js::contract::FINGERPRINT)),
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
        &string(earlyexit_js::wire::TAG),
    );

    let _ = writeln!(out, "\n// --- the core's names");
    for list in name_lists() {
        if let Some(js) = list.js {
            frozen_list(&mut out, list.doc, js, &list.names);
        }
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
    let problems: Vec<String> = earlyexit::kit::host::Problem::ALL
        .iter()
        .map(|p| format!("{}: {}", screaming(&format!("{p:?}")), *p as u8))
        .collect();
    export_const(
        &mut out,
        "What the JS layer found itself, by number (`OP.HOST_ERROR`; `earlyexit::kit::host::Problem`).",
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
    let kinds: Vec<String> = earlyexit_js::analytics_text_ops::FILE_KINDS
        .iter()
        .map(|(name, kind)| format!("{name}: {}", string(kind)))
        .collect();
    export_const(
        &mut out,
        "`OP.IA_TEXT_FILE`'s last argument: which file a save writes.",
        "FILE_KIND",
        &format!("Object.freeze({{ {} }})", kinds.join(", ")),
    );
    let done = earlyexit::Action::Done.to_value().get("action").cloned().expect("an action");
    export_const(&mut out, "`PyramidRun.next()`'s `action` when the run is done.", "STEP_DONE", &literal(&done));
    export_const(
        &mut out,
        "A pyramid result's `note` when an early exit saved nothing.",
        "NOTE_NOTHING_SAVED",
        &string(earlyexit::pyramid::NOTE_NOTHING_SAVED),
    );
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
    use earlyexit_js::host_messages::{placeholders, MESSAGES};
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

/// `text` with each listed `export type X = ...;` statement rendered from its list (the
/// layout kept: one line, or one member per line).
/// The `export type X = '...'` union of `index.d.ts` whose members are `names` (a core name
/// list), if the file has one.
pub(crate) fn union_for(names: &[&str]) -> Option<&'static str> {
    name_lists().into_iter().filter(|l| l.names == names).find_map(|l| l.ts)
}

pub fn types(text: &str) -> String {
    let mut text = text.to_string();
    for list in name_lists() {
        let Some(ts) = list.ts else { continue };
        let head = format!("export type {ts} =");
        let start = text.find(&head).unwrap_or_else(|| panic!("index.d.ts has no `{head}`"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js_text::doc_text;

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
        for list in name_lists() {
            let Some(ts) = list.ts else { continue };
            if ts != "Verdict" && ts != "Outcome" {
                lists.push_str(&format!("\nexport type {ts} = 'z';"));
            }
        }
        let rendered = types(&lists);
        assert!(rendered.starts_with("x\nexport type Verdict = 'failed' | 'passed' | 'unverified';\nexport type Outcome =\n  | 'pass'\n  | 'flaky'\n  | 'fail';\ny"), "{rendered}");
    }
}
