//! The reader of the ADR's shadow receipts ([`AdrReceipt::to_value`](super::AdrReceipt)),
//! the pyramid receipt kind's reader for `policy` `adr`: every key present with its type,
//! and everything that follows from the others equal to what they make it: the decision
//! (recomputed from the config, `totalLayers`, the signal and the layer), the
//! speculations, which layers verification runs, the label, the first missed failure and
//! the compute saved.

use crate::artifact::{missing, nullable, with_chain_fields, ReceiptFacts};
use crate::num::uint_string;
use crate::pyramid::exit::{CoherenceEarlyExit, ExitConfig, ExitDecision, EXIT_CONFIG_FIELDS};
use crate::pyramid::policy::label::read_label;
use crate::pyramid::policy::receipt_keys::*;
use crate::pyramid::policy::shadow::{check_label_and_saved, ReceiptLabel, RECEIPT_VERSION};
use crate::pyramid::signal::QualitySignal;
use crate::pyramid::speculation::{predict_layer_outcome, verification_count, Outcome};
use crate::value::limits::MAX_LAYERS;
use crate::value::{add_to_total, concat, index_path, nonempty_array, ObjectReader, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, FieldName, Naming, Result, Value};

const CODE: ErrorCode = ErrorCode::InvalidReceipt;

const OUTCOME: FieldName = FieldName::same("outcome");
const CORRECT: FieldName = FieldName::same("correct");
const VERIFIED: FieldName = FieldName::same("verified");

/// The keys of the ADR's receipt, as [`AdrReceipt::to_value`](super::AdrReceipt) writes them.
pub(super) const ADR_RECEIPT_FIELDS: [FieldName; 20] = [
    KIND,
    VERSION,
    RUN_ID,
    RUN_LABEL,
    LAYER,
    LAYER_NAME,
    LAYERS_RUN,
    POLICY,
    CONFIG,
    TOTAL_LAYERS,
    EXIT_REASON,
    SIGNAL,
    DECISION,
    FAILING_LAYERS,
    SPECULATIONS,
    VERIFICATION,
    SKIPPED,
    FIRST_MISSED,
    LABEL,
    SAVED,
];

/// The keys of an ADR receipt's log line: the receipt's and its chain fields.
const ADR_LINE_FIELDS: [FieldName; 22] = with_chain_fields(&ADR_RECEIPT_FIELDS);

/// Another code's error (the exit config's, the signal's, the decision's) as the receipt's
/// own, under `prefix` when its field is relative.
fn as_receipt_error(e: Error, prefix: &str) -> Error {
    let field = e.field();
    if prefix.is_empty() || field.starts_with(prefix) {
        return Error::new(CODE, e.kind(), field.to_string(), e.message().to_string());
    }
    e.nested(CODE, prefix)
}

/// An object member of the receipt with every key of `fields` present.
fn full_object<'v>(r: &ObjectReader<'v>, field: FieldName, fields: &[FieldName]) -> Result<(String, &'v Value)> {
    let path = r.path_of(field);
    let value = r.get(field).ok_or_else(|| missing(r, field))?;
    let inner = ObjectReader::new(value, &path, field.js(), Naming::Js, CODE)?;
    inner.reject_unknown(fields)?;
    for f in fields {
        if inner.get(*f).is_none() {
            return Err(missing(&inner, *f));
        }
    }
    Ok((path, value))
}

/// An array member of the receipt (empty allowed).
fn array<'v>(r: &ObjectReader<'v>, field: FieldName) -> Result<(String, &'v [Value])> {
    let path = r.path_of(field);
    match r.get(field) {
        Some(Value::Array(items)) => Ok((path, items)),
        None => Err(missing(r, field)),
        Some(other) => {
            let message = concat(&[&path, " must be an array, got ", &other.describe()]);
            Err(Error::new(CODE, ErrorKind::Type, path, message))
        }
    }
}

/// `layer` and `name` of an item that must name the skipped layer `(index, name)`.
fn same_layer(item: &ObjectReader<'_>, index: u64, name: &str, what: &str) -> Result<()> {
    let got = item.integer(LAYER, 0, MAX_LAYERS as u64)?;
    if got != index {
        let requirement = concat(&[&uint_string(index), " (", what, ")"]);
        return Err(item.range_error(LAYER, &requirement, &Value::Number(got as f64)));
    }
    let got = item.string(NAME)?;
    if got != name {
        let requirement = concat(&[&Value::string(name).describe(), " (the name of layer ", &uint_string(index), ")"]);
        return Err(item.range_error(NAME, &requirement, &Value::string(got)));
    }
    Ok(())
}

/// One skipped layer as the receipt states it.
struct Skipped {
    index: u64,
    name: String,
    verified: bool,
    failed: bool,
}

/// Reads an ADR receipt (with its chain fields when `chain`); errors name the field under `path`.
pub(super) fn read_adr_receipt(value: &Value, path: &str, chain: bool) -> Result<ReceiptFacts> {
    let r = ObjectReader::new(value, path, "receipt", Naming::Js, CODE)?;
    r.reject_unknown(if chain { &ADR_LINE_FIELDS } else { &ADR_RECEIPT_FIELDS })?;
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
    r.choice(POLICY, &["adr"])?;
    let (config_path, config_value) = full_object(&r, CONFIG, &EXIT_CONFIG_FIELDS)?;
    let config = ExitConfig::DEFAULT
        .merged(config_value, Naming::Js, &config_path, CODE)
        .map_err(|e| as_receipt_error(e, &config_path))?;
    let total_layers = r.integer(TOTAL_LAYERS, 1, MAX_SAFE_INTEGER)?;
    let layers_run = r.integer(LAYERS_RUN, 1, MAX_LAYERS as u64)?;
    let layer = r.integer(LAYER, 0, MAX_LAYERS as u64)?;
    if layer + 1 != layers_run {
        let requirement = concat(&[&uint_string(layers_run - 1), " (layersRun - 1: the ADR runs its layers in order)"]);
        return Err(r.range_error(LAYER, &requirement, &Value::Number(layer as f64)));
    }
    let layer_name = r.string(LAYER_NAME)?.to_string();
    let skipped_path = r.path_of(SKIPPED);
    let skipped_items =
        nonempty_array(r.get(SKIPPED), &skipped_path, CODE, "an array of skipped layers", "skipped layer")?;
    if usize::try_from(layers_run).unwrap_or(usize::MAX).saturating_add(skipped_items.len()) > MAX_LAYERS {
        let message = concat(&[
            &skipped_path,
            " and layersRun make a receipt of more than ",
            &uint_string(MAX_LAYERS as u64),
            " layers",
        ]);
        return Err(Error::new(CODE, ErrorKind::Range, skipped_path, message));
    }

    // The decision follows from the config, totalLayers, the signal and the layer.
    let signal_fields = [
        FieldName::same("lambda"),
        FieldName::same("lambdaPrev"),
        FieldName::same("boundaryEdges"),
        FieldName::same("boundaryConcentration"),
        FieldName::same("partitionCount"),
        FieldName::same("flags"),
    ];
    let (signal_path, signal_value) = full_object(&r, SIGNAL, &signal_fields)?;
    let signal = QualitySignal::from_value(signal_value, Naming::Js).map_err(|e| as_receipt_error(e, &signal_path))?;
    let decision_path = r.path_of(DECISION);
    let decision_value = r.get(DECISION).ok_or_else(|| missing(&r, DECISION))?;
    let decision =
        ExitDecision::from_value(decision_value, Naming::Js).map_err(|e| as_receipt_error(e, &decision_path))?;
    let computed = CoherenceEarlyExit::new(config.clone(), total_layers)
        .map_err(|e| as_receipt_error(e, &config_path))?
        .should_exit(&signal, layer);
    if decision != computed {
        let requirement = concat(&[
            "the decision its config, totalLayers and signal make at layer ",
            &uint_string(layer),
            ": ",
            &computed.to_value(Naming::Js).to_json(),
        ]);
        return Err(r.range_error(DECISION, &requirement, decision_value));
    }
    if !decision.can_exit {
        let requirement = "a decision that allows an exit (a receipt records one)";
        return Err(r.range_error(DECISION, requirement, decision_value));
    }
    let reason = r.choice(EXIT_REASON, &[decision.reason.as_str()])?;
    debug_assert_eq!(reason, decision.reason.as_str());

    // The layers run before the exit that failed.
    let (failing_path, failing_items) = array(&r, FAILING_LAYERS)?;
    let mut failing_before: Option<u64> = None;
    for (i, item) in failing_items.iter().enumerate() {
        let item_path = index_path(&failing_path, i);
        let f = ObjectReader::new(item, &item_path, "failing layer", Naming::Js, CODE)?;
        f.reject_unknown(&[LAYER, NAME])?;
        let index = f.integer(LAYER, 0, layer)?;
        if failing_before.is_some_and(|before| index <= before) {
            let requirement = "a layer after the one before it (ascending, each once)";
            return Err(f.range_error(LAYER, requirement, &Value::Number(index as f64)));
        }
        if index == layer && f.string(NAME)? != layer_name {
            let requirement = concat(&[&Value::string(layer_name.as_str()).describe(), " (layerName)"]);
            return Err(f.range_error(NAME, &requirement, f.get(NAME).unwrap_or(&Value::Null)));
        }
        f.string(NAME)?;
        failing_before = Some(index);
    }

    // The skipped layers, in order after the exit; verification runs the first ones.
    let predicted = predict_layer_outcome(decision.confidence);
    let speculating = decision.enable_speculation;
    let verified_count =
        verification_count(if speculating { skipped_items.len() } else { 0 }, config.verification_layers);
    let mut skipped = Vec::with_capacity(skipped_items.len());
    let mut saved = Some(0.0);
    for (i, item) in skipped_items.iter().enumerate() {
        let item_path = index_path(&skipped_path, i);
        let s = ObjectReader::new(item, &item_path, "skipped layer", Naming::Js, CODE)?;
        s.reject_unknown(&[LAYER, NAME, VERIFIED, ACTUAL, COST_MS])?;
        let index = layers_run + i as u64;
        let got = s.integer(LAYER, 0, MAX_LAYERS as u64)?;
        if got != index {
            let requirement = concat(&[&uint_string(index), " (the skipped layers follow the exit in order)"]);
            return Err(s.range_error(LAYER, &requirement, &Value::Number(got as f64)));
        }
        let name = s.string(NAME)?.to_string();
        let verified = s.boolean(VERIFIED)?;
        if verified != (i < verified_count) {
            let requirement = if verified {
                concat(&[
                    "false (verification runs the first ",
                    &uint_string(verified_count as u64),
                    " skipped layers)",
                ])
            } else {
                concat(&["true (verification runs the first ", &uint_string(verified_count as u64), " skipped layers)"])
            };
            return Err(s.range_error(VERIFIED, &requirement, &Value::Bool(verified)));
        }
        let failed = s.choice(ACTUAL, &["pass", "fail"])? == "fail";
        let cost = match nullable(&s, COST_MS)? {
            None => None,
            Some(_) => Some(s.number(COST_MS, 0.0, f64::MAX)?),
        };
        if !verified {
            saved = match (saved, cost) {
                (Some(sum), Some(cost)) => Some(add_to_total(sum, cost, &s.path_of(COST_MS), CODE)?),
                _ => None,
            };
        }
        skipped.push(Skipped { index, name, verified, failed });
    }

    // The predictions: one per skipped layer when the decision enables speculation.
    let (speculations_path, speculations) = array(&r, SPECULATIONS)?;
    let expected = if speculating { skipped.len() } else { 0 };
    if speculations.len() != expected {
        let message = concat(&[
            &speculations_path,
            " must hold ",
            &uint_string(expected as u64),
            " predictions (one per skipped layer when the decision enables speculation, else none), got ",
            &uint_string(speculations.len() as u64),
        ]);
        return Err(Error::new(CODE, ErrorKind::Range, speculations_path, message));
    }
    for (i, (item, layer)) in speculations.iter().zip(&skipped).enumerate() {
        let item_path = index_path(&speculations_path, i);
        let p = ObjectReader::new(item, &item_path, "prediction", Naming::Js, CODE)?;
        p.reject_unknown(&[LAYER, NAME, PREDICTED, CONFIDENCE])?;
        same_layer(&p, layer.index, &layer.name, "the skipped layer it predicts")?;
        let got = p.choice(PREDICTED, &Outcome::NAMES)?;
        if got != predicted.predicted.as_str() {
            let requirement =
                concat(&["'", predicted.predicted.as_str(), "' (what the decision's confidence predicts)"]);
            return Err(p.range_error(PREDICTED, &requirement, &Value::string(got)));
        }
        let got = p.number(CONFIDENCE, 0.0, 1.0)?;
        if got != predicted.confidence {
            let requirement = concat(&[&crate::num::to_js_string(predicted.confidence), " (the prediction's)"]);
            return Err(p.range_error(CONFIDENCE, &requirement, &Value::Number(got)));
        }
    }

    // The verification it would have run: the first skipped layers, graded.
    let (verification_path, verification) = array(&r, VERIFICATION)?;
    if verification.len() != verified_count {
        let message = concat(&[
            &verification_path,
            " must hold ",
            &uint_string(verified_count as u64),
            " layers (the first verificationLayers skipped layers, when the decision enables speculation), got ",
            &uint_string(verification.len() as u64),
        ]);
        return Err(Error::new(CODE, ErrorKind::Range, verification_path, message));
    }
    for (i, (item, layer)) in verification.iter().zip(&skipped).enumerate() {
        let item_path = index_path(&verification_path, i);
        let v = ObjectReader::new(item, &item_path, "verified layer", Naming::Js, CODE)?;
        v.reject_unknown(&[LAYER, NAME, OUTCOME, CORRECT])?;
        same_layer(&v, layer.index, &layer.name, "the skipped layer it verifies")?;
        let outcome = v.choice(OUTCOME, &Outcome::NAMES)?;
        if !layer.failed && outcome != Outcome::Pass.as_str() {
            let requirement = "'pass' (a layer whose tests all passed grades pass)";
            return Err(v.range_error(OUTCOME, requirement, &Value::string(outcome)));
        }
        let correct = v.boolean(CORRECT)?;
        if correct != (outcome == predicted.predicted.as_str()) {
            let requirement =
                if correct { "false (outcome is not the prediction)" } else { "true (outcome is the prediction)" };
            return Err(v.range_error(CORRECT, requirement, &Value::Bool(correct)));
        }
    }

    // What follows: the label, the first missed failure, the compute saved.
    let red = failing_before.is_some() || skipped.iter().any(|s| s.verified && s.failed);
    let missed = if red { None } else { skipped.iter().find(|s| !s.verified && s.failed) };
    let label = match (red, missed) {
        (true, _) => ReceiptLabel::NeedlessRun,
        (false, Some(_)) => ReceiptLabel::FalsePass,
        (false, None) => ReceiptLabel::CorrectSkip,
    };
    let stated_missed = match nullable(&r, FIRST_MISSED)? {
        None => None,
        Some(v) => {
            let missed_path = r.path_of(FIRST_MISSED);
            let m = ObjectReader::new(v, &missed_path, "firstMissedFailure", Naming::Js, CODE)?;
            m.reject_unknown(&[LAYER, NAME])?;
            Some((m.integer(LAYER, 0, MAX_LAYERS as u64)?, m.string(NAME)?.to_string()))
        }
    };
    let expected_missed = missed.map(|s| (s.index, s.name.clone()));
    if stated_missed != expected_missed {
        let requirement = match missed {
            None => "null (no layer the exit would never have run failed, or the run was red)".to_string(),
            Some(s) => concat(&[
                "{layer: ",
                &uint_string(s.index),
                ", name: ",
                &Value::string(s.name.as_str()).describe(),
                "} (the first failing skipped layer verification would not have run)",
            ]),
        };
        return Err(r.range_error(FIRST_MISSED, &requirement, r.get(FIRST_MISSED).unwrap_or(&Value::Null)));
    }
    let why = [
        "what its failing, verified and skipped layers make it",
        "a skipped layer verification would not run has no cost",
        "the summed costMs of the skipped layers verification would not run",
    ];
    check_label_and_saved(&r, (LABEL, SAVED), label, saved, why)?;
    Ok(ReceiptFacts { policy: "adr".to_string(), run_id, label: label.as_str(), run_label })
}
