"""earlyexit.integrations.langgraph.StopGuard in a real LangGraph refine graph, with the
in-memory and the SQLite checkpointers, and resumed from a checkpoint."""

from __future__ import annotations

import sqlite3
from typing import Any, Dict, List, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from earlyexit import Loop
from earlyexit.integrations.langgraph import StopGuard

DRAFTS = [f"v{i}" for i in range(1, 13)]
SCORES = [0.40, 0.72, 0.85, 0.90, 0.86, 0.88, 0.87, 0.89, 0.88, 0.88, 0.88, 0.88]


class State(TypedDict, total=False):
    attempt: int
    draft: str
    score: float
    earlyexit: Dict[str, Any]


def draft(state: State) -> State:
    attempt = state.get("attempt", 0)
    return {"attempt": attempt + 1, "draft": DRAFTS[attempt], "score": SCORES[attempt]}


def build(guard: StopGuard, checkpointer: Any = None, interrupt: bool = False) -> Any:
    graph = StateGraph(State)
    graph.add_node("draft", draft)
    graph.add_node("guard", guard.node)
    graph.add_edge(START, "draft")
    graph.add_edge("draft", "guard")
    graph.add_conditional_edges("guard", guard.route("draft", END), ["draft", END])
    return graph.compile(checkpointer=checkpointer, interrupt_before=["guard"] if interrupt else None)


def bare_loop() -> List[Any]:
    """What a bare Loop decides over the same scores."""
    loop = Loop(scale=1)
    for text, score in zip(DRAFTS, SCORES):
        decision = loop.step(text, score)
        if decision.stop:
            return [len(loop.history), decision.trigger, decision.reason, loop.output]
    raise AssertionError("the bare loop never stopped")


def guard() -> StopGuard:
    return StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"], scale=1)


def outcome(state: Dict[str, Any]) -> List[Any]:
    kept = state["earlyexit"]
    return [kept["iteration"], kept["trigger"], kept["reason"], kept["output"]]


def test_the_graph_stops_where_a_bare_loop_stops_and_keeps_the_best() -> None:
    expected = bare_loop()
    final = build(guard()).invoke({}, {"recursion_limit": 100})
    assert outcome(final) == expected
    assert final["earlyexit"]["stop"] is True
    assert final["attempt"] == expected[0] < len(DRAFTS)
    assert final["earlyexit"]["output"] == "v4"  # the best (0.90), not the last draft


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_checkpointed_graph_decides_the_same(saver: str, tmp_path: Any) -> None:
    expected = bare_loop()
    config = {"configurable": {"thread_id": "t-1"}, "recursion_limit": 100}
    if saver == "memory":
        final = build(guard(), InMemorySaver()).invoke({}, config)
    else:
        with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.sqlite")) as checkpointer:
            final = build(guard(), checkpointer).invoke({}, config)
    assert outcome(final) == expected


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_resumed_from_a_checkpoint_it_decides_as_one_that_ran_through(saver: str, tmp_path: Any) -> None:
    """Each iteration stops before the guard; every resume is a new graph and a new guard
    (as after a restart), reading the state from the checkpointer alone."""
    expected = bare_loop()
    config = {"configurable": {"thread_id": "t-2"}, "recursion_limit": 100}
    path = str(tmp_path / "checkpoints.sqlite")
    memory = InMemorySaver()

    def resume(first: bool) -> Dict[str, Any]:
        if saver == "memory":
            return build(guard(), memory, interrupt=True).invoke({} if first else None, config)  # type: ignore[no-any-return]
        connection = sqlite3.connect(path, check_same_thread=False)
        try:
            return build(guard(), SqliteSaver(connection), interrupt=True).invoke({} if first else None, config)  # type: ignore[no-any-return]
        finally:
            connection.close()

    state = resume(True)
    resumes = 0
    while "earlyexit" not in state or not state["earlyexit"]["stop"]:
        state = resume(False)
        resumes += 1
        assert resumes <= len(DRAFTS)
    assert outcome(state) == expected
    assert resumes == expected[0]


def test_the_state_holds_the_loop_for_calibration() -> None:
    g = guard()
    final = build(g).invoke({}, {"recursion_limit": 100})
    loop = g.loop(final)
    assert loop is not None and [r.quality_score for r in loop.history] == [s * 100 for s in SCORES[: final["attempt"]]]


@pytest.mark.parametrize("saver", [None, "memory", "sqlite"])
def test_a_run_whose_guard_loses_its_loop_mid_run_decides_the_same(saver: Any, tmp_path: Any) -> None:
    """Halfway through one run the guard's in-process loops are gone (as when another worker
    takes the thread over): it rebuilds the loop from the state's records and goes on."""
    expected = bare_loop()
    g = guard()

    def forgetful(state: State) -> State:
        if state.get("attempt", 0) == 4:
            g._forget()
        return draft(state)

    graph = StateGraph(State)
    graph.add_node("draft", forgetful)
    graph.add_node("guard", g.node)
    graph.add_edge(START, "draft")
    graph.add_edge("draft", "guard")
    graph.add_conditional_edges("guard", g.route("draft", END), ["draft", END])
    config = {"configurable": {"thread_id": "t-3"}, "recursion_limit": 100}
    if saver == "sqlite":
        with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.sqlite")) as checkpointer:
            final = graph.compile(checkpointer=checkpointer).invoke({}, config)
    else:
        final = graph.compile(checkpointer=InMemorySaver() if saver else None).invoke({}, config)
    assert outcome(final) == expected
    loop = g.loop(final)
    assert loop is not None and [r.quality_score for r in loop.history] == [s * 100 for s in SCORES[: expected[0]]]
    assert [r["output"] for r in final["earlyexit"]["records"]] == DRAFTS[: expected[0]]


def test_two_graphs_sharing_one_guard_interleaved_each_decide_as_a_bare_loop() -> None:
    """Two compiled graphs (and two runs of one of them) through one guard, stepped in turn:
    the guard keeps the loop of the run it stepped last, so each step of the other runs finds
    its own loop again (or rebuilds it from its records), never another run's."""
    expected = bare_loop()
    g = guard()
    first, second = build(g), build(g, InMemorySaver())
    runs = [
        first.stream({}, {"recursion_limit": 100}, stream_mode="values"),
        second.stream({}, {"configurable": {"thread_id": "s-1"}, "recursion_limit": 100}, stream_mode="values"),
        first.stream({}, {"recursion_limit": 100}, stream_mode="values"),
    ]
    finals: List[Dict[str, Any]] = [{} for _ in runs]
    going = list(range(len(runs)))
    while going:
        for i in list(going):
            try:
                finals[i] = next(runs[i])
            except StopIteration:
                going.remove(i)
    assert [outcome(final) for final in finals] == [expected] * len(runs)


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_run_forked_from_an_earlier_checkpoint_decides_from_that_checkpoint(saver: str, tmp_path: Any) -> None:
    """After a run has ended, the same guard goes on from one of its earlier checkpoints (time
    travel), then from that checkpoint with another score (a fork): each decides as a bare
    loop given that checkpoint's iterations and what follows, not from the loop the guard
    stepped last."""
    expected = bare_loop()
    config = {"configurable": {"thread_id": "t-fork"}, "recursion_limit": 100}
    g = guard()

    def check(app: Any) -> None:
        assert outcome(app.invoke({}, config)) == expected
        # The checkpoint after the guard's third step, before the next draft.
        earlier = next(c for c in app.get_state_history(config) if c.values.get("earlyexit", {}).get("iteration") == 3 and c.next == ("draft",))
        assert outcome(app.invoke(None, earlier.config)) == expected
        # A fork: a fourth iteration of the third draft scored 0.95 is put in, as if the draft
        # node had written it; the guard steps it, then the graph goes on with the next drafts.
        forked = app.update_state(earlier.config, {"score": 0.95}, as_node="draft")
        fork = Loop(scale=1)
        steps = [*zip(DRAFTS[:3], SCORES[:3]), ("v3", 0.95), *zip(DRAFTS[3:], SCORES[3:])]
        for text, score in steps:
            decision = fork.step(text, score)
            if decision.stop:
                break
        final = app.invoke(None, forked)
        assert outcome(final) == [len(fork.history), decision.trigger, decision.reason, fork.output]
        assert [r["quality"] for r in final["earlyexit"]["records"]] == [score for _, score in steps[: len(fork.history)]]

    if saver == "memory":
        check(build(g, InMemorySaver()))
    else:
        with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.sqlite")) as checkpointer:
            check(build(g, checkpointer))
