"""LangGraph: ``StopGuard``, a graph node that records each iteration of a refine graph and the
conditional edge that stops it (docs/agents.md).

The node keeps everything it needs in the graph state under one key (``"earlyexit"`` unless
``key=`` says otherwise): ``{"loop": <the loop's snapshot JSON text>, "output": <what to hand
back>, "stop": bool, "trigger": str, "reason": str, "iteration": int}``. Those are strings,
numbers and the output itself, so any checkpointer stores them (the output must be a value the
checkpointer can serialize, and a JSON value, as ``Loop.to_json`` keeps it), and a graph
resumed from a checkpoint decides exactly as one that ran through. The guard holds no run's
state itself: one guard serves any number of graphs, threads and checkpoints.

Nothing here imports LangGraph: the node is a function of the state and the edge returns the
name of the next node, which is all a ``StateGraph`` asks for.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .._loop import Loop
from .._native import StoppingDecision

__all__ = ["StopGuard"]

#: Loops kept between two calls of the node, by the snapshot text they were saved as (keyed
#: by the text object's id, the entry holding the text so the id stays its own); a node call
#: whose state holds that very text skips parsing it, without hashing 3 KB of text twice per
#: iteration. A text that reads the same but is another object (a state read back from a
#: checkpoint) is parsed. Bounded: cleared past this size.
_CACHE_LIMIT = 64


def decision_iteration(loop: Loop) -> int:
    """The number of the iteration just recorded (cheaper than counting the history)."""
    last = loop._native.last
    return 0 if last is None else last[0]


class StopGuard:
    """Stops a LangGraph refine loop by the engine's decision.

    ``quality(state)`` scores the iteration the graph just produced (on ``scale``),
    ``output(state)`` returns that iteration's output (what the guard may hand back: the best
    for the ``recommended`` policy), ``fingerprint(state)`` optionally replaces the output's
    automatic fingerprint and ``details(state)`` optionally returns more of ``Loop.step``'s
    keywords (``tokens``, ``cost_usd``, ``done``, ``error``, ...). ``policy``, ``preset``,
    ``scale`` and ``max_iterations`` are ``Loop``'s.

    Add the node after the one that drafts and route from it::

        guard = StopGuard(quality=lambda s: s["score"], output=lambda s: s["draft"], scale=1)
        graph.add_node("guard", guard.node)
        graph.add_edge("draft", "guard")
        graph.add_conditional_edges("guard", guard.route("draft", END))

    The state schema needs the guard's key (``earlyexit: dict`` in a ``TypedDict`` state).
    """

    __slots__ = ("_quality", "_output", "_fingerprint", "_details", "_loop_options", "key", "_cache", "_lock")

    def __init__(
        self,
        quality: Callable[[Any], float],
        output: Callable[[Any], Any],
        *,
        policy: Any = None,
        preset: Optional[str] = None,
        scale: float = 1,
        max_iterations: Optional[int] = None,
        fingerprint: Optional[Callable[[Any], Optional[str]]] = None,
        details: Optional[Callable[[Any], Mapping[str, Any]]] = None,
        key: str = "earlyexit",
    ) -> None:
        if not callable(quality) or not callable(output):
            raise TypeError("StopGuard(quality=..., output=...) takes two callables of the graph state")
        self._quality = quality
        self._output = output
        self._fingerprint = fingerprint
        self._details = details
        self._loop_options: Dict[str, Any] = {"policy": policy, "preset": preset, "scale": scale, "max_iterations": max_iterations}
        # Built once here, so a bad policy or scale is an error at construction, not at the
        # first iteration of a graph.
        Loop(**self._loop_options)
        self.key = key
        self._cache: Dict[int, Tuple[str, Loop]] = {}
        self._lock = threading.Lock()

    def _loop_of(self, state: Any) -> Loop:
        kept = state.get(self.key) if isinstance(state, Mapping) else getattr(state, self.key, None)
        if not kept:
            return Loop(**self._loop_options)
        text = kept["loop"]
        with self._lock:
            entry = self._cache.pop(id(text), None)
        return entry[1] if entry is not None and entry[0] is text else Loop.from_json(text)

    def record(self, state: Any) -> StoppingDecision:
        """Records the iteration ``state`` holds and returns the decision, without the state
        update (what :attr:`node` does, for graphs that decide elsewhere)."""
        return self._step(state)[1]

    def _step(self, state: Any) -> "tuple[Dict[str, Any], StoppingDecision]":
        loop = self._loop_of(state)
        extra = dict(self._details(state)) if self._details is not None else {}
        fingerprint = self._fingerprint(state) if self._fingerprint is not None else extra.pop("fingerprint", None)
        decision = loop.step(self._output(state), self._quality(state), fingerprint=fingerprint, **extra)
        text = loop.to_json()
        with self._lock:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[id(text)] = (text, loop)
        update = {
            "loop": text,
            "output": loop.output,
            "stop": decision.stop,
            "trigger": decision.trigger,
            "reason": decision.reason,
            "iteration": decision_iteration(loop),
        }
        return update, decision

    def node(self, state: Any) -> Dict[str, Any]:
        """The graph node: records the iteration and returns the state update
        ``{key: {"loop", "output", "stop", "trigger", "reason", "iteration"}}``."""
        return {self.key: self._step(state)[0]}

    def route(self, continue_to: str, stop_to: str) -> Callable[[Any], str]:
        """The conditional edge after :attr:`node`: ``stop_to`` (``END``, or a node that
        returns ``state[key]["output"]``) when the decision stops, else ``continue_to``."""
        key = self.key

        def route(state: Any) -> str:
            kept = state.get(key) if isinstance(state, Mapping) else getattr(state, key, None)
            if not kept:
                raise KeyError(f"StopGuard.route reads state[{key!r}], which the guard's node writes: route from the guard's node")
            return stop_to if kept["stop"] else continue_to

        return route

    def loop(self, state: Any) -> Optional[Loop]:
        """The loop a state holds (its history, best, run for calibration), or ``None``."""
        kept = state.get(self.key) if isinstance(state, Mapping) else getattr(state, self.key, None)
        return Loop.from_json(kept["loop"]) if kept else None
