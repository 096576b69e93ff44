//! Shadow mode, live: every layer runs, and the point where the policy would have exited
//! becomes a [`ShadowReceipt`] saying what the exit would have skipped, what those layers
//! really did, and what it would have cost or saved. The receipts of a shadow-mode result
//! are written to an append-only, hash-chained log by
//! [`append_receipts`](crate::receipt_log::append_receipts).
//!
//! One receipt per run at most: after its first exit the policy would have stopped, so a
//! later point is not one where it "would have exited". A run whose policy never exits (it
//! ran every layer by its own choice) has no receipt.
//!
//! Labels (`docs/test-exit.md` defines every rate built on them):
//! * `correct_skip`: a green exit (nothing that ran had failed) whose skipped layers all passed;
//! * `false_pass`: a green exit, and some skipped layer failed: the policy would have
//!   declared a failing build green (the receipt names the first failure it would have missed);
//! * `needless_run`: a red exit (fail fast after a failing layer): the layers that ran after
//!   it could not change the verdict.

use crate::pyramid::policy::config::PolicyConfig;
use crate::pyramid::policy::model::StopReason;
use crate::pyramid::policy::options::RunPolicy;
use crate::value::{concat, named_enum, FieldName, ObjectBuilder, ObjectReader, Result, Value};

/// The schema version of a pyramid receipt.
pub const RECEIPT_VERSION: u64 = 1;

named_enum! {
    /// What a would-be exit turned out to be.
    pub enum ReceiptLabel {
        /// A green exit whose skipped layers all passed.
        CorrectSkip = "correct_skip",
        /// A green exit that would have skipped a failing layer.
        FalsePass = "false_pass",
        /// A red exit: the layers after the failure ran without changing the verdict.
        NeedlessRun = "needless_run",
    }
}

/// Checks a pyramid receipt's stated label (`label_field`) and compute saved (`saved_field`)
/// against what its facts make them: `label` and `saved` (the skipped layers' summed cost, or
/// `None` when one has no cost). `why` words the requirement in the receipt's own terms: why
/// the label is that one, why no sum, what the sum is.
pub(crate) fn check_label_and_saved(
    r: &ObjectReader<'_>,
    (label_field, saved_field): (FieldName, FieldName),
    label: ReceiptLabel,
    saved: Option<f64>,
    [label_why, none_why, sum_why]: [&str; 3],
) -> Result<()> {
    let stated = r.choice(label_field, &ReceiptLabel::NAMES)?;
    if stated != label.as_str() {
        let requirement = concat(&["'", label.as_str(), "' (", label_why, ")"]);
        return Err(r.range_error(label_field, &requirement, &Value::string(stated)));
    }
    let stated_saved = match crate::artifact::nullable(r, saved_field)? {
        None => None,
        Some(_) => Some(r.number(saved_field, 0.0, f64::MAX)?),
    };
    if stated_saved != saved {
        let requirement = match saved {
            None => concat(&["null (", none_why, ")"]),
            Some(sum) => concat(&[&crate::num::to_js_string(sum), " (", sum_why, ")"]),
        };
        return Err(r.range_error(saved_field, &requirement, r.get(saved_field).unwrap_or(&Value::Null)));
    }
    Ok(())
}

/// One layer a would-be exit skips: what the policy predicted and what really happened.
#[derive(Clone, Debug, PartialEq)]
pub struct SkippedLayer {
    /// Index in the pyramid.
    pub layer: usize,
    /// Its name.
    pub name: String,
    /// `"pass"` for a green exit (the policy bets the layer passes), `"fail"` for a red one
    /// (the build is red whatever the layer does).
    pub predicted: &'static str,
    /// A green exit's confidence in that prediction (1 - the layer's own failure bound);
    /// `None` for a red exit.
    pub confidence: Option<f64>,
    /// Whether it really failed.
    pub failed: bool,
    /// What running it cost: its result's `durationMs`, else its `costMs`.
    pub cost_ms: Option<f64>,
}

/// The point where the policy would have exited, and how that turned out.
#[derive(Clone, Debug, PartialEq)]
pub struct ShadowReceipt {
    /// The run's id, when the caller gave one.
    pub run_id: Option<String>,
    /// The run's user label (a branch, a runner pool), when the caller gave one: written as
    /// `runLabel` (`label` is the receipt's own outcome label).
    pub run_label: Option<String>,
    /// How many layers had run at the exit.
    pub after: usize,
    /// The last layer run before the exit (index, name).
    pub layer: Option<(usize, String)>,
    /// The policy.
    pub policy: RunPolicy,
    /// Its knobs (riskBudget and confidence are the thresholds).
    pub config: PolicyConfig,
    /// Why it would have exited (`risk_bounded` or `layer_failed`).
    pub reason: StopReason,
    /// The signal: the bound on P(some skipped layer fails) at the exit (green exits).
    pub risk: Option<f64>,
    /// The layers it would have skipped, in the order they then ran.
    pub skipped: Vec<SkippedLayer>,
}

impl ShadowReceipt {
    /// The label.
    pub fn label(&self) -> ReceiptLabel {
        if self.reason == StopReason::LayerFailed {
            ReceiptLabel::NeedlessRun
        } else if self.skipped.iter().any(|s| s.failed) {
            ReceiptLabel::FalsePass
        } else {
            ReceiptLabel::CorrectSkip
        }
    }

    /// The first skipped layer that failed (the failure a green exit would have missed).
    pub fn first_missed_failure(&self) -> Option<&SkippedLayer> {
        if self.reason == StopReason::LayerFailed {
            return None;
        }
        self.skipped.iter().find(|s| s.failed)
    }

    /// The compute the exit would have saved: the skipped layers' summed cost (`None` when
    /// one of them has none).
    pub fn compute_saved_ms(&self) -> Option<f64> {
        self.skipped.iter().try_fold(0.0, |sum, s| s.cost_ms.map(|c| sum + c))
    }

    /// The receipt document (camelCase in every language: it is hashed, and a receipt
    /// written by one binding verifies in another), without its chain fields (`prevHash`,
    /// `sha256`), which [`append_receipts`](crate::receipt_log::append_receipts) adds. `runLabel`
    /// is written only when the run has a label (so an unlabelled receipt hashes as before).
    pub fn to_value(&self) -> Value {
        let skipped = self.skipped.iter().map(|s| {
            ObjectBuilder::new()
                .number("layer", s.layer as f64)
                .string("name", &s.name)
                .string("predicted", s.predicted)
                .opt_number("confidence", s.confidence)
                .string("actual", if s.failed { "fail" } else { "pass" })
                .opt_number("costMs", s.cost_ms)
                .build()
        });
        let missed = self.first_missed_failure().map_or(Value::Null, |s| {
            ObjectBuilder::new().number("layer", s.layer as f64).string("name", &s.name).build()
        });
        let (layer, layer_name) = match &self.layer {
            Some((i, name)) => (Value::Number(*i as f64), Value::string(name.as_str())),
            None => (Value::Null, Value::Null),
        };
        let mut builder = ObjectBuilder::new();
        builder
            .string("kind", "pyramid")
            .number("receiptVersion", RECEIPT_VERSION as f64)
            .value("runId", self.run_id.as_deref().map_or(Value::Null, Value::string));
        if let Some(label) = &self.run_label {
            builder.string("runLabel", label);
        }
        builder
            .value("layer", layer)
            .value("layerName", layer_name)
            .number("layersRun", self.after as f64)
            .string("policy", self.policy.as_str())
            .value("config", self.config.to_value(crate::value::Naming::Js))
            .string("exitReason", self.reason.as_str())
            .value("signal", ObjectBuilder::new().opt_number("risk", self.risk).build())
            .value(
                "thresholds",
                ObjectBuilder::new()
                    .number("riskBudget", self.config.risk_budget)
                    .number("confidence", self.config.confidence)
                    .build(),
            )
            .value("skipped", Value::Array(skipped.collect()))
            .value("firstMissedFailure", missed)
            .string("label", self.label().as_str())
            .opt_number("computeSavedMs", self.compute_saved_ms())
            .build()
    }
}

/// The result's `shadow` key: why the run is in shadow mode (`"requested"`, or why an
/// enforced run fell back to it), the run's receipt (if the policy would have exited) and
/// the counts by label.
pub fn shadow_value(receipt: Option<&ShadowReceipt>, fallback: Option<&str>) -> Value {
    shadow_value_of(receipt.map(|r| (r.to_value(), r.label(), r.compute_saved_ms())), fallback)
}

/// [`shadow_value`] over any policy's receipt: its document, its label and the compute its
/// exit would have saved.
pub(super) fn shadow_value_of(receipt: Option<(Value, ReceiptLabel, Option<f64>)>, fallback: Option<&str>) -> Value {
    let label = receipt.as_ref().map(|(_, label, _)| *label);
    let saved = receipt.as_ref().and_then(|(_, _, saved)| *saved);
    let count = |l: ReceiptLabel| Value::Number(f64::from(u8::from(label == Some(l))));
    ObjectBuilder::new()
        .string("reason", fallback.unwrap_or("requested"))
        .value("receipts", Value::Array(receipt.map(|(doc, _, _)| doc).into_iter().collect()))
        .value(
            "labels",
            ObjectBuilder::new()
                .value("correctSkip", count(ReceiptLabel::CorrectSkip))
                .value("falsePass", count(ReceiptLabel::FalsePass))
                .value("needlessRun", count(ReceiptLabel::NeedlessRun))
                .build(),
        )
        .opt_number("computeSavedMs", saved)
        .build()
}

/// Why appending a run's receipts to a log added none, or `None` when some were added:
/// `shadow` is the result's `shadow` value (`None` in enforced mode), `receipts` how many
/// receipts it holds and `appended` how many the log took (a receipt already in the log,
/// from a retried step, is left out).
pub fn no_receipt_reason(shadow: Option<&Value>, receipts: usize, appended: usize) -> Option<&'static str> {
    if appended > 0 {
        None
    } else if shadow.is_none() {
        Some("no receipt: the run is not in shadow mode (mode 'shadow' records where the policy would have exited)")
    } else if receipts == 0 {
        Some(
            "no receipt: the policy would not have exited anywhere in this run (it would have run every \
             layer itself), so there was no exit to record",
        )
    } else {
        Some("no receipt appended: this run's receipt is already in the log (a retried step)")
    }
}
