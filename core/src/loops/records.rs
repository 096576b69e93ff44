//! What a loop records: the result an iteration reports ([`IterationResult`], with its
//! optional [`ResourceUsage`]), the checks on iteration numbers (`strictIterations`), and the
//! history entry stored for it ([`IterationRecord`], written and read back).

use crate::loops::behavior::BehaviorIteration;
use crate::loops::vocabulary::VerificationStatus;
use crate::num;
use crate::time;
use crate::value::shape::{self, FieldType, TypedField};
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

// The keys of an iteration result and of a history record.
pub(crate) const ITERATION_NUMBER: &str = "iteration_number";
pub(crate) const QUALITY_SCORE: &str = "quality_score";
pub(crate) const CONFIDENCE: &str = "confidence";
pub(crate) const VERIFICATION_STATUS: &str = "verification_status";
pub(crate) const QUALITY_DELTA: &str = "quality_delta";
pub(crate) const TIMESTAMP: &str = "timestamp";
pub(crate) const TOKENS_USED: &str = "tokens_used";
pub(crate) const TOKEN_COST_USD: &str = "token_cost_usd";
pub(crate) const EXECUTION_TIME_MS: &str = "execution_time_ms";

/// The keys an iteration result may have, typed, in the design page's table order (the
/// bindings' `IterationResult` shapes are generated from it; [`IterationResult::REQUIRED_KEYS`]
/// says which it must have).
pub const RESULT_TYPES: [TypedField; 9] = [
    TypedField::new(FieldName::same(QUALITY_SCORE), FieldType::Number, "0..100."),
    TypedField::new(FieldName::same(CONFIDENCE), FieldType::Number, "0..1."),
    TypedField::new(
        FieldName::same(VERIFICATION_STATUS),
        FieldType::Names(&VerificationStatus::NAMES),
        "Whether the iteration's output was verified: passed, failed or skipped.",
    ),
    TypedField::new(
        FieldName::same(QUALITY_DELTA),
        FieldType::Number,
        "The change from the previous iteration (any finite number; the plateau rule reads it).",
    ),
    TypedField::new(FieldName::same(TIMESTAMP), FieldType::Text, "RFC 3339 date-time; the current time when absent."),
    TypedField::new(FieldName::same(TOKENS_USED), FieldType::Number, "Finite, >= 0 (budgets and analytics)."),
    TypedField::new(FieldName::same(TOKEN_COST_USD), FieldType::Number, "Finite, >= 0."),
    TypedField::new(FieldName::same(EXECUTION_TIME_MS), FieldType::Number, "Finite, >= 0."),
    TypedField::new(
        FieldName::same(ITERATION_NUMBER),
        FieldType::Integer,
        "If given, must equal the iteration argument.",
    ),
];

/// The keys an iteration result may have, in the design page's table order ([`RESULT_TYPES`]').
pub const RESULT_FIELDS: [FieldName; 9] = shape::names(RESULT_TYPES);

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
        const RESOURCE: (f64, f64) = IterationResult::RESOURCE_RANGE;
        Ok(ResourceUsage {
            tokens_used: reader.opt_number(FieldName::same(TOKENS_USED), RESOURCE.0, RESOURCE.1)?,
            token_cost_usd: reader.opt_number(FieldName::same(TOKEN_COST_USD), RESOURCE.0, RESOURCE.1)?,
            execution_time_ms: reader.opt_number(FieldName::same(EXECUTION_TIME_MS), RESOURCE.0, RESOURCE.1)?,
        })
    }

    fn push_values(&self, out: &mut ObjectBuilder) {
        out.some_number(TOKENS_USED, self.tokens_used)
            .some_number(TOKEN_COST_USD, self.token_cost_usd)
            .some_number(EXECUTION_TIME_MS, self.execution_time_ms);
    }
}

/// What an agent reports after one iteration (`IterationResult` upstream).
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
    /// RFC 3339; `None` lets [`EarlyStopping::record_value`](crate::EarlyStopping::record_value)'s clock fill it.
    pub timestamp: Option<String>,
    /// Optional resource figures.
    pub usage: ResourceUsage,
    /// If given, must equal the iteration argument.
    pub iteration_number: Option<u64>,
    /// Optional: what behaviour detectors read of the iteration (`error`, `failure_class`,
    /// `blockers`, `completion_percentage`, `artifacts_modified`, `learnings`,
    /// `tests_passing`, `coverage_percent`; see [`BehaviorIteration::from_result`]). `None`
    /// when the result gives none of them; its `number` and context are unused here.
    pub behavior: Option<Box<BehaviorIteration>>,
}

impl IterationResult {
    /// The closed range of `quality_score`, `(min, max)`: the one the reader checks, which
    /// hosts also describe (the MCP server's schemas).
    pub const QUALITY_SCORE_RANGE: (f64, f64) = (0.0, 100.0);
    /// The closed range of `confidence`, `(min, max)`.
    pub const CONFIDENCE_RANGE: (f64, f64) = (0.0, 1.0);
    /// The closed range of the resource figures (`tokens_used`, `token_cost_usd`,
    /// `execution_time_ms`), `(min, max)`.
    pub const RESOURCE_RANGE: (f64, f64) = (0.0, f64::MAX);
    /// The range of an iteration number, `(min, max)`.
    pub const ITERATION_RANGE: (u64, u64) = (1, MAX_SAFE_INTEGER);
    /// The keys of [`RESULT_TYPES`] a result must have (the others may be absent).
    pub const REQUIRED_KEYS: [&'static str; 4] = [QUALITY_SCORE, CONFIDENCE, VERIFICATION_STATUS, QUALITY_DELTA];

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
            behavior: None,
        }
    }

    /// Parses and validates upstream's result object (`result` names it in errors).
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
        // Behaviour fields are read only when a key is not one of the usual ones, so the
        // usual result costs what it did.
        let plain = reader.reject_unknown(&RESULT_FIELDS).is_ok();
        if !plain {
            let mut known: Vec<FieldName> = RESULT_FIELDS.to_vec();
            known.extend(BehaviorIteration::result_fields());
            reader.reject_unknown(&known)?;
        }
        let (quality_min, quality_max) = Self::QUALITY_SCORE_RANGE;
        let (confidence_min, confidence_max) = Self::CONFIDENCE_RANGE;
        let quality_score = reader.number(FieldName::same(QUALITY_SCORE), quality_min, quality_max)?;
        let confidence = reader.number(FieldName::same(CONFIDENCE), confidence_min, confidence_max)?;
        let status = reader.choice(FieldName::same(VERIFICATION_STATUS), &VerificationStatus::NAMES)?;
        let verification_status = VerificationStatus::parse(status).unwrap_or(VerificationStatus::Skipped);
        let quality_delta = reader.number(FieldName::same(QUALITY_DELTA), f64::MIN, f64::MAX)?;
        let timestamp = match reader.get(FieldName::same(TIMESTAMP)) {
            None => None,
            Some(v) => {
                let s = reader.string(FieldName::same(TIMESTAMP))?;
                if !time::is_rfc3339(s) {
                    return Err(reader.range_error(FieldName::same(TIMESTAMP), "an RFC 3339 date-time", v));
                }
                Some(s.to_string())
            }
        };
        let usage = ResourceUsage::read(&reader)?;
        let (first, last) = Self::ITERATION_RANGE;
        let iteration_number = reader.opt_integer(FieldName::same(ITERATION_NUMBER), first, last)?;
        let behavior = if plain { None } else { BehaviorIteration::from_result(value, path, code)?.map(Box::new) };
        Ok(IterationResult {
            quality_score,
            confidence,
            verification_status,
            quality_delta,
            timestamp,
            usage,
            iteration_number,
            behavior,
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
        let (quality_min, quality_max) = Self::QUALITY_SCORE_RANGE;
        if value::check_range(self.quality_score, quality_min, quality_max).is_none() {
            return range(QUALITY_SCORE, value::range_text(quality_min, quality_max), self.quality_score);
        }
        let (confidence_min, confidence_max) = Self::CONFIDENCE_RANGE;
        if value::check_range(self.confidence, confidence_min, confidence_max).is_none() {
            return range(CONFIDENCE, value::range_text(confidence_min, confidence_max), self.confidence);
        }
        if !self.quality_delta.is_finite() {
            return range(QUALITY_DELTA, "a finite number".into(), self.quality_delta);
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
            (TOKENS_USED, self.usage.tokens_used),
            (TOKEN_COST_USD, self.usage.token_cost_usd),
            (EXECUTION_TIME_MS, self.usage.execution_time_ms),
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
        if let Some(behavior) = &self.behavior {
            // One set of rules: the reader's, without a value round trip where it can't fail
            // (in WebAssembly, whose engines module's size is budgeted, the round trip itself).
            #[cfg(not(target_arch = "wasm32"))]
            behavior.check_result_fields(ErrorCode::InvalidResult)?;
            #[cfg(target_arch = "wasm32")]
            {
                let mut o = ObjectBuilder::new();
                behavior.push_result_fields(&mut o);
                BehaviorIteration::from_result(&o.build(), "", ErrorCode::InvalidResult)?;
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

    /// What the JS API's `recordIterationResult` returns: nothing (upstream's `undefined`)
    /// for a new record, `{duplicate: true}` for an accepted re-record.
    pub fn to_value(self) -> Option<Value> {
        self.is_duplicate().then(|| ObjectBuilder::new().boolean("duplicate", true).build())
    }
}

/// Whether `iteration` may be recorded after the last recorded iteration `last` without a
/// closer look: always without `strictIterations` (`strict`, see
/// [`EarlyStoppingConfig::strict`](crate::EarlyStoppingConfig::strict)) or history, else only when it is greater. Anything else is
/// a re-record or an error, which [`check_iteration_order`] tells apart.
#[inline]
pub fn iteration_follows(strict: bool, last: Option<u64>, iteration: u64) -> bool {
    !strict || last.is_none_or(|last| iteration > last)
}

/// The `strictIterations` rule for `recordIterationResult(iteration, result)` after the
/// history's `last` record (`strict`: [`EarlyStoppingConfig::strict`](crate::EarlyStoppingConfig::strict)). Without the option (or history, or when `iteration` is greater
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
    } else if let Some(field) = behavior_difference(last.behavior.as_deref(), result.behavior.as_deref()) {
        field
    } else if result.timestamp.as_deref().is_some_and(|t| t != &*last.timestamp) {
        // A timestamp is compared only when this call gives one (see `check_iteration_order`).
        "timestamp"
    } else {
        return None;
    })
}

/// The first behaviour field given in one call and not the other, or given with another value.
fn behavior_difference(had: Option<&BehaviorIteration>, given: Option<&BehaviorIteration>) -> Option<&'static str> {
    let none = BehaviorIteration::default();
    had.unwrap_or(&none).first_difference(given.unwrap_or(&none))
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
    /// The caller's delta (upstream's plateau rule reads this, not the score difference).
    pub quality_delta: f64,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
}

impl AsRef<Observation> for Observation {
    fn as_ref(&self) -> &Observation {
        self
    }
}

/// One entry of the history: upstream's six fields plus the optional usage and behaviour
/// fields the caller gave. Kept to 72 bytes (plus the timestamp's heap bytes): usage and
/// behaviour are boxed because they are rare.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationRecord {
    /// Decision-relevant fields.
    pub observation: Observation,
    /// RFC 3339, stored verbatim.
    pub timestamp: Box<str>,
    /// Optional resource figures.
    pub usage: Option<Box<ResourceUsage>>,
    /// Optional behaviour fields (what detector conditions read), `number` unset.
    pub behavior: Option<Box<BehaviorIteration>>,
}

impl AsRef<Observation> for IterationRecord {
    fn as_ref(&self) -> &Observation {
        &self.observation
    }
}

impl IterationRecord {
    /// The keys of a record's object, typed, in the order [`IterationRecord::to_value`]
    /// writes them (the bindings' record shapes are generated from it).
    pub const TYPES: [TypedField; 9] = [
        TypedField::new(FieldName::same(ITERATION_NUMBER), FieldType::Integer, "The iteration recorded, from 1."),
        TypedField::new(FieldName::same(QUALITY_SCORE), FieldType::Number, "0..100."),
        TypedField::new(FieldName::same(CONFIDENCE), FieldType::Number, "0..1."),
        TypedField::new(
            FieldName::same(VERIFICATION_STATUS),
            FieldType::Names(&VerificationStatus::NAMES),
            "The result's verification status.",
        ),
        TypedField::new(
            FieldName::same(QUALITY_DELTA),
            FieldType::Number,
            "The result's change from the previous iteration.",
        ),
        TypedField::new(
            FieldName::same(TIMESTAMP),
            FieldType::Text,
            "RFC 3339: the result's, or the clock's when it gave none.",
        ),
        TypedField::new(FieldName::same(TOKENS_USED), FieldType::Number, "As the result gave it."),
        TypedField::new(FieldName::same(TOKEN_COST_USD), FieldType::Number, "As the result gave it."),
        TypedField::new(FieldName::same(EXECUTION_TIME_MS), FieldType::Number, "As the result gave it."),
    ];

    /// The keys of a record's object, in the order [`IterationRecord::to_value`] writes them
    /// ([`IterationRecord::TYPES`]'; the three usage keys only when the caller gave them; the
    /// behaviour fields, when given, follow them in [`BehaviorIteration::result_fields`]' order).
    pub const KEYS: [&'static str; 9] = shape::same_keys(Self::TYPES);

    /// The keys of [`IterationRecord::KEYS`] written only when the caller gave them.
    pub const OPTIONAL_KEYS: [&'static str; 3] = [TOKENS_USED, TOKEN_COST_USD, EXECUTION_TIME_MS];

    /// The record as upstream's `getIterationHistory()` returns it.
    pub fn to_value(&self) -> Value {
        let o = &self.observation;
        let mut entries = ObjectBuilder::new();
        entries
            .number(ITERATION_NUMBER, o.iteration as f64)
            .number(QUALITY_SCORE, o.quality_score)
            .number(CONFIDENCE, o.confidence)
            .string(VERIFICATION_STATUS, o.verification_status.as_str())
            .number(QUALITY_DELTA, o.quality_delta)
            .string(TIMESTAMP, &self.timestamp);
        if let Some(usage) = &self.usage {
            usage.push_values(&mut entries);
        }
        if let Some(behavior) = &self.behavior {
            behavior.push_result_fields(&mut entries);
        }
        entries.build()
    }

    pub(crate) fn from_snapshot(value: &Value, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "record", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        let iteration = reader.integer(FieldName::same(ITERATION_NUMBER), 1, MAX_SAFE_INTEGER)?;
        reader.string(FieldName::same(TIMESTAMP))?; // a restored record must carry its timestamp
        let result = IterationResult::read(value, Naming::Snake, path, ErrorCode::InvalidSnapshot)?;
        Ok(make_record(iteration, result, String::new()))
    }
}

impl IterationRecord {
    /// Reads a record as [`IterationRecord::to_value`] writes it (the snapshot's record
    /// reader: `path` prefixes field names, e.g. `history[2]`).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        Self::from_snapshot(value, path)
    }
}

impl IterationRecord {
    /// A history record given by the caller rather than recorded (the JS layer's
    /// `iterationHistory`, which upstream lets callers write to): the record's fields as
    /// `recordIterationResult` stores them, `iteration_number` required, `timestamp` optional
    /// (empty when absent); code `invalid_result`, fields under `path` (`iterationHistory[3]`).
    pub fn from_history_value(value: &Value, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "record", Naming::Js, ErrorCode::InvalidResult)?;
        let iteration = reader.integer(FieldName::same(ITERATION_NUMBER), 1, MAX_SAFE_INTEGER)?;
        let result = IterationResult::read(value, Naming::Js, path, ErrorCode::InvalidResult)?;
        Ok(make_record(iteration, result, String::new()))
    }
}

pub(crate) fn make_record(iteration: u64, result: IterationResult, fallback_timestamp: String) -> IterationRecord {
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
        behavior: result.behavior,
    }
}

/// The JS name of upstream's history field, which errors about its records start with.
pub const HISTORY_FIELD: &str = "iterationHistory";

/// `iterationHistory[i]`: where a history record's fields are named in errors.
pub fn history_path(index: usize) -> String {
    value::index_path(HISTORY_FIELD, index)
}

/// Validates the arguments of `recordIterationResult(iteration, result)` given as host
/// values, exactly as [`EarlyStopping::record_value`](crate::EarlyStopping::record_value) does, without an engine.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_writes_its_keys_in_order_and_reads_back() {
        let mut result = IterationResult::new(80.0, 0.5, VerificationStatus::Passed, 3.0);
        result.timestamp = Some("2026-01-01T00:00:00.000Z".into());
        result.usage =
            ResourceUsage { tokens_used: Some(10.0), token_cost_usd: Some(0.1), execution_time_ms: Some(5.0) };
        let record = record_of(2, result, String::new);
        let value = record.to_value();
        let Value::Object(entries) = &value else { unreachable!() };
        assert_eq!(entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), IterationRecord::KEYS);
        assert!(IterationRecord::TYPES.iter().all(|t| value.get(t.name.snake()).is_some_and(|v| t.holds(v))));
        assert_eq!(IterationRecord::from_value(&value, "record"), Ok(record));
    }

    #[test]
    fn the_record_and_the_result_type_their_keys_alike() {
        for field in IterationRecord::TYPES {
            let result = RESULT_TYPES.iter().find(|f| f.name == field.name).map(|f| f.ty);
            assert_eq!(result, Some(field.ty), "{}", field.name.snake());
            assert!(!field.nullable);
        }
        assert!(IterationResult::REQUIRED_KEYS.iter().all(|k| RESULT_FIELDS.iter().any(|f| f.snake() == *k)));
        assert!(IterationRecord::OPTIONAL_KEYS.iter().all(|k| IterationRecord::KEYS.contains(k)));
    }

    #[test]
    fn a_result_needs_exactly_its_required_keys() {
        let full = r#"{"quality_score":50,"confidence":0.5,"verification_status":"passed","quality_delta":1}"#;
        let parse = |text: &str| Value::parse_json(text, ErrorCode::InvalidResult, "result").unwrap_or(Value::Null);
        assert!(IterationResult::from_value(&parse(full), Naming::Snake).is_ok());
        for key in IterationResult::REQUIRED_KEYS {
            let Value::Object(mut entries) = parse(full) else { unreachable!() };
            entries.retain(|(k, _)| k != key);
            let error = IterationResult::from_value(&Value::Object(entries), Naming::Snake).err();
            assert_eq!(error.map(|e| e.field().to_string()).as_deref(), Some(key));
        }
    }
}
