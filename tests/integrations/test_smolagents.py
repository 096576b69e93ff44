"""earlyexit.integrations.smolagents.StepGuard with a real CodeAgent driven by a scripted model
(a smolagents ``Model`` answering from a list), offline."""

from __future__ import annotations

from typing import Any, Dict, List

from smolagents import CodeAgent
from smolagents.models import ChatMessage, MessageRole, Model
from smolagents.monitoring import TokenUsage

from earlyexit import Loop
from earlyexit.integrations.smolagents import StepGuard

SCORES: Dict[str, float] = {f"v{i + 1}": s for i, s in enumerate([0.40, 0.72, 0.85, 0.90, 0.86, 0.88, 0.87, 0.89, 0.88, 0.88, 0.88, 0.88])}


class ScriptedModel(Model):
    """Answers each call with the next code action of a script."""

    def __init__(self, actions: List[str]) -> None:
        super().__init__(model_id="scripted")
        self.actions = list(actions)
        self.calls = 0

    def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None, tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        action = self.actions[self.calls]
        self.calls += 1
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"Thought: try again.\n<code>\n{action}\n</code>", token_usage=TokenUsage(input_tokens=100, output_tokens=20))


def test_the_agent_stops_on_the_decision_and_the_guard_returns_the_best() -> None:
    bare = Loop(scale=1)
    for draft in SCORES:
        if bare.step(draft, SCORES[draft], tokens=120).stop:
            break
    model = ScriptedModel([f"draft = {d!r}\nprint(draft)\ndraft" for d in SCORES])
    guard = StepGuard(quality=lambda step: SCORES[step.action_output])
    agent = CodeAgent(tools=[], model=model, step_callbacks=[guard], max_steps=20, verbosity_level=0)
    answer = guard.run(agent, "Write the draft.")
    assert answer == "v4" == bare.output  # the best, not the last
    assert guard.decision is not None and guard.decision.trigger == bare.decision.trigger  # type: ignore[union-attr]
    assert len(guard.loop.history) == len(bare.history) == model.calls < len(SCORES)
    assert [r.tokens_used for r in guard.loop.history] == [120] * len(bare.history)


def test_a_final_answer_before_the_stop_is_the_agents_own() -> None:
    model = ScriptedModel(["'v1'", "final_answer('done')"])
    guard = StepGuard(quality=lambda step: SCORES.get(str(step.action_output), 0.5))
    agent = CodeAgent(tools=[], model=model, step_callbacks=[guard], max_steps=20, verbosity_level=0)
    assert guard.run(agent, "Write the draft.") == "done"
    assert guard.interrupted is False and len(guard.loop.history) == 2
