//! The loop engine's records, decisions, rules and the owning engine (being split into
//! their own files).

use crate::loops::config::{EarlyStoppingConfig, PlateauDeltaSource, PlateauMode, DEFAULT_REGRESSION_PATIENCE};
use crate::loops::decision::{BudgetStatus, FinalRecord, StoppingDecision, StoppingSummary};
use crate::loops::details::{DiminishingReturnsReport, PlateauStep, StoppingDetails};
use crate::loops::records::{
    check_iteration_order, make_record, record_from_value, validate_iteration, IterationRecord, IterationResult,
    Observation, Recorded, ResourceUsage, EXECUTION_TIME_MS, HISTORY_FIELD, TOKENS_USED, TOKEN_COST_USD,
};
use crate::loops::state::{self, LoopCounters, ObservationWindow};
use crate::loops::vocabulary::{Trigger, VerificationStatus};
use crate::num;
use crate::value::{self, FieldName, Naming, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// The best record so far: the highest quality among passed records reaching
/// `min_quality_threshold`, else the highest overall, earliest on ties (a listed extra on
/// every decision, so a loop that stops on a plateau can return its best output).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BestIteration {
    /// `(iteration, quality)` of the best passed record reaching the quality bar.
    pub verified: Option<(u64, f64)>,
    /// `(iteration, quality)` of the best record overall.
    pub overall: Option<(u64, f64)>,
}

impl BestIteration {
    /// Folds one record in (O(1)).
    #[inline]
    pub fn observe(&mut self, observation: &Observation, min_quality_threshold: f64) {
        let candidate = (observation.iteration, observation.quality_score);
        if self.overall.is_none_or(|(_, q)| observation.quality_score > q) {
            self.overall = Some(candidate);
        }
        if observation.verification_status == VerificationStatus::Passed
            && observation.quality_score >= min_quality_threshold
            && self.verified.is_none_or(|(_, q)| observation.quality_score > q)
        {
            self.verified = Some(candidate);
        }
    }

    /// Recomputes from a whole history (after `configure()` changes the quality bar).
    pub fn over<R: AsRef<Observation>>(records: &[R], min_quality_threshold: f64) -> Self {
        let mut best = BestIteration::default();
        for record in records {
            best.observe(record.as_ref(), min_quality_threshold);
        }
        best
    }

    /// `(iteration, quality)` of the best record, if any.
    #[inline]
    pub fn get(&self) -> Option<(u64, f64)> {
        self.verified.or(self.overall)
    }
}

/// The seed's `checkHighConfidence`, returning only a stopping decision (its non-stopping
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

/// The seed's `checkQualityPlateau` over the history's tail (`history` may be the whole
/// history or just its last `plateau_consecutive_count` records), returning only a stop.
pub fn check_plateau<R: AsRef<Observation>>(config: &EarlyStoppingConfig, history: &[R]) -> Option<StoppingDecision> {
    plateau_details(config, history).map(|details| stop_decision(config, details))
}

/// The plateau rule over a window of the last records: the stop's details, if it stops.
/// Not inlined: a decision and the seed's `checkQualityPlateau` answer share one copy (in the
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
    // Each step's change, as the seed measures it (pairs of consecutive records).
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

/// The reason text of a stop (the seed's wording, and the options' in the same style).
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
    }
}

/// The confidence of a stop (the seed's constants; a high-confidence stop carries the
/// record's confidence).
#[inline]
pub fn stop_confidence(details: &StoppingDetails) -> f64 {
    match details {
        StoppingDetails::HighConfidence { confidence, .. } => *confidence,
        StoppingDetails::QualityPlateau { .. } => 0.85,
        StoppingDetails::DiminishingReturns { .. } => 0.80,
        StoppingDetails::MaxIterations { .. } | StoppingDetails::BudgetExhausted { .. } => 1.0,
        StoppingDetails::QualityRegression { .. } | StoppingDetails::NoImprovement { .. } => 0.8,
    }
}

/// A stopping decision from a stop's details (no best iteration or budgets yet).
pub fn stop_decision(config: &EarlyStoppingConfig, details: StoppingDetails) -> StoppingDecision {
    StoppingDecision::stop(stop_reason(config, &details), stop_confidence(&details), stop_trigger(&details), details)
}

/// The seed's `checkDiminishingReturns` on a report, returning only a stop.
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

/// `checkHighConfidence` when the thresholds are not met.
pub const REASON_HIGH_CONFIDENCE_NOT_MET: &str = "High confidence threshold not met";

/// `checkQualityPlateau` when the last steps improved enough.
pub const REASON_STILL_IMPROVING: &str = "Quality still improving above threshold";

/// `checkDiminishingReturns` without a source.
pub const REASON_NO_ANALYTICS: &str = "Iteration analytics not available";

/// `checkDiminishingReturns` when the source detected nothing.
pub const REASON_NO_DIMINISHING_RETURNS: &str = "Diminishing returns not detected";

/// The seed's `checkHighConfidence(record)`: the stop, `'High confidence but verification
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

/// The seed's `checkQualityPlateau()` over `window` (the last `plateau_consecutive_count`
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

/// The seed's `checkDiminishingReturns()` on the source's report (`None`: no source attached).
pub fn diminishing_returns_answer(report: Option<&DiminishingReturnsReport>) -> StoppingDecision {
    match report {
        None => StoppingDecision::go_on(REASON_NO_ANALYTICS, 0.5),
        Some(report) => diminishing_returns_decision(report)
            .unwrap_or_else(|| StoppingDecision::go_on(REASON_NO_DIMINISHING_RETURNS, 0.7)),
    }
}

/// Checks records written to the history from outside (the JS layer's `iterationHistory`),
/// after records whose usage sums are `sums` (tokens, cost, time): each as
/// [`IterationRecord::from_history_value`] reads it, with its fields under `path(i)` (usually
/// [`history_path`]), and refused when it would make a sum overflow, as a recorded one is.
pub fn check_history(records: &Value, path: impl Fn(usize) -> String, sums: [f64; 3]) -> Result<()> {
    let Value::Array(records) = records else {
        return Err(Error::new(
            ErrorCode::InvalidResult,
            ErrorKind::Type,
            HISTORY_FIELD,
            value::concat(&[HISTORY_FIELD, " must be an array, got ", &records.describe()]),
        ));
    };
    let mut tally = LoopTally { sums, ..LoopTally::default() };
    for (i, record) in records.iter().enumerate() {
        let path = path(i);
        let record = IterationRecord::from_history_value(record, &path)?;
        tally.check_usage(record.usage.as_deref(), &path, ErrorCode::InvalidResult)?;
        tally.observe(&record.observation, record.usage.as_deref(), None);
    }
    Ok(())
}

/// Running totals the opt-in options read, folded in record by record (O(1) per record).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoopTally {
    /// Sums of tokens, cost and wall-clock time over the records that report them.
    pub sums: [f64; 3],
    /// Records that do not report tokens, cost, wall-clock time.
    pub without: [u64; 3],
    /// `(iteration, quality)` of the highest quality so far (earliest on ties).
    pub peak: Option<(u64, f64)>,
    /// How many of the last records in a row regressed (with a regression tolerance).
    pub regression_streak: u64,
    /// Records since the highest quality (0 on the record that set it).
    pub since_peak: u64,
}

impl LoopTally {
    /// Folds one record in; `regression_tolerance` is the config's.
    #[inline]
    pub fn observe(
        &mut self,
        observation: &Observation,
        usage: Option<&ResourceUsage>,
        regression_tolerance: Option<f64>,
    ) {
        let usage = usage.copied().unwrap_or_default();
        for (i, v) in [usage.tokens_used, usage.token_cost_usd, usage.execution_time_ms].into_iter().enumerate() {
            match (v, self.sums.get_mut(i), self.without.get_mut(i)) {
                (Some(v), Some(sum), _) => *sum += v,
                (None, _, Some(count)) => *count += 1,
                _ => {}
            }
        }
        let q = observation.quality_score;
        let regressed = match (regression_tolerance, self.peak) {
            (Some(tolerance), Some((_, peak))) => q < peak - tolerance,
            _ => false,
        };
        self.regression_streak = if regressed { self.regression_streak + 1 } else { 0 };
        if self.peak.is_none_or(|(_, peak)| q > peak) {
            self.peak = Some((observation.iteration, q));
            self.since_peak = 0;
        } else {
            self.since_peak += 1;
        }
    }

    /// Checks that folding `usage` in keeps every running total finite. Each value is finite,
    /// but a sum of huge ones can overflow to Infinity, which no snapshot can carry (JSON has
    /// no Infinity) and no budget can honestly report; such a record is refused.
    /// `path` prefixes the field in the error (`history[3]` on restore).
    pub fn check_usage(&self, usage: Option<&ResourceUsage>, path: &str, code: ErrorCode) -> Result<()> {
        let Some(usage) = usage else { return Ok(()) };
        let fields = [
            (TOKENS_USED, usage.tokens_used),
            (TOKEN_COST_USD, usage.token_cost_usd),
            (EXECUTION_TIME_MS, usage.execution_time_ms),
        ];
        for ((field, value), sum) in fields.into_iter().zip(self.sums) {
            if let Some(v) = value {
                if !(sum + v).is_finite() {
                    let name = value::join_path(path, field);
                    return Err(Error::new(
                        code,
                        ErrorKind::Range,
                        name.clone(),
                        value::concat(&[
                            &name,
                            " would make the running total overflow: ",
                            &num::to_js_string(sum),
                            " + ",
                            &num::to_js_string(v),
                            " is not a finite number",
                        ]),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Recomputes over a whole history (after `configure()`).
    pub fn over(history: &[IterationRecord], regression_tolerance: Option<f64>) -> Self {
        let mut tally = LoopTally::default();
        for record in history {
            tally.observe(&record.observation, record.usage.as_deref(), regression_tolerance);
        }
        tally
    }

    /// The state of every configured budget.
    #[inline]
    pub fn budgets(&self, config: &EarlyStoppingConfig) -> Vec<BudgetStatus> {
        // A plain loop: `filter_map(..).collect()` instantiates iterator-specialized code.
        let mut out = Vec::new();
        for (budget, limit) in config.budgets() {
            let Some(limit) = limit else { continue };
            let observed = self.sums.get(budget.index()).copied().unwrap_or(0.0);
            out.push(BudgetStatus {
                budget,
                limit,
                observed,
                records_without_value: self.without.get(budget.index()).copied().unwrap_or(0),
                exhausted: observed > limit,
            });
        }
        out
    }
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
    Some(StoppingDecision::go_on(&crate::loops::state::warm_up_reason(recorded, min), 1.0))
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
/// beat the best quality seen before them (a record equal to the best is no improvement).
pub fn check_no_improvement(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDecision> {
    no_improvement_details(config, tally).map(|details| stop_decision(config, details))
}

/// The no-improvement rule: the stop's details, if it stops.
#[inline]
pub fn no_improvement_details(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDetails> {
    let patience = config.no_improvement_patience?;
    let (best_iteration, best_quality_score) = tally.peak?;
    (tally.since_peak >= patience).then_some(StoppingDetails::NoImprovement {
        best_iteration,
        best_quality_score,
        iterations_without_improvement: tally.since_peak,
        patience,
    })
}

/// The seed's `shouldStop` order over a history (see the module doc), for the replay:
/// `tally` must have folded in exactly `history`. The order of checks lives in one place,
/// [`state::verdict`], which the owning [`EarlyStopping`] and the JS fast path call
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
    let verdict = state::verdict(config, &counters, history, source)?;
    Ok(state::bare_decision(config, verdict))
}

/// The seed's `EarlyStopping` class: history, config, and the last stopping reason.
#[derive(Clone, Debug, PartialEq)]
pub struct EarlyStopping {
    config: EarlyStoppingConfig,
    history: Vec<IterationRecord>,
    // The compact decision state (see `loop_state`): what every decision reads.
    counters: LoopCounters,
    window: std::collections::VecDeque<Observation>,
    stopping_reason: Option<String>,
    stopping_details: Option<StoppingDetails>,
}

/// Snapshot format version written by [`EarlyStopping::to_snapshot`].
pub const SNAPSHOT_VERSION: u64 = 1;

impl EarlyStopping {
    /// A fresh engine; the config is validated.
    pub fn new(config: EarlyStoppingConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self::fresh(config))
    }

    /// A fresh engine over a config that came from [`EarlyStoppingConfig::merged`] (or is
    /// the default), which checks every rule [`EarlyStoppingConfig::validate`] checks:
    /// checking again could not fail, and would keep the Rust-side validator in the
    /// size-budgeted WebAssembly module.
    fn fresh(config: EarlyStoppingConfig) -> Self {
        EarlyStopping {
            config,
            history: Vec::new(),
            counters: LoopCounters::default(),
            window: std::collections::VecDeque::new(),
            stopping_reason: None,
            stopping_details: None,
        }
    }

    /// A fresh engine from a partial config object (`null` = defaults), as the seed's
    /// constructor merges it over `DEFAULT_CONFIG`.
    pub fn from_config_value(config: &Value, naming: Naming) -> Result<Self> {
        let config = EarlyStoppingConfig::default().merged(config, naming, "config", ErrorCode::InvalidConfig)?;
        Ok(Self::fresh(config))
    }

    /// The seed's `recordIterationResult(iteration, result)` for a result built in Rust; a
    /// missing timestamp is filled by `now`. With `strictIterations`, an accepted re-record
    /// of the last iteration answers [`Recorded::Duplicate`] and changes nothing.
    pub fn record(
        &mut self,
        iteration: u64,
        result: IterationResult,
        now: impl FnOnce() -> String,
    ) -> Result<Recorded> {
        validate_iteration(iteration)?;
        result.validate(iteration)?;
        self.record_checked(iteration, result, now)
    }

    /// The seed's `recordIterationResult(iteration, result)` on host values.
    pub fn record_value(
        &mut self,
        iteration: &Value,
        result: &Value,
        naming: Naming,
        now: impl FnOnce() -> String,
    ) -> Result<Recorded> {
        let (iteration, result) = record_from_value(iteration, result, naming)?;
        self.record_checked(iteration, result, now)
    }

    /// Records a result whose values were validated: the iteration order (`strictIterations`)
    /// first, then the usage totals.
    fn record_checked(
        &mut self,
        iteration: u64,
        result: IterationResult,
        now: impl FnOnce() -> String,
    ) -> Result<Recorded> {
        if check_iteration_order(self.config.strict(), self.history.last(), iteration, &result)?.is_duplicate() {
            return Ok(Recorded::Duplicate);
        }
        self.counters.tally.check_usage(Some(&result.usage), "", ErrorCode::InvalidResult)?;
        self.push(iteration, result, now);
        Ok(Recorded::Added)
    }

    fn push(&mut self, iteration: u64, result: IterationResult, now: impl FnOnce() -> String) {
        let fallback = if result.timestamp.is_none() { now() } else { String::new() };
        let record = make_record(iteration, result, fallback);
        self.fold_in(&record);
        self.history.push(record);
    }

    fn fold_in(&mut self, record: &IterationRecord) {
        state::fold(&self.config, &mut self.counters, &mut self.window, record.observation, record.usage.as_deref());
    }

    /// `shouldStop()` without a diminishing-returns source.
    pub fn should_stop(&mut self) -> StoppingDecision {
        let result: std::result::Result<StoppingDecision, std::convert::Infallible> = self
            .should_stop_with(None::<fn() -> std::result::Result<DiminishingReturnsReport, std::convert::Infallible>>);
        match result {
            Ok(decision) => decision,
            Err(never) => match never {},
        }
    }

    /// The seed's `shouldStop()`. `source` is asked (at most once) only when high confidence
    /// and plateau did not stop and `enable_diminishing_returns` is on; its error aborts the
    /// decision and leaves the engine unchanged.
    pub fn should_stop_with<E, F>(&mut self, source: Option<F>) -> std::result::Result<StoppingDecision, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let verdict = state::verdict(&self.config, &self.counters, &self.window, source)?;
        let decision = state::decision(&self.config, &self.counters, verdict);
        if decision.stop {
            self.stopping_reason = Some(decision.reason.clone());
            self.stopping_details = decision.details.clone();
        }
        Ok(decision)
    }

    /// The seed's `generateSummary()` (it calls `shouldStop`, so it may set the stopping reason).
    pub fn generate_summary_with<E, F>(&mut self, source: Option<F>) -> std::result::Result<StoppingSummary, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let Some(last) = self.history.last().map(|r| FinalRecord {
            quality_score: r.observation.quality_score,
            confidence: r.observation.confidence,
            verification_status: r.observation.verification_status,
        }) else {
            return Ok(StoppingSummary::Empty);
        };
        // The summary lists neither the best iteration nor the budgets: keeping them here
        // would make two summaries that read the same compare unequal (and not read back).
        let decision = StoppingDecision { best: None, budgets: Vec::new(), ..self.should_stop_with(source)? };
        Ok(StoppingSummary::Full { total_iterations: self.history.len(), decision, last, config: self.config.clone() })
    }

    /// `generateSummary()` without a diminishing-returns source.
    pub fn generate_summary(&mut self) -> StoppingSummary {
        match self.generate_summary_with(
            None::<fn() -> std::result::Result<DiminishingReturnsReport, std::convert::Infallible>>,
        ) {
            Ok(summary) => summary,
            Err(never) => match never {},
        }
    }

    /// The reason of the last stopping decision (never cleared by a later non-stop).
    pub fn stopping_reason(&self) -> Option<&str> {
        self.stopping_reason.as_deref()
    }

    /// The details of the last stopping decision.
    pub fn stopping_details(&self) -> Option<&StoppingDetails> {
        self.stopping_details.as_ref()
    }

    /// The seed's `configure(options)`: merges a partial config; one bad key changes nothing.
    pub fn configure_value(&mut self, options: &Value, naming: Naming) -> Result<()> {
        let config = self.config.merged(options, naming, "options", ErrorCode::InvalidConfig)?;
        self.set_config(config)
    }

    /// Replaces the config (validated).
    pub fn set_config(&mut self, config: EarlyStoppingConfig) -> Result<()> {
        config.validate()?;
        // The window's length, the quality bar and the regression tolerance all shape the
        // compact state, so it is folded again from the history (configure() is rare).
        self.config = config;
        self.counters = LoopCounters::default();
        self.window.clear();
        let history = std::mem::take(&mut self.history);
        for record in &history {
            self.fold_in(record);
        }
        self.history = history;
        Ok(())
    }

    /// The current config.
    pub fn config(&self) -> &EarlyStoppingConfig {
        &self.config
    }

    /// Every recorded iteration, oldest first.
    pub fn history(&self) -> &[IterationRecord] {
        &self.history
    }

    /// The seed's `reset()`: clears history and stopping state, keeps the config.
    pub fn reset(&mut self) {
        self.history.clear();
        self.counters = LoopCounters::default();
        self.window.clear();
        self.stopping_reason = None;
        self.stopping_details = None;
    }

    /// The portable snapshot: `{version, engine, config, history, stoppingReason, stoppingDetails}`.
    pub fn to_snapshot(&self) -> Value {
        snapshot_value(&self.config, &self.history, self.stopping_reason.as_deref(), self.stopping_details.as_ref())
    }

    /// What `EarlyStopping::new(config)?.to_snapshot()` gives for a valid `config`, without
    /// building an engine (the JS layer caches a fresh engine's snapshot once).
    pub fn fresh_snapshot(config: &EarlyStoppingConfig) -> Value {
        snapshot_value(config, &[], None, None)
    }

    /// Restores a snapshot, validating everything (code `invalid_snapshot`, field = path).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let mut engine = Self::read_snapshot(snapshot)?;
        let EarlyStopping { config, history, counters, window, .. } = &mut engine;
        for record in history.iter() {
            state::fold(config, counters, window, record.observation, record.usage.as_deref());
        }
        Ok(engine)
    }

    /// The snapshot [`from_snapshot`](Self::from_snapshot) then
    /// [`to_snapshot`](Self::to_snapshot) give (validated, normalized), without folding the
    /// history into a decision state: for bindings that keep the loop's state themselves
    /// (the JS layer's `EarlyStopping.fromJSON`), so the size-budgeted WebAssembly module
    /// needs none of the owning engine's state code.
    pub fn normalize_snapshot(snapshot: &Value) -> Result<Value> {
        Self::read_snapshot(snapshot).map(|engine| engine.to_snapshot())
    }

    /// [`normalize_snapshot`](Self::normalize_snapshot) of a snapshot given whole: the
    /// value read is freed before the normalized one is built, so at most one of the two
    /// trees (each up to 16 times the snapshot's text) is alive at a time, which keeps a
    /// snapshot at the size limits within a WebAssembly instance's memory.
    pub fn normalize_snapshot_owned(snapshot: Value) -> Result<Value> {
        let engine = Self::read_snapshot(&snapshot)?;
        drop(snapshot);
        Ok(engine.to_snapshot())
    }

    /// Reads and validates a snapshot into an engine whose counters and window are still
    /// empty (the callers above fold the history in, or only write it back out).
    fn read_snapshot(snapshot: &Value) -> Result<Self> {
        let reader = crate::snapshot::open(snapshot, "EarlyStopping", &SNAPSHOT_FIELDS)?;
        let config_value = reader.get(FieldName::same("config")).unwrap_or(&Value::Null);
        let config = EarlyStoppingConfig::default()
            .merged_at(config_value, Naming::Js, "config", "config", ErrorCode::InvalidSnapshot)
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut engine = EarlyStopping::fresh(config);
        let records = crate::snapshot::array(&reader, FieldName::same("history"))?;
        engine.history.reserve(records.len());
        // The usage sums so far, as the engine's tally would hold them: a record that would
        // make one overflow is refused (`record_value` refuses it too).
        let mut tally = LoopTally::default();
        for (i, record) in records.iter().enumerate() {
            let path = value::index_path("history", i);
            let record = IterationRecord::from_snapshot(record, &path)?;
            tally.check_usage(record.usage.as_deref(), &path, ErrorCode::InvalidSnapshot)?;
            tally.observe(&record.observation, record.usage.as_deref(), None);
            engine.history.push(record);
        }
        engine.stopping_reason = match reader.get(FieldName::same("stoppingReason")) {
            None | Some(Value::Null) => None,
            Some(_) => Some(reader.string(FieldName::same("stoppingReason"))?.to_string()),
        };
        engine.stopping_details = match reader.get(FieldName::same("stoppingDetails")) {
            None | Some(Value::Null) => None,
            Some(details) => Some(StoppingDetails::from_snapshot(details, "stoppingDetails")?),
        };
        if engine.stopping_reason.is_none() && engine.stopping_details.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidSnapshot,
                ErrorKind::Range,
                "stoppingReason",
                "stoppingReason must be set when stoppingDetails is",
            ));
        }
        Ok(engine)
    }
}

/// Trigger names, for bindings that print or type them.
pub fn trigger_from_str(s: &str) -> Option<Trigger> {
    Trigger::parse(s)
}

/// The error for an `iterationAnalytics` argument that is neither absent nor an object with
/// a `detectDiminishingReturns()` method (bindings check the method; the words are here).
pub fn invalid_analytics_source(naming: Naming, got: &Value) -> Error {
    let (field, method) = match naming {
        Naming::Js => ("iterationAnalytics", "detectDiminishingReturns()"),
        Naming::Snake => ("analytics", "detect_diminishing_returns()"),
    };
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Type,
        field,
        value::concat(&[field, " must be an object with a ", method, " method, got ", &got.describe()]),
    )
}

/// The portable snapshot of an engine's parts (see [`EarlyStopping::to_snapshot`]).
fn snapshot_value(
    config: &EarlyStoppingConfig,
    history: &[IterationRecord],
    stopping_reason: Option<&str>,
    stopping_details: Option<&StoppingDetails>,
) -> Value {
    Value::object(vec![
        ("version", Value::Number(SNAPSHOT_VERSION as f64)),
        ("engine", Value::string("EarlyStopping")),
        ("config", config.to_value(Naming::Js)),
        ("history", value::array_of(history, IterationRecord::to_value)),
        ("stoppingReason", stopping_reason.map_or(Value::Null, Value::string)),
        ("stoppingDetails", stopping_details.map_or(Value::Null, StoppingDetails::to_value)),
    ])
}

/// The keys of this engine's snapshot.
const SNAPSHOT_FIELDS: [FieldName; 6] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("config"),
    FieldName::same("history"),
    FieldName::same("stoppingReason"),
    FieldName::same("stoppingDetails"),
];
