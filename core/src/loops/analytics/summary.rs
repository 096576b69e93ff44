//! upstream's `AnalyticsSummary`: written from the engine's state (`generateSummary()`),
//! assigned field by field, and read back ([`AnalyticsSummary`], [`IterationSelection`],
//! [`IterationAnalytics::from_summary`]).

use crate::loops::analytics::config::{date_time, AnalyticsConfig, END_TIME, START_TIME};
use crate::loops::analytics::engine::{string_argument, IterationAnalytics, Trajectory, LOOP_ID, TASK_DESCRIPTION};
use crate::loops::analytics::records::AnalyticsRecord;
use crate::value::snapshot;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

// The keys of the summary (in upstream's order: `AnalyticsSummary::KEYS`) and of a selection.
const LOOP_ID_KEY: &str = "loop_id";
const TASK_DESCRIPTION_KEY: &str = "task_description";
const START_TIME_KEY: &str = "start_time";
const END_TIME_KEY: &str = "end_time";
const ITERATIONS: &str = "iterations";
const TOTAL_ITERATIONS: &str = "total_iterations";
const OPTIMAL_ITERATION: &str = "optimal_iteration";
const FINAL_ITERATION: &str = "final_iteration";
const SELECTED_ITERATION: &str = "selected_iteration";
const SELECTION_REASON: &str = "selection_reason";
const TOTAL_TOKENS: &str = "total_tokens";
const TOTAL_COST_USD: &str = "total_cost_usd";
const TOTAL_TIME_MS: &str = "total_time_ms";
const DIMINISHING_RETURNS_DETECTED: &str = "diminishing_returns_detected";
const DIMINISHING_RETURNS_ITERATION: &str = "diminishing_returns_iteration";
const QUALITY_TRAJECTORY: &str = "quality_trajectory";
const SELECTED: &str = "selected";
const REASON: &str = "reason";

impl IterationAnalytics {
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
            (LOOP_ID_KEY, text(&self.loop_id)),
            (TASK_DESCRIPTION_KEY, text(&self.task_description)),
            (START_TIME_KEY, text(&self.start_time)),
            (END_TIME_KEY, text(&self.end_time)),
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
            .number(TOTAL_ITERATIONS, self.records.len() as f64)
            .value(OPTIMAL_ITERATION, self.iteration_of(self.optimal_iteration(false)))
            .number(FINAL_ITERATION, final_iteration)
            .value(SELECTED_ITERATION, self.iteration_of(selection.selected))
            .value(SELECTION_REASON, Value::String(selection.reason))
            .number(TOTAL_TOKENS, tokens.unwrap_or(0.0))
            .number(TOTAL_COST_USD, cost.unwrap_or(0.0))
            .number(TOTAL_TIME_MS, time.unwrap_or(0.0))
            .boolean(DIMINISHING_RETURNS_DETECTED, report.detected)
            .value(DIMINISHING_RETURNS_ITERATION, report.iteration.to_value().unwrap_or(Value::Null))
            .string(QUALITY_TRAJECTORY, self.trajectory().as_str())
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
        entries.push((ITERATIONS.to_string(), self.records_value(0)));
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
}

/// The keys of upstream's saved summary (`AnalyticsSummary`), in its order, as its readers
/// take them ([`AnalyticsSummary::KEYS`]).
pub const SUMMARY_FIELDS: [FieldName; 16] = FieldName::same_all(AnalyticsSummary::KEYS);

/// What `select_best_iteration()` answers, with the chosen record itself (a binding keeps
/// this; [`crate::loops::analytics::Selection`] holds an index into the engine's records).
#[derive(Clone, Debug, PartialEq)]
pub struct IterationSelection {
    /// The chosen record, if any.
    pub selected: Option<AnalyticsRecord>,
    /// Why.
    pub reason: String,
}

impl IterationSelection {
    /// The keys of the selection object, in the order [`IterationSelection::to_value`] writes
    /// them (and `selectBestIteration()` answers).
    pub const KEYS: [&'static str; 2] = [SELECTED, REASON];

    /// `{selected: record or null, reason}`.
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new()
            .value(SELECTED, self.selected.as_ref().map_or(Value::Null, AnalyticsRecord::to_value))
            .string(REASON, &self.reason)
            .build()
    }

    /// Reads what [`IterationSelection::to_value`] writes.
    pub fn from_value(value: &Value) -> Result<Self> {
        const FIELDS: [FieldName; 2] = FieldName::same_all(IterationSelection::KEYS);
        let [selected, reason] = FIELDS;
        let r = snapshot::result_object(value, "", "selection", Naming::Snake, &FIELDS)?;
        let selected = match r.get(selected) {
            Some(Value::Null) => None,
            Some(record) => Some(AnalyticsRecord::from_value(record, "selected")?),
            None => {
                return Err(Error::new(
                    ErrorCode::InvalidSnapshot,
                    ErrorKind::Type,
                    SELECTED,
                    "selected must be a record or null, got nothing (missing)",
                ))
            }
        };
        Ok(IterationSelection { selected, reason: r.string(reason)?.to_string() })
    }
}

/// What the analytics' `generateSummary()` answers: upstream's `AnalyticsSummary` (see
/// [`crate::IterationAnalytics::summary_value`], which writes it directly).
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsSummary {
    /// upstream's `loopId` (`None`: the config-object form).
    pub loop_id: Option<String>,
    /// upstream's `taskDescription`.
    pub task_description: Option<String>,
    /// When the analytics started.
    pub start_time: Option<String>,
    /// When the summary was first generated (or the time given).
    pub end_time: Option<String>,
    /// Every record.
    pub iterations: Vec<AnalyticsRecord>,
    /// Records so far.
    pub total_iterations: u64,
    /// Iteration number of `getOptimalIteration(false)`'s record.
    pub optimal_iteration: Option<u64>,
    /// Iteration number of the last record (0 with none, as upstream writes it).
    pub final_iteration: u64,
    /// Iteration number of `selectBestIteration()`'s record.
    pub selected_iteration: Option<u64>,
    /// `selectBestIteration()`'s reason.
    pub selection_reason: String,
    /// Sum of `tokens_used` over the records that have it.
    pub total_tokens: f64,
    /// Sum of `token_cost_usd`.
    pub total_cost_usd: f64,
    /// Sum of `execution_time_ms`.
    pub total_time_ms: f64,
    /// `detectDiminishingReturns().detected`.
    pub diminishing_returns_detected: bool,
    /// `detectDiminishingReturns().iteration`.
    pub diminishing_returns_iteration: Option<u64>,
    /// `getTrajectory()`.
    pub quality_trajectory: Trajectory,
}

impl AnalyticsSummary {
    /// The keys of the summary object, in upstream's order ([`AnalyticsSummary::to_value`]
    /// and [`IterationAnalytics::summary_value`] write them so).
    pub const KEYS: [&'static str; 16] = [
        LOOP_ID_KEY,
        TASK_DESCRIPTION_KEY,
        START_TIME_KEY,
        END_TIME_KEY,
        ITERATIONS,
        TOTAL_ITERATIONS,
        OPTIMAL_ITERATION,
        FINAL_ITERATION,
        SELECTED_ITERATION,
        SELECTION_REASON,
        TOTAL_TOKENS,
        TOTAL_COST_USD,
        TOTAL_TIME_MS,
        DIMINISHING_RETURNS_DETECTED,
        DIMINISHING_RETURNS_ITERATION,
        QUALITY_TRAJECTORY,
    ];

    /// The summary object, keys in upstream's order.
    pub fn to_value(&self) -> Value {
        let iteration = |n: Option<u64>| n.map_or(Value::Null, |n| Value::Number(n as f64));
        let text = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::string);
        ObjectBuilder::new()
            .value(LOOP_ID_KEY, text(&self.loop_id))
            .value(TASK_DESCRIPTION_KEY, text(&self.task_description))
            .value(START_TIME_KEY, text(&self.start_time))
            .value(END_TIME_KEY, text(&self.end_time))
            .value(ITERATIONS, value::array_of(&self.iterations, AnalyticsRecord::to_value))
            .number(TOTAL_ITERATIONS, self.total_iterations as f64)
            .value(OPTIMAL_ITERATION, iteration(self.optimal_iteration))
            .number(FINAL_ITERATION, self.final_iteration as f64)
            .value(SELECTED_ITERATION, iteration(self.selected_iteration))
            .string(SELECTION_REASON, &self.selection_reason)
            .number(TOTAL_TOKENS, self.total_tokens)
            .number(TOTAL_COST_USD, self.total_cost_usd)
            .number(TOTAL_TIME_MS, self.total_time_ms)
            .boolean(DIMINISHING_RETURNS_DETECTED, self.diminishing_returns_detected)
            .value(DIMINISHING_RETURNS_ITERATION, iteration(self.diminishing_returns_iteration))
            .string(QUALITY_TRAJECTORY, self.quality_trajectory.as_str())
            .build()
    }

    /// Reads what [`AnalyticsSummary::to_value`] (and `summary_value`) writes.
    pub fn from_value(value: &Value) -> Result<Self> {
        let r = snapshot::result_object(value, "", "summary", Naming::Snake, &SUMMARY_FIELDS)?;
        let [loop_id, task, start, end, iterations, total, optimal, last, selected, reason, tokens, cost, time, detected, detected_at, trajectory] =
            SUMMARY_FIELDS;
        let nullable_string = |field: FieldName| -> Result<Option<String>> {
            match r.get(field) {
                Some(Value::Null) => Ok(None),
                _ => Ok(Some(r.string(field)?.to_string())),
            }
        };
        let mut records = Vec::new();
        for (i, record) in snapshot::array(&r, iterations)?.iter().enumerate() {
            records.push(AnalyticsRecord::from_value(record, &value::index_path(ITERATIONS, i))?);
        }
        Ok(AnalyticsSummary {
            loop_id: nullable_string(loop_id)?,
            task_description: nullable_string(task)?,
            start_time: nullable_string(start)?,
            end_time: nullable_string(end)?,
            iterations: records,
            total_iterations: r.integer(total, 0, MAX_SAFE_INTEGER)?,
            optimal_iteration: snapshot::nullable_integer(&r, optimal, 1, MAX_SAFE_INTEGER)?,
            final_iteration: r.integer(last, 0, MAX_SAFE_INTEGER)?,
            selected_iteration: snapshot::nullable_integer(&r, selected, 1, MAX_SAFE_INTEGER)?,
            selection_reason: r.string(reason)?.to_string(),
            total_tokens: r.number(tokens, 0.0, f64::MAX)?,
            total_cost_usd: r.number(cost, 0.0, f64::MAX)?,
            total_time_ms: r.number(time, 0.0, f64::MAX)?,
            diminishing_returns_detected: r.boolean(detected)?,
            diminishing_returns_iteration: snapshot::nullable_integer(&r, detected_at, 1, MAX_SAFE_INTEGER)?,
            quality_trajectory: snapshot::pick(&r, trajectory, &Trajectory::NAMES, Trajectory::parse)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::analytics::AnalyticsInput;
    use crate::loops::VerificationStatus;

    fn keys(value: &Value) -> Vec<&str> {
        match value {
            Value::Object(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// The engine's summary and the summary type write the same keys, `KEYS`, in order, and
    /// a selection writes its `KEYS`.
    #[test]
    fn summaries_and_selections_write_their_keys_in_order() {
        let mut analytics = IterationAnalytics::new(AnalyticsConfig::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut input = AnalyticsInput::new(1, 80.0, VerificationStatus::Passed);
        input.timestamp = Some("2026-01-01T00:00:00.000Z".into());
        analytics.record(input).unwrap_or_else(|e| panic!("{e}"));
        let written = analytics.summary_value_settled();
        assert_eq!(keys(&written), AnalyticsSummary::KEYS);
        let summary = AnalyticsSummary::from_value(&written).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(summary.to_value(), written);
        assert_eq!(keys(&analytics.select_best_iteration_value()), IterationSelection::KEYS);
    }
}
