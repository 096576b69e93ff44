"""`EarlyStopping.record(i, score, confidence, status, delta)` with plain numbers and a
status string takes a fast path straight into the core (see docs/benchmarks.md); these
tests pin that it records exactly what the general path records and that every input the
fast path does not take, or that the core rejects, fails exactly as through the mapping
form `record_result`, leaving the engine unchanged."""

import math
from typing import Any, List, Tuple

import pytest

from earlyexit import EarlyExitError, EarlyStopping


class Score(float):
    pass


class Count(int):
    pass


def without_timestamps(engine: EarlyStopping) -> List[dict]:
    rows = [record.to_dict() for record in engine.history]
    for row in rows:
        del row["timestamp"]
    return rows


VALID: List[Tuple[Any, ...]] = [
    (1, 62.5, 0.8, "passed", 0.0),
    (2, 71, 1, "failed", 8),  # ints for the numbers
    (3, Score(74.25), Score(0.5), "skipped", -1.5),  # float subclasses
    (4, 100.0, 0.0, "passed", -0.0),
    (5, 0, 0.95, "passed", 1e300),
    (6, 80.0, 0.9, "failed", Count(3)),  # int subclass: the general path
    (7.0, 81.0, 0.9, "failed", 1.0),  # an integral float iteration: the general path
]


def test_valid_records_equal_the_mapping_form() -> None:
    fast, general = EarlyStopping(), EarlyStopping()
    for iteration, score, confidence, status, delta in VALID:
        fast.record(iteration, score, confidence, status, delta)
        general.record_result(
            iteration,
            {"quality_score": score, "confidence": confidence, "verification_status": status, "quality_delta": delta},
        )
        assert fast.should_stop() == general.should_stop()
    assert without_timestamps(fast) == without_timestamps(general)
    assert len(fast) == len(VALID)
    assert all(record.timestamp.endswith("Z") for record in fast.history)


BAD: List[Tuple[Any, ...]] = [
    (True, 50.0, 0.5, "passed", 0.0),
    (0, 50.0, 0.5, "passed", 0.0),
    (-1, 50.0, 0.5, "passed", 0.0),
    (2**53, 50.0, 0.5, "passed", 0.0),
    (2**70, 50.0, 0.5, "passed", 0.0),
    (1, True, 0.5, "passed", 0.0),
    (1, 100.5, 0.5, "passed", 0.0),
    (1, -1, 0.5, "passed", 0.0),
    (1, math.nan, 0.5, "passed", 0.0),
    (1, "50", 0.5, "passed", 0.0),
    (1, 2**80, 0.5, "passed", 0.0),
    (1, 50.0, 1.5, "passed", 0.0),
    (1, 50.0, math.inf, "passed", 0.0),
    (1, 50.0, 0.5, "PASSED", 0.0),
    (1, 50.0, 0.5, b"passed", 0.0),
    (1, 50.0, 0.5, None, 0.0),
    (1, 50.0, 0.5, "passed", math.nan),
    (1, 50.0, 0.5, "passed", -math.inf),
]


def outcome(call: Any) -> Tuple[type, str, str, str]:
    with pytest.raises(Exception) as info:
        call()
    error = info.value
    return (type(error), getattr(error, "code", ""), getattr(error, "field", ""), str(error))


@pytest.mark.parametrize("args", BAD, ids=[repr(a) for a in BAD])
def test_bad_input_fails_as_the_mapping_form_and_changes_nothing(args: Tuple[Any, ...]) -> None:
    iteration, score, confidence, status, delta = args
    fast, general = EarlyStopping(), EarlyStopping()
    mapping = {"quality_score": score, "confidence": confidence, "verification_status": status, "quality_delta": delta}
    mapping = {k: v for k, v in mapping.items() if v is not None}
    got = outcome(lambda: fast.record(iteration, score, confidence, status, delta))
    expected = outcome(lambda: general.record_result(iteration, mapping))
    assert got == expected
    assert issubclass(got[0], (EarlyExitError, TypeError))
    assert len(fast) == 0 and fast.history == ()


class Stamp(str):
    pass


def test_given_timestamps_are_recorded_as_the_mapping_form_records_them() -> None:
    fast, general = EarlyStopping(), EarlyStopping()
    stamps = ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01Z", Stamp("2026-01-01T01:00:00+02:00"), None]
    for i, stamp in enumerate(stamps, start=1):
        fast.record(i, 60.0 + i, 0.5, "failed", 1.0, stamp)
        mapping = {"quality_score": 60.0 + i, "confidence": 0.5, "verification_status": "failed", "quality_delta": 1.0}
        if stamp is not None:
            mapping["timestamp"] = stamp
        general.record_result(i, mapping)
    assert [r.to_dict() for r in fast.history][:3] == [r.to_dict() for r in general.history][:3]
    assert [r.timestamp for r in fast.history][:3] == stamps[:3]
    assert fast.history[3].timestamp.endswith("Z")


@pytest.mark.parametrize("stamp", ["2026-02-30T00:00:00Z", "", "yesterday", "2026-01-01T00:00:00\u00e9Z", "\ud800", 5, Stamp("x")])
def test_bad_timestamps_fail_as_the_mapping_form_and_change_nothing(stamp: Any) -> None:
    fast, general = EarlyStopping(), EarlyStopping()
    mapping = {"quality_score": 50.0, "confidence": 0.5, "verification_status": "passed", "quality_delta": 0.0, "timestamp": stamp}
    got = outcome(lambda: fast.record(1, 50.0, 0.5, "passed", 0.0, stamp))
    assert got == outcome(lambda: general.record_result(1, mapping))
    assert got[2] == "timestamp"
    assert len(fast) == 0 and fast.history == ()
