//! The order of checks, written once: [`verdict`] decides over the compact state (see the
//! [`loops`](crate::loops) module for the order and why), and the owning engine, the replay
//! ([`decide_over`]) and the JS fast path (`bindings/js/fast`) all call it, so they cannot drift.
//!
//! [`verdict`] answers with numbers only ([`Verdict`]); [`decision`] turns a verdict into
//! upstream's [`StoppingDecision`] with its reason text, so a binding that caches reason
//! strings builds no string on the hot path.

use crate::loops::config::EarlyStoppingConfig;
use crate::loops::decision::{StoppingDecision, REASON_CONTINUE, REASON_NO_ITERATIONS};
use crate::loops::details::{DiminishingReturnsReport, StoppingDetails};
use crate::loops::records::Observation;
use crate::loops::rules::{
    budget_details, diminishing_returns_details, high_confidence_details, max_iterations_details,
    no_improvement_details, plateau_details, regression_details, stop_confidence, stop_reason, stop_trigger,
    warm_up_min, warm_up_reason,
};
use crate::loops::state::{BestIteration, LoopCounters, LoopTally, ObservationWindow};

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

/// Upstream's three check methods (`checkHighConfidence`, `checkQualityPlateau`,
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

/// Upstream's `shouldStop()` decision over the compact state, in the order of checks the
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

/// [`verdict`] from position `start` of the order on, with upstream's checks whose bits are
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
        if let Some(details) = budget_details(&counters.tally.budgets(config)) {
            return stop(details);
        }
    }
    if start <= 1 {
        if let Some(details) = max_iterations_details(config, recorded) {
            return stop(details);
        }
    }
    // 2. Warm-up gates every quality trigger (and the outside source is not asked).
    if start <= 2 {
        if let Some(min) = warm_up_min(config, recorded) {
            return Ok(Step::Done(Verdict::WarmUp { recorded, min }));
        }
    }
    // 3. High confidence on the last record.
    if start <= 3 {
        if delegated(SeedCheck::HighConfidence) {
            return delegate(SeedCheck::HighConfidence, 4);
        }
        if let Some(details) = high_confidence_details(config, &last) {
            return stop(details);
        }
    }
    // 4. The plateau, if enabled.
    if start <= 4 && config.enable_plateau_detection {
        if delegated(SeedCheck::QualityPlateau) {
            return delegate(SeedCheck::QualityPlateau, 5);
        }
        if let Some(details) = plateau_details(config, window) {
            return stop(details);
        }
    }
    // 5, 6. The options' give-up rules.
    if start <= 5 {
        if let Some(details) = regression_details(config, &counters.tally) {
            return stop(details);
        }
    }
    if start <= 6 {
        if let Some(details) = no_improvement_details(config, &counters.tally) {
            return stop(details);
        }
    }
    // 7. Diminishing returns from the outside source, if enabled and one is attached.
    if start <= 7 && config.enable_diminishing_returns {
        if let Some(source) = source {
            if delegated(SeedCheck::DiminishingReturns) {
                return delegate(SeedCheck::DiminishingReturns, 8);
            }
            if let Some(details) = diminishing_returns_details(&source()?) {
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
        Verdict::Stop(details) => StoppingDecision::stop(reason, confidence, stop_trigger(&details), details),
        _ => StoppingDecision::go_on(&reason, confidence),
    }
}

/// The reason text of a verdict (upstream's wording; for diminishing returns it quotes the
/// source's reason from the details).
pub fn verdict_reason(config: &EarlyStoppingConfig, verdict: &Verdict) -> String {
    match verdict {
        Verdict::NoIterations => REASON_NO_ITERATIONS.to_string(),
        Verdict::WarmUp { recorded, min } => warm_up_reason(*recorded, *min),
        Verdict::Continue => REASON_CONTINUE.to_string(),
        Verdict::Stop(details) => stop_reason(config, details),
    }
}

/// The confidence of the decision a verdict makes (upstream's constants).
#[inline]
pub fn verdict_confidence(verdict: &Verdict) -> f64 {
    match verdict {
        Verdict::NoIterations | Verdict::WarmUp { .. } => 1.0,
        Verdict::Continue => 0.7,
        Verdict::Stop(details) => stop_confidence(details),
    }
}

/// Upstream's `shouldStop` order over a history (see the module doc), for the replay:
/// `tally` must have folded in exactly `history`. The order of checks lives in one place,
/// [`verdict`], which the owning [`EarlyStopping`](crate::EarlyStopping) and the JS fast path call
/// too; this only adapts a history slice to it (the plateau rule reads the slice's tail).
/// The returned decision has no best-iteration or budget extras (the caller adds them).
pub fn decide_over<R, E, F>(
    config: &EarlyStoppingConfig,
    history: &[R],
    tally: &LoopTally,
    source: Option<F>,
) -> std::result::Result<StoppingDecision, E>
where
    R: AsRef<Observation>,
    F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
{
    let counters = LoopCounters { recorded: history.len() as u64, best: BestIteration::default(), tally: *tally };
    let verdict = verdict(config, &counters, history, source)?;
    Ok(bare_decision(config, verdict))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::{EarlyStopping, IterationResult, LoopTally, Trigger, VerificationStatus};

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
                let replayed = decide_over(&config, &history, &tally, none).unwrap_or_else(|()| panic!());
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
