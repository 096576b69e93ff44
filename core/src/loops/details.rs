//! The `details` of a stop ([`StoppingDetails`], one variant per trigger), written and read
//! back, and what an outside diminishing-returns source reports
//! ([`DiminishingReturnsReport`]).

use crate::loops::behavior::{Detection, InterventionLevel};
use crate::loops::vocabulary::{Budget, Trigger, VerificationStatus};
use crate::value::shape::{self, FieldType, TypedField};
use crate::value::snapshot;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

// The keys of the objects this file writes (each writer's `KEYS` lists them in order).
const CONFIDENCE: &str = "confidence";
const QUALITY_SCORE: &str = "quality_score";
const VERIFICATION_STATUS: &str = "verification_status";
const CONSECUTIVE_COUNT: &str = "consecutive_count";
const IMPROVEMENTS: &str = "improvements";
const AVERAGE_QUALITY: &str = "average_quality";
const THRESHOLD: &str = "threshold";
const DETECTED_AT_ITERATION: &str = "detected_at_iteration";
const ANALYTICS_REASON: &str = "analytics_reason";
const ITERATIONS: &str = "iterations";
const MAX_ITERATIONS: &str = "max_iterations";
const BUDGET: &str = "budget";
const LIMIT: &str = "limit";
const OBSERVED: &str = "observed";
const RECORDS_WITHOUT_VALUE: &str = "records_without_value";
const BEST_ITERATION: &str = "best_iteration";
const BEST_QUALITY_SCORE: &str = "best_quality_score";
const TOLERANCE: &str = "tolerance";
const PATIENCE: &str = "patience";
const ITERATIONS_WITHOUT_IMPROVEMENT: &str = "iterations_without_improvement";
const ITERATION: &str = "iteration";
const IMPROVEMENT: &str = "improvement";
const DELTA: &str = "delta";
const DETECTED: &str = "detected";
const REASON: &str = "reason";
const LEVEL: &str = "level";
const DETECTION: &str = "detection";
const COMPLETED_ITERATION: &str = "completed_iteration";
const FINGERPRINT: &str = "fingerprint";
const SINCE_ITERATION: &str = "since_iteration";
const K: &str = "k";
const FIRST_SEEN_ITERATION: &str = "first_seen_iteration";
const WINDOW: &str = "window";

/// A typed key spelled the same in both conventions (the typed tables below).
const fn typed(key: &'static str, ty: FieldType, doc: &'static str) -> TypedField {
    TypedField::new(FieldName::same(key), ty, doc)
}

/// One step of a detected plateau, as upstream's `details.improvements` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlateauStep {
    /// The later record's iteration number.
    pub iteration: u64,
    /// `|delta| / previous quality` (0 when the previous quality is <= 0).
    pub improvement: f64,
    /// The later record's reported delta.
    pub delta: f64,
}

impl PlateauStep {
    /// The keys of a step's object in a plateau's `improvements`, typed, in their order (the
    /// bindings' shapes are generated from it).
    pub const TYPES: [TypedField; 3] = [
        typed(ITERATION, FieldType::Integer, "The later record's iteration number."),
        typed(IMPROVEMENT, FieldType::Number, "|delta| / previous quality (0 when that is <= 0)."),
        typed(DELTA, FieldType::Number, "The later record's reported delta."),
    ];
    /// The keys of a step's object in a plateau's `improvements`, in their order.
    pub const KEYS: [&'static str; 3] = shape::same_keys(Self::TYPES);
}

/// What an outside source reported as the detection iteration: upstream copies it verbatim,
/// so an absent key stays absent and `null` stays `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportedIteration {
    /// The source's object had no `iteration` key (JS `undefined`).
    Absent,
    /// `iteration: null`.
    Null,
    /// An iteration number.
    At(u64),
}

impl ReportedIteration {
    /// The `iteration` value, `None` when the key is absent.
    pub fn to_value(self) -> Option<Value> {
        match self {
            ReportedIteration::Absent => None,
            ReportedIteration::Null => Some(Value::Null),
            ReportedIteration::At(n) => Some(Value::Number(n as f64)),
        }
    }
}

/// Upstream's `details` object of a stopping decision.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StoppingDetails {
    /// `{confidence, quality_score, verification_status?}` (status only when verification is required).
    HighConfidence {
        /// The record's confidence.
        confidence: f64,
        /// The record's quality.
        quality_score: f64,
        /// The record's verification status, when verification was required.
        verification_status: Option<VerificationStatus>,
    },
    /// `{consecutive_count, improvements, average_quality, threshold}`.
    QualityPlateau {
        /// `plateau_consecutive_count`.
        consecutive_count: u64,
        /// One entry per consecutive pair.
        improvements: Vec<PlateauStep>,
        /// Mean quality over the window.
        average_quality: f64,
        /// `plateau_improvement_threshold`.
        threshold: f64,
    },
    /// `{detected_at_iteration, analytics_reason}`.
    DiminishingReturns {
        /// The source's `iteration`.
        detected_at_iteration: ReportedIteration,
        /// The source's `reason`.
        analytics_reason: String,
    },
    /// `{iterations, max_iterations}` (opt-in `maxIterations`).
    MaxIterations {
        /// Iterations recorded.
        iterations: u64,
        /// The limit.
        max_iterations: u64,
    },
    /// `{budget, limit, observed, records_without_value}` (opt-in budgets).
    BudgetExhausted {
        /// Which budget.
        budget: Budget,
        /// Its limit.
        limit: f64,
        /// The sum over the records that report the field.
        observed: f64,
        /// Records that do not report the field (unknown, not zero).
        records_without_value: u64,
    },
    /// `{best_iteration, best_quality_score, tolerance, patience}` (opt-in regression guard).
    QualityRegression {
        /// The best record's iteration.
        best_iteration: u64,
        /// Its quality.
        best_quality_score: f64,
        /// `regressionTolerance`.
        tolerance: f64,
        /// `regressionPatience`.
        patience: u64,
    },
    /// `{best_iteration, best_quality_score, iterations_without_improvement, patience}`
    /// (opt-in `noImprovementPatience`).
    NoImprovement {
        /// The best record's iteration.
        best_iteration: u64,
        /// Its quality.
        best_quality_score: f64,
        /// Records since the best one.
        iterations_without_improvement: u64,
        /// `noImprovementPatience`.
        patience: u64,
    },
    /// `{level, detection}`: a behaviour detector condition stopped the loop (its detection,
    /// snake_case keys, and the intervention level it got).
    Behavior {
        /// The detection's level (`abort` names `behavior_abort`, any other `behavior_pause`).
        level: InterventionLevel,
        /// The detection.
        detection: Box<Detection>,
    },
    /// `{completed_iteration}`: the last record reported the loop's completion.
    Completed {
        /// The record's iteration.
        completed_iteration: u64,
    },
    /// `{fingerprint, since_iteration, k}`: records `since_iteration`..now (k + 1 of them)
    /// carry one fingerprint.
    Unchanged {
        /// The fingerprint.
        fingerprint: String,
        /// The first record of the run of equal fingerprints the condition looked at.
        since_iteration: u64,
        /// The condition's `k`.
        k: u64,
    },
    /// `{fingerprint, first_seen_iteration, window}`: the last record's fingerprint is that
    /// of the earlier record `first_seen_iteration` (the latest such within the window).
    Revisit {
        /// The fingerprint.
        fingerprint: String,
        /// The earlier record carrying it.
        first_seen_iteration: u64,
        /// The condition's `window`.
        window: u64,
    },
}

impl StoppingDetails {
    /// The keys of [`StoppingDetails::HighConfidence`]'s object, typed, in the order
    /// [`StoppingDetails::to_value`] writes them. The other variants' `*_TYPES` likewise (the
    /// bindings' shapes of the details are generated from them; [`StoppingDetails::OPTIONAL_KEYS`]
    /// says which keys a variant may leave out).
    pub const HIGH_CONFIDENCE_TYPES: [TypedField; 3] = [
        typed(CONFIDENCE, FieldType::Number, "The last record's confidence."),
        typed(QUALITY_SCORE, FieldType::Number, "The last record's quality."),
        typed(
            VERIFICATION_STATUS,
            FieldType::Names(&VerificationStatus::NAMES),
            "Present when verification was required.",
        ),
    ];
    /// The keys of [`StoppingDetails::HighConfidence`]'s object, in the order
    /// [`StoppingDetails::to_value`] writes them (`verification_status` only when
    /// verification was required). The other variants' `*_KEYS` likewise.
    pub const HIGH_CONFIDENCE_KEYS: [&'static str; 3] = shape::same_keys(Self::HIGH_CONFIDENCE_TYPES);
    /// The keys of [`StoppingDetails::QualityPlateau`]'s object.
    pub const QUALITY_PLATEAU_KEYS: [&'static str; 4] = [CONSECUTIVE_COUNT, IMPROVEMENTS, AVERAGE_QUALITY, THRESHOLD];
    /// [`StoppingDetails::DiminishingReturns`]'s keys, typed.
    pub const DIMINISHING_RETURNS_TYPES: [TypedField; 2] = [
        TypedField::nullable(
            FieldName::same(DETECTED_AT_ITERATION),
            FieldType::Integer,
            "The source's `iteration`, copied as it was (absent when the source left it out).",
        ),
        typed(ANALYTICS_REASON, FieldType::Text, "The source's reason."),
    ];
    /// The keys of [`StoppingDetails::DiminishingReturns`]'s object (`detected_at_iteration`
    /// absent when the source reported none).
    pub const DIMINISHING_RETURNS_KEYS: [&'static str; 2] = shape::same_keys(Self::DIMINISHING_RETURNS_TYPES);
    /// [`StoppingDetails::MaxIterations`]'s keys, typed.
    pub const MAX_ITERATIONS_TYPES: [TypedField; 2] = [
        typed(ITERATIONS, FieldType::Integer, "The iterations recorded."),
        typed(MAX_ITERATIONS, FieldType::Integer, "The configured limit."),
    ];
    /// The keys of [`StoppingDetails::MaxIterations`]'s object.
    pub const MAX_ITERATIONS_KEYS: [&'static str; 2] = shape::same_keys(Self::MAX_ITERATIONS_TYPES);
    /// [`StoppingDetails::BudgetExhausted`]'s keys, typed.
    pub const BUDGET_EXHAUSTED_TYPES: [TypedField; 4] = [
        typed(BUDGET, FieldType::Names(&Budget::NAMES), "The budget exhausted."),
        typed(LIMIT, FieldType::Number, "Its limit."),
        typed(OBSERVED, FieldType::Number, "The sum over the records that report the field."),
        typed(
            RECORDS_WITHOUT_VALUE,
            FieldType::Integer,
            "Records that did not report the field (unknown, not counted as zero).",
        ),
    ];
    /// The keys of [`StoppingDetails::BudgetExhausted`]'s object.
    pub const BUDGET_EXHAUSTED_KEYS: [&'static str; 4] = shape::same_keys(Self::BUDGET_EXHAUSTED_TYPES);
    /// [`StoppingDetails::QualityRegression`]'s keys, typed.
    pub const QUALITY_REGRESSION_TYPES: [TypedField; 4] = [
        typed(BEST_ITERATION, FieldType::Integer, "The record with the highest quality so far."),
        typed(BEST_QUALITY_SCORE, FieldType::Number, "Its quality."),
        typed(TOLERANCE, FieldType::Number, "The configured regression tolerance."),
        typed(PATIENCE, FieldType::Integer, "The configured regression patience."),
    ];
    /// The keys of [`StoppingDetails::QualityRegression`]'s object.
    pub const QUALITY_REGRESSION_KEYS: [&'static str; 4] = shape::same_keys(Self::QUALITY_REGRESSION_TYPES);
    /// [`StoppingDetails::NoImprovement`]'s keys, typed.
    pub const NO_IMPROVEMENT_TYPES: [TypedField; 4] = [
        typed(BEST_ITERATION, FieldType::Integer, "The record with the highest quality so far."),
        typed(BEST_QUALITY_SCORE, FieldType::Number, "Its quality."),
        typed(ITERATIONS_WITHOUT_IMPROVEMENT, FieldType::Integer, "Records since then without a new best."),
        typed(PATIENCE, FieldType::Integer, "The configured patience."),
    ];
    /// The keys of [`StoppingDetails::NoImprovement`]'s object.
    pub const NO_IMPROVEMENT_KEYS: [&'static str; 4] = shape::same_keys(Self::NO_IMPROVEMENT_TYPES);
    /// The keys a variant's details may leave out: `verification_status` of a high-confidence
    /// stop (only when verification was required) and `detected_at_iteration` of a
    /// diminishing-returns one (when the source reported none).
    pub const OPTIONAL_KEYS: [&'static str; 2] = [VERIFICATION_STATUS, DETECTED_AT_ITERATION];

    /// The keys of [`StoppingDetails::Behavior`]'s object.
    pub const BEHAVIOR_KEYS: [&'static str; 2] = [LEVEL, DETECTION];
    /// [`StoppingDetails::Completed`]'s keys, typed.
    pub const COMPLETED_TYPES: [TypedField; 1] =
        [typed(COMPLETED_ITERATION, FieldType::Integer, "The record that said `completed: true`.")];
    /// The keys of [`StoppingDetails::Completed`]'s object.
    pub const COMPLETED_KEYS: [&'static str; 1] = shape::same_keys(Self::COMPLETED_TYPES);
    /// [`StoppingDetails::Unchanged`]'s keys, typed.
    pub const UNCHANGED_TYPES: [TypedField; 3] = [
        typed(FINGERPRINT, FieldType::Text, "The fingerprint the last records share."),
        typed(SINCE_ITERATION, FieldType::Integer, "The run's first record carrying it."),
        typed(K, FieldType::Integer, "The condition's `k`."),
    ];
    /// The keys of [`StoppingDetails::Unchanged`]'s object.
    pub const UNCHANGED_KEYS: [&'static str; 3] = shape::same_keys(Self::UNCHANGED_TYPES);
    /// [`StoppingDetails::Revisit`]'s keys, typed.
    pub const REVISIT_TYPES: [TypedField; 3] = [
        typed(FINGERPRINT, FieldType::Text, "The last record's fingerprint."),
        typed(FIRST_SEEN_ITERATION, FieldType::Integer, "The latest earlier record carrying it."),
        typed(WINDOW, FieldType::Integer, "The condition's `window`."),
    ];
    /// The keys of [`StoppingDetails::Revisit`]'s object.
    pub const REVISIT_KEYS: [&'static str; 3] = shape::same_keys(Self::REVISIT_TYPES);

    /// The keys of the details of a stop by `trigger` (its variant's `*_KEYS`; none for
    /// [`Trigger::None`], which has no details).
    pub fn keys(trigger: Trigger) -> &'static [&'static str] {
        match trigger {
            Trigger::None => &[],
            Trigger::HighConfidence => &Self::HIGH_CONFIDENCE_KEYS,
            Trigger::QualityPlateau => &Self::QUALITY_PLATEAU_KEYS,
            Trigger::DiminishingReturns => &Self::DIMINISHING_RETURNS_KEYS,
            Trigger::MaxIterations => &Self::MAX_ITERATIONS_KEYS,
            Trigger::BudgetExhausted => &Self::BUDGET_EXHAUSTED_KEYS,
            Trigger::QualityRegression => &Self::QUALITY_REGRESSION_KEYS,
            Trigger::NoImprovement => &Self::NO_IMPROVEMENT_KEYS,
            Trigger::BehaviorPause | Trigger::BehaviorAbort => &Self::BEHAVIOR_KEYS,
            Trigger::Completed => &Self::COMPLETED_KEYS,
            Trigger::Unchanged => &Self::UNCHANGED_KEYS,
            Trigger::Revisit => &Self::REVISIT_KEYS,
        }
    }

    /// Upstream's details object.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        match self {
            StoppingDetails::HighConfidence { confidence, quality_score, verification_status } => {
                o.number(CONFIDENCE, *confidence).number(QUALITY_SCORE, *quality_score);
                if let Some(status) = verification_status {
                    o.string(VERIFICATION_STATUS, status.as_str());
                }
            }
            StoppingDetails::QualityPlateau { consecutive_count, improvements, average_quality, threshold } => {
                let steps = value::array_of(improvements, |step| {
                    ObjectBuilder::new()
                        .number(ITERATION, step.iteration as f64)
                        .number(IMPROVEMENT, step.improvement)
                        .number(DELTA, step.delta)
                        .build()
                });
                o.number(CONSECUTIVE_COUNT, *consecutive_count as f64)
                    .value(IMPROVEMENTS, steps)
                    .number(AVERAGE_QUALITY, *average_quality)
                    .number(THRESHOLD, *threshold);
            }
            StoppingDetails::DiminishingReturns { detected_at_iteration, analytics_reason } => {
                if let Some(v) = detected_at_iteration.to_value() {
                    o.value(DETECTED_AT_ITERATION, v);
                }
                o.string(ANALYTICS_REASON, analytics_reason);
            }
            StoppingDetails::MaxIterations { iterations, max_iterations } => {
                o.number(ITERATIONS, *iterations as f64).number(MAX_ITERATIONS, *max_iterations as f64);
            }
            StoppingDetails::BudgetExhausted { budget, limit, observed, records_without_value } => {
                o.string(BUDGET, budget.as_str())
                    .number(LIMIT, *limit)
                    .number(OBSERVED, *observed)
                    .number(RECORDS_WITHOUT_VALUE, *records_without_value as f64);
            }
            StoppingDetails::QualityRegression { best_iteration, best_quality_score, tolerance, patience } => {
                o.number(BEST_ITERATION, *best_iteration as f64)
                    .number(BEST_QUALITY_SCORE, *best_quality_score)
                    .number(TOLERANCE, *tolerance)
                    .number(PATIENCE, *patience as f64);
            }
            StoppingDetails::NoImprovement {
                best_iteration,
                best_quality_score,
                iterations_without_improvement,
                patience,
            } => {
                o.number(BEST_ITERATION, *best_iteration as f64)
                    .number(BEST_QUALITY_SCORE, *best_quality_score)
                    .number(ITERATIONS_WITHOUT_IMPROVEMENT, *iterations_without_improvement as f64)
                    .number(PATIENCE, *patience as f64);
            }
            StoppingDetails::Behavior { level, detection } => {
                o.string(LEVEL, level.as_str()).value(DETECTION, detection.to_value(Naming::Snake));
            }
            StoppingDetails::Completed { completed_iteration } => {
                o.number(COMPLETED_ITERATION, *completed_iteration as f64);
            }
            StoppingDetails::Unchanged { fingerprint, since_iteration, k } => {
                o.string(FINGERPRINT, fingerprint)
                    .number(SINCE_ITERATION, *since_iteration as f64)
                    .number(K, *k as f64);
            }
            StoppingDetails::Revisit { fingerprint, first_seen_iteration, window } => {
                o.string(FINGERPRINT, fingerprint)
                    .number(FIRST_SEEN_ITERATION, *first_seen_iteration as f64)
                    .number(WINDOW, *window as f64);
            }
        }
        o.build()
    }

    // Inlined into each caller: the snapshot reader is its only caller in the WebAssembly
    // module, and as a shared function (the result readers call it too) it cost ~1 KB there.
    // Each variant's fields are a `const` table (a static in the module, not an array built
    // per call).
    #[inline(always)]
    pub(crate) fn from_snapshot(value: &Value, path: &str) -> Result<Self> {
        let snapshot_error = |field: &str, what: &str| {
            let field = value::join_path(path, field);
            Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Range, field.clone(), value::concat(&[&field, " ", what]))
        };
        let reader = ObjectReader::new(value, path, "stoppingDetails", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        let has = |field: &'static str| reader.get(FieldName::same(field)).is_some();
        if has(DETECTION) {
            const FIELDS: [FieldName; 2] = FieldName::same_all(StoppingDetails::BEHAVIOR_KEYS);
            let [level, detection] = FIELDS;
            reader.reject_unknown(&FIELDS)?;
            let level = snapshot::pick(&reader, level, &InterventionLevel::NAMES, InterventionLevel::parse)?;
            let at = reader.path_of(detection);
            let detection = reader.get(detection).unwrap_or(&Value::Null);
            let detection = Detection::from_value(detection, &at, Naming::Snake, ErrorCode::InvalidSnapshot)?;
            return Ok(StoppingDetails::Behavior { level, detection: Box::new(detection) });
        }
        if has(COMPLETED_ITERATION) {
            const FIELDS: [FieldName; 1] = FieldName::same_all(StoppingDetails::COMPLETED_KEYS);
            reader.reject_unknown(&FIELDS)?;
            let [completed_iteration] = FIELDS;
            return Ok(StoppingDetails::Completed {
                completed_iteration: reader.integer(completed_iteration, 1, MAX_SAFE_INTEGER)?,
            });
        }
        if has(SINCE_ITERATION) {
            const FIELDS: [FieldName; 3] = FieldName::same_all(StoppingDetails::UNCHANGED_KEYS);
            reader.reject_unknown(&FIELDS)?;
            let [fingerprint, since_iteration, k] = FIELDS;
            return Ok(StoppingDetails::Unchanged {
                fingerprint: reader.string(fingerprint)?.to_string(),
                since_iteration: reader.integer(since_iteration, 1, MAX_SAFE_INTEGER)?,
                k: reader.integer(k, 1, MAX_SAFE_INTEGER)?,
            });
        }
        if has(FIRST_SEEN_ITERATION) {
            const FIELDS: [FieldName; 3] = FieldName::same_all(StoppingDetails::REVISIT_KEYS);
            reader.reject_unknown(&FIELDS)?;
            let [fingerprint, first_seen_iteration, window] = FIELDS;
            return Ok(StoppingDetails::Revisit {
                fingerprint: reader.string(fingerprint)?.to_string(),
                first_seen_iteration: reader.integer(first_seen_iteration, 1, MAX_SAFE_INTEGER)?,
                window: reader.integer(window, 2, MAX_SAFE_INTEGER)?,
            });
        }
        if has(MAX_ITERATIONS) {
            const FIELDS: [FieldName; 2] = FieldName::same_all(StoppingDetails::MAX_ITERATIONS_KEYS);
            let [iterations, max_iterations] = FIELDS;
            reader.reject_unknown(&FIELDS)?;
            return Ok(StoppingDetails::MaxIterations {
                iterations: reader.integer(iterations, 1, MAX_SAFE_INTEGER)?,
                max_iterations: reader.integer(max_iterations, 1, MAX_SAFE_INTEGER)?,
            });
        }
        if has(BUDGET) {
            const FIELDS: [FieldName; 4] = FieldName::same_all(StoppingDetails::BUDGET_EXHAUSTED_KEYS);
            let [budget, limit, observed, records_without_value] = FIELDS;
            reader.reject_unknown(&FIELDS)?;
            let budget = reader.choice(budget, &Budget::NAMES)?;
            return Ok(StoppingDetails::BudgetExhausted {
                budget: Budget::parse(budget).unwrap_or(Budget::Tokens),
                limit: reader.number(limit, 0.0, f64::MAX)?,
                observed: reader.number(observed, 0.0, f64::MAX)?,
                records_without_value: reader.integer(records_without_value, 0, MAX_SAFE_INTEGER)?,
            });
        }
        if has(ITERATIONS_WITHOUT_IMPROVEMENT) {
            const FIELDS: [FieldName; 4] = FieldName::same_all(StoppingDetails::NO_IMPROVEMENT_KEYS);
            let [best_iteration, best_quality_score, iterations_without_improvement, patience] = FIELDS;
            reader.reject_unknown(&FIELDS)?;
            return Ok(StoppingDetails::NoImprovement {
                best_iteration: reader.integer(best_iteration, 1, MAX_SAFE_INTEGER)?,
                best_quality_score: reader.number(best_quality_score, 0.0, 100.0)?,
                iterations_without_improvement: reader.integer(iterations_without_improvement, 1, MAX_SAFE_INTEGER)?,
                patience: reader.integer(patience, 1, MAX_SAFE_INTEGER)?,
            });
        }
        if has(PATIENCE) {
            const FIELDS: [FieldName; 4] = FieldName::same_all(StoppingDetails::QUALITY_REGRESSION_KEYS);
            let [best_iteration, best_quality_score, tolerance, patience] = FIELDS;
            reader.reject_unknown(&FIELDS)?;
            return Ok(StoppingDetails::QualityRegression {
                best_iteration: reader.integer(best_iteration, 1, MAX_SAFE_INTEGER)?,
                best_quality_score: reader.number(best_quality_score, 0.0, 100.0)?,
                tolerance: reader.number(tolerance, 0.0, 100.0)?,
                patience: reader.integer(patience, 1, MAX_SAFE_INTEGER)?,
            });
        }
        if has(ANALYTICS_REASON) {
            const FIELDS: [FieldName; 2] = FieldName::same_all(StoppingDetails::DIMINISHING_RETURNS_KEYS);
            let [detected_at, analytics_reason] = FIELDS;
            reader.reject_unknown(&FIELDS)?;
            let detected_at_iteration = match reader.get(detected_at) {
                None => ReportedIteration::Absent,
                Some(Value::Null) => ReportedIteration::Null,
                Some(_) => ReportedIteration::At(reader.integer(detected_at, 1, MAX_SAFE_INTEGER)?),
            };
            let analytics_reason = reader.string(analytics_reason)?.to_string();
            return Ok(StoppingDetails::DiminishingReturns { detected_at_iteration, analytics_reason });
        }
        if has(IMPROVEMENTS) {
            const FIELDS: [FieldName; 4] = FieldName::same_all(StoppingDetails::QUALITY_PLATEAU_KEYS);
            const STEP_FIELDS: [FieldName; 3] = FieldName::same_all(PlateauStep::KEYS);
            let [consecutive_count, improvements, average_quality, threshold] = FIELDS;
            let [iteration, improvement, delta] = STEP_FIELDS;
            reader.reject_unknown(&FIELDS)?;
            let consecutive_count = reader.integer(consecutive_count, 2, MAX_SAFE_INTEGER)?;
            let Some(Value::Array(items)) = reader.get(improvements) else {
                return Err(snapshot_error(IMPROVEMENTS, "must be an array"));
            };
            let mut steps = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let item_path = value::index_path(&value::join_path(path, IMPROVEMENTS), i);
                let step = ObjectReader::new(item, &item_path, IMPROVEMENT, Naming::Snake, ErrorCode::InvalidSnapshot)?;
                step.reject_unknown(&STEP_FIELDS)?;
                steps.push(PlateauStep {
                    iteration: step.integer(iteration, 1, MAX_SAFE_INTEGER)?,
                    improvement: step.number(improvement, 0.0, f64::MAX)?,
                    delta: step.number(delta, f64::MIN, f64::MAX)?,
                });
            }
            return Ok(StoppingDetails::QualityPlateau {
                consecutive_count,
                improvements: steps,
                average_quality: reader.number(average_quality, 0.0, 100.0)?,
                // Points (0..=100) when the stop came from an absolute plateau.
                threshold: reader.number(threshold, 0.0, 100.0)?,
            });
        }
        const FIELDS: [FieldName; 3] = FieldName::same_all(StoppingDetails::HIGH_CONFIDENCE_KEYS);
        let [confidence, quality_score, verification_status] = FIELDS;
        reader.reject_unknown(&FIELDS)?;
        let status = match reader.get(verification_status) {
            None => None,
            Some(_) => VerificationStatus::parse(reader.choice(verification_status, &VerificationStatus::NAMES)?),
        };
        Ok(StoppingDetails::HighConfidence {
            confidence: reader.number(confidence, 0.0, 1.0)?,
            quality_score: reader.number(quality_score, 0.0, 100.0)?,
            verification_status: status,
        })
    }
}

/// What a diminishing-returns source reports (`{detected, iteration, reason}`).
#[derive(Clone, Debug, PartialEq)]
pub struct DiminishingReturnsReport {
    /// Whether diminishing returns were detected.
    pub detected: bool,
    /// Where, as the source reported it.
    pub iteration: ReportedIteration,
    /// The source's explanation.
    pub reason: String,
}

impl DiminishingReturnsReport {
    /// The keys of the report object, in the order [`DiminishingReturnsReport::to_value`]
    /// writes them (`iteration` absent when the source gave none).
    pub const KEYS: [&'static str; 3] = [DETECTED, ITERATION, REASON];

    /// The keys of [`DiminishingReturnsReport::KEYS`] a report may leave out.
    pub const OPTIONAL_KEYS: [&'static str; 1] = [ITERATION];

    /// Validates what an outside source returned (code `invalid_analytics`).
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let reader = ObjectReader::new(value, "", "detectDiminishingReturns()", naming, ErrorCode::InvalidAnalytics)?;
        let detected = reader.boolean(FieldName::same(DETECTED))?;
        let iteration = match reader.get(FieldName::same(ITERATION)) {
            None => ReportedIteration::Absent,
            Some(Value::Null) => ReportedIteration::Null,
            Some(_) => ReportedIteration::At(reader.integer(FieldName::same(ITERATION), 1, MAX_SAFE_INTEGER)?),
        };
        let reason = reader.string(FieldName::same(REASON))?.to_string();
        Ok(DiminishingReturnsReport { detected, iteration, reason })
    }

    /// The report as `{detected, iteration, reason}`.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.boolean(DETECTED, self.detected);
        if let Some(v) = self.iteration.to_value() {
            o.value(ITERATION, v);
        }
        o.string(REASON, &self.reason).build()
    }

    /// Reads a report as [`DiminishingReturnsReport::to_value`] writes it: the source
    /// reader, plus no keys beyond `detected`, `iteration`, `reason`.
    pub fn from_result_value(value: &Value) -> Result<Self> {
        const FIELDS: [FieldName; 3] = FieldName::same_all(DiminishingReturnsReport::KEYS);
        snapshot::result_object(value, "", "report", Naming::Snake, &FIELDS)?;
        Self::from_value(value, Naming::Snake)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(value: &Value) -> Vec<String> {
        match value {
            Value::Object(entries) => entries.iter().map(|(k, _)| k.clone()).collect(),
            _ => Vec::new(),
        }
    }

    fn behavior(level: crate::loops::behavior::InterventionLevel) -> StoppingDetails {
        use crate::loops::behavior::{detect_resource_burn, BehaviorIteration, Thresholds};
        let history = vec![BehaviorIteration::default(); 30];
        let detection = detect_resource_burn(&history, &Thresholds::DEFAULT).map(Box::new);
        StoppingDetails::Behavior { level, detection: detection.unwrap_or_else(|| unreachable!()) }
    }

    /// The typed table of a trigger's details, where it has one.
    fn typed_table(trigger: Trigger) -> Option<&'static [TypedField]> {
        Some(match trigger {
            Trigger::HighConfidence => &StoppingDetails::HIGH_CONFIDENCE_TYPES,
            Trigger::DiminishingReturns => &StoppingDetails::DIMINISHING_RETURNS_TYPES,
            Trigger::MaxIterations => &StoppingDetails::MAX_ITERATIONS_TYPES,
            Trigger::BudgetExhausted => &StoppingDetails::BUDGET_EXHAUSTED_TYPES,
            Trigger::QualityRegression => &StoppingDetails::QUALITY_REGRESSION_TYPES,
            Trigger::NoImprovement => &StoppingDetails::NO_IMPROVEMENT_TYPES,
            Trigger::Completed => &StoppingDetails::COMPLETED_TYPES,
            Trigger::Unchanged => &StoppingDetails::UNCHANGED_TYPES,
            Trigger::Revisit => &StoppingDetails::REVISIT_TYPES,
            _ => return None,
        })
    }

    /// Each value a variant writes is of its typed table's type; an optional key is left out
    /// when its value is unknown.
    fn holds_its_types(trigger: Trigger, value: &Value) {
        let (Some(types), Value::Object(written)) = (typed_table(trigger), value) else { return };
        let expected: Vec<&str> = types
            .iter()
            .map(|t| t.name.snake())
            .filter(|k| written.iter().any(|(w, _)| w == k) || !StoppingDetails::OPTIONAL_KEYS.contains(k))
            .collect();
        assert_eq!(written.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), expected);
        for (key, v) in written {
            assert!(types.iter().any(|t| t.name.snake() == key && t.holds(v)), "{key}: {v:?}");
        }
    }

    #[test]
    fn an_unknown_optional_detail_is_left_out() {
        let high = StoppingDetails::HighConfidence { confidence: 0.97, quality_score: 90.0, verification_status: None };
        holds_its_types(Trigger::HighConfidence, &high.to_value());
        let absent = ReportedIteration::Absent;
        let diminishing =
            StoppingDetails::DiminishingReturns { detected_at_iteration: absent, analytics_reason: "r".into() };
        holds_its_types(Trigger::DiminishingReturns, &diminishing.to_value());
        let null = StoppingDetails::DiminishingReturns {
            detected_at_iteration: ReportedIteration::Null,
            analytics_reason: "r".into(),
        };
        holds_its_types(Trigger::DiminishingReturns, &null.to_value());
    }

    /// Every variant writes its trigger's keys, in order (optional keys given), and reads back.
    #[test]
    fn each_variant_writes_its_keys_in_order() {
        let step = PlateauStep { iteration: 3, improvement: 0.01, delta: 0.5 };
        let all = [
            (
                Trigger::HighConfidence,
                StoppingDetails::HighConfidence {
                    confidence: 0.97,
                    quality_score: 90.0,
                    verification_status: Some(VerificationStatus::Passed),
                },
            ),
            (
                Trigger::QualityPlateau,
                StoppingDetails::QualityPlateau {
                    consecutive_count: 2,
                    improvements: vec![step.clone()],
                    average_quality: 80.0,
                    threshold: 0.02,
                },
            ),
            (
                Trigger::DiminishingReturns,
                StoppingDetails::DiminishingReturns {
                    detected_at_iteration: ReportedIteration::At(4),
                    analytics_reason: "flat".into(),
                },
            ),
            (Trigger::MaxIterations, StoppingDetails::MaxIterations { iterations: 5, max_iterations: 5 }),
            (
                Trigger::BudgetExhausted,
                StoppingDetails::BudgetExhausted {
                    budget: Budget::CostUsd,
                    limit: 1.0,
                    observed: 1.5,
                    records_without_value: 2,
                },
            ),
            (
                Trigger::QualityRegression,
                StoppingDetails::QualityRegression {
                    best_iteration: 2,
                    best_quality_score: 90.0,
                    tolerance: 5.0,
                    patience: 2,
                },
            ),
            (
                Trigger::NoImprovement,
                StoppingDetails::NoImprovement {
                    best_iteration: 2,
                    best_quality_score: 90.0,
                    iterations_without_improvement: 5,
                    patience: 5,
                },
            ),
            (Trigger::BehaviorPause, behavior(crate::loops::behavior::InterventionLevel::Pause)),
            (Trigger::BehaviorAbort, behavior(crate::loops::behavior::InterventionLevel::Abort)),
            (Trigger::Completed, StoppingDetails::Completed { completed_iteration: 3 }),
            (Trigger::Unchanged, StoppingDetails::Unchanged { fingerprint: "f".into(), since_iteration: 2, k: 3 }),
            (
                Trigger::Revisit,
                StoppingDetails::Revisit { fingerprint: "f".into(), first_seen_iteration: 2, window: 4 },
            ),
        ];
        assert_eq!(all.len() + 1, Trigger::ALL.len()); // every trigger but `none`
        assert!(StoppingDetails::keys(Trigger::None).is_empty());
        for (trigger, details) in all {
            let value = details.to_value();
            assert_eq!(keys(&value), StoppingDetails::keys(trigger), "{trigger:?}");
            holds_its_types(trigger, &value);
            assert_eq!(StoppingDetails::from_snapshot(&value, "details"), Ok(details));
        }
        let plateau = StoppingDetails::QualityPlateau {
            consecutive_count: 2,
            improvements: vec![step],
            average_quality: 80.0,
            threshold: 0.02,
        };
        let Some(Value::Array(steps)) = plateau.to_value().get(IMPROVEMENTS).cloned() else { unreachable!() };
        assert_eq!(steps.iter().map(keys).collect::<Vec<_>>(), [PlateauStep::KEYS]);
        assert!(PlateauStep::TYPES.iter().all(|t| steps[0].get(t.name.snake()).is_some_and(|v| t.holds(v))));
        let report =
            DiminishingReturnsReport { detected: true, iteration: ReportedIteration::Null, reason: "r".into() };
        assert_eq!(keys(&report.to_value()), DiminishingReturnsReport::KEYS);
    }
}
