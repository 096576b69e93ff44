//! [`StopPolicy`]: a condition tree and the output to return, and the tree's keys in a
//! policy object.

use crate::loops::behavior::BehaviorIteration;
use crate::loops::config::EarlyStoppingConfig;
use crate::loops::decision::StoppingDecision;
use crate::loops::details::DiminishingReturnsReport;
use crate::loops::policy::condition::StopCondition;
use crate::loops::policy::evaluate::{decide_policy, policy_decision, PolicyState};
use crate::loops::presets::{LoopPreset, ReturnPolicy};
use crate::loops::records::{Observation, ResourceUsage};
use crate::value::{Error, ErrorCode, ErrorKind, Result, Value};

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
        behavior: Option<&BehaviorIteration>,
        min_quality_threshold: f64,
    ) {
        state.observe(observation, usage, behavior, min_quality_threshold);
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

/// The policy a restored loop decides under: the one its snapshot holds (`restored`), else
/// the one given with it. Giving one that differs from the snapshot's is an error
/// (`invalid_config` on `policy`): the snapshot's policy wins only when they agree, so a
/// loop never switches policy without a word.
pub fn restored_policy(restored: Option<StopPolicy>, given: Option<StopPolicy>) -> Result<Option<StopPolicy>> {
    match (restored, given) {
        (Some(restored), Some(given)) if restored != given => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            "policy",
            "policy differs from the stop policy the loop decides under (its snapshot's): give none to keep \
             that one, or the same",
        )),
        (Some(restored), _) => Ok(Some(restored)),
        (None, given) => Ok(given),
    }
}
