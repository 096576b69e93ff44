//! ADR-033's `SpeculativeExecutor`: predict the outcome of the layers an exit skips, and
//! classify what verification actually observed.

use crate::pyramid::exit::ExitConfig;
use crate::pyramid::signal::LayerResult;
use crate::value::{field_name, named_enum, FieldName, Naming, ObjectBuilder, ObjectReader, Value};
use crate::value::{ErrorCode, Result};

// The keys of a speculation's object (`Speculation::KEYS`).
const PREDICTED: &str = "predicted";
const CONFIDENCE: &str = "confidence";
const VERIFIED: &str = "verified";
const ACTUAL: &str = "actual";
const CORRECT: &str = "correct";
const LAYER: &str = "layer";
const NAME: &str = "name";

named_enum! {
    /// A layer's outcome, predicted or observed.
    pub enum Outcome {
        /// The layer passes.
        Pass = "pass",
        /// The layer is flaky.
        Flaky = "flaky",
        /// The layer fails.
        Fail = "fail",
    }
}

/// One prediction, and what verification found if it ran.
#[derive(Clone, Debug, PartialEq)]
pub struct Speculation {
    /// Predicted outcome.
    pub predicted: Outcome,
    /// Confidence in the prediction.
    pub confidence: f64,
    /// The observed outcome, when verification ran this layer.
    pub actual: Option<Outcome>,
    /// The index of the skipped layer the prediction is about (a run's result names it;
    /// the ADR's standalone `speculate` knows only a count, so its predictions leave it out).
    pub layer: Option<usize>,
    /// That layer's name (present exactly when `layer` is).
    pub name: Option<String>,
}

impl Speculation {
    /// Whether verification ran.
    pub fn verified(&self) -> bool {
        self.actual.is_some()
    }

    /// `predicted == actual`, when verified.
    pub fn correct(&self) -> Option<bool> {
        self.actual.map(|a| a == self.predicted)
    }

    /// The keys of a speculation's object, in the order [`Speculation::to_value`] writes
    /// them (`actual` and `correct` once verified; `layer` and `name` in a run's result,
    /// after the ADR's keys).
    pub const KEYS: [&'static str; 7] = [PREDICTED, CONFIDENCE, VERIFIED, ACTUAL, CORRECT, LAYER, NAME];

    /// The keys of [`Speculation::KEYS`] written only once verified, or only in a run's result.
    pub const OPTIONAL_KEYS: [&'static str; 4] = [ACTUAL, CORRECT, LAYER, NAME];

    /// This prediction, about layer `layer` named `name`.
    pub fn about(mut self, layer: usize, name: &str) -> Self {
        self.layer = Some(layer);
        self.name = Some(name.to_string());
        self
    }

    /// `{predicted, confidence, verified}` plus `actual, correct` once verified (the ADR's
    /// spread keeps `verified` in third place).
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.string(PREDICTED, self.predicted.as_str())
            .number(CONFIDENCE, self.confidence)
            .boolean(VERIFIED, self.verified());
        if let (Some(actual), Some(correct)) = (self.actual, self.correct()) {
            o.string(ACTUAL, actual.as_str()).boolean(CORRECT, correct);
        }
        if let (Some(layer), Some(name)) = (self.layer, &self.name) {
            o.number(LAYER, layer as f64).string(NAME, name);
        }
        o.build()
    }
}

/// The ADR's `predictLayerOutcome`: >= 0.85 pass, >= 0.7 flaky, else fail with 1 - c.
pub fn predict_layer_outcome(decision_confidence: f64) -> Speculation {
    const PASS_THRESHOLD: f64 = 0.85;
    if decision_confidence >= PASS_THRESHOLD {
        Speculation { predicted: Outcome::Pass, confidence: decision_confidence, actual: None, layer: None, name: None }
    } else if decision_confidence >= 0.7 {
        Speculation {
            predicted: Outcome::Flaky,
            confidence: decision_confidence,
            actual: None,
            layer: None,
            name: None,
        }
    } else {
        Speculation {
            predicted: Outcome::Fail,
            confidence: 1.0 - decision_confidence,
            actual: None,
            layer: None,
            name: None,
        }
    }
}

/// The ADR's `speculate`: one prediction per skipped layer. At most
/// [`MAX_LAYERS`](crate::limits::MAX_LAYERS) layers: a larger count is refused (code
/// `invalid_config`, field `skipped_layers`) instead of allocating by it.
pub fn speculate(decision_confidence: f64, skipped_layers: usize) -> Result<Vec<Speculation>> {
    crate::limits::check_layer_count(skipped_layers, ErrorCode::InvalidConfig, "skipped_layers")?;
    Ok(predictions(decision_confidence, skipped_layers))
}

/// `count` copies of the prediction for `decision_confidence` (`count` already bounded).
pub(crate) fn predictions(decision_confidence: f64, count: usize) -> Vec<Speculation> {
    // A plain loop: `vec![x; n]` instantiates its own specialized fill code (~0.2 KB of wasm).
    let prediction = predict_layer_outcome(decision_confidence);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(prediction.clone());
    }
    out
}

/// The count of skipped layers `speculate` was given: an integer from 0 to
/// [`MAX_LAYERS`](crate::limits::MAX_LAYERS) (bindings pass a list's length as this number).
/// So a host list that only claims a length (a JS `new Array(2 ** 32 - 1)`, a Python
/// object whose `__len__` says 2**40) is refused before anything is allocated for it (code
/// `invalid_config`, field `skippedLayers` / `skipped`).
pub fn skipped_count(skipped: &Value, naming: Naming) -> Result<usize> {
    let field = field_name!("skippedLayers", "skipped").spelled(naming);
    let n =
        crate::value::integer_argument(skipped, field, ErrorCode::InvalidConfig, 0, crate::limits::MAX_LAYERS as u64)?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// Reads `decision.confidence` from a decision object (code `invalid_signal`).
pub fn decision_confidence(decision: &Value, naming: Naming) -> Result<f64> {
    let reader = ObjectReader::new(decision, "decision", "decision", naming, ErrorCode::InvalidSignal)?;
    reader.number(FieldName::same("confidence"), 0.0, 1.0)
}

/// The ADR's `runLayer` classification of an observed result: passRate >= 0.99 pass,
/// flakyRatio > 0.1 flaky, else fail.
pub fn classify_outcome(result: &LayerResult) -> Outcome {
    if result.pass_rate >= 0.99 {
        Outcome::Pass
    } else if result.flaky_ratio > 0.1 {
        Outcome::Flaky
    } else {
        Outcome::Fail
    }
}

/// How many of `speculations` the ADR's `verify` runs.
pub fn verification_count(speculations: usize, verification_layers: u64) -> usize {
    usize::try_from(verification_layers).map_or(speculations, |v| v.min(speculations))
}

/// `SpeculativeExecutor(config)`: the ADR's class, over its `verificationLayers`.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeculativeExecutor {
    verification_layers: u64,
}

impl SpeculativeExecutor {
    /// From the exit config.
    pub fn new(config: &ExitConfig) -> Self {
        SpeculativeExecutor { verification_layers: config.verification_layers }
    }

    /// How many layers `verify` runs for `speculations` predictions.
    pub fn verification_count(&self, speculations: usize) -> usize {
        verification_count(speculations, self.verification_layers)
    }

    /// Applies one observed result to the `index`-th prediction.
    pub fn apply(&self, speculation: &mut Speculation, observed: &LayerResult) {
        speculation.actual = Some(classify_outcome(observed));
    }
}

impl Speculation {
    /// Parses a speculation object handed back to `verify` (code `invalid_signal`, field
    /// under `path`, e.g. `speculations[0].predicted`).
    pub fn from_value(value: &Value, naming: Naming, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "speculation", naming, ErrorCode::InvalidSignal)?;
        const FIELDS: [FieldName; 7] = FieldName::same_all(Speculation::KEYS);
        reader.reject_unknown(&FIELDS)?;
        let [predicted, confidence, verified, actual, correct, layer, name] = FIELDS;
        // `choice` accepted one of the names, so `parse` reads it.
        let parse = |s: &str| Outcome::parse(s).unwrap_or(Outcome::Fail);
        let predicted = parse(reader.choice(predicted, &Outcome::NAMES)?);
        let confidence = reader.number(confidence, 0.0, 1.0)?;
        let verified = reader.boolean(verified)?;
        let actual = if verified { Some(parse(reader.choice(actual, &Outcome::NAMES)?)) } else { None };
        if verified {
            reader.boolean(correct)?;
        }
        // `layer` and `name` go together: a run's result writes both or neither.
        let (layer, name) = match (reader.get(layer), reader.get(name)) {
            (None, None) => (None, None),
            _ => {
                let index = reader.integer(layer, 0, crate::value::MAX_SAFE_INTEGER)?;
                let index = usize::try_from(index).unwrap_or(usize::MAX);
                (Some(index), Some(reader.string(name)?.to_string()))
            }
        };
        Ok(Speculation { predicted, confidence, actual, layer, name })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verified_speculation_writes_its_keys_in_order_and_reads_back() {
        let speculation = Speculation {
            predicted: Outcome::Pass,
            confidence: 0.9,
            actual: Some(Outcome::Fail),
            layer: None,
            name: None,
        }
        .about(2, "e2e");
        let value = speculation.to_value();
        let Value::Object(entries) = &value else { unreachable!() };
        assert_eq!(entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), Speculation::KEYS);
        assert_eq!(Speculation::from_value(&value, Naming::Js, ""), Ok(speculation));
        assert_eq!(Outcome::NAMES, ["pass", "flaky", "fail"]);
    }
}
