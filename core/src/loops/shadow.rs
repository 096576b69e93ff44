//! Shadow mode for loops: a candidate policy decides beside the enforced one at every
//! iteration, but never stops the loop. The enforced policy's decision stands (it must hold
//! a hard cap, [`check_shadow_cap`]); the decision carries where the candidate would have
//! stopped ([`WouldStop`], the first time it fires, kept after). When the run ends, a
//! [`LoopReceipt`] says where that was, what it would have returned against the run's best,
//! what it would have saved and whether stopping there was right; the receipt log
//! ([`LOOP_RECEIPTS`] in [`append_receipts`](crate::receipt_log::append_receipts)) chains them.
//!
//! Labels (`docs/lifecycle.md` defines every rate built on them), with an iteration good
//! when its `good` says so, else when its verification passed (as calibration reads runs):
//! * `correct_stop`: the candidate fired, and no iteration after the stop is the run's first
//!   good one (a good iteration was reached by then, or none was ever);
//! * `premature_stop`: the candidate fired before the run's first good iteration;
//! * `no_stop`: the candidate never fired;
//! * `unknown`: the candidate fired, and no iteration records `good` or a passed
//!   verification (left out of every rate).

use crate::artifact::{missing, nullable, with_chain_fields, ReceiptFacts, ReceiptKind, ReceiptRate, Sha256};
pub use crate::loops::candidate::{
    check_shadow_cap, holds_cap, shadow_taken, LoopShadow, ShadowCandidate, CALIBRATED, SHADOW,
};
use crate::loops::decision::WouldStop;
use crate::loops::records::IterationRecord;
use crate::loops::replay::{nested_at, policy_from_artifact, LoopPolicy};
use crate::loops::vocabulary::{Trigger, VerificationStatus};
use crate::value::MAX_SAFE_INTEGER;
use crate::value::{self, Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectBuilder, ObjectReader, Result, Value};

/// The schema version of a loop receipt.
pub const LOOP_RECEIPT_VERSION: u64 = 1;

value::named_enum! {
    /// What a loop's would-be stop turned out to be.
    pub enum LoopReceiptLabel {
        /// The candidate stopped at or after the run's first good iteration (or the run had none).
        CorrectStop = "correct_stop",
        /// The candidate stopped before the run's first good iteration.
        PrematureStop = "premature_stop",
        /// The candidate never fired.
        NoStop = "no_stop",
        /// The candidate fired and the run says nothing of what was good.
        Unknown = "unknown",
    }
}

impl ShadowCandidate {
    /// Reads a candidate as a binding hands it over: a preset name, a policy object (a
    /// preset included, `{"preset": "recommended"}`), a loop calibration artifact, or the
    /// JSON text of either. Errors name `shadow...`: `invalid_config` for a policy,
    /// `invalid_artifact` for an artifact (another kind's is refused by `shadow.kind`).
    /// `now_ms` and `sha256` are the host's clock and hash (an artifact must be current and
    /// its promotion its own).
    pub fn from_value(value: &Value, naming: Naming, now_ms: i64, sha256: &dyn Sha256) -> Result<Self> {
        let parsed;
        let value = match value {
            Value::String(text) if text.trim_start().starts_with('{') => {
                parsed = Value::parse_json(text, ErrorCode::InvalidConfig, SHADOW)?;
                &parsed
            }
            other => other,
        };
        if crate::artifact::is_artifact(value) {
            let policy =
                policy_from_artifact(value, now_ms, sha256).map_err(|e| nest(e, ErrorCode::InvalidArtifact))?;
            let digest = crate::artifact::digest(value, sha256, ErrorCode::InvalidArtifact, SHADOW)?;
            return Ok(ShadowCandidate {
                policy,
                name: CALIBRATED.to_string(),
                artifact_sha256: Some(digest),
                reason: None,
            });
        }
        if matches!(value, Value::Null) {
            let message = "shadow must be a preset name, a policy or a loop calibration artifact, got null";
            return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Type, SHADOW, message));
        }
        let policy =
            LoopPolicy::from_option(value, naming).map_err(|e| nested_at(e, ErrorCode::InvalidConfig, SHADOW))?;
        let name = match value {
            Value::String(name) => name.clone(),
            Value::Object(entries) if entries.len() == 1 => {
                value.get("preset").and_then(Value::as_str).unwrap_or("custom").to_string()
            }
            _ => "custom".to_string(),
        };
        Ok(ShadowCandidate { policy, name, artifact_sha256: None, reason: None })
    }
}

fn nest(e: Error, code: ErrorCode) -> Error {
    e.nested(code, SHADOW)
}

impl LoopShadow {
    /// The receipt of the run that recorded `history`, with the ground truths `goods`
    /// ((iteration, good), in order), called `run_id`, of `task` and `dataset`.
    pub fn receipt(&self, history: &[IterationRecord], goods: &[(u64, bool)], run: &RunNames<'_>) -> LoopReceipt {
        let good_of = |record: &IterationRecord| {
            let n = record.observation.iteration;
            goods.iter().find(|(i, _)| *i == n).map(|(_, g)| *g)
        };
        let mut first_good = None;
        let mut ground_truth = false;
        let mut final_best: Option<(u64, f64)> = None;
        for record in history {
            let o = &record.observation;
            let passed = o.verification_status == VerificationStatus::Passed;
            let explicit = good_of(record);
            ground_truth |= explicit.is_some() || passed;
            if first_good.is_none() && explicit.unwrap_or(passed) {
                first_good = Some(o.iteration);
            }
            if final_best.is_none_or(|(_, q)| o.quality_score > q) {
                final_best = Some((o.iteration, o.quality_score));
            }
        }
        LoopReceipt {
            run_id: run.run_id.map(str::to_string),
            task: run.task.map(str::to_string),
            dataset: run.dataset.map(str::to_string),
            run_label: run.run_label.map(str::to_string),
            candidate: self.candidate().clone(),
            iterations: history.last().map_or(0, |r| r.observation.iteration),
            would_stop: self.would_stop().cloned(),
            final_best,
            first_good,
            ground_truth,
        }
    }
}

/// The names of a run a receipt carries.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunNames<'a> {
    /// The run's id (one per run).
    pub run_id: Option<&'a str>,
    /// The task (repeated runs of one task share it).
    pub task: Option<&'a str>,
    /// The dataset.
    pub dataset: Option<&'a str>,
    /// The run's user label.
    pub run_label: Option<&'a str>,
}

/// Where a shadow candidate would have stopped a loop, and how that turned out.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopReceipt {
    /// The run's id.
    pub run_id: Option<String>,
    /// The task.
    pub task: Option<String>,
    /// The dataset.
    pub dataset: Option<String>,
    /// The run's user label (written as `runLabel` only when present).
    pub run_label: Option<String>,
    /// The candidate.
    pub candidate: ShadowCandidate,
    /// The iterations the run recorded (the last one's number).
    pub iterations: u64,
    /// Where the candidate first fired.
    pub would_stop: Option<WouldStop>,
    /// The run's best iteration and its quality (0..=100; the first of the highest).
    pub final_best: Option<(u64, f64)>,
    /// The run's first good iteration.
    pub first_good: Option<u64>,
    /// Whether some iteration records `good` or a passed verification.
    pub ground_truth: bool,
}

impl LoopReceipt {
    /// The label (see the module doc).
    pub fn label(&self) -> LoopReceiptLabel {
        label_of(self.would_stop.as_ref().map(|w| w.iteration), self.first_good, self.ground_truth)
    }

    /// The iterations the candidate would have saved (0 when it never fired).
    pub fn iterations_saved(&self) -> u64 {
        self.would_stop.as_ref().map_or(0, |w| self.iterations.saturating_sub(w.iteration))
    }

    /// The receipt document (camelCase in every language; hashed as written), without the
    /// chain fields [`append_receipts`](crate::receipt_log::append_receipts) adds.
    pub fn to_value(&self) -> Value {
        let opt_u = |n: Option<u64>| n.map_or(Value::Null, |n| Value::Number(n as f64));
        let opt_s = |s: Option<&str>| s.map_or(Value::Null, Value::string);
        let w = self.would_stop.as_ref();
        let mut b = ObjectBuilder::new();
        b.string("kind", LOOP_RECEIPTS.kind)
            .number("receiptVersion", LOOP_RECEIPT_VERSION as f64)
            .value("runId", opt_s(self.run_id.as_deref()))
            .value("task", opt_s(self.task.as_deref()))
            .value("dataset", opt_s(self.dataset.as_deref()));
        if let Some(label) = &self.run_label {
            b.string("runLabel", label);
        }
        b.string("policy", &self.candidate.name)
            .value("candidate", self.candidate.policy.to_value(Naming::Js))
            .value("artifactSha256", opt_s(self.candidate.artifact_sha256.as_deref()))
            .number("iterations", self.iterations as f64)
            .value("stoppedAt", opt_u(w.map(|w| w.iteration)))
            .value("trigger", opt_s(w.map(|w| w.trigger.as_str())))
            .value("reason", opt_s(w.map(|w| w.reason.as_str())))
            .value("returnedIteration", opt_u(w.map(|w| w.returned.0)))
            .opt_number("returnedQuality", w.map(|w| w.returned.1))
            .value("finalBestIteration", opt_u(self.final_best.map(|b| b.0)))
            .opt_number("finalBestQuality", self.final_best.map(|b| b.1))
            .number("iterationsSaved", self.iterations_saved() as f64)
            .value("firstGood", opt_u(self.first_good))
            .boolean("groundTruth", self.ground_truth)
            .string("label", self.label().as_str());
        b.build()
    }
}

fn label_of(stopped_at: Option<u64>, first_good: Option<u64>, ground_truth: bool) -> LoopReceiptLabel {
    match stopped_at {
        None => LoopReceiptLabel::NoStop,
        Some(_) if !ground_truth => LoopReceiptLabel::Unknown,
        Some(at) if first_good.is_some_and(|g| g > at) => LoopReceiptLabel::PrematureStop,
        Some(_) => LoopReceiptLabel::CorrectStop,
    }
}

/// The loop's receipts in the receipt log: rates `prematureStop` (premature stops among the
/// stops whose outcome is known) and `noStop` (runs the candidate never stopped among the
/// receipts without `unknown`).
pub const LOOP_RECEIPTS: ReceiptKind = ReceiptKind {
    kind: "loop",
    labels: &LoopReceiptLabel::NAMES,
    rates: &[
        ReceiptRate { key: "prematureStop", label: "premature_stop", of: &["correct_stop", "premature_stop"] },
        ReceiptRate { key: "noStop", label: "no_stop", of: &["correct_stop", "premature_stop", "no_stop"] },
    ],
    fields: &RECEIPT_FIELDS,
    read: read_loop_receipt,
};

const RECEIPT_FIELDS: [FieldName; 21] = FieldName::same_all([
    "kind",
    "receiptVersion",
    "runId",
    "task",
    "dataset",
    "runLabel",
    "policy",
    "candidate",
    "artifactSha256",
    "iterations",
    "stoppedAt",
    "trigger",
    "reason",
    "returnedIteration",
    "returnedQuality",
    "finalBestIteration",
    "finalBestQuality",
    "iterationsSaved",
    "firstGood",
    "groundTruth",
    "label",
]);

/// The keys of a loop receipt's log line: the receipt's and its chain fields.
const LINE_FIELDS: [FieldName; 23] = with_chain_fields(&RECEIPT_FIELDS);

const CODE: ErrorCode = ErrorCode::InvalidReceipt;

/// Reads a loop receipt as [`LoopReceipt::to_value`] writes it: every key present with its
/// type, iterations within the run, and what follows from the rest (`iterationsSaved`,
/// `label`) equal to what it makes them.
fn read_loop_receipt(value: &Value, path: &str, chain: bool) -> Result<ReceiptFacts> {
    let r = ObjectReader::new(value, path, "receipt", Naming::Js, CODE)?;
    let fields: &[FieldName] = if chain { &LINE_FIELDS } else { &RECEIPT_FIELDS };
    r.reject_unknown(fields)?;
    let [kind, version, run_id, task, dataset, run_label, policy, candidate, artifact, iterations, stopped_at, trigger, reason, returned_iteration, returned_quality, best_iteration, best_quality, saved, first_good, ground_truth, label] =
        RECEIPT_FIELDS;
    r.choice(kind, &[LOOP_RECEIPTS.kind])?;
    r.integer(version, LOOP_RECEIPT_VERSION, LOOP_RECEIPT_VERSION)?;
    let text = |field: FieldName| -> Result<Option<String>> {
        match nullable(&r, field)? {
            None => Ok(None),
            Some(_) => Ok(Some(r.string(field)?.to_string())),
        }
    };
    let run_id = text(run_id)?;
    text(task)?;
    text(dataset)?;
    let run_label = match r.get(run_label) {
        None => None,
        Some(v) => Some(crate::pyramid::policy::read_label(v, &r.path_of(run_label), CODE)?),
    };
    let policy_name = r.string(policy)?.to_string();
    if policy_name.trim().is_empty() {
        return Err(r.range_error(policy, "a policy's name (not blank)", &Value::string(policy_name.as_str())));
    }
    let candidate_path = r.path_of(candidate);
    LoopPolicy::from_value(r.get(candidate).ok_or_else(|| missing(&r, candidate))?, Naming::Js)
        .map_err(|e| e.nested(CODE, &candidate_path))?;
    if nullable(&r, artifact)?.is_some() {
        let digest = r.string(artifact)?;
        if !crate::artifact::is_sha256_hex(digest) {
            return Err(r.range_error(
                artifact,
                "null or a SHA-256 digest (64 lowercase hex digits)",
                &Value::string(digest),
            ));
        }
    }
    let n = r.integer(iterations, 0, MAX_SAFE_INTEGER)?;
    let iteration_in = |field: FieldName| -> Result<Option<u64>> {
        match nullable(&r, field)? {
            None => Ok(None),
            Some(_) => Ok(Some(r.integer(field, 1, n.max(1))?)),
        }
    };
    let quality = |field: FieldName| -> Result<Option<f64>> {
        match nullable(&r, field)? {
            None => Ok(None),
            Some(_) => Ok(Some(r.number(field, 0.0, 100.0)?)),
        }
    };
    let stopped = iteration_in(stopped_at)?;
    let fired_fields = [
        (trigger, nullable(&r, trigger)?.is_some()),
        (reason, nullable(&r, reason)?.is_some()),
        (returned_iteration, nullable(&r, returned_iteration)?.is_some()),
        (returned_quality, nullable(&r, returned_quality)?.is_some()),
    ];
    for (field, present) in fired_fields {
        if present != stopped.is_some() {
            let requirement = if stopped.is_some() { "a value (stoppedAt is set)" } else { "null (stoppedAt is null)" };
            return Err(r.range_error(field, requirement, r.get(field).unwrap_or(&Value::Null)));
        }
    }
    if let Some(at) = stopped {
        let name = r.choice(trigger, &Trigger::NAMES)?;
        if name == Trigger::None.as_str() {
            return Err(r.range_error(trigger, "the trigger of a stop", &Value::string(name)));
        }
        r.string(reason)?;
        let returned = iteration_in(returned_iteration)?.unwrap_or(0);
        if returned > at {
            let requirement = value::concat(&["at most stoppedAt (", &crate::num::uint_string(at), ")"]);
            return Err(r.range_error(returned_iteration, &requirement, &Value::Number(returned as f64)));
        }
        quality(returned_quality)?;
    }
    let best = iteration_in(best_iteration)?;
    if best.is_some() != quality(best_quality)?.is_some() {
        return Err(r.range_error(
            best_quality,
            "null exactly when finalBestIteration is",
            r.get(best_quality).unwrap_or(&Value::Null),
        ));
    }
    let expected_saved = stopped.map_or(0, |at| n.saturating_sub(at));
    let stated_saved = r.integer(saved, 0, MAX_SAFE_INTEGER)?;
    if stated_saved != expected_saved {
        let requirement = value::concat(&[&crate::num::uint_string(expected_saved), " (iterations - stoppedAt)"]);
        return Err(r.range_error(saved, &requirement, &Value::Number(stated_saved as f64)));
    }
    let first = iteration_in(first_good)?;
    let truth = r.boolean(ground_truth)?;
    if first.is_some() && !truth {
        return Err(r.range_error(ground_truth, "true (firstGood is set)", &Value::Bool(false)));
    }
    let expected = label_of(stopped, first, truth);
    let stated = r.choice(label, &LoopReceiptLabel::NAMES)?;
    if stated != expected.as_str() {
        let requirement =
            value::concat(&["'", expected.as_str(), "' (what its stoppedAt, firstGood and groundTruth make it)"]);
        return Err(r.range_error(label, &requirement, &Value::string(stated)));
    }
    Ok(ReceiptFacts { policy: policy_name, run_id, label: expected.as_str(), run_label })
}

/// A shadow for a binding that keeps the loop's history itself (the JS layer's
/// `EarlyStopping`): the candidate read as given (`restored`: as a snapshot keeps it,
/// [`ShadowCandidate::from_snapshot`]), checked against the enforced engine's stop policy
/// (`policy`, normalized, or `null` for the config's checks) and `config` (merged over the
/// defaults): without a hard cap, `invalid_config` naming `shadow`, unless the candidate
/// carries a `reason` (one an engine put in shadow itself, beside the calibration's most
/// conservative policy, which ends the loop as it would alone; as `EarlyStopping::set_shadow`).
pub fn host_shadow(
    shadow: &Value,
    restored: bool,
    policy: &Value,
    config: &Value,
    now_ms: i64,
    sha256: &dyn Sha256,
) -> Result<LoopShadow> {
    use crate::loops::{EarlyStoppingConfig, StopCondition, StopPolicy};
    let candidate = if restored {
        ShadowCandidate::from_snapshot(shadow, SHADOW)?
    } else {
        ShadowCandidate::from_value(shadow, Naming::Js, now_ms, sha256)?
    };
    if candidate.reason.is_none() {
        let when = match policy {
            Value::Null => {
                let config =
                    EarlyStoppingConfig::default().merged(config, Naming::Js, "config", ErrorCode::InvalidConfig)?;
                StopCondition::from_config(&config)
            }
            policy => StopPolicy::from_tree_value(policy, ErrorCode::InvalidConfig)?.when,
        };
        check_shadow_cap(&when)?;
    }
    Ok(LoopShadow::new(candidate))
}

impl LoopShadow {
    /// Folds in `records` (the history's records not observed yet, as the engine stores
    /// them: each is checked first, all of them, so a bad one changes nothing) and answers
    /// where the candidate would have stopped (`would_stop`'s value, or `null`).
    pub fn observe_values(&mut self, records: &Value) -> Result<Value> {
        let mut checked = Vec::new();
        if let Value::Array(records) = records {
            checked.reserve(records.len());
            for (i, record) in records.iter().enumerate() {
                let result = crate::loops::IterationResult::from_value(record, Naming::Snake)
                    .map_err(|e| e.nested(ErrorCode::InvalidResult, &value::index_path("records", i)))?;
                let iteration = result.iteration_number.unwrap_or(i as u64 + 1);
                checked.push(crate::loops::record_of(iteration, result, String::new));
            }
        }
        for record in &checked {
            self.observe(record);
        }
        Ok(self.would_stop().map_or(Value::Null, WouldStop::to_value))
    }
}
