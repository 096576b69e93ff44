"""DSPy: ``Refine``, a drop-in for ``dspy.Refine`` that stops by the engine's decision
(docs/agents.md).

It runs the module as ``dspy.Refine`` does: attempt ``i`` uses the LM copied with
``rollout_id=start + i`` (``start`` being the LM's own ``rollout_id``, 0 by default) and
``temperature=1.0``, and between two attempts DSPy's own feedback step (``OfferFeedback``)
writes advice per predictor that the next attempt receives as the ``hint_`` input. Each
attempt's reward is recorded in a :class:`earlyexit.Loop` (rewards on ``scale``, 1 by default);
it stops when the decision says stop, after ``N`` attempts, or (when ``threshold`` is given, as
``dspy.Refine`` does) at the first reward reaching it, which is recorded as the loop's ``done``.
It returns the loop's output (the best prediction under the default ``recommended`` policy; the
one reaching ``threshold`` when one did) and keeps the decision on ``.last_decision``.

An attempt that raises is not recorded; once more than ``fail_count`` (default ``N``) attempts
of one call have raised, the error is raised.

Imports DSPy (``pip install dspy``) when imported itself.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._loop import Loop
from .._native import StoppingDecision, output_fingerprint
from . import require

dspy = require("dspy", "DSPy", "dspy", "earlyexit.integrations.dspy")
_refine = require("dspy.predict.refine", "DSPy", "dspy", "earlyexit.integrations.dspy")
orjson = require("orjson", "orjson (a dependency of DSPy)", "dspy", "earlyexit.integrations.dspy")

__all__ = ["Refine"]

_Example = getattr(dspy, "Example", ())  # what a prediction is (a fake DSPy may have none)


def _source(obj: Any) -> str:
    for target in (obj, getattr(obj, "__class__", None)):
        try:
            return inspect.getsource(target)  # type: ignore[arg-type]
        except (TypeError, OSError):
            continue
    return repr(obj)


def _prediction_fingerprint(prediction: Any) -> Optional[str]:
    """The automatic fingerprint of a prediction's fields (``dict(prediction.items())``: its
    store without DSPy's own ``dspy_`` keys), or of anything else as ``Loop.step`` takes it."""
    if isinstance(prediction, _Example):
        store = prediction._store
        for name in store:
            if name.startswith("dspy_"):
                break
        else:  # the store is what items() lists: fingerprinted without copying it
            return output_fingerprint(store)
    items = getattr(prediction, "items", None)
    return output_fingerprint(dict(items()) if callable(items) else prediction)


def _record(loop: Loop, prediction: Any, reward: float, done: bool) -> StoppingDecision:
    """``loop.step(prediction, reward, done=done)`` with the prediction's fingerprint, through
    the step's positional form (output, quality, confidence, verified, done, good, tokens,
    cost_usd, time_ms, error, files, fingerprint)."""
    decision: StoppingDecision = loop._native.step(
        prediction, reward, None, None, done, None, None, None, None, None, None, _prediction_fingerprint(prediction)
    )
    return decision


class _Reward:
    """Holds the reward function outside DSPy's parameter walk (a module as a reward stays one)."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[..., float]) -> None:
        self.function = function

    def __call__(self, *args: Any) -> float:
        return self.function(*args)


def _hinting(adapter: Any, advice: Dict[str, str], names: Dict[Any, str]) -> Any:
    """An adapter of the same class as ``adapter`` that adds each predictor's advice as the
    ``hint_`` input, then formats through ``adapter``."""

    class Hinting(type(adapter)):  # type: ignore[misc]
        def __call__(self, lm: Any, lm_kwargs: Any, signature: Any, demos: Any, inputs: Dict[str, Any]) -> Any:
            # Into the caller's inputs, as dspy.Refine does: the trace shows the hint too.
            inputs["hint_"] = advice.get(names.get(signature, ""), "N/A")
            hinted = signature.append("hint_", dspy.InputField(desc="A hint to the module from an earlier run"))
            return adapter(lm, lm_kwargs, hinted, demos, inputs)

    return Hinting()


class Refine(dspy.Module):  # type: ignore[misc, name-defined]
    """``dspy.Refine(module, N, reward_fn, threshold, fail_count)`` stopped by an earlyexit policy.

    ``policy``, ``preset`` and ``scale`` are :class:`earlyexit.Loop`'s (rewards on ``scale``);
    ``threshold`` may be left out to stop by the decision alone.
    """

    def __init__(
        self,
        module: Any,
        N: int,  # noqa: N803 (dspy.Refine's name)
        reward_fn: Callable[[Dict[str, Any], Any], float],
        threshold: Optional[float] = None,
        fail_count: Optional[int] = None,
        *,
        policy: Any = None,
        preset: Optional[str] = None,
        scale: float = 1,
    ) -> None:
        super().__init__()
        if not isinstance(N, int) or isinstance(N, bool) or N < 1:
            raise ValueError(f"Refine: N is the number of attempts, a positive integer, not {N!r}")
        self.module = module
        self.reward_fn = _Reward(reward_fn)
        self.threshold = threshold
        self.N = N
        self.fail_count = fail_count if fail_count is not None else N
        self._loop_options: Dict[str, Any] = {"policy": policy, "preset": preset, "scale": scale, "max_iterations": N}
        self._new_loop()  # a bad policy or scale is an error here, not at the first call
        self.module_code = _source(module)
        self.reward_fn_code = _source(reward_fn)
        self.last_decision: Optional[StoppingDecision] = None
        #: The loop of the last call (its history, best and ``run()`` for calibration).
        self.last_loop: Optional[Loop] = None

    def _new_loop(self) -> Loop:
        options = self._loop_options
        return Loop(options["preset"], policy=options["policy"], scale=options["scale"], max_iterations=options["max_iterations"], fingerprint_of=_prediction_fingerprint)

    def forward(self, **kwargs: Any) -> Any:
        lm = self.module.get_lm() or dspy.settings.lm
        start = lm.kwargs.get("rollout_id", 0)
        adapter = dspy.settings.adapter or dspy.ChatAdapter()
        loop = self._new_loop()
        self.last_loop = loop
        self.last_decision = None
        attempts: List[Tuple[Any, List[Any]]] = []  # (prediction, trace) of each recorded attempt
        advice: Optional[Dict[str, str]] = None
        failures = 0
        for index in range(self.N):
            attempt = self.module.deepcopy()
            attempt.set_lm(lm.copy(rollout_id=start + index, temperature=1.0))
            named = attempt.named_predictors()
            names = {predictor.signature: name for name, predictor in named}
            try:
                with dspy.context(trace=[]):
                    if advice is None:
                        prediction = attempt(**kwargs)
                    else:
                        with dspy.context(adapter=_hinting(adapter, advice, names)):
                            prediction = attempt(**kwargs)
                    trace = dspy.settings.trace.copy()
                    reward = self.reward_fn(kwargs, prediction)
                reached = self.threshold is not None and reward >= self.threshold
                attempts.append((prediction, trace))
                self.last_decision = decision = _record(loop, prediction, reward, reached)
                if decision.stop or index == self.N - 1:
                    break
                advice = self._advice(attempt, named, kwargs, prediction, trace, reward)
            except Exception:
                failures += 1
                if failures > self.fail_count:
                    raise
        chosen = loop.output
        for prediction, trace in attempts:
            if prediction is chosen and trace:
                dspy.settings.trace.extend(trace)
                break
        return chosen

    def _advice(self, attempt: Any, named: Any, inputs: Dict[str, Any], prediction: Any, trace: List[Any], reward: float) -> Dict[str, str]:
        """DSPy's feedback step: advice per predictor for the next attempt."""
        by_predictor = {predictor: name for name, predictor in named}
        values: Dict[str, Any] = {
            "program_code": self.module_code,
            "modules_defn": _refine.inspect_modules(attempt),
            "program_inputs": inputs,
            "program_trajectory": [{"module_name": by_predictor[p], "inputs": i, "outputs": dict(o)} for p, i, o in trace],
            "program_outputs": dict(prediction),
            "reward_code": self.reward_fn_code,
            "target_threshold": self.threshold,
            "reward_value": reward,
            "module_names": [name for name, _ in named],
        }
        arguments = {
            key: value if isinstance(value, str) else orjson.dumps(_refine.recursive_mask(value), option=orjson.OPT_INDENT_2).decode()
            for key, value in values.items()
        }
        advice: Dict[str, str] = dspy.Predict(_refine.OfferFeedback)(**arguments).advice
        return advice
