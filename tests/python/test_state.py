"""Pickling and the portable JSON snapshot: every engine round-trips exactly, a restored
engine goes on exactly as the original would, and invalid state raises EarlyExitError."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

import earlyexit as ee


def busy_engine(analytics: object = None) -> ee.EarlyStopping:
    es = ee.EarlyStopping(plateau_consecutive_count=3, max_total_tokens=10_000, analytics=analytics)  # type: ignore[arg-type]
    for i, q in enumerate([60, 72.5, 73.0, 73.2], start=1):
        es.record(i, q, 0.6, "passed", 0.4, f"2026-01-01T00:00:0{i}.000Z", tokens_used=100 * i)
    es.should_stop()
    return es


def test_early_stopping_json_round_trip_is_exact() -> None:
    es = busy_engine()
    text = es.to_json()
    again = ee.EarlyStopping.from_json(text)
    assert again.to_json() == text
    assert ee.EarlyStopping.from_json(json.loads(text)).to_json() == text
    assert ee.EarlyStopping.from_json(text.encode()).to_json() == text
    snapshot = json.loads(text)
    assert (snapshot["version"], snapshot["engine"]) == (1, "EarlyStopping")
    assert snapshot["config"]["plateauConsecutiveCount"] == 3
    # The restored engine goes on exactly as the original.
    for engine in (es, again):
        engine.record(5, 90, 0.97, "passed", 16.8, "2026-01-01T00:00:05.000Z")
    assert es.should_stop() == again.should_stop()
    assert es.history == again.history and es.stopping_reason == again.stopping_reason


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_every_engine(protocol: int) -> None:
    es = busy_engine()
    again = pickle.loads(pickle.dumps(es, protocol=protocol))
    assert again.to_json() == es.to_json() and again.should_stop() == es.should_stop()

    a = ee.IterationAnalytics(selection_criteria="highest_quality")
    for i, q in enumerate([70, 71, 71.2], start=1):
        a.record(i, q, "passed", execution_time_ms=5)
    a.summary()  # the first summary sets end_time (the clock's): pickled with it
    a2 = pickle.loads(pickle.dumps(a, protocol=protocol))
    assert a2.to_json() == a.to_json() and a2.summary() == a.summary()

    run = ee.PyramidRun.start(
        ee.EarlyExitConfig.AGGRESSIVE, 3, [{"name": "unit", "cost_ms": 5}, {"name": "e2e"}, {"name": "perf"}]
    )
    run.submit(0, {"pass_rate": 0.97, "coverage": 0.9, "flaky_ratio": 0.01, "suite": "api"})
    run2 = pickle.loads(pickle.dumps(run, protocol=protocol))
    assert run2.to_json() == run.to_json() and run2.next() == run.next()
    for r in (run, run2):
        while not r.is_done:
            step = r.next()
            assert step.layer is not None
            r.submit(step.layer, {"pass_rate": 1, "coverage": 0.9, "flaky_ratio": 0})
    assert run.result() == run2.result()


def test_pickle_keeps_the_analytics_source() -> None:
    a = ee.IterationAnalytics()
    es = busy_engine(analytics=a)
    for i, q in enumerate([60, 72.5, 73.0, 73.2], start=1):
        a.record(i, q, "passed")
    es2, a2 = pickle.loads(pickle.dumps((es, a)))
    assert es2.analytics is a2  # one pickle keeps the sharing
    assert es2.should_stop() == es.should_stop()
    assert ee.EarlyStopping.from_json(es.to_json()).analytics is None
    assert ee.EarlyStopping.from_json(es.to_json(), analytics=a).analytics is a


def test_copy_and_deepcopy() -> None:
    es = busy_engine()
    shallow, deep = copy.copy(es), copy.deepcopy(es)
    es.record(5, 50, 0.1, "failed", -23.2, "2026-01-01T00:00:05.000Z")
    assert len(shallow) == len(deep) == 4 and len(es) == 5


def test_values_pickle() -> None:
    for value in [
        ee.EarlyExitConfig.CONSERVATIVE,
        ee.EarlyExitConfig(verification_layers=3),
        ee.EarlyStoppingConfig(max_iterations=5),
        ee.AnalyticsConfig(quality_threshold=60),
        ee.LayerResult(0.9, 0.8, 0.01, name="unit", extra={"suite": "x"}),
        ee.QualitySignal(lambda_=90, lambda_prev=85, boundary_concentration=0.1),
    ]:
        assert pickle.loads(pickle.dumps(value)) == value


@pytest.mark.parametrize(
    "patch, field",
    [
        (lambda s: s["history"][1].update(quality_score=101), "history[1].quality_score"),
        (lambda s: s["config"].update(plateauConsecutiveCount=1), "config.plateauConsecutiveCount"),
        (lambda s: s.update(extra=1), "extra"),
        (lambda s: s["history"][0].pop("timestamp"), "history[0].timestamp"),
    ],
)
def test_restoring_invalid_state_raises(patch: object, field: str) -> None:
    snapshot = json.loads(busy_engine().to_json())
    patch(snapshot)  # type: ignore[operator]
    for form in (snapshot, json.dumps(snapshot)):
        with pytest.raises(ee.EarlyExitError) as info:
            ee.EarlyStopping.from_json(form)
        assert (info.value.code, info.value.field) == ("invalid_snapshot", field)


def test_snapshot_of_another_engine_is_rejected() -> None:
    a = ee.IterationAnalytics()
    with pytest.raises(ee.EarlyExitError) as info:
        ee.EarlyStopping.from_json(a.to_json())
    assert info.value.code == "invalid_snapshot"
    with pytest.raises(ee.EarlyExitError):
        ee.PyramidRun.from_json(a.to_json())
