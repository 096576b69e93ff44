"""OpenAI Agents SDK: ``AgentGuard`` stops an agent's tool loop by the engine's decision
(docs/agents.md).

The SDK's run hooks cannot end a run (they return nothing; raising aborts it), so the guard
has two parts: run hooks (``guard.hooks``, passed to ``Runner.run(..., hooks=guard.hooks)``)
that collect each turn's tokens and tool errors, and a ``tool_use_behavior`` function
(``guard.tool_use_behavior``, set on the ``Agent``) that records the turn once its tools have
run and, when the decision says stop, ends the run with
``ToolsToFinalOutputResult(is_final_output=True, final_output=<the best output>)``: the run
returns a normal ``RunResult`` whose ``final_output`` is the best output. Otherwise it answers
what the agent's own behaviour (``behavior=``) answers.

A turn is one model call and the tools it called. Its output is the output of its one tool
call (a list of the outputs when it called several; ``output=`` replaces this), its quality is
``quality(output)`` on ``scale``, its tokens the model call's input plus output tokens, and a
tool whose result is the SDK's default tool-error message records that message (with the
tool's name) as the iteration's ``error``. The output is also the fingerprint's source.

Imports the SDK (``pip install openai-agents``) when imported itself.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, List, Optional, Sequence

from .._loop import Loop
from .._native import StoppingDecision
from . import require

agents = require("agents", "the OpenAI Agents SDK", "openai-agents", "earlyexit.integrations.openai_agents")

__all__ = ["AgentGuard"]


def _default_tool_error() -> Optional[str]:
    """The message the SDK hands the model when a tool raises (its default failure function)."""
    function = getattr(agents, "default_tool_error_function", None)
    if function is None:
        return None
    try:
        message = function(None, Exception(""))
    except Exception:  # a future SDK may read its arguments; then no tool error is recognized
        return None
    return message if isinstance(message, str) else None


#: The SDK's tool-error message, read once (the SDK's function answers the same every time).
_TOOL_ERROR = _default_tool_error()

#: The answer that lets the run go on, one for every guard, as the SDK's own (``NOT_FINAL_OUTPUT``
#: in its turn resolution): the SDK only reads an answer that is not final.
_GO_ON = agents.ToolsToFinalOutputResult(is_final_output=False, final_output=None)


class _Hooks(agents.RunHooks):  # type: ignore[misc, name-defined]
    """The guard's run hooks: the turn's tokens (from the model's usage) and tool errors."""

    def __init__(self, guard: "AgentGuard") -> None:
        # The guard's lists, not the guard: no reference cycle, so a guard is freed when its
        # run drops it rather than by the cycle collector.
        self._tokens = guard._tokens
        self._errors = guard._errors

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        # A list append is atomic: no lock (a lock costs more than the rest of a turn).
        try:  # the SDK's Usage: two ints
            usage = response.usage
            self._tokens.append(usage.input_tokens + usage.output_tokens)
        except (AttributeError, TypeError):  # no usage, or a count missing or None
            usage = getattr(response, "usage", None)
            if usage is not None:
                self._tokens.append((getattr(usage, "input_tokens", 0) or 0) + (getattr(usage, "output_tokens", 0) or 0))

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        if _TOOL_ERROR is not None and result == _TOOL_ERROR:
            self._errors.append(f"{getattr(tool, 'name', 'tool')}: {result}")


class AgentGuard:
    """Stops an agent's tool loop by the decision of a :class:`earlyexit.Loop`.

    ``quality(output)`` scores a turn's output (on ``scale``, 1 by default); ``policy``,
    ``preset`` and ``max_iterations`` are ``Loop``'s; ``behavior`` is the agent's own
    ``tool_use_behavior`` (``"run_llm_again"``, ``"stop_on_first_tool"``, a
    ``StopAtTools`` dict or a function), consulted when the decision goes on; ``output(results)``
    replaces how a turn's output is read from its ``FunctionToolResult`` list. One guard per run.
    """

    def __init__(
        self,
        quality: Callable[[Any], float],
        *,
        policy: Any = None,
        preset: Optional[str] = None,
        scale: float = 1,
        max_iterations: Optional[int] = None,
        behavior: Any = "run_llm_again",
        output: Optional[Callable[[Sequence[Any]], Any]] = None,
    ) -> None:
        if not callable(quality):
            raise TypeError("AgentGuard(quality=...) takes a callable of a turn's output")
        if not (behavior in ("run_llm_again", "stop_on_first_tool") or isinstance(behavior, dict) or callable(behavior)):
            raise TypeError(
                "AgentGuard(behavior=...) is the agent's tool_use_behavior: 'run_llm_again', "
                f"'stop_on_first_tool', a StopAtTools dict or a function, not {behavior!r}"
            )
        self.loop = Loop(preset, policy=policy, scale=scale, max_iterations=max_iterations)
        self._quality = quality
        self._output = output
        self._behavior = behavior
        self._run_llm_again = isinstance(behavior, str) and behavior == "run_llm_again"
        # Filled by the hooks, emptied by `record`, lock-free: list appends and pops are atomic,
        # so a hook running while a turn is recorded counts toward this turn or the next one.
        self._tokens: List[float] = []
        self._errors: List[str] = []
        self.hooks = _Hooks(self)

    @property
    def decision(self) -> Optional[StoppingDecision]:
        """The last decision (``.stop``, ``.trigger``, ``.reason``); ``None`` before a turn."""
        return self.loop.decision

    @property
    def output(self) -> Any:
        """What the guard hands back on a stop (the best output for ``recommended``)."""
        return self.loop.output

    def record(self, results: Sequence[Any]) -> StoppingDecision:
        """Records one turn from its tool results and returns the decision."""
        if self._output is not None:
            output = self._output(results)
        elif len(results) == 1:
            output = results[0]
            try:  # getattr(result, "output", result), without the call
                output = output.output
            except AttributeError:
                pass
        else:
            output = [getattr(result, "output", result) for result in results]
        # The lists stay the same objects (the hooks hold them); each pop is atomic, so an
        # entry appended meanwhile is left for the next turn, never lost.
        tokens = 0.0
        counted = self._tokens
        while counted:
            tokens += counted.pop()
        error = None
        errors = self._errors
        if errors:
            taken = []
            while errors:
                taken.append(errors.pop(0))
            error = "; ".join(taken)
        loop = self.loop
        fingerprint_of = loop._fingerprint_of
        if fingerprint_of is None:
            # One native call: the automatic fingerprint and the step with the turn's fields.
            decision: StoppingDecision = loop._native.step_usage(output, self._quality(output), tokens, error)
            return decision
        # Loop.step's arguments in its native order (output, quality, confidence, verified,
        # done, good, tokens, cost_usd, time_ms, error, files, fingerprint): no keywords to bind.
        decision = loop._native.step(output, self._quality(output), None, None, False, None, tokens, None, None, error, None, fingerprint_of(output))
        return decision

    async def tool_use_behavior(self, context: Any, results: List[Any]) -> Any:
        """The agent's ``tool_use_behavior``: records the turn, ends the run with the best output
        when the decision stops, else answers as ``behavior`` does."""
        if not results:
            return _GO_ON
        if self.record(results).stop:
            return agents.ToolsToFinalOutputResult(is_final_output=True, final_output=self.loop.output)
        if self._run_llm_again:
            return _GO_ON
        behavior = self._behavior
        if behavior == "stop_on_first_tool":
            return agents.ToolsToFinalOutputResult(is_final_output=True, final_output=results[0].output)
        if isinstance(behavior, dict):
            names = behavior.get("stop_at_tool_names", [])
            for result in results:
                tool = result.tool
                if tool.name in names or getattr(tool, "qualified_name", None) in names:
                    return agents.ToolsToFinalOutputResult(is_final_output=True, final_output=result.output)
            return _GO_ON
        answer = behavior(context, results)
        return await answer if inspect.isawaitable(answer) else answer
