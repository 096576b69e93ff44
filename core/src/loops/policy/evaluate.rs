//! Deciding under a stop policy: [`PolicyState`] (what the conditions read, folded record by
//! record) and [`decide_policy`] (the condition tree evaluated lazily over it).
//!
//! Cost: a fold is O(1) per distinct regression tolerance in the tree; a decision visits each
//! condition at most once and each leaf reads O(its window) (a plateau its `count` records,
//! every other leaf O(1)), so a decision is O(sum of the conditions' windows), never
//! O(history).

use std::collections::VecDeque;

use crate::loops::behavior::{determine_level, BehaviorIteration, Detection, Effect, HistoryView, LOGGED_ACTION};

use crate::loops::config::EarlyStoppingConfig;
use crate::loops::decision::{ConditionIntervention, FiredCondition, StoppingDecision};
use crate::loops::details::{DiminishingReturnsReport, StoppingDetails};
use crate::loops::policy::condition::{BehaviorCondition, StopCondition};
use crate::loops::records::{Observation, ResourceUsage};
use crate::loops::rules::{
    budget_details, diminishing_returns_details, high_confidence_details, max_iterations_details,
    no_improvement_details, plateau_details, regression_details, stop_confidence, stop_reason, stop_trigger,
};
use crate::loops::state::{regression_streak, BestIteration, LoopTally, ObservationWindow, ObservationWindowMut};
use crate::loops::verdict::{verdict_confidence, verdict_reason, Verdict};
use crate::value;

/// What a policy's conditions read, folded in record by record: the count, the best
/// iteration, the usage sums and the peak ([`LoopTally`]), one regression streak per distinct
/// tolerance in the tree, and the last `window` observations (the longest plateau's count).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyState {
    /// Records folded in.
    pub recorded: u64,
    /// The best record so far (the decision's `best_iteration`).
    pub best: BestIteration,
    /// Usage sums, peak quality, records since the peak.
    pub tally: LoopTally,
    /// `(tolerance, streak)`: records in a row more than `tolerance` below the peak before them.
    pub streaks: Vec<(f64, u64)>,
    /// The last observations, oldest first.
    pub window: VecDeque<Observation>,
    capacity: usize,
    /// Detector conditions only: the first record's behaviour fields.
    pub behavior_first: Option<BehaviorIteration>,
    /// Detector conditions only: the last records' behaviour fields, oldest first (between
    /// `behavior_capacity` and twice that many once that many are recorded: trimmed in
    /// batches, O(1) amortized per record).
    pub behavior: Vec<BehaviorIteration>,
    behavior_capacity: usize,
    /// Progress conditions only (`completed`, `unchanged`, `revisit`): what they read.
    pub progress: Option<ProgressState>,
}

/// What the progress conditions read, folded record by record: the last record's
/// `completed`, the run of equal fingerprints ending at the last record, and the last
/// records' fingerprints (the longest `revisit` window plus one; O(that window) memory).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProgressState {
    /// Whether the last record reported `completed: true`.
    pub completed: bool,
    /// How many records in a row, ending at the last, carry the last record's fingerprint
    /// (0 when it has none).
    pub run: u64,
    /// The iteration of the first record of that run.
    pub run_start: u64,
    /// `(iteration, fingerprint)` of the last records, oldest first (at most `capacity`).
    pub recent: VecDeque<(u64, Option<Box<str>>)>,
    capacity: usize,
}

impl ProgressState {
    /// The empty state keeping `capacity` (>= 1) fingerprints.
    pub fn new(capacity: usize) -> Self {
        ProgressState { capacity: capacity.max(1), ..ProgressState::default() }
    }

    /// How many fingerprints it keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Folds one record in: O(1) amortized.
    pub fn observe(&mut self, iteration: u64, behavior: Option<&BehaviorIteration>) {
        let fingerprint = behavior.and_then(|b| b.fingerprint.as_deref());
        self.completed = behavior.and_then(|b| b.completed) == Some(true);
        let last = self.recent.back().and_then(|(_, f)| f.as_deref());
        match (fingerprint, last) {
            (Some(now), Some(before)) if now == before && self.run > 0 => self.run += 1,
            (Some(_), _) => {
                self.run = 1;
                self.run_start = iteration;
            }
            (None, _) => {
                self.run = 0;
                self.run_start = 0;
            }
        }
        while self.recent.len() >= self.capacity {
            self.recent.pop_front();
        }
        self.recent.push_back((iteration, fingerprint.map(Box::from)));
    }

    /// The last record's fingerprint, if it has one.
    pub fn last_fingerprint(&self) -> Option<&str> {
        self.recent.back().and_then(|(_, f)| f.as_deref())
    }

    /// `revisit(window)`: the latest record among t-window..t-2 carrying the last record's
    /// fingerprint (its iteration), the records of the run of that fingerprint ending at t
    /// aside. O(window).
    pub fn revisited(&self, window: u64) -> Option<u64> {
        let now = self.last_fingerprint()?;
        let len = self.recent.len();
        let window = usize::try_from(window).unwrap_or(usize::MAX);
        let oldest = len.saturating_sub(1).saturating_sub(window);
        // Exclusive: t-1 is never a revisit, nor any record of the run of equal fingerprints
        // ending at t (A, A, A is `unchanged`); a revisit comes back after something else.
        let run = usize::try_from(self.run).unwrap_or(usize::MAX);
        let newest = len.checked_sub(2)?.min(len.saturating_sub(run));
        if oldest >= newest {
            return None;
        }
        self.recent
            .range(oldest..newest)
            .rev()
            .find(|(_, f)| f.as_deref() == Some(now))
            .map(|(iteration, _)| *iteration)
    }
}

impl PolicyState {
    /// The empty state for `when`.
    pub fn new(when: &StopCondition) -> Self {
        let mut streaks = Vec::new();
        let mut capacity = 1;
        let mut behavior_capacity = 0;
        let mut progress: Option<usize> = None;
        visit(when, &mut |c| match c {
            StopCondition::Completed | StopCondition::Unchanged { .. } => {
                progress = Some(progress.unwrap_or(1));
            }
            StopCondition::Revisit { window } => {
                let keep = usize::try_from(*window).unwrap_or(usize::MAX).saturating_add(1);
                progress = Some(progress.unwrap_or(1).max(keep));
            }
            StopCondition::Behavior(b) => {
                behavior_capacity = behavior_capacity.max(usize::try_from(b.window()).unwrap_or(usize::MAX));
            }
            StopCondition::QualityRegression { tolerance, .. } if !streaks.iter().any(|(t, _)| t == tolerance) => {
                streaks.push((*tolerance, 0));
            }
            StopCondition::QualityPlateau { count, .. } => {
                capacity = capacity.max(usize::try_from(*count).unwrap_or(usize::MAX));
            }
            _ => {}
        });
        PolicyState {
            recorded: 0,
            best: BestIteration::default(),
            tally: LoopTally::default(),
            streaks,
            window: VecDeque::new(),
            capacity,
            behavior_first: None,
            behavior: Vec::new(),
            behavior_capacity,
            progress: progress.map(ProgressState::new),
        }
    }

    /// How many of the last records' behaviour fields the state keeps (the longest detector
    /// condition's window; 0 without one).
    pub fn behavior_capacity(&self) -> usize {
        self.behavior_capacity
    }

    /// Folds one record's behaviour fields in (no-op without a detector condition).
    fn observe_behavior(&mut self, iteration: u64, behavior: Option<&BehaviorIteration>) {
        let capacity = self.behavior_capacity;
        if capacity == 0 {
            return;
        }
        let mut entry = behavior.cloned().unwrap_or_default();
        entry.number = Some(iteration);
        if self.behavior_first.is_none() {
            self.behavior_first = Some(entry.clone());
        }
        self.behavior.push(entry);
        if self.behavior.len() >= capacity.saturating_mul(2) {
            let excess = self.behavior.len() - capacity;
            self.behavior.drain(..excess);
        }
    }

    /// The detector's view: the first record (with the condition's context), the count and
    /// the last `behavior_capacity` records. O(the condition's window).
    pub fn detect(&self, condition: &BehaviorCondition) -> Option<Detection> {
        let mut first = self.behavior_first.clone()?;
        first.objective = condition.objective.clone();
        first.max_iterations = condition.max_iterations;
        let from = self.behavior.len().saturating_sub(self.behavior_capacity);
        let view = HistoryView {
            first: Some(&first),
            recent: self.behavior.get(from..).unwrap_or_default(),
            len: usize::try_from(self.recorded).unwrap_or(usize::MAX),
        };
        condition.detector.run_view(&view, &condition.thresholds)
    }

    /// How many observations the state keeps.
    pub fn window_capacity(&self) -> usize {
        self.capacity
    }

    /// Folds one (validated) record in; `min_quality_threshold` is the bar of the best
    /// iteration (the engine config's).
    pub fn observe(
        &mut self,
        observation: Observation,
        usage: Option<&ResourceUsage>,
        behavior: Option<&BehaviorIteration>,
        min_quality_threshold: f64,
    ) {
        let (q, peak) = (observation.quality_score, self.tally.peak);
        for (tolerance, streak) in &mut self.streaks {
            *streak = regression_streak(*streak, q, peak, Some(*tolerance));
        }
        self.recorded += 1;
        self.best.observe(&observation, min_quality_threshold);
        self.tally.observe(&observation, usage, None);
        self.window.push(observation, self.capacity);
        self.observe_behavior(observation.iteration, behavior);
        if let Some(progress) = &mut self.progress {
            progress.observe(observation.iteration, behavior);
        }
    }

    fn streak(&self, tolerance: f64) -> u64 {
        self.streaks.iter().find(|(t, _)| *t == tolerance).map_or(0, |(_, s)| *s)
    }
}

fn visit(c: &StopCondition, f: &mut impl FnMut(&StopCondition)) {
    f(c);
    for child in c.children() {
        visit(child, f);
    }
}

/// What a decision under a policy concluded: the verdict (the first fired condition's
/// details on a stop) and every condition that fired.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyVerdict {
    /// As `verdict` answers.
    pub verdict: Verdict,
    /// The conditions that fired, in evaluation order (empty unless it stops).
    pub fired: Vec<FiredCondition>,
    /// The detections of the detector conditions evaluation reached, in its order, each
    /// with its intervention (whether it stopped or not).
    pub interventions: Vec<ConditionIntervention>,
}

/// A position in the tree, rendered only for a condition that fires.
struct At<'a> {
    parent: Option<&'a At<'a>>,
    key: &'static str,
    index: Option<usize>,
}

impl At<'_> {
    fn render(&self) -> String {
        let mut path = self.parent.map_or_else(String::new, At::render);
        if !self.key.is_empty() {
            path = value::join_path(&path, self.key);
        }
        match self.index {
            Some(i) => value::index_path(&path, i),
            None => path,
        }
    }
}

struct Eval<'s, F> {
    state: &'s PolicyState,
    source: Option<F>,
    report: Option<DiminishingReturnsReport>,
    gate: Option<(u64, u64)>,
    fired: Vec<FiredCondition>,
    interventions: Vec<ConditionIntervention>,
}

impl<F, E> Eval<'_, F>
where
    F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
{
    fn eval(&mut self, c: &StopCondition, at: &At<'_>) -> std::result::Result<bool, E> {
        match c {
            StopCondition::Any(of) => {
                for (i, child) in of.iter().enumerate() {
                    if self.eval(child, &At { parent: Some(at), key: "any", index: Some(i) })? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            StopCondition::All(of) => {
                let mark = self.fired.len();
                for (i, child) in of.iter().enumerate() {
                    if !self.eval(child, &At { parent: Some(at), key: "all", index: Some(i) })? {
                        self.fired.truncate(mark);
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            StopCondition::KOf { k, of } => {
                let mark = self.fired.len();
                let mut count = 0u64;
                for (i, child) in of.iter().enumerate() {
                    if count + ((of.len() - i) as u64) < *k {
                        break; // too few left to reach k: the rest is not evaluated
                    }
                    if self.eval(child, &At { parent: Some(at), key: "of", index: Some(i) })? {
                        count += 1;
                        if count >= *k {
                            return Ok(true);
                        }
                    }
                }
                self.fired.truncate(mark);
                Ok(false)
            }
            StopCondition::NotBefore { iterations, then } => {
                if self.state.recorded < *iterations {
                    self.gate.get_or_insert((self.state.recorded, *iterations));
                    return Ok(false);
                }
                self.eval(then, &At { parent: Some(at), key: "then", index: None })
            }
            StopCondition::Behavior(b) => Ok(self.behavior(b, c, at)),
            leaf => {
                let config = leaf.leaf_config();
                let Some(details) = self.leaf_details(leaf, &config)? else { return Ok(false) };
                let Some(kind) = leaf.kind() else { return Ok(false) };
                let reason = stop_reason(&config, &details);
                self.fired.push(FiredCondition { condition: kind, path: at.render(), reason, details });
                Ok(true)
            }
        }
    }

    /// A detector condition: its detection (if any) is reported with its intervention; it
    /// fires when the intervention's level is at least the condition's `stop_at`.
    fn behavior(&mut self, b: &BehaviorCondition, c: &StopCondition, at: &At<'_>) -> bool {
        let (Some(detection), Some(condition)) = (self.state.detect(b), c.kind()) else { return false };
        let level = determine_level(&detection);
        let stop = level.index() >= b.stop_at.index();
        // The detectors always write the evidence a strategy override reads, so this holds.
        let effect = Effect::of(&detection, "detection").unwrap_or(Effect::Log { action: LOGGED_ACTION.to_string() });
        let path = at.render();
        self.interventions.push(ConditionIntervention {
            condition,
            path: path.clone(),
            stop,
            detection: detection.clone(),
            effect,
        });
        if stop {
            // Every detector writes a message.
            let reason = detection.message.clone().unwrap_or_default();
            let details = StoppingDetails::Behavior { level, detection: Box::new(detection) };
            self.fired.push(FiredCondition { condition, path, reason, details });
        }
        stop
    }

    fn leaf_details(
        &mut self,
        leaf: &StopCondition,
        config: &EarlyStoppingConfig,
    ) -> std::result::Result<Option<StoppingDetails>, E> {
        let state = self.state;
        Ok(match leaf {
            StopCondition::HighConfidence { .. } => {
                state.window.last().and_then(|last| high_confidence_details(config, &last))
            }
            StopCondition::QualityPlateau { .. } => plateau_details(config, &state.window),
            StopCondition::DiminishingReturns => {
                if self.report.is_none() {
                    // Asked at most once per decision, and only when evaluation gets here.
                    if let Some(source) = self.source.take() {
                        self.report = Some(source()?);
                    }
                }
                self.report.as_ref().and_then(diminishing_returns_details)
            }
            StopCondition::Budget { .. } => budget_details(&state.tally.budgets(config)),
            StopCondition::MaxIterations { .. } => max_iterations_details(config, state.recorded),
            StopCondition::QualityRegression { tolerance, .. } => {
                let tally = LoopTally { regression_streak: state.streak(*tolerance), ..state.tally };
                regression_details(config, &tally)
            }
            StopCondition::NoImprovement { .. } | StopCondition::FloorPatience { .. } => {
                no_improvement_details(config, &state.tally)
            }
            StopCondition::Completed => state.progress.as_ref().filter(|p| p.completed).and_then(|_| {
                state.window.last().map(|last| StoppingDetails::Completed { completed_iteration: last.iteration })
            }),
            StopCondition::Unchanged { k } => state.progress.as_ref().and_then(|p| {
                let fingerprint = p.last_fingerprint()?;
                (p.run > *k).then(|| StoppingDetails::Unchanged {
                    fingerprint: fingerprint.to_string(),
                    since_iteration: p.run_start,
                    k: *k,
                })
            }),
            StopCondition::Revisit { window } => state.progress.as_ref().and_then(|p| {
                let first_seen_iteration = p.revisited(*window)?;
                Some(StoppingDetails::Revisit {
                    fingerprint: p.last_fingerprint()?.to_string(),
                    first_seen_iteration,
                    window: *window,
                })
            }),
            _ => None,
        })
    }
}

/// Decides under `when` over `state`: nothing recorded goes on ('No iterations completed
/// yet'); else the tree is evaluated lazily in order (`source` asked at most once, only when
/// a `diminishing_returns` condition is reached); a stop names the first fired condition's
/// trigger; without a stop, a `not_before` gate that held reads 'Warm-up: iteration N of M'.
pub fn decide_policy<E, F>(
    when: &StopCondition,
    state: &PolicyState,
    source: Option<F>,
) -> std::result::Result<PolicyVerdict, E>
where
    F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
{
    if state.window.is_empty() {
        return Ok(PolicyVerdict { verdict: Verdict::NoIterations, fired: Vec::new(), interventions: Vec::new() });
    }
    let mut eval = Eval { state, source, report: None, gate: None, fired: Vec::new(), interventions: Vec::new() };
    eval.eval(when, &At { parent: None, key: "", index: None })?;
    let verdict = match (eval.fired.first(), eval.gate) {
        (Some(first), _) => Verdict::Stop(first.details.clone()),
        (None, Some((recorded, min))) => Verdict::WarmUp { recorded, min },
        (None, None) => Verdict::Continue,
    };
    Ok(PolicyVerdict { verdict, fired: eval.fired, interventions: eval.interventions })
}

/// The decision object of a policy verdict: on a stop the first fired condition's trigger,
/// confidence and details, and the fired conditions' reasons joined by ' AND '; the best
/// iteration from `state`, the budgets of `config` (the engine's), and `fired`.
pub fn policy_decision(config: &EarlyStoppingConfig, state: &PolicyState, verdict: PolicyVerdict) -> StoppingDecision {
    let PolicyVerdict { verdict, fired, interventions } = verdict;
    let confidence = verdict_confidence(&verdict);
    let mut decision = match verdict {
        Verdict::Stop(details) => {
            let mut reasons: Vec<&str> = Vec::with_capacity(fired.len());
            for f in &fired {
                reasons.push(&f.reason);
            }
            let reason = value::join(&reasons, " AND ");
            StoppingDecision::stop(reason, stop_confidence(&details), stop_trigger(&details), details)
        }
        other => StoppingDecision::go_on(&verdict_reason(config, &other), confidence),
    };
    decision.best = state.best.get();
    decision.budgets = state.tally.budgets(config);
    decision.fired = Some(fired);
    decision.interventions = interventions;
    decision
}
