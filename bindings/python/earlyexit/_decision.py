"""What the loop engine answers: the ``details`` of a stop (one ``TypedDict`` per trigger,
and their union :data:`StoppingDetails`), ``StoppingDecision.to_dict()`` with its
``budgets``, and ``StoppingSummary.to_dict()``.
"""

from __future__ import annotations

from typing import Dict, List, Optional, TypedDict, Union, final

from ._loops import Budget, EarlyStoppingConfigDict, Trigger, VerificationStatus


class _HighConfidenceRequired(TypedDict):
    confidence: float
    quality_score: float


@final
class HighConfidenceDetails(_HighConfidenceRequired, total=False):
    """``details`` of a ``high_confidence`` stop (status only when verification is required)."""

    verification_status: VerificationStatus


class PlateauStepDict(TypedDict):
    """One step of a detected plateau."""

    iteration: int
    improvement: float
    delta: float


@final
class PlateauDetails(TypedDict):
    """``details`` of a ``quality_plateau`` stop."""

    consecutive_count: int
    improvements: List[PlateauStepDict]
    average_quality: float
    threshold: float


class _DiminishingReturnsDetailsRequired(TypedDict):
    analytics_reason: str


@final
class DiminishingReturnsDetails(_DiminishingReturnsDetailsRequired, total=False):
    """``details`` of a ``diminishing_returns`` stop (the source's iteration, verbatim)."""

    detected_at_iteration: Optional[int]


@final
class MaxIterationsDetails(TypedDict):
    """``details`` of a ``max_iterations`` stop (opt-in ``max_iterations``)."""

    iterations: int
    max_iterations: int


@final
class BudgetExhaustedDetails(TypedDict):
    """``details`` of a ``budget_exhausted`` stop: which budget, its limit, the observed sum,
    and how many records did not report the field (unknown, not zero)."""

    budget: Budget
    limit: float
    observed: float
    records_without_value: int


@final
class QualityRegressionDetails(TypedDict):
    """``details`` of a ``quality_regression`` stop (opt-in regression guard)."""

    best_iteration: int
    best_quality_score: float
    tolerance: float
    patience: int


@final
class NoImprovementDetails(TypedDict):
    """``details`` of a ``no_improvement`` stop (opt-in ``no_improvement_patience``)."""

    best_iteration: int
    best_quality_score: float
    iterations_without_improvement: int
    patience: int


#: The ``details`` of a stopping decision. The members are ``@final``, so a key test narrows
#: the union under a type checker: ``if "budget" in details: details["observed"]``.
StoppingDetails = Union[
    HighConfidenceDetails,
    PlateauDetails,
    DiminishingReturnsDetails,
    MaxIterationsDetails,
    BudgetExhaustedDetails,
    QualityRegressionDetails,
    NoImprovementDetails,
]


class BudgetStatusDict(TypedDict):
    """One entry of a decision's ``budgets`` (listed once a budget is configured): the
    observed sum covers only the records that report the field; ``records_without_value``
    says how many did not (their use is unknown, not zero)."""

    budget: Budget
    limit: float
    observed: float
    records_without_value: int
    exhausted: bool


class _StoppingDecisionRequired(TypedDict):
    stop: bool
    reason: str
    confidence: float
    trigger: Trigger
    best_iteration: Optional[int]
    best_quality_score: Optional[float]


class StoppingDecisionDict(_StoppingDecisionRequired, total=False):
    """``StoppingDecision.to_dict()``: ``early-stopping.mjs``'s decision plus the best-iteration extras
    (and ``budgets`` once a budget is configured)."""

    details: StoppingDetails
    budgets: List[BudgetStatusDict]
    fired: List[Dict[str, object]]
    interventions: List[Dict[str, object]]
    would_stop: Dict[str, object]


class _StoppingSummaryRequired(TypedDict):
    total_iterations: int
    stopped_early: bool


class StoppingSummaryDict(_StoppingSummaryRequired, total=False):
    """``StoppingSummary.to_dict()``: ``early-stopping.mjs``'s ``generateSummary()``; an empty history has
    only ``total_iterations``, ``stopped_early`` and ``reason``."""

    reason: str
    stopping_trigger: Trigger
    stopping_reason: str
    stopping_confidence: float
    final_quality: float
    final_confidence: float
    final_verification: VerificationStatus
    config: EarlyStoppingConfigDict
    details: StoppingDetails
