"""Runs the conformance vectors of ``tests/vectors/*.json`` through the Python API.

The vectors name the JS API (format: ``../shared/design/vectors.md``, summary in
``tests/vectors/README.md``). This module maps each JS call to the Python call it stands
for, using the table below, and compares what comes back with the vector's expectation
the way architecture.md's "Exact to the seed" says: every listed key equal (numbers bit for
bit, key order as listed), any other key one of the listed extras.

Python mapping actually used (where it differs from the README's table, this binding's
names win; they are the issue's):

======================================  ===========================================================
JS (vector)                             Python
======================================  ===========================================================
``new EarlyStopping(config, a)``        ``EarlyStopping(**snake(config), analytics=a)``
``recordIterationResult(i, r)``         ``record_result(i, r)``
``shouldStop(i)``                       ``should_stop(i).to_dict()``
``getStoppingReason()``                 ``stopping_reason``
``getStoppingDetails()``                ``stopping_details``
``generateSummary()``                   ``summary().to_dict()``
``getConfig()``                         ``config.to_dict()``
``getIterationHistory()``               ``[r.to_dict() for r in history]``
``configure(options)``                  ``configure(**snake(options))``
``reset()``                             ``reset()``
``toJSON()`` / ``fromJSON(s)``          ``json.loads(to_json())`` / ``from_json(s)``
``new IterationAnalytics(config)``      ``IterationAnalytics(**snake(config))``
``new IterationAnalytics(id, task, c)`` ``IterationAnalytics(id, task, **snake(c))``
``recordIteration(r)``                  ``record_iteration(r).to_dict()``
``generateQualityChart()``              ``quality_chart()``
``generateReport(options)``             ``report(**snake(options))``
``formatDuration(ms)``                  ``IterationAnalytics.format_duration(ms)``
``fromSummary(s, config)``              ``IterationAnalytics.from_summary(s, **snake(config))``
``detectDiminishingReturns()``          ``detect_diminishing_returns().to_dict()``
``getTrajectory()``                     ``trajectory()``
``getOptimalIteration(v)``              ``optimal_iteration(v)`` (``.to_dict()`` or ``None``)
``selectBestIteration()``               ``select_best_iteration().to_dict()``
``getRecords()``                        ``[r.to_dict() for r in records]``
``calculateQualitySignal(r)``           ``calculate_quality_signal(layer(r)).to_dict()``
``countQualityPartitions(r)``           ``count_quality_partitions(layer(r))``
``new CoherenceEarlyExit(c, n)``        ``CoherenceEarlyExit(snake(c), n)``
``shouldExit(s, layer)``                ``should_exit(snake(s), layer).to_dict()``
``new SpeculativeExecutor(c)``          ``SpeculativeExecutor(snake(c))``
``speculate(d, skipped)``               ``speculate(snake(d), skipped)`` (each ``.to_dict()``)
``verify(specs, layers)``               ``verify(specs, scripted layers)`` (each ``.to_dict()``)
``new EarlyExitController(c, n)``       ``EarlyExitController(snake(c), n)``
``runWithEarlyExit(layers)``            ``run(scripted layers).to_dict()``
``PyramidRun.start(c, n, layers)``      ``PyramidRun.start(snake(c), n, [layer_spec(l) ...])``
``next()`` / ``submit(i, r)``           ``next().to_dict()`` / ``submit(i, layer(r))``
``result()``                            ``result().to_dict()``
======================================  ===========================================================

``snake(x)``: camelCase keys to snake_case (``plateauConsecutiveCount`` ->
``plateau_consecutive_count``, ``costMs`` -> ``cost_ms``, ``lambdaPrev`` -> ``lambda_prev``).
``layer(r)``: a LayerResult's known keys to snake_case (``passRate`` -> ``pass_rate``, ...), any
other key kept verbatim (the ADR keeps a runner's extra keys as they are). Snapshots are not
mapped: they are the same JSON in every language.

Error ``field``: JS spelling mapped the same way, path by path (``layers[2].passRate`` ->
``layers[2].pass_rate``, ``detectDiminishingReturns()`` -> ``detect_diminishing_returns()``,
``layerResult`` -> ``layer_result``, ``totalLayers`` -> ``total_layers``), except
``iterationAnalytics`` -> ``analytics`` (the keyword's name) and the paths of ``fromJSON``
errors, which point into the snapshot and stay as they are. ``kind`` ``type`` is
``EarlyExitTypeError``, ``range`` is ``EarlyExitError`` and not ``EarlyExitTypeError``.
"""

from __future__ import annotations

import copy
import glob
import json
import math
import os
import re
import struct
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import earlyexit as ee

VECTOR_DIR = os.path.join(os.path.dirname(__file__), "..", "vectors")

#: Extra keys the project may add beyond the reference's (architecture.md).
EXTRAS = frozenset(
    {
        "best_iteration",
        "best_quality_score",
        "budgets",
        "layersExecuted",
        "verifiedLayers",
        "mispredictions",
        "computeSavedMs",
        "verdict",
        "failingLayers",
    }
)

_LAYER_KEYS = {
    "passRate": "pass_rate",
    "flakyRatio": "flaky_ratio",
    "previousLambda": "previous_lambda",
    "durationMs": "duration_ms",
}


def snake_name(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


#: While a vector runs with its objects as given (``run_vector(..., as_given=True)`` or a
#: vector's ``"keys": "as given"``): ``snake``/``layer`` keep the JS spelling and configs are
#: passed as one mapping, not as keywords (Python reads either spelling of a dict's keys).
_AS_GIVEN = False


def snake(value: Any) -> Any:
    """camelCase keys to snake_case (one level: configs, signals, specs, decisions)."""
    if _AS_GIVEN:
        return value
    if isinstance(value, dict):
        return {snake_name(k): v for k, v in value.items()}
    return value


#: A vector's own ``"keys": "as given"``: even a layer spec keeps its keys as written.
_LAYERS_AS_GIVEN = False


def layer_spec(value: Any) -> Any:
    """A layer spec (``{"name", "costMs"?}``) in the Python spelling. Python reads a layer's
    ``cost_ms`` only (``costMs`` there is a near miss, the one exception to its
    either-spelling rule), so the JS-spelled run respells it too; a vector whose keys are
    ``"as given"`` (the near-miss rows) keeps it as written."""
    if _LAYERS_AS_GIVEN:
        return value
    if _AS_GIVEN and isinstance(value, dict):
        return {("cost_ms" if k == "costMs" else k): v for k, v in value.items()}
    return snake(value)


def layer(value: Any) -> Any:
    """A LayerResult's known keys to snake_case; extra keys kept verbatim."""
    if isinstance(value, dict) and not _AS_GIVEN:
        return {_LAYER_KEYS.get(k, k): v for k, v in value.items()}
    return value


def python_field(field_name: str) -> str:
    """An error field in the Python spelling."""
    if field_name == "iterationAnalytics":
        return "analytics"
    parts = []
    for part in field_name.split("."):
        m = re.match(r"^([^\[\]]*)((?:\[\d+\])*)$", part)
        if m is None:
            parts.append(part)
            continue
        name, index = m.group(1), m.group(2)
        if name.endswith("()"):
            name = snake_name(name[:-2]) + "()"
        else:
            name = snake_name(name)
        parts.append(name + index)
    return ".".join(parts)


# --- numbers JSON cannot hold ----------------------------------------------------------------

_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if list(value) == ["$num"]:
            return _SPECIAL[value["$num"]]
        return {k: decode(v) for k, v in value.items()}
    return value


def js_stringify(value: Any) -> str:
    """``JSON.stringify``: NaN and infinities become null, -0 becomes 0."""

    def norm(v: Any) -> Any:
        if isinstance(v, float):
            if not math.isfinite(v):
                return None
            if v == 0:
                return 0
            return v
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        return v

    return json.dumps(norm(value), separators=(",", ":"), allow_nan=False)


# --- comparison -----------------------------------------------------------------------------


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


def compare(expected: Any, actual: Any, where: str = "$") -> List[str]:
    out: List[str] = []
    if isinstance(expected, bool) or isinstance(actual, bool):
        if type(expected) is not type(actual) or expected != actual:
            out.append(f"{where}: expected {expected!r}, got {actual!r}")
        return out
    if isinstance(expected, (int, float)) or isinstance(actual, (int, float)):
        if not (isinstance(expected, (int, float)) and isinstance(actual, (int, float))):
            return [f"{where}: expected {expected!r}, got {actual!r}"]
        fe, fa = float(expected), float(actual)
        same = (math.isnan(fe) and math.isnan(fa)) or _bits(fe) == _bits(fa)
        if not same:
            out.append(f"{where}: expected {expected!r}, got {actual!r}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, (list, tuple)):
            return [f"{where}: expected a list, got {actual!r}"]
        if len(expected) != len(actual):
            out.append(f"{where}: length {len(expected)} != {len(actual)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            out.extend(compare(e, a, f"{where}[{i}]"))
        return out
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        for k, e in expected.items():
            if k not in actual:
                out.append(f"{where}.{k}: missing")
            else:
                out.extend(compare(e, actual[k], f"{where}.{k}"))
        for k in actual:
            if k not in expected and k not in EXTRAS:
                out.append(f"{where}.{k}: unexpected key")
        order = [k for k in actual if k in expected]
        listed = [k for k in expected if k in actual]
        if order != listed:
            out.append(f"{where}: key order {listed} vs {order}")
        return out
    if expected != actual:
        out.append(f"{where}: expected {expected!r}, got {actual!r}")
    return out


# --- coverage --------------------------------------------------------------------------------


@dataclass
class Coverage:
    """What the vectors exercised, printed at the end of the pytest run."""

    vectors: Counter = field(default_factory=Counter)
    triggers: Counter = field(default_factory=Counter)
    exit_reasons: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def table(self) -> str:
        lines = [
            f"vectors: {self.passed} passed, {self.failed} failed, {self.skipped} skipped (not for python)",
            "by engine: " + ", ".join(f"{k} {v}" for k, v in sorted(self.vectors.items())),
            "triggers (shouldStop/generateSummary returns):",
        ]
        lines += [f"  {k:<24} {v}" for k, v in sorted(self.triggers.items())]
        lines.append("exit reasons (shouldExit / pyramid results):")
        lines += [f"  {k:<24} {v}" for k, v in sorted(self.exit_reasons.items())]
        lines.append(f"error rows (call, code, python field, kind): {len(self.errors)} distinct")
        lines += [
            f"  {c:<22} {code:<21} {f:<36} {kind:<5} {n}" for (c, code, f, kind), n in sorted(self.errors.items())
        ]
        return "\n".join(lines)


COVERAGE = Coverage()


# --- scripted collaborators -------------------------------------------------------------------


class ScriptedSource:
    """An outside diminishing-returns source answering from a script (past the end: None)."""

    def __init__(self, script: List[Any]) -> None:
        self.script = copy.deepcopy(script)
        self.calls = 0

    def detect_diminishing_returns(self) -> Any:
        k = self.calls
        self.calls += 1
        if k >= len(self.script):
            return None
        return copy.deepcopy(self.script[k])


class RunnerError(Exception):
    """What a scripted ``{"$throw": msg}`` runner raises."""


def scripted_layers(specs: List[Dict[str, Any]], counts: List[int]) -> List[Any]:
    """Layers as mappings ``{"name", "cost_ms"?, "run"}`` whose runners replay ``results``."""
    out: List[Any] = []
    for i, spec in enumerate(specs):
        results = spec.get("results", [])

        def run(i: int = i, results: List[Any] = results) -> Any:
            k = counts[i]
            counts[i] += 1
            if k >= len(results):
                raise AssertionError(f"runner script of layer {i} exhausted")
            element = copy.deepcopy(results[k])
            if isinstance(element, dict) and list(element) == ["$throw"]:
                raise RunnerError(element["$throw"])
            return layer(element)

        entry = {k: v for k, v in layer_spec({k: v for k, v in spec.items() if k != "results"}).items()}
        entry["run"] = run
        out.append(entry)
    return out


# --- engines ------------------------------------------------------------------------------------

Result = Tuple[Any, Dict[str, Any]]  # (returned JS-shaped value, facts such as runnerCalls)


class Engine:
    snapshot: Optional[Callable[[], str]] = None

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        raise NotImplementedError


def _kwargs_or_positional(ctor: Callable[..., Any], config: Any, **extra: Any) -> Any:
    if config is None:
        return ctor(**extra)
    if isinstance(config, dict) and not _AS_GIVEN:
        return ctor(**snake(config), **extra)
    return ctor(config, **extra)


class LoopEngine(Engine):
    def __init__(self, construct: Dict[str, Any]) -> None:
        self.source: Optional[ScriptedSource] = None
        analytics = construct.get("analytics")
        if isinstance(analytics, dict) and isinstance(analytics.get("script"), list):
            self.source = ScriptedSource(analytics["script"])
            analytics = self.source
        elif isinstance(analytics, dict) and "value" in analytics:
            analytics = analytics["value"]
        shadow = {"shadow": construct["shadow"]} if "shadow" in construct else {}
        self.es = _kwargs_or_positional(ee.EarlyStopping, construct.get("config"), analytics=analytics, policy=construct.get("policy"), **shadow)

    def snapshot(self) -> str:  # type: ignore[override]
        return self.es.to_json()

    @property
    def analytics_calls(self) -> int:
        return self.source.calls if self.source else 0

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        es = self.es
        if name == "recordIterationResult":
            # JS returns nothing, or {duplicate: true} for an accepted re-record (strictIterations).
            return ({"duplicate": True} if es.record_result(*args) else None), {}
        if name == "shouldStop":
            d = es.should_stop(*args)
            COVERAGE.triggers[d.trigger] += 1
            return d.to_dict(), {}
        if name == "getStoppingReason":
            return es.stopping_reason, {}
        if name == "getStoppingDetails":
            return es.stopping_details, {}
        if name == "generateSummary":
            s = es.summary().to_dict()
            if "stopping_trigger" in s:
                COVERAGE.triggers[s["stopping_trigger"]] += 1
            return s, {}
        if name == "getConfig":
            return es.config.to_dict(), {}
        if name == "getIterationHistory":
            return [r.to_dict() for r in es.history], {}
        if name == "configure":
            options = args[0] if args else None
            if isinstance(options, dict) and not _AS_GIVEN:
                return es.configure(**snake(options)), {}
            return es.configure(options), {}
        if name == "reset":
            return es.reset(), {}
        if name == "toJSON":
            return json.loads(es.to_json()), {}
        raise AssertionError(f"EarlyStopping has no call {name}")

    def from_json(self, snapshot: Any) -> None:
        self.es = ee.EarlyStopping.from_json(snapshot)
        self.source = None


class AnalyticsEngine(Engine):
    def __init__(self, construct: Dict[str, Any]) -> None:
        if "loopId" in construct:
            # upstream's form: IterationAnalytics(loop_id, task_description, **config)
            ctor = lambda *a, **k: ee.IterationAnalytics(construct["loopId"], construct["taskDescription"], *a, **k)  # noqa: E731
            self.a = _kwargs_or_positional(ctor, construct.get("config"))
        else:
            self.a = _kwargs_or_positional(ee.IterationAnalytics, construct.get("config"))

    def snapshot(self) -> str:  # type: ignore[override]
        return self.a.to_json()

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        a = self.a
        if name == "recordIteration":
            return a.record_iteration(*args).to_dict(), {}
        if name == "detectDiminishingReturns":
            return a.detect_diminishing_returns().to_dict(), {}
        if name == "getTrajectory":
            return a.trajectory(), {}
        if name == "getOptimalIteration":
            r = a.optimal_iteration(*args)
            return (None if r is None else r.to_dict()), {}
        if name == "selectBestIteration":
            return a.select_best_iteration().to_dict(), {}
        if name == "generateSummary":
            return a.summary().to_dict(), {}
        if name == "generateQualityChart":
            return a.quality_chart(), {}
        if name == "generateReport":
            return a.report(**snake(args[0] if args else {})), {}
        if name == "formatDuration":
            return ee.IterationAnalytics.format_duration(*args), {}
        if name == "fromSummary":
            summary, config = (args + [None, None])[:2]
            self.a = ee.IterationAnalytics.from_summary(summary, **snake(config or {}))
            return None, {}
        if name == "getConfig":
            return a.config.to_dict(), {}
        if name == "getRecords":
            return [r.to_dict() for r in a.records], {}
        if name == "reset":
            return a.reset(), {}
        if name == "toJSON":
            return json.loads(a.to_json()), {}
        raise AssertionError(f"IterationAnalytics has no call {name}")

    def from_json(self, snapshot: Any) -> None:
        self.a = ee.IterationAnalytics.from_json(snapshot)


class SignalEngine(Engine):
    def __init__(self, construct: Dict[str, Any]) -> None:
        pass

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        if name == "countQualityPartitions":
            return ee.count_quality_partitions(layer(args[0])), {}
        assert name == "calculateQualitySignal", name
        return ee.calculate_quality_signal(layer(args[0])).to_dict(), {}


class ReceiptsEngine(Engine):
    """The receipt log's functions (stateless)."""

    def __init__(self, construct: Dict[str, Any]) -> None:
        pass

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        if name == "appendReceipts":
            return ee.append_receipts(*args), {}
        assert name == "verifyReceipts", name
        return ee.verify_receipts(*args), {}


class CalibrationEngine(Engine):
    """``calibrateLoopPolicy(runs, options)``: only its errors are vectors (the bad-input matrix)."""

    def __init__(self, construct: Dict[str, Any]) -> None:
        pass

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        assert name == "calibrateLoopPolicy", name
        ee.calibrate_loop_policy(*args)
        return None, {}


class LoopLifecycleEngine(Engine):
    """``promote_loop_policy`` / ``check_loop_drift`` (stateless): only errors and the answer's
    verdict (``{promoted}`` / ``{status}``) are vectors (the bad-input matrix)."""

    def __init__(self, construct: Dict[str, Any]) -> None:
        pass

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        if name == "promoteLoopPolicy":
            return {"promoted": ee.promote_loop_policy(*args)["promoted"]}, {}
        assert name == "checkLoopDrift", name
        return {"status": ee.check_loop_drift(*args)["status"]}, {}


class RefineLoopEngine(Engine):
    """``Loop(preset, policy=..., artifact=..., shadow=..., ...)``: the matrix builds it only
    (its rows are the constructor's errors)."""

    def __init__(self, construct: Dict[str, Any]) -> None:
        options = dict(construct.get("options") or {})
        self.loop = ee.Loop(options.pop("preset", None), **snake(options))

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        raise AssertionError(f"Loop has no vector call {name}")


class ReadJunitEngine(Engine):
    """``read_junit(source, coverage_xml=None)`` (stateless): only errors and the layer
    result's pass rate and count are vectors (the bad-input matrix). JS's options object is
    Python's keywords (snake_case in either run: there is no mapping argument to spell as JS
    does); ``{"$bytes": hex}`` is a ``bytes`` source."""

    def __init__(self, construct: Dict[str, Any]) -> None:
        pass

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        assert name == "readJunit", name
        source = args[0]
        if isinstance(source, dict) and isinstance(source.get("$bytes"), str):
            source = bytes.fromhex(source["$bytes"])
        options = args[1] if len(args) > 1 else None
        keywords = {snake_name(k): v for k, v in options.items()} if isinstance(options, dict) else {}
        result = ee.read_junit(source, **keywords)
        return {"passRate": result.pass_rate, "total": result.total}, {}


#: ``read_junit``'s arguments in the Python spelling (JS's ``text`` is Python's ``source``).
JUNIT_FIELDS = {"text": "source", "coverageXml": "coverage_xml"}


class ExitEngine(Engine):
    def __init__(self, construct: Dict[str, Any]) -> None:
        self.e = ee.CoherenceEarlyExit(snake(construct.get("config")), construct.get("totalLayers"))

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        assert name == "shouldExit", name
        d = self.e.should_exit(snake(args[0]), *args[1:])
        COVERAGE.exit_reasons[d.reason] += 1
        return d.to_dict(), {}


class SpeculationEngine(Engine):
    def __init__(self, construct: Dict[str, Any]) -> None:
        self.s = ee.SpeculativeExecutor(snake(construct.get("config")))

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        if name == "speculate":
            return [s.to_dict() for s in self.s.speculate(snake(args[0]), args[1])], {}
        if name == "verify":
            counts = [0] * len(call["layers"])
            facts: Dict[str, Any] = {"runnerCalls": counts}
            try:
                out = self.s.verify(args[0], scripted_layers(call["layers"], counts))
            except Exception as e:
                e.facts = facts  # type: ignore[attr-defined]
                raise
            return [s.to_dict() for s in out], facts
        raise AssertionError(f"SpeculativeExecutor has no call {name}")


def policy_keywords(construct: Dict[str, Any]) -> Dict[str, Any]:
    """A vector's policy options (``construct.options``) as Python's keywords."""
    options = construct.get("options") or {}
    return {("policy_config" if k == "policyConfig" else k): snake(v) if k == "policyConfig" else v for k, v in options.items()}


class ControllerEngine(Engine):
    def __init__(self, construct: Dict[str, Any]) -> None:
        self.c = ee.EarlyExitController(snake(construct.get("config")), construct.get("totalLayers"), **policy_keywords(construct))

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        assert name == "runWithEarlyExit", name
        counts = [0] * len(call["layers"])
        facts: Dict[str, Any] = {"runnerCalls": counts}
        try:
            result = self.c.run(scripted_layers(call["layers"], counts))
        except Exception as e:
            e.facts = facts  # type: ignore[attr-defined]
            raise
        COVERAGE.exit_reasons[result.exit_reason] += 1
        return result.to_dict(), facts


class PyramidEngine(Engine):
    def __init__(self, construct: Dict[str, Any]) -> None:
        layers = construct.get("layers")
        specs = [layer_spec(spec) for spec in layers] if isinstance(layers, list) else layers
        self.run = ee.PyramidRun.start(snake(construct.get("config")), construct.get("totalLayers"), specs, **policy_keywords(construct))

    def snapshot(self) -> str:  # type: ignore[override]
        return self.run.to_json()

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        if name == "next":
            return self.run.next().to_dict(), {}
        if name == "submit":
            self.run.submit(args[0], layer(args[1]))
            return None, {}
        if name == "result":
            r = self.run.result()
            COVERAGE.exit_reasons[r.exit_reason] += 1
            return r.to_dict(), {}
        if name == "toJSON":
            return json.loads(self.run.to_json()), {}
        raise AssertionError(f"PyramidRun has no call {name}")

    def from_json(self, snapshot: Any) -> None:
        self.run = ee.PyramidRun.from_json(snapshot)


def snake_keys(value: Any) -> Any:
    """Every key, nested, to snake_case (the behaviour drop-ins' histories, detections and
    states, as a Python caller writes them); as given under ``_AS_GIVEN``."""
    if _AS_GIVEN:
        return value
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    if isinstance(value, dict):
        return {snake_name(k): snake_keys(v) for k, v in value.items()}
    return value


class BehaviorEngine(Engine):
    """``BehaviorDetector``: ``construct`` is ``{options}`` (the JS constructor's argument)."""

    def __init__(self, construct: Dict[str, Any]) -> None:
        self.d = ee.BehaviorDetector(**snake_keys(construct.get("options") or {}))

    def snapshot(self) -> str:  # type: ignore[override]
        return json.dumps(self.d.thresholds.to_dict())

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        d = self.d
        args = [snake_keys(a) for a in args]
        if name == "detect":
            return [x.to_dict() for x in d.detect(*args)], {}
        if name in ("detectStuck", "detectOscillation", "detectDeviation", "detectResourceBurn", "detectRegression"):
            found = getattr(d, snake_name(name))(*args)
            return (None if found is None else found.to_dict()), {}
        if name == "getThresholds":
            return d.thresholds.to_dict(), {}
        if name == "updateThresholds":
            return d.update_thresholds(*args), {}
        raise AssertionError(f"BehaviorDetector has no call {name}")


class InterventionEngine(Engine):
    """``InterventionSystem``: the clock answers each call's ``now``; the callbacks are counted
    (``callbacks`` on the vector)."""

    def __init__(self, construct: Dict[str, Any]) -> None:
        self.now: Optional[str] = None
        self.callbacks = {"onIntervention": 0, "onPause": 0, "onAbort": 0}
        if "options" in construct:
            self.s = ee.InterventionSystem(**snake_keys(construct["options"]))
        else:
            self.s = ee.InterventionSystem(
                on_intervention=lambda i: self._count("onIntervention", i),
                on_pause=lambda i: self._count("onPause", i),
                on_abort=lambda i: self._count("onAbort", i),
                clock=lambda: self.now,
            )

    def _count(self, name: str, intervention: Any) -> None:
        assert isinstance(intervention, ee.Intervention)
        self.callbacks[name] += 1

    def snapshot(self) -> str:  # type: ignore[override]
        return json.dumps(self.s.export_state())

    def call(self, name: str, args: List[Any], call: Dict[str, Any]) -> Result:
        s = self.s
        self.now = call.get("now")
        args = [snake_keys(a) for a in args]
        if name == "intervene":
            return s.intervene(*args).to_dict(), {}
        if name == "getPauseStatus":
            status = s.pause_status()
            assert (status["is_paused"], status["reason"]) == (s.is_paused, s.pause_reason)
            return {"isPaused": status["is_paused"], "reason": status["reason"]}, {}
        if name == "getLog":
            return [entry.to_dict() for entry in s.log(*args)], {}
        if name == "getSummary":
            return s.summary().to_dict(), {}
        if name in ("determineLevel", "buildWarning", "buildStrategyOverride", "injectWarning", "resume", "exportState",
                    "importState", "clearLog", "reset"):
            return getattr(s, snake_name(name))(*args), {}
        raise AssertionError(f"InterventionSystem has no call {name}")


ENGINES: Dict[str, Callable[[Dict[str, Any]], Engine]] = {
    "EarlyStopping": LoopEngine,
    "IterationAnalytics": AnalyticsEngine,
    "calculateQualitySignal": SignalEngine,
    "receipts": ReceiptsEngine,
    "calibrateLoopPolicy": CalibrationEngine,
    "loopLifecycle": LoopLifecycleEngine,
    "Loop": RefineLoopEngine,
    "readJunit": ReadJunitEngine,
    "CoherenceEarlyExit": ExitEngine,
    "SpeculativeExecutor": SpeculationEngine,
    "EarlyExitController": ControllerEngine,
    "PyramidRun": PyramidEngine,
    "BehaviorDetector": BehaviorEngine,
    "InterventionSystem": InterventionEngine,
}


# --- running one vector ---------------------------------------------------------------------------


def load_vectors() -> List[Tuple[str, Dict[str, Any]]]:
    out = []
    for path in sorted(glob.glob(os.path.join(VECTOR_DIR, "*.json"))):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        base = os.path.basename(path)[: -len(".json")]
        for i, vector in enumerate(data.get("vectors", [])):
            out.append((f"{base}[{i}] {vector.get('name', '')}", vector))
    return out


def applies_to_python(vector: Dict[str, Any]) -> bool:
    only = vector.get("only")
    return only is None or "python" in only


def _check_throws(expected: Dict[str, Any], error: BaseException, call_name: str, where: str) -> List[str]:
    if "message" in expected or "propagated" in expected:
        message = expected.get("message", expected.get("propagated"))
        if not isinstance(error, RunnerError) or str(error) != message:
            return [f"{where}: expected the runner's own error {message!r}, got {type(error).__name__}: {error}"]
        COVERAGE.errors[(call_name, "(runner error)", "-", "-")] += 1
        return []
    if not isinstance(error, ee.EarlyExitError):
        return [f"{where}: expected EarlyExitError {expected}, got {type(error).__name__}: {error}"]
    errs = []
    # An unknown key is named as the caller wrote it; a snapshot, artifact or receipt path as
    # the document spells it (camelCase in every language).
    as_written = (
        call_name == "fromJSON"
        or (_AS_GIVEN and expected["code"] == "unknown_option")
        or expected["code"] in ("invalid_artifact", "invalid_receipt")
        # The loop lifecycle names its documents as written (`auditRuns`, a run's keys).
        or call_name in ("promoteLoopPolicy", "checkLoopDrift")
    )
    want_field = expected["field"] if as_written else python_field(expected["field"])
    if call_name == "readJunit":
        want_field = JUNIT_FIELDS.get(expected["field"], want_field)
    if error.code != expected["code"]:
        errs.append(f"{where}: code {error.code!r} != {expected['code']!r} ({error})")
    if error.field != want_field:
        errs.append(f"{where}: field {error.field!r} != {want_field!r} ({error})")
    is_type = isinstance(error, ee.EarlyExitTypeError)
    if expected["kind"] == "type" and not (is_type and isinstance(error, TypeError)):
        errs.append(f"{where}: expected EarlyExitTypeError, got {type(error).__name__}")
    if expected["kind"] == "range" and (is_type or not isinstance(error, ValueError)):
        errs.append(f"{where}: expected EarlyExitError (range), got {type(error).__name__}")
    COVERAGE.errors[(call_name, expected["code"], want_field, expected["kind"])] += 1
    return errs


def _resolve(arg: Any, saved: Dict[str, Any]) -> Any:
    if isinstance(arg, dict) and isinstance(arg.get("$saved"), str):
        value = copy.deepcopy(saved[arg["$saved"]])
        for patch in arg.get("patch", []):
            segments: List[Any] = []
            for part in patch["path"].split("."):
                m = re.match(r"^([^\[\]]+)((?:\[\d+\])*)$", part)
                assert m, patch["path"]
                segments.append(m.group(1))
                segments.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
            target = value
            for s in segments[:-1]:
                target = target[s]
            if patch.get("delete"):
                del target[segments[-1]]
            else:
                target[segments[-1]] = decode(patch["value"])
        return js_stringify(value) if arg.get("as") == "string" else value
    return decode(arg)


def run_vector(vector: Dict[str, Any], as_given: bool = False) -> List[str]:
    """Runs one vector; returns the list of mismatches (empty when it passes). With
    ``as_given`` (or a vector's ``"keys": "as given"``) its objects keep their JS spelling."""
    global _AS_GIVEN, _LAYERS_AS_GIVEN
    _LAYERS_AS_GIVEN = vector.get("keys") == "as given"
    _AS_GIVEN = as_given or _LAYERS_AS_GIVEN
    try:
        return _run_vector(vector)
    finally:
        _AS_GIVEN = False
        _LAYERS_AS_GIVEN = False


def _run_vector(vector: Dict[str, Any]) -> List[str]:
    engine_name = vector["engine"]
    make = ENGINES[engine_name]
    COVERAGE.vectors[engine_name] += 1
    errs: List[str] = []
    construct = decode(vector.get("construct") or {})
    try:
        engine = make(construct)
    except Exception as e:  # noqa: BLE001 - compared below
        if "throws" not in vector:
            return [f"constructor raised {type(e).__name__}: {e}"]
        return _check_throws(vector["throws"], e, "construct", "constructor")
    if "throws" in vector:
        return [f"constructor should have raised {vector['throws']}"]
    saved: Dict[str, Any] = {}
    for i, call in enumerate(vector["calls"]):
        name = call["call"]
        where = f"call {i} ({name})"
        before = engine.snapshot() if engine.snapshot is not None else None
        try:
            args = [_resolve(a, saved) for a in call.get("args", [])]
            facts: Dict[str, Any] = {}
            if name == "new":
                engine = make(decode(call["construct"]))
                returned = None
            elif name == "fromJSON":
                engine.from_json(args[0])  # type: ignore[attr-defined]
                returned = None
            else:
                returned, facts = engine.call(name, args, {**call, "layers": decode(call.get("layers"))})
        except Exception as e:  # noqa: BLE001 - compared below
            facts = getattr(e, "facts", {})
            if "throws" not in call:
                errs.append(f"{where}: unexpected {type(e).__name__}: {e}")
            else:
                errs.extend(_check_throws(call["throws"], e, name, where))
                after = engine.snapshot() if engine.snapshot is not None else None
                if name not in ("fromJSON", "new") and before != after:
                    errs.append(f"{where}: the engine changed although the call was rejected")
        else:
            if "throws" in call:
                errs.append(f"{where}: expected {call['throws']}, returned {returned!r}")
            elif "returns" in call:
                errs.extend(compare(decode(call["returns"]), returned, f"{where}.returns"))
            elif returned is not None:
                errs.append(f"{where}: expected no return value, got {returned!r}")
            if "saveAs" in call:
                saved[call["saveAs"]] = returned
        if "runnerCalls" in call:
            errs.extend(compare(call["runnerCalls"], facts.get("runnerCalls"), f"{where}.runnerCalls"))
        if "analyticsCalls" in call:
            got = getattr(engine, "analytics_calls", 0)
            if got != call["analyticsCalls"]:
                errs.append(f"{where}: analyticsCalls {got} != {call['analyticsCalls']}")
    if "analyticsCalls" in vector:
        got = getattr(engine, "analytics_calls", 0)
        if got != vector["analyticsCalls"]:
            errs.append(f"analyticsCalls {got} != {vector['analyticsCalls']}")
    if "callbacks" in vector:
        errs.extend(compare(vector["callbacks"], getattr(engine, "callbacks", None), "callbacks"))
    return errs
