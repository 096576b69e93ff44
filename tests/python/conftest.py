"""Shared pytest setup: prints the vector coverage table at the end of the run."""

from __future__ import annotations

from typing import Any

import vector_support


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    coverage = vector_support.COVERAGE
    if coverage.passed or coverage.failed:
        terminalreporter.section("conformance vector coverage (python)")
        terminalreporter.write_line(coverage.table())
