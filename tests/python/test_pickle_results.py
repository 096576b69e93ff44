"""Every result object pickles and copies faithfully (multiprocessing pools, joblib and Ray
return results from workers by pickling them): for each result class and each variant a
real engine call produces, a round trip through ``pickle`` at every protocol and through
``copy.deepcopy`` gives an equal object with an equal ``to_dict()``; a spawn-context pool
returns the decisions the parent computes; a tampered payload raises a typed error naming
the field."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError

T0 = "2026-01-01T00:00:0{}.000Z"


def loop(scores: List[Tuple[float, float, str]], usage: Optional[Dict[str, float]] = None, analytics: Any = None, **options: Any) -> Tuple[ee.EarlyStopping, List[ee.StoppingDecision]]:
    """Records `(quality, confidence, status)` one by one, deciding after each record."""
    es = ee.EarlyStopping(analytics=analytics, **options) if analytics is not None else ee.EarlyStopping(**options)
    decisions = []
    previous = None
    for i, (quality, confidence, status) in enumerate(scores, start=1):
        delta = 0.0 if previous is None else quality - previous
        es.record(i, quality, confidence, status, delta, T0.format(i), **(usage or {}))
        previous = quality
        decisions.append(es.should_stop())
    return es, decisions


FLAT = [(70.0, 0.5, "failed")] * 4
RISING = [(40.0, 0.4, "failed"), (60.0, 0.5, "failed"), (80.0, 0.6, "failed")]


def decisions_by_trigger() -> Dict[str, ee.StoppingDecision]:
    """One real decision per trigger and variant (keys say which)."""
    out: Dict[str, ee.StoppingDecision] = {}
    _, d = loop([(95.0, 0.95, "passed")], require_verification=True)
    out["high_confidence_verified"] = d[-1]
    _, d = loop([(95.0, 0.95, "failed")], require_verification=False)
    out["high_confidence_unverified"] = d[-1]
    _, d = loop(FLAT)
    out["plateau_relative"] = d[-1]
    _, d = loop(FLAT, plateau_mode="absolute", plateau_improvement_threshold=2)
    out["plateau_absolute"] = d[-1]
    analytics = ee.IterationAnalytics(diminishing_returns_threshold=0.05)
    es = ee.EarlyStopping(analytics=analytics, enable_plateau_detection=False)
    for i, q in enumerate([70.0, 70.5, 70.6, 70.7, 70.8], start=1):
        es.record(i, q, 0.5, "failed", 0.1, T0.format(i))
        analytics.record(i, q, "failed")
    out["diminishing_returns"] = es.should_stop()
    _, d = loop(RISING, max_iterations=3, enable_plateau_detection=False)
    out["max_iterations"] = d[-1]
    _, d = loop(RISING, usage={"tokens_used": 100.0}, max_total_tokens=150.0, max_total_cost_usd=1.0)
    out["budget_exhausted"] = d[-1]
    _, d = loop(RISING, usage={"token_cost_usd": 0.2, "execution_time_ms": 10.0}, max_total_cost_usd=0.3, max_wall_clock_ms=1e6)
    out["budget_exhausted_cost"] = d[-1]
    _, d = loop([(80.0, 0.5, "failed"), (60.0, 0.5, "failed"), (60.0, 0.5, "failed")], regression_tolerance=5, regression_patience=2, enable_plateau_detection=False)
    out["quality_regression"] = d[-1]
    _, d = loop([(80.0, 0.5, "failed"), (75.0, 0.5, "failed"), (76.0, 0.5, "failed")], no_improvement_patience=2, enable_plateau_detection=False)
    out["no_improvement"] = d[-1]
    _, d = loop([(95.0, 0.95, "passed")], min_iterations=3)
    out["warm_up"] = d[-1]
    _, d = loop(RISING[:2])
    out["continue"] = d[-1]
    out["empty"] = ee.EarlyStopping().should_stop()
    return out


def loop_results() -> List[Tuple[str, Any]]:
    out: List[Tuple[str, Any]] = []
    for name, decision in decisions_by_trigger().items():
        out.append((f"decision:{name}", decision))
    es, _ = loop(RISING, usage={"tokens_used": 10.0, "token_cost_usd": 0.01, "execution_time_ms": 1.5}, max_total_tokens=15.0)
    out += [("record:usage", es.history[0]), ("summary:budget", es.summary())]
    es, _ = loop(FLAT)
    out += [("record:plain", es.history[0]), ("summary:plateau", es.summary())]
    es, _ = loop(RISING[:2])
    out.append(("summary:continue", es.summary()))
    out.append(("summary:empty", ee.EarlyStopping().summary()))
    return out


def analytics_results() -> List[Tuple[str, Any]]:
    empty = ee.IterationAnalytics()
    out: List[Tuple[str, Any]] = [
        ("selection:empty", empty.select_best_iteration()),
        ("summary:empty", empty.summary()),
        ("report:empty", empty.detect_diminishing_returns()),
    ]
    a = ee.IterationAnalytics(selection_criteria="highest_quality_verified")
    out.append(("record:usage", a.record(1, 60.0, "passed", tokens_used=5.0, token_cost_usd=0.5, execution_time_ms=3.25)))
    out.append(("record:plain", a.record(2, 60.1, "failed")))
    for i, q in enumerate([60.2, 60.25, 60.3], start=3):
        a.record(i, q, "passed")
    out += [
        ("selection:full", a.select_best_iteration()),
        ("summary:full", a.summary()),
        ("report:detected", a.detect_diminishing_returns()),
    ]
    return out


LAYER = {"pass_rate": 1.0, "coverage": 0.95, "flaky_ratio": 0.0, "name": "unit", "extra": [1, {"k": None}]}


def pyramid_results() -> List[Tuple[str, Any]]:
    out: List[Tuple[str, Any]] = []
    config = ee.EarlyExitConfig(verification_layers=2)
    exit_signals = [(50, 50, 0.0, 0), (50, 50, 0.0, 1), (80, 80, 0.0, 1), (80, 80, 0.6, 1), (80, 50, 0.0, 2), (80, 70, 0.4, 1)]
    for lam, prev, concentration, layer in exit_signals:
        signal = ee.QualitySignal(lambda_=lam, lambda_prev=prev, boundary_concentration=concentration)
        decision = ee.CoherenceEarlyExit(ee.EarlyExitConfig.DEFAULT, 4).should_exit(signal, layer)
        out.append((f"exit:{decision.reason}", decision))
    reasons = {}
    layer_sets = {
        "confident": [LAYER] * 4,
        "too_low": [{"pass_rate": 0.5, "coverage": 0.5, "flaky_ratio": 0.0}] * 4,
        "flaky": [{"pass_rate": 0.95, "coverage": 0.95, "flaky_ratio": 0.2}] * 4,
        "boundary": [{"pass_rate": 0.85, "coverage": 0.85, "flaky_ratio": 0.15}] * 4,
        "unstable": [LAYER, {"pass_rate": 0.8, "coverage": 0.8, "flaky_ratio": 0.0}, LAYER, LAYER],
    }
    for name, layers in layer_sets.items():
        for conf_name, conf in [("default", ee.EarlyExitConfig.DEFAULT), ("aggressive", ee.EarlyExitConfig.AGGRESSIVE), ("noverify", ee.EarlyExitConfig(verification_layers=0))]:
            last = {"name": "nocost"} if conf_name != "noverify" else {"name": "l3", "cost_ms": 0.5}
            run = ee.PyramidRun.start(conf, 4, [{"name": f"l{i}", "cost_ms": 10.0 * (i + 1)} for i in range(3)] + [last])
            step = run.next()
            while step.layer is not None:
                out.append((f"action:{step.action}", step))
                run.submit(step.layer, layers[step.layer])
                step = run.next()
            out.append(("action:done", step))
            result = run.result()
            reasons[result.exit_reason] = True
            out.append((f"pyramid:{name}:{conf_name}:{result.exit_reason}", result))
            out += [(f"speculation:{name}", s) for s in result.speculations]
            out += [(f"failing:{name}", f) for f in result.failing_layers]
    empty = ee.PyramidRun.start(None, 1, [])
    out.append(("pyramid:empty", empty.result()))
    executor = ee.SpeculativeExecutor(config)
    predictions = executor.speculate(next(d for n, d in out if n == "exit:confident_exit"), 3)
    out += [("speculation:unverified", s) for s in predictions]
    return out


def policy_results() -> List[Tuple[str, Any]]:
    """Runs decided by a policy (their results carry a policy report) and the model that merges."""
    model = ee.OutcomeModel(window=20)
    for seq in range(30):
        model = model.learn([{"name": "unit", "failed": False, "duration_ms": 1.0}, {"name": "e2e", "failed": False}], build_id="main", seq=seq)
    out: List[Tuple[str, Any]] = [("model", model)]
    out.append(("model:converted", ee.OutcomeModel(ee.pyramid_policy_update(None, [{"name": "unit", "failed": True}]))))
    for policy, knobs, fails in [
        ("fail_fast", None, [False, True]),
        ("fail_fast", None, [False, False]),
        ("risk_bounded", {"risk_budget": 0.5, "forgetting": 1}, [False, False]),
    ]:
        controller = ee.EarlyExitController(None, 2, policy=policy, model=model, policy_config=knobs)
        layers = [(n, lambda f=f: {"pass_rate": 0.5 if f else 1.0, "coverage": 1.0, "flaky_ratio": 0.0}) for n, f in zip(["unit", "e2e"], fails)]
        result = controller.run(layers)
        out.append((f"pyramid:policy:{policy}:{result.exit_reason}", result))
    return out


def behavior_results() -> List[Tuple[str, Any]]:
    out: List[Tuple[str, Any]] = [("thresholds:default", ee.THRESHOLDS)]
    detector = ee.BehaviorDetector(thresholds={"stuck": {"same_error_count": 2}, "regression": {}})
    out.append(("thresholds:partial", detector.thresholds))
    history = [
        {"number": n, "analysis": {"error": "E", "completion_percentage": 0.1, "artifacts_modified": ["a"] if n % 2 else ["b"],
                                   "learnings": "unrelated", "tests_passing": n % 2 == 1, "coverage_percent": 90 - 20 * n},
         "context": {"objective": "fix the parser", "max_iterations": 2}}
        for n in range(1, 5)
    ]
    found = ee.BehaviorDetector().detect(history)
    out += [(f"detection:{d.type}", d) for d in found]
    system = ee.InterventionSystem(clock=lambda: "2026-01-01T00:00:00.000Z")
    for severity in ("low", "medium", "high", "critical"):
        for d in found + [{"type": "stuck", "severity": severity, "message": "m", "evidence": {"repeated_error": "E", "occurrences": 3}}]:
            detection = d if isinstance(d, dict) else {**d.to_dict(), "severity": severity}
            out.append((f"intervention:{severity}", system.intervene(detection)))
    system.resume()
    out.append(("intervention:resume", system.log(1)[0]))
    out.append(("summary:interventions", system.summary()))
    return out


ALL = loop_results() + analytics_results() + pyramid_results() + policy_results() + behavior_results()
ALL.append(("loop_replay", ee.replay_loops([{"id": "a", "iterations": [{"quality_score": 40.0, "confidence": 0.4, "verification_status": "failed"}]}], "recommended")))
ALL.append(("loop_calibration", ee.calibrate_loop_policy([{"id": "a", "iterations": [{"quality_score": 100.0, "confidence": 1.0, "verification_status": "passed"}]}])))
ALL.append(("signal", ee.calculate_quality_signal(LAYER)))
IDS = [f"{i}:{name}" for i, (name, _) in enumerate(ALL)]


def test_the_cases_cover_every_class_and_variant() -> None:
    """Guards the case list itself: each result class, trigger, exit reason and action."""
    classes = {type(o).__name__ for _, o in ALL}
    native = {n for n in dir(ee._native) if isinstance(getattr(ee._native, n), type)}
    engines_and_configs = {"EarlyStopping", "IterationAnalytics", "PyramidRun", "CoherenceEarlyExit", "SpeculativeExecutor",
                           "EarlyStoppingConfig", "AnalyticsConfig", "EarlyExitConfig", "LayerResult",
                           "BehaviorDetector", "InterventionSystem",
                           "_Loop",  # the package's Loop wraps it and pickles (test_loop.py)
                           "_Store"}  # an open store file (earlyexit.Store): not a value, never pickled
    assert native - engines_and_configs <= classes, native - engines_and_configs - classes
    triggers = {o.trigger for _, o in ALL if isinstance(o, ee.StoppingDecision)}
    assert triggers == {"none", "high_confidence", "quality_plateau", "diminishing_returns", "max_iterations",
                        "budget_exhausted", "quality_regression", "no_improvement"}
    assert {o.reason for _, o in ALL if isinstance(o, ee.ExitDecision)} == {
        "forced_continue", "lambda_too_low", "lambda_unstable", "boundaries_concentrated", "insufficient_confidence", "confident_exit"}
    results = [o for _, o in ALL if isinstance(o, ee.TestPyramidResult)]
    assert {r.exit_reason for r in results} == {"forced_continue", "confident_exit", "layer_failed", "completed", "risk_bounded"}, (
        "an ADR run's result has only the first two; a policy run's the other three"
    )
    assert any(r.speculations and r.verified_layers for r in results) and any(r.speculations and not r.verified_layers for r in results)
    assert any(r.compute_saved_ms is None for r in results) and any(r.compute_saved_ms for r in results)
    assert any(r.mispredictions for r in results) and any(not r.layers for r in results)
    assert {o.action for _, o in ALL if isinstance(o, ee.PyramidAction)} == {"run", "verify", "done"}
    assert {o.level for _, o in ALL if isinstance(o, ee.Intervention)} == {"log", "warn", "redirect", "pause", "abort", "resume"}
    assert {o.type for _, o in ALL if isinstance(o, ee.Detection)} == {"stuck", "oscillation", "deviation", "resource_burn", "regression"}
    assert {r.verdict for r in results} == {"failed", "passed", "unverified"}
    assert any(s.actual is not None for _, s in ALL if isinstance(s, ee.Speculation))
    assert any(s.actual is None for _, s in ALL if isinstance(s, ee.Speculation))
    summaries = [o for _, o in ALL if isinstance(o, ee.StoppingSummary)]
    assert {s.total_iterations == 0 for s in summaries} == {True, False}
    assert {s.stopped_early for s in summaries} == {True, False}
    decisions = decisions_by_trigger()
    assert decisions["warm_up"].best_iteration == 1 and decisions["empty"].best_iteration is None
    assert decisions["budget_exhausted"].budgets[1]["records_without_value"] == 3
    assert "verification_status" in decisions["high_confidence_verified"].details
    assert "verification_status" not in decisions["high_confidence_unverified"].details


def same(a: Any, b: Any) -> None:
    assert type(b) is type(a)
    assert b == a
    assert b.to_dict() == a.to_dict()
    assert repr(b) == repr(a)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_round_trip_through_pickle_and_copy(case: Tuple[str, Any]) -> None:
    _, obj = case
    for protocol in range(0, pickle.HIGHEST_PROTOCOL + 1):
        same(obj, pickle.loads(pickle.dumps(obj, protocol=protocol)))
    same(obj, copy.deepcopy(obj))
    same(obj, copy.copy(obj))


def test_nested_results_pickle_in_one_payload() -> None:
    payload = {name: obj for name, obj in ALL}
    again = pickle.loads(pickle.dumps(payload))
    assert again == payload


def decide_in_worker(scores: List[Tuple[float, float, str]]) -> Tuple[ee.StoppingDecision, ee.StoppingSummary, ee.TestPyramidResult]:
    """Runs in a spawned worker: a loop decision, its summary and a pyramid result."""
    es, decisions = loop(scores, max_total_tokens=1e9, usage={"tokens_used": 1.0})
    controller = ee.EarlyExitController(ee.EarlyExitConfig.DEFAULT, 3)
    result = controller.run([("unit", lambda: LAYER), ("integration", lambda: LAYER), ("e2e", lambda: LAYER)])
    return decisions[-1], es.summary(), result


def test_a_spawn_pool_returns_the_decisions_the_parent_computes() -> None:
    tasks = [FLAT, RISING, [(95.0, 0.95, "passed")], RISING[:1]]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        from_workers = pool.map(decide_in_worker, tasks)
    assert from_workers == [decide_in_worker(t) for t in tasks]
    assert [d.trigger for d, _, _ in from_workers] == ["quality_plateau", "none", "high_confidence", "none"]


def restore(cls: str, value: Dict[str, Any]) -> Any:
    return ee._native._restore_result(cls, value)


def payload(name: str) -> Tuple[str, Dict[str, Any]]:
    obj = next(o for n, o in ALL if n == name)
    fn, (cls, value) = obj.__reduce__()
    assert fn is ee._native._restore_result
    return cls, copy.deepcopy(value)


def tampered(name: str, change: Callable[[Dict[str, Any]], None]) -> Tuple[str, Dict[str, Any]]:
    cls, value = payload(name)
    change(value)
    return cls, value


def put(path: str, item: Any) -> Callable[[Dict[str, Any]], None]:
    def change(value: Dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = value
        for p in parents:
            target = target[int(p)] if p.isdigit() else target[p]
        if item is KeyError:
            del target[int(last) if last.isdigit() else last]
        else:
            target[int(last) if last.isdigit() else last] = item
    return change


BAD = [
    # (case, change, error type, code, field)
    ("decision:budget_exhausted", put("confidence", "high"), EarlyExitTypeError, "invalid_snapshot", "confidence"),
    ("decision:budget_exhausted", put("stop", KeyError), EarlyExitTypeError, "invalid_snapshot", "stop"),
    ("decision:budget_exhausted", put("colour", 1), EarlyExitTypeError, "invalid_snapshot", "colour"),
    ("decision:budget_exhausted", put("confidence", 1.5), EarlyExitError, "invalid_snapshot", "confidence"),
    ("decision:budget_exhausted", put("budgets.0.observed", -1), EarlyExitError, "invalid_snapshot", "budgets[0].observed"),
    ("decision:budget_exhausted", put("details.budget", "time"), EarlyExitError, "invalid_snapshot", "details.budget"),
    ("decision:plateau_absolute", put("details.improvements.1.iteration", 0), EarlyExitError, "invalid_snapshot", "details.improvements[1].iteration"),
    ("decision:no_improvement", put("trigger", "bored"), EarlyExitError, "invalid_snapshot", "trigger"),
    ("decision:no_improvement", put("details", KeyError), EarlyExitError, "invalid_snapshot", "details"),
    ("decision:no_improvement", put("best_quality_score", None), EarlyExitError, "invalid_snapshot", "best_quality_score"),
    ("decision:continue", put("best_iteration", 0), EarlyExitError, "invalid_snapshot", "best_iteration"),
    ("record:usage", put("tokens_used", -5), EarlyExitError, "invalid_snapshot", "tokens_used"),
    ("record:usage", put("timestamp", KeyError), EarlyExitTypeError, "invalid_snapshot", "timestamp"),
    ("record:usage", put("quality_score", "high"), EarlyExitTypeError, "invalid_snapshot", "quality_score"),
    ("summary:budget", put("config.maxIterations", 0), EarlyExitError, "invalid_snapshot", "config.maxIterations"),
    ("summary:budget", put("final_verification", "maybe"), EarlyExitError, "invalid_snapshot", "final_verification"),
    ("summary:budget", put("config", None), EarlyExitTypeError, "invalid_snapshot", "config"),
    ("summary:empty", put("total_iterations", 2), EarlyExitError, "invalid_snapshot", "total_iterations"),
    ("selection:full", put("selected.quality_delta", KeyError), EarlyExitTypeError, "invalid_snapshot", "selected.quality_delta"),
    ("summary:full", put("extra", 1), EarlyExitTypeError, "invalid_snapshot", "extra"),
    ("summary:full", put("diminishing_returns_detected", "yes"), EarlyExitTypeError, "invalid_snapshot", "diminishing_returns_detected"),
    ("summary:full", put("quality_trajectory", "sideways"), EarlyExitError, "invalid_snapshot", "quality_trajectory"),
    ("summary:full", put("iterations.1.timestamp", "noon"), EarlyExitError, "invalid_snapshot", "iterations[1].timestamp"),
    ("report:detected", put("iteration", 0), EarlyExitError, "invalid_analytics", "iteration"),
    ("exit:confident_exit", put("exit_layer", -2), EarlyExitError, "invalid_snapshot", "exit_layer"),
    ("exit:confident_exit", put("reason", "tired"), EarlyExitError, "invalid_snapshot", "reason"),
    # Read under either spelling, so given twice: named by its Python spelling.
    ("exit:confident_exit", put("canExit", True), EarlyExitTypeError, "invalid_snapshot", "can_exit"),
    ("speculation:unverified", put("predicted", "maybe"), EarlyExitError, "invalid_signal", "predicted"),
    ("pyramid:empty", put("layers_executed", [0.5]), EarlyExitError, "invalid_snapshot", "layers_executed[0]"),
    ("pyramid:empty", put("compute_saved_ms", KeyError), EarlyExitTypeError, "invalid_snapshot", "compute_saved_ms"),
    # Results that explain themselves: the layer lists and the note are read back and checked.
    ("pyramid:empty", put("layers_before_exit", [0.5]), EarlyExitError, "invalid_snapshot", "layers_before_exit[0]"),
    ("pyramid:empty", put("layers_verified", [0]), EarlyExitError, "invalid_snapshot", "layers_before_exit"),
    ("pyramid:empty", put("layers_not_run", KeyError), EarlyExitTypeError, "invalid_snapshot", "layers_not_run"),
    ("pyramid:empty", put("note", "made up"), EarlyExitError, "invalid_snapshot", "note"),
    ("speculation:unverified", put("layer", 1), EarlyExitTypeError, "invalid_signal", "name"),
    ("speculation:unverified", put("layer", -1), EarlyExitError, "invalid_signal", "layer"),
    ("pyramid:empty", put("verdict", "green"), EarlyExitError, "invalid_snapshot", "verdict"),
    ("pyramid:empty", put("verdict", KeyError), EarlyExitTypeError, "invalid_snapshot", "verdict"),
    ("pyramid:empty", put("failing_layers", [{"layer": 0, "name": "unit"}]), EarlyExitError, "invalid_snapshot", "failing_layers"),
    ("pyramid:empty", put("failing_layers", [{"layer": "0", "name": "unit"}]), EarlyExitTypeError, "invalid_snapshot", "failing_layers[0].layer"),
    ("failing:too_low", put("layer", -1), EarlyExitError, "invalid_snapshot", "layer"),
    ("failing:too_low", put("name", KeyError), EarlyExitTypeError, "invalid_snapshot", "name"),
    ("action:done", put("layer", 1), EarlyExitTypeError, "invalid_snapshot", "layer"),
    ("action:run", put("layer", -1), EarlyExitError, "invalid_snapshot", "layer"),
    # Any text is a severity (upstream's default branch logs it); not text is refused.
    ("detection:regression", put("severity", 3), EarlyExitTypeError, "invalid_snapshot", "severity"),
    ("detection:regression", put("recommendations", "none"), EarlyExitTypeError, "invalid_snapshot", "recommendations"),
    ("intervention:medium", put("warning", KeyError), EarlyExitTypeError, "invalid_snapshot", "warning"),
    ("intervention:resume", put("timestamp", "later"), EarlyExitError, "invalid_snapshot", "timestamp"),
    ("summary:interventions", put("total", -1), EarlyExitError, "invalid_snapshot", "total"),
    ("thresholds:partial", put("stuck.same_error_count", 0), EarlyExitError, "invalid_config", "thresholds.stuck.same_error_count"),
]


@pytest.mark.parametrize("name, change, kind, code, field", BAD, ids=[f"{b[0]}:{b[4]}" for b in BAD])
def test_a_tampered_payload_names_the_field(name: str, change: Callable[[Dict[str, Any]], None], kind: type, code: str, field: str) -> None:
    cls, value = tampered(name, change)
    with pytest.raises(kind) as raised:
        restore(cls, value)
    assert (raised.value.code, raised.value.field) == (code, field), str(raised.value)
    if kind is EarlyExitError:
        assert not isinstance(raised.value, EarlyExitTypeError), "a range problem, not a type problem"


def test_a_tampered_pyramid_layer_and_class_name_are_refused() -> None:
    name = next(n for n, o in ALL if isinstance(o, ee.TestPyramidResult) and o.layers and o.speculations)
    cls, value = tampered(name, put("layers.0.pass_rate", 2))
    with pytest.raises(EarlyExitError) as raised:
        restore(cls, value)
    assert raised.value.field == "layers[0].pass_rate"
    with pytest.raises(EarlyExitError) as raised:
        restore("EarlyStopping", {})
    assert raised.value.field == "class"
    with pytest.raises(EarlyExitTypeError) as raised:
        restore("StoppingDecision", [])  # type: ignore[arg-type]
    assert raised.value.field == "decision"
