"""The size limits (docs/limits.md) at their boundaries from Python: the limit accepted, one
more refused with a typed error (code and field); the counts a caller supplies; the typed
errors of the conversions (cycles, depth, colliding keys); the one replay reader."""

from __future__ import annotations

import json
from typing import Any, List

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError

LIMITS = ee.LIMITS
GOOD = {"pass_rate": 1.0, "coverage": 0.9, "flaky_ratio": 0.0}


def nested_list(levels: int) -> List[Any]:
    """A list nested `levels` deep (the outermost list is level 1)."""
    value: List[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def over(info: pytest.ExceptionInfo[EarlyExitError], code: str, field: str) -> str:
    assert (info.value.code, info.value.field) == (code, field), str(info.value)
    return str(info.value)


def test_the_limits_are_the_core_s_table() -> None:
    assert LIMITS == {
        "value_depth": 200,
        "document_depth": 256,
        "values": 16_777_216,
        "object_keys": 1_048_576,
        "string_bytes": 16_777_216,
        "document_bytes": 268_435_456,
        "layers": 10_000,
    }


# --- counts -----------------------------------------------------------------------------


def test_speculate_counts_are_bounded_before_anything_is_allocated() -> None:
    """Before: speculate(d, 2**63) raised PanicException (capacity overflow) and
    speculate(d, 2**40) aborted the whole process."""
    executor = ee.SpeculativeExecutor()
    decision = {"confidence": 0.9}
    assert len(executor.speculate(decision, LIMITS["layers"])) == LIMITS["layers"]

    class Claims:
        def __len__(self) -> int:
            return 2**40

    for count in [2**63, 2**40, LIMITS["layers"] + 1, -1, Claims()]:
        with pytest.raises(EarlyExitError) as info:
            executor.speculate(decision, count)
        assert "between 0 and 10000" in over(info, "invalid_config", "skipped")
    # verify reads one speculation per skipped layer: at most as many, even from a generator.
    speculations = executor.speculate(decision, LIMITS["layers"])

    def endless() -> Any:
        while True:
            yield speculations[0]

    for given in [speculations + (speculations[0],), endless()]:
        with pytest.raises(EarlyExitError) as info:
            executor.verify(given, [])
        over(info, "invalid_config", "speculations")


def test_layer_lists_are_bounded_even_when_they_never_end() -> None:
    layers = [{"name": f"l{i}"} for i in range(LIMITS["layers"])]
    assert ee.PyramidRun.start(None, 4, layers).next().layer == 0
    with pytest.raises(EarlyExitError) as info:
        ee.PyramidRun.start(None, 4, layers + [{"name": "one more"}])
    over(info, "invalid_config", "layers")

    def forever() -> Any:
        i = 0
        while True:
            yield {"name": f"l{i}"}
            i += 1

    with pytest.raises(EarlyExitError) as info:
        ee.PyramidRun.start(None, 4, forever())
    over(info, "invalid_config", "layers")


# --- host values: depth, cycles, values, keys, strings ------------------------------------


def test_value_depth_at_the_boundary_and_the_snapshot_around_it() -> None:
    """A result nested exactly 200 levels (the result dict is level 1) is accepted, and the
    run's snapshot around it (256 levels at most) reads back; one more level is refused."""
    run = ee.PyramidRun.start(None, 2, [{"name": "a"}, {"name": "b"}])
    run.submit(0, {**GOOD, "pass_rate": 0.5, "deep": nested_list(LIMITS["value_depth"] - 1)})
    text = run.to_json()
    assert ee.PyramidRun.from_json(text).to_json() == text
    run = ee.PyramidRun.start(None, 2, [{"name": "a"}, {"name": "b"}])
    with pytest.raises(EarlyExitTypeError) as info:
        run.submit(0, {**GOOD, "deep": nested_list(LIMITS["value_depth"])})
    assert "nested deeper than 200 levels" in over(info, "invalid_layer_result", "layers[0]")
    assert run.next().layer == 0  # nothing changed


def test_over_deep_and_self_containing_values_raise_the_typed_error() -> None:
    """Before: RecursionError, for a cycle and for any value nested deeper than 200, so
    from_json(dict) did not raise invalid_snapshot as documented."""
    deep = {"version": 1, "engine": "EarlyStopping", "history": nested_list(300)}
    with pytest.raises(EarlyExitTypeError) as info:
        ee.EarlyStopping.from_json(deep)
    assert "nested deeper than 200 levels" in over(info, "invalid_snapshot", "snapshot")
    cycle: dict = {"version": 1, "engine": "EarlyStopping"}
    cycle["history"] = [cycle]
    with pytest.raises(EarlyExitTypeError) as info:
        ee.EarlyStopping.from_json(cycle)
    assert "contains itself" in over(info, "invalid_snapshot", "snapshot")
    loop: list = []
    loop.append(loop)
    for call, code, field in [
        (lambda: ee.EarlyStopping({"plateau_consecutive_count": loop}), "invalid_config", "config"),
        (lambda: ee.EarlyStopping(plateau_consecutive_count=loop), "invalid_config", "plateau_consecutive_count"),
        (lambda: ee.EarlyStopping().record_result(1, {"quality_score": loop}), "invalid_result", "result"),
        (lambda: ee.IterationAnalytics.from_json(loop), "invalid_snapshot", "snapshot"),
        (lambda: ee.calculate_quality_signal({**GOOD, "x": loop}), "invalid_layer_result", "layer_result"),
        (lambda: ee.replay_loops([loop]), "invalid_replay", "runs[0]"),
        (lambda: ee.replay_pyramids([{"layers": loop}]), "invalid_replay", "runs[0]"),
    ]:
        with pytest.raises(EarlyExitError) as info:
            call()
        over(info, code, field)


def test_values_at_the_boundary() -> None:
    """4095 shared lists of 4096 zeros plus the outer list: exactly 16,777,216 values (a
    shared list counts once per place); one more zero is one value over."""
    inner = [0] * 4096
    at_limit = [inner] * 4095
    assert ee._native._conversion_visits(at_limit) == LIMITS["values"]
    with pytest.raises(EarlyExitTypeError) as info:
        ee.EarlyStopping.from_json(at_limit)
    assert "got array" in over(info, "invalid_snapshot", "snapshot")  # read, then refused for what it is
    with pytest.raises(EarlyExitTypeError) as info:
        ee.EarlyStopping.from_json(at_limit + [0])
    assert "more than 16777216 values" in over(info, "invalid_snapshot", "snapshot")


def test_a_graph_of_shared_objects_costs_its_size_not_its_paths() -> None:
    """A dict holding the level below twice, 10 levels: converting it visits its tree's
    2**11 - 1 values, nothing more. 48 levels (2**49 paths, what took the JS encoder 90 s)
    stop after LIMITS['values'] + 1 visits (the typed error of test_values_at_the_boundary)."""
    graph: dict = {}
    for _ in range(10):
        graph = {"x": graph, "y": graph}
    assert ee._native._conversion_visits(graph) == 2**11 - 1
    for _ in range(38):
        graph = {"x": graph, "y": graph}
    assert ee._native._conversion_visits(graph) == LIMITS["values"] + 1


def test_keys_per_object_at_the_boundary() -> None:
    extra = {f"k{i}": i for i in range(LIMITS["object_keys"] - 3)}
    result = ee.LayerResult(1.0, 0.9, 0.0, extra=extra)  # the 3 rates + the extra keys
    assert len(result.to_dict()) == LIMITS["object_keys"]
    with pytest.raises(EarlyExitError) as info:
        ee.calculate_quality_signal({**GOOD, **extra, "one": 1, "more": 2})
    assert "more than 1048576 keys" in over(info, "invalid_layer_result", "layer_result")


def test_string_bytes_at_the_boundary() -> None:
    at_limit = "x" * LIMITS["string_bytes"]
    assert ee.LayerResult(1.0, 0.9, 0.0, name=at_limit).name == at_limit
    with pytest.raises(EarlyExitError) as info:
        ee.LayerResult(1.0, 0.9, 0.0, name=at_limit + "x")
    assert "more than 16777216 bytes" in over(info, "invalid_layer_result", "name")


# --- documents -------------------------------------------------------------------------


def padded_snapshot(size: int) -> str:
    text = ee.EarlyStopping().to_json()
    return text + " " * (size - len(text))


def test_document_bytes_at_the_boundary() -> None:
    assert len(ee.EarlyStopping.from_json(padded_snapshot(LIMITS["document_bytes"]))) == 0
    with pytest.raises(EarlyExitError) as info:
        ee.EarlyStopping.from_json(padded_snapshot(LIMITS["document_bytes"] + 1))
    assert "over the limits" in over(info, "invalid_snapshot", "snapshot")


def test_document_depth_at_the_boundary() -> None:
    """A run's snapshot whose stored result holds an extra value nested to level 256 of the
    document restores (a hand-made one: deeper than a host value may be); level 257 is over."""
    run = ee.PyramidRun.start(None, 2, [{"name": "a"}, {"name": "b"}])
    run.submit(0, {**GOOD, "pass_rate": 0.5, "deep": []})
    text = run.to_json()
    levels = LIMITS["document_depth"] - 4  # root, submitted, its entry, the result
    deep = text.replace('"deep":[]', '"deep":' + "[" * levels + "]" * levels)
    assert ee.PyramidRun.from_json(deep).to_json() == deep
    deeper = text.replace('"deep":[]', '"deep":' + "[" * (levels + 1) + "]" * (levels + 1))
    with pytest.raises(EarlyExitError) as info:
        ee.PyramidRun.from_json(deeper)
    assert "nested deeper than 256 levels" in over(info, "invalid_snapshot", "snapshot")


# --- keys that collide once text --------------------------------------------------------


def test_dict_keys_that_read_the_same_are_refused() -> None:
    """Before: {1: ..., "1": ...} gave two "1" keys in PyramidRun.to_json(), which then did
    not read back as written."""
    run = ee.PyramidRun.start(None, 2, [{"name": "a"}, {"name": "b"}])
    with pytest.raises(EarlyExitTypeError) as info:
        run.submit(0, {**GOOD, 1: "a", "1": "b"})
    assert "two keys that read '1'" in over(info, "invalid_layer_result", "layers[0]")
    run.submit(0, {**GOOD, "pass_rate": 0.5, 1: "a", (2, 3): "tuple"})
    text = run.to_json()
    assert json.loads(text)["submitted"][0]["result"]["1"] == "a"
    again = ee.PyramidRun.from_json(text)
    assert again.to_json() == text


# --- the replay reader -------------------------------------------------------------------

LOOP_LINE = json.dumps({"id": "r", "iterations": [{"quality_score": 50, "confidence": 0.5, "verification_status": "failed"}]})
PYRAMID_LINE = json.dumps({"id": "r", "layers": [{"name": "unit", "durationMs": 5, "failed": False}]})


def test_loop_and_pyramid_replay_read_text_and_bytes_alike() -> None:
    """Before: replay_pyramids refused the byte-order mark loop replay skipped, called a JSON
    syntax error a type error, and refused the bytes replay_loops took."""
    for replay, line in [(ee.replay_loops, LOOP_LINE), (ee.replay_pyramids, PYRAMID_LINE)]:
        plain = replay(f"{line}\n{line}\n")
        text = f"\ufeff{line}\n\n{line}\r\n"
        for given in [text, text.encode()]:
            got = replay(given)
            assert (got.to_dict() if hasattr(got, "to_dict") else got) == (plain.to_dict() if hasattr(plain, "to_dict") else plain)
        with pytest.raises(EarlyExitError) as info:
            replay(f"{line}\n\n{{\"id\": 1,")
        assert not isinstance(info.value, EarlyExitTypeError)
        assert "runs[1] (line 3): invalid JSON" in over(info, "invalid_replay", "runs[1]")
        with pytest.raises(EarlyExitError) as info:
            replay(line.encode()[:-3] + b"\xff}}")
        assert not isinstance(info.value, EarlyExitTypeError)
        assert "not UTF-8" in over(info, "invalid_replay", "runs")


def test_replay_lists_are_checked_run_by_run() -> None:
    """A list of runs is a stream: each run is converted and checked on its own (so a run
    over a limit is named, and a replay's size is not limited as a whole)."""
    run = {"id": "r", "layers": [{"name": "unit", "duration_ms": 5, "failed": False}]}
    assert ee.replay_pyramids([run] * 10)["summary"]["runs"] == 10
    cycle: dict = {"id": "c"}
    cycle["layers"] = [cycle]
    with pytest.raises(EarlyExitTypeError) as info:
        ee.replay_pyramids([run, cycle, run])
    assert "contains itself" in over(info, "invalid_replay", "runs[1]")
