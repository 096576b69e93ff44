"""Python accepts what it emits: every input that takes a dict reads the keys that the
matching ``to_dict()`` or JSON format uses (the JS spelling, ``passRate``) as well as
snake_case (``pass_rate``); a dict that gives one field both ways raises
``EarlyExitTypeError`` naming the field in its Python spelling, and changes nothing.
Keyword arguments replace a positional mapping's entry in either spelling."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Dict, List, Tuple

import pytest

import earlyexit as ee
from earlyexit import EarlyExitTypeError

JS_LAYER = {"passRate": 0.8, "coverage": 0.9, "flakyRatio": 0.1, "previousLambda": 70.0, "durationMs": 5, "suite": "x"}
SNAKE_LAYER = {"pass_rate": 0.8, "coverage": 0.9, "flaky_ratio": 0.1, "previous_lambda": 70.0, "duration_ms": 5, "suite": "x"}
BOTH_LAYER = {**SNAKE_LAYER, "passRate": 0.8}
GREEN = ee.LayerResult(pass_rate=1, coverage=0.95, flaky_ratio=0)
SIGNAL = ee.QualitySignal(lambda_=90, lambda_prev=88, boundary_edges=0, boundary_concentration=0.1, partition_count=0, flags=0)


def both_spellings_raise(call: Callable[[], Any], code: str, field: str) -> None:
    with pytest.raises(EarlyExitTypeError) as info:
        call()
    assert (info.value.code, info.value.field) == (code, field)
    assert "is given twice" in str(info.value), str(info.value)


# One row per dict-taking input: (name, call with a dict, the dict as to_dict()/JSON spells it,
# the same in snake_case, a dict giving one field both ways, the error's code and field).
Row = Tuple[str, Callable[[Any], Any], Any, Any, Any, str, str]
LOOP_CONFIG = ee.EarlyStoppingConfig(plateau_consecutive_count=4, max_total_cost_usd=2.0, plateau_mode="absolute", plateau_improvement_threshold=2)
EXIT = ee.EarlyExitConfig(exit_layer=2, min_lambda_for_exit=70, adaptive_exit_layer=False)
SPECS_SNAKE = [{"name": "unit", "cost_ms": 10}, {"name": "e2e", "cost_ms": 100}]
RUN_JS = {"id": "a", "layers": [{"name": "unit", "durationMs": 1, "failed": True, "flakyRatio": 0.1}, {"name": "e2e", "durationMs": 9, "failed": True}]}
RUN_SNAKE = {"id": "a", "layers": [{"name": "unit", "duration_ms": 1, "failed": True, "flaky_ratio": 0.1}, {"name": "e2e", "duration_ms": 9, "failed": True}]}
RUN_BOTH = {"id": "a", "layers": [{"name": "unit", "duration_ms": 1, "durationMs": 1, "failed": True}]}
MODEL = ee.pyramid_policy_update(None, [{"name": "unit", "failed": False, "duration_ms": 1}, {"name": "e2e", "failed": False}])
LOOP_RUNS = [{"id": "r", "iterations": [{"quality_score": q, "confidence": 0.9, "verification_status": "failed"} for q in (50, 60, 60, 60)]}]


T0 = "2026-01-01T00:00:00.000Z"


def _analytics() -> Any:
    a = ee.IterationAnalytics("loop", "task", persist=False, start_time=T0, end_time=T0, quality_threshold=60)
    a.record(1, 50, "passed", 100, 0.1, 10, output_snapshot_path="/out/1", reflections=["first"], timestamp=T0)
    a.record(2, 70, "failed", timestamp=T0)
    a.record(3, 71, "passed", tokens_used=5, timestamp=T0)
    return a


SUMMARY = _analytics().summary().to_dict()


def _run(layers: List[Dict[str, Any]]) -> Any:
    return [{**spec, "run": lambda: {"passRate": 1, "coverage": 0.95, "flakyRatio": 0}} for spec in layers]


ROWS: List[Row] = [
    ("EarlyStoppingConfig(mapping)", ee.EarlyStoppingConfig, LOOP_CONFIG.to_dict(), {"plateau_consecutive_count": 4, "max_total_cost_usd": 2.0, "plateau_mode": "absolute", "plateau_improvement_threshold": 2},
     {"plateau_consecutive_count": 4, "plateauConsecutiveCount": 4}, "invalid_config", "plateau_consecutive_count"),
    ("EarlyStopping(mapping)", lambda c: ee.EarlyStopping(c).config, {"minQualityThreshold": 60}, {"min_quality_threshold": 60},
     {"minQualityThreshold": 60, "min_quality_threshold": 60}, "invalid_config", "min_quality_threshold"),
    ("EarlyStopping.from_preset-free replay config", lambda c: ee.replay_loops(LOOP_RUNS, config=c).to_dict(), {"noImprovementPatience": 2}, {"no_improvement_patience": 2},
     {"noImprovementPatience": 2, "no_improvement_patience": 2}, "invalid_replay", "config.no_improvement_patience"),
    ("replay_loops(runs, policy)", lambda p: ee.replay_loops(LOOP_RUNS, p).to_dict(), {"config": {"plateauConsecutiveCount": 2}, "returns": "best"},
     {"config": {"plateau_consecutive_count": 2}, "returns": "best"}, {"config": {"plateau_consecutive_count": 2, "plateauConsecutiveCount": 2}},
     "invalid_replay", "config.plateau_consecutive_count"),
    ("AnalyticsConfig(mapping)", ee.AnalyticsConfig, ee.AnalyticsConfig(quality_threshold=60).to_dict(), {"quality_threshold": 60},
     {"qualityThreshold": 60, "quality_threshold": 60}, "invalid_config", "quality_threshold"),
    ("IterationAnalytics(mapping)", lambda c: ee.IterationAnalytics(c).config, {"consecutiveCountThreshold": 3}, {"consecutive_count_threshold": 3},
     {"consecutive_count_threshold": 3, "consecutiveCountThreshold": 3}, "invalid_config", "consecutive_count_threshold"),
    ("IterationAnalytics(loop_id, task, mapping)", lambda c: ee.IterationAnalytics("l", "t", c, persist=False).config, {"qualityThreshold": 60, "storagePath": "x"},
     {"quality_threshold": 60, "storage_path": "x"}, {"storagePath": "x", "storage_path": "x"}, "invalid_config", "storage_path"),
    ("LayerResult.from_dict", ee.LayerResult.from_dict, JS_LAYER, SNAKE_LAYER, BOTH_LAYER, "invalid_layer_result", "pass_rate"),
    ("calculate_quality_signal", ee.calculate_quality_signal, JS_LAYER, SNAKE_LAYER, BOTH_LAYER, "invalid_layer_result", "pass_rate"),
    ("count_quality_partitions", ee.count_quality_partitions, JS_LAYER, SNAKE_LAYER, BOTH_LAYER, "invalid_layer_result", "pass_rate"),
    ("EarlyExitConfig(mapping)", ee.EarlyExitConfig, EXIT.to_dict(), {"exit_layer": 2, "min_lambda_for_exit": 70, "adaptive_exit_layer": False},
     {"exit_layer": 2, "exitLayer": 2}, "invalid_config", "exit_layer"),
    ("CoherenceEarlyExit(mapping)", lambda c: ee.CoherenceEarlyExit(c, 4).config, {"exitLayer": 2}, {"exit_layer": 2},
     {"exitLayer": 2, "exit_layer": 2}, "invalid_config", "exit_layer"),
    ("SpeculativeExecutor(mapping)", lambda c: ee.SpeculativeExecutor(c).config, {"speculativeTests": 2}, {"speculative_tests": 2},
     {"speculativeTests": 2, "speculative_tests": 2}, "invalid_config", "speculative_tests"),
    ("EarlyExitController(mapping)", lambda c: ee.EarlyExitController(c, 4).config, {"minConfidence": 0.7}, {"min_confidence": 0.7},
     {"min_confidence": 0.7, "minConfidence": 0.7}, "invalid_config", "min_confidence"),
    ("CoherenceEarlyExit.should_exit", lambda s: ee.CoherenceEarlyExit(None, 4).should_exit(s, 1), SIGNAL.to_dict(),
     {"lambda": 90, "lambda_prev": 88, "boundary_edges": 0, "boundary_concentration": 0.1, "partition_count": 0, "flags": 0},
     {"lambda": 90, "lambda_prev": 88, "lambdaPrev": 88, "boundary_concentration": 0.1}, "invalid_signal", "lambda_prev"),
    ("CoherenceEarlyExit.adaptive_exit_layer", lambda s: ee.CoherenceEarlyExit(None, 4).adaptive_exit_layer(s), SIGNAL.to_dict(),
     {"lambda": 90, "lambda_prev": 88, "boundary_concentration": 0.1}, {"lambda": 90, "lambda_prev": 88, "boundaryConcentration": 0.1, "boundary_concentration": 0.1},
     "invalid_signal", "boundary_concentration"),
    ("PyramidRun.start(config)", lambda c: ee.PyramidRun.start(c, 2, SPECS_SNAKE).to_json(), {"verificationLayers": 1}, {"verification_layers": 1},
     {"verificationLayers": 1, "verification_layers": 1}, "invalid_config", "verification_layers"),
    ("EarlyExitController.run(runner results)", lambda r: ee.EarlyExitController(None, 2).run([("unit", lambda: r), ("e2e", lambda: r)]),
     GREEN.to_dict(), {"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0}, {"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0, "flakyRatio": 0},
     "invalid_layer_result", "layers[0].flaky_ratio"),
    ("EarlyExitController.run_async(runner results)", lambda r: asyncio.run(ee.EarlyExitController(None, 2).run_async([("unit", lambda: r), ("e2e", lambda: r)])),
     GREEN.to_dict(), {"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0}, {"pass_rate": 1, "passRate": 1, "coverage": 0.95, "flaky_ratio": 0},
     "invalid_layer_result", "layers[0].pass_rate"),
    ("replay_pyramids(runs)", lambda runs: ee.replay_pyramids(runs), [RUN_JS], [RUN_SNAKE], [RUN_BOTH], "invalid_replay", "runs[0].layers[0].duration_ms"),
    ("replay_pyramids(config)", lambda c: ee.replay_pyramids([RUN_SNAKE], policy="risk_bounded", config=c), {"riskBudget": 0.01, "skipOnSuccess": False},
     {"risk_budget": 0.01, "skip_on_success": False}, {"skipOnSuccess": False, "skip_on_success": False}, "invalid_config", "config.skip_on_success"),
    ("shadow_pyramids(runs)", lambda runs: ee.shadow_pyramids(runs), [RUN_JS], [RUN_SNAKE], [RUN_BOTH], "invalid_replay", "runs[0].layers[0].duration_ms"),
    ("calibrate_pyramid_policy(runs)", lambda runs: ee.calibrate_pyramid_policy(runs * 20, 0.05, 0.1, created_at="2026-01-01T00:00:00Z"), [RUN_JS], [RUN_SNAKE], [RUN_BOTH],
     "invalid_replay", "runs[0].layers[0].duration_ms"),
    ("pyramid_policy_update(ran)", lambda ran: ee.pyramid_policy_update(MODEL, ran), [{"name": "unit", "failed": False, "durationMs": 3}],
     [{"name": "unit", "failed": False, "duration_ms": 3}], [{"name": "unit", "failed": False, "durationMs": 3, "duration_ms": 3}], "invalid_config", "ran[0].duration_ms"),
]


@pytest.mark.parametrize("name, call, js, snake, both, code, field", ROWS, ids=[r[0] for r in ROWS])
def test_each_dict_input_reads_both_spellings_but_not_both_at_once(
    name: str, call: Callable[[Any], Any], js: Any, snake: Any, both: Any, code: str, field: str
) -> None:
    assert call(js) == call(snake), name
    both_spellings_raise(lambda: call(both), code, field)


# Layer mappings are the one exception to the rule above: a layer is read under `cost_ms`
# only, and `costMs` (or `costMS`, `cost`) is `unknown_option` with a did-you-mean, because a
# misspelt cost would be ignored and the savings of a layer that never runs lost
# (docs/api-conventions.md).
LAYER_ROWS = [
    ("PyramidRun.start(layers)", lambda layers: ee.PyramidRun.start(None, 2, layers).to_json()),
    ("EarlyExitController.run(layers)", lambda layers: ee.EarlyExitController(None, 2).run(_run(layers))),
    ("pyramid_policy_decide(layers)", lambda layers: ee.pyramid_policy_decide(MODEL, layers, [])),
]


@pytest.mark.parametrize("name, call", LAYER_ROWS, ids=[r[0] for r in LAYER_ROWS])
def test_layer_mappings_read_cost_ms_only(name: str, call: Callable[[Any], Any]) -> None:
    call(SPECS_SNAKE)
    for key in ("costMs", "costMS", "cost"):
        with pytest.raises(ee.EarlyExitTypeError) as info:
            call([SPECS_SNAKE[0], {"name": "e2e", key: 100}])
        assert (info.value.code, info.value.field) == ("unknown_option", f"layers[1].{key}"), name
        assert "did you mean 'cost_ms'" in str(info.value), str(info.value)


def test_configs_round_trip_through_their_to_dict() -> None:
    assert ee.EarlyStoppingConfig(LOOP_CONFIG.to_dict()) == LOOP_CONFIG
    assert ee.EarlyStopping(LOOP_CONFIG.to_dict()).config == LOOP_CONFIG
    analytics = ee.AnalyticsConfig(quality_threshold=60, selection_criteria="highest_quality")
    assert ee.AnalyticsConfig(analytics.to_dict()) == analytics
    assert ee.IterationAnalytics(analytics.to_dict()).config == analytics
    assert ee.EarlyExitConfig(EXIT.to_dict()) == EXIT
    assert ee.EarlyExitController(EXIT.to_dict(), 4).config == EXIT


def test_keywords_replace_a_mappings_entry_in_either_spelling() -> None:
    assert ee.EarlyStopping(LOOP_CONFIG.to_dict(), plateau_consecutive_count=6).config == LOOP_CONFIG.replace(plateau_consecutive_count=6)
    assert ee.EarlyStoppingConfig({"minQualityThreshold": 10}, min_quality_threshold=20).min_quality_threshold == 20
    assert ee.EarlyExitConfig(EXIT.to_dict(), exit_layer=1).exit_layer == 1
    assert ee.AnalyticsConfig({"qualityThreshold": 10}, quality_threshold=20).quality_threshold == 20
    es = ee.EarlyStopping()
    es.configure({"minQualityThreshold": 10}, min_quality_threshold=30)
    assert es.config.min_quality_threshold == 30


def test_results_and_records_go_back_in() -> None:
    lr = ee.LayerResult(pass_rate=0.95, coverage=0.6, flaky_ratio=0.02, name="unit", total=100, passed=95, failed=5, extra={"suite": "api"})
    assert ee.LayerResult.from_dict(lr.to_dict()) == lr
    assert ee.calculate_quality_signal(lr.to_dict()) == ee.calculate_quality_signal(lr)
    assert ee.count_quality_partitions(lr.to_dict()) == ee.calculate_quality_signal(lr).partition_count == 1
    decision = ee.CoherenceEarlyExit(None, 4).should_exit(SIGNAL, 1)
    executor = ee.SpeculativeExecutor()
    specs = executor.speculate(decision.to_dict(), [2, 3])
    assert specs == executor.speculate(decision, [2, 3])
    checked = executor.verify([s.to_dict() for s in specs], [("a", lambda: GREEN.to_dict()), ("b", lambda: GREEN)])
    assert checked == executor.verify(specs, [("a", lambda: GREEN), ("b", lambda: GREEN)])
    es = ee.EarlyStopping()
    es.record(1, 60, 0.5, "failed", 0, "2026-01-01T00:00:00Z", tokens_used=5)
    copy = ee.EarlyStopping()
    copy.record_result(1, es.history[0].to_dict())
    assert copy.history == es.history
    class Source:
        def detect_diminishing_returns(self) -> Dict[str, object]:
            return ee.IterationAnalytics().detect_diminishing_returns().to_dict()

    ee.EarlyStopping(analytics=Source()).should_stop()


def test_analytics_takes_back_what_it_emits(tmp_path: Any) -> None:
    """Every analytics input that takes a dict reads what the matching to_dict() (or the JSON
    the JS API and the files use) gives: records, summaries, configs, snapshots."""
    a = _analytics()
    for given in (lambda r: r.to_dict(), lambda r: json.loads(json.dumps(r.to_dict()))):
        copy = ee.IterationAnalytics("loop", "task", persist=False, start_time=T0, end_time=T0, quality_threshold=60)
        for record in a.records:
            assert copy.record_iteration(given(record)) == record
        assert copy.records == a.records and copy.summary() == a.summary()
    # a summary, as a mapping, its JSON text, or a file: the same object as the one saved
    summary = a.summary()
    for given in (summary.to_dict(), json.dumps(summary.to_dict())):
        loaded = ee.IterationAnalytics.from_summary(given, **a.config.to_dict())
        assert loaded.records == a.records and loaded.config == a.config and loaded.summary() == summary
    path = a.save_analytics(tmp_path / "loop.json")
    loaded = ee.IterationAnalytics.load(path, **{**a.config.to_dict(), "persist": False})
    assert loaded.records == a.records and loaded.config.quality_threshold == 60
    # the snapshot, as text or parsed, and the config in each constructor form
    assert ee.IterationAnalytics.from_json(json.loads(a.to_json())).to_json() == a.to_json()
    assert ee.IterationAnalytics(a.config.to_dict()).config == a.config
    assert ee.IterationAnalytics(**a.config.to_dict()).config == a.config
    assert ee.IterationAnalytics("loop", "task", a.config.to_dict(), persist=False).config == a.config
    # keyword options in either spelling: from_summary's config, report's options
    by_js = ee.IterationAnalytics.from_summary(SUMMARY, selectionCriteria="highest_quality", persist=False)
    by_snake = ee.IterationAnalytics.from_summary(SUMMARY, selection_criteria="highest_quality", persist=False)
    assert by_js.to_json() == by_snake.to_json() and by_js.config.selection_criteria == "highest_quality"
    assert a.report(generatedAt=T0) == a.report(generated_at=T0)
    assert a.report(generatedAt=T0).rstrip().endswith(f"*Generated: {T0}*")
    # a record's to_dict() gives quality_delta: taken, and recomputed as upstream does
    again = ee.IterationAnalytics(start_time=T0)
    again.record_iteration({**a.records[1].to_dict(), "quality_delta": 99})
    assert again.records[0].quality_delta == 0


def test_a_summary_whose_deltas_were_written_loads_and_its_records_pickle() -> None:
    """upstream's records are data its users change (JS: `analytics.iterations[1].quality_score
    = 95` leaves the deltas as they were), so a saved summary may hold deltas that are not the
    score differences, and beyond -100..100: Python loads it as it is, and its records and
    summary pickle."""
    import pickle

    summary = json.loads(json.dumps(SUMMARY))
    summary["iterations"][1]["quality_delta"] = 250.5
    summary["iterations"][2]["quality_delta"] = -3
    loaded = ee.IterationAnalytics.from_summary(summary, persist=False)
    assert [r.quality_delta for r in loaded.records] == [0, 250.5, -3]
    assert loaded.summary().to_dict()["iterations"] == summary["iterations"]
    for value in (loaded.records[1], loaded.summary(), loaded.select_best_iteration(), loaded):
        assert pickle.loads(pickle.dumps(value)).__repr__() == value.__repr__()
    # the stored deltas are what detection reads, as upstream's detectDiminishingReturns does
    assert loaded.detect_diminishing_returns().detected is False


def test_analytics_fields_are_read_only_attributes_holding_immutable_values() -> None:
    """In Python upstream's fields are read-only attributes (AttributeError), and nothing they
    answer is a container whose changes could be lost: records and summaries hold tuples, and
    records, configs, selections and summaries are frozen."""
    a = _analytics()
    for name, value in (("config", a.config), ("iterations", ()), ("records", ()), ("loop_id", "x"), ("task_description", "x"),
                        ("start_time", T0), ("end_time", T0), ("persist", True)):
        with pytest.raises(AttributeError, match="not writable"):
            setattr(a, name, value)
    with pytest.raises(AttributeError):
        a.storage_path = "x"  # type: ignore[attr-defined]
    assert isinstance(a.iterations, tuple) and isinstance(a.records, tuple) and isinstance(a.summary().iterations, tuple)
    assert isinstance(a.records[0].reflections, tuple)
    for value, field in ((a.records[0], "quality_score"), (a.config, "quality_threshold"), (a.summary(), "total_tokens"),
                         (a.select_best_iteration(), "selected"), (a.detect_diminishing_returns(), "detected")):
        with pytest.raises(AttributeError, match="not writable"):
            setattr(value, field, None)
    # to_dict() answers a new dict each time: the caller's own copy
    d = a.records[0].to_dict()
    d["quality_score"] = 1
    assert a.records[0].quality_score == 50


def test_a_step_run_takes_its_results_in_either_spelling_and_both_change_nothing() -> None:
    by_js = ee.PyramidRun.start(None, 2, SPECS_SNAKE)  # layers: cost_ms only (LAYER_ROWS)
    by_snake = ee.PyramidRun.start(None, 2, SPECS_SNAKE)
    for run, result in ((by_js, GREEN.to_dict()), (by_snake, {"pass_rate": 1, "coverage": 0.95, "flaky_ratio": 0})):
        while (step := run.next()).layer is not None:
            run.submit(step.layer, result)
    assert by_js.result() == by_snake.result() and by_js.to_json() == by_snake.to_json()
    run = ee.PyramidRun.start(None, 2, SPECS_SNAKE)
    run.next()
    before = run.to_json()
    both_spellings_raise(lambda: run.submit(0, {**GREEN.to_dict(), "flaky_ratio": 0}), "invalid_layer_result", "layers[0].flaky_ratio")
    assert run.to_json() == before and run.next().to_dict() == {"action": "run", "layer": 0}


def test_both_spellings_change_no_engine() -> None:
    es = ee.EarlyStopping(plateau_consecutive_count=3)
    es.record(1, 60, 0.5, "failed", 0, "2026-01-01T00:00:00Z")
    before = es.to_json()
    both_spellings_raise(lambda: es.configure({"minQualityThreshold": 50, "min_quality_threshold": 50}), "invalid_config", "min_quality_threshold")
    assert es.to_json() == before


def test_jsonl_lines_loaded_into_dicts_replay_as_the_text_does() -> None:
    text = "\n".join(json.dumps(r) for r in (RUN_JS, {**RUN_JS, "id": "b"}))
    assert ee.replay_pyramids([json.loads(line) for line in text.splitlines()]) == ee.replay_pyramids(text)
    assert ee.pyramid_policy_decide(json.loads(json.dumps(MODEL)), SPECS_SNAKE, []) == ee.pyramid_policy_decide(MODEL, SPECS_SNAKE, [])
