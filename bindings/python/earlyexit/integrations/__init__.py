"""Adapters for agent frameworks (docs/agents.md): each is a small module on top of
:class:`earlyexit.Loop` and imports its framework only when it is imported itself, so no
framework is a dependency of the package.

* ``earlyexit.integrations.langgraph``: ``StopGuard`` (a graph node and its conditional edge);
* ``earlyexit.integrations.dspy``: ``Refine``, a drop-in for ``dspy.Refine``;
* ``earlyexit.integrations.openai_agents``: ``AgentGuard`` (run hooks and a ``tool_use_behavior``);
* ``earlyexit.integrations.smolagents``: ``StepGuard`` (a step callback and ``agent.interrupt()``);
* ``earlyexit.integrations.inspect_ai``: ``refine`` (a solver's generate-and-revise loop).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, framework: str, install: str, adapter: str) -> ModuleType:
    """Imports ``module`` or raises ``ImportError`` naming the framework and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{adapter} needs {framework}, which is not installed ({error}); install it with `pip install {install}`",
            name=module,
        ) from error
