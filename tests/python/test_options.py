"""The opt-in loop options ("Beyond the seed", docs/loop-options.md) through the Python API:
snake_case keywords in the constructor, ``configure()`` and ``EarlyStoppingConfig``, the new
triggers at their boundaries, warm-up, the documented order of checks, unknown usage, the
decision's best-iteration and budget fields, snapshots and pickling, and bad values rejected
with code and field and nothing changed."""

from __future__ import annotations

import json
import math
import pickle
from typing import Any, Dict, List, Optional, Type

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError, EarlyStopping, EarlyStoppingConfig

TS = "2026-01-01T00:00:00.000Z"


def flat(es: EarlyStopping, i: int, q: float, d: float = 0, **usage: float) -> None:
    """A record that cannot stop the seed's rules by itself (low confidence, failed)."""
    es.record(i, q, 0.5, "failed", d, timestamp=TS, **usage)


def verified(es: EarlyStopping, i: int, q: float = 95) -> None:
    es.record(i, q, 0.99, "passed", 0, timestamp=TS)


def raises(kind: Type[EarlyExitError], code: str, field: str, fn: Any) -> None:
    with pytest.raises(EarlyExitError) as info:
        fn()
    e = info.value
    assert (type(e), e.code, e.field) == (kind, code, field), f"{type(e).__name__} {e.code} {e.field}: {e}"


# --- options in, options out ---------------------------------------------------------------

OPTIONS: Dict[str, Any] = {
    "plateau_delta_source": "computed",
    "plateau_mode": "absolute",
    "min_iterations": 2,
    "max_iterations": 12,
    "max_total_tokens": 20000,
    "max_total_cost_usd": 1.5,
    "max_wall_clock_ms": 60000,
    "regression_tolerance": 4,
    "regression_patience": 3,
}


def test_every_option_is_a_snake_case_keyword_and_an_attribute() -> None:
    es = EarlyStopping(plateau_improvement_threshold=1, **OPTIONS)
    for key, value in OPTIONS.items():
        assert getattr(es.config, key) == value, key
    assert list(es.config.to_dict())[7:] == [
        "plateauDeltaSource",
        "plateauMode",
        "minIterations",
        "maxIterations",
        "maxTotalTokens",
        "maxTotalCostUsd",
        "maxWallClockMs",
        "regressionTolerance",
        "regressionPatience",
    ]
    same = EarlyStoppingConfig(plateau_improvement_threshold=1, **OPTIONS)
    assert same == es.config
    assert EarlyStopping(same).config == same, "a config object is accepted as the first argument"
    assert pickle.loads(pickle.dumps(same)) == same


def test_defaults_leave_every_option_unset() -> None:
    es = EarlyStopping()
    for key in OPTIONS:
        assert getattr(es.config, key) is None, key
    assert len(es.config.to_dict()) == 7
    flat(es, 1, 50, tokens_used=10)
    d = es.should_stop()
    assert d.budgets == []
    assert list(d.to_dict()) == ["stop", "reason", "confidence", "trigger", "best_iteration", "best_quality_score"]


def test_configure_and_replace_take_the_options() -> None:
    es = EarlyStopping()
    flat(es, 1, 50, 10, tokens_used=40)
    flat(es, 2, 60, 10, tokens_used=40)
    assert not es.should_stop()
    es.configure(max_total_tokens=50)
    assert es.should_stop().trigger == "budget_exhausted"
    assert es.stopping_reason == "Budget exhausted: total tokens_used 80 > limit 50"
    assert es.config.replace(max_iterations=4).max_iterations == 4
    es.configure({"max_iterations": 9})
    assert es.config.max_iterations == 9


# --- each trigger at its boundary ------------------------------------------------------------


def test_max_iterations_fires_exactly_at_the_limit() -> None:
    es = EarlyStopping(max_iterations=3, enable_plateau_detection=False)
    flat(es, 1, 10, 10)
    flat(es, 2, 30, 20)
    assert not es.should_stop(), "one step before the limit"
    flat(es, 3, 60, 30)
    d = es.should_stop()
    assert d.to_dict() == {
        "stop": True,
        "reason": "Maximum iterations reached (3/3)",
        "confidence": 1,
        "trigger": "max_iterations",
        "details": {"iterations": 3, "max_iterations": 3},
        "best_iteration": 3,
        "best_quality_score": 60,
    }


@pytest.mark.parametrize(
    "option, field, budget",
    [
        ("max_total_tokens", "tokens_used", "tokens"),
        ("max_total_cost_usd", "token_cost_usd", "cost_usd"),
        ("max_wall_clock_ms", "execution_time_ms", "wall_clock_ms"),
    ],
)
def test_each_budget_goes_on_at_the_limit_and_stops_above_it(option: str, field: str, budget: str) -> None:
    es = EarlyStopping(**{option: 8})
    flat(es, 1, 10, 10, **{field: 5})
    flat(es, 2, 20, 10, **{field: 3})
    d = es.should_stop()
    assert not d
    assert d.budgets == [{"budget": budget, "limit": 8, "observed": 8, "records_without_value": 0, "exhausted": False}]
    flat(es, 3, 30, 10, **{field: 0.5})
    d = es.should_stop()
    assert d.trigger == "budget_exhausted"
    assert d.reason == f"Budget exhausted: total {field} 8.5 > limit 8"
    assert d.details == {"budget": budget, "limit": 8, "observed": 8.5, "records_without_value": 0}


def test_a_result_without_tokens_used_is_unknown_not_zero() -> None:
    es = EarlyStopping(max_total_tokens=100)
    flat(es, 1, 10, 10, tokens_used=60)
    es.record_result(2, {"quality_score": 20, "confidence": 0.5, "verification_status": "failed", "quality_delta": 10})
    d = es.should_stop()
    assert not d
    assert d.budgets[0]["records_without_value"] == 1
    assert d.budgets[0]["observed"] == 60
    flat(es, 3, 30, 10, tokens_used=50)
    d = es.should_stop()
    assert d.reason == "Budget exhausted: total tokens_used 110 > limit 100 (1 records without tokens_used not counted)"
    # tokens_used=None is "not given" in Python: unknown as well
    other = EarlyStopping(max_total_tokens=1)
    other.record(1, 50, 0.5, "failed", 0, timestamp=TS, tokens_used=None)
    assert other.should_stop().budgets[0]["records_without_value"] == 1


def test_warm_up_blocks_quality_triggers_and_says_so() -> None:
    es = EarlyStopping(min_iterations=3)
    verified(es, 1)
    d = es.should_stop()
    assert (d.stop, d.trigger, d.reason, d.confidence) == (False, "none", "Warm-up: iteration 1 of 3", 1.0)
    verified(es, 2)
    assert es.should_stop().reason == "Warm-up: iteration 2 of 3"
    verified(es, 3)
    assert es.should_stop().trigger == "high_confidence", "fires exactly at min_iterations"


def test_warm_up_does_not_hold_back_hard_limits_nor_ask_the_source() -> None:
    class Source:
        asked = 0

        def detect_diminishing_returns(self) -> Dict[str, Any]:
            Source.asked += 1
            return {"detected": True, "iteration": 1, "reason": "r"}

    es = EarlyStopping(min_iterations=5, max_total_tokens=10, analytics=Source())
    flat(es, 1, 50, tokens_used=5)
    assert es.should_stop().reason == "Warm-up: iteration 1 of 5"
    assert Source.asked == 0
    flat(es, 2, 50, tokens_used=6)
    assert es.should_stop().trigger == "budget_exhausted"
    capped = EarlyStopping(min_iterations=2, max_iterations=2)
    verified(capped, 1)
    verified(capped, 2)
    assert capped.should_stop().trigger == "max_iterations"


def test_budget_and_plateau_in_the_same_step_the_budget_wins() -> None:
    def run(limit: float) -> str:
        es = EarlyStopping(max_total_tokens=limit)
        for i, tokens in enumerate([10, 10, 90], start=1):
            flat(es, i, 50, 0, tokens_used=tokens)
        return es.should_stop().trigger

    assert run(100) == "budget_exhausted", "hard limits come before quality triggers"
    assert run(1000) == "quality_plateau"


def test_computed_deltas_and_absolute_points() -> None:
    seed, computed = EarlyStopping(), EarlyStopping(plateau_delta_source="computed")
    for es in (seed, computed):
        for i in (1, 2, 3):
            flat(es, i, 50, 25)
    assert not seed.should_stop()
    assert computed.should_stop().trigger == "quality_plateau"
    es = EarlyStopping(plateau_mode="absolute", plateau_improvement_threshold=2)
    for i, (q, d) in enumerate([(50, 0), (52, 2), (53, 1)], start=1):
        flat(es, i, q, d)
    assert not es.should_stop(), "a 2-point step is not below 2 points"
    flat(es, 4, 54, 1)
    d = es.should_stop()
    assert d.reason == "Quality plateau detected: 3 consecutive iterations with <2 points improvement"


def test_regression_fires_after_patience_and_hands_back_the_best() -> None:
    es = EarlyStopping(regression_tolerance=5, regression_patience=2, enable_plateau_detection=False)
    flat(es, 1, 80)
    flat(es, 2, 74, -6)
    assert not es.should_stop()
    flat(es, 3, 75, 1)
    assert not es.should_stop(), "exactly the tolerance below is not more than it"
    flat(es, 4, 70, -5)
    flat(es, 5, 60, -10)
    d = es.should_stop()
    assert d.trigger == "quality_regression"
    assert d.details == {"best_iteration": 1, "best_quality_score": 80, "tolerance": 5, "patience": 2}
    assert (d.best_iteration, d.best_quality_score) == (1, 80)


# --- state ----------------------------------------------------------------------------------


def test_snapshot_and_pickle_keep_options_usage_and_stop_details() -> None:
    es = EarlyStopping(max_total_tokens=100, regression_tolerance=5, plateau_mode="absolute", plateau_improvement_threshold=2)
    flat(es, 1, 50, 0, tokens_used=30)
    flat(es, 2, 51, 1, tokens_used=30)
    flat(es, 3, 51.5, 0.5)
    assert es.should_stop().trigger == "quality_plateau"
    for restored in (EarlyStopping.from_json(es.to_json()), pickle.loads(pickle.dumps(es))):
        assert json.loads(restored.to_json()) == json.loads(es.to_json())
        assert restored.stopping_details == es.stopping_details
        assert restored.config == es.config
    restored = EarlyStopping.from_json(es.to_json())
    for engine in (es, restored):
        flat(engine, 4, 40, -11.5, tokens_used=50)
    assert restored.should_stop() == es.should_stop()
    assert es.should_stop().trigger == "budget_exhausted"


def test_summary_carries_the_options() -> None:
    es = EarlyStopping(max_iterations=2)
    flat(es, 1, 40)
    flat(es, 2, 50, 10)
    s = es.summary()
    assert s.stopping_trigger == "max_iterations"
    assert s.config is not None and s.config.max_iterations == 2
    assert s.to_dict()["config"]["maxIterations"] == 2


# --- bad values --------------------------------------------------------------------------------

BAD: List[Any] = [
    ("plateau_delta_source", "score", EarlyExitError),
    ("plateau_delta_source", True, EarlyExitTypeError),
    ("plateau_mode", "percent", EarlyExitError),
    ("plateau_mode", 1, EarlyExitTypeError),
    ("min_iterations", 0, EarlyExitError),
    ("min_iterations", 2.5, EarlyExitError),
    ("min_iterations", "3", EarlyExitTypeError),
    ("max_iterations", 0, EarlyExitError),
    ("max_iterations", math.inf, EarlyExitError),
    ("max_total_tokens", -1, EarlyExitError),
    ("max_total_tokens", math.nan, EarlyExitError),
    ("max_total_cost_usd", "5", EarlyExitTypeError),
    ("max_wall_clock_ms", -0.5, EarlyExitError),
    ("regression_tolerance", 101, EarlyExitError),
    ("regression_tolerance", "5", EarlyExitTypeError),
]


@pytest.mark.parametrize("key, value, kind", BAD)
def test_bad_option_values_are_rejected_and_change_nothing(key: str, value: Any, kind: Type[EarlyExitError]) -> None:
    raises(kind, "invalid_config", key, lambda: EarlyStopping(**{key: value}))
    raises(kind, "invalid_config", key, lambda: EarlyStoppingConfig(**{key: value}))
    es = EarlyStopping(max_iterations=50, regression_tolerance=5)
    flat(es, 1, 50)
    before = es.to_json()
    raises(kind, "invalid_config", key, lambda: es.configure(**{"min_iterations": 1, key: value}))
    assert es.to_json() == before


def test_cross_field_rules_name_the_field_that_no_longer_fits() -> None:
    raises(EarlyExitError, "invalid_config", "min_iterations", lambda: EarlyStopping(min_iterations=4, max_iterations=3))
    raises(EarlyExitError, "invalid_config", "regression_patience", lambda: EarlyStopping(regression_patience=3))
    raises(EarlyExitError, "invalid_config", "plateau_improvement_threshold", lambda: EarlyStopping(plateau_improvement_threshold=5))
    raises(EarlyExitError, "invalid_config", "regression_patience", lambda: EarlyStopping(regression_tolerance=1, regression_patience=0))
    es = EarlyStopping(min_iterations=3, plateau_mode="absolute", plateau_improvement_threshold=4)
    flat(es, 1, 50)
    before = es.to_json()
    raises(EarlyExitError, "invalid_config", "max_iterations", lambda: es.configure(max_iterations=2))
    raises(EarlyExitError, "invalid_config", "plateau_mode", lambda: es.configure(plateau_mode="relative"))
    raises(EarlyExitTypeError, "unknown_option", "max_iterantions", lambda: es.configure(max_iterantions=2))
    assert es.to_json() == before


def test_cross_field_messages_name_the_other_field_in_python_spelling() -> None:
    cases = [
        (lambda: EarlyStopping(min_iterations=4, max_iterations=3), "max_iterations (3)"),
        (lambda: EarlyStopping(regression_patience=3), "needs regression_tolerance to be set"),
        (lambda: EarlyStopping(plateau_improvement_threshold=5), "unless plateau_mode is 'absolute'"),
        (lambda: EarlyStopping(min_iterations=3).configure(max_iterations=2), "below min_iterations (3)"),
        (
            lambda: EarlyStopping(plateau_mode="absolute", plateau_improvement_threshold=4).configure(plateau_mode="relative"),
            "needs plateau_improvement_threshold between 0 and 1",
        ),
    ]
    for make, words in cases:
        with pytest.raises(EarlyExitError) as info:
            make()
        assert words in str(info.value), str(info.value)
        assert not any(c.isupper() for c in str(info.value).split(" must ")[0]), str(info.value)


def test_from_json_rejects_a_bad_option_with_its_snapshot_path() -> None:
    snap = json.loads(EarlyStopping(max_iterations=5).to_json())
    snap["config"]["minIterations"] = 6
    raises(EarlyExitError, "invalid_snapshot", "config.minIterations", lambda: EarlyStopping.from_json(json.dumps(snap)))


def test_typed_decision_fields() -> None:
    es = EarlyStopping(max_total_cost_usd=0.3)
    d0 = es.should_stop()
    best: Optional[int] = d0.best_iteration
    assert best is None and d0.best_quality_score is None
    flat(es, 1, 10, 10, token_cost_usd=0.1)
    flat(es, 2, 20, 10, token_cost_usd=0.2)
    d = es.should_stop()
    # 0.1 + 0.2 is 0.30000000000000004 in binary floating point: the sum exceeds 0.3.
    assert d.trigger == "budget_exhausted"
    assert d.budgets[0]["observed"] == 0.1 + 0.2
    assert isinstance(ee.StoppingDecision, type)


def test_the_vectors_python_runs_cover_every_trigger() -> None:
    """tests/vectors/loop_options.json is picked up by the vector suite (test_vectors.py
    loads every file) and its Python-applicable vectors expect each new trigger."""
    from vector_support import applies_to_python, load_vectors

    assert any(name.startswith("loop_options[") for name, _ in load_vectors())
    seen = set()
    for _, v in load_vectors():
        if applies_to_python(v):
            for c in v["calls"]:
                r = c.get("returns")
                if c["call"] == "shouldStop" and isinstance(r, dict):
                    seen.add(r["trigger"])
    assert {"max_iterations", "budget_exhausted", "quality_regression", "none", "high_confidence", "quality_plateau"} <= seen


def test_a_record_that_would_make_a_usage_total_overflow_is_refused() -> None:
    # Each value is finite but their sum is not: the engine could not restore its own snapshot.
    es = EarlyStopping(max_total_tokens=1e300)
    es.record(1, 50, 0.5, "failed", 0, tokens_used=1.5e308)
    before = es.to_json()
    raises(EarlyExitError, "invalid_result", "tokens_used", lambda: es.record(2, 50, 0.5, "failed", 0, tokens_used=1.5e308))
    assert es.to_json() == before
    assert len(EarlyStopping.from_json(before).history) == 1
