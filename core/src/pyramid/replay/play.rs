//! Replaying: each recorded run through the ADR's controller or the policy
//! ([`ReplayPolicy`]), one [`RunReplay`] per run, the [`ReplaySummary`] over them, and the
//! policy's shadow mode ([`shadow`]).

use crate::num::stats::wilson_interval;
use crate::pyramid::policy::{ObservedLayer, OutcomeModel, PlannedLayer, PolicyConfig, PolicyDecision};
use crate::pyramid::replay::runs::{RecordedLayer, RecordedRun};
use crate::pyramid::{Action, ExitConfig, LayerSpec, PyramidRun};
use crate::value::named_enum;
use crate::value::{ErrorCode, Result};

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

named_enum! {
    /// What the policy's model learns after each replayed run.
    pub enum Learn {
        /// The layers the policy ran (what CI would observe).
        Ran = "ran",
        /// Every recorded layer (shadow mode: everything ran).
        All = "all",
        /// Nothing: the model stays as given.
        None = "none",
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
        match model.step(config, &plan, &outcomes, &done) {
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
pub(super) fn observation(run: &RecordedRun, executed: &[usize], learn: Learn) -> Vec<ObservedLayer> {
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
    let mut stream = PyramidReplayStream::new(policy.clone(), learn)?;
    let mut out = Vec::with_capacity(runs.len());
    for (i, run) in runs.iter().enumerate() {
        out.push(stream.replay_at(run, &crate::value::index_path("runs", i))?);
    }
    let summary = summarize(&out);
    Ok(ReplayReport { runs: out, summary, model: stream.model })
}

/// A replay fed one run at a time (a host streaming a JSONL file): memory is bounded by the
/// largest run (and the model), and each run's replay, the summary and the final model are
/// exactly [`replay`]'s over the same runs.
#[derive(Clone, Debug)]
pub struct PyramidReplayStream {
    policy: ReplayPolicy,
    learn: Learn,
    model: Option<OutcomeModel>,
    tally: ReplayTally,
}

impl PyramidReplayStream {
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
        Ok(PyramidReplayStream { policy, learn, model, tally: ReplayTally::default() })
    }

    /// Replays the next run.
    pub fn replay(&mut self, run: &RecordedRun) -> Result<RunReplay> {
        self.replay_at(run, "run")
    }

    /// Replays the next run, read at `path` (`runs[3]`, `FILE:line 4`): a run whose cost
    /// would make the replay's total overflow is refused (`invalid_replay`, naming
    /// `path.layers`) before anything changes; the summary's savings are parts of that total.
    pub fn replay_at(&mut self, run: &RecordedRun, path: &str) -> Result<RunReplay> {
        let cost: f64 = run.layers.iter().fold(0.0, |acc, l| acc + l.duration_ms);
        if !(self.tally.total_ms + cost).is_finite() {
            let field = crate::value::join_path(path, "layers");
            crate::value::add_to_total(self.tally.total_ms, cost, &field, ErrorCode::InvalidReplay)?;
        }
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
