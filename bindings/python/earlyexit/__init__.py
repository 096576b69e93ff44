"""earlyexit: decide when an iterative process should stop.

Two engines, exact to the JavaScript they replace, on one Rust core:

* loop stopping: :class:`EarlyStopping` (high confidence with verification, a quality
  plateau, diminishing returns from :class:`IterationAnalytics` or any object with
  ``detect_diminishing_returns()``), and :class:`BehaviorDetector` with
  :class:`InterventionSystem` (stuck loops, oscillation, drift, resource burn and
  regressions, each turned into a graded intervention);
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

# The refine loop (docs/loop-helper.md)
from ._loop import Loop as Loop
from ._loop import LoopOutput as LoopOutput
from ._loop import FinishedRun as FinishedRun

# Loop stopping
from ._native import EarlyStopping as EarlyStopping
from ._native import EarlyStoppingConfig as EarlyStoppingConfig
from ._native import StoppingDecision as StoppingDecision
from ._native import StoppingSummary as StoppingSummary
from ._native import IterationRecord as IterationRecord

# Its built-in diminishing-returns source
from ._native import IterationAnalytics as IterationAnalytics
from ._native import AnalyticsConfig as AnalyticsConfig
from ._native import AnalyticsRecord as AnalyticsRecord
from ._native import AnalyticsSummary as AnalyticsSummary
from ._native import DiminishingReturnsReport as DiminishingReturnsReport
from ._native import IterationSelection as IterationSelection

# Loop replay and presets (docs/replay.md)
from ._native import replay_loops as replay_loops
from ._native import LoopReplay as LoopReplay
from ._native import LoopCalibration as LoopCalibration
from ._native import calibrate_loop_policy as calibrate_loop_policy
from ._native import calibration_plan as calibration_plan
from ._native import LOOP_PRESETS as LOOP_PRESETS
# Composable stop policies: `earlyexit.policy` builds condition trees (`|`, `&`).
from . import policy as policy
from .policy import StopCondition as StopCondition

# Behaviour detectors and graded interventions (docs/behavior.md)
from ._native import BehaviorDetector as BehaviorDetector
from ._native import BehaviorThresholds as BehaviorThresholds
from ._native import THRESHOLDS as THRESHOLDS
from ._native import Detection as Detection
from ._native import InterventionSystem as InterventionSystem
from ._native import Intervention as Intervention
from ._native import InterventionSummary as InterventionSummary
from ._native import INTERVENTION_LEVELS as INTERVENTION_LEVELS

# The test pyramid
from ._native import LayerResult as LayerResult
from ._native import QualitySignal as QualitySignal
from ._native import calculate_quality_signal as calculate_quality_signal
from ._native import read_junit as read_junit
from ._native import count_quality_partitions as count_quality_partitions
from ._native import EarlyExitConfig as EarlyExitConfig
from ._native import ExitDecision as ExitDecision
from ._native import CoherenceEarlyExit as CoherenceEarlyExit
from ._native import Speculation as Speculation
from ._native import SpeculativeExecutor as SpeculativeExecutor
from ._native import PyramidRun as PyramidRun
from ._native import PyramidAction as PyramidAction
from ._native import TestPyramidResult as TestPyramidResult
from ._native import FailingLayer as FailingLayer
from ._controller import EarlyExitController as EarlyExitController
from ._controller import Layer as Layer
from ._controller import LayerDict as LayerDict
from ._controller import LayerOutcome as LayerOutcome
from ._controller import Runner as Runner
from ._controller import AsyncRunner as AsyncRunner

# Pyramid replay and the risk-bounded policy
from ._native import replay_pyramids as replay_pyramids
from ._native import shadow_pyramids as shadow_pyramids
from ._store import verify_receipts as verify_receipts
from ._native import append_receipts as append_receipts
from ._artifact import CalibrationArtifact as CalibrationArtifact
from ._artifact import calibrate_pyramid_policy as calibrate_pyramid_policy
from ._native import check_pyramid_drift as check_pyramid_drift
from ._native import promote_pyramid_policy as promote_pyramid_policy
from ._native import check_loop_drift as check_loop_drift
from ._native import promote_loop_policy as promote_loop_policy
from ._native import pyramid_policy_decide as pyramid_policy_decide
from ._native import pyramid_policy_update as pyramid_policy_update
from ._native import OutcomeModel as OutcomeModel

# The run store (docs/store.md)
from ._store import Store as Store
from ._store import StoredRun as StoredRun
# The size limits (docs/limits.md)
from ._native import LIMITS as LIMITS

# Errors
from ._errors import EarlyExitError as EarlyExitError
from ._errors import EarlyExitTypeError as EarlyExitTypeError
from ._errors import UncertifiedCalibrationWarning as UncertifiedCalibrationWarning
from ._errors import ErrorCode as ErrorCode

# Types for annotations (typing constructs, no runtime behaviour): loop stopping and its
# decisions
from ._loops import Trigger as Trigger
from ._loops import Budget as Budget
from ._loops import PlateauDeltaSource as PlateauDeltaSource
from ._loops import PlateauMode as PlateauMode
from ._loops import VerificationStatus as VerificationStatus
from ._loops import EarlyStoppingOptions as EarlyStoppingOptions
from ._loops import IterationResultDict as IterationResultDict
from ._loops import IterationRecordDict as IterationRecordDict
from ._loops import EarlyStoppingConfigDict as EarlyStoppingConfigDict
from ._decision import HighConfidenceDetails as HighConfidenceDetails
from ._decision import PlateauStepDict as PlateauStepDict
from ._decision import PlateauDetails as PlateauDetails
from ._decision import DiminishingReturnsDetails as DiminishingReturnsDetails
from ._decision import MaxIterationsDetails as MaxIterationsDetails
from ._decision import BudgetExhaustedDetails as BudgetExhaustedDetails
from ._decision import QualityRegressionDetails as QualityRegressionDetails
from ._decision import NoImprovementDetails as NoImprovementDetails
from ._decision import StoppingDetails as StoppingDetails
from ._decision import BudgetStatusDict as BudgetStatusDict
from ._decision import StoppingDecisionDict as StoppingDecisionDict
from ._decision import StoppingSummaryDict as StoppingSummaryDict

# Types for annotations: IterationAnalytics
from ._analytics import Trajectory as Trajectory
from ._analytics import SelectionCriteria as SelectionCriteria
from ._analytics import AnalyticsOptions as AnalyticsOptions
from ._analytics import AnalyticsConfigOptions as AnalyticsConfigOptions
from ._analytics import IterationAnalyticsOptions as IterationAnalyticsOptions
from ._analytics import ReportOptions as ReportOptions
from ._analytics import AnalyticsConfigDict as AnalyticsConfigDict
from ._analytics import AnalyticsRecordDict as AnalyticsRecordDict
from ._analytics import DiminishingReturnsDict as DiminishingReturnsDict
from ._analytics import IterationSelectionDict as IterationSelectionDict
from ._analytics import AnalyticsSummaryDict as AnalyticsSummaryDict

# Types for annotations: loop replay
from ._replay import LoopPresetName as LoopPresetName
from ._replay import LoopPolicyDict as LoopPolicyDict
from ._replay import ReplayRunOutcomeDict as ReplayRunOutcomeDict
from ._replay import ReplaySummaryDict as ReplaySummaryDict

# Types for annotations: behaviour detectors and interventions
from ._behavior import DetectionType as DetectionType
from ._behavior import Severity as Severity
from ._behavior import InterventionLevel as InterventionLevel
from ._behavior import LogLevel as LogLevel
from ._behavior import ThresholdsOptions as ThresholdsOptions
from ._behavior import BehaviorIterationDict as BehaviorIterationDict
from ._behavior import History as History
from ._behavior import DetectionDict as DetectionDict
from ._behavior import InterventionDict as InterventionDict
from ._behavior import InterventionSummaryDict as InterventionSummaryDict
from ._behavior import PauseStatusDict as PauseStatusDict
from ._behavior import InterventionStateDict as InterventionStateDict

# Types for annotations: the test pyramid
from ._pyramid import ExitReason as ExitReason
from ._pyramid import Outcome as Outcome
from ._pyramid import Verdict as Verdict
from ._pyramid import ActionKind as ActionKind
from ._pyramid import ExitOptions as ExitOptions
from ._pyramid import LayerResultDict as LayerResultDict
from ._pyramid import QualitySignalDict as QualitySignalDict
from ._pyramid import ExitConfigDict as ExitConfigDict
from ._pyramid import ExitDecisionDict as ExitDecisionDict
from ._pyramid import SpeculationDict as SpeculationDict
from ._pyramid import FailingLayerDict as FailingLayerDict
from ._pyramid import TestPyramidResultDict as TestPyramidResultDict
from ._pyramid import PyramidActionDict as PyramidActionDict
from ._pyramid import RunPolicy as RunPolicy
from ._pyramid import RunMode as RunMode
from ._pyramid import PolicyReportDict as PolicyReportDict
from ._pyramid import PolicyStepDict as PolicyStepDict
from ._pyramid import LayerCountsDict as LayerCountsDict
from ._pyramid import RanLayerDict as RanLayerDict
# Types for annotations: the run store
from ._store import StoredArtifactDict as StoredArtifactDict
from ._store import StoreCheckDict as StoreCheckDict

from . import types as types

import typing as _typing

__version__ = "0.1.0"

if not _typing.TYPE_CHECKING:
    # What a star import gives: the names that run (classes, functions, constants, the `policy`
    # and `types` modules). The typing names above (Literal aliases, TypedDicts, runner and
    # layer aliases) stay importable from here, as they always were, without being listed; the
    # string-literal ones are also in `earlyexit.types`. (Type checkers skip this: with a
    # visible `__all__` they would hide every name it leaves out, typing names included.)
    __all__ = [
        "Loop", "LoopOutput", "EarlyStopping", "EarlyStoppingConfig", "StoppingDecision",
        "StoppingSummary", "IterationRecord", "IterationAnalytics", "AnalyticsConfig",
        "AnalyticsRecord", "AnalyticsSummary", "DiminishingReturnsReport", "IterationSelection",
        "replay_loops", "LoopReplay", "LoopCalibration", "calibrate_loop_policy", "calibration_plan",
        "LOOP_PRESETS", "FinishedRun", "promote_loop_policy", "check_loop_drift",
        "policy", "types", "StopCondition", "BehaviorDetector", "BehaviorThresholds", "THRESHOLDS",
        "Detection", "InterventionSystem", "Intervention", "InterventionSummary",
        "INTERVENTION_LEVELS", "LayerResult", "QualitySignal", "calculate_quality_signal",
        "count_quality_partitions", "EarlyExitConfig", "ExitDecision", "CoherenceEarlyExit",
        "Speculation", "SpeculativeExecutor", "PyramidRun", "PyramidAction", "TestPyramidResult",
        "FailingLayer", "EarlyExitController", "replay_pyramids", "shadow_pyramids", "verify_receipts",
        "append_receipts", "CalibrationArtifact", "calibrate_pyramid_policy", "check_pyramid_drift",
        "promote_pyramid_policy", "pyramid_policy_decide", "pyramid_policy_update", "OutcomeModel",
        "read_junit", "Store", "StoredRun",
        "LIMITS", "EarlyExitError", "EarlyExitTypeError", "UncertifiedCalibrationWarning",
    ]
