//! The loop-stopping engine as stateless functions over a compact decision state.
//!
//! A decision never needs the whole history: it reads the counters folded in record by
//! record ([`LoopCounters`]: how many were recorded, the best so far, the budget sums and
//! the regression streak) and the last `plateauConsecutiveCount` observations (an
//! [`ObservationWindow`]). So a binding may keep that state in a buffer it owns (the JS
//! layer keeps it in a `Float64Array`, see `bindings/js/fast/src/fast.rs`) and call
//! [`fold`] and [`verdict`] without a native object per engine, while the owning
//! [`EarlyStopping`](crate::EarlyStopping) keeps the same state in plain fields and calls
//! the very same functions. Decisions cost O(window), not O(history).
//!
//! [`verdict`] answers with numbers only ([`Verdict`]); [`decision`] turns a verdict into
//! the seed's [`StoppingDecision`] with its reason text, so a binding that caches reason
//! strings builds no string on the hot path.

use std::collections::VecDeque;

use crate::loops::config::EarlyStoppingConfig;
use crate::loops::decision::{self, StoppingDecision};
use crate::loops::details::{DiminishingReturnsReport, StoppingDetails};
use crate::loops::records::{Observation, ResourceUsage};
use crate::loops::stopping::{self, BestIteration, LoopTally};
use crate::value::{check_integer, check_range, MAX_SAFE_INTEGER};

/// The last observations of an engine, oldest first: what the plateau rule reads.
pub trait ObservationWindow {
    /// How many observations the window holds (at most `plateauConsecutiveCount`).
    fn len(&self) -> usize;
    /// Observation `i`, 0 being the oldest held.
    fn get(&self, i: usize) -> Option<Observation>;
    /// Whether the window is empty (nothing recorded yet).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The newest observation.
    fn last(&self) -> Option<Observation> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }
}

/// A window that can take a new observation, dropping the oldest beyond `capacity`.
pub trait ObservationWindowMut: ObservationWindow {
    /// Appends `observation`, keeping at most `capacity` (>= 1) observations.
    fn push(&mut self, observation: Observation, capacity: usize);
}

impl ObservationWindow for VecDeque<Observation> {
    fn len(&self) -> usize {
        VecDeque::len(self)
    }

    fn get(&self, i: usize) -> Option<Observation> {
        VecDeque::get(self, i).copied()
    }
}

impl ObservationWindowMut for VecDeque<Observation> {
    fn push(&mut self, observation: Observation, capacity: usize) {
        while VecDeque::len(self) >= capacity.max(1) {
            self.pop_front();
        }
        self.push_back(observation);
    }
}

impl<R: AsRef<Observation>> ObservationWindow for [R] {
    fn len(&self) -> usize {
        <[R]>::len(self)
    }

    fn get(&self, i: usize) -> Option<Observation> {
        <[R]>::get(self, i).map(|r| *r.as_ref())
    }
}

/// The counters a decision reads, each folded in O(1) per record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoopCounters {
    /// How many records were folded in.
    pub recorded: u64,
    /// The best record so far.
    pub best: BestIteration,
    /// Budget sums, peak quality and regression streak.
    pub tally: LoopTally,
}

/// How many observations the window keeps under `config` (`plateauConsecutiveCount`).
#[inline]
pub fn window_capacity(config: &EarlyStoppingConfig) -> usize {
    usize::try_from(config.plateau_consecutive_count).unwrap_or(usize::MAX)
}

/// Whether a record given as plain numbers is valid: the same checks
/// [`EarlyStopping::record_value`](crate::EarlyStopping::record_value) makes on a record
/// whose fields have the right types (`iteration` an integer >= 1; quality 0..=100;
/// confidence 0..=1; a finite delta; usage finite and >= 0; `iteration_number`, when
/// given, equal to `iteration`). A binding calls this on its fast path and asks the full
/// validation for the error message only when it answers `false`.
#[inline]
pub fn record_is_valid(
    iteration: f64,
    observation_numbers: [f64; 3],
    usage: &ResourceUsage,
    iteration_number: Option<f64>,
) -> bool {
    let [quality_score, confidence, quality_delta] = observation_numbers;
    let Some(iteration) = check_integer(iteration, 1, MAX_SAFE_INTEGER) else { return false };
    let usage_ok = [usage.tokens_used, usage.token_cost_usd, usage.execution_time_ms]
        .into_iter()
        .all(|v| v.is_none_or(|v| check_range(v, 0.0, f64::MAX).is_some()));
    check_range(quality_score, 0.0, 100.0).is_some()
        && check_range(confidence, 0.0, 1.0).is_some()
        && quality_delta.is_finite()
        && usage_ok
        && iteration_number.is_none_or(|n| check_integer(n, 1, MAX_SAFE_INTEGER) == Some(iteration))
}

/// Folds one (validated) record into the counters and the window.
#[inline]
pub fn fold(
    config: &EarlyStoppingConfig,
    counters: &mut LoopCounters,
    window: &mut impl ObservationWindowMut,
    observation: Observation,
    usage: Option<&ResourceUsage>,
) {
    counters.recorded += 1;
    counters.best.observe(&observation, config.min_quality_threshold);
    counters.tally.observe(&observation, usage, config.regression_tolerance);
    window.push(observation, window_capacity(config));
}

/// What a decision concluded, as numbers (no reason text yet; see [`decision`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Nothing recorded yet: go on.
    NoIterations,
    /// Opt-in warm-up: `recorded` of `min` iterations so far; go on.
    WarmUp {
        /// Iterations recorded.
        recorded: u64,
        /// `minIterations`.
        min: u64,
    },
    /// No criterion stopped: go on.
    Continue,
    /// A criterion stopped; the details say which.
    Stop(StoppingDetails),
}

/// The seed's three check methods (`checkHighConfidence`, `checkQualityPlateau`,
/// `checkDiminishingReturns`), which a binding may let its users override: a decision then
/// hands each one that is overridden back to the binding at its place in the order
/// ([`Step::Delegate`]), and the binding calls the override.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedCheck {
    /// `checkHighConfidence(lastRecord)`.
    HighConfidence,
    /// `checkQualityPlateau()` (only when plateau detection is enabled).
    QualityPlateau,
    /// `checkDiminishingReturns()` (only when enabled and a source is attached).
    DiminishingReturns,
}

impl SeedCheck {
    /// Its bit in a `delegated` mask of [`verdict_from`].
    pub const fn bit(self) -> u8 {
        match self {
            SeedCheck::HighConfidence => 1,
            SeedCheck::QualityPlateau => 2,
            SeedCheck::DiminishingReturns => 4,
        }
    }
}

/// Where [`verdict_from`] got to.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// The decision.
    Done(Verdict),
    /// A delegated check is next: the binding runs it; if its answer does not stop, it asks
    /// again from `resume` (the checks before it did not stop and need not run again).
    Delegate {
        /// Which check.
        check: SeedCheck,
        /// The position to resume from.
        resume: usize,
    },
}

/// The seed's `shouldStop()` decision over the compact state, in the order of checks the
/// [`loops`](crate::loops) module documents. `source` is asked (at most once) only when nothing
/// before the diminishing-returns check stopped and `enable_diminishing_returns` is on.
pub fn verdict<E, F>(
    config: &EarlyStoppingConfig,
    counters: &LoopCounters,
    window: &(impl ObservationWindow + ?Sized),
    source: Option<F>,
) -> std::result::Result<Verdict, E>
where
    F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
{
    match verdict_from(config, counters, window, source, 0, 0)? {
        Step::Done(verdict) => Ok(verdict),
        // Nothing is delegated with an empty mask.
        Step::Delegate { .. } => Ok(Verdict::Continue),
    }
}

/// [`verdict`] from position `start` of the order on, with the seed's checks whose bits are
/// in `delegated` ([`SeedCheck::bit`]) handed back to the caller instead of run (a
/// delegated diminishing-returns check does not ask `source`).
pub fn verdict_from<E, F>(
    config: &EarlyStoppingConfig,
    counters: &LoopCounters,
    window: &(impl ObservationWindow + ?Sized),
    source: Option<F>,
    delegated: u8,
    start: usize,
) -> std::result::Result<Step, E>
where
    F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
{
    let Some(last) = window.last() else { return Ok(Step::Done(Verdict::NoIterations)) };
    let recorded = counters.recorded;
    let stop = |details| Ok(Step::Done(Verdict::Stop(details)));
    // The order, once: each step's position is what a delegated check resumes after.
    let delegate = |check: SeedCheck, resume| Ok(Step::Delegate { check, resume });
    let delegated = |check: SeedCheck| delegated & check.bit() != 0;
    // 0, 1. Hard limits first: a spent budget or the iteration cap stops whatever the quality.
    if start == 0 {
        if let Some(details) = stopping::budget_details(&counters.tally.budgets(config)) {
            return stop(details);
        }
    }
    if start <= 1 {
        if let Some(details) = stopping::max_iterations_details(config, recorded) {
            return stop(details);
        }
    }
    // 2. Warm-up gates every quality trigger (and the outside source is not asked).
    if start <= 2 {
        if let Some(min) = stopping::warm_up_min(config, recorded) {
            return Ok(Step::Done(Verdict::WarmUp { recorded, min }));
        }
    }
    // 3. High confidence on the last record.
    if start <= 3 {
        if delegated(SeedCheck::HighConfidence) {
            return delegate(SeedCheck::HighConfidence, 4);
        }
        if let Some(details) = stopping::high_confidence_details(config, &last) {
            return stop(details);
        }
    }
    // 4. The plateau, if enabled.
    if start <= 4 && config.enable_plateau_detection {
        if delegated(SeedCheck::QualityPlateau) {
            return delegate(SeedCheck::QualityPlateau, 5);
        }
        if let Some(details) = stopping::plateau_details(config, window) {
            return stop(details);
        }
    }
    // 5, 6. The options' give-up rules.
    if start <= 5 {
        if let Some(details) = stopping::regression_details(config, &counters.tally) {
            return stop(details);
        }
    }
    if start <= 6 {
        if let Some(details) = stopping::no_improvement_details(config, &counters.tally) {
            return stop(details);
        }
    }
    // 7. Diminishing returns from the outside source, if enabled and one is attached.
    if start <= 7 && config.enable_diminishing_returns {
        if let Some(source) = source {
            if delegated(SeedCheck::DiminishingReturns) {
                return delegate(SeedCheck::DiminishingReturns, 8);
            }
            if let Some(details) = stopping::diminishing_returns_details(&source()?) {
                return stop(details);
            }
        }
    }
    Ok(Step::Done(Verdict::Continue))
}

/// The decision object for a verdict: reason text, confidence, trigger and details, plus
/// the best iteration and the budgets from the counters.
pub fn decision(config: &EarlyStoppingConfig, counters: &LoopCounters, verdict: Verdict) -> StoppingDecision {
    let mut decision = bare_decision(config, verdict);
    decision.best = counters.best.get();
    decision.budgets = counters.tally.budgets(config);
    decision
}

/// The decision object for a verdict without the best-iteration and budget extras (what a
/// replay reads: stop, trigger, reason).
pub fn bare_decision(config: &EarlyStoppingConfig, verdict: Verdict) -> StoppingDecision {
    let confidence = verdict_confidence(&verdict);
    let reason = verdict_reason(config, &verdict);
    match verdict {
        Verdict::Stop(details) => StoppingDecision::stop(reason, confidence, stopping::stop_trigger(&details), details),
        _ => StoppingDecision::go_on(&reason, confidence),
    }
}

/// The reason text of a verdict (the seed's wording; for diminishing returns it quotes the
/// source's reason from the details).
pub fn verdict_reason(config: &EarlyStoppingConfig, verdict: &Verdict) -> String {
    match verdict {
        Verdict::NoIterations => decision::REASON_NO_ITERATIONS.to_string(),
        Verdict::WarmUp { recorded, min } => warm_up_reason(*recorded, *min),
        Verdict::Continue => decision::REASON_CONTINUE.to_string(),
        Verdict::Stop(details) => stopping::stop_reason(config, details),
    }
}

/// Whether a diminishing-returns report's `iteration` number is valid (an integer >= 1),
/// as [`DiminishingReturnsReport::from_value`] checks it.
pub fn report_iteration_is_valid(iteration: f64) -> bool {
    check_integer(iteration, 1, MAX_SAFE_INTEGER).is_some()
}

/// The confidence of the decision a verdict makes (the seed's constants).
#[inline]
pub fn verdict_confidence(verdict: &Verdict) -> f64 {
    match verdict {
        Verdict::NoIterations | Verdict::WarmUp { .. } => 1.0,
        Verdict::Continue => 0.7,
        Verdict::Stop(details) => stopping::stop_confidence(details),
    }
}

/// `'Warm-up: iteration N of M'`.
pub fn warm_up_reason(recorded: u64, min: u64) -> String {
    crate::value::concat(&[
        "Warm-up: iteration ",
        &crate::num::uint_string(recorded),
        " of ",
        &crate::num::uint_string(min),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::{IterationResult, Trigger};
    use crate::{EarlyStopping, VerificationStatus};

    /// The replay's `decide_over` (a history slice) and the owning engine (counters and a
    /// window) decide through the same `verdict`: same stop, trigger and reason at every step,
    /// for the presets' options too (plateau gate, no-improvement give-up, regression, warm-up).
    #[test]
    fn replay_and_engine_share_one_order() {
        let mut configs = vec![EarlyStoppingConfig::recommended(), EarlyStoppingConfig::default()];
        configs.push(EarlyStoppingConfig {
            min_iterations: Some(2),
            regression_tolerance: Some(5.0),
            no_improvement_patience: Some(3),
            plateau_min_quality: Some(60.0),
            ..EarlyStoppingConfig::default()
        });
        let qualities = [0.0, 0.0, 55.0, 80.0, 70.0, 71.0, 71.5, 71.0, 40.0, 39.0, 38.0, 38.0, 38.0];
        for config in configs {
            let mut engine = EarlyStopping::new(config.clone()).unwrap_or_else(|e| panic!("{e:?}"));
            let mut tally = LoopTally::default();
            let mut history: Vec<Observation> = Vec::new();
            let mut previous = 0.0;
            let mut triggers = Vec::new();
            for (i, q) in qualities.iter().enumerate() {
                let iteration = i as u64 + 1;
                let result = IterationResult::new(*q, 0.5, VerificationStatus::Failed, q - previous);
                previous = *q;
                engine
                    .record(iteration, result, || "2026-01-01T00:00:00.000Z".to_string())
                    .unwrap_or_else(|e| panic!("{e:?}"));
                let o = engine.history()[i].observation;
                tally.observe(&o, None, config.regression_tolerance);
                history.push(o);
                let none = None::<fn() -> Result<DiminishingReturnsReport, ()>>;
                let replayed = stopping::decide_over(&config, &history, &tally, none).unwrap_or_else(|()| panic!());
                let decided = engine.should_stop();
                assert_eq!(
                    (replayed.stop, replayed.trigger, &replayed.reason),
                    (decided.stop, decided.trigger, &decided.reason)
                );
                triggers.push(decided.trigger);
            }
            if config.no_improvement_patience == Some(5) {
                assert!(triggers.contains(&Trigger::NoImprovement), "{triggers:?}");
                assert!(!triggers.contains(&Trigger::QualityPlateau), "{triggers:?}");
            }
        }
    }
}
