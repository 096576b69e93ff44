//! The engine: [`IterationAnalytics`] records quality per iteration and keeps, record by
//! record, what its rules read (the diminishing-returns run, the trajectory's counts, the
//! best records, the usage sums), so no query rescans the history.

use crate::loops::analytics::config::{
    date_time, AnalyticsConfig, SelectionCriteria, CONSTRUCTOR_FIELDS, END_TIME, PERSIST, START_TIME,
};
use crate::loops::analytics::records::{AnalyticsInput, AnalyticsRecord, SnapshotPath};
use crate::loops::{DiminishingReturnsReport, ReportedIteration, ResourceUsage, VerificationStatus};
use crate::num;
use crate::value::{self, field_name, named_enum, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

named_enum! {
    /// The trajectory classes of `getTrajectory()`.
    pub enum Trajectory {
        /// Fewer than 3 records.
        InsufficientData = "insufficient_data",
        /// >= 67% of steps gained more than 2 points.
        Improving = "improving",
        /// >= 67% of steps lost more than 2 points.
        Declining = "declining",
        /// >= 67% of steps moved by at most 2 points.
        Stable = "stable",
        /// None of the above.
        Fluctuating = "fluctuating",
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
pub(super) struct Derived {
    run: u64,
    detected_at: Option<usize>,
    improving: u64,
    declining: u64,
    stable: u64,
    best_overall: Best,
    best_above: Best,
    best_verified_above: Best,
    latest_above: Option<usize>,
    pub(super) totals: [Option<f64>; 3],
}

/// The built-in `IterationAnalytics`.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationAnalytics {
    // `pub(super)`: the summary, snapshot, files and report (beside this file) read them.
    pub(super) config: AnalyticsConfig,
    pub(super) loop_id: Option<String>,
    pub(super) task_description: Option<String>,
    pub(super) start_time: Option<String>,
    pub(super) end_time: Option<String>,
    pub(super) persist: bool,
    pub(super) records: Vec<AnalyticsRecord>,
    pub(super) derived: Derived,
}

pub(super) const LOOP_ID: FieldName = field_name!("loopId", "loop_id");

pub(super) const TASK_DESCRIPTION: FieldName = field_name!("taskDescription", "task_description");

/// A positional string argument (`loopId`, `taskDescription`).
pub(super) fn string_argument(value: &Value, field: FieldName, naming: Naming) -> Result<String> {
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
    pub(super) fn fresh(config: AnalyticsConfig) -> Self {
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
    pub(super) fn apply_options(&mut self, options: &Value, naming: Naming, files: bool) -> Result<()> {
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
    pub(super) fn push(
        &mut self,
        input: AnalyticsInput,
        timestamp: String,
        stored_delta: Option<f64>,
    ) -> &AnalyticsRecord {
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
    pub(super) fn rederive(&mut self) {
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

    pub(super) fn iteration_of(&self, index: Option<usize>) -> Value {
        index.and_then(|i| self.records.get(i)).map_or(Value::Null, |r| Value::Number(r.iteration_number as f64))
    }

    pub(super) fn record_of(&self, index: Option<usize>) -> Value {
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

    /// Clears every record, keeps the config, the loop's names and its times.
    pub fn reset(&mut self) {
        self.records.clear();
        self.derived = Derived::default();
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
