"""Models that merge (``OutcomeModel``, document version 2) from Python: the merge laws and
"the merge of the parts is the model learned from the whole" as Hypothesis properties, the
vectors of the independent model, version 1 models converted, and bad input."""

from __future__ import annotations

import json
import pathlib
import pickle
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

import earlyexit
import test_properties  # noqa: F401  (the Hypothesis profiles: "ci" by default, "fuzz" for make fuzz)
from earlyexit import EarlyExitError, OutcomeModel

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMES = ["lint", "unit", "e2e", "perf"]
IDS = ["pr-1#7", "pr-2#7", "main#7"]


def record(seq: int, build_id: str) -> List[Dict[str, Any]]:
    """The layers of build ``(seq, build_id)``: a function of its key, so builds drawn twice agree."""
    h = seq * 31 + len(build_id) * 7 + ord(build_id[0])
    layers = []
    for i, name in enumerate(NAMES):
        if (h >> i) % 3 == 0:
            continue
        layer: Dict[str, Any] = {"name": name, "failed": (h + i) % 5 == 0}
        if (h + i) % 4:
            layer["duration_ms"] = ((h * (i + 3)) % 997 + 1) / 8
        layers.append(layer)
    return layers or [{"name": "lint", "failed": False}]


keys = st.tuples(st.integers(min_value=0, max_value=40), st.sampled_from(IDS))
windows = st.sampled_from([3, 8, 25, 1000])


def learned(window: int, builds: List[Tuple[int, str]]) -> OutcomeModel:
    model = OutcomeModel(window=window)
    for seq, build_id in builds:
        model = model.learn(record(seq, build_id), build_id=build_id, seq=seq)
    return model


models = st.builds(learned, windows, st.lists(keys, max_size=25))


@given(models, models, models)
def test_merge_is_commutative_associative_and_idempotent(a: OutcomeModel, b: OutcomeModel, c: OutcomeModel) -> None:
    assert a.merge(b) == b.merge(a)
    assert a.merge(b).merge(c) == a.merge(b.merge(c))
    assert a.merge(a) == a
    assert a.merge(b).merge(a) == a.merge(b)


@given(windows, st.lists(keys, max_size=40, unique=True), st.data())
def test_the_merge_of_the_parts_is_the_model_learned_from_the_whole(window: int, builds: List[Tuple[int, str]], data: Any) -> None:
    whole = learned(window, builds)
    parts = data.draw(st.integers(min_value=1, max_value=5))
    owners = data.draw(st.lists(st.integers(min_value=0, max_value=parts - 1), min_size=len(builds), max_size=len(builds)))
    # A few builds are seen by a second runner too: they still count once.
    seen_twice = data.draw(st.lists(st.integers(min_value=0, max_value=parts - 1), min_size=len(builds), max_size=len(builds)))
    buckets: List[List[Tuple[int, str]]] = [[] for _ in range(parts)]
    for build, owner, second in zip(builds, owners, seen_twice):
        buckets[owner].append(build)
        if second != owner and second % 2:
            buckets[second].append(build)
    shuffled = [data.draw(st.permutations(bucket)) for bucket in buckets]
    merged = OutcomeModel(window=window)
    for bucket in data.draw(st.permutations(shuffled)):
        merged = merged.merge(learned(window, list(bucket)))
    assert merged == whole
    assert merged.statistics() == whole.statistics()


def test_one_key_is_one_build() -> None:
    a = learned(10, [(1, "x"), (2, "x")])
    other = OutcomeModel(window=10).learn([{"name": "lint", "failed": True}], build_id="x", seq=2)
    for left, right in [(a, other), (other, a)]:
        with pytest.raises(EarlyExitError) as err:
            left.merge(right)
        assert (err.value.code, err.value.field) == ("invalid_snapshot", "builds")
        assert "build 'x' (seq 2)" in str(err.value)
    assert a.learn(record(2, "x"), build_id="x", seq=2) == a


def test_version_1_models_convert_with_a_note() -> None:
    v1 = earlyexit.pyramid_policy_update(None, [{"name": "unit", "failed": True, "duration_ms": 9}])
    converted = OutcomeModel(v1)
    assert converted.note is not None and "converted from a version 1 model" in converted.note
    assert converted.base == v1 and converted.to_dict()["note"] == converted.note
    learned_after = converted.learn([{"name": "unit", "failed": False}], build_id="b", seq=1)
    # As if version 1 had learned the build after its own history.
    assert learned_after.statistics() == earlyexit.pyramid_policy_update(v1, [{"name": "unit", "failed": False}])
    # pyramid_policy_update with a build key converts the same way.
    assert earlyexit.pyramid_policy_update(v1, [{"name": "unit", "failed": False}], build={"id": "b", "seq": 1}) == learned_after.to_dict()
    fresh = learned(1000, [(3, "x")])
    assert learned_after.merge(fresh) == fresh.merge(learned_after)
    other_base = OutcomeModel(earlyexit.pyramid_policy_update(v1, [{"name": "e2e", "failed": False}]))
    with pytest.raises(EarlyExitError) as err:
        learned_after.merge(other_base)
    assert err.value.field == "base"


def test_the_class_goes_wherever_a_model_does() -> None:
    model = learned(1000, [(seq, "main#7") for seq in range(300)])
    assert len(model) == 300 and model.window == 1000
    assert pickle.loads(pickle.dumps(model)) == model
    assert OutcomeModel.from_json(model.to_json()) == model
    assert OutcomeModel(model) == model and OutcomeModel(json.loads(model.to_json())) == model
    runs = [{"layers": [{"name": n, "duration_ms": 1, "failed": False} for n in NAMES]}]
    from_doc = earlyexit.replay_pyramids(runs, policy="risk_bounded", model=model.to_dict())
    assert earlyexit.replay_pyramids(runs, policy="risk_bounded", model=model) == from_doc
    controller = earlyexit.EarlyExitController(None, 2, policy="risk_bounded", model=model)
    result = controller.run([(n, lambda: {"pass_rate": 1, "coverage": 1, "flaky_ratio": 0}) for n in NAMES])
    assert result.policy is not None
    stats = {s["name"]: s["trials"] for s in model.statistics()["layers"]}
    assert {c["name"]: c["trials"] for c in result.policy["counts"]} == stats


def test_bad_input() -> None:
    with pytest.raises(EarlyExitError) as err:
        OutcomeModel(window=0)
    assert (err.value.code, err.value.field) == ("invalid_config", "window")
    model = learned(5, [(1, "a")])
    with pytest.raises(EarlyExitError) as err:
        OutcomeModel(model.to_dict(), window=6)
    assert err.value.field == "window"
    with pytest.raises(EarlyExitError) as err:
        model.learn([{"name": "a", "failed": False}, {"name": "a", "failed": True}], build_id="b", seq=2)
    assert err.value.field == "ran[1].name"
    with pytest.raises(EarlyExitError) as err:
        model.learn([], build_id="b", seq=-1)
    assert err.value.field == "build.seq"
    with pytest.raises(EarlyExitError) as err:
        earlyexit.pyramid_policy_update(model, [{"name": "a", "failed": False}])
    assert err.value.field == "build"
    doc = model.to_dict()
    doc["version"] = 3
    with pytest.raises(EarlyExitError) as err:
        OutcomeModel(doc)
    assert (err.value.field, "reads versions 1 and 2" in str(err.value)) == ("model.version", True)


def test_model_vectors_match_the_independent_model() -> None:
    doc = json.loads((ROOT / "tests" / "vectors" / "policy" / "pyramid_policy.json").read_text())
    assert len(doc["models"]) >= 4
    for case in doc["models"]:
        merged = None
        for runner in case["runners"]:
            model = OutcomeModel(case["start"], window=case["window"])
            for build in runner:
                model = model.learn(build["ran"], build_id=build["id"], seq=build["seq"])
            merged = model if merged is None else merged.merge(model)
        assert merged is not None
        assert merged.to_dict() == case["expected"]["merged"], case["name"]
        got = merged.statistics(case["config"])
        want = case["expected"]["statistics"]
        assert [l["name"] for l in got["layers"]] == [l["name"] for l in want["layers"]], case["name"]
        for g, w in zip(got["layers"], want["layers"]):
            for key in ("trials", "failures", "costMs", "costWeight"):
                assert g[key] == pytest.approx(w[key], rel=1e-12), (case["name"], key)
