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
