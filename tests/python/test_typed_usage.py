"""Runs the mypy-checked typed usage file, so what it asserts holds at runtime too."""

from __future__ import annotations

import typed_usage


def test_typed_usage_runs() -> None:
    typed_usage.main()
