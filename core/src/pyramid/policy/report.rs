//! Why a policy run did what it did ([`PolicyReport`], the result's `policy` key): the
//! policy, its knobs, the bound before each layer it ran and at its stop, the model's
//! counts it decided from, and what the run teaches the model.

use crate::pyramid::policy::config::PolicyConfig;
use crate::pyramid::policy::model::ObservedLayer;
use crate::pyramid::policy::options::{RunMode, RunPolicy, MODE, POLICY};
use crate::value::snapshot;
use crate::value::{field_name, FieldName, Naming, ObjectBuilder, ObjectReader, Value};
use crate::value::{ErrorCode, Result};

const CONFIG: FieldName = FieldName::same("config");
const RISK: FieldName = FieldName::same("risk");
const STEPS: FieldName = FieldName::same("steps");
const SKIPPED: FieldName = FieldName::same("skipped");
const COUNTS: FieldName = FieldName::same("counts");
const RAN: FieldName = FieldName::same("ran");
const LAYER: FieldName = FieldName::same("layer");
const NAME: FieldName = FieldName::same("name");
const TRIALS: FieldName = FieldName::same("trials");
const FAILURES: FieldName = FieldName::same("failures");
const COST_MS: FieldName = field_name!("costMs", "cost_ms");
const FAILED: FieldName = FieldName::same("failed");
const DURATION_MS: FieldName = field_name!("durationMs", "duration_ms");

/// The report's keys, in the order [`PolicyReport::to_value`] writes them.
pub const POLICY_REPORT_FIELDS: [FieldName; 8] = [POLICY, MODE, CONFIG, RISK, STEPS, SKIPPED, COUNTS, RAN];

/// One layer a policy run ran, and the bound it was chosen under.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyStep {
    /// The layer's index in the pyramid.
    pub layer: usize,
    /// The upper bound on P(some layer not yet run fails | what ran passed) when this layer
    /// was chosen: over the budget, or it would not have run. `None` when skipping was not
    /// considered (the first layer, `fail_fast`, or a zero budget).
    pub risk: Option<f64>,
}

/// What the model knew of one layer when the run started.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerCounts {
    /// The layer's index in the pyramid.
    pub layer: usize,
    /// Its name (the model's key).
    pub name: String,
    /// Forgetting-weighted runs in which it ran after every earlier layer passed.
    pub trials: f64,
    /// Of those, forgetting-weighted failures.
    pub failures: f64,
    /// The model's mean cost, if it has one.
    pub cost_ms: Option<f64>,
}

/// Why a `fail_fast` / `risk_bounded` run did what it did.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyReport {
    /// The policy that decided.
    pub policy: RunPolicy,
    /// Its mode.
    pub mode: RunMode,
    /// Its knobs (`riskBudget` is the budget the bound was held to).
    pub config: PolicyConfig,
    /// The bound that allowed a `risk_bounded` stop (`None` for any other stop).
    pub risk: Option<f64>,
    /// One per layer run, in run order.
    pub steps: Vec<PolicyStep>,
    /// The layers that never ran, in pyramid order.
    pub skipped: Vec<usize>,
    /// The model's counts for every layer of the pyramid, in pyramid order.
    pub counts: Vec<LayerCounts>,
    /// What the run teaches the model (the layers that ran, in run order: the `ran` of
    /// `pyramid_policy_update`).
    pub ran: Vec<ObservedLayer>,
}

impl PolicyReport {
    /// The report object (keys spelled by `naming`).
    pub fn to_value(&self, naming: Naming) -> Value {
        let steps = self
            .steps
            .iter()
            .map(|s| ObjectBuilder::new().number(LAYER.js(), s.layer as f64).opt_number(RISK.js(), s.risk).build());
        let counts = self.counts.iter().map(|c| {
            ObjectBuilder::new()
                .number(LAYER.js(), c.layer as f64)
                .string(NAME.js(), &c.name)
                .number(TRIALS.js(), c.trials)
                .number(FAILURES.js(), c.failures)
                .opt_number(COST_MS.spelled(naming), c.cost_ms)
                .build()
        });
        let ran = self.ran.iter().map(|l| l.to_value(naming));
        ObjectBuilder::new()
            .string(POLICY.js(), self.policy.as_str())
            .string(MODE.js(), self.mode.as_str())
            .value(CONFIG.js(), self.config.to_value(naming))
            .opt_number(RISK.js(), self.risk)
            .value(STEPS.js(), Value::Array(steps.collect()))
            .value(SKIPPED.js(), Value::Array(self.skipped.iter().map(|&i| Value::Number(i as f64)).collect()))
            .value(COUNTS.js(), Value::Array(counts.collect()))
            .value(RAN.js(), Value::Array(ran.collect()))
            .build()
    }

    /// Reads a report as [`PolicyReport::to_value`] writes it with `naming` (code
    /// `invalid_snapshot`, fields named under `path`).
    pub fn from_value(value: &Value, naming: Naming, path: &str) -> Result<Self> {
        let r = snapshot::result_object(value, path, "policy", naming, &POLICY_REPORT_FIELDS)?;
        let config_path = r.path_of(CONFIG);
        let config = r.get(CONFIG).unwrap_or(&Value::Null);
        ObjectReader::new(config, &config_path, "config", naming, ErrorCode::InvalidSnapshot)?;
        let config = PolicyConfig::FAIL_FAST
            .merged(config, naming, &config_path)
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let steps = snapshot::items(&r, STEPS, |item, at| {
            let s = snapshot::result_object(item, at, "step", naming, &[LAYER, RISK])?;
            Ok(PolicyStep { layer: snapshot::index(&s, LAYER)?, risk: snapshot::nullable_number(&s, RISK, 0.0, 1.0)? })
        })?;
        let skipped = snapshot::items(&r, SKIPPED, |item, at| {
            let n = crate::value::integer_argument(
                item,
                at,
                ErrorCode::InvalidSnapshot,
                0,
                crate::value::MAX_SAFE_INTEGER,
            )?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })?;
        let counts = snapshot::items(&r, COUNTS, |item, at| {
            let c = snapshot::result_object(item, at, "count", naming, &[LAYER, NAME, TRIALS, FAILURES, COST_MS])?;
            let trials = c.number(TRIALS, 0.0, f64::MAX)?;
            Ok(LayerCounts {
                layer: snapshot::index(&c, LAYER)?,
                name: c.string(NAME)?.to_string(),
                trials,
                failures: c.number(FAILURES, 0.0, trials)?,
                cost_ms: snapshot::nullable_number(&c, COST_MS, 0.0, f64::MAX)?,
            })
        })?;
        let ran = snapshot::items(&r, RAN, |item, at| {
            let l = snapshot::result_object(item, at, "layer", naming, &[NAME, FAILED, DURATION_MS])?;
            Ok(ObservedLayer {
                name: l.string(NAME)?.to_string(),
                failed: l.boolean(FAILED)?,
                duration_ms: l.opt_number(DURATION_MS, 0.0, f64::MAX)?,
            })
        })?;
        Ok(PolicyReport {
            policy: snapshot::pick(&r, POLICY, &RunPolicy::NAMES, RunPolicy::parse)?,
            mode: snapshot::pick(&r, MODE, &RunMode::NAMES, RunMode::parse)?,
            config,
            risk: snapshot::nullable_number(&r, RISK, 0.0, 1.0)?,
            steps,
            skipped,
            counts,
            ran,
        })
    }
}
