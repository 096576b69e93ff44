"""Pyramid replay, the risk-bounded policy, calibration and shadow mode from Python."""

import json
import pathlib
import re

import pytest

import earlyexit
from earlyexit import EarlyExitError, EarlyExitTypeError

VECTORS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "vectors" / "policy" / "pyramid_policy.json"


def snake(obj):
    """The vectors' camelCase keys in the Python spelling."""
    if isinstance(obj, dict):
        return {re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), k): snake(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [snake(v) for v in obj]
    return obj


def run(*layers):
    return {"layers": [{"name": n, "duration_ms": ms, "failed": f} for n, ms, f in layers]}


def test_fail_fast_replay_counts_recall_and_savings():
    runs = [
        run(("unit", 1, False), ("e2e", 9, False)),
        run(("unit", 1, True), ("e2e", 9, True)),
        run(("unit", 1, False), ("e2e", 9, True)),
    ]
    out = earlyexit.replay_pyramids(runs, policy="fail_fast")
    s = out["summary"]
    assert (s["failing_runs"], s["caught"], s["missed"], s["declared_green"]) == (2, 2, 0, 1)
    assert s["saved_actual"] == pytest.approx(9 / 30)
    assert s["recall"] == 1
    assert s["false_pass_ci"][0] == 0 and s["false_pass_ci"][1] == pytest.approx(0.7934506, abs=1e-6)
    assert [r["reason"] for r in out["runs"]] == ["completed", "layer_failed", "layer_failed"]
    assert out["runs"][1]["executed"] == [0]


def test_jsonl_text_and_adr_default():
    text = "\n".join(
        json.dumps({"layers": [{"name": n, "durationMs": ms, "failed": f} for n, ms, f in layers]})
        for layers in [[("unit", 1, False), ("int", 2, False), ("e2e", 3, False), ("perf", 4, True)]]
    )
    # JSONL text has one spelling (camelCase) in every language; dicts may use either, so
    # the lines loaded with json.loads replay as they are, but not both spellings at once.
    from_text = earlyexit.replay_pyramids(text)
    out = earlyexit.replay_pyramids([run(("unit", 1, False), ("int", 2, False), ("e2e", 3, False), ("perf", 4, True))])
    assert from_text == out
    assert earlyexit.replay_pyramids([json.loads(line) for line in text.splitlines()]) == out
    with pytest.raises(EarlyExitTypeError) as err:
        earlyexit.replay_pyramids([{"layers": [{"name": "a", "durationMs": 1, "duration_ms": 1, "failed": False}]}])
    assert (err.value.code, err.value.field) == ("invalid_replay", "runs[0].layers[0].duration_ms")
    r = out["runs"][0]
    assert (r["reason"], r["exit_layer"], r["executed"], r["verified_layers"]) == ("confident_exit", 0, [0, 1, 2], 2)
    assert (r["saved_nominal_ms"], r["saved_actual_ms"], r["missed"]) == (9, 4, True)


def test_malformed_runs_name_the_path():
    good = run(("a", 1, False))
    bad = {"layers": [{"name": "a", "duration_ms": 1, "failed": False}, {"name": "b", "duration_ms": -1, "failed": False}]}
    with pytest.raises(EarlyExitError) as err:
        earlyexit.replay_pyramids([good, good, good, bad])
    assert (err.value.code, err.value.field) == ("invalid_replay", "runs[3].layers[1].duration_ms")
    with pytest.raises(EarlyExitError) as err:
        earlyexit.replay_pyramids([good], policy="fastest")
    assert err.value.field == "policy"
    with pytest.raises(EarlyExitError) as err:
        earlyexit.calibrate_pyramid_policy([good], 0, 0.1)
    assert err.value.field == "risk"


def test_model_update_decide_and_serialize():
    model = None
    for i in range(600):
        model = earlyexit.pyramid_policy_update(
            model, [{"name": "fast", "failed": False, "duration_ms": 1}, {"name": "slow", "failed": False}]
        )
    assert model["version"] == 1 and model["engine"] == "PyramidOutcomeModel"
    text = json.dumps(model)
    layers = [{"name": "fast", "cost_ms": 1}, {"name": "slow", "cost_ms": 10}]
    d = earlyexit.pyramid_policy_decide(text, layers, [{"layer": 0, "failed": False}])
    assert d["action"] == "stop" and d["reason"] == "risk_bounded" and d["risk"] <= 0.01
    d = earlyexit.pyramid_policy_decide(model, layers, [{"layer": 0, "failed": False}], policy="fail_fast")
    assert d == {"action": "run", "layer": 1, "risk": None}
    d = earlyexit.pyramid_policy_decide(model, layers, [{"layer": 0, "failed": True}])
    assert d == {"action": "stop", "reason": "layer_failed", "risk": None}
    with pytest.raises(EarlyExitError) as err:
        earlyexit.pyramid_policy_decide(dict(model, version=3), layers, [])
    assert (err.value.code, err.value.field) == ("invalid_snapshot", "model.version")
    with pytest.raises(EarlyExitError) as err:
        earlyexit.pyramid_policy_update(model, [{"name": "a", "failed": False}, {"name": "a", "failed": True}])
    assert err.value.field == "ran[1].name"


def test_shadow_and_calibrate():
    runs = [run(("fast", 1, i % 4 == 0), ("slow", 10, False)) for i in range(400)]
    runs.append(run(("fast", 1, False), ("slow", 10, True)))
    out = earlyexit.shadow_pyramids(runs)
    assert out["runs"][-1]["reason"] == "risk_bounded" and out["runs"][-1]["missed"]
    assert out["summary"]["missed"] == 1
    cal = earlyexit.calibrate_pyramid_policy(runs, 0.05, 0.1, grid=[0.001, 0.01, 0.05])
    assert cal["risk_budget"] in (0, 0.001, 0.01, 0.05)
    assert cal["config"]["risk_budget"] == cal["risk_budget"]
    assert all(s["certified"] for s in cal["steps"][:-1])


def test_vectors():
    doc = json.loads(VECTORS.read_text())
    for case in doc["decide"]:
        got = earlyexit.pyramid_policy_decide(
            case["model"], snake(case["layers"]), case["outcomes"], config=snake(case["config"])
        )
        want = case["expected"]
        assert got["action"] == want["action"], case["name"]
        assert got.get("layer") == want.get("layer") and got.get("reason") == want.get("reason"), case["name"]
        if want["risk"] is None:
            assert got["risk"] is None
        else:
            assert got["risk"] == pytest.approx(want["risk"], rel=1e-9, abs=1e-12), case["name"]
    assert len(doc["decide"]) >= 30 and len(doc["replay"]) >= 10
    for case in doc["replay"]:
        out = earlyexit.replay_pyramids(snake(case["runs"]), policy=case["policy"], config=snake(case["config"]))
        for key, want in snake(case["expected"]).items():
            got = out["summary"][key]
            if isinstance(want, list):
                assert got == pytest.approx(want, abs=1e-12), (case["name"], key)
            elif isinstance(want, float):
                assert got == pytest.approx(want, rel=1e-9, abs=1e-15), (case["name"], key)
            else:
                assert got == want, (case["name"], key)
        assert [r["executed"] for r in out["runs"]] == case["executed"], case["name"]
