//! Replaying: each run through the engine's own stateless rules, one [`RunOutcome`] per run,
//! and the [`ReplaySummary`] over them ([`LoopReplay`]).

use crate::loops::replay::input::{runs_from_lines, runs_from_value};
use crate::loops::replay::kernel::{self, Played};
use crate::loops::replay::policy::LoopPolicy;
use crate::loops::replay::runs::{ReplayIteration, ReplayRun};
use crate::loops::{self, Trigger, VerificationStatus};
use crate::value::Result;
use crate::value::{self, Naming, ObjectBuilder, Value};

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

/// The replay proper, over a run and a policy already validated: the stop from the hot
/// path ([`kernel::play`]), worded and measured against the run.
fn replay_checked(run: &ReplayRun, policy: &LoopPolicy) -> RunOutcome {
    let Played { stop_index, stop, composed_reason, returned_iteration } = kernel::play(run, policy);
    let stop = stop.map(|details| {
        let reason = composed_reason.unwrap_or_else(|| loops::stop_reason(&policy.config, &details));
        (loops::stop_trigger(&details), reason)
    });
    let n = run.iterations.len();
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
        Some((trigger, reason)) => (true, trigger, Some(reason)),
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
        self.runs += 1;
        self.iterations_available += outcome.iterations_available;
        self.iterations_used += outcome.iterations_run;
        self.returned_quality_sum += outcome.returned_quality;
        self.best_quality_sum += outcome.best_quality;
        self.premature_stops += u64::from(outcome.premature);
        self.wasted_iterations += outcome.wasted_iterations;
        self.returned_good += u64::from(outcome.returned_good);
        self.reachable_good += u64::from(run.iterations.iter().any(ReplayIteration::is_good));
        self.false_passes += u64::from(outcome.false_pass);
        if outcome.stopped {
            if let Some(slot) = self.triggers.iter_mut().find(|(t, _)| *t == outcome.trigger) {
                slot.1 += 1;
            }
        } else {
            self.ended_without_stop += 1;
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
            // Detector and progress conditions' triggers only once one stopped a run, so a
            // replay without them keeps its summary's keys.
            let opt_in = matches!(
                t,
                Trigger::BehaviorPause
                    | Trigger::BehaviorAbort
                    | Trigger::Completed
                    | Trigger::Unchanged
                    | Trigger::Revisit
            );
            if *n == 0 && opt_in {
                continue;
            }
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
pub struct LoopReplayStream {
    policy: LoopPolicy,
    summary: ReplaySummary,
}

impl LoopReplayStream {
    /// A stream replaying `policy` (validated).
    pub fn new(policy: LoopPolicy) -> Result<Self> {
        policy.validate()?;
        Ok(LoopReplayStream { policy, summary: ReplaySummary::empty() })
    }

    /// [`LoopReplayStream::new`] from a host value (see [`LoopPolicy::from_value`]).
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
///
/// Two recorded runs under the `recommended` preset: the first passes verification with
/// high confidence at its second iteration; the second never gets there, and its best
/// iteration is returned when the recording ends:
///
/// ```
/// use earlyexit::loops::replay::{replay_loops, runs_from_value, LoopPolicy};
/// use earlyexit::{ErrorCode, Naming, Trigger, Value};
///
/// let runs = Value::parse_json(
///     r#"[
///         {"id": "fixed", "iterations": [
///             {"quality_score": 40, "confidence": 0.5, "verification_status": "failed"},
///             {"quality_score": 92, "confidence": 0.97, "verification_status": "passed"},
///             {"quality_score": 93, "confidence": 0.98, "verification_status": "passed"}]},
///         {"id": "stuck", "iterations": [
///             {"quality_score": 10, "confidence": 0.3, "verification_status": "failed"},
///             {"quality_score": 35, "confidence": 0.4, "verification_status": "failed"},
///             {"quality_score": 20, "confidence": 0.4, "verification_status": "failed"}]}
///     ]"#,
///     ErrorCode::InvalidReplay,
///     "runs",
/// )?;
/// let runs = runs_from_value(&runs, Naming::Snake)?; // or JSONL text: `parse_jsonl`
/// let replay = replay_loops(&runs, &LoopPolicy::recommended())?;
/// let [fixed, stuck] = [&replay.outcomes[0], &replay.outcomes[1]];
/// assert_eq!((fixed.stopped, fixed.trigger, fixed.iterations_run), (true, Trigger::HighConfidence, 2));
/// assert_eq!((stuck.stopped, stuck.returned_iteration, stuck.returned_quality), (false, 2, 35.0));
/// assert_eq!(replay.summary.runs, 2);
/// # Ok::<(), earlyexit::Error>(())
/// ```
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
