"""An enforced engine given a loop calibration artifact (docs/lifecycle.md): promoted and
current, it enforces the calibrated policy; not promoted (never, or demoted by a drift check)
or expired, it enforces the calibration's most conservative policy, runs the calibrated one in
shadow and says why (``shadow_reason``, kept in snapshots)."""

from __future__ import annotations

import json
import pickle
from typing import Any, Dict, List

import pytest

import earlyexit as ee


def runs(start: int, n: int, dataset: str = "d") -> List[Dict[str, Any]]:
    """``n`` tasks from ``start``, good from the first iteration on."""
    good = {"quality_score": 95, "confidence": 0.95, "verification_status": "passed", "good": True}
    return [{"id": f"t{i}", "dataset": dataset, "iterations": [dict(good), dict(good)]} for i in range(start, start + n)]


@pytest.fixture(scope="module")
def calibration() -> ee.LoopCalibration:
    calibration = ee.calibrate_loop_policy(runs(0, 150), 0.1, 0.1)
    assert calibration.status == "certified"
    return calibration


@pytest.fixture(scope="module")
def promoted(calibration: ee.LoopCalibration) -> Dict[str, Any]:
    answer = ee.promote_loop_policy(calibration, runs(150, 100))
    assert answer["promoted"] is True, answer["reason"]
    artifact: Dict[str, Any] = answer["artifact"]
    return artifact


def conservative_config(calibration: ee.LoopCalibration) -> Dict[str, Any]:
    config: Dict[str, Any] = calibration.artifact["body"]["frontier"][0]["policy"]["config"]
    return config


def test_an_unpromoted_artifact_enforces_its_conservative_policy(calibration: ee.LoopCalibration) -> None:
    calibrated = calibration.artifact["policy"]["config"]
    conservative = conservative_config(calibration)
    assert calibrated != conservative
    engine = ee.EarlyStopping.from_calibration(calibration)
    assert engine.config.high_confidence_threshold == conservative["highConfidenceThreshold"]
    assert engine.shadow_reason is not None and "not promoted" in engine.shadow_reason
    # The calibrated policy would stop at once on a verified pass; the conservative one goes on.
    engine.record(1, 95, 0.99, "passed", 0)
    decision = engine.should_stop()
    assert decision.stop is False
    assert decision.would_stop is not None and decision.would_stop["iteration"] == 1
    # The snapshot keeps the shadow and its reason, and so does a pickle.
    snapshot = json.loads(engine.to_json())
    assert snapshot["shadow"]["name"] == "calibrated"
    assert snapshot["shadow"]["reason"] == engine.shadow_reason
    assert ee.EarlyStopping.from_json(engine.to_json()).shadow_reason == engine.shadow_reason
    assert pickle.loads(pickle.dumps(engine)).shadow_reason == engine.shadow_reason


def test_a_promoted_artifact_enforces_its_calibrated_policy(promoted: Dict[str, Any]) -> None:
    engine = ee.EarlyStopping.from_calibration(promoted)
    assert engine.shadow_reason is None
    assert engine.config.high_confidence_threshold == promoted["policy"]["config"]["highConfidenceThreshold"]
    engine.record(1, 95, 0.99, "passed", 0)
    assert engine.should_stop().stop is True
    assert "shadow" not in json.loads(engine.to_json())


def test_a_drifted_or_expired_artifact_is_enforced_conservatively(
    calibration: ee.LoopCalibration, promoted: Dict[str, Any]
) -> None:
    drift = ee.check_loop_drift(promoted, runs(400, 20, dataset="elsewhere"))
    assert drift["status"] == "drifted"
    engine = ee.EarlyStopping.from_calibration(drift["artifact"])
    assert engine.shadow_reason is not None and "not promoted" in engine.shadow_reason
    assert engine.config.high_confidence_threshold == conservative_config(calibration)["highConfidenceThreshold"]
    # Expired: its own expiry moved into the past (the promotion's digest no longer matches
    # the edited artifact, so the promotion is dropped too, as an edit must).
    expired = json.loads(json.dumps(calibration.artifact))
    expired["createdAt"], expired["expiresAt"] = "2020-01-01T00:00:00.000Z", "2020-04-01T00:00:00.000Z"
    engine = ee.EarlyStopping.from_calibration(expired)
    assert engine.shadow_reason is not None and "expired at 2020-04-01" in engine.shadow_reason


def test_loop_with_an_unpromoted_artifact(calibration: ee.LoopCalibration, promoted: Dict[str, Any]) -> None:
    loop = ee.Loop(artifact=calibration, max_iterations=4, task="t-1")
    assert loop.shadow_reason is not None and "not promoted" in loop.shadow_reason
    step = loop.step("draft", 95, confidence=0.99, verified=True)
    assert step.stop is False and step.would_stop is not None
    finished = loop.finish(good=True)
    assert finished.receipt is not None
    assert finished.receipt["policy"] == "calibrated"
    assert finished.receipt["label"] == "correct_stop"
    # Its shadow is taken: another one is refused, naming shadow.
    with pytest.raises(ee.EarlyExitError) as error:
        ee.Loop(artifact=calibration, max_iterations=4, shadow="recommended")
    assert (error.value.code, error.value.field) == ("invalid_config", "shadow")
    # Promoted: the calibrated policy acts, and a shadow given is run.
    loop = ee.Loop(artifact=promoted, max_iterations=4, shadow="recommended")
    assert loop.shadow_reason is None
    assert loop.step("draft", 95, confidence=0.99, verified=True).stop is True


def test_hostile_shadows_are_typed_errors_naming_shadow() -> None:
    deep: Dict[str, Any] = {"condition": "max_iterations", "limit": 2}
    for _ in range(5000):
        deep = {"any": [deep]}
    for shadow in (deep, "x" * 5_000_000, [1, 2], 5):
        with pytest.raises(ee.EarlyExitError) as error:
            ee.Loop("recommended", max_iterations=3, shadow=shadow)
        assert (error.value.code, error.value.field) == ("invalid_config", "shadow")
        assert len(str(error.value)) < 4096
