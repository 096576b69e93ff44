"""Shadow mode for loops: ``Loop(..., shadow=...)`` and ``EarlyStopping(..., shadow=...)``
decide with the candidate beside the enforced policy, never stop by it, and ``finish`` hands
back the run's receipt, which chains in the receipt log with the pyramid's."""

from __future__ import annotations

import json
import pickle

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, Loop

AT_TWO = {"any": [{"condition": "max_iterations", "limit": 2}]}


def run_loop(goods: list[bool | None], cap: int, **kwargs: object) -> Loop:
    loop = Loop("recommended", max_iterations=cap, task="t-1", shadow=AT_TWO, **kwargs)  # type: ignore[arg-type]
    for i, good in enumerate(goods):
        decision = loop.step(f"out {i}", 40 + 10 * i, good=good)
        if decision.stop:
            break
    return loop


def test_the_candidate_decides_but_never_stops_the_loop() -> None:
    loop = run_loop([None, None, None, True], 4)
    decision = loop.decision
    assert decision is not None and decision.stop and decision.trigger == "max_iterations"
    assert decision.would_stop is not None and decision.would_stop["iteration"] == 2
    assert decision.to_dict()["would_stop"]["trigger"] == "max_iterations"
    assert len(loop.history) == 4
    finished = loop.finish()
    assert finished.run["id"] == "t-1" and finished["id"] == "t-1"
    receipt = finished.receipt
    assert receipt is not None
    assert receipt["kind"] == "loop" and receipt["label"] == "premature_stop"
    assert receipt["stoppedAt"] == 2 and receipt["iterationsSaved"] == 2 and receipt["firstGood"] == 4
    assert receipt["task"] == "t-1" and receipt["runId"] != "t-1"


def test_finish_good_labels_the_output() -> None:
    loop = run_loop([None, None, None], 3)
    assert loop.finish().receipt["label"] == "unknown"  # type: ignore[index]
    loop = run_loop([None, None, None], 3)
    # `recommended` returns the best: iteration 3 (quality 60), after the would-be stop.
    assert loop.finish(good=True).receipt["label"] == "premature_stop"  # type: ignore[index]


def test_without_a_shadow_there_is_no_receipt() -> None:
    loop = Loop("recommended", max_iterations=2)
    loop.step("a", 50)
    assert loop.decision is not None and loop.decision.would_stop is None
    assert "would_stop" not in loop.decision.to_dict()
    assert loop.finish().receipt is None


def test_a_shadow_needs_a_hard_cap() -> None:
    with pytest.raises(EarlyExitError) as e:
        Loop("recommended", shadow="seed")
    assert (e.value.code, e.value.field) == ("invalid_config", "shadow")


def test_candidates_of_every_form_and_the_wrong_kind() -> None:
    assert Loop("recommended", max_iterations=3, shadow="seed") is not None
    assert Loop("recommended", max_iterations=3, shadow={"preset": "recommended"}) is not None
    assert Loop("recommended", max_iterations=3, shadow=json.dumps(AT_TWO)) is not None
    with pytest.raises(EarlyExitError) as e:
        Loop("recommended", max_iterations=3, shadow={"kind": "pyramid", "schemaVersion": 2})
    assert (e.value.code, e.value.field) == ("invalid_artifact", "shadow.kind")
    with pytest.raises(EarlyExitError) as e:
        Loop("recommended", max_iterations=3, shadow="nope")
    assert e.value.field.startswith("shadow")


def test_receipts_chain_and_count_by_label() -> None:
    receipts = []
    for goods in ([None, None, True], [True, None, None], [True], [None, None, None]):
        loop = run_loop(list(goods), len(goods))
        receipts.append(loop.finish().receipt)
    log = ee.append_receipts("", receipts)
    report = ee.verify_receipts(log)
    assert report["valid"] and report["receipts"] == 4
    assert report["labels"] == {"premature_stop": 1, "correct_stop": 1, "no_stop": 1, "unknown": 1}
    assert report["rates"]["prematureStop"]["of"] == 2
    assert len(report["rates"]["prematureStop"]["wilson"]) == 2


def test_pickling_and_json_keep_the_shadow() -> None:
    loop = run_loop([None, None, True], 3)
    again = pickle.loads(pickle.dumps(loop))
    assert again.finish().receipt == loop.finish().receipt
    restored = Loop.from_json(loop.to_json())
    # A loop from JSON is a new run of the same iterations: another run id, the same receipt.
    mine, theirs = dict(loop.receipt() or {}), dict(restored.receipt() or {})
    assert mine.pop("runId") != theirs.pop("runId") and mine == theirs


def test_early_stopping_takes_a_shadow() -> None:
    es = ee.EarlyStopping(ee.EarlyStoppingConfig(max_iterations=4), shadow=AT_TWO)
    for i in range(1, 4):
        es.record(i, quality_score=40 + i, confidence=0.5, verification_status="failed")
        decision = es.should_stop()
    assert not decision.stop
    assert decision.would_stop is not None and decision.would_stop["iteration"] == 2
    assert ee.EarlyStopping.from_json(es.to_json()).should_stop().would_stop == decision.would_stop
    with pytest.raises(EarlyExitError) as e:
        ee.EarlyStopping(shadow=AT_TWO)
    assert (e.value.code, e.value.field) == ("invalid_config", "shadow")


def corpus(start: int, n: int, dataset: str = "d") -> list[dict[str, object]]:
    good = {"quality_score": 95, "confidence": 0.95, "verification_status": "passed", "good": True}
    return [{"id": f"t{i}", "dataset": dataset, "iterations": [good, good]} for i in range(start, start + n)]


def test_promotion_and_drift_of_a_loop_artifact() -> None:
    calibration = ee.calibrate_loop_policy(corpus(0, 150), 0.1, 0.1)
    promotion = ee.promote_loop_policy(calibration, corpus(150, 100))
    assert promotion["promoted"], promotion["reason"]
    promoted = promotion["artifact"]
    assert promoted["promotion"]["method"] == "clopper-pearson" and promoted["promotion"]["trials"] == 100
    assert ee.check_loop_drift(promoted, corpus(300, 10))["status"] == "fresh"
    drift = ee.check_loop_drift(promoted, corpus(300, 10, "other"))
    assert drift["status"] == "drifted" and drift["artifact"]["promotion"] is None
    with pytest.raises(EarlyExitError) as e:
        ee.promote_loop_policy(calibration, corpus(140, 20))
    assert (e.value.code, e.value.field) == ("invalid_replay", "auditRuns")
    with pytest.raises(EarlyExitError) as e:
        ee.check_loop_drift({"kind": "pyramid"}, corpus(0, 1))
    assert (e.value.code, e.value.field) == ("invalid_artifact", "kind")
