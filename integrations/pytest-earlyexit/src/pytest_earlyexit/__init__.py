"""pytest-earlyexit: the test pyramid's early exit inside pytest (see the README)."""
