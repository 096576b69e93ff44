"""Composed stop policies from Python: ``|`` and ``&`` build the tree, ``EarlyStopping(policy=...)``
decides under it and lists what fired, ``replay_loops`` replays it, bad trees name their path."""

import json

import pytest

from earlyexit import EarlyExitError, EarlyExitTypeError, EarlyStopping, replay_loops
from earlyexit.policy import (
    all_of,
    floor_patience,
    high_confidence,
    k_of,
    max_iterations,
    no_improvement,
    not_before,
    quality_plateau,
    stop_policy,
)


def record_all(engine, qualities):
    previous = engine.history[-1].quality_score if len(engine) else 0.0
    for i, q in enumerate(qualities, start=len(engine) + 1):
        engine.record(i, q, 0.5, "failed", q - previous, timestamp="2026-01-01T00:00:00.000Z")
        previous = q


def test_operators_build_the_json_form():
    when = max_iterations(9) | not_before(2, high_confidence() | (quality_plateau(count=3) & no_improvement(3)))
    assert when == {
        "any": [
            {"condition": "max_iterations", "limit": 9},
            {
                "not_before": 2,
                "then": {
                    "any": [
                        {"condition": "high_confidence"},
                        {"all": [{"condition": "quality_plateau", "count": 3}, {"condition": "no_improvement", "patience": 3}]},
                    ]
                },
            },
        ]
    }
    # `a | b | c` is one flat `any`.
    assert len((max_iterations(1) | max_iterations(2) | max_iterations(3))["any"]) == 3
    assert stop_policy(no_improvement(2), returns="best") == {"any": [{"condition": "no_improvement", "patience": 2}], "returns": "best"}


def test_a_policy_decides_and_lists_what_fired():
    engine = EarlyStopping(policy=quality_plateau(count=3) & no_improvement(3))
    record_all(engine, [80, 80, 80])
    decision = engine.should_stop()
    assert not decision.stop and decision.fired == []
    record_all(engine, [80])
    decision = engine.should_stop()
    assert decision.stop and decision.trigger == "quality_plateau"
    assert [(f["condition"], f["path"]) for f in decision.fired] == [("quality_plateau", "all[0]"), ("no_improvement", "all[1]")]
    assert decision.to_dict()["fired"] == decision.fired
    assert engine.policy["all"][1] == {"condition": "no_improvement", "patience": 3}


def test_without_a_policy_nothing_changes():
    plain, composed = EarlyStopping(), EarlyStopping(policy={"preset": "seed"})
    for engine in (plain, composed):
        record_all(engine, [72, 72.5, 72.8])
    a, b = plain.should_stop(), composed.should_stop()
    assert a.fired is None and "fired" not in a.to_dict()
    assert {k: v for k, v in b.to_dict().items() if k != "fired"} == a.to_dict()
    assert plain.config.to_dict() == composed.config.to_dict()


def test_floor_patience_is_a_condition_as_the_options_are():
    assert floor_patience(3, floor=40, above_patience=1) == {
        "condition": "floor_patience",
        "patience": 3,
        "floor": 40,
        "above_patience": 1,
    }
    options = {"no_improvement_patience": 1, "floor_patience": 3, "floor_quality": 40}
    plain = EarlyStopping(**options)
    leaf = EarlyStopping(policy=stop_policy(floor_patience(3, floor=40, above_patience=1)))
    preset = EarlyStopping(options, policy={"preset": "seed", "config": {"noImprovementPatience": 1, "floorPatience": 3, "floorQuality": 40}})
    # At the floor (best 30 <= 40) three records without a new best; above it, one.
    for qualities in ([30, 20, 25], [50]):
        for engine in (plain, leaf, preset):
            record_all(engine, qualities)
    decisions = [e.should_stop() for e in (plain, leaf, preset)]
    assert [(d.stop, d.trigger) for d in decisions] == [(False, "none")] * 3
    for engine in (plain, leaf, preset):
        record_all(engine, [45])
    decisions = [e.should_stop() for e in (plain, leaf, preset)]
    assert [(d.stop, d.trigger, d.reason) for d in decisions] == [(True, "no_improvement", decisions[0].reason)] * 3
    assert [f["condition"] for f in decisions[1].fired] == ["floor_patience"]
    conditions = [c.get("condition") for c in preset.policy["any"]]
    assert "floor_patience" in conditions and "no_improvement" not in conditions


def test_json_text_and_replay_take_the_same_form():
    policy = stop_policy(max_iterations(2) | no_improvement(1), returns="best")
    engine = EarlyStopping(policy=json.dumps(policy))
    record_all(engine, [50, 40])
    assert engine.should_stop().trigger == "max_iterations"
    runs = [{"id": "a", "iterations": [{"quality_score": q, "confidence": 0.5, "verification_status": "failed"} for q in (50, 60, 55, 70)]}]
    replay = replay_loops(runs, policy)
    outcome = replay.runs[0]
    assert (outcome["trigger"], outcome["iterations_run"], outcome["returned_iteration"]) == ("max_iterations", 2, 2)
    assert replay.policy["any"] == policy["any"]


@pytest.mark.parametrize(
    "policy, field, error",
    [
        ({"any": [high_confidence(), {"condition": "no_improvement", "patience": 0}]}, "policy.any[1].patience", EarlyExitError),
        ({"any": [high_confidence(), {"condition": "no_improvement"}]}, "policy.any[1].patience", EarlyExitTypeError),
        (k_of(3, high_confidence()), "policy.k_of", EarlyExitError),
        ({"any": [high_confidence()], "analytics": True}, "policy.analytics", EarlyExitError),
        (all_of(), "policy.all", EarlyExitError),
    ],
)
def test_bad_policies_name_the_path(policy, field, error):
    with pytest.raises(error) as raised:
        EarlyStopping(policy=policy)
    assert raised.value.field == field
    assert raised.value.code == "invalid_config"


def test_a_pickle_and_from_json_keep_the_policy():
    import copy
    import pickle

    engine = EarlyStopping(policy=max_iterations(2) | no_improvement(5))
    record_all(engine, [50, 60])
    restored = pickle.loads(pickle.dumps(engine))
    assert restored.policy == engine.policy
    assert restored.should_stop().to_dict() == engine.should_stop().to_dict()
    assert copy.deepcopy(engine).should_stop().fired == engine.should_stop().fired
    decision = engine.should_stop()
    assert pickle.loads(pickle.dumps(decision)) == decision
    again = EarlyStopping.from_json(engine.to_json(), policy=engine.policy)
    assert again.should_stop().trigger == "max_iterations"
    assert EarlyStopping.from_json(engine.to_json()).policy == engine.policy


def test_a_snapshot_carries_the_policy_and_refuses_another():
    policy = stop_policy(max_iterations(3) | no_improvement(5), returns="best")
    engine = EarlyStopping(policy=policy)
    record_all(engine, [50, 60])
    snapshot = json.loads(engine.to_json())
    assert snapshot["policy"] == engine.policy
    assert list(snapshot)[-2:] == ["stoppingDetails", "policy"]
    restored = EarlyStopping.from_json(engine.to_json())
    assert restored.policy == engine.policy
    assert EarlyStopping.from_json(snapshot, policy=policy).policy == engine.policy
    with pytest.raises(EarlyExitError) as raised:
        EarlyStopping.from_json(snapshot, policy=stop_policy(max_iterations(4)))
    assert (raised.value.code, raised.value.field) == ("invalid_config", "policy")
    # A default snapshot has no policy key, and takes a given policy.
    plain = EarlyStopping()
    assert "policy" not in json.loads(plain.to_json())
    assert EarlyStopping.from_json(plain.to_json(), policy=policy).policy == engine.policy
    bad = dict(snapshot, policy={"any": [high_confidence(), {"condition": "no_improvement", "patience": 0}]})
    with pytest.raises(EarlyExitError) as raised:
        EarlyStopping.from_json(bad)
    assert (raised.value.code, raised.value.field) == ("invalid_snapshot", "policy.any[1].patience")
    with pytest.raises(EarlyExitError) as raised:
        EarlyStopping.from_json(dict(snapshot, policyArtifact="abc"))
    assert (raised.value.code, raised.value.field) == ("invalid_snapshot", "policyArtifact")
