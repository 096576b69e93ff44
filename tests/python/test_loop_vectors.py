"""The refine-loop helper's shared vectors (tests/vectors/loop_helper/vectors.json, written by
tests/vectors/gen_loop_helper.mjs): the Node suite runs the same file on both npm builds, so
``Loop`` decides, keeps outputs and fingerprints them the same in every language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import pytest

from earlyexit import Loop

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "loop_helper" / "vectors.json").read_text())["vectors"]
# The vectors spell options and step arguments as JS does.
SNAKE = {"maxIterations": "max_iterations", "runLabel": "run_label", "costUsd": "cost_usd", "timeMs": "time_ms"}


def snake(args: Dict[str, Any]) -> Dict[str, Any]:
    return {SNAKE.get(k, k): v for k, v in args.items()}


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_loop_vector(vector: Dict[str, Any]) -> None:
    loop = Loop(**snake(vector["options"]))
    triggers = []
    for step in vector["steps"]:
        args = snake(step["args"])
        quality = args.pop("quality")
        triggers.append(loop.step(step["output"], quality, **args).trigger)
    expect = vector["expect"]
    assert triggers == expect["triggers"]
    assert loop.best is not None
    assert {"iteration": loop.best.iteration, "quality": loop.best.quality} == expect["best"]
    assert loop.output == expect["output"]
    assert [r.to_dict().get("fingerprint") for r in loop.history] == expect["fingerprints"]
    if "finish" in vector:
        run = loop.finish(vector["finish"])
        assert run["id"] == expect["run"]["id"]
        assert run.get("dataset") == expect["run"]["dataset"]
        assert [i.get("good") for i in run["iterations"]] == expect["run"]["good"]


class Text(str):
    """A str subclass: `Loop.step` reads it through its general path, not the fast one."""


class Number(float):
    """A float subclass, likewise."""


def test_the_fast_and_the_general_step_agree() -> None:
    fast, general = Loop(preset="recommended", max_iterations=30), Loop(preset="recommended", max_iterations=30)
    for i in range(1, 25):
        q, fp = 40 + (i * 37) % 50 + (i % 7) / 10, "f%d" % (i % 3)
        conf = None if i % 2 else 0.5 + i / 100
        a = fast.step("out", q, confidence=conf, fingerprint=fp, done=i == 20)
        b = general.step("out", Number(q), confidence=None if conf is None else Number(conf), fingerprint=Text(fp), done=i == 20)
        assert a.to_dict() == b.to_dict()
    strip = lambda r: {k: v for k, v in r.to_dict().items() if k != "timestamp"}  # noqa: E731
    assert [strip(r) for r in fast.history] == [strip(r) for r in general.history]
    assert fast.output == general.output and fast.best == general.best


@pytest.mark.parametrize(
    "args, field",
    [
        ({"quality": True}, "quality"),
        ({"quality": 101.0}, "quality"),
        ({"quality": float("nan")}, "quality"),
        ({"quality": 50, "confidence": 1.5}, "confidence"),
        ({"quality": 50, "fingerprint": "x" * 257}, "fingerprint"),
        ({"quality": 50, "done": 1}, "done"),
    ],
)
def test_a_bad_step_names_its_argument_and_changes_nothing(args: Dict[str, Any], field: str) -> None:
    loop = Loop()
    loop.step("first", 50, fingerprint="a")
    quality = args.pop("quality")
    with pytest.raises(Exception) as caught:
        loop.step("second", quality, **args)
    assert getattr(caught.value, "field", None) == field
    assert len(loop.history) == 1 and loop.last is not None and loop.last.output == "first"
