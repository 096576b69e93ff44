"""LangGraph: ``StopGuard``, a graph node that records each iteration of a refine graph and the
conditional edge that stops it (docs/agents.md).

The node keeps everything it needs in the graph state under one key (``"earlyexit"`` unless
``key=`` says otherwise): ``{"records": [one dict of Loop.step's arguments per iteration],
"output": <what to hand back>, "stop": bool, "trigger": str, "reason": str, "iteration":
int}``. A record is ``{"output", "quality"}`` plus what ``details(state)`` gave and the
``fingerprint`` when one was given (the automatic one is the output's again on a replay), so
any checkpointer that stores the outputs stores the records, and a graph resumed from a
checkpoint (another process, another guard) rebuilds the loop by stepping a new one through
the records: it decides exactly as one that ran through. Within a run the guard keeps the loop
it stepped last (by the records list it returned, which the next state holds; not once the
decision stops, as the graph then ends), so a step costs one ``Loop.step`` and appending a
record, not a snapshot of the loop. A records list edited in place (its length or its last
record changed) is replayed too; a record's dict edited in place is not seen.

A state written by an earlier version holds ``{"loop": <the loop's snapshot JSON text>, ...}``
instead of ``"records"``: the guard still reads it (a run resumed from such a checkpoint goes
on from that snapshot, which the state then keeps as ``"base"``), and :meth:`StopGuard.loop`
reads both forms.

Nothing here imports LangGraph: the node is a function of the state and the edge returns the
name of the next node, which is all a ``StateGraph`` asks for.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, cast

from .._loop import Loop
from .._native import StoppingDecision

__all__ = ["StopGuard"]

#: Loops kept between two calls of the node: the entry ``(records, loop, count, last)`` of the run stepped
#: last in a one-entry list (``list.pop`` takes it atomically: no dict work for one graph at a
#: time), the entries of other runs under way in a dict by the id of their records list (the
#: entry holds the list, so the id stays its own). A call whose state holds that very list
#: takes the loop out (a second call on the same state, a fork or a retry, rebuilds its own);
#: a list that reads the same but is another object (a state read back from a checkpoint) is
#: replayed, and so is that very list edited in place since (another count of records or
#: another last record: a node that popped or replaced one). The dict is bounded: cleared past
#: this size.
_CACHE_LIMIT = 64

#: A kept loop: the records list it stepped, the loop, and that list's length and last record
#: when kept (what tells an edit in place).
_Entry = Tuple[List[Any], Loop, int, Any]


def _unedited(entry: _Entry, records: Any) -> bool:
    """Whether ``entry`` was kept for ``records`` as it still is: that very list, with the
    length and last record it had."""
    return entry[0] is records and len(records) == entry[2] and records[-1] is entry[3]


#: The keys of a record that are not ``Loop.step`` keywords.
_OWN = ("output", "quality")


def decision_iteration(loop: Loop) -> int:
    """The number of the iteration just recorded (cheaper than counting the history)."""
    last = loop._native.last
    return 0 if last is None else last[0]


def _replay(loop: Loop, records: List[Mapping[str, Any]]) -> Loop:
    """Steps ``loop`` through ``records`` (each ``Loop.step``'s arguments); the scale notice
    was given when the iteration ran, so not again."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for record in records:
            extra = {k: v for k, v in record.items() if k not in _OWN}
            loop.step(record["output"], record["quality"], **extra)
    return loop


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

    __slots__ = ("_quality", "_output", "_fingerprint", "_details", "_loop_options", "key", "_cache", "_last", "_stopped", "_plain")

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
        self._plain = details is None and fingerprint is None
        self._loop_options: Dict[str, Any] = {"policy": policy, "preset": preset, "scale": scale, "max_iterations": max_iterations}
        # Built once here, so a bad policy or scale is an error at construction, not at the
        # first iteration of a graph.
        Loop(**self._loop_options)
        self.key = key
        # list and dict operations are atomic: threads running graphs through one guard need
        # no lock (each takes out only the entry of the records its own state holds).
        self._last: List[_Entry] = []
        self._cache: Dict[int, _Entry] = {}
        self._stopped: Optional[_Entry] = None

    def _forget(self) -> None:
        """Drops every kept loop (the next call of each run replays its records)."""
        self._last.clear()
        self._cache.clear()

    def _park(self) -> None:
        """Moves what the one-entry list holds (other runs' entries) into the dict."""
        last, cache = self._last, self._cache
        while last:
            try:
                entry = last.pop()
            except IndexError:  # another thread took it
                return
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[id(entry[0])] = entry

    def _take(self, records: Any) -> Optional[Loop]:
        """The loop kept for ``records`` (that very list), taken out; ``None`` when none is."""
        try:
            entry = self._last.pop()
        except IndexError:
            entry = None
        return self._take_other(records, entry)

    def _take_other(self, records: Any, entry: Optional[_Entry]) -> Optional[Loop]:
        """`_take` once the one-entry list gave ``entry`` (``None``: it was empty)."""
        if entry is not None:
            if entry[0] is records:
                # The run's own list: its loop, unless the list was edited in place since.
                return entry[1] if _unedited(entry, records) else None
            cache = self._cache  # another run's: parked
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[id(entry[0])] = entry
        if self._cache:
            entry = self._cache.pop(id(records), None)
            if entry is not None and _unedited(entry, records):
                return entry[1]
        return None

    def _kept(self, state: Any) -> Any:
        return state.get(self.key) if isinstance(state, Mapping) else getattr(state, self.key, None)

    def _rebuild(self, kept: Any) -> Loop:
        """The loop a state's guard entry describes, without the cache."""
        if not kept:
            return Loop(**self._loop_options)
        records = kept.get("records")
        if records is None:  # the snapshot form of earlier versions
            return Loop.from_json(kept["loop"])
        base = kept.get("base")
        return _replay(Loop(**self._loop_options) if base is None else Loop.from_json(base), records)

    def record(self, state: Any) -> StoppingDecision:
        """Records the iteration ``state`` holds and returns the decision, without the state
        update (what :attr:`node` does, for graphs that decide elsewhere)."""
        update = self.node(state)[self.key]
        records = update["records"]
        if update["stop"]:
            entry, self._stopped = self._stopped, None
            # Another thread's stop may have taken the slot: then the records rebuild the loop.
            loop = entry[1] if entry is not None and entry[0] is records else self._rebuild(update)
        else:  # no state will carry these records: the entry goes
            loop = self._take(records) or self._rebuild(update)
        return cast(StoppingDecision, loop.decision)

    def node(self, state: Any) -> Dict[str, Any]:
        """The graph node: records the iteration and returns the state update
        ``{key: {"records", "output", "stop", "trigger", "reason", "iteration"}}``."""
        key = self.key
        kept = state.get(key) if type(state) is dict else self._kept(state)
        base = None
        if kept:
            records = kept.get("records")
            if records is None:  # the snapshot form of earlier versions: it becomes the base
                base = kept.get("loop")
                loop = self._rebuild(kept)
                records = []
            else:
                base = kept.get("base")
                try:  # the run stepped last: its entry, taken atomically
                    entry = self._last.pop()
                except IndexError:
                    entry = None
                if entry is not None and _unedited(entry, records):
                    loop = entry[1]
                else:  # another run's entry (parked), or none: the dict, else the records
                    taken = self._take_other(records, entry)
                    if taken is None:
                        loop = self._rebuild(kept)
                        records = list(records)  # as read back from a checkpoint: a list to extend
                    else:
                        loop = taken
            iteration = kept["iteration"] + 1
        else:
            loop = Loop(**self._loop_options)
            records = []
            iteration = 1
        if self._plain:
            # One native call: the step (with the output's automatic fingerprint), the record
            # appended to a new list and the update with the decision's fields.
            update = loop._native.step_update(self._output(state), self._quality(state), records, iteration)
            records = update["records"]
        else:
            output = self._output(state)
            quality = self._quality(state)
            extra = dict(self._details(state)) if self._details is not None else {}
            fingerprint = self._fingerprint(state) if self._fingerprint is not None else extra.pop("fingerprint", None)
            decision = loop.step(output, quality, fingerprint=fingerprint, **extra)
            record = {"output": output, "quality": quality, **extra}
            if fingerprint is not None:
                record["fingerprint"] = fingerprint
            records = [*records, record]
            update = {
                "records": records,
                "output": loop.output,
                "stop": decision.stop,
                "trigger": decision.trigger,
                "reason": decision.reason,
                "iteration": iteration,
            }
        if update["stop"]:
            # A stopped run's graph ends: its loop is not cached (a later call on that state
            # replays), only kept in one slot for `record`; the cache holds runs under way.
            self._stopped = (records, loop, len(records), records[-1])
        else:
            last = self._last
            if last:  # another run's entry (or a run that ended without a stop): parked
                self._park()
            last.append((records, loop, len(records), records[-1]))
        if base is not None:
            update["base"] = base
        return {key: update}

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
        """The loop a state holds (its history, best, run for calibration), or ``None``; reads
        the records form and the snapshot form (``"loop"``) of earlier versions. A loop rebuilt
        from records has the rebuild's timestamps in its history."""
        kept = self._kept(state)
        return self._rebuild(kept) if kept else None
