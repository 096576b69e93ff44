//! The runs a loop replay reads: [`ReplayRun`]s of [`ReplayIteration`]s, from an array of
//! run objects or from JSONL text (one run per line, the format `docs/replay.md` documents).

use crate::loops::behavior::BehaviorIteration;
use crate::loops::{Observation, ResourceUsage, VerificationStatus};
use crate::value::jsonl::as_replay_error;
use crate::value::{self, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

pub(super) const CODE: ErrorCode = ErrorCode::InvalidReplay;

const ID: FieldName = FieldName::same("id");

const DATASET: FieldName = FieldName::same("dataset");

const SPLIT: FieldName = FieldName::same("split");

const ITERATIONS: FieldName = FieldName::same("iterations");

const RUN_FIELDS: [FieldName; 4] = [ID, DATASET, SPLIT, ITERATIONS];

const QUALITY_SCORE: FieldName = FieldName::same("quality_score");

const CONFIDENCE: FieldName = FieldName::same("confidence");

const VERIFICATION_STATUS: FieldName = FieldName::same("verification_status");

const QUALITY_DELTA: FieldName = FieldName::same("quality_delta");

const TOKENS_USED: FieldName = FieldName::same("tokens_used");

const TOKEN_COST_USD: FieldName = FieldName::same("token_cost_usd");

const EXECUTION_TIME_MS: FieldName = FieldName::same("execution_time_ms");

const GOOD: FieldName = FieldName::same("good");

const ITERATION_FIELDS: [FieldName; 8] = [
    QUALITY_SCORE,
    CONFIDENCE,
    VERIFICATION_STATUS,
    QUALITY_DELTA,
    TOKENS_USED,
    TOKEN_COST_USD,
    EXECUTION_TIME_MS,
    GOOD,
];

/// One recorded iteration: what the loop reported, plus optional ground truth.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayIteration {
    /// What the stopping rules read (`iteration` is the 1-based position in the run).
    pub observation: Observation,
    /// Optional resource figures (read by budgets).
    pub usage: Option<ResourceUsage>,
    /// Whether the output really was good (e.g. hidden tests passed); `None` = unknown, in
    /// which case a passed verification counts as good.
    pub good: Option<bool>,
    /// Optional behaviour fields (read by detector conditions; see
    /// [`BehaviorIteration::from_result`]).
    pub behavior: Option<Box<BehaviorIteration>>,
}

impl ReplayIteration {
    /// Ground truth if recorded, else the verification outcome.
    pub fn is_good(&self) -> bool {
        self.good.unwrap_or(self.observation.verification_status == VerificationStatus::Passed)
    }
}

impl AsRef<Observation> for ReplayIteration {
    fn as_ref(&self) -> &Observation {
        &self.observation
    }
}

/// One recorded trajectory.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayRun {
    /// The run's id (a task id, say).
    pub id: String,
    /// Optional dataset name, for per-dataset tables.
    pub dataset: Option<String>,
    /// Optional split (`tune` / `report`).
    pub split: Option<String>,
    /// The iterations in order; at least one.
    pub iterations: Vec<ReplayIteration>,
}

impl ReplayRun {
    /// Parses one run object; `path` (`runs[3]`) prefixes every error's field.
    pub fn from_value(value: &Value, naming: Naming, path: &str) -> Result<Self> {
        Self::read(value, naming, path).map_err(as_replay_error)
    }

    /// Checks a run built in Rust: at least one iteration, each numbered by its 1-based
    /// position, every value in the engine's ranges (`path` prefixes the fields).
    pub fn validate(&self, path: &str) -> Result<()> {
        let items_path = value::join_path(path, "iterations");
        if self.iterations.is_empty() {
            let message = value::concat(&[&items_path, " must hold at least one iteration"]);
            return Err(Error::new(CODE, ErrorKind::Range, items_path, message));
        }
        for (i, item) in self.iterations.iter().enumerate() {
            let item_path = value::index_path(&items_path, i);
            let o = &item.observation;
            let bad = |field: &str, requirement: &str, got: f64| {
                let field = value::join_path(&item_path, field);
                let message =
                    value::concat(&[&field, " must be ", requirement, ", got ", &crate::num::to_js_string(got)]);
                Err(Error::new(CODE, ErrorKind::Range, field, message))
            };
            if o.iteration != i as u64 + 1 {
                return bad("iteration", "its 1-based position in the run", o.iteration as f64);
            }
            if value::check_range(o.quality_score, 0.0, 100.0).is_none() {
                return bad("quality_score", "a finite number between 0 and 100", o.quality_score);
            }
            if value::check_range(o.confidence, 0.0, 1.0).is_none() {
                return bad("confidence", "a finite number between 0 and 1", o.confidence);
            }
            if !o.quality_delta.is_finite() {
                return bad("quality_delta", "a finite number", o.quality_delta);
            }
            if let Some(usage) = &item.usage {
                for (field, v) in [
                    ("tokens_used", usage.tokens_used),
                    ("token_cost_usd", usage.token_cost_usd),
                    ("execution_time_ms", usage.execution_time_ms),
                ] {
                    if let Some(v) = v {
                        if value::check_range(v, 0.0, f64::MAX).is_none() {
                            return bad(field, "a finite number >= 0", v);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn read(value: &Value, naming: Naming, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "run", naming, CODE)?;
        reader.reject_unknown(&RUN_FIELDS)?;
        let id = match reader.get(ID) {
            Some(Value::Number(n)) if n.is_finite() => crate::num::to_js_string(*n),
            _ => reader.string(ID)?.to_string(),
        };
        let dataset = reader.opt_string(DATASET)?.map(str::to_string);
        let split = reader.opt_string(SPLIT)?.map(str::to_string);
        let items_path = reader.path_of(ITERATIONS);
        let items = value::nonempty_array(
            reader.get(ITERATIONS),
            &items_path,
            CODE,
            "an array of iteration results",
            "iteration",
        )?;
        let mut iterations = Vec::with_capacity(items.len());
        let mut previous: Option<f64> = None;
        for (i, item) in items.iter().enumerate() {
            let item_path = value::index_path(&items_path, i);
            let iteration = read_iteration(item, naming, &item_path, i as u64 + 1, previous)?;
            previous = Some(iteration.observation.quality_score);
            iterations.push(iteration);
        }
        Ok(ReplayRun { id, dataset, split, iterations })
    }
}

/// The `quality_delta` of a record that gives none: this score minus the previous
/// iteration's (`previous`), 0 for the first. Replay reads runs so, and the command line
/// records so when `--delta` is not given.
pub fn implied_quality_delta(previous: Option<f64>, quality_score: f64) -> f64 {
    previous.map_or(0.0, |p| quality_score - p)
}

fn read_iteration(
    value: &Value,
    naming: Naming,
    path: &str,
    iteration: u64,
    previous: Option<f64>,
) -> Result<ReplayIteration> {
    let reader = ObjectReader::new(value, path, "iteration", naming, CODE)?;
    // The behaviour fields only when a key is not one of the usual ones (as a record's).
    let plain = reader.reject_unknown(&ITERATION_FIELDS).is_ok();
    if !plain {
        let mut known = ITERATION_FIELDS.to_vec();
        known.extend(BehaviorIteration::result_fields());
        reader.reject_unknown(&known)?;
    }
    let quality_score = reader.number(QUALITY_SCORE, 0.0, 100.0)?;
    let confidence = reader.number(CONFIDENCE, 0.0, 1.0)?;
    let status = reader.choice(VERIFICATION_STATUS, &VerificationStatus::NAMES)?;
    let verification_status = VerificationStatus::parse(status).unwrap_or(VerificationStatus::Skipped);
    // An absent delta is the score difference, as a loop that does not report one would compute.
    let quality_delta = match reader.opt_number(QUALITY_DELTA, f64::MIN, f64::MAX)? {
        Some(delta) => delta,
        None => implied_quality_delta(previous, quality_score),
    };
    let usage = ResourceUsage {
        tokens_used: reader.opt_number(TOKENS_USED, 0.0, f64::MAX)?,
        token_cost_usd: reader.opt_number(TOKEN_COST_USD, 0.0, f64::MAX)?,
        execution_time_ms: reader.opt_number(EXECUTION_TIME_MS, 0.0, f64::MAX)?,
    };
    let good = match reader.get(GOOD) {
        None | Some(Value::Null) => None,
        Some(_) => Some(reader.boolean(GOOD)?),
    };
    let has_usage = usage.tokens_used.is_some() || usage.token_cost_usd.is_some() || usage.execution_time_ms.is_some();
    let behavior = if plain { None } else { BehaviorIteration::from_result(value, path, CODE)?.map(Box::new) };
    Ok(ReplayIteration {
        observation: Observation { iteration, quality_score, confidence, quality_delta, verification_status },
        usage: has_usage.then_some(usage),
        good,
        behavior,
    })
}

/// The key of a loop artifact's body that lists its calibration tasks.
pub const TASKS_KEY: &str = "tasks";

/// A task: a run's `dataset` and `id`.
pub type TaskKey = (Option<String>, String);

/// The tasks of `runs` (a task is a run's `dataset` and `id`), sorted, each once.
pub fn task_keys(runs: &[ReplayRun]) -> Vec<TaskKey> {
    let mut keys: Vec<TaskKey> = runs.iter().map(|r| (r.dataset.clone(), r.id.clone())).collect();
    keys.sort();
    keys.dedup();
    keys
}

/// `body.tasks` as calibration writes it: `[[dataset or null, id], ...]`.
pub fn tasks_value(runs: &[ReplayRun]) -> Value {
    let items = task_keys(runs)
        .into_iter()
        .map(|(dataset, id)| {
            Value::Array(vec![dataset.as_deref().map_or(Value::Null, Value::string), Value::string(id.as_str())])
        })
        .collect();
    Value::Array(items)
}
