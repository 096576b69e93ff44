"""Types of the test-pyramid engine: its literals, the keyword options of
``EarlyExitConfig`` and the shape of each ``to_dict()`` (camelCase keys).
"""

from __future__ import annotations

from typing import Dict, List, Literal, Optional, TypedDict

from ._literals import ExitReason as ExitReason
from ._literals import Outcome as Outcome
from ._literals import Verdict as Verdict
from ._literals import ActionKind as ActionKind
from ._literals import RunPolicy as RunPolicy
from ._literals import RunMode as RunMode


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
    """``Speculation.to_dict()`` (``actual`` and ``correct`` once verified; ``layer`` and
    ``name`` in a run's result)."""

    actual: Outcome
    correct: bool
    layer: int
    name: str


class FailingLayerDict(TypedDict):
    """``FailingLayer.to_dict()``: a failing layer's index and name."""

    layer: int
    name: str


class _TestPyramidResultRequired(TypedDict):
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
    layersBeforeExit: List[int]
    layersVerified: List[int]
    layersNotRun: List[int]


class TestPyramidResultDict(_TestPyramidResultRequired, total=False):
    """``TestPyramidResult.to_dict()``: the pyramid result plus the honest-accounting fields,
    the ``note`` of an exit that saved nothing, and a ``fail_fast`` / ``risk_bounded`` run's
    ``policy`` report (camelCase keys here)."""

    note: str
    policy: Dict[str, object]


class _PyramidActionRequired(TypedDict):
    action: ActionKind


class PyramidActionDict(_PyramidActionRequired, total=False):
    """``PyramidAction.to_dict()``: ``{action, layer}`` (no layer when done)."""

    layer: int


class PolicyStepDict(TypedDict):
    """One layer a policy run ran, and the bound it was chosen under (``None``: not considered)."""

    layer: int
    risk: Optional[float]


class LayerCountsDict(TypedDict):
    """What the outcome model knew of one layer when the run started."""

    layer: int
    name: str
    trials: float
    failures: float
    cost_ms: Optional[float]


class _RanLayerRequired(TypedDict):
    name: str
    failed: bool


class RanLayerDict(_RanLayerRequired, total=False):
    """A layer as ``pyramid_policy_update`` learns it."""

    duration_ms: float


class PolicyReportDict(TypedDict):
    """``TestPyramidResult.policy`` of a ``fail_fast`` / ``risk_bounded`` run (docs/test-exit.md):
    the bound, the budget (``config["risk_budget"]``) and the model's counts."""

    policy: Literal["fail_fast", "risk_bounded"]
    mode: RunMode
    config: Dict[str, object]
    risk: Optional[float]
    steps: List[PolicyStepDict]
    skipped: List[int]
    counts: List[LayerCountsDict]
    ran: List[RanLayerDict]
