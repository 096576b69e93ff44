"""Types of the test-pyramid engine: its literals, the keyword options of
``EarlyExitConfig`` and the shape of each ``to_dict()`` (camelCase keys).
"""

from __future__ import annotations

from typing import List, Literal, Optional, TypedDict


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
