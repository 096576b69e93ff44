"""Runs the mypy-checked typed usage file, so what it asserts holds at runtime too, and
checks that ``mypy --strict`` refuses what the API does not take."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

import typed_usage


def test_typed_usage_runs() -> None:
    typed_usage.main()


REFUSED = {
    # A layer is a (name, runner) pair, a mapping or an object with name and run(): not 42 or None.
    "controller.run([42, None])": 'from earlyexit import EarlyExitController\nEarlyExitController(None, 2).run([42, None])\n',
    # Without narrowing, a step's layer may be None.
    "submit(next().layer)": 'from earlyexit import PyramidRun\nrun = PyramidRun.start(None, 1, [{"name": "a"}])\n'
    'run.submit(run.next().layer, {})\n',
    # Only the named presets.
    "from_preset('fastest')": 'from earlyexit import EarlyStopping\nEarlyStopping.from_preset("fastest")\n',
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_mypy_strict_refuses(name: str) -> None:
    pytest.importorskip("mypy", reason="mypy is installed by scripts/test-python.sh")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "refused.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(REFUSED[name])
        out = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.path.join(tmp, "cache"), path],
            capture_output=True,
            text=True,
        )
    assert out.returncode == 1 and ": error:" in out.stdout, out.stdout + out.stderr


STAR_IMPORT = """from earlyexit import *

stopping: EarlyStopping = EarlyStopping(max_iterations=3)
trigger: Trigger = stopping.should_stop().trigger
decision: StoppingDecisionDict = stopping.should_stop().to_dict()
code: ErrorCode = "invalid_config"
print(trigger, decision, code, LIMITS["layers"], EarlyExitController, calculate_quality_signal)
"""


def test_a_star_import_gives_the_runtime_names_and_the_typing_names_stay_importable() -> None:
    import typing

    import earlyexit

    def typing_only(value: object) -> bool:  # a Literal, Union or Callable alias, or a TypedDict
        typed_dict = isinstance(value, type) and hasattr(value, "__required_keys__")
        return typing.get_origin(value) is not None or typed_dict

    namespace: dict = {}
    exec("from earlyexit import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(earlyexit.__all__)
    assert len(earlyexit.__all__) == len(set(earlyexit.__all__)) <= 70
    # earlyexit.integrations is imported on demand (its adapters import their frameworks), so
    # it is an attribute only once some test has imported it: neither listed nor typing.
    public = {name for name in dir(earlyexit) if not name.startswith("_")} - {"integrations"}
    assert set(earlyexit.__all__) <= public
    for name in earlyexit.__all__:
        assert not typing_only(getattr(earlyexit, name)), name
    # Every other public name is a typing name, still importable from the top level.
    unlisted = public - set(earlyexit.__all__)
    assert len(unlisted) > 60
    for name in unlisted:
        assert typing_only(getattr(earlyexit, name)), name


def test_mypy_strict_reads_a_star_import() -> None:
    """The names a star import gives are typed: `__all__` is computed at run time, which a
    type checker would read as empty, so it reads the `X as X` imports instead."""
    pytest.importorskip("mypy", reason="mypy is installed by scripts/test-python.sh")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "star.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(STAR_IMPORT)
        out = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.path.join(tmp, "cache"), path],
            capture_output=True,
            text=True,
        )
    assert out.returncode == 0, out.stdout + out.stderr
