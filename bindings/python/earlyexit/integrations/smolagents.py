"""smolagents: ``StepGuard``, a step callback that stops an agent by the engine's decision
(docs/agents.md).

smolagents calls each ``step_callbacks`` entry after every action step, and its only way to
end a run early is ``agent.interrupt()``: the run then raises ``AgentError("Agent
interrupted.")`` before its next step. So the guard records each action step and, when the
decision says stop, interrupts the agent; ``guard.run(agent, task, ...)`` runs the agent and,
when the guard interrupted it, returns the guard's output (the best under the default
``recommended`` policy) instead of the error. A step's output is its ``action_output`` (its
``observations`` when it has none; ``output=`` reads it otherwise), scored by
``quality(step)``; its tokens, duration and error come from the step.

Imports smolagents (``pip install smolagents``) when imported itself.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from .._loop import Loop
from .._native import StoppingDecision, output_fingerprint
from . import require

require("smolagents", "smolagents", "smolagents", "earlyexit.integrations.smolagents")
_memory = require("smolagents.memory", "smolagents", "smolagents", "earlyexit.integrations.smolagents")
_utils = require("smolagents.utils", "smolagents", "smolagents", "earlyexit.integrations.smolagents")

__all__ = ["StepGuard"]

_ActionStep = _memory.ActionStep


class StepGuard:
    """``agent = CodeAgent(..., step_callbacks=[guard])``; then ``guard.run(agent, task)``.

    ``quality(step)`` scores an action step (on ``scale``, 1 by default); ``policy``, ``preset``
    and ``max_iterations`` are ``Loop``'s. One guard per run.
    """

    def __init__(
        self,
        quality: Callable[[Any], float],
        *,
        policy: Any = None,
        preset: Optional[str] = None,
        scale: float = 1,
        max_iterations: Optional[int] = None,
        output: Optional[Callable[[Any], Any]] = None,
    ) -> None:
        if not callable(quality):
            raise TypeError("StepGuard(quality=...) takes a callable of an action step")
        self.loop = Loop(preset, policy=policy, scale=scale, max_iterations=max_iterations)
        self._quality = quality
        self._output = output
        self.interrupted = False

    @property
    def decision(self) -> Optional[StoppingDecision]:
        """The last decision; ``None`` before a step."""
        return self.loop.decision

    @property
    def output(self) -> Any:
        """What the guard hands back on a stop (the best output for ``recommended``)."""
        return self.loop.output

    def record(self, step: Any) -> StoppingDecision:
        """Records one action step and returns the decision."""
        if self._output is not None:
            output = self._output(step)
        else:
            output = step.action_output
            if output is None:
                output = step.observations
        quality = self._quality(step)
        usage = getattr(step, "token_usage", None)
        timing = getattr(step, "timing", None)
        duration = None if timing is None else getattr(timing, "duration", None)
        error = getattr(step, "error", None)
        loop = self.loop
        fingerprint_of = loop._fingerprint_of
        # Loop.step's arguments in its native order (output, quality, confidence, verified,
        # done, good, tokens, cost_usd, time_ms, error, files, fingerprint): no keywords to bind.
        decision: StoppingDecision = loop._native.step(
            output,
            quality,
            None,
            None,
            False,
            None,
            None if usage is None else usage.total_tokens,
            None,
            None if duration is None else duration * 1000,
            None if error is None else str(error),
            None,
            output_fingerprint(output) if fingerprint_of is None else fingerprint_of(output),
        )
        return decision

    def __call__(self, step: Any, agent: Any = None) -> None:
        """The step callback: records the step and interrupts ``agent`` on a stop."""
        if not isinstance(step, _ActionStep):
            return
        if self.record(step).stop and agent is not None and not self.interrupted:
            self.interrupted = True
            agent.interrupt()

    def run(self, agent: Any, task: str, **kwargs: Any) -> Any:
        """``agent.run(task, **kwargs)``; the guard's output when the guard stopped it."""
        self.interrupted = False
        try:
            return agent.run(task, **kwargs)
        except _utils.AgentError:
            if self.interrupted:
                return self.loop.output
            raise
