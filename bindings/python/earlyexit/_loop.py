"""``Loop``: the refine loop an agent is written with (docs/loop-helper.md).

A thin layer over the core's loop (``_native._Loop``): it counts iterations, maps scores on
``scale`` to the engine's 0..100, computes ``quality_delta``, stops on ``done=True`` before
its policy, and keeps only the best, the last and the completed output. This module adds
what is Python's own: the automatic fingerprint's hook (``fingerprint_of``), a random run id
and pickling; the native step gives the scale warning (a ``UserWarning``).
"""

from __future__ import annotations

import uuid
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

from . import _native
from ._errors import EarlyExitTypeError
from ._native import IterationRecord, StoppingDecision
from ._store import DEFAULT_LOOP_RECEIPT_LOG, Store

__all__ = ["FinishedRun", "Loop", "LoopOutput"]


class LoopOutput(NamedTuple):
    """An output the loop kept: its iteration, the output, its quality on the loop's scale."""

    iteration: int
    output: Any
    quality: float


class FinishedRun(Dict[str, Any]):
    """What :meth:`Loop.finish` returns: the run in the replay and calibration JSONL form (this
    dict, also as ``.run``) and, in shadow mode, the run's receipt (``.receipt``: where the
    candidate would have stopped and its label; ``None`` without a shadow)."""

    run: Dict[str, Any]
    receipt: Optional[Dict[str, Any]]

    def __init__(self, run: Dict[str, Any], receipt: Optional[Dict[str, Any]]) -> None:
        super().__init__(run)
        self.run = run
        self.receipt = receipt


def _kept(raw: Optional[Tuple[int, Any, float]]) -> Optional[LoopOutput]:
    return None if raw is None else LoopOutput(*raw)


class Loop:
    """Records each iteration's output and score and decides when to stop.

    ``Loop(preset="recommended", scale=1, max_iterations=20, task="t-17")``; ``policy=``
    takes any policy the engines take (a preset name, a condition tree, a policy dict),
    ``artifact=`` a loop calibration artifact: its calibrated policy when it is promoted and
    current, else its most conservative policy with the calibrated one in shadow
    (:attr:`shadow_reason`; ``shadow=`` is then refused). ``fingerprint_of(output)`` replaces the
    automatic fingerprint (SHA-256 of a ``str``, ``bytes`` or JSON value; none otherwise).
    ``shadow=`` runs a candidate (a preset name, a policy, a ``LoopCalibration`` or a loop
    artifact) beside the policy without letting it stop the loop: each decision carries its
    ``would_stop`` and :meth:`finish` returns the run's receipt. The enforced policy must
    then hold a hard cap (``max_iterations=`` or a budget).

    ``store=`` (a :class:`Store` or a store URL, opened at once; a pickled loop reopens it
    by URL) records the run when
    :meth:`finish` is called: the run under the loop's run id with its ``run_label``, and in
    shadow mode its receipt in the receipt log ``receipt_log`` (default ``"loops"``). Both are
    idempotent: a second ``finish()`` writes nothing new. A store error on ``finish()`` is
    raised as the store's typed error after the loop is finished; what was written stays,
    and ``finish()`` called again records what is missing.
    """

    __slots__ = ("_native", "_fingerprint_of", "_run_id", "_store", "_receipt_log")

    def __init__(
        self,
        preset: Optional[str] = None,
        *,
        scale: float = 100,
        max_iterations: Optional[int] = None,
        task: Optional[str] = None,
        dataset: Optional[str] = None,
        run_label: Optional[str] = None,
        policy: Any = None,
        artifact: Any = None,
        fingerprint_of: Optional[Callable[[Any], Optional[str]]] = None,
        shadow: Any = None,
        store: Union["Store", str, None] = None,
        receipt_log: Optional[str] = None,
    ) -> None:
        options: Dict[str, object] = {"scale": scale, "max_iterations": max_iterations, "task": task, "dataset": dataset, "run_label": run_label}
        if artifact is not None:
            self._native = _native._Loop.from_artifact(artifact, options, shadow)
        else:
            self._native = _native._Loop(policy if policy is not None else preset, options, shadow)
        self._fingerprint_of = fingerprint_of
        self._run_id: Optional[str] = None
        self._store: Optional[Store] = None
        self._receipt_log = DEFAULT_LOOP_RECEIPT_LOG
        if receipt_log is not None:
            if store is None:
                raise EarlyExitTypeError("receipt_log is given without store= (where would it go?)", "invalid_config", "receipt_log")
            _native._check_store_name("receipt_log", receipt_log)
            self._receipt_log = receipt_log
        if store is not None:
            self._store = store if isinstance(store, Store) else Store.open(store)

    def step(
        self,
        output: Any,
        quality: float,
        *,
        confidence: Optional[float] = None,
        verified: Union[bool, str, None] = None,
        done: bool = False,
        good: Optional[bool] = None,
        tokens: Optional[float] = None,
        cost_usd: Optional[float] = None,
        time_ms: Optional[float] = None,
        error: Optional[str] = None,
        files: Optional[List[str]] = None,
        fingerprint: Optional[str] = None,
    ) -> StoppingDecision:
        """Records one iteration (numbered for you) and returns the engine's decision."""
        if fingerprint is None:
            fingerprint = self._fingerprint_of(output) if self._fingerprint_of is not None else _native.output_fingerprint(output)
        # The native step warns (UserWarning, attributed to this method's caller) with the
        # scale notice when the loop gives it.
        return self._native.step(output, quality, confidence, verified, done, good, tokens, cost_usd, time_ms, error, files, fingerprint)

    @property
    def best(self) -> Optional[LoopOutput]:
        """The best output so far (the engine's ``best_iteration``), quality on the loop's scale."""
        return _kept(self._native.best)

    @property
    def last(self) -> Optional[LoopOutput]:
        """The last output."""
        return _kept(self._native.last)

    @property
    def output(self) -> Any:
        """What to hand back: the completed output on a ``completed`` stop, else the policy's
        ``returns`` (the best for ``recommended``); ``None`` before the first step."""
        kept = self._native.output
        return None if kept is None else kept[1]

    @property
    def decision(self) -> Optional[StoppingDecision]:
        """The last decision (``None`` before the first step)."""
        return self._native.decision

    @property
    def history(self) -> Tuple[IterationRecord, ...]:
        """The recorded iterations."""
        return self._native.history

    def _id(self) -> str:
        if self._run_id is None:
            self._run_id = str(uuid.uuid4())
        return self._run_id

    def run(self) -> Dict[str, Any]:
        """The run in the replay and calibration JSONL form: ``{"id", "dataset", "iterations"}``
        (``id`` is ``task``, else a random UUID, the same for this loop)."""
        run: Dict[str, Any] = self._native.run(self._id())
        return run

    def finish(self, good: Optional[bool] = None) -> FinishedRun:
        """Closes the run; ``good`` (when given) is set on the iteration ``output`` came from.
        Returns the run (a dict, also ``.run``) and, in shadow mode, its receipt (``.receipt``)."""
        run: Dict[str, Any] = self._native.finish(good, self._id())
        receipt: Optional[Dict[str, Any]] = self._native.receipt(self._id())
        if self._store is not None:
            self._store.add_run(run, run_label=self._native.run_label, run_id=self._id())
            if receipt is not None:
                self._store.append_receipts(self._receipt_log, [receipt])
        return FinishedRun(run, receipt)

    @property
    def store(self) -> Optional[Store]:
        """The store :meth:`finish` records into (``None`` without ``store=``)."""
        return self._store

    @property
    def shadow_reason(self) -> Optional[str]:
        """Why the shadow candidate runs in shadow rather than enforced, when the loop put it
        there itself: an ``artifact=`` not promoted (or demoted by a drift check) or expired
        enforces its calibration's most conservative policy and runs the calibrated one in
        shadow. ``None`` otherwise."""
        reason: Optional[str] = self._native.shadow_reason
        return reason

    def receipt(self) -> Optional[Dict[str, Any]]:
        """The run's shadow receipt so far (``None`` without a shadow)."""
        receipt: Optional[Dict[str, Any]] = self._native.receipt(self._id())
        return receipt

    def to_json(self, outputs: bool = True) -> str:
        """The engine's snapshot plus the kept outputs (JSON values; else ``invalid_snapshot``
        naming ``best.output``, unless ``outputs=False``)."""
        text: str = self._native.to_json(outputs)
        return text

    @classmethod
    def from_json(cls, text: str, *, fingerprint_of: Optional[Callable[[Any], Optional[str]]] = None) -> "Loop":
        """A loop from :meth:`to_json`'s text."""
        return cls._restore(text, None, fingerprint_of, None)

    @classmethod
    def _restore(
        cls,
        text: str,
        outputs: Optional[Dict[str, Any]],
        fingerprint_of: Optional[Callable[[Any], Optional[str]]],
        run_id: Optional[str],
    ) -> "Loop":
        loop = cls.__new__(cls)
        loop._native = _native._Loop.from_json(text, outputs)
        loop._fingerprint_of = fingerprint_of
        loop._run_id = run_id
        loop._store = None
        loop._receipt_log = DEFAULT_LOOP_RECEIPT_LOG
        return loop

    def __reduce__(self) -> Tuple[Any, ...]:
        outputs: Dict[str, Any] = {}
        for key in ("best", "last", "completed"):
            kept = getattr(self._native, key)
            if kept is not None:
                outputs[key] = kept[1]
        store = None if self._store is None else (self._store.url, self._receipt_log)
        return (_restore_loop, (self._native.to_json(False), outputs, self._fingerprint_of, self._id(), store))

    def __repr__(self) -> str:
        best = self.best
        return f"Loop(iterations={len(self.history)}, best={None if best is None else (best.iteration, best.quality)})"


def _restore_loop(
    text: str,
    outputs: Dict[str, Any],
    fingerprint_of: Optional[Callable[[Any], Optional[str]]],
    run_id: Optional[str],
    store: Optional[Tuple[str, str]] = None,
) -> Loop:
    loop = Loop._restore(text, outputs, fingerprint_of, run_id)
    if store is not None:  # a pickled loop reopens its store by URL
        loop._store = Store.open(store[0])
        loop._receipt_log = store[1]
    return loop
