"""Bad inputs from the design pages: the right class, code and field, and the engine left
exactly as it was."""

from __future__ import annotations

import math
import pickle
from typing import Any, Callable, Dict, Tuple, Type

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError

T1 = "2026-01-01T00:00:01.000Z"
GOOD = {"quality_score": 70, "confidence": 0.8, "verification_status": "passed", "quality_delta": 0, "timestamp": T1}


def raises(kind: Type[EarlyExitError], code: str, field: str, fn: Callable[[], Any]) -> EarlyExitError:
    with pytest.raises(EarlyExitError) as info:
        fn()
    e = info.value
    assert (type(e), e.code, e.field) == (kind, code, field), f"{type(e).__name__} {e.code} {e.field}: {e}"
    if kind is EarlyExitTypeError:
        assert isinstance(e, TypeError) and isinstance(e, ValueError)
    else:
        assert not isinstance(e, TypeError)
    return e


def loaded_engine() -> ee.EarlyStopping:
    es = ee.EarlyStopping(plateau_consecutive_count=4)
    es.record_result(1, GOOD)
    es.record(2, 75, 0.5, "failed", 5, timestamp="2026-01-01T00:00:02.000Z")
    return es


RESULT_CASES: Dict[str, Tuple[Dict[str, Any], Type[EarlyExitError], str, str]] = {
    "NaN quality": ({"quality_score": math.nan}, EarlyExitError, "invalid_result", "quality_score"),
    "inf quality": ({"quality_score": math.inf}, EarlyExitError, "invalid_result", "quality_score"),
    "quality > 100": ({"quality_score": 100.5}, EarlyExitError, "invalid_result", "quality_score"),
    "quality as string": ({"quality_score": "75"}, EarlyExitTypeError, "invalid_result", "quality_score"),
    "quality as bool": ({"quality_score": True}, EarlyExitTypeError, "invalid_result", "quality_score"),
    "confidence > 1": ({"confidence": 1.5}, EarlyExitError, "invalid_result", "confidence"),
    "-inf delta": ({"quality_delta": -math.inf}, EarlyExitError, "invalid_result", "quality_delta"),
    "unknown status": ({"verification_status": "ok"}, EarlyExitError, "invalid_result", "verification_status"),
    "status not a string": ({"verification_status": 1}, EarlyExitTypeError, "invalid_result", "verification_status"),
    "empty timestamp": ({"timestamp": ""}, EarlyExitError, "invalid_result", "timestamp"),
    "bad timestamp": ({"timestamp": "yesterday"}, EarlyExitError, "invalid_result", "timestamp"),
    "timestamp not a string": ({"timestamp": 5}, EarlyExitTypeError, "invalid_result", "timestamp"),
    "negative tokens": ({"tokens_used": -1}, EarlyExitError, "invalid_result", "tokens_used"),
    "NaN cost": ({"token_cost_usd": math.nan}, EarlyExitError, "invalid_result", "token_cost_usd"),
    "iteration_number mismatch": ({"iteration_number": 7}, EarlyExitError, "invalid_result", "iteration_number"),
    "unknown key": ({"quality_scor": 1}, EarlyExitTypeError, "unknown_option", "quality_scor"),
}


@pytest.mark.parametrize("case", list(RESULT_CASES), ids=list(RESULT_CASES))
def test_bad_result_field(case: str) -> None:
    patch, kind, code, field = RESULT_CASES[case]
    es = loaded_engine()
    before = es.to_json()
    raises(kind, code, field, lambda: es.record_result(3, {**GOOD, **patch}))
    assert es.to_json() == before
    es.record_result(3, GOOD)  # the next call behaves as if the bad one never happened
    assert len(es) == 3


def test_missing_required_field_and_missing_result() -> None:
    es = loaded_engine()
    before = es.to_json()
    without = {k: v for k, v in GOOD.items() if k != "confidence"}
    e = raises(EarlyExitTypeError, "invalid_result", "confidence", lambda: es.record_result(3, without))
    assert "missing" in str(e)
    raises(EarlyExitTypeError, "invalid_result", "confidence", lambda: es.record(3, 70, None, "passed", 0))  # type: ignore[arg-type]
    raises(EarlyExitTypeError, "invalid_result", "result", lambda: es.record_result(3))
    raises(EarlyExitTypeError, "invalid_result", "result", lambda: es.record_result(3, None))  # type: ignore[arg-type]
    raises(EarlyExitTypeError, "invalid_result", "result", lambda: es.record_result(3, [1, 2]))  # type: ignore[arg-type]
    assert es.to_json() == before


@pytest.mark.parametrize(
    "iteration, kind",
    [
        (0, EarlyExitError),
        (-1, EarlyExitError),
        (1.5, EarlyExitError),
        (2**53, EarlyExitError),
        (10**400, EarlyExitError),
        ("3", EarlyExitTypeError),
        (None, EarlyExitTypeError),
        (True, EarlyExitTypeError),
    ],
)
def test_bad_iteration(iteration: Any, kind: Type[EarlyExitError]) -> None:
    es = loaded_engine()
    before = es.to_json()
    raises(kind, "invalid_iteration", "iteration", lambda: es.record(iteration, 70, 0.8, "passed", 0))
    assert es.to_json() == before


def test_numpy_like_numbers_are_numbers() -> None:
    from fractions import Fraction

    es = ee.EarlyStopping()
    es.record(1, Fraction(141, 2), 0.5, "passed", 0, timestamp=T1)
    assert es.history[0].quality_score == 70.5


CONFIG_CASES = [
    ({"high_confidence_threshold": 1.5}, EarlyExitError, "invalid_config", "high_confidence_threshold"),
    ({"high_confidence_threshold": math.nan}, EarlyExitError, "invalid_config", "high_confidence_threshold"),
    ({"plateau_consecutive_count": 1}, EarlyExitError, "invalid_config", "plateau_consecutive_count"),
    ({"plateau_consecutive_count": 2.5}, EarlyExitError, "invalid_config", "plateau_consecutive_count"),
    ({"plateau_improvement_threshold": -0.1}, EarlyExitError, "invalid_config", "plateau_improvement_threshold"),
    ({"min_quality_threshold": "70"}, EarlyExitTypeError, "invalid_config", "min_quality_threshold"),
    ({"require_verification": 1}, EarlyExitTypeError, "invalid_config", "require_verification"),
    ({"enable_plateau_detection": "yes"}, EarlyExitTypeError, "invalid_config", "enable_plateau_detection"),
    ({"plateau_count": 3}, EarlyExitTypeError, "unknown_option", "plateau_count"),
]


@pytest.mark.parametrize("options, kind, code, field", CONFIG_CASES)
def test_bad_config_in_constructor_and_configure(
    options: Dict[str, Any], kind: Type[EarlyExitError], code: str, field: str
) -> None:
    raises(kind, code, field, lambda: ee.EarlyStopping(**options))
    raises(kind, code, field, lambda: ee.EarlyStoppingConfig(**options))
    es = loaded_engine()
    before = es.to_json()
    # One bad key changes nothing at all, even after good keys.
    raises(kind, code, field, lambda: es.configure(enable_diminishing_returns=False, **options))
    assert es.to_json() == before and es.config.enable_diminishing_returns is True


def test_unknown_keyword_suggests_the_closest() -> None:
    e = raises(
        EarlyExitTypeError,
        "unknown_option",
        "plateau_consecutive_cnt",
        lambda: ee.EarlyStopping(plateau_consecutive_cnt=3),
    )
    assert "did you mean 'plateau_consecutive_count'" in str(e)


def test_config_argument_not_a_mapping() -> None:
    raises(EarlyExitTypeError, "invalid_config", "config", lambda: ee.EarlyStopping(5))  # type: ignore[arg-type]
    es = loaded_engine()
    raises(EarlyExitTypeError, "invalid_config", "options", lambda: es.configure("x"))  # type: ignore[arg-type]


def test_bad_analytics_source_and_answers() -> None:
    raises(EarlyExitTypeError, "invalid_config", "analytics", lambda: ee.EarlyStopping(analytics=5))  # type: ignore[arg-type]
    raises(EarlyExitTypeError, "invalid_config", "analytics", lambda: ee.EarlyStopping(analytics=object()))  # type: ignore[arg-type]

    answers: list = [
        5,
        {"detected": "yes", "reason": "x"},
        {"detected": True, "iteration": 0, "reason": "x"},
        {"detected": True, "iteration": 1},
    ]
    expected = [
        (EarlyExitTypeError, "detect_diminishing_returns()"),
        (EarlyExitTypeError, "detected"),
        (EarlyExitError, "iteration"),
        (EarlyExitTypeError, "reason"),
    ]

    class Source:
        def detect_diminishing_returns(self) -> Any:
            return answers.pop(0)

    es = ee.EarlyStopping(analytics=Source())
    es.record_result(1, {**GOOD, "confidence": 0.5})
    before = es.to_json()
    for kind, field in expected:
        raises(kind, "invalid_analytics", field, es.should_stop)
        assert es.to_json() == before


def test_source_exception_propagates_unchanged_and_engine_is_unchanged() -> None:
    boom = RuntimeError("analytics backend down")

    class Source:
        def detect_diminishing_returns(self) -> Any:
            raise boom

    es = ee.EarlyStopping(analytics=Source())
    es.record_result(1, {**GOOD, "confidence": 0.5})
    before = es.to_json()
    with pytest.raises(RuntimeError) as info:
        es.should_stop()
    assert info.value is boom
    with pytest.raises(RuntimeError):
        es.summary()
    assert es.to_json() == before and es.stopping_reason is None


def test_analytics_bad_input() -> None:
    raises(
        EarlyExitError, "invalid_config", "selection_criteria", lambda: ee.IterationAnalytics(selection_criteria="best")
    )
    raises(EarlyExitTypeError, "unknown_option", "quality_treshold", lambda: ee.IterationAnalytics(quality_treshold=5))
    a = ee.IterationAnalytics()
    a.record(1, 70, "passed")
    before = a.to_json()
    raises(EarlyExitError, "invalid_iteration", "iteration_number", lambda: a.record(0, 70, "passed"))
    raises(EarlyExitError, "invalid_result", "quality_score", lambda: a.record(2, 101, "passed"))
    raises(
        EarlyExitTypeError,
        "unknown_option",
        "confidence",
        lambda: a.record_iteration(
            {"iteration_number": 2, "quality_score": 1, "verification_status": "passed", "confidence": 1}
        ),
    )
    raises(EarlyExitTypeError, "invalid_config", "verified_only", lambda: a.optimal_iteration(1))  # type: ignore[arg-type]
    assert a.to_json() == before


def test_layer_result_and_signal_bad_input() -> None:
    raises(EarlyExitError, "invalid_layer_result", "pass_rate", lambda: ee.LayerResult(1.5, 0.5, 0))
    raises(EarlyExitTypeError, "invalid_layer_result", "coverage", lambda: ee.LayerResult(1, "0.5", 0))  # type: ignore[arg-type]
    raises(
        EarlyExitError, "invalid_layer_result", "passed", lambda: ee.LayerResult(1, 1, 0, total=5, passed=4, failed=2)
    )
    raises(EarlyExitTypeError, "invalid_layer_result", "layer_result", lambda: ee.calculate_quality_signal(None))  # type: ignore[arg-type]
    raises(
        EarlyExitError,
        "invalid_layer_result",
        "previous_lambda",
        lambda: ee.calculate_quality_signal({"pass_rate": 1, "coverage": 1, "flaky_ratio": 0, "previous_lambda": 101}),
    )
    e = ee.CoherenceEarlyExit(None, 4)
    raises(EarlyExitTypeError, "invalid_signal", "signal", lambda: e.should_exit(3, 1))  # type: ignore[arg-type]
    raises(
        EarlyExitError,
        "invalid_signal",
        "lambda",
        lambda: e.should_exit({"lambda": -1, "lambda_prev": 1, "boundary_concentration": 0}, 1),
    )
    raises(
        EarlyExitError,
        "invalid_signal",
        "layer",
        lambda: e.should_exit({"lambda": 1, "lambda_prev": 1, "boundary_concentration": 0}, -1),
    )
    raises(
        EarlyExitError,
        "invalid_signal",
        "boundary_edges",
        lambda: ee.QualitySignal(lambda_=1, lambda_prev=1, boundary_concentration=0, boundary_edges=4),
    )
    raises(EarlyExitError, "invalid_config", "total_layers", lambda: ee.CoherenceEarlyExit(None, 0))
    raises(EarlyExitTypeError, "unknown_option", "exit_layr", lambda: ee.EarlyExitConfig(exit_layr=1))  # type: ignore[call-arg]
    raises(
        EarlyExitError, "invalid_config", "min_confidence", lambda: ee.EarlyExitConfig.DEFAULT.replace(min_confidence=2)
    )
    raises(
        EarlyExitError,
        "invalid_signal",
        "decision.confidence",
        lambda: ee.SpeculativeExecutor().speculate({"confidence": 2}, 1),
    )


def test_pyramid_step_api_out_of_order() -> None:
    run = ee.PyramidRun.start(None, 2, [{"name": "unit"}, {"name": "e2e"}])
    before = run.to_json()
    raises(
        EarlyExitError,
        "invalid_step",
        "layer",
        lambda: run.submit(1, {"pass_rate": 1, "coverage": 1, "flaky_ratio": 0}),
    )
    raises(EarlyExitError, "invalid_step", "result", run.result)
    raises(
        EarlyExitError,
        "invalid_layer_result",
        "layers[0].flaky_ratio",
        lambda: run.submit(0, {"pass_rate": 1, "coverage": 1, "flaky_ratio": 2}),
    )
    assert run.to_json() == before
    raises(
        EarlyExitError,
        "invalid_config",
        "layers[1].cost_ms",
        lambda: ee.PyramidRun.start(None, 2, [{"name": "a"}, {"name": "b", "cost_ms": -1}]),
    )
    raises(
        EarlyExitTypeError, "invalid_config", "layers[0].name", lambda: ee.PyramidRun.start(None, 2, [{"cost_ms": 1}])
    )
    raises(EarlyExitTypeError, "invalid_config", "layers", lambda: ee.PyramidRun.start(None, 2, 5))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "snapshot, field",
    [
        ("not json", "snapshot"),
        ("[]", "snapshot"),
        ('{"version": 2, "engine": "EarlyStopping"}', "version"),
        ('{"version": 1, "engine": "PyramidRun"}', "engine"),
        ("[" * 100000, "snapshot"),
    ],
)
def test_invalid_snapshots(snapshot: str, field: str) -> None:
    with pytest.raises(EarlyExitError) as info:
        ee.EarlyStopping.from_json(snapshot)
    assert (info.value.code, info.value.field) == ("invalid_snapshot", field)


def test_exceptions_pickle_and_carry_fields() -> None:
    try:
        ee.EarlyStopping(plateau_consecutive_count=0)
    except EarlyExitError as e:
        again = pickle.loads(pickle.dumps(e))
        assert (type(again), again.code, again.field, str(again)) == (type(e), e.code, e.field, str(e))


def test_no_panic_on_hostile_input() -> None:
    deep: list = []
    for _ in range(10000):
        deep = [deep]
    with pytest.raises(EarlyExitError) as info:  # typed (it was a RecursionError before)
        ee.EarlyStopping().record_result(1, {**GOOD, "timestamp": deep})
    assert (info.value.code, info.value.field) == ("invalid_result", "result")
    es = ee.EarlyStopping()
    for bad in [10**400, -(10**400), float("nan"), "\ud800", b"bytes", object(), [GOOD], {1: 2}]:
        with pytest.raises(EarlyExitError):
            es.record(1, bad, 0.5, "passed", 0)
    assert len(es) == 0
