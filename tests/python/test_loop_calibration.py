"""Loop calibration from Python: the hand-checked vectors (tests/vectors/replay/
loop_calibration.json), both call styles, the artifact running live in
EarlyStopping.from_calibration and replay_loops, pickling, and bad input."""

import json
import pickle
import re
from pathlib import Path

import pytest

from earlyexit import EarlyExitError, EarlyStopping, LoopCalibration, calibrate_loop_policy, replay_loops

DOC = json.loads((Path(__file__).resolve().parents[2] / "tests" / "vectors" / "replay" / "loop_calibration.json").read_text())


@pytest.mark.parametrize("case", DOC["cases"], ids=[c["name"] for c in DOC["cases"]])
def test_hand_checked_vectors(case):
    got = calibrate_loop_policy(DOC["runs"], case["options"])
    want = case["expect"]
    assert isinstance(got, LoopCalibration)
    assert got.certified is want["certified"]
    assert got.status == want["status"]
    assert got.policy["config"]["no_improvement_patience"] == want["policyPatience"]
    artifact = got.artifact
    assert artifact["kind"] == "loop"
    assert artifact["certificate"]["sampleSizes"] == want["sampleSizes"]
    hyps = artifact["certificate"]["hypotheses"]
    assert [(h["trials"], h["events"], h["rejected"]) for h in hyps] == [
        (h["trials"], h["events"], h["rejected"]) for h in want["hypotheses"]
    ]
    for h, w in zip(hyps, want["hypotheses"]):
        assert h["pValue"] == pytest.approx(w["pValue"], abs=1e-12)
    assert [r["prematureTasks"] for r in got.frontier] == want["frontierPrematureTasks"]
    assert [r["tested"] for r in got.frontier] == want["frontierTested"]


def test_call_styles_and_inputs_agree():
    case = DOC["cases"][0]
    opts = dict(case["options"])
    a = calibrate_loop_policy(DOC["runs"], opts)
    risk, delta = opts.pop("risk"), opts.pop("delta")
    b = calibrate_loop_policy("\n".join(json.dumps(r) for r in DOC["runs"]), risk, delta, opts)
    c = calibrate_loop_policy(DOC["runs"], risk=risk, delta=delta, candidates=opts["candidates"])
    for other in (b, c):
        assert other.artifact["certificate"] == a.artifact["certificate"]
        assert other.artifact["corpusSha256"] == a.artifact["corpusSha256"]


def test_the_policy_runs_live_and_pickles():
    cal = calibrate_loop_policy(DOC["runs"], DOC["cases"][0]["options"])
    # Not promoted: the engine enforces the most conservative candidate (patience 4) and runs
    # the calibrated one (patience 3) in shadow.
    for source in (cal, cal.artifact, cal.to_json()):
        engine = EarlyStopping.from_calibration(source)
        assert engine.config.no_improvement_patience == 4
        assert json.loads(engine.to_json())["shadow"]["policy"]["config"]["noImprovementPatience"] == 3
    assert replay_loops(DOC["runs"], cal.policy).summary["premature_stops"] == 0
    assert pickle.loads(pickle.dumps(cal)) == cal
    # Expired: enforced conservatively too, saying so.
    expired = dict(cal.artifact, createdAt="2020-01-01T00:00:00.000Z", expiresAt="2020-02-01T00:00:00.000Z")
    engine = EarlyStopping.from_calibration(expired)
    assert engine.config.no_improvement_patience == 4
    assert engine.shadow_reason is not None and "expired at 2020-02-01" in engine.shadow_reason


def test_too_few_runs_say_so():
    cal = calibrate_loop_policy(DOC["runs"][:50])
    assert (cal.certified, cal.status) == (False, "too_few_runs")
    assert "needs at least 91" in cal.message
    assert "too_few_runs" in repr(cal)


@pytest.mark.parametrize("case", DOC["errors"], ids=[c["name"] for c in DOC["errors"]])
def test_bad_input(case):
    with pytest.raises((EarlyExitError, TypeError)) as e:
        calibrate_loop_policy(case.get("runs", DOC["runs"]), case["options"])
    # Python's errors spell fields snake_case (the vectors hold the JS spelling).
    field = re.sub(r"(?<=[a-z])([A-Z])", lambda m: "_" + m.group(1).lower(), case["throws"]["field"])
    assert (e.value.code, e.value.field) == (case["throws"]["code"], field)


def test_composed_candidates_certify_as_their_configs_and_the_engine_runs_the_tree():
    options = DOC["cases"][0]["options"]
    trees = [
        dict(p, any=[{"condition": "high_confidence", "threshold": 0, "min_quality": 0, "require_verification": True},
                     {"condition": "no_improvement", "patience": p["config"]["noImprovementPatience"]}])
        for p in options["candidates"]
    ]
    configs = calibrate_loop_policy(DOC["runs"], options)
    composed = calibrate_loop_policy(DOC["runs"], dict(options, candidates=trees))
    assert composed.artifact["certificate"] == configs.artifact["certificate"]
    assert composed.artifact["policy"]["any"] == trees[1]["any"]
    engine = EarlyStopping.from_calibration(composed)
    # Not promoted: the most conservative tree decides, the chosen one in shadow.
    assert engine.policy["any"] == trees[0]["any"]
    assert json.loads(engine.to_json())["shadow"]["policy"]["any"] == trees[1]["any"]
    assert EarlyStopping.from_calibration(configs).policy is None
    for i in range(1, 6):  # patience 4: the fifth record stops it
        engine.record(i, 10, 0.1, "failed", 0)
    decision = engine.should_stop()
    assert decision.stop and [f["path"] for f in decision.fired] == ["any[1]"]
    assert EarlyStopping.from_json(engine.to_json()).policy == engine.policy
    with pytest.raises(EarlyExitError) as e:
        calibrate_loop_policy(DOC["runs"], {"candidates": [trees[0], {"any": [{"condition": "no_improvement", "patience": 0}]}]})
    assert (e.value.code, e.value.field) == ("invalid_config", "candidates[1].any[0].patience")


def test_calibration_plan_is_the_cores_and_refuses_bad_risks():
    from earlyexit import calibration_plan

    plan = calibration_plan()
    assert plan == calibration_plan(0.025, 0.1) == calibration_plan(risk=0.025, delta=0.1)
    assert plan["minimum_to_certify"] == 91
    assert [(r["premature_stops"], r["tasks"]) for r in plan["tasks_needed"]] == [(0, 91), (1, 155), (2, 212), (3, 266)]
    # The artifact's own minimum is the plan's first row.
    cal = calibrate_loop_policy(DOC["runs"][:50])
    assert cal.artifact["certificate"]["sampleSizes"]["minimumToCertify"] == 91
    for kwargs, field in (({"risk": 0}, "risk"), ({"risk": 1}, "risk"), ({"delta": 1.5}, "delta"),
                          ({"risk": float("nan")}, "risk"), ({"risk": 1e-17}, "risk"), ({"risk": "x"}, "risk")):
        with pytest.raises(EarlyExitError) as e:
            calibration_plan(**kwargs)
        assert (e.value.code, e.value.field) == ("invalid_config", field), kwargs


def test_an_uncertified_artifact_loads_with_a_warning():
    import warnings

    from earlyexit import Loop, UncertifiedCalibrationWarning

    uncertified = calibrate_loop_policy(DOC["runs"][:50])
    certified = calibrate_loop_policy(DOC["runs"], DOC["cases"][0]["options"])
    assert not uncertified.certified and certified.certified
    for source in (uncertified, uncertified.artifact, uncertified.to_json()):
        with pytest.warns(UncertifiedCalibrationWarning, match="uncertified loop calibration .too_few_runs"):
            EarlyStopping.from_calibration(source)
    with pytest.warns(UncertifiedCalibrationWarning):
        Loop(artifact=uncertified)
    assert issubclass(UncertifiedCalibrationWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        EarlyStopping.from_calibration(certified)
        Loop(artifact=certified)
        # Made an error by the caller's filter: the load raises it.
        warnings.simplefilter("error", UncertifiedCalibrationWarning)
        with pytest.raises(UncertifiedCalibrationWarning):
            EarlyStopping.from_calibration(uncertified)


def test_from_calibration_takes_a_path(tmp_path):
    import os

    cal = calibrate_loop_policy(DOC["runs"], DOC["cases"][0]["options"])
    path = tmp_path / "artifact.json"
    path.write_text(cal.to_json())

    class Custom(os.PathLike):
        def __fspath__(self) -> str:
            return str(path)

    for source in (path, Custom()):
        assert EarlyStopping.from_calibration(source).config.no_improvement_patience == 4  # not promoted
    from earlyexit import Loop

    Loop(artifact=path).step("draft", 50)
    # A str is JSON text, as before: a path given as a str is refused as such.
    with pytest.raises(EarlyExitError) as e:
        EarlyStopping.from_calibration(str(path))
    assert e.value.code == "invalid_artifact"
    with pytest.raises(FileNotFoundError):
        EarlyStopping.from_calibration(tmp_path / "missing.json")
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"kind": "\xe9"}')
    with pytest.raises(EarlyExitError) as e:
        EarlyStopping.from_calibration(bad)
    assert (e.value.code, e.value.field) == ("invalid_artifact", "artifact")
