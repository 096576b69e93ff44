"""``EarlyExitController``: the pyramid run loops, a few lines of Python over the core's
step API (:class:`earlyexit.PyramidRun`).

The core never calls back into Python: it says which layer to run (or verify) next, this
module calls that layer's runner and submits the result. So a runner's exception reaches
the caller unchanged, an ``async def`` runner is awaited by ``run_async``, and cancelling
the task that awaits ``run_async`` stops the run before any further runner is called.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from datetime import datetime
from typing import Awaitable, Callable, Iterable, Mapping, Protocol, Sequence, Tuple, TypedDict, Union, cast

from ._native import (
    CoherenceEarlyExit,
    EarlyExitConfig,
    LayerResult,
    OutcomeModel,
    PyramidRun,
    TestPyramidResult,
    _layer_runners,
    _run_options,
)
from ._pyramid import RunMode, RunPolicy

#: An outcome model argument: an :class:`OutcomeModel`, a model document (a mapping), its
#: JSON text, or ``None``.
ModelArgument = Union[OutcomeModel, Mapping[str, object], str, None]

#: What a runner may return: a :class:`LayerResult` or a mapping with its snake_case keys
#: (``pass_rate``, ``coverage``, ``flaky_ratio``, ...; other keys are kept as they are).
LayerOutcome = Union[LayerResult, Mapping[str, object]]
#: A synchronous runner.
Runner = Callable[[], LayerOutcome]
#: A runner for :meth:`EarlyExitController.run_async`: ``async def`` or plain.
AsyncRunner = Callable[[], Union[LayerOutcome, Awaitable[LayerOutcome]]]


class _LayerDictRequired(TypedDict):
    name: str
    run: Runner


class LayerDict(_LayerDictRequired, total=False):
    """A layer as a dict whose runner is typed (``layers[i]["run"]()`` is a
    :data:`LayerOutcome`): ``name``, ``run`` and optionally ``cost_ms``."""

    cost_ms: float


class _LayerObject(Protocol):
    """A layer as an object: ``name`` and ``run()`` (``cost_ms`` is read when present)."""

    @property
    def name(self) -> str: ...

    def run(self) -> Union[LayerOutcome, Awaitable[LayerOutcome]]: ...


#: A layer: ``(name, runner)``, a mapping ``{"name", "run", "cost_ms"?}`` (:class:`LayerDict`
#: types one), or an object with a ``name`` attribute, a ``run()`` method and optionally
#: ``cost_ms`` (the expected cost, which makes ``compute_saved_ms`` computable for layers
#: that never run).
Layer = Union[Tuple[str, AsyncRunner], Mapping[str, object], _LayerObject]


class EarlyExitController:
    """``EarlyExitController(config, total_layers, *, policy, mode, model, policy_config)``:
    runs a test pyramid with early exit.

    ``config`` is an :class:`EarlyExitConfig` (``EarlyExitConfig.AGGRESSIVE``, ...), a
    mapping of its snake_case options merged over ``EarlyExitConfig.DEFAULT``, or ``None``
    for the default; ``total_layers`` (>= 1) bounds the adaptive exit layer. ``policy``
    chooses who decides: ``'adr'`` (the default: the exit decision with ``config``),
    ``'fail_fast'`` or ``'risk_bounded'`` (the policy, with its outcome ``model`` and a
    partial ``policy_config`` over its preset; docs/test-exit.md). ``mode`` is
    ``'enforced'`` or ``'shadow'`` (with any policy, the ADR's included): every layer runs
    and the point where the policy would have exited is a receipt in the result's ``shadow`` (``run_id``
    names the run in it, ``label`` its slice, such as a branch: reports count receipts per
    label; :func:`append_receipts` keeps them in a hash-chained log). With a calibration
    artifact as the ``policy``, ``now`` (ms since the epoch, a ``datetime`` or RFC 3339 text;
    the clock when ``None``) is when its expiry is checked: an expired artifact in enforced
    mode runs in shadow mode and ``result.shadow["reason"]`` says when it expired.
    Everything is validated here. The controller keeps no state
    between runs: one instance can run any number of pyramids, from several threads or
    tasks at once.
    """

    __slots__ = ("_exit", "_options", "_policy")

    def __init__(
        self,
        config: Union[EarlyExitConfig, Mapping[str, object], None],
        total_layers: int,
        *,
        policy: Union[RunPolicy, Mapping[str, object], str] = "adr",
        mode: RunMode = "enforced",
        model: ModelArgument = None,
        policy_config: Union[Mapping[str, object], None] = None,
        run_id: Union[str, None] = None,
        label: Union[str, None] = None,
        now: Union[int, str, datetime, None] = None,
    ) -> None:
        self._exit = CoherenceEarlyExit(config, total_layers)
        given = {
            "policy": policy,
            "mode": mode,
            "model": model,
            "policy_config": policy_config,
            "run_id": run_id,
            "label": label,
            "now": now,
        }
        # Checked now; kept as given, so a run's own keywords replace them one by one (options
        # that leave the ADR deciding are the defaults: nothing to keep).
        normalized = _run_options(**given)
        self._options = given if normalized is not None else {}
        # The policy's name (an artifact given as the policy names its own).
        self._policy = cast(RunPolicy, normalized["policy"]) if normalized is not None else "adr"

    @property
    def config(self) -> EarlyExitConfig:
        """The merged, validated config."""
        return self._exit.config

    @property
    def total_layers(self) -> int:
        """The ``total_layers`` given at construction."""
        return self._exit.total_layers

    @property
    def policy(self) -> RunPolicy:
        """Who decides the runs: ``'adr'``, ``'fail_fast'`` or ``'risk_bounded'``."""
        return self._policy

    def start(
        self,
        layers: Sequence[Layer],
        *,
        policy: Union[RunPolicy, Mapping[str, object], str, None] = None,
        mode: Union[RunMode, None] = None,
        model: ModelArgument = None,
        policy_config: Union[Mapping[str, object], None] = None,
        run_id: Union[str, None] = None,
        label: Union[str, None] = None,
        now: Union[int, str, datetime, None] = None,
    ) -> PyramidRun:
        """A :class:`PyramidRun` over ``layers`` with this controller's config and policy (the
        step API, for callers that run the layers themselves); a keyword given here replaces
        the controller's."""
        options = dict(self._options)
        given = {
            "policy": policy,
            "mode": mode,
            "model": model,
            "policy_config": policy_config,
            "run_id": run_id,
            "label": label,
            "now": now,
        }
        options.update((key, value) for key, value in given.items() if value is not None)
        return PyramidRun.start(self._exit.config, self._exit.total_layers, layers, **options)

    def run(
        self,
        layers: Iterable[Layer],
        *,
        policy: Union[RunPolicy, Mapping[str, object], str, None] = None,
        mode: Union[RunMode, None] = None,
        model: ModelArgument = None,
        policy_config: Union[Mapping[str, object], None] = None,
        run_id: Union[str, None] = None,
        label: Union[str, None] = None,
        now: Union[int, str, datetime, None] = None,
    ) -> TestPyramidResult:
        """Runs the layers as the policy decides: with the ADR's exit decision, in order until
        it allows an exit (then verifies up to ``verification_layers`` of the skipped ones);
        with ``'fail_fast'`` / ``'risk_bounded'``, in the policy's order until a layer fails or
        the bound allows skipping the rest. The keywords replace the controller's for this run
        (``model=`` the latest model, say). A runner's exception propagates unchanged; a
        runner's invalid result raises ``EarlyExitError``."""
        listed = _as_list(layers)
        pyramid = self.start(
            listed,
            policy=policy,
            mode=mode,
            model=model,
            policy_config=policy_config,
            run_id=run_id,
            label=label,
            now=now,
        )
        runners = _layer_runners(listed)
        while True:
            step = pyramid.next()
            index = step.layer
            if index is None:
                return pyramid.result()
            # The core validates whatever the runner returned (code invalid_layer_result).
            pyramid.submit(index, cast(LayerOutcome, runners[index]()))

    async def run_async(
        self,
        layers: Iterable[Layer],
        *,
        policy: Union[RunPolicy, Mapping[str, object], str, None] = None,
        mode: Union[RunMode, None] = None,
        model: ModelArgument = None,
        policy_config: Union[Mapping[str, object], None] = None,
        run_id: Union[str, None] = None,
        label: Union[str, None] = None,
        now: Union[int, str, datetime, None] = None,
    ) -> TestPyramidResult:
        """:meth:`run` for ``async def`` runners (plain ones work too). Cancelling the task
        cancels the run cleanly: the awaited runner gets the cancellation, and no further
        runner is called, even when that runner catches the ``CancelledError`` and returns
        (the run then raises ``CancelledError`` once the runner is done)."""
        listed = _as_list(layers)
        pyramid = self.start(
            listed,
            policy=policy,
            mode=mode,
            model=model,
            policy_config=policy_config,
            run_id=run_id,
            label=label,
            now=now,
        )
        runners = _layer_runners(listed)
        task = asyncio.current_task()
        # Cancellations requested before this run began (a caller's own, already handled).
        baseline = task.cancelling() if _HAS_CANCELLING and task is not None else 0
        while True:
            step = pyramid.next()
            index = step.layer
            if index is None:
                return pyramid.result()
            outcome = runners[index]()
            if inspect.isawaitable(outcome):
                outcome = await _awaited(outcome, task, baseline)
            pyramid.submit(index, cast(LayerOutcome, outcome))

    def __repr__(self) -> str:
        policy = f", policy={self.policy!r}" if self._options else ""
        return f"EarlyExitController(config={self._exit.config!r}, total_layers={self._exit.total_layers!r}{policy})"


#: ``Task.cancelling()`` (Python 3.11+) counts the cancellations requested of a task, so a
#: runner that catches its ``CancelledError`` and returns cannot hide one.
_HAS_CANCELLING = sys.version_info >= (3, 11)


async def _awaited(outcome: Awaitable[object], task: "Union[asyncio.Task[object], None]", baseline: int) -> object:
    """Awaits a runner's awaitable; raises ``CancelledError`` when the task running the
    pyramid was cancelled meanwhile, even if the runner caught the cancellation and returned
    (then no further runner starts)."""
    if task is None:
        return await outcome
    if _HAS_CANCELLING:
        returned = await outcome
        if task.cancelling() > baseline:
            raise asyncio.CancelledError()
        return returned
    # Python 3.9 / 3.10 keep no count: the runner runs as its own task, and this one waits
    # on a future of its own, which a cancellation of this task always reaches.
    inner = asyncio.ensure_future(outcome)
    try:
        await asyncio.wait((inner,))
    except asyncio.CancelledError:
        inner.cancel()
        await asyncio.wait((inner,))
        if not inner.cancelled() and inner.exception() is not None:
            inner.exception()  # retrieved: the cancellation is what the caller sees
        raise
    return inner.result()


def _as_list(layers: Iterable[Layer]) -> Sequence[Layer]:
    """A one-shot iterable becomes a list (the spec check and the runners both read it);
    anything else is passed on for the core to reject with its own message."""
    if isinstance(layers, Sequence):
        return layers
    try:
        return list(layers)
    except TypeError:
        return layers  # type: ignore[return-value]
