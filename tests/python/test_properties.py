"""Property tests (Hypothesis) of the Python conversions and the core's JSON reader.

In `make test` they run with a fixed seed and a bounded number of examples (profile "ci",
the default); `make fuzz` runs them longer with random seeds (EARLYEXIT_HYPOTHESIS_PROFILE=fuzz,
see scripts/fuzz.sh). Properties:

* any Python value given to any public entry either works or raises the package's typed
  error (never RecursionError, PanicException, OverflowError, ...), and a refused call
  changes nothing;
* a JSON value stored in a run (a layer result's extra key) is written to the run's
  snapshot as JSON would write it and reads back to the same snapshot, unless two of its
  dict keys read the same once text, which is refused;
* converting a value visits exactly its tree's values, once each: the conversion's cost is
  its output's size, so it is bounded by the limits whatever the object graph;
* the core reads JSON text as Python's json module does (numbers, strings, key order, the
  last of repeated keys at the first one's position), for small and large objects alike.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import earlyexit as ee
from earlyexit import EarlyExitError

settings.register_profile(
    "ci",
    derandomize=True,  # a fixed seed: the same examples on every run
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("EARLYEXIT_HYPOTHESIS_EXAMPLES", "20000")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("EARLYEXIT_HYPOTHESIS_PROFILE", "ci"))

GOOD = {"pass_rate": 0.5, "coverage": 0.9, "flaky_ratio": 0.0}

text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 2**53, 2**53 + 1, 1e21, 5e-324, 10**400]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, text)
# JSON-like values whose dicts may hold int keys too (some of which read like str keys).
keys = st.one_of(text, st.integers(min_value=-3, max_value=3), st.sampled_from(["1", "-1", "0", "x"]))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(keys, inner, max_size=5)),
    max_leaves=30,
)


def fresh_run() -> ee.PyramidRun:
    return ee.PyramidRun.start(None, 2, [{"name": "a"}, {"name": "b"}])


def colliding(value: Any) -> bool:
    """Whether some dict in `value` has two keys that read the same once text."""
    if isinstance(value, dict):
        # A None value is an absent key (Python input), so it cannot collide.
        texts = [k if isinstance(k, str) else str(k) for k, v in value.items() if v is not None]
        return len(set(texts)) != len(texts) or any(colliding(v) for v in value.values())
    if isinstance(value, list):
        return any(colliding(v) for v in value)
    return False


def as_json(value: Any) -> Any:
    """`value` as the core writes it to JSON and json.loads reads it back: str keys, numbers
    as JS doubles (non-finite ones as null), None-valued dict keys absent (None is an absent
    key in Python input)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return {(k if isinstance(k, str) else str(k)): as_json(v) for k, v in value.items() if v is not None}


def same(a: Any, b: Any) -> bool:
    """Deep equality that also compares dict key order, numbers by value."""
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        # As doubles: the core prints a double's shortest digits (5.290143323434773e16 as
        # 52901433234347730), which json.loads reads as an int of another value.
        return float(a) == float(b) or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


@given(values)
def test_stored_values_round_trip_through_snapshots(extra: Any) -> None:
    run = fresh_run()
    before = run.to_json()
    result = {**GOOD, "extra": extra}
    if colliding(extra):
        with pytest.raises(EarlyExitError) as info:
            run.submit(0, result)
        assert (info.value.code, info.value.field) == ("invalid_layer_result", "layers[0]")
        assert run.to_json() == before
        return
    run.submit(0, result)
    text = run.to_json()
    stored = json.loads(text)["submitted"][0]["result"]  # known keys in the snapshot's camelCase
    assert list(stored) == ["passRate", "coverage", "flakyRatio"] + (["extra"] if extra is not None else [])
    assert same(stored.get("extra"), as_json(extra)), (stored.get("extra"), as_json(extra))
    assert ee.PyramidRun.from_json(text).to_json() == text


def tree_size(value: Any) -> int:
    if isinstance(value, (list, tuple)):
        return 1 + sum(tree_size(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(tree_size(v) for v in value.values() if v is not None)
    return 1


@given(values)
def test_converting_visits_each_value_once(value: Any) -> None:
    shared = [value, value, {"again": value}]  # shared sub-objects count once per place
    for given_value in [value, shared]:
        visits = ee._native._conversion_visits(given_value)
        if colliding(given_value):
            assert visits <= tree_size(given_value)  # stopped at the keys that collide
        else:
            assert visits == tree_size(given_value)


def hostile() -> st.SearchStrategy[Any]:
    def cyclic(items: List[Any]) -> Any:
        loop: List[Any] = list(items)
        loop.append(loop)
        return loop

    def deep(levels: int) -> Any:
        value: Any = []
        for _ in range(levels):
            value = [value]
        return value

    leaves = st.one_of(
        scalars,
        st.binary(max_size=8),
        st.builds(object),
        st.integers(min_value=190, max_value=260).map(deep),
        st.just(float("nan")),
        st.just(10**400),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(keys, inner, max_size=4),
            st.tuples(inner, inner),
            st.lists(inner, max_size=3).map(cyclic),
        ),
        max_leaves=12,
    )


ENTRIES = [
    ("EarlyStopping(config)", lambda v: ee.EarlyStopping(v)),
    ("record_result", lambda v: ee.EarlyStopping().record_result(1, v)),
    ("record_result(result)", lambda v: ee.EarlyStopping().record_result(1, {"quality_score": 50, "confidence": 0.5, "verification_status": "passed", "timestamp": v})),
    ("EarlyStopping.from_json", lambda v: ee.EarlyStopping.from_json(v)),
    ("IterationAnalytics.record", lambda v: ee.IterationAnalytics().record_iteration(v)),
    ("calculate_quality_signal", lambda v: ee.calculate_quality_signal(v)),
    ("LayerResult(extra)", lambda v: ee.LayerResult(1.0, 1.0, 0.0, extra={"x": v})),
    ("PyramidRun.submit", lambda v: fresh_run().submit(0, {**GOOD, "x": v})),
    ("PyramidRun.from_json", lambda v: ee.PyramidRun.from_json(v)),
    ("speculate", lambda v: ee.SpeculativeExecutor().speculate({"confidence": 0.9}, v)),
    ("replay_loops", lambda v: ee.replay_loops(v)),
    ("replay_pyramids", lambda v: ee.replay_pyramids(v)),
    ("pyramid_policy_decide", lambda v: ee.pyramid_policy_decide(None, v, [], policy="fail_fast")),
]


@pytest.mark.parametrize("name, call", ENTRIES, ids=[name for name, _ in ENTRIES])
@settings(max_examples=max(20, settings().max_examples // 5))
@given(value=hostile())
def test_any_value_works_or_raises_the_typed_error(name: str, call: Any, value: Any) -> None:
    try:
        call(value)
    except EarlyExitError as e:
        assert e.code and e.field is not None, (name, e)


@st.composite
def json_objects(draw: Any) -> Tuple[str, Any]:
    """JSON text of an object with possibly repeated keys (small and large, so both of the
    reader's repeated-key searches run), and what json.loads reads from it."""
    count = draw(st.sampled_from([0, 3, 20, 32, 33, 40, 200]))
    names = draw(st.lists(st.sampled_from(["a", "b", "k", "é", 'a"b', "\U0001f600"] + [f"k{i}" for i in range(60)]), min_size=count, max_size=count))
    items = draw(st.lists(st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=False, allow_infinity=False), text), min_size=count, max_size=count))
    body = ",".join(json.dumps(k) + ":" + json.dumps(v) for k, v in zip(names, items))
    document = "{" + body + "}"
    return document, json.loads(document)


@given(json_objects())
def test_the_json_reader_reads_as_json_loads(document: Tuple[str, Any]) -> None:
    text, expected = document
    got = ee._native._restore_loop_replay(text).to_dict()
    assert same(got, expected), (text, got, expected)
