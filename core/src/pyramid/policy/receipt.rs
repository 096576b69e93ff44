//! The pyramid's kind of receipt for the receipt log ([`PYRAMID_RECEIPTS`]): its labels, its
//! rates (false passes among green exits, needless runs among receipts; docs/test-exit.md)
//! and the reader that checks a receipt as [`ShadowReceipt::to_value`] writes it.

use crate::artifact::{missing, nullable, with_chain_fields, ReceiptFacts, ReceiptKind, ReceiptRate};
use crate::num::uint_string;
use crate::pyramid::policy::adr_receipt::read_adr_receipt;
use crate::pyramid::policy::config::{PolicyConfig, POLICY_CONFIG_FIELDS};
use crate::pyramid::policy::label::read_label;
use crate::pyramid::policy::model::StopReason;
use crate::pyramid::policy::options::RunPolicy;
use crate::pyramid::policy::receipt_keys::*;
use crate::pyramid::policy::shadow::{check_label_and_saved, ReceiptLabel, RECEIPT_VERSION};
use crate::value::limits::MAX_LAYERS;
use crate::value::{add_to_total, concat, index_path, nonempty_array, ObjectReader};
use crate::value::{Error, ErrorCode, ErrorKind, FieldName, Naming, Result, Value};

const CODE: ErrorCode = ErrorCode::InvalidReceipt;

/// The pyramid's receipts in the receipt log.
pub const PYRAMID_RECEIPTS: ReceiptKind = ReceiptKind {
    kind: "pyramid",
    labels: &ReceiptLabel::NAMES,
    rates: &[
        ReceiptRate { key: "falsePass", label: "false_pass", of: &["correct_skip", "false_pass"] },
        ReceiptRate { key: "needlessRun", label: "needless_run", of: &[] },
    ],
    fields: &KIND_FIELDS,
    read: read_pyramid_receipt,
};

/// [`PYRAMID_RECEIPTS`]' reader: with `chain`, the chain fields are keys too. A receipt of
/// policy `adr` is the ADR's shadow receipt ([`read_adr_receipt`]); any other is a policy's.
fn read_pyramid_receipt(value: &Value, path: &str, chain: bool) -> Result<ReceiptFacts> {
    if value.get("policy").and_then(Value::as_str) == Some(RunPolicy::Adr.as_str()) {
        return read_adr_receipt(value, path, chain);
    }
    if chain {
        read_receipt(value, path, &LINE_FIELDS)
    } else {
        read_receipt(value, path, &RECEIPT_FIELDS)
    }
}

const THRESHOLDS: FieldName = FieldName::same("thresholds");
const RISK: FieldName = FieldName::same("risk");
const RISK_BUDGET: FieldName = FieldName::same("riskBudget");

/// The keys of a receipt, as [`ShadowReceipt::to_value`] writes them.
const RECEIPT_FIELDS: [FieldName; 16] = [
    KIND,
    VERSION,
    RUN_ID,
    RUN_LABEL,
    LAYER,
    LAYER_NAME,
    LAYERS_RUN,
    POLICY,
    CONFIG,
    EXIT_REASON,
    SIGNAL,
    THRESHOLDS,
    SKIPPED,
    FIRST_MISSED,
    LABEL,
    SAVED,
];

/// Every key a pyramid receipt may have: a policy's receipt's, then the ADR's own.
#[allow(clippy::indexing_slicing)]
const KIND_FIELDS: [FieldName; 21] = {
    let mut fields = [KIND; 21];
    let mut i = 0;
    while i < RECEIPT_FIELDS.len() {
        fields[i] = RECEIPT_FIELDS[i];
        i += 1;
    }
    fields[16] = TOTAL_LAYERS;
    fields[17] = DECISION;
    fields[18] = FAILING_LAYERS;
    fields[19] = SPECULATIONS;
    fields[20] = VERIFICATION;
    fields
};

/// The keys of a log line: a receipt's and its chain fields.
const LINE_FIELDS: [FieldName; 18] = with_chain_fields(&RECEIPT_FIELDS);

/// Another code's error (a policy config's) as the receipt's own.
fn as_receipt_error(e: Error) -> Error {
    Error::new(CODE, e.kind(), e.field().to_string(), e.message().to_string())
}

/// Reads a receipt (without chain fields) as [`ShadowReceipt::to_value`] writes it: every key
/// present with its type, indices within the receipt's own layers (`layersRun` plus the
/// skipped ones), numbers in range, and what follows from its outcomes (`predicted`,
/// `confidence`, `firstMissedFailure`, `label`, `computeSavedMs`) equal to what they make
/// it. Errors name the field under `path`.
fn read_receipt(value: &Value, path: &str, fields: &[FieldName]) -> Result<ReceiptFacts> {
    let r = ObjectReader::new(value, path, "receipt", Naming::Js, CODE)?;
    r.reject_unknown(fields)?;
    r.choice(KIND, &["pyramid"])?;
    r.integer(VERSION, RECEIPT_VERSION, RECEIPT_VERSION)?;
    let run_id = match nullable(&r, RUN_ID)? {
        None => None,
        Some(_) => Some(r.string(RUN_ID)?.to_string()),
    };
    let run_label = match r.get(RUN_LABEL) {
        None => None,
        Some(v) => Some(read_label(v, &r.path_of(RUN_LABEL), CODE)?),
    };
    let policy = r.choice(POLICY, &[RunPolicy::FailFast.as_str(), RunPolicy::RiskBounded.as_str()])?.to_string();
    let config_path = r.path_of(CONFIG);
    let config_value = r.get(CONFIG).ok_or_else(|| missing(&r, CONFIG))?;
    let config_reader = ObjectReader::new(config_value, &config_path, "config", Naming::Js, CODE)?;
    for field in POLICY_CONFIG_FIELDS {
        if config_reader.get(field).is_none() {
            return Err(missing(&config_reader, field));
        }
    }
    let config = PolicyConfig::FAIL_FAST.merged(config_value, Naming::Js, &config_path).map_err(as_receipt_error)?;
    let thresholds_path = r.path_of(THRESHOLDS);
    let thresholds_value = r.get(THRESHOLDS).ok_or_else(|| missing(&r, THRESHOLDS))?;
    let thresholds = ObjectReader::new(thresholds_value, &thresholds_path, "thresholds", Naming::Js, CODE)?;
    thresholds.reject_unknown(&[RISK_BUDGET, CONFIDENCE])?;
    for (field, expected) in [(RISK_BUDGET, config.risk_budget), (CONFIDENCE, config.confidence)] {
        let got = thresholds.number(field, 0.0, 1.0)?;
        if got != expected {
            let requirement = concat(&[&crate::num::to_js_string(expected), " (the config's)"]);
            return Err(thresholds.range_error(field, &requirement, &Value::Number(got)));
        }
    }
    let reason = r.choice(EXIT_REASON, &[StopReason::RiskBounded.as_str(), StopReason::LayerFailed.as_str()])?;
    let green = reason == StopReason::RiskBounded.as_str();
    let signal_path = r.path_of(SIGNAL);
    let signal_value = r.get(SIGNAL).ok_or_else(|| missing(&r, SIGNAL))?;
    let signal = ObjectReader::new(signal_value, &signal_path, "signal", Naming::Js, CODE)?;
    signal.reject_unknown(&[RISK])?;
    if nullable(&signal, RISK)?.is_some() {
        signal.number(RISK, 0.0, 1.0)?;
    }
    let layers_run = r.integer(LAYERS_RUN, 0, MAX_LAYERS as u64)?;
    let skipped_path = r.path_of(SKIPPED);
    let skipped = nonempty_array(r.get(SKIPPED), &skipped_path, CODE, "an array of skipped layers", "skipped layer")?;
    let total = usize::try_from(layers_run).unwrap_or(usize::MAX).saturating_add(skipped.len());
    if total > MAX_LAYERS {
        let message = concat(&[
            &skipped_path,
            " and layersRun make a receipt of more than ",
            &uint_string(MAX_LAYERS as u64),
            " layers",
        ]);
        return Err(Error::new(CODE, ErrorKind::Range, skipped_path, message));
    }
    let last_index = total.saturating_sub(1) as u64;
    let (layer, layer_name) = match nullable(&r, LAYER)? {
        None => {
            if layers_run > 0 {
                return Err(r.range_error(LAYER, "the index of the last layer run (layersRun is not 0)", &Value::Null));
            }
            if nullable(&r, LAYER_NAME)?.is_some() {
                return Err(r.range_error(
                    LAYER_NAME,
                    "null (layer is null)",
                    r.get(LAYER_NAME).unwrap_or(&Value::Null),
                ));
            }
            (None, None)
        }
        Some(got) => {
            if layers_run == 0 {
                return Err(r.range_error(LAYER, "null (layersRun is 0)", got));
            }
            (Some(r.integer(LAYER, 0, last_index)?), Some(r.string(LAYER_NAME)?))
        }
    };
    let mut indices: Vec<u64> = layer.into_iter().collect();
    let mut names: Vec<String> = layer_name.into_iter().map(str::to_string).collect();
    let mut first_missed: Option<(u64, String)> = None;
    let mut saved = Some(0.0);
    for (i, item) in skipped.iter().enumerate() {
        let item_path = index_path(&skipped_path, i);
        let s = ObjectReader::new(item, &item_path, "skipped layer", Naming::Js, CODE)?;
        s.reject_unknown(&[LAYER, NAME, PREDICTED, CONFIDENCE, ACTUAL, COST_MS])?;
        let index = s.integer(LAYER, 0, last_index)?;
        if indices.contains(&index) {
            return Err(s.range_error(
                LAYER,
                "a layer of the receipt named once (each layer runs once)",
                &Value::Number(index as f64),
            ));
        }
        indices.push(index);
        let name = s.string(NAME)?.to_string();
        if names.contains(&name) {
            let requirement = "a name of the receipt given once (layer names are distinct)";
            return Err(s.range_error(NAME, requirement, &Value::string(name.as_str())));
        }
        let predicted = s.choice(PREDICTED, &["pass", "fail"])?;
        let expected = if green { "pass" } else { "fail" };
        if predicted != expected {
            let requirement = concat(&["'", expected, "' (what a ", reason, " exit predicts)"]);
            return Err(s.range_error(PREDICTED, &requirement, &Value::string(predicted)));
        }
        match (green, nullable(&s, CONFIDENCE)?) {
            (true, Some(_)) => {
                s.number(CONFIDENCE, 0.0, 1.0)?;
            }
            (true, None) => {
                return Err(s.range_error(CONFIDENCE, "a number between 0 and 1 (a green exit's)", &Value::Null));
            }
            (false, Some(got)) => return Err(s.range_error(CONFIDENCE, "null (a red exit has no confidence)", got)),
            (false, None) => {}
        }
        let failed = s.choice(ACTUAL, &["pass", "fail"])? == "fail";
        if green && failed && first_missed.is_none() {
            first_missed = Some((index, name.clone()));
        }
        names.push(name);
        let cost = match nullable(&s, COST_MS)? {
            None => None,
            Some(_) => Some(s.number(COST_MS, 0.0, f64::MAX)?),
        };
        saved = match (saved, cost) {
            (Some(sum), Some(cost)) => Some(add_to_total(sum, cost, &s.path_of(COST_MS), CODE)?),
            _ => None,
        };
    }
    let missed_path = r.path_of(FIRST_MISSED);
    let stated_missed = match nullable(&r, FIRST_MISSED)? {
        None => None,
        Some(v) => {
            let m = ObjectReader::new(v, &missed_path, "firstMissedFailure", Naming::Js, CODE)?;
            m.reject_unknown(&[LAYER, NAME])?;
            Some((m.integer(LAYER, 0, last_index)?, m.string(NAME)?.to_string()))
        }
    };
    if stated_missed != first_missed {
        let requirement = match first_missed {
            None => "null (no skipped layer of a green exit failed)".to_string(),
            Some((index, ref name)) => concat(&[
                "{layer: ",
                &uint_string(index),
                ", name: ",
                &Value::string(name).describe(),
                "} (the first skipped layer that failed)",
            ]),
        };
        return Err(r.range_error(FIRST_MISSED, &requirement, r.get(FIRST_MISSED).unwrap_or(&Value::Null)));
    }
    let label = match (green, first_missed) {
        (false, _) => ReceiptLabel::NeedlessRun,
        (true, Some(_)) => ReceiptLabel::FalsePass,
        (true, None) => ReceiptLabel::CorrectSkip,
    };
    let why = [
        "what its exitReason and skipped layers make it",
        "a skipped layer has no cost",
        "the skipped layers' summed costMs",
    ];
    check_label_and_saved(&r, (LABEL, SAVED), label, saved, why)?;
    Ok(ReceiptFacts { policy, run_id, label: label.as_str(), run_label })
}
