"""BehaviorDetector and InterventionSystem through the Python API: every vector of
``tests/vectors/behavior/behavior.json`` (expected values from aiwg's
``behavior-detector.mjs`` and ``intervention-system.mjs``), mapped to the Pythonic names, and
what is Python's own: snake_case keys, typed results, callbacks, the clock, pickling, threads."""

from __future__ import annotations

import json
import os
import pickle
import re
import threading
from collections import Counter
from typing import Any, Dict, List, Optional

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError

VECTORS = os.path.join(os.path.dirname(__file__), "..", "vectors", "behavior", "behavior.json")
with open(VECTORS, encoding="utf-8") as f:
    DOC = json.load(f)
SPECIAL = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf"), "-0": -0.0}


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if list(value) == ["$num"]:
            return SPECIAL[value["$num"]]
        return {k: decode(v) for k, v in value.items()}
    return value


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def snake_keys(value: Any) -> Any:
    """The vectors spell keys as upstream's JS does; Python's idiom is snake_case (the core
    reads either spelling; the snake one is what a Python caller writes)."""
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    if isinstance(value, dict):
        return {snake(k): snake_keys(v) for k, v in value.items()}
    return value


def python_field(field: str) -> str:
    return ".".join(snake(part) for part in field.split("."))


TYPES: Counter[str] = Counter()
LEVELS: Counter[str] = Counter()


class Host:
    """Runs one vector's calls on the Python objects, answering the JS API's JSON."""

    def __init__(self, vector: Dict[str, Any]) -> None:
        self.now: Optional[str] = None
        self.callbacks = {"onIntervention": 0, "onPause": 0, "onAbort": 0}
        options = snake_keys(decode(vector["construct"].get("options")))
        if vector["engine"] == "BehaviorDetector":
            self.engine: Any = ee.BehaviorDetector(**(options or {}))
        elif options is not None:
            self.engine = ee.InterventionSystem(**options)
        else:
            self.engine = ee.InterventionSystem(
                on_intervention=lambda i: self.count("onIntervention", i),
                on_pause=lambda i: self.count("onPause", i),
                on_abort=lambda i: self.count("onAbort", i),
                clock=lambda: self.now,
            )

    def count(self, name: str, intervention: Any) -> None:
        assert isinstance(intervention, ee.Intervention)
        self.callbacks[name] += 1

    def call(self, name: str, args: List[Any]) -> Any:
        e = self.engine
        if name == "detect":
            return [d.to_dict() for d in e.detect(*args)]
        if name.startswith("detect"):
            found = getattr(e, snake(name))(*args)
            return None if found is None else found.to_dict()
        if name == "getThresholds":
            return e.thresholds.to_dict()
        if name == "updateThresholds":
            return e.update_thresholds(*args)
        if name == "intervene":
            return e.intervene(*args).to_dict()
        if name == "getPauseStatus":
            status = e.pause_status()
            assert (status["is_paused"], status["reason"]) == (e.is_paused, e.pause_reason)
            return {"isPaused": status["is_paused"], "reason": status["reason"]}
        if name == "getLog":
            return [entry.to_dict() for entry in e.log(*args)]
        if name == "getSummary":
            return e.summary().to_dict()
        if name == "importState":
            return e.import_state(snake_keys(args[0]) if isinstance(args[0], dict) else args[0])
        return getattr(e, snake(name))(*args)

    def state(self) -> Any:
        return self.engine.thresholds.to_dict() if isinstance(self.engine, ee.BehaviorDetector) else self.engine.export_state()


def key_order(value: Any) -> Any:
    """Every object's keys in order, nested (`==` on dicts ignores their order)."""
    if isinstance(value, list):
        return [key_order(v) for v in value]
    if isinstance(value, dict):
        return [(k, key_order(v)) for k, v in value.items()]
    return None


def applies(vector: Dict[str, Any]) -> bool:
    return "only" not in vector or "python" in vector["only"]


@pytest.mark.parametrize("vector", DOC["vectors"], ids=[v["name"] for v in DOC["vectors"]])
def test_vector(vector: Dict[str, Any]) -> None:
    if not applies(vector):
        pytest.skip("not for python (JS null)")
    if "throws" in vector:
        expected = vector["throws"]
        kind = EarlyExitTypeError if expected["kind"] == "type" else EarlyExitError
        with pytest.raises(kind) as info:
            Host(vector)
        assert (info.value.code, info.value.field) == (expected["code"], python_field(expected["field"]))
        return
    host = Host(vector)
    for i, c in enumerate(vector["calls"]):
        host.now = c.get("now")
        args = decode(c["args"])
        if c["call"] not in ("injectWarning", "resume", "getLog", "importState"):
            args = [snake_keys(a) for a in args]
        where = f"call {i} ({c['call']})"
        if "throws" in c:
            expected = c["throws"]
            kind = EarlyExitTypeError if expected["kind"] == "type" else EarlyExitError
            before = host.state()
            with pytest.raises(kind) as info:
                host.call(c["call"], args)
            assert (info.value.code, info.value.field) == (expected["code"], python_field(expected["field"])), where
            if kind is EarlyExitError:
                assert not isinstance(info.value, EarlyExitTypeError), where
            assert host.state() == before, f"{where}: a refused call changed the state"
            continue
        actual = host.call(c["call"], args)
        assert actual == c.get("returns"), where
        assert key_order(actual) == key_order(c.get("returns")), f"{where}: key order"
        if c["call"].startswith("detect"):
            for d in actual if isinstance(actual, list) else [actual] if actual else []:
                TYPES[d["type"]] += 1
        if c["call"] == "intervene":
            LEVELS[f"{actual['level']} ({c.get('from', 'direct')})"] += 1
    if "callbacks" in vector:
        assert host.callbacks == vector["callbacks"]


def test_zz_every_type_and_level_occurred() -> None:
    """Runs after the vectors (by name): prints and checks the frequencies."""
    print(f"\nbehavior (python): detections by type: {dict(sorted(TYPES.items()))}")
    print(f"behavior (python): intervention levels: {dict(sorted(LEVELS.items()))}")
    assert set(TYPES) == {"stuck", "oscillation", "deviation", "resource_burn", "regression"}
    assert {"warn (detector)", "redirect (detector)", "pause (detector)", "abort (detector)", "log (direct)"} <= set(LEVELS)


STUCK = [{"number": n, "analysis": {"error": "E1", "completion_percentage": 0.3, "blockers": ["CI"]}} for n in range(1, 6)]


def test_pythonic_forms() -> None:
    detector = ee.BehaviorDetector(thresholds={"stuck": {"same_error_count": 2}})
    assert detector.thresholds.stuck == {"same_error_count": 2}
    assert detector.thresholds.to_dict()["stuck"] == {"sameErrorCount": 2}
    assert ee.THRESHOLDS.stuck == {"same_error_count": 3, "no_progress_iterations": 5}
    [found] = detector.detect(STUCK)
    assert isinstance(found, ee.Detection) and found.type == "stuck" and found.severity == "critical"
    assert found.evidence == {"repeated_error": "E1", "occurrences": 5, "avg_progress_rate": 0, "recent_blockers": ["CI"] * 5}
    assert found.to_dict()["evidence"]["repeatedError"] == "E1"
    assert found.recommendations is not None and found.recommendations[0] == "Change approach or strategy"
    # The camelCase keys of upstream's objects are read too.
    assert ee.BehaviorDetector().detect([{"analysis": {"completionPercentage": 0.5}}] * 2) == []
    seen: List[str] = []
    system = ee.InterventionSystem(on_pause=lambda i: seen.append(i.level), clock=lambda: "2026-05-01T10:00:00.000Z")
    intervention = system.intervene(found)
    assert (intervention.level, intervention.requires_approval, intervention.detection) == ("pause", True, found)
    assert seen == ["pause"] and system.is_paused and system.pause_reason == found.message
    assert system.determine_level({"type": "deviation", "severity": "low", "message": "m"}) == ee.INTERVENTION_LEVELS["LOG"]
    assert system.resume("approved") and not system.is_paused
    [_, resumed] = system.log()
    assert (resumed.level, resumed.reason, resumed.previous_pause_reason, resumed.detection) == ("resume", "approved", found.message, None)
    assert system.summary().by_level == {"pause": 1, "resume": 1}
    state = system.export_state()
    other = ee.InterventionSystem()
    other.import_state(state)
    assert other.export_state() == state and other.log() == system.log()
    other.import_state(snake_keys(state))
    assert other.log() == system.log()


def test_pickles_and_threads() -> None:
    detector = ee.BehaviorDetector(thresholds={"stuck": {"same_error_count": 2}, "regression": {}})
    again = pickle.loads(pickle.dumps(detector))
    assert again.thresholds == detector.thresholds
    found = detector.detect(STUCK)
    system = ee.InterventionSystem()
    for obj in [found[0], system.intervene(found[0]), system.summary(), detector.thresholds, ee.THRESHOLDS]:
        assert pickle.loads(pickle.dumps(obj)) == obj
    shared = ee.InterventionSystem()

    def work() -> None:
        for _ in range(300):
            shared.intervene({"type": "regression", "severity": "high", "message": "m"})

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert shared.summary().total == 100, "the log keeps the last 100"
    assert len(shared.log(0)) == 100


def test_bad_input_is_typed() -> None:
    with pytest.raises(EarlyExitTypeError) as info:
        ee.InterventionSystem(on_paws=print)
    assert (info.value.code, info.value.field) == ("unknown_option", "on_paws") and "on_pause" in str(info.value)
    with pytest.raises(EarlyExitTypeError) as info:
        ee.InterventionSystem(clock=lambda: 5).intervene({"type": "stuck", "severity": "low", "message": "m"})
    assert (info.value.code, info.value.field) == ("invalid_config", "clock")
    with pytest.raises(EarlyExitError) as info:
        ee.BehaviorDetector().detect([{"analysis": {"completion_percentage": 150}}])
    assert info.value.field == "history[0].analysis.completion_percentage"
    with pytest.raises(EarlyExitTypeError) as info:
        ee.InterventionSystem().resume(5)
    assert info.value.field == "approval_reason"
