"""``Store``: the run store (docs/store.md) from Python.

One SQLite file (``sqlite:PATH``) holding recorded loop runs, shadow-mode receipt chains,
calibration artifacts and pyramid outcome models, the same file the ``earlyexit`` command
reads and writes. Every call is synchronous and runs without the GIL; one ``Store`` may be
shared by threads, and any number of processes may open the same file.

:meth:`Store.export` and :meth:`Store.import_runs` move files: there a ``str`` is a path, as an
``os.PathLike`` is (where ``read_junit`` and ``EarlyStopping.from_calibration`` read a ``str``
as the document's text); JSONL text goes through a file object (``io.StringIO(text)``).
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from datetime import timezone
from typing import IO, Any, ClassVar, Dict, Iterator, Mapping, Optional, Sequence, Tuple, TypedDict, Union

from . import _native


__all__ = ["Store", "StoredRun", "StoredArtifactDict", "StoreCheckDict", "verify_receipts"]

#: Where a loop's shadow receipts go in a store when it names no log.
DEFAULT_LOOP_RECEIPT_LOG: str = _native._DEFAULT_LOOP_RECEIPT_LOG
#: Where a test session's shadow receipts go in a store when it names no log.
DEFAULT_PYRAMID_RECEIPT_LOG: str = _native._DEFAULT_PYRAMID_RECEIPT_LOG

_PAGE = 256


class StoredArtifactDict(TypedDict):
    """An artifact the store holds, with its lifecycle: what :meth:`Store.put_artifact` and
    :meth:`Store.artifact` return. ``promoted``: it carries a promotion (``False`` when never
    promoted or demoted by a drift check); ``expired``: ``expires_at`` is past, now."""

    artifact: Dict[str, Any]
    sha256: str
    kind: str
    expires_at: str
    promoted: bool
    expired: bool


class StoreCheckDict(TypedDict):
    """What :meth:`Store.check` counted in a store that passed."""

    schema_version: int
    runs: int
    receipt_logs: int
    receipts: int
    artifacts: int
    models: int


class StoredRun(Dict[str, Any]):
    """A run from :meth:`Store.runs`: the run in the replay and calibration JSONL form (this
    dict, also ``.run``), with the store's ``.run_id``, ``.run_label`` and ``.recorded_at``
    (a UTC ``datetime``)."""

    run: Dict[str, Any]
    run_id: str
    run_label: Optional[str]
    recorded_at: datetime

    def __init__(self, run: Dict[str, Any], run_id: str, run_label: Optional[str], recorded_ms: int) -> None:
        super().__init__(run)
        self.run = run
        self.run_id = run_id
        self.run_label = run_label
        self.recorded_at = datetime.fromtimestamp(recorded_ms / 1000, tz=timezone.utc)


_Since = Union[str, datetime, None]


def _path_of(given: Union[str, "os.PathLike[str]"], field: str) -> str:
    """A path argument (``str`` or ``os.PathLike``); a ``str`` that is plainly JSONL text (a
    line break, or a JSON object's start) is refused naming ``field`` rather than opened."""
    path = os.fspath(given)
    if "\n" in path or path.lstrip().startswith('{"'):
        from ._errors import EarlyExitTypeError

        raise EarlyExitTypeError(
            f"{field}: a str is the path of a JSONL file here, and this one is JSONL text: "
            "give the text as io.StringIO(text)", "invalid_config", field)
    return path


class Store:
    """A run store, open: ``Store.open("sqlite:runs.db")`` (created when missing, mode 0600).

    Use it as a context manager or call :meth:`close`; a closed store raises
    :class:`EarlyExitError` (``field == "store"``). Bad input raises a typed error naming the
    field and writes nothing; a bad URL, a directory, a file that is not a store or a store
    of a newer release raise at :meth:`open` (``field == "store"``). A ``postgresql://`` URL
    is refused: the ``earlyexit`` command reads and writes PostgreSQL stores.
    """

    __slots__ = ("_native",)

    #: The receipt log a :class:`Loop` records its shadow receipts into by default.
    DEFAULT_LOOP_LOG: ClassVar[str] = DEFAULT_LOOP_RECEIPT_LOG
    #: The receipt log the pytest plugin records a session's shadow receipts into by default.
    DEFAULT_PYRAMID_LOG: ClassVar[str] = DEFAULT_PYRAMID_RECEIPT_LOG

    def __init__(self, url: str) -> None:
        self._native = _native._Store(url)

    @classmethod
    def open(cls, url: str) -> "Store":
        """Opens the store at ``url`` (``sqlite:PATH`` or ``sqlite:///ABSOLUTE/PATH``)."""
        return cls(url)

    @property
    def url(self) -> str:
        """The URL it was opened with."""
        return self._native.url

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._native.closed

    def close(self) -> None:
        """Closes the store (again: nothing)."""
        self._native.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r}{', closed' if self.closed else ''})"

    # ---- runs

    def add_run(
        self,
        run: Union[Mapping[str, Any], str],
        run_label: Optional[str] = None,
        dataset: Optional[str] = None,
        run_id: Optional[str] = None,
    ) -> bool:
        """Adds a run (a run dict in the replay JSONL form, a :class:`FinishedRun`, or its
        JSON text) in its own transaction, as ``earlyexit runs import`` records one: the id is
        the SHA-256 of the run unless ``run_id`` is given, ``run_label`` a label to select it
        by, ``dataset`` sets the run's dataset (refused when the run has another). Returns
        ``True`` when the run was new, ``False`` when the same run was there already."""
        return self._native.add_run(run, run_label, dataset, run_id)

    def runs(
        self,
        run_label: Optional[str] = None,
        dataset: Optional[str] = None,
        since: _Since = None,
        limit: Optional[int] = None,
    ) -> Iterator[StoredRun]:
        """The runs selected, oldest first, streamed: the store is read a page at a time, so
        memory stays one page whatever the store holds. ``since`` is RFC 3339 text or a
        ``datetime``. Arguments are checked at the call."""
        remaining = self._native._check_filter(run_label, dataset, since, limit)
        return self._runs(run_label, dataset, since, remaining)

    def _pages(
        self, run_label: Optional[str], dataset: Optional[str], since: _Since, remaining: Optional[int]
    ) -> Iterator[Tuple[int, str, Optional[str], int, str]]:
        after = 0
        while remaining is None or remaining > 0:
            size = _PAGE if remaining is None else min(_PAGE, remaining)
            page = self._native._runs_page(after, size, run_label, dataset, since)
            for row in page:
                yield row
            if remaining is not None:
                remaining -= len(page)
            if len(page) < size:
                return
            after = page[-1][0]

    def _runs(
        self, run_label: Optional[str], dataset: Optional[str], since: _Since, remaining: Optional[int]
    ) -> Iterator[StoredRun]:
        for _, run_id, label, recorded_ms, body in self._pages(run_label, dataset, since, remaining):
            yield StoredRun(json.loads(body), run_id, label, recorded_ms)

    def run_count(self) -> int:
        """How many runs the store holds."""
        return self._native.run_count()

    def export(
        self,
        out: Union[str, "os.PathLike[str]", IO[str]],
        run_label: Optional[str] = None,
        dataset: Optional[str] = None,
        since: _Since = None,
        limit: Optional[int] = None,
    ) -> int:
        """Writes the selected runs as JSONL (the form replay, calibration and
        :meth:`import_runs` read) to a path (a ``str`` is a path here, as an ``os.PathLike``
        is; the file is replaced atomically) or a text file object; streamed a page at a time.
        A path that cannot be written raises ``OSError``. Returns how many runs were written."""
        remaining = self._native._check_filter(run_label, dataset, since, limit)
        if isinstance(out, (str, os.PathLike)):
            path = _path_of(out, "out")
            folder = os.path.dirname(os.path.abspath(path))
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".earlyexit-export-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    n = self._write(f, run_label, dataset, since, remaining)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            return n
        return self._write(out, run_label, dataset, since, remaining)

    def _write(
        self, out: IO[str], run_label: Optional[str], dataset: Optional[str], since: _Since, remaining: Optional[int]
    ) -> int:
        n = 0
        for row in self._pages(run_label, dataset, since, remaining):
            out.write(row[4])
            out.write("\n")
            n += 1
        return n

    def import_runs(
        self, source: Union[str, "os.PathLike[str]", IO[str], IO[bytes]], run_label: Optional[str] = None
    ) -> int:
        """Adds the runs of a JSONL file in one transaction: all of them, or none when a line
        is not a run (the error names ``runs[i]`` and its line). ``source`` is a path (a
        ``str`` is a path here, as an ``os.PathLike`` is; read as a stream) or a file object
        (text or bytes; JSONL text goes in as ``io.StringIO(text)``); a file that cannot be
        opened raises ``OSError``. The same runs again add nothing. Returns how many were new
        (``earlyexit runs import`` does the same)."""
        if isinstance(source, (str, os.PathLike)):
            _, added = self._native._import_path(_path_of(source, "source"), run_label)
            return added
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        _, added = self._native._import_text(data, run_label)
        return added

    # ---- receipts

    def append_receipts(self, log: str, receipts: Sequence[Mapping[str, Any]]) -> int:
        """Appends shadow-mode receipts to log ``log``'s hash chain in one transaction; a
        receipt of a run already in the log appends nothing when equal and is refused when it
        differs. Returns how many lines were appended."""
        return self._native.append_receipts(log, receipts)

    def receipts(self, log: str) -> str:
        """Log ``log`` as JSONL text (``""`` when there is none): what
        ``earlyexit.verify_receipts`` and ``earlyexit receipts verify`` read."""
        return self._native.receipts(log)

    def receipt_logs(self) -> Dict[str, int]:
        """The receipt logs and how many lines each holds."""
        return dict(self._native.receipt_logs())

    def verify_receipts(self, log: str) -> Dict[str, Any]:
        """Recomputes log ``log``'s chain: what ``earlyexit.verify_receipts(text)`` answers."""
        return self._native.verify_receipts(log)

    # ---- artifacts and models

    def put_artifact(self, name: str, artifact: Any) -> StoredArtifactDict:
        """Stores a calibration artifact (a dict, its JSON text or a ``LoopCalibration``)
        under ``name``, replacing the one there; read by the core's artifact reader first."""
        stored: StoredArtifactDict = self._native.put_artifact(name, artifact)
        return stored

    def artifact(self, name: str) -> Optional[StoredArtifactDict]:
        """The artifact under ``name`` with its lifecycle (kind, expiry, promoted, expired now), or
        ``None``."""
        stored: Optional[StoredArtifactDict] = self._native.artifact(name)
        return stored

    def merge_model(self, name: str, model: Any) -> Dict[str, Any]:
        """Merges a pyramid outcome model (an ``OutcomeModel``, its dict or JSON text) into
        the model ``name`` in one transaction (a set union of the builds learned); returns
        the merged document (``OutcomeModel.from_json(json.dumps(...))`` reads it)."""
        if isinstance(model, _native.OutcomeModel):
            model = json.loads(model.to_json())
        merged: Dict[str, Any] = self._native.merge_model(name, model)
        return merged

    def model(self, name: str) -> Optional[Dict[str, Any]]:
        """The model under ``name`` (its document), or ``None``."""
        found: Optional[Dict[str, Any]] = self._native.model(name)
        return found

    # ---- integrity

    def check(self) -> StoreCheckDict:
        """SQLite's integrity check, then every run, receipt chain, artifact and model read
        back; a damaged store raises (``invalid_snapshot`` naming ``store``)."""
        report: StoreCheckDict = self._native.check()
        return report


def verify_receipts(source: Union[str, Store], log: Optional[str] = None) -> Dict[str, Any]:
    """Recomputes a receipt log's hash chain: ``verify_receipts(jsonl_text)``, or
    ``verify_receipts(store, log)`` for log ``log`` of a :class:`Store`. Returns ``{valid,
    receipts, head, broken_at, labels}``."""
    if isinstance(source, Store):
        _native._check_store_name("log", log)  # a Store needs the log's name
        return source.verify_receipts(log)  # type: ignore[arg-type]
    if log is not None:  # JSONL text is one log already: a name beside it is refused, not ignored
        from ._errors import EarlyExitTypeError

        raise EarlyExitTypeError("log is read from a Store only: verify_receipts(text) or verify_receipts(store, log)",
                                 "invalid_config", "log")
    result: Dict[str, Any] = _native.verify_receipts(source)
    return result

