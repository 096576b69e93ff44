"""Type names of the public API: the string literals results carry, the keyword options
each engine takes, and the exact shape of every ``to_dict()`` (the JSON the JS API returns,
so camelCase where the original modules use it).

These are plain ``typing`` constructs (no runtime behaviour); import them for annotations:
``from earlyexit import StoppingDecisionDict, Trigger``.
"""

from __future__ import annotations

import os
from typing import Dict, List, Literal, Optional, TypedDict, Union, final

__all__ = [
    "ActionKind",
    "AnalyticsConfigDict",
    "AnalyticsConfigOptions",
    "AnalyticsOptions",
    "AnalyticsRecordDict",
    "AnalyticsSummaryDict",
    "Budget",
    "BudgetExhaustedDetails",
    "BudgetStatusDict",
    "DiminishingReturnsDetails",
    "DiminishingReturnsDict",
    "EarlyStoppingConfigDict",
    "EarlyStoppingOptions",
    "ErrorCode",
    "ExitConfigDict",
    "ExitDecisionDict",
    "ExitOptions",
    "ExitReason",
    "FailingLayerDict",
    "HighConfidenceDetails",
    "IterationRecordDict",
    "IterationResultDict",
    "IterationAnalyticsOptions",
    "IterationSelectionDict",
    "LayerResultDict",
    "LoopPolicyDict",
    "LoopPresetName",
    "MaxIterationsDetails",
    "NoImprovementDetails",
    "Outcome",
    "PlateauDeltaSource",
    "PlateauDetails",
    "PlateauMode",
    "PlateauStepDict",
    "PyramidActionDict",
    "QualityRegressionDetails",
    "QualitySignalDict",
    "ReplayRunOutcomeDict",
    "ReplaySummaryDict",
    "ReportOptions",
    "SelectionCriteria",
    "SpeculationDict",
    "StoppingDecisionDict",
    "StoppingDetails",
    "StoppingSummaryDict",
    "TestPyramidResultDict",
    "Trajectory",
    "Trigger",
    "Verdict",
    "VerificationStatus",
]

# --- string literals ---------------------------------------------------------------------

#: Which criterion stopped the loop (``"none"`` when it goes on).
Trigger = Literal[
    "none",
    "high_confidence",
    "quality_plateau",
    "diminishing_returns",
    "max_iterations",
    "budget_exhausted",
    "quality_regression",
    "no_improvement",
]
#: Which opt-in budget a ``budget_exhausted`` stop or a ``budgets`` entry names.
Budget = Literal["tokens", "cost_usd", "wall_clock_ms"]
#: Opt-in ``plateau_delta_source``: the caller's ``quality_delta`` (the default) or the score difference.
PlateauDeltaSource = Literal["reported", "computed"]
#: Opt-in ``plateau_mode``: threshold as a fraction of the previous score (the default) or in points.
PlateauMode = Literal["relative", "absolute"]
#: An iteration's verification outcome.
VerificationStatus = Literal["passed", "failed", "skipped"]
#: ``IterationAnalytics.trajectory()``.
Trajectory = Literal["insufficient_data", "improving", "declining", "stable", "fluctuating"]
#: How ``IterationAnalytics.select_best_iteration()`` chooses.
SelectionCriteria = Literal["highest_quality_verified", "highest_quality", "most_recent_above_threshold"]
#: Why ``CoherenceEarlyExit.should_exit()`` answered as it did.
ExitReason = Literal[
    "forced_continue",
    "lambda_too_low",
    "lambda_unstable",
    "boundaries_concentrated",
    "insufficient_confidence",
    "confident_exit",
]
#: A layer outcome, predicted or observed.
Outcome = Literal["pass", "flaky", "fail"]
#: A pyramid run's verdict: a layer that ran or was verified failed; every layer ran or was
#: verified and passed; or no failure seen but some layers were skipped unverified.
Verdict = Literal["failed", "passed", "unverified"]
#: What ``PyramidRun.next()`` asks for.
ActionKind = Literal["run", "verify", "done"]
#: ``EarlyExitError.code``.
ErrorCode = Literal[
    "invalid_config",
    "unknown_option",
    "invalid_result",
    "invalid_iteration",
    "invalid_layer_result",
    "invalid_signal",
    "invalid_analytics",
    "invalid_snapshot",
    "invalid_step",
    "invalid_replay",
]

# --- keyword options (snake_case) ---------------------------------------------------------


class EarlyStoppingOptions(TypedDict, total=False):
    """Keyword options of ``EarlyStopping(...)`` / ``configure(...)``: ``early-stopping.mjs``'s seven, then
    the opt-in ones (budgets, iteration limits, plateau variants, regression guard)."""

    high_confidence_threshold: float
    plateau_consecutive_count: int
    plateau_improvement_threshold: float
    min_quality_threshold: float
    require_verification: bool
    enable_plateau_detection: bool
    enable_diminishing_returns: bool
    plateau_delta_source: PlateauDeltaSource
    plateau_mode: PlateauMode
    min_iterations: int
    max_iterations: int
    max_total_tokens: float
    max_total_cost_usd: float
    max_wall_clock_ms: float
    regression_tolerance: float
    regression_patience: int
    plateau_min_quality: float
    no_improvement_patience: int
    strict_iterations: bool


class AnalyticsOptions(TypedDict, total=False):
    """The rules of ``IterationAnalytics``: keyword options of ``AnalyticsConfig(...)`` and
    ``IterationAnalytics(...)``, and a loop replay policy's ``analytics``."""

    diminishing_returns_threshold: float
    consecutive_count_threshold: int
    quality_threshold: float
    selection_criteria: SelectionCriteria


class AnalyticsConfigOptions(AnalyticsOptions, total=False):
    """Keyword options of ``AnalyticsConfig(...)``: the rules and ``storage_path``."""

    storage_path: str


class IterationAnalyticsOptions(AnalyticsOptions, total=False):
    """Keyword options of ``IterationAnalytics(...)`` (and of ``load`` / ``from_summary``):
    the rules, where upstream's form saves (``storage_path``), whether it saves after every
    record (``persist``; default ``True`` for upstream's form, which is what upstream does;
    the config-object form never saves by itself) and the times, RFC 3339, that the clock
    would otherwise give (``start_time``; ``end_time``, which the first summary sets)."""

    storage_path: Union[str, os.PathLike[str]]
    persist: bool
    start_time: str
    end_time: str


class ReportOptions(TypedDict, total=False):
    """Keyword options of ``IterationAnalytics.report(...)``: the time on the report's last
    line (RFC 3339; default: now)."""

    generated_at: str


class ExitOptions(TypedDict, total=False):
    """Keyword options of ``EarlyExitConfig(...)`` (merged over ``EarlyExitConfig.DEFAULT``)."""

    exit_layer: int
    min_lambda_for_exit: float
    min_lambda_stability: float
    max_boundary_concentration: float
    speculative_tests: int
    verification_layers: int
    adaptive_exit_layer: bool
    min_confidence: float


class _IterationResultRequired(TypedDict):
    quality_score: float
    confidence: float
    verification_status: VerificationStatus
    quality_delta: float


class IterationResultDict(_IterationResultRequired, total=False):
    """``early-stopping.mjs``'s iteration result, as ``EarlyStopping.record_result()`` takes it."""

    timestamp: str
    tokens_used: float
    token_cost_usd: float
    execution_time_ms: float
    iteration_number: int


# --- loop stopping: what to_dict() returns -------------------------------------------------


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


class BudgetStatusDict(TypedDict):
    """One entry of a decision's ``budgets`` (listed once a budget is configured): the
    observed sum covers only the records that report the field; ``records_without_value``
    says how many did not (their use is unknown, not zero)."""

    budget: Budget
    limit: float
    observed: float
    records_without_value: int
    exhausted: bool


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


class _IterationRecordRequired(TypedDict):
    iteration_number: int
    quality_score: float
    confidence: float
    verification_status: VerificationStatus
    quality_delta: float
    timestamp: str


class IterationRecordDict(_IterationRecordRequired, total=False):
    """``IterationRecord.to_dict()``: ``early-stopping.mjs``'s six fields plus the usage given."""

    tokens_used: float
    token_cost_usd: float
    execution_time_ms: float


class _EarlyStoppingConfigRequired(TypedDict):
    highConfidenceThreshold: float
    plateauConsecutiveCount: int
    plateauImprovementThreshold: float
    minQualityThreshold: float
    requireVerification: bool
    enablePlateauDetection: bool
    enableDiminishingReturns: bool


class EarlyStoppingConfigDict(_EarlyStoppingConfigRequired, total=False):
    """``EarlyStoppingConfig.to_dict()``: ``early-stopping.mjs``'s ``getConfig()`` (camelCase), then the
    opt-in options that are set."""

    plateauDeltaSource: PlateauDeltaSource
    plateauMode: PlateauMode
    minIterations: int
    maxIterations: int
    maxTotalTokens: float
    maxTotalCostUsd: float
    maxWallClockMs: float
    regressionTolerance: float
    regressionPatience: int
    plateauMinQuality: float
    noImprovementPatience: int
    strictIterations: bool


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


# --- analytics: what to_dict() returns ------------------------------------------------------


class AnalyticsConfigDict(TypedDict):
    """``AnalyticsConfig.to_dict()`` (camelCase, upstream's keys in its order)."""

    storagePath: str
    diminishingReturnsThreshold: float
    consecutiveCountThreshold: int
    qualityThreshold: float
    selectionCriteria: SelectionCriteria


class _AnalyticsRecordRequired(TypedDict):
    iteration_number: int
    timestamp: str
    quality_score: float
    quality_delta: float
    verification_status: VerificationStatus
    reflections: List[str]


class AnalyticsRecordDict(_AnalyticsRecordRequired, total=False):
    """``AnalyticsRecord.to_dict()``: upstream's record (optional keys only when given)."""

    tokens_used: float
    token_cost_usd: float
    execution_time_ms: float
    output_snapshot_path: Optional[str]


class _DiminishingReturnsRequired(TypedDict):
    detected: bool
    reason: str


class DiminishingReturnsDict(_DiminishingReturnsRequired, total=False):
    """``DiminishingReturnsReport.to_dict()``: ``{detected, iteration, reason}``."""

    iteration: Optional[int]


class IterationSelectionDict(TypedDict):
    """``IterationSelection.to_dict()``."""

    selected: Optional[AnalyticsRecordDict]
    reason: str


class AnalyticsSummaryDict(TypedDict):
    """``AnalyticsSummary.to_dict()``: upstream's ``AnalyticsSummary``, keys in its order."""

    loop_id: Optional[str]
    task_description: Optional[str]
    start_time: Optional[str]
    end_time: Optional[str]
    iterations: List[AnalyticsRecordDict]
    total_iterations: int
    optimal_iteration: Optional[int]
    final_iteration: int
    selected_iteration: Optional[int]
    selection_reason: str
    total_tokens: float
    total_cost_usd: float
    total_time_ms: float
    diminishing_returns_detected: bool
    diminishing_returns_iteration: Optional[int]
    quality_trajectory: Trajectory


# --- test pyramid: what to_dict() returns ----------------------------------------------------


class _LayerResultRequired(TypedDict):
    passRate: float
    coverage: float
    flakyRatio: float


class LayerResultDict(_LayerResultRequired, total=False):
    """``LayerResult.to_dict()`` (camelCase; extra keys a runner returned are kept too)."""

    previousLambda: float
    name: str
    durationMs: float
    total: int
    passed: int
    failed: int
    flaky: int


QualitySignalDict = TypedDict(
    "QualitySignalDict",
    {
        "lambda": float,
        "lambdaPrev": float,
        "boundaryEdges": int,
        "boundaryConcentration": float,
        "partitionCount": int,
        "flags": int,
    },
)
"""``QualitySignal.to_dict()`` (camelCase)."""


class ExitConfigDict(TypedDict):
    """``EarlyExitConfig.to_dict()`` (camelCase)."""

    exitLayer: int
    minLambdaForExit: float
    minLambdaStability: float
    maxBoundaryConcentration: float
    speculativeTests: int
    verificationLayers: int
    adaptiveExitLayer: bool
    minConfidence: float


class ExitDecisionDict(TypedDict):
    """``ExitDecision.to_dict()`` (camelCase)."""

    canExit: bool
    confidence: float
    exitLayer: int
    reason: ExitReason
    enableSpeculation: bool
    explanation: str


class _SpeculationRequired(TypedDict):
    predicted: Outcome
    confidence: float
    verified: bool


class SpeculationDict(_SpeculationRequired, total=False):
    """``Speculation.to_dict()`` (``actual`` and ``correct`` once verified)."""

    actual: Outcome
    correct: bool


class FailingLayerDict(TypedDict):
    """``FailingLayer.to_dict()``: a failing layer's index and name."""

    layer: int
    name: str


class TestPyramidResultDict(TypedDict):
    """``TestPyramidResult.to_dict()``: the pyramid result plus the honest-accounting fields."""

    layers: List[LayerResultDict]
    exitedEarly: bool
    exitLayer: int
    exitReason: ExitReason
    confidence: float
    speculations: List[SpeculationDict]
    skippedLayers: int
    layersExecuted: List[int]
    verifiedLayers: int
    mispredictions: int
    computeSavedMs: Optional[float]
    verdict: Verdict
    failingLayers: List[FailingLayerDict]


class _PyramidActionRequired(TypedDict):
    action: ActionKind


class PyramidActionDict(_PyramidActionRequired, total=False):
    """``PyramidAction.to_dict()``: ``{action, layer}`` (no layer when done)."""

    layer: int


#: A JSON object as returned by ``to_dict()`` where no narrower type applies.
JSONObject = Dict[str, object]


# --- loop replay (docs/replay.md) --------------------------------------------------------

#: The named loop presets; ``"seed"`` (``early-stopping.mjs``'s defaults) is the default everywhere.
LoopPresetName = Literal["seed", "recommended"]


class LoopPolicyDict(TypedDict, total=False):
    """A replay policy: a preset with a config merged over it (snake_case keys)."""

    preset: LoopPresetName
    config: EarlyStoppingOptions
    returns: Literal["last", "best"]
    analytics: Union[bool, AnalyticsOptions]


class ReplayRunOutcomeDict(TypedDict, total=False):
    """What a policy did on one run (``LoopReplay.runs``)."""

    id: str
    dataset: str
    iterations_available: int
    iterations_run: int
    stopped: bool
    trigger: str
    reason: Union[str, None]
    returned_iteration: int
    returned_quality: float
    best_iteration: int
    best_quality: float
    quality_gap: float
    premature: bool
    wasted_iterations: int
    returned_good: bool
    false_pass: bool


class ReplaySummaryDict(TypedDict):
    """Aggregates over the replayed runs (``LoopReplay.summary``)."""

    runs: int
    iterations_available: int
    iterations_used: int
    mean_iterations: float
    share_of_available: float
    mean_returned_quality: float
    mean_best_quality: float
    mean_quality_gap: float
    premature_stops: int
    premature_rate: float
    wasted_iterations: int
    mean_wasted_iterations: float
    returned_good: int
    reachable_good: int
    false_passes: int
    ended_without_stop: int
    triggers: dict[str, int]
