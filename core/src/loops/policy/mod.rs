//! Stop policies: stop conditions as values, composed into a tree ([`StopCondition`]), plus
//! which output a loop returns ([`StopPolicy`]).
//!
//! Every check of the engine is a condition with its own settings (`high_confidence`,
//! `quality_plateau`, `diminishing_returns`, `max_total_tokens`, `max_total_cost_usd`,
//! `max_wall_clock_ms`, `max_iterations`, `quality_regression`, `no_improvement`), and the
//! combinators `any`, `all`, `k_of` and `not_before` (a warm-up gate) build trees of them. A
//! config is one such tree ([`StopCondition::from_config`]): evaluated, it decides exactly
//! as the config's order of checks does (the `loops` module doc), so the seed's behaviour is
//! the tree of the default config.
//!
//! Evaluation is lazy and in order: `any` stops at the first child that fires, `all` at the
//! first that does not, `k_of` once `k` fired or too few are left, and `not_before` does not
//! look at its child before its iteration. So an outside diminishing-returns source is asked
//! exactly when evaluation reaches a `diminishing_returns` condition (at most once per
//! decision), as upstream asks it only when nothing before it stopped.
//!
//! A decision under a policy lists the conditions that fired (`fired`: each one's kind,
//! path in the tree, reason and details); without a policy that key is absent, so every
//! default output stays upstream's. The JSON form is documented in `docs/loop-policies.md`.
//!
//! Files: `condition` (the tree and its JSON form) < `evaluate` ([`PolicyState`],
//! [`decide_policy`], [`policy_decision`]).

mod condition;
mod evaluate;

pub use condition::{ConditionKind, StopCondition, COMBINATOR_KEYS, MAX_DEPTH};
pub use evaluate::{decide_policy, policy_decision, PolicyState, PolicyVerdict};

use crate::loops::config::EarlyStoppingConfig;
use crate::loops::decision::StoppingDecision;
use crate::loops::details::DiminishingReturnsReport;
use crate::loops::presets::{LoopPreset, ReturnPolicy};
use crate::loops::records::{Observation, ResourceUsage};
use crate::value::{ErrorCode, Result, Value};

/// A stop policy: when to stop (a condition tree) and which output to return.
#[derive(Clone, Debug, PartialEq)]
pub struct StopPolicy {
    /// When to stop.
    pub when: StopCondition,
    /// Which output a loop under the policy returns.
    pub returns: ReturnPolicy,
}

impl StopPolicy {
    /// The policy a config stands for, returning the last output (upstream's loop).
    pub fn from_config(config: &EarlyStoppingConfig) -> Self {
        StopPolicy { when: StopCondition::from_config(config), returns: ReturnPolicy::Last }
    }

    /// A named preset's policy (its config's tree and its returned output).
    pub fn preset(preset: LoopPreset) -> Self {
        StopPolicy { when: StopCondition::from_config(&preset.config()), returns: preset.returns() }
    }

    /// The policy's tree and `returns` as the JSON form's keys: `{returns, any: [...]}`
    /// (the root's combinator key; a leaf root is written as `any` of one).
    pub fn to_value(&self) -> Value {
        let mut entries = vec![("returns".to_string(), Value::string(self.returns.as_str()))];
        entries.extend(tree_entries(&self.when));
        Value::Object(entries)
    }

    /// A fresh state for this policy.
    pub fn state(&self) -> PolicyState {
        PolicyState::new(&self.when)
    }

    /// Folds a record into `state` (`min_quality_threshold`: the best iteration's bar).
    pub fn observe(
        &self,
        state: &mut PolicyState,
        observation: Observation,
        usage: Option<&ResourceUsage>,
        min_quality_threshold: f64,
    ) {
        state.observe(observation, usage, min_quality_threshold);
    }

    /// The decision over `(policy, state)`: [`decide_policy`] then [`policy_decision`]
    /// (`config` gives the decision's `budgets` list, as the engine's does).
    pub fn decide<E, F>(
        &self,
        config: &EarlyStoppingConfig,
        state: &PolicyState,
        source: Option<F>,
    ) -> std::result::Result<StoppingDecision, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let verdict = decide_policy(&self.when, state, source)?;
        Ok(policy_decision(config, state, verdict))
    }
}

/// The keys of a policy object that hold its condition tree: a combinator's key and its
/// companion (`of` for `k_of`, `then` for `not_before`).
pub const TREE_KEYS: [&str; 6] = ["any", "all", "k_of", "of", "not_before", "then"];

/// The tree in a policy object's tree keys (`None` when it has none).
pub fn tree_of(policy: &Value, code: ErrorCode) -> Result<Option<StopCondition>> {
    let Value::Object(entries) = policy else { return Ok(None) };
    let tree: Vec<(String, Value)> = entries.iter().filter(|(k, _)| TREE_KEYS.contains(&k.as_str())).cloned().collect();
    if tree.is_empty() {
        return Ok(None);
    }
    StopCondition::from_value(&Value::Object(tree), "", code).map(Some)
}

/// The tree's entries as a policy object holds them.
pub fn tree_entries(when: &StopCondition) -> Vec<(String, Value)> {
    let root = match when.kind() {
        Some(_) => StopCondition::Any(vec![when.clone()]),
        None => when.clone(),
    };
    match root.to_value() {
        Value::Object(entries) => entries,
        _ => Vec::new(),
    }
}
