"""earlyexit: decide when an iterative process should stop.

Two engines, exact to the JavaScript they replace, on one Rust core:

* loop stopping: :class:`EarlyStopping` (high confidence with verification, a quality
  plateau, diminishing returns from :class:`IterationAnalytics` or any object with
  ``detect_diminishing_returns()``);
* test-pyramid early exit: :func:`calculate_quality_signal`,
  :class:`CoherenceEarlyExit`, :class:`SpeculativeExecutor`, :class:`EarlyExitController`
  and the step API :class:`PyramidRun`.

Results are immutable typed objects with snake_case attributes whose ``to_dict()`` is
exactly the JSON the JS API returns. Bad input raises :class:`EarlyExitError` (a bad value)
or :class:`EarlyExitTypeError` (a wrong type or an unknown keyword), with ``.code`` and
``.field``, and changes nothing. Engines are safe to share between threads, pickle, and
round-trip through ``to_json()`` / ``from_json()`` (the snapshot is the same JSON in every
language). Results pickle and copy too, so multiprocessing pools can return them.
"""

from ._controller import AsyncRunner, EarlyExitController, Layer, LayerDict, LayerOutcome, Runner
from ._errors import EarlyExitError, EarlyExitTypeError
from ._native import (
    AnalyticsConfig,
    AnalyticsRecord,
    AnalyticsSummary,
    CoherenceEarlyExit,
    DiminishingReturnsReport,
    EarlyExitConfig,
    EarlyStopping,
    EarlyStoppingConfig,
    ExitDecision,
    FailingLayer,
    IterationAnalytics,
    IterationRecord,
    IterationSelection,
    LayerResult,
    PyramidAction,
    PyramidRun,
    QualitySignal,
    Speculation,
    SpeculativeExecutor,
    StoppingDecision,
    StoppingSummary,
    TestPyramidResult,
    calculate_quality_signal,
    count_quality_partitions,
)
from . import _types
from ._native import LIMITS  # the size limits (docs/limits.md)
from ._native import LOOP_PRESETS, LoopReplay, replay_loops  # loop replay (docs/replay.md)
from ._native import (  # pyramid replay and the risk-bounded policy
    calibrate_pyramid_policy,
    pyramid_policy_decide,
    pyramid_policy_update,
    replay_pyramids,
    shadow_pyramids,
)
from ._types import *  # noqa: F403 (the type names, listed once in _types.__all__)

__version__ = "0.1.0"

__all__ = [
    # loop replay and presets
    "replay_loops",
    "LoopReplay",
    "LOOP_PRESETS",
    # loop stopping
    "EarlyStopping",
    "EarlyStoppingConfig",
    "StoppingDecision",
    "StoppingSummary",
    "IterationRecord",
    "IterationAnalytics",
    "AnalyticsConfig",
    "AnalyticsRecord",
    "AnalyticsSummary",
    "DiminishingReturnsReport",
    "IterationSelection",
    # test pyramid
    "LayerResult",
    "QualitySignal",
    "calculate_quality_signal",
    "count_quality_partitions",
    "EarlyExitConfig",
    "ExitDecision",
    "CoherenceEarlyExit",
    "Speculation",
    "SpeculativeExecutor",
    "EarlyExitController",
    "PyramidRun",
    "PyramidAction",
    "TestPyramidResult",
    "FailingLayer",
    "Layer",
    "LayerDict",
    "LayerOutcome",
    "Runner",
    "AsyncRunner",
    # pyramid replay and the risk-bounded policy
    "replay_pyramids",
    "shadow_pyramids",
    "calibrate_pyramid_policy",
    "pyramid_policy_decide",
    "pyramid_policy_update",
    # loop replay and presets
    "replay_loops",
    "LoopReplay",
    "LOOP_PRESETS",
    # the size limits
    "LIMITS",
    # errors
    "EarlyExitError",
    "EarlyExitTypeError",
]
__all__ += _types.__all__  # the type names
