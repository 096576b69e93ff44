"""The adapters' overhead per iteration (earlyexit.integrations, docs/agents.md):
`python bench/python/bench_adapters.py [--quick] [--rounds N]`, in the venv of
`make test-integrations` (.venv-integrations, which has the frameworks).

Two tables, each adapter beside a bare `Loop.step` in the same round (target: within 20%):
(a) the adapter's hook per iteration vs a bare `Loop.step` given the same fields (the same
    output, score, tokens, duration, error: values a hand-written loop already has):
  * LangGraph `StopGuard.node(state)`: takes its loop (from its cache when the state holds the
    records list it returned last), steps, appends the iteration's record, writes the state
    update; the bare step: `Loop.step(draft, score)`;
  * DSPy `Refine`'s step (`_record`): a `dspy.Prediction` stepped with its fields'
    fingerprint (the rest of an attempt, the module call and DSPy's feedback step, is
    `dspy.Refine`'s own work); the bare step: `Loop.step(fields, score, done=False)`, the same
    fields as a dict, fingerprinted the same way;
  * OpenAI Agents `AgentGuard`: the run hook `on_llm_end` and `tool_use_behavior` of one turn,
    awaited as the SDK's run loop awaits them (one coroutine for all the trajectories, driven
    without an event loop); the bare step adds `tokens` and `error`;
  * smolagents `StepGuard`: the step callback on an `ActionStep`; the bare step adds
    `tokens`, `time_ms` and `error`.
(b) per iteration inside the real framework, run to the same stop: the graph, agent run or
    turn with the adapter vs the same loop with hand-written glue calling a bare `Loop.step`
    (LangGraph: a node; the Agents SDK: a run hook and a `tool_use_behavior` function, under
    its scripted test model; smolagents: a step callback, under a scripted model).
A trajectory is 12 iterations of a fresh loop (stopping where the decision stops, as a loop
does). Times are the thread's CPU time, medians over alternating rounds with their median
absolute deviation. Plain text; nothing asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
import types
from typing import Any, Callable, List, Tuple

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from earlyexit import Loop  # noqa: E402

clock = time.thread_time_ns
SCORES = [0.40, 0.72, 0.85, 0.90, 0.86, 0.88, 0.87, 0.89, 0.88, 0.88, 0.88, 0.88]
DRAFTS = [f"def f():\n    return {i}  # draft {i}\n" * 4 for i in range(len(SCORES))]


def bare_with(**fields: Any) -> Callable[[int], int]:
    """Iterations stepped by a bare Loop with ``fields`` on each step (returns the count)."""

    def bare(trajectories: int) -> int:
        steps = 0
        for _ in range(trajectories):
            loop = Loop(scale=1)
            for draft, score in zip(DRAFTS, SCORES):
                steps += 1
                if loop.step(draft, score, **fields).stop:
                    break
        return steps

    return bare


bare = bare_with()


def langgraph(trajectories: int) -> int:
    from earlyexit.integrations.langgraph import StopGuard

    guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
    steps = 0
    for _ in range(trajectories):
        state: dict = {}
        for draft, score in zip(DRAFTS, SCORES):
            steps += 1
            state["draft"], state["score"] = draft, score
            state.update(guard.node(state))
            if state["earlyexit"]["stop"]:
                break
    return steps


def dspy_step(trajectories: int) -> int:
    import dspy
    from earlyexit.integrations import dspy as adapter

    predictions = [dspy.Prediction(answer=draft) for draft in DRAFTS]
    # What Refine.forward calls per attempt (a package without `_record` stepped the loop).
    record = getattr(adapter, "_record", None) or (lambda loop, prediction, reward, done: loop.step(prediction, reward, done=done))
    steps = 0
    for _ in range(trajectories):
        loop = Loop(scale=1, max_iterations=12, fingerprint_of=adapter._prediction_fingerprint)
        for prediction, score in zip(predictions, SCORES):
            steps += 1
            if record(loop, prediction, score, False).stop:
                break
    return steps


def dspy_bare(trajectories: int) -> int:
    """The same fields as a dict: the automatic fingerprint hashes what the adapter's does."""
    fields = [{"answer": draft} for draft in DRAFTS]
    steps = 0
    for _ in range(trajectories):
        loop = Loop(scale=1, max_iterations=12)
        for output, score in zip(fields, SCORES):
            steps += 1
            if loop.step(output, score, done=False).stop:
                break
    return steps


def drive(coroutine: Any) -> Any:
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine awaited something")


def openai_agents(trajectories: int) -> int:
    from earlyexit.integrations.openai_agents import AgentGuard

    scores = dict(zip(DRAFTS, SCORES))
    results = [[types.SimpleNamespace(output=d, tool=types.SimpleNamespace(name="submit"))] for d in DRAFTS]
    response = types.SimpleNamespace(usage=types.SimpleNamespace(input_tokens=900, output_tokens=300))

    async def runs() -> int:
        # As the SDK's run loop does: each turn awaits the hook and the behaviour. One
        # coroutine for all the runs (driving one per run is the driver's cost, not the SDK's).
        steps = 0
        for _ in range(trajectories):
            guard = AgentGuard(quality=scores.__getitem__)
            hooks, behavior = guard.hooks, guard.tool_use_behavior
            for turn in results:
                steps += 1
                await hooks.on_llm_end(None, None, response)
                if (await behavior(None, turn)).is_final_output:
                    break
        return steps

    steps: int = drive(runs())
    return steps


def langgraph_glue(trajectories: int) -> int:
    """Reference: what a hand-written node pays at the same place, with the same state handling
    and the user's two functions, stepping a bare Loop kept beside the graph."""
    quality, output = (lambda s: s["score"]), (lambda s: s["draft"])
    steps = 0
    for _ in range(trajectories):
        state: dict = {}
        loop = Loop(scale=1)
        for draft, score in zip(DRAFTS, SCORES):
            steps += 1
            state["draft"], state["score"] = draft, score
            decision = loop.step(output(state), quality(state))
            state.update({"earlyexit": {"output": loop.output, "stop": decision.stop}})
            if state["earlyexit"]["stop"]:
                break
    return steps


def agents_glue(trajectories: int) -> int:
    """Reference: hand-written glue through the same SDK interface (a run hook coroutine adding
    the tokens, a `tool_use_behavior` coroutine stepping a bare Loop)."""
    from agents import ToolsToFinalOutputResult

    scores = dict(zip(DRAFTS, SCORES))
    results = [[types.SimpleNamespace(output=d, tool=types.SimpleNamespace(name="submit"))] for d in DRAFTS]
    response = types.SimpleNamespace(usage=types.SimpleNamespace(input_tokens=900, output_tokens=300))
    go_on = ToolsToFinalOutputResult(is_final_output=False, final_output=None)

    class Glue:
        def __init__(self) -> None:
            self.loop = Loop(scale=1)
            self.tokens = 0.0

        async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
            self.tokens += response.usage.input_tokens + response.usage.output_tokens

        async def behavior(self, context: Any, results: List[Any]) -> Any:
            output = results[0].output
            decision = self.loop.step(output, scores[output], tokens=self.tokens, error=None)
            self.tokens = 0.0
            return ToolsToFinalOutputResult(is_final_output=True, final_output=self.loop.output) if decision.stop else go_on

    async def runs() -> int:
        steps = 0
        for _ in range(trajectories):
            glue = Glue()
            for turn in results:
                steps += 1
                await glue.on_llm_end(None, None, response)
                if (await glue.behavior(None, turn)).is_final_output:
                    break
        return steps

    steps: int = drive(runs())
    return steps


def smolagents_step(trajectories: int) -> int:
    from smolagents.memory import ActionStep
    from smolagents.monitoring import Timing, TokenUsage

    from earlyexit.integrations.smolagents import StepGuard

    scores = dict(zip(DRAFTS, SCORES))
    steps_ = [
        ActionStep(step_number=i + 1, timing=Timing(start_time=0.0, end_time=0.25), action_output=d, token_usage=TokenUsage(input_tokens=900, output_tokens=300))
        for i, d in enumerate(DRAFTS)
    ]
    agent = types.SimpleNamespace(interrupt=lambda: None)
    steps = 0
    for _ in range(trajectories):
        guard = StepGuard(quality=lambda step: scores[step.action_output])
        for step in steps_:
            steps += 1
            guard(step, agent)
            if guard.interrupted:
                break
    return steps


def bare_stop() -> int:
    loop = Loop(scale=1)
    for i, (draft, score) in enumerate(zip(DRAFTS, SCORES)):
        if loop.step(draft, score).stop:
            return i + 1
    return len(SCORES)


# --- (b) inside the frameworks ----------------------------------------------------------------


def graph_run(with_guard: bool) -> Callable[[int], int]:
    """A LangGraph refine graph run to its stop, with the guard or with a hand-written node
    that steps a bare Loop (kept beside the graph, as such glue does) and writes the stop."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    from earlyexit.integrations.langgraph import StopGuard

    class State(TypedDict, total=False):
        attempt: int
        draft: str
        score: float
        earlyexit: dict

    stop_at = bare_stop()

    def draft(state: State) -> State:
        attempt = state.get("attempt", 0)
        return {"attempt": attempt + 1, "draft": DRAFTS[attempt], "score": SCORES[attempt]}

    graph = StateGraph(State)
    graph.add_node("draft", draft)
    if with_guard:
        guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
        graph.add_node("guard", guard.node)
        route = guard.route("draft", END)
    else:
        loops: dict = {}

        def glue(state: State) -> State:
            if state["attempt"] == 1:
                loops["loop"] = Loop(scale=1)
            loop = loops["loop"]
            decision = loop.step(state["draft"], state["score"])
            return {"earlyexit": {"output": loop.output, "stop": decision.stop}}

        graph.add_node("guard", glue)
        route = lambda state: END if state["earlyexit"]["stop"] else "draft"  # noqa: E731
    graph.add_edge(START, "draft")
    graph.add_edge("draft", "guard")
    graph.add_conditional_edges("guard", route, ["draft", END])
    app = graph.compile()

    def run(trajectories: int) -> int:
        for _ in range(trajectories):
            assert app.invoke({}, {"recursion_limit": 100})["attempt"] == stop_at
        return trajectories * stop_at

    return run


def agents_run(with_guard: bool) -> Callable[[int], int]:
    """An Agents SDK run under its scripted test model, one tool call per turn, to the stop."""
    from agents import Agent, RunConfig, RunHooks, Runner, Usage, ToolsToFinalOutputResult, function_tool, set_tracing_disabled
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

    from earlyexit.integrations.openai_agents import AgentGuard

    set_tracing_disabled(True)
    scores = dict(zip(DRAFTS, SCORES))
    stop_at = bare_stop()

    @function_tool
    def submit(draft: str) -> str:
        """Submits a draft."""
        return draft

    def model() -> Any:
        steps: List[Any] = [
            ModelStep(output=[function_call("submit", {"draft": d}, call_id=f"c{i}")], usage=Usage(requests=1, input_tokens=900, output_tokens=300, total_tokens=1200))
            for i, d in enumerate(DRAFTS)
        ]
        steps.append(ModelStep(output=[assistant_message("done")]))
        return ScriptedModel(steps)

    config = RunConfig(tracing_disabled=True)

    def run(trajectories: int) -> int:
        for _ in range(trajectories):
            if with_guard:
                guard = AgentGuard(quality=scores.__getitem__)
                behavior, hooks = guard.tool_use_behavior, guard.hooks
            else:
                loop = Loop(scale=1)
                tokens = [0.0]

                class Hooks(RunHooks):  # type: ignore[misc]
                    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
                        tokens[0] += response.usage.input_tokens + response.usage.output_tokens

                async def behavior(context: Any, results: List[Any]) -> Any:
                    output = results[0].output
                    decision = loop.step(output, scores[output], tokens=tokens[0], error=None)
                    tokens[0] = 0.0
                    return ToolsToFinalOutputResult(is_final_output=decision.stop, final_output=loop.output if decision.stop else None)

                hooks = Hooks()
            agent = Agent(name="writer", instructions="Refine.", tools=[submit], model=model(), tool_use_behavior=behavior)
            result = Runner.run_sync(agent, "write it", hooks=hooks, max_turns=30, run_config=config)
            assert result.final_output == DRAFTS[3], result.final_output
        return trajectories * stop_at

    return run


def smolagents_run(with_guard: bool) -> Callable[[int], int]:
    """A smolagents CodeAgent under a scripted model (one code action per step) to the stop."""
    from smolagents import CodeAgent
    from smolagents.memory import ActionStep
    from smolagents.models import ChatMessage, MessageRole, Model
    from smolagents.monitoring import TokenUsage
    from smolagents.utils import AgentError

    from earlyexit.integrations.smolagents import StepGuard

    scores = dict(zip(DRAFTS, SCORES))
    stop_at = bare_stop()
    actions = [f"draft = {d!r}\ndraft" for d in DRAFTS]

    class Scripted(Model):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(model_id="scripted")
            self.calls = 0

        def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None, tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
            action = actions[self.calls]
            self.calls += 1
            return ChatMessage(role=MessageRole.ASSISTANT, content=f"Thought: again.\n<code>\n{action}\n</code>", token_usage=TokenUsage(input_tokens=900, output_tokens=300))

    def run(trajectories: int) -> int:
        with contextlib.redirect_stdout(io.StringIO()):  # the agent prints "Agent interrupted."
            return runs(trajectories)

    def runs(trajectories: int) -> int:
        for _ in range(trajectories):
            if with_guard:
                guard = StepGuard(quality=lambda step: scores[step.action_output])
                agent = CodeAgent(tools=[], model=Scripted(), step_callbacks=[guard], max_steps=20, verbosity_level=0)
                answer = guard.run(agent, "Write the draft.")
            else:
                loop = Loop(scale=1)
                stopped = [False]

                def callback(step: Any, agent: Any = None) -> None:
                    if not isinstance(step, ActionStep):
                        return
                    output = step.action_output
                    decision = loop.step(
                        output, scores[output], tokens=step.token_usage.total_tokens, time_ms=step.timing.duration * 1000, error=None if step.error is None else str(step.error)
                    )
                    if decision.stop and not stopped[0]:
                        stopped[0] = True
                        agent.interrupt()

                agent = CodeAgent(tools=[], model=Scripted(), step_callbacks=[callback], max_steps=20, verbosity_level=0)
                try:
                    answer = agent.run("Write the draft.")
                except AgentError:
                    answer = loop.output
            assert answer == DRAFTS[3], answer
        return trajectories * stop_at

    return run


def per_step(function: Callable[[int], int], trajectories: int) -> float:
    t0 = clock()
    steps = function(trajectories)
    return (clock() - t0) / steps


def compare(ours_f: Callable[[int], int], base_f: Callable[[int], int], trajectories: int, rounds: int) -> Tuple[float, float, float]:
    ours: List[float] = []
    base: List[float] = []
    for _ in range(rounds):
        base.append(per_step(base_f, trajectories))
        ours.append(per_step(ours_f, trajectories))
    o, b = statistics.median(ours), statistics.median(base)
    return o, b, statistics.median([abs(x - o) for x in ours])


def row(name: str, o: float, spread: float, b: float, reference: bool = False) -> None:
    overhead = (o - b) / b
    verdict = "(reference)" if reference else "met" if overhead <= 0.20 else "MISSED"
    print(f"  {name:34s} {o / 1000:9.2f} ±{spread / 1000:5.2f} {b / 1000:12.2f}     {overhead:+8.0%}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    trajectories = 200 if args.quick else 2000
    rounds = 3 if args.quick else args.rounds
    adapters: List[Tuple[str, Callable[[int], int], Callable[[int], int]]] = [
        ("LangGraph StopGuard.node", langgraph, bare),
        ("DSPy Refine step", dspy_step, dspy_bare),
        ("OpenAI Agents AgentGuard turn", openai_agents, bare_with(tokens=1200.0, error=None)),
        ("smolagents StepGuard callback", smolagents_step, bare_with(tokens=1200, time_ms=250.0, error=None)),
    ]
    for _, function, base in adapters:  # imports and warm-up outside the rounds
        function(5)
        base(5)
    print(f"(a) adapter hook per iteration vs a bare Loop.step with the same fields ({trajectories} trajectories of up to {len(SCORES)} iterations, {rounds} rounds, CPU time)")
    print(f"  {'adapter':34s} {'adapter µs':>12s} {'bare step µs':>12s}     {'overhead':>8s}  target within 20%")
    for name, function, base in adapters:
        o, b, spread = compare(function, base, trajectories, rounds)
        row(name, o, spread, b)
    # What hand-written glue pays at the same place (the framework's interface, the user's
    # functions), against the same bare step: the share of a row above no adapter can remove.
    references: List[Tuple[str, Callable[[int], int], Callable[[int], int]]] = [
        ("(glue) LangGraph node", langgraph_glue, bare),
        ("(glue) Agents hook + behaviour", agents_glue, bare_with(tokens=1200.0, error=None)),
    ]
    for name, function, base in references:
        function(5)
        o, b, spread = compare(function, base, trajectories, rounds)
        row(name, o, spread, b, reference=True)
    runs = 10 if args.quick else 60
    frameworks: List[Tuple[str, Callable[[bool], Callable[[int], int]], int]] = [
        ("LangGraph refine graph", graph_run, runs),
        ("OpenAI Agents run (scripted model)", agents_run, max(2, runs // 10)),
        ("smolagents CodeAgent (scripted)", smolagents_run, max(2, runs // 10)),
    ]
    print(f"(b) per iteration inside the framework, to the stop at iteration {bare_stop()}: with the adapter vs hand-written glue calling a bare Loop.step")
    print(f"  {'framework':34s} {'adapter µs':>12s} {'glue µs':>12s}     {'overhead':>8s}  target within 20%")
    for name, make, count in frameworks:
        try:
            ours_f, base_f = make(True), make(False)
            ours_f(1), base_f(1)
        except Exception as error:  # a framework version the bench does not know: say so
            print(f"  {name:34s} not measured: {type(error).__name__}: {error}")
            continue
        o, b, spread = compare(ours_f, base_f, count, rounds)
        row(name, o, spread, b)
    print("  (DSPy: an attempt is dspy.Refine's module call and feedback step, milliseconds with DummyLM; the adapter's share is table (a))")


if __name__ == "__main__":
    sys.exit(main())
