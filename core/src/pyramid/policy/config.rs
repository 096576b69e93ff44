//! The policy's knobs: [`PolicyConfig`] and its presets, `fail_fast` and `risk_bounded`.

use crate::value::{field_name, FieldName, Naming, ObjectReader, Value};
use crate::value::{ErrorCode, Result};

pub(super) const CODE: ErrorCode = ErrorCode::InvalidConfig;

const RISK_BUDGET: FieldName = field_name!("riskBudget", "risk_budget");

const CONFIDENCE: FieldName = FieldName::same("confidence");

const PRIOR_FAILURES: FieldName = field_name!("priorFailures", "prior_failures");

const PRIOR_PASSES: FieldName = field_name!("priorPasses", "prior_passes");

const REORDER: FieldName = FieldName::same("reorder");

const SKIP_ON_SUCCESS: FieldName = field_name!("skipOnSuccess", "skip_on_success");

const FORGETTING: FieldName = FieldName::same("forgetting");

/// Every policy config key.
pub const POLICY_CONFIG_FIELDS: [FieldName; 7] =
    [RISK_BUDGET, CONFIDENCE, PRIOR_FAILURES, PRIOR_PASSES, REORDER, SKIP_ON_SUCCESS, FORGETTING];

/// The policy's knobs.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyConfig {
    /// Largest bound on P(some skipped layer fails | what ran passed) at which the
    /// remaining layers are skipped; 0..=1 (0 never skips).
    pub risk_budget: f64,
    /// Confidence of the upper bound, in [0.5, 1).
    pub confidence: f64,
    /// Beta prior pseudo-failures, > 0.
    pub prior_failures: f64,
    /// Beta prior pseudo-passes, > 0.
    pub prior_passes: f64,
    /// Run layers by failure probability per expected cost (only for independent layers).
    pub reorder: bool,
    /// Whether a green prefix may ever skip the rest.
    pub skip_on_success: bool,
    /// Weight kept by a layer's past counts each time it is observed again, in (0, 1].
    pub forgetting: f64,
}

impl PolicyConfig {
    /// `fail_fast`: run in the given order, stop at the first failure, never skip on success.
    pub const FAIL_FAST: PolicyConfig = PolicyConfig {
        risk_budget: 0.0,
        confidence: 0.95,
        prior_failures: 0.5,
        prior_passes: 0.5,
        reorder: false,
        skip_on_success: false,
        forgetting: 0.998,
    };
    /// `risk_bounded`: fail fast, reorder by failure probability per cost, and skip on
    /// success while the 95% bound on missing a failure stays within 1%.
    pub const RISK_BOUNDED: PolicyConfig = PolicyConfig {
        risk_budget: 0.01,
        confidence: 0.95,
        prior_failures: 0.5,
        prior_passes: 0.5,
        reorder: true,
        skip_on_success: true,
        forgetting: 0.998,
    };

    /// The preset called `name` (`fail_fast`, `risk_bounded`).
    pub fn preset(name: &str) -> Option<PolicyConfig> {
        match name {
            "fail_fast" => Some(PolicyConfig::FAIL_FAST),
            "risk_bounded" => Some(PolicyConfig::RISK_BOUNDED),
            _ => None,
        }
    }

    /// Merges a partial config object over `self` (`null` merges nothing); errors are
    /// rooted at `path`.
    pub fn merged(&self, options: &Value, naming: Naming, path: &str) -> Result<Self> {
        if matches!(options, Value::Null) {
            return Ok(self.clone());
        }
        let reader = ObjectReader::new(options, path, "config", naming, CODE)?;
        reader.reject_unknown(&POLICY_CONFIG_FIELDS)?;
        let mut c = self.clone();
        if reader.get(RISK_BUDGET).is_some() {
            c.risk_budget = reader.number(RISK_BUDGET, 0.0, 1.0)?;
        }
        if reader.get(CONFIDENCE).is_some() {
            c.confidence = reader.number(CONFIDENCE, 0.5, 1.0)?;
            if c.confidence >= 1.0 {
                return Err(reader.range_error(CONFIDENCE, "a finite number >= 0.5 and < 1", &Value::Number(1.0)));
            }
        }
        for (field, slot) in [(PRIOR_FAILURES, &mut c.prior_failures), (PRIOR_PASSES, &mut c.prior_passes)] {
            if let Some(got) = reader.get(field) {
                let v = reader.number(field, 0.0, 1e6)?;
                if v <= 0.0 {
                    return Err(reader.range_error(field, "a finite number > 0 and <= 1000000", got));
                }
                *slot = v;
            }
        }
        if reader.get(REORDER).is_some() {
            c.reorder = reader.boolean(REORDER)?;
        }
        if reader.get(SKIP_ON_SUCCESS).is_some() {
            c.skip_on_success = reader.boolean(SKIP_ON_SUCCESS)?;
        }
        if let Some(got) = reader.get(FORGETTING) {
            let v = reader.number(FORGETTING, 0.0, 1.0)?;
            if v <= 0.0 {
                return Err(reader.range_error(FORGETTING, "a finite number > 0 and <= 1", got));
            }
            c.forgetting = v;
        }
        Ok(c)
    }

    /// Checks a config built in Rust (same rules as the host-value path).
    pub fn validate(&self) -> Result<()> {
        PolicyConfig::FAIL_FAST.merged(&self.to_value(Naming::Snake), Naming::Snake, "").map(|_| ())
    }

    /// The config object.
    pub fn to_value(&self, naming: Naming) -> Value {
        Value::Object(vec![
            (RISK_BUDGET.spelled(naming).into(), Value::Number(self.risk_budget)),
            (CONFIDENCE.spelled(naming).into(), Value::Number(self.confidence)),
            (PRIOR_FAILURES.spelled(naming).into(), Value::Number(self.prior_failures)),
            (PRIOR_PASSES.spelled(naming).into(), Value::Number(self.prior_passes)),
            (REORDER.spelled(naming).into(), Value::Bool(self.reorder)),
            (SKIP_ON_SUCCESS.spelled(naming).into(), Value::Bool(self.skip_on_success)),
            (FORGETTING.spelled(naming).into(), Value::Number(self.forgetting)),
        ])
    }
}
