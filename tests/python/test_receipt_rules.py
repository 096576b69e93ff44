"""The receipt log's rules beyond the hash chain (docs/test-exit.md "Receipts"): one receipt
per run, no blank lines, nothing written when there is nothing to write, receipts that
contradict themselves refused; and pyramid cost sums that never overflow (docs/limits.md)."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any, Dict, List, Optional

import pytest

from earlyexit import (
    EarlyExitError,
    PyramidRun,
    append_receipts,
    pyramid_policy_update,
    replay_pyramids,
    verify_receipts,
)

CONFIG = {"riskBudget": 0.01, "confidence": 0.95, "priorFailures": 0.5, "priorPasses": 0.5,
          "reorder": True, "skipOnSuccess": True, "forgetting": 0.998}


def receipt(label: str, run_id: Optional[str] = None) -> Dict[str, Any]:
    """A receipt as the core writes it (tests/vectors/receipt_doc.mjs builds the same)."""
    green = label != "needless_run"
    failed = label == "false_pass"
    return {
        "kind": "pyramid", "receiptVersion": 1, "runId": run_id, "layer": 0, "layerName": "unit", "layersRun": 1,
        "policy": "risk_bounded", "config": dict(CONFIG),
        "exitReason": "risk_bounded" if green else "layer_failed",
        "signal": {"risk": 0.008 if green else None},
        "thresholds": {"riskBudget": 0.01, "confidence": 0.95},
        "skipped": [{"layer": 1, "name": "e2e", "predicted": "pass" if green else "fail",
                     "confidence": 0.992 if green else None, "actual": "fail" if failed else "pass", "costMs": 1200}],
        "firstMissedFailure": {"layer": 1, "name": "e2e"} if failed else None,
        "label": label, "computeSavedMs": 1200,
    }


def chained(body: Dict[str, Any], prev: Optional[str]) -> Dict[str, Any]:
    line = dict(body, prevHash=prev)
    canonical = json.dumps(line, sort_keys=True, separators=(",", ":"))
    return dict(line, sha256=hashlib.sha256(canonical.encode()).hexdigest())


def chain_log(bodies: List[Dict[str, Any]]) -> str:
    lines, prev = [], None
    for body in bodies:
        line = chained(body, prev)
        prev = line["sha256"]
        lines.append(json.dumps(line, separators=(",", ":")))
    return "\n".join(lines) + "\n"


def test_a_retried_step_appends_its_receipt_once() -> None:
    r = receipt("correct_skip", "build-41")
    log = ""
    for _ in range(3):
        log += append_receipts(log, [r])
    assert len(log.splitlines()) == 1 and log.endswith("\n") and "\n\n" not in log
    check = verify_receipts(log)
    assert (check["receipts"], check["repeated"]) == (1, 0)
    assert append_receipts(log, []) == ""
    assert append_receipts(None, []) == ""
    with pytest.raises(EarlyExitError) as err:
        append_receipts(log, [receipt("false_pass", "build-41")])
    assert (err.value.code, err.value.field) == ("invalid_receipt", "receipts[0].runId")
    # A log written before the rule: the same receipt three times, counted once.
    old = verify_receipts(chain_log([r, r, r]))
    assert (old["valid"], old["receipts"], old["repeated"], old["labels"]) == (True, 1, 2, {"correct_skip": 1})


def edited(label: str, path: List[Any], value: Any) -> Dict[str, Any]:
    r = copy.deepcopy(receipt(label, "b"))
    at: Any = r
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = value
    return r


@pytest.mark.parametrize(("field", "bad"), [
    ("label", dict(edited("false_pass", ["label"], "correct_skip"))),
    ("layer", edited("correct_skip", ["layer"], 50)),
    ("skipped[0].layer", edited("correct_skip", ["skipped", 0, "layer"], 50)),
    ("computeSavedMs", edited("correct_skip", ["computeSavedMs"], 1e308)),
    ("signal.risk", edited("correct_skip", ["signal", "risk"], -0.1)),
])
def test_a_receipt_that_contradicts_itself_is_refused(field: str, bad: Dict[str, Any]) -> None:
    with pytest.raises(EarlyExitError) as err:
        append_receipts("", [bad])
    assert (err.value.code, err.value.field) == ("invalid_receipt", f"receipts[0].{field}")
    broken = verify_receipts(json.dumps(chained(bad, None)) + "\n")["brokenAt"]
    assert (broken["line"], broken["field"]) == (1, field)


def test_a_line_that_states_a_key_twice_breaks_the_log() -> None:
    honest = json.dumps(chained(receipt("false_pass"), None), separators=(",", ":"))
    forged = honest.replace('"label":"false_pass"', '"label":"correct_skip","label":"false_pass"')
    assert forged != honest and verify_receipts(honest)["valid"]
    broken = verify_receipts(forged)["brokenAt"]
    assert broken["line"] == 1 and "'label' repeated" in broken["reason"]


def test_pyramid_cost_sums_never_overflow() -> None:
    with pytest.raises(EarlyExitError) as err:
        PyramidRun.start(None, 4, [{"name": n, "cost_ms": 1e308} for n in "abcd"])
    assert (err.value.code, err.value.field) == ("invalid_config", "layers[1].cost_ms")

    def run(*durations: float) -> Dict[str, Any]:
        return {"layers": [{"name": f"l{i}", "duration_ms": d, "failed": False} for i, d in enumerate(durations)]}

    with pytest.raises(EarlyExitError) as err:
        replay_pyramids([run(1e308, 1e308)])
    assert (err.value.code, err.value.field) == ("invalid_replay", "runs[0].layers[1].duration_ms")
    with pytest.raises(EarlyExitError) as err:
        replay_pyramids([run(1e308), run(1e308)])
    assert (err.value.code, err.value.field) == ("invalid_replay", "runs[1].layers")
    summary: Any = replay_pyramids([run(1e308)])["summary"]
    assert summary["total_ms"] == 1e308
    ran = [{"name": "e2e", "failed": False, "duration_ms": 1e308}]
    model = pyramid_policy_update(None, ran, config={"forgetting": 1})
    with pytest.raises(EarlyExitError) as err:
        pyramid_policy_update(model, ran, config={"forgetting": 1})
    assert (err.value.code, err.value.field) == ("invalid_config", "ran[0].durationMs")  # as the model's other ran[i] errors
    live = PyramidRun.start(None, 2, [{"name": "unit", "cost_ms": 1}, {"name": "e2e", "cost_ms": 1e308}],
                            policy="fail_fast", mode="shadow")
    with pytest.raises(EarlyExitError) as err:
        live.submit(0, {"pass_rate": 1, "coverage": 1, "flaky_ratio": 0, "duration_ms": 1e308})
    assert (err.value.code, err.value.field) == ("invalid_layer_result", "layers[0].duration_ms")
