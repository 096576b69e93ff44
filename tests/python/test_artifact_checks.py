"""Calibration artifacts are cross-checked wherever they are read: a promotion is the
artifact's own (``artifactSha256``) and its figures hold, the copies of a policy inside one
artifact agree, a certified flag follows from the certificate; and an ``OutcomeModel``
never learns or merges past the layer limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from earlyexit import (
    EarlyExitController,
    EarlyExitError,
    EarlyStopping,
    OutcomeModel,
    calibrate_loop_policy,
    calibrate_pyramid_policy,
    check_pyramid_drift,
    promote_pyramid_policy,
)

NOW = "2026-01-02T00:00:00Z"
LOOP_DOC = json.loads(
    (Path(__file__).resolve().parents[2] / "tests" / "vectors" / "replay" / "loop_calibration.json").read_text()
)


def runs(n: int, unit_every: int, offset: int) -> List[Dict[str, Any]]:
    return [
        {"layers": [
            {"name": "unit", "duration_ms": 10, "failed": (i + offset) % unit_every == 0},
            {"name": "integration", "duration_ms": 40, "failed": False},
            {"name": "e2e", "duration_ms": 90, "failed": (i + offset) % 97 == 3},
        ]}
        for i in range(n)
    ]


def envelope(artifact: Any) -> Dict[str, Any]:
    return json.loads(json.dumps(dict(artifact)))


def refused(policy: Any) -> EarlyExitError:
    with pytest.raises(EarlyExitError) as err:
        EarlyExitController(None, 3, policy=policy, now=NOW)
    return err.value


@pytest.fixture(scope="module")
def promoted() -> Dict[str, Any]:
    cal = calibrate_pyramid_policy(runs(600, 5, 0), 0.2, 0.1, created_at="2026-01-01T00:00:00Z")
    out = promote_pyramid_policy(cal, runs(400, 5, 600), now=NOW)
    assert out["promoted"] is True, out
    return envelope(out["artifact"])


def test_a_promotion_records_the_artifacts_digest(promoted: Dict[str, Any]) -> None:
    assert promoted["schemaVersion"] == 2
    digest = promoted["promotion"]["artifactSha256"]
    assert isinstance(digest, str) and len(digest) == 64
    layers = [{"name": n, "cost_ms": 1, "run": lambda: {"pass_rate": 1.0, "coverage": 1.0, "flaky_ratio": 0.0}}
              for n in ("unit", "integration", "e2e")]
    assert EarlyExitController(None, 3, policy=promoted, now=NOW).run(layers).shadow is None


def test_another_artifacts_promotion_pasted_in_is_refused(promoted: Dict[str, Any]) -> None:
    other = envelope(calibrate_pyramid_policy(runs(600, 4, 1), 0.2, 0.1, created_at="2026-01-01T00:00:00Z"))
    pasted = dict(other, promotion=promoted["promotion"])
    err = refused(pasted)
    assert (err.code, err.field) == ("invalid_artifact", "policy.promotion.artifactSha256")
    with pytest.raises(EarlyExitError) as drift:
        check_pyramid_drift(pasted, runs(10, 5, 600), now=NOW)
    assert drift.value.field == "promotion.artifactSha256"
    # Edited after its promotion: the digest no longer matches either.
    assert refused(dict(promoted, risk=0.3)).field == "policy.promotion.artifactSha256"


def test_a_promotion_whose_bound_exceeds_the_risk_is_refused(promoted: Dict[str, Any]) -> None:
    high = dict(promoted, promotion=dict(promoted["promotion"], upperBound=0.99))
    err = refused(high)
    assert (err.code, err.field) == ("invalid_artifact", "policy.promotion.upperBound")


def test_a_budget_above_the_certified_one_is_refused(promoted: Dict[str, Any]) -> None:
    unpromoted = dict(promoted, promotion=None)
    raised = dict(unpromoted, policy={**unpromoted["policy"], "config": {**unpromoted["policy"]["config"], "riskBudget": 0.99}})
    err = refused(raised)
    assert (err.code, err.field) == ("invalid_artifact", "policy.policy.config.riskBudget")


def test_a_version_1_artifact_reads_as_unpromoted(promoted: Dict[str, Any]) -> None:
    old = dict(promoted, schemaVersion=1)
    controller = EarlyExitController(None, 3, policy=old, now=NOW)
    layers = [{"name": n, "cost_ms": 1, "run": lambda: {"pass_rate": 1.0, "coverage": 1.0, "flaky_ratio": 0.0}}
              for n in ("unit", "integration", "e2e")]
    result = controller.run(layers)
    assert result.shadow is not None and "not promoted" in result.shadow["reason"]


def test_a_loop_artifacts_policy_copies_must_agree() -> None:
    cal = calibrate_loop_policy(LOOP_DOC["runs"], LOOP_DOC["cases"][0]["options"])
    artifact = envelope(cal.artifact)
    config = dict(artifact["policy"]["config"], maxIterations=1000)
    tampered = dict(artifact, policy=dict(artifact["policy"], config=config))
    with pytest.raises(EarlyExitError) as err:
        EarlyStopping.from_calibration(tampered)
    assert (err.value.code, err.value.field) == ("invalid_artifact", "policy.config.maxIterations")


def test_certified_must_follow_from_the_certificate() -> None:
    cal = calibrate_loop_policy(LOOP_DOC["runs"][:50])
    assert cal.status == "too_few_runs"
    artifact = envelope(cal.artifact)
    claimed = dict(artifact, body=dict(artifact["body"], certified=True))
    with pytest.raises(EarlyExitError) as err:
        EarlyStopping.from_calibration(claimed)
    assert (err.value.code, err.value.field) == ("invalid_artifact", "body.certified")


def layers(prefix: str, count: int) -> List[Dict[str, Any]]:
    return [{"name": f"{prefix}{i}", "failed": False} for i in range(count)]


def test_an_outcome_model_never_learns_or_merges_past_the_layer_limit() -> None:
    full = OutcomeModel().learn(layers("l", 10_000), build_id="a", seq=1)
    full = full.learn(layers("l", 3), build_id="b", seq=2)  # the same names: still 10,000
    before = full.to_json()
    with pytest.raises(EarlyExitError) as err:
        full.learn(layers("new", 1), build_id="c", seq=3)
    assert (err.value.code, err.value.field) == ("invalid_config", "ran")
    assert full.to_json() == before
    other = OutcomeModel().learn(layers("other", 1), build_id="d", seq=4)
    with pytest.raises(EarlyExitError) as err:
        full.merge(other)
    assert (err.value.code, err.value.field) == ("invalid_snapshot", "other")
    assert full.to_json() == before
    # Still usable: its statistics are read.
    assert len(full.statistics()["layers"]) == 10_000
