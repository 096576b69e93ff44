//! The owning engine: [`EarlyStopping`] keeps the history, the config and the last stopping
//! reason, folds each record into the compact state and decides through
//! [`verdict`](crate::loops::verdict), as upstream's class does.

use std::collections::VecDeque;

use crate::loops::candidate::{check_shadow_cap, LoopShadow, ShadowCandidate};
use crate::loops::config::EarlyStoppingConfig;
use crate::loops::decision::{FinalRecord, StoppingDecision, StoppingSummary};
use crate::loops::details::{DiminishingReturnsReport, StoppingDetails};
use crate::loops::policy::{restored_policy, PolicyState, StopCondition, StopPolicy};
use crate::loops::records::{
    check_iteration_order, make_record, record_from_value, validate_iteration, IterationRecord, IterationResult,
    Observation, Recorded,
};
use crate::loops::state::{fold, LoopCounters};
use crate::loops::verdict::{decision, verdict};
use crate::loops::vocabulary::Trigger;
use crate::value::{self, Naming, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// The owning engine, `early-stopping.mjs`'s `EarlyStopping` class: history, config, and the
/// last stopping reason.
///
/// Record each iteration's result, then ask whether to stop. Three records whose quality
/// moves by less than 2% are a plateau under the default config:
///
/// ```
/// use earlyexit::{EarlyStopping, EarlyStoppingConfig, IterationResult, Trigger, VerificationStatus};
///
/// let mut engine = EarlyStopping::new(EarlyStoppingConfig::default())?;
/// let clock = || "2026-01-01T00:00:00.000Z".to_string(); // the host's clock fills timestamps
/// engine.record(1, IterationResult::new(72.0, 0.6, VerificationStatus::Failed, 72.0), clock)?;
/// assert!(!engine.should_stop().stop); // one record: no plateau yet
/// engine.record(2, IterationResult::new(72.5, 0.6, VerificationStatus::Failed, 0.5), clock)?;
/// engine.record(3, IterationResult::new(72.8, 0.6, VerificationStatus::Failed, 0.3), clock)?;
///
/// let decision = engine.should_stop();
/// assert!(decision.stop);
/// assert_eq!(decision.trigger, Trigger::QualityPlateau);
/// assert_eq!(decision.best, Some((3, 72.8))); // the best iteration so far, to return
/// assert_eq!(engine.stopping_reason(), Some("Quality plateau detected: 3 consecutive iterations with <2% improvement"));
/// # Ok::<(), earlyexit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EarlyStopping {
    // `pub(super)`: the snapshot (loops/snapshot.rs) writes and restores every part.
    pub(super) config: EarlyStoppingConfig,
    pub(super) history: Vec<IterationRecord>,
    // The compact decision state (see loops/state.rs): what every decision reads.
    pub(super) counters: LoopCounters,
    pub(super) window: VecDeque<Observation>,
    pub(super) stopping_reason: Option<String>,
    pub(super) stopping_details: Option<StoppingDetails>,
    // Opt-in: a stop policy and its state, folded alongside (None: the config decides).
    pub(super) policy: Option<Box<(StopPolicy, PolicyState)>>,
    // The SHA-256 digest of the calibration artifact the config and policy came from, if
    // the host recorded one (the CLI's state file); kept in the snapshot.
    pub(super) policy_artifact: Option<String>,
    // Opt-in shadow mode: a candidate policy deciding beside this one without stopping it
    // (loops/candidate.rs); kept in the snapshot.
    pub(super) shadow: Option<Box<LoopShadow>>,
}

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
    pub(super) fn fresh(config: EarlyStoppingConfig) -> Self {
        EarlyStopping {
            config,
            history: Vec::new(),
            counters: LoopCounters::default(),
            window: VecDeque::new(),
            stopping_reason: None,
            stopping_details: None,
            policy: None,
            policy_artifact: None,
            shadow: None,
        }
    }

    /// A fresh engine from a partial config object (`null` = defaults), as upstream's
    /// constructor merges it over `DEFAULT_CONFIG`.
    pub fn from_config_value(config: &Value, naming: Naming) -> Result<Self> {
        let config = EarlyStoppingConfig::default().merged(config, naming, "config", ErrorCode::InvalidConfig)?;
        Ok(Self::fresh(config))
    }

    /// Upstream's `recordIterationResult(iteration, result)` for a result built in Rust; a
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

    /// Upstream's `recordIterationResult(iteration, result)` on host values.
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
        fold(&self.config, &mut self.counters, &mut self.window, record.observation, record.usage.as_deref());
        if let Some(policy) = self.policy.as_deref_mut() {
            policy.1.observe(
                record.observation,
                record.usage.as_deref(),
                record.behavior.as_deref(),
                self.config.min_quality_threshold,
            );
        }
    }

    /// Decides under `policy` from now on (`None`: by the config, as upstream). The policy's
    /// state is folded from the history so far; the config still sets everything else
    /// (iteration order, the best iteration's bar, the budgets listed, `getConfig()`).
    pub fn set_policy(&mut self, policy: Option<StopPolicy>) {
        self.policy = policy.map(|p| {
            let mut state = p.state();
            for record in &self.history {
                state.observe(
                    record.observation,
                    record.usage.as_deref(),
                    record.behavior.as_deref(),
                    self.config.min_quality_threshold,
                );
            }
            Box::new((p, state))
        });
    }

    /// The stop policy decisions are made under, if one is set.
    pub fn policy(&self) -> Option<&StopPolicy> {
        self.policy.as_deref().map(|p| &p.0)
    }

    /// Takes `given` as the loop's policy unless the loop already has one (restored from
    /// its snapshot): then `given` must be the same policy, else an `invalid_config` error
    /// on `policy` and nothing changes (a loop never switches policy silently).
    pub fn adopt_policy(&mut self, given: Option<StopPolicy>) -> Result<()> {
        let current = self.policy().cloned();
        if let Some(policy) = restored_policy(current, given)? {
            if self.policy.is_none() {
                self.set_policy(Some(policy));
            }
        }
        Ok(())
    }

    /// Records the SHA-256 digest (64 lowercase hex digits) of the calibration artifact the
    /// loop's config and policy came from; the snapshot keeps it as `policyArtifact`.
    pub fn set_policy_artifact(&mut self, sha256: Option<String>) -> Result<()> {
        if let Some(digest) = &sha256 {
            if !crate::artifact::is_sha256_hex(digest) {
                return Err(Error::new(
                    ErrorCode::InvalidConfig,
                    ErrorKind::Range,
                    "policyArtifact",
                    "policyArtifact must be a SHA-256 digest (64 lowercase hex digits)",
                ));
            }
        }
        self.policy_artifact = sha256;
        Ok(())
    }

    /// Runs `candidate` in shadow beside the engine's policy (`None` ends shadow mode): it
    /// decides at every decision, over the same history, but never stops the loop; each
    /// decision carries `would_stop` once it has fired. The engine's own policy (its tree,
    /// or its config's checks) must hold a hard cap, else `invalid_config` naming `shadow`
    /// ([`check_shadow_cap`]). A candidate with a `reason` is one the engine put in shadow
    /// itself (the calibrated policy of an artifact not trusted to act, beside the
    /// calibration's most conservative policy, which ends the loop as it would alone): no cap
    /// is asked then.
    pub fn set_shadow(&mut self, candidate: Option<ShadowCandidate>) -> Result<()> {
        let Some(candidate) = candidate else {
            self.shadow = None;
            return Ok(());
        };
        if candidate.reason.is_none() {
            match self.policy.as_deref() {
                Some((policy, _)) => check_shadow_cap(&policy.when)?,
                None => check_shadow_cap(&StopCondition::from_config(&self.config))?,
            }
        }
        let mut shadow = LoopShadow::new(candidate);
        shadow.sync(&self.history);
        self.shadow = Some(Box::new(shadow));
        Ok(())
    }

    /// The shadow candidate's state, in shadow mode.
    pub fn shadow(&self) -> Option<&LoopShadow> {
        self.shadow.as_deref()
    }

    /// Why the shadow candidate runs in shadow rather than enforced, when the engine put it
    /// there itself (an unpromoted or expired calibration artifact:
    /// [`enforced_from_artifact`](crate::loops::replay::enforced_from_artifact)); kept in snapshots.
    pub fn shadow_reason(&self) -> Option<&str> {
        self.shadow.as_deref().and_then(|s| s.candidate().reason.as_deref())
    }

    /// The digest of the calibration artifact the loop runs, if one was recorded.
    pub fn policy_artifact(&self) -> Option<&str> {
        self.policy_artifact.as_deref()
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

    /// Upstream's `shouldStop()`. `source` is asked (at most once) only when high confidence
    /// and plateau did not stop and `enable_diminishing_returns` is on; its error aborts the
    /// decision and leaves the engine unchanged.
    pub fn should_stop_with<E, F>(&mut self, source: Option<F>) -> std::result::Result<StoppingDecision, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let mut decision = match self.policy.as_deref() {
            Some((policy, state)) => policy.decide(&self.config, state, source)?,
            None => {
                decision(&self.config, &self.counters, verdict(&self.config, &self.counters, &self.window, source)?)
            }
        };
        if let Some(shadow) = self.shadow.as_deref_mut() {
            shadow.sync(&self.history);
            decision.would_stop = shadow.would_stop().cloned();
        }
        if decision.stop {
            self.stopping_reason = Some(decision.reason.clone());
            self.stopping_details = decision.details.clone();
        }
        Ok(decision)
    }

    /// Upstream's `generateSummary()` (it calls `shouldStop`, so it may set the stopping reason).
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
        let decision = StoppingDecision {
            best: None,
            budgets: Vec::new(),
            fired: None,
            would_stop: None,
            ..self.should_stop_with(source)?
        };
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

    /// Upstream's `configure(options)`: merges a partial config; one bad key changes nothing.
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
        if let Some(policy) = self.policy.as_deref_mut() {
            policy.1 = policy.0.state();
        }
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

    /// The `quality_delta` a record of `iteration` with `quality_score` implies when the
    /// caller gives none: the score minus that of the latest recorded iteration before
    /// `iteration` (`None`: after every recorded one), 0 when there is none
    /// ([`implied_quality_delta`](crate::loops::replay::implied_quality_delta), which replay
    /// uses). One rule for every surface that records without a delta. O(history) at worst,
    /// O(1) when `iteration` follows the last record.
    pub fn implied_quality_delta(&self, iteration: Option<u64>, quality_score: f64) -> f64 {
        let before = iteration.unwrap_or(u64::MAX);
        let previous =
            self.history.iter().rev().find(|r| r.observation.iteration < before).map(|r| r.observation.quality_score);
        crate::loops::replay::implied_quality_delta(previous, quality_score)
    }

    /// [`implied_quality_delta`](Self::implied_quality_delta) for an iteration number and a
    /// score as a host got them (each a number or not): the one rule the command, the MCP
    /// server and the bindings' `record` without a delta follow. `None` when the score is
    /// not a number (recording then fails naming it); an iteration that is not a whole
    /// number >= 0 (or none: the next one) is looked up after every record (recording then
    /// fails naming it, unless it is the next one).
    pub fn implied_quality_delta_of(&self, iteration: Option<f64>, quality_score: Option<f64>) -> Option<f64> {
        let quality_score = quality_score?;
        let before = iteration.filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n < u64::MAX as f64).map(|n| n as u64);
        Some(self.implied_quality_delta(before, quality_score))
    }

    /// Upstream's `reset()`: clears history and stopping state, keeps the config.
    pub fn reset(&mut self) {
        self.history.clear();
        self.counters = LoopCounters::default();
        self.window.clear();
        if let Some(policy) = self.policy.as_deref_mut() {
            policy.1 = policy.0.state();
        }
        self.stopping_reason = None;
        self.stopping_details = None;
        if let Some(shadow) = self.shadow.as_deref_mut() {
            shadow.sync(&[]);
        }
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
