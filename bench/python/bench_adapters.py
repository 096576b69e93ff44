"""The adapters' overhead per iteration (earlyexit.integrations, docs/agents.md):
`python bench/python/bench_adapters.py [--quick] [--rounds N]`, in the venv of
`make test-integrations` (.venv-integrations, which has the frameworks).

Each row is the time one iteration takes through the adapter's own code, beside a bare
`Loop.step` over the same outputs and scores in the same round (target: within 20% of it):
  * LangGraph `StopGuard.node(state)`: restores the loop (from its cache when the state holds
    the text it wrote last), steps, writes the snapshot JSON and the output into the state;
  * DSPy `Refine`'s step: `Loop.step` of a `dspy.Prediction` with its fingerprint (the rest of
    an attempt, the module call and DSPy's feedback step, is `dspy.Refine`'s own work);
  * OpenAI Agents `AgentGuard`: the run hook `on_llm_end` and `tool_use_behavior` of one turn,
    the coroutines driven without an event loop;
  * smolagents `StepGuard`: the step callback on an `ActionStep` (tokens, duration, output).
A trajectory is 12 iterations of a fresh loop (stopping where the decision stops, as a loop
does). Times are the thread's CPU time, medians over alternating rounds with their median
absolute deviation. Plain text; nothing asserts a time.
"""

from __future__ import annotations

import argparse
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


def bare(trajectories: int) -> int:
    """Iterations stepped by a bare Loop (returns the count)."""
    steps = 0
    for _ in range(trajectories):
        loop = Loop(scale=1)
        for draft, score in zip(DRAFTS, SCORES):
            steps += 1
            if loop.step(draft, score).stop:
                break
    return steps


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
    steps = 0
    for _ in range(trajectories):
        loop = Loop(scale=1, max_iterations=12, fingerprint_of=adapter._prediction_fingerprint)
        for prediction, score in zip(predictions, SCORES):
            steps += 1
            if loop.step(prediction, score, done=False).stop:
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
    steps = 0
    for _ in range(trajectories):
        guard = AgentGuard(quality=scores.__getitem__)
        for turn in results:
            steps += 1
            drive(guard.hooks.on_llm_end(None, None, response))
            if drive(guard.tool_use_behavior(None, turn)).is_final_output:
                break
    return steps


def graph_run(with_guard: bool) -> Callable[[int], int]:
    """A LangGraph refine graph run to its stop, with the guard or with a plain node that
    stops at the same iteration (the graph's own cost per iteration)."""
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
        graph.add_node("guard", lambda state: {"earlyexit": {"stop": state["attempt"] >= stop_at}})
        route = lambda state: END if state["earlyexit"]["stop"] else "draft"  # noqa: E731
    graph.add_edge(START, "draft")
    graph.add_edge("draft", "guard")
    graph.add_conditional_edges("guard", route, ["draft", END])
    app = graph.compile()

    def run(trajectories: int) -> int:
        for _ in range(trajectories):
            app.invoke({}, {"recursion_limit": 100})
        return trajectories * stop_at

    return run


def bare_stop() -> int:
    loop = Loop(scale=1)
    for i, (draft, score) in enumerate(zip(DRAFTS, SCORES)):
        if loop.step(draft, score).stop:
            return i + 1
    return len(SCORES)


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


def per_step(function: Callable[[int], int], trajectories: int) -> float:
    t0 = clock()
    steps = function(trajectories)
    return (clock() - t0) / steps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    trajectories = 200 if args.quick else 2000
    rounds = 3 if args.quick else args.rounds
    adapters: List[Tuple[str, Callable[[int], int]]] = [("LangGraph StopGuard.node", langgraph), ("DSPy Refine step", dspy_step), ("OpenAI Agents AgentGuard turn", openai_agents), ("smolagents StepGuard callback", smolagents_step)]
    for _, function in adapters:  # imports and warm-up outside the rounds
        function(5)
    bare(5)
    print(f"adapter overhead per iteration ({trajectories} trajectories of up to {len(SCORES)} iterations, {rounds} rounds, CPU time)")
    print(f"  {'adapter':32s} {'adapter µs':>11s} {'bare Loop.step µs':>18s} {'overhead':>9s}  target within 20%")
    for name, function in adapters:
        ours: List[float] = []
        base: List[float] = []
        for _ in range(rounds):
            base.append(per_step(bare, trajectories))
            ours.append(per_step(function, trajectories))
        o, b = statistics.median(ours), statistics.median(base)
        spread = statistics.median([abs(x - o) for x in ours])
        overhead = (o - b) / b
        print(f"  {name:32s} {o / 1000:8.2f} ±{spread / 1000:4.2f} {b / 1000:14.2f}     {overhead:+8.0%}  {'met' if overhead <= 0.20 else 'MISSED'}")
    plain, guarded = graph_run(False), graph_run(True)
    plain(2), guarded(2)
    runs = 10 if args.quick else 100
    print(f"inside the framework: a LangGraph refine graph ({runs} runs to the stop at iteration {bare_stop()}), per iteration")
    ours, base = [], []
    for _ in range(rounds):
        base.append(per_step(plain, runs))
        ours.append(per_step(guarded, runs))
    o, b = statistics.median(ours), statistics.median(base)
    print(f"  with StopGuard {o / 1000:.1f} µs, with a plain node stopping there {b / 1000:.1f} µs: the guard adds {(o - b) / b:+.0%} to the graph's own cost")


if __name__ == "__main__":
    sys.exit(main())
