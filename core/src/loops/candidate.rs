//! The candidate of a loop's shadow mode and its state beside the enforced policy (the
//! engine keeps one, so snapshots and every binding carry it); the receipts it leads to are
//! in [`crate::loops::shadow`].

use crate::loops::analytics::{AnalyticsInput, IterationAnalytics};
use crate::loops::decision::WouldStop;
use crate::loops::policy::{decide_policy, policy_decision, PolicyState, StopCondition};
use crate::loops::presets::ReturnPolicy;
use crate::loops::records::IterationRecord;
use crate::loops::replay::LoopPolicy;
use crate::loops::Verdict;
use crate::value::{Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectBuilder, ObjectReader, Result, Value};

/// The argument every shadow error names.
pub const SHADOW: &str = "shadow";

/// The name receipts count a calibration artifact's policy under.
pub const CALIBRATED: &str = "calibrated";

/// The candidate a shadow runs: its policy, the name its receipts are counted under
/// (`policy`: the preset's name, `calibrated` for an artifact's, `custom` otherwise) and the
/// digest of the artifact it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ShadowCandidate {
    /// The policy.
    pub policy: LoopPolicy,
    /// The name receipts count it under.
    pub name: String,
    /// SHA-256 of the calibration artifact it came from.
    pub artifact_sha256: Option<String>,
    /// Why this candidate runs in shadow rather than enforced, when an engine put it there
    /// itself (an unpromoted or expired calibration artifact: [`enforced_from_artifact`](crate::loops::replay::enforced_from_artifact)).
    pub reason: Option<String>,
}

impl ShadowCandidate {
    /// `{name, policy, artifactSha256}` (the policy in the JS spelling), then `reason` when
    /// the engine put the candidate in shadow itself, as snapshots keep it.
    pub fn to_value(&self) -> Value {
        let mut b = ObjectBuilder::new();
        b.string("name", &self.name)
            .value("policy", self.policy.to_value(Naming::Js))
            .value("artifactSha256", self.artifact_sha256.as_deref().map_or(Value::Null, Value::string));
        if let Some(reason) = &self.reason {
            b.string("reason", reason);
        }
        b.build()
    }

    /// Reads [`ShadowCandidate::to_value`]'s value back (`invalid_snapshot` under `path`).
    pub fn from_snapshot(value: &Value, path: &str) -> Result<Self> {
        const FIELDS: [FieldName; 4] = FieldName::same_all(["name", "policy", "artifactSha256", "reason"]);
        let r = ObjectReader::new(value, path, "shadow", Naming::Js, ErrorCode::InvalidSnapshot)?;
        r.reject_unknown(&FIELDS)?;
        let [name, policy, artifact, reason] = FIELDS;
        let name = r.string(name)?.to_string();
        let policy_path = r.path_of(policy);
        let policy = LoopPolicy::from_value(r.get(policy).unwrap_or(&Value::Null), Naming::Js)
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, &policy_path))?;
        let artifact_sha256 = match r.get(artifact) {
            None | Some(Value::Null) => None,
            Some(_) => Some(r.string(artifact)?.to_string()),
        };
        let reason = match r.get(reason) {
            None => None,
            Some(_) => Some(r.string(reason)?.to_string()),
        };
        Ok(ShadowCandidate { policy, name, artifact_sha256, reason })
    }
}

/// Whether `when` stops for certain once enough is spent: a `max_iterations` or budget
/// condition reachable through `any` (or a gate, or a `k_of` needing one).
pub fn holds_cap(when: &StopCondition) -> bool {
    match when {
        StopCondition::MaxIterations { .. } | StopCondition::Budget { .. } => true,
        StopCondition::Any(children) => children.iter().any(holds_cap),
        StopCondition::KOf { k: 1, of } => of.iter().any(holds_cap),
        StopCondition::NotBefore { then, .. } => holds_cap(then),
        _ => false,
    }
}

/// Refuses a shadow beside an enforced policy (`when`) without a hard cap: the candidate
/// never stops the loop, so the enforced policy alone must end it (`invalid_config` naming
/// `shadow`).
pub fn check_shadow_cap(when: &StopCondition) -> Result<()> {
    if holds_cap(when) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        SHADOW,
        "shadow needs an enforced policy with a hard cap (max_iterations, maxIterations or a budget such as \
         maxTotalTokens): the candidate never stops the loop, so the enforced policy must",
    ))
}

/// The error for a shadow candidate given beside a calibration artifact whose calibrated
/// policy already runs in shadow (not promoted, or expired): `invalid_config` naming `shadow`.
pub fn shadow_taken() -> Error {
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        SHADOW,
        "shadow cannot be given with a calibration artifact that is not promoted or has expired: its calibrated \
         policy already runs in shadow beside its most conservative one",
    )
}

/// A candidate deciding beside the enforced policy, one record at a time, until it fires.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopShadow {
    candidate: ShadowCandidate,
    when: StopCondition,
    state: PolicyState,
    analytics: Option<IterationAnalytics>,
    would_stop: Option<WouldStop>,
    observed: usize,
}

impl LoopShadow {
    /// A shadow of `candidate`, nothing observed yet.
    pub fn new(candidate: ShadowCandidate) -> Self {
        let when = candidate.policy.stop_policy().when;
        let state = PolicyState::new(&when);
        let analytics = candidate.policy.analytics.as_ref().and_then(|c| IterationAnalytics::new(c.clone()).ok());
        LoopShadow { candidate, when, state, analytics, would_stop: None, observed: 0 }
    }

    /// Folds in the records of `history` not observed yet; a history shorter than what was
    /// observed (a reset) starts the candidate over.
    pub fn sync(&mut self, history: &[IterationRecord]) {
        if history.len() < self.observed {
            *self = LoopShadow::new(self.candidate.clone());
        }
        for record in history.get(self.observed..).unwrap_or(&[]) {
            self.observe(record);
        }
    }

    /// The candidate.
    pub fn candidate(&self) -> &ShadowCandidate {
        &self.candidate
    }

    /// Where the candidate first fired (`None` while it has not).
    pub fn would_stop(&self) -> Option<&WouldStop> {
        self.would_stop.as_ref()
    }

    /// Folds one (validated) record in and lets the candidate decide; nothing once it fired.
    pub fn observe(&mut self, record: &IterationRecord) {
        self.observed += 1;
        if self.would_stop.is_some() {
            return;
        }
        let config = &self.candidate.policy.config;
        let o = record.observation;
        self.state.observe(o, record.usage.as_deref(), record.behavior.as_deref(), config.min_quality_threshold);
        if let Some(a) = self.analytics.as_mut() {
            let mut input = AnalyticsInput::new(o.iteration, o.quality_score, o.verification_status);
            input.usage = record.usage.as_deref().copied().unwrap_or_default();
            a.record_checked(input);
        }
        let analytics = self.analytics.as_ref();
        let source = analytics.map(|a| move || Ok::<_, std::convert::Infallible>(a.detect_diminishing_returns()));
        let verdict = match decide_policy(&self.when, &self.state, source) {
            Ok(v) => v,
            Err(never) => match never {},
        };
        if !matches!(verdict.verdict, Verdict::Stop(_)) {
            return;
        }
        let decision = policy_decision(config, &self.state, verdict);
        let returned = match self.candidate.policy.returns {
            ReturnPolicy::Best => self.state.best.get().unwrap_or((o.iteration, o.quality_score)),
            ReturnPolicy::Last => (o.iteration, o.quality_score),
        };
        self.would_stop =
            Some(WouldStop { iteration: o.iteration, trigger: decision.trigger, reason: decision.reason, returned });
    }
}
