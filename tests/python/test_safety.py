"""Safety of results: the pyramid verdict (docs/pyramid-verdict.md) and strict_iterations,
resume safety (docs/loop-options.md "Resume safety"), through the Python API."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from typing import Any, Dict, List

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError

PASS = {"pass_rate": 1.0, "coverage": 0.95, "flaky_ratio": 0.0}
RED = {"pass_rate": 0.0, "coverage": 0.9, "flaky_ratio": 0.0}
ALMOST = {"pass_rate": 0.995, "coverage": 0.95, "flaky_ratio": 0.0}
NAMES = ["unit", "integration", "contract", "e2e"]
NO_EXIT = {"exit_layer": 99, "adaptive_exit_layer": False}


def layers(results: List[Dict[str, float]]) -> List[Any]:
    return [(NAMES[i], (lambda r=r: dict(r))) for i, r in enumerate(results)]


# --- the verdict ------------------------------------------------------------------------


def test_a_failing_unit_layer_then_a_green_one_is_a_confident_exit_and_a_failed_run() -> None:
    result = ee.EarlyExitController(None, 3).run(layers([RED, PASS, PASS]))
    assert result.exit_reason == "confident_exit" and result.confidence > 0.9
    assert result.verdict == "failed"
    assert [(f.layer, f.name) for f in result.failing_layers] == [(0, "unit")]
    assert result.to_dict()["failingLayers"] == [{"layer": 0, "name": "unit"}]


def test_verification_that_finds_a_failure_fails_the_run_and_run_async_agrees() -> None:
    controller = ee.EarlyExitController(ee.EarlyExitConfig.AGGRESSIVE, 3)
    result = controller.run(layers([PASS, RED, PASS]))
    assert (result.mispredictions, result.verdict) == (1, "failed")
    assert result.failing_layers[0].to_dict() == {"layer": 1, "name": "integration"}
    assert asyncio.run(controller.run_async(layers([PASS, RED, PASS]))) == result


def test_unverified_and_passed() -> None:
    skipped = ee.EarlyExitController({"exit_layer": 0, "verification_layers": 0}, 3).run(layers([PASS] * 3))
    assert (skipped.layers_executed, skipped.verdict, skipped.failing_layers) == ((0,), "unverified", ())
    everything = ee.EarlyExitController(NO_EXIT, 3).run(layers([PASS] * 3))
    assert (everything.verdict, everything.failing_layers) == ("passed", ())
    assert ee.PyramidRun.start(None, 1, []).result().verdict == "passed"


def test_pass_rate_0_995_is_failing_though_verification_grades_it_pass() -> None:
    result = ee.EarlyExitController(ee.EarlyExitConfig.AGGRESSIVE, 3).run(layers([PASS, ALMOST, PASS]))
    assert (result.speculations[0].actual, result.speculations[0].correct) == ("pass", True)
    assert result.verdict == "failed" and [f.layer for f in result.failing_layers] == [1]


def test_the_verdict_survives_a_snapshot_pickle_and_copy() -> None:
    results = [PASS, ALMOST, RED, PASS]
    run = ee.PyramidRun.start(NO_EXIT, 4, [{"name": n} for n in NAMES])
    run.submit(0, PASS)
    run.submit(1, ALMOST)
    restored = ee.PyramidRun.from_json(run.to_json())
    unpickled = pickle.loads(pickle.dumps(run))
    for r in (run, restored, unpickled):
        for i in (2, 3):
            r.submit(i, results[i])
    result = run.result()
    assert restored.result() == result == unpickled.result()
    assert (result.verdict, [f.name for f in result.failing_layers]) == ("failed", ["integration", "contract"])
    assert pickle.loads(pickle.dumps(result)) == result == copy.deepcopy(result)
    failing = result.failing_layers[0]
    assert pickle.loads(pickle.dumps(failing)) == failing and repr(failing) == "FailingLayer(layer=1, name='integration')"
    assert "verdict='failed'" in repr(result)


# --- strict_iterations ------------------------------------------------------------------

TS = "2026-01-01T00:00:00.000Z"


def flat(q: float, **extra: Any) -> Dict[str, Any]:
    return {"quality_score": q, "confidence": 0.5, "verification_status": "failed", "quality_delta": 0.0, **extra}


def test_off_by_default_any_numbers_are_recorded() -> None:
    es = ee.EarlyStopping()
    assert [es.record_result(i, flat(50.0)) for i in (5, 3, 5)] == [False, False, False]
    assert [r.iteration_number for r in es.history] == [5, 3, 5] and es.config.strict_iterations is None


def test_strict_iterations_refuse_an_earlier_number_and_accept_a_repeat_saying_so() -> None:
    es = ee.EarlyStopping(strict_iterations=True, max_total_tokens=100.0)
    assert es.record(5, 50.0, 0.5, "failed", 0.0, tokens_used=60.0) is False
    before = es.to_json()
    with pytest.raises(EarlyExitError) as raised:
        es.record(3, 50.0, 0.5, "failed", 0.0)
    assert (raised.value.code, raised.value.field) == ("invalid_iteration", "iteration")
    assert not isinstance(raised.value, EarlyExitTypeError)
    assert es.record(5, 50.0, 0.5, "failed", 0.0, tokens_used=60.0) is True
    assert es.record_result(5, flat(50.0, tokens_used=60.0, iteration_number=5)) is True
    with pytest.raises(EarlyExitError, match="with a different tokens_used"):
        es.record(5, 50.0, 0.5, "failed", 0.0)
    with pytest.raises(EarlyExitError, match="with a different quality_score"):
        es.record_result(5, flat(51.0, tokens_used=60.0))
    assert es.to_json() == before
    assert es.should_stop().budgets[0]["observed"] == 60


def test_a_clock_filled_timestamp_matches_an_omitted_one_or_the_clock_value() -> None:
    es = ee.EarlyStopping(strict_iterations=True)
    es.record(1, 50.0, 0.5, "failed", 0.0)
    clock = es.history[0].timestamp
    assert es.record(1, 50.0, 0.5, "failed", 0.0) is True
    assert es.record(1, 50.0, 0.5, "failed", 0.0, timestamp=clock) is True
    with pytest.raises(EarlyExitError, match="with a different timestamp"):
        es.record(1, 50.0, 0.5, "failed", 0.0, timestamp="1999-01-01T00:00:00Z")
    assert len(es) == 1


@pytest.mark.parametrize("how", ["json", "pickle"])
def test_the_resume_recipe_counts_a_re_recorded_iteration_once(how: str) -> None:
    es = ee.EarlyStopping(strict_iterations=True, max_total_tokens=100.0)
    es.record(1, 50.0, 0.5, "failed", 0.0, timestamp=TS, tokens_used=40.0)
    es.record(2, 52.0, 0.5, "failed", 2.0, timestamp=TS, tokens_used=40.0)
    saved = es.to_json() if how == "json" else pickle.dumps(es)  # then the process dies
    resumed = ee.EarlyStopping.from_json(saved) if how == "json" else pickle.loads(saved)
    assert resumed.record(2, 52.0, 0.5, "failed", 2.0, timestamp=TS, tokens_used=40.0) is True
    decision = resumed.should_stop()
    assert (decision.stop, decision.budgets[0]["observed"]) == (False, 80)
    loose = ee.EarlyStopping.from_json(es.to_json().replace('"strictIterations":true', '"strictIterations":false'))
    assert loose.record(2, 52.0, 0.5, "failed", 2.0, timestamp=TS, tokens_used=40.0) is False
    assert loose.should_stop().trigger == "budget_exhausted"


def test_the_recommended_preset_turns_it_on_and_an_override_off() -> None:
    assert ee.EarlyStoppingConfig.from_preset("recommended").strict_iterations is True
    assert ee.EarlyStoppingConfig.from_preset("recommended").to_dict()["strictIterations"] is True
    assert ee.EarlyStopping.from_preset("recommended", strict_iterations=False).config.strict_iterations is False
    with pytest.raises(EarlyExitTypeError) as raised:
        ee.EarlyStopping(strict_iterations=1)
    assert (raised.value.code, raised.value.field) == ("invalid_config", "strict_iterations")


def test_a_strict_snapshot_whose_history_repeats_is_refused_on_restore() -> None:
    loose = ee.EarlyStopping()
    for i in (1, 2, 2):
        loose.record(i, 50.0, 0.5, "failed", 0.0, timestamp=TS)
    snapshot = json.loads(loose.to_json())
    strict = {**snapshot, "config": {**snapshot["config"], "strictIterations": True}}
    for edited, field in [
        (strict, "history[2].iteration_number"),
        ({**strict, "strictIterationsFrom": 2}, "history[2].iteration_number"),
        ({**strict, "strictIterationsFrom": 4}, "strictIterationsFrom"),
        ({**strict, "strictIterationsFrom": -1}, "strictIterationsFrom"),
        ({**strict, "strictIterationsFrom": "3"}, "strictIterationsFrom"),
        ({**snapshot, "strictIterationsFrom": 3}, "strictIterationsFrom"),
    ]:
        for given in (edited, json.dumps(edited)):
            with pytest.raises(EarlyExitError) as raised:
                ee.EarlyStopping.from_json(given)
            assert (raised.value.code, raised.value.field) == ("invalid_snapshot", field), edited
    assert json.loads(ee.EarlyStopping.from_json(snapshot).to_json()) == snapshot


@pytest.mark.parametrize("how", ["json", "pickle"])
def test_a_loop_made_strict_after_repeated_records_round_trips(how: str) -> None:
    es = ee.EarlyStopping()
    for i in (5, 9, 2):
        es.record(i, 50.0, 0.5, "failed", 0.0, timestamp=TS)
    es.configure({"strict_iterations": True})
    es.record(3, 50.0, 0.5, "failed", 0.0, timestamp=TS)
    assert json.loads(es.to_json())["strictIterationsFrom"] == 3
    restored = ee.EarlyStopping.from_json(es.to_json()) if how == "json" else pickle.loads(pickle.dumps(es))
    assert restored.to_json() == es.to_json()
    with pytest.raises(EarlyExitError):
        restored.record(3, 51.0, 0.5, "failed", 0.0, timestamp=TS)
    always = ee.EarlyStopping(strict_iterations=True)
    always.record(1, 50.0, 0.5, "failed", 0.0, timestamp=TS)
    assert "strictIterationsFrom" not in json.loads(always.to_json())
