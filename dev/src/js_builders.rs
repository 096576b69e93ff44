//! The builders of `contract.generated.mjs`: the objects the JS layer assembles, rendered
//! from the key lists (`earlyexit_js_fast::keys`, built from the core's writers' tables).

use std::fmt::Write as _;

use earlyexit_js_fast::keys::{self, Key};

use crate::js_text::comment;

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
pub(crate) fn builders(out: &mut String) {
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
        doc: "An EarlyStopping snapshot (`toJSON()`); `strictFrom`: where strict checking began (0: no key).",
        params: "config, history, reason, details, strictFrom",
        prelude: &[],
        keys: &keys::SNAPSHOT,
        value: |k| match k {
            "version" => Some("SNAPSHOT.version"),
            "engine" => Some("SNAPSHOT.engine"),
            "stoppingReason" => Some("reason"),
            "stoppingDetails" => Some("details"),
            "strictIterationsFrom" => Some("strictFrom"),
            _ => same(k),
        },
        present: |k| (k == "strictIterationsFrom").then_some("strictFrom > 0"),
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
        doc: "One speculation of a run (`Speculation`): `actual` and `correct` once verified, then its layer.",
        params: "predicted, confidence, verified, actual, correct, layer, name",
        prelude: &[],
        keys: &keys::SPECULATION,
        value: same,
        // A run's predictions always name their layer.
        present: |k| match k {
            "actual" | "correct" => Some("verified"),
            "layer" | "name" => Some("true"),
            _ => None,
        },
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
        params: "s, layers, speculations, executed, failing, beforeExit, verified, notRun",
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
            "layersBeforeExit" => Some("beforeExit"),
            "layersVerified" => Some("verified"),
            "layersNotRun" => Some("notRun"),
            "note" => Some("NOTE_NOTHING_SAVED"),
            _ => same(k),
        },
        present: |k| (k == "note").then_some("s[P_OUT_NOTE] !== 0"),
    },
];
