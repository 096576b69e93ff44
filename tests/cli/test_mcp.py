"""`earlyexit mcp` driven by the official Python MCP SDK (`mcp`) over stdio: initialize, the
tools and their schemas, a loop session to a stop and a pyramid to a result compared with the
Python binding's decisions, bad arguments as tool errors naming the field, a client that
disconnects or cancels mid-call (the server writes nothing), paths confined to the roots
(`--root`, the client's `roots/list`, none when started in `/` or the home directory), and
replay answers (rows in the structured content only, `summary_only`).

Run by scripts/test-cli.sh with EARLYEXIT_BIN set to the built binary."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
import mcp.types as mcp_types

import earlyexit

BIN = os.environ.get("EARLYEXIT_BIN", "earlyexit")

TOOLS = {
    "loop_start", "loop_record", "loop_decide", "loop_best", "session_export", "session_import",
    "pyramid_start", "pyramid_submit", "pyramid_result", "pyramid_policy_decide", "pyramid_policy_update",
    "replay_loops", "replay_pyramids", "calibrate_pyramids", "calibrate_loops", "junit_layer_result",
    "receipts_verify", "pyramid_drift", "pyramid_promote", "session_close", "calibration_plan",
    "loop_finish", "loop_drift", "loop_promote", "runs_list", "runs_import", "runs_export", "runs_check",
    "runs_model", "runs_artifact", "runs_artifacts",
}


def snake(value: Any) -> Any:
    """`value` with every key in snake_case (`exitLayer` -> `exit_layer`)."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


def run_client(body: Any, args: tuple[str, ...] = (), cwd: Path | str | None = None,
               env: dict[str, str] | None = None, roots: list[Path] | None = None) -> Any:
    """Runs `body(session)` against `earlyexit mcp ARGS` started in `cwd`; with `roots`, the
    client declares the roots capability and lists them."""
    async def list_roots(context: Any) -> Any:
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=r.resolve().as_uri()) for r in roots or []])

    async def main() -> Any:
        params = StdioServerParameters(command=BIN, args=["mcp", *args], cwd=cwd, env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, list_roots_callback=list_roots if roots is not None else None) as session:
                await session.initialize()
                return await body(session)

    return anyio.run(main)


# The replay tools' text is their document without the per-run rows (`runs`), which only the
# structured content carries.
LISTINGS = {"replay_loops", "replay_pyramids"}


async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> Any:
    result = await session.call_tool(tool, args)
    assert not result.is_error, (tool, result.content)
    # The text is the libraries' exact JSON; the structured content is the same value.
    text = result.content[0].text  # type: ignore[union-attr]
    structured = result.structured_content
    assert structured is not None
    expected = {k: v for k, v in structured.items() if k != "runs"} if tool in LISTINGS else structured
    assert json.loads(text) == expected
    return structured


async def error(session: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, args)
    assert result.is_error, (tool, args)
    return result.structured_content["error"]  # type: ignore[index]


def test_initialize_and_list_tools_with_schemas() -> None:
    async def body(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = run_client(body)
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
        assert tool.description
    record = next(t for t in tools if t.name == "loop_record")
    assert set(record.input_schema["required"]) == {"session", "quality_score", "confidence", "verification_status"}


def test_loop_session_to_a_stop_matches_the_python_binding() -> None:
    scores = [62, 71, 74.5, 75, 75.2, 75.3, 75.3, 75.4]
    python = earlyexit.EarlyStopping.from_preset("seed", strict_iterations=True)

    async def body(session: ClientSession) -> Any:
        started = await call(session, "loop_start", {"preset": "seed"})
        sid = started["session"]
        assert started["config"] == json.loads(python.to_json())["config"]
        decisions = []
        for i, q in enumerate(scores, start=1):
            delta = 0 if i == 1 else q - scores[i - 2]
            got = await call(session, "loop_record", {
                "session": sid, "quality_score": q, "confidence": 0.82, "verification_status": "passed",
                "quality_delta": delta, "timestamp": "2026-01-01T00:00:00.000Z",
            })
            python.record(i, q, 0.82, "passed", delta, "2026-01-01T00:00:00.000Z")
            expected = python.should_stop().to_dict()
            assert got["iteration"] == i and got["duplicate"] is False
            assert got["decision"] == json.loads(json.dumps(expected)), i
            decisions.append(got["decision"])
            if got["decision"]["stop"]:
                break
        assert decisions[-1]["stop"], "the session reaches a stop"
        # A re-record of the last iteration is a duplicate (strict iterations), as in Python.
        last = len(decisions)
        again = await call(session, "loop_record", {
            "session": sid, "iteration": last, "quality_score": scores[last - 1], "confidence": 0.82,
            "verification_status": "passed", "quality_delta": scores[last - 1] - scores[last - 2],
            "timestamp": "2026-01-01T00:00:00.000Z",
        })
        assert again["duplicate"] is True
        best = await call(session, "loop_best", {"session": sid})
        assert best["best_iteration"] == python.should_stop().best_iteration
        exported = await call(session, "session_export", {"session": sid})
        assert exported["snapshot"] == json.loads(python.to_json())
        restored = earlyexit.EarlyStopping.from_json(json.dumps(exported["snapshot"]))
        assert restored.history == python.history
        imported = await call(session, "session_import", {"snapshot": json.dumps(exported["snapshot"])})
        decided = await call(session, "loop_decide", {"session": imported["session"]})
        assert decided == json.loads(json.dumps(python.should_stop().to_dict()))
        return last

    assert run_client(body) >= 3


def test_a_loop_session_takes_a_composed_policy() -> None:
    policy = {"any": [{"condition": "max_iterations", "limit": 2}, {"condition": "no_improvement", "patience": 1}]}
    python = earlyexit.EarlyStopping(strict_iterations=True, policy=policy)

    async def body(session: ClientSession) -> Any:
        sid = (await call(session, "loop_start", {"policy": policy}))["session"]
        for i, q in enumerate([60, 70], start=1):
            got = await call(session, "loop_record", {
                "session": sid, "quality_score": q, "confidence": 0.5, "verification_status": "failed",
                "quality_delta": 0, "timestamp": "2026-01-01T00:00:00.000Z",
            })
            python.record(i, q, 0.5, "failed", 0, "2026-01-01T00:00:00.000Z")
            assert got["decision"] == json.loads(json.dumps(python.should_stop().to_dict())), i
        assert got["decision"]["fired"][0]["path"] == "any[0]"
        # The export holds the policy (as to_json does); the import decides under it.
        exported = (await call(session, "session_export", {"session": sid}))["snapshot"]
        assert exported["policy"] == python.policy
        imported = (await call(session, "session_import", {"snapshot": exported}))["session"]
        again = await call(session, "loop_decide", {"session": imported})
        assert again["fired"][0]["path"] == "any[0]"
        bad = await error(session, "session_import", {"snapshot": {**exported, "policy": {"any": [{"condition": "max_iterations", "limit": 0}]}}})
        assert (bad["code"], bad["field"]) == ("invalid_snapshot", "policy.any[0].limit")
        bad = await error(session, "loop_start", {"policy": {"any": [{"condition": "no_improvement"}]}})
        assert (bad["code"], bad["field"]) == ("invalid_config", "policy.any[0].patience")
        return True

    assert run_client(body)


def test_loop_record_takes_the_behaviour_fields_detector_conditions_read() -> None:
    policy = {"any": [{"condition": "stuck", "no_progress_iterations": 5}]}
    python = earlyexit.EarlyStopping(strict_iterations=True, policy=policy)
    fields = {"error": "E1", "completion_percentage": 10, "artifacts_modified": ["a.py"]}

    async def body(session: ClientSession) -> Any:
        sid = (await call(session, "loop_start", {"policy": policy}))["session"]
        for i in range(1, 6):
            result = {"quality_score": 50, "confidence": 0.5, "verification_status": "failed", "quality_delta": 0,
                      "timestamp": "2026-01-01T00:00:00.000Z", **fields}
            got = await call(session, "loop_record", {"session": sid, **result})
            python.record_result(i, result)
            assert got["decision"] == json.loads(json.dumps(python.should_stop().to_dict())), i
        assert got["decision"]["trigger"] == "behavior_pause"
        bad = await error(session, "loop_record", {"session": sid, "quality_score": 50, "confidence": 0.5,
                                                   "verification_status": "failed", "tests_passing": "yes"})
        assert (bad["code"], bad["field"]) == ("invalid_result", "tests_passing")
        return True

    assert run_client(body)


def test_loop_record_takes_fingerprint_and_done_and_refuses_a_bad_fingerprint() -> None:
    policy = {"any": ["completed", {"condition": "unchanged", "k": 2}]}

    async def body(session: ClientSession) -> Any:
        sid = (await call(session, "loop_start", {"policy": policy}))["session"]
        base = {"session": sid, "confidence": 0.5, "verification_status": "failed"}
        for q in (50, 55):
            got = await call(session, "loop_record", {**base, "quality_score": q, "fingerprint": "A"})
            assert got["decision"]["stop"] is False
        got = await call(session, "loop_record", {**base, "quality_score": 60, "fingerprint": "A"})
        assert got["decision"]["trigger"] == "unchanged"
        # A bad fingerprint or done: a tool error naming it; the session is as it was.
        before = (await call(session, "session_export", {"session": sid}))["snapshot"]
        for value, kind in ((5, "type"), (["A"], "type"), ("x" * 257, "range")):
            bad = await error(session, "loop_record", {**base, "quality_score": 60, "fingerprint": value})
            assert (bad["code"], bad["field"], bad["kind"]) == ("invalid_result", "fingerprint", kind), value
        bad = await error(session, "loop_record", {**base, "quality_score": 60, "done": "yes"})
        assert (bad["code"], bad["field"]) == ("invalid_result", "done")
        bad = await error(session, "loop_record", {**base, "quality_score": 60, "done": True, "completed": True})
        assert (bad["code"], bad["field"]) == ("invalid_config", "done")
        assert (await call(session, "session_export", {"session": sid}))["snapshot"] == before

        # done stops by the completed condition; completed is its alias.
        for key in ("done", "completed"):
            sid2 = (await call(session, "loop_start", {"policy": policy}))["session"]
            got = await call(session, "loop_record", {**base, "session": sid2, "quality_score": 40, key: True})
            assert got["decision"]["trigger"] == "completed", key
            snapshot = (await call(session, "session_export", {"session": sid2}))["snapshot"]
            assert snapshot["history"][0]["completed"] is True
        return True

    assert run_client(body)


def test_loop_record_without_a_delta_gets_the_cores_delta() -> None:
    # Out of order (strict iterations off): the delta follows the latest record before the
    # iteration, as the Python binding's record() without a delta computes it.
    steps = [(1, 50), (2, 72.5), (5, 61), (3, 80)]
    python = earlyexit.EarlyStopping(strict_iterations=False)

    async def body(session: ClientSession) -> Any:
        sid = (await call(session, "loop_start", {"strict_iterations": False}))["session"]
        for i, q in steps:
            await call(session, "loop_record", {"session": sid, "iteration": i, "quality_score": q,
                                                "confidence": 0.5, "verification_status": "failed"})
            python.record(i, q, 0.5, "failed")
        return (await call(session, "session_export", {"session": sid}))["snapshot"]["history"]

    history = run_client(body)
    assert [r["quality_delta"] for r in history] == [r.quality_delta for r in python.history] == [0, 22.5, -11.5, 7.5]


def test_calibration_plan_and_an_uncertified_artifact_in_loop_start() -> None:
    runs = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "replay" / "loop_calibration.json").read_text())["runs"]

    async def body(session: ClientSession) -> Any:
        plan = await call(session, "calibration_plan", {})
        assert plan["minimumToCertify"] == 91
        python = earlyexit.calibration_plan(0.05, 0.05)
        other = await call(session, "calibration_plan", {"risk": 0.05, "delta": 0.05})
        assert [r["tasks"] for r in other["tasksNeeded"]] == [r["tasks"] for r in python["tasks_needed"]]
        for args, field in (({"risk": 0}, "risk"), ({"delta": 1}, "delta"), ({"risk": "x"}, "risk")):
            bad = await error(session, "calibration_plan", args)
            assert (bad["code"], bad["field"]) == ("invalid_config", field), args
        artifact = await call(session, "calibrate_loops", {"runs": runs[:40]})
        assert artifact["body"]["certified"] is False
        started = await call(session, "loop_start", {"policy_artifact": artifact})
        assert "uncertified" in started["warning"] and "too_few_runs" in started["warning"]
        quiet = await call(session, "loop_start", {"preset": "recommended"})
        assert "warning" not in quiet
        return True

    assert run_client(body)


def test_pyramid_session_to_a_result_matches_the_python_binding() -> None:
    layers = [{"name": "unit", "costMs": 2000}, {"name": "integration", "costMs": 30000},
              {"name": "contract", "costMs": 45000}, {"name": "e2e", "costMs": 240000}]
    results = [{"passRate": 1, "coverage": 0.93, "flakyRatio": 0}, {"passRate": 0.995, "coverage": 0.9, "flakyRatio": 0.01},
               {"passRate": 1, "coverage": 0.88, "flakyRatio": 0}, {"passRate": 0.97, "coverage": 0.8, "flakyRatio": 0.04}]
    python = earlyexit.PyramidRun.start(None, 4, [{"name": l["name"], "cost_ms": l["costMs"]} for l in layers])

    async def body(session: ClientSession) -> Any:
        started = await call(session, "pyramid_start", {"layers": layers})
        sid, step = started["session"], started["next"]
        while step["action"] != "done":
            expected_step = python.next()
            assert (step["action"], step["layer"]) == (expected_step.action, expected_step.layer)
            layer = step["layer"]
            got = await call(session, "pyramid_submit", {"session": sid, "layer": layers[layer]["name"],
                                                         "result": results[layer]})
            decision = python.submit(layer, results[layer])
            assert got["decision"] == (json.loads(json.dumps(decision.to_dict())) if decision else None)
            step = got["next"]
        assert python.next().action == "done"
        result = await call(session, "pyramid_result", {"session": sid})
        assert result == json.loads(json.dumps(python.result().to_dict()))
        assert result["verdict"] == "failed" and result["failingLayers"] == [{"layer": 1, "name": "integration"}]
        # The policy tools answer what the binding's functions answer.
        plan = [{"name": l["name"], "costMs": l["costMs"]} for l in layers]
        outcomes = [{"layer": 0, "failed": False}]
        decided = await call(session, "pyramid_policy_decide", {"policy": "fail_fast", "layers": plan, "outcomes": outcomes})
        assert decided == earlyexit.pyramid_policy_decide(None, [{"name": l["name"], "cost_ms": l["costMs"]} for l in layers],
                                                          outcomes, policy="fail_fast")
        runs = "\n".join(json.dumps({"id": f"r{i}", "layers": [
            {"name": l["name"], "durationMs": l["costMs"], "failed": (i + j) % 5 == 0} for j, l in enumerate(layers)]})
            for i in range(20))
        replayed = await call(session, "replay_pyramids", {"runs": runs, "policy": "risk_bounded"})
        # Python spells the report's keys in snake_case, the command in the JS spelling.
        assert snake(replayed) == snake(earlyexit.replay_pyramids(runs, policy="risk_bounded"))
        return True

    assert run_client(body)


def test_receipts_drift_and_promotion_tools_match_the_python_binding() -> None:
    def runs(n: int, offset: int) -> list:
        return [{"id": f"b{i + offset}", "layers": [
            {"name": "unit", "durationMs": 10, "failed": (i + offset) % 5 == 0},
            {"name": "integration", "durationMs": 40, "failed": False},
            {"name": "e2e", "durationMs": 90, "failed": (i + offset) % 97 == 3}]} for i in range(n)]

    artifact = json.loads(earlyexit.calibrate_pyramid_policy(runs(600, 0), 0.2, 0.1, created_at="2026-01-01T00:00:00Z").to_json())
    # A receipt as the core writes it: a fail_fast shadow run whose first layer fails.
    shadow = earlyexit.PyramidRun.start(None, 2, [{"name": "unit", "cost_ms": 10}, {"name": "e2e", "cost_ms": 90}],
                                        policy="fail_fast", mode="shadow")
    while shadow.next().layer is not None:
        layer = shadow.next().layer
        shadow.submit(layer, {"pass_rate": 0.5 if layer == 0 else 1.0, "coverage": 1.0, "flaky_ratio": 0.0})
    log = earlyexit.append_receipts("", shadow.result().shadow["receipts"])
    now = "2026-01-02T00:00:00Z"

    async def body(session: ClientSession) -> Any:
        verified = await call(session, "receipts_verify", {"text": log})
        assert verified == json.loads(json.dumps(earlyexit.verify_receipts(log)))
        assert verified["valid"] is True
        drift = await call(session, "pyramid_drift", {"artifact": artifact, "runs": runs(100, 600), "now": now})
        assert drift["status"] == "fresh"
        assert drift == json.loads(json.dumps(earlyexit.check_pyramid_drift(artifact, runs(100, 600), now=now)))
        promoted = await call(session, "pyramid_promote", {"artifact": artifact, "runs": runs(400, 600), "now": now})
        assert promoted == json.loads(json.dumps(earlyexit.promote_pyramid_policy(artifact, runs(400, 600), now=now)))
        assert promoted["promoted"] is True
        bad = await error(session, "pyramid_drift", {"artifact": dict(artifact, schemaVersion=9), "runs": runs(1, 0)})
        assert (bad["code"], bad["field"]) == ("invalid_artifact", "schemaVersion")
        return True

    assert run_client(body)


def test_bad_arguments_are_tool_errors_naming_the_field() -> None:
    async def body(session: ClientSession) -> Any:
        sid = (await call(session, "loop_start", {}))["session"]
        pid = (await call(session, "pyramid_start", {"layers": [{"name": "unit"}]}))["session"]
        cases = [
            ("loop_record", {"session": sid, "quality_score": 150, "confidence": 1, "verification_status": "passed"},
             "invalid_result", "quality_score"),
            ("loop_record", {"session": sid, "quality_score": "high", "confidence": 1, "verification_status": "passed"},
             "invalid_result", "quality_score"),
            ("loop_record", {"session": sid, "quality_score": 50, "confidence": 1, "verification_status": "maybe"},
             "invalid_result", "verification_status"),
            ("loop_record", {"session": sid, "quality_score": 50, "confidence": 1, "verification_status": "passed", "qualty": 1},
             "unknown_option", "qualty"),
            ("loop_record", {"session": "nope", "quality_score": 50, "confidence": 1, "verification_status": "passed"},
             "invalid_step", "session"),
            ("loop_start", {"config": {"plateauConsecutivCount": 3}}, "unknown_option", "plateauConsecutivCount"),
            ("loop_start", {"preset": "fastest"}, "invalid_config", "preset"),
            ("pyramid_start", {"layers": [{"name": "a", "costMs": -1}]}, "invalid_config", "layers[0].costMs"),
            # A near-miss of a layer key would be ignored (no cost: no savings): refused.
            ("pyramid_start", {"layers": [{"name": "a", "cost_ms": 5}]}, "unknown_option", "layers[0].cost_ms"),
            ("pyramid_start", {"layers": [{"name": "a", "timeout": 5}]}, "unknown_option", "layers[0].timeout"),
            ("calibrate_pyramids", {"runs": "", "risk": 2, "delta": 0.1}, "invalid_config", "risk"),
            ("calibrate_loops", {"runs": "", "risk": 2}, "invalid_config", "risk"),
            ("calibrate_loops", {"runs": "", "valid_days": 0}, "invalid_config", "valid_days"),
            ("loop_start", {"preset": "seed", "policy_artifact": {}}, "invalid_config", "preset"),
            ("loop_start", {"policy_artifact": {"kind": "loop"}}, "invalid_artifact", "schemaVersion"),
            # A report that does not exist inside the root (the working directory here).
            ("junit_layer_result", {"junit": ["no-such-folder/report.xml"]}, "input", None),
            # Argument problems the server finds itself, worded by the core.
            ("loop_decide", {}, "invalid_config", "session"),
            ("pyramid_result", {"session": sid}, "invalid_step", "session"),
            ("loop_start", {"strict_iterations": "yes"}, "invalid_config", "strict_iterations"),
            ("pyramid_start", {"layers": [{"name": "a"}], "total_layers": -1}, "invalid_config", "total_layers"),
            ("pyramid_submit", {"session": pid, "layer": "e2e"}, "invalid_config", "result"),
            ("pyramid_submit", {"session": pid, "layer": "e2e", "result": {"passRate": 1, "coverage": 1,
                                "flakyRatio": 0}}, "invalid_step", "layer"),
            ("replay_loops", {}, "invalid_config", "runs"),
            ("replay_loops", {"paths": "runs.jsonl"}, "invalid_config", "paths"),
            ("replay_pyramids", {"runs": [], "model_out": "m.json"}, "invalid_config", "model_out"),
            ("calibrate_pyramids", {"runs": "", "paths": ["a.jsonl"], "risk": 0.1, "delta": 0.1}, "invalid_config", "runs"),
            ("junit_layer_result", {"junit": []}, "invalid_config", "junit"),
            ("junit_layer_result", {"junit": ["r.xml"], "coverage": 0.5, "coverage_xml": "c.xml"},
             "invalid_config", "coverage"),
        ]
        got = []
        for tool, args, code, field in cases:
            e = await error(session, tool, args)
            got.append((e["code"], e.get("field")))
            assert (e["code"], e.get("field")) == (code, field), (tool, args, e)
        # A refused record changed nothing: the session is still empty and usable.
        ok = await call(session, "loop_record", {"session": sid, "quality_score": 50, "confidence": 1,
                                                 "verification_status": "passed"})
        assert ok["iteration"] == 1
        return got

    run_client(body)


def test_an_18_mb_snapshot_imports_and_session_close_ends_the_session() -> None:
    """A 120,000-record loop snapshot (about 18 MB of JSON text, under the 256 MiB document
    limit) is imported (before: no answer, the MCP library dropped lines over 16 MiB), and
    `session_close` ends a session (before: sessions lived until the server exited)."""

    async def body(session: ClientSession) -> Any:
        sid = (await call(session, "loop_start", {"config": {"maxIterations": 1_000_000}}))["session"]
        await call(session, "loop_record", {"session": sid, "quality_score": 50, "confidence": 0.5,
                                            "verification_status": "failed", "timestamp": "2026-01-01T00:00:00.000Z"})
        snapshot = (await call(session, "session_export", {"session": sid}))["snapshot"]
        record = snapshot["history"][0]
        snapshot["history"] = [dict(record, iteration_number=i) for i in range(1, 120_001)]
        text = json.dumps(snapshot)
        assert len(text) > 16 * 2**20, len(text)
        imported = await call(session, "session_import", {"snapshot": text})
        assert imported["engine"] == "loop"
        best = await call(session, "loop_best", {"session": imported["session"]})
        assert best["best_iteration"] is not None
        closed = await call(session, "session_close", {"session": imported["session"]})
        assert closed == {"session": imported["session"], "closed": True}
        gone = await error(session, "loop_decide", {"session": imported["session"]})
        assert (gone["code"], gone["field"]) == ("invalid_step", "session")
        # The other session is untouched.
        return await call(session, "loop_decide", {"session": sid})

    assert run_client(body)["stop"] is False


def test_client_disconnecting_mid_call_ends_the_server_cleanly(tmp_path: Path) -> None:
    # A calibration long enough to be in progress when the client goes away.
    runs = tmp_path / "runs.jsonl"
    with runs.open("w") as f:
        for i in range(60000):
            layers = [{"name": f"l{j}", "durationMs": 100 * (j + 1), "failed": (i * 7 + j * 3) % 11 == 0} for j in range(6)]
            f.write(json.dumps({"id": f"r{i}", "layers": layers}) + "\n")
    model_out = tmp_path / "model.json"
    server = subprocess.Popen([BIN, "mcp", "--root", str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert server.stdin is not None
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
    assert json.loads(server.stdout.readline())["id"] == 1
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "calibrate_pyramids", "arguments": {
        "paths": [str(runs)], "risk": 0.1, "delta": 0.1, "model_out": str(model_out)}}})
    time.sleep(0.3)  # the call is running
    server.stdin.close()  # the client disconnects mid-call
    try:
        code = server.wait(timeout=60)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGKILL)
    assert code == 0, server.stderr.read().decode() if server.stderr else ""
    assert not model_out.exists(), "no partial state written"
    assert not list(tmp_path.glob(".earlyexit-*")), "no temporary file left"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_calibrate_loops_answers_the_binding_artifact_and_loop_start_runs_it() -> None:
    doc = json.loads((Path(__file__).resolve().parents[2] / "tests" / "vectors" / "replay" / "loop_calibration.json").read_text())
    options = doc["cases"][0]["options"]
    python = earlyexit.calibrate_loop_policy(doc["runs"], options)

    async def body(session: ClientSession) -> Any:
        artifact = await call(session, "calibrate_loops", {"runs": doc["runs"], **options})
        for key in ("kind", "policy", "certificate", "corpusSha256", "body"):
            assert artifact[key] == python.artifact[key], key
        # Not promoted: the session enforces the most conservative candidate (patience 4) and
        # runs the calibrated one (patience 3) in shadow, saying why.
        started = await call(session, "loop_start", {"policy_artifact": artifact})
        assert started["config"]["noImprovementPatience"] == 4
        assert "not promoted" in started["shadow_reason"]
        exported = (await call(session, "session_export", {"session": started["session"]}))["snapshot"]
        assert re.fullmatch("[0-9a-f]{64}", exported["policyArtifact"])
        assert "policy" not in exported  # a chosen config: the engine has no stop policy
        assert exported["shadow"]["policy"]["config"]["noImprovementPatience"] == 3
        assert exported["shadow"]["reason"] == started["shadow_reason"]
        taken = await error(session, "loop_start", {"policy_artifact": artifact, "shadow": "recommended"})
        assert (taken["code"], taken["field"]) == ("invalid_config", "shadow")
        # Composed candidates: the artifact holds the chosen tree, and the session runs it.
        trees = [dict(p, any=[{"condition": "high_confidence", "threshold": 0, "min_quality": 0},
                              {"condition": "no_improvement", "patience": p["config"]["noImprovementPatience"]}])
                 for p in options["candidates"]]
        composed = await call(session, "calibrate_loops", {"runs": doc["runs"], **dict(options, candidates=trees)})
        assert composed["certificate"] == artifact["certificate"]
        started = await call(session, "loop_start", {"policy_artifact": composed})
        exported = (await call(session, "session_export", {"session": started["session"]}))["snapshot"]
        assert exported["shadow"]["policy"]["any"] == composed["policy"]["any"]
        assert '"patience": 4' in json.dumps(exported["policy"]["any"])
        return artifact

    run_client(body)


# ---- Files and roots -------------------------------------------------------------------------

JUNIT = '<testsuite name="s"><testcase classname="c" name="a"/><testcase classname="c" name="b"/></testsuite>'
COBERTURA = '<coverage line-rate="0.5"></coverage>'


def pyramid_runs(n: int) -> str:
    return "".join(json.dumps({"id": f"r{i}", "layers": [
        {"name": f"l{j}", "durationMs": 100 * (j + 1), "failed": (i * 7 + j * 3) % 11 == 0} for j in range(4)]}) + "\n"
        for i in range(n))


def loop_runs(n: int, length: int = 8) -> str:
    return "".join(json.dumps({"id": f"loop{i}", "iterations": [
        {"quality_score": min(100, 40 + 7 * k + (i % 5)), "confidence": min(1, 0.3 + 0.08 * k),
         "verification_status": "passed" if k > 4 else "failed", "good": k > 3} for k in range(length)]}) + "\n"
        for i in range(n))


def project(d: Path) -> dict[str, Path]:
    """Every kind of input file a path tool reads, in `d`."""
    d.mkdir(parents=True, exist_ok=True)
    files = {"report": d / "report.xml", "coverage": d / "coverage.xml", "runs": d / "runs.jsonl",
             "loops": d / "loops.jsonl", "receipts": d / "receipts.jsonl"}
    files["report"].write_text(JUNIT)
    files["coverage"].write_text(COBERTURA)
    files["runs"].write_text(pyramid_runs(30))
    files["loops"].write_text(loop_runs(30))
    # A valid receipt log as the core writes one (the shared receipt vectors).
    slices = Path(__file__).resolve().parents[2] / "tests" / "vectors" / "policy" / "pyramid_slices.json"
    files["receipts"].write_text(json.loads(slices.read_text())["receipts"][0]["log"])
    return files


async def sessions(session: ClientSession) -> tuple[str, str]:
    sid = (await call(session, "loop_start", {}))["session"]
    pid = (await call(session, "pyramid_start", {"layers": [{"name": "unit"}]}))["session"]
    return sid, pid


def every_path_call(f: dict[str, Path], out: Path, sid: str, pid: str) -> list[tuple[str, dict[str, Any], str]]:
    """One call per tool and path argument: (tool, arguments, the field refused first)."""
    report, runs, loops = str(f["report"]), str(f["runs"]), str(f["loops"])
    return [
        ("junit_layer_result", {"junit": [report]}, "junit[0]"),
        ("junit_layer_result", {"junit": ["report.xml"]}, "junit[0]"),
        ("pyramid_submit", {"session": pid, "layer": "unit", "junit": [report], "coverage_xml": str(f["coverage"])}, "junit[0]"),
        ("pyramid_policy_decide", {"layers": [{"name": "unit"}], "outcomes": [{"layer": 0, "junit": [report]}]},
         "outcomes[0].junit[0]"),
        ("receipts_verify", {"path": str(f["receipts"])}, "path"),
        ("replay_loops", {"paths": [loops]}, "paths[0]"),
        ("replay_pyramids", {"paths": [runs], "model_out": str(out / "model.json")}, "paths[0]"),
        ("calibrate_pyramids", {"paths": [runs], "risk": 0.1, "delta": 0.1, "model_out": str(out / "model.json")}, "paths[0]"),
        ("calibrate_loops", {"paths": [loops], "out": str(out / "artifact.json")}, "paths[0]"),
        ("calibrate_loops", {"runs": f["loops"].read_text(), "out": str(out / "artifact.json")}, "out"),
        ("session_export", {"session": sid, "path": str(out / "snapshot.json")}, "path"),
    ]


@pytest.mark.parametrize("where", ["/", "home"])
def test_a_server_started_in_root_or_home_refuses_every_path(tmp_path: Path, where: str) -> None:
    files = project(tmp_path / "project")
    out = tmp_path / "project"
    home = tmp_path / "home"
    home.mkdir()
    cwd = "/" if where == "/" else home
    # The SDK passes HOME through; `home` is the server's home directory here.
    env = {"HOME": str(home)}

    async def body(session: ClientSession) -> Any:
        sid, pid = await sessions(session)
        for tool, args, field in every_path_call(files, out, sid, pid):
            e = await error(session, tool, args)
            assert (e["code"], e.get("field")) == ("invalid_config", field), (tool, args, e)
            assert "--root" in e["message"], e
        return True

    assert run_client(body, cwd=cwd, env=env)
    assert not (out / "model.json").exists() and not (out / "artifact.json").exists()
    assert not (out / "snapshot.json").exists()


def test_root_confines_every_path_and_writes_never_touch_a_link(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    files = project(root)
    project(outside)
    secret = outside / "secret.json"
    secret.write_text("keep")
    inner = root / "inner.json"
    inner.write_text("inner")
    (root / "link-report.xml").symlink_to(outside / "report.xml")
    (root / "away").symlink_to(outside, target_is_directory=True)
    (root / "alias.json").symlink_to(secret)
    (root / "inner-alias.json").symlink_to(inner)
    outside_before = sorted(p.name for p in outside.iterdir())
    inline_loops = files["loops"].read_text()

    async def body(session: ClientSession) -> Any:
        sid, pid = await sessions(session)
        refused = [
            ("junit_layer_result", {"junit": ["../outside/report.xml"]}, "junit[0]"),
            ("junit_layer_result", {"junit": [str(outside / "report.xml")]}, "junit[0]"),
            ("junit_layer_result", {"junit": ["link-report.xml"]}, "junit[0]"),
            ("junit_layer_result", {"junit": ["away/report.xml"]}, "junit[0]"),
            ("junit_layer_result", {"junit": ["report.xml"], "coverage_xml": "../outside/coverage.xml"}, "coverage_xml"),
            ("pyramid_submit", {"session": pid, "layer": "unit", "junit": ["report.xml", "../outside/report.xml"]},
             "junit[1]"),
            ("pyramid_policy_decide", {"layers": [{"name": "unit"}], "outcomes": [
                {"layer": 0, "junit": ["report.xml", "sub/../../outside/report.xml"]}]}, "outcomes[0].junit[1]"),
            ("receipts_verify", {"path": "../outside/receipts.jsonl"}, "path"),
            ("replay_loops", {"paths": ["loops.jsonl", str(outside / "loops.jsonl")]}, "paths[1]"),
            ("replay_pyramids", {"paths": ["runs.jsonl", "../outside/runs.jsonl"]}, "paths[1]"),
            ("replay_pyramids", {"paths": ["runs.jsonl"], "model_out": "away/model.json"}, "model_out"),
            ("replay_pyramids", {"paths": ["runs.jsonl"], "model_out": "alias.json"}, "model_out"),
            ("replay_pyramids", {"paths": ["runs.jsonl"], "model_out": "inner-alias.json"}, "model_out"),
            ("calibrate_pyramids", {"paths": ["runs.jsonl"], "risk": 0.1, "delta": 0.1,
                                    "model_out": "../outside/model.json"}, "model_out"),
            ("calibrate_loops", {"runs": inline_loops, "out": str(outside / "artifact.json")}, "out"),
            ("calibrate_loops", {"runs": inline_loops, "out": "alias.json"}, "out"),
            ("calibrate_loops", {"paths": ["../outside/loops.jsonl"]}, "paths[0]"),
            ("session_export", {"session": sid, "path": "../outside/snapshot.json"}, "path"),
            ("session_export", {"session": sid, "path": "away/snapshot.json"}, "path"),
            ("session_export", {"session": sid, "path": "alias.json"}, "path"),
            ("session_export", {"session": sid, "path": "inner-alias.json"}, "path"),
        ]
        for tool, args, field in refused:
            e = await error(session, tool, args)
            assert (e["code"], e.get("field")) == ("invalid_config", field), (tool, args, e)
        # Inside the root, relative paths (from the root) and absolute ones work.
        layer = await call(session, "junit_layer_result", {"junit": ["report.xml"], "coverage_xml": "coverage.xml"})
        assert (layer["total"], layer["coverage"]) == (2, 0.5)
        await call(session, "replay_pyramids", {"paths": [str(files["runs"])], "model_out": "model.json"})
        await call(session, "session_export", {"session": sid, "path": "snapshot.json"})
        await call(session, "calibrate_loops", {"paths": ["loops.jsonl"], "out": "artifact.json"})
        return True

    # Started elsewhere (the outside directory): --root, not the working directory, confines.
    assert run_client(body, args=("--root", str(root)), cwd=outside)
    assert secret.read_text() == "keep" and inner.read_text() == "inner"
    for link in ("alias.json", "inner-alias.json", "link-report.xml", "away"):
        assert (root / link).is_symlink(), link
    assert sorted(p.name for p in outside.iterdir()) == outside_before
    for written in ("model.json", "snapshot.json", "artifact.json"):
        assert (root / written).is_file() and not (root / written).is_symlink(), written
    assert not list(root.glob(".earlyexit-*")), "no temporary file left"


def test_a_client_that_offers_roots_confines_paths_to_them(tmp_path: Path) -> None:
    root, other = tmp_path / "root", tmp_path / "other"
    project(root)
    project(other)
    asked = []

    async def body(session: ClientSession) -> Any:
        layer = await call(session, "junit_layer_result", {"junit": [str(root / "report.xml")]})
        assert layer["total"] == 2
        relative = await call(session, "junit_layer_result", {"junit": ["report.xml"]})
        assert relative == layer
        # `other` is inside the working directory, but the client's roots decide.
        e = await error(session, "junit_layer_result", {"junit": [str(other / "report.xml")]})
        assert (e["code"], e["field"]) == ("invalid_config", "junit[0]")
        assert str(root.resolve()) in e["message"], e
        asked.append(True)
        return True

    assert run_client(body, cwd=tmp_path, roots=[root])
    assert asked


# ---- Cancellation and disconnect: calibrate_loops writes nothing ---------------------------------

def raw_server(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([BIN, "mcp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def send(server: subprocess.Popen[bytes], *messages: dict[str, Any]) -> None:
    assert server.stdin is not None
    server.stdin.write(b"".join((json.dumps(m) + "\n").encode() for m in messages))
    server.stdin.flush()


def initialize(server: subprocess.Popen[bytes]) -> None:
    assert server.stdout is not None
    send(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
    assert json.loads(server.stdout.readline())["id"] == 1
    send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})


def slow_loop_calibration(d: Path) -> dict[str, Any]:
    """calibrate_loops arguments whose calibration takes a while (many runs, a long path)."""
    runs = d / "loops.jsonl"
    runs.write_text(loop_runs(4000, 30))
    return {"paths": [str(runs)], "steps": 400, "risk": 0.2, "out": str(d / "artifact.json")}


def test_a_cancelled_calibrate_loops_writes_nothing_and_the_server_goes_on(tmp_path: Path) -> None:
    args = slow_loop_calibration(tmp_path)
    server = raw_server(["--root", str(tmp_path)])
    assert server.stdout is not None and server.stderr is not None
    try:
        initialize(server)
        send(server,
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "calibrate_loops", "arguments": args}},
             {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "test"}})
        # The server says when the cancelled call stopped (without the check it would write
        # the artifact when the calibration ends, and say nothing: the wait runs out).
        lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: lines.put(server.stderr.readline()), daemon=True).start()  # type: ignore[union-attr]
        try:
            line = lines.get(timeout=120).decode()
        except queue.Empty:
            line = "(nothing on stderr)"
        assert "calibrate_loops stopped" in line, (line, (tmp_path / "artifact.json").exists())
        assert not (tmp_path / "artifact.json").exists(), "nothing written"
        assert not list(tmp_path.glob(".earlyexit-*")), "no temporary file left"
        # The cancelled call gets no answer; the next request does.
        send(server, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert json.loads(server.stdout.readline())["id"] == 3
        assert server.stdin is not None
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()


def test_a_client_leaving_mid_calibrate_loops_leaves_no_file(tmp_path: Path) -> None:
    args = slow_loop_calibration(tmp_path)
    server = raw_server(["--root", str(tmp_path)])
    try:
        initialize(server)
        send(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "calibrate_loops", "arguments": args}})
        assert server.stdin is not None
        server.stdin.close()  # the client disconnects mid-call
        assert server.wait(timeout=120) == 0
        assert not (tmp_path / "artifact.json").exists(), "nothing written"
        assert not list(tmp_path.glob(".earlyexit-*")), "no temporary file left"
    finally:
        if server.poll() is None:
            server.kill()


# ---- Replay answers ------------------------------------------------------------------------------

def test_replay_rows_are_in_the_structured_content_once_and_summary_only_leaves_them_out(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(pyramid_runs(200))
    loops = tmp_path / "loops.jsonl"
    loops.write_text(loop_runs(50))
    command = {
        "replay_pyramids": json.loads(subprocess.run([BIN, "--json", "replay", "pyramids", str(runs), "--policy",
                                                      "risk_bounded"], capture_output=True, check=True).stdout),
        "replay_loops": json.loads(subprocess.run([BIN, "--json", "replay", "loops", str(loops)],
                                                  capture_output=True, check=True).stdout),
    }
    calls = {"replay_pyramids": {"paths": ["runs.jsonl"], "policy": "risk_bounded"}, "replay_loops": {"paths": ["loops.jsonl"]}}

    async def body(session: ClientSession) -> Any:
        for tool, args in calls.items():
            whole = await session.call_tool(tool, args)
            assert not whole.is_error, whole.content
            text = json.loads(whole.content[0].text)  # type: ignore[union-attr]
            # The rows once, in the structured content: the command's document, exactly.
            assert whole.structured_content == command[tool], tool
            assert text == {k: v for k, v in command[tool].items() if k != "runs"}, tool
            summary = await session.call_tool(tool, {**args, "summary_only": True})
            assert not summary.is_error, summary.content
            assert "runs" not in summary.structured_content  # type: ignore[operator]
            assert json.loads(summary.content[0].text) == summary.structured_content  # type: ignore[union-attr]
            assert summary.structured_content == text
            e = await error(session, tool, {**args, "summary_only": "yes"})
            assert (e["code"], e["field"]) == ("invalid_config", "summary_only")
        # Runs given inline: the same shape.
        inline = await call(session, "replay_pyramids", {"runs": runs.read_text(), "policy": "risk_bounded",
                                                         "summary_only": True})
        assert inline == {k: v for k, v in command["replay_pyramids"].items() if k != "runs"}
        return True

    assert run_client(body, args=("--root", str(tmp_path)))
