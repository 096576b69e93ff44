//! The compact state a loop decision reads, folded in record by record.
//!
//! A decision never needs the whole history: it reads the counters folded in record by
//! record ([`LoopCounters`]: how many were recorded, the best so far ([`BestIteration`]),
//! the budget sums, the peak and the regression streak ([`LoopTally`])) and the last
//! `plateauConsecutiveCount` observations (an [`ObservationWindow`]). So a binding may keep
//! that state in a buffer it owns (the JS layer keeps it in a `Float64Array`, see
//! `bindings/js/fast/src/fast.rs`) and call [`fold`] and [`verdict`](crate::loops::verdict)
//! without a native object per engine, while the owning
//! [`EarlyStopping`](crate::EarlyStopping) keeps the same state in plain fields and calls
//! the very same functions. Decisions cost O(window), not O(history).

use crate::loops::config::EarlyStoppingConfig;
use crate::loops::decision::BudgetStatus;
use crate::loops::records::{
    IterationRecord, Observation, ResourceUsage, EXECUTION_TIME_MS, HISTORY_FIELD, TOKENS_USED, TOKEN_COST_USD,
};
use crate::loops::vocabulary::VerificationStatus;
use crate::value::{self, check_integer, check_range, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

use std::collections::VecDeque;

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
        self.regression_streak = regression_streak(self.regression_streak, q, self.peak, regression_tolerance);
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
                value::add_to_total(sum, v, &value::join_path(path, field), code)?;
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

/// Whether a diminishing-returns report's `iteration` number is valid (an integer >= 1),
/// as [`DiminishingReturnsReport::from_value`](crate::DiminishingReturnsReport::from_value) checks it.
pub fn report_iteration_is_valid(iteration: f64) -> bool {
    check_integer(iteration, 1, MAX_SAFE_INTEGER).is_some()
}

/// Checks records written to the history from outside (the JS layer's `iterationHistory`),
/// after records whose usage sums are `sums` (tokens, cost, time): each as
/// [`IterationRecord::from_history_value`] reads it, with its fields under `path(i)` (usually
/// `history_path`), and refused when it would make a sum overflow, as a recorded one is.
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

/// The regression rule's streak after a record of quality `q`: one more when `q` is more
/// than `tolerance` points below the peak so far (`peak`, before this record), else 0 (also
/// without a tolerance). The config's tally and a policy's per-tolerance streaks both step
/// by this one rule.
#[inline(always)]
pub(crate) fn regression_streak(streak: u64, q: f64, peak: Option<(u64, f64)>, tolerance: Option<f64>) -> u64 {
    match (tolerance, peak) {
        (Some(tolerance), Some((_, peak))) if q < peak - tolerance => streak + 1,
        _ => 0,
    }
}
