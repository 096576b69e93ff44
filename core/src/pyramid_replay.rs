//! Replay a pyramid policy over recorded runs: what it would have run, where it would have
//! stopped and why, and whether it would have missed a failure; aggregated into compute
//! saved (nominal, and actual with verification counted as run), failure recall and the
//! false-pass rate with a Wilson 95% interval. Also the policy's shadow mode and its
//! Learn-then-Test calibration, which are replays too.
//!
//! A recorded run is `{id?, timestamp?, layers: [{name?, durationMs, failed, total?, passed?,
//! flakyRatio?, coverage?}]}` (JSONL: one run per line; see docs/replay-pyramids.md). The
//! ground truth of a run is whether any of its layers failed. A policy *catches* a failing
//! run when some layer it ran (verification included) failed; otherwise it declared the run
//! green and *missed* the failure.
//!
//! The ADR's presets replay through [`PyramidRun`] exactly as a live run would: each layer
//! becomes a `LayerResult` with `passRate = passed / total` (or 0/1 from `failed` without
//! counts), `coverage` (default 1) and `flakyRatio` (default 0).

use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::exit_decision::ExitConfig;
use crate::pyramid::{Action, LayerSpec, PyramidRun};
use crate::pyramid_policy::{
    binomial_cdf, wilson_interval, ObservedLayer, OutcomeModel, PlannedLayer, PolicyConfig, PolicyDecision,
};
use crate::signal::LayerResult;
use crate::value::field_name;
use crate::value::{self, FieldName, Naming, ObjectReader, Value};

const CODE: ErrorCode = ErrorCode::InvalidReplay;
const DURATION_MS: FieldName = field_name!("durationMs", "duration_ms");
const FLAKY_RATIO: FieldName = field_name!("flakyRatio", "flaky_ratio");
const LAYER_FIELDS: [FieldName; 7] = [
    FieldName::same("name"),
    DURATION_MS,
    FieldName::same("failed"),
    FieldName::same("total"),
    FieldName::same("passed"),
    FLAKY_RATIO,
    FieldName::same("coverage"),
];
const RUN_FIELDS: [FieldName; 3] = [FieldName::same("id"), FieldName::same("timestamp"), FieldName::same("layers")];

/// One layer of a recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedLayer {
    /// Layer name (`#i` for an unnamed layer at index i).
    pub name: String,
    /// What running it cost.
    pub duration_ms: f64,
    /// Whether it failed.
    pub failed: bool,
    /// Tests run, if recorded.
    pub total: Option<u64>,
    /// Tests passed, if recorded (<= total).
    pub passed: Option<u64>,
    /// Flaky share, 0..=1, if recorded.
    pub flaky_ratio: Option<f64>,
    /// Coverage, 0..=1, if recorded.
    pub coverage: Option<f64>,
}

impl RecordedLayer {
    /// The `LayerResult` the ADR's controller sees for this layer.
    pub fn layer_result(&self) -> LayerResult {
        let pass_rate = match (self.passed, self.total) {
            (Some(p), Some(t)) if t > 0 => p as f64 / t as f64,
            _ => {
                if self.failed {
                    0.0
                } else {
                    1.0
                }
            }
        };
        let mut result = LayerResult::new(pass_rate, self.coverage.unwrap_or(1.0), self.flaky_ratio.unwrap_or(0.0));
        result.name = Some(self.name.clone());
        result.duration_ms = Some(self.duration_ms);
        result
    }
}

/// One recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRun {
    /// Caller's id, if any.
    pub id: Option<String>,
    /// Layers in the recorded (given) order; at least one.
    pub layers: Vec<RecordedLayer>,
}

impl RecordedRun {
    /// Whether any layer failed (the run's ground truth).
    pub fn failed(&self) -> bool {
        self.layers.iter().any(|l| l.failed)
    }

    /// Parses one run; errors name the path under `path` (e.g. `runs[3].layers[1].durationMs`).
    pub fn from_value(run: &Value, naming: Naming, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(run, path, "run", naming, CODE)?;
        reader.reject_unknown(&RUN_FIELDS).map_err(|e| e.nested(CODE, ""))?;
        let id = match reader.get(FieldName::same("id")) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.is_finite() => Some(crate::jsnum::to_js_string(*n)),
            Some(_) => Some(reader.string(FieldName::same("id"))?.to_string()),
        };
        if reader.get(FieldName::same("timestamp")).is_some() {
            reader.number(FieldName::same("timestamp"), f64::MIN, f64::MAX)?;
        }
        let layers_path = reader.path_of(FieldName::same("layers"));
        let items =
            value::nonempty_array(reader.get(FieldName::same("layers")), &layers_path, CODE, "an array", "layer")?;
        crate::limits::check_layer_count(items.len(), CODE, &layers_path)?;
        let mut layers: Vec<RecordedLayer> = Vec::with_capacity(items.len());
        for (j, item) in items.iter().enumerate() {
            let lpath = value::index_path(&layers_path, j);
            let layer = parse_layer(item, naming, &lpath, j)?;
            if layers.iter().any(|l| l.name == layer.name) {
                let field = value::concat(&[&lpath, ".name"]);
                return Err(Error::new(
                    CODE,
                    ErrorKind::Range,
                    field.clone(),
                    value::concat(&[&field, " repeats layer '", &layer.name, "' of the same run"]),
                ));
            }
            layers.push(layer);
        }
        Ok(RecordedRun { id, layers })
    }
}

fn parse_layer(item: &Value, naming: Naming, path: &str, index: usize) -> Result<RecordedLayer> {
    let r = ObjectReader::new(item, path, "layer", naming, CODE)?;
    r.reject_unknown(&LAYER_FIELDS).map_err(|e| e.nested(CODE, ""))?;
    let name = match r.opt_string(FieldName::same("name"))? {
        Some(n) => n.to_string(),
        None => value::concat(&["#", &crate::jsnum::uint_string(index as u64)]),
    };
    let duration_ms = r.number(DURATION_MS, 0.0, f64::MAX)?;
    let failed = r.boolean(FieldName::same("failed"))?;
    let total = r.opt_integer(FieldName::same("total"), 0, value::MAX_SAFE_INTEGER)?;
    let passed = r.opt_integer(FieldName::same("passed"), 0, total.unwrap_or(value::MAX_SAFE_INTEGER))?;
    if passed.is_some() != total.is_some() {
        let missing = if total.is_none() { "total" } else { "passed" };
        let field = value::join_path(path, missing);
        return Err(Error::new(
            CODE,
            ErrorKind::Type,
            field.clone(),
            value::concat(&[
                field.as_str(),
                " is required when ",
                if total.is_none() { "passed" } else { "total" },
                " is given",
            ]),
        ));
    }
    let flaky_ratio = r.opt_number(FLAKY_RATIO, 0.0, 1.0)?;
    let coverage = r.opt_number(FieldName::same("coverage"), 0.0, 1.0)?;
    Ok(RecordedLayer { name, duration_ms, failed, total, passed, flaky_ratio, coverage })
}

/// Parses an array of runs (paths `runs[i]...`), or JSONL text.
pub fn parse_runs(runs: &Value, naming: Naming) -> Result<Vec<RecordedRun>> {
    match runs {
        Value::Array(items) => {
            // A plain loop, as in loop replay (no iterator-specialized collect).
            let mut out = Vec::with_capacity(items.len());
            for (i, run) in items.iter().enumerate() {
                out.push(RecordedRun::from_value(run, naming, &value::index_path("runs", i))?);
            }
            Ok(out)
        }
        // The JSONL file format has one spelling (the documented camelCase) in every language.
        Value::String(text) => parse_runs_jsonl(text, Naming::Js),
        other => Err(crate::replay_input::runs_type_error(other)),
    }
}

/// Parses JSONL text: one run per non-blank line; `runs[i]` counts runs, not lines, and an
/// error's message names its line. The one JSONL reader of loop and pyramid replay
/// ([`crate::replay_input`]: a byte-order mark ignored, each line within the document limits,
/// a syntax error a range error).
pub fn parse_runs_jsonl(text: &str, naming: Naming) -> Result<Vec<RecordedRun>> {
    crate::replay_input::read_lines(text, true, |line, path| read_run_line(line, naming, path))
}

/// Reads one JSONL line as the run at `path` (`runs[3]`), as [`parse_runs_jsonl`] reads each
/// of its lines: for hosts that stream a file through [`crate::replay_input::JsonlLines`].
pub fn read_run_line(line: &str, naming: Naming, path: &str) -> Result<RecordedRun> {
    let value = Value::parse_json(line, CODE, path)?;
    RecordedRun::from_value(&value, naming, path)
}

/// What is replayed.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayPolicy {
    /// The ADR's controller with this config (`totalLayers` = the run's layer count).
    Adr(ExitConfig),
    /// The fail-fast / risk-bounded policy, starting from `model`.
    Policy {
        /// Its knobs.
        config: PolicyConfig,
        /// The history it starts from.
        model: OutcomeModel,
    },
}

/// What the policy's model learns after each replayed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Learn {
    /// The layers the policy ran (what CI would observe).
    Ran,
    /// Every recorded layer (shadow mode: everything ran).
    All,
    /// Nothing: the model stays as given.
    None,
}

impl Learn {
    /// `ran`, `all`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Learn::Ran => "ran",
            Learn::All => "all",
            Learn::None => "none",
        }
    }
}

/// One run as the policy would have played it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReplay {
    /// The run's id.
    pub id: Option<String>,
    /// Layers recorded.
    pub layers: usize,
    /// Indices run, in run order, verification included.
    pub executed: Vec<usize>,
    /// The layer after which the run stopped (the ADR's exit layer; the policy's last run layer).
    pub exit_layer: usize,
    /// Why: the ADR's `exitReason` (`forced_continue` when it never exited) or the policy's
    /// `layer_failed` / `risk_bounded` / `completed`.
    pub reason: &'static str,
    /// Skipped layers the ADR's verification ran.
    pub verified_layers: usize,
    /// Ground truth: some recorded layer failed.
    pub failed: bool,
    /// Some layer that ran failed.
    pub caught: bool,
    /// The run failed and nothing that ran did.
    pub missed: bool,
    /// The bound that allowed a risk-bounded stop.
    pub risk: Option<f64>,
    /// Summed duration of every recorded layer.
    pub cost_ms: f64,
    /// Duration of the layers the decision skipped (verified ones included).
    pub saved_nominal_ms: f64,
    /// Duration of the layers that never ran.
    pub saved_actual_ms: f64,
}

/// Aggregates over the replayed runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplaySummary {
    /// Runs replayed.
    pub runs: usize,
    /// Runs with a failing layer.
    pub failing_runs: usize,
    /// Failing runs caught.
    pub caught: usize,
    /// Failing runs missed (declared green).
    pub missed: usize,
    /// caught / failing_runs (None without failing runs).
    pub recall: Option<f64>,
    /// Runs declared green (nothing that ran failed).
    pub declared_green: usize,
    /// missed / declared_green (None when nothing was declared green).
    pub false_pass_rate: Option<f64>,
    /// Wilson 95% interval of the false-pass rate.
    pub false_pass_ci: Option<(f64, f64)>,
    /// Summed cost of every recorded layer.
    pub total_ms: f64,
    /// Summed nominal saving.
    pub saved_nominal_ms: f64,
    /// Summed actual saving.
    pub saved_actual_ms: f64,
    /// saved_nominal_ms / total_ms (None when total is 0).
    pub saved_nominal: Option<f64>,
    /// saved_actual_ms / total_ms (None when total is 0).
    pub saved_actual: Option<f64>,
    /// Layers recorded.
    pub layers_total: usize,
    /// Layers run (verification included).
    pub layers_run: usize,
    /// Layers run by verification.
    pub verified_layers: usize,
    /// Runs stopped by the bound.
    pub risk_bounded_stops: usize,
}

/// A replay's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayReport {
    /// Per run, in input order.
    pub runs: Vec<RunReplay>,
    /// Aggregates.
    pub summary: ReplaySummary,
    /// The policy's model after the replay (None for the ADR).
    pub model: Option<OutcomeModel>,
}

fn planned(run: &RecordedRun) -> Vec<PlannedLayer> {
    run.layers.iter().map(|l| PlannedLayer { name: l.name.clone(), cost_ms: Some(l.duration_ms) }).collect()
}

/// How the ADR's controller played one run.
struct AdrPlay {
    executed: Vec<usize>,
    exit_layer: usize,
    reason: &'static str,
    verified_layers: usize,
    /// First skipped layer when it exited early.
    skipped_from: Option<usize>,
}

fn replay_adr(config: &ExitConfig, run: &RecordedRun) -> Result<AdrPlay> {
    let specs = run.layers.iter().map(|l| LayerSpec { name: l.name.clone(), cost_ms: Some(l.duration_ms) }).collect();
    let mut pyramid = PyramidRun::start(config.clone(), run.layers.len() as u64, specs)?;
    while let Action::Run(i) | Action::Verify(i) = pyramid.next() {
        match run.layers.get(i).map(RecordedLayer::layer_result) {
            Some(result) => pyramid.submit(i, result)?,
            None => break,
        };
    }
    let result = pyramid.result()?;
    let exit = usize::try_from(result.exit_layer).unwrap_or(0);
    Ok(AdrPlay {
        executed: result.layers_executed,
        exit_layer: exit,
        reason: result.exit_reason.as_str(),
        verified_layers: result.verified_layers,
        skipped_from: result.exited_early.then_some(exit + 1),
    })
}

fn replay_policy(
    config: &PolicyConfig,
    model: &OutcomeModel,
    run: &RecordedRun,
) -> (Vec<usize>, &'static str, Option<f64>) {
    let plan = planned(run);
    let mut done = vec![false; plan.len()];
    let mut outcomes: Vec<(usize, bool)> = Vec::with_capacity(plan.len());
    loop {
        match model.decide_unchecked(config, &plan, &outcomes, &done, false) {
            PolicyDecision::Run { layer, .. } => {
                let failed = run.layers.get(layer).is_some_and(|l| l.failed);
                match done.get_mut(layer) {
                    Some(slot) if !*slot => *slot = true,
                    _ => return (outcomes.iter().map(|o| o.0).collect(), "completed", None),
                }
                outcomes.push((layer, failed));
            }
            PolicyDecision::Stop { reason, risk } => {
                return (outcomes.iter().map(|o| o.0).collect(), reason.as_str(), risk);
            }
        }
    }
}

/// The layers a run teaches the model: those that ran (in run order), then for `All` the rest
/// in recorded order.
fn observation(run: &RecordedRun, executed: &[usize], learn: Learn) -> Vec<ObservedLayer> {
    let mut order: Vec<usize> = executed.to_vec();
    if learn == Learn::All {
        order.extend((0..run.layers.len()).filter(|i| !executed.contains(i)));
    }
    order
        .iter()
        .filter_map(|&i| run.layers.get(i))
        .map(|l| ObservedLayer { name: l.name.clone(), failed: l.failed, duration_ms: Some(l.duration_ms) })
        .collect()
}

/// Replays `policy` over `runs`; the policy's model learns per `learn` after each run.
pub fn replay(runs: &[RecordedRun], policy: &ReplayPolicy, learn: Learn) -> Result<ReplayReport> {
    let mut stream = ReplayStream::new(policy.clone(), learn)?;
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        out.push(stream.replay(run)?);
    }
    let summary = summarize(&out);
    Ok(ReplayReport { runs: out, summary, model: stream.model })
}

/// A replay fed one run at a time (a host streaming a JSONL file): memory is bounded by the
/// largest run (and the model), and each run's replay, the summary and the final model are
/// exactly [`replay`]'s over the same runs.
#[derive(Clone, Debug)]
pub struct ReplayStream {
    policy: ReplayPolicy,
    learn: Learn,
    model: Option<OutcomeModel>,
    tally: ReplayTally,
}

impl ReplayStream {
    /// A stream replaying `policy` (its config validated), learning per `learn`.
    pub fn new(policy: ReplayPolicy, learn: Learn) -> Result<Self> {
        let model = match &policy {
            ReplayPolicy::Adr(config) => {
                config.validate()?;
                None
            }
            ReplayPolicy::Policy { config, model } => {
                config.validate()?;
                Some(model.clone())
            }
        };
        Ok(ReplayStream { policy, learn, model, tally: ReplayTally::default() })
    }

    /// Replays the next run.
    pub fn replay(&mut self, run: &RecordedRun) -> Result<RunReplay> {
        let replayed = replay_one(&self.policy, self.model.as_mut(), self.learn, run)?;
        self.tally.add(&replayed);
        Ok(replayed)
    }

    /// The summary over the runs replayed so far.
    pub fn summary(&self) -> ReplaySummary {
        self.tally.summary()
    }

    /// The policy's model as it stands (None for the ADR).
    pub fn model(&self) -> Option<&OutcomeModel> {
        self.model.as_ref()
    }
}

fn replay_one(
    policy: &ReplayPolicy,
    model: Option<&mut OutcomeModel>,
    learn: Learn,
    run: &RecordedRun,
) -> Result<RunReplay> {
    let cost_ms: f64 = run.layers.iter().fold(0.0, |acc, l| acc + l.duration_ms);
    let (executed, exit_layer, reason, verified_layers, skipped_from, risk) = match (policy, model) {
        (ReplayPolicy::Policy { config, .. }, Some(m)) => {
            let (executed, reason, risk) = replay_policy(config, m, run);
            if learn != Learn::None {
                m.update(config, &observation(run, &executed, learn))?;
            }
            let exit_layer = executed.last().copied().unwrap_or(0);
            (executed, exit_layer, reason, 0, None, risk)
        }
        (ReplayPolicy::Adr(config), _) => {
            let play = replay_adr(config, run)?;
            (play.executed, play.exit_layer, play.reason, play.verified_layers, play.skipped_from, None)
        }
        (ReplayPolicy::Policy { .. }, None) => (Vec::new(), 0, "completed", 0, None, None),
    };
    let ran = |i: usize| executed.contains(&i);
    let saved_actual_ms: f64 =
        run.layers.iter().enumerate().filter(|(i, _)| !ran(*i)).fold(0.0, |acc, (_, l)| acc + l.duration_ms);
    let saved_nominal_ms = match skipped_from {
        Some(from) => run.layers.iter().skip(from).fold(0.0, |acc, l| acc + l.duration_ms),
        None => saved_actual_ms,
    };
    let failed = run.failed();
    let caught = executed.iter().any(|&i| run.layers.get(i).is_some_and(|l| l.failed));
    Ok(RunReplay {
        id: run.id.clone(),
        layers: run.layers.len(),
        executed,
        exit_layer,
        reason,
        verified_layers,
        failed,
        caught,
        missed: failed && !caught,
        risk,
        cost_ms,
        saved_nominal_ms,
        saved_actual_ms,
    })
}

/// The running sums behind a [`ReplaySummary`] (sums in run order).
#[derive(Clone, Debug, Default)]
struct ReplayTally {
    runs: usize,
    failing_runs: usize,
    caught: usize,
    declared_green: usize,
    total_ms: f64,
    saved_nominal_ms: f64,
    saved_actual_ms: f64,
    layers_total: usize,
    layers_run: usize,
    verified_layers: usize,
    risk_bounded_stops: usize,
}

impl ReplayTally {
    fn add(&mut self, r: &RunReplay) {
        self.runs += 1;
        self.failing_runs += usize::from(r.failed);
        self.caught += usize::from(r.failed && r.caught);
        self.declared_green += usize::from(!r.caught);
        self.total_ms += r.cost_ms;
        self.saved_nominal_ms += r.saved_nominal_ms;
        self.saved_actual_ms += r.saved_actual_ms;
        self.layers_total += r.layers;
        self.layers_run += r.executed.len();
        self.verified_layers += r.verified_layers;
        self.risk_bounded_stops += usize::from(r.reason == "risk_bounded");
    }

    fn summary(&self) -> ReplaySummary {
        let (failing_runs, caught, declared_green, total_ms) =
            (self.failing_runs, self.caught, self.declared_green, self.total_ms);
        let missed = failing_runs - caught;
        let share = |x: f64| (total_ms > 0.0).then(|| x / total_ms);
        ReplaySummary {
            runs: self.runs,
            failing_runs,
            caught,
            missed,
            recall: (failing_runs > 0).then(|| caught as f64 / failing_runs as f64),
            declared_green,
            false_pass_rate: (declared_green > 0).then(|| missed as f64 / declared_green as f64),
            false_pass_ci: wilson_interval(missed as u64, declared_green as u64),
            total_ms,
            saved_nominal_ms: self.saved_nominal_ms,
            saved_actual_ms: self.saved_actual_ms,
            saved_nominal: share(self.saved_nominal_ms),
            saved_actual: share(self.saved_actual_ms),
            layers_total: self.layers_total,
            layers_run: self.layers_run,
            verified_layers: self.verified_layers,
            risk_bounded_stops: self.risk_bounded_stops,
        }
    }
}

/// Aggregates per-run replays.
pub fn summarize(runs: &[RunReplay]) -> ReplaySummary {
    let mut tally = ReplayTally::default();
    for run in runs {
        tally.add(run);
    }
    tally.summary()
}

/// Shadow mode: every recorded layer ran; report what the policy would have run and missed,
/// learning each full run afterwards.
pub fn shadow(runs: &[RecordedRun], config: &PolicyConfig, model: &OutcomeModel) -> Result<ReplayReport> {
    replay(runs, &ReplayPolicy::Policy { config: config.clone(), model: model.clone() }, Learn::All)
}

/// One tested budget of a calibration.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationStep {
    /// The risk budget tested.
    pub risk_budget: f64,
    /// Failing runs among the held-out runs.
    pub failing_runs: usize,
    /// Of those, missed at this budget.
    pub missed: usize,
    /// P(Binomial(failing_runs, risk) <= missed): the p-value of H0 missRate > risk.
    pub p_value: f64,
    /// Whether H0 was rejected (p <= delta) in the fixed sequence.
    pub certified: bool,
}

/// `calibrate`'s answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The most aggressive certified budget (0 = never skip on success).
    pub risk_budget: f64,
    /// The config with that budget.
    pub config: PolicyConfig,
    /// Every budget tested, in order; testing stops at the first that is not certified.
    pub steps: Vec<CalibrationStep>,
    /// The model after learning every calibration run in full (ready to deploy).
    pub model: OutcomeModel,
}

/// The budgets `calibrate` tests by default, most conservative first.
pub const DEFAULT_GRID: [f64; 9] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2];

/// Picks the most aggressive risk budget on `grid` (ascending) whose miss rate among failing
/// runs is at most `risk` with probability >= 1 - `delta` (Learn-then-Test, fixed-sequence
/// testing with exact binomial p-values). The first `warmup` share of `runs` (recorded in
/// full) trains a copy of `model`; the rest are replayed at each budget, learning what ran.
pub fn calibrate(
    runs: &[RecordedRun],
    config: &PolicyConfig,
    model: &OutcomeModel,
    risk: f64,
    delta: f64,
    grid: &[f64],
    warmup: f64,
) -> Result<Calibration> {
    config.validate()?;
    let range = |field: &str, ok: bool, what: &str| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                field,
                value::concat(&[field, " must be ", what]),
            ))
        }
    };
    range("risk", risk.is_finite() && risk > 0.0 && risk < 1.0, "a finite number > 0 and < 1")?;
    range("delta", delta.is_finite() && delta > 0.0 && delta < 1.0, "a finite number > 0 and < 1")?;
    range("warmup", warmup.is_finite() && (0.0..1.0).contains(&warmup), "a finite number >= 0 and < 1")?;
    for (i, b) in grid.iter().enumerate() {
        let field = value::index_path("grid", i);
        let ascending = i == 0 || grid.get(i - 1).is_some_and(|p| p < b);
        range(&field, b.is_finite() && *b > 0.0 && *b <= 1.0 && ascending, "a finite number in (0, 1], ascending")?;
    }
    let split = ((runs.len() as f64) * warmup).floor() as usize;
    let (train, held) = runs.split_at(split.min(runs.len()));
    let mut warmed = model.clone();
    for run in train {
        warmed.update(config, &observation(run, &[], Learn::All))?;
    }
    let mut steps = Vec::new();
    let mut chosen = 0.0;
    for &budget in grid {
        let trial = PolicyConfig { risk_budget: budget, skip_on_success: true, ..config.clone() };
        let report = replay(held, &ReplayPolicy::Policy { config: trial, model: warmed.clone() }, Learn::Ran)?;
        let (n, k) = (report.summary.failing_runs, report.summary.missed);
        let p_value = if n == 0 { 1.0 } else { binomial_cdf(k as u64, n as u64, risk) };
        let certified = p_value <= delta;
        steps.push(CalibrationStep { risk_budget: budget, failing_runs: n, missed: k, p_value, certified });
        if !certified {
            break;
        }
        chosen = budget;
    }
    let mut trained = warmed;
    for run in held {
        trained.update(config, &observation(run, &[], Learn::All))?;
    }
    let config = PolicyConfig { risk_budget: chosen, ..config.clone() };
    Ok(Calibration { risk_budget: chosen, config, steps, model: trained })
}

// ---- Host values: what the bindings call (keys spelled by `naming`; the model document
// ---- is always in the JS spelling, like every snapshot, so it moves between languages).

const POLICY: FieldName = FieldName::same("policy");
const CONFIG: FieldName = FieldName::same("config");
const MODEL: FieldName = FieldName::same("model");
const LEARN: FieldName = FieldName::same("learn");
const RISK: FieldName = FieldName::same("risk");
const DELTA: FieldName = FieldName::same("delta");
const GRID: FieldName = FieldName::same("grid");
const WARMUP: FieldName = FieldName::same("warmup");

/// Preset names `replay` accepts: the ADR's three, then the policy's two.
pub const POLICY_NAMES: [&str; 5] = ["default", "aggressive", "conservative", "fail_fast", "risk_bounded"];

fn options_reader<'a>(options: &'a Value, naming: Naming, known: &[FieldName]) -> Result<Option<ObjectReader<'a>>> {
    if matches!(options, Value::Null) {
        return Ok(None);
    }
    let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
    reader.reject_unknown(known)?;
    Ok(Some(reader))
}

fn model_arg(model: Option<&Value>) -> Result<OutcomeModel> {
    match model {
        None | Some(Value::Null) => Ok(OutcomeModel::new()),
        Some(doc) => {
            OutcomeModel::from_value(doc, Naming::Js).map_err(|e| e.nested(ErrorCode::InvalidSnapshot, "model"))
        }
    }
}

/// Reads `{policy?, config?}`: the policy preset (default `default` when `adr_allowed`, else
/// `risk_bounded`) and a partial config merged over it.
fn policy_arg(reader: Option<&ObjectReader>, naming: Naming, adr_allowed: bool) -> Result<ReplayPolicyKind> {
    let allowed: &[&str] = if adr_allowed { &POLICY_NAMES } else { &["fail_fast", "risk_bounded"] };
    let name = match reader.and_then(|r| r.get(POLICY)) {
        None | Some(Value::Null) => {
            if adr_allowed {
                "default"
            } else {
                "risk_bounded"
            }
        }
        Some(_) => static_name(reader.map_or(Ok("default"), |r| r.choice(POLICY, allowed))?),
    };
    let partial = reader.and_then(|r| r.get(CONFIG)).unwrap_or(&Value::Null);
    let preset = ExitConfig::preset(name);
    match (preset, PolicyConfig::preset(name)) {
        (Some(adr), _) => {
            Ok(ReplayPolicyKind::Adr(name, adr.merged(partial, naming, "config", ErrorCode::InvalidConfig)?))
        }
        (None, Some(policy)) => Ok(ReplayPolicyKind::Policy(name, policy.merged(partial, naming, "config")?)),
        (None, None) => Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "policy", "unknown policy")),
    }
}

enum ReplayPolicyKind {
    Adr(&'static str, ExitConfig),
    Policy(&'static str, PolicyConfig),
}

fn static_name(name: &str) -> &'static str {
    POLICY_NAMES.iter().find(|n| **n == name).copied().unwrap_or("default")
}

/// `replayPyramids(runs, {policy?, config?, model?, learn?})`: `runs` is an array of run
/// objects or JSONL text; `policy` one of [`POLICY_NAMES`] (default `default`, the ADR's);
/// `config` a partial config over that preset; `model` a model document for the policy
/// presets; `learn` `ran` (default), `all` or `none`.
pub fn replay_value(runs: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let (name, policy, learn) = replay_options(options, naming)?;
    let runs = parse_runs(runs, naming)?;
    let report = replay(&runs, &policy, learn)?;
    Ok(report_value(&report, name, naming))
}

/// Reads `{policy?, config?, model?, learn?}` as [`replay_value`] does: the policy's name,
/// the policy and what its model learns.
fn replay_options(options: &Value, naming: Naming) -> Result<(&'static str, ReplayPolicy, Learn)> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG, MODEL, LEARN])?;
    let kind = policy_arg(reader.as_ref(), naming, true)?;
    let learn = match reader.as_ref().and_then(|r| r.get(LEARN)) {
        None | Some(Value::Null) => Learn::Ran,
        Some(_) => match reader.as_ref().map(|r| r.choice(LEARN, &["ran", "all", "none"])).transpose()? {
            Some("all") => Learn::All,
            Some("none") => Learn::None,
            _ => Learn::Ran,
        },
    };
    let model = model_arg(reader.as_ref().and_then(|r| r.get(MODEL)))?;
    let (name, policy) = match kind {
        ReplayPolicyKind::Adr(name, config) => (name, ReplayPolicy::Adr(config)),
        ReplayPolicyKind::Policy(name, config) => (name, ReplayPolicy::Policy { config, model }),
    };
    Ok((static_name(name), policy, learn))
}

impl ReplayStream {
    /// A stream from the options of [`replay_value`] (`{policy?, config?, model?, learn?}`),
    /// checked as it checks them, with the policy's name for the report.
    pub fn from_options(options: &Value, naming: Naming) -> Result<(Self, &'static str)> {
        let (name, policy, learn) = replay_options(options, naming)?;
        Ok((ReplayStream::new(policy, learn)?, name))
    }
}

/// `shadowPyramids(runs, {policy?, config?, model?})`: shadow mode over fully recorded runs.
pub fn shadow_value(runs: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG, MODEL])?;
    let kind = policy_arg(reader.as_ref(), naming, false)?;
    let model = model_arg(reader.as_ref().and_then(|r| r.get(MODEL)))?;
    let runs = parse_runs(runs, naming)?;
    let ReplayPolicyKind::Policy(name, config) = kind else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            "policy",
            "shadow mode needs a policy preset",
        ));
    };
    let report = shadow(&runs, &config, &model)?;
    Ok(report_value(&report, static_name(name), naming))
}

/// `calibratePyramidPolicy(runs, {risk, delta, config?, model?, grid?, warmup?})`.
pub fn calibrate_value(runs: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let request = CalibrationRequest::from_options(options, naming)?;
    let runs = parse_runs(runs, naming)?;
    request.run(&runs)
}

/// The options of [`calibrate_value`], read and checked before any run is (a host streaming
/// a large file reports a bad option first, as the binding entry does).
#[derive(Clone, Debug)]
pub struct CalibrationRequest {
    config: PolicyConfig,
    model: OutcomeModel,
    risk: f64,
    delta: f64,
    grid: Vec<f64>,
    warmup: f64,
    naming: Naming,
}

impl CalibrationRequest {
    /// Reads `{risk, delta, policy?, config?, model?, grid?, warmup?}`.
    pub fn from_options(options: &Value, naming: Naming) -> Result<Self> {
        let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
        reader.reject_unknown(&[RISK, DELTA, CONFIG, MODEL, GRID, WARMUP, POLICY])?;
        let kind = policy_arg(Some(&reader), naming, false)?;
        let ReplayPolicyKind::Policy(_, config) = kind else {
            return Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                "policy",
                "calibration needs a policy preset",
            ));
        };
        let risk = reader.number(RISK, 0.0, 1.0)?;
        let delta = reader.number(DELTA, 0.0, 1.0)?;
        let warmup = reader.opt_number(WARMUP, 0.0, 1.0)?.unwrap_or(0.5);
        let grid: Vec<f64> = match reader.get(GRID) {
            None | Some(Value::Null) => DEFAULT_GRID.to_vec(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Number(n) => Ok(*n),
                    other => {
                        let field = value::index_path("grid", i);
                        Err(Error::new(
                            ErrorCode::InvalidConfig,
                            ErrorKind::Type,
                            field.clone(),
                            value::concat(&[&field, " must be a number, got ", &other.describe()]),
                        ))
                    }
                })
                .collect::<Result<_>>()?,
            Some(other) => {
                return Err(Error::new(
                    ErrorCode::InvalidConfig,
                    ErrorKind::Type,
                    "grid",
                    value::concat(&["grid must be an array of numbers, got ", &other.describe()]),
                ))
            }
        };
        let model = model_arg(reader.get(MODEL))?;
        Ok(CalibrationRequest { config, model, risk, delta, grid, warmup, naming })
    }

    /// Calibrates over `runs` and answers what [`calibrate_value`] answers.
    pub fn run(&self, runs: &[RecordedRun]) -> Result<Value> {
        let naming = self.naming;
        let c = calibrate(runs, &self.config, &self.model, self.risk, self.delta, &self.grid, self.warmup)?;
        let key = |js: &'static str, snake: &'static str| match naming {
            Naming::Js => js.to_string(),
            Naming::Snake => snake.to_string(),
        };
        let steps = c
            .steps
            .iter()
            .map(|s| {
                Value::Object(vec![
                    (key("riskBudget", "risk_budget"), Value::Number(s.risk_budget)),
                    (key("failingRuns", "failing_runs"), Value::Number(s.failing_runs as f64)),
                    ("missed".into(), Value::Number(s.missed as f64)),
                    (key("pValue", "p_value"), Value::Number(s.p_value)),
                    ("certified".into(), Value::Bool(s.certified)),
                ])
            })
            .collect();
        Ok(Value::Object(vec![
            (key("riskBudget", "risk_budget"), Value::Number(c.risk_budget)),
            ("config".into(), c.config.to_value(naming)),
            ("steps".into(), Value::Array(steps)),
            ("model".into(), c.model.to_value(Naming::Js)),
        ]))
    }
}

impl RecordedRun {
    /// The run as calibration keeps it: each layer's name, duration and outcome, without
    /// the id, test counts, flaky ratio and coverage, which only the ADR's presets read
    /// (calibration replays the model-based policy only, so its answer is unchanged).
    pub fn for_calibration(self) -> RecordedRun {
        let layers = self
            .layers
            .into_iter()
            .map(|l| RecordedLayer { total: None, passed: None, flaky_ratio: None, coverage: None, ..l })
            .collect();
        RecordedRun { id: None, layers }
    }
}

fn planned_arg(layers: &Value, naming: Naming) -> Result<Vec<PlannedLayer>> {
    let Value::Array(items) = layers else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "layers",
            value::concat(&["layers must be an array, got ", &layers.describe()]),
        ));
    };
    crate::limits::check_layer_count(items.len(), ErrorCode::InvalidConfig, "layers")?;
    let cost = field_name!("costMs", "cost_ms");
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = value::index_path("layers", i);
            let r = ObjectReader::new(item, &path, "layer", naming, ErrorCode::InvalidConfig)?;
            r.reject_unknown(&[FieldName::same("name"), cost])?;
            Ok(PlannedLayer {
                name: r.string(FieldName::same("name"))?.to_string(),
                cost_ms: r.opt_number(cost, 0.0, f64::MAX)?,
            })
        })
        .collect()
}

/// `pyramidPolicyDecide(model, layers, outcomes, {policy?, config?})`: `layers` is
/// `[{name, costMs?}]`, `outcomes` `[{layer, failed}]` in run order; answers
/// `{action: "run", layer, risk}` or `{action: "stop", reason, risk}`.
pub fn decide_value(model: &Value, layers: &Value, outcomes: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG])?;
    let ReplayPolicyKind::Policy(_, config) = policy_arg(reader.as_ref(), naming, false)? else {
        return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "policy", "a policy preset is needed"));
    };
    let model = model_arg(Some(model))?;
    let layers = planned_arg(layers, naming)?;
    let Value::Array(items) = outcomes else {
        return Err(Error::new(
            ErrorCode::InvalidStep,
            ErrorKind::Type,
            "outcomes",
            value::concat(&["outcomes must be an array, got ", &outcomes.describe()]),
        ));
    };
    let mut parsed = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = value::index_path("outcomes", i);
        let r = ObjectReader::new(item, &path, "outcome", naming, ErrorCode::InvalidStep)?;
        r.reject_unknown(&[FieldName::same("layer"), FieldName::same("failed")])?;
        let layer = r.integer(FieldName::same("layer"), 0, value::MAX_SAFE_INTEGER)?;
        parsed.push((usize::try_from(layer).unwrap_or(usize::MAX), r.boolean(FieldName::same("failed"))?));
    }
    Ok(model.decide(&config, &layers, &parsed)?.to_value())
}

/// `pyramidPolicyUpdate(model, ran, {policy?, config?})`: learns one run (`ran` =
/// `[{name, failed, durationMs?}]` in run order) and returns the new model document.
pub fn update_value(model: &Value, ran: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG])?;
    let ReplayPolicyKind::Policy(_, config) = policy_arg(reader.as_ref(), naming, false)? else {
        return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "policy", "a policy preset is needed"));
    };
    let mut model = model_arg(Some(model))?;
    let Value::Array(items) = ran else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "ran",
            value::concat(&["ran must be an array, got ", &ran.describe()]),
        ));
    };
    crate::limits::check_layer_count(items.len(), ErrorCode::InvalidConfig, "ran")?;
    let mut observed = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = value::index_path("ran", i);
        let r = ObjectReader::new(item, &path, "layer", naming, ErrorCode::InvalidConfig)?;
        r.reject_unknown(&[FieldName::same("name"), FieldName::same("failed"), DURATION_MS])?;
        observed.push(ObservedLayer {
            name: r.string(FieldName::same("name"))?.to_string(),
            failed: r.boolean(FieldName::same("failed"))?,
            duration_ms: r.opt_number(DURATION_MS, 0.0, f64::MAX)?,
        });
    }
    model.update(&config, &observed)?;
    Ok(model.to_value(Naming::Js))
}

/// The report object.
pub fn report_value(report: &ReplayReport, policy: &str, naming: Naming) -> Value {
    Value::Object(vec![
        ("policy".into(), Value::string(policy)),
        ("runs".into(), Value::Array(report.runs.iter().map(|r| run_value(r, naming)).collect())),
        ("summary".into(), summary_value(&report.summary, naming)),
        ("model".into(), report.model.as_ref().map_or(Value::Null, |m| m.to_value(Naming::Js))),
    ])
}

fn key(naming: Naming, js: &'static str, snake: &'static str) -> String {
    match naming {
        Naming::Js => js.to_string(),
        Naming::Snake => snake.to_string(),
    }
}

fn num(n: usize) -> Value {
    Value::Number(n as f64)
}

/// One run's row of the report (an entry of its `runs`).
pub fn run_value(r: &RunReplay, naming: Naming) -> Value {
    let key = |js, snake| key(naming, js, snake);
    Value::Object(vec![
        ("id".into(), r.id.as_deref().map_or(Value::Null, Value::string)),
        ("layers".into(), num(r.layers)),
        (key("layersRun", "layers_run"), num(r.executed.len())),
        ("executed".into(), Value::Array(r.executed.iter().map(|&i| num(i)).collect())),
        (key("exitLayer", "exit_layer"), num(r.exit_layer)),
        ("reason".into(), Value::string(r.reason)),
        (key("verifiedLayers", "verified_layers"), num(r.verified_layers)),
        ("failed".into(), Value::Bool(r.failed)),
        ("caught".into(), Value::Bool(r.caught)),
        ("missed".into(), Value::Bool(r.missed)),
        ("risk".into(), Value::opt_number(r.risk)),
        (key("costMs", "cost_ms"), Value::Number(r.cost_ms)),
        (key("savedNominalMs", "saved_nominal_ms"), Value::Number(r.saved_nominal_ms)),
        (key("savedActualMs", "saved_actual_ms"), Value::Number(r.saved_actual_ms)),
    ])
}

/// The report's `summary`.
pub fn summary_value(s: &ReplaySummary, naming: Naming) -> Value {
    let key = |js, snake| key(naming, js, snake);
    let ci = s.false_pass_ci.map_or(Value::Null, |(lo, hi)| Value::Array(vec![Value::Number(lo), Value::Number(hi)]));
    Value::Object(vec![
        ("runs".into(), num(s.runs)),
        (key("failingRuns", "failing_runs"), num(s.failing_runs)),
        ("caught".into(), num(s.caught)),
        ("missed".into(), num(s.missed)),
        ("recall".into(), Value::opt_number(s.recall)),
        (key("declaredGreen", "declared_green"), num(s.declared_green)),
        (key("falsePassRate", "false_pass_rate"), Value::opt_number(s.false_pass_rate)),
        (key("falsePassCi", "false_pass_ci"), ci),
        (key("totalMs", "total_ms"), Value::Number(s.total_ms)),
        (key("savedNominalMs", "saved_nominal_ms"), Value::Number(s.saved_nominal_ms)),
        (key("savedActualMs", "saved_actual_ms"), Value::Number(s.saved_actual_ms)),
        (key("savedNominal", "saved_nominal"), Value::opt_number(s.saved_nominal)),
        (key("savedActual", "saved_actual"), Value::opt_number(s.saved_actual)),
        (key("layersTotal", "layers_total"), num(s.layers_total)),
        (key("layersRun", "layers_run"), num(s.layers_run)),
        (key("verifiedLayers", "verified_layers"), num(s.verified_layers)),
        (key("riskBoundedStops", "risk_bounded_stops"), num(s.risk_bounded_stops)),
    ])
}
