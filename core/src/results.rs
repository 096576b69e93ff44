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
use crate::pyramid::{Action, FailingLayer, TestPyramidResult, Verdict};
use crate::signal::LayerResult;
use crate::speculation::Speculation;
use crate::value::snapshot::{
    inconsistent, index, items, layer_number, nullable_integer, nullable_number, pick, result_object as open,
};
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// The code of every error these readers raise themselves.
const CODE: ErrorCode = ErrorCode::InvalidSnapshot;

/// A field spelled the same in both namings (the two-spelling ones use `field_name!`).
const fn name(snake: &'static str) -> FieldName {
    FieldName::same(snake)
}

// ---------------------------------------------------------------------------------------
// Loop stopping
// ---------------------------------------------------------------------------------------

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

const REASON: FieldName = name("reason");
const CONFIDENCE: FieldName = name("confidence");
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
            quality_trajectory: pick(&r, trajectory, &TRAJECTORIES.map(Trajectory::as_str), |s| {
                TRAJECTORIES.into_iter().find(|t| t.as_str() == s)
            })?,
        })
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
            reason: pick(&r, REASON, &ExitReason::ALL.map(ExitReason::as_str), |s| {
                ExitReason::ALL.into_iter().find(|v| v.as_str() == s)
            })?,
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
        let verdict = pick(&r, VERDICT, &Verdict::ALL.map(Verdict::as_str), |s| {
            Verdict::ALL.into_iter().find(|v| v.as_str() == s)
        })?;
        let failing_layers = items(&r, FAILING_LAYERS, FailingLayer::from_value)?;
        if (verdict == Verdict::Failed) == failing_layers.is_empty() {
            return Err(inconsistent(&r, FAILING_LAYERS, "must list a layer exactly when the verdict is 'failed'"));
        }
        Ok(TestPyramidResult {
            layers,
            exited_early: r.boolean(exited_early)?,
            exit_layer: layer_number(&r, EXIT_LAYER)?,
            exit_reason: pick(&r, exit_reason, &ExitReason::ALL.map(ExitReason::as_str), |s| {
                ExitReason::ALL.into_iter().find(|v| v.as_str() == s)
            })?,
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
