//! A loop calibration as a calibration [`Artifact`] (kind `"loop"`, the envelope both
//! engines share): the chosen policy in the portable policy form the replay and
//! `EarlyStopping` read (`{config, returns, analytics}`, config keys in JS spelling, plus
//! its condition tree's keys when the candidate was a composed policy), the
//! certificate (one hypothesis per tested point of the path: `parameter` = its
//! aggressiveness, `trials` = tasks, `events` = tasks stopped prematurely), the corpus
//! digest, and a `body` holding the status, the frontier and the warnings. The host gives
//! the SHA-256 and the clock (the core has neither).

use crate::artifact::{
    digest, disagreeing_copy, first_difference, Artifact, ArtifactKind, Certificate, Hypothesis, Sha256, SCHEMA_VERSION,
};
use crate::loops::replay::calibrate::{CandidateFigures, LoopCalibration, LoopCalibrationPlan, LoopCalibrationRequest};
use crate::loops::replay::input::runs_from_value;
use crate::loops::replay::policy::LoopPolicy;
use crate::loops::replay::runs::ReplayRun;
use crate::time::iso_from_millis;
use crate::value::{self, Error, ErrorCode, ErrorKind, Naming, ObjectBuilder, Result, Value};

const DAY_MS: i64 = 86_400_000;

/// The calibration corpus as the value its digest is taken over: every run with the keys the
/// replay reads (`quality_delta` as replayed), so the same runs hash alike whether they came
/// as JSONL text or as objects.
pub fn corpus_value(runs: &[ReplayRun]) -> Value {
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let mut items = Vec::with_capacity(run.iterations.len());
        for it in &run.iterations {
            let o = &it.observation;
            let mut b = ObjectBuilder::new();
            b.number("quality_score", o.quality_score)
                .number("confidence", o.confidence)
                .string("verification_status", o.verification_status.as_str())
                .number("quality_delta", o.quality_delta);
            if let Some(usage) = &it.usage {
                b.some_number("tokens_used", usage.tokens_used)
                    .some_number("token_cost_usd", usage.token_cost_usd)
                    .some_number("execution_time_ms", usage.execution_time_ms);
            }
            if let Some(good) = it.good {
                b.boolean("good", good);
            }
            items.push(b.build());
        }
        let mut b = ObjectBuilder::new();
        b.string("id", &run.id);
        if let Some(dataset) = &run.dataset {
            b.string("dataset", dataset);
        }
        if let Some(split) = &run.split {
            b.string("split", split);
        }
        b.value("iterations", Value::Array(items));
        out.push(b.build());
    }
    Value::Array(out)
}

impl LoopCalibration {
    /// The artifact: made at `created_ms` (milliseconds since the epoch, from the host's
    /// clock), trusted for `valid_days`, over the corpus whose digest is `corpus_sha256`.
    pub fn artifact(&self, corpus_sha256: String, created_ms: i64, valid_days: u64) -> Artifact {
        let hypotheses = self
            .frontier
            .iter()
            .filter(|r| r.tested)
            .map(|r| Hypothesis {
                parameter: r.aggressiveness,
                trials: self.tasks,
                events: r.figures.premature_tasks,
                p_value: r.p_value,
                rejected: r.rejected,
            })
            .collect();
        let valid_ms = i64::try_from(valid_days).unwrap_or(i64::MAX / DAY_MS).saturating_mul(DAY_MS);
        Artifact {
            kind: ArtifactKind::Loop,
            schema_version: SCHEMA_VERSION,
            policy: self.policy.to_value(Naming::Js),
            risk: self.risk,
            delta: self.delta,
            certificate: Certificate {
                method: "learn-then-test: fixed-sequence testing along a path fixed in advance, exact binomial tail \
                         over tasks; risk = premature-stop rate"
                    .to_string(),
                hypotheses,
                sample_sizes: vec![
                    ("runs".to_string(), self.runs),
                    ("effectiveSampleSize".to_string(), self.tasks),
                    ("minimumToCertify".to_string(), self.min_tasks),
                ],
            },
            corpus_sha256,
            created_at: iso_from_millis(created_ms),
            expires_at: iso_from_millis(created_ms.saturating_add(valid_ms.max(1))),
            promotion: None,
            body: self.to_value(),
        }
    }
}

/// The binding entry: calibrates on `runs` (an array of run objects or JSONL text) with
/// `options` (`{risk?, delta?, steps?, candidates?, validDays?}`) and answers the artifact
/// as a value. `evaluate` computes every candidate's figures (in path order): the plan's own
/// `evaluate_all`, or a host's split over threads. `now_ms` is the host's clock.
pub fn calibrate_value(
    runs: &Value,
    options: &Value,
    naming: Naming,
    sha256: &dyn Sha256,
    now_ms: i64,
    evaluate: &dyn Fn(&LoopCalibrationPlan) -> Vec<CandidateFigures>,
) -> Result<Value> {
    let request = LoopCalibrationRequest::from_options(options, naming)?;
    let valid_days = request.valid_days;
    let runs = runs_from_value(runs, naming)?;
    let corpus = digest(&corpus_value(&runs), sha256, ErrorCode::InvalidReplay, "runs")?;
    // The calibration tasks, so a promotion can show its audit split shares none.
    let tasks = crate::loops::replay::runs::tasks_value(&runs);
    let plan = LoopCalibrationPlan::new(runs, request)?;
    let figures = evaluate(&plan);
    let mut artifact = plan.finish(figures)?.artifact(corpus, now_ms, valid_days);
    if let Value::Object(entries) = &mut artifact.body {
        entries.push((crate::loops::replay::runs::TASKS_KEY.to_string(), tasks));
    }
    Ok(artifact.to_value())
}

/// The policy of a loop artifact (a value or its JSON text), for `EarlyStopping` and the
/// replay: the envelope is checked (`invalid_artifact` naming the field), the kind must be
/// `"loop"`, an artifact expired at `now_ms` is refused (recalibrate instead), a promotion
/// must be the artifact's own (checked with the host's `sha256`), and the body's copies
/// (`policy`, `risk`, `delta`, `certified`, `status`, the certificate's and the chosen
/// frontier row's) must agree with the envelope and the certificate.
pub fn policy_from_artifact(artifact: &Value, now_ms: i64, sha256: &dyn Sha256) -> Result<LoopPolicy> {
    let (artifact, policy) = read_checked(artifact, sha256)?;
    if artifact.is_expired(now_ms) {
        return Err(Error::new(
            ErrorCode::InvalidArtifact,
            ErrorKind::Range,
            "expiresAt",
            value::concat(&["the artifact expired at ", &artifact.expires_at, ": recalibrate on recent runs"]),
        ));
    }
    Ok(policy)
}

/// A loop artifact read and checked as [`policy_from_artifact`] reads it, whatever its
/// expiry: the envelope and the calibrated policy.
fn read_checked(artifact: &Value, sha256: &dyn Sha256) -> Result<(Artifact, LoopPolicy)> {
    let document = crate::artifact::document(artifact)?;
    let value = document.as_ref();
    let wrong_kind = |kind: &str| {
        Error::new(
            ErrorCode::InvalidArtifact,
            ErrorKind::Range,
            "kind",
            value::concat(&["kind must be 'loop' for a loop policy, got '", kind, "'"]),
        )
    };
    // A pyramid calibration answer carries its figures beside the envelope's keys: name its
    // kind before the envelope's check would name the first of those figures.
    let pyramid = ArtifactKind::Pyramid.as_str();
    if value.get("kind").and_then(Value::as_str) == Some(pyramid) {
        return Err(wrong_kind(pyramid));
    }
    let artifact = Artifact::from_value(value)?;
    if artifact.kind != ArtifactKind::Loop {
        return Err(wrong_kind(artifact.kind.as_str()));
    }
    artifact.check_promotion(sha256)?;
    check_body(&artifact)?;
    let policy = LoopPolicy::from_value(&artifact.policy, Naming::Js)
        .map_err(|e| e.nested(ErrorCode::InvalidArtifact, "policy"))?;
    Ok((artifact, policy))
}

/// What an engine that enforces a loop calibration artifact runs ([`enforced_from_artifact`]).
#[derive(Clone, Debug, PartialEq)]
pub struct EnforcedArtifact {
    /// The policy the engine enforces: the calibrated one for a promoted, current artifact,
    /// else the calibration's most conservative.
    pub policy: LoopPolicy,
    /// The calibrated policy in shadow beside it (with its `reason`), unless it is enforced.
    pub shadow: Option<crate::loops::shadow::ShadowCandidate>,
    /// The artifact's SHA-256 (RFC 8785 canonical JSON), which a loop records as `policyArtifact`.
    pub sha256: String,
}

impl EnforcedArtifact {
    /// Why the calibrated policy runs in shadow rather than enforced (`None` when enforced).
    pub fn shadow_reason(&self) -> Option<&str> {
        self.shadow.as_ref().and_then(|s| s.reason.as_deref())
    }
}

/// What an enforced engine runs for a loop calibration artifact (a value or its JSON text;
/// checked as [`policy_from_artifact`] checks it, an expired one included). A promoted artifact
/// that has not expired at `now_ms` enforces its calibrated policy. One that is not promoted
/// (never, or demoted by a drift check) or has expired is not trusted to act: the engine
/// enforces the calibration's most conservative policy (the first row of `body.frontier`, what
/// an uncertified artifact already carries) with its cap, and runs the calibrated policy in
/// shadow beside it (named `calibrated`, with the artifact's digest and the reason), so its
/// receipts keep collecting the evidence a promotion needs.
pub fn enforced_from_artifact(artifact: &Value, now_ms: i64, sha256: &dyn Sha256) -> Result<EnforcedArtifact> {
    let (a, calibrated) = read_checked(artifact, sha256)?;
    let document = crate::artifact::document(artifact)?;
    let digest = digest(document.as_ref(), sha256, ErrorCode::InvalidArtifact, "artifact")?;
    let why = if a.is_expired(now_ms) {
        value::concat(&[
            "the artifact expired at ",
            &a.expires_at,
            ": its calibration's most conservative policy is enforced and the calibrated policy runs in shadow; \
             calibrate again on recent runs",
        ])
    } else if a.promotion.is_none() {
        "the artifact is not promoted: its calibration's most conservative policy is enforced and the calibrated \
         policy runs in shadow; promote it on an audit split disjoint from calibration to enforce it"
            .to_string()
    } else {
        return Ok(EnforcedArtifact { policy: calibrated, shadow: None, sha256: digest });
    };
    let conservative = conservative_policy(&a)?;
    let candidate = crate::loops::shadow::ShadowCandidate {
        policy: calibrated,
        name: crate::loops::shadow::CALIBRATED.to_string(),
        artifact_sha256: Some(digest.clone()),
        reason: Some(why),
    };
    Ok(EnforcedArtifact { policy: conservative, shadow: Some(candidate), sha256: digest })
}

/// The calibration's most conservative policy: the `policy` of `body.frontier`'s row of index
/// 0; without a frontier, the envelope's policy when it certifies nothing (calibration then
/// chose the most conservative).
fn conservative_policy(a: &Artifact) -> Result<LoopPolicy> {
    if let Some(Value::Array(rows)) = a.body.get("frontier") {
        let first = rows.iter().position(|r| r.get("index").and_then(Value::as_f64) == Some(0.0));
        if let Some((i, policy)) = first.and_then(|i| rows.get(i)?.get("policy").map(|p| (i, p))) {
            let at = value::concat(&[&value::index_path("body.frontier", i), ".policy"]);
            return LoopPolicy::from_value(policy, Naming::Js).map_err(|e| e.nested(ErrorCode::InvalidArtifact, &at));
        }
    }
    if !a.certificate.hypotheses.iter().any(|h| h.rejected) {
        return LoopPolicy::from_value(&a.policy, Naming::Js)
            .map_err(|e| e.nested(ErrorCode::InvalidArtifact, "policy"));
    }
    Err(Error::new(
        ErrorCode::InvalidArtifact,
        ErrorKind::Range,
        "body.frontier",
        "body.frontier must hold the calibration's most conservative policy (the row of index 0): an artifact that \
         is not promoted, or has expired, enforces it; calibrate again",
    ))
}

/// The body a loop calibration writes holds copies of the envelope (`policy`, `risk`,
/// `delta`), flags that follow from the certificate (`certified`: some hypothesis rejected;
/// `status`: `certified` exactly then, `too_few_runs` only below the minimum sample) and the
/// chosen frontier row's policy: each present copy must agree.
pub(crate) fn check_body(artifact: &Artifact) -> Result<()> {
    let body = &artifact.body;
    if let Some(copy) = body.get("policy") {
        // Named at the envelope's policy, the one that runs.
        if let Some(path) = first_difference(&artifact.policy, copy, "policy") {
            let copied = value::concat(&["body.", &path]);
            return Err(disagreeing_copy(&path, &copied));
        }
    }
    for (key, expected) in [("risk", artifact.risk), ("delta", artifact.delta)] {
        if let Some(copy) = body.get(key) {
            if copy.as_f64() != Some(expected) {
                return Err(disagreeing_copy(&value::concat(&["body.", key]), key));
            }
        }
    }
    let certified = artifact.certificate.hypotheses.iter().any(|h| h.rejected);
    let inner = body.get("certificate");
    for (path, flag) in [
        ("body.certified", body.get("certified")),
        ("body.certificate.certified", inner.and_then(|c| c.get("certified"))),
    ] {
        if let Some(flag) = flag {
            if flag.as_bool() != Some(certified) {
                let expected = if certified { "true" } else { "false" };
                let message = value::concat(&[
                    path,
                    " must be ",
                    expected,
                    ": it follows from the certificate (certified when a hypothesis of certificate.hypotheses is rejected), got ",
                    &flag.describe(),
                ]);
                return Err(Error::new(ErrorCode::InvalidArtifact, ErrorKind::Range, path, message));
            }
        }
    }
    let sizes = &artifact.certificate.sample_sizes;
    let size = |name: &str| sizes.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    let too_few = match (size("effectiveSampleSize"), size("minimumToCertify")) {
        (Some(n), Some(min)) => Some(n < min),
        _ => None,
    };
    for (path, status) in
        [("body.status", body.get("status")), ("body.certificate.status", inner.and_then(|c| c.get("status")))]
    {
        let Some(status) = status else { continue };
        let ok = match status.as_str() {
            Some("certified") => certified,
            Some("not_certified") => !certified && too_few != Some(true),
            Some("too_few_runs") => !certified && too_few != Some(false),
            _ => false,
        };
        if !ok {
            let message = value::concat(&[
                path,
                " must follow from the certificate (certified when a hypothesis is rejected, too_few_runs when \
                 effectiveSampleSize is below minimumToCertify, not_certified otherwise), got ",
                &status.describe(),
            ]);
            return Err(Error::new(ErrorCode::InvalidArtifact, ErrorKind::Range, path, message));
        }
    }
    let chosen = inner.and_then(|c| c.get("chosenIndex")).and_then(Value::as_f64);
    if let (Some(chosen), Some(Value::Array(rows))) = (chosen, body.get("frontier")) {
        let position = rows.iter().position(|r| r.get("index").and_then(Value::as_f64) == Some(chosen));
        if let Some((i, copy)) = position.and_then(|i| rows.get(i)?.get("policy").map(|p| (i, p))) {
            let at = value::concat(&[&value::index_path("body.frontier", i), ".policy"]);
            if let Some(path) = first_difference(&artifact.policy, copy, "policy") {
                let copied = value::concat(&[&at, path.get("policy".len()..).unwrap_or("")]);
                return Err(disagreeing_copy(&path, &copied));
            }
        }
    }
    Ok(())
}

impl LoopPolicy {
    /// What an engine running this calibrated policy is built from: its config, and its
    /// composed stop policy when it has a condition tree (a config-only policy decides by
    /// the config, as an engine without a policy does).
    pub fn engine_parts(&self) -> (crate::loops::EarlyStoppingConfig, Option<crate::loops::StopPolicy>) {
        (self.config.clone(), self.when.is_some().then(|| self.stop_policy()))
    }
}

/// The binding entry of `EarlyStopping.fromCalibration`: `{config, policy, shadow,
/// shadowReason}` for an artifact (see [`enforced_from_artifact`]): the engine config, the
/// normalized stop policy when the enforced policy is a condition tree (else `null`), and the
/// calibrated policy in shadow (as a snapshot keeps it) with the reason, or `null`s when the
/// calibrated policy is enforced.
pub fn engine_from_artifact_value(artifact: &Value, now_ms: i64, sha256: &dyn Sha256) -> Result<Value> {
    let enforced = enforced_from_artifact(artifact, now_ms, sha256)?;
    let reason = enforced.shadow_reason().map_or(Value::Null, Value::string);
    let shadow = enforced.shadow.as_ref().map_or(Value::Null, |s| s.to_value());
    let (config, policy) = enforced.policy.engine_parts();
    Ok(Value::object(vec![
        ("config", config.to_value(Naming::Js)),
        ("policy", policy.map_or(Value::Null, |p| p.to_value())),
        ("shadow", shadow),
        ("shadowReason", reason),
    ]))
}

impl crate::loops::EarlyStopping {
    /// An engine enforcing a loop calibration artifact (a value or its JSON text; see
    /// [`enforced_from_artifact`]), checked against the host's clock `now_ms` and SHA-256
    /// `sha256`: the config, and the condition tree as the engine's stop policy when it has
    /// one, of the calibrated policy (promoted and current) or of the calibration's most
    /// conservative (with the calibrated one in shadow, [`shadow_reason`](Self::shadow_reason)
    /// saying why).
    pub fn from_calibration(artifact: &Value, now_ms: i64, sha256: &dyn Sha256) -> Result<Self> {
        let enforced = enforced_from_artifact(artifact, now_ms, sha256)?;
        let (config, policy) = enforced.policy.engine_parts();
        let mut engine = Self::new(config)?;
        engine.set_policy(policy);
        engine.set_shadow(enforced.shadow)?;
        Ok(engine)
    }
}
