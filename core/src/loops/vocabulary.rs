//! The loop engine's vocabulary: the verification status a record reports, the trigger a
//! decision names and the opt-in budgets, each one [`named_enum!`](crate::value) table.

use crate::value::named_enum;

named_enum! {
    /// The verification outcome an iteration reports.
    pub enum VerificationStatus {
        /// Verification ran and passed.
        Passed = "passed",
        /// Verification ran and failed.
        Failed = "failed",
        /// Verification was not run.
        Skipped = "skipped",
    }
}

named_enum! {
    /// Which criterion stopped the loop (`'none'` when it goes on): upstream's four first,
    /// then the opt-in options' triggers in the same style.
    #[non_exhaustive]
    pub enum Trigger {
        /// Nothing stopped.
        None = "none",
        /// High confidence (with verification passed, when required).
        HighConfidence = "high_confidence",
        /// Quality plateau.
        QualityPlateau = "quality_plateau",
        /// Diminishing returns reported by the analytics source.
        DiminishingReturns = "diminishing_returns",
        /// Opt-in hard limit `maxIterations` reached.
        MaxIterations = "max_iterations",
        /// Opt-in budget (tokens, cost, wall-clock) exceeded.
        BudgetExhausted = "budget_exhausted",
        /// Opt-in regression guard: quality stayed below the best for too long.
        QualityRegression = "quality_regression",
        /// Opt-in give-up rule: `noImprovementPatience` records in a row without a new best.
        NoImprovement = "no_improvement",
        /// A behaviour detector condition's detection at a level that stops, below `abort`
        /// (the host halts for a human, as an intervention's pause).
        BehaviorPause = "behavior_pause",
        /// A behaviour detector condition's detection at level `abort`.
        BehaviorAbort = "behavior_abort",
        /// The loop reported its own completion (`completed: true`; the `completed`
        /// condition, unrelated to the pyramid's `completed` exit reason).
        Completed = "completed",
        /// The `unchanged` condition: the last records carry one fingerprint.
        Unchanged = "unchanged",
        /// The `revisit` condition: a fingerprint seen a few records before came back.
        Revisit = "revisit",
    }
}

named_enum! {
    /// The three opt-in budgets, in the order of the fast path's slots and of a decision's
    /// `budgets` list.
    pub enum Budget {
        /// Sum of `tokens_used` (`maxTotalTokens`).
        Tokens = "tokens",
        /// Sum of `token_cost_usd` (`maxTotalCostUsd`).
        CostUsd = "cost_usd",
        /// Sum of `execution_time_ms` (`maxWallClockMs`).
        WallClockMs = "wall_clock_ms",
    }
}

impl Budget {
    /// The record field the budget sums.
    pub fn field(self) -> &'static str {
        match self {
            Budget::Tokens => "tokens_used",
            Budget::CostUsd => "token_cost_usd",
            Budget::WallClockMs => "execution_time_ms",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_table_reads_back_its_names_in_order() {
        for (i, status) in VerificationStatus::ALL.into_iter().enumerate() {
            assert_eq!((status.index(), VerificationStatus::parse(status.as_str())), (i, Some(status)));
        }
        for (i, trigger) in Trigger::ALL.into_iter().enumerate() {
            assert_eq!((trigger.index(), Trigger::parse(trigger.as_str())), (i, Some(trigger)));
        }
        for (i, budget) in Budget::ALL.into_iter().enumerate() {
            assert_eq!((budget.index(), Budget::parse(budget.as_str())), (i, Some(budget)));
        }
        assert_eq!(VerificationStatus::NAMES, ["passed", "failed", "skipped"]);
        assert_eq!(Trigger::NAMES[..4], ["none", "high_confidence", "quality_plateau", "diminishing_returns"]);
        assert_eq!(Budget::NAMES, ["tokens", "cost_usd", "wall_clock_ms"]);
        assert_eq!(Trigger::parse("None"), None);
    }
}
