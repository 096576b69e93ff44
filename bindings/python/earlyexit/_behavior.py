"""Types of the behaviour detectors and interventions (``BehaviorDetector``,
``InterventionSystem``; docs/behavior.md): their literals, what a history iteration holds,
and the shape of each ``to_dict()`` (upstream's keys, in its order).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Mapping, Optional, Sequence, TypedDict, Union

from ._literals import DetectionType as DetectionType
from ._literals import Severity as Severity
from ._literals import InterventionLevel as InterventionLevel
from ._literals import LogLevel as LogLevel


class StuckThresholdsDict(TypedDict, total=False):
    same_error_count: int
    no_progress_iterations: int


class OscillationThresholdsDict(TypedDict, total=False):
    undo_redo_cycles: int
    file_churn_threshold: float


class DeviationThresholdsDict(TypedDict, total=False):
    objective_similarity: float
    scope_creep_ratio: float


class ResourceThresholdsDict(TypedDict, total=False):
    cost_multiplier: float
    iteration_multiplier: float


class RegressionThresholdsDict(TypedDict, total=False):
    test_pass_to_fail: bool
    coverage_drop_percent: float


class ThresholdsOptions(TypedDict, total=False):
    """Groups given to ``BehaviorDetector(thresholds=...)`` / ``update_thresholds``: each
    replaces the whole group (a field it leaves out is absent: its rule is off; an absent
    ``no_progress_iterations`` makes the stuck window the whole history)."""

    stuck: StuckThresholdsDict
    oscillation: OscillationThresholdsDict
    deviation: DeviationThresholdsDict
    resource: ResourceThresholdsDict
    regression: RegressionThresholdsDict


class AnalysisDict(TypedDict, total=False):
    """What the detectors read of an iteration's ``analysis`` (other keys are ignored)."""

    failure_class: str
    error: str
    blockers: Sequence[str]
    completion_percentage: float
    artifacts_modified: Sequence[str]
    learnings: str
    tests_passing: bool
    coverage_percent: float


class ContextDict(TypedDict, total=False):
    """What the detectors read of an iteration's ``context`` (other keys are ignored)."""

    objective: str
    max_iterations: int


class BehaviorIterationDict(TypedDict, total=False):
    """One iteration of a loop's history, as upstream's loop records it (absent or ``None``:
    unknown; camelCase keys, as upstream spells them, are read too)."""

    number: int
    analysis: AnalysisDict
    context: ContextDict


#: A history: upstream's iteration dicts (any other keys are ignored).
History = Sequence[Union[BehaviorIterationDict, Mapping[str, object]]]


class DetectionDict(TypedDict, total=False):
    """``Detection.to_dict()``: upstream's ``Detection`` (``evidence`` keys camelCase). A
    detector's has a :data:`DetectionType` and a :data:`Severity`; one given by hand may carry
    any text there, may leave out all but ``type``, and keeps its other keys."""

    type: str
    severity: str
    message: str
    evidence: Dict[str, object]
    recommendations: List[str]


class InterventionDict(TypedDict, total=False):
    """``Intervention.to_dict()``: upstream's intervention (``level``, ``reason``,
    ``detection``, ``timestamp`` and the level's key) or resumption (``previousPauseReason``)."""

    level: LogLevel
    reason: str
    detection: DetectionDict
    timestamp: str
    action: str
    warning: str
    strategyOverride: str
    requiresApproval: bool
    abortReason: str
    previousPauseReason: Optional[str]


class InterventionSummaryDict(TypedDict):
    """``InterventionSummary.to_dict()``: upstream's ``getSummary()``."""

    total: int
    byLevel: Dict[str, int]
    byType: Dict[str, int]
    isPaused: bool
    pauseReason: Optional[str]


class PauseStatusDict(TypedDict):
    """``InterventionSystem.pause_status()``."""

    is_paused: bool
    reason: Optional[str]


class InterventionStateDict(TypedDict, total=False):
    """``InterventionSystem.export_state()`` (the JS ``exportState()`` JSON), which
    ``import_state`` takes back (each key optional there, either spelling)."""

    interventionLog: List[InterventionDict]
    isPaused: bool
    pauseReason: Optional[str]


#: A callback of ``InterventionSystem`` (``on_intervention``, ``on_pause``, ``on_abort``).
InterventionCallback = Callable[..., object]
