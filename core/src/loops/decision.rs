//! What a decision answers: [`StoppingDecision`] (with the state of each configured budget,
//! [`BudgetStatus`]) and the summary of a loop ([`StoppingSummary`]), each written and read
//! back.

use crate::loops::behavior::{Detection, Effect, InterventionLevel};
use crate::loops::config::EarlyStoppingConfig;
use crate::loops::details::StoppingDetails;
use crate::loops::policy::ConditionKind;
use crate::loops::vocabulary::{Budget, Trigger, VerificationStatus};
use crate::value::shape::{self, FieldType, TypedField};
use crate::value::snapshot;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{ErrorCode, Result};

// The keys of the objects this file writes (each writer's `KEYS` lists them in order).
const STOP: &str = "stop";
const REASON: &str = "reason";
const CONFIDENCE: &str = "confidence";
const TRIGGER: &str = "trigger";
const DETAILS: &str = "details";
const BEST_ITERATION: &str = "best_iteration";
const BEST_QUALITY_SCORE: &str = "best_quality_score";
const BUDGETS: &str = "budgets";
const FIRED: &str = "fired";
const INTERVENTIONS: &str = "interventions";
const WOULD_STOP: &str = "would_stop";
const ITERATION: &str = "iteration";
const RETURNED_ITERATION: &str = "returned_iteration";
const RETURNED_QUALITY: &str = "returned_quality";
const LEVEL: &str = "level";
const DETECTION: &str = "detection";
const CONDITION: &str = "condition";
const PATH: &str = "path";
const BUDGET: &str = "budget";
const LIMIT: &str = "limit";
const OBSERVED: &str = "observed";
const RECORDS_WITHOUT_VALUE: &str = "records_without_value";
const EXHAUSTED: &str = "exhausted";
const TOTAL_ITERATIONS: &str = "total_iterations";
const STOPPED_EARLY: &str = "stopped_early";
const STOPPING_TRIGGER: &str = "stopping_trigger";
const STOPPING_REASON: &str = "stopping_reason";
const STOPPING_CONFIDENCE: &str = "stopping_confidence";
const FINAL_QUALITY: &str = "final_quality";
const FINAL_CONFIDENCE: &str = "final_confidence";
const FINAL_VERIFICATION: &str = "final_verification";
const CONFIG: &str = "config";

/// The reason of the empty summary.
const NO_ITERATIONS_COMPLETED: &str = "No iterations completed";

const CODE: ErrorCode = ErrorCode::InvalidSnapshot;

/// Upstream's `StoppingDecision`, plus the best-iteration extras.
#[derive(Clone, Debug, PartialEq)]
pub struct StoppingDecision {
    /// Whether to stop.
    pub stop: bool,
    /// Why, as upstream words it.
    pub reason: String,
    /// Confidence in the decision.
    pub confidence: f64,
    /// Which criterion fired.
    pub trigger: Trigger,
    /// Present on stops (upstream's `details`).
    pub details: Option<StoppingDetails>,
    /// `(iteration, quality)` of the best record so far.
    pub best: Option<(u64, f64)>,
    /// The state of every configured budget (empty when none is configured).
    pub budgets: Vec<BudgetStatus>,
    /// Under a stop policy only: the conditions that fired (empty when it goes on); `None`
    /// without a policy, so a default decision keeps upstream's keys.
    pub fired: Option<Vec<FiredCondition>>,
    /// Under a stop policy with detector conditions only: each detection evaluation reached,
    /// with its intervention (written only when there is one, so other decisions keep their keys).
    pub interventions: Vec<ConditionIntervention>,
    /// In shadow mode only: where the candidate policy first fired (written only once it
    /// has, so other decisions keep their keys).
    pub would_stop: Option<WouldStop>,
}

/// Where a shadow candidate would have stopped the loop: the iteration it first fired at,
/// its trigger and reason, and what it would have returned (iteration, quality 0..=100).
#[derive(Clone, Debug, PartialEq)]
pub struct WouldStop {
    /// The iteration it fired at.
    pub iteration: u64,
    /// Its trigger.
    pub trigger: Trigger,
    /// Its reason, as the engine words it.
    pub reason: String,
    /// The iteration it would have returned and its quality (0..=100).
    pub returned: (u64, f64),
}

impl WouldStop {
    /// The keys of its object, in the order [`WouldStop::to_value`] writes them.
    pub const KEYS: [&'static str; 5] = [ITERATION, TRIGGER, REASON, RETURNED_ITERATION, RETURNED_QUALITY];

    /// `{iteration, trigger, reason, returned_iteration, returned_quality}`.
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new()
            .number(ITERATION, self.iteration as f64)
            .string(TRIGGER, self.trigger.as_str())
            .string(REASON, &self.reason)
            .number(RETURNED_ITERATION, self.returned.0 as f64)
            .number(RETURNED_QUALITY, self.returned.1)
            .build()
    }

    /// Reads one as [`WouldStop::to_value`] writes it.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        const FIELDS: [FieldName; 5] = FieldName::same_all(WouldStop::KEYS);
        let r = ObjectReader::new(value, path, "would_stop", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        r.reject_unknown(&FIELDS)?;
        let [iteration, trigger, reason, returned_iteration, returned_quality] = FIELDS;
        Ok(WouldStop {
            iteration: r.integer(iteration, 1, MAX_SAFE_INTEGER)?,
            trigger: snapshot::pick(&r, trigger, &Trigger::NAMES, Trigger::parse)?,
            reason: r.string(reason)?.to_string(),
            returned: (r.integer(returned_iteration, 1, MAX_SAFE_INTEGER)?, r.number(returned_quality, 0.0, 100.0)?),
        })
    }
}

/// A detection of a detector condition in a decision, with the intervention it calls for:
/// the level ([`determine_level`](crate::loops::behavior::determine_level)) and what the
/// host does at that level (the warning text, the strategy override, the approval, the
/// abort reason), and whether the condition stopped the loop.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionIntervention {
    /// The condition's kind.
    pub condition: ConditionKind,
    /// Its path in the policy's tree.
    pub path: String,
    /// Whether its level reached the condition's `stop_at` (the condition fired).
    pub stop: bool,
    /// The detection.
    pub detection: Detection,
    /// The intervention's level and keys.
    pub effect: Effect,
}

impl ConditionIntervention {
    /// The keys of its object, in the order [`ConditionIntervention::to_value`] writes them,
    /// before the level's own keys (`action`, `warning`, `strategy_override`,
    /// `requires_approval`, `abort_reason`, as an intervention writes them).
    pub const KEYS: [&'static str; 6] = [CONDITION, PATH, LEVEL, STOP, REASON, DETECTION];

    /// The intervention's level.
    pub fn level(&self) -> InterventionLevel {
        self.effect.level()
    }

    /// `{condition, path, level, stop, reason, detection, <the level's keys>}` (snake_case).
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.string(CONDITION, self.condition.as_str())
            .string(PATH, &self.path)
            .string(LEVEL, self.level().as_str())
            .boolean(STOP, self.stop)
            .string(REASON, self.detection.message.as_deref().unwrap_or_default())
            .value(DETECTION, self.detection.to_value(Naming::Snake));
        self.effect.push_keys(&mut o, Naming::Snake);
        o.build()
    }

    /// Reads one as [`ConditionIntervention::to_value`] writes it (the level's keys as
    /// written: the texts are not made again here, which would link the intervention texts
    /// into the size-budgeted WebAssembly engines module).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        const FIELDS: [FieldName; 6] = FieldName::same_all(ConditionIntervention::KEYS);
        let r = ObjectReader::new(value, path, "intervention", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        let [condition, at, level, stop, reason, detection] = FIELDS;
        let condition = snapshot::pick(&r, condition, &ConditionKind::NAMES, ConditionKind::parse)?;
        let level = snapshot::pick(&r, level, &InterventionLevel::NAMES, InterventionLevel::parse)?;
        let text = |key: &'static str| r.string(FieldName::same(key)).map(str::to_string);
        let approval = || r.boolean(FieldName::same("requires_approval"));
        let effect = match level {
            InterventionLevel::Log => Effect::Log { action: text("action")? },
            InterventionLevel::Warn => Effect::Warn { warning: text("warning")? },
            InterventionLevel::Redirect => Effect::Redirect { strategy_override: text("strategy_override")? },
            InterventionLevel::Pause => Effect::Pause { requires_approval: approval()? },
            InterventionLevel::Abort => {
                Effect::Abort { requires_approval: approval()?, abort_reason: Some(text("abort_reason")?) }
            }
        };
        let detection_at = r.path_of(detection);
        let detection = Detection::from_value(
            r.get(detection).unwrap_or(&Value::Null),
            &detection_at,
            Naming::Snake,
            ErrorCode::InvalidSnapshot,
        )?;
        let read = ConditionIntervention {
            condition,
            path: r.string(at)?.to_string(),
            stop: r.boolean(stop)?,
            detection,
            effect,
        };
        if read.to_value() != *value {
            return Err(snapshot::inconsistent(&r, reason, "must be the detection's message, keys as written"));
        }
        Ok(read)
    }
}

/// One condition of a stop policy that fired in a decision: its kind, where it sits in the
/// policy's tree (`any[1]`, `all[0].of[2]`), its reason and its details.
#[derive(Clone, Debug, PartialEq)]
pub struct FiredCondition {
    /// The condition's kind (its code).
    pub condition: ConditionKind,
    /// Its path in the policy's tree.
    pub path: String,
    /// The reason it gives, worded as the engine words that trigger.
    pub reason: String,
    /// The stop's details, as the engine reports that trigger's.
    pub details: StoppingDetails,
}

impl FiredCondition {
    /// The keys of a fired condition's object, in the order [`FiredCondition::to_value`] writes them.
    pub const KEYS: [&'static str; 4] = [CONDITION, PATH, REASON, DETAILS];

    /// `{condition, path, reason, details}`.
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new()
            .string(CONDITION, self.condition.as_str())
            .string(PATH, &self.path)
            .string(REASON, &self.reason)
            .value(DETAILS, self.details.to_value())
            .build()
    }

    /// Reads a fired condition as [`FiredCondition::to_value`] writes it.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        const FIELDS: [FieldName; 4] = FieldName::same_all(FiredCondition::KEYS);
        let r = snapshot::result_object(value, path, "fired condition", Naming::Snake, &FIELDS)?;
        let [condition, at, reason, details] = FIELDS;
        Ok(FiredCondition {
            condition: snapshot::pick(&r, condition, &ConditionKind::NAMES, ConditionKind::parse)?,
            path: r.string(at)?.to_string(),
            reason: r.string(reason)?.to_string(),
            details: StoppingDetails::from_snapshot(r.get(details).unwrap_or(&Value::Null), &r.path_of(details))?,
        })
    }
}

impl StoppingDecision {
    pub(crate) fn go_on(reason: &str, confidence: f64) -> Self {
        StoppingDecision {
            stop: false,
            reason: reason.to_string(),
            confidence,
            trigger: Trigger::None,
            details: None,
            best: None,
            budgets: Vec::new(),
            fired: None,
            interventions: Vec::new(),
            would_stop: None,
        }
    }

    pub(crate) fn stop(reason: String, confidence: f64, trigger: Trigger, details: StoppingDetails) -> Self {
        StoppingDecision {
            stop: true,
            reason,
            confidence,
            trigger,
            details: Some(details),
            best: None,
            budgets: Vec::new(),
            fired: None,
            interventions: Vec::new(),
            would_stop: None,
        }
    }

    /// The keys of the decision object, in the order [`StoppingDecision::to_value`] writes
    /// them: `details` only on stops, `budgets` only once a budget is configured.
    pub const KEYS: [&'static str; 8] =
        [STOP, REASON, CONFIDENCE, TRIGGER, DETAILS, BEST_ITERATION, BEST_QUALITY_SCORE, BUDGETS];

    /// The keys of [`StoppingDecision::KEYS`] that some decisions leave out (absent, never null).
    pub const OPTIONAL_KEYS: [&'static str; 2] = [DETAILS, BUDGETS];

    /// The key of the conditions that fired, written last and only under a stop policy.
    pub const FIRED_KEY: &'static str = FIRED;

    /// The key of the detector conditions' interventions, after `fired`, written only when
    /// a detector condition detected something.
    pub const INTERVENTIONS_KEY: &'static str = INTERVENTIONS;

    /// The key of a shadow candidate's would-be stop, written last and only once it fired.
    pub const WOULD_STOP_KEY: &'static str = WOULD_STOP;

    /// The decision object as the JS API returns it.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.boolean(STOP, self.stop)
            .string(REASON, &self.reason)
            .number(CONFIDENCE, self.confidence)
            .string(TRIGGER, self.trigger.as_str());
        if let Some(details) = &self.details {
            o.value(DETAILS, details.to_value());
        }
        o.opt_number(BEST_ITERATION, self.best.map(|b| b.0 as f64))
            .opt_number(BEST_QUALITY_SCORE, self.best.map(|b| b.1));
        if !self.budgets.is_empty() {
            o.value(BUDGETS, value::array_of(&self.budgets, BudgetStatus::to_value));
        }
        if let Some(fired) = &self.fired {
            o.value(FIRED, value::array_of(fired, FiredCondition::to_value));
        }
        if !self.interventions.is_empty() {
            o.value(INTERVENTIONS, value::array_of(&self.interventions, ConditionIntervention::to_value));
        }
        if let Some(would_stop) = &self.would_stop {
            o.value(WOULD_STOP, would_stop.to_value());
        }
        o.build()
    }

    /// Reads a decision as [`StoppingDecision::to_value`] writes it: `details` exactly on
    /// stops, `best_iteration` and `best_quality_score` both `null` or both set, `budgets`
    /// absent when no budget is configured.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        const FIELDS: [FieldName; 11] = {
            let [a, b, c, d, e, f, g, h] = FieldName::same_all(StoppingDecision::KEYS);
            let extra = [FieldName::same(FIRED), FieldName::same(INTERVENTIONS), FieldName::same(WOULD_STOP)];
            [a, b, c, d, e, f, g, h, extra[0], extra[1], extra[2]]
        };
        let r = snapshot::result_object(value, path, "decision", Naming::Snake, &FIELDS)?;
        let [stop, reason, confidence, trigger, details, best_iteration, best_quality_score, budgets, fired, interventions, would_stop] =
            FIELDS;
        let stop = r.boolean(stop)?;
        let reason = r.string(reason)?.to_string();
        let confidence = r.number(confidence, 0.0, 1.0)?;
        let trigger = snapshot::pick(&r, trigger, &Trigger::NAMES, Trigger::parse)?;
        let details_read = match r.get(details) {
            None => None,
            Some(d) => Some(StoppingDetails::from_snapshot(d, &r.path_of(details))?),
        };
        if stop != details_read.is_some() {
            return Err(snapshot::inconsistent(&r, details, "must be present exactly when stop is true"));
        }
        let best = match (
            snapshot::nullable_integer(&r, best_iteration, 1, MAX_SAFE_INTEGER)?,
            snapshot::nullable_number(&r, best_quality_score, 0.0, 100.0)?,
        ) {
            (Some(iteration), Some(quality)) => Some((iteration, quality)),
            (None, None) => None,
            _ => {
                return Err(snapshot::inconsistent(
                    &r,
                    best_quality_score,
                    "must be null exactly when best_iteration is",
                ))
            }
        };
        let budgets = match r.get(budgets) {
            None => Vec::new(),
            Some(_) => snapshot::items(&r, budgets, BudgetStatus::from_value)?,
        };
        let fired = match r.get(fired) {
            None => None,
            Some(_) => Some(snapshot::items(&r, fired, FiredCondition::from_value)?),
        };
        let interventions = match r.get(interventions) {
            None => Vec::new(),
            Some(_) => snapshot::items(&r, interventions, ConditionIntervention::from_value)?,
        };
        let would_stop = match r.get(would_stop) {
            None => None,
            Some(w) => Some(WouldStop::from_value(w, &r.path_of(would_stop))?),
        };
        Ok(StoppingDecision {
            stop,
            reason,
            confidence,
            trigger,
            details: details_read,
            best,
            budgets,
            fired,
            interventions,
            would_stop,
        })
    }
}

/// Where one configured budget stands: listed on every decision once a budget is set, so a
/// budget that cannot be judged (records without the field) says so.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetStatus {
    /// Which budget.
    pub budget: Budget,
    /// Its limit.
    pub limit: f64,
    /// Sum over the records that report the field.
    pub observed: f64,
    /// Records that do not report the field: their use is unknown, not zero.
    pub records_without_value: u64,
    /// `observed > limit`.
    pub exhausted: bool,
}

impl BudgetStatus {
    /// The keys of a budget's object, typed, in the order [`BudgetStatus::to_value`] writes
    /// them (the bindings' shapes are generated from it).
    pub const TYPES: [TypedField; 5] = [
        TypedField::new(FieldName::same(BUDGET), FieldType::Names(&Budget::NAMES), "The budget."),
        TypedField::new(FieldName::same(LIMIT), FieldType::Number, "Its limit."),
        TypedField::new(
            FieldName::same(OBSERVED),
            FieldType::Number,
            "The sum over the records that report the field.",
        ),
        TypedField::new(
            FieldName::same(RECORDS_WITHOUT_VALUE),
            FieldType::Integer,
            "Records without the field: their use is unknown, not zero, so `observed` is a lower bound.",
        ),
        TypedField::new(FieldName::same(EXHAUSTED), FieldType::Boolean, "`observed > limit`."),
    ];
    /// The keys of a budget's object, in the order [`BudgetStatus::to_value`] writes them.
    pub const KEYS: [&'static str; 5] = shape::same_keys(Self::TYPES);

    /// One entry of a decision's `budgets`.
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new()
            .string(BUDGET, self.budget.as_str())
            .number(LIMIT, self.limit)
            .number(OBSERVED, self.observed)
            .number(RECORDS_WITHOUT_VALUE, self.records_without_value as f64)
            .boolean(EXHAUSTED, self.exhausted)
            .build()
    }

    /// Reads one entry of a decision's `budgets`.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        const FIELDS: [FieldName; 5] = FieldName::same_all(BudgetStatus::KEYS);
        let r = snapshot::result_object(value, path, "budget", Naming::Snake, &FIELDS)?;
        let [budget, limit, observed, without, exhausted] = FIELDS;
        Ok(BudgetStatus {
            budget: snapshot::pick(&r, budget, &Budget::NAMES, Budget::parse)?,
            limit: r.number(limit, 0.0, f64::MAX)?,
            observed: r.number(observed, 0.0, f64::MAX)?,
            records_without_value: r.integer(without, 0, MAX_SAFE_INTEGER)?,
            exhausted: r.boolean(exhausted)?,
        })
    }
}

/// Reason of a decision on an empty history.
pub const REASON_NO_ITERATIONS: &str = "No iterations completed yet";

/// Reason when no criterion stopped.
pub const REASON_CONTINUE: &str = "Continuing iteration - no stopping criteria met";

/// The last record as a summary reports it (`final_quality`, `final_confidence`,
/// `final_verification`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinalRecord {
    /// 0..=100.
    pub quality_score: f64,
    /// 0..=1.
    pub confidence: f64,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
}

/// Upstream's `generateSummary()`.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // made once per summary; boxing buys nothing
pub enum StoppingSummary {
    /// `{total_iterations: 0, stopped_early: false, reason: 'No iterations completed'}`.
    Empty,
    /// A summary over a non-empty history.
    Full {
        /// History length.
        total_iterations: usize,
        /// The decision the summary made (it calls `shouldStop`), as the summary reports it:
        /// without the best-iteration and budget extras, which the summary does not list.
        decision: StoppingDecision,
        /// The last record, as the summary reports it.
        last: FinalRecord,
        /// The config at the time.
        config: EarlyStoppingConfig,
    },
}

impl StoppingSummary {
    /// The keys of a summary over a non-empty history, in the order
    /// [`StoppingSummary::to_value`] writes them (`details` only when it stopped).
    pub const KEYS: [&'static str; 10] = [
        TOTAL_ITERATIONS,
        STOPPED_EARLY,
        STOPPING_TRIGGER,
        STOPPING_REASON,
        STOPPING_CONFIDENCE,
        FINAL_QUALITY,
        FINAL_CONFIDENCE,
        FINAL_VERIFICATION,
        CONFIG,
        DETAILS,
    ];

    /// The keys of [`StoppingSummary::KEYS`] that some summaries leave out.
    pub const OPTIONAL_KEYS: [&'static str; 1] = [DETAILS];

    /// The keys of the empty summary, in its order.
    pub const EMPTY_KEYS: [&'static str; 3] = [TOTAL_ITERATIONS, STOPPED_EARLY, REASON];

    /// `{total_iterations: 0, stopped_early: false, reason: 'No iterations completed'}`.
    pub fn empty_value() -> Value {
        ObjectBuilder::new()
            .number(TOTAL_ITERATIONS, 0.0)
            .boolean(STOPPED_EARLY, false)
            .string(REASON, NO_ITERATIONS_COMPLETED)
            .build()
    }

    /// The summary object as the JS API returns it.
    pub fn to_value(&self) -> Value {
        match self {
            StoppingSummary::Empty => Self::empty_value(),
            StoppingSummary::Full { total_iterations, decision, last, config } => {
                let mut o = ObjectBuilder::new();
                o.number(TOTAL_ITERATIONS, *total_iterations as f64)
                    .boolean(STOPPED_EARLY, decision.stop)
                    .string(STOPPING_TRIGGER, decision.trigger.as_str())
                    .string(STOPPING_REASON, &decision.reason)
                    .number(STOPPING_CONFIDENCE, decision.confidence)
                    .number(FINAL_QUALITY, last.quality_score)
                    .number(FINAL_CONFIDENCE, last.confidence)
                    .string(FINAL_VERIFICATION, last.verification_status.as_str())
                    .value(CONFIG, config.to_value(Naming::Js));
                if let Some(details) = &decision.details {
                    o.value(DETAILS, details.to_value());
                }
                o.build()
            }
        }
    }

    /// Reads a summary as [`StoppingSummary::to_value`] writes it (the empty summary when
    /// the value has the empty summary's `reason`). `config` has the JS API's keys, as the
    /// summary lists it, and reads as a snapshot's config does.
    pub fn from_value(value: &Value) -> Result<Self> {
        if value.get(REASON).is_some() {
            const FIELDS: [FieldName; 3] = FieldName::same_all(StoppingSummary::EMPTY_KEYS);
            let [total_iterations, stopped_early, reason] = FIELDS;
            let r = snapshot::result_object(value, "", "summary", Naming::Snake, &FIELDS)?;
            r.integer(total_iterations, 0, 0)?;
            if r.boolean(stopped_early)? {
                return Err(snapshot::inconsistent(&r, stopped_early, "must be false when no iteration completed"));
            }
            if r.string(reason)? != NO_ITERATIONS_COMPLETED {
                let why = "must be 'No iterations completed' (the empty summary)";
                return Err(snapshot::inconsistent(&r, reason, why));
            }
            return Ok(StoppingSummary::Empty);
        }
        const FIELDS: [FieldName; 10] = FieldName::same_all(StoppingSummary::KEYS);
        let r = snapshot::result_object(value, "", "summary", Naming::Snake, &FIELDS)?;
        let [total, stopped_early, trigger, reason, confidence, quality, final_confidence, verification, config, details] =
            FIELDS;
        let total_iterations = snapshot::index(&r, total)?;
        if total_iterations == 0 {
            return Err(snapshot::inconsistent(&r, total, "must be at least 1 in a summary with a final record"));
        }
        let stop = r.boolean(stopped_early)?;
        let details_read = match r.get(details) {
            None => None,
            Some(d) => Some(StoppingDetails::from_snapshot(d, DETAILS)?),
        };
        if stop != details_read.is_some() {
            return Err(snapshot::inconsistent(&r, details, "must be present exactly when stopped_early is true"));
        }
        let decision = StoppingDecision {
            stop,
            reason: r.string(reason)?.to_string(),
            confidence: r.number(confidence, 0.0, 1.0)?,
            trigger: snapshot::pick(&r, trigger, &Trigger::NAMES, Trigger::parse)?,
            details: details_read,
            best: None,
            budgets: Vec::new(),
            fired: None,
            interventions: Vec::new(),
            would_stop: None,
        };
        let last = FinalRecord {
            quality_score: r.number(quality, 0.0, 100.0)?,
            confidence: r.number(final_confidence, 0.0, 1.0)?,
            verification_status: snapshot::pick(
                &r,
                verification,
                &VerificationStatus::NAMES,
                VerificationStatus::parse,
            )?,
        };
        let config_value = r.get(config).unwrap_or(&Value::Null);
        ObjectReader::new(config_value, CONFIG, CONFIG, Naming::Js, CODE)?; // an object, not null
        let config = EarlyStoppingConfig::default()
            .merged_at(config_value, Naming::Js, CONFIG, CONFIG, CODE)
            .map_err(|e| e.nested(CODE, ""))?;
        Ok(StoppingSummary::Full { total_iterations, decision, last, config })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::details::PlateauStep;

    fn keys(value: &Value) -> Vec<&str> {
        match value {
            Value::Object(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn a_budget_status_writes_its_typed_keys() {
        let status = BudgetStatus {
            budget: Budget::Tokens,
            limit: 10.0,
            observed: 12.0,
            records_without_value: 1,
            exhausted: true,
        };
        let value = status.to_value();
        assert_eq!(keys(&value), BudgetStatus::KEYS);
        assert!(BudgetStatus::TYPES.iter().all(|t| value.get(t.name.snake()).is_some_and(|v| t.holds(v))));
    }

    fn plateau() -> StoppingDetails {
        let step = PlateauStep { iteration: 3, improvement: 0.0, delta: 0.0 };
        StoppingDetails::QualityPlateau {
            consecutive_count: 2,
            improvements: vec![step],
            average_quality: 80.0,
            threshold: 0.02,
        }
    }

    /// Each writer writes its `KEYS`, in order, and its reader reads them back.
    #[test]
    fn writers_write_their_keys_in_order() {
        let budget = BudgetStatus {
            budget: Budget::Tokens,
            limit: 10.0,
            observed: 12.0,
            records_without_value: 0,
            exhausted: true,
        };
        assert_eq!(keys(&budget.to_value()), BudgetStatus::KEYS);
        let decision = StoppingDecision {
            best: Some((3, 80.0)),
            budgets: vec![budget],
            ..StoppingDecision::stop("plateau".into(), 0.85, Trigger::QualityPlateau, plateau())
        };
        assert_eq!(keys(&decision.to_value()), StoppingDecision::KEYS);
        assert_eq!(StoppingDecision::from_value(&decision.to_value(), ""), Ok(decision.clone()));
        let last =
            FinalRecord { quality_score: 80.0, confidence: 0.5, verification_status: VerificationStatus::Failed };
        let config = EarlyStoppingConfig::default();
        let decision = StoppingDecision { best: None, budgets: Vec::new(), ..decision };
        let summary = StoppingSummary::Full { total_iterations: 3, decision, last, config };
        assert_eq!(keys(&summary.to_value()), StoppingSummary::KEYS);
        assert_eq!(StoppingSummary::from_value(&summary.to_value()), Ok(summary));
        assert_eq!(keys(&StoppingSummary::empty_value()), StoppingSummary::EMPTY_KEYS);
    }
}
