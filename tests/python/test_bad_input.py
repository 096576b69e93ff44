"""Reliability through the Python API: the bad-input matrix (tests/vectors/bad_input.json),
no ``PanicException`` on any input, runner errors (sync and asyncio) reaching the caller as
its own object with the controller reusable, engines hammered from 8 threads, a
1,000,000-iteration loop with bounded memory growth, and a 100,000-record snapshot.

No timing assertions: figures are printed in the pytest summary (conftest.py)."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import threading
import time
from collections import Counter
from typing import Any, Callable, Dict, List, Tuple

import pytest

import earlyexit as ee
from vector_support import JUNIT_FIELDS, VECTOR_DIR, applies_to_python, decode, python_field, run_vector

#: Lines the pytest summary prints (conftest.py).
REPORT: List[str] = []


# --- the matrix --------------------------------------------------------------------------------


def _matrix() -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    with open(os.path.join(VECTOR_DIR, "bad_input.json"), encoding="utf-8") as f:
        rows = json.load(f)["cases"]
    files: Dict[str, Dict[str, Any]] = {}
    out = []
    for row in rows:
        if "vector" in row:
            vector = row["vector"]
        else:
            file, name = row["sameAs"].split("#", 1)
            if file not in files:
                with open(os.path.join(VECTOR_DIR, file), encoding="utf-8") as f:
                    files[file] = {v["name"]: v for v in json.load(f)["vectors"]}
            vector = files[file][name]
        vector = {**vector, "name": row["id"]}
        vector.pop("only", None)
        if "only" in row:
            vector["only"] = row["only"]
        out.append((row, vector))
    return out


MATRIX = _matrix()


def test_the_matrix() -> None:
    """Every row that applies to Python: the typed error with its code, field (Python
    spelling) and kind, the engine's snapshot unchanged, later calls as if it never happened."""
    failures: List[str] = []
    by_input: Counter[str] = Counter()
    skipped = 0
    for row, vector in MATRIX:
        # The table's Python column is the rule the harness applies (snapshot paths keep the
        # document's spelling).
        documents = ("Snapshot", "CalibrationArtifact", "ReceiptLog", "Receipt", "LoopLifecycle", "StoreReceipt",
                     "StoreArtifact", "StoreModel")
        expected = row["field"] if row["input"] in documents else python_field(row["field"])
        if row["input"] == "JunitArguments":
            expected = JUNIT_FIELDS.get(row["field"], expected)
        assert row["pyField"] == expected, row["id"]
        if not applies_to_python(vector):
            skipped += 1
            continue
        errors = run_store_vector(row, vector) if vector["engine"] == "Store" else run_vector(vector)
        if errors:
            failures.append(f"{row['id']}: {'; '.join(errors[:3])}")
        else:
            by_input[row["input"]] += 1
    passed = sum(by_input.values())
    REPORT.append(f"bad-input matrix (python): {passed} cases passed, {len(failures)} failed, {skipped} not for python")
    REPORT.extend(f"    {n:5}  {name}" for name, n in sorted(by_input.items()))
    assert not failures, f"{len(failures)} matrix cases failed:\n  " + "\n  ".join(failures[:30])
    assert passed >= 1000


def test_the_matrix_with_dicts_spelled_as_js_spells_them() -> None:
    """The same rows with every object in the JS spelling (what ``to_dict()`` returns) and
    configs passed as one mapping: Python reads either spelling, so each row raises the same
    error (fields in the Python spelling) and changes nothing."""
    failures: List[str] = []
    passed = 0
    for row, vector in MATRIX:
        # The store's rows pass keywords and documents (spelled as written) already.
        if not applies_to_python(vector) or vector["engine"] == "Store":
            continue
        errors = run_vector(vector, as_given=True)
        if errors:
            failures.append(f"{row['id']}: {'; '.join(errors[:3])}")
        else:
            passed += 1
    REPORT.append(f"bad-input matrix (python, JS-spelled dicts): {passed} cases passed, {len(failures)} failed")
    assert not failures, f"{len(failures)} matrix cases failed:\n  " + "\n  ".join(failures[:30])
    assert passed >= 1000


# --- the run store's rows (engine "Store") ---------------------------------------------------

_STORE_KEYWORDS = {"runLabel": "run_label", "runId": "run_id", "receiptLog": "receipt_log"}


def _store_call(store: ee.Store, folder: str, seed_id: str, name: str, args: List[Any]) -> Any:
    """One call of a Store row, its answer reduced as the row writes it."""

    def value(v: Any) -> Any:
        v = decode(v)
        return seed_id if v == "$seedId" else store if v == "$store" else v

    def keywords(options: Dict[str, Any]) -> Dict[str, Any]:
        return {_STORE_KEYWORDS.get(k, k): value(v) for k, v in options.items()}

    args = [value(a) for a in args]
    if name == "open":
        url = args[0].replace("$dir", folder) if isinstance(args[0], str) else args[0]
        with ee.Store.open(url) as other:
            other.check()
        return {"opened": True}
    if name == "addRun":
        return store.add_run(args[0], **keywords(args[1] if len(args) > 1 else {}))
    if name == "runs":
        return {"count": len(list(store.runs(**keywords(args[0] if args else {}))))}
    if name == "appendReceipts":
        return store.append_receipts(*args)
    if name == "verifyReceipts":
        answer = store.verify_receipts(*args)
        return {"valid": answer["valid"], "receipts": answer["receipts"]}
    if name == "receiptLog":
        return {"lines": len(store.receipts(*args).splitlines())}
    if name == "putArtifact":
        return {"kind": store.put_artifact(*args)["kind"]}
    if name == "artifact":
        return {"found": store.artifact(*args) is not None}
    if name == "mergeModel":
        return {"builds": len(store.merge_model(*args)["builds"])}
    if name == "model":
        return {"found": store.model(*args) is not None}
    if name == "newLoop":
        ee.Loop(**keywords(args[0]))
        return {"made": True}
    raise AssertionError(f"unknown Store call {name}")


def run_store_vector(row: Dict[str, Any], vector: Dict[str, Any]) -> List[str]:
    """A Store row: a fresh store with the seed runs, the bad call (the typed error, the
    store's check() counts unchanged), then its good twin answering as written."""
    import tempfile

    errors: List[str] = []
    with tempfile.TemporaryDirectory() as folder:
        with ee.Store.open(f"sqlite:{os.path.join(folder, 'runs.db')}") as store:
            for seed in vector["construct"]["runs"]:
                store.add_run(seed["run"], run_label=seed.get("runLabel"))
            seed_id = next(iter(store.runs())).run_id
            for i, c in enumerate(vector["calls"]):
                where = f"call {i} ({c['call']})"
                if "throws" in c:
                    before = store.check()
                    try:
                        got = _store_call(store, folder, seed_id, c["call"], c["args"])
                        errors.append(f"{where}: expected {c['throws']}, answered {got!r}")
                        continue
                    except ee.EarlyExitError as e:
                        want = c["throws"]
                        if (e.code, e.field) != (want["code"], row["pyField"]):
                            errors.append(f"{where}: {e.code}/{e.field} != {want['code']}/{row['pyField']} ({e})")
                        is_type = isinstance(e, ee.EarlyExitTypeError) and isinstance(e, TypeError)
                        if is_type != (want["kind"] == "type") or not isinstance(e, (TypeError, ValueError)):
                            errors.append(f"{where}: kind {type(e).__name__} != {want['kind']} ({e})")
                    except Exception as e:  # noqa: BLE001 - reported as a mismatch
                        errors.append(f"{where}: {type(e).__name__}: {e}")
                    if store.check() != before:
                        errors.append(f"{where}: the store changed: {before} -> {store.check()}")
                else:
                    try:
                        got = _store_call(store, folder, seed_id, c["call"], c["args"])
                    except Exception as e:  # noqa: BLE001
                        errors.append(f"{where}: {type(e).__name__}: {e}")
                        continue
                    if "returns" in c and got != c["returns"]:
                        errors.append(f"{where}: answered {got!r}, expected {c['returns']!r}")
    return errors


# --- no PanicException -------------------------------------------------------------------------

HOSTILE: List[Any] = [
    None, True, -1, 0, 2**64, -(2**70), 10**400, float("nan"), float("inf"), -0.0, 1e308, "", "\ud800", "x" * 10_000,
    b"bytes", [], [None], {}, {"pass_rate": float("nan")}, {1: 2}, object(), (1, 2), lambda: None, set(), range(3),
]


def _public_callables() -> List[Tuple[str, Callable[..., Any]]]:
    """Every public function, constructor, method and static method of the package, bound to
    a freshly made valid object where it needs one."""
    GOOD = {"pass_rate": 1.0, "coverage": 0.95, "flaky_ratio": 0.0}
    es = ee.EarlyStopping()
    es.record(1, 80, 0.5, "failed", 0, "2026-01-01T00:00:00Z")
    an = ee.IterationAnalytics()
    an.record(1, 60, "passed")
    made: Dict[str, Any] = {
        "EarlyStopping": es,
        "IterationAnalytics": an,
        "CoherenceEarlyExit": ee.CoherenceEarlyExit(None, 3),
        "SpeculativeExecutor": ee.SpeculativeExecutor(),
        "EarlyExitController": ee.EarlyExitController(None, 2),
        "PyramidRun": ee.PyramidRun.start(None, 2, [{"name": "a"}, {"name": "b"}]),
        "EarlyStoppingConfig": ee.EarlyStoppingConfig(),
        "AnalyticsConfig": ee.AnalyticsConfig(),
        "EarlyExitConfig": ee.EarlyExitConfig(),
        "LayerResult": ee.LayerResult(**GOOD),
    }
    out: List[Tuple[str, Callable[..., Any]]] = []
    for name in sorted(dir(ee)):
        obj = getattr(ee, name)
        if name.startswith("_") or not callable(obj) or isinstance(obj, type) and issubclass(obj, BaseException):
            continue
        out.append((name, obj))
        if isinstance(obj, type):
            inst = made.get(name)
            for attr in sorted(dir(obj)):
                if attr.startswith("_") or attr in ("run_async",):
                    continue
                member = getattr(inst if inst is not None else obj, attr, None)
                if callable(member):
                    out.append((f"{name}.{attr}", member))
    return out


def test_no_panic_exception_on_any_input(tmp_path: Any, monkeypatch: Any) -> None:
    """Every public callable with one and two hostile arguments: refusals are ordinary
    exceptions (``Exception`` subclasses); ``PanicException`` is a ``BaseException`` and
    would escape the ``except Exception`` below and fail the test. Some hostile calls are
    valid file writes (``IterationAnalytics("", "")`` creates upstream's storage folder,
    ``save_report("x")`` writes ``x``): they run in a temporary working directory."""
    monkeypatch.chdir(tmp_path)
    calls = 0
    for name, fn in _public_callables():
        for a in HOSTILE:
            for args in ((), (a,), (a, a), (1, a), (a, {"pass_rate": 1, "coverage": 1, "flaky_ratio": 0})):
                try:
                    result = fn(*args)
                    if asyncio.iscoroutine(result):
                        result.close()
                except Exception as e:  # noqa: BLE001 - any ordinary refusal is fine
                    assert type(e).__name__ != "PanicException", f"{name}{args!r}"
                calls += 1
    REPORT.append(f"no PanicException (python): {calls} hostile calls over {len(_public_callables())} public callables")
    assert calls > 5000


# --- runner errors -----------------------------------------------------------------------------

GREEN = {"pass_rate": 1.0, "coverage": 0.95, "flaky_ratio": 0.0}


def _layers(n: int, fail_at: int = -1, error: BaseException | None = None, is_async: bool = False) -> List[Any]:
    def make(i: int) -> Callable[[], Any]:
        if is_async:

            async def run() -> Dict[str, Any]:
                await asyncio.sleep(0)
                if i == fail_at:
                    assert error is not None
                    raise error
                return dict(GREEN)

            return run

        def run_sync() -> Dict[str, Any]:
            if i == fail_at:
                assert error is not None
                raise error
            return dict(GREEN)

        return run_sync

    return [(f"layer{i}", make(i)) for i in range(n)]


class RunnerFailure(Exception):
    pass


@pytest.mark.parametrize("fail_at", [0, 1, 2], ids=["run", "first verification", "second verification"])
def test_sync_runner_exception_is_the_callers_own_and_the_controller_reusable(fail_at: int) -> None:
    controller = ee.EarlyExitController(None, 4)
    expected = ee.EarlyExitController(None, 4).run(_layers(4))
    mine = RunnerFailure(f"layer {fail_at}")
    with pytest.raises(RunnerFailure) as info:
        controller.run(_layers(4, fail_at, mine))
    assert info.value is mine
    assert controller.run(_layers(4)) == expected


@pytest.mark.parametrize("fail_at", [0, 1, 2], ids=["run", "first verification", "second verification"])
def test_asyncio_runner_exception_is_the_callers_own_and_the_controller_reusable(fail_at: int) -> None:
    controller = ee.EarlyExitController(None, 4)
    expected = ee.EarlyExitController(None, 4).run(_layers(4))
    mine = RunnerFailure(f"layer {fail_at}")

    async def main() -> None:
        with pytest.raises(RunnerFailure) as info:
            await controller.run_async(_layers(4, fail_at, mine, is_async=True))
        assert info.value is mine
        # Reusable from asyncio and from plain code, with async and plain runners.
        assert await controller.run_async(_layers(4, is_async=True)) == expected
        assert await controller.run_async(_layers(4)) == expected

    asyncio.run(main())
    assert controller.run(_layers(4)) == expected


def test_verify_runner_exception_is_the_callers_own() -> None:
    executor = ee.SpeculativeExecutor()
    speculations = executor.speculate({"confidence": 0.9}, 2)
    expected = executor.verify(speculations, _layers(2))
    mine = KeyError("gone")
    with pytest.raises(KeyError) as info:
        executor.verify(speculations, _layers(2, 1, mine))
    assert info.value is mine
    assert executor.verify(speculations, _layers(2)) == expected


# --- 8 threads ---------------------------------------------------------------------------------

THREADS = 8
PER_THREAD = 2_000


def _quality(t: int, i: int) -> float:
    return float(40 + (t * 7 + i * 13) % 60)


def _expected_record(n: int, q: float, tokens: float) -> Dict[str, Any]:
    return {
        "iteration_number": n,
        "quality_score": q,
        "confidence": 0.5,
        "verification_status": "passed" if n % 3 == 0 else "failed",
        "quality_delta": 0.0,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "tokens_used": tokens,
    }


def _run_threads(work: Callable[[int], Any]) -> List[Any]:
    results: List[Any] = [None] * THREADS
    errors: List[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def body(t: int) -> None:
        try:
            barrier.wait()
            results[t] = work(t)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    return results


def test_eight_threads_one_engine_each_and_one_shared() -> None:
    """Each thread drives its own engine and records into one shared engine (its own
    iteration numbers), with rejected calls in between: every history is exactly the
    expected sequence, the shared one in each thread's order, nothing lost or duplicated."""
    shared = ee.EarlyStopping(enable_plateau_detection=False)
    shared_analytics = ee.IterationAnalytics()

    def work(t: int) -> Tuple[Any, Any]:
        own = ee.EarlyStopping(enable_plateau_detection=False)
        for i in range(1, PER_THREAD + 1):
            q = _quality(t, i)
            record = _expected_record(i, q, float(t))
            del record["iteration_number"]
            own.record_result(i, record)
            n = t * PER_THREAD + i
            shared.record_result(n, {**record, "verification_status": "passed" if n % 3 == 0 else "failed"})
            shared_analytics.record(n, q, "passed")
            if i % 50 == 0:
                own.should_stop()
                shared.should_stop()
                with pytest.raises(ee.EarlyExitError):
                    shared.record_result(n, {**record, "quality_score": float("nan")})
                with pytest.raises(ee.EarlyExitError):
                    own.configure(plateau_consecutive_count=1)
        return own.history, own.config

    results = _run_threads(work)
    for t, (history, config) in enumerate(results):
        assert config == ee.EarlyStoppingConfig(enable_plateau_detection=False)
        assert [r.to_dict() for r in history] == [
            {**_expected_record(i, _quality(t, i), float(t)), "verification_status": "passed" if i % 3 == 0 else "failed"}
            for i in range(1, PER_THREAD + 1)
        ]
    history = shared.history
    assert len(history) == len(shared_analytics) == THREADS * PER_THREAD
    for t in range(THREADS):
        mine = [r.to_dict() for r in history if (r.iteration_number - 1) // PER_THREAD == t]
        assert mine == [_expected_record(t * PER_THREAD + i, _quality(t, i), float(t)) for i in range(1, PER_THREAD + 1)]
    assert ee.EarlyStopping.from_json(shared.to_json()).history == history
    # The shared analytics: every record, each thread's in its order (quality_delta depends on
    # which thread recorded just before, so it is checked against the record before it).
    records = shared_analytics.records
    for t in range(THREADS):
        mine = [(r.iteration_number, r.quality_score) for r in records if (r.iteration_number - 1) // PER_THREAD == t]
        assert mine == [(t * PER_THREAD + i, _quality(t, i)) for i in range(1, PER_THREAD + 1)]
    for before, r in zip(records, records[1:]):
        assert r.quality_delta == r.quality_score - before.quality_score
    REPORT.append(f"threads (python): {THREADS} threads x {PER_THREAD} iterations, own and shared engines, histories exact")


def test_eight_threads_pyramid_runs_on_one_controller() -> None:
    controller = ee.EarlyExitController(None, 4)
    shaky = {"pass_rate": 0.7, "coverage": 0.6, "flaky_ratio": 0.2}
    kinds = [[GREEN] * 4, [shaky, GREEN, GREEN, GREEN], [GREEN, shaky, shaky, GREEN]]
    alone = [ee.EarlyExitController(None, 4).run([(f"l{i}", lambda r=r: dict(r)) for i, r in enumerate(k)]) for k in kinds]

    def work(t: int) -> List[bool]:
        return [
            controller.run([(f"l{i}", lambda r=r: dict(r)) for i, r in enumerate(kinds[(t + j) % 3])]) == alone[(t + j) % 3]
            for j in range(60)
        ]

    assert all(all(r) for r in _run_threads(work))


# --- long runs ---------------------------------------------------------------------------------


def _rss_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads the RSS from /proc")
def test_a_million_iteration_loop_with_bounded_memory() -> None:
    es = ee.EarlyStopping(enable_plateau_detection=False)
    n = 1_000_000
    before = _rss_bytes()
    started = time.perf_counter()
    stops = 0
    record = es.record
    for i in range(1, n + 1):
        record(i, 50 + i % 40, 0.5, "passed" if i % 3 == 0 else "failed", 0, "2026-01-01T00:00:00Z")
        if i % 1000 == 0 and es.should_stop().stop:
            stops += 1
    seconds = time.perf_counter() - started
    per_record = (_rss_bytes() - before) / n
    assert stops == 0
    assert len(es) == n and es.should_stop().best_quality_score == 89
    # A record is six fields; 2 KB each would be a leak, not a layout choice.
    assert per_record < 2048, f"RSS grew {per_record:.0f} bytes per record"
    REPORT.append(f"load (python): 1,000,000 iterations in {seconds:.1f} s, RSS +{per_record * n / 2**20:.0f} MiB ({per_record:.0f} B/record)")


def test_a_100000_record_snapshot_round_trips() -> None:
    es = ee.EarlyStopping(plateau_consecutive_count=5, max_iterations=200_000, max_total_tokens=1e12)
    n = 100_000
    for i in range(1, n + 1):
        es.record(i, _quality(1, i), 0.5, "failed", 0, f"2026-01-01T00:00:00.{i % 1000:03d}Z", tokens_used=i)
    es.should_stop()
    started = time.perf_counter()
    text = es.to_json()
    restored = ee.EarlyStopping.from_json(text)
    pickled = pickle.loads(pickle.dumps(es))
    seconds = time.perf_counter() - started
    assert restored.to_json() == text and pickled.to_json() == text
    assert len(json.loads(text)["history"]) == n
    assert restored.should_stop() == es.should_stop()
    assert restored.config == es.config
    REPORT.append(f"load (python): 100,000-record snapshot, {len(text) / 2**20:.1f} MiB of JSON, JSON and pickle round trips in {seconds:.2f} s")
