"""Safety of results: the pyramid verdict (docs/pyramid-verdict.md), through the Python API."""

from __future__ import annotations

import asyncio
import copy
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
