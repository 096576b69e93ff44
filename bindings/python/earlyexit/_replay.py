"""Types of loop replay (``replay_loops``, docs/replay.md): the preset names, a policy,
and what ``LoopReplay`` holds.
"""

from __future__ import annotations

from typing import TypedDict, Union

from ._analytics import AnalyticsOptions
from ._loops import EarlyStoppingOptions
from ._literals import LoopPresetName as LoopPresetName
from ._literals import ReturnPolicy


class LoopPolicyDict(TypedDict, total=False):
    """A replay policy: a preset with a config merged over it (snake_case keys)."""

    preset: LoopPresetName
    config: EarlyStoppingOptions
    returns: ReturnPolicy
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
