"""IterationAnalytics against aiwg's iteration-analytics.mjs, and its files.

Differential: random valid call sequences are written as vectors, answered by the reference
(``node tests/vectors/analytics_reference.mjs``, with the listed deliberate differences) and
run through the Python API (``vector_support.run_vector``); upstream-form objects save their
summary after every record, and each file is compared byte for byte with the reference's.
Skipped with a message when ``node`` or the reference files are absent (a clone without
``../shared``).

Files: the config-object form and ``persist=False`` write nothing; saving after every record
costs the record, not the history (bytes written counted); a file changed behind the
object's back is written whole; ``load`` reads upstream's file back; pathlib paths.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

import earlyexit
from earlyexit import EarlyExitError, EarlyExitTypeError, IterationAnalytics
import earlyexit._analytics_files as files_module
from vector_support import run_vector

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT.parent / "shared" / "reference"
SCRIPT = ROOT / "tests" / "vectors" / "analytics_reference.mjs"
NODE = shutil.which("node")
HAVE_REFERENCE = NODE is not None and (REFERENCE / "iteration-analytics.mjs").exists()
needs_reference = pytest.mark.skipif(not HAVE_REFERENCE, reason=f"skipped: node or {REFERENCE} is absent (clone the repository beside shared/)")

START = "2026-01-01T00:00:00.000Z"
END = "2026-01-01T06:00:00.000Z"


def reference(mode: str, payload: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(SCRIPT), str(REFERENCE), mode], input=json.dumps(payload), capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    answer: List[Dict[str, Any]] = json.loads(done.stdout)
    return answer


def at(seconds: int) -> str:
    return f"2026-01-01T{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000Z"


def random_metrics(r: random.Random, n: int, quality: float) -> Dict[str, Any]:
    m: Dict[str, Any] = {
        "iteration_number": n,
        "quality_score": quality,
        "verification_status": r.choice(["passed", "passed", "failed", "skipped"]),
        "timestamp": at(1000 + n),
    }
    for key, make in (
        ("tokens_used", lambda: r.choice([r.randint(0, 50_000), round(r.random() * 1e6, 3)])),
        ("token_cost_usd", lambda: r.choice([round(r.random(), 4), 0.1, 0.2])),
        ("execution_time_ms", lambda: r.randint(0, 600_000)),
    ):
        if r.random() < 0.9:
            m[key] = make()
    if r.random() < 0.3:
        m["output_snapshot_path"] = f"/snapshots/{n}.md"
    if r.random() < 0.3:
        m["reflections"] = [f"note {k} \u00e9" for k in range(r.randint(0, 2))]
    return m


def random_vector(r: random.Random, k: int) -> Dict[str, Any]:
    config: Dict[str, Any] = {"startTime": START, "endTime": END}
    if r.random() < 0.5:
        config["diminishingReturnsThreshold"] = r.choice([0.05, 0.1, 0.01, 0.07])
    if r.random() < 0.5:
        config["consecutiveCountThreshold"] = r.randint(1, 4)
    if r.random() < 0.5:
        config["qualityThreshold"] = r.choice([50, 70, 80, 90])
    if r.random() < 0.5:
        config["selectionCriteria"] = r.choice(["highest_quality_verified", "highest_quality", "most_recent_above_threshold"])
    upstream = r.random() < 0.7
    construct: Dict[str, Any] = (
        {"loopId": f"loop-{k}", "taskDescription": "Fix the flaky tests", "config": {"persist": False, **config}}
        if upstream
        else {"config": config}
    )
    calls: List[Dict[str, Any]] = []
    quality = float(r.randint(0, 90))
    for n in range(1, r.randint(1, 12) + 1):
        quality = max(0.0, min(100.0, round(quality + (r.random() - 0.4) * r.choice([2, 6, 20]), r.randint(0, 2))))
        if r.random() < 0.08:
            quality = 0.0
        calls.append({"call": "recordIteration", "args": [random_metrics(r, n, quality)]})
        if r.random() < 0.3:
            calls.append({"call": r.choice(["detectDiminishingReturns", "getTrajectory", "selectBestIteration"]), "args": []})
    calls += [
        {"call": "getOptimalIteration", "args": [r.random() < 0.5]},
        {"call": "generateSummary", "args": []},
        {"call": "generateQualityChart", "args": []},
        {"call": "generateReport", "args": [{"generatedAt": "2026-01-02T00:00:00.000Z"}]},
        {"call": "getRecords", "args": []},
        {"call": "toJSON", "args": []},
        {"call": "formatDuration", "args": [r.choice([r.randint(0, 10**8), -r.randint(0, 10**6)])]},
    ]
    return {"name": f"python differential {k}", "engine": "IterationAnalytics", "source": "reference", "construct": construct, "calls": calls}


@needs_reference
def test_random_sequences_answer_what_the_reference_answers() -> None:
    r = random.Random(0xA11A)
    vectors = reference("vectors", [random_vector(r, k) for k in range(150)])
    failures = [f"{v['name']}: {errs[:3]}" for v in vectors for errs in [run_vector(v)] if errs]
    assert failures == []
    assert sum(1 for v in vectors if v["source"] == "hand") > 0, "no vector touched a deliberate difference"


@needs_reference
def test_the_summary_file_after_every_record_is_the_reference_s(tmp_path: Path) -> None:
    r = random.Random(0xF11E)
    scenarios = []
    for k in range(25):
        quality = float(r.randint(0, 90))
        records = []
        for n in range(1, r.randint(1, 15) + 1):
            quality = max(0.0, min(100.0, round(quality + (r.random() - 0.4) * 10, r.randint(0, 2))))
            records.append(random_metrics(r, n, quality))
        scenarios.append(
            {
                "loopId": f"loop-{k}",
                "taskDescription": "Implement \"auth\" \u2014 \u00e9",
                "config": {"storagePath": str(tmp_path / "reference" / str(k)), "qualityThreshold": r.choice([50, 70, 90])},
                "startTime": START,
                "endTime": END,
                "records": records,
            }
        )
    expected = reference("files", scenarios)
    for s, want in zip(scenarios, expected):
        folder = tmp_path / "python" / s["config"]["storagePath"].rsplit(os.sep, 1)[-1]
        a = IterationAnalytics(
            s["loopId"], s["taskDescription"], storage_path=folder, quality_threshold=s["config"]["qualityThreshold"], start_time=START, end_time=END
        )
        for record, text in zip(s["records"], want["files"]):
            a.record_iteration(record)
            assert (folder / f"{s['loopId']}.json").read_text(encoding="utf-8") == text
        # upstream's file holds no config: the rules are given again.
        loaded = IterationAnalytics.load(folder / f"{s['loopId']}.json", persist=False, quality_threshold=s["config"]["qualityThreshold"])
        assert loaded.summary().to_dict() == a.summary().to_dict()
        assert loaded.config.storage_path == str(folder)


def count_writes(monkeypatch: pytest.MonkeyPatch) -> Dict[str, int]:
    counter = {"bytes": 0}
    write, append = files_module.write, files_module.append

    def counting_write(path: str, text: str) -> Any:
        counter["bytes"] += len(text.encode("utf-8"))
        return write(path, text)

    def counting_append(path: str, offset: int, text: str, size: int, mtime_ns: int) -> Any:
        counter["bytes"] += len(text.encode("utf-8"))
        return append(path, offset, text, size, mtime_ns)

    monkeypatch.setattr(files_module, "write", counting_write)
    monkeypatch.setattr(files_module, "append", counting_append)
    return counter


def metrics(n: int) -> Dict[str, Any]:
    return {
        "iteration_number": n,
        "quality_score": 50 + n % 40,
        "verification_status": "passed" if n % 3 else "failed",
        "tokens_used": 100 * n,
        "token_cost_usd": 0.01 * n,
        "execution_time_ms": 1000 + n,
        "timestamp": at(n),
        "reflections": [f"note {n}"],
    }


def test_saving_after_every_record_costs_the_record_not_the_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = IterationAnalytics("long", "a long loop", storage_path=tmp_path, start_time=START)
    counter = count_writes(monkeypatch)
    per_record = []
    for n in range(1, 1501):
        before = counter["bytes"]
        a.record_iteration(metrics(n))
        per_record.append(counter["bytes"] - before)
    file = tmp_path / "long.json"
    size = file.stat().st_size
    assert max(per_record[750:]) < 2000, max(per_record[750:])
    assert counter["bytes"] < 4 * size
    # The appended file is byte for byte the one a whole write gives.
    whole = a.save_analytics(tmp_path / "whole.json")
    assert file.read_bytes() == whole.read_bytes()
    assert json.loads(file.read_text(encoding="utf-8")) == a.summary().to_dict()


def test_forms_persist_and_a_changed_file(tmp_path: Path) -> None:
    upstream = IterationAnalytics("loop", "task", storage_path=tmp_path / "up", start_time=START, end_time=END)
    assert (tmp_path / "up").is_dir() and upstream.persist
    quiet = IterationAnalytics("loop", "task", storage_path=tmp_path / "quiet", persist=False)
    config_form = IterationAnalytics(storage_path=str(tmp_path / "cfg"))
    for a in (upstream, quiet, config_form):
        a.record_iteration(metrics(1))
    assert not (tmp_path / "quiet").exists() and not (tmp_path / "cfg").exists()
    assert not quiet.persist and not config_form.persist and config_form.loop_id is None
    file = tmp_path / "up" / "loop.json"
    with file.open("a", encoding="utf-8") as f:
        f.write("\n// edited")
    upstream.record_iteration(metrics(2))
    assert json.loads(file.read_text(encoding="utf-8")) == upstream.summary().to_dict()
    file.unlink()
    upstream.record_iteration(metrics(3))
    assert json.loads(file.read_text(encoding="utf-8")) == upstream.summary().to_dict()
    # Saves return pathlib paths; export writes both at upstream's paths.
    paths = quiet.export()
    assert paths == {"json": tmp_path / "quiet" / "loop.json", "markdown": tmp_path / "quiet" / "loop-report.md"}
    assert paths["markdown"].read_text(encoding="utf-8").startswith("# Ralph Loop Analytics: loop\n")
    assert config_form.save_analytics(tmp_path / "mine.json") == tmp_path / "mine.json"
    with pytest.raises(EarlyExitTypeError) as e:
        config_form.save_analytics()
    assert (e.value.code, e.value.field) == ("invalid_config", "filename")
    with pytest.raises(EarlyExitError) as e2:
        IterationAnalytics(persist=True)
    assert e2.value.field == "persist"


def test_load_and_upstream_s_positional_form(tmp_path: Path) -> None:
    a = IterationAnalytics("loop", "task", {"quality_threshold": 90}, storage_path=tmp_path, start_time=START, end_time=END)
    assert a.config.quality_threshold == 90 and a.loop_id == "loop" and a.task_description == "task"
    for n in range(1, 4):
        a.record(n, 60 + n, "passed", 10, timestamp=at(n), reflections=["r"], output_snapshot_path=f"/o/{n}")
    path = a.save_analytics()
    assert path == tmp_path / "loop.json"
    loaded = IterationAnalytics.load(path)
    assert loaded.iterations == a.records and loaded.start_time == START and loaded.end_time == END
    assert loaded.config.quality_threshold == 70  # upstream's file holds no config
    assert loaded.records[0].reflections == ("r",) and loaded.records[2].output_snapshot_path == "/o/3"
    with pytest.raises(FileNotFoundError, match="Analytics file not found"):
        IterationAnalytics.load(tmp_path / "nope.json")
    with pytest.raises(EarlyExitTypeError) as e:
        IterationAnalytics.load(5)  # type: ignore[arg-type]
    assert e.value.field == "filepath"
    kw = IterationAnalytics(loop_id="k", task_description="t", persist=False)
    assert kw.loop_id == "k" and not kw.persist
    with pytest.raises(EarlyExitTypeError) as e3:
        IterationAnalytics("loop-only")
    assert e3.value.field == "task_description"
    assert IterationAnalytics.format_duration(3_723_000) == "1h 2m 3s"
    assert earlyexit.IterationAnalytics is IterationAnalytics
