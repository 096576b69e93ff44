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
//! Files: `condition` (the tree and its JSON form) < `stop` ([`StopPolicy`]) < `evaluate` ([`PolicyState`],
//! [`decide_policy`], [`policy_decision`]) < `host` (a decider holding the state, for a
//! binding that keeps the history itself).

mod condition;
mod evaluate;
pub(crate) mod host;
pub(crate) mod stop;

pub use condition::{BehaviorCondition, ConditionKind, StopCondition, COMBINATOR_KEYS, MAX_DEPTH};
pub use evaluate::{decide_policy, policy_decision, PolicyState, PolicyVerdict, ProgressState};
pub use host::PolicyDecider;
pub use stop::{restored_policy, StopPolicy, TREE_KEYS};
pub(crate) use stop::{tree_entries, tree_of};
