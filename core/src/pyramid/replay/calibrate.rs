//! The policy's Learn-then-Test calibration ([`calibrate`]): the most aggressive risk budget
//! whose miss rate is bounded with the confidence asked, by replaying recorded runs.

use crate::num::stats::binomial_cdf;
use crate::pyramid::policy::{OutcomeModel, PolicyConfig};
use crate::pyramid::replay::play::{observation, replay, Learn, ReplayPolicy};
use crate::pyramid::replay::runs::RecordedRun;
use crate::value::{self};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// One tested budget of a calibration.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationStep {
    /// The risk budget tested.
    pub risk_budget: f64,
    /// Failing runs among the held-out runs.
    pub failing_runs: usize,
    /// Of those, missed at this budget.
    pub missed: usize,
    /// P(Binomial(failing_runs, risk) <= missed): the p-value of H0 missRate > risk.
    pub p_value: f64,
    /// Whether H0 was rejected (p <= delta) in the fixed sequence.
    pub certified: bool,
}

/// `calibrate`'s answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The most aggressive certified budget (0 = never skip on success).
    pub risk_budget: f64,
    /// The config with that budget.
    pub config: PolicyConfig,
    /// Every budget tested, in order; testing stops at the first that is not certified.
    pub steps: Vec<CalibrationStep>,
    /// The model after learning every calibration run in full (ready to deploy).
    pub model: OutcomeModel,
}

/// The budgets `calibrate` tests by default, most conservative first.
pub const DEFAULT_GRID: [f64; 9] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2];

/// Picks the most aggressive risk budget on `grid` (ascending) whose miss rate among failing
/// runs is at most `risk` with probability >= 1 - `delta` (Learn-then-Test, fixed-sequence
/// testing with exact binomial p-values). The first `warmup` share of `runs` (recorded in
/// full) trains a copy of `model`; the rest are replayed at each budget, learning what ran.
pub fn calibrate(
    runs: &[RecordedRun],
    config: &PolicyConfig,
    model: &OutcomeModel,
    risk: f64,
    delta: f64,
    grid: &[f64],
    warmup: f64,
) -> Result<Calibration> {
    config.validate()?;
    let range = |field: &str, ok: bool, what: &str| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                field,
                value::concat(&[field, " must be ", what]),
            ))
        }
    };
    range("risk", risk.is_finite() && risk > 0.0 && risk < 1.0, "a finite number > 0 and < 1")?;
    range("delta", delta.is_finite() && delta > 0.0 && delta < 1.0, "a finite number > 0 and < 1")?;
    range("warmup", warmup.is_finite() && (0.0..1.0).contains(&warmup), "a finite number >= 0 and < 1")?;
    for (i, b) in grid.iter().enumerate() {
        let field = value::index_path("grid", i);
        let ascending = i == 0 || grid.get(i - 1).is_some_and(|p| p < b);
        range(&field, b.is_finite() && *b > 0.0 && *b <= 1.0 && ascending, "a finite number in (0, 1], ascending")?;
    }
    let split = ((runs.len() as f64) * warmup).floor() as usize;
    let (train, held) = runs.split_at(split.min(runs.len()));
    let mut warmed = model.clone();
    for run in train {
        warmed.update(config, &observation(run, &[], Learn::All))?;
    }
    let mut steps = Vec::new();
    let mut chosen = 0.0;
    for &budget in grid {
        let trial = PolicyConfig { risk_budget: budget, skip_on_success: true, ..config.clone() };
        let report = replay(held, &ReplayPolicy::Policy { config: trial, model: warmed.clone() }, Learn::Ran)?;
        let (n, k) = (report.summary.failing_runs, report.summary.missed);
        let p_value = if n == 0 { 1.0 } else { binomial_cdf(k as u64, n as u64, risk) };
        let certified = p_value <= delta;
        steps.push(CalibrationStep { risk_budget: budget, failing_runs: n, missed: k, p_value, certified });
        if !certified {
            break;
        }
        chosen = budget;
    }
    let mut trained = warmed;
    for run in held {
        trained.update(config, &observation(run, &[], Learn::All))?;
    }
    let config = PolicyConfig { risk_budget: chosen, ..config.clone() };
    Ok(Calibration { risk_budget: chosen, config, steps, model: trained })
}
