"""The file I/O of :class:`earlyexit.IterationAnalytics` (pathlib), and nothing else.

The native class decides what to write (the core builds every text: upstream's summary
file, byte for byte, and its report); these functions only touch the file system. Texts
are written as UTF-8 bytes, so the files are the same on every platform (no newline
translation).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Tuple


def ensure_dir(folder: str) -> None:
    """Creates the storage folder and its parents (upstream's ``ensureStorageDir``)."""
    Path(folder).mkdir(parents=True, exist_ok=True)


def join(folder: str, name: str) -> str:
    """``<folder>/<name>``, as upstream's ``path.join`` writes it."""
    return str(Path(folder) / name)


def parent(filepath: str) -> str:
    """The folder of ``filepath`` as upstream's load takes it: ``path.join(filepath, '..')``."""
    return os.path.normpath(os.path.join(filepath, ".."))


def as_path(path: str) -> Path:
    """What the save methods return."""
    return Path(path)


def read(filepath: str) -> str:
    """A saved summary's text; a missing file is upstream's error, as a FileNotFoundError."""
    path = Path(filepath)
    if not path.exists():
        raise FileNotFoundError(f"Analytics file not found: {filepath}")
    return path.read_text(encoding="utf-8")


def write(path: str, text: str) -> Tuple[int, int]:
    """Writes the whole file; answers its size and modification time (nanoseconds)."""
    target = Path(path)
    target.write_bytes(text.encode("utf-8"))
    stat = target.stat()
    return stat.st_size, stat.st_mtime_ns


def append(path: str, offset: int, text: str, size: int, mtime_ns: int) -> Optional[Tuple[int, int]]:
    """Cuts the file at byte ``offset`` and writes ``text`` there, when the file is as the
    last write left it (``size`` bytes, modified at ``mtime_ns``); answers the new size and
    modification time, or ``None`` (the file changed or is gone: write it whole instead).
    """
    try:
        with Path(path).open("r+b") as file:
            stat = os.fstat(file.fileno())
            if stat.st_size != size or stat.st_mtime_ns != mtime_ns:
                return None
            file.seek(offset)
            file.truncate()
            file.write(text.encode("utf-8"))
            file.flush()
            stat = os.fstat(file.fileno())
    except FileNotFoundError:
        return None
    return stat.st_size, stat.st_mtime_ns
