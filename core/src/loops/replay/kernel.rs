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

use std::convert::Infallible;

use crate::loops::analytics::{AnalyticsInput, IterationAnalytics};
use crate::loops::policy::{decide_policy, PolicyState, PolicyVerdict, StopCondition};
use crate::loops::replay::policy::LoopPolicy;
use crate::loops::replay::runs::ReplayRun;
use crate::loops::{verdict, DiminishingReturnsReport, LoopCounters, ReturnPolicy, StoppingDetails, Verdict};

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

/// Replays a validated `policy` over a validated `run` (the engine's decisions, exactly).
#[inline]
pub(super) fn play(run: &ReplayRun, policy: &LoopPolicy) -> Played {
    if let Some(when) = &policy.when {
        return play_composed(run, policy, when);
    }
    let config = &policy.config;
    let mut counters = LoopCounters::default();
    // Validated by the caller, so `new` cannot refuse it.
    let mut analytics = policy.analytics.as_ref().and_then(|c| IterationAnalytics::new(c.clone()).ok());
    let mut stop = None;
    let items = &run.iterations;
    for (i, item) in items.iter().enumerate() {
        let o = &item.observation;
        counters.recorded = i as u64 + 1;
        counters.tally.observe(o, item.usage.as_ref(), config.regression_tolerance);
        counters.best.observe(o, config.min_quality_threshold);
        let history = items.get(..=i).unwrap_or(&[]);
        let found = match analytics.as_mut() {
            None => verdict(config, &counters, history, None::<fn() -> Result<DiminishingReturnsReport, Infallible>>),
            Some(a) => {
                let mut input = AnalyticsInput::new(o.iteration, o.quality_score, o.verification_status);
                input.usage = item.usage.unwrap_or_default();
                a.record_checked(input);
                let a = &*a;
                verdict(config, &counters, history, Some(move || Ok::<_, Infallible>(a.detect_diminishing_returns())))
            }
        };
        match found {
            Ok(Verdict::Stop(details)) => {
                stop = Some((i, details));
                break;
            }
            Ok(_) => {}
            Err(never) => match never {},
        }
    }
    let stop_index = stop.as_ref().map_or(items.len().saturating_sub(1), |s| s.0);
    let returned_iteration = match policy.returns {
        ReturnPolicy::Last => stop_index as u64 + 1,
        ReturnPolicy::Best => counters.best.get().map_or(stop_index as u64 + 1, |b| b.0),
    };
    Played { stop_index, stop: stop.map(|s| s.1), composed_reason: None, returned_iteration }
}

/// [`play`] under a composed condition tree: the engine's decisions with that policy.
fn play_composed(run: &ReplayRun, policy: &LoopPolicy, when: &StopCondition) -> Played {
    let config = &policy.config;
    let mut state = PolicyState::new(when);
    // Validated by the caller, so `new` cannot refuse it.
    let mut analytics = policy.analytics.as_ref().and_then(|c| IterationAnalytics::new(c.clone()).ok());
    let mut stop = None;
    let items = &run.iterations;
    for (i, item) in items.iter().enumerate() {
        let o = &item.observation;
        state.observe(*o, item.usage.as_ref(), item.behavior.as_deref(), config.min_quality_threshold);
        if let Some(a) = analytics.as_mut() {
            let mut input = AnalyticsInput::new(o.iteration, o.quality_score, o.verification_status);
            input.usage = item.usage.unwrap_or_default();
            a.record_checked(input);
        }
        let source = analytics.as_ref().map(|a| move || Ok::<_, Infallible>(a.detect_diminishing_returns()));
        match decide_policy(when, &state, source) {
            Ok(PolicyVerdict { verdict: Verdict::Stop(details), fired, .. }) => {
                let reasons: Vec<&str> = fired.iter().map(|f| f.reason.as_str()).collect();
                stop = Some((i, details, crate::value::join(&reasons, " AND ")));
                break;
            }
            Ok(_) => {}
            Err(never) => match never {},
        }
    }
    let stop_index = stop.as_ref().map_or(items.len().saturating_sub(1), |s| s.0);
    let returned_iteration = match policy.returns {
        ReturnPolicy::Last => stop_index as u64 + 1,
        ReturnPolicy::Best => state.best.get().map_or(stop_index as u64 + 1, |b| b.0),
    };
    let (stop, composed_reason) = stop.map_or((None, None), |(_, details, reason)| (Some(details), Some(reason)));
    Played { stop_index, stop, composed_reason, returned_iteration }
}
