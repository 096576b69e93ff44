//! A pyramid policy's lifecycle: the calibration artifact (the envelope of
//! [`crate::artifact`] with the pyramid's policy and statistics), the drift check that says
//! whether it still holds, and the promotion from shadow to enforced on an audit split.
//!
//! * The corpus digest is SHA-256 over the runs as calibration reads them, as canonical
//!   JSONL: each run `{"layers":[{"durationMs":..,"failed":..,"name":..}]}` (with its
//!   `"label"` when it has one) in RFC 8785 form, one a line, each line ending in `\n`.
//! * A slice is a stage set (the sorted layer names of a run) or a user label (a run's
//!   `label`: a branch, a runner pool); per slice the artifact keeps runs, failing runs and
//!   the failure rate's Wilson 95% interval (`{stages, ...}` for stage sets, then `{label,
//!   ...}` for labels, in first-seen order), and per stage (layer name) how often it failed
//!   when it ran, with its Wilson interval: the drift check compares recent runs against
//!   those (a stage set or label unseen in calibration, a stage's or label's failure rate
//!   whose interval does not overlap its calibration interval).
//! * Promotion replays the audit runs with the artifact's policy, config and model (learning
//!   what ran, as calibration's held-out replay does) and certifies the miss rate (failing
//!   runs declared green / failing runs, the quantity calibration certified) by its exact
//!   Clopper-Pearson upper bound at confidence 1 - delta: promoted when that bound is within
//!   the risk.

use crate::artifact::{drift_answer, interval_value, promotion_answer, AuditTerms};
use crate::artifact::{Artifact, ArtifactKind, Certificate, Hypothesis, Sha256, SCHEMA_VERSION};
use crate::num::stats::wilson_interval;
use crate::num::uint_string;
use crate::pyramid::policy::{read_pyramid_artifact, PyramidArtifact};
use crate::pyramid::replay::calibrate::Calibration;
use crate::pyramid::replay::play::{replay, Learn, ReplayPolicy};
use crate::pyramid::replay::runs::RecordedRun;
use crate::time::{iso_from_millis, millis_from_rfc3339};
use crate::value::{concat, Error, ErrorCode, ErrorKind, Naming, ObjectBuilder, Result, Value};

/// How long an artifact is valid when the caller gives no expiry: 30 days.
pub const DEFAULT_VALIDITY_MS: i64 = 30 * 86_400_000;

fn run_value(run: &RecordedRun) -> Value {
    let layers = run
        .layers
        .iter()
        .map(|l| {
            ObjectBuilder::new()
                .number("durationMs", l.duration_ms)
                .value("failed", Value::Bool(l.failed))
                .string("name", &l.name)
                .build()
        })
        .collect();
    let mut entries = vec![("layers", Value::Array(layers))];
    // Only a labelled run has the key: an unlabelled corpus hashes as it always did.
    if let Some(label) = &run.label {
        entries.push(("label", Value::string(label.as_str())));
    }
    Value::object(entries)
}

/// SHA-256 of the runs' canonical JSONL (see the module's documentation).
pub fn corpus_sha256(runs: &[RecordedRun], sha256: &dyn Sha256) -> Result<String> {
    let mut text = String::new();
    for (i, run) in runs.iter().enumerate() {
        text.push_str(&run_value(run).canonical_json(ErrorCode::InvalidReplay, &crate::value::index_path("runs", i))?);
        text.push('\n');
    }
    Ok(sha256.sha256_hex(text.as_bytes()))
}

fn stage_set(run: &RecordedRun) -> Vec<String> {
    let mut names: Vec<String> = run.layers.iter().map(|l| l.name.clone()).collect();
    names.sort();
    names
}

/// Per stage: (name, runs it ran in, failures), in first-seen order.
fn stage_counts(runs: &[RecordedRun]) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = Vec::new();
    for run in runs {
        for layer in &run.layers {
            match out.iter_mut().find(|(name, _, _)| *name == layer.name) {
                Some((_, n, k)) => {
                    *n += 1;
                    *k += u64::from(layer.failed);
                }
                None => out.push((layer.name.clone(), 1, u64::from(layer.failed))),
            }
        }
    }
    out
}

/// Per stage set: (sorted names, runs, failing runs), in first-seen order.
fn slice_counts(runs: &[RecordedRun]) -> Vec<(Vec<String>, u64, u64)> {
    let mut out: Vec<(Vec<String>, u64, u64)> = Vec::new();
    for run in runs {
        let set = stage_set(run);
        match out.iter_mut().find(|(s, _, _)| *s == set) {
            Some((_, n, k)) => {
                *n += 1;
                *k += u64::from(run.failed());
            }
            None => out.push((set, 1, u64::from(run.failed()))),
        }
    }
    out
}

/// Per label: (label, runs, failing runs), in first-seen order (unlabelled runs are in none).
fn label_counts(runs: &[RecordedRun]) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = Vec::new();
    for run in runs {
        let Some(label) = &run.label else { continue };
        match out.iter_mut().find(|(l, _, _)| l == label) {
            Some((_, n, k)) => {
                *n += 1;
                *k += u64::from(run.failed());
            }
            None => out.push((label.clone(), 1, u64::from(run.failed()))),
        }
    }
    out
}

fn names_value(names: &[String]) -> Value {
    Value::Array(names.iter().map(|n| Value::string(n.as_str())).collect())
}

/// What calibration hands over, besides the figures its answer had already.
pub struct ArtifactRequest<'a> {
    /// The policy preset's name (`fail_fast` or `risk_bounded`).
    pub policy: &'a str,
    /// The risk the certificate bounds.
    pub risk: f64,
    /// 1 - its confidence.
    pub delta: f64,
    /// The warm-up share (the first runs train the model, the rest are tested).
    pub warmup: f64,
    /// When (RFC 3339).
    pub created_at: String,
    /// Until when (RFC 3339, after `created_at`).
    pub expires_at: String,
}

/// The calibration's artifact.
pub fn calibration_artifact(
    c: &Calibration,
    runs: &[RecordedRun],
    request: &ArtifactRequest<'_>,
    sha256: &dyn Sha256,
) -> Result<Artifact> {
    let split = ((runs.len() as f64) * request.warmup).floor() as usize;
    let held = runs.len().saturating_sub(split);
    let hypotheses = c
        .steps
        .iter()
        .map(|s| Hypothesis {
            parameter: s.risk_budget,
            trials: s.failing_runs as u64,
            events: s.missed as u64,
            p_value: s.p_value,
            rejected: s.certified,
        })
        .collect();
    let failing_held = c.steps.first().map_or(0, |s| s.failing_runs as u64);
    let certificate = Certificate {
        method: "learn-then-test: fixed-sequence tests of H0 missRate(riskBudget) > risk, exact binomial p-values"
            .to_string(),
        hypotheses,
        sample_sizes: vec![
            ("calibration".into(), runs.len() as u64),
            ("warmup".into(), split as u64),
            ("heldOut".into(), held as u64),
            ("failingHeldOut".into(), failing_held),
        ],
    };
    let slices = slice_counts(runs)
        .into_iter()
        .map(|(set, n, k)| {
            ObjectBuilder::new()
                .value("stages", names_value(&set))
                .number("runs", n as f64)
                .number("failingRuns", k as f64)
                .value("failureInterval", interval_value(k, n))
                .build()
        })
        .chain(label_counts(runs).into_iter().map(|(label, n, k)| {
            ObjectBuilder::new()
                .string("label", &label)
                .number("runs", n as f64)
                .number("failingRuns", k as f64)
                .value("failureInterval", interval_value(k, n))
                .build()
        }))
        .collect();
    let stages = stage_counts(runs)
        .into_iter()
        .map(|(name, n, k)| {
            ObjectBuilder::new()
                .string("name", &name)
                .number("runs", n as f64)
                .number("failures", k as f64)
                .value("failureInterval", interval_value(k, n))
                .build()
        })
        .collect();
    let body = ObjectBuilder::new()
        .value("model", c.model.to_value(Naming::Js))
        .value("slices", Value::Array(slices))
        .value("stages", Value::Array(stages))
        .build();
    let policy =
        Value::object(vec![("policy", Value::string(request.policy)), ("config", c.config.to_value(Naming::Js))]);
    let artifact = Artifact {
        kind: ArtifactKind::Pyramid,
        schema_version: SCHEMA_VERSION,
        policy,
        risk: request.risk,
        delta: request.delta,
        certificate,
        corpus_sha256: corpus_sha256(runs, sha256)?,
        created_at: request.created_at.clone(),
        expires_at: request.expires_at.clone(),
        promotion: None,
        body,
    };
    // Validated as any artifact read back is (the times, in particular).
    Artifact::from_value(&artifact.to_value())
}

/// `createdAt` / `expiresAt` of a new artifact: as given, else `now` and `now` + 30 days.
pub fn artifact_times(created_at: Option<&str>, expires_at: Option<&str>, now_ms: i64) -> Result<(String, String)> {
    let check = |field: &str, text: &str| -> Result<i64> {
        millis_from_rfc3339(text).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                field,
                concat(&[field, " must be an RFC 3339 date-time, got ", &Value::string(text).describe()]),
            )
        })
    };
    let (created, created_ms) = match created_at {
        Some(text) => (text.to_string(), check("createdAt", text)?),
        None => (iso_from_millis(now_ms), now_ms),
    };
    let expires = match expires_at {
        Some(text) => {
            if check("expiresAt", text)? <= created_ms {
                let message = concat(&["expiresAt must be after createdAt (", &created, "), got ", text]);
                return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "expiresAt", message));
            }
            text.to_string()
        }
        None => iso_from_millis(created_ms.saturating_add(DEFAULT_VALIDITY_MS)),
    };
    Ok((created, expires))
}

/// What [`check_drift`] found: `fresh`, `expired` or `drifted`, and why.
pub fn check_drift(artifact: &PyramidArtifact, runs: &[RecordedRun], now_ms: i64) -> Value {
    let mut reasons: Vec<Value> = Vec::new();
    let a = &artifact.artifact;
    let expired = a.is_expired(now_ms);
    if expired {
        reasons.push(reason("expired", None, &concat(&["the artifact expired at ", &a.expires_at])));
    }
    let known_sets: Vec<Vec<String>> = match a.body.get("slices") {
        Some(Value::Array(slices)) => slices
            .iter()
            .filter_map(|s| match s.get("stages") {
                Some(Value::Array(names)) => {
                    Some(names.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    for (set, n, _) in slice_counts(runs) {
        if !known_sets.contains(&set) {
            let message = concat(&[
                "stage set [",
                &crate::value::join(&set.iter().map(String::as_str).collect::<Vec<_>>(), ", "),
                "] (",
                &uint_string(n),
                " recent runs) was not in the calibration corpus",
            ]);
            reasons.push(reason("stage_set", None, &message));
        }
    }
    let slices = match a.body.get("slices") {
        Some(Value::Array(slices)) => slices.as_slice(),
        _ => &[],
    };
    for (label, n, k) in label_counts(runs) {
        let known = slices.iter().find(|s| s.get("label").and_then(Value::as_str) == Some(label.as_str()));
        let Some(known) = known else {
            let message =
                concat(&["label '", &label, "' (", &uint_string(n), " recent runs) was not in the calibration corpus"]);
            reasons.push(label_reason("label", &label, &message));
            continue;
        };
        if let Some(message) = outside_interval(known, k, n) {
            let message = concat(&["label '", &label, "': failing runs ", &message]);
            reasons.push(label_reason("label_failure_rate", &label, &message));
        }
    }
    let stages = match a.body.get("stages") {
        Some(Value::Array(stages)) => stages.as_slice(),
        _ => &[],
    };
    for (name, n, k) in stage_counts(runs) {
        let known = stages.iter().find(|s| s.get("name").and_then(Value::as_str) == Some(name.as_str()));
        if let Some(message) = known.and_then(|known| outside_interval(known, k, n)) {
            let message = concat(&["stage '", &name, "' failed in ", &message]);
            reasons.push(reason("failure_rate", Some(&name), &message));
        }
    }
    // An enforced (promoted) policy that would have declared a failing recent run green has
    // met a false pass: it goes back to shadow.
    if a.promotion.is_some() {
        let policy = ReplayPolicy::Policy { config: artifact.config.clone(), model: artifact.model.clone() };
        if let Ok(report) = replay(runs, &policy, Learn::Ran) {
            if let Some(run) = report.runs.iter().find(|r| r.missed) {
                let which = run.id.as_deref().map_or_else(String::new, |id| concat(&[" (run ", id, ")"]));
                let message = concat(&[
                    "the promoted policy would have declared ",
                    &uint_string(report.summary.missed as u64),
                    " failing recent run(s) green",
                    &which,
                ]);
                reasons.push(reason("false_pass", None, &message));
            }
        }
    }
    drift_answer(a, expired, reasons, &[("runs", runs.len() as f64)], now_ms)
}

/// A drift reason about a label slice: `{kind, stage: null, label, message}`.
fn label_reason(kind: &str, label: &str, message: &str) -> Value {
    ObjectBuilder::new()
        .string("kind", kind)
        .value("stage", Value::Null)
        .string("label", label)
        .string("message", message)
        .build()
}

/// `k of n recent runs (rate), outside its calibration interval [lo, hi]` when the recent
/// rate's Wilson interval does not overlap the slice's `failureInterval` (a rate that moved,
/// not noise); `None` otherwise or without an interval.
fn outside_interval(known: &Value, k: u64, n: u64) -> Option<String> {
    let (lo, hi) = match known.get("failureInterval") {
        Some(Value::Array(pair)) => (pair.first()?.as_f64()?, pair.get(1)?.as_f64()?),
        _ => return None,
    };
    let (rlo, rhi) = wilson_interval(k, n)?;
    if rhi >= lo && rlo <= hi {
        return None;
    }
    Some(concat(&[
        &uint_string(k),
        " of ",
        &uint_string(n),
        " recent runs (",
        &crate::num::to_js_string(k as f64 / n as f64),
        "), outside its calibration interval [",
        &crate::num::to_js_string(lo),
        ", ",
        &crate::num::to_js_string(hi),
        "]",
    ]))
}

fn reason(kind: &str, stage: Option<&str>, message: &str) -> Value {
    ObjectBuilder::new()
        .string("kind", kind)
        .value("stage", stage.map_or(Value::Null, Value::string))
        .string("message", message)
        .build()
}

pub use crate::artifact::clopper_pearson_upper;

/// Promotes `artifact` on `audit` runs (disjoint from the calibration corpus): the answer
/// `{promoted, reason, audit: {...}, artifact}`; the artifact carries the promotion when
/// promoted (and is returned unchanged otherwise).
pub fn promote(artifact: &PyramidArtifact, audit: &[RecordedRun], sha256: &dyn Sha256, now_ms: i64) -> Result<Value> {
    let a = &artifact.artifact;
    let audit_sha = corpus_sha256(audit, sha256)?;
    if audit_sha == a.corpus_sha256 {
        return Err(Error::new(
            ErrorCode::InvalidReplay,
            ErrorKind::Range,
            "auditRuns",
            "auditRuns is the calibration corpus itself: promotion needs an audit split disjoint from calibration",
        ));
    }
    let policy = ReplayPolicy::Policy { config: artifact.config.clone(), model: artifact.model.clone() };
    let report = replay(audit, &policy, Learn::Ran)?;
    let counts = (report.summary.failing_runs as u64, report.summary.missed as u64);
    promotion_answer(a, (audit.len(), audit_sha), counts, &AUDIT_TERMS, sha256, now_ms)
}

/// A pyramid promotion's audit counts failing runs, and the green exits among them.
const AUDIT_TERMS: AuditTerms = AuditTerms {
    rate: "false-pass rate",
    no_trial: "no failing audit run: the false-pass rate cannot be bounded",
    keys: ["failingRuns", "falsePasses", "falsePassRate"],
};

pub use crate::time::now_argument;

/// `checkPyramidDrift(artifact, runs, now)` (`now` as [`now_argument`] reads it; a promotion
/// checked with the host's `sha256`).
pub fn drift_value(artifact: &Value, runs: &Value, sha256: &dyn Sha256, now: &Value, naming: Naming) -> Result<Value> {
    let now_ms = now_argument(now)?;
    let artifact = read_pyramid_artifact(artifact, sha256)?;
    let runs = crate::pyramid::replay::runs::parse_runs(runs, naming)?;
    Ok(check_drift(&artifact, &runs, now_ms))
}

/// `promotePyramidPolicy(artifact, auditRuns)` at `now_ms`.
pub fn promote_value(
    artifact: &Value,
    runs: &Value,
    sha256: &dyn Sha256,
    now: &Value,
    naming: Naming,
) -> Result<Value> {
    let now_ms = now_argument(now)?;
    let artifact = read_pyramid_artifact(artifact, sha256)?;
    let runs = crate::pyramid::replay::runs::parse_runs(runs, naming).map_err(|e| {
        if e.field().starts_with("runs") {
            e.nested(ErrorCode::InvalidReplay, "")
        } else {
            e
        }
    })?;
    promote(&artifact, &runs, sha256, now_ms)
}
