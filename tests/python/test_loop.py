"""``Loop``: the refine loop helper (docs/loop-helper.md)."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
import warnings
from pathlib import Path

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError, Loop


def test_the_docs_example_runs() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "loop-helper.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "loop-helper.md", "exec"), {})


def test_readme_style_loop_returns_the_best_on_scale_1() -> None:
    loop = Loop(preset="recommended", scale=1, max_iterations=20, task="t-17")
    draft = ""
    scores = [0.5, 0.7, 0.82, 0.80, 0.81, 0.81, 0.80, 0.81, 0.80]
    for score in scores:
        draft += "x"
        decision = loop.step(draft, quality=score, tokens=100)
        if decision.stop:
            break
    assert loop.best is not None and loop.best.quality == 0.82
    assert loop.output == "xxx"
    assert loop.history[1].quality_score == 70.0
    assert loop.history[1].quality_delta == pytest.approx(20.0)


def test_done_stops_with_completed_over_the_cap_and_hands_back_that_output() -> None:
    loop = Loop(max_iterations=2)
    loop.step("good", 90)
    decision = loop.step("done", 40, done=True)
    assert decision.stop and decision.trigger == "completed"
    assert loop.output == "done" and loop.best is not None and loop.best.output == "good"


def test_automatic_fingerprints_stop_an_unchanged_loop() -> None:
    loop = Loop(policy={"any": [{"condition": "unchanged", "k": 2}]})
    assert not loop.step("same draft", 10).stop
    assert not loop.step("same draft", 20).stop
    assert loop.step("same draft", 30).trigger == "unchanged"
    assert loop.history[0].to_dict()["fingerprint"] == hashlib.sha256("same draft".encode()).hexdigest()


def test_fingerprints_of_bytes_json_and_other_objects() -> None:
    loop = Loop()
    loop.step(b"\x00\x01", 10)
    loop.step({"b": [1.5, 2], "a": "x"}, 20)
    loop.step(object(), 30)
    loop.step(object(), 40, fingerprint="given")
    custom = Loop(fingerprint_of=lambda o: "f-" + str(len(o)))
    custom.step("abc", 10)
    records = [r.to_dict() for r in loop.history]
    assert records[0]["fingerprint"] == hashlib.sha256(b"\x00\x01").hexdigest()
    assert records[1]["fingerprint"] == hashlib.sha256(b'{"a":"x","b":[1.5,2]}').hexdigest()
    assert "fingerprint" not in records[2]
    assert records[3]["fingerprint"] == "given"
    assert custom.history[0].to_dict()["fingerprint"] == "f-3"


def test_policy_builders_take_the_new_conditions() -> None:
    from earlyexit.policy import completed, max_iterations, revisit, unchanged

    loop = Loop(policy=completed() | unchanged(3) | revisit(2) | max_iterations(9))
    loop.step("A", 10)
    loop.step("B", 20)
    assert loop.step("A", 30).trigger == "revisit"


def test_bad_input_names_the_argument_and_changes_nothing() -> None:
    loop = Loop(scale=1)
    loop.step("a", 0.5)
    cases = [
        (dict(quality=1.5), "quality", EarlyExitError),
        (dict(quality=0.5, fingerprint="x" * 257), "fingerprint", EarlyExitError),
        (dict(quality=0.5, tokens=-1), "tokens", EarlyExitError),
        (dict(quality=0.5, verified="maybe"), "verified", EarlyExitError),
        (dict(quality=0.5, files=["a", 3]), "files[1]", EarlyExitTypeError),
    ]
    for kwargs, field, error in cases:
        with pytest.raises(error) as info:
            loop.step("b", **kwargs)  # type: ignore[arg-type]
        assert info.value.field == field, kwargs
    assert len(loop.history) == 1
    for kwargs, field in [(dict(scale=10), "scale"), (dict(task=5), "task"), (dict(dataset=1), "dataset"), (dict(max_iterations=0), "max_iterations")]:
        with pytest.raises(EarlyExitError) as info:
            Loop(**kwargs)  # type: ignore[arg-type]
        assert info.value.field == field
    with pytest.raises(EarlyExitError) as info:
        Loop(policy={"any": [{"condition": "revisit", "window": 1}]})
    assert info.value.field == "policy.any[0].window"


def test_a_scale_that_looks_wrong_warns_once() -> None:
    loop = Loop()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for q in [0.2, 0.4, 0.5, 0.6]:
            loop.step("x", q)
    assert len(caught) == 1 and "scale" in str(caught[0].message)
    # A UserWarning attributed to the line that called step, as warnings.warn(stacklevel=2).
    assert caught[0].category is UserWarning and caught[0].filename == __file__


class _Float(float):
    pass


class _Str(str):
    pass


def test_every_kind_of_argument_records_the_same() -> None:
    # Exact floats, bools and strs take the native fast path; subclasses take the general one.
    plain, other = Loop(scale=1), Loop(scale=1)
    for i, q in enumerate([0.4, 0.7, 0.72, 0.71]):
        kwargs = dict(confidence=0.5, verified=i % 2 == 0, good=i == 1, tokens=1200, cost_usd=0.01, time_ms=250.5, error="e" if i == 2 else None, fingerprint="f%d" % (i % 2), done=i == 3)
        a = plain.step("out", q, **kwargs)  # type: ignore[arg-type]
        b = other.step(
            "out",
            _Float(q),
            confidence=_Float(0.5),
            verified="passed" if i % 2 == 0 else "failed",
            good=i == 1,
            tokens=_Float(1200),
            cost_usd=_Float(0.01),
            time_ms=_Float(250.5),
            error=_Str("e") if i == 2 else None,
            fingerprint=_Str("f%d" % (i % 2)),
            done=i == 3,
        )
        assert (a.stop, a.trigger, a.reason) == (b.stop, b.trigger, b.reason)
    assert plain.run()["iterations"] == other.run()["iterations"]


def test_a_bad_usage_number_names_its_argument_and_changes_nothing() -> None:
    loop = Loop(scale=1)
    loop.step("a", 0.5, tokens=10)
    for name in ("tokens", "cost_usd", "time_ms"):
        with pytest.raises(ee.EarlyExitError) as caught:
            loop.step("b", 0.6, **{name: -1.0})  # type: ignore[arg-type]
        assert name in str(caught.value)
    assert len(loop.history) == 1


def test_run_and_finish_give_the_replay_form() -> None:
    loop = Loop(scale=1, task="t-1", dataset="d")
    loop.step("a", 0.4, good=False)
    loop.step("b", 0.8)
    loop.step("c", 0.6)
    run = loop.finish(good=True)
    assert run["id"] == "t-1" and run["dataset"] == "d"
    assert [it.get("good") for it in run["iterations"]] == [False, True, None]
    replay = ee.replay_loops([run], "recommended")
    assert replay.summary["runs"] == 1
    anonymous = Loop()
    anonymous.step("a", 1)
    assert anonymous.run()["id"] == anonymous.run()["id"]


def test_record_computes_the_delta_when_absent() -> None:
    es = ee.EarlyStopping()
    es.record(1, 40, 0.5, "passed")
    es.record(2, 55, 0.5, "passed")
    assert [r.quality_delta for r in es.history] == [0, 15]


def test_record_without_a_delta_follows_the_latest_earlier_iteration() -> None:
    # The core's rule (the command and MCP follow it too): out of order, the delta is taken
    # from the latest record before the iteration, not the last one recorded.
    es = ee.EarlyStopping(strict_iterations=False)
    for i, q in [(1, 50), (2, 72.5), (5, 61), (3, 80)]:
        es.record(i, q, 0.5, "failed")
    assert [r.quality_delta for r in es.history] == [0, 22.5, -11.5, 7.5]
    # An explicit delta wins; a bad quality is named, not the delta.
    es.record(6, 10, 0.5, "failed", quality_delta=3)
    assert es.history[-1].quality_delta == 3
    with pytest.raises(ee.EarlyExitError) as e:
        es.record(7, "high", 0.5, "failed")
    assert e.value.field == "quality_score"


def test_json_and_pickle_round_trips() -> None:
    loop = Loop(scale=1, max_iterations=5)
    loop.step({"draft": 1}, 0.4)
    loop.step({"draft": 2}, 0.9)
    back = Loop.from_json(loop.to_json())
    assert back.best == loop.best and back.output == loop.output
    assert back.decision is not None and back.decision.to_dict() == loop.decision.to_dict()  # type: ignore[union-attr]
    odd = Loop()
    odd.step(object(), 10)
    with pytest.raises(EarlyExitError) as info:
        odd.to_json()
    assert info.value.code == "invalid_snapshot" and info.value.field == "best.output"
    assert json.loads(odd.to_json(outputs=False))["best"]["iteration"] == 1
    pickled = pickle.loads(pickle.dumps(loop))
    assert pickled.best == loop.best and pickled.run() == loop.run()
    pickled.step({"draft": 3}, 0.5)
    assert len(pickled.history) == 3
