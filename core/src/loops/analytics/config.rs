//! The analytics' options: [`AnalyticsConfig`] (upstream's `AnalyticsConfig`, in its key
//! order) and the readers of the strings its constructor and its summaries take.

use crate::num;
use crate::time;
use crate::value::{
    self, field_name, named_enum, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER,
};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const STORAGE_PATH: FieldName = field_name!("storagePath", "storage_path");

const DIMINISHING_RETURNS_THRESHOLD: FieldName =
    field_name!("diminishingReturnsThreshold", "diminishing_returns_threshold");

const CONSECUTIVE_COUNT_THRESHOLD: FieldName = field_name!("consecutiveCountThreshold", "consecutive_count_threshold");

const QUALITY_THRESHOLD: FieldName = field_name!("qualityThreshold", "quality_threshold");

const SELECTION_CRITERIA: FieldName = field_name!("selectionCriteria", "selection_criteria");

pub(super) const PERSIST: FieldName = FieldName::same("persist");

pub(super) const START_TIME: FieldName = field_name!("startTime", "start_time");

pub(super) const END_TIME: FieldName = field_name!("endTime", "end_time");

/// upstream's default `storagePath`.
pub const DEFAULT_STORAGE_PATH: &str = ".aiwg/ralph/analytics";

/// Every analytics config key (upstream's `AnalyticsConfig`, in its order).
pub const ANALYTICS_CONFIG_FIELDS: [FieldName; 5] =
    [STORAGE_PATH, DIMINISHING_RETURNS_THRESHOLD, CONSECUTIVE_COUNT_THRESHOLD, QUALITY_THRESHOLD, SELECTION_CRITERIA];

/// The rule keys alone: what a loop replay's `analytics` policy takes (it writes no files).
const RULE_FIELDS: [FieldName; 4] =
    [DIMINISHING_RETURNS_THRESHOLD, CONSECUTIVE_COUNT_THRESHOLD, QUALITY_THRESHOLD, SELECTION_CRITERIA];

/// The constructor's config object: upstream's keys, then the project's options (whether the
/// upstream form saves after every record, and the times a caller may give).
pub(super) const CONSTRUCTOR_FIELDS: [FieldName; 8] = [
    STORAGE_PATH,
    DIMINISHING_RETURNS_THRESHOLD,
    CONSECUTIVE_COUNT_THRESHOLD,
    QUALITY_THRESHOLD,
    SELECTION_CRITERIA,
    PERSIST,
    START_TIME,
    END_TIME,
];

named_enum! {
    /// How `select_best_iteration` chooses.
    pub enum SelectionCriteria {
        /// Highest quality among passed records reaching the quality threshold (default).
        HighestQualityVerified = "highest_quality_verified",
        /// Highest quality overall.
        HighestQuality = "highest_quality",
        /// The latest record reaching the quality threshold.
        MostRecentAboveThreshold = "most_recent_above_threshold",
    }
}

/// `IterationAnalytics` config (upstream's `AnalyticsConfig`).
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsConfig {
    /// The folder the upstream form saves into; a non-empty string, default
    /// `.aiwg/ralph/analytics`. The core never writes: a binding does.
    pub storage_path: String,
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
            storage_path: DEFAULT_STORAGE_PATH.to_string(),
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
        self.read(&reader)
    }

    /// [`AnalyticsConfig::merged`] over the rule keys alone (a loop replay's `analytics`
    /// policy: it writes no files, so `storagePath` would do nothing there).
    pub fn merged_rules(&self, options: &Value, naming: Naming, path: &str, code: ErrorCode) -> Result<Self> {
        if matches!(options, Value::Null) {
            return Ok(self.clone());
        }
        let reader = ObjectReader::new(options, path, "config", naming, code)?;
        reader.reject_unknown(&RULE_FIELDS)?;
        self.read(&reader)
    }

    /// Reads the config keys present in `reader` over `self` (unknown keys already refused).
    pub(super) fn read(&self, reader: &ObjectReader<'_>) -> Result<Self> {
        let mut config = self.clone();
        if reader.get(STORAGE_PATH).is_some() {
            config.storage_path = nonempty_string(reader, STORAGE_PATH)?.to_string();
        }
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
            let s = reader.choice(SELECTION_CRITERIA, &SelectionCriteria::NAMES)?;
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
                value::concat(&[field.snake(), " must be ", &requirement, ", got ", &num::to_js_string(got)]),
            ))
        };
        if self.storage_path.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                STORAGE_PATH.snake(),
                "storage_path must be a non-empty string, got string \"\"",
            ));
        }
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

    /// The config object, upstream's keys in its order (`storagePath` first).
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut o = ObjectBuilder::new();
        o.string(STORAGE_PATH.spelled(naming), &self.storage_path);
        self.push_rules(&mut o, naming);
        o.build()
    }

    /// The rule keys alone (a loop replay's `analytics` policy).
    pub fn rules_value(&self, naming: Naming) -> Value {
        let mut o = ObjectBuilder::new();
        self.push_rules(&mut o, naming);
        o.build()
    }

    fn push_rules(&self, o: &mut ObjectBuilder, naming: Naming) {
        o.number(DIMINISHING_RETURNS_THRESHOLD.spelled(naming), self.diminishing_returns_threshold)
            .number(CONSECUTIVE_COUNT_THRESHOLD.spelled(naming), self.consecutive_count_threshold as f64)
            .number(QUALITY_THRESHOLD.spelled(naming), self.quality_threshold)
            .string(SELECTION_CRITERIA.spelled(naming), self.selection_criteria.as_str());
    }
}

/// A required non-empty string.
fn nonempty_string<'a>(reader: &ObjectReader<'a>, field: FieldName) -> Result<&'a str> {
    let s = reader.string(field)?;
    if s.is_empty() {
        return Err(reader.range_error(field, "a non-empty string", &Value::string("")));
    }
    Ok(s)
}

/// An RFC 3339 date-time string (as `new Date().toISOString()` writes them).
pub(super) fn date_time<'a>(reader: &ObjectReader<'a>, field: FieldName) -> Result<&'a str> {
    let s = reader.string(field)?;
    if !time::is_rfc3339(s) {
        return Err(reader.range_error(field, "an RFC 3339 date-time", &Value::string(s)));
    }
    Ok(s)
}
