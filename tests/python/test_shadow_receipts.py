"""Shadow mode, live, and its receipt log from Python: every layer runs, the point where the
policy would have exited is a receipt, and append_receipts / verify_receipts keep and check
the hash chain (SHA-256 over RFC 8785 canonical JSON, the digest every binding uses)."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Dict, List

import pytest

from earlyexit import (
    EarlyExitController,
    EarlyExitError,
    EarlyExitTypeError,
    PyramidRun,
    append_receipts,
    pyramid_policy_update,
    verify_receipts,
)

NAMES = ["unit", "integration", "e2e"]
COSTS = [10.0, 40.0, 90.0]


def result(failed: bool, duration_ms: float) -> Dict[str, Any]:
    return {"pass_rate": 0.5 if failed else 1.0, "coverage": 1.0, "flaky_ratio": 0.0, "duration_ms": duration_ms}


def green_model(n: int) -> Dict[str, Any]:
    model: Any = None
    ran = [{"name": name, "failed": False, "duration_ms": cost} for name, cost in zip(NAMES, COSTS)]
    for _ in range(n):
        model = pyramid_policy_update(model, ran, config={"forgetting": 1})
    return model


MODEL = green_model(400)


def shadow_run(fails: List[bool], **kw: Any) -> Any:
    calls: List[int] = []

    def layer(i: int) -> Dict[str, Any]:
        return {"name": NAMES[i], "cost_ms": COSTS[i], "run": lambda: calls.append(i) or result(fails[i], COSTS[i])}

    controller = EarlyExitController(None, 3, policy="risk_bounded", mode="shadow", model=MODEL,
                                     policy_config={"reorder": False})
    r = controller.run([layer(i) for i in range(3)], **kw)
    assert calls == [0, 1, 2], "shadow mode runs every layer"
    return r


def test_a_shadow_run_records_where_the_policy_would_have_exited() -> None:
    r = shadow_run([False, False, False], run_id="build-7")
    assert (r.exited_early, list(r.layers_executed), r.verdict) == (False, [0, 1, 2], "passed")
    assert r.policy["mode"] == "shadow"
    (receipt,) = r.shadow["receipts"]
    assert (receipt["label"], receipt["exitReason"], receipt["runId"]) == ("correct_skip", "risk_bounded", "build-7")
    assert receipt["signal"]["risk"] <= receipt["thresholds"]["riskBudget"]
    assert receipt["computeSavedMs"] == sum(s["costMs"] for s in receipt["skipped"])
    assert r.shadow["labels"] == {"correctSkip": 1, "falsePass": 0, "needlessRun": 0}
    missed = shadow_run([False, False, True])
    assert missed.shadow["receipts"][0]["label"] == "false_pass"
    assert missed.shadow["receipts"][0]["firstMissedFailure"] == {"layer": 2, "name": "e2e"}
    assert missed.verdict == "failed"
    assert EarlyExitController(None, 3, policy="risk_bounded").run(
        [{"name": n, "run": lambda: result(False, 1)} for n in NAMES]).shadow is None


def test_pyramid_run_start_takes_shadow() -> None:
    run = PyramidRun.start(None, 3, [{"name": n, "cost_ms": c} for n, c in zip(NAMES, COSTS)],
                           policy="fail_fast", mode="shadow")
    while run.next().layer is not None:
        layer = run.next().layer
        run.submit(layer, result(layer == 0, 1.0))
    r = run.result()
    assert (len(r.layers_executed), r.shadow["receipts"][0]["label"]) == (3, "needless_run")


def test_the_log_chains_verifies_and_reports_tampering() -> None:
    log = ""
    for fails in ([False] * 3, [False, False, True], [False] * 3):
        log += append_receipts(log, shadow_run(fails).shadow["receipts"])
    check = verify_receipts(log)
    assert (check["valid"], check["receipts"], check["brokenAt"]) == (True, 3, None)
    assert check["labels"] == {"correct_skip": 2, "false_pass": 1}
    lines = log.rstrip("\n").split("\n")
    assert check["head"] == json.loads(lines[2])["sha256"]
    assert json.loads(lines[1])["prevHash"] == json.loads(lines[0])["sha256"]
    assert verify_receipts("\n".join([lines[0], lines[2]]))["brokenAt"]["line"] == 2
    assert verify_receipts("\n".join([lines[1], lines[0], lines[2]]))["brokenAt"]["field"] == "prevHash"
    edited = lines[1].replace('"false_pass"', '"correct_skip"')
    assert verify_receipts("\n".join([lines[0], edited]))["brokenAt"] == {
        "line": 2, "field": "sha256", "reason": "line 2: sha256 does not match the receipt's content (edited)"}
    with pytest.raises(EarlyExitError) as err:
        append_receipts(lines[1], [])
    assert (err.value.code, err.value.field) == ("invalid_receipt", "log.line 1")
    with pytest.raises(EarlyExitTypeError) as terr:
        verify_receipts(7)  # type: ignore[arg-type]
    assert (terr.value.code, terr.value.field) == ("invalid_receipt", "text")


def test_the_digest_is_sha256_over_canonical_json() -> None:
    # A receipt as the core writes it, with numbers whose canonical forms differ from their
    # source text (1.50, 1e21, -0.0, 0.1).
    receipt: Dict[str, Any] = {
        "kind": "pyramid", "receiptVersion": 1, "runId": "vector", "layer": 0, "layerName": "unit",
        "layersRun": 1, "policy": "risk_bounded",
        "config": {"riskBudget": 0.1, "confidence": 0.95, "priorFailures": 1.50, "priorPasses": 0.5,
                   "reorder": True, "skipOnSuccess": True, "forgetting": 1},
        "exitReason": "risk_bounded", "signal": {"risk": -0.0}, "thresholds": {"riskBudget": 0.1, "confidence": 0.95},
        "skipped": [{"layer": 1, "name": "e2e", "predicted": "pass", "confidence": 0.9, "actual": "pass", "costMs": 1e21}],
        "firstMissedFailure": None, "label": "correct_skip", "computeSavedMs": 1e21,
    }
    doc = json.loads(append_receipts(None, [receipt]))
    canonical = (
        '{"computeSavedMs":1e+21,"config":{"confidence":0.95,"forgetting":1,"priorFailures":1.5,"priorPasses":0.5,'
        '"reorder":true,"riskBudget":0.1,"skipOnSuccess":true},"exitReason":"risk_bounded","firstMissedFailure":null,'
        '"kind":"pyramid","label":"correct_skip","layer":0,"layerName":"unit","layersRun":1,"policy":"risk_bounded",'
        '"prevHash":null,"receiptVersion":1,"runId":"vector","signal":{"risk":0},"skipped":[{"actual":"pass",'
        '"confidence":0.9,"costMs":1e+21,"layer":1,"name":"e2e","predicted":"pass"}],'
        '"thresholds":{"confidence":0.95,"riskBudget":0.1}}'
    )
    assert doc["sha256"] == hashlib.sha256(canonical.encode()).hexdigest()
    # The same vector the Node and wasm suites pin.
    assert doc["sha256"] == "11caa2080cbed4000c5988c11e62325c8c2f7288b5ad8b52529b89a38f5a3178"


def lrts_like_runs(n: int, unit_every: int, offset: int) -> List[Dict[str, Any]]:
    return [
        {"layers": [
            {"name": "unit", "duration_ms": 10, "failed": (i + offset) % unit_every == 0},
            {"name": "integration", "duration_ms": 40, "failed": False},
            {"name": "e2e", "duration_ms": 90, "failed": (i + offset) % 97 == 3},
        ]}
        for i in range(n)
    ]


def test_artifact_drift_promotion_and_the_lifecycle() -> None:
    from earlyexit import CalibrationArtifact, calibrate_pyramid_policy, check_pyramid_drift, promote_pyramid_policy

    cal = calibrate_pyramid_policy(lrts_like_runs(600, 5, 0), 0.2, 0.1, created_at="2026-01-01T00:00:00Z")
    assert isinstance(cal, CalibrationArtifact)
    assert cal["kind"] == "pyramid" and cal["schemaVersion"] == 2
    assert cal["expiresAt"] == "2026-01-31T00:00:00.000Z"
    assert cal["policy"]["config"]["riskBudget"] == cal["risk_budget"]
    assert json.loads(cal.to_json())["corpusSha256"] == cal["corpusSha256"]
    # Not promoted: an enforced run with it as the policy runs in shadow and says why.
    layers = [{"name": n, "cost_ms": c, "run": lambda: result(False, 1)} for n, c in zip(NAMES, COSTS)]
    r = EarlyExitController(None, 3, policy=cal, now="2026-01-02T00:00:00Z").run(layers)
    assert "not promoted" in r.shadow["reason"] and len(r.layers_executed) == 3
    # Drift: fresh, expired, drifted.
    assert check_pyramid_drift(cal, lrts_like_runs(100, 5, 600), now="2026-01-02T00:00:00Z")["status"] == "fresh"
    assert check_pyramid_drift(cal.to_json(), lrts_like_runs(100, 5, 600), now="2026-03-01T00:00:00Z")["status"] == "expired"
    assert check_pyramid_drift(cal, lrts_like_runs(100, 2, 600))["status"] in ("drifted", "expired")
    # Promotion on a disjoint audit split records itself; the promoted artifact is enforced.
    out = promote_pyramid_policy(cal, lrts_like_runs(400, 5, 600), now="2026-01-02T00:00:00Z")
    assert out["promoted"] is True, out
    assert out["artifact"]["promotion"]["method"] == "clopper-pearson"
    enforced = EarlyExitController(None, 3, policy=out["artifact"], now="2026-01-02T00:00:00Z").run(layers)
    assert enforced.shadow is None
    with pytest.raises(EarlyExitError) as err:
        promote_pyramid_policy(cal, lrts_like_runs(600, 5, 0), now="2026-01-02T00:00:00Z")
    assert err.value.field == "auditRuns"
    bad = dict(cal, schemaVersion=9)
    with pytest.raises(EarlyExitError) as err:
        check_pyramid_drift(bad, lrts_like_runs(1, 5, 0))
    assert (err.value.code, err.value.field) == ("invalid_artifact", "schemaVersion")
    assert "reads versions 1 and 2" in str(err.value)
    # One envelope, two kinds: each kind's reader names the kind of the other's artifact.
    from earlyexit import EarlyStopping

    for source in (cal, cal.to_json()):
        with pytest.raises(EarlyExitError) as err:
            EarlyStopping.from_calibration(source)
        assert (err.value.code, err.value.field) == ("invalid_artifact", "kind")


def test_an_expired_enforced_artifact_runs_in_shadow_and_says_when() -> None:
    from datetime import datetime, timezone

    from earlyexit import calibrate_pyramid_policy, promote_pyramid_policy

    cal = calibrate_pyramid_policy(lrts_like_runs(600, 5, 0), 0.2, 0.1, created_at="2026-01-01T00:00:00Z")
    artifact = promote_pyramid_policy(cal, lrts_like_runs(400, 5, 600), now="2026-01-02T00:00:00Z")["artifact"]
    layers = [{"name": n, "cost_ms": c, "run": lambda: result(False, 1)} for n, c in zip(NAMES, COSTS)]
    fresh = EarlyExitController(None, 3, policy=artifact, now=1_769_731_200_000).run(layers)  # 2026-01-30
    assert fresh.shadow is None
    expired = (
        "the artifact expired at 2026-01-31T00:00:00.000Z (now 2026-02-02T00:00:00.000Z):"
        " running in shadow mode (calibrate again)"
    )
    controller = EarlyExitController(None, 3, policy=artifact, now="2026-01-30T00:00:00Z")
    late = controller.run(layers, now=datetime(2026, 2, 2, tzinfo=timezone.utc))
    assert late.shadow is not None and late.shadow["reason"] == expired
    assert len(late.layers_executed) == 3
    # Without `now`, the host clock (past the expiry here) decides.
    if datetime.now(timezone.utc) > datetime(2026, 1, 31, tzinfo=timezone.utc):
        clock = EarlyExitController(None, 3, policy=artifact).run(layers)
        assert clock.shadow is not None and clock.shadow["reason"].startswith("the artifact expired at 2026-01-31")
    # The step API keeps the reason in its snapshot.
    run = PyramidRun.start(None, 3, [{"name": n, "cost_ms": c} for n, c in zip(NAMES, COSTS)], policy=artifact, now="2026-02-02T00:00:00Z")
    step = run.next()
    while step.layer is not None:
        run.submit(step.layer, result(False, 1))
        step = run.next()
    restored = PyramidRun.from_json(run.to_json())
    assert restored.result().shadow["reason"] == expired
    with pytest.raises(EarlyExitError) as err:
        EarlyExitController(None, 3, policy="fail_fast", now=1)
    assert (err.value.code, err.value.field) == ("invalid_config", "now")
    with pytest.raises(EarlyExitTypeError) as terr:
        EarlyExitController(None, 3, policy=artifact, now=[1])
    assert (terr.value.code, terr.value.field) == ("invalid_config", "now")


def test_a_run_label_goes_into_the_receipt_and_the_reports_slice_by_it() -> None:
    from earlyexit import calibrate_pyramid_policy, check_pyramid_drift

    log = ""
    for fails, label in [((False, False, False), "main"), ((False, False, True), "main"), ((False, False, False), "release/2"), ((False, False, False), None)]:
        controller = EarlyExitController(None, 3, policy="risk_bounded", mode="shadow", model=MODEL, policy_config={"reorder": False})
        layers = [{"name": n, "cost_ms": c, "run": (lambda f=f, c=c: result(f, c))} for n, c, f in zip(NAMES, COSTS, fails)]
        r = controller.run(layers, label=label)
        assert r.shadow is not None
        assert r.shadow["receipts"][0].get("runLabel") == label
        log += append_receipts(log, r.shadow["receipts"])
    check = verify_receipts(log)
    slices = [(s["runLabel"], s["receipts"], s["rates"]["falsePass"]["count"], s["rates"]["falsePass"]["of"]) for s in check["labelSlices"]]
    assert slices == [("main", 2, 1, 2), ("release/2", 1, 0, 1)]
    for bad, kind in [("", EarlyExitError), (7, EarlyExitTypeError)]:
        with pytest.raises(kind) as err:
            EarlyExitController(None, 3, policy="fail_fast", label=bad)
        assert (err.value.code, err.value.field) == ("invalid_config", "label")
    runs = [dict(run, label="main" if i % 2 else "release") for i, run in enumerate(lrts_like_runs(600, 5, 0))]
    cal = calibrate_pyramid_policy(runs, 0.2, 0.1, created_at="2026-01-01T00:00:00Z")
    assert [(s["label"], s["runs"]) for s in cal["body"]["slices"] if "label" in s] == [("release", 300), ("main", 300)]
    recent = [dict(run, label="feature/x") for run in lrts_like_runs(50, 5, 600)]
    drift = check_pyramid_drift(cal, recent, now="2026-01-02T00:00:00Z")
    assert (drift["status"], drift["reasons"][0]["kind"], drift["reasons"][0]["label"]) == ("drifted", "label", "feature/x")
    with pytest.raises(EarlyExitError) as err:
        calibrate_pyramid_policy([dict(runs[0], label="a\tb")], 0.2, 0.1)
    assert (err.value.code, err.value.field) == ("invalid_replay", "runs[0].label")


def test_label_slice_vectors() -> None:
    """tests/vectors/policy/pyramid_slices.json (tests/vectors/gen_pyramid_slices.mjs):
    calibration label slices, drift label reasons and verify_receipts' labelSlices."""
    import pathlib

    from earlyexit import calibrate_pyramid_policy, check_pyramid_drift

    root = pathlib.Path(__file__).resolve().parents[2]
    doc = json.loads((root / "tests" / "vectors" / "policy" / "pyramid_slices.json").read_text())

    def calibrate(runs: List[Dict[str, Any]], o: Dict[str, Any]) -> Any:
        return calibrate_pyramid_policy(runs, o["risk"], o["delta"], created_at=o["createdAt"])

    for v in doc["slices"]:
        slices = [s for s in calibrate(v["runs"], v["options"])["body"]["slices"] if "label" in s]
        assert slices == v["labelSlices"], v["name"]
    artifact = calibrate(doc["drift"]["calibration"], doc["drift"]["options"])
    for v in doc["drift"]["cases"]:
        reasons = check_pyramid_drift(artifact, v["recent"], now=doc["drift"]["now"])["reasons"]
        got = [{"kind": r["kind"], "label": r["label"], "message": r["message"]} for r in reasons if "label" in r]
        assert got == v["labelReasons"], v["name"]
    for v in doc["receipts"]:
        check = verify_receipts(v["log"])
        assert check["valid"], v["name"]
        assert check["labelSlices"] == v["labelSlices"], v["name"]


def adr_shadow(rates: List[float], **kw: Any) -> Any:
    """The ADR's exit decision in shadow mode (the default policy) over five layers."""
    names = ["unit", "integration", "e2e", "perf", "smoke"]
    calls: List[int] = []

    def layer(i: int) -> Dict[str, Any]:
        seen = {"pass_rate": rates[i], "coverage": 0.95, "flaky_ratio": 0.0}
        return {"name": names[i], "cost_ms": 10.0 * (i + 1), "run": lambda: calls.append(i) or seen}

    r = EarlyExitController(None, 5, mode="shadow").run([layer(i) for i in range(5)], **kw)
    assert calls == [0, 1, 2, 3, 4], "shadow mode runs every layer"
    return r


def test_the_adr_runs_in_shadow_mode_and_labels_its_would_be_exit() -> None:
    r = adr_shadow([1.0] * 5, run_id="b1", label="main")
    assert (r.exited_early, r.exit_reason, r.verdict, r.policy) == (False, "forced_continue", "passed", None)
    receipt = r.shadow["receipts"][0]
    assert (receipt["policy"], receipt["layer"], receipt["label"], receipt["runLabel"]) == ("adr", 0, "correct_skip", "main")
    assert receipt["decision"]["canExit"] and receipt["exitReason"] == "confident_exit"
    assert [s["layer"] for s in receipt["speculations"]] == [1, 2, 3, 4]
    assert [v["layer"] for v in receipt["verification"]] == [1, 2]
    assert receipt["computeSavedMs"] == 90.0  # perf and smoke: verification runs integration and e2e
    assert r.shadow["labels"] == {"correctSkip": 1, "falsePass": 0, "needlessRun": 0}
    missed = adr_shadow([1.0, 1.0, 1.0, 1.0, 0.5], run_id="b2")
    assert missed.shadow["receipts"][0]["label"] == "false_pass"
    assert missed.shadow["receipts"][0]["firstMissedFailure"] == {"layer": 4, "name": "smoke"}
    red = adr_shadow([1.0, 0.5, 1.0, 1.0, 1.0], run_id="b3")
    assert red.shadow["receipts"][0]["label"] == "needless_run"
    log = ""
    for run in (r, missed, red):
        log += append_receipts(log, run.shadow["receipts"])
    check = verify_receipts(log)
    assert (check["valid"], check["receipts"], check["slices"][0]["slice"]) == (True, 3, "adr")
    assert check["rates"]["falsePass"]["count"] == 1 and check["rates"]["falsePass"]["of"] == 2


def test_the_adr_in_shadow_mode_without_a_would_be_exit_writes_no_receipt() -> None:
    run = PyramidRun.start(None, 2, [{"name": "unit"}, {"name": "e2e"}], mode="shadow")
    while run.next().layer is not None:
        run.submit(run.next().layer, {"pass_rate": 1.0, "coverage": 0.5, "flaky_ratio": 0.0})
    r = run.result()
    assert (list(r.layers_executed), r.shadow["receipts"], r.shadow["reason"]) == ([0, 1], [], "requested")
    back = PyramidRun.from_json(run.to_json())
    assert back.result().to_dict() == r.to_dict()
    with pytest.raises(EarlyExitError) as err:
        EarlyExitController(None, 1, mode="shadow", policy_config={"risk_budget": 0.1})
    assert (err.value.code, err.value.field) == ("invalid_config", "policy_config")
