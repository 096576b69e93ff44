"""Exercises the public API under ``mypy --strict`` (run by scripts/test-python.sh); pytest
also runs it (test_typed_usage.py) so the annotated calls are checked at runtime too."""

from __future__ import annotations

import asyncio
import pathlib
import pickle
from typing import Dict, List, Mapping, Optional, Tuple

import earlyexit
from earlyexit import (
    AnalyticsRecord,
    AnalyticsSummary,
    AnalyticsSummaryDict,
    Budget,
    BudgetExhaustedDetails,
    BudgetStatusDict,
    CoherenceEarlyExit,
    DiminishingReturnsReport,
    EarlyExitConfig,
    EarlyExitController,
    EarlyExitError,
    EarlyExitTypeError,
    EarlyStopping,
    EarlyStoppingConfig,
    EarlyStoppingConfigDict,
    EarlyStoppingOptions,
    ExitDecision,
    ExitReason,
    FailingLayerDict,
    IterationAnalytics,
    IterationRecord,
    IterationResultDict,
    LayerDict,
    LayerResult,
    NoImprovementDetails,
    PlateauDeltaSource,
    PlateauMode,
    PyramidAction,
    PyramidRun,
    QualityRegressionDetails,
    QualitySignal,
    Speculation,
    SpeculativeExecutor,
    StoppingDecision,
    StoppingDecisionDict,
    StoppingSummary,
    Trajectory,
    Trigger,
    Verdict,
    calculate_quality_signal,
    count_quality_partitions,
    read_junit,
)


class FlatSource:
    """A duck-typed diminishing-returns source."""

    def detect_diminishing_returns(self) -> Dict[str, object]:
        return {"detected": False, "iteration": None, "reason": "no"}


def loop_stopping() -> Tuple[Trigger, Optional[int]]:
    analytics = IterationAnalytics(diminishing_returns_threshold=0.05, selection_criteria="highest_quality")
    stopper = EarlyStopping(high_confidence_threshold=0.9, plateau_consecutive_count=3, analytics=analytics)
    result: IterationResultDict = {
        "quality_score": 70.0,
        "confidence": 0.5,
        "verification_status": "passed",
        "quality_delta": 0.0,
        "timestamp": "2026-01-01T00:00:01.000Z",
    }
    stopper.record_result(1, result)
    stopper.record(2, 71.0, 0.6, "failed", 1.0, tokens_used=120.0)
    record: AnalyticsRecord = analytics.record(1, 70.0, "passed")
    analytics.record_iteration({"iteration_number": 2, "quality_score": 71.0, "verification_status": "failed"})
    decision: StoppingDecision = stopper.should_stop()
    as_dict: StoppingDecisionDict = decision.to_dict()
    trigger: Trigger = decision.trigger
    best: Optional[int] = decision.best_iteration
    reason: Optional[str] = stopper.stopping_reason
    history: Tuple[IterationRecord, ...] = stopper.history
    first_quality: float = history[0].quality_score
    config: EarlyStoppingConfig = stopper.config
    stopper.configure(min_quality_threshold=60.0)
    stopper.configure({"require_verification": False})
    summary: StoppingSummary = stopper.summary()
    total: int = summary.total_iterations
    report: DiminishingReturnsReport = analytics.detect_diminishing_returns()
    trajectory: Trajectory = analytics.trajectory()
    optimal: Optional[AnalyticsRecord] = analytics.optimal_iteration(verified_only=False)
    restored: EarlyStopping = EarlyStopping.from_json(stopper.to_json(), analytics=analytics)
    copy: EarlyStopping = pickle.loads(pickle.dumps(stopper))
    other = EarlyStopping(config.replace(max_iterations=10), analytics=FlatSource())
    other.reset()
    del as_dict, reason, first_quality, total, report, trajectory, optimal, restored, copy, record
    return trigger, best


def analytics_drop_in(folder: pathlib.Path) -> Tuple[str, Optional[int], pathlib.Path]:
    """upstream's iteration-analytics.mjs: its constructor form, record fields, summary,
    report and files."""
    upstream = IterationAnalytics("loop-1", "Fix the flaky tests", storage_path=folder, persist=False)
    keywords = IterationAnalytics(loop_id="loop-2", task_description="task", quality_threshold=80.0, persist=False)
    record = upstream.record(
        1, 72.5, "passed", 1200, 0.02, 5000, output_snapshot_path="/tmp/out", reflections=["terse"], timestamp="2026-01-01T00:00:00Z"
    )
    notes: Tuple[str, ...] = record.reflections
    summary: AnalyticsSummary = upstream.summary()
    as_dict: AnalyticsSummaryDict = summary.to_dict()
    trajectory: Trajectory = summary.quality_trajectory
    report: str = upstream.report(generated_at="2026-01-02T00:00:00Z")
    chart: str = upstream.quality_chart()
    saved: pathlib.Path = upstream.save_analytics()
    paths: Dict[str, pathlib.Path] = upstream.export()
    loaded = IterationAnalytics.load(saved, persist=False)
    duration: str = IterationAnalytics.format_duration(61_000)
    del keywords, notes, as_dict, trajectory, report, chart, paths, duration
    return loaded.loop_id or "", summary.optimal_iteration, saved


def loop_options() -> Tuple[Trigger, Optional[int], List[BudgetStatusDict]]:
    """The opt-in options ("Beyond the seed"): keywords, config attributes, typed results."""
    options: EarlyStoppingOptions = {
        "plateau_delta_source": "computed",
        "plateau_mode": "absolute",
        "plateau_improvement_threshold": 1.0,
        "min_iterations": 2,
        "max_iterations": 20,
        "max_total_tokens": 1000.0,
        "max_total_cost_usd": 0.5,
        "max_wall_clock_ms": 60_000.0,
        "regression_tolerance": 5.0,
        "regression_patience": 2,
    }
    stopper = EarlyStopping(**options)
    stopper.configure(max_total_tokens=150.0, min_iterations=1)
    config: EarlyStoppingConfig = stopper.config
    source: Optional[PlateauDeltaSource] = config.plateau_delta_source
    mode: Optional[PlateauMode] = config.plateau_mode
    limits: Tuple[Optional[int], Optional[int]] = (config.min_iterations, config.max_iterations)
    spend: Tuple[Optional[float], Optional[float], Optional[float]] = (
        config.max_total_tokens,
        config.max_total_cost_usd,
        config.max_wall_clock_ms,
    )
    guard: Tuple[Optional[float], Optional[int]] = (config.regression_tolerance, config.regression_patience)
    as_js: EarlyStoppingConfigDict = config.to_dict()
    max_iterations: int = as_js.get("maxIterations", 0)
    stopper.record(1, 70.0, 0.5, "failed", 0.0, tokens_used=100.0)
    stopper.record(2, 72.0, 0.5, "failed", 2.0, tokens_used=100.0)
    decision = stopper.should_stop()
    budgets: List[BudgetStatusDict] = decision.budgets
    which: Budget = budgets[0]["budget"]
    unknown: int = budgets[0]["records_without_value"]
    best_quality: Optional[float] = decision.best_quality_score
    details = decision.details
    if decision.trigger == "budget_exhausted" and details is not None and "budget" in details:
        spent: BudgetExhaustedDetails = details
        del spent
    # "patience" is in both the regression and the no-improvement details: narrow on a key
    # only one of them has.
    if decision.trigger == "quality_regression" and details is not None and "tolerance" in details:
        fell: QualityRegressionDetails = details
        del fell
    if decision.trigger == "no_improvement" and details is not None and "iterations_without_improvement" in details:
        stalled: NoImprovementDetails = details
        del stalled
    as_dict = decision.to_dict()
    listed: List[BudgetStatusDict] = as_dict.get("budgets", [])
    del source, mode, limits, spend, guard, max_iterations, which, unknown, best_quality, listed
    return decision.trigger, decision.best_iteration, budgets


def test_pyramid() -> Tuple[ExitReason, List[int]]:
    result = LayerResult(0.99, 0.9, 0.01, name="unit", extra={"suite": "api"})
    signal: QualitySignal = calculate_quality_signal(result)
    signal_from_dict = calculate_quality_signal({"pass_rate": 1.0, "coverage": 0.9, "flaky_ratio": 0.0})
    from_report: LayerResult = read_junit('<testsuite name="s"><testcase name="a"/></testsuite>', coverage_xml=None)
    del from_report
    config = EarlyExitConfig(EarlyExitConfig.AGGRESSIVE, verification_layers=2)
    decision: ExitDecision = CoherenceEarlyExit(config, 4).should_exit(signal, 1)
    speculations: Tuple[Speculation, ...] = SpeculativeExecutor(config).speculate(decision, 2)
    verified = SpeculativeExecutor(config).verify(speculations, [("e2e", lambda: result), ("perf", lambda: result)])

    def runner() -> Mapping[str, object]:
        return {"pass_rate": 1.0, "coverage": 0.95, "flaky_ratio": 0.0}

    async def async_runner() -> LayerResult:
        return result

    controller = EarlyExitController(EarlyExitConfig.DEFAULT, 3)
    sync_result = controller.run([("unit", runner), ("integration", runner), ("e2e", runner)])
    async_result = asyncio.run(controller.run_async([("unit", async_runner), ("e2e", runner)]))
    run: PyramidRun = PyramidRun.start(None, 2, [{"name": "unit", "cost_ms": 5.0}, {"name": "e2e"}])
    step: PyramidAction = run.next()
    while step.layer is not None:
        run.submit(step.layer, result)
        step = run.next()
    saved: Optional[float] = run.result().compute_saved_ms
    verdict: Verdict = sync_result.verdict
    failing: List[Tuple[int, str]] = [(f.layer, f.name) for f in sync_result.failing_layers]
    failing_dicts: List[FailingLayerDict] = sync_result.to_dict()["failingLayers"]
    assert verdict == "passed" and failing == [] and failing_dicts == []
    del signal_from_dict, verified, async_result, saved
    return sync_result.exit_reason, list(sync_result.layers_executed)


def errors() -> str:
    try:
        EarlyStopping(plateau_consecutive_count=1)
    except EarlyExitTypeError as e:
        return e.field
    except EarlyExitError as e:
        return f"{e.code}:{e.field}"
    return ""


def loop_replay() -> float:
    """Loop replay and presets (docs/replay.md), typed."""
    runs: List[Dict[str, object]] = [
        {"id": "a", "iterations": [{"quality_score": 40.0, "confidence": 0.4, "verification_status": "failed"}]}
    ]
    replay: earlyexit.LoopReplay = earlyexit.replay_loops(runs, "recommended")
    again = earlyexit.replay_loops(runs, preset="seed", returns="best", config={"no_improvement_patience": 2})
    engine = earlyexit.EarlyStopping.from_preset("recommended", no_improvement_patience=3)
    strict: Optional[bool] = engine.config.strict_iterations
    first: bool = engine.record(1, 40.0, 0.4, "failed", 0.0, timestamp="2026-01-01T00:00:00Z")
    duplicate: bool = engine.record(1, 40.0, 0.4, "failed", 0.0)
    assert strict is True and not first and duplicate
    config = earlyexit.EarlyStoppingConfig.from_preset("seed")
    assert config.no_improvement_patience is None and engine.config.plateau_min_quality == 70
    assert again.summary["runs"] == 1 and "seed" in earlyexit.LOOP_PRESETS
    passed: List[Dict[str, object]] = [
        {"id": "b", "iterations": [{"quality_score": 100.0, "confidence": 1.0, "verification_status": "passed"}]}
    ]
    cal: earlyexit.LoopCalibration = earlyexit.calibrate_loop_policy(passed, 0.1, 0.1, {"steps": 20})
    also = earlyexit.calibrate_loop_policy(passed, risk=0.1, delta=0.1, valid_days=30)
    live = earlyexit.EarlyStopping.from_calibration(cal.to_json())
    certified: bool = cal.certified
    assert not certified and also.status == "too_few_runs" and live.config.no_improvement_patience is not None
    gap: float = replay.summary["mean_quality_gap"]
    return gap


def strict_users() -> int:
    """What ``mypy --strict`` users hit: the presets as preset names, ``step.layer`` narrowed
    by ``step.action``, a layer dict whose runner is typed, dicts as ``to_dict()`` spells them."""
    for name in earlyexit.LOOP_PRESETS:
        EarlyStopping.from_preset(name).reset()
    layers: List[LayerDict] = [
        {"name": "unit", "cost_ms": 1_000, "run": lambda: {"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0}},
        {"name": "e2e", "run": lambda: {"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0}},
    ]
    controller = EarlyExitController(None, len(layers))
    run = controller.start(layers)
    while (step := run.next()).action != "done":
        run.submit(step.layer, layers[step.layer]["run"]())
    assert run.result() == controller.run(layers)
    done = run.next()
    assert done.action == "done" and done.layer is None
    partitions: int = count_quality_partitions(LayerResult(pass_rate=0.5, coverage=1, flaky_ratio=0).to_dict())
    return partitions


def policies_and_models() -> Tuple[str, int]:
    """A policy decides the runs; a model that merges learns them under their keys."""
    mine = earlyexit.OutcomeModel(window=500)
    controller = EarlyExitController(None, 2, policy="risk_bounded", mode="enforced", model=mine, policy_config={"risk_budget": 0.005})
    result = controller.run([("unit", lambda: {"pass_rate": 1, "coverage": 1, "flaky_ratio": 0})], policy="fail_fast")
    report: Optional[earlyexit.PolicyReportDict] = result.policy
    assert report is not None
    mine = mine.learn(report["ran"], build_id="pr-1#1", seq=1)
    fleet: earlyexit.OutcomeModel = mine.merge(earlyexit.OutcomeModel()).merge(mine.to_dict())
    run = PyramidRun.start(None, 1, [{"name": "unit"}], policy="fail_fast", model=fleet)
    return result.exit_reason, len(fleet) + (run.next().layer or 0)


def overseer() -> Tuple[int, str]:
    """The behaviour detectors and interventions, as upstream's overseer uses them."""
    history: earlyexit.History = [
        {"number": 1, "analysis": {"error": "E1", "completion_percentage": 0.2}, "context": {"objective": "fix it", "max_iterations": 2}},
        {"number": 2, "analysis": {"error": "E1", "completion_percentage": 0.2, "tests_passing": True}},
        {"number": 3, "analysis": {"error": "E1", "completion_percentage": 0.2}, "output": "ignored"},
    ]
    thresholds: earlyexit.ThresholdsOptions = {"stuck": {"same_error_count": 3}}
    detector = earlyexit.BehaviorDetector(thresholds=thresholds)
    detector.update_thresholds({"regression": {"coverage_drop_percent": 5}})
    stuck: Optional[earlyexit.Detection] = detector.detect_stuck(history)
    found: List[earlyexit.Detection] = detector.detect(history)
    kinds: List[str] = [d.type for d in found]
    calls: List[str] = []
    system = earlyexit.InterventionSystem(on_pause=lambda i: calls.append(i.level), clock=lambda: "2026-01-01T00:00:00.000Z")
    text = ""
    for detection in found:
        intervention: earlyexit.Intervention = system.intervene(detection)
        if intervention.strategy_override is not None:
            text = intervention.strategy_override
    level: earlyexit.InterventionLevel = system.determine_level({"type": "deviation", "severity": "low", "message": "m"})
    summary: earlyexit.InterventionSummaryDict = system.summary().to_dict()
    state: earlyexit.InterventionStateDict = system.export_state()
    system.import_state(state)
    status: earlyexit.PauseStatusDict = system.pause_status()
    entry: earlyexit.InterventionDict = system.log(1)[0].to_dict()
    assert stuck is not None and kinds[0] == "stuck" and level == earlyexit.INTERVENTION_LEVELS["LOG"]
    assert entry["level"] in ("redirect", "warn", "pause", "abort") and status["reason"] is None
    return summary["total"], text


def run_store() -> Tuple[int, bool]:
    """The run store (docs/store.md), typed."""
    import tempfile

    folder = tempfile.mkdtemp()
    url = f"sqlite:{folder}/store.db"
    loop = earlyexit.Loop("recommended", max_iterations=3, task="t", store=url, run_label="typed")
    loop.step("a", 50)
    loop.finish()
    with earlyexit.Store.open(url) as store:
        added: bool = store.add_run({"id": "u", "iterations": [
            {"quality_score": 90, "confidence": 0.9, "verification_status": "passed"}]}, run_label="typed")
        stored: List[earlyexit.StoredRun] = list(store.runs(run_label="typed", limit=10))
        labels: List[Optional[str]] = [r.run_label for r in stored]
        report: earlyexit.StoreCheckDict = store.check()
        artifact: Optional[earlyexit.StoredArtifactDict] = store.artifact("none")
        check: Dict[str, object] = earlyexit.verify_receipts(store, store.DEFAULT_LOOP_LOG)
        assert labels == ["typed", "typed"] and artifact is None and check["valid"] is True
        return report["runs"], added


def main() -> None:
    assert run_store() == (2, True)
    assert policies_and_models() == ("completed", 1)
    assert strict_users() == 1
    total, text = overseer()
    assert total == 2 and text.startswith("OVERRIDE: Change approach immediately.")
    assert loop_replay() == 0.0
    trigger, best = loop_stopping()
    reason, executed = test_pyramid()
    assert trigger in ("none", "high_confidence", "quality_plateau", "diminishing_returns")
    assert best == 2 or best is None or best == 1
    assert reason == "confident_exit" and executed[0] == 0
    assert errors() == "invalid_config:plateau_consecutive_count"
    options_trigger, options_best, budgets = loop_options()
    assert (options_trigger, options_best) == ("budget_exhausted", 2)
    assert budgets[0] == {"budget": "tokens", "limit": 150, "observed": 200, "records_without_value": 0, "exhausted": True}
    assert [b["budget"] for b in budgets] == ["tokens", "cost_usd", "wall_clock_ms"]
    assert budgets[1]["records_without_value"] == 2, "no cost reported: unknown, not zero"
    assert earlyexit.__version__ == "0.1.0"
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        loop_id, optimal, saved = analytics_drop_in(pathlib.Path(folder))
        assert (loop_id, optimal) == ("loop-1", 1) and saved == pathlib.Path(folder) / "loop-1.json"


if __name__ == "__main__":
    main()
