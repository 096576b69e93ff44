//! The built-in diminishing-returns source (`IterationAnalytics`), a drop-in for aiwg's
//! `iteration-analytics.mjs`: records quality per iteration, detects diminishing returns,
//! classifies the trajectory, picks the best iteration, sums usage, and writes upstream's
//! summary, quality chart and report ([`crate::analytics_report`]). Everything is
//! incremental: recording is O(1) and no query rescans the history, so a
//! 1,000,000-iteration loop stays cheap.
//!
//! The core has no clock and does no I/O: a binding passes "now" (its clock, as
//! `new Date().toISOString()` formats it; taken as given) where upstream reads the clock,
//! and writes the files itself. Times a caller gives (`startTime`, `endTime`, a record's
//! `timestamp`) are checked.

use crate::loops::{DiminishingReturnsReport, ReportedIteration, ResourceUsage, VerificationStatus};
use crate::num;
use crate::time;
use crate::value::field_name;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const STORAGE_PATH: FieldName = field_name!("storagePath", "storage_path");
const DIMINISHING_RETURNS_THRESHOLD: FieldName =
    field_name!("diminishingReturnsThreshold", "diminishing_returns_threshold");
const CONSECUTIVE_COUNT_THRESHOLD: FieldName = field_name!("consecutiveCountThreshold", "consecutive_count_threshold");
const QUALITY_THRESHOLD: FieldName = field_name!("qualityThreshold", "quality_threshold");
const SELECTION_CRITERIA: FieldName = field_name!("selectionCriteria", "selection_criteria");
const PERSIST: FieldName = FieldName::same("persist");
const START_TIME: FieldName = field_name!("startTime", "start_time");
const END_TIME: FieldName = field_name!("endTime", "end_time");

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
const CONSTRUCTOR_FIELDS: [FieldName; 8] = [
    STORAGE_PATH,
    DIMINISHING_RETURNS_THRESHOLD,
    CONSECUTIVE_COUNT_THRESHOLD,
    QUALITY_THRESHOLD,
    SELECTION_CRITERIA,
    PERSIST,
    START_TIME,
    END_TIME,
];

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
    fn read(&self, reader: &ObjectReader<'_>) -> Result<Self> {
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
fn date_time<'a>(reader: &ObjectReader<'a>, field: FieldName) -> Result<&'a str> {
    let s = reader.string(field)?;
    if !time::is_rfc3339(s) {
        return Err(reader.range_error(field, "an RFC 3339 date-time", &Value::string(s)));
    }
    Ok(s)
}

const ITERATION_NUMBER: FieldName = FieldName::same("iteration_number");
const TIMESTAMP: FieldName = FieldName::same("timestamp");
const QUALITY_SCORE: FieldName = FieldName::same("quality_score");
const QUALITY_DELTA: FieldName = FieldName::same("quality_delta");
const VERIFICATION_STATUS: FieldName = FieldName::same("verification_status");
const OUTPUT_SNAPSHOT_PATH: FieldName = FieldName::same("output_snapshot_path");
const REFLECTIONS: FieldName = FieldName::same("reflections");
/// A record's keys, in upstream's record order (the order of the object literal upstream's
/// `recordIteration` builds, where an absent field is a key holding `undefined`).
pub const RECORD_FIELDS: [FieldName; 10] = [
    ITERATION_NUMBER,
    TIMESTAMP,
    QUALITY_SCORE,
    QUALITY_DELTA,
    FieldName::same("tokens_used"),
    FieldName::same("token_cost_usd"),
    FieldName::same("execution_time_ms"),
    VERIFICATION_STATUS,
    OUTPUT_SNAPSHOT_PATH,
    REFLECTIONS,
];

/// A record's `output_snapshot_path`: upstream copies whatever it was given; a string, `null`
/// (aiwg's own callers pass it) or nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SnapshotPath {
    /// Not given (the key is absent from the record).
    #[default]
    Absent,
    /// Given as `null`.
    Null,
    /// A path.
    Path(String),
}

/// One analytics record, as upstream's `recordIteration` builds it (`quality_delta` is
/// computed when recorded, not reported).
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsRecord {
    /// The iteration number.
    pub iteration_number: u64,
    /// When it was recorded: RFC 3339, the caller's or the binding's clock.
    pub timestamp: String,
    /// 0..=100.
    pub quality_score: f64,
    /// This score minus the previous one when recorded (0 for the first); a stored record
    /// (a snapshot, a saved summary, an assigned history) keeps the delta it holds.
    pub quality_delta: f64,
    /// Optional resource figures.
    pub usage: ResourceUsage,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
    /// Where the iteration's output was saved, if given.
    pub output_snapshot_path: SnapshotPath,
    /// Reflection notes (empty when none were given).
    pub reflections: Vec<String>,
}

impl AnalyticsRecord {
    /// The record as `recordIteration` returns it, upstream's keys in its order; absent
    /// optional fields are absent (upstream's `undefined`).
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.number("iteration_number", self.iteration_number as f64)
            .string("timestamp", &self.timestamp)
            .number("quality_score", self.quality_score)
            .number("quality_delta", self.quality_delta)
            .some_number("tokens_used", self.usage.tokens_used)
            .some_number("token_cost_usd", self.usage.token_cost_usd)
            .some_number("execution_time_ms", self.usage.execution_time_ms)
            .string("verification_status", self.verification_status.as_str());
        match &self.output_snapshot_path {
            SnapshotPath::Absent => {}
            SnapshotPath::Null => {
                o.value("output_snapshot_path", Value::Null);
            }
            SnapshotPath::Path(p) => {
                o.string("output_snapshot_path", p);
            }
        }
        let reflections = value::array_of(&self.reflections, |r| Value::string(r.as_str()));
        o.value("reflections", reflections).build()
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
    /// RFC 3339; `None` lets the binding's clock fill it (the core has none).
    pub timestamp: Option<String>,
    /// Where the iteration's output was saved.
    pub output_snapshot_path: SnapshotPath,
    /// Reflection notes.
    pub reflections: Vec<String>,
}

impl AnalyticsInput {
    /// A record with the three required fields and nothing else.
    pub fn new(iteration_number: u64, quality_score: f64, verification_status: VerificationStatus) -> Self {
        AnalyticsInput {
            iteration_number,
            quality_score,
            verification_status,
            usage: ResourceUsage::default(),
            timestamp: None,
            output_snapshot_path: SnapshotPath::Absent,
            reflections: Vec::new(),
        }
    }

    /// The input as a `recordIteration` argument.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.number("iteration_number", self.iteration_number as f64);
        if let Some(t) = &self.timestamp {
            o.string("timestamp", t);
        }
        o.number("quality_score", self.quality_score)
            .some_number("tokens_used", self.usage.tokens_used)
            .some_number("token_cost_usd", self.usage.token_cost_usd)
            .some_number("execution_time_ms", self.usage.execution_time_ms)
            .string("verification_status", self.verification_status.as_str());
        match &self.output_snapshot_path {
            SnapshotPath::Absent => {}
            SnapshotPath::Null => {
                o.value("output_snapshot_path", Value::Null);
            }
            SnapshotPath::Path(p) => {
                o.string("output_snapshot_path", p);
            }
        }
        if !self.reflections.is_empty() {
            o.value("reflections", value::array_of(&self.reflections, |r| Value::string(r.as_str())));
        }
        o.build()
    }

    /// Parses and validates a `recordIteration` argument. `quality_delta` may be given (as
    /// upstream's records carry it) and must be a finite number; it is recomputed, as
    /// upstream does.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        Ok(Self::read(value, naming, "", None)?.0)
    }

    /// Reads a record; `stored` = a stored record (in a snapshot, a saved summary, or put
    /// into upstream's `iterations` by its user), whose problems are that code
    /// (`invalid_snapshot`, or `invalid_result` for a write), and whose `timestamp`,
    /// `quality_delta` and `reflections` are required. Returns the input and the
    /// `quality_delta` given, if any.
    pub(crate) fn read(
        value: &Value,
        naming: Naming,
        path: &str,
        stored: Option<ErrorCode>,
    ) -> Result<(Self, Option<f64>)> {
        let code = stored.unwrap_or(ErrorCode::InvalidResult);
        let stored = stored.is_some();
        let reader = ObjectReader::new(value, path, "record", naming, code)?;
        reader.reject_unknown(&RECORD_FIELDS)?;
        let iteration_number = match value.get(ITERATION_NUMBER.js()) {
            Some(n) if !stored => {
                value::integer_argument(n, "iteration_number", ErrorCode::InvalidIteration, 1, MAX_SAFE_INTEGER)?
            }
            _ if !stored => {
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
        let status = reader.choice(VERIFICATION_STATUS, &VerificationStatus::NAMES)?;
        let verification_status = VerificationStatus::parse(status).unwrap_or(VerificationStatus::Skipped);
        // The same three optional figures, read as an iteration result reads them (one copy).
        let usage = ResourceUsage::read(&reader)?;
        let output_snapshot_path = match reader.get(OUTPUT_SNAPSHOT_PATH) {
            None => SnapshotPath::Absent,
            Some(Value::Null) => SnapshotPath::Null,
            Some(_) => SnapshotPath::Path(reader.string(OUTPUT_SNAPSHOT_PATH)?.to_string()),
        };
        let reflections = match reader.get(REFLECTIONS) {
            None if !stored => Vec::new(),
            other => string_list(other, &reader.path_of(REFLECTIONS), code)?,
        };
        let quality_delta = if stored || reader.get(QUALITY_DELTA).is_some() {
            Some(reader.number(QUALITY_DELTA, f64::MIN, f64::MAX)?)
        } else {
            None
        };
        let timestamp = if stored || reader.get(TIMESTAMP).is_some() {
            Some(date_time(&reader, TIMESTAMP)?.to_string())
        } else {
            None
        };
        let input = AnalyticsInput {
            iteration_number,
            quality_score,
            verification_status,
            usage,
            timestamp,
            output_snapshot_path,
            reflections,
        };
        Ok((input, quality_delta))
    }
}

/// An array of strings (`reflections`), each element's error named by its index.
fn string_list(value: Option<&Value>, path: &str, code: ErrorCode) -> Result<Vec<String>> {
    let type_error = |field: &str, expected: &str, got: Option<&Value>| {
        let got = got.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
        Error::new(code, ErrorKind::Type, field, value::concat(&[field, " must be ", expected, ", got ", &got]))
    };
    let Some(Value::Array(items)) = value else {
        return Err(type_error(path, "an array of strings", value));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(s) => out.push(s.clone()),
            other => return Err(type_error(&value::index_path(path, i), "a string", Some(other))),
        }
    }
    Ok(out)
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

/// upstream's answer to `selectBestIteration()` with no records.
pub const REASON_NO_ITERATIONS: &str = "No iterations available";

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

/// What the rules keep as records arrive (recomputed from the records after a config change).
#[derive(Clone, Debug, Default, PartialEq)]
struct Derived {
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

/// The built-in `IterationAnalytics`.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationAnalytics {
    config: AnalyticsConfig,
    loop_id: Option<String>,
    task_description: Option<String>,
    start_time: Option<String>,
    end_time: Option<String>,
    persist: bool,
    records: Vec<AnalyticsRecord>,
    derived: Derived,
}

const LOOP_ID: FieldName = field_name!("loopId", "loop_id");
const TASK_DESCRIPTION: FieldName = field_name!("taskDescription", "task_description");

/// A positional string argument (`loopId`, `taskDescription`).
fn string_argument(value: &Value, field: FieldName, naming: Naming) -> Result<String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => {
            let name = field.spelled(naming);
            Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Type,
                name,
                value::concat(&[name, " must be a string, got ", &other.describe()]),
            ))
        }
    }
}

impl IterationAnalytics {
    /// A fresh analytics object with no loop id and no start time (Rust callers that need
    /// neither; [`IterationAnalytics::construct`] is the bindings' constructor).
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
            loop_id: None,
            task_description: None,
            start_time: None,
            end_time: None,
            persist: false,
            records: Vec::new(),
            derived: Derived::default(),
        }
    }

    /// From a partial config object (`null` = defaults), without a loop id or times.
    pub fn from_config_value(config: &Value, naming: Naming) -> Result<Self> {
        Ok(Self::fresh(AnalyticsConfig::default().merged(config, naming, "", ErrorCode::InvalidConfig)?))
    }

    /// The bindings' constructor: upstream's form `(loopId, taskDescription, config)` when
    /// `loop_id` is given, else the config-object form `(config)`. `config` may also hold
    /// `persist` (whether the binding saves after every record; default: true for upstream's
    /// form, which is what upstream does; the config-object form never saves), `startTime`
    /// (default `now`, the binding's clock) and `endTime`. `files` says whether the binding
    /// can write files at all (a browser cannot: then nothing persists by default, and
    /// `persist: true` is an error).
    pub fn construct(
        loop_id: Option<&Value>,
        task_description: &Value,
        config: &Value,
        now: &str,
        naming: Naming,
        files: bool,
    ) -> Result<Self> {
        let (loop_id, task_description) = match loop_id {
            Some(id) => (
                Some(string_argument(id, LOOP_ID, naming)?),
                Some(string_argument(task_description, TASK_DESCRIPTION, naming)?),
            ),
            None => (None, None),
        };
        let mut analytics = Self::fresh(AnalyticsConfig::default());
        analytics.loop_id = loop_id;
        analytics.task_description = task_description;
        analytics.persist = analytics.loop_id.is_some() && files;
        analytics.start_time = Some(now.to_string());
        analytics.apply_options(config, naming, files)?;
        Ok(analytics)
    }

    /// Reads the constructor's config object over `self` (config, `persist`, times).
    fn apply_options(&mut self, options: &Value, naming: Naming, files: bool) -> Result<()> {
        if matches!(options, Value::Null) || matches!(options, Value::Other(t) if t == "undefined") {
            return Ok(());
        }
        let reader = ObjectReader::new(options, "", "config", naming, ErrorCode::InvalidConfig)?;
        reader.reject_unknown(&CONSTRUCTOR_FIELDS)?;
        self.config = self.config.read(&reader)?;
        if reader.get(PERSIST).is_some() {
            let persist = reader.boolean(PERSIST)?;
            if persist && (self.loop_id.is_none() || !files) {
                return Err(reader.range_error(
                    PERSIST,
                    "false without a loopId or a file system (the config-object form and browsers never write)",
                    &Value::Bool(true),
                ));
            }
            self.persist = persist;
        }
        if reader.get(START_TIME).is_some() {
            self.start_time = Some(date_time(&reader, START_TIME)?.to_string());
        }
        match reader.get(END_TIME) {
            None | Some(Value::Null) => {}
            Some(_) => self.end_time = Some(date_time(&reader, END_TIME)?.to_string()),
        }
        Ok(())
    }

    /// The config.
    pub fn config(&self) -> &AnalyticsConfig {
        &self.config
    }

    /// upstream's `loopId` (`None`: made with the config-object form).
    pub fn loop_id(&self) -> Option<&str> {
        self.loop_id.as_deref()
    }

    /// upstream's `taskDescription`.
    pub fn task_description(&self) -> Option<&str> {
        self.task_description.as_deref()
    }

    /// upstream's `startTime`.
    pub fn start_time(&self) -> Option<&str> {
        self.start_time.as_deref()
    }

    /// upstream's `endTime`: set by the first summary (or given), `None` before.
    pub fn end_time(&self) -> Option<&str> {
        self.end_time.as_deref()
    }

    /// Whether the binding saves the summary after every record (upstream's form, unless
    /// `persist: false`).
    pub fn persists(&self) -> bool {
        self.persist
    }

    /// All records, oldest first.
    pub fn records(&self) -> &[AnalyticsRecord] {
        &self.records
    }

    /// `recordIteration(record)` on a host value; a record without `timestamp` gets `now`
    /// (the binding's clock). Returns the stored record.
    pub fn record_value(&mut self, record: &Value, naming: Naming, now: &str) -> Result<&AnalyticsRecord> {
        let input = AnalyticsInput::from_value(record, naming)?;
        let timestamp = match &input.timestamp {
            Some(t) => t.clone(),
            None => now.to_string(),
        };
        Ok(self.push(input, timestamp, None))
    }

    /// `recordIteration` for a record built in Rust, validated as a host's record is. The
    /// core has no clock, so the record needs its `timestamp`.
    pub fn record(&mut self, input: AnalyticsInput) -> Result<&AnalyticsRecord> {
        let checked = AnalyticsInput::from_value(&input.to_value(), Naming::Snake)?;
        let Some(timestamp) = checked.timestamp.clone() else {
            return Err(Error::new(
                ErrorCode::InvalidResult,
                ErrorKind::Type,
                "timestamp",
                "timestamp must be an RFC 3339 date-time (the core has no clock), got nothing (missing)",
            ));
        };
        Ok(self.push(checked, timestamp, None))
    }

    /// Records an input the caller has already validated, with no timestamp (the replay
    /// parses and checks its runs once, and never shows these records).
    pub(crate) fn record_checked(&mut self, input: AnalyticsInput) {
        self.push(input, String::new(), None);
    }

    // Out of line: record_value and load_records share one copy (a size-budgeted wasm module).
    // `stored_delta`: a stored record's own `quality_delta` (upstream's records are plain
    // data its users may change, so a stored delta need not be the score difference); a new
    // record's is computed, as upstream's recordIteration computes it.
    #[inline(never)]
    fn push(&mut self, input: AnalyticsInput, timestamp: String, stored_delta: Option<f64>) -> &AnalyticsRecord {
        let previous = self.records.last().map(|r| r.quality_score);
        let quality_delta = stored_delta.unwrap_or_else(|| previous.map_or(0.0, |p| input.quality_score - p));
        let record = AnalyticsRecord {
            iteration_number: input.iteration_number,
            timestamp,
            quality_score: input.quality_score,
            quality_delta,
            usage: input.usage,
            verification_status: input.verification_status,
            output_snapshot_path: input.output_snapshot_path,
            reflections: input.reflections,
        };
        self.observe(previous, &record);
        self.records.push(record);
        match self.records.last() {
            Some(record) => record,
            None => unreachable_record(),
        }
    }

    /// Folds the record about to be stored at `self.records.len()` into the derived state.
    fn observe(&mut self, previous: Option<f64>, record: &AnalyticsRecord) {
        let index = self.records.len();
        let d = &mut self.derived;
        let quality_delta = record.quality_delta;
        if let Some(prev) = previous {
            // upstream: `prevScore > 0 ? Math.abs(delta) / prevScore : 0` (a step from 0 counts
            // as no change).
            let pct = if prev > 0.0 { quality_delta.abs() / prev } else { 0.0 };
            if pct < self.config.diminishing_returns_threshold {
                d.run += 1;
            } else {
                d.run = 0;
            }
            if d.detected_at.is_none() && d.run >= self.config.consecutive_count_threshold {
                d.detected_at = Some(index);
            }
            if quality_delta > 2.0 {
                d.improving += 1;
            } else if quality_delta < -2.0 {
                d.declining += 1;
            } else {
                d.stable += 1;
            }
        }
        let q = record.quality_score;
        d.best_overall.offer(index, q);
        if q >= self.config.quality_threshold {
            d.best_above.offer(index, q);
            d.latest_above = Some(index);
            if record.verification_status == VerificationStatus::Passed {
                d.best_verified_above.offer(index, q);
            }
        }
        let usage = record.usage;
        for (total, v) in d.totals.iter_mut().zip([usage.tokens_used, usage.token_cost_usd, usage.execution_time_ms]) {
            if let Some(v) = v {
                *total = Some(total.unwrap_or(0.0) + v);
            }
        }
    }

    /// Recomputes the derived state from the records (after the config changed).
    fn rederive(&mut self) {
        let records = std::mem::take(&mut self.records);
        self.derived = Derived::default();
        let mut previous = None;
        for record in records {
            self.observe(previous, &record);
            previous = Some(record.quality_score);
            self.records.push(record);
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
        match self.derived.detected_at.and_then(|i| self.records.get(i)) {
            Some(record) => DiminishingReturnsReport {
                detected: true,
                iteration: ReportedIteration::At(record.iteration_number),
                reason: self.detection_reason(),
            },
            None => DiminishingReturnsReport {
                detected: false,
                iteration: ReportedIteration::Null,
                reason: "No diminishing returns detected".to_string(),
            },
        }
    }

    /// `` `${consecutiveRequired} consecutive iterations with <${threshold * 100}% improvement` ``.
    fn detection_reason(&self) -> String {
        let mut reason = num::uint_string(self.config.consecutive_count_threshold);
        reason.push_str(" consecutive iterations with <");
        num::push_js_string(&mut reason, self.config.diminishing_returns_threshold * 100.0);
        reason.push_str("% improvement");
        reason
    }

    /// `getTrajectory()`.
    pub fn trajectory(&self) -> Trajectory {
        let n = self.records.len();
        if n < 3 {
            return Trajectory::InsufficientData;
        }
        let steps = (n - 1) as f64;
        let d = &self.derived;
        if d.improving as f64 / steps >= 0.67 {
            Trajectory::Improving
        } else if d.declining as f64 / steps >= 0.67 {
            Trajectory::Declining
        } else if d.stable as f64 / steps >= 0.67 {
            Trajectory::Stable
        } else {
            Trajectory::Fluctuating
        }
    }

    /// `getOptimalIteration(verifiedOnly)`: index of the chosen record.
    pub fn optimal_iteration(&self, verified_only: bool) -> Option<usize> {
        let candidates = if verified_only { self.derived.best_verified_above } else { self.derived.best_above };
        candidates.0.or(self.derived.best_overall.0).map(|(i, _)| i)
    }

    /// `selectBestIteration()`.
    ///
    /// With `highest_quality_verified` and no passed record reaching `qualityThreshold`,
    /// upstream says `Highest quality verified iteration (q)` of a record that is not
    /// verified (its fallback branch cannot be reached: `getOptimalIteration(true)` never
    /// answers null with records); this says what happened instead (a listed difference).
    pub fn select_best_iteration(&self) -> Selection {
        let Some(last) = self.records.len().checked_sub(1) else {
            return Selection { selected: None, reason: REASON_NO_ITERATIONS.to_string() };
        };
        let quality_reason = |prefix: &str, index: usize| {
            let mut reason = prefix.to_string();
            num::push_js_string(&mut reason, self.records.get(index).map_or(0.0, |r| r.quality_score));
            reason.push(')');
            Selection { selected: Some(index), reason }
        };
        let d = &self.derived;
        match self.config.selection_criteria {
            SelectionCriteria::HighestQualityVerified => match d.best_verified_above.0 {
                Some((i, _)) => quality_reason("Highest quality verified iteration (", i),
                None => Selection {
                    selected: d.best_overall.0.map(|(i, _)| i),
                    reason: "No verified iterations above threshold, selected highest quality overall".to_string(),
                },
            },
            SelectionCriteria::HighestQuality => {
                quality_reason("Highest quality iteration (", d.best_overall.0.map_or(last, |(i, _)| i))
            }
            SelectionCriteria::MostRecentAboveThreshold => match d.latest_above {
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
        self.derived.totals
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

    /// Sets `endTime` to `now` unless it is set: what upstream's `generateSummary()` does
    /// first (`this.endTime = this.endTime || new Date().toISOString()`).
    pub fn settle_end_time(&mut self, now: &str) -> Result<()> {
        if self.end_time.is_none() {
            self.end_time = Some(now.to_string());
        }
        Ok(())
    }

    /// The summary's keys before `iterations`: `{loop_id, task_description, start_time,
    /// end_time}` (null where unset).
    pub fn summary_head(&self) -> Value {
        let text = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::string);
        Value::object(vec![
            ("loop_id", text(&self.loop_id)),
            ("task_description", text(&self.task_description)),
            ("start_time", text(&self.start_time)),
            ("end_time", text(&self.end_time)),
        ])
    }

    /// The summary's keys after `iterations` (all O(1): kept as records arrive).
    ///
    /// `optimal_iteration` is upstream's `getOptimalIteration(false)`; `final_iteration` is 0
    /// with no records, as upstream writes it. Totals sum the records that have the field
    /// (upstream's sum is NaN once one record lacks it, written as null: a listed difference).
    pub fn summary_tail(&self) -> Value {
        let selection = self.select_best_iteration();
        let [tokens, cost, time] = self.derived.totals;
        let report = self.detect_diminishing_returns();
        let final_iteration = self.records.last().map_or(0.0, |r| r.iteration_number as f64);
        ObjectBuilder::new()
            .number("total_iterations", self.records.len() as f64)
            .value("optimal_iteration", self.iteration_of(self.optimal_iteration(false)))
            .number("final_iteration", final_iteration)
            .value("selected_iteration", self.iteration_of(selection.selected))
            .value("selection_reason", Value::String(selection.reason))
            .number("total_tokens", tokens.unwrap_or(0.0))
            .number("total_cost_usd", cost.unwrap_or(0.0))
            .number("total_time_ms", time.unwrap_or(0.0))
            .boolean("diminishing_returns_detected", report.detected)
            .value("diminishing_returns_iteration", report.iteration.to_value().unwrap_or(Value::Null))
            .string("quality_trajectory", self.trajectory().as_str())
            .build()
    }

    /// The records from index `from` on, as upstream's summary lists them.
    pub fn records_value(&self, from: usize) -> Value {
        value::array_of(self.records.get(from..).unwrap_or(&[]), AnalyticsRecord::to_value)
    }

    /// `generateSummary()`: sets `endTime` to `now` unless set, then answers upstream's
    /// `AnalyticsSummary` (keys in its order).
    pub fn summary_value(&mut self, now: &str) -> Result<Value> {
        self.settle_end_time(now)?;
        Ok(self.summary_value_settled())
    }

    /// The summary with `endTime` as it is (null when unset).
    pub fn summary_value_settled(&self) -> Value {
        let mut entries = match self.summary_head() {
            Value::Object(entries) => entries,
            _ => Vec::new(),
        };
        entries.push(("iterations".to_string(), self.records_value(0)));
        if let Value::Object(tail) = self.summary_tail() {
            for entry in tail {
                entries.push(entry);
            }
        }
        Value::Object(entries)
    }

    /// Assigns one of upstream's public fields (`loopId`, `taskDescription`, `startTime`,
    /// `endTime`, `iterations`, `config`), validated; a bad value changes nothing. `config`
    /// is merged over the defaults (upstream replaces its object outright) and `iterations`
    /// must be records as a summary lists them (each keeps its `quality_delta`, as upstream's
    /// records do; problems are `invalid_result`, named `iterations[i].field`); both
    /// recompute the derived state (O(n)).
    pub fn assign(&mut self, field: &str, value: &Value, naming: Naming) -> Result<()> {
        let is = |f: FieldName| f.spelled(naming) == field;
        if is(LOOP_ID) || is(TASK_DESCRIPTION) {
            let target = if is(LOOP_ID) { LOOP_ID } else { TASK_DESCRIPTION };
            let s = string_argument(value, target, naming)?;
            if is(LOOP_ID) {
                self.loop_id = Some(s);
            } else {
                self.task_description = Some(s);
            }
            return Ok(());
        }
        if is(START_TIME) || is(END_TIME) {
            let target = if is(START_TIME) { START_TIME } else { END_TIME };
            let holder = Value::object(vec![(target.spelled(naming), value.clone())]);
            let reader = ObjectReader::new(&holder, "", "value", naming, ErrorCode::InvalidConfig)?;
            let time = match value {
                Value::Null if is(END_TIME) => None,
                _ => Some(date_time(&reader, target)?.to_string()),
            };
            if is(START_TIME) {
                self.start_time = time;
            } else {
                self.end_time = time;
            }
            return Ok(());
        }
        if field == "iterations" {
            let mut copy = self.clone();
            copy.load_records(Some(value), "iterations", naming, ErrorCode::InvalidResult)?;
            *self = copy;
            return Ok(());
        }
        if field == "config" {
            let config = AnalyticsConfig::default().merged(value, naming, "config", ErrorCode::InvalidConfig)?;
            self.config = config;
            self.rederive();
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::UnknownOption,
            ErrorKind::Type,
            field,
            value::concat(&[
                "unknown field '",
                field,
                "'. Assignable fields: ",
                LOOP_ID.spelled(naming),
                ", ",
                TASK_DESCRIPTION.spelled(naming),
                ", ",
                START_TIME.spelled(naming),
                ", ",
                END_TIME.spelled(naming),
                ", iterations, config",
            ]),
        ))
    }

    /// upstream's `IterationAnalytics.load` minus the file: an analytics object from a saved
    /// summary (`JSON.parse`d, or its text). As upstream, the object takes the summary's
    /// `loop_id`, `task_description`, `start_time`, `end_time` and `iterations`, and the
    /// default config (the file does not hold one) under `config`; it saves after every
    /// record (upstream's form) unless `config` says `persist: false` or the summary has no
    /// `loop_id`. Every problem in the summary is `invalid_snapshot`, named by its path.
    ///
    /// `storage_path` is the folder the binding read the file from (upstream's load passes
    /// `join(filepath, '..')`); `config` may override it. `files` is as for
    /// [`IterationAnalytics::construct`].
    pub fn from_summary(
        summary: &Value,
        config: &Value,
        naming: Naming,
        storage_path: Option<&str>,
        files: bool,
    ) -> Result<Self> {
        let parsed;
        let summary = match summary {
            Value::String(text) => {
                parsed = Value::parse_json(text, ErrorCode::InvalidSnapshot, "summary")?;
                &parsed
            }
            other => other,
        };
        let reader = ObjectReader::new(summary, "", "summary", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        reader.reject_unknown(&SUMMARY_FIELDS)?;
        let nullable_string = |field: FieldName, time: bool| -> Result<Option<String>> {
            match reader.get(field) {
                Some(Value::Null) => Ok(None),
                _ if time => Ok(Some(date_time(&reader, field)?.to_string())),
                _ => Ok(Some(reader.string(field)?.to_string())),
            }
        };
        let mut analytics = Self::fresh(AnalyticsConfig::default());
        analytics.loop_id = nullable_string(FieldName::same("loop_id"), false)?;
        analytics.task_description = nullable_string(FieldName::same("task_description"), false)?;
        analytics.start_time = Some(date_time(&reader, FieldName::same("start_time"))?.to_string());
        analytics.end_time = nullable_string(FieldName::same("end_time"), true)?;
        analytics.persist = analytics.loop_id.is_some() && files;
        if let Some(path) = storage_path {
            analytics.config.storage_path = path.to_string();
        }
        // The caller's config (and times, if given) over the file's.
        analytics.apply_options(config, naming, files)?;
        let records = reader.get(FieldName::same("iterations"));
        analytics.load_records(records, "iterations", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        Ok(analytics)
    }

    /// Where `saveAnalytics(filename)` or `saveReport(filename)` write (see [`file_target`]).
    pub fn file_target(&self, filename: &Value, file: SavedFile, naming: Naming) -> Result<FileTarget> {
        file_target(self.loop_id(), &self.config.storage_path, filename, file, naming)
    }

    /// Clears every record, keeps the config, the loop's names and its times.
    pub fn reset(&mut self) {
        self.records.clear();
        self.derived = Derived::default();
    }

    /// `{version, engine: "IterationAnalytics", config, loopId, taskDescription, startTime,
    /// endTime, records}` (the loop's names and times null where unset).
    pub fn to_snapshot(&self) -> Value {
        let text = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::string);
        Value::object(vec![
            ("version", Value::Number(crate::snapshot::VERSION as f64)),
            ("engine", Value::string("IterationAnalytics")),
            ("config", self.config.to_value(Naming::Js)),
            ("loopId", text(&self.loop_id)),
            ("taskDescription", text(&self.task_description)),
            ("startTime", text(&self.start_time)),
            ("endTime", text(&self.end_time)),
            ("records", value::array_of(&self.records, AnalyticsRecord::to_value)),
        ])
    }

    /// Restores a snapshot; the derived state is recomputed, and each stored
    /// `quality_delta` must equal the recomputed one. A restored object never saves by itself.
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
        let optional_string = |field: FieldName, time: bool| -> Result<Option<String>> {
            match reader.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(_) if time => Ok(Some(date_time(&reader, field)?.to_string())),
                Some(_) => Ok(Some(reader.string(field)?.to_string())),
            }
        };
        analytics.loop_id = optional_string(LOOP_ID, false)?;
        analytics.task_description = optional_string(TASK_DESCRIPTION, false)?;
        analytics.start_time = optional_string(START_TIME, true)?;
        analytics.end_time = optional_string(END_TIME, true)?;
        let records = reader.get(FieldName::same("records"));
        analytics.load_records(records, "records", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        Ok(analytics)
    }

    /// Replaces the records with stored ones (as a summary or a snapshot lists them; errors
    /// name `path[i].field`, with `code`), folding each in under the current config. Each
    /// keeps its `quality_delta`: upstream's records are plain data that its users may change
    /// (a score written afterwards leaves the deltas as they were), and its detection and
    /// trajectory read the stored deltas, so a saved summary may hold any finite ones. On an
    /// error the records are left half read: callers work on an object they discard then (a
    /// restore, or a copy).
    fn load_records(&mut self, value: Option<&Value>, path: &str, naming: Naming, code: ErrorCode) -> Result<()> {
        let Some(Value::Array(items)) = value else {
            let got = value.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
            return Err(Error::new(
                code,
                ErrorKind::Type,
                path,
                value::concat(&[path, " must be an array, got ", &got]),
            ));
        };
        self.reset();
        for (i, item) in items.iter().enumerate() {
            let (input, stored_delta) = AnalyticsInput::read(item, naming, &value::index_path(path, i), Some(code))?;
            let timestamp = input.timestamp.clone().unwrap_or_default();
            self.push(input, timestamp, stored_delta);
        }
        Ok(())
    }
}

/// Checks one record written into upstream's `iterations` (pushed, assigned by index, or a
/// field of one changed): a record as a summary lists it, problems `invalid_result` (an
/// unknown key `unknown_option`) named `path.field` (`iterations[3].quality_score`).
pub fn check_written_record(record: &Value, path: &str, naming: Naming) -> Result<()> {
    AnalyticsInput::read(record, naming, path, Some(ErrorCode::InvalidResult)).map(|_| ())
}

const FILENAME: FieldName = FieldName::same("filename");

/// Which file [`IterationAnalytics::file_target`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavedFile {
    /// The summary (`saveAnalytics`).
    Summary,
    /// The markdown report (`saveReport`).
    Report,
}

/// Where a save writes (see [`IterationAnalytics::file_target`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileTarget {
    /// The caller's file name, as given.
    Given(String),
    /// upstream's default: `name` inside the folder `dir`.
    Default {
        /// The storage folder.
        dir: String,
        /// The file's name.
        name: String,
    },
}

/// Where `saveAnalytics(filename)` (`file` = [`SavedFile::Summary`]) or `saveReport(filename)`
/// write for an analytics object with `loop_id` and `storage_path`: the `filename` given (a
/// non-empty string), else upstream's default, `<storagePath>/<loopId>.json` or
/// `<storagePath>/<loopId>-report.md` (the binding joins the two with its path module). The
/// config-object form has no `loopId` to name a default file, so it needs a `filename`.
pub fn file_target(
    loop_id: Option<&str>,
    storage_path: &str,
    filename: &Value,
    file: SavedFile,
    naming: Naming,
) -> Result<FileTarget> {
    let field = FILENAME.spelled(naming);
    match filename {
        Value::Null => {}
        Value::Other(t) if t == "undefined" => {}
        other => return path_argument(other, field).map(FileTarget::Given),
    }
    let Some(loop_id) = loop_id else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            field,
            value::concat(&[
                field,
                " must be given: this IterationAnalytics was made with the config-object form and has no loopId \
                 to name its file",
            ]),
        ));
    };
    let suffix = match file {
        SavedFile::Summary => ".json",
        SavedFile::Report => "-report.md",
    };
    Ok(FileTarget::Default { dir: storage_path.to_string(), name: value::concat(&[loop_id, suffix]) })
}

/// A path argument (`saveAnalytics(filename)`, `IterationAnalytics.load(filepath)`): a
/// non-empty string. upstream treats `''` (and every falsy value) as "use the default"; a
/// path is a value here, so an empty one is refused.
pub fn path_argument(value: &Value, field: &str) -> Result<String> {
    match value {
        Value::String(s) if !s.is_empty() => Ok(s.clone()),
        Value::String(_) => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            field,
            value::concat(&[field, " must be a non-empty string, got string \"\""]),
        )),
        other => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            field,
            value::concat(&[field, " must be a string, got ", &other.describe()]),
        )),
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
        timestamp: String::new(),
        quality_score: 0.0,
        quality_delta: 0.0,
        usage: ResourceUsage { tokens_used: None, token_cost_usd: None, execution_time_ms: None },
        verification_status: VerificationStatus::Skipped,
        output_snapshot_path: SnapshotPath::Absent,
        reflections: Vec::new(),
    };
    &EMPTY
}

/// The keys of this engine's snapshot.
const SNAPSHOT_FIELDS: [FieldName; 8] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("config"),
    LOOP_ID,
    TASK_DESCRIPTION,
    START_TIME,
    END_TIME,
    FieldName::same("records"),
];

/// The keys of upstream's saved summary (`AnalyticsSummary`), in its order.
pub const SUMMARY_FIELDS: [FieldName; 16] = [
    FieldName::same("loop_id"),
    FieldName::same("task_description"),
    FieldName::same("start_time"),
    FieldName::same("end_time"),
    FieldName::same("iterations"),
    FieldName::same("total_iterations"),
    FieldName::same("optimal_iteration"),
    FieldName::same("final_iteration"),
    FieldName::same("selected_iteration"),
    FieldName::same("selection_reason"),
    FieldName::same("total_tokens"),
    FieldName::same("total_cost_usd"),
    FieldName::same("total_time_ms"),
    FieldName::same("diminishing_returns_detected"),
    FieldName::same("diminishing_returns_iteration"),
    FieldName::same("quality_trajectory"),
];
