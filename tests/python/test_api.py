"""The Pythonic API itself: keyword options, typed immutable results, ``to_dict()`` equal to
the objects the JS reference returns, readable reprs."""

from __future__ import annotations

import json

import pytest

import earlyexit as ee
from earlyexit import (
    CoherenceEarlyExit,
    EarlyExitConfig,
    EarlyStopping,
    EarlyStoppingConfig,
    IterationAnalytics,
    LayerResult,
    PyramidRun,
    QualitySignal,
    SpeculativeExecutor,
    calculate_quality_signal,
)

T = "2026-01-01T00:00:0{}.000Z"


def record_three_flat(es: EarlyStopping) -> None:
    es.record(1, 80, 0.5, "failed", 0, timestamp=T.format(1))
    es.record(2, 80.5, 0.5, "failed", 0.5, timestamp=T.format(2))
    es.record(3, 80.6, 0.5, "failed", 0.1, timestamp=T.format(3))


# --- EarlyStopping -----------------------------------------------------------------------


def test_empty_history_decision_is_the_seeds() -> None:
    es = EarlyStopping()
    d = es.should_stop()
    assert d.to_dict() == {
        "stop": False,
        "reason": "No iterations completed yet",
        "confidence": 1.0,
        "trigger": "none",
        "best_iteration": None,
        "best_quality_score": None,
    }
    assert (d.stop, d.trigger, d.details, d.best_iteration) == (False, "none", None, None)
    assert not d


def test_high_confidence_stop_with_verification() -> None:
    es = EarlyStopping(high_confidence_threshold=0.9)
    es.record(1, 85, 0.96, "passed", 5, timestamp=T.format(1))
    d = es.should_stop()
    assert d.to_dict() == {
        "stop": True,
        "reason": "High confidence (96.0%) AND verification passed",
        "confidence": 0.96,
        "trigger": "high_confidence",
        "details": {"confidence": 0.96, "quality_score": 85, "verification_status": "passed"},
        "best_iteration": 1,
        "best_quality_score": 85,
    }
    assert d and d.stop and d.trigger == "high_confidence"
    assert d.details == {"confidence": 0.96, "quality_score": 85, "verification_status": "passed"}
    assert es.stopping_reason == d.reason
    assert es.stopping_details == d.details


def test_unverified_high_confidence_falls_through_to_continue() -> None:
    es = EarlyStopping()
    es.record(1, 90, 0.99, "failed", 0, timestamp=T.format(1))
    d = es.should_stop()
    assert (d.stop, d.reason, d.confidence) == (False, "Continuing iteration - no stopping criteria met", 0.7)


def test_plateau_details_match_the_seed() -> None:
    es = EarlyStopping()
    record_three_flat(es)
    d = es.should_stop(3)  # the seed's ignored argument is accepted
    assert d.trigger == "quality_plateau"
    assert d.reason == "Quality plateau detected: 3 consecutive iterations with <2% improvement"
    assert d.confidence == 0.85
    assert d.details == {
        "consecutive_count": 3,
        "improvements": [
            {"iteration": 2, "improvement": 0.5 / 80, "delta": 0.5},
            {"iteration": 3, "improvement": 0.1 / 80.5, "delta": 0.1},
        ],
        "average_quality": (80 + 80.5 + 80.6) / 3,
        "threshold": 0.02,
    }


def test_stopping_reason_is_not_cleared_by_a_later_non_stop() -> None:
    es = EarlyStopping()
    record_three_flat(es)
    es.should_stop()
    reason = es.stopping_reason
    es.record(4, 95, 0.5, "failed", 14.4, timestamp=T.format(4))
    assert not es.should_stop().stop
    assert es.stopping_reason == reason


def test_record_and_record_result_store_the_same_history() -> None:
    a, b = EarlyStopping(), EarlyStopping()
    a.record(1, 70, 0.8, "passed", 0, T.format(1), 100, 0.01, 250)
    b.record_result(
        1,
        {
            "quality_score": 70,
            "confidence": 0.8,
            "verification_status": "passed",
            "quality_delta": 0,
            "timestamp": T.format(1),
            "tokens_used": 100,
            "token_cost_usd": 0.01,
            "execution_time_ms": 250,
            "iteration_number": 1,
        },
    )
    assert a.history == b.history
    (r,) = a.history
    assert (r.iteration_number, r.quality_score, r.confidence, r.verification_status) == (1, 70.0, 0.8, "passed")
    assert (r.tokens_used, r.token_cost_usd, r.execution_time_ms, r.timestamp) == (100, 0.01, 250, T.format(1))
    assert r.to_dict() == {
        "iteration_number": 1,
        "quality_score": 70,
        "confidence": 0.8,
        "verification_status": "passed",
        "quality_delta": 0,
        "timestamp": T.format(1),
        "tokens_used": 100,
        "token_cost_usd": 0.01,
        "execution_time_ms": 250,
    }
    assert isinstance(a.history, tuple) and len(a) == 1


def test_missing_timestamp_is_now_in_iso_form() -> None:
    es = EarlyStopping()
    es.record(1, 70, 0.8, "passed", 0)
    stamp = es.history[0].timestamp
    assert len(stamp) == 24 and stamp.endswith("Z") and stamp[10] == "T"


def test_none_keyword_is_absent() -> None:
    es = EarlyStopping(high_confidence_threshold=None, min_quality_threshold=50)
    assert es.config.high_confidence_threshold == 0.95
    es.record(1, 70, 0.8, "passed", 0, timestamp=None, tokens_used=None)
    assert "tokens_used" not in es.history[0].to_dict()


def test_config_is_typed_and_to_dict_is_get_config() -> None:
    es = EarlyStopping(plateau_consecutive_count=4, require_verification=False)
    c = es.config
    assert isinstance(c, EarlyStoppingConfig)
    assert (c.plateau_consecutive_count, c.require_verification, c.max_iterations) == (4, False, None)
    assert c.to_dict() == {
        "highConfidenceThreshold": 0.95,
        "plateauConsecutiveCount": 4,
        "plateauImprovementThreshold": 0.02,
        "minQualityThreshold": 70,
        "requireVerification": False,
        "enablePlateauDetection": True,
        "enableDiminishingReturns": True,
    }
    assert EarlyStopping(c).config == c
    assert EarlyStopping({"plateau_consecutive_count": 4}, require_verification=False).config == c
    assert c.replace(plateau_consecutive_count=5).plateau_consecutive_count == 5
    assert c.plateau_consecutive_count == 4


def test_configure_merges_and_reset_keeps_config() -> None:
    es = EarlyStopping()
    record_three_flat(es)
    es.configure(plateau_consecutive_count=5)
    es.configure({"min_quality_threshold": 60})
    assert es.config.plateau_consecutive_count == 5 and es.config.min_quality_threshold == 60
    assert not es.should_stop().stop
    es.reset()
    assert len(es) == 0 and es.stopping_reason is None
    assert es.config.plateau_consecutive_count == 5


def test_opt_in_options_and_budgets() -> None:
    es = EarlyStopping(max_iterations=2, max_total_tokens=150)
    es.record(1, 50, 0.5, "failed", 0, T.format(1), tokens_used=100)
    d = es.should_stop()
    assert not d.stop
    assert d.budgets == [
        {"budget": "tokens", "limit": 150, "observed": 100, "records_without_value": 0, "exhausted": False}
    ]
    es.record(2, 51, 0.5, "failed", 1, T.format(2), tokens_used=100)
    d = es.should_stop()
    assert d.stop and d.trigger in ("budget_exhausted", "max_iterations")
    assert es.config.to_dict()["maxIterations"] == 2


def test_summary_is_typed() -> None:
    es = EarlyStopping()
    empty = es.summary()
    assert empty.to_dict() == {"total_iterations": 0, "stopped_early": False, "reason": "No iterations completed"}
    assert (empty.total_iterations, empty.stopped_early, empty.reason, empty.config) == (
        0,
        False,
        "No iterations completed",
        None,
    )
    record_three_flat(es)
    s = es.summary()
    assert s.stopped_early and s.stopping_trigger == "quality_plateau" and s.reason is None
    assert (s.total_iterations, s.final_quality, s.final_confidence, s.final_verification) == (3, 80.6, 0.5, "failed")
    assert s.config == es.config
    d = s.to_dict()
    assert list(d) == [
        "total_iterations",
        "stopped_early",
        "stopping_trigger",
        "stopping_reason",
        "stopping_confidence",
        "final_quality",
        "final_confidence",
        "final_verification",
        "config",
        "details",
    ]
    assert d["config"] == es.config.to_dict()
    assert es.stopping_reason == s.stopping_reason  # the summary decides, as the seed's does


def test_results_are_immutable_and_compare_by_value() -> None:
    es = EarlyStopping()
    es.record(1, 70, 0.8, "passed", 0, timestamp=T.format(1))
    d = es.should_stop()
    with pytest.raises(AttributeError):
        d.stop = True  # type: ignore[misc]
    with pytest.raises(AttributeError):
        es.history[0].quality_score = 1  # type: ignore[misc]
    assert d == es.should_stop()
    details = es.should_stop().details
    assert details is None
    with pytest.raises(TypeError):
        hash(d)


def test_reprs_are_readable() -> None:
    es = EarlyStopping()
    record_three_flat(es)
    assert repr(es.should_stop()).startswith("StoppingDecision(stop=True, trigger='quality_plateau'")
    assert repr(es.history[0]).startswith("IterationRecord(iteration_number=1, quality_score=80,")
    assert repr(es).startswith("EarlyStopping(iterations=3, stopping_reason=")
    assert "plateau_consecutive_count=3" in repr(es.config)
    assert repr(EarlyExitConfig.DEFAULT).startswith("EarlyExitConfig(exit_layer=1, min_lambda_for_exit=80")


# --- analytics -----------------------------------------------------------------------------


def test_analytics_records_and_detects() -> None:
    a = IterationAnalytics(consecutive_count_threshold=2)
    r = a.record(1, 70, "passed", tokens_used=10, timestamp="2026-01-01T00:00:01.000Z")
    assert r.to_dict() == {
        "iteration_number": 1,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "quality_score": 70,
        "quality_delta": 0,
        "tokens_used": 10,
        "verification_status": "passed",
        "reflections": [],
    }
    assert a.detect_diminishing_returns().to_dict() == {
        "detected": False,
        "iteration": None,
        "reason": "Insufficient iterations for detection",
    }
    a.record_iteration({"iteration_number": 2, "quality_score": 71, "verification_status": "passed"})
    a.record(3, 71.5, "failed")
    report = a.detect_diminishing_returns()
    assert report and report.iteration == 3
    assert report.reason == "2 consecutive iterations with <5% improvement"
    assert a.trajectory() == "stable"
    best = a.optimal_iteration()
    assert best is not None and best.iteration_number == 2
    loose = a.optimal_iteration(verified_only=False)
    assert loose is not None and loose.iteration_number == 3
    sel = a.select_best_iteration()
    assert sel.selected is not None and sel.selected.iteration_number == 2
    assert sel.reason == "Highest quality verified iteration (71)"
    s = a.summary()
    # upstream's summary: optimal_iteration is getOptimalIteration(false), the best overall.
    assert (s.total_iterations, s.optimal_iteration, s.final_iteration, s.selected_iteration) == (3, 3, 3, 2)
    assert s.total_tokens == 10 and s.quality_trajectory == "stable"
    assert (s.diminishing_returns_detected, s.diminishing_returns_iteration) == (True, 3)
    assert s.end_time is not None and s.loop_id is None and len(s.iterations) == 3
    assert len(a) == 3 and [x.iteration_number for x in a.records] == [1, 2, 3]
    a.reset()
    assert len(a) == 0 and a.config.consecutive_count_threshold == 2


def test_builtin_analytics_as_source() -> None:
    a = IterationAnalytics()
    es = EarlyStopping(analytics=a, enable_plateau_detection=False)
    for i, q in enumerate([70, 71, 71.5, 71.6], start=1):
        es.record(i, q, 0.5, "passed", 0, timestamp=T.format(i))
        a.record(i, q, "passed")
    d = es.should_stop()
    assert d.trigger == "diminishing_returns"
    assert d.to_dict()["details"] == {
        "detected_at_iteration": 3,
        "analytics_reason": "2 consecutive iterations with <5% improvement",
    }
    assert es.analytics is a


def test_outside_source_is_asked_only_when_needed_and_validated() -> None:
    calls = []

    class Source:
        def detect_diminishing_returns(self) -> object:
            calls.append(1)
            return {"detected": True, "iteration": None, "reason": "flat"}

    es = EarlyStopping(analytics=Source())
    es.record(1, 80, 0.99, "passed", 0, timestamp=T.format(1))
    assert es.should_stop().trigger == "high_confidence" and calls == []
    es.record(2, 60, 0.5, "failed", -20, timestamp=T.format(2))
    d = es.should_stop()
    assert calls == [1]
    assert d.to_dict()["details"] == {"detected_at_iteration": None, "analytics_reason": "flat"}
    assert d.reason == "Diminishing returns detected: flat"


# --- test pyramid --------------------------------------------------------------------------


def test_layer_result_and_signal() -> None:
    r = LayerResult(0.95, 0.8, 0.02, name="unit", total=100, passed=95, failed=5, extra={"suite": "api"})
    assert (r.pass_rate, r.coverage, r.flaky_ratio, r.name, r.total, r.passed, r.flaky) == (
        0.95,
        0.8,
        0.02,
        "unit",
        100,
        95,
        None,
    )
    assert r.extra == {"suite": "api"}
    assert r.to_dict() == {
        "passRate": 0.95,
        "coverage": 0.8,
        "flakyRatio": 0.02,
        "name": "unit",
        "total": 100,
        "passed": 95,
        "failed": 5,
        "suite": "api",
    }
    assert LayerResult.from_dict({"pass_rate": 0.95, "coverage": 0.8, "flaky_ratio": 0.02}).to_dict() == {
        "passRate": 0.95,
        "coverage": 0.8,
        "flakyRatio": 0.02,
    }
    s = calculate_quality_signal(r)
    assert s == calculate_quality_signal({"pass_rate": 0.95, "coverage": 0.8, "flaky_ratio": 0.02})
    assert s.to_dict() == {
        "lambda": 80.0,
        "lambdaPrev": 80.0,
        "boundaryEdges": 1,
        "boundaryConcentration": 1 - 0.8,
        "partitionCount": 0,
        "flags": 0,
    }
    assert (s.lambda_, s.lambda_prev, s.boundary_edges) == (80.0, 80.0, 1)


def test_exit_config_presets_are_the_adrs() -> None:
    assert EarlyExitConfig.DEFAULT.to_dict() == {
        "exitLayer": 1,
        "minLambdaForExit": 80,
        "minLambdaStability": 0.85,
        "maxBoundaryConcentration": 0.5,
        "speculativeTests": 4,
        "verificationLayers": 2,
        "adaptiveExitLayer": True,
        "minConfidence": 0.8,
    }
    assert EarlyExitConfig.AGGRESSIVE.to_dict() == {
        "exitLayer": 0,
        "minLambdaForExit": 60,
        "minLambdaStability": 0.75,
        "maxBoundaryConcentration": 0.6,
        "speculativeTests": 8,
        "verificationLayers": 1,
        "adaptiveExitLayer": True,
        "minConfidence": 0.7,
    }
    assert EarlyExitConfig.CONSERVATIVE.to_dict() == {
        "exitLayer": 2,
        "minLambdaForExit": 95,
        "minLambdaStability": 0.92,
        "maxBoundaryConcentration": 0.35,
        "speculativeTests": 2,
        "verificationLayers": 4,
        "adaptiveExitLayer": False,
        "minConfidence": 0.9,
    }
    c = EarlyExitConfig(verification_layers=1)
    assert c == EarlyExitConfig.DEFAULT.replace(verification_layers=1) == EarlyExitConfig({"verification_layers": 1})
    assert c.verification_layers == 1 and c.exit_layer == 1
    assert EarlyExitConfig(EarlyExitConfig.AGGRESSIVE, exit_layer=1).min_lambda_for_exit == 60
    assert EarlyExitConfig() == EarlyExitConfig.DEFAULT


def test_should_exit_with_typed_and_mapping_signals() -> None:
    e = CoherenceEarlyExit(EarlyExitConfig.DEFAULT, 4)
    sig = QualitySignal(lambda_=95, lambda_prev=94, boundary_concentration=0.05)
    d = e.should_exit(sig, 1)
    assert d == e.should_exit({"lambda": 95, "lambda_prev": 94, "boundary_concentration": 0.05}, 1)
    assert d.can_exit and d.reason == "confident_exit" and d.enable_speculation and bool(d)
    assert d.to_dict()["explanation"] == d.explanation
    assert list(d.to_dict()) == ["canExit", "confidence", "exitLayer", "reason", "enableSpeculation", "explanation"]
    low = e.should_exit({"lambda": 50, "lambda_prev": 50, "boundary_concentration": 0.5}, 2)
    assert low.to_dict() == {
        "canExit": False,
        "confidence": 0.5,
        "exitLayer": 2,
        "reason": "lambda_too_low",
        "enableSpeculation": False,
        "explanation": "Lambda 50 < minimum 80",
    }
    assert e.total_layers == 4 and e.config == EarlyExitConfig.DEFAULT
    assert e.adaptive_exit_layer(sig) == 0


def test_speculate_and_verify() -> None:
    ex = SpeculativeExecutor(EarlyExitConfig(verification_layers=1))
    decision = CoherenceEarlyExit(None, 4).should_exit(
        {"lambda": 95, "lambda_prev": 95, "boundary_concentration": 0}, 1
    )
    specs = ex.speculate(decision, 2)
    assert specs == ex.speculate({"confidence": decision.confidence}, ["a", "b"])
    confidence = 0.95 * 0.4 + 1.0 * 0.4 + 1.0 * 0.2  # the ADR's formula, in its order
    assert [s.to_dict() for s in specs] == [{"predicted": "pass", "confidence": confidence, "verified": False}] * 2
    done = ex.verify(specs, [("e2e", lambda: {"pass_rate": 0.9, "coverage": 0.9, "flaky_ratio": 0.2})])
    assert done[0].to_dict() == {
        "predicted": "pass",
        "confidence": confidence,
        "verified": True,
        "actual": "flaky",
        "correct": False,
    }
    assert (done[0].actual, done[0].correct, done[1].verified, done[1].actual) == ("flaky", False, False, None)


def test_pyramid_run_step_api() -> None:
    run = PyramidRun.start(
        EarlyExitConfig.DEFAULT,
        3,
        [{"name": "unit", "cost_ms": 10}, ("integration", print), {"name": "e2e", "cost_ms": 30}],
    )
    step = run.next()
    assert (step.action, step.layer) == ("run", 0) and step.to_dict() == {"action": "run", "layer": 0}
    decision = run.submit(0, LayerResult(1.0, 0.95, 0.0))
    assert decision is not None and decision.can_exit
    assert run.next().to_dict() == {"action": "verify", "layer": 1}
    assert run.submit(1, {"pass_rate": 1.0, "coverage": 0.9, "flaky_ratio": 0}) is None
    assert run.next().to_dict() == {"action": "verify", "layer": 2}
    run.submit(2, {"pass_rate": 0.5, "coverage": 0.9, "flaky_ratio": 0})
    assert run.is_done and run.next().to_dict() == {"action": "done"}
    r = run.result()
    assert (r.exited_early, r.exit_layer, r.exit_reason, r.skipped_layers) == (True, 0, "confident_exit", 2)
    assert (r.layers_executed, r.verified_layers, r.mispredictions, r.compute_saved_ms) == ((0, 1, 2), 2, 1, 0)
    assert [s.correct for s in r.speculations] == [True, False]
    assert r.layers[0].to_dict() == {"passRate": 1, "coverage": 0.95, "flakyRatio": 0}
    d = r.to_dict()
    assert list(d) == [
        "layers",
        "exitedEarly",
        "exitLayer",
        "exitReason",
        "confidence",
        "speculations",
        "skippedLayers",
        "layersExecuted",
        "verifiedLayers",
        "mispredictions",
        "computeSavedMs",
        "verdict",
        "failingLayers",
        "layersBeforeExit",
        "layersVerified",
        "layersNotRun",
        "note",
    ]
    assert (r.verdict, d["failingLayers"]) == ("failed", [{"layer": 2, "name": "e2e"}])
    # Results that explain themselves: the layers split three ways, each prediction names its
    # layer, and this exit saved nothing (verification ran both skipped layers).
    assert (r.layers_before_exit, r.layers_verified, r.layers_not_run) == ((0,), (1, 2), ())
    assert r.note is not None and r.note.startswith("nothing saved: ") and d["note"] == r.note
    assert [(s.layer, s.name) for s in r.speculations] == [(1, "integration"), (2, "e2e")]
    assert d["speculations"][0]["layer"] == 1 and d["speculations"][0]["name"] == "integration"
    assert ee.SpeculativeExecutor().speculate({"confidence": 0.9}, 1)[0].layer is None
    assert json.loads(json.dumps(d)) == d
    assert ee.TestPyramidResult.__test__ is False


def test_public_names_are_exported_and_documented() -> None:
    for name in ee.__all__:
        assert hasattr(ee, name), name
    assert ee.__version__ == ee._native.__version__ == "0.1.0"
