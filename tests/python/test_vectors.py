"""Every conformance vector in tests/vectors/*.json, through the Python API.

The JS -> Python name mapping is the table in ``vector_support``'s docstring. A vector whose
``only`` excludes ``"python"`` (JS ``null`` inputs, core-internal ``jsnum``) is skipped.
"""

from __future__ import annotations

from typing import Any, Dict

import pytest

from vector_support import COVERAGE, applies_to_python, load_vectors, run_vector

VECTORS = load_vectors()


def test_vectors_are_present() -> None:
    assert len(VECTORS) > 0, "no vectors found in tests/vectors/*.json"


@pytest.mark.parametrize("vector", [v for _, v in VECTORS], ids=[name for name, _ in VECTORS])
def test_vector(vector: Dict[str, Any]) -> None:
    if not applies_to_python(vector):
        COVERAGE.skipped += 1
        pytest.skip(f"only {vector.get('only')}")
    errors = run_vector(vector)
    if errors:
        COVERAGE.failed += 1
        pytest.fail("\n".join(errors[:20]), pytrace=False)
    COVERAGE.passed += 1


def test_the_harness_catches_mismatches() -> None:
    """A vector with a tampered expectation fails: one ulp off, a key out of order, an extra
    key that is not a listed extra, a wrong error field."""
    import copy
    import math

    from vector_support import compare

    assert compare({"a": 0.1}, {"a": math.nextafter(0.1, 1)})
    assert compare({"a": 0.0}, {"a": -0.0})
    assert compare({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert compare({"a": 1}, {"a": 1, "surprise": 2})
    assert not compare({"a": 1}, {"a": 1, "best_iteration": None})
    assert compare({"a": True}, {"a": 1})
    decision = next(
        v
        for _, v in VECTORS
        if v["engine"] == "EarlyStopping" and any(c["call"] == "shouldStop" and "returns" in c for c in v["calls"])
    )
    assert run_vector(decision) == []
    tampered = copy.deepcopy(decision)
    call = next(c for c in tampered["calls"] if c["call"] == "shouldStop" and "returns" in c)
    call["returns"]["confidence"] = math.nextafter(call["returns"]["confidence"], 2)
    assert run_vector(tampered)
    failing = next(
        v
        for _, v in VECTORS
        if applies_to_python(v) and any("throws" in c and "field" in c["throws"] for c in v["calls"])
    )
    assert run_vector(failing) == []
    tampered = copy.deepcopy(failing)
    next(c for c in tampered["calls"] if "throws" in c)["throws"]["field"] = "somethingElse"
    assert run_vector(tampered)
