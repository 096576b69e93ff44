"""Types of the loop engine (``EarlyStopping``): the string literals its results carry,
its keyword options, and the exact shape of each ``to_dict()`` (the JSON the JS API
returns, camelCase where ``early-stopping.mjs`` uses it). What a decision answers is in
``_decision``.
"""

from __future__ import annotations

from typing import List, Optional, TypedDict

from ._literals import Trigger as Trigger
from ._literals import Budget as Budget
from ._literals import PlateauDeltaSource as PlateauDeltaSource
from ._literals import PlateauMode as PlateauMode
from ._literals import VerificationStatus as VerificationStatus


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
    floor_patience: int
    floor_quality: float


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
    # What behaviour detector conditions read (docs/loop-policies.md); absent = unknown.
    error: Optional[str]
    failure_class: Optional[str]
    blockers: Optional[List[str]]
    completion_percentage: float
    artifacts_modified: Optional[List[str]]
    learnings: Optional[str]
    tests_passing: bool
    coverage_percent: Optional[float]
    # Progress signals: what `unchanged`/`revisit` compare, and the completion signal.
    fingerprint: Optional[str]
    completed: Optional[bool]


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
    error: str
    failure_class: str
    blockers: List[str]
    completion_percentage: float
    artifacts_modified: List[str]
    learnings: str
    tests_passing: bool
    coverage_percent: float
    fingerprint: str
    completed: bool


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
    floorPatience: int
    floorQuality: float
