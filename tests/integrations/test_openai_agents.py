"""earlyexit.integrations.openai_agents.AgentGuard with the real Agents SDK, driven by its
scripted test model (agents.testing.ScriptedModel), tracing disabled."""

from __future__ import annotations

from typing import Any, Dict, List

from agents import Agent, RunConfig, Runner, Usage, function_tool, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from earlyexit import Loop
from earlyexit.integrations.openai_agents import AgentGuard

set_tracing_disabled(True)

SCORES: Dict[str, float] = {"v1": 0.40, "v2": 0.72, "v3": 0.85, "v4": 0.90, "v5": 0.86, "v6": 0.88, "v7": 0.87, "v8": 0.89, "v9": 0.88, "v10": 0.88, "v11": 0.88, "v12": 0.88}


@function_tool
def submit(draft: str) -> str:
    """Submits a draft and returns it as the turn's output."""
    if draft == "boom":
        raise RuntimeError("the checker crashed")
    return draft


def script(drafts: List[str]) -> ScriptedModel:
    steps: List[Any] = [
        ModelStep(output=[function_call("submit", {"draft": d}, call_id=f"c{i}")], usage=Usage(requests=1, input_tokens=100, output_tokens=20, total_tokens=120))
        for i, d in enumerate(drafts)
    ]
    steps.append(ModelStep(output=[assistant_message("the last draft")]))
    return ScriptedModel(steps)


def run(guard: AgentGuard, model: ScriptedModel) -> Any:
    agent = Agent(name="writer", instructions="Refine the draft.", tools=[submit], model=model, tool_use_behavior=guard.tool_use_behavior)
    return Runner.run_sync(agent, "write it", hooks=guard.hooks, max_turns=30, run_config=RunConfig(tracing_disabled=True))


def test_the_run_ends_on_the_decision_with_the_best_output() -> None:
    drafts = list(SCORES)
    bare = Loop(scale=1)
    for d in drafts:
        if bare.step(d, SCORES[d], tokens=120).stop:
            break
    guard = AgentGuard(quality=lambda output: SCORES[output])
    model = script(drafts)
    result = run(guard, model)
    assert guard.decision is not None and guard.decision.stop
    assert guard.decision.trigger == bare.decision.trigger and guard.decision.reason == bare.decision.reason  # type: ignore[union-attr]
    assert result.final_output == "v4" == bare.output  # the best draft, not the last
    assert len(guard.loop.history) == len(bare.history) < len(drafts)
    assert model.remaining_steps == len(drafts) + 1 - len(bare.history)  # the model was not called again
    assert [r.tokens_used for r in guard.loop.history] == [120] * len(bare.history)


def test_a_run_that_finishes_by_itself_keeps_its_own_answer() -> None:
    guard = AgentGuard(quality=lambda output: SCORES[output])
    result = run(guard, script(["v1", "v2"]))
    assert result.final_output == "the last draft"
    assert guard.decision is not None and not guard.decision.stop and len(guard.loop.history) == 2


def test_a_tool_error_is_recorded_as_the_iterations_error() -> None:
    guard = AgentGuard(quality=lambda output: 0.1 if output not in SCORES else SCORES[output])
    run(guard, script(["v1", "boom"]))
    errors = [r.to_dict().get("error") for r in guard.loop.history]
    assert errors[0] is None and errors[1] is not None and errors[1].startswith("submit: ")


def test_the_agents_own_behaviour_applies_while_the_decision_goes_on() -> None:
    guard = AgentGuard(quality=lambda output: SCORES[output], behavior="stop_on_first_tool")
    result = run(guard, script(["v1", "v2"]))
    assert result.final_output == "v1" and len(guard.loop.history) == 1
