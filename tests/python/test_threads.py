"""Engines shared between threads: 8 threads, 100k calls in total, no error (no "Already
borrowed"), and a history that is consistent afterwards, including when calls fail."""

from __future__ import annotations

import sys
import threading
from typing import Callable, Iterator, List

import pytest

import earlyexit as ee

THREADS = 8
CALLS = 100_000
PER_THREAD = CALLS // THREADS


@pytest.fixture(autouse=True)
def frequent_switches() -> Iterator[None]:
    """Hand the GIL over as often as possible, so that any call that ran Python code while
    holding an engine's lock would deadlock here instead of in production."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def hammer(work: Callable[[int], None]) -> List[BaseException]:
    errors: List[BaseException] = []
    start = threading.Barrier(THREADS)

    def body(t: int) -> None:
        try:
            start.wait()
            work(t)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return errors


def test_shared_early_stopping() -> None:
    analytics = ee.IterationAnalytics()
    es = ee.EarlyStopping(analytics=analytics, plateau_consecutive_count=50)
    rejected = [0] * THREADS

    def work(t: int) -> None:
        # Each thread records its own iteration numbers; every 5th call is a bad one that
        # must be rejected without leaving anything behind.
        for k in range(PER_THREAD // 5):
            n = t * PER_THREAD + k + 1
            q = 50 + (n % 40)
            es.record(n, q, 0.5, "failed", 1, "2026-01-01T00:00:00.000Z", tokens_used=1)
            analytics.record(n, q, "failed")
            es.should_stop()
            _ = es.history[-1] if k % 100 == 0 else None
            try:
                es.record(n, float("nan"), 0.5, "failed", 0)
            except ee.EarlyExitError:
                rejected[t] += 1

    errors = hammer(work)
    assert errors == []
    recorded = THREADS * (PER_THREAD // 5)
    assert sum(rejected) == recorded
    history = es.history
    assert len(history) == len(analytics) == recorded
    numbers = sorted(r.iteration_number for r in history)
    assert numbers == sorted(t * PER_THREAD + k + 1 for t in range(THREADS) for k in range(PER_THREAD // 5))
    for r in history:
        assert r.quality_score == 50 + (r.iteration_number % 40) and r.tokens_used == 1
    assert ee.EarlyStopping.from_json(es.to_json()).history == history


def test_shared_outside_source_and_pyramid_runs() -> None:
    class Source:
        def __init__(self) -> None:
            self.calls = 0
            self.lock = threading.Lock()

        def detect_diminishing_returns(self) -> object:
            with self.lock:
                self.calls += 1
            return {"detected": False, "iteration": None, "reason": "still improving"}

    source = Source()
    es = ee.EarlyStopping(analytics=source, enable_plateau_detection=False)
    es.record(1, 50, 0.5, "failed", 0, "2026-01-01T00:00:00.000Z")
    controller = ee.EarlyExitController(ee.EarlyExitConfig.DEFAULT, 3)
    layers = [("unit", lambda: {"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0})] * 3
    decisions = [0] * THREADS

    def work(t: int) -> None:
        for _ in range(PER_THREAD // 10):
            if not es.should_stop().stop:
                decisions[t] += 1
        for _ in range(50):
            assert controller.run(layers).exited_early

    assert hammer(work) == []
    assert sum(decisions) == source.calls == THREADS * (PER_THREAD // 10)
