"""Inspect (inspect_ai): ``refine``, a solver that runs a generate-and-revise loop and stops it by
the engine's decision (docs/agents.md).

Each iteration calls ``generate``, scores the new output with ``quality(state)`` (a function or
a coroutine function; on ``scale``, 1 by default) and records it with the output's usage
tokens and its completion as the fingerprint's source; when the decision goes on, the
``feedback`` message (a string, or a function of the state returning one) is appended as the
user's turn and the model generates again. When it stops, ``state.output`` is the loop's
output (the best under the default ``recommended`` policy, not the last), and
``state.metadata["earlyexit"]`` holds the decision (``trigger``, ``reason``, ``iterations``,
``best_iteration``) for the log and the scorers.

Imports inspect_ai (``pip install inspect-ai``) when imported itself.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Union

from .._loop import Loop
from .._native import output_fingerprint
from . import require

require("inspect_ai", "Inspect", "inspect-ai", "earlyexit.integrations.inspect_ai")
_solver = require("inspect_ai.solver", "Inspect", "inspect-ai", "earlyexit.integrations.inspect_ai")
_model = require("inspect_ai.model", "Inspect", "inspect-ai", "earlyexit.integrations.inspect_ai")

__all__ = ["refine"]

DEFAULT_FEEDBACK = "Improve your previous answer."


def _completion_fingerprint(output: Any) -> Optional[str]:
    return output_fingerprint(getattr(output, "completion", None))


@_solver.solver(name="earlyexit_refine")  # type: ignore[misc, untyped-decorator, unused-ignore]
def refine(
    quality: Callable[[Any], Any],
    *,
    feedback: Union[str, Callable[[Any], str]] = DEFAULT_FEEDBACK,
    policy: Any = None,
    preset: Optional[str] = None,
    scale: float = 1,
    max_iterations: int = 10,
) -> Any:
    """A solver: generate, score, revise until the decision stops (at most ``max_iterations``)."""
    if not callable(quality):
        raise TypeError("refine(quality=...) takes a function of the task state")
    Loop(preset, policy=policy, scale=scale, max_iterations=max_iterations)  # a bad policy fails here

    async def solve(state: Any, generate: Any) -> Any:
        loop = Loop(preset, policy=policy, scale=scale, max_iterations=max_iterations, fingerprint_of=_completion_fingerprint)
        while True:
            state = await generate(state)
            score = quality(state)
            if inspect.isawaitable(score):
                score = await score
            usage = getattr(state.output, "usage", None)
            decision = loop.step(state.output, score, tokens=None if usage is None else usage.total_tokens)
            if decision.stop:
                break
            message = feedback(state) if callable(feedback) else feedback
            state.messages.append(_model.ChatMessageUser(content=message))
        best = loop.best
        state.output = loop.output
        state.metadata["earlyexit"] = {
            "trigger": decision.trigger,
            "reason": decision.reason,
            "iterations": loop.last.iteration if loop.last is not None else 0,
            "best_iteration": None if best is None else best.iteration,
        }
        return state

    return solve
