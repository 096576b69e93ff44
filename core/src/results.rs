//! Readers of the result objects from the values they write: what a binding needs to
//! rebuild a result it serialized (Python pickles a result as its snake_case value, so
//! `multiprocessing` pools and `copy.deepcopy` can hand results around).
//!
//! Each reader takes what the matching `to_value` writes (snake_case keys, or the `naming`
//! given) and gives back an equal object, bit for bit: `reader(to_value(x)) == x`. A value
//! that was tampered with or made by hand gets the usual typed [`Error`] naming the field
//! (code `invalid_snapshot` unless an existing reader is reused, which keeps its own code),
//! never a guess. The readers reuse the snapshot readers of the engines where one exists
//! (records, stopping details), so a record reads the same wherever it comes from.
//!
//! Nothing in the JS layer calls these, so the WebAssembly module does not carry them.

use crate::exit_decision::{ExitDecision, ExitReason};
use crate::pyramid::{Action, FailingLayer, TestPyramidResult, Verdict};
use crate::signal::LayerResult;
use crate::speculation::Speculation;
use crate::value::snapshot::{inconsistent, index, items, layer_number, nullable_number, pick, result_object as open};
use crate::value::{self, FieldName, Naming, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// The code of every error these readers raise themselves.
const CODE: ErrorCode = ErrorCode::InvalidSnapshot;

/// A field spelled the same in both namings (the two-spelling ones use `field_name!`).
const fn name(snake: &'static str) -> FieldName {
    FieldName::same(snake)
}

// ---------------------------------------------------------------------------------------
// Loop stopping
// ---------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------
// Analytics
// ---------------------------------------------------------------------------------------

const REASON: FieldName = name("reason");
const CONFIDENCE: FieldName = name("confidence");
// ---------------------------------------------------------------------------------------
// Test pyramid
// ---------------------------------------------------------------------------------------

const CAN_EXIT: FieldName = value::field_name!("canExit", "can_exit");
const EXIT_LAYER: FieldName = value::field_name!("exitLayer", "exit_layer");
const ENABLE_SPECULATION: FieldName = value::field_name!("enableSpeculation", "enable_speculation");
const EXPLANATION: FieldName = name("explanation");
const EXIT_DECISION_FIELDS: [FieldName; 6] =
    [CAN_EXIT, CONFIDENCE, EXIT_LAYER, REASON, ENABLE_SPECULATION, EXPLANATION];

impl ExitDecision {
    /// Reads a decision as [`ExitDecision::to_value`] writes it with `naming`.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let r = open(value, "", "decision", naming, &EXIT_DECISION_FIELDS)?;
        Ok(ExitDecision {
            can_exit: r.boolean(CAN_EXIT)?,
            confidence: r.number(CONFIDENCE, 0.0, 1.0)?,
            exit_layer: layer_number(&r, EXIT_LAYER)?,
            reason: pick(&r, REASON, &ExitReason::ALL.map(ExitReason::as_str), |s| {
                ExitReason::ALL.into_iter().find(|v| v.as_str() == s)
            })?,
            enable_speculation: r.boolean(ENABLE_SPECULATION)?,
            explanation: r.string(EXPLANATION)?.to_string(),
        })
    }
}

const ACTION: FieldName = name("action");
const LAYER: FieldName = name("layer");

impl Action {
    /// Reads `{action: 'run'|'verify', layer}` or `{action: 'done'}`.
    pub fn from_value(value: &Value) -> Result<Self> {
        let r = ObjectReader::new(value, "", "action", Naming::Snake, CODE)?;
        match r.choice(ACTION, &["run", "verify", "done"])? {
            "done" => {
                r.reject_unknown(&[ACTION])?;
                Ok(Action::Done)
            }
            kind => {
                r.reject_unknown(&[ACTION, LAYER])?;
                let layer = index(&r, LAYER)?;
                Ok(if kind == "run" { Action::Run(layer) } else { Action::Verify(layer) })
            }
        }
    }
}

const LAYERS: FieldName = name("layers");
const SPECULATIONS: FieldName = name("speculations");
const LAYERS_EXECUTED: FieldName = value::field_name!("layersExecuted", "layers_executed");
const VERDICT: FieldName = name("verdict");
const FAILING_LAYERS: FieldName = value::field_name!("failingLayers", "failing_layers");
const FAILING_LAYER_FIELDS: [FieldName; 2] = [LAYER, name("name")];
const PYRAMID_RESULT_FIELDS: [FieldName; 13] = [
    LAYERS,
    value::field_name!("exitedEarly", "exited_early"),
    EXIT_LAYER,
    value::field_name!("exitReason", "exit_reason"),
    CONFIDENCE,
    SPECULATIONS,
    value::field_name!("skippedLayers", "skipped_layers"),
    LAYERS_EXECUTED,
    value::field_name!("verifiedLayers", "verified_layers"),
    name("mispredictions"),
    value::field_name!("computeSavedMs", "compute_saved_ms"),
    VERDICT,
    FAILING_LAYERS,
];

impl FailingLayer {
    /// Reads `{layer, name}` as [`FailingLayer::to_value`] writes it (`path` prefixes the
    /// field names, e.g. `failing_layers[0]`).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let r = open(value, path, "failing layer", Naming::Snake, &FAILING_LAYER_FIELDS)?;
        let [layer, layer_name] = FAILING_LAYER_FIELDS;
        Ok(FailingLayer { layer: index(&r, layer)?, name: r.string(layer_name)?.to_string() })
    }
}

impl TestPyramidResult {
    /// Reads a result as [`TestPyramidResult::to_value`] writes it with `naming`: layer
    /// results read as a runner's results do (keeping every key in its order), speculations
    /// as `verify` reads them, `compute_saved_ms` `null` when unknown.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let r = open(value, "", "result", naming, &PYRAMID_RESULT_FIELDS)?;
        let [_, exited_early, _, exit_reason, _, _, skipped, _, verified, mispredictions, saved, _, _] =
            PYRAMID_RESULT_FIELDS;
        let layers = items(&r, LAYERS, |item, path| LayerResult::read(item, naming, path, CODE))?;
        let speculations = items(&r, SPECULATIONS, |item, path| Speculation::from_value(item, naming, path))?;
        let layers_executed = items(&r, LAYERS_EXECUTED, |item, path| {
            let n = value::integer_argument(item, path, CODE, 0, MAX_SAFE_INTEGER)?;
            usize::try_from(n).map_err(|_| Error::new(CODE, ErrorKind::Range, path, "layer index too large"))
        })?;
        let verdict = pick(&r, VERDICT, &Verdict::ALL.map(Verdict::as_str), |s| {
            Verdict::ALL.into_iter().find(|v| v.as_str() == s)
        })?;
        let failing_layers = items(&r, FAILING_LAYERS, FailingLayer::from_value)?;
        if (verdict == Verdict::Failed) == failing_layers.is_empty() {
            return Err(inconsistent(&r, FAILING_LAYERS, "must list a layer exactly when the verdict is 'failed'"));
        }
        Ok(TestPyramidResult {
            layers,
            exited_early: r.boolean(exited_early)?,
            exit_layer: layer_number(&r, EXIT_LAYER)?,
            exit_reason: pick(&r, exit_reason, &ExitReason::ALL.map(ExitReason::as_str), |s| {
                ExitReason::ALL.into_iter().find(|v| v.as_str() == s)
            })?,
            confidence: r.number(CONFIDENCE, 0.0, 1.0)?,
            speculations,
            skipped_layers: index(&r, skipped)?,
            layers_executed,
            verified_layers: index(&r, verified)?,
            mispredictions: index(&r, mispredictions)?,
            compute_saved_ms: nullable_number(&r, saved, 0.0, f64::MAX)?,
            verdict,
            failing_layers,
        })
    }
}
