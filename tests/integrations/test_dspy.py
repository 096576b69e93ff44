"""earlyexit.integrations.dspy.Refine with real DSPy modules driven by dspy.utils.DummyLM."""

from __future__ import annotations

from typing import Any, Dict, List

import dspy
import pytest
from dspy.utils import DummyLM

from earlyexit import Loop
from earlyexit.integrations.dspy import Refine

REWARDS: Dict[str, float] = {"a1": 0.40, "a2": 0.72, "a3": 0.85, "a4": 0.90, "a5": 0.86, "a6": 0.88, "a7": 0.87, "a8": 0.89, "a9": 0.88, "a10": 0.88, "a11": 0.88, "a12": 0.88}
ADVICE = {"discussion": "too vague", "advice": {"self": "be more precise"}}


def reward(args: Dict[str, Any], prediction: Any) -> float:
    return REWARDS[prediction.answer]


def script(answers: List[str]) -> DummyLM:
    """Each attempt's answer, then the feedback step's advice, in the order the LM is called."""
    calls: List[Dict[str, Any]] = []
    for answer in answers:
        calls += [{"answer": answer}, ADVICE]
    return DummyLM(calls)


def run(refine_of: Any, answers: List[str], **options: Any) -> Any:
    lm = script(answers)
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        refine = refine_of(module=dspy.Predict("question -> answer"), reward_fn=reward, **options)
        return refine, refine(question="What is it?"), lm


def test_it_stops_by_the_decision_and_returns_the_best_prediction() -> None:
    answers = list(REWARDS)
    bare = Loop(scale=1, max_iterations=12)
    for answer in answers:
        if bare.step(answer, REWARDS[answer]).stop:
            break
    refine, prediction, _ = run(Refine, answers, N=12)
    assert prediction.answer == "a4" == bare.output
    decision = refine.last_decision
    assert decision.stop and decision.trigger == bare.decision.trigger and decision.reason == bare.decision.reason
    assert len(refine.last_loop.history) == len(bare.history) < 12


def test_with_a_threshold_it_answers_as_dspy_refine() -> None:
    """Same predictions, rollout ids, temperatures and hints as dspy.Refine itself."""
    answers = ["a1", "a2", "a3", "a4", "a5"]
    ours, mine, our_lm = run(Refine, answers, N=5, threshold=0.85)
    _, theirs, their_lm = run(dspy.Refine, answers, N=5, threshold=0.85)
    assert mine.answer == theirs.answer == "a3"
    assert ours.last_decision.trigger == "completed"
    assert len(ours.last_loop.history) == 3


def test_it_sends_the_same_requests_as_dspy_refine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same messages (hints included), rollout ids and temperatures as dspy.Refine."""
    from dspy.clients.base_lm import GLOBAL_HISTORY

    copy = DummyLM.copy
    copies: List[Dict[str, Any]] = []

    def spy(self: Any, **kwargs: Any) -> Any:
        copies.append(kwargs)
        return copy(self, **kwargs)

    monkeypatch.setattr(DummyLM, "copy", spy)
    seen = {}
    for name, refine_of in [("ours", Refine), ("theirs", dspy.Refine)]:
        copies.clear()
        start = len(GLOBAL_HISTORY)
        run(refine_of, ["a1", "a2", "a3"], N=3, threshold=0.99)
        seen[name] = ([entry["messages"] for entry in GLOBAL_HISTORY[start:]], list(copies))
    assert seen["ours"] == seen["theirs"]
    messages, rollouts = seen["ours"]
    assert len(messages) == 5  # 3 attempts and 2 feedback steps between them
    assert rollouts == [{"rollout_id": i, "temperature": 1.0} for i in range(3)]
    assert "hint_" in str(messages[2]) and "be more precise" in str(messages[2])


def test_a_failing_attempt_is_skipped_then_raised_past_fail_count() -> None:
    def flaky(args: Dict[str, Any], prediction: Any) -> float:
        if prediction.answer == "a1":
            raise RuntimeError("the judge crashed")
        return REWARDS[prediction.answer]

    lm = DummyLM([{"answer": "a1"}, {"answer": "a4"}, ADVICE, {"answer": "a2"}])
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        refine = Refine(dspy.Predict("question -> answer"), N=3, reward_fn=flaky)
        assert refine(question="q").answer == "a4"
        assert len(refine.last_loop.history) == 2
    lm = DummyLM([{"answer": "a1"}])
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        with pytest.raises(RuntimeError, match="judge"):
            Refine(dspy.Predict("question -> answer"), N=3, reward_fn=flaky, fail_count=0)(question="q")
