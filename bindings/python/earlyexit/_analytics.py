"""Types of ``IterationAnalytics``, the built-in diminishing-returns source: its literals,
keyword options and the shape of each ``to_dict()`` (upstream's keys, in its order).
"""

from __future__ import annotations

import os
from typing import List, Optional, TypedDict, Union

from ._loops import VerificationStatus
from ._literals import Trajectory as Trajectory
from ._literals import SelectionCriteria as SelectionCriteria


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
