//! Renders the JS contract (`crate::contract`, the fast paths' tables and key lists, and the
//! core's name lists, limits and constant answers) into the files the JS layer reads:
//!
//! - `bindings/js/api/contract.generated.mjs`, the one module the JS layer's fragments and
//!   the wasm package's glue import (`bindings/js/build.mjs` inlines it into `api.cjs` /
//!   `api.mjs` and copies it into the wasm package as `contract.mjs` / `contract.cjs`);
//! - the string-literal unions of `bindings/js/index.d.ts` (each `export type X = ...;`
//!   statement below is rewritten in place, the rest of the file is left as it is).
//!
//! `cargo run -p earlyexit-js --bin gen-js-contract` writes them;
//! `tests::generated_files_are_current` renders them in memory and fails on any difference.
//! Native only: nothing here reaches a binding.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use earlyexit::loop_stopping::{self, Budget, EarlyStoppingConfig, StoppingSummary, Trigger};
use earlyexit::{ErrorCode, Value};
use earlyexit_js_fast::keys;
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
    earlyexit::jsnum::to_js_string(n)
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
            earlyexit::VerificationStatus::ALL.to_vec(),
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
            loop_stopping::LOOP_PRESETS.to_vec(),
        ),
        list(
            "PYRAMID_POLICIES",
            Some("PyramidPolicyName"),
            "The pyramid replay's policies.",
            earlyexit::pyramid_replay::POLICY_NAMES.to_vec(),
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
        &field_names(&loop_stopping::RESULT_FIELDS),
    );
    frozen_list(
        &mut out,
        "The keys of an IterationAnalytics record, in upstream's order.",
        "ANALYTICS_RECORD_FIELDS",
        &field_names(&earlyexit::analytics::RECORD_FIELDS),
    );

    let _ = writeln!(out, "\n// --- the core's constant answers");
    export_const(
        &mut out,
        "`shouldStop()` before any record.",
        "REASON_NO_ITERATIONS",
        &string(loop_stopping::REASON_NO_ITERATIONS),
    );
    export_const(
        &mut out,
        "`shouldStop()` when nothing stops.",
        "REASON_CONTINUE",
        &string(loop_stopping::REASON_CONTINUE),
    );
    export_const(
        &mut out,
        "`generateSummary()` with no records.",
        "EMPTY_SUMMARY",
        &format!("Object.freeze({})", literal(&StoppingSummary::empty_value())),
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

    out
}

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
        lists.push_str("\nexport type ErrorCode = 'c';\nexport type VerificationStatus = 'd';\nexport type Trigger = 'e';\nexport type ExitReason = 'f';\nexport type LoopPresetName = 'g';\nexport type PyramidPolicyName = 'h';");
        let rendered = types(&lists);
        assert!(rendered.starts_with("x\nexport type Verdict = 'failed' | 'passed' | 'unverified';\nexport type Outcome =\n  | 'pass'\n  | 'flaky'\n  | 'fail';\ny"), "{rendered}");
    }
}
