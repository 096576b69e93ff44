//! The ADR's exit decision in shadow mode: every layer runs in order, and the first layer
//! after which the ADR's controller would have exited (its decision allows an exit with
//! layers left) becomes an [`AdrReceipt`]: the quality signal and the decision there, the
//! predictions speculation would have made for the layers it skips (each naming its
//! layer), the layers verification would have run and how they graded, what every skipped
//! layer really did, and the label.
//!
//! Labels (the pyramid's, [`ReceiptLabel`]; `docs/test-exit.md` defines them for the ADR):
//! * `needless_run`: a layer the ADR's enforced run would have run failed (one run before
//!   the exit, or one verification would have run), so that run would have been red by
//!   itself: the layers it would have skipped could not change the verdict;
//! * `false_pass`: nothing the enforced run would have run failed, and a layer it would
//!   never have run (skipped, not verified) failed: it would have declared a red build
//!   green (the receipt names the first such layer);
//! * `correct_skip`: every skipped layer passed.

use crate::pyramid::exit::{CoherenceEarlyExit, ExitConfig, ExitDecision};
use crate::pyramid::policy::shadow::{ReceiptLabel, RECEIPT_VERSION};
use crate::pyramid::result::FailingLayer;
use crate::pyramid::signal::QualitySignal;
use crate::pyramid::speculation::{predict_layer_outcome, verification_count, Outcome, Speculation};
use crate::value::{ObjectBuilder, Value};

/// Where the ADR would have exited in a shadow run: after layer `layer`, with this signal
/// and decision.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct AdrWouldExit {
    pub(super) layer: usize,
    pub(super) signal: QualitySignal,
    pub(super) decision: ExitDecision,
}

/// The ADR's side of a shadow run: its exit decider and the first would-be exit.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct AdrShadow {
    pub(super) exit: CoherenceEarlyExit,
    pub(super) would_exit: Option<AdrWouldExit>,
}

impl AdrShadow {
    /// Records the decision after layer `layer` (of `count`) when it is the first that
    /// allows an exit with layers left (an exit after the last layer skips nothing).
    pub(super) fn observe(&mut self, layer: usize, count: usize, signal: QualitySignal) {
        if self.would_exit.is_some() || layer + 1 >= count {
            return;
        }
        let decision = self.exit.should_exit(&signal, layer as u64);
        if decision.can_exit {
            self.would_exit = Some(AdrWouldExit { layer, signal, decision });
        }
    }
}

/// One layer the ADR's would-be exit skips, and what it really did.
#[derive(Clone, Debug, PartialEq)]
pub struct AdrSkippedLayer {
    /// Index in the pyramid.
    pub layer: usize,
    /// Its name.
    pub name: String,
    /// Whether the ADR's verification would have run it.
    pub verified: bool,
    /// Whether it really failed (`passRate < 1`, the verdict's rule).
    pub failed: bool,
    /// How the ADR's verification grades what it returned (passRate >= 0.99 pass,
    /// flakyRatio > 0.1 flaky, else fail).
    pub outcome: Outcome,
    /// What running it cost: its result's `durationMs`, else its `costMs`.
    pub cost_ms: Option<f64>,
}

/// The point where the ADR's controller would have exited in a shadow run, and how that
/// turned out.
#[derive(Clone, Debug, PartialEq)]
pub struct AdrReceipt {
    /// The run's id, when the caller gave one.
    pub run_id: Option<String>,
    /// The run's user label, when the caller gave one (written as `runLabel`).
    pub run_label: Option<String>,
    /// The layer after which it would have exited (index, name).
    pub layer: (usize, String),
    /// The exit config.
    pub config: ExitConfig,
    /// `totalLayers` (bounds the adaptive exit layer).
    pub total_layers: u64,
    /// The quality signal of that layer.
    pub signal: QualitySignal,
    /// The exit decision (`canExit` true).
    pub decision: ExitDecision,
    /// The layers run before the exit (that layer included) that failed.
    pub failing_before_exit: Vec<FailingLayer>,
    /// The skipped layers, in pyramid order.
    pub skipped: Vec<AdrSkippedLayer>,
}

impl AdrReceipt {
    /// The predictions the ADR's speculation would have made: one per skipped layer when
    /// the decision enables speculation, each naming its layer; none otherwise.
    pub fn speculations(&self) -> Vec<Speculation> {
        if !self.decision.enable_speculation {
            return Vec::new();
        }
        let prediction = predict_layer_outcome(self.decision.confidence);
        self.skipped.iter().map(|s| prediction.clone().about(s.layer, &s.name)).collect()
    }

    /// How many skipped layers verification would have run (the first ones).
    pub fn verified_count(&self) -> usize {
        let speculations = if self.decision.enable_speculation { self.skipped.len() } else { 0 };
        verification_count(speculations, self.config.verification_layers)
    }

    /// The label.
    pub fn label(&self) -> ReceiptLabel {
        let red = !self.failing_before_exit.is_empty() || self.skipped.iter().any(|s| s.verified && s.failed);
        if red {
            ReceiptLabel::NeedlessRun
        } else if self.skipped.iter().any(|s| !s.verified && s.failed) {
            ReceiptLabel::FalsePass
        } else {
            ReceiptLabel::CorrectSkip
        }
    }

    /// The first layer the enforced run would have missed failing (only for a false pass).
    pub fn first_missed_failure(&self) -> Option<&AdrSkippedLayer> {
        if self.label() != ReceiptLabel::FalsePass {
            return None;
        }
        self.skipped.iter().find(|s| !s.verified && s.failed)
    }

    /// What the enforced run would have saved: the summed cost of the skipped layers that
    /// verification would not have run (`None` when one of them has none; 0 when
    /// verification would have run them all).
    pub fn compute_saved_ms(&self) -> Option<f64> {
        self.skipped.iter().filter(|s| !s.verified).try_fold(0.0, |sum, s| s.cost_ms.map(|c| sum + c))
    }

    /// The receipt document (camelCase in every language), without its chain fields.
    pub fn to_value(&self) -> Value {
        let named = |layer: usize, name: &str| {
            let mut builder = ObjectBuilder::new();
            builder.number("layer", layer as f64).string("name", name);
            builder
        };
        let speculations: Vec<Value> = self
            .speculations()
            .iter()
            .filter_map(|s| {
                let (layer, name) = (s.layer?, s.name.as_deref()?);
                let mut item = named(layer, name);
                Some(item.string("predicted", s.predicted.as_str()).number("confidence", s.confidence).build())
            })
            .collect();
        let predicted = predict_layer_outcome(self.decision.confidence).predicted;
        let verification: Vec<Value> = self
            .skipped
            .iter()
            .filter(|s| s.verified)
            .map(|s| {
                let mut item = named(s.layer, &s.name);
                item.string("outcome", s.outcome.as_str()).boolean("correct", s.outcome == predicted).build()
            })
            .collect();
        let skipped: Vec<Value> = self
            .skipped
            .iter()
            .map(|s| {
                let mut item = named(s.layer, &s.name);
                item.boolean("verified", s.verified)
                    .string("actual", if s.failed { "fail" } else { "pass" })
                    .opt_number("costMs", s.cost_ms)
                    .build()
            })
            .collect();
        let missed = self.first_missed_failure().map_or(Value::Null, |s| named(s.layer, &s.name).build());
        let mut builder = ObjectBuilder::new();
        builder
            .string("kind", "pyramid")
            .number("receiptVersion", RECEIPT_VERSION as f64)
            .value("runId", self.run_id.as_deref().map_or(Value::Null, Value::string));
        if let Some(label) = &self.run_label {
            builder.string("runLabel", label);
        }
        builder
            .number("layer", self.layer.0 as f64)
            .string("layerName", &self.layer.1)
            .number("layersRun", (self.layer.0 + 1) as f64)
            .string("policy", "adr")
            .value("config", self.config.to_value(crate::value::Naming::Js))
            .number("totalLayers", self.total_layers as f64)
            .string("exitReason", self.decision.reason.as_str())
            .value("signal", self.signal.to_value(crate::value::Naming::Js))
            .value("decision", self.decision.to_value(crate::value::Naming::Js))
            .value("failingLayers", Value::Array(self.failing_before_exit.iter().map(FailingLayer::to_value).collect()))
            .value("speculations", Value::Array(speculations))
            .value("verification", Value::Array(verification))
            .value("skipped", Value::Array(skipped))
            .value("firstMissedFailure", missed)
            .string("label", self.label().as_str())
            .opt_number("computeSavedMs", self.compute_saved_ms())
            .build()
    }
}
