"""Behaviour detectors as stop conditions from Python: the builders compose with ``|``/``&``,
a stuck loop is paused, an oscillating loop is redirected without stopping, bad behaviour
fields are refused with the field named and nothing recorded."""

import pickle

import pytest

from earlyexit import EarlyExitError, EarlyExitTypeError, EarlyStopping
from earlyexit.policy import max_iterations, oscillation, resource_burn, stop_policy, stuck, test_regression

BASE = {"quality_score": 50, "confidence": 0.5, "verification_status": "failed", "quality_delta": 0}


def test_builders_write_the_json_form_and_compose():
    when = stuck(5, same_error_count=2) | (oscillation(stop_at="redirect") & max_iterations(9))
    assert when == {
        "any": [
            {"condition": "stuck", "no_progress_iterations": 5, "same_error_count": 2},
            {"all": [{"condition": "oscillation", "stop_at": "redirect"}, {"condition": "max_iterations", "limit": 9}]},
        ]
    }
    assert test_regression(coverage_drop_percent=5) == {"condition": "test_regression", "coverage_drop_percent": 5}


def test_a_stuck_loop_is_paused():
    engine = EarlyStopping(policy=stuck(5) | max_iterations(50))
    for i in range(1, 5):
        engine.record_result(i, {**BASE, "error": "E1", "completion_percentage": 10})
        decision = engine.should_stop()
        assert not decision.stop
    assert decision.interventions[0]["level"] == "redirect"
    assert decision.interventions[0]["strategy_override"].startswith("OVERRIDE: Change approach immediately.")
    engine.record_result(5, {**BASE, "error": "E1", "completion_percentage": 10})
    decision = engine.should_stop()
    assert decision.stop and decision.trigger == "behavior_pause"
    assert decision.reason == "Loop stuck: Same error repeated 5 times with minimal progress"
    assert decision.details["level"] == "pause" and decision.details["detection"]["type"] == "stuck"
    assert decision.to_dict()["interventions"] == decision.interventions
    # A decision with a detector's stop and its interventions reads back as written.
    assert pickle.loads(pickle.dumps(decision)).to_dict() == decision.to_dict()
    assert engine.history[-1].to_dict()["error"] == "E1"


def test_an_oscillating_loop_is_redirected_without_stopping():
    engine = EarlyStopping(policy=stop_policy(oscillation()))
    for i, f in enumerate(["a.py", "b.py"] * 3, start=1):
        engine.record_result(i, {**BASE, "artifacts_modified": [f]})
    decision = engine.should_stop()
    assert not decision.stop and decision.trigger == "none"
    [intervention] = decision.interventions
    assert (intervention["condition"], intervention["level"], intervention["stop"]) == ("oscillation", "redirect", False)


def test_a_resource_burn_aborts():
    engine = EarlyStopping(policy=stop_policy(resource_burn(max_iterations=2)))
    for i in range(1, 6):
        engine.record_result(i, BASE)
    decision = engine.should_stop()
    assert decision.stop and decision.trigger == "behavior_abort"


def test_no_detector_condition_no_interventions_key():
    engine = EarlyStopping(policy=stop_policy(max_iterations(3)))
    engine.record_result(1, {**BASE, "tests_passing": True})
    assert "interventions" not in engine.should_stop().to_dict()
    assert EarlyStopping().should_stop().interventions == []


@pytest.mark.parametrize(
    ("extra", "field", "error"),
    [
        ({"tests_passing": "yes"}, "tests_passing", EarlyExitTypeError),
        ({"completion_percentage": 101}, "completion_percentage", EarlyExitError),
        ({"artifacts_modified": ["a", 1]}, "artifacts_modified[1]", EarlyExitTypeError),
        ({"learnings": 3}, "learnings", EarlyExitTypeError),
    ],
)
def test_bad_behaviour_fields_name_the_field_and_change_nothing(extra, field, error):
    engine = EarlyStopping(policy=stop_policy(test_regression()))
    engine.record_result(1, BASE)
    with pytest.raises(error) as caught:
        engine.record_result(2, {**BASE, **extra})
    assert caught.value.field == field and caught.value.code == "invalid_result"
    assert len(engine) == 1


def test_a_stuck_condition_needs_its_window():
    with pytest.raises(EarlyExitTypeError) as caught:
        EarlyStopping(policy={"any": ["stuck"]})
    assert caught.value.field == "policy.any[0].no_progress_iterations"
