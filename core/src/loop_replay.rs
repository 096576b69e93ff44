//! Replay a loop-stopping policy over recorded trajectories: where would it have stopped,
//! why, which output would it have returned, and how does that compare with what the run
//! could have reached? The format (one run per JSONL line) is documented in `docs/replay.md`.
//!
//! The replay drives the engine's own stateless rules ([`loop_stopping::decide_over`] over a
//! slice of the run, [`LoopTally`], [`BestIteration`], the built-in analytics), so a replayed
//! decision is exactly the decision a live [`crate::EarlyStopping`] with the same config
//! would have made after the same records. Nothing is copied per iteration: each decision
//! reads the prefix of the run's observations, so 1,000,000 iterations replay in well under
//! a second (`cargo run --release -p earlyexit --example replay_bench`).

use crate::analytics::{AnalyticsConfig, AnalyticsInput, IterationAnalytics};
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::loop_stopping::{
    self, BestIteration, EarlyStoppingConfig, LoopTally, Observation, ResourceUsage, Trigger, VerificationStatus,
};
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value};

const CODE: ErrorCode = ErrorCode::InvalidReplay;

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

const PRESET: FieldName = FieldName::same("preset");
const CONFIG: FieldName = FieldName::same("config");
const RETURNS: FieldName = FieldName::same("returns");
const ANALYTICS: FieldName = FieldName::same("analytics");
const POLICY_FIELDS: [FieldName; 4] = [PRESET, CONFIG, RETURNS, ANALYTICS];

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
                    value::concat(&[&field, " must be ", requirement, ", got ", &crate::jsnum::to_js_string(got)]);
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
            Some(Value::Number(n)) if n.is_finite() => crate::jsnum::to_js_string(*n),
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

fn read_iteration(
    value: &Value,
    naming: Naming,
    path: &str,
    iteration: u64,
    previous: Option<f64>,
) -> Result<ReplayIteration> {
    let reader = ObjectReader::new(value, path, "iteration", naming, CODE)?;
    reader.reject_unknown(&ITERATION_FIELDS)?;
    let quality_score = reader.number(QUALITY_SCORE, 0.0, 100.0)?;
    let confidence = reader.number(CONFIDENCE, 0.0, 1.0)?;
    let status = reader.choice(VERIFICATION_STATUS, &VerificationStatus::ALL)?;
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
    Ok(ReplayIteration {
        observation: Observation { iteration, quality_score, confidence, quality_delta, verification_status },
        usage: has_usage.then_some(usage),
        good,
    })
}

/// The `quality_delta` of a record that gives none: this score minus the previous
/// iteration's (`previous`), 0 for the first. Replay reads runs so, and the command line
/// records so when `--delta` is not given.
pub fn implied_quality_delta(previous: Option<f64>, quality_score: f64) -> f64 {
    previous.map_or(0.0, |p| quality_score - p)
}

/// Every replay problem carries one code, `invalid_replay` (an unknown key too, with the
/// same suggestion), so a caller can tell bad replay input from a bad engine call.
pub(crate) fn as_replay_error(e: Error) -> Error {
    if e.error_code() == CODE {
        e
    } else {
        e.nested(CODE, "")
    }
}

/// Parses an array of run objects, or JSONL text (`runs[i]...` in errors).
pub fn runs_from_value(value: &Value, naming: Naming) -> Result<Vec<ReplayRun>> {
    read_runs(value, naming).map_err(as_replay_error)
}

fn read_runs(value: &Value, naming: Naming) -> Result<Vec<ReplayRun>> {
    match value {
        Value::Array(items) => {
            // A plain loop: `map(..).collect::<Result<_>>()` instantiates iterator-specialized
            // code per run type (the wasm replay module's size).
            let mut runs = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                runs.push(ReplayRun::from_value(item, naming, &value::index_path("runs", i))?);
            }
            Ok(runs)
        }
        Value::String(text) => parse_jsonl(text, naming),
        other => Err(crate::replay_input::runs_type_error(other)),
    }
}

/// Parses JSONL text: one run object per line, blank lines skipped. The `i`-th run (0-based,
/// blank lines not counted) is `runs[i]` in errors, and the message names its line. The one
/// JSONL reader of loop and pyramid replay ([`crate::replay_input`]).
pub fn parse_jsonl(text: &str, naming: Naming) -> Result<Vec<ReplayRun>> {
    parse_lines(text, naming, true)
}

/// Parses runs serialized one per line from an array: errors name `runs[i]...` without a
/// line number, exactly as for the array itself. No line may be blank.
pub fn runs_from_lines(text: &str, naming: Naming) -> Result<Vec<ReplayRun>> {
    parse_lines(text, naming, false)
}

fn parse_lines(text: &str, naming: Naming, name_lines: bool) -> Result<Vec<ReplayRun>> {
    crate::replay_input::read_lines(text, name_lines, |line, path| read_run_line(line, naming, path))
}

/// Reads one JSONL line as the run at `path` (`runs[3]`), as [`parse_jsonl`] reads each of
/// its lines: for hosts that stream a file through [`crate::replay_input::JsonlLines`].
pub fn read_run_line(line: &str, naming: Naming, path: &str) -> Result<ReplayRun> {
    // Most lines are plain (what JSON.stringify or json.dumps write for valid runs): read
    // them without building a value tree. Anything else, every invalid line included,
    // goes through the general reader, which words the error.
    if let Some(run) = plain_line::read_run(line) {
        return Ok(run);
    }
    let value = Value::parse_json(line, CODE, path)?;
    ReplayRun::from_value(&value, naming, path)
}

/// Which output the policy hands back when it stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnPolicy {
    /// The last iteration run (what the seed's loop returns).
    Last,
    /// The decision's `best_iteration`.
    Best,
}

impl ReturnPolicy {
    /// `'last'` or `'best'`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReturnPolicy::Last => "last",
            ReturnPolicy::Best => "best",
        }
    }
}

/// A loop policy to replay: an engine config, which output it returns, and whether the
/// built-in `IterationAnalytics` is attached as the diminishing-returns source.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopPolicy {
    /// The engine config.
    pub config: EarlyStoppingConfig,
    /// Which output is returned.
    pub returns: ReturnPolicy,
    /// The attached analytics' config, if any.
    pub analytics: Option<AnalyticsConfig>,
}

impl LoopPolicy {
    /// A named preset as a policy: `seed` = the seed's config with the built-in analytics
    /// attached (as the seed is meant to be used), returning the last output; `recommended`
    /// = [`EarlyStoppingConfig::recommended`], no analytics, returning the best output.
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "seed" => Some(LoopPolicy::seed()),
            "recommended" => Some(LoopPolicy::recommended()),
            _ => None,
        }
    }

    /// The `seed` preset: the seed's config and analytics, returning the last output.
    pub fn seed() -> Self {
        LoopPolicy {
            config: EarlyStoppingConfig::default(),
            returns: ReturnPolicy::Last,
            analytics: Some(AnalyticsConfig::default()),
        }
    }

    /// The `recommended` preset: [`EarlyStoppingConfig::recommended`], returning the best.
    pub fn recommended() -> Self {
        LoopPolicy { config: EarlyStoppingConfig::recommended(), returns: ReturnPolicy::Best, analytics: None }
    }

    /// Checks every value of a policy built in Rust (`invalid_replay`, field `config.*` or
    /// `analytics.*`).
    pub fn validate(&self) -> Result<()> {
        self.config.validate().map_err(|e| e.nested(CODE, "config"))?;
        if let Some(analytics) = &self.analytics {
            analytics.validate().map_err(|e| e.nested(CODE, "analytics"))?;
        }
        Ok(())
    }

    /// The simple baseline: stop at the first verified pass, else give up after `k`
    /// iterations without a new best; return the best iteration.
    pub fn simple_rule(k: u64) -> Self {
        LoopPolicy {
            config: EarlyStoppingConfig {
                high_confidence_threshold: 0.0,
                min_quality_threshold: 0.0,
                require_verification: true,
                enable_plateau_detection: false,
                enable_diminishing_returns: false,
                no_improvement_patience: Some(k.max(1)),
                ..EarlyStoppingConfig::default()
            },
            returns: ReturnPolicy::Best,
            analytics: None,
        }
    }

    /// Parses a policy: `null` = the `seed` preset; a string = a preset name; an object
    /// `{preset?, config?, returns?, analytics?}` where `config` is merged over the preset's
    /// config, `returns` is `'last'` or `'best'` (default: the preset's), and `analytics` is
    /// `false`/`true` or an analytics config object (default: the preset's).
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        Self::read(value, naming).map_err(as_replay_error)
    }

    fn read(value: &Value, naming: Naming) -> Result<Self> {
        let wrap = as_replay_error;
        match value {
            Value::Null => Ok(LoopPolicy::seed()),
            Value::String(_) => named_policy(value, "policy"),
            _ => {
                let reader = ObjectReader::new(value, "", "policy", naming, CODE)?;
                reader.reject_unknown(&POLICY_FIELDS)?;
                let mut policy = match reader.get(PRESET) {
                    None => LoopPolicy::seed(),
                    Some(name) => named_policy(name, "preset")?,
                };
                if let Some(config) = reader.get(CONFIG) {
                    policy.config = policy.config.merged_at(config, naming, "config", "config", CODE).map_err(wrap)?;
                }
                if reader.get(RETURNS).is_some() {
                    policy.returns = match reader.choice(RETURNS, &["last", "best"])? {
                        "best" => ReturnPolicy::Best,
                        _ => ReturnPolicy::Last,
                    };
                }
                match reader.get(ANALYTICS) {
                    None => {}
                    Some(Value::Bool(false)) => policy.analytics = None,
                    Some(Value::Bool(true)) => policy.analytics = Some(AnalyticsConfig::default()),
                    Some(config @ Value::Object(_)) => {
                        policy.analytics = Some(
                            AnalyticsConfig::default().merged_rules(config, naming, "analytics", CODE).map_err(wrap)?,
                        )
                    }
                    Some(other) => {
                        return Err(Error::new(
                            CODE,
                            ErrorKind::Type,
                            "analytics",
                            value::concat(&[
                                "analytics must be a boolean or an analytics config object, got ",
                                &other.describe(),
                            ]),
                        ))
                    }
                }
                Ok(policy)
            }
        }
    }

    /// The policy as `{config, returns, analytics}` (config keys in `naming`).
    pub fn to_value(&self, naming: Naming) -> Value {
        Value::object(vec![
            ("config", self.config.to_value(naming)),
            ("returns", Value::string(self.returns.as_str())),
            ("analytics", self.analytics.as_ref().map_or(Value::Bool(false), |a| a.rules_value(naming))),
        ])
    }
}

/// The preset a host value names (`field` names it in errors).
fn named_policy(name: &Value, field: &str) -> Result<LoopPolicy> {
    // The engine's preset check words the error (type, range, the list of names).
    EarlyStoppingConfig::preset_value(name, field)?;
    name.as_str().and_then(LoopPolicy::preset).ok_or_else(|| {
        Error::new(
            CODE,
            ErrorKind::Range,
            field,
            value::concat(&[field, " must name a loop preset, got ", &name.describe()]),
        )
    })
}

/// What the policy did on one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The run's id.
    pub id: String,
    /// The run's dataset, if given.
    pub dataset: Option<String>,
    /// Iterations recorded in the run.
    pub iterations_available: u64,
    /// Iterations the policy ran (its stop point; all of them when it never stopped).
    pub iterations_run: u64,
    /// Whether a trigger fired (false: the recording ended first).
    pub stopped: bool,
    /// The trigger that fired (`None` when the recording ended first).
    pub trigger: Trigger,
    /// The decision's reason when it stopped.
    pub reason: Option<String>,
    /// The iteration the policy returns (1-based).
    pub returned_iteration: u64,
    /// Its quality.
    pub returned_quality: f64,
    /// The first iteration reaching the best quality in the whole run (the ideal stop).
    pub best_iteration: u64,
    /// The best quality in the whole run (the best reachable).
    pub best_quality: f64,
    /// Stopped before the first good iteration (none up to the stop was good, a later one was).
    pub premature: bool,
    /// Iterations run after the ideal stop.
    pub wasted_iterations: u64,
    /// Whether the returned iteration is good (ground truth, else verification).
    pub returned_good: bool,
    /// The returned iteration passed verification but the ground truth says it is not good.
    pub false_pass: bool,
}

impl RunOutcome {
    /// `best_quality - returned_quality`, in points.
    pub fn quality_gap(&self) -> f64 {
        self.best_quality - self.returned_quality
    }

    /// The outcome as the bindings return it (snake_case keys in every language).
    pub fn to_value(&self) -> Value {
        // One out-of-line builder call per entry (see `ObjectBuilder`): smaller wasm.
        let mut b = ObjectBuilder::new();
        b.string("id", &self.id);
        if let Some(dataset) = &self.dataset {
            b.string("dataset", dataset);
        }
        b.number("iterations_available", self.iterations_available as f64)
            .number("iterations_run", self.iterations_run as f64)
            .boolean("stopped", self.stopped)
            .string("trigger", if self.stopped { self.trigger.as_str() } else { "end_of_run" })
            .value("reason", self.reason.as_deref().map_or(Value::Null, Value::string))
            .number("returned_iteration", self.returned_iteration as f64)
            .number("returned_quality", self.returned_quality)
            .number("best_iteration", self.best_iteration as f64)
            .number("best_quality", self.best_quality)
            .number("quality_gap", self.quality_gap())
            .boolean("premature", self.premature)
            .number("wasted_iterations", self.wasted_iterations as f64)
            .boolean("returned_good", self.returned_good)
            .boolean("false_pass", self.false_pass);
        b.build()
    }
}

/// Replays `policy` over one run (both validated: `invalid_replay` naming the field).
pub fn replay_run(run: &ReplayRun, policy: &LoopPolicy) -> Result<RunOutcome> {
    policy.validate()?;
    run.validate("run")?;
    Ok(replay_checked(run, policy))
}

/// The replay proper, over a run and a policy already validated.
fn replay_checked(run: &ReplayRun, policy: &LoopPolicy) -> RunOutcome {
    let config = &policy.config;
    let mut tally = LoopTally::default();
    let mut best = BestIteration::default();
    // Validated by the caller, so `new` cannot refuse it.
    let mut analytics = policy.analytics.as_ref().and_then(|c| IterationAnalytics::new(c.clone()).ok());
    let mut stop: Option<(usize, Trigger, String)> = None;
    let mut returned_at_stop: Option<u64> = None;
    for (i, item) in run.iterations.iter().enumerate() {
        let o = &item.observation;
        tally.observe(o, item.usage.as_ref(), config.regression_tolerance);
        best.observe(o, config.min_quality_threshold);
        if let Some(a) = analytics.as_mut() {
            let mut input = AnalyticsInput::new(o.iteration, o.quality_score, o.verification_status);
            input.usage = item.usage.unwrap_or_default();
            a.record_checked(input);
        }
        let history = run.iterations.get(..=i).unwrap_or(&[]);
        let source =
            analytics.as_ref().map(|a| move || Ok::<_, std::convert::Infallible>(a.detect_diminishing_returns()));
        let decision = match loop_stopping::decide_over(config, history, &tally, source) {
            Ok(decision) => decision,
            Err(never) => match never {},
        };
        if decision.stop {
            stop = Some((i, decision.trigger, decision.reason));
            returned_at_stop = best.get().map(|b| b.0);
            break;
        }
    }
    let n = run.iterations.len();
    let stop_index = stop.as_ref().map_or(n.saturating_sub(1), |s| s.0);
    let returned_iteration = match policy.returns {
        ReturnPolicy::Last => stop_index as u64 + 1,
        ReturnPolicy::Best => returned_at_stop.or_else(|| best.get().map(|b| b.0)).unwrap_or(stop_index as u64 + 1),
    };
    let at = |iteration: u64| run.iterations.get((iteration as usize).saturating_sub(1));
    let returned = at(returned_iteration);
    let (mut best_index, mut best_quality) = (0usize, f64::NEG_INFINITY);
    for (i, item) in run.iterations.iter().enumerate() {
        if item.observation.quality_score > best_quality {
            best_quality = item.observation.quality_score;
            best_index = i;
        }
    }
    let ran = run.iterations.get(..=stop_index).unwrap_or(&[]);
    let rest = run.iterations.get(stop_index + 1..).unwrap_or(&[]);
    let premature = !ran.iter().any(ReplayIteration::is_good) && rest.iter().any(ReplayIteration::is_good);
    let returned_good = returned.is_some_and(ReplayIteration::is_good);
    let false_pass = returned
        .is_some_and(|r| r.observation.verification_status == VerificationStatus::Passed && r.good == Some(false));
    let (stopped, trigger, reason) = match stop {
        Some((_, trigger, reason)) => (true, trigger, Some(reason)),
        None => (false, Trigger::None, None),
    };
    RunOutcome {
        id: run.id.clone(),
        dataset: run.dataset.clone(),
        iterations_available: n as u64,
        iterations_run: stop_index as u64 + 1,
        stopped,
        trigger,
        reason,
        returned_iteration,
        returned_quality: returned.map_or(0.0, |r| r.observation.quality_score),
        best_iteration: best_index as u64 + 1,
        best_quality,
        premature,
        wasted_iterations: (stop_index as u64).saturating_sub(best_index as u64),
        returned_good,
        false_pass,
    }
}

/// Aggregates over a set of replayed runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReplaySummary {
    /// Runs replayed.
    pub runs: u64,
    /// Iterations recorded over all runs.
    pub iterations_available: u64,
    /// Iterations the policy ran over all runs.
    pub iterations_used: u64,
    /// Sum of returned quality.
    pub returned_quality_sum: f64,
    /// Sum of best reachable quality.
    pub best_quality_sum: f64,
    /// Runs stopped before their first good iteration.
    pub premature_stops: u64,
    /// Iterations run after the ideal stop.
    pub wasted_iterations: u64,
    /// Runs whose returned iteration is good.
    pub returned_good: u64,
    /// Runs with at least one good iteration.
    pub reachable_good: u64,
    /// Runs whose returned iteration passed verification but was not good.
    pub false_passes: u64,
    /// Runs that ran out of recorded iterations before any trigger fired.
    pub ended_without_stop: u64,
    /// Stops per trigger, in [`Trigger::ALL`] order (`none` unused).
    pub triggers: Vec<(Trigger, u64)>,
}

impl ReplaySummary {
    /// Folds outcomes together.
    pub fn of(outcomes: &[RunOutcome], runs: &[ReplayRun]) -> Self {
        let mut s = ReplaySummary::empty();
        for (outcome, run) in outcomes.iter().zip(runs) {
            s.add(outcome, run);
        }
        s
    }

    /// The summary of no runs, ready for [`ReplaySummary::add`].
    pub fn empty() -> Self {
        ReplaySummary { triggers: Trigger::ALL.iter().skip(1).map(|t| (*t, 0)).collect(), ..ReplaySummary::default() }
    }

    /// Folds one more run in (sums in run order, so a stream folded run by run equals
    /// [`ReplaySummary::of`] over all of them).
    pub fn add(&mut self, outcome: &RunOutcome, run: &ReplayRun) {
        let s = self;
        {
            s.runs += 1;
            s.iterations_available += outcome.iterations_available;
            s.iterations_used += outcome.iterations_run;
            s.returned_quality_sum += outcome.returned_quality;
            s.best_quality_sum += outcome.best_quality;
            s.premature_stops += u64::from(outcome.premature);
            s.wasted_iterations += outcome.wasted_iterations;
            s.returned_good += u64::from(outcome.returned_good);
            s.reachable_good += u64::from(run.iterations.iter().any(ReplayIteration::is_good));
            s.false_passes += u64::from(outcome.false_pass);
            if outcome.stopped {
                if let Some(slot) = s.triggers.iter_mut().find(|(t, _)| *t == outcome.trigger) {
                    slot.1 += 1;
                }
            } else {
                s.ended_without_stop += 1;
            }
        }
    }

    fn mean(&self, sum: f64) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            sum / self.runs as f64
        }
    }

    /// Mean iterations run per run.
    pub fn mean_iterations(&self) -> f64 {
        self.mean(self.iterations_used as f64)
    }

    /// Iterations run as a share of those recorded (0..=1).
    pub fn share_of_available(&self) -> f64 {
        if self.iterations_available == 0 {
            0.0
        } else {
            self.iterations_used as f64 / self.iterations_available as f64
        }
    }

    /// Mean points between the best reachable and the returned quality.
    pub fn mean_quality_gap(&self) -> f64 {
        self.mean(self.best_quality_sum - self.returned_quality_sum)
    }

    /// Premature stops as a share of runs (0..=1).
    pub fn premature_rate(&self) -> f64 {
        self.mean(self.premature_stops as f64)
    }

    /// The summary as the bindings return it.
    pub fn to_value(&self) -> Value {
        let mut triggers = ObjectBuilder::new();
        for (t, n) in &self.triggers {
            triggers.number(t.as_str(), *n as f64);
        }
        let mut b = ObjectBuilder::new();
        b.number("runs", self.runs as f64)
            .number("iterations_available", self.iterations_available as f64)
            .number("iterations_used", self.iterations_used as f64)
            .number("mean_iterations", self.mean_iterations())
            .number("share_of_available", self.share_of_available())
            .number("mean_returned_quality", self.mean(self.returned_quality_sum))
            .number("mean_best_quality", self.mean(self.best_quality_sum))
            .number("mean_quality_gap", self.mean_quality_gap())
            .number("premature_stops", self.premature_stops as f64)
            .number("premature_rate", self.premature_rate())
            .number("wasted_iterations", self.wasted_iterations as f64)
            .number("mean_wasted_iterations", self.mean(self.wasted_iterations as f64))
            .number("returned_good", self.returned_good as f64)
            .number("reachable_good", self.reachable_good as f64)
            .number("false_passes", self.false_passes as f64)
            .number("ended_without_stop", self.ended_without_stop as f64)
            .value("triggers", triggers.build());
        b.build()
    }
}

/// A replay's answer: one outcome per run and the aggregate.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopReplay {
    /// Per run, in input order.
    pub outcomes: Vec<RunOutcome>,
    /// Over all runs.
    pub summary: ReplaySummary,
}

impl LoopReplay {
    /// `{policy, summary, runs}`.
    pub fn to_value(&self, policy: &LoopPolicy, naming: Naming) -> Value {
        Value::object(vec![
            ("policy", policy.to_value(naming)),
            ("summary", self.summary.to_value()),
            ("runs", Value::Array(self.outcomes.iter().map(RunOutcome::to_value).collect())),
        ])
    }
}

/// A replay fed one run at a time (a host streaming a JSONL file): memory is bounded by the
/// largest run, and the outcomes and summary are exactly [`replay_loops`]' over the same runs.
#[derive(Clone, Debug)]
pub struct ReplayStream {
    policy: LoopPolicy,
    summary: ReplaySummary,
}

impl ReplayStream {
    /// A stream replaying `policy` (validated).
    pub fn new(policy: LoopPolicy) -> Result<Self> {
        policy.validate()?;
        Ok(ReplayStream { policy, summary: ReplaySummary::empty() })
    }

    /// [`ReplayStream::new`] from a host value (see [`LoopPolicy::from_value`]).
    pub fn from_policy_value(policy: &Value, naming: Naming) -> Result<Self> {
        Self::new(LoopPolicy::from_value(policy, naming)?)
    }

    /// Replays the next run (validated; `path` names it in errors, e.g. `runs[3]`).
    pub fn replay(&mut self, run: &ReplayRun, path: &str) -> Result<RunOutcome> {
        run.validate(path)?;
        let outcome = replay_checked(run, &self.policy);
        self.summary.add(&outcome, run);
        Ok(outcome)
    }

    /// The policy replayed.
    pub fn policy(&self) -> &LoopPolicy {
        &self.policy
    }

    /// The summary over the runs replayed so far.
    pub fn summary(&self) -> &ReplaySummary {
        &self.summary
    }
}

/// Replays `policy` over every run. Runs and policy built in Rust are validated first
/// (`invalid_replay`, `runs[3].iterations[2].quality_score`); nothing is replayed then.
pub fn replay_loops(runs: &[ReplayRun], policy: &LoopPolicy) -> Result<LoopReplay> {
    policy.validate()?;
    for (i, run) in runs.iter().enumerate() {
        run.validate(&value::index_path("runs", i))?;
    }
    let outcomes: Vec<RunOutcome> = runs.iter().map(|run| replay_checked(run, policy)).collect();
    let summary = ReplaySummary::of(&outcomes, runs);
    Ok(LoopReplay { outcomes, summary })
}

/// The binding entry: `runs` (an array of run objects or JSONL text) and `policy` (see
/// [`LoopPolicy::from_value`]) to `{policy, summary, runs}`. Every problem is `invalid_replay`
/// naming its path (`runs[3].iterations[2].quality_score`, `config.plateauMode`).
pub fn replay_value(runs: &Value, policy: &Value, naming: Naming) -> Result<Value> {
    let policy = LoopPolicy::from_value(policy, naming)?;
    let runs = runs_from_value(runs, naming)?;
    Ok(replay_loops(&runs, &policy)?.to_value(&policy, naming))
}

/// [`replay_value`] for runs serialized one per line from an array ([`runs_from_lines`]).
pub fn replay_lines_value(lines: &str, policy: &Value, naming: Naming) -> Result<Value> {
    let policy = LoopPolicy::from_value(policy, naming)?;
    let runs = runs_from_lines(lines, naming)?;
    Ok(replay_loops(&runs, &policy)?.to_value(&policy, naming))
}

/// A reader for plain, valid JSONL run lines that skips the value tree (reading the input is
/// most of a replay's time in the bindings). It answers `None` for anything it does not
/// handle exactly as the general reader would (escapes in strings, duplicate or unknown
/// keys, numeric ids, `null` where a string is expected, out-of-range values, bad JSON),
/// and the general reader then takes the line, so results and errors never depend on which
/// reader ran (`core/tests/loop_replay.rs` checks both on every vector and on mutations).
mod plain_line {
    use super::{ReplayIteration, ReplayRun};
    use crate::loop_stopping::{Observation, ResourceUsage, VerificationStatus};

    struct Scanner<'a> {
        bytes: &'a [u8],
        text: &'a str,
        pos: usize,
        /// Values read, counted as the general reader counts them (its limits hold here too).
        values: usize,
    }

    impl<'a> Scanner<'a> {
        fn peek(&self) -> Option<u8> {
            self.bytes.get(self.pos).copied()
        }

        fn skip_ws(&mut self) {
            while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                self.pos += 1;
            }
        }

        fn eat(&mut self, byte: u8) -> Option<()> {
            self.skip_ws();
            (self.peek() == Some(byte)).then(|| self.pos += 1)
        }

        /// A string without escapes or control characters.
        fn string(&mut self) -> Option<&'a str> {
            self.eat(b'"')?;
            let start = self.pos;
            loop {
                match self.peek()? {
                    b'"' => break,
                    b'\\' => return None,
                    c if c < 0x20 => return None,
                    _ => self.pos += 1,
                }
            }
            let s = self.text.get(start..self.pos)?;
            if s.len() > crate::limits::MAX_STRING_BYTES {
                return None;
            }
            self.pos += 1;
            Some(s)
        }

        /// A JSON number (the general reader's grammar and conversion).
        fn number(&mut self) -> Option<f64> {
            self.skip_ws();
            let start = self.pos;
            if self.peek() == Some(b'-') {
                self.pos += 1;
            }
            match self.peek()? {
                b'0' => self.pos += 1,
                b'1'..=b'9' => self.digits(),
                _ => return None,
            }
            if self.peek() == Some(b'.') {
                self.pos += 1;
                if !matches!(self.peek(), Some(b'0'..=b'9')) {
                    return None;
                }
                self.digits();
            }
            if matches!(self.peek(), Some(b'e' | b'E')) {
                self.pos += 1;
                if matches!(self.peek(), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
                if !matches!(self.peek(), Some(b'0'..=b'9')) {
                    return None;
                }
                self.digits();
            }
            crate::float_parse::parse_f64(self.text.get(start..self.pos)?)
        }

        fn digits(&mut self) {
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }

        fn literal(&mut self, word: &[u8]) -> bool {
            self.skip_ws();
            if self.bytes.get(self.pos..self.pos + word.len()) == Some(word) {
                self.pos += word.len();
                true
            } else {
                false
            }
        }

        /// `,` (more to come: true) or the closing byte (done: false).
        fn next_or_close(&mut self, close: u8) -> Option<bool> {
            self.skip_ws();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    Some(true)
                }
                c if c == close => {
                    self.pos += 1;
                    Some(false)
                }
                _ => None,
            }
        }
    }

    fn in_range(n: f64, min: f64, max: f64) -> Option<f64> {
        (n.is_finite() && n >= min && n <= max).then_some(n)
    }

    /// One plain run line, or `None` (the general reader decides).
    pub(super) fn read_run(line: &str) -> Option<ReplayRun> {
        // Over a limit: the general reader words the error.
        if line.len() > crate::limits::MAX_DOCUMENT_BYTES {
            return None;
        }
        let mut sc = Scanner { bytes: line.as_bytes(), text: line, pos: 0, values: 1 };
        sc.eat(b'{')?;
        let (mut id, mut dataset, mut split, mut iterations) = (None, None, None, None);
        loop {
            let key = sc.string()?;
            sc.eat(b':')?;
            sc.values += 1;
            let slot_taken = match key {
                "id" => id.replace(sc.string()?.to_string()).is_some(),
                "dataset" => dataset.replace(sc.string()?.to_string()).is_some(),
                "split" => split.replace(sc.string()?.to_string()).is_some(),
                "iterations" => iterations.replace(read_iterations(&mut sc)?).is_some(),
                _ => return None,
            };
            if slot_taken {
                return None; // a duplicate key: JSON.parse's last-wins is the general reader's business
            }
            if !sc.next_or_close(b'}')? {
                break;
            }
        }
        sc.skip_ws();
        if sc.pos != sc.bytes.len() {
            return None;
        }
        let iterations = iterations?;
        if iterations.is_empty() || sc.values > crate::limits::MAX_VALUES {
            return None;
        }
        Some(ReplayRun { id: id?, dataset, split, iterations })
    }

    fn read_iterations(sc: &mut Scanner<'_>) -> Option<Vec<ReplayIteration>> {
        sc.eat(b'[')?;
        let mut items = Vec::new();
        sc.skip_ws();
        if sc.peek() == Some(b']') {
            sc.pos += 1;
            return Some(items);
        }
        let mut previous: Option<f64> = None;
        loop {
            let item = read_iteration(sc, items.len() as u64 + 1, previous)?;
            previous = Some(item.observation.quality_score);
            items.push(item);
            if !sc.next_or_close(b']')? {
                return Some(items);
            }
        }
    }

    fn read_iteration(sc: &mut Scanner<'_>, iteration: u64, previous: Option<f64>) -> Option<ReplayIteration> {
        sc.eat(b'{')?;
        sc.values += 1;
        let mut seen = 0u8;
        let (mut quality, mut confidence, mut status, mut delta) = (None, None, None, None);
        let mut usage = ResourceUsage::default();
        let mut good = None;
        loop {
            let key = sc.string()?;
            sc.eat(b':')?;
            sc.values += 1;
            let bit = match key {
                "quality_score" => {
                    quality = Some(in_range(sc.number()?, 0.0, 100.0)?);
                    1
                }
                "confidence" => {
                    confidence = Some(in_range(sc.number()?, 0.0, 1.0)?);
                    2
                }
                "verification_status" => {
                    status = Some(VerificationStatus::parse(sc.string()?)?);
                    4
                }
                "quality_delta" => {
                    delta = Some(in_range(sc.number()?, f64::MIN, f64::MAX)?);
                    8
                }
                "tokens_used" => {
                    usage.tokens_used = Some(in_range(sc.number()?, 0.0, f64::MAX)?);
                    16
                }
                "token_cost_usd" => {
                    usage.token_cost_usd = Some(in_range(sc.number()?, 0.0, f64::MAX)?);
                    32
                }
                "execution_time_ms" => {
                    usage.execution_time_ms = Some(in_range(sc.number()?, 0.0, f64::MAX)?);
                    64
                }
                "good" => {
                    good = if sc.literal(b"true") {
                        Some(true)
                    } else if sc.literal(b"false") {
                        Some(false)
                    } else if sc.literal(b"null") {
                        None
                    } else {
                        return None;
                    };
                    128
                }
                _ => return None,
            };
            if seen & bit != 0 {
                return None; // duplicate key
            }
            seen |= bit;
            if !sc.next_or_close(b'}')? {
                break;
            }
        }
        let quality_score = quality?;
        let has_usage = seen & (16 | 32 | 64) != 0;
        Some(ReplayIteration {
            observation: Observation {
                iteration,
                quality_score,
                confidence: confidence?,
                quality_delta: delta.unwrap_or_else(|| super::implied_quality_delta(previous, quality_score)),
                verification_status: status?,
            },
            usage: has_usage.then_some(usage),
            good,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general reader on one line (what `parse_jsonl` does when the plain reader declines).
    fn general(line: &str) -> Result<ReplayRun> {
        let value = Value::parse_json(line, CODE, "runs[0]")?;
        ReplayRun::from_value(&value, Naming::Js, "runs[0]")
    }

    fn lines() -> Vec<String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/replay/loop_replay.json");
        let doc = Value::parse_json(&std::fs::read_to_string(path).unwrap(), CODE, "doc").unwrap();
        let Some(Value::Object(sets)) = doc.get("runSets") else { panic!("no run sets") };
        let mut out = Vec::new();
        for (_, runs) in sets {
            let Value::Array(runs) = runs else { panic!() };
            out.extend(runs.iter().map(Value::to_json));
        }
        out.push(r#" { "id" : "spaced" , "iterations" : [ { "quality_score" : 1E1 , "confidence" : 0.5 , "verification_status" : "failed" , "good" : null } ] } "#.to_string());
        out
    }

    #[test]
    fn the_plain_reader_agrees_with_the_general_one_or_declines() {
        let mut checked = 0;
        let mut plain = 0;
        let mut seed: u64 = 7;
        for line in lines() {
            let mut variants = vec![line.clone()];
            // Mutations: drop, duplicate or replace single bytes, and swap known tokens, so the
            // plain reader meets broken JSON, bad values, escapes and duplicate keys.
            for _ in 0..40 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let bytes = line.as_bytes();
                let at = (seed as usize) % bytes.len().max(1);
                let mut m = bytes.to_vec();
                match seed % 6 {
                    0 => {
                        m.remove(at);
                    }
                    1 => m.insert(at, m[at]),
                    2 => m[at] = b"0123456789-.eE\",:{}[] \\"[(seed as usize / 7) % 23],
                    3 => m = line.replacen("failed", "Failed", 1).into_bytes(),
                    4 => m = line.replacen("\"confidence\"", "\"quality_score\"", 1).into_bytes(),
                    _ => m = line.replacen(":0", ":1e999", 1).into_bytes(),
                }
                if let Ok(text) = String::from_utf8(m) {
                    variants.push(text);
                }
            }
            for text in variants {
                checked += 1;
                if let Some(run) = plain_line::read_run(&text) {
                    plain += 1;
                    assert_eq!(general(&text).as_ref(), Ok(&run), "{text}");
                }
            }
        }
        assert!(plain > 100 && checked > plain, "{plain} of {checked} read by the plain reader");
    }
}
