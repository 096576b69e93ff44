//! The built-in diminishing-returns source (`IterationAnalytics`): records quality per
//! iteration, detects diminishing returns, classifies the trajectory, picks the best
//! iteration and sums usage. Everything is incremental: recording is O(1) and no query
//! rescans the history, so a 1,000,000-iteration loop stays cheap.

use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::jsnum;
use crate::loop_stopping::{DiminishingReturnsReport, ReportedIteration, ResourceUsage, VerificationStatus};
use crate::value::field_name;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};

const DIMINISHING_RETURNS_THRESHOLD: FieldName =
    field_name!("diminishingReturnsThreshold", "diminishing_returns_threshold");
const CONSECUTIVE_COUNT_THRESHOLD: FieldName = field_name!("consecutiveCountThreshold", "consecutive_count_threshold");
const QUALITY_THRESHOLD: FieldName = field_name!("qualityThreshold", "quality_threshold");
const SELECTION_CRITERIA: FieldName = field_name!("selectionCriteria", "selection_criteria");

/// Every analytics config key.
pub const ANALYTICS_CONFIG_FIELDS: [FieldName; 4] =
    [DIMINISHING_RETURNS_THRESHOLD, CONSECUTIVE_COUNT_THRESHOLD, QUALITY_THRESHOLD, SELECTION_CRITERIA];

/// How `select_best_iteration` chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelectionCriteria {
    /// Highest quality among passed records reaching the quality threshold (default).
    HighestQualityVerified,
    /// Highest quality overall.
    HighestQuality,
    /// The latest record reaching the quality threshold.
    MostRecentAboveThreshold,
}

impl SelectionCriteria {
    const ALL: [&'static str; 3] = ["highest_quality_verified", "highest_quality", "most_recent_above_threshold"];

    /// The spelling used in configs.
    pub fn as_str(self) -> &'static str {
        match self {
            SelectionCriteria::HighestQualityVerified => "highest_quality_verified",
            SelectionCriteria::HighestQuality => "highest_quality",
            SelectionCriteria::MostRecentAboveThreshold => "most_recent_above_threshold",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "highest_quality_verified" => Some(SelectionCriteria::HighestQualityVerified),
            "highest_quality" => Some(SelectionCriteria::HighestQuality),
            "most_recent_above_threshold" => Some(SelectionCriteria::MostRecentAboveThreshold),
            _ => None,
        }
    }
}

/// `IterationAnalytics` config.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsConfig {
    /// Relative change below which a step counts towards diminishing returns; finite >= 0, default 0.05.
    pub diminishing_returns_threshold: f64,
    /// Consecutive small steps that make a detection; integer >= 1, default 2.
    pub consecutive_count_threshold: u64,
    /// Quality a record needs to be a candidate; 0..=100, default 70.
    pub quality_threshold: f64,
    /// Selection rule; default `highest_quality_verified`.
    pub selection_criteria: SelectionCriteria,
}

impl Default for AnalyticsConfig {
    fn default() -> Self {
        AnalyticsConfig {
            diminishing_returns_threshold: 0.05,
            consecutive_count_threshold: 2,
            quality_threshold: 70.0,
            selection_criteria: SelectionCriteria::HighestQualityVerified,
        }
    }
}

impl AnalyticsConfig {
    /// Merges a partial config object over `self`; `null` merges nothing.
    pub fn merged(&self, options: &Value, naming: Naming, path: &str, code: ErrorCode) -> Result<Self> {
        if matches!(options, Value::Null) {
            return Ok(self.clone());
        }
        let reader = ObjectReader::new(options, path, "config", naming, code)?;
        reader.reject_unknown(&ANALYTICS_CONFIG_FIELDS)?;
        let mut config = self.clone();
        if reader.get(DIMINISHING_RETURNS_THRESHOLD).is_some() {
            config.diminishing_returns_threshold = reader.number(DIMINISHING_RETURNS_THRESHOLD, 0.0, f64::MAX)?;
        }
        if reader.get(CONSECUTIVE_COUNT_THRESHOLD).is_some() {
            config.consecutive_count_threshold = reader.integer(CONSECUTIVE_COUNT_THRESHOLD, 1, MAX_SAFE_INTEGER)?;
        }
        if reader.get(QUALITY_THRESHOLD).is_some() {
            config.quality_threshold = reader.number(QUALITY_THRESHOLD, 0.0, 100.0)?;
        }
        if reader.get(SELECTION_CRITERIA).is_some() {
            let s = reader.choice(SELECTION_CRITERIA, &SelectionCriteria::ALL)?;
            config.selection_criteria = SelectionCriteria::parse(s).unwrap_or(config.selection_criteria);
        }
        Ok(config)
    }

    /// Checks a config built in Rust.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: FieldName, requirement: String, got: f64| {
            Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                field.snake(),
                value::concat(&[field.snake(), " must be ", &requirement, ", got ", &jsnum::to_js_string(got)]),
            ))
        };
        if value::check_range(self.diminishing_returns_threshold, 0.0, f64::MAX).is_none() {
            return bad(
                DIMINISHING_RETURNS_THRESHOLD,
                value::range_text(0.0, f64::MAX),
                self.diminishing_returns_threshold,
            );
        }
        if !(1..=MAX_SAFE_INTEGER).contains(&self.consecutive_count_threshold) {
            return bad(
                CONSECUTIVE_COUNT_THRESHOLD,
                value::integer_text(1, MAX_SAFE_INTEGER),
                self.consecutive_count_threshold as f64,
            );
        }
        if value::check_range(self.quality_threshold, 0.0, 100.0).is_none() {
            return bad(QUALITY_THRESHOLD, value::range_text(0.0, 100.0), self.quality_threshold);
        }
        Ok(())
    }

    /// The config object.
    pub fn to_value(&self, naming: Naming) -> Value {
        ObjectBuilder::new()
            .number(DIMINISHING_RETURNS_THRESHOLD.spelled(naming), self.diminishing_returns_threshold)
            .number(CONSECUTIVE_COUNT_THRESHOLD.spelled(naming), self.consecutive_count_threshold as f64)
            .number(QUALITY_THRESHOLD.spelled(naming), self.quality_threshold)
            .string(SELECTION_CRITERIA.spelled(naming), self.selection_criteria.as_str())
            .build()
    }
}

const ITERATION_NUMBER: FieldName = FieldName::same("iteration_number");
const QUALITY_SCORE: FieldName = FieldName::same("quality_score");
const VERIFICATION_STATUS: FieldName = FieldName::same("verification_status");
const QUALITY_DELTA: FieldName = FieldName::same("quality_delta");
const RECORD_FIELDS: [FieldName; 6] = [
    ITERATION_NUMBER,
    QUALITY_SCORE,
    VERIFICATION_STATUS,
    FieldName::same("tokens_used"),
    FieldName::same("token_cost_usd"),
    FieldName::same("execution_time_ms"),
];

/// One analytics record (`quality_delta` is computed, not reported).
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsRecord {
    /// The iteration number.
    pub iteration_number: u64,
    /// 0..=100.
    pub quality_score: f64,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
    /// This score minus the previous one (0 for the first).
    pub quality_delta: f64,
    /// Optional resource figures.
    pub usage: ResourceUsage,
}

impl AnalyticsRecord {
    /// The record as `recordIteration` returns it.
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new()
            .number("iteration_number", self.iteration_number as f64)
            .number("quality_score", self.quality_score)
            .string("verification_status", self.verification_status.as_str())
            .number("quality_delta", self.quality_delta)
            .some_number("tokens_used", self.usage.tokens_used)
            .some_number("token_cost_usd", self.usage.token_cost_usd)
            .some_number("execution_time_ms", self.usage.execution_time_ms)
            .build()
    }
}

/// What `recordIteration` takes.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsInput {
    /// Integer >= 1.
    pub iteration_number: u64,
    /// 0..=100.
    pub quality_score: f64,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
    /// Optional resource figures (finite, >= 0).
    pub usage: ResourceUsage,
}

impl AnalyticsInput {
    /// Parses and validates a record object.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        Self::read(value, naming, "", false)
    }

    pub(crate) fn read(value: &Value, naming: Naming, path: &str, snapshot: bool) -> Result<Self> {
        let code = if snapshot { ErrorCode::InvalidSnapshot } else { ErrorCode::InvalidResult };
        let reader = ObjectReader::new(value, path, "record", naming, code)?;
        if snapshot {
            let mut known = RECORD_FIELDS.to_vec();
            known.push(QUALITY_DELTA);
            reader.reject_unknown(&known)?;
        } else {
            reader.reject_unknown(&RECORD_FIELDS)?;
        }
        let iteration_number = match value.get(ITERATION_NUMBER.js()) {
            Some(n) if !snapshot => {
                value::integer_argument(n, "iteration_number", ErrorCode::InvalidIteration, 1, MAX_SAFE_INTEGER)?
            }
            _ if !snapshot => {
                return Err(Error::new(
                    ErrorCode::InvalidIteration,
                    ErrorKind::Type,
                    "iteration_number",
                    "iteration_number must be an integer, got nothing (missing)",
                ))
            }
            _ => reader.integer(ITERATION_NUMBER, 1, MAX_SAFE_INTEGER)?,
        };
        let quality_score = reader.number(QUALITY_SCORE, 0.0, 100.0)?;
        let status = reader.choice(VERIFICATION_STATUS, &VerificationStatus::ALL)?;
        let verification_status = VerificationStatus::parse(status).unwrap_or(VerificationStatus::Skipped);
        // The same three optional figures, read as an iteration result reads them (one copy).
        let usage = ResourceUsage::read(&reader)?;
        Ok(AnalyticsInput { iteration_number, quality_score, verification_status, usage })
    }
}

/// The trajectory classes of `getTrajectory()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trajectory {
    /// Fewer than 3 records.
    InsufficientData,
    /// >= 67% of steps gained more than 2 points.
    Improving,
    /// >= 67% of steps lost more than 2 points.
    Declining,
    /// >= 67% of steps moved by at most 2 points.
    Stable,
    /// None of the above.
    Fluctuating,
}

impl Trajectory {
    /// The spelling `getTrajectory()` returns.
    pub fn as_str(self) -> &'static str {
        match self {
            Trajectory::InsufficientData => "insufficient_data",
            Trajectory::Improving => "improving",
            Trajectory::Declining => "declining",
            Trajectory::Stable => "stable",
            Trajectory::Fluctuating => "fluctuating",
        }
    }
}

/// `selectBestIteration()`'s answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// Index of the chosen record, if any.
    pub selected: Option<usize>,
    /// Why.
    pub reason: String,
}

/// Highest quality, earliest on ties, as a record index.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Best(Option<(usize, f64)>);

impl Best {
    fn offer(&mut self, index: usize, quality: f64) {
        if self.0.is_none_or(|(_, q)| quality > q) {
            self.0 = Some((index, quality));
        }
    }
}

/// The built-in `IterationAnalytics`.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationAnalytics {
    config: AnalyticsConfig,
    records: Vec<AnalyticsRecord>,
    run: u64,
    detected_at: Option<usize>,
    improving: u64,
    declining: u64,
    stable: u64,
    best_overall: Best,
    best_above: Best,
    best_verified_above: Best,
    latest_above: Option<usize>,
    totals: [Option<f64>; 3],
}

impl IterationAnalytics {
    /// A fresh analytics object.
    pub fn new(config: AnalyticsConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self::fresh(config))
    }

    /// An empty object over a config that came from [`AnalyticsConfig::merged`], which
    /// checks every rule [`AnalyticsConfig::validate`] checks: checking again could not fail,
    /// and would keep the Rust-side validator in the size-budgeted WebAssembly module.
    fn fresh(config: AnalyticsConfig) -> Self {
        IterationAnalytics {
            config,
            records: Vec::new(),
            run: 0,
            detected_at: None,
            improving: 0,
            declining: 0,
            stable: 0,
            best_overall: Best::default(),
            best_above: Best::default(),
            best_verified_above: Best::default(),
            latest_above: None,
            totals: [None; 3],
        }
    }

    /// From a partial config object (`null` = defaults).
    pub fn from_config_value(config: &Value, naming: Naming) -> Result<Self> {
        Ok(Self::fresh(AnalyticsConfig::default().merged(config, naming, "", ErrorCode::InvalidConfig)?))
    }

    /// The config.
    pub fn config(&self) -> &AnalyticsConfig {
        &self.config
    }

    /// All records, oldest first.
    pub fn records(&self) -> &[AnalyticsRecord] {
        &self.records
    }

    /// `recordIteration(record)` on a host value; returns the stored record.
    pub fn record_value(&mut self, record: &Value, naming: Naming) -> Result<&AnalyticsRecord> {
        let input = AnalyticsInput::from_value(record, naming)?;
        Ok(self.push(input))
    }

    /// `recordIteration` for a record built in Rust.
    pub fn record(&mut self, input: AnalyticsInput) -> Result<&AnalyticsRecord> {
        let as_value = AnalyticsRecord {
            iteration_number: input.iteration_number,
            quality_score: input.quality_score,
            verification_status: input.verification_status,
            quality_delta: 0.0,
            usage: input.usage,
        }
        .to_value();
        // `recordIteration` takes no `quality_delta` (it computes it): validate without it.
        let as_value = match as_value {
            Value::Object(mut entries) => {
                entries.retain(|(k, _)| k != "quality_delta");
                Value::Object(entries)
            }
            other => other,
        };
        let checked = AnalyticsInput::from_value(&as_value, Naming::Snake)?;
        Ok(self.push(checked))
    }

    /// Records an input the caller has already validated (the replay parses and checks its
    /// runs once, so re-validating per iteration would only cost time).
    pub(crate) fn record_checked(&mut self, input: AnalyticsInput) {
        self.push(input);
    }

    fn push(&mut self, input: AnalyticsInput) -> &AnalyticsRecord {
        let index = self.records.len();
        let previous = self.records.last().map(|r| r.quality_score);
        let quality_delta = previous.map_or(0.0, |p| input.quality_score - p);
        if let Some(prev) = previous {
            let pct = if prev > 0.0 {
                quality_delta.abs() / prev
            } else if quality_delta == 0.0 {
                0.0
            } else {
                f64::INFINITY
            };
            if pct < self.config.diminishing_returns_threshold {
                self.run += 1;
            } else {
                self.run = 0;
            }
            if self.detected_at.is_none() && self.run >= self.config.consecutive_count_threshold {
                self.detected_at = Some(index);
            }
            if quality_delta > 2.0 {
                self.improving += 1;
            } else if quality_delta < -2.0 {
                self.declining += 1;
            } else {
                self.stable += 1;
            }
        }
        let q = input.quality_score;
        self.best_overall.offer(index, q);
        if q >= self.config.quality_threshold {
            self.best_above.offer(index, q);
            self.latest_above = Some(index);
            if input.verification_status == VerificationStatus::Passed {
                self.best_verified_above.offer(index, q);
            }
        }
        for (total, v) in self.totals.iter_mut().zip([
            input.usage.tokens_used,
            input.usage.token_cost_usd,
            input.usage.execution_time_ms,
        ]) {
            if let Some(v) = v {
                *total = Some(total.unwrap_or(0.0) + v);
            }
        }
        self.records.push(AnalyticsRecord {
            iteration_number: input.iteration_number,
            quality_score: q,
            verification_status: input.verification_status,
            quality_delta,
            usage: input.usage,
        });
        let last = self.records.len() - 1;
        match self.records.get(last) {
            Some(record) => record,
            None => unreachable_record(),
        }
    }

    /// `detectDiminishingReturns()` (O(1): the run counter is kept as records arrive).
    pub fn detect_diminishing_returns(&self) -> DiminishingReturnsReport {
        if self.records.len() < 2 {
            return DiminishingReturnsReport {
                detected: false,
                iteration: ReportedIteration::Null,
                reason: "Insufficient iterations for detection".to_string(),
            };
        }
        match self.detected_at.and_then(|i| self.records.get(i)) {
            Some(record) => {
                let mut reason = crate::jsnum::uint_string(self.config.consecutive_count_threshold);
                reason.push_str(" consecutive iterations with <");
                jsnum::push_js_string(&mut reason, self.config.diminishing_returns_threshold * 100.0);
                reason.push_str("% improvement");
                DiminishingReturnsReport {
                    detected: true,
                    iteration: ReportedIteration::At(record.iteration_number),
                    reason,
                }
            }
            None => DiminishingReturnsReport {
                detected: false,
                iteration: ReportedIteration::Null,
                reason: "No diminishing returns detected".to_string(),
            },
        }
    }

    /// `getTrajectory()`.
    pub fn trajectory(&self) -> Trajectory {
        let n = self.records.len();
        if n < 3 {
            return Trajectory::InsufficientData;
        }
        let steps = (n - 1) as f64;
        if self.improving as f64 / steps >= 0.67 {
            Trajectory::Improving
        } else if self.declining as f64 / steps >= 0.67 {
            Trajectory::Declining
        } else if self.stable as f64 / steps >= 0.67 {
            Trajectory::Stable
        } else {
            Trajectory::Fluctuating
        }
    }

    /// `getOptimalIteration(verifiedOnly)`: index of the chosen record.
    pub fn optimal_iteration(&self, verified_only: bool) -> Option<usize> {
        let candidates = if verified_only { self.best_verified_above } else { self.best_above };
        candidates.0.or(self.best_overall.0).map(|(i, _)| i)
    }

    /// `selectBestIteration()`.
    pub fn select_best_iteration(&self) -> Selection {
        let Some(last) = self.records.len().checked_sub(1) else {
            return Selection { selected: None, reason: "No iterations recorded".to_string() };
        };
        let quality_reason = |prefix: &str, index: usize| {
            let mut reason = prefix.to_string();
            jsnum::push_js_string(&mut reason, self.records.get(index).map_or(0.0, |r| r.quality_score));
            reason.push(')');
            Selection { selected: Some(index), reason }
        };
        match self.config.selection_criteria {
            SelectionCriteria::HighestQualityVerified => match self.best_verified_above.0 {
                Some((i, _)) => quality_reason("Highest quality verified iteration (", i),
                None => Selection {
                    selected: self.best_overall.0.map(|(i, _)| i),
                    reason: "No verified iterations above threshold, selected highest quality overall".to_string(),
                },
            },
            SelectionCriteria::HighestQuality => {
                quality_reason("Highest quality iteration (", self.best_overall.0.map_or(last, |(i, _)| i))
            }
            SelectionCriteria::MostRecentAboveThreshold => match self.latest_above {
                Some(i) => quality_reason("Most recent iteration above threshold (", i),
                None => Selection {
                    selected: Some(last),
                    reason: "No iterations above threshold, using final iteration".to_string(),
                },
            },
        }
    }

    /// Sums of `tokens_used`, `token_cost_usd`, `execution_time_ms` over the records that
    /// have them (`None` when no record has the field).
    pub fn totals(&self) -> [Option<f64>; 3] {
        self.totals
    }

    fn iteration_of(&self, index: Option<usize>) -> Value {
        index.and_then(|i| self.records.get(i)).map_or(Value::Null, |r| Value::Number(r.iteration_number as f64))
    }

    fn record_of(&self, index: Option<usize>) -> Value {
        index.and_then(|i| self.records.get(i)).map_or(Value::Null, AnalyticsRecord::to_value)
    }

    /// `getOptimalIteration(verifiedOnly)` as the JS API returns it (a record or null).
    pub fn optimal_iteration_value(&self, verified_only: bool) -> Value {
        self.record_of(self.optimal_iteration(verified_only))
    }

    /// `selectBestIteration()` as the JS API returns it.
    pub fn select_best_iteration_value(&self) -> Value {
        let selection = self.select_best_iteration();
        Value::object(vec![
            ("selected", self.record_of(selection.selected)),
            ("reason", Value::String(selection.reason)),
        ])
    }

    /// `generateSummary()` as the JS API returns it.
    pub fn summary_value(&self) -> Value {
        let selection = self.select_best_iteration();
        let [tokens, cost, time] = self.totals;
        ObjectBuilder::new()
            .number("total_iterations", self.records.len() as f64)
            .value("optimal_iteration", self.iteration_of(self.optimal_iteration(true)))
            .value("final_iteration", self.iteration_of(self.records.len().checked_sub(1)))
            .value("selected_iteration", self.iteration_of(selection.selected))
            .value("selection_reason", Value::String(selection.reason))
            .value("diminishing_returns", self.detect_diminishing_returns().to_value())
            .string("trajectory", self.trajectory().as_str())
            .number("total_tokens", tokens.unwrap_or(0.0))
            .number("total_cost_usd", cost.unwrap_or(0.0))
            .number("total_time_ms", time.unwrap_or(0.0))
            .build()
    }

    /// Clears every record, keeps the config.
    pub fn reset(&mut self) {
        // The config was checked when this object was made.
        *self = Self::fresh(self.config.clone());
    }

    /// `{version, engine: "IterationAnalytics", config, records}`.
    pub fn to_snapshot(&self) -> Value {
        Value::object(vec![
            ("version", Value::Number(crate::snapshot::VERSION as f64)),
            ("engine", Value::string("IterationAnalytics")),
            ("config", self.config.to_value(Naming::Js)),
            ("records", value::array_of(&self.records, AnalyticsRecord::to_value)),
        ])
    }

    /// Restores a snapshot; the derived state is recomputed, and each stored
    /// `quality_delta` must equal the recomputed one.
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let reader = crate::snapshot::open(snapshot, "IterationAnalytics", &SNAPSHOT_FIELDS)?;
        let config = AnalyticsConfig::default()
            .merged(
                reader.get(FieldName::same("config")).unwrap_or(&Value::Null),
                Naming::Js,
                "config",
                ErrorCode::InvalidSnapshot,
            )
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut analytics = Self::fresh(config);
        for (i, record) in crate::snapshot::array(&reader, FieldName::same("records"))?.iter().enumerate() {
            let path = value::index_path("records", i);
            let input = AnalyticsInput::read(record, Naming::Snake, &path, true)?;
            let stored_delta = match record.get("quality_delta") {
                Some(Value::Number(d)) => Some(*d),
                other => {
                    let field = value::join_path(&path, "quality_delta");
                    let got = other.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
                    return Err(Error::new(
                        ErrorCode::InvalidSnapshot,
                        ErrorKind::Type,
                        field.clone(),
                        value::concat(&[&field, " must be a number, got ", &got]),
                    ));
                }
            };
            let computed = analytics.push(input).quality_delta;
            if stored_delta.is_some_and(|d| d.to_bits() != computed.to_bits()) || stored_delta.is_none() {
                let field = value::join_path(&path, "quality_delta");
                return Err(Error::new(
                    ErrorCode::InvalidSnapshot,
                    ErrorKind::Range,
                    field.clone(),
                    value::concat(&[&field, " must equal this score minus the previous one"]),
                ));
            }
        }
        Ok(analytics)
    }
}

/// Validates the `verifiedOnly` argument of `getOptimalIteration(verifiedOnly)` (a boolean;
/// a binding passes the default `true` itself when the caller gave none).
pub fn verified_only_argument(value: &Value, naming: Naming) -> Result<bool> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => {
            let field = field_name!("verifiedOnly", "verified_only").spelled(naming);
            Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Type,
                field,
                value::concat(&[field, " must be a boolean, got ", &other.describe()]),
            ))
        }
    }
}

#[cold]
fn unreachable_record() -> &'static AnalyticsRecord {
    // `push` has just appended, so the record exists; a static keeps this path panic-free.
    static EMPTY: AnalyticsRecord = AnalyticsRecord {
        iteration_number: 0,
        quality_score: 0.0,
        verification_status: VerificationStatus::Skipped,
        quality_delta: 0.0,
        usage: ResourceUsage { tokens_used: None, token_cost_usd: None, execution_time_ms: None },
    };
    &EMPTY
}

/// The keys of this engine's snapshot.
const SNAPSHOT_FIELDS: [FieldName; 4] =
    [FieldName::same("version"), FieldName::same("engine"), FieldName::same("config"), FieldName::same("records")];
