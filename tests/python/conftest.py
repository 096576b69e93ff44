"""Shared pytest setup: prints the vector coverage table and the bad-input matrix and load
figures (test_bad_input.py) at the end of the run."""

from __future__ import annotations

from typing import Any

import vector_support


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    coverage = vector_support.COVERAGE
    if coverage.passed or coverage.failed:
        terminalreporter.section("conformance vector coverage (python)")
        terminalreporter.write_line(coverage.table())
    import test_bad_input

    if test_bad_input.REPORT:
        terminalreporter.section("bad-input matrix and load (python)")
        for line in test_bad_input.REPORT:
            terminalreporter.write_line(line)
