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
import threading
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


class _Hooks(agents.RunHooks):  # type: ignore[misc, name-defined]
    """The guard's run hooks: the turn's tokens (from the model's usage) and tool errors."""

    def __init__(self, guard: "AgentGuard") -> None:
        self._guard = guard

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        usage = getattr(response, "usage", None)
        if usage is not None:
            self._guard._add_tokens((getattr(usage, "input_tokens", 0) or 0) + (getattr(usage, "output_tokens", 0) or 0))

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        if self._guard._tool_error is not None and result == self._guard._tool_error:
            self._guard._add_error(f"{getattr(tool, 'name', 'tool')}: {result}")


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
        self._tool_error = _default_tool_error()
        self._lock = threading.Lock()
        self._tokens = 0.0
        self._errors: List[str] = []
        self.hooks = _Hooks(self)
        # The answer that lets the run go on, made once: the SDK only reads an answer that is
        # not final (it rewrites `final_output` of a final one, which is made per stop).
        self._go_on = agents.ToolsToFinalOutputResult(is_final_output=False, final_output=None)

    def _add_tokens(self, tokens: float) -> None:
        with self._lock:
            self._tokens += tokens

    def _add_error(self, message: str) -> None:
        with self._lock:
            self._errors.append(message)

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
        else:
            outputs = [getattr(result, "output", result) for result in results]
            output = outputs[0] if len(outputs) == 1 else outputs
        with self._lock:
            tokens, self._tokens = self._tokens, 0.0
            errors, self._errors = self._errors, []
        return self.loop.step(output, self._quality(output), tokens=tokens, error="; ".join(errors) if errors else None)

    async def tool_use_behavior(self, context: Any, results: List[Any]) -> Any:
        """The agent's ``tool_use_behavior``: records the turn, ends the run with the best output
        when the decision stops, else answers as ``behavior`` does."""
        if not results:
            return self._go_on
        if self.record(results).stop:
            return agents.ToolsToFinalOutputResult(is_final_output=True, final_output=self.loop.output)
        behavior = self._behavior
        if behavior == "run_llm_again":
            return self._go_on
        if behavior == "stop_on_first_tool":
            return agents.ToolsToFinalOutputResult(is_final_output=True, final_output=results[0].output)
        if isinstance(behavior, dict):
            names = behavior.get("stop_at_tool_names", [])
            for result in results:
                tool = result.tool
                if tool.name in names or getattr(tool, "qualified_name", None) in names:
                    return agents.ToolsToFinalOutputResult(is_final_output=True, final_output=result.output)
            return self._go_on
        answer = behavior(context, results)
        return await answer if inspect.isawaitable(answer) else answer
