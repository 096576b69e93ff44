"""Loop replay and loop presets through the Python API: every vector of
``tests/vectors/replay/loop_replay.json`` (expected values from the JS model in
``gen_loop_replay.mjs``), ``from_preset``, keywords, JSONL text and errors."""

from __future__ import annotations

import json
import os
import pickle
import re
from typing import Any, Dict, List

import pytest

import earlyexit
from earlyexit import EarlyExitError, EarlyExitTypeError, EarlyStopping, EarlyStoppingConfig, replay_loops

VECTORS = os.path.join(os.path.dirname(__file__), "..", "vectors", "replay", "loop_replay.json")
with open(VECTORS, encoding="utf-8") as f:
    DOC = json.load(f)


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def snake_policy(policy: Any) -> Any:
    """The vectors spell config keys as JS does; Python spells them snake_case."""
    if not isinstance(policy, dict):
        return policy
    out = dict(policy)
    for key in ("config", "analytics"):
        if isinstance(out.get(key), dict):
            out[key] = {snake(k): v for k, v in out[key].items()}
    return out


def snake_field(field: str) -> str:
    if field.startswith(("config.", "analytics.")):
        head, _, rest = field.partition(".")
        return head + "." + snake(rest)
    return field


def runs_of(vector: Dict[str, Any]) -> Any:
    if "runSet" in vector:
        return DOC["runSets"][vector["runSet"]]
    return vector["runs"] if "runs" in vector else vector["jsonl"]


@pytest.mark.parametrize("vector", DOC["vectors"], ids=[v["name"] for v in DOC["vectors"]])
def test_vector(vector: Dict[str, Any]) -> None:
    policy = snake_policy(vector.get("policy"))
    runs = runs_of(vector)
    if "throws" in vector:
        expected = vector["throws"]
        kind = EarlyExitTypeError if expected["kind"] == "type" else EarlyExitError
        with pytest.raises(kind) as info:
            replay_loops(runs, policy)
        assert info.value.code == expected["code"]
        assert info.value.field == snake_field(expected["field"])
        if expected["kind"] == "range":
            assert not isinstance(info.value, EarlyExitTypeError)
        return
    replay = replay_loops(runs, policy)
    assert replay.summary == vector["returns"]["summary"]
    assert replay.runs == vector["returns"]["runs"]
    assert len(replay) == len(vector["returns"]["runs"])


def test_keywords_equal_a_policy_dict() -> None:
    runs: List[Dict[str, Any]] = DOC["runSets"]["hand"]
    by_dict = replay_loops(runs, {"preset": "recommended", "config": {"no_improvement_patience": 2}, "returns": "last"})
    by_keywords = replay_loops(runs, preset="recommended", config={"no_improvement_patience": 2}, returns="last")
    assert by_dict.to_dict() == by_keywords.to_dict()
    with_config_object = replay_loops(
        runs, "recommended", config=EarlyStoppingConfig.from_preset("recommended", no_improvement_patience=2), returns="last"
    )
    assert with_config_object.summary == by_dict.summary
    assert by_dict.policy["returns"] == "last"
    assert by_dict.policy["config"]["no_improvement_patience"] == 2
    assert "LoopReplay(runs=8" in repr(by_dict)
    again = pickle.loads(pickle.dumps(by_dict))
    assert again == by_dict and again.to_dict() == by_dict.to_dict()
    assert by_dict != by_keywords.to_dict()


def test_jsonl_text_and_bytes() -> None:
    runs = DOC["runSets"]["hand"]
    text = "\n".join(json.dumps(r) for r in runs) + "\n"
    assert replay_loops(text, "recommended").to_dict() == replay_loops(runs, "recommended").to_dict()
    assert replay_loops(text.encode(), "seed").summary == replay_loops(runs).summary
    with pytest.raises(EarlyExitError) as info:
        replay_loops(text + '{"id": "z", "iterations": [{"quality_score": 50, "confidence": 2, "verification_status": "failed"}]}')
    assert info.value.field == f"runs[{len(runs)}].iterations[0].confidence"
    assert f"line {len(runs) + 1}" in str(info.value)


def test_presets_by_name() -> None:
    assert earlyexit.LOOP_PRESETS == ["seed", "recommended"]
    assert EarlyStoppingConfig.from_preset("seed") == EarlyStoppingConfig()
    config = EarlyStoppingConfig.from_preset("recommended", no_improvement_patience=3)
    assert config.plateau_min_quality == 70 and config.no_improvement_patience == 3
    assert config.plateau_delta_source == "computed" and config.enable_diminishing_returns is False
    assert pickle.loads(pickle.dumps(config)) == config
    engine = EarlyStopping.from_preset("recommended", no_improvement_patience=2)
    for i in (1, 2, 3):
        engine.record(i, 0, 0, "failed", 0)
    decision = engine.should_stop()
    assert decision.trigger == "no_improvement"
    assert decision.to_dict()["details"]["iterations_without_improvement"] == 2
    with pytest.raises(EarlyExitError) as info:
        EarlyStopping.from_preset("fast")
    assert (info.value.code, info.value.field) == ("invalid_config", "name")
    with pytest.raises(EarlyExitError) as info:
        EarlyStoppingConfig.from_preset("recommended", plateau_min_quality=101)
    assert (info.value.code, info.value.field) == ("invalid_config", "plateau_min_quality")


def test_a_batch_replays_in_one_call() -> None:
    runs = [
        {"id": str(r), "iterations": [{"quality_score": (r * 7 + i * 13) % 101, "confidence": 0.5, "verification_status": "failed"} for i in range(10)]}
        for r in range(2000)
    ]
    replay = replay_loops(runs, "recommended")
    assert replay.summary["runs"] == 2000
    assert replay.summary["iterations_available"] == 20000
