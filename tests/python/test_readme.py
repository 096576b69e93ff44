"""The READMEs' Python examples run as written: every ```python block of README.md between
the ``quickstart-python`` markers and between the ``options`` markers, and every ```python
block of the PyPI page ``bindings/python/README.md`` and of ``docs/test-exit.md`` (but one
marked ``<!-- skip-test: why -->`` on the line before), is executed, each in a fresh namespace, and type-checked with
``mypy --strict`` (each block a module of its own), so they are what a strict typed user can
write."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from typing import List, Tuple

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
README = os.path.join(ROOT, "README.md")
PACKAGE_README = os.path.join(ROOT, "bindings", "python", "README.md")
#: Documentation pages whose examples run too.
DOC_PAGES = [os.path.join(ROOT, "docs", "test-exit.md"), os.path.join(ROOT, "docs", "loop-policies.md"),
             os.path.join(ROOT, "docs", "store.md")]


def python_blocks() -> List[str]:
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"<!-- quickstart-python:start -->(.*?)<!-- quickstart-python:end -->", text, re.S)
    assert section is not None, "README.md has no quickstart-python section"
    options = re.search(r"<!-- options:start -->(.*?)<!-- options:end -->", text, re.S)
    assert options is not None, "README.md has no options section"
    return re.findall(r"```python\n(.*?)```", section.group(1) + options.group(1), re.S)


def package_blocks(path: str = PACKAGE_README) -> List[str]:
    """Every ```python block of the package's own README (or of `path`), but those marked skip-test."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [code for mark, code in re.findall(r"(<!-- skip-test:[^>]*-->\n)?```python\n(.*?)```", text, re.S) if not mark]


def all_blocks() -> List[Tuple[str, str]]:
    """(where, code) for every block these tests run."""
    blocks = [(f"README.md (python block {i + 1})", code) for i, code in enumerate(python_blocks())]
    blocks += [(f"bindings/python/README.md (python block {i + 1})", code) for i, code in enumerate(package_blocks())]
    for page in DOC_PAGES:
        name = os.path.relpath(page, ROOT)
        blocks += [(f"{name} (python block {i + 1})", code) for i, code in enumerate(package_blocks(page))]
    return blocks


def test_readme_has_an_example_of_each_engine() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 2
    assert any("EarlyStopping(" in b for b in blocks) and any("EarlyExitController(" in b for b in blocks)
    assert any("policy=" in b and "max_total_tokens(" in b for b in blocks), "the options section has a Python example"


def test_package_readme_has_an_example_of_each_engine() -> None:
    blocks = package_blocks()
    assert any("EarlyStopping(" in b for b in blocks) and any("EarlyExitController(" in b for b in blocks)
    assert any("EarlyExitTypeError" in b for b in blocks), "the package README shows the errors"


@pytest.mark.parametrize("index", range(len(all_blocks())))
def test_readme_block_runs(index: int) -> None:
    where, code = all_blocks()[index]
    exec(compile(code, where, "exec"), {"__name__": "__readme__"})


def test_readme_blocks_pass_mypy_strict() -> None:
    pytest.importorskip("mypy", reason="mypy is installed by scripts/test-python.sh")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for index, (_, code) in enumerate(all_blocks()):
            path = os.path.join(tmp, f"readme_example_{index + 1}.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(code)
            paths.append(path)
        out = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.path.join(tmp, "cache"), *paths],
            capture_output=True,
            text=True,
        )
    assert out.returncode == 0, f"mypy --strict on the READMEs' Python examples:\n{out.stdout}{out.stderr}"
