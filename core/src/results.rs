//! Readers of the result objects from the values they write: what a binding needs to
//! rebuild a result it serialized (Python pickles a result as its snake_case value, so
//! `multiprocessing` pools and `copy.deepcopy` can hand results around).
//!
//! Each reader takes what the matching `to_value` writes (snake_case keys, or the `naming`
//! given) and gives back an equal object, bit for bit: `reader(to_value(x)) == x`. A value
//! that was tampered with or made by hand gets the usual typed [`Error`] naming the field
//! (code `invalid_snapshot` unless an existing reader is reused, which keeps its own code),
//! never a guess. The readers reuse the snapshot readers of the engines where one exists
//! (records, stopping details), so a record reads the same wherever it comes from.
//!
//! Nothing in the JS layer calls these, so the WebAssembly module does not carry them.

use crate::analytics::{AnalyticsInput, AnalyticsRecord, Trajectory};
use crate::exit_decision::{ExitDecision, ExitReason};
use crate::loops::{
    Budget, BudgetStatus, DiminishingReturnsReport, EarlyStoppingConfig, FinalRecord, IterationRecord,
    StoppingDecision, StoppingDetails, StoppingSummary, Trigger, VerificationStatus,
};
use crate::pyramid::{Action, FailingLayer, TestPyramidResult, Verdict};
use crate::signal::LayerResult;
use crate::speculation::Speculation;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// The code of every error these readers raise themselves.
const CODE: ErrorCode = ErrorCode::InvalidSnapshot;

/// A field spelled the same in both namings (the two-spelling ones use `field_name!`).
const fn name(snake: &'static str) -> FieldName {
    FieldName::same(snake)
}

/// An object reader at `path` (`what` names the root) that refuses keys outside `known`.
fn open<'a>(
    value: &'a Value,
    path: &'a str,
    what: &str,
    naming: Naming,
    known: &[FieldName],
) -> Result<ObjectReader<'a>> {
    let reader = ObjectReader::new(value, path, what, naming, CODE)?;
    reader.reject_unknown(known)?;
    Ok(reader)
}

/// A required string naming one of `variants` (by `spelling`), as that variant.
fn pick<T: Copy>(
    reader: &ObjectReader<'_>,
    field: FieldName,
    variants: &[T],
    spelling: fn(T) -> &'static str,
) -> Result<T> {
    let names: Vec<&str> = variants.iter().map(|v| spelling(*v)).collect();
    let chosen = reader.choice(field, &names)?;
    // `choice` accepted the name, so one variant spells it; the fallback is never taken.
    variants
        .iter()
        .copied()
        .find(|v| spelling(*v) == chosen)
        .ok_or_else(|| reader.range_error(field, "known", &Value::Null))
}

/// A key that must be present, holding `null` or a number within `min..=max`.
fn nullable_number(reader: &ObjectReader<'_>, field: FieldName, min: f64, max: f64) -> Result<Option<f64>> {
    match reader.get(field) {
        Some(Value::Null) => Ok(None),
        _ => reader.number(field, min, max).map(Some),
    }
}

/// A key that must be present, holding `null` or an integer within `min..=max`.
fn nullable_integer(reader: &ObjectReader<'_>, field: FieldName, min: u64, max: u64) -> Result<Option<u64>> {
    match reader.get(field) {
        Some(Value::Null) => Ok(None),
        _ => reader.integer(field, min, max).map(Some),
    }
}

/// A count or index that must fit `usize`.
fn index(reader: &ObjectReader<'_>, field: FieldName) -> Result<usize> {
    let n = reader.integer(field, 0, MAX_SAFE_INTEGER)?;
    usize::try_from(n)
        .map_err(|_| reader.range_error(field, "an index this platform can hold", &Value::Number(n as f64)))
}

/// A layer number that may be -1 (an empty pyramid's exit layer): an integer in -1..=2^53-1.
fn layer_number(reader: &ObjectReader<'_>, field: FieldName) -> Result<i64> {
    match reader.get(field) {
        Some(Value::Number(n)) if *n == -1.0 => Ok(-1),
        _ => reader.integer(field, 0, MAX_SAFE_INTEGER).map(|n| n as i64),
    }
}

/// Reads every item of the array `field` with `read(item, item path)`.
fn items<T>(reader: &ObjectReader<'_>, field: FieldName, read: impl Fn(&Value, &str) -> Result<T>) -> Result<Vec<T>> {
    let list = crate::snapshot::array(reader, field)?;
    let path = reader.path_of(field);
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        out.push(read(item, &value::index_path(&path, i))?);
    }
    Ok(out)
}

/// A range error on `field` saying why the value does not hold together.
fn inconsistent(reader: &ObjectReader<'_>, field: FieldName, why: &str) -> Error {
    let path = reader.path_of(field);
    Error::new(CODE, ErrorKind::Range, path.clone(), value::concat(&[&path, " ", why]))
}

// ---------------------------------------------------------------------------------------
// Loop stopping
// ---------------------------------------------------------------------------------------

const STOP: FieldName = name("stop");
const REASON: FieldName = name("reason");
const CONFIDENCE: FieldName = name("confidence");
const TRIGGER: FieldName = name("trigger");
const DETAILS: FieldName = name("details");
const BEST_ITERATION: FieldName = name("best_iteration");
const BEST_QUALITY_SCORE: FieldName = name("best_quality_score");
const BUDGETS: FieldName = name("budgets");
const DECISION_FIELDS: [FieldName; 8] =
    [STOP, REASON, CONFIDENCE, TRIGGER, DETAILS, BEST_ITERATION, BEST_QUALITY_SCORE, BUDGETS];
const BUDGET_FIELDS: [FieldName; 5] =
    [name("budget"), name("limit"), name("observed"), name("records_without_value"), name("exhausted")];

impl IterationRecord {
    /// Reads a record as [`IterationRecord::to_value`] writes it (the snapshot's record
    /// reader: `path` prefixes field names, e.g. `history[2]`).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        Self::from_snapshot(value, path)
    }
}

impl BudgetStatus {
    /// Reads one entry of a decision's `budgets`.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let r = open(value, path, "budget", Naming::Snake, &BUDGET_FIELDS)?;
        let [budget, limit, observed, without, exhausted] = BUDGET_FIELDS;
        Ok(BudgetStatus {
            budget: pick(&r, budget, &Budget::ALL, Budget::as_str)?,
            limit: r.number(limit, 0.0, f64::MAX)?,
            observed: r.number(observed, 0.0, f64::MAX)?,
            records_without_value: r.integer(without, 0, MAX_SAFE_INTEGER)?,
            exhausted: r.boolean(exhausted)?,
        })
    }
}

impl StoppingDecision {
    /// Reads a decision as [`StoppingDecision::to_value`] writes it: `details` exactly on
    /// stops, `best_iteration` and `best_quality_score` both `null` or both set, `budgets`
    /// absent when no budget is configured.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let r = open(value, path, "decision", Naming::Snake, &DECISION_FIELDS)?;
        let stop = r.boolean(STOP)?;
        let reason = r.string(REASON)?.to_string();
        let confidence = r.number(CONFIDENCE, 0.0, 1.0)?;
        let trigger = pick(&r, TRIGGER, &Trigger::ALL, Trigger::as_str)?;
        let details = match r.get(DETAILS) {
            None => None,
            Some(d) => Some(StoppingDetails::from_snapshot(d, &r.path_of(DETAILS))?),
        };
        if stop != details.is_some() {
            return Err(inconsistent(&r, DETAILS, "must be present exactly when stop is true"));
        }
        let best = match (
            nullable_integer(&r, BEST_ITERATION, 1, MAX_SAFE_INTEGER)?,
            nullable_number(&r, BEST_QUALITY_SCORE, 0.0, 100.0)?,
        ) {
            (Some(iteration), Some(quality)) => Some((iteration, quality)),
            (None, None) => None,
            _ => return Err(inconsistent(&r, BEST_QUALITY_SCORE, "must be null exactly when best_iteration is")),
        };
        let budgets = match r.get(BUDGETS) {
            None => Vec::new(),
            Some(_) => items(&r, BUDGETS, BudgetStatus::from_value)?,
        };
        Ok(StoppingDecision { stop, reason, confidence, trigger, details, best, budgets })
    }
}

const TOTAL_ITERATIONS: FieldName = name("total_iterations");
const STOPPED_EARLY: FieldName = name("stopped_early");
const SUMMARY_FIELDS: [FieldName; 10] = [
    TOTAL_ITERATIONS,
    STOPPED_EARLY,
    name("stopping_trigger"),
    name("stopping_reason"),
    name("stopping_confidence"),
    name("final_quality"),
    name("final_confidence"),
    name("final_verification"),
    name("config"),
    DETAILS,
];
const EMPTY_SUMMARY_FIELDS: [FieldName; 3] = [TOTAL_ITERATIONS, STOPPED_EARLY, REASON];

impl StoppingSummary {
    /// Reads a summary as [`StoppingSummary::to_value`] writes it (the empty summary when
    /// the value has the empty summary's `reason`). `config` has the JS API's keys, as the
    /// summary lists it, and reads as a snapshot's config does.
    pub fn from_value(value: &Value) -> Result<Self> {
        if value.get("reason").is_some() {
            let r = open(value, "", "summary", Naming::Snake, &EMPTY_SUMMARY_FIELDS)?;
            r.integer(TOTAL_ITERATIONS, 0, 0)?;
            if r.boolean(STOPPED_EARLY)? {
                return Err(inconsistent(&r, STOPPED_EARLY, "must be false when no iteration completed"));
            }
            if r.string(REASON)? != "No iterations completed" {
                return Err(inconsistent(&r, REASON, "must be 'No iterations completed' (the empty summary)"));
            }
            return Ok(StoppingSummary::Empty);
        }
        let r = open(value, "", "summary", Naming::Snake, &SUMMARY_FIELDS)?;
        let [_, _, trigger, reason, confidence, quality, final_confidence, verification, config, _] = SUMMARY_FIELDS;
        let total_iterations = index(&r, TOTAL_ITERATIONS)?;
        if total_iterations == 0 {
            return Err(inconsistent(&r, TOTAL_ITERATIONS, "must be at least 1 in a summary with a final record"));
        }
        let stop = r.boolean(STOPPED_EARLY)?;
        let details = match r.get(DETAILS) {
            None => None,
            Some(d) => Some(StoppingDetails::from_snapshot(d, "details")?),
        };
        if stop != details.is_some() {
            return Err(inconsistent(&r, DETAILS, "must be present exactly when stopped_early is true"));
        }
        let decision = StoppingDecision {
            stop,
            reason: r.string(reason)?.to_string(),
            confidence: r.number(confidence, 0.0, 1.0)?,
            trigger: pick(&r, trigger, &Trigger::ALL, Trigger::as_str)?,
            details,
            best: None,
            budgets: Vec::new(),
        };
        let last = FinalRecord {
            quality_score: r.number(quality, 0.0, 100.0)?,
            confidence: r.number(final_confidence, 0.0, 1.0)?,
            // `choice` accepted one of the spellings, so `parse` finds it; the fallback is never taken.
            verification_status: VerificationStatus::parse(r.choice(verification, &VerificationStatus::NAMES)?)
                .unwrap_or(VerificationStatus::Skipped),
        };
        let config_value = r.get(config).unwrap_or(&Value::Null);
        ObjectReader::new(config_value, "config", "config", Naming::Js, CODE)?; // an object, not null
        let config = EarlyStoppingConfig::default()
            .merged_at(config_value, Naming::Js, "config", "config", CODE)
            .map_err(|e| e.nested(CODE, ""))?;
        Ok(StoppingSummary::Full { total_iterations, decision, last, config })
    }
}

// ---------------------------------------------------------------------------------------
// Analytics
// ---------------------------------------------------------------------------------------

impl AnalyticsRecord {
    /// Reads a record as [`AnalyticsRecord::to_value`] writes it (the analytics snapshot's
    /// record fields; `quality_delta` is required and kept as written: a stored record's
    /// delta is its own, any finite number, as in a saved summary).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let (input, quality_delta) = AnalyticsInput::read(value, Naming::Snake, path, Some(CODE))?;
        let quality_delta = quality_delta.unwrap_or_default();
        let AnalyticsInput {
            iteration_number,
            quality_score,
            verification_status,
            usage,
            timestamp,
            output_snapshot_path,
            reflections,
        } = input;
        Ok(AnalyticsRecord {
            iteration_number,
            timestamp: timestamp.unwrap_or_default(),
            quality_score,
            quality_delta,
            usage,
            verification_status,
            output_snapshot_path,
            reflections,
        })
    }
}

const REPORT_FIELDS: [FieldName; 3] = [name("detected"), name("iteration"), REASON];
const SELECTED: FieldName = name("selected");

/// What `select_best_iteration()` answers, with the chosen record itself (a binding keeps
/// this; [`crate::analytics::Selection`] holds an index into the engine's records).
#[derive(Clone, Debug, PartialEq)]
pub struct IterationSelection {
    /// The chosen record, if any.
    pub selected: Option<AnalyticsRecord>,
    /// Why.
    pub reason: String,
}

impl IterationSelection {
    /// `{selected: record or null, reason}`.
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new()
            .value("selected", self.selected.as_ref().map_or(Value::Null, AnalyticsRecord::to_value))
            .string("reason", &self.reason)
            .build()
    }

    /// Reads what [`IterationSelection::to_value`] writes.
    pub fn from_value(value: &Value) -> Result<Self> {
        let r = open(value, "", "selection", Naming::Snake, &[SELECTED, REASON])?;
        let selected = match r.get(SELECTED) {
            Some(Value::Null) => None,
            Some(record) => Some(AnalyticsRecord::from_value(record, "selected")?),
            None => {
                return Err(Error::new(
                    CODE,
                    ErrorKind::Type,
                    "selected",
                    "selected must be a record or null, got nothing (missing)",
                ))
            }
        };
        Ok(IterationSelection { selected, reason: r.string(REASON)?.to_string() })
    }
}

const TRAJECTORIES: [Trajectory; 5] = [
    Trajectory::InsufficientData,
    Trajectory::Improving,
    Trajectory::Declining,
    Trajectory::Stable,
    Trajectory::Fluctuating,
];

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
    /// The summary object, keys in upstream's order.
    pub fn to_value(&self) -> Value {
        let iteration = |n: Option<u64>| n.map_or(Value::Null, |n| Value::Number(n as f64));
        let text = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::string);
        ObjectBuilder::new()
            .value("loop_id", text(&self.loop_id))
            .value("task_description", text(&self.task_description))
            .value("start_time", text(&self.start_time))
            .value("end_time", text(&self.end_time))
            .value("iterations", value::array_of(&self.iterations, AnalyticsRecord::to_value))
            .number("total_iterations", self.total_iterations as f64)
            .value("optimal_iteration", iteration(self.optimal_iteration))
            .number("final_iteration", self.final_iteration as f64)
            .value("selected_iteration", iteration(self.selected_iteration))
            .string("selection_reason", &self.selection_reason)
            .number("total_tokens", self.total_tokens)
            .number("total_cost_usd", self.total_cost_usd)
            .number("total_time_ms", self.total_time_ms)
            .boolean("diminishing_returns_detected", self.diminishing_returns_detected)
            .value("diminishing_returns_iteration", iteration(self.diminishing_returns_iteration))
            .string("quality_trajectory", self.quality_trajectory.as_str())
            .build()
    }

    /// Reads what [`AnalyticsSummary::to_value`] (and `summary_value`) writes.
    pub fn from_value(value: &Value) -> Result<Self> {
        let r = open(value, "", "summary", Naming::Snake, &crate::analytics::SUMMARY_FIELDS)?;
        let [loop_id, task, start, end, iterations, total, optimal, last, selected, reason, tokens, cost, time, detected, detected_at, trajectory] =
            crate::analytics::SUMMARY_FIELDS;
        let nullable_string = |field: FieldName| -> Result<Option<String>> {
            match r.get(field) {
                Some(Value::Null) => Ok(None),
                _ => Ok(Some(r.string(field)?.to_string())),
            }
        };
        let mut records = Vec::new();
        for (i, record) in crate::snapshot::array(&r, iterations)?.iter().enumerate() {
            records.push(AnalyticsRecord::from_value(record, &value::index_path("iterations", i))?);
        }
        Ok(AnalyticsSummary {
            loop_id: nullable_string(loop_id)?,
            task_description: nullable_string(task)?,
            start_time: nullable_string(start)?,
            end_time: nullable_string(end)?,
            iterations: records,
            total_iterations: r.integer(total, 0, MAX_SAFE_INTEGER)?,
            optimal_iteration: nullable_integer(&r, optimal, 1, MAX_SAFE_INTEGER)?,
            final_iteration: r.integer(last, 0, MAX_SAFE_INTEGER)?,
            selected_iteration: nullable_integer(&r, selected, 1, MAX_SAFE_INTEGER)?,
            selection_reason: r.string(reason)?.to_string(),
            total_tokens: r.number(tokens, 0.0, f64::MAX)?,
            total_cost_usd: r.number(cost, 0.0, f64::MAX)?,
            total_time_ms: r.number(time, 0.0, f64::MAX)?,
            diminishing_returns_detected: r.boolean(detected)?,
            diminishing_returns_iteration: nullable_integer(&r, detected_at, 1, MAX_SAFE_INTEGER)?,
            quality_trajectory: pick(&r, trajectory, &TRAJECTORIES, Trajectory::as_str)?,
        })
    }
}

impl DiminishingReturnsReport {
    /// Reads a report as [`DiminishingReturnsReport::to_value`] writes it: the source
    /// reader, plus no keys beyond `detected`, `iteration`, `reason`.
    pub fn from_result_value(value: &Value) -> Result<Self> {
        open(value, "", "report", Naming::Snake, &REPORT_FIELDS)?;
        Self::from_value(value, Naming::Snake)
    }
}

// ---------------------------------------------------------------------------------------
// Test pyramid
// ---------------------------------------------------------------------------------------

const CAN_EXIT: FieldName = value::field_name!("canExit", "can_exit");
const EXIT_LAYER: FieldName = value::field_name!("exitLayer", "exit_layer");
const ENABLE_SPECULATION: FieldName = value::field_name!("enableSpeculation", "enable_speculation");
const EXPLANATION: FieldName = name("explanation");
const EXIT_DECISION_FIELDS: [FieldName; 6] =
    [CAN_EXIT, CONFIDENCE, EXIT_LAYER, REASON, ENABLE_SPECULATION, EXPLANATION];

impl ExitDecision {
    /// Reads a decision as [`ExitDecision::to_value`] writes it with `naming`.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let r = open(value, "", "decision", naming, &EXIT_DECISION_FIELDS)?;
        Ok(ExitDecision {
            can_exit: r.boolean(CAN_EXIT)?,
            confidence: r.number(CONFIDENCE, 0.0, 1.0)?,
            exit_layer: layer_number(&r, EXIT_LAYER)?,
            reason: pick(&r, REASON, &ExitReason::ALL, ExitReason::as_str)?,
            enable_speculation: r.boolean(ENABLE_SPECULATION)?,
            explanation: r.string(EXPLANATION)?.to_string(),
        })
    }
}

const ACTION: FieldName = name("action");
const LAYER: FieldName = name("layer");

impl Action {
    /// Reads `{action: 'run'|'verify', layer}` or `{action: 'done'}`.
    pub fn from_value(value: &Value) -> Result<Self> {
        let r = ObjectReader::new(value, "", "action", Naming::Snake, CODE)?;
        match r.choice(ACTION, &["run", "verify", "done"])? {
            "done" => {
                r.reject_unknown(&[ACTION])?;
                Ok(Action::Done)
            }
            kind => {
                r.reject_unknown(&[ACTION, LAYER])?;
                let layer = index(&r, LAYER)?;
                Ok(if kind == "run" { Action::Run(layer) } else { Action::Verify(layer) })
            }
        }
    }
}

const LAYERS: FieldName = name("layers");
const SPECULATIONS: FieldName = name("speculations");
const LAYERS_EXECUTED: FieldName = value::field_name!("layersExecuted", "layers_executed");
const VERDICT: FieldName = name("verdict");
const FAILING_LAYERS: FieldName = value::field_name!("failingLayers", "failing_layers");
const FAILING_LAYER_FIELDS: [FieldName; 2] = [LAYER, name("name")];
const PYRAMID_RESULT_FIELDS: [FieldName; 13] = [
    LAYERS,
    value::field_name!("exitedEarly", "exited_early"),
    EXIT_LAYER,
    value::field_name!("exitReason", "exit_reason"),
    CONFIDENCE,
    SPECULATIONS,
    value::field_name!("skippedLayers", "skipped_layers"),
    LAYERS_EXECUTED,
    value::field_name!("verifiedLayers", "verified_layers"),
    name("mispredictions"),
    value::field_name!("computeSavedMs", "compute_saved_ms"),
    VERDICT,
    FAILING_LAYERS,
];

impl FailingLayer {
    /// Reads `{layer, name}` as [`FailingLayer::to_value`] writes it (`path` prefixes the
    /// field names, e.g. `failing_layers[0]`).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let r = open(value, path, "failing layer", Naming::Snake, &FAILING_LAYER_FIELDS)?;
        let [layer, layer_name] = FAILING_LAYER_FIELDS;
        Ok(FailingLayer { layer: index(&r, layer)?, name: r.string(layer_name)?.to_string() })
    }
}

impl TestPyramidResult {
    /// Reads a result as [`TestPyramidResult::to_value`] writes it with `naming`: layer
    /// results read as a runner's results do (keeping every key in its order), speculations
    /// as `verify` reads them, `compute_saved_ms` `null` when unknown.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let r = open(value, "", "result", naming, &PYRAMID_RESULT_FIELDS)?;
        let [_, exited_early, _, exit_reason, _, _, skipped, _, verified, mispredictions, saved, _, _] =
            PYRAMID_RESULT_FIELDS;
        let layers = items(&r, LAYERS, |item, path| LayerResult::read(item, naming, path, CODE))?;
        let speculations = items(&r, SPECULATIONS, |item, path| Speculation::from_value(item, naming, path))?;
        let layers_executed = items(&r, LAYERS_EXECUTED, |item, path| {
            let n = value::integer_argument(item, path, CODE, 0, MAX_SAFE_INTEGER)?;
            usize::try_from(n).map_err(|_| Error::new(CODE, ErrorKind::Range, path, "layer index too large"))
        })?;
        let verdict = pick(&r, VERDICT, &Verdict::ALL, Verdict::as_str)?;
        let failing_layers = items(&r, FAILING_LAYERS, FailingLayer::from_value)?;
        if (verdict == Verdict::Failed) == failing_layers.is_empty() {
            return Err(inconsistent(&r, FAILING_LAYERS, "must list a layer exactly when the verdict is 'failed'"));
        }
        Ok(TestPyramidResult {
            layers,
            exited_early: r.boolean(exited_early)?,
            exit_layer: layer_number(&r, EXIT_LAYER)?,
            exit_reason: pick(&r, exit_reason, &ExitReason::ALL, ExitReason::as_str)?,
            confidence: r.number(CONFIDENCE, 0.0, 1.0)?,
            speculations,
            skipped_layers: index(&r, skipped)?,
            layers_executed,
            verified_layers: index(&r, verified)?,
            mispredictions: index(&r, mispredictions)?,
            compute_saved_ms: nullable_number(&r, saved, 0.0, f64::MAX)?,
            verdict,
            failing_layers,
        })
    }
}
