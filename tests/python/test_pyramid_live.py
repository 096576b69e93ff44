"""The fail-fast and risk-bounded policies run live from Python: ``EarlyExitController`` and
``PyramidRun.start`` with ``policy=``, ``mode=``, ``model=``, ``policy_config=``; and a live
run deciding as the replay of the same recorded run does, on the public LRTS CI builds."""

from __future__ import annotations

import asyncio
import importlib.util
import pathlib
import pickle
from typing import Any, Dict, List, Optional

import pytest

import earlyexit
from earlyexit import EarlyExitController, EarlyExitError, EarlyExitTypeError, PyramidRun

ROOT = pathlib.Path(__file__).resolve().parents[2]
LRTS = ROOT.parent / "shared" / "data" / "lrts"


def result(failed: bool, duration_ms: float) -> Dict[str, Any]:
    return {"pass_rate": 0.5 if failed else 1.0, "coverage": 1.0, "flaky_ratio": 0.0, "duration_ms": duration_ms}


def layers_of(names: List[str], fails: List[bool], costs: List[float]) -> List[Dict[str, Any]]:
    return [
        {"name": n, "cost_ms": c, "run": (lambda f=f, c=c: result(f, c))} for n, f, c in zip(names, fails, costs)
    ]


def green_model(names: List[str], costs: List[float], n: int) -> Dict[str, Any]:
    model: Optional[Dict[str, Any]] = None
    ran = [{"name": name, "failed": False, "duration_ms": cost} for name, cost in zip(names, costs)]
    for _ in range(n):
        model = earlyexit.pyramid_policy_update(model, ran, config={"forgetting": 1})
    assert model is not None
    return model


def test_fail_fast_runs_in_order_and_stops_at_the_failing_layer() -> None:
    controller = EarlyExitController(None, 3, policy="fail_fast")
    assert controller.policy == "fail_fast"
    assert "policy='fail_fast'" in repr(controller)
    r = controller.run(layers_of(["unit", "integration", "e2e"], [False, True, False], [10, 40, 90]))
    assert r.layers_executed == (0, 1)
    assert (r.exited_early, r.exit_layer, r.exit_reason, r.skipped_layers, r.confidence) == (True, 1, "layer_failed", 1, 1.0)
    assert (r.speculations, r.verified_layers, r.mispredictions, r.compute_saved_ms) == ((), 0, 0, 90)
    assert r.verdict == "failed" and [f.name for f in r.failing_layers] == ["integration"]
    p = r.policy
    assert p is not None
    assert (p["policy"], p["mode"], p["risk"], p["skipped"]) == ("fail_fast", "enforced", None, [2])
    assert p["config"]["risk_budget"] == 0
    assert p["ran"] == [
        {"name": "unit", "failed": False, "duration_ms": 10},
        {"name": "integration", "failed": True, "duration_ms": 40},
    ]
    assert r.to_dict()["policy"]["ran"][0] == {"name": "unit", "failed": False, "durationMs": 10}
    # The ADR's results have no policy report, and are what they were.
    adr = EarlyExitController(None, 3).run(layers_of(["unit", "integration", "e2e"], [False] * 3, [1, 1, 1]))
    assert adr.policy is None and "policy" not in adr.to_dict()
    assert EarlyExitController(None, 3, policy="adr").run(layers_of(["unit", "integration", "e2e"], [False] * 3, [1, 1, 1])) == adr


def test_risk_bounded_orders_by_the_model_and_skips_within_the_budget() -> None:
    names, costs = ["lint", "unit", "e2e"], [1.0, 10.0, 100.0]
    model = green_model(names, costs, 800)
    controller = EarlyExitController(None, 3, policy="risk_bounded", model=model, policy_config={"forgetting": 1})
    r = controller.run(layers_of(names, [False] * 3, costs))
    assert (r.layers_executed, r.exit_reason, r.skipped_layers, r.verdict) == ((0,), "risk_bounded", 2, "unverified")
    p = r.policy
    assert p is not None and p["risk"] <= p["config"]["risk_budget"]
    assert r.confidence == 1 - p["risk"]
    assert [(c["name"], c["trials"], c["failures"]) for c in p["counts"]] == [("lint", 800, 0), ("unit", 800, 0), ("e2e", 800, 0)]
    assert all(s.predicted == "pass" and not s.verified for s in r.speculations)
    # A run's keywords replace the controller's: fail_fast never skips; an empty model knows nothing.
    assert controller.run(layers_of(names, [False] * 3, costs), policy="fail_fast").exit_reason == "completed"
    empty = {"version": 1, "engine": "PyramidOutcomeModel", "layers": []}
    assert controller.run(layers_of(names, [False] * 3, costs), model=empty).exit_reason == "completed"

    async def one() -> earlyexit.TestPyramidResult:
        async def layer() -> Dict[str, Any]:
            return result(False, 1)

        return await controller.run_async([{"name": n, "cost_ms": c, "run": layer} for n, c in zip(names, costs)])

    assert asyncio.run(one()).exit_reason == "risk_bounded"


def test_step_api_snapshots_and_pickles() -> None:
    names, costs = ["lint", "unit", "e2e"], [1.0, 10.0, 100.0]
    model = green_model(names, costs, 100)
    run = PyramidRun.start(
        None, 3, [{"name": n, "cost_ms": c} for n, c in zip(names, costs)],
        policy="risk_bounded", model=model, policy_config={"forgetting": 1, "risk_budget": 0.05},
    )
    step = run.next()
    assert (step.action, step.layer) == ("run", 0)
    assert run.submit(0, result(False, 1)) is None
    restored = PyramidRun.from_json(run.to_json())
    unpickled = pickle.loads(pickle.dumps(run))
    for other in (restored, unpickled):
        assert other.to_json() == run.to_json()
    for each in (run, restored):
        while (s := each.next()).layer is not None:
            each.submit(s.layer, result(False, 5))
    assert restored.result() == run.result()
    back = pickle.loads(pickle.dumps(run.result()))
    assert back == run.result() and back.policy == run.result().policy
    with pytest.raises(EarlyExitError) as err:
        run.submit(0, result(False, 1))
    assert (err.value.code, err.value.field) == ("invalid_step", "layer")


def test_bad_policy_keywords_are_typed_errors() -> None:
    def refused(field: str, code: str = "invalid_config", **kw: Any) -> EarlyExitError:
        with pytest.raises(EarlyExitError) as err:
            EarlyExitController(None, 1, **kw)
        assert (err.value.code, err.value.field) == (code, field), err.value
        return err.value

    assert EarlyExitController(None, 1, mode="shadow").policy == "adr"  # the ADR runs in shadow mode too
    refused("policy", policy="fastest")
    refused("model", model={"version": 1, "engine": "PyramidOutcomeModel", "layers": []})
    refused("policy_config", policy_config={"risk_budget": 0.1})
    refused("policy_config.risk_budget", policy="risk_bounded", policy_config={"risk_budget": 2})
    refused("model.version", code="invalid_snapshot", policy="fail_fast", model={"version": 9, "engine": "PyramidOutcomeModel", "layers": []})
    refused("model", code="invalid_snapshot", policy="fail_fast", model=7)
    with pytest.raises(EarlyExitTypeError) as err:
        EarlyExitController(None, 1, policy=3)  # type: ignore[arg-type]
    assert err.value.field == "policy"
    calls = []
    layers = [{"name": "a", "run": lambda: calls.append(1) or result(False, 1)}] * 2
    with pytest.raises(EarlyExitError) as err:
        EarlyExitController(None, 2, policy="risk_bounded").run(layers)
    assert err.value.field == "layers[1].name"
    with pytest.raises(EarlyExitError):
        EarlyExitController(None, 2).run(layers, mode="shade")  # type: ignore[arg-type]
    assert calls == []
    # The ADR's shadow run takes what its enforced run takes (names need not be distinct).
    assert list(EarlyExitController(None, 2).run(layers, mode="shadow").layers_executed) == [0, 1]
    assert calls == [1, 1]


def _snake(obj: Any) -> Any:
    import re

    if isinstance(obj, dict):
        return {re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), k): _snake(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_snake(v) for v in obj]
    return obj


def _close(got: Any, want: Any, what: str) -> None:
    """Numbers within a relative 1e-9 (the independent model's special functions are other
    algorithms); everything else equal."""
    if isinstance(want, bool) or want is None or isinstance(want, str):
        assert got == want, what
    elif isinstance(want, (int, float)):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), what
    elif isinstance(want, list):
        assert len(got) == len(want), what
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{what}[{i}]")
    else:
        assert sorted(got) == sorted(want), what
        for k in want:
            _close(got[k], want[k], f"{what}.{k}")


def test_live_vectors_match_the_independent_model() -> None:
    import json

    doc = json.loads((ROOT / "tests" / "vectors" / "policy" / "pyramid_policy.json").read_text())
    assert len(doc["live"]) >= 4
    for case in doc["live"]:
        config = _snake(case["config"])
        model = None
        for i, run in enumerate(case["runs"]):
            layers = run["layers"]
            r = EarlyExitController(None, len(layers), policy=case["policy"], model=model, policy_config=config).run(
                layers_of([l["name"] for l in layers], [l["failed"] for l in layers], [l["durationMs"] for l in layers])
            )
            got = r.to_dict()
            want = case["expected"][i]
            what = f"{case['name']} run {i}"
            for key in ["layersExecuted", "exitReason", "exitLayer", "exitedEarly", "skippedLayers", "verdict", "confidence", "computeSavedMs"]:
                _close(got[key], want[key], f"{what}: {key}")
            assert r.policy is not None
            _close(r.policy["risk"], want["risk"], f"{what}: risk")
            _close([s["risk"] for s in r.policy["steps"]], want["steps"], f"{what}: steps")
            _close([s.confidence for s in r.speculations], want["speculations"], f"{what}: speculations")
            model = earlyexit.pyramid_policy_update(model, r.policy["ran"], policy=case["policy"], config=config)
        _close(model, case["model"], f"{case['name']}: model")


# ---- the public LRTS CI builds (docs/replay-pyramids.md "On real runs") ----------------------


def _lrts_datasets() -> List[tuple]:
    spec = importlib.util.spec_from_file_location("convert_lrts", ROOT / "examples" / "real-runs" / "pyramids" / "convert_lrts.py")
    assert spec is not None and spec.loader is not None
    convert = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(convert)
    james_tune = sorted(convert.read_builds(str(LRTS / "james_training_builds.csv")), key=convert.chronological)
    james_report = sorted(convert.read_builds(str(LRTS / "james_testing_builds.csv")), key=convert.chronological)
    tvm = sorted(convert.read_builds(str(LRTS / "tvm_testing_builds.csv")), key=convert.chronological)
    out = []
    for name, tune, report in [("lrts-james", james_tune, james_report), ("lrts-tvm", tvm[: len(tvm) // 2], tvm[len(tvm) // 2 :])]:
        order = convert.stage_order(tune, report)
        out.append((name, [convert.to_run(b, order) for b in tune], [convert.to_run(b, order) for b in report]))
    return out


def _live_result(layer: Dict[str, Any]) -> Dict[str, Any]:
    """What a CI stage's runner reports for a recorded stage: a failed stage has tests that
    did not pass (``pass_rate < 1``), whatever its method counts say."""
    total, passed = layer.get("total", 0), layer.get("passed", 0)
    rate = passed / total if total else 1.0
    if layer["failed"] and rate >= 1.0:
        rate = 0.0
    return {"pass_rate": rate, "coverage": 1.0, "flaky_ratio": layer.get("flakyRatio", 0.0), "duration_ms": layer["durationMs"]}


@pytest.mark.skipif(not LRTS.is_dir(), reason=f"skipped: {LRTS} is absent (the public LRTS data lies beside the project, not in it)")
def test_a_live_run_decides_as_the_replay_of_the_same_lrts_build() -> None:
    compared = stops = 0
    for name, tune, report in _lrts_datasets():
        calibrated = earlyexit.calibrate_pyramid_policy(tune, 0.005, 0.1)
        for policy, config, model in [
            ("fail_fast", None, None),
            ("risk_bounded", calibrated["config"], calibrated["model"]),
            # A generous budget (not a recommendation) so that the bound's stops are compared too.
            ("risk_bounded", {"risk_budget": 0.1, "forgetting": 1}, calibrated["model"]),
        ]:
            replayed = earlyexit.replay_pyramids(report, policy=policy, config=config, model=model)
            current = model
            for i, run in enumerate(report):
                layers = [
                    {"name": l["name"], "cost_ms": l["durationMs"], "run": (lambda l=l: _live_result(l))} for l in run["layers"]
                ]
                live = EarlyExitController(None, len(layers), policy=policy, model=current, policy_config=config).run(layers)
                played = replayed["runs"][i]
                assert live.policy is not None
                assert (list(live.layers_executed), live.exit_reason, live.policy["risk"]) == (
                    played["executed"], played["reason"], played["risk"],
                ), f"{name} {policy} {config} build {run['id']}"
                assert live.verdict == ("failed" if played["caught"] else ("passed" if played["layers_run"] == played["layers"] else "unverified"))
                current = earlyexit.pyramid_policy_update(current, live.policy["ran"], policy=policy, config=config)
                compared += 1
            assert current == replayed["model"], f"{name} {policy}: the models learned differ"
            stops += replayed["summary"]["risk_bounded_stops"]
    assert compared > 2000
    assert stops > 0, "no risk-bounded stop was compared"
