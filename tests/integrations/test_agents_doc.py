"""The examples of docs/agents.md run as written with the pinned frameworks: every ```python
block between the ``frameworks`` markers, each in a fresh namespace and a fresh DSPy
configuration."""

from __future__ import annotations

import os
import re
import sys
import types
from typing import List

import pytest

PAGE = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "agents.md")


def blocks() -> List[str]:
    with open(PAGE, encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"<!-- frameworks:start -->(.*?)<!-- frameworks:end -->", text, re.S)
    assert section is not None, "docs/agents.md has no frameworks section"
    return re.findall(r"```python\n(.*?)```", section.group(1), re.S)


def test_each_framework_has_an_example() -> None:
    text = "\n".join(blocks())
    for adapter in ("langgraph", "dspy", "openai_agents", "smolagents", "inspect_ai"):
        adapter = f"integrations.{adapter} import"
        assert adapter in text


@pytest.mark.parametrize("index", range(len(blocks())))
def test_example_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a module of its own (LangGraph reads a state's annotations from its module)."""
    import dspy

    module = types.ModuleType(f"agents_doc_example_{index + 1}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    try:
        exec(compile(blocks()[index], f"docs/agents.md (python block {index + 1})", "exec"), module.__dict__)
    finally:
        dspy.configure(lm=None, adapter=None)
