//! What a live pyramid run is told to do besides the ADR's exit config: which policy
//! decides ([`RunPolicy`]), in which mode ([`RunMode`]), with which knobs and which outcome
//! model ([`RunOptions`], read from `{policy, mode, model, policyConfig}`).

use crate::artifact::HostServices;
use crate::pyramid::policy::config::PolicyConfig;
use crate::pyramid::policy::history::model_argument;
use crate::pyramid::policy::label::read_label;
use crate::pyramid::policy::model::OutcomeModel;
use crate::value::{self, field_name, named_enum, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

named_enum! {
    /// Which policy decides a live run.
    pub enum RunPolicy {
        /// The ADR's exit decision with the run's exit config (the default: unchanged).
        Adr = "adr",
        /// Run the layers in the given order; stop at the first failing layer; never skip on
        /// success.
        FailFast = "fail_fast",
        /// Fail fast, run the layers in the order the outcome model gives, and skip the rest
        /// on success only while the model bounds the risk within the budget.
        RiskBounded = "risk_bounded",
    }
}

named_enum! {
    /// Whether the policy's decisions are acted on.
    pub enum RunMode {
        /// The policy decides which layers run (the default).
        Enforced = "enforced",
        /// Every layer runs and the point where the policy would have exited is recorded as
        /// a receipt (the result's `shadow` key).
        Shadow = "shadow",
    }
}

pub(super) const POLICY: FieldName = FieldName::same("policy");
pub(super) const MODE: FieldName = FieldName::same("mode");
pub(super) const MODEL: FieldName = FieldName::same("model");
pub(super) const POLICY_CONFIG: FieldName = field_name!("policyConfig", "policy_config");
pub(super) const RUN_ID: FieldName = field_name!("runId", "run_id");
/// Why a run is in shadow mode although enforced was asked: written by [`RunOptions::to_value`]
/// (normalized options, snapshots) so the reason survives them.
pub(super) const SHADOW_REASON: FieldName = field_name!("shadowReason", "shadow_reason");
/// The run's user label (a branch, a runner pool): its receipts carry it, reports slice by it.
pub(super) const LABEL: FieldName = FieldName::same("label");
/// The time the run starts (milliseconds since the Unix epoch or RFC 3339), against which an
/// artifact policy's expiry is checked; a binding passes its clock when it is omitted.
pub(super) const NOW: FieldName = FieldName::same("now");

/// The option keys of a live run, as `{policy, mode, model, policyConfig, runId,
/// shadowReason, label, now}` spells them.
pub const RUN_OPTION_FIELDS: [FieldName; 8] = [POLICY, MODE, MODEL, POLICY_CONFIG, RUN_ID, SHADOW_REASON, LABEL, NOW];

/// A live run's policy, mode, knobs and model, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    /// Which policy decides.
    pub policy: RunPolicy,
    /// Whether its decisions are acted on.
    pub mode: RunMode,
    /// The policy's knobs: its preset with `policyConfig` merged over it (the `fail_fast`
    /// preset for the ADR, which reads none).
    pub config: PolicyConfig,
    /// The outcome history the policy decides from (empty when none was given).
    pub model: OutcomeModel,
    /// The run's id, written into its shadow-mode receipt (a CI build number, a commit).
    pub run_id: Option<String>,
    /// Why the run is in shadow mode although enforced was asked (an artifact not promoted,
    /// or expired).
    pub fallback: Option<String>,
    /// The run's user label, written into its shadow-mode receipt.
    pub label: Option<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            policy: RunPolicy::Adr,
            mode: RunMode::Enforced,
            config: PolicyConfig::FAIL_FAST,
            model: OutcomeModel::new(),
            run_id: None,
            fallback: None,
            label: None,
        }
    }
}

impl RunOptions {
    /// Options built in Rust: `policy` with its preset config, in enforced mode.
    pub fn new(policy: RunPolicy, model: OutcomeModel) -> Self {
        let config = PolicyConfig::preset(policy.as_str()).unwrap_or(PolicyConfig::FAIL_FAST);
        RunOptions { policy, mode: RunMode::Enforced, config, model, run_id: None, fallback: None, label: None }
    }

    /// Reads `{policy?, mode?, model?, policyConfig?}` (`null` for the defaults: the ADR,
    /// enforced); a key of `overrides` (a run's own options) replaces the same key of `base`
    /// (its controller's), so a controller's model can be replaced run by run. Errors name
    /// the key; `model` and `policyConfig` are refused with the ADR (it reads neither). The core has no clock: an enforced artifact policy
    /// needs `now` in the options (its expiry is checked at it), or the host's clock through
    /// [`RunOptions::from_values_at`]. Shadow mode with the ADR runs every layer and records
    /// where its exit decision would have exited.
    pub fn from_values(base: &Value, overrides: &Value, naming: Naming) -> Result<Self> {
        Self::from_values_at(base, overrides, naming, HostServices::default())
    }

    /// [`RunOptions::from_values`] with the host's clock (`host.clock_ms`, milliseconds since
    /// the Unix epoch), the time an artifact policy's expiry is checked at when the options
    /// give no `now`, and its SHA-256 (`host.sha256`), which checks that a promotion is the
    /// artifact's own (without one, a promoted artifact is refused). An enforced artifact
    /// that has expired runs in shadow mode, saying so.
    pub fn from_values_at(base: &Value, overrides: &Value, naming: Naming, host: HostServices<'_>) -> Result<Self> {
        let clock_ms = host.clock_ms;
        let base = reader(base, naming)?;
        let overrides = reader(overrides, naming)?;
        let get = |field: FieldName| -> Option<(&ObjectReader, &Value)> {
            [overrides.as_ref(), base.as_ref()].into_iter().flatten().find_map(|r| match r.get(field) {
                None | Some(Value::Null) => None,
                Some(v) => Some((r, v)),
            })
        };
        let mode = match get(MODE) {
            None => RunMode::Enforced,
            Some((r, _)) => RunMode::parse(r.choice(MODE, &RunMode::NAMES)?).unwrap_or(RunMode::Enforced),
        };
        let run_id = match get(RUN_ID) {
            None => None,
            Some((r, _)) => Some(r.string(RUN_ID)?.to_string()),
        };
        let label = match get(LABEL) {
            None => None,
            Some((r, v)) => Some(read_label(v, &r.path_of(LABEL), ErrorCode::InvalidConfig)?),
        };
        let now = match get(NOW) {
            None => None,
            Some((r, v)) => Some((r.path_of(NOW), crate::time::now_argument(v)?)),
        };
        // A calibration artifact as the policy: its policy, config and model; enforced only
        // once promoted (else shadow, and the result says why).
        if let Some((_, doc @ (Value::Object(_) | Value::String(_)))) = get(POLICY) {
            let is_name = matches!(doc, Value::String(s) if !s.trim_start().starts_with('{'));
            if !is_name {
                let artifact = crate::pyramid::policy::artifact::read_unchecked(doc)
                    .and_then(|artifact| match (host.sha256, &artifact.artifact.promotion) {
                        (Some(sha256), _) => artifact.artifact.check_promotion(sha256).map(|()| artifact),
                        (None, None) => Ok(artifact),
                        (None, Some(_)) => Err(Error::new(
                            ErrorCode::InvalidArtifact,
                            ErrorKind::Range,
                            "promotion",
                            "promotion cannot be checked without the host's SHA-256 (RunOptions::from_values_at)",
                        )),
                    })
                    .map_err(|e| e.nested(ErrorCode::InvalidArtifact, "policy"))?;
                if let Some((r, _)) = get(POLICY_CONFIG) {
                    return Err(Error::new(
                        ErrorCode::InvalidConfig,
                        ErrorKind::Range,
                        r.path_of(POLICY_CONFIG),
                        "policyConfig cannot be given with an artifact as the policy: the artifact's config is the calibrated one",
                    ));
                }
                let policy = RunPolicy::parse(&artifact.policy).unwrap_or(RunPolicy::RiskBounded);
                let model = match get(MODEL) {
                    None => artifact.model,
                    Some((_, doc)) => model_argument(doc, &artifact.config)?,
                };
                let now_ms = now.map(|(_, ms)| ms).or(clock_ms);
                if mode == RunMode::Enforced && now_ms.is_none() {
                    // No clock here and none given: enforcing without checking the expiry
                    // would trust a possibly stale artifact silently.
                    let message = "now is required with an enforced artifact policy when no clock is given \
                                   (milliseconds or RFC 3339): its expiry is checked at it";
                    return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Type, "now", message));
                }
                let expired = now_ms.filter(|ms| artifact.artifact.is_expired(*ms));
                let fallback = match (mode, expired) {
                    (RunMode::Shadow, _) => None,
                    (RunMode::Enforced, Some(ms)) => Some(value::concat(&[
                        "the artifact expired at ",
                        &artifact.artifact.expires_at,
                        " (now ",
                        &crate::time::iso_from_millis(ms),
                        "): running in shadow mode (calibrate again)",
                    ])),
                    (RunMode::Enforced, None) => artifact.artifact.promotion.is_none().then(|| {
                        "the artifact is not promoted (promote_pyramid_policy): running in shadow mode".to_string()
                    }),
                };
                let mode = if fallback.is_some() { RunMode::Shadow } else { mode };
                return Ok(RunOptions { policy, mode, config: artifact.config, model, run_id, fallback, label });
            }
        }
        if let Some((field, _)) = now {
            let message = "now is read only with a calibration artifact as the policy (its expiry is checked at it)";
            return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, field, message));
        }
        let policy = match get(POLICY) {
            None => RunPolicy::Adr,
            Some((r, _)) => RunPolicy::parse(r.choice(POLICY, &RunPolicy::NAMES)?).unwrap_or(RunPolicy::Adr),
        };
        let preset = PolicyConfig::preset(policy.as_str());
        let (model, config) = (get(MODEL), get(POLICY_CONFIG));
        let Some(preset) = preset else {
            // The ADR: the exit config decides; a model or policy config would be ignored.
            if let Some((r, _)) = model.or(config) {
                let field = if model.is_some() { MODEL } else { POLICY_CONFIG };
                return Err(not_read_by_adr(&r.path_of(field)));
            }
            // In shadow mode every layer runs and the ADR's would-be exit is the receipt.
            return Ok(RunOptions { mode, run_id, label, ..RunOptions::default() });
        };
        let config = match config {
            None => preset,
            Some((r, partial)) => preset.merged(partial, naming, &r.path_of(POLICY_CONFIG))?,
        };
        let model = match model {
            None => OutcomeModel::new(),
            Some((_, doc)) => model_argument(doc, &config)?,
        };
        let fallback = match get(SHADOW_REASON) {
            Some((r, _)) if mode == RunMode::Shadow => Some(r.string(SHADOW_REASON)?.to_string()),
            _ => None,
        };
        Ok(RunOptions { policy, mode, config, model, run_id, fallback, label })
    }

    /// The options object (`{policy, mode, policyConfig, model, runId, shadowReason}`, and
    /// `label` when given; keys spelled by `naming`, the model document in the JS spelling as
    /// everywhere). `now` is not kept: the fallback it decided is (`shadowReason`).
    pub fn to_value(&self, naming: Naming) -> Value {
        // The ADR reads neither a policy config nor a model (and refuses them): null.
        let adr = self.policy == RunPolicy::Adr;
        let mut entries = vec![
            (POLICY.spelled(naming).into(), Value::string(self.policy.as_str())),
            (MODE.spelled(naming).into(), Value::string(self.mode.as_str())),
            (POLICY_CONFIG.spelled(naming).into(), if adr { Value::Null } else { self.config.to_value(naming) }),
            (MODEL.spelled(naming).into(), if adr { Value::Null } else { self.model.to_value(Naming::Js) }),
            (RUN_ID.spelled(naming).into(), self.run_id.as_deref().map_or(Value::Null, Value::string)),
            (SHADOW_REASON.spelled(naming).into(), self.fallback.as_deref().map_or(Value::Null, Value::string)),
        ];
        if let Some(label) = &self.label {
            entries.push((LABEL.spelled(naming).into(), Value::string(label.as_str())));
        }
        Value::Object(entries)
    }
}

fn reader(options: &Value, naming: Naming) -> Result<Option<ObjectReader<'_>>> {
    if matches!(options, Value::Null) {
        return Ok(None);
    }
    let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
    reader.reject_unknown(&RUN_OPTION_FIELDS)?;
    Ok(Some(reader))
}

fn not_read_by_adr(field: &str) -> Error {
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        field,
        value::concat(&[
            field,
            " is read only by the 'fail_fast' and 'risk_bounded' policies; with policy 'adr' the exit config decides",
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(entries: Vec<(&str, Value)>) -> Value {
        Value::object(entries)
    }

    #[test]
    fn defaults_and_overrides() {
        let adr = RunOptions::from_values(&Value::Null, &Value::Null, Naming::Js).unwrap();
        assert_eq!(adr, RunOptions::default());
        let base = options(vec![("policy", Value::string("risk_bounded"))]);
        let over = options(vec![("policyConfig", options(vec![("riskBudget", Value::Number(0.02))]))]);
        let o = RunOptions::from_values(&base, &over, Naming::Js).unwrap();
        assert_eq!(
            (o.policy, o.mode, o.config.risk_budget, o.config.reorder),
            (RunPolicy::RiskBounded, RunMode::Enforced, 0.02, true)
        );
        let back = RunOptions::from_values(&o.to_value(Naming::Snake), &Value::Null, Naming::Snake).unwrap();
        assert_eq!(back, o);
        // An override replaces its key only.
        let ff =
            RunOptions::from_values(&base, &options(vec![("policy", Value::string("fail_fast"))]), Naming::Js).unwrap();
        assert_eq!(ff.config, PolicyConfig::FAIL_FAST);
    }

    #[test]
    fn bad_options_name_their_key() {
        let check = |o: Value, field: &str, code: &str| {
            let e = RunOptions::from_values(&o, &Value::Null, Naming::Js).unwrap_err();
            assert_eq!((e.code(), e.field()), (code, field), "{}", e.message());
            e
        };
        check(options(vec![("policy", Value::string("fastest"))]), "policy", "invalid_config");
        // The ADR runs in shadow mode too (every layer runs; its would-be exit is the receipt).
        let adr = RunOptions::from_values(&options(vec![("mode", Value::string("shadow"))]), &Value::Null, Naming::Js);
        assert_eq!(adr.map(|o| (o.policy, o.mode)), Ok((RunPolicy::Adr, RunMode::Shadow)));
        check(
            options(vec![("policy", Value::string("fail_fast")), ("runId", Value::Number(3.0))]),
            "runId",
            "invalid_config",
        );
        check(options(vec![("mode", Value::string("loud"))]), "mode", "invalid_config");
        check(options(vec![("model", Value::Number(1.0))]), "model", "invalid_config");
        check(
            options(vec![("policy", Value::string("adr")), ("policyConfig", options(vec![]))]),
            "policyConfig",
            "invalid_config",
        );
        check(options(vec![("polcy", Value::Null)]), "polcy", "unknown_option");
        let bad_model = options(vec![("policy", Value::string("fail_fast")), ("model", Value::Number(1.0))]);
        check(bad_model, "model", "invalid_snapshot");
        let bad_config = options(vec![
            ("policy", Value::string("risk_bounded")),
            ("policyConfig", options(vec![("riskBudget", Value::Number(2.0))])),
        ]);
        check(bad_config, "policyConfig.riskBudget", "invalid_config");
    }
}
