//! The hot path of every replay: where a policy stops on one run, with the engine's own
//! order of checks ([`verdict`]) over the run's prefix, and nothing built per decision (no
//! reason text, no decision object, no copy of the history). The replay ([`play`](super::play))
//! words the stop it finds; the calibration ([`calibrate`](super::calibrate)) replays every
//! candidate policy through this function and reads only numbers.
//!
//! Per iteration: the tally (peak, regression streak, budget sums) and the best record are
//! folded in O(1), the analytics (if attached) record the iteration, and [`verdict`] decides
//! over the prefix (the plateau rule reads its last `plateauConsecutiveCount` records).
//! A policy with a composed condition tree (`when`) decides over its own state instead
//! ([`decide_policy`], O(its windows) per decision), in the replay and the calibration alike.
//! The loop is written once ([`play_with`]); the two ways of deciding are its parameter
//! ([`Decide`]), monomorphized, so the config's path pays nothing for the tree's.

use std::convert::Infallible;

use crate::loops::analytics::{AnalyticsInput, IterationAnalytics};
use crate::loops::policy::{decide_policy, PolicyState, PolicyVerdict, StopCondition};
use crate::loops::replay::policy::LoopPolicy;
use crate::loops::replay::runs::{ReplayIteration, ReplayRun};
use crate::loops::{
    verdict, DiminishingReturnsReport, EarlyStoppingConfig, LoopCounters, ReturnPolicy, StoppingDetails, Verdict,
};

/// Where a policy stopped on a run, as numbers.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Played {
    /// The 0-based index of the last iteration run.
    pub stop_index: usize,
    /// The stop's details (`None`: the recording ended first).
    pub stop: Option<StoppingDetails>,
    /// A composed policy's reason for the stop (its fired conditions' reasons joined by
    /// ' AND '); `None` under the config's checks, whose stop the replay words.
    pub composed_reason: Option<String>,
    /// The returned iteration (1-based), under the policy's [`ReturnPolicy`].
    pub returned_iteration: u64,
}

/// Replays a validated `policy` over a validated `run` (the engine's decisions, exactly):
/// by the config's order of checks, or by the policy's condition tree when it has one.
#[inline]
pub(super) fn play(run: &ReplayRun, policy: &LoopPolicy) -> Played {
    match &policy.when {
        None => play_with(run, policy, ConfigOrder { counters: LoopCounters::default() }),
        Some(when) => play_with(run, policy, Tree { when, state: PolicyState::new(when) }),
    }
}

/// One way of deciding, folded one record at a time: the only part of a replay that
/// differs between the config's order and a condition tree.
trait Decide {
    /// Folds record `i` (`item`) in.
    fn observe(&mut self, i: usize, item: &ReplayIteration, config: &EarlyStoppingConfig);
    /// Decides over the records so far (`history`: the run's prefix): the stop's details and,
    /// for a tree, its reason.
    fn decide(
        &self,
        config: &EarlyStoppingConfig,
        history: &[ReplayIteration],
        analytics: Option<&IterationAnalytics>,
    ) -> Option<(StoppingDetails, Option<String>)>;
    /// The best iteration so far (1-based) and its quality.
    fn best(&self) -> Option<(u64, f64)>;
}

/// The config's order of checks ([`verdict`]) over the compact counters and the prefix.
struct ConfigOrder {
    counters: LoopCounters,
}

impl Decide for ConfigOrder {
    #[inline]
    fn observe(&mut self, i: usize, item: &ReplayIteration, config: &EarlyStoppingConfig) {
        let o = &item.observation;
        self.counters.recorded = i as u64 + 1;
        self.counters.tally.observe(o, item.usage.as_ref(), config.regression_tolerance);
        self.counters.best.observe(o, config.min_quality_threshold);
    }

    #[inline]
    fn decide(
        &self,
        config: &EarlyStoppingConfig,
        history: &[ReplayIteration],
        analytics: Option<&IterationAnalytics>,
    ) -> Option<(StoppingDetails, Option<String>)> {
        let found = match analytics {
            None => {
                verdict(config, &self.counters, history, None::<fn() -> Result<DiminishingReturnsReport, Infallible>>)
            }
            Some(a) => verdict(
                config,
                &self.counters,
                history,
                Some(move || Ok::<_, Infallible>(a.detect_diminishing_returns())),
            ),
        };
        match found {
            Ok(Verdict::Stop(details)) => Some((details, None)),
            Ok(_) => None,
            Err(never) => match never {},
        }
    }

    fn best(&self) -> Option<(u64, f64)> {
        self.counters.best.get()
    }
}

/// A composed condition tree ([`decide_policy`]) over its own state (O(its windows)).
struct Tree<'a> {
    when: &'a StopCondition,
    state: PolicyState,
}

impl Decide for Tree<'_> {
    #[inline]
    fn observe(&mut self, _i: usize, item: &ReplayIteration, config: &EarlyStoppingConfig) {
        self.state.observe(
            item.observation,
            item.usage.as_ref(),
            item.behavior.as_deref(),
            config.min_quality_threshold,
        );
    }

    #[inline]
    fn decide(
        &self,
        _config: &EarlyStoppingConfig,
        _history: &[ReplayIteration],
        analytics: Option<&IterationAnalytics>,
    ) -> Option<(StoppingDetails, Option<String>)> {
        let source = analytics.map(|a| move || Ok::<_, Infallible>(a.detect_diminishing_returns()));
        match decide_policy(self.when, &self.state, source) {
            Ok(PolicyVerdict { verdict: Verdict::Stop(details), fired, .. }) => {
                let reasons: Vec<&str> = fired.iter().map(|f| f.reason.as_str()).collect();
                Some((details, Some(crate::value::join(&reasons, " AND "))))
            }
            Ok(_) => None,
            Err(never) => match never {},
        }
    }

    fn best(&self) -> Option<(u64, f64)> {
        self.state.best.get()
    }
}

/// The replay's loop, once: fold each record in (the decider's state, the analytics if
/// attached), decide, stop at the first stop; then the returned iteration.
#[inline]
fn play_with(run: &ReplayRun, policy: &LoopPolicy, mut decider: impl Decide) -> Played {
    let config = &policy.config;
    // Validated by the caller, so `new` cannot refuse it.
    let mut analytics = policy.analytics.as_ref().and_then(|c| IterationAnalytics::new(c.clone()).ok());
    let mut stop = None;
    let items = &run.iterations;
    for (i, item) in items.iter().enumerate() {
        decider.observe(i, item, config);
        if let Some(a) = analytics.as_mut() {
            let o = &item.observation;
            let mut input = AnalyticsInput::new(o.iteration, o.quality_score, o.verification_status);
            input.usage = item.usage.unwrap_or_default();
            a.record_checked(input);
        }
        let history = items.get(..=i).unwrap_or(&[]);
        if let Some((details, reason)) = decider.decide(config, history, analytics.as_ref()) {
            stop = Some((i, details, reason));
            break;
        }
    }
    let stop_index = stop.as_ref().map_or(items.len().saturating_sub(1), |s| s.0);
    let returned_iteration = match policy.returns {
        ReturnPolicy::Last => stop_index as u64 + 1,
        ReturnPolicy::Best => decider.best().map_or(stop_index as u64 + 1, |b| b.0),
    };
    let (stop, composed_reason) = stop.map_or((None, None), |(_, details, reason)| (Some(details), reason));
    Played { stop_index, stop, composed_reason, returned_iteration }
}
