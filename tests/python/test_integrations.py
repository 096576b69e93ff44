"""The agent-framework adapters (earlyexit.integrations) without their frameworks: the LangGraph
guard needs none, the Agents SDK guard runs on a fake ``agents`` module, and each adapter that
imports a framework says which one is missing. tests/integrations runs them with the real
frameworks (`make test-integrations`)."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import json
import sys
import types
from typing import Any, Dict, Iterator, List

import pytest

from earlyexit import EarlyExitError, Loop
from earlyexit.integrations.langgraph import StopGuard

SCORES = [0.40, 0.72, 0.85, 0.90, 0.86, 0.88, 0.87, 0.89, 0.88, 0.88, 0.88, 0.88]


def bare(scores: List[float]) -> Loop:
    loop = Loop(scale=1)
    for i, score in enumerate(scores):
        if loop.step(f"v{i + 1}", score).stop:
            break
    return loop


# --- LangGraph --------------------------------------------------------------------------------


def drive(guard: StopGuard, checkpoint: bool) -> Dict[str, Any]:
    """A refine graph by hand: draft, guard, route; with ``checkpoint`` the state goes through
    JSON between two steps, as a checkpointer stores it, and a new guard reads it."""
    state: Dict[str, Any] = {}
    for i, score in enumerate(SCORES):
        state.update(draft=f"v{i + 1}", score=score)
        state.update(guard.node(state))
        if guard.route("draft", "__end__")(state) == "__end__":
            return state
        if checkpoint:
            state = json.loads(json.dumps(state))
            guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
    raise AssertionError("never stopped")


@pytest.mark.parametrize("checkpoint", [False, True])
def test_stop_guard_decides_as_a_bare_loop(checkpoint: bool) -> None:
    loop = bare(SCORES)
    state = drive(StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"]), checkpoint)
    kept = state["earlyexit"]
    assert kept["stop"] is True and kept["output"] == loop.output == "v4"
    assert kept["iteration"] == len(loop.history) and kept["trigger"] == loop.decision.trigger  # type: ignore[union-attr]
    assert kept["reason"] == loop.decision.reason  # type: ignore[union-attr]
    # One record per iteration (Loop.step's arguments), JSON values a checkpointer stores as is.
    assert json.loads(json.dumps(kept["records"])) == kept["records"]
    assert [r["quality"] for r in kept["records"]] == SCORES[: len(loop.history)]
    assert "loop" not in kept


def test_stop_guard_resumes_a_state_of_the_snapshot_form() -> None:
    """A state an earlier version wrote (`"loop"`: the snapshot text) goes on from it."""
    expected = bare(SCORES)
    old = Loop(scale=1)
    for i, score in enumerate(SCORES[:3]):
        decision = old.step(f"v{i + 1}", score)
    state: Dict[str, Any] = {
        "earlyexit": {"loop": old.to_json(), "output": old.output, "stop": decision.stop, "trigger": decision.trigger, "reason": decision.reason, "iteration": 3}
    }
    guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
    assert [r.quality_score for r in guard.loop(state).history] == [s * 100 for s in SCORES[:3]]  # type: ignore[union-attr]
    for i, score in enumerate(SCORES[3:], start=3):
        state.update(draft=f"v{i + 1}", score=score)
        state.update(guard.node(state))
        state = json.loads(json.dumps(state))  # each step from the checkpoint's copy
        if state["earlyexit"]["stop"]:
            break
    kept = state["earlyexit"]
    assert kept["base"] == old.to_json() and kept["iteration"] == len(expected.history)
    assert [kept["output"], kept["trigger"], kept["reason"]] == [expected.output, expected.decision.trigger, expected.decision.reason]  # type: ignore[union-attr]
    resumed = guard.loop(state)
    assert resumed is not None and [r.quality_score for r in resumed.history] == [r.quality_score for r in expected.history]


def test_stop_guard_rebuilds_its_loop_when_the_cache_misses_mid_run() -> None:
    """One guard runs a graph; halfway its cache is emptied (another process took over): the
    rest decides as a bare loop, and a state copied back keeps every iteration."""
    expected = bare(SCORES)
    guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"], details=lambda s: {"tokens": 10.0 * len(s["draft"])})
    state: Dict[str, Any] = {}
    decisions = []
    for i, score in enumerate(SCORES):
        state.update(draft=f"v{i + 1}", score=score)
        if i == 4:
            guard._forget()
        state.update(guard.node(state))
        decisions.append(state["earlyexit"]["trigger"])
        if state["earlyexit"]["stop"]:
            break
    kept = state["earlyexit"]
    assert kept["iteration"] == len(expected.history) and kept["output"] == expected.output
    assert kept["reason"] == expected.decision.reason  # type: ignore[union-attr]
    rebuilt = guard.loop(state)
    assert rebuilt is not None and rebuilt.decision.reason == expected.decision.reason  # type: ignore[union-attr]
    assert [r["fingerprint"] for r in rebuilt.run()["iterations"]] == [r["fingerprint"] for r in expected.run()["iterations"]]
    assert [r.tokens_used for r in rebuilt.history] == [20.0] * len(expected.history)


def test_stop_guard_record_decides_as_a_bare_loop_and_keeps_no_stopped_run() -> None:
    """`record` answers each iteration's decision (the stop too, whose loop the node does not
    cache); a stopped run leaves nothing in the cache, and a state stepped again after its
    stop is replayed and steps once more, as the bare loop does."""
    expected, again = bare(SCORES), bare(SCORES)
    guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
    state: Dict[str, Any] = {}
    decisions = []
    for i, score in enumerate(SCORES):
        state.update(draft=f"v{i + 1}", score=score)
        decisions.append(guard.record(dict(state)))  # the decision only: the state stays as it was
        state.update(guard.node(state))
        if state["earlyexit"]["stop"]:
            break
    assert [d.stop for d in decisions] == [False] * (len(expected.history) - 1) + [True]
    assert decisions[-1].trigger == expected.decision.trigger and decisions[-1].reason == expected.decision.reason  # type: ignore[union-attr]
    assert guard._cache == {} and guard._last == []
    after = again.step("v99", 0.5)
    state.update(draft="v99", score=0.5)
    kept = guard.node(state)["earlyexit"]
    assert kept["iteration"] == len(again.history) and [kept["stop"], kept["trigger"], kept["reason"]] == [after.stop, after.trigger, after.reason]


@pytest.mark.parametrize("runs", [2, 3, 100])
def test_stop_guard_interleaved_runs_and_threads_each_decide_as_a_bare_loop(runs: int) -> None:
    """Runs stepped in turn through one guard (more than it keeps: 100) and runs on threads:
    each decides as a bare loop; the kept loops stay bounded and a stopped run keeps none."""
    import threading

    expected = bare(SCORES)
    guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
    states: List[Dict[str, Any]] = [{} for _ in range(runs)]
    for i, score in enumerate(SCORES):
        for state in states:
            if not state.get("earlyexit", {}).get("stop"):
                state.update(draft=f"v{i + 1}", score=score)
                state.update(guard.node(state))
        assert len(guard._cache) <= 64 and len(guard._last) <= 1
    for state in states:
        kept = state["earlyexit"]
        assert (kept["iteration"], kept["output"], kept["reason"]) == (len(expected.history), expected.output, expected.decision.reason)  # type: ignore[union-attr]
    assert guard._last == [] and all(entry[0] is not state["earlyexit"]["records"] for entry in guard._cache.values() for state in states)

    answers: List[Any] = []

    def run() -> None:
        state: Dict[str, Any] = {}
        for i, score in enumerate(SCORES):
            state.update(draft=f"v{i + 1}", score=score)
            state.update(guard.node(state))
            if state["earlyexit"]["stop"]:
                break
        answers.append((state["earlyexit"]["iteration"], state["earlyexit"]["output"]))

    threads = [threading.Thread(target=run) for _ in range(runs if runs < 10 else 8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [(len(expected.history), expected.output)] * len(threads)


def test_stop_guard_reads_a_state_read_back_or_forked_as_it_was() -> None:
    guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
    state: Dict[str, Any] = {}
    for i, score in enumerate(SCORES[:2]):
        state.update(draft=f"v{i + 1}", score=score)
        state.update(guard.node(state))
        state = json.loads(json.dumps(state))  # equal text, another object: parsed, same loop
    assert state["earlyexit"]["iteration"] == 2
    # One state stepped twice (a fork, or time travel): both steps start from that state.
    fork = dict(state, draft="v3", score=SCORES[2])
    first, second = guard.node(fork)["earlyexit"], guard.node(fork)["earlyexit"]
    assert first["iteration"] == second["iteration"] == 3
    assert first["records"][:2] == second["records"][:2] == state["earlyexit"]["records"]
    assert first["records"] is not second["records"]
    one, two = guard.loop({"earlyexit": first}), guard.loop({"earlyexit": second})
    assert one is not None and two is not None and len(one.history) == len(two.history) == 3


@pytest.mark.parametrize("edit", ["pop", "replace_last", "append"])
def test_stop_guard_replays_records_edited_in_place(edit: str) -> None:
    """A node that edits the guard's records list in place (the same list object) gets a
    decision over the edited records, not over the loop kept for the list as it was."""
    guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"])
    state: Dict[str, Any] = {}
    for i, score in enumerate([0.40, 0.72, 0.85]):
        state.update(draft=f"v{i + 1}", score=score)
        state.update(guard.node(state))
    records = state["earlyexit"]["records"]
    if edit == "pop":
        records.pop()
    elif edit == "replace_last":
        records[-1] = {"output": "v3x", "quality": 0.10}
    else:
        records.append({"output": "v4x", "quality": 0.99})
    expected = [(r["output"], r["quality"]) for r in records] + [("next", 0.50)]
    state.update(draft="next", score=0.50)
    kept = guard.node(state)["earlyexit"]
    assert [(r["output"], r["quality"]) for r in kept["records"]] == expected
    loop = Loop(scale=1)
    for output, quality in expected:
        loop.step(output, quality)
    # The best output and the decision are the edited records', not the kept loop's.
    assert kept["output"] == loop.output and kept["reason"] == loop.decision.reason  # type: ignore[union-attr]
    assert guard.loop({"earlyexit": kept}).output == loop.output  # type: ignore[union-attr]


def test_stop_guard_route_before_its_node_names_the_key() -> None:
    guard = StopGuard(quality=lambda s: 1.0, output=lambda s: "x", key="guard")
    with pytest.raises(KeyError, match="state\\['guard'\\]"):
        guard.route("draft", "__end__")({})


def test_stop_guard_bad_policy_or_score_is_the_engines_error() -> None:
    with pytest.raises(EarlyExitError):
        StopGuard(quality=lambda s: 1.0, output=lambda s: "x", preset="no-such-preset")
    guard = StopGuard(quality=lambda s: 7.0, output=lambda s: "x")  # 7 is off the scale 1
    with pytest.raises(EarlyExitError) as error:
        guard.node({})
    assert error.value.field == "quality"


def test_stop_guard_details_and_fingerprint_reach_the_loop() -> None:
    guard = StopGuard(quality=lambda s: 0.5, output=lambda s: "x", fingerprint=lambda s: "fp-1", details=lambda s: {"tokens": 42})
    loop = guard.loop(guard.node({}))
    assert loop is not None and loop.history[0].tokens_used == 42
    assert loop.run()["iterations"][0]["fingerprint"] == "fp-1"


def test_stop_guard_keeps_an_output_that_is_not_json_as_it_is() -> None:
    """The state holds outputs as they are (no snapshot): what a checkpointer cannot store is
    its own error, and an in-memory graph keeps any object."""
    draft = object()
    guard = StopGuard(quality=lambda s: 0.5, output=lambda s: draft)
    kept = guard.node({})["earlyexit"]
    assert kept["output"] is draft and kept["records"][0]["output"] is draft
    loop = guard.loop({"earlyexit": kept})
    assert loop is not None and loop.output is draft and "fingerprint" not in loop.run()["iterations"][0]


# --- OpenAI Agents SDK (fake) ------------------------------------------------------------------


@dataclasses.dataclass
class FinalOutput:
    is_final_output: bool
    final_output: Any = None


class FakeHooks:
    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        pass

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        pass


@pytest.fixture
def fake_agents(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    agents = types.ModuleType("agents")
    agents.RunHooks = FakeHooks  # type: ignore[attr-defined]
    agents.ToolsToFinalOutputResult = FinalOutput  # type: ignore[attr-defined]
    agents.default_tool_error_function = lambda ctx, error: "tool failed"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agents", agents)
    monkeypatch.delitem(sys.modules, "earlyexit.integrations.openai_agents", raising=False)
    yield importlib.import_module("earlyexit.integrations.openai_agents")
    sys.modules.pop("earlyexit.integrations.openai_agents", None)


def turn(output: str) -> Any:
    return types.SimpleNamespace(output=output, tool=types.SimpleNamespace(name="submit"))


def test_agent_guard_ends_the_run_with_the_best_output(fake_agents: Any) -> None:
    loop = bare(SCORES)
    scores = {f"v{i + 1}": s for i, s in enumerate(SCORES)}
    guard = fake_agents.AgentGuard(quality=lambda output: scores[output])
    usage = types.SimpleNamespace(usage=types.SimpleNamespace(input_tokens=100, output_tokens=20))

    async def run() -> Any:
        for name in scores:
            await guard.hooks.on_llm_end(None, None, usage)
            answer = await guard.tool_use_behavior(None, [turn(name)])
            if answer.is_final_output:
                return answer
        raise AssertionError("never stopped")

    answer = asyncio.run(run())
    assert answer.final_output == loop.output == guard.output == "v4"
    assert guard.decision.trigger == loop.decision.trigger and len(guard.loop.history) == len(loop.history)  # type: ignore[union-attr]
    assert [r.tokens_used for r in guard.loop.history] == [120] * len(loop.history)


def test_agent_guard_records_tool_errors_and_keeps_the_agents_behaviour(fake_agents: Any) -> None:
    guard = fake_agents.AgentGuard(quality=lambda output: 0.5, behavior={"stop_at_tool_names": ["finish"]})
    asyncio.run(guard.hooks.on_tool_end(None, None, types.SimpleNamespace(name="submit"), "tool failed"))
    answer = asyncio.run(guard.tool_use_behavior(None, [turn("tool failed")]))
    assert answer.is_final_output is False
    assert guard.loop.history[0].to_dict()["error"] == "submit: tool failed"
    finish = types.SimpleNamespace(output="done", tool=types.SimpleNamespace(name="finish"))
    assert asyncio.run(guard.tool_use_behavior(None, [finish])).final_output == "done"


def test_agent_guard_sums_a_turns_model_calls_and_joins_its_tool_errors_in_order(fake_agents: Any) -> None:
    """Every model call and tool error since the last turn goes to the next turn, once."""
    guard = fake_agents.AgentGuard(quality=lambda output: 0.5, output=lambda results: "same")
    calls = [types.SimpleNamespace(usage=types.SimpleNamespace(input_tokens=100, output_tokens=20)), types.SimpleNamespace(usage=None)]
    calls.append(types.SimpleNamespace(usage=types.SimpleNamespace(input_tokens=None, output_tokens=5)))

    async def run() -> None:
        for response in calls:
            await guard.hooks.on_llm_end(None, None, response)
        for name in ("a", "b"):
            await guard.hooks.on_tool_end(None, None, types.SimpleNamespace(name=name), "tool failed")
        await guard.hooks.on_tool_end(None, None, types.SimpleNamespace(name="c"), "fine")
        await guard.tool_use_behavior(None, [turn("x"), turn("y")])
        await guard.tool_use_behavior(None, [turn("z")])

    asyncio.run(run())
    first, second = (r.to_dict() for r in guard.loop.history)
    assert (first["tokens_used"], first["error"]) == (125, "a: tool failed; b: tool failed")
    assert (second["tokens_used"], second.get("error")) == (0, None)


def test_agent_guard_refuses_an_unknown_behaviour(fake_agents: Any) -> None:
    with pytest.raises(TypeError, match="tool_use_behavior"):
        fake_agents.AgentGuard(quality=lambda output: 0.5, behavior="stop_later")


# --- missing frameworks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "adapter, module, framework, install",
    [
        ("openai_agents", "agents", "the OpenAI Agents SDK", "openai-agents"),
        ("dspy", "dspy", "DSPy", "dspy"),
        ("smolagents", "smolagents", "smolagents", "smolagents"),
        ("inspect_ai", "inspect_ai", "Inspect", "inspect-ai"),
    ],
)
def test_a_missing_framework_is_named(monkeypatch: pytest.MonkeyPatch, adapter: str, module: str, framework: str, install: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    monkeypatch.delitem(sys.modules, f"earlyexit.integrations.{adapter}", raising=False)
    with pytest.raises(ImportError) as error:
        importlib.import_module(f"earlyexit.integrations.{adapter}")
    message = str(error.value)
    assert f"earlyexit.integrations.{adapter} needs {framework}" in message and f"pip install {install}" in message
    assert error.value.name == module


# --- DSPy (fake) ---------------------------------------------------------------------------------


class FakePrediction(dict):  # type: ignore[type-arg]
    """What a DSPy module returns: fields by attribute, ``items()`` and ``dict()``."""

    def __getattr__(self, name: str) -> Any:
        return self[name]


class FakeLM:
    def __init__(self, copies: List[Dict[str, Any]]) -> None:
        self.kwargs: Dict[str, Any] = {}
        self.copies = copies

    def copy(self, **kwargs: Any) -> "FakeLM":
        self.copies.append(kwargs)
        return self


@pytest.fixture
def fake_dspy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Just what Refine touches of DSPy: Module, settings, context, the feedback step."""
    import contextlib

    dspy = types.ModuleType("dspy")
    settings = types.SimpleNamespace(lm=None, adapter=None, trace=[])

    @contextlib.contextmanager
    def context(**values: Any) -> Iterator[None]:
        old = {k: getattr(settings, k) for k in values}
        for k, v in values.items():
            setattr(settings, k, v)
        try:
            yield
        finally:
            for k, v in old.items():
                setattr(settings, k, v)

    class Module:
        def __init__(self) -> None:
            pass

        def __call__(self, **kwargs: Any) -> Any:
            return self.forward(**kwargs)

    advice_calls: List[Dict[str, Any]] = []

    class Predict:
        def __init__(self, signature: Any) -> None:
            pass

        def __call__(self, **kwargs: Any) -> Any:
            advice_calls.append(kwargs)
            return types.SimpleNamespace(advice={"self": "be precise"})

    dspy.Module = Module  # type: ignore[attr-defined]
    dspy.settings = settings  # type: ignore[attr-defined]
    dspy.context = context  # type: ignore[attr-defined]
    dspy.Predict = Predict  # type: ignore[attr-defined]
    dspy.ChatAdapter = lambda: "chat adapter"  # type: ignore[attr-defined]
    dspy.InputField = lambda desc="": desc  # type: ignore[attr-defined]
    refine = types.ModuleType("dspy.predict.refine")
    refine.OfferFeedback = "OfferFeedback"  # type: ignore[attr-defined]
    refine.inspect_modules = lambda program: "modules"  # type: ignore[attr-defined]
    refine.recursive_mask = lambda value: value  # type: ignore[attr-defined]
    orjson = types.ModuleType("orjson")
    orjson.OPT_INDENT_2 = 0  # type: ignore[attr-defined]
    orjson.dumps = lambda value, option=0: json.dumps(value).encode()  # type: ignore[attr-defined]
    for name, module in [("dspy", dspy), ("dspy.predict", types.ModuleType("dspy.predict")), ("dspy.predict.refine", refine), ("orjson", orjson)]:
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "earlyexit.integrations.dspy", raising=False)
    adapter = importlib.import_module("earlyexit.integrations.dspy")
    adapter.advice_calls = advice_calls
    yield adapter
    sys.modules.pop("earlyexit.integrations.dspy", None)


class FakeProgram:
    """A module answering a script; each attempt is a deep copy sharing the script."""

    def __init__(self, answers: List[str], lm: FakeLM) -> None:
        self.answers = answers
        self.lm = lm

    def get_lm(self) -> FakeLM:
        return self.lm

    def deepcopy(self) -> "FakeProgram":
        return self

    def set_lm(self, lm: Any) -> None:
        self.lm = lm

    def named_predictors(self) -> List[Any]:
        return []

    def __call__(self, **kwargs: Any) -> FakePrediction:
        return FakePrediction(answer=self.answers.pop(0))


def test_refine_stops_by_the_decision_with_dspys_rollouts(fake_dspy: Any) -> None:
    loop = bare(SCORES)
    copies: List[Dict[str, Any]] = []
    rewards = {f"v{i + 1}": s for i, s in enumerate(SCORES)}
    refine = fake_dspy.Refine(FakeProgram(list(rewards), FakeLM(copies)), N=12, reward_fn=lambda args, p: rewards[p.answer])
    prediction = refine(question="q")
    assert prediction.answer == loop.output == "v4"
    assert refine.last_decision.trigger == loop.decision.trigger  # type: ignore[union-attr]
    assert copies == [{"rollout_id": i, "temperature": 1.0} for i in range(len(loop.history))]
    assert len(fake_dspy.advice_calls) == len(loop.history) - 1  # feedback between attempts only
    assert json.loads(fake_dspy.advice_calls[0]["reward_value"]) == 0.40


def test_refine_stops_at_the_threshold_as_dspy_does(fake_dspy: Any) -> None:
    rewards = {"a": 0.2, "b": 0.9, "c": 0.95}
    refine = fake_dspy.Refine(FakeProgram(list(rewards), FakeLM([])), N=3, reward_fn=lambda args, p: rewards[p.answer], threshold=0.8)
    assert refine(question="q").answer == "b"
    assert refine.last_decision.trigger == "completed" and len(refine.last_loop.history) == 2


def test_refine_refuses_a_bad_n_or_policy(fake_dspy: Any) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        fake_dspy.Refine(FakeProgram([], FakeLM([])), N=0, reward_fn=lambda args, p: 1.0)
    with pytest.raises(EarlyExitError):
        fake_dspy.Refine(FakeProgram([], FakeLM([])), N=3, reward_fn=lambda args, p: 1.0, preset="no-such-preset")


def test_step_update_answers_the_guards_update_and_refuses_what_step_refuses() -> None:
    """The native one-call step the LangGraph node uses: the decision's fields, the loop's
    output and the records extended into a new list; a bad input changes nothing."""
    loop, fast = Loop(scale=1), Loop(scale=1)
    records: List[Any] = []
    for i, score in enumerate(SCORES):
        decision = loop.step(f"v{i + 1}", score)
        update = fast._native.step_update(f"v{i + 1}", score, records, i + 1)
        assert update == {
            "records": [*records, {"output": f"v{i + 1}", "quality": score}],
            "output": loop.output,
            "stop": decision.stop,
            "trigger": decision.trigger,
            "reason": decision.reason,
            "iteration": i + 1,
        }
        assert update["records"] is not records and len(records) == i  # a new list
        records = update["records"]
        if decision.stop:
            break
    assert fast.run()["iterations"] == loop.run()["iterations"]  # same fingerprints
    before, kept = len(fast.history), list(records)
    for quality, given in [(7.0, records), ("0.5", records), (float("nan"), records), (True, records), (0.5, tuple(records)), (0.5, None)]:
        with pytest.raises((EarlyExitError, TypeError)):
            fast._native.step_update("x", quality, given, 1)
    assert len(fast.history) == before and records == kept
    with pytest.raises(TypeError):
        fast._native.step_update("x", 0.5, records)  # type: ignore[call-arg]
    huge = [{"output": "o", "quality": 0.5}] * 100_000
    assert len(fast._native.step_update("y", 0.5, huge, 2)["records"]) == 100_001 and len(huge) == 100_000


def test_step_fields_answers_as_step_and_refuses_what_step_refuses() -> None:
    """The native one-call step the LangGraph node uses: the decision's fields and the loop's
    output, as `Loop.step` then its getters; a bad input is step's error, nothing recorded."""
    loop, fast = Loop(scale=1), Loop(scale=1)
    for i, score in enumerate(SCORES):
        decision = loop.step(f"v{i + 1}", score)
        answer = fast._native.step_fields(f"v{i + 1}", score, None)
        assert answer == (decision.stop, decision.trigger, decision.reason, loop.output)
        if decision.stop:
            break
    assert fast.run()["iterations"] == loop.run()["iterations"]  # same fingerprints
    assert fast._native.step_fields({"a": [1, 2]}, 0.5, "given")[3] is not None
    assert fast.run()["iterations"][-1]["fingerprint"] == "given"
    before = len(fast.history)
    for quality, fingerprint in [(7.0, None), ("0.5", None), (float("nan"), None), (0.5, 12), (True, None)]:
        with pytest.raises((EarlyExitError, TypeError)):
            fast._native.step_fields("x", quality, fingerprint)
    assert len(fast.history) == before
    with pytest.raises(TypeError):
        fast._native.step_fields("x", 0.5)  # type: ignore[call-arg]


def test_step_usage_answers_as_step_and_refuses_what_step_refuses() -> None:
    """The native one-call step the Agents SDK guard uses: `Loop.step` with `tokens` and
    `error` and the automatic fingerprint (none for an output that is not JSON); a bad input
    is step's error, nothing recorded."""
    loop, fast = Loop(scale=1), Loop(scale=1)
    outputs: List[Any] = ["v1", {"draft": "v2", "n": [1, 2]}, b"v3", object(), "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12"]
    for i, (output, score) in enumerate(zip(outputs, SCORES)):
        tokens, error = (None, None) if i % 3 == 0 else (120.0 * i, f"tool {i}: failed" if i % 2 else None)
        decision = loop.step(output, score, tokens=tokens, error=error)
        answer = fast._native.step_usage(output, score, tokens, error)
        assert (answer.stop, answer.trigger, answer.reason) == (decision.stop, decision.trigger, decision.reason)
        if decision.stop:
            break
    assert fast.run()["iterations"] == loop.run()["iterations"]  # fingerprints, tokens, errors
    assert "fingerprint" not in fast.run()["iterations"][3]  # the object: no fingerprint
    before = len(fast.history)
    for quality, tokens, error in [(7.0, None, None), ("0.5", None, None), (float("nan"), None, None), (0.5, -1.0, None), (0.5, "many", None), (0.5, None, 12)]:
        with pytest.raises((EarlyExitError, TypeError)):
            fast._native.step_usage("x", quality, tokens, error)
    assert len(fast.history) == before
    with pytest.raises(TypeError):
        fast._native.step_usage("x", 0.5, None)  # type: ignore[call-arg]


def test_agent_guard_fingerprints_as_its_loop_does(fake_agents: Any) -> None:
    """A turn's fingerprint is the loop's: the automatic one (one native call), or the
    loop's own `fingerprint_of` when it has one (None: no fingerprint)."""
    guard = fake_agents.AgentGuard(quality=lambda output: 0.5)
    bare_loop = Loop(scale=1)
    for output in ("a", {"k": [1]}, object()):
        guard.record([types.SimpleNamespace(output=output, tool=types.SimpleNamespace(name="t"))])
        bare_loop.step(output, 0.5, tokens=0.0)
    assert guard.loop.run()["iterations"] == bare_loop.run()["iterations"]
    guard.loop = Loop(scale=1, fingerprint_of=lambda output: None if output == "b" else f"fp-{output}")
    guard.record(["a"])  # a result without `.output` is its own output
    guard.record([types.SimpleNamespace(output="b", tool=None)])
    first, second = guard.loop.run()["iterations"]
    assert first["fingerprint"] == "fp-a" and "fingerprint" not in second
