//! The promotion rule both kinds of artifact share (a loop policy's, a pyramid policy's):
//! promoted when the artifact has not expired, the audit has trials, and the exact
//! Clopper-Pearson upper bound of events / trials at the artifact's `delta` is within its
//! `risk`. Each kind counts its own trials and events and words them ([`AuditTerms`]).

use crate::artifact::digest::Sha256;
use crate::artifact::envelope::{clopper_pearson_upper, Artifact, Promotion, PROMOTION_METHOD};
use crate::num::stats::wilson_interval;
use crate::num::to_js_string;
use crate::time::iso_from_millis;
use crate::value::{concat, ObjectBuilder, Result, Value};

/// The keys of a promotion's answer, in its order: `{promoted, reason, audit, artifact}`.
pub const PROMOTION_KEYS: [&str; 4] = ["promoted", "reason", "audit", "artifact"];

/// A drift check's statuses (what a loop or pyramid drift check answers): `fresh`, `expired`, `drifted`.
pub const DRIFT_STATUSES: [&str; 3] = ["fresh", "expired", "drifted"];

/// How one kind words its promotion's audit.
pub(crate) struct AuditTerms {
    /// The rate bounded ("premature-stop rate").
    pub(crate) rate: &'static str,
    /// The reason when the audit has no trial.
    pub(crate) no_trial: &'static str,
    /// The audit answer's keys for the trials, the events and their rate.
    pub(crate) keys: [&'static str; 3],
}

/// An audit of `audit_runs` runs (corpus digest `audit_sha`) that counted `trials` and
/// `events`, judged by the rule: `{promoted, reason, audit, artifact}`, the artifact carrying
/// the promotion when promoted (unchanged otherwise).
pub(crate) fn promotion_answer(
    a: &Artifact,
    (audit_runs, audit_sha): (usize, String),
    (trials, events): (u64, u64),
    terms: &AuditTerms,
    sha256: &dyn Sha256,
    now_ms: i64,
) -> Result<Value> {
    let upper = clopper_pearson_upper(events, trials, a.delta);
    let expired = a.is_expired(now_ms);
    let promoted = !expired && trials > 0 && upper <= a.risk;
    let bound = || concat(&["the exact upper bound of the ", terms.rate, ", ", &to_js_string(upper)]);
    let why = if expired {
        concat(&["the artifact expired at ", &a.expires_at, ": calibrate again"])
    } else if trials == 0 {
        terms.no_trial.to_string()
    } else if promoted {
        concat(&[&bound(), ", is within the risk ", &to_js_string(a.risk)])
    } else {
        concat(&[&bound(), ", exceeds the risk ", &to_js_string(a.risk), ": stays in shadow"])
    };
    let mut out = a.clone();
    if promoted {
        out.promotion = Some(Promotion {
            promoted_at: iso_from_millis(now_ms),
            audit_corpus_sha256: audit_sha.clone(),
            audit_runs: audit_runs as u64,
            trials,
            events,
            upper_bound: upper,
            method: PROMOTION_METHOD.to_string(),
            // The digest of the artifact it promotes (as written, promotion null): a reader
            // refuses the promotion on any other artifact.
            artifact_sha256: a.unpromoted_sha256(sha256)?,
        });
    }
    let [trials_key, events_key, rate_key] = terms.keys;
    let audit = ObjectBuilder::new()
        .number("runs", audit_runs as f64)
        .number(trials_key, trials as f64)
        .number(events_key, events as f64)
        .opt_number(rate_key, (trials > 0).then(|| events as f64 / trials as f64))
        .number("upperBound", upper)
        .value("wilson", interval_value(events, trials))
        .number("risk", a.risk)
        .number("delta", a.delta)
        .string("corpusSha256", &audit_sha)
        .build();
    let [promoted_key, reason_key, audit_key, artifact_key] = PROMOTION_KEYS;
    Ok(ObjectBuilder::new()
        .value(promoted_key, Value::Bool(promoted))
        .string(reason_key, &why)
        .value(audit_key, audit)
        .value(artifact_key, out.to_value())
        .build())
}

/// A drift check's answer, alike for both kinds: `status` (`expired` when `expired`, else
/// `drifted` with `reasons`, else `fresh`), the artifact to run with now (unchanged when
/// fresh, else demoted: `promotion: null`, so a live run falls back to shadow mode and says
/// so), the kind's own `counts` of the recent runs, `expiresAt` and `now`.
pub(crate) fn drift_answer(
    a: &Artifact,
    expired: bool,
    reasons: Vec<Value>,
    counts: &[(&str, f64)],
    now_ms: i64,
) -> Value {
    let [fresh, expired_status, drifted] = DRIFT_STATUSES;
    let status = if expired {
        expired_status
    } else if reasons.is_empty() {
        fresh
    } else {
        drifted
    };
    let mut next = a.clone();
    if status != fresh {
        next.promotion = None;
    }
    let mut out = ObjectBuilder::new();
    out.string("status", status)
        .value("fresh", Value::Bool(status == fresh))
        .value("reasons", Value::Array(reasons))
        .value("artifact", next.to_value());
    for (key, n) in counts {
        out.number(key, *n);
    }
    out.string("expiresAt", &a.expires_at).string("now", &iso_from_millis(now_ms)).build()
}

/// The Wilson interval of `k` in `n` as `[lo, hi]`, or null when `n` is 0.
pub(crate) fn interval_value(k: u64, n: u64) -> Value {
    wilson_interval(k, n).map_or(Value::Null, |(lo, hi)| Value::Array(vec![Value::Number(lo), Value::Number(hi)]))
}
