//! The loop engine's records, decisions, rules and the owning engine (being split into
//! their own files).

use crate::loops::config::{EarlyStoppingConfig, PlateauDeltaSource, PlateauMode, DEFAULT_REGRESSION_PATIENCE};
use crate::loops::state::{self, LoopCounters, ObservationWindow};
use crate::loops::vocabulary::{Budget, Trigger, VerificationStatus};
use crate::num;
use crate::time;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

// ---------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------

const ITERATION_NUMBER: FieldName = FieldName::same("iteration_number");

const QUALITY_SCORE: FieldName = FieldName::same("quality_score");

const CONFIDENCE: FieldName = FieldName::same("confidence");

const VERIFICATION_STATUS: FieldName = FieldName::same("verification_status");

const QUALITY_DELTA: FieldName = FieldName::same("quality_delta");

const TIMESTAMP: FieldName = FieldName::same("timestamp");

const TOKENS_USED: FieldName = FieldName::same("tokens_used");

const TOKEN_COST_USD: FieldName = FieldName::same("token_cost_usd");

const EXECUTION_TIME_MS: FieldName = FieldName::same("execution_time_ms");

/// The keys an iteration result may have, in the design page's table order.
pub const RESULT_FIELDS: [FieldName; 9] = [
    QUALITY_SCORE,
    CONFIDENCE,
    VERIFICATION_STATUS,
    QUALITY_DELTA,
    TIMESTAMP,
    TOKENS_USED,
    TOKEN_COST_USD,
    EXECUTION_TIME_MS,
    ITERATION_NUMBER,
];

/// Optional resource figures of one iteration (summed by budgets and analytics).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResourceUsage {
    /// Tokens the iteration used; finite, >= 0.
    pub tokens_used: Option<f64>,
    /// Cost in US dollars; finite, >= 0.
    pub token_cost_usd: Option<f64>,
    /// Wall-clock time in milliseconds; finite, >= 0.
    pub execution_time_ms: Option<f64>,
}

impl ResourceUsage {
    fn is_empty(&self) -> bool {
        self.tokens_used.is_none() && self.token_cost_usd.is_none() && self.execution_time_ms.is_none()
    }

    pub(crate) fn read(reader: &ObjectReader<'_>) -> Result<Self> {
        Ok(ResourceUsage {
            tokens_used: reader.opt_number(TOKENS_USED, 0.0, f64::MAX)?,
            token_cost_usd: reader.opt_number(TOKEN_COST_USD, 0.0, f64::MAX)?,
            execution_time_ms: reader.opt_number(EXECUTION_TIME_MS, 0.0, f64::MAX)?,
        })
    }

    fn push_values(&self, out: &mut ObjectBuilder) {
        out.some_number(TOKENS_USED.js(), self.tokens_used)
            .some_number(TOKEN_COST_USD.js(), self.token_cost_usd)
            .some_number(EXECUTION_TIME_MS.js(), self.execution_time_ms);
    }
}

/// What an agent reports after one iteration (`IterationResult` in the seed).
#[derive(Clone, Debug, PartialEq)]
pub struct IterationResult {
    /// 0..=100.
    pub quality_score: f64,
    /// 0..=1.
    pub confidence: f64,
    /// passed, failed or skipped.
    pub verification_status: VerificationStatus,
    /// The caller's change from the previous iteration (any finite number).
    pub quality_delta: f64,
    /// RFC 3339; `None` lets [`EarlyStopping::record_value`]'s clock fill it.
    pub timestamp: Option<String>,
    /// Optional resource figures.
    pub usage: ResourceUsage,
    /// If given, must equal the iteration argument.
    pub iteration_number: Option<u64>,
}

impl IterationResult {
    /// A result without timestamp or usage.
    pub fn new(
        quality_score: f64,
        confidence: f64,
        verification_status: VerificationStatus,
        quality_delta: f64,
    ) -> Self {
        IterationResult {
            quality_score,
            confidence,
            verification_status,
            quality_delta,
            timestamp: None,
            usage: ResourceUsage::default(),
            iteration_number: None,
        }
    }

    /// Parses and validates the seed's result object (`result` names it in errors).
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        if matches!(value, Value::Null) {
            return Err(Error::new(
                ErrorCode::InvalidResult,
                ErrorKind::Type,
                "result",
                "result must be an object, got null",
            ));
        }
        Self::read(value, naming, "", ErrorCode::InvalidResult)
    }

    fn read(value: &Value, naming: Naming, path: &str, code: ErrorCode) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "result", naming, code)?;
        reader.reject_unknown(&RESULT_FIELDS)?;
        let quality_score = reader.number(QUALITY_SCORE, 0.0, 100.0)?;
        let confidence = reader.number(CONFIDENCE, 0.0, 1.0)?;
        let status = reader.choice(VERIFICATION_STATUS, &VerificationStatus::NAMES)?;
        let verification_status = VerificationStatus::parse(status).unwrap_or(VerificationStatus::Skipped);
        let quality_delta = reader.number(QUALITY_DELTA, f64::MIN, f64::MAX)?;
        let timestamp = match reader.get(TIMESTAMP) {
            None => None,
            Some(v) => {
                let s = reader.string(TIMESTAMP)?;
                if !time::is_rfc3339(s) {
                    return Err(reader.range_error(TIMESTAMP, "an RFC 3339 date-time", v));
                }
                Some(s.to_string())
            }
        };
        let usage = ResourceUsage::read(&reader)?;
        let iteration_number = reader.opt_integer(ITERATION_NUMBER, 1, MAX_SAFE_INTEGER)?;
        Ok(IterationResult {
            quality_score,
            confidence,
            verification_status,
            quality_delta,
            timestamp,
            usage,
            iteration_number,
        })
    }

    /// Checks every value of a result built in Rust.
    pub fn validate(&self, iteration: u64) -> Result<()> {
        let range = |name: &str, requirement: String, got: f64| {
            Err(Error::new(
                ErrorCode::InvalidResult,
                ErrorKind::Range,
                name,
                value::concat(&[name, " must be ", &requirement, ", got ", &num::to_js_string(got)]),
            ))
        };
        if value::check_range(self.quality_score, 0.0, 100.0).is_none() {
            return range("quality_score", value::range_text(0.0, 100.0), self.quality_score);
        }
        if value::check_range(self.confidence, 0.0, 1.0).is_none() {
            return range("confidence", value::range_text(0.0, 1.0), self.confidence);
        }
        if !self.quality_delta.is_finite() {
            return range("quality_delta", "a finite number".into(), self.quality_delta);
        }
        if let Some(ts) = &self.timestamp {
            if !time::is_rfc3339(ts) {
                return Err(Error::new(
                    ErrorCode::InvalidResult,
                    ErrorKind::Range,
                    "timestamp",
                    value::concat(&[
                        "timestamp must be an RFC 3339 date-time, got ",
                        &Value::string(ts.as_str()).describe(),
                    ]),
                ));
            }
        }
        for (name, v) in [
            ("tokens_used", self.usage.tokens_used),
            ("token_cost_usd", self.usage.token_cost_usd),
            ("execution_time_ms", self.usage.execution_time_ms),
        ] {
            if let Some(v) = v {
                if value::check_range(v, 0.0, f64::MAX).is_none() {
                    return range(name, value::range_text(0.0, f64::MAX), v);
                }
            }
        }
        if let Some(n) = self.iteration_number {
            if n != iteration {
                return iteration_mismatch(n, iteration);
            }
        }
        Ok(())
    }
}

fn iteration_mismatch(given: u64, iteration: u64) -> Result<()> {
    Err(Error::new(
        ErrorCode::InvalidResult,
        ErrorKind::Range,
        "iteration_number",
        value::concat(&[
            "iteration_number must equal the iteration argument (",
            &crate::num::uint_string(iteration),
            "), got ",
            &crate::num::uint_string(given),
        ]),
    ))
}

/// Checks an iteration number argument (an integer in 1..=2^53-1).
pub fn validate_iteration(iteration: u64) -> Result<()> {
    if (1..=MAX_SAFE_INTEGER).contains(&iteration) {
        Ok(())
    } else {
        value::integer_argument(
            &Value::Number(iteration as f64),
            "iteration",
            ErrorCode::InvalidIteration,
            1,
            MAX_SAFE_INTEGER,
        )
        .map(|_| ())
        .and(Err(Error::new(
            ErrorCode::InvalidIteration,
            ErrorKind::Range,
            "iteration",
            "iteration must be an integer >= 1",
        )))
    }
}

/// What `recordIterationResult` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recorded {
    /// The iteration was recorded.
    Added,
    /// (`strictIterations`) The call re-recorded the last iteration with the same result:
    /// accepted, and nothing changed (a loop resumed from a snapshot repeats its last record).
    Duplicate,
}

impl Recorded {
    /// Whether the call was an accepted re-record that changed nothing.
    pub fn is_duplicate(self) -> bool {
        self == Recorded::Duplicate
    }

    /// What the JS API's `recordIterationResult` returns: nothing (the seed's `undefined`)
    /// for a new record, `{duplicate: true}` for an accepted re-record.
    pub fn to_value(self) -> Option<Value> {
        self.is_duplicate().then(|| ObjectBuilder::new().boolean("duplicate", true).build())
    }
}

/// Whether `iteration` may be recorded after the last recorded iteration `last` without a
/// closer look: always without `strictIterations` (`strict`, see
/// [`EarlyStoppingConfig::strict`]) or history, else only when it is greater. Anything else is
/// a re-record or an error, which [`check_iteration_order`] tells apart.
#[inline]
pub fn iteration_follows(strict: bool, last: Option<u64>, iteration: u64) -> bool {
    !strict || last.is_none_or(|last| iteration > last)
}

/// The `strictIterations` rule for `recordIterationResult(iteration, result)` after the
/// history's `last` record (`strict`: [`EarlyStoppingConfig::strict`]). Without the option (or history, or when `iteration` is greater
/// than the last): [`Recorded::Added`]. The last iteration again with the same caller-given
/// fields: [`Recorded::Duplicate`] (record nothing). The same fields means: quality, confidence,
/// verification status and delta equal (as numbers: `0` and `-0` are the same), each usage
/// field given in both with equal values or absent from both, and the timestamp equal when
/// the new call gives one (a call without a timestamp would have taken the clock's time, which
/// can never repeat, so it is not compared; the record keeps its first timestamp). Anything
/// else is an `invalid_iteration` error on `iteration` saying what differs.
pub fn check_iteration_order(
    strict: bool,
    last: Option<&IterationRecord>,
    iteration: u64,
    result: &IterationResult,
) -> Result<Recorded> {
    let Some(last) = last else { return Ok(Recorded::Added) };
    let last_iteration = last.observation.iteration;
    if iteration_follows(strict, Some(last_iteration), iteration) {
        return Ok(Recorded::Added);
    }
    // One message for both errors: an earlier number, or the last one with another result.
    let differs = if iteration < last_iteration {
        ""
    } else {
        match first_difference(last, result) {
            None => return Ok(Recorded::Duplicate),
            Some(field) => field,
        }
    };
    Err(Error::new(
        ErrorCode::InvalidIteration,
        ErrorKind::Range,
        "iteration",
        value::concat(&[
            "iteration must be greater than the last recorded iteration (",
            &num::uint_string(last_iteration),
            ") or repeat it with the same result, got ",
            &num::uint_string(iteration),
            if differs.is_empty() { "" } else { " with a different " },
            differs,
        ]),
    ))
}

/// The first caller-given field in which `result` differs from the record `last` (numbers
/// compared as numbers, so `0` and `-0` are equal; a usage field given in one call only is a
/// difference). An `if` chain: the smallest form in the size-budgeted WebAssembly module.
fn first_difference(last: &IterationRecord, result: &IterationResult) -> Option<&'static str> {
    let o = &last.observation;
    let had = last.usage.as_deref().copied().unwrap_or_default();
    let given = &result.usage;
    Some(if o.quality_score != result.quality_score {
        "quality_score"
    } else if o.confidence != result.confidence {
        "confidence"
    } else if o.verification_status != result.verification_status {
        "verification_status"
    } else if o.quality_delta != result.quality_delta {
        "quality_delta"
    } else if had.tokens_used != given.tokens_used {
        "tokens_used"
    } else if had.token_cost_usd != given.token_cost_usd {
        "token_cost_usd"
    } else if had.execution_time_ms != given.execution_time_ms {
        "execution_time_ms"
    } else if result.timestamp.as_deref().is_some_and(|t| t != &*last.timestamp) {
        // A timestamp is compared only when this call gives one (see `check_iteration_order`).
        "timestamp"
    } else {
        return None;
    })
}

/// The decision-relevant part of a record: what the stateless rules read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    /// The iteration number.
    pub iteration: u64,
    /// 0..=100.
    pub quality_score: f64,
    /// 0..=1.
    pub confidence: f64,
    /// The caller's delta (the seed's plateau rule reads this, not the score difference).
    pub quality_delta: f64,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
}

impl AsRef<Observation> for Observation {
    fn as_ref(&self) -> &Observation {
        self
    }
}

/// One entry of the history: the seed's six fields plus the optional usage the caller gave.
/// Kept to 64 bytes (plus the timestamp's heap bytes): usage is boxed because it is rare.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationRecord {
    /// Decision-relevant fields.
    pub observation: Observation,
    /// RFC 3339, stored verbatim.
    pub timestamp: Box<str>,
    /// Optional resource figures.
    pub usage: Option<Box<ResourceUsage>>,
}

impl AsRef<Observation> for IterationRecord {
    fn as_ref(&self) -> &Observation {
        &self.observation
    }
}

impl IterationRecord {
    /// The record as the seed's `getIterationHistory()` returns it.
    pub fn to_value(&self) -> Value {
        let o = &self.observation;
        let mut entries = ObjectBuilder::new();
        entries
            .number("iteration_number", o.iteration as f64)
            .number("quality_score", o.quality_score)
            .number("confidence", o.confidence)
            .string("verification_status", o.verification_status.as_str())
            .number("quality_delta", o.quality_delta)
            .string("timestamp", &self.timestamp);
        if let Some(usage) = &self.usage {
            usage.push_values(&mut entries);
        }
        entries.build()
    }

    pub(crate) fn from_snapshot(value: &Value, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "record", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        let iteration = reader.integer(ITERATION_NUMBER, 1, MAX_SAFE_INTEGER)?;
        reader.string(TIMESTAMP)?; // a restored record must carry its timestamp
        let result = IterationResult::read(value, Naming::Snake, path, ErrorCode::InvalidSnapshot)?;
        Ok(make_record(iteration, result, String::new()))
    }
}

fn make_record(iteration: u64, result: IterationResult, fallback_timestamp: String) -> IterationRecord {
    IterationRecord {
        observation: Observation {
            iteration,
            quality_score: result.quality_score,
            confidence: result.confidence,
            quality_delta: result.quality_delta,
            verification_status: result.verification_status,
        },
        timestamp: result.timestamp.unwrap_or(fallback_timestamp).into_boxed_str(),
        usage: (!result.usage.is_empty()).then(|| Box::new(result.usage)),
    }
}

// ---------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------

/// One step of a detected plateau, as the seed's `details.improvements` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlateauStep {
    /// The later record's iteration number.
    pub iteration: u64,
    /// `|delta| / previous quality` (0 when the previous quality is <= 0).
    pub improvement: f64,
    /// The later record's reported delta.
    pub delta: f64,
}

/// What an outside source reported as the detection iteration: the seed copies it verbatim,
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

/// The seed's `details` object of a stopping decision.
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
}

impl StoppingDetails {
    /// The seed's details object.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        match self {
            StoppingDetails::HighConfidence { confidence, quality_score, verification_status } => {
                o.number("confidence", *confidence).number("quality_score", *quality_score);
                if let Some(status) = verification_status {
                    o.string("verification_status", status.as_str());
                }
            }
            StoppingDetails::QualityPlateau { consecutive_count, improvements, average_quality, threshold } => {
                let steps = value::array_of(improvements, |step| {
                    ObjectBuilder::new()
                        .number("iteration", step.iteration as f64)
                        .number("improvement", step.improvement)
                        .number("delta", step.delta)
                        .build()
                });
                o.number("consecutive_count", *consecutive_count as f64)
                    .value("improvements", steps)
                    .number("average_quality", *average_quality)
                    .number("threshold", *threshold);
            }
            StoppingDetails::DiminishingReturns { detected_at_iteration, analytics_reason } => {
                if let Some(v) = detected_at_iteration.to_value() {
                    o.value("detected_at_iteration", v);
                }
                o.string("analytics_reason", analytics_reason);
            }
            StoppingDetails::MaxIterations { iterations, max_iterations } => {
                o.number("iterations", *iterations as f64).number("max_iterations", *max_iterations as f64);
            }
            StoppingDetails::BudgetExhausted { budget, limit, observed, records_without_value } => {
                o.string("budget", budget.as_str())
                    .number("limit", *limit)
                    .number("observed", *observed)
                    .number("records_without_value", *records_without_value as f64);
            }
            StoppingDetails::QualityRegression { best_iteration, best_quality_score, tolerance, patience } => {
                o.number("best_iteration", *best_iteration as f64)
                    .number("best_quality_score", *best_quality_score)
                    .number("tolerance", *tolerance)
                    .number("patience", *patience as f64);
            }
            StoppingDetails::NoImprovement {
                best_iteration,
                best_quality_score,
                iterations_without_improvement,
                patience,
            } => {
                o.number("best_iteration", *best_iteration as f64)
                    .number("best_quality_score", *best_quality_score)
                    .number("iterations_without_improvement", *iterations_without_improvement as f64)
                    .number("patience", *patience as f64);
            }
        }
        o.build()
    }

    // Inlined into each caller: the snapshot reader is its only caller in the WebAssembly
    // module, and as a shared function (the result readers call it too) it cost ~1 KB there.
    #[inline(always)]
    pub(crate) fn from_snapshot(value: &Value, path: &str) -> Result<Self> {
        let snapshot_error = |field: &str, what: &str| {
            let field = value::join_path(path, field);
            Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Range, field.clone(), value::concat(&[&field, " ", what]))
        };
        let reader = ObjectReader::new(value, path, "stoppingDetails", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        let f = FieldName::same;
        if reader.get(f("max_iterations")).is_some() {
            reader.reject_unknown(&[f("iterations"), f("max_iterations")])?;
            return Ok(StoppingDetails::MaxIterations {
                iterations: reader.integer(f("iterations"), 1, MAX_SAFE_INTEGER)?,
                max_iterations: reader.integer(f("max_iterations"), 1, MAX_SAFE_INTEGER)?,
            });
        }
        if reader.get(f("budget")).is_some() {
            reader.reject_unknown(&[f("budget"), f("limit"), f("observed"), f("records_without_value")])?;
            let budget = reader.choice(f("budget"), &["tokens", "cost_usd", "wall_clock_ms"])?;
            return Ok(StoppingDetails::BudgetExhausted {
                budget: Budget::parse(budget).unwrap_or(Budget::Tokens),
                limit: reader.number(f("limit"), 0.0, f64::MAX)?,
                observed: reader.number(f("observed"), 0.0, f64::MAX)?,
                records_without_value: reader.integer(f("records_without_value"), 0, MAX_SAFE_INTEGER)?,
            });
        }
        if reader.get(f("iterations_without_improvement")).is_some() {
            reader.reject_unknown(&[
                f("best_iteration"),
                f("best_quality_score"),
                f("iterations_without_improvement"),
                f("patience"),
            ])?;
            return Ok(StoppingDetails::NoImprovement {
                best_iteration: reader.integer(f("best_iteration"), 1, MAX_SAFE_INTEGER)?,
                best_quality_score: reader.number(f("best_quality_score"), 0.0, 100.0)?,
                iterations_without_improvement: reader.integer(
                    f("iterations_without_improvement"),
                    1,
                    MAX_SAFE_INTEGER,
                )?,
                patience: reader.integer(f("patience"), 1, MAX_SAFE_INTEGER)?,
            });
        }
        if reader.get(f("patience")).is_some() {
            reader.reject_unknown(&[f("best_iteration"), f("best_quality_score"), f("tolerance"), f("patience")])?;
            return Ok(StoppingDetails::QualityRegression {
                best_iteration: reader.integer(f("best_iteration"), 1, MAX_SAFE_INTEGER)?,
                best_quality_score: reader.number(f("best_quality_score"), 0.0, 100.0)?,
                tolerance: reader.number(f("tolerance"), 0.0, 100.0)?,
                patience: reader.integer(f("patience"), 1, MAX_SAFE_INTEGER)?,
            });
        }
        if reader.get(FieldName::same("analytics_reason")).is_some() {
            reader.reject_unknown(&[FieldName::same("detected_at_iteration"), FieldName::same("analytics_reason")])?;
            let detected_at_iteration = match reader.get(FieldName::same("detected_at_iteration")) {
                None => ReportedIteration::Absent,
                Some(Value::Null) => ReportedIteration::Null,
                Some(_) => ReportedIteration::At(reader.integer(
                    FieldName::same("detected_at_iteration"),
                    1,
                    MAX_SAFE_INTEGER,
                )?),
            };
            let analytics_reason = reader.string(FieldName::same("analytics_reason"))?.to_string();
            return Ok(StoppingDetails::DiminishingReturns { detected_at_iteration, analytics_reason });
        }
        if reader.get(FieldName::same("improvements")).is_some() {
            let fields = ["consecutive_count", "improvements", "average_quality", "threshold"].map(FieldName::same);
            reader.reject_unknown(&fields)?;
            let consecutive_count = reader.integer(FieldName::same("consecutive_count"), 2, MAX_SAFE_INTEGER)?;
            let Some(Value::Array(items)) = reader.get(FieldName::same("improvements")) else {
                return Err(snapshot_error("improvements", "must be an array"));
            };
            let mut improvements = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let item_path = value::index_path(&value::join_path(path, "improvements"), i);
                let step =
                    ObjectReader::new(item, &item_path, "improvement", Naming::Snake, ErrorCode::InvalidSnapshot)?;
                step.reject_unknown(&["iteration", "improvement", "delta"].map(FieldName::same))?;
                improvements.push(PlateauStep {
                    iteration: step.integer(FieldName::same("iteration"), 1, MAX_SAFE_INTEGER)?,
                    improvement: step.number(FieldName::same("improvement"), 0.0, f64::MAX)?,
                    delta: step.number(FieldName::same("delta"), f64::MIN, f64::MAX)?,
                });
            }
            return Ok(StoppingDetails::QualityPlateau {
                consecutive_count,
                improvements,
                average_quality: reader.number(FieldName::same("average_quality"), 0.0, 100.0)?,
                // Points (0..=100) when the stop came from an absolute plateau.
                threshold: reader.number(FieldName::same("threshold"), 0.0, 100.0)?,
            });
        }
        reader.reject_unknown(&[CONFIDENCE, QUALITY_SCORE, VERIFICATION_STATUS])?;
        let verification_status = match reader.get(VERIFICATION_STATUS) {
            None => None,
            Some(_) => VerificationStatus::parse(reader.choice(VERIFICATION_STATUS, &VerificationStatus::NAMES)?),
        };
        Ok(StoppingDetails::HighConfidence {
            confidence: reader.number(CONFIDENCE, 0.0, 1.0)?,
            quality_score: reader.number(QUALITY_SCORE, 0.0, 100.0)?,
            verification_status,
        })
    }
}

/// The best record so far: the highest quality among passed records reaching
/// `min_quality_threshold`, else the highest overall, earliest on ties (a listed extra on
/// every decision, so a loop that stops on a plateau can return its best output).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BestIteration {
    /// `(iteration, quality)` of the best passed record reaching the quality bar.
    pub verified: Option<(u64, f64)>,
    /// `(iteration, quality)` of the best record overall.
    pub overall: Option<(u64, f64)>,
}

impl BestIteration {
    /// Folds one record in (O(1)).
    #[inline]
    pub fn observe(&mut self, observation: &Observation, min_quality_threshold: f64) {
        let candidate = (observation.iteration, observation.quality_score);
        if self.overall.is_none_or(|(_, q)| observation.quality_score > q) {
            self.overall = Some(candidate);
        }
        if observation.verification_status == VerificationStatus::Passed
            && observation.quality_score >= min_quality_threshold
            && self.verified.is_none_or(|(_, q)| observation.quality_score > q)
        {
            self.verified = Some(candidate);
        }
    }

    /// Recomputes from a whole history (after `configure()` changes the quality bar).
    pub fn over<R: AsRef<Observation>>(records: &[R], min_quality_threshold: f64) -> Self {
        let mut best = BestIteration::default();
        for record in records {
            best.observe(record.as_ref(), min_quality_threshold);
        }
        best
    }

    /// `(iteration, quality)` of the best record, if any.
    #[inline]
    pub fn get(&self) -> Option<(u64, f64)> {
        self.verified.or(self.overall)
    }
}

/// The seed's `StoppingDecision`, plus the best-iteration extras.
#[derive(Clone, Debug, PartialEq)]
pub struct StoppingDecision {
    /// Whether to stop.
    pub stop: bool,
    /// Why, as the seed words it.
    pub reason: String,
    /// Confidence in the decision.
    pub confidence: f64,
    /// Which criterion fired.
    pub trigger: Trigger,
    /// Present on stops (the seed's `details`).
    pub details: Option<StoppingDetails>,
    /// `(iteration, quality)` of the best record so far.
    pub best: Option<(u64, f64)>,
    /// The state of every configured budget (empty when none is configured).
    pub budgets: Vec<BudgetStatus>,
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
    fn to_value(&self) -> Value {
        ObjectBuilder::new()
            .string("budget", self.budget.as_str())
            .number("limit", self.limit)
            .number("observed", self.observed)
            .number("records_without_value", self.records_without_value as f64)
            .boolean("exhausted", self.exhausted)
            .build()
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
        }
    }

    /// The decision object as the JS API returns it.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.boolean("stop", self.stop)
            .string("reason", &self.reason)
            .number("confidence", self.confidence)
            .string("trigger", self.trigger.as_str());
        if let Some(details) = &self.details {
            o.value("details", details.to_value());
        }
        o.opt_number("best_iteration", self.best.map(|b| b.0 as f64))
            .opt_number("best_quality_score", self.best.map(|b| b.1));
        if !self.budgets.is_empty() {
            o.value("budgets", value::array_of(&self.budgets, BudgetStatus::to_value));
        }
        o.build()
    }
}

/// Reason of a decision on an empty history.
pub const REASON_NO_ITERATIONS: &str = "No iterations completed yet";

/// Reason when no criterion stopped.
pub const REASON_CONTINUE: &str = "Continuing iteration - no stopping criteria met";

/// The seed's `checkHighConfidence`, returning only a stopping decision (its non-stopping
/// answers are thrown away by `shouldStop`).
pub fn check_high_confidence(config: &EarlyStoppingConfig, last: &Observation) -> Option<StoppingDecision> {
    high_confidence_details(config, last).map(|details| stop_decision(config, details))
}

/// The high-confidence rule on the last record: the stop's details, if it stops.
#[inline]
pub fn high_confidence_details(config: &EarlyStoppingConfig, last: &Observation) -> Option<StoppingDetails> {
    let meets_confidence = last.confidence >= config.high_confidence_threshold;
    let meets_quality = last.quality_score >= config.min_quality_threshold;
    if !(meets_confidence && meets_quality) {
        return None;
    }
    let verification_status = if config.require_verification {
        if last.verification_status != VerificationStatus::Passed {
            return None;
        }
        Some(last.verification_status)
    } else {
        None
    };
    Some(StoppingDetails::HighConfidence {
        confidence: last.confidence,
        quality_score: last.quality_score,
        verification_status,
    })
}

/// The seed's `checkQualityPlateau` over the history's tail (`history` may be the whole
/// history or just its last `plateau_consecutive_count` records), returning only a stop.
pub fn check_plateau<R: AsRef<Observation>>(config: &EarlyStoppingConfig, history: &[R]) -> Option<StoppingDecision> {
    plateau_details(config, history).map(|details| stop_decision(config, details))
}

/// The plateau rule over a window of the last records: the stop's details, if it stops.
/// Not inlined: a decision and the seed's `checkQualityPlateau` answer share one copy (in the
/// size-budgeted WebAssembly module; a call per decision costs nothing measurable).
#[inline(never)]
pub fn plateau_details<W: ObservationWindow + ?Sized>(
    config: &EarlyStoppingConfig,
    window: &W,
) -> Option<StoppingDetails> {
    let required = config.plateau_consecutive_count;
    let required_len = usize::try_from(required).ok()?;
    let len = window.len();
    if len < required_len {
        return None;
    }
    let start = len - required_len;
    if let Some(min_quality) = config.plateau_min_quality {
        // A flat window of poor work is a failing run, not a finished one: leave it to the
        // explicit give-up rules (noImprovementPatience, maxIterations, budgets).
        if (start..len).any(|i| window.get(i).is_none_or(|r| r.quality_score < min_quality)) {
            return None;
        }
    }
    // Each step's change, as the seed measures it (pairs of consecutive records).
    let step = |prev: &Observation, curr: &Observation| {
        let delta = match config.plateau_delta_source {
            Some(PlateauDeltaSource::Computed) => curr.quality_score - prev.quality_score,
            _ => curr.quality_delta,
        };
        let improvement = match config.plateau_mode {
            Some(PlateauMode::Absolute) => delta.abs(),
            _ if prev.quality_score > 0.0 => delta.abs() / prev.quality_score,
            _ => 0.0,
        };
        (delta, improvement)
    };
    // Allocates only once a step is flat: most decisions find a step above the threshold first.
    let mut improvements = Vec::new();
    let mut prev = window.get(start)?;
    let mut sum = prev.quality_score;
    for i in start + 1..len {
        let curr = window.get(i)?;
        let (delta, improvement) = step(&prev, &curr);
        if improvement >= config.plateau_improvement_threshold {
            return None;
        }
        if improvements.is_empty() {
            improvements.reserve_exact(required_len - 1);
        }
        improvements.push(PlateauStep { iteration: curr.iteration, improvement, delta });
        sum += curr.quality_score;
        prev = curr;
    }
    Some(StoppingDetails::QualityPlateau {
        consecutive_count: required,
        improvements,
        average_quality: sum / required_len as f64,
        threshold: config.plateau_improvement_threshold,
    })
}

/// The reason text of a stop (the seed's wording, and the options' in the same style).
pub fn stop_reason(config: &EarlyStoppingConfig, details: &StoppingDetails) -> String {
    match details {
        StoppingDetails::HighConfidence { confidence, verification_status, .. } => {
            let mut reason = String::from("High confidence (");
            num::push_fixed(&mut reason, confidence * 100.0, 1);
            reason.push_str(if verification_status.is_some() { "%) AND verification passed" } else { "%) reached" });
            reason
        }
        StoppingDetails::QualityPlateau { consecutive_count, threshold, .. } => {
            let mut reason = String::from("Quality plateau detected: ");
            reason.push_str(&crate::num::uint_string(*consecutive_count));
            reason.push_str(" consecutive iterations with <");
            if config.plateau_mode == Some(PlateauMode::Absolute) {
                num::push_js_string(&mut reason, *threshold);
                reason.push_str(" points improvement");
            } else {
                num::push_fixed(&mut reason, threshold * 100.0, 0);
                reason.push_str("% improvement");
            }
            reason
        }
        StoppingDetails::DiminishingReturns { analytics_reason, .. } => diminishing_returns_reason(analytics_reason),
        StoppingDetails::MaxIterations { iterations, max_iterations } => crate::value::concat(&[
            "Maximum iterations reached (",
            &crate::num::uint_string(*iterations),
            "/",
            &crate::num::uint_string(*max_iterations),
            ")",
        ]),
        StoppingDetails::BudgetExhausted { budget, limit, observed, records_without_value } => {
            let mut reason = String::from("Budget exhausted: total ");
            reason.push_str(budget.field());
            reason.push(' ');
            num::push_js_string(&mut reason, *observed);
            reason.push_str(" > limit ");
            num::push_js_string(&mut reason, *limit);
            if *records_without_value > 0 {
                reason.push_str(" (");
                reason.push_str(&crate::num::uint_string(*records_without_value));
                reason.push_str(" records without ");
                reason.push_str(budget.field());
                reason.push_str(" not counted)");
            }
            reason
        }
        StoppingDetails::QualityRegression { best_iteration, best_quality_score, tolerance, patience } => {
            let mut reason = String::from("Quality regression: ");
            reason.push_str(&crate::num::uint_string(*patience));
            reason.push_str(" consecutive iterations more than ");
            num::push_js_string(&mut reason, *tolerance);
            reason.push_str(" points below the best (");
            num::push_js_string(&mut reason, *best_quality_score);
            reason.push_str(" at iteration ");
            reason.push_str(&crate::num::uint_string(*best_iteration));
            reason.push(')');
            reason
        }
        StoppingDetails::NoImprovement {
            best_iteration, best_quality_score, iterations_without_improvement, ..
        } => {
            let mut reason = String::from("No improvement: ");
            reason.push_str(&crate::num::uint_string(*iterations_without_improvement));
            reason.push_str(" consecutive iterations without a new best (");
            num::push_js_string(&mut reason, *best_quality_score);
            reason.push_str(" at iteration ");
            reason.push_str(&crate::num::uint_string(*best_iteration));
            reason.push(')');
            reason
        }
    }
}

/// `'Diminishing returns detected: <the source's reason>'`.
pub fn diminishing_returns_reason(analytics_reason: &str) -> String {
    crate::value::concat(&["Diminishing returns detected: ", analytics_reason])
}

/// The trigger a stop's details belong to.
pub fn stop_trigger(details: &StoppingDetails) -> Trigger {
    match details {
        StoppingDetails::HighConfidence { .. } => Trigger::HighConfidence,
        StoppingDetails::QualityPlateau { .. } => Trigger::QualityPlateau,
        StoppingDetails::DiminishingReturns { .. } => Trigger::DiminishingReturns,
        StoppingDetails::MaxIterations { .. } => Trigger::MaxIterations,
        StoppingDetails::BudgetExhausted { .. } => Trigger::BudgetExhausted,
        StoppingDetails::QualityRegression { .. } => Trigger::QualityRegression,
        StoppingDetails::NoImprovement { .. } => Trigger::NoImprovement,
    }
}

/// The confidence of a stop (the seed's constants; a high-confidence stop carries the
/// record's confidence).
#[inline]
pub fn stop_confidence(details: &StoppingDetails) -> f64 {
    match details {
        StoppingDetails::HighConfidence { confidence, .. } => *confidence,
        StoppingDetails::QualityPlateau { .. } => 0.85,
        StoppingDetails::DiminishingReturns { .. } => 0.80,
        StoppingDetails::MaxIterations { .. } | StoppingDetails::BudgetExhausted { .. } => 1.0,
        StoppingDetails::QualityRegression { .. } | StoppingDetails::NoImprovement { .. } => 0.8,
    }
}

/// A stopping decision from a stop's details (no best iteration or budgets yet).
pub fn stop_decision(config: &EarlyStoppingConfig, details: StoppingDetails) -> StoppingDecision {
    StoppingDecision::stop(stop_reason(config, &details), stop_confidence(&details), stop_trigger(&details), details)
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
    /// Validates what an outside source returned (code `invalid_analytics`).
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let reader = ObjectReader::new(value, "", "detectDiminishingReturns()", naming, ErrorCode::InvalidAnalytics)?;
        let detected = reader.boolean(FieldName::same("detected"))?;
        let iteration = match reader.get(FieldName::same("iteration")) {
            None => ReportedIteration::Absent,
            Some(Value::Null) => ReportedIteration::Null,
            Some(_) => ReportedIteration::At(reader.integer(FieldName::same("iteration"), 1, MAX_SAFE_INTEGER)?),
        };
        let reason = reader.string(FieldName::same("reason"))?.to_string();
        Ok(DiminishingReturnsReport { detected, iteration, reason })
    }

    /// The report as `{detected, iteration, reason}`.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.boolean("detected", self.detected);
        if let Some(v) = self.iteration.to_value() {
            o.value("iteration", v);
        }
        o.string("reason", &self.reason).build()
    }
}

/// The seed's `checkDiminishingReturns` on a report, returning only a stop.
pub fn diminishing_returns_decision(report: &DiminishingReturnsReport) -> Option<StoppingDecision> {
    diminishing_returns_details(report).map(|details| {
        StoppingDecision::stop(
            diminishing_returns_reason(&report.reason),
            stop_confidence(&details),
            Trigger::DiminishingReturns,
            details,
        )
    })
}

/// The diminishing-returns rule on a source's report: the stop's details, if it stops.
#[inline]
pub fn diminishing_returns_details(report: &DiminishingReturnsReport) -> Option<StoppingDetails> {
    report.detected.then(|| StoppingDetails::DiminishingReturns {
        detected_at_iteration: report.iteration,
        analytics_reason: report.reason.clone(),
    })
}

// ---------------------------------------------------------------------------------------
// The seed's check methods, whole
// ---------------------------------------------------------------------------------------
//
// `shouldStop` keeps only a check's stop; the seed's `checkHighConfidence`,
// `checkQualityPlateau` and `checkDiminishingReturns` are public methods that also answer
// when they do not stop. A binding that lets its users call or override them (the JS layer,
// a drop-in for the seed's class) answers with these, word for word the seed's (a stop's
// answer is the decision without the best-iteration and budget extras).

/// `checkHighConfidence` when the thresholds are not met.
pub const REASON_HIGH_CONFIDENCE_NOT_MET: &str = "High confidence threshold not met";

/// `checkQualityPlateau` when the last steps improved enough.
pub const REASON_STILL_IMPROVING: &str = "Quality still improving above threshold";

/// `checkDiminishingReturns` without a source.
pub const REASON_NO_ANALYTICS: &str = "Iteration analytics not available";

/// `checkDiminishingReturns` when the source detected nothing.
pub const REASON_NO_DIMINISHING_RETURNS: &str = "Diminishing returns not detected";

/// The seed's `checkHighConfidence(record)`: the stop, `'High confidence but verification
/// status: ...'` (confidence x 0.8) when only verification is missing, else `'High
/// confidence threshold not met'` with the record's confidence.
pub fn high_confidence_answer(config: &EarlyStoppingConfig, record: &Observation) -> StoppingDecision {
    if let Some(details) = high_confidence_details(config, record) {
        return stop_decision(config, details);
    }
    if record.confidence >= config.high_confidence_threshold && record.quality_score >= config.min_quality_threshold {
        let reason = value::concat(&["High confidence but verification status: ", record.verification_status.as_str()]);
        return StoppingDecision::go_on(&reason, record.confidence * 0.8);
    }
    StoppingDecision::go_on(REASON_HIGH_CONFIDENCE_NOT_MET, record.confidence)
}

/// The seed's `checkQualityPlateau()` over `window` (the last `plateau_consecutive_count`
/// records, or more) of a history of `recorded` records: `'Insufficient iterations for
/// plateau detection (n/N)'` (0.5), the stop, or `'Quality still improving above
/// threshold'` (0.7).
pub fn plateau_answer<W: ObservationWindow + ?Sized>(
    config: &EarlyStoppingConfig,
    window: &W,
    recorded: u64,
) -> StoppingDecision {
    let required = config.plateau_consecutive_count;
    if recorded < required {
        let reason = value::concat(&[
            "Insufficient iterations for plateau detection (",
            &num::uint_string(recorded),
            "/",
            &num::uint_string(required),
            ")",
        ]);
        return StoppingDecision::go_on(&reason, 0.5);
    }
    match plateau_details(config, window) {
        Some(details) => stop_decision(config, details),
        None => StoppingDecision::go_on(REASON_STILL_IMPROVING, 0.7),
    }
}

/// The seed's `checkDiminishingReturns()` on the source's report (`None`: no source attached).
pub fn diminishing_returns_answer(report: Option<&DiminishingReturnsReport>) -> StoppingDecision {
    match report {
        None => StoppingDecision::go_on(REASON_NO_ANALYTICS, 0.5),
        Some(report) => diminishing_returns_decision(report)
            .unwrap_or_else(|| StoppingDecision::go_on(REASON_NO_DIMINISHING_RETURNS, 0.7)),
    }
}

impl IterationRecord {
    /// A history record given by the caller rather than recorded (the JS layer's
    /// `iterationHistory`, which the seed lets callers write to): the record's fields as
    /// `recordIterationResult` stores them, `iteration_number` required, `timestamp` optional
    /// (empty when absent); code `invalid_result`, fields under `path` (`iterationHistory[3]`).
    pub fn from_history_value(value: &Value, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "record", Naming::Js, ErrorCode::InvalidResult)?;
        reader.reject_unknown(&RESULT_FIELDS)?;
        let iteration = reader.integer(ITERATION_NUMBER, 1, MAX_SAFE_INTEGER)?;
        let result = IterationResult::read(value, Naming::Js, path, ErrorCode::InvalidResult)?;
        Ok(make_record(iteration, result, String::new()))
    }
}

/// The JS name of the seed's history field, which errors about its records start with.
pub const HISTORY_FIELD: &str = "iterationHistory";

/// `iterationHistory[i]`: where a history record's fields are named in errors.
pub fn history_path(index: usize) -> String {
    value::index_path(HISTORY_FIELD, index)
}

/// Checks records written to the history from outside (the JS layer's `iterationHistory`),
/// after records whose usage sums are `sums` (tokens, cost, time): each as
/// [`IterationRecord::from_history_value`] reads it, with its fields under `path(i)` (usually
/// [`history_path`]), and refused when it would make a sum overflow, as a recorded one is.
pub fn check_history(records: &Value, path: impl Fn(usize) -> String, sums: [f64; 3]) -> Result<()> {
    let Value::Array(records) = records else {
        return Err(Error::new(
            ErrorCode::InvalidResult,
            ErrorKind::Type,
            HISTORY_FIELD,
            value::concat(&[HISTORY_FIELD, " must be an array, got ", &records.describe()]),
        ));
    };
    let mut tally = LoopTally { sums, ..LoopTally::default() };
    for (i, record) in records.iter().enumerate() {
        let path = path(i);
        let record = IterationRecord::from_history_value(record, &path)?;
        tally.check_usage(record.usage.as_deref(), &path, ErrorCode::InvalidResult)?;
        tally.observe(&record.observation, record.usage.as_deref(), None);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Opt-in options beyond the seed
// ---------------------------------------------------------------------------------------

/// Running totals the opt-in options read, folded in record by record (O(1) per record).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoopTally {
    /// Sums of tokens, cost and wall-clock time over the records that report them.
    pub sums: [f64; 3],
    /// Records that do not report tokens, cost, wall-clock time.
    pub without: [u64; 3],
    /// `(iteration, quality)` of the highest quality so far (earliest on ties).
    pub peak: Option<(u64, f64)>,
    /// How many of the last records in a row regressed (with a regression tolerance).
    pub regression_streak: u64,
    /// Records since the highest quality (0 on the record that set it).
    pub since_peak: u64,
}

impl LoopTally {
    /// Folds one record in; `regression_tolerance` is the config's.
    #[inline]
    pub fn observe(
        &mut self,
        observation: &Observation,
        usage: Option<&ResourceUsage>,
        regression_tolerance: Option<f64>,
    ) {
        let usage = usage.copied().unwrap_or_default();
        for (i, v) in [usage.tokens_used, usage.token_cost_usd, usage.execution_time_ms].into_iter().enumerate() {
            match (v, self.sums.get_mut(i), self.without.get_mut(i)) {
                (Some(v), Some(sum), _) => *sum += v,
                (None, _, Some(count)) => *count += 1,
                _ => {}
            }
        }
        let q = observation.quality_score;
        let regressed = match (regression_tolerance, self.peak) {
            (Some(tolerance), Some((_, peak))) => q < peak - tolerance,
            _ => false,
        };
        self.regression_streak = if regressed { self.regression_streak + 1 } else { 0 };
        if self.peak.is_none_or(|(_, peak)| q > peak) {
            self.peak = Some((observation.iteration, q));
            self.since_peak = 0;
        } else {
            self.since_peak += 1;
        }
    }

    /// Checks that folding `usage` in keeps every running total finite. Each value is finite,
    /// but a sum of huge ones can overflow to Infinity, which no snapshot can carry (JSON has
    /// no Infinity) and no budget can honestly report; such a record is refused.
    /// `path` prefixes the field in the error (`history[3]` on restore).
    pub fn check_usage(&self, usage: Option<&ResourceUsage>, path: &str, code: ErrorCode) -> Result<()> {
        let Some(usage) = usage else { return Ok(()) };
        let fields = [
            (TOKENS_USED, usage.tokens_used),
            (TOKEN_COST_USD, usage.token_cost_usd),
            (EXECUTION_TIME_MS, usage.execution_time_ms),
        ];
        for ((field, value), sum) in fields.into_iter().zip(self.sums) {
            if let Some(v) = value {
                if !(sum + v).is_finite() {
                    let name = value::join_path(path, field.js());
                    return Err(Error::new(
                        code,
                        ErrorKind::Range,
                        name.clone(),
                        value::concat(&[
                            &name,
                            " would make the running total overflow: ",
                            &num::to_js_string(sum),
                            " + ",
                            &num::to_js_string(v),
                            " is not a finite number",
                        ]),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Recomputes over a whole history (after `configure()`).
    pub fn over(history: &[IterationRecord], regression_tolerance: Option<f64>) -> Self {
        let mut tally = LoopTally::default();
        for record in history {
            tally.observe(&record.observation, record.usage.as_deref(), regression_tolerance);
        }
        tally
    }

    /// The state of every configured budget.
    #[inline]
    pub fn budgets(&self, config: &EarlyStoppingConfig) -> Vec<BudgetStatus> {
        // A plain loop: `filter_map(..).collect()` instantiates iterator-specialized code.
        let mut out = Vec::new();
        for (budget, limit) in config.budgets() {
            let Some(limit) = limit else { continue };
            let observed = self.sums.get(budget.index()).copied().unwrap_or(0.0);
            out.push(BudgetStatus {
                budget,
                limit,
                observed,
                records_without_value: self.without.get(budget.index()).copied().unwrap_or(0),
                exhausted: observed > limit,
            });
        }
        out
    }
}

/// Opt-in budgets: stop once a sum exceeds its limit (checked in the order tokens, cost,
/// wall clock). Records without the field are unknown: the known sum is a lower bound, so
/// exceeding the limit is certain while staying under it is not (the decision's `budgets`
/// list says how many records were unknown).
pub fn check_budgets(statuses: &[BudgetStatus]) -> Option<StoppingDecision> {
    budget_details(statuses).map(|details| stop_decision(&EarlyStoppingConfig::default(), details))
}

/// The budget rule: the stop's details, if a budget is exhausted.
#[inline]
pub fn budget_details(statuses: &[BudgetStatus]) -> Option<StoppingDetails> {
    let hit = statuses.iter().find(|s| s.exhausted)?;
    Some(StoppingDetails::BudgetExhausted {
        budget: hit.budget,
        limit: hit.limit,
        observed: hit.observed,
        records_without_value: hit.records_without_value,
    })
}

/// Opt-in `maxIterations`: stop once that many iterations are recorded.
pub fn check_max_iterations(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDecision> {
    max_iterations_details(config, recorded).map(|details| stop_decision(config, details))
}

/// The `maxIterations` rule: the stop's details, if it stops.
#[inline]
pub fn max_iterations_details(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDetails> {
    let max = config.max_iterations?;
    (recorded >= max).then_some(StoppingDetails::MaxIterations { iterations: recorded, max_iterations: max })
}

/// Opt-in warm-up: while fewer than `minIterations` are recorded, no quality trigger stops.
pub fn warm_up(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDecision> {
    let min = warm_up_min(config, recorded)?;
    Some(StoppingDecision::go_on(&crate::loops::state::warm_up_reason(recorded, min), 1.0))
}

/// The warm-up rule: `minIterations` while fewer iterations are recorded, else `None`.
#[inline]
pub fn warm_up_min(config: &EarlyStoppingConfig, recorded: u64) -> Option<u64> {
    config.min_iterations.filter(|min| recorded < *min)
}

/// Opt-in regression guard: stop once the last `regressionPatience` records each stayed
/// more than `regressionTolerance` points below the best quality seen before them.
pub fn check_regression(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDecision> {
    regression_details(config, tally).map(|details| stop_decision(config, details))
}

/// The regression rule: the stop's details, if it stops.
#[inline]
pub fn regression_details(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDetails> {
    let tolerance = config.regression_tolerance?;
    let patience = config.regression_patience.unwrap_or(DEFAULT_REGRESSION_PATIENCE);
    let (best_iteration, best_quality_score) = tally.peak?;
    (tally.regression_streak >= patience).then_some(StoppingDetails::QualityRegression {
        best_iteration,
        best_quality_score,
        tolerance,
        patience,
    })
}

/// Opt-in give-up rule: stop once the last `noImprovementPatience` records each failed to
/// beat the best quality seen before them (a record equal to the best is no improvement).
pub fn check_no_improvement(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDecision> {
    no_improvement_details(config, tally).map(|details| stop_decision(config, details))
}

/// The no-improvement rule: the stop's details, if it stops.
#[inline]
pub fn no_improvement_details(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDetails> {
    let patience = config.no_improvement_patience?;
    let (best_iteration, best_quality_score) = tally.peak?;
    (tally.since_peak >= patience).then_some(StoppingDetails::NoImprovement {
        best_iteration,
        best_quality_score,
        iterations_without_improvement: tally.since_peak,
        patience,
    })
}

/// The seed's `shouldStop` order over a history (see the module doc), for the replay:
/// `tally` must have folded in exactly `history`. The order of checks lives in one place,
/// [`state::verdict`], which the owning [`EarlyStopping`] and the JS fast path call
/// too; this only adapts a history slice to it (the plateau rule reads the slice's tail).
/// The returned decision has no best-iteration or budget extras (the caller adds them).
pub fn decide_over<R, E, F>(
    config: &EarlyStoppingConfig,
    history: &[R],
    tally: &LoopTally,
    source: Option<F>,
) -> std::result::Result<StoppingDecision, E>
where
    R: AsRef<Observation>,
    F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
{
    let counters = LoopCounters { recorded: history.len() as u64, best: BestIteration::default(), tally: *tally };
    let verdict = state::verdict(config, &counters, history, source)?;
    Ok(state::bare_decision(config, verdict))
}

// ---------------------------------------------------------------------------------------
// The owning engine
// ---------------------------------------------------------------------------------------

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

/// The seed's `generateSummary()`.
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
    /// `{total_iterations: 0, stopped_early: false, reason: 'No iterations completed'}`.
    pub fn empty_value() -> Value {
        ObjectBuilder::new()
            .number("total_iterations", 0.0)
            .boolean("stopped_early", false)
            .string("reason", "No iterations completed")
            .build()
    }

    /// The summary object as the JS API returns it.
    pub fn to_value(&self) -> Value {
        match self {
            StoppingSummary::Empty => Self::empty_value(),
            StoppingSummary::Full { total_iterations, decision, last, config } => {
                let mut o = ObjectBuilder::new();
                o.number("total_iterations", *total_iterations as f64)
                    .boolean("stopped_early", decision.stop)
                    .string("stopping_trigger", decision.trigger.as_str())
                    .string("stopping_reason", &decision.reason)
                    .number("stopping_confidence", decision.confidence)
                    .number("final_quality", last.quality_score)
                    .number("final_confidence", last.confidence)
                    .string("final_verification", last.verification_status.as_str())
                    .value("config", config.to_value(Naming::Js));
                if let Some(details) = &decision.details {
                    o.value("details", details.to_value());
                }
                o.build()
            }
        }
    }
}

/// The seed's `EarlyStopping` class: history, config, and the last stopping reason.
#[derive(Clone, Debug, PartialEq)]
pub struct EarlyStopping {
    config: EarlyStoppingConfig,
    history: Vec<IterationRecord>,
    // The compact decision state (see `loop_state`): what every decision reads.
    counters: LoopCounters,
    window: std::collections::VecDeque<Observation>,
    stopping_reason: Option<String>,
    stopping_details: Option<StoppingDetails>,
}

/// Snapshot format version written by [`EarlyStopping::to_snapshot`].
pub const SNAPSHOT_VERSION: u64 = 1;

impl EarlyStopping {
    /// A fresh engine; the config is validated.
    pub fn new(config: EarlyStoppingConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self::fresh(config))
    }

    /// A fresh engine over a config that came from [`EarlyStoppingConfig::merged`] (or is
    /// the default), which checks every rule [`EarlyStoppingConfig::validate`] checks:
    /// checking again could not fail, and would keep the Rust-side validator in the
    /// size-budgeted WebAssembly module.
    fn fresh(config: EarlyStoppingConfig) -> Self {
        EarlyStopping {
            config,
            history: Vec::new(),
            counters: LoopCounters::default(),
            window: std::collections::VecDeque::new(),
            stopping_reason: None,
            stopping_details: None,
        }
    }

    /// A fresh engine from a partial config object (`null` = defaults), as the seed's
    /// constructor merges it over `DEFAULT_CONFIG`.
    pub fn from_config_value(config: &Value, naming: Naming) -> Result<Self> {
        let config = EarlyStoppingConfig::default().merged(config, naming, "config", ErrorCode::InvalidConfig)?;
        Ok(Self::fresh(config))
    }

    /// The seed's `recordIterationResult(iteration, result)` for a result built in Rust; a
    /// missing timestamp is filled by `now`. With `strictIterations`, an accepted re-record
    /// of the last iteration answers [`Recorded::Duplicate`] and changes nothing.
    pub fn record(
        &mut self,
        iteration: u64,
        result: IterationResult,
        now: impl FnOnce() -> String,
    ) -> Result<Recorded> {
        validate_iteration(iteration)?;
        result.validate(iteration)?;
        self.record_checked(iteration, result, now)
    }

    /// The seed's `recordIterationResult(iteration, result)` on host values.
    pub fn record_value(
        &mut self,
        iteration: &Value,
        result: &Value,
        naming: Naming,
        now: impl FnOnce() -> String,
    ) -> Result<Recorded> {
        let (iteration, result) = record_from_value(iteration, result, naming)?;
        self.record_checked(iteration, result, now)
    }

    /// Records a result whose values were validated: the iteration order (`strictIterations`)
    /// first, then the usage totals.
    fn record_checked(
        &mut self,
        iteration: u64,
        result: IterationResult,
        now: impl FnOnce() -> String,
    ) -> Result<Recorded> {
        if check_iteration_order(self.config.strict(), self.history.last(), iteration, &result)?.is_duplicate() {
            return Ok(Recorded::Duplicate);
        }
        self.counters.tally.check_usage(Some(&result.usage), "", ErrorCode::InvalidResult)?;
        self.push(iteration, result, now);
        Ok(Recorded::Added)
    }

    fn push(&mut self, iteration: u64, result: IterationResult, now: impl FnOnce() -> String) {
        let fallback = if result.timestamp.is_none() { now() } else { String::new() };
        let record = make_record(iteration, result, fallback);
        self.fold_in(&record);
        self.history.push(record);
    }

    fn fold_in(&mut self, record: &IterationRecord) {
        state::fold(&self.config, &mut self.counters, &mut self.window, record.observation, record.usage.as_deref());
    }

    /// `shouldStop()` without a diminishing-returns source.
    pub fn should_stop(&mut self) -> StoppingDecision {
        let result: std::result::Result<StoppingDecision, std::convert::Infallible> = self
            .should_stop_with(None::<fn() -> std::result::Result<DiminishingReturnsReport, std::convert::Infallible>>);
        match result {
            Ok(decision) => decision,
            Err(never) => match never {},
        }
    }

    /// The seed's `shouldStop()`. `source` is asked (at most once) only when high confidence
    /// and plateau did not stop and `enable_diminishing_returns` is on; its error aborts the
    /// decision and leaves the engine unchanged.
    pub fn should_stop_with<E, F>(&mut self, source: Option<F>) -> std::result::Result<StoppingDecision, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let verdict = state::verdict(&self.config, &self.counters, &self.window, source)?;
        let decision = state::decision(&self.config, &self.counters, verdict);
        if decision.stop {
            self.stopping_reason = Some(decision.reason.clone());
            self.stopping_details = decision.details.clone();
        }
        Ok(decision)
    }

    /// The seed's `generateSummary()` (it calls `shouldStop`, so it may set the stopping reason).
    pub fn generate_summary_with<E, F>(&mut self, source: Option<F>) -> std::result::Result<StoppingSummary, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let Some(last) = self.history.last().map(|r| FinalRecord {
            quality_score: r.observation.quality_score,
            confidence: r.observation.confidence,
            verification_status: r.observation.verification_status,
        }) else {
            return Ok(StoppingSummary::Empty);
        };
        // The summary lists neither the best iteration nor the budgets: keeping them here
        // would make two summaries that read the same compare unequal (and not read back).
        let decision = StoppingDecision { best: None, budgets: Vec::new(), ..self.should_stop_with(source)? };
        Ok(StoppingSummary::Full { total_iterations: self.history.len(), decision, last, config: self.config.clone() })
    }

    /// `generateSummary()` without a diminishing-returns source.
    pub fn generate_summary(&mut self) -> StoppingSummary {
        match self.generate_summary_with(
            None::<fn() -> std::result::Result<DiminishingReturnsReport, std::convert::Infallible>>,
        ) {
            Ok(summary) => summary,
            Err(never) => match never {},
        }
    }

    /// The reason of the last stopping decision (never cleared by a later non-stop).
    pub fn stopping_reason(&self) -> Option<&str> {
        self.stopping_reason.as_deref()
    }

    /// The details of the last stopping decision.
    pub fn stopping_details(&self) -> Option<&StoppingDetails> {
        self.stopping_details.as_ref()
    }

    /// The seed's `configure(options)`: merges a partial config; one bad key changes nothing.
    pub fn configure_value(&mut self, options: &Value, naming: Naming) -> Result<()> {
        let config = self.config.merged(options, naming, "options", ErrorCode::InvalidConfig)?;
        self.set_config(config)
    }

    /// Replaces the config (validated).
    pub fn set_config(&mut self, config: EarlyStoppingConfig) -> Result<()> {
        config.validate()?;
        // The window's length, the quality bar and the regression tolerance all shape the
        // compact state, so it is folded again from the history (configure() is rare).
        self.config = config;
        self.counters = LoopCounters::default();
        self.window.clear();
        let history = std::mem::take(&mut self.history);
        for record in &history {
            self.fold_in(record);
        }
        self.history = history;
        Ok(())
    }

    /// The current config.
    pub fn config(&self) -> &EarlyStoppingConfig {
        &self.config
    }

    /// Every recorded iteration, oldest first.
    pub fn history(&self) -> &[IterationRecord] {
        &self.history
    }

    /// The seed's `reset()`: clears history and stopping state, keeps the config.
    pub fn reset(&mut self) {
        self.history.clear();
        self.counters = LoopCounters::default();
        self.window.clear();
        self.stopping_reason = None;
        self.stopping_details = None;
    }

    /// The portable snapshot: `{version, engine, config, history, stoppingReason, stoppingDetails}`.
    pub fn to_snapshot(&self) -> Value {
        snapshot_value(&self.config, &self.history, self.stopping_reason.as_deref(), self.stopping_details.as_ref())
    }

    /// What `EarlyStopping::new(config)?.to_snapshot()` gives for a valid `config`, without
    /// building an engine (the JS layer caches a fresh engine's snapshot once).
    pub fn fresh_snapshot(config: &EarlyStoppingConfig) -> Value {
        snapshot_value(config, &[], None, None)
    }

    /// Restores a snapshot, validating everything (code `invalid_snapshot`, field = path).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let mut engine = Self::read_snapshot(snapshot)?;
        let EarlyStopping { config, history, counters, window, .. } = &mut engine;
        for record in history.iter() {
            state::fold(config, counters, window, record.observation, record.usage.as_deref());
        }
        Ok(engine)
    }

    /// The snapshot [`from_snapshot`](Self::from_snapshot) then
    /// [`to_snapshot`](Self::to_snapshot) give (validated, normalized), without folding the
    /// history into a decision state: for bindings that keep the loop's state themselves
    /// (the JS layer's `EarlyStopping.fromJSON`), so the size-budgeted WebAssembly module
    /// needs none of the owning engine's state code.
    pub fn normalize_snapshot(snapshot: &Value) -> Result<Value> {
        Self::read_snapshot(snapshot).map(|engine| engine.to_snapshot())
    }

    /// [`normalize_snapshot`](Self::normalize_snapshot) of a snapshot given whole: the
    /// value read is freed before the normalized one is built, so at most one of the two
    /// trees (each up to 16 times the snapshot's text) is alive at a time, which keeps a
    /// snapshot at the size limits within a WebAssembly instance's memory.
    pub fn normalize_snapshot_owned(snapshot: Value) -> Result<Value> {
        let engine = Self::read_snapshot(&snapshot)?;
        drop(snapshot);
        Ok(engine.to_snapshot())
    }

    /// Reads and validates a snapshot into an engine whose counters and window are still
    /// empty (the callers above fold the history in, or only write it back out).
    fn read_snapshot(snapshot: &Value) -> Result<Self> {
        let reader = crate::snapshot::open(snapshot, "EarlyStopping", &SNAPSHOT_FIELDS)?;
        let config_value = reader.get(FieldName::same("config")).unwrap_or(&Value::Null);
        let config = EarlyStoppingConfig::default()
            .merged_at(config_value, Naming::Js, "config", "config", ErrorCode::InvalidSnapshot)
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut engine = EarlyStopping::fresh(config);
        let records = crate::snapshot::array(&reader, FieldName::same("history"))?;
        engine.history.reserve(records.len());
        // The usage sums so far, as the engine's tally would hold them: a record that would
        // make one overflow is refused (`record_value` refuses it too).
        let mut tally = LoopTally::default();
        for (i, record) in records.iter().enumerate() {
            let path = value::index_path("history", i);
            let record = IterationRecord::from_snapshot(record, &path)?;
            tally.check_usage(record.usage.as_deref(), &path, ErrorCode::InvalidSnapshot)?;
            tally.observe(&record.observation, record.usage.as_deref(), None);
            engine.history.push(record);
        }
        engine.stopping_reason = match reader.get(FieldName::same("stoppingReason")) {
            None | Some(Value::Null) => None,
            Some(_) => Some(reader.string(FieldName::same("stoppingReason"))?.to_string()),
        };
        engine.stopping_details = match reader.get(FieldName::same("stoppingDetails")) {
            None | Some(Value::Null) => None,
            Some(details) => Some(StoppingDetails::from_snapshot(details, "stoppingDetails")?),
        };
        if engine.stopping_reason.is_none() && engine.stopping_details.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidSnapshot,
                ErrorKind::Range,
                "stoppingReason",
                "stoppingReason must be set when stoppingDetails is",
            ));
        }
        Ok(engine)
    }
}

/// Validates the arguments of `recordIterationResult(iteration, result)` given as host
/// values, exactly as [`EarlyStopping::record_value`] does, without an engine.
pub fn record_from_value(iteration: &Value, result: &Value, naming: Naming) -> Result<(u64, IterationResult)> {
    let iteration = value::integer_argument(iteration, "iteration", ErrorCode::InvalidIteration, 1, MAX_SAFE_INTEGER)?;
    let result = IterationResult::from_value(result, naming)?;
    if let Some(n) = result.iteration_number {
        if n != iteration {
            iteration_mismatch(n, iteration)?;
        }
    }
    Ok((iteration, result))
}

/// The history record `recordIterationResult` stores for a validated result (`now`
/// fills a missing timestamp).
pub fn record_of(iteration: u64, result: IterationResult, now: impl FnOnce() -> String) -> IterationRecord {
    let fallback = if result.timestamp.is_none() { now() } else { String::new() };
    make_record(iteration, result, fallback)
}

/// Trigger names, for bindings that print or type them.
pub fn trigger_from_str(s: &str) -> Option<Trigger> {
    Trigger::parse(s)
}

/// The error for an `iterationAnalytics` argument that is neither absent nor an object with
/// a `detectDiminishingReturns()` method (bindings check the method; the words are here).
pub fn invalid_analytics_source(naming: Naming, got: &Value) -> Error {
    let (field, method) = match naming {
        Naming::Js => ("iterationAnalytics", "detectDiminishingReturns()"),
        Naming::Snake => ("analytics", "detect_diminishing_returns()"),
    };
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Type,
        field,
        value::concat(&[field, " must be an object with a ", method, " method, got ", &got.describe()]),
    )
}

/// The portable snapshot of an engine's parts (see [`EarlyStopping::to_snapshot`]).
fn snapshot_value(
    config: &EarlyStoppingConfig,
    history: &[IterationRecord],
    stopping_reason: Option<&str>,
    stopping_details: Option<&StoppingDetails>,
) -> Value {
    Value::object(vec![
        ("version", Value::Number(SNAPSHOT_VERSION as f64)),
        ("engine", Value::string("EarlyStopping")),
        ("config", config.to_value(Naming::Js)),
        ("history", value::array_of(history, IterationRecord::to_value)),
        ("stoppingReason", stopping_reason.map_or(Value::Null, Value::string)),
        ("stoppingDetails", stopping_details.map_or(Value::Null, StoppingDetails::to_value)),
    ])
}

/// The keys of this engine's snapshot.
const SNAPSHOT_FIELDS: [FieldName; 6] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("config"),
    FieldName::same("history"),
    FieldName::same("stoppingReason"),
    FieldName::same("stoppingDetails"),
];
