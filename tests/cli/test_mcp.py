"""`earlyexit mcp` driven by the official Python MCP SDK (`mcp`) over stdio: initialize, the
tools and their schemas, a loop session to a stop and a pyramid to a result compared with the
Python binding's decisions, bad arguments as tool errors naming the field, and a client that
disconnects mid-call (the server exits 0 and writes nothing).

Run by scripts/test-cli.sh with EARLYEXIT_BIN set to the built binary."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import earlyexit

BIN = os.environ.get("EARLYEXIT_BIN", "earlyexit")

TOOLS = {
    "loop_start", "loop_record", "loop_decide", "loop_best", "session_export", "session_import",
    "pyramid_start", "pyramid_submit", "pyramid_result", "pyramid_policy_decide", "pyramid_policy_update",
    "replay_loops", "replay_pyramids", "calibrate_pyramids", "calibrate_loops", "junit_layer_result",
    "receipts_verify", "pyramid_drift", "pyramid_promote",
}


def snake(value: Any) -> Any:
    """`value` with every key in snake_case (`exitLayer` -> `exit_layer`)."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


def run_client(body: Any) -> Any:
    async def main() -> Any:
        params = StdioServerParameters(command=BIN, args=["mcp"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)

    return anyio.run(main)


async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> Any:
    result = await session.call_tool(tool, args)
    assert not result.is_error, (tool, result.content)
    # The text is the libraries' exact JSON; the structured content is the same value.
    text = result.content[0].text  # type: ignore[union-attr]
    assert json.loads(text) == result.structured_content
    return result.structured_content


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
            ("calibrate_pyramids", {"runs": "", "risk": 2, "delta": 0.1}, "invalid_config", "risk"),
            ("calibrate_loops", {"runs": "", "risk": 2}, "invalid_config", "risk"),
            ("calibrate_loops", {"runs": "", "valid_days": 0}, "invalid_config", "valid_days"),
            ("loop_start", {"preset": "seed", "policy_artifact": {}}, "invalid_config", "preset"),
            ("loop_start", {"policy_artifact": {"kind": "loop"}}, "invalid_artifact", "schemaVersion"),
            ("junit_layer_result", {"junit": ["/nonexistent/report.xml"]}, "input", None),
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


def test_client_disconnecting_mid_call_ends_the_server_cleanly(tmp_path: Path) -> None:
    # A calibration long enough to be in progress when the client goes away.
    runs = tmp_path / "runs.jsonl"
    with runs.open("w") as f:
        for i in range(60000):
            layers = [{"name": f"l{j}", "durationMs": 100 * (j + 1), "failed": (i * 7 + j * 3) % 11 == 0} for j in range(6)]
            f.write(json.dumps({"id": f"r{i}", "layers": layers}) + "\n")
    model_out = tmp_path / "model.json"
    server = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
        started = await call(session, "loop_start", {"policy_artifact": artifact})
        assert started["config"]["noImprovementPatience"] == 3
        exported = (await call(session, "session_export", {"session": started["session"]}))["snapshot"]
        assert re.fullmatch("[0-9a-f]{64}", exported["policyArtifact"])
        assert "policy" not in exported  # a chosen config: the engine has no stop policy
        # Composed candidates: the artifact holds the chosen tree, and the session runs it.
        trees = [dict(p, any=[{"condition": "high_confidence", "threshold": 0, "min_quality": 0},
                              {"condition": "no_improvement", "patience": p["config"]["noImprovementPatience"]}])
                 for p in options["candidates"]]
        composed = await call(session, "calibrate_loops", {"runs": doc["runs"], **dict(options, candidates=trees)})
        assert composed["certificate"] == artifact["certificate"]
        started = await call(session, "loop_start", {"policy_artifact": composed})
        exported = (await call(session, "session_export", {"session": started["session"]}))["snapshot"]
        assert exported["policy"]["any"] == composed["policy"]["any"]
        return artifact

    run_client(body)
