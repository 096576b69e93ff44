"""BehaviorDetector and InterventionSystem through the Python API: every vector of
``tests/vectors/behavior/behavior.json`` (expected values from aiwg's
``behavior-detector.mjs`` and ``intervention-system.mjs``), mapped to the Pythonic names by
the shared runner (``vector_support.py``), and what is Python's own: snake_case keys, typed
results, callbacks, the clock, pickling, threads."""

from __future__ import annotations

import json
import os
import pickle
import re
import threading
from collections import Counter
from typing import Any, Dict, List

import pytest

import earlyexit as ee
import vector_support
from earlyexit import EarlyExitError, EarlyExitTypeError

VECTORS = os.path.join(os.path.dirname(__file__), "..", "vectors", "behavior", "behavior.json")
with open(VECTORS, encoding="utf-8") as f:
    DOC = json.load(f)
def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def snake_keys(value: Any) -> Any:
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    if isinstance(value, dict):
        return {snake(k): snake_keys(v) for k, v in value.items()}
    return value


TYPES: Counter[str] = Counter()
LEVELS: Counter[str] = Counter()


@pytest.mark.parametrize("vector", DOC["vectors"], ids=[v["name"] for v in DOC["vectors"]])
def test_vector(vector: Dict[str, Any]) -> None:
    """Through the shared runner (vector_support.py: the engines BehaviorDetector and
    InterventionSystem, snake_case keys), then with upstream's camelCase keys as given."""
    if not vector_support.applies_to_python(vector):
        pytest.skip("not for python (JS null)")
    assert vector_support.run_vector(vector) == []
    assert vector_support.run_vector(vector, as_given=True) == []
    for c in vector["calls"]:
        returns = c.get("returns")
        if c["call"].startswith("detect"):
            for d in returns if isinstance(returns, list) else [returns] if returns else []:
                TYPES[d["type"]] += 1
        if c["call"] == "intervene" and returns:
            LEVELS[f"{returns['level']} ({c.get('from', 'direct')})"] += 1


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


def test_detections_as_upstreams_tests_give_them() -> None:
    """Any text as the type or severity (upstream's default branch), no severity, no message
    where nothing quotes it; keys upstream never reads are kept."""
    system = ee.InterventionSystem(clock=lambda: "2026-01-01T00:00:00.000Z")
    assert system.determine_level({"severity": "low", "type": "any"}) == "log"
    assert system.determine_level({"severity": "medium", "type": "any"}) == "warn"
    assert system.determine_level({"severity": "critical", "type": "resource_burn"}) == "abort"
    assert system.determine_level({"type": "stuck"}) == "log"
    assert system.determine_level({"type": "stuck", "severity": "warning"}) == "log"
    logged = system.intervene({"type": "test", "severity": "low", "message": "Test", "owner": "ci"})
    assert (logged.level, logged.reason, logged.detection.type) == ("log", "Test", "test")
    assert logged.detection.to_dict() == {"type": "test", "severity": "low", "message": "Test", "owner": "ci"}
    paused = system.intervene({"type": "critical_issue", "severity": "critical", "message": "Critical issue detected"})
    assert paused.level == "pause" and system.is_paused and system.pause_reason == "Critical issue detected"
    aborted = system.intervene({"type": "resource_burn", "severity": "critical"})
    assert (aborted.level, aborted.reason, aborted.abort_reason) == ("abort", None, None)
    assert "reason" not in aborted.to_dict() and "abortReason" not in aborted.to_dict()
    assert "OVERRIDE: Reassess" in system.build_strategy_override({"type": "test"})
    assert "Stop alternating" in system.build_strategy_override({"type": "oscillation", "evidence": {}})
    assert system.summary().by_type == {"test": 1, "critical_issue": 1, "resource_burn": 1}
    # The log, with such entries, moves between languages and back.
    state = json.loads(json.dumps(system.export_state()))
    again = ee.InterventionSystem()
    again.import_state(state)
    assert again.export_state() == state


def test_detections_refused_where_upstream_breaks() -> None:
    system = ee.InterventionSystem()
    with pytest.raises(EarlyExitTypeError) as info:
        system.build_warning({"type": "stuck"})
    assert (info.value.code, info.value.field) == ("invalid_detection", "detection.message")
    with pytest.raises(EarlyExitTypeError) as info:
        system.intervene({"type": "deviation", "severity": "medium"})  # warned: the warning quotes it
    assert (info.value.code, info.value.field) == ("invalid_detection", "detection.message")
    with pytest.raises(EarlyExitTypeError) as info:
        system.determine_level({"severity": "low"})
    assert (info.value.code, info.value.field) == ("invalid_detection", "detection.type")
    with pytest.raises(EarlyExitTypeError) as info:
        system.determine_level({"type": "stuck", "severity": 3})
    assert (info.value.code, info.value.field) == ("invalid_detection", "detection.severity")
    assert system.summary().total == 0
