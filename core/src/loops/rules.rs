//! The stopping rules, each on its own: a rule takes the config and the part of the state
//! it reads and answers the details of its stop, if it stops (`*_details`). Upstream's
//! public checks are offered as stateless functions too (`check_*`, and the `*_answer`s that
//! also answer when they do not stop), so a binding can keep the decision state in a buffer
//! it owns and call the core without a native object per engine. The order in which a
//! decision runs the rules is [`verdict`](crate::loops::verdict)'s.

use crate::loops::config::{EarlyStoppingConfig, PlateauDeltaSource, PlateauMode, DEFAULT_REGRESSION_PATIENCE};
use crate::loops::decision::{BudgetStatus, StoppingDecision};
use crate::loops::details::{DiminishingReturnsReport, PlateauStep, StoppingDetails};
use crate::loops::records::Observation;
use crate::loops::state::{LoopTally, ObservationWindow};
use crate::loops::vocabulary::{Trigger, VerificationStatus};
use crate::num;
use crate::value;

/// Upstream's `checkHighConfidence`, returning only a stopping decision (its non-stopping
/// answers are thrown away by `shouldStop`).
pub fn check_high_confidence(config: &EarlyStoppingConfig, last: &Observation) -> Option<StoppingDecision> {
    high_confidence_details(config, last).map(|details| stop_decision(config, details))
}

/// The high-confidence rule on the last record: the stop's details, if it stops.
#[inline]
pub fn high_confidence_details(config: &EarlyStoppingConfig, last: &Observation) -> Option<StoppingDetails> {
    let meets_confidence = last.confidence >= config.high_confidence_threshold;
    let meets_quality = last.quality_score >= config.min_quality_threshold;
    if !(meets_confidence && meets_quality) {
        return None;
    }
    let verification_status = if config.require_verification {
        if last.verification_status != VerificationStatus::Passed {
            return None;
        }
        Some(last.verification_status)
    } else {
        None
    };
    Some(StoppingDetails::HighConfidence {
        confidence: last.confidence,
        quality_score: last.quality_score,
        verification_status,
    })
}

/// Upstream's `checkQualityPlateau` over the history's tail (`history` may be the whole
/// history or just its last `plateau_consecutive_count` records), returning only a stop.
pub fn check_plateau<R: AsRef<Observation>>(config: &EarlyStoppingConfig, history: &[R]) -> Option<StoppingDecision> {
    plateau_details(config, history).map(|details| stop_decision(config, details))
}

/// The plateau rule over a window of the last records: the stop's details, if it stops.
/// Not inlined: a decision and upstream's `checkQualityPlateau` answer share one copy (in the
/// size-budgeted WebAssembly module; a call per decision costs nothing measurable).
#[inline(never)]
pub fn plateau_details<W: ObservationWindow + ?Sized>(
    config: &EarlyStoppingConfig,
    window: &W,
) -> Option<StoppingDetails> {
    let required = config.plateau_consecutive_count;
    let required_len = usize::try_from(required).ok()?;
    let len = window.len();
    if len < required_len {
        return None;
    }
    let start = len - required_len;
    if let Some(min_quality) = config.plateau_min_quality {
        // A flat window of poor work is a failing run, not a finished one: leave it to the
        // explicit give-up rules (noImprovementPatience, maxIterations, budgets).
        if (start..len).any(|i| window.get(i).is_none_or(|r| r.quality_score < min_quality)) {
            return None;
        }
    }
    // Each step's change, as upstream measures it (pairs of consecutive records).
    let step = |prev: &Observation, curr: &Observation| {
        let delta = match config.plateau_delta_source {
            Some(PlateauDeltaSource::Computed) => curr.quality_score - prev.quality_score,
            _ => curr.quality_delta,
        };
        let improvement = match config.plateau_mode {
            Some(PlateauMode::Absolute) => delta.abs(),
            _ if prev.quality_score > 0.0 => delta.abs() / prev.quality_score,
            _ => 0.0,
        };
        (delta, improvement)
    };
    // Allocates only once a step is flat: most decisions find a step above the threshold first.
    let mut improvements = Vec::new();
    let mut prev = window.get(start)?;
    let mut sum = prev.quality_score;
    for i in start + 1..len {
        let curr = window.get(i)?;
        let (delta, improvement) = step(&prev, &curr);
        if improvement >= config.plateau_improvement_threshold {
            return None;
        }
        if improvements.is_empty() {
            improvements.reserve_exact(required_len - 1);
        }
        improvements.push(PlateauStep { iteration: curr.iteration, improvement, delta });
        sum += curr.quality_score;
        prev = curr;
    }
    Some(StoppingDetails::QualityPlateau {
        consecutive_count: required,
        improvements,
        average_quality: sum / required_len as f64,
        threshold: config.plateau_improvement_threshold,
    })
}

/// The reason text of a stop (upstream's wording, and the options' in the same style).
pub fn stop_reason(config: &EarlyStoppingConfig, details: &StoppingDetails) -> String {
    match details {
        StoppingDetails::HighConfidence { confidence, verification_status, .. } => {
            let mut reason = String::from("High confidence (");
            num::push_fixed(&mut reason, confidence * 100.0, 1);
            reason.push_str(if verification_status.is_some() { "%) AND verification passed" } else { "%) reached" });
            reason
        }
        StoppingDetails::QualityPlateau { consecutive_count, threshold, .. } => {
            let mut reason = String::from("Quality plateau detected: ");
            reason.push_str(&crate::num::uint_string(*consecutive_count));
            reason.push_str(" consecutive iterations with <");
            if config.plateau_mode == Some(PlateauMode::Absolute) {
                num::push_js_string(&mut reason, *threshold);
                reason.push_str(" points improvement");
            } else {
                num::push_fixed(&mut reason, threshold * 100.0, 0);
                reason.push_str("% improvement");
            }
            reason
        }
        StoppingDetails::DiminishingReturns { analytics_reason, .. } => diminishing_returns_reason(analytics_reason),
        StoppingDetails::MaxIterations { iterations, max_iterations } => crate::value::concat(&[
            "Maximum iterations reached (",
            &crate::num::uint_string(*iterations),
            "/",
            &crate::num::uint_string(*max_iterations),
            ")",
        ]),
        StoppingDetails::BudgetExhausted { budget, limit, observed, records_without_value } => {
            let mut reason = String::from("Budget exhausted: total ");
            reason.push_str(budget.field());
            reason.push(' ');
            num::push_js_string(&mut reason, *observed);
            reason.push_str(" > limit ");
            num::push_js_string(&mut reason, *limit);
            if *records_without_value > 0 {
                reason.push_str(" (");
                reason.push_str(&crate::num::uint_string(*records_without_value));
                reason.push_str(" records without ");
                reason.push_str(budget.field());
                reason.push_str(" not counted)");
            }
            reason
        }
        StoppingDetails::QualityRegression { best_iteration, best_quality_score, tolerance, patience } => {
            let mut reason = String::from("Quality regression: ");
            reason.push_str(&crate::num::uint_string(*patience));
            reason.push_str(" consecutive iterations more than ");
            num::push_js_string(&mut reason, *tolerance);
            reason.push_str(" points below the best (");
            num::push_js_string(&mut reason, *best_quality_score);
            reason.push_str(" at iteration ");
            reason.push_str(&crate::num::uint_string(*best_iteration));
            reason.push(')');
            reason
        }
        StoppingDetails::NoImprovement {
            best_iteration, best_quality_score, iterations_without_improvement, ..
        } => {
            let mut reason = String::from("No improvement: ");
            reason.push_str(&crate::num::uint_string(*iterations_without_improvement));
            reason.push_str(" consecutive iterations without a new best (");
            num::push_js_string(&mut reason, *best_quality_score);
            reason.push_str(" at iteration ");
            reason.push_str(&crate::num::uint_string(*best_iteration));
            reason.push(')');
            reason
        }
        // The detection's own message, as an intervention's `reason`.
        // (every detector writes one).
        StoppingDetails::Behavior { detection, .. } => detection.message.clone().unwrap_or_default(),
        StoppingDetails::Completed { completed_iteration } => crate::value::concat(&[
            "Completed: iteration ",
            &crate::num::uint_string(*completed_iteration),
            " reported the task done",
        ]),
        StoppingDetails::Unchanged { since_iteration, k, .. } => crate::value::concat(&[
            "Unchanged: the same fingerprint since iteration ",
            &crate::num::uint_string(*since_iteration),
            " (more than ",
            &crate::num::uint_string(*k),
            " iterations in a row)",
        ]),
        StoppingDetails::Revisit { first_seen_iteration, window, .. } => crate::value::concat(&[
            "Revisit: the fingerprint of iteration ",
            &crate::num::uint_string(*first_seen_iteration),
            " came back within a window of ",
            &crate::num::uint_string(*window),
        ]),
    }
}

/// `'Diminishing returns detected: <the source's reason>'`.
pub fn diminishing_returns_reason(analytics_reason: &str) -> String {
    crate::value::concat(&["Diminishing returns detected: ", analytics_reason])
}

/// The trigger a stop's details belong to.
pub fn stop_trigger(details: &StoppingDetails) -> Trigger {
    match details {
        StoppingDetails::HighConfidence { .. } => Trigger::HighConfidence,
        StoppingDetails::QualityPlateau { .. } => Trigger::QualityPlateau,
        StoppingDetails::DiminishingReturns { .. } => Trigger::DiminishingReturns,
        StoppingDetails::MaxIterations { .. } => Trigger::MaxIterations,
        StoppingDetails::BudgetExhausted { .. } => Trigger::BudgetExhausted,
        StoppingDetails::QualityRegression { .. } => Trigger::QualityRegression,
        StoppingDetails::NoImprovement { .. } => Trigger::NoImprovement,
        StoppingDetails::Behavior { level: crate::loops::behavior::InterventionLevel::Abort, .. } => {
            Trigger::BehaviorAbort
        }
        StoppingDetails::Behavior { .. } => Trigger::BehaviorPause,
        StoppingDetails::Completed { .. } => Trigger::Completed,
        StoppingDetails::Unchanged { .. } => Trigger::Unchanged,
        StoppingDetails::Revisit { .. } => Trigger::Revisit,
    }
}

/// The confidence of a stop (upstream's constants; a high-confidence stop carries the
/// record's confidence).
#[inline]
pub fn stop_confidence(details: &StoppingDetails) -> f64 {
    match details {
        StoppingDetails::HighConfidence { confidence, .. } => *confidence,
        StoppingDetails::QualityPlateau { .. } => 0.85,
        StoppingDetails::DiminishingReturns { .. } => 0.80,
        StoppingDetails::MaxIterations { .. } | StoppingDetails::BudgetExhausted { .. } => 1.0,
        StoppingDetails::QualityRegression { .. } | StoppingDetails::NoImprovement { .. } => 0.8,
        // A rule the host set fired on what was observed, as a hard limit does.
        StoppingDetails::Behavior { .. } => 1.0,
        // What the loop reported, or what its fingerprints show: observed, not estimated.
        StoppingDetails::Completed { .. } | StoppingDetails::Unchanged { .. } | StoppingDetails::Revisit { .. } => 1.0,
    }
}

/// A stopping decision from a stop's details (no best iteration or budgets yet).
pub fn stop_decision(config: &EarlyStoppingConfig, details: StoppingDetails) -> StoppingDecision {
    StoppingDecision::stop(stop_reason(config, &details), stop_confidence(&details), stop_trigger(&details), details)
}

/// Upstream's `checkDiminishingReturns` on a report, returning only a stop.
pub fn diminishing_returns_decision(report: &DiminishingReturnsReport) -> Option<StoppingDecision> {
    diminishing_returns_details(report).map(|details| {
        StoppingDecision::stop(
            diminishing_returns_reason(&report.reason),
            stop_confidence(&details),
            Trigger::DiminishingReturns,
            details,
        )
    })
}

/// The diminishing-returns rule on a source's report: the stop's details, if it stops.
#[inline]
pub fn diminishing_returns_details(report: &DiminishingReturnsReport) -> Option<StoppingDetails> {
    report.detected.then(|| StoppingDetails::DiminishingReturns {
        detected_at_iteration: report.iteration,
        analytics_reason: report.reason.clone(),
    })
}

/// Opt-in budgets: stop once a sum exceeds its limit (checked in the order tokens, cost,
/// wall clock). Records without the field are unknown: the known sum is a lower bound, so
/// exceeding the limit is certain while staying under it is not (the decision's `budgets`
/// list says how many records were unknown).
pub fn check_budgets(statuses: &[BudgetStatus]) -> Option<StoppingDecision> {
    budget_details(statuses).map(|details| stop_decision(&EarlyStoppingConfig::default(), details))
}

/// The budget rule: the stop's details, if a budget is exhausted.
#[inline]
pub fn budget_details(statuses: &[BudgetStatus]) -> Option<StoppingDetails> {
    let hit = statuses.iter().find(|s| s.exhausted)?;
    Some(StoppingDetails::BudgetExhausted {
        budget: hit.budget,
        limit: hit.limit,
        observed: hit.observed,
        records_without_value: hit.records_without_value,
    })
}

/// Opt-in `maxIterations`: stop once that many iterations are recorded.
pub fn check_max_iterations(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDecision> {
    max_iterations_details(config, recorded).map(|details| stop_decision(config, details))
}

/// The `maxIterations` rule: the stop's details, if it stops.
#[inline]
pub fn max_iterations_details(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDetails> {
    let max = config.max_iterations?;
    (recorded >= max).then_some(StoppingDetails::MaxIterations { iterations: recorded, max_iterations: max })
}

/// Opt-in warm-up: while fewer than `minIterations` are recorded, no quality trigger stops.
pub fn warm_up(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDecision> {
    let min = warm_up_min(config, recorded)?;
    Some(StoppingDecision::go_on(&warm_up_reason(recorded, min), 1.0))
}

/// The warm-up rule: `minIterations` while fewer iterations are recorded, else `None`.
#[inline]
pub fn warm_up_min(config: &EarlyStoppingConfig, recorded: u64) -> Option<u64> {
    config.min_iterations.filter(|min| recorded < *min)
}

/// Opt-in regression guard: stop once the last `regressionPatience` records each stayed
/// more than `regressionTolerance` points below the best quality seen before them.
pub fn check_regression(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDecision> {
    regression_details(config, tally).map(|details| stop_decision(config, details))
}

/// The regression rule: the stop's details, if it stops.
#[inline]
pub fn regression_details(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDetails> {
    let tolerance = config.regression_tolerance?;
    let patience = config.regression_patience.unwrap_or(DEFAULT_REGRESSION_PATIENCE);
    let (best_iteration, best_quality_score) = tally.peak?;
    (tally.regression_streak >= patience).then_some(StoppingDetails::QualityRegression {
        best_iteration,
        best_quality_score,
        tolerance,
        patience,
    })
}

/// Opt-in give-up rule: stop once the last `noImprovementPatience` records each failed to
/// beat the best quality seen before them (a record equal to the best is no improvement);
/// while the best is at or below `floorQuality` (default 0), `floorPatience` if set.
pub fn check_no_improvement(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDecision> {
    no_improvement_details(config, tally).map(|details| stop_decision(config, details))
}

/// The no-improvement rule: the stop's details, if it stops.
#[inline]
pub fn no_improvement_details(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDetails> {
    let (best_iteration, best_quality_score) = tally.peak?;
    // A run whose best is still at or below the floor (exploring at 0) has its own patience.
    let at_floor = best_quality_score <= config.floor_quality.unwrap_or(0.0);
    let patience = match config.floor_patience {
        Some(floor_patience) if at_floor => floor_patience,
        _ => config.no_improvement_patience?,
    };
    (tally.since_peak >= patience).then_some(StoppingDetails::NoImprovement {
        best_iteration,
        best_quality_score,
        iterations_without_improvement: tally.since_peak,
        patience,
    })
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

/// `checkHighConfidence` when the thresholds are not met.
pub const REASON_HIGH_CONFIDENCE_NOT_MET: &str = "High confidence threshold not met";

/// `checkQualityPlateau` when the last steps improved enough.
pub const REASON_STILL_IMPROVING: &str = "Quality still improving above threshold";

/// `checkDiminishingReturns` without a source.
pub const REASON_NO_ANALYTICS: &str = "Iteration analytics not available";

/// `checkDiminishingReturns` when the source detected nothing.
pub const REASON_NO_DIMINISHING_RETURNS: &str = "Diminishing returns not detected";

/// Upstream's `checkHighConfidence(record)`: the stop, `'High confidence but verification
/// status: ...'` (confidence x 0.8) when only verification is missing, else `'High
/// confidence threshold not met'` with the record's confidence.
pub fn high_confidence_answer(config: &EarlyStoppingConfig, record: &Observation) -> StoppingDecision {
    if let Some(details) = high_confidence_details(config, record) {
        return stop_decision(config, details);
    }
    if record.confidence >= config.high_confidence_threshold && record.quality_score >= config.min_quality_threshold {
        let reason = value::concat(&["High confidence but verification status: ", record.verification_status.as_str()]);
        return StoppingDecision::go_on(&reason, record.confidence * 0.8);
    }
    StoppingDecision::go_on(REASON_HIGH_CONFIDENCE_NOT_MET, record.confidence)
}

/// Upstream's `checkQualityPlateau()` over `window` (the last `plateau_consecutive_count`
/// records, or more) of a history of `recorded` records: `'Insufficient iterations for
/// plateau detection (n/N)'` (0.5), the stop, or `'Quality still improving above
/// threshold'` (0.7).
pub fn plateau_answer<W: ObservationWindow + ?Sized>(
    config: &EarlyStoppingConfig,
    window: &W,
    recorded: u64,
) -> StoppingDecision {
    let required = config.plateau_consecutive_count;
    if recorded < required {
        let reason = value::concat(&[
            "Insufficient iterations for plateau detection (",
            &num::uint_string(recorded),
            "/",
            &num::uint_string(required),
            ")",
        ]);
        return StoppingDecision::go_on(&reason, 0.5);
    }
    match plateau_details(config, window) {
        Some(details) => stop_decision(config, details),
        None => StoppingDecision::go_on(REASON_STILL_IMPROVING, 0.7),
    }
}

/// Upstream's `checkDiminishingReturns()` on the source's report (`None`: no source attached).
pub fn diminishing_returns_answer(report: Option<&DiminishingReturnsReport>) -> StoppingDecision {
    match report {
        None => StoppingDecision::go_on(REASON_NO_ANALYTICS, 0.5),
        Some(report) => diminishing_returns_decision(report)
            .unwrap_or_else(|| StoppingDecision::go_on(REASON_NO_DIMINISHING_RETURNS, 0.7)),
    }
}
