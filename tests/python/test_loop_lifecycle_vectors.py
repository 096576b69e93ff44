"""tests/vectors/lifecycle/loop_lifecycle.json: loop promotion and drift, the vectors the Rust
and Node suites read too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import earlyexit as ee

DOC = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "lifecycle" / "loop_lifecycle.json").read_text())


def runs(spec: Dict[str, Any]) -> List[Dict[str, Any]]:
    iterations = DOC["iterations"][spec["iterations"]]
    start = spec["from"]
    return [{"id": f"t{i}", "dataset": spec["dataset"], "iterations": iterations} for i in range(start, start + spec["n"])]


@pytest.fixture(scope="module")
def calibration() -> ee.LoopCalibration:
    return ee.calibrate_loop_policy(runs(DOC["calibration"]["runs"]), DOC["calibration"]["options"])


@pytest.mark.parametrize("case", DOC["promotion"], ids=[c["name"] for c in DOC["promotion"]])
def test_promotion(calibration: ee.LoopCalibration, case: Dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(ee.EarlyExitError) as error:
            ee.promote_loop_policy(calibration, runs(case["audit"]))
        assert error.value.code == case["error"]["code"]
        assert error.value.field.startswith(case["error"]["field"])
        return
    answer = ee.promote_loop_policy(calibration, runs(case["audit"]))
    assert answer["promoted"] is case["promoted"]
    assert (answer["audit"]["tasks"], answer["audit"]["prematureTasks"]) == (case["tasks"], case["prematureTasks"])
    assert answer["audit"]["upperBound"] == pytest.approx(case["upperBound"], abs=1e-9)
    assert (answer["artifact"]["promotion"] is None) is (not case["promoted"])


@pytest.mark.parametrize("case", DOC["drift"], ids=[c["name"] for c in DOC["drift"]])
def test_drift(calibration: ee.LoopCalibration, case: Dict[str, Any]) -> None:
    artifact: Any = calibration
    if case.get("promoted"):
        artifact = ee.promote_loop_policy(calibration, runs(DOC["promotion"][0]["audit"]))["artifact"]
    now = artifact["expiresAt"] if case.get("at") == "expiresAt" else None
    report = ee.check_loop_drift(artifact, runs(case["runs"]), now)
    assert report["status"] == case["status"]
    assert [r["kind"] for r in report["reasons"]] == case["reasons"]
    assert (report["artifact"]["promotion"] is None) is case["demoted"]


RECEIPTS = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "lifecycle" / "loop_receipts.json").read_text())


@pytest.mark.parametrize("case", RECEIPTS["cases"], ids=[c["name"] for c in RECEIPTS["cases"]])
def test_receipt_labels(case: Dict[str, Any]) -> None:
    loop = ee.Loop("recommended", max_iterations=case["maxIterations"], task="t-1", shadow=case["shadow"])
    for i, step in enumerate(case["steps"]):
        kwargs: Dict[str, Any] = {} if "verified" not in step else {"verified": step["verified"]}
        assert loop.step(f"out {i}", step["quality"], **kwargs).stop is False
    finished = loop.finish() if case["good"] is None else loop.finish(good=case["good"])
    assert finished.receipt is not None
    assert finished.receipt["label"] == case["label"]
    assert finished.receipt["stoppedAt"] == case["wouldStop"]


@pytest.mark.parametrize("case", RECEIPTS["cases"], ids=[c["name"] for c in RECEIPTS["cases"]])
def test_would_stop_through_early_stopping(case: Dict[str, Any]) -> None:
    # The same records as tests/node/es_shadow.test.mjs sends through JS's EarlyStopping.
    es = ee.EarlyStopping(ee.EarlyStoppingConfig(max_iterations=case["maxIterations"]), shadow=case["shadow"])
    last = 0
    decision = None
    for i, step in enumerate(case["steps"]):
        verified = step.get("verified")
        status = "skipped" if verified is None else ("passed" if verified else "failed")
        es.record(i + 1, quality_score=step["quality"], confidence=0.5, verification_status=status,
                  quality_delta=step["quality"] - last)
        last = step["quality"]
        decision = es.should_stop()
        assert decision.stop is False
    assert decision is not None
    would_stop = decision.would_stop
    assert (None if would_stop is None else would_stop["iteration"]) == case["wouldStop"]
