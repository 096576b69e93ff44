"""The run store from Python (docs/store.md): ``earlyexit.Store`` method by method, a loop
recording into it, processes and threads sharing one, a store made by the ``earlyexit``
command read from Python and the other way round, and hostile input (huge, deep, malformed,
wrong types, bad files, a writer killed with SIGKILL, streaming 100,000 runs in bounded
memory)."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List

import pytest

import earlyexit as ee
from earlyexit import EarlyExitError, EarlyExitTypeError, Loop, OutcomeModel, Store

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def run(task: str, n: int = 3, dataset: str | None = None, solved: int = 2) -> Dict[str, Any]:
    """A loop run in the replay JSONL form."""
    iterations = []
    for k in range(1, n + 1):
        ok = k >= solved
        iterations.append({"quality_score": 95 if ok else 30 + 9 * k, "confidence": 0.5,
                           "verification_status": "passed" if ok else "failed"})
    out: Dict[str, Any] = {"id": task, "iterations": iterations}
    if dataset is not None:
        out["dataset"] = dataset
    return out


@pytest.fixture
def url(tmp_path: Any) -> str:
    return f"sqlite:{tmp_path / 'store.db'}"


def shadow_loop(task: str, **kwargs: Any) -> Loop:
    loop = Loop("recommended", max_iterations=4, task=task, shadow={"any": [{"condition": "max_iterations", "limit": 2}]},
                **kwargs)
    for i in range(4):
        if loop.step(f"out {i}", 40 + 10 * i).stop:
            break
    return loop


def model(build: str, seq: int) -> OutcomeModel:
    return OutcomeModel(window=10).learn([{"name": "unit", "failed": seq % 2 == 0, "duration_ms": 5}],
                                         build_id=build, seq=seq)


# ---- every method ----------------------------------------------------------------------


def test_every_method(tmp_path: Any, url: str) -> None:
    with Store.open(url) as store:
        assert store.url == url and not store.closed and repr(store) == f"Store({url!r})"
        assert store.add_run(run("a", dataset="d1"), run_label="ci") is True
        assert store.add_run(run("a", dataset="d1"), run_label="ci") is False  # the same run: nothing
        assert store.add_run(json.dumps(run("b")), dataset="d2") is True  # JSON text; dataset set
        assert store.add_run(run("c"), run_id="my-id") is True
        assert store.run_count() == 3
        got = list(store.runs())
        assert [r["id"] for r in got] == ["a", "b", "c"] and got[1]["dataset"] == "d2"
        assert got[0].run == run("a", dataset="d1") and got[0].run_label == "ci" and got[2].run_id == "my-id"
        assert len(got[0].run_id) == 64 and got[0].recorded_at.tzinfo is timezone.utc
        assert [r["id"] for r in store.runs(run_label="ci")] == ["a"]
        assert [r["id"] for r in store.runs(dataset="d2")] == ["b"]
        assert [r["id"] for r in store.runs(limit=2)] == ["a", "b"]
        assert list(store.runs(limit=0)) == []
        future = datetime.now(timezone.utc) + timedelta(days=1)
        assert list(store.runs(since=future)) == [] and len(list(store.runs(since="2000-01-01T00:00:00Z"))) == 3

        # export (path, atomically; file object) and import (path, file object), idempotent
        path = tmp_path / "out.jsonl"
        assert store.export(path) == 3 and store.export(str(path), run_label="ci") == 1
        buf = io.StringIO()
        assert store.export(buf, limit=2) == 2 and buf.getvalue().count("\n") == 2
        assert [json.loads(line)["id"] for line in buf.getvalue().splitlines()] == ["a", "b"]
        with Store.open(f"sqlite:{tmp_path / 'other.db'}") as other:
            assert other.import_runs(tmp_path / "out.jsonl") == 1  # the last export: label ci only
            full = io.StringIO()
            store.export(full)
            assert other.import_runs(io.StringIO(full.getvalue())) == 2  # "a" again is the same run
            assert other.import_runs(io.BytesIO(full.getvalue().encode())) == 0
            assert [r["id"] for r in other.runs()] == ["a", "b", "c"]

        # receipts: a shadow loop's receipt, appended once, verified both ways
        receipt = shadow_loop("t-1").finish(good=True).receipt
        assert receipt is not None
        assert store.append_receipts("loops", [receipt]) == 1
        assert store.append_receipts("loops", [receipt]) == 0  # idempotent by run id
        assert store.receipt_logs() == {"loops": 1}
        text = store.receipts("loops")
        assert text.count("\n") == 1 and store.receipts("none") == ""
        check = store.verify_receipts("loops")
        assert check["valid"] is True and check["receipts"] == 1
        assert ee.verify_receipts(store, "loops") == check == ee.verify_receipts(text)

        # artifacts with their lifecycle
        calibration = ee.calibrate_loop_policy([run(f"t{i}", n=6, solved=2 + i % 4) for i in range(40)])
        stored = store.put_artifact("loop-main", calibration)
        assert stored["kind"] == "loop" and stored["promoted"] is False and len(stored["sha256"]) == 64
        assert stored["expires_at"].endswith("Z") and stored["expired"] is False
        assert store.artifact("loop-main") == stored and store.artifact("nothing") is None
        assert store.put_artifact("copy", json.dumps(stored["artifact"]))["sha256"] == stored["sha256"]

        # models: merged as a set union of builds
        merged = store.merge_model("pyramid", model("b1", 1))
        merged = store.merge_model("pyramid", json.loads(model("b2", 2).to_json()))
        assert store.model("pyramid") == merged and len(merged["builds"]) == 2
        assert OutcomeModel.from_json(json.dumps(merged)) == model("b1", 1).merge(model("b2", 2))
        assert store.model("none") is None

        report = store.check()
        assert report == {"schema_version": 2, "runs": 3, "receipt_logs": 1, "receipts": 1, "artifacts": 2,
                          "models": 1}
    assert store.closed and repr(store).endswith("closed)")
    store.close()  # again: nothing
    for call in (store.run_count, store.check, lambda: store.add_run(run("z")), lambda: list(store.runs())):
        with pytest.raises(EarlyExitError) as e:
            call()
        assert e.value.field == "store" and "closed" in str(e.value)


def test_a_loop_records_its_run_and_receipt(tmp_path: Any, url: str) -> None:
    loop = shadow_loop("t-9", store=url, run_label="agent-v2")
    assert loop.store is not None and loop.store.url == url
    finished = loop.finish(good=True)
    again = loop.finish(good=True)  # idempotent
    assert again == finished
    with pytest.raises(EarlyExitError) as e:  # another good: the changed run is refused, nothing added
        loop.finish(good=False)
    assert (e.value.code, e.value.field) == ("invalid_replay", "run_id")
    with Store.open(url) as store:
        runs = list(store.runs())
        assert len(runs) == 1 and runs[0].run == finished.run and runs[0].run_label == "agent-v2"
        assert store.receipt_logs() == {"loops": 1}
        assert json.loads(store.receipts("loops"))["runId"] == runs[0].run_id
    # A Store object, another receipt log; a loop without a shadow records its run only.
    with Store.open(url) as store:
        shadow_loop("t-10", store=store, receipt_log="nightly").finish()
        plain = Loop("recommended", max_iterations=3, store=store)
        plain.step("x", 50)
        plain.finish()
        assert store.receipt_logs() == {"loops": 1, "nightly": 1} and store.run_count() == 3
        # A pickled loop reopens its store by URL.
        copy = pickle.loads(pickle.dumps(shadow_loop("t-11", store=store)))
        assert copy.store is not None and copy.store.url == url
        copy.finish()
        assert store.run_count() == 4


def test_a_loop_store_error_is_typed_and_the_loop_is_finished(url: str) -> None:
    store = Store.open(url)
    loop = shadow_loop("t-1", store=store)
    store.close()
    with pytest.raises(EarlyExitError) as e:
        loop.finish(good=True)
    assert e.value.field == "store" and "closed" in str(e.value)
    assert loop.run()["id"] == "t-1"  # finished: the run is there to record elsewhere
    for bad, field in ((dict(store="mysql://x"), "store"), (dict(store=url, receipt_log=""), "receipt_log"),
                       (dict(receipt_log="x"), "receipt_log"), (dict(store=url, receipt_log=3), "receipt_log")):
        with pytest.raises(EarlyExitError) as e:
            Loop("recommended", max_iterations=3, **bad)  # type: ignore[arg-type]
        assert e.value.field == field, bad


def test_verify_receipts_forms_are_checked(url: str) -> None:
    with Store.open(url) as store:
        with pytest.raises(EarlyExitTypeError) as e:
            ee.verify_receipts(store)
        assert e.value.field == "log"
        with pytest.raises(EarlyExitTypeError) as e:
            ee.verify_receipts("", "loops")
        assert e.value.field == "log"


# ---- processes and threads -------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import sys
    from earlyexit import OutcomeModel, Store
    url, index = sys.argv[1], int(sys.argv[2])
    with Store.open(url) as store:
        for k in range(50):
            run = {"id": f"p{index}-{k}", "iterations": [{"quality_score": 50, "confidence": 0.5,
                   "verification_status": "failed"}]}
            assert store.add_run(run, run_label=f"proc-{index}")
            if k % 10 == 0:
                learned = OutcomeModel(window=1000).learn([{"name": "unit", "failed": False}],
                                                          build_id=f"b{index}-{k}", seq=k)
                store.merge_model("shared", learned)
    """
)


def test_twenty_processes_add_fifty_runs_each(url: str) -> None:
    children = [subprocess.Popen([sys.executable, "-c", CHILD, url, str(i)]) for i in range(20)]
    assert [c.wait(timeout=300) for c in children] == [0] * 20
    with Store.open(url) as store:
        assert store.run_count() == 1000
        ids = [r["id"] for r in store.runs()]
        assert len(set(ids)) == 1000
        assert sorted(len(list(store.runs(run_label=f"proc-{i}"))) for i in range(20)) == [50] * 20
        shared = store.model("shared")
        assert shared is not None and len(shared["builds"]) == 100  # 20 x 5 merges, none lost
        assert store.check()["runs"] == 1000


def test_twenty_threads_share_one_store(url: str) -> None:
    errors: List[BaseException] = []
    seen: List[int] = []
    with Store.open(url) as store:
        def work(index: int) -> None:
            try:
                for k in range(50):
                    assert store.add_run(run(f"t{index}-{k}"), run_label=f"thread-{index}")
                    if k % 10 == 0:
                        seen.append(sum(1 for _ in store.runs(limit=300)))
                        store.append_receipts(f"log-{index % 3}", [])
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert store.run_count() == 1000 and len({r["id"] for r in store.runs()}) == 1000
        assert all(0 < n <= 300 for n in seen)
        # A thread closing the store while others use it: each call is whole or a typed error.
        outcomes: List[str] = []

        def use() -> None:
            for _ in range(200):
                try:
                    store.run_count()
                    outcomes.append("ok")
                except EarlyExitError as e:
                    assert e.field == "store"
                    outcomes.append("closed")

        users = [threading.Thread(target=use) for _ in range(4)]
        for t in users:
            t.start()
        store.close()
        for t in users:
            t.join()
        assert set(outcomes) <= {"ok", "closed"} and len(outcomes) == 800


# ---- the command and Python on one store ------------------------------------------------


def command() -> str:
    found = os.environ.get("EARLYEXIT_BIN") or os.path.join(ROOT, "target", "debug", "earlyexit")
    if not os.path.isfile(found):
        found = shutil.which("earlyexit") or ""
    if not found:
        pytest.skip("the earlyexit command is not built (cargo build -p earlyexit-cli, or set EARLYEXIT_BIN)")
    if subprocess.run([found, "runs", "--help"], capture_output=True).returncode != 0:
        pytest.skip(f"the earlyexit command at {found} predates the run store (rebuild: cargo build -p earlyexit-cli)")
    return found


def test_the_command_and_python_read_each_others_store(tmp_path: Any, url: str) -> None:
    bin = command()
    lines = "".join(json.dumps(run(f"cmd-{i}", dataset="demo")) + "\n" for i in range(30))
    (tmp_path / "runs.jsonl").write_text(lines)
    out = subprocess.run([bin, "--json", "runs", "import", "--store", url, "--run-label", "cmd", str(tmp_path / "runs.jsonl")],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["added"] == 30
    with Store.open(url) as store:
        got = list(store.runs(run_label="cmd"))
        assert [r["id"] for r in got] == [f"cmd-{i}" for i in range(30)]
        # The same runs from Python: the same ids (the SHA-256 of the run), nothing added.
        assert store.import_runs(io.StringIO(lines), run_label="cmd") == 0
        assert store.add_run(run("py-1"), run_label="py", dataset="demo")
        shadow_loop("py-2", store=store, receipt_log="ci").finish(good=True)
        store.merge_model("m", model("b1", 1))
    out = subprocess.run([bin, "--json", "runs", "check", "--store", url], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    assert (report["runs"], report["receipts"], report["models"]) == (32, 1, 1)
    exported = subprocess.run([bin, "runs", "export", "--store", url, "--run-label", "py"], capture_output=True,
                              text=True, check=True).stdout
    assert [json.loads(line)["id"] for line in exported.splitlines()] == ["py-1"]
    verified = subprocess.run([bin, "--json", "receipts", "verify", "--store", url, "--log", "ci"],
                              capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["receipts"] == 1
    model_out = subprocess.run([bin, "runs", "model", "--store", url, "m"], capture_output=True, text=True, check=True)
    assert OutcomeModel.from_json(model_out.stdout) == model("b1", 1)


# ---- hostile input ---------------------------------------------------------------------


def test_bad_urls_and_files_are_typed_errors_naming_store(tmp_path: Any) -> None:
    (tmp_path / "text.db").write_text("not a database at all, just text")
    sqlite3.connect(str(tmp_path / "plain.db")).execute("CREATE TABLE t (x)").connection.commit()
    newer = tmp_path / "newer.db"
    Store.open(f"sqlite:{newer}").close()
    with sqlite3.connect(str(newer)) as db:
        db.execute("UPDATE earlyexit_store SET version = 99")
    cases = {
        "postgresql://user:secret@db.example/runs": ("invalid_config", "earlyexit command"),
        "postgres://h/db": ("invalid_config", "earlyexit command"),
        "mysql://h/db": ("invalid_config", "unknown scheme"),
        "runs.db": ("invalid_config", "unknown scheme"),
        "sqlite:": ("invalid_config", "names no file"),
        f"sqlite:{tmp_path}": ("invalid_config", "directory"),
        f"sqlite:{tmp_path / 'missing' / 's.db'}": ("invalid_config", "folder"),
        f"sqlite:{tmp_path / 'text.db'}": ("invalid_snapshot", "not a SQLite database"),
        f"sqlite:{tmp_path / 'plain.db'}": ("invalid_snapshot", "not an earlyexit store"),
        f"sqlite:{newer}": ("invalid_snapshot", "newer"),
    }
    for bad, (code, words) in cases.items():
        with pytest.raises(EarlyExitError) as e:
            Store.open(bad)
        assert (e.value.code, e.value.field) == (code, "store"), bad
        assert words in str(e.value), (bad, str(e.value))
        assert "secret" not in str(e.value)
    for wrong in (None, 3, b"sqlite:x.db", ["sqlite:x.db"]):
        with pytest.raises(EarlyExitTypeError) as e:
            Store.open(wrong)  # type: ignore[arg-type]
        assert e.value.field == "store"
    assert (tmp_path / "text.db").read_text() == "not a database at all, just text"  # nothing changed
    assert not (tmp_path / "missing").exists()


def test_bad_runs_and_arguments_change_nothing(url: str) -> None:
    huge = run("huge")
    huge["note"] = "x" * (ee.LIMITS["string_bytes"] + 1)
    deep: Any = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with Store.open(url) as store:
        store.add_run(run("keep"))
        bad_runs = [
            (huge, "invalid_replay"), (deep, None), ({"id": "x"}, "invalid_replay"), ([run("x")], "invalid_replay"),
            (None, "invalid_replay"), (42, "invalid_replay"), ("{not json", "invalid_replay"),
            ('{"id": "x", "iterations": [' * 3000, "invalid_replay"), (run("x", n=0) | {"iterations": "no"}, None),
        ]
        for bad, code in bad_runs:
            with pytest.raises(EarlyExitError) as e:
                store.add_run(bad)  # type: ignore[arg-type]
            assert e.value.field.startswith("run"), (str(bad)[:40], e.value.field)
            if code is not None:
                assert e.value.code == code
        for kwargs, field in (
            (dict(run_label=""), "run_label"), (dict(run_label="x" * 257), "run_label"), (dict(run_label=3), "run_label"),
            (dict(run_id=""), "run_id"), (dict(run_id=["a"]), "run_id"), (dict(dataset=1), "dataset"),
        ):
            with pytest.raises(EarlyExitError) as e:
                store.add_run(run("y"), **kwargs)  # type: ignore[arg-type]
            assert e.value.field == field, kwargs
        with pytest.raises(EarlyExitError) as e:
            store.add_run(run("keep"), run_label="other")  # the same run id, another label
        assert e.value.field == "run_id"
        with pytest.raises(EarlyExitError) as e:
            store.add_run(run("z", dataset="a"), dataset="b")
        assert e.value.field == "dataset"
        for kwargs, field in ((dict(limit=-1), "limit"), (dict(limit=True), "limit"), (dict(limit=1.5), "limit"),
                              (dict(since="yesterday"), "since"), (dict(since=5), "since"),
                              (dict(run_label=5), "run_label"), (dict(dataset=[]), "dataset")):
            with pytest.raises(EarlyExitError) as e:
                store.runs(**kwargs)  # type: ignore[arg-type]
            assert e.value.field == field, kwargs
        for call, field in ((lambda: store.append_receipts("", []), "log"),
                            (lambda: store.append_receipts("l", "no"), "receipts"),  # type: ignore[arg-type]
                            (lambda: store.append_receipts("l", [{"kind": "loop"}]), None),
                            (lambda: store.receipts(None), "log"),  # type: ignore[arg-type]
                            (lambda: store.put_artifact("a", {"kind": "loop"}), None),
                            (lambda: store.put_artifact("", {}), "name"),
                            (lambda: store.merge_model("m", {"builds": "no"}), None),
                            (lambda: store.merge_model(7, {}), "name"),  # type: ignore[arg-type]
                            (lambda: store.model("x" * 300), "name")):
            with pytest.raises(EarlyExitError) as e:
                call()
            if field is not None:
                assert e.value.field == field
        # A file whose third line is not a run: nothing of it is added.
        text = json.dumps(run("i1")) + "\n" + json.dumps(run("i2")) + "\n{}\n"
        with pytest.raises(EarlyExitError) as e:
            store.import_runs(io.StringIO(text))
        assert e.value.field.startswith("runs[2]") and "line 3" in str(e.value)
        with pytest.raises(EarlyExitError) as e:
            store.import_runs(io.BytesIO(b'{"id": "\xff"}\n'))
        assert e.value.code == "invalid_replay"
        with pytest.raises(FileNotFoundError):  # OSError, as Python raises it for any file
            store.import_runs("/nonexistent/runs.jsonl")
        with pytest.raises(FileNotFoundError):
            store.export("/nonexistent/runs.jsonl")
        # A str is a path here (these methods move files): JSONL text given as one is refused
        # naming the argument, never opened as a file name; as io.StringIO it is read.
        for given in (json.dumps(run("t1")), json.dumps(run("t1")) + "\n" + json.dumps(run("t2")) + "\n"):
            with pytest.raises(EarlyExitTypeError) as e:
                store.import_runs(given)
            assert (e.value.code, e.value.field) == ("invalid_config", "source") and "io.StringIO" in str(e.value)
        with pytest.raises(EarlyExitTypeError) as e:
            store.export("a\nb.jsonl")
        assert e.value.field == "out"
        assert [r["id"] for r in store.runs()] == ["keep"]
        # A huge run within the limits is stored and read back whole.
        big = run("big", n=100_000)
        assert store.add_run(big) and list(store.runs(limit=2))[1].run == big
        store.export(io.StringIO())
        assert store.check() == {"schema_version": 2, "runs": 2, "receipt_logs": 0, "receipts": 0, "artifacts": 0,
                                 "models": 0}


KILLED = textwrap.dedent(
    """
    import sys
    from earlyexit import Store
    url, path = sys.argv[1], sys.argv[2]
    with Store.open(url) as store:
        print("open", flush=True)
        store.import_runs(path)  # one transaction, killed before it commits
        print("committed", flush=True)
    """
)


def test_a_writer_killed_mid_transaction_leaves_the_store_whole(tmp_path: Any, url: str) -> None:
    with Store.open(url) as store:
        store.add_run(run("before"))
    path = tmp_path / "many.jsonl"
    with open(path, "w") as f:
        for i in range(200_000):
            f.write(json.dumps(run(f"k{i}")) + "\n")
    child = subprocess.Popen([sys.executable, "-c", KILLED, url, str(path)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "open"
    time.sleep(0.5)  # inside the import's transaction (it takes seconds): not a timing assertion
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    rest = child.stdout.read()
    with Store.open(url) as store:
        report = store.check()
        if "committed" in rest:  # the machine was fast: the whole file is in
            assert report["runs"] == 200_001
        else:
            assert report["runs"] == 1 and [r["id"] for r in store.runs()] == ["before"]
        assert store.add_run(run("after"))


STREAM = textwrap.dedent(
    """
    import resource, sys
    from earlyexit import Store
    url, mode = sys.argv[1], sys.argv[2]
    with Store.open(url) as store:
        if mode == "stream":
            n = sum(len(r["iterations"]) for r in store.runs())
        else:
            n = sum(len(r["iterations"]) for r in list(store.runs()))
    print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
)


def test_streaming_100000_runs_stays_in_bounded_memory(tmp_path: Any, url: str) -> None:
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        pytest.skip("prlimit (util-linux) is not installed")
    path = tmp_path / "big.jsonl"
    with open(path, "w") as f:
        for i in range(100_000):
            f.write(json.dumps(run(f"big-{i}", n=12, dataset="big")) + "\n")
    with Store.open(url) as store:
        assert store.import_runs(path) == 100_000
    # The address space a run of the same script needs for a store of 10 runs, plus 200 MB:
    # the JSON text alone is over 100 MB and the runs as Python objects many times that.
    small = f"sqlite:{tmp_path / 'small.db'}"
    with Store.open(small) as store:
        for i in range(10):
            store.add_run(run(f"s{i}", n=12))
    probe = subprocess.run([sys.executable, "-c", "import earlyexit, sys; print(open('/proc/self/status').read())"],
                           capture_output=True, text=True, check=True).stdout
    vm = next(int(line.split()[1]) for line in probe.splitlines() if line.startswith("VmPeak:"))
    limit = (vm + 200 * 1024) * 1024
    streamed = subprocess.run([prlimit, f"--as={limit}", sys.executable, "-c", STREAM, url, "stream"],
                              capture_output=True, text=True)
    assert streamed.returncode == 0, streamed.stderr[-2000:]
    assert int(streamed.stdout.split()[0]) == 1_200_000
    # The same limit holding every run at once fails: the bound is what streaming buys.
    listed = subprocess.run([prlimit, f"--as={limit}", sys.executable, "-c", STREAM, url, "list"],
                            capture_output=True, text=True)
    # (CPython reports running out as MemoryError, as a SystemError from a C extension whose
    # allocation failed, or dies of it outright.)
    assert listed.returncode != 0, listed.stdout


def test_calls_release_the_gil(tmp_path: Any, url: str) -> None:
    """With a switch interval of 100 s a thread gets the GIL only when the holder releases it.
    The spinner yields it every 10,000 turns (``time.sleep(0)``): before the import it spins
    about that much; it spins millions of turns more only if the import releases the GIL."""
    path = tmp_path / "runs.jsonl"
    with open(path, "w") as f:
        for i in range(20_000):
            f.write(json.dumps(run(f"g{i}", n=6)) + "\n")
    spins = 0
    done = False

    def spin() -> None:
        nonlocal spins
        while not done:
            spins += 1
            if spins % 10_000 == 0:
                time.sleep(0)

    with Store.open(url) as store:
        old = sys.getswitchinterval()
        sys.setswitchinterval(100)
        try:
            spinner = threading.Thread(target=spin)
            spinner.start()
            store.import_runs(path)
            done = True
            spinner.join()
        finally:
            sys.setswitchinterval(old)
        assert store.run_count() == 20_000
    assert spins > 200_000, spins


def test_a_store_closed_while_streaming_stops_the_stream_with_a_typed_error(url: str) -> None:
    store = Store.open(url)
    store.import_runs(io.StringIO("".join(json.dumps(run(f"c{i}")) + "\n" for i in range(600))))
    stream = store.runs()
    assert next(stream)["id"] == "c0"  # the first page (256 runs) is held
    store.close()
    assert sum(1 for _ in zip(range(255), stream)) == 255
    with pytest.raises(EarlyExitError) as e:
        next(stream)
    assert e.value.field == "store" and "closed" in str(e.value)
