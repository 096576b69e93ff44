"""Layer keys: a key that nearly spells ``name``, ``cost_ms`` or ``run`` (another binding's
spelling, or within edit distance 2 of one, letter case aside) is ``unknown_option`` with a
did-you-mean, where it would otherwise be ignored and ``compute_saved_ms`` come back None. A
mapping's other keys are refused; a layer object's other attributes are its own."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import earlyexit as ee
from earlyexit import EarlyExitController, EarlyExitTypeError, PyramidRun

GREEN = {"pass_rate": 1.0, "coverage": 0.95, "flaky_ratio": 0.0}


def green() -> Dict[str, Any]:
    return GREEN


@pytest.mark.parametrize(
    "key, suggestion",
    [
        ("cost", "cost_ms"),
        ("costms", "cost_ms"),
        ("cost_MS", "cost_ms"),
        ("nmae", "name"),
        ("runs", "run"),
        # The JS spellings too: a layer mapping reads `cost_ms` only (the exception to the
        # either-spelling rule of Python's other mappings).
        ("costMs", "cost_ms"),
        ("costMS", "cost_ms"),
    ],
)
def test_a_mapping_key_near_a_known_one_is_refused_with_a_suggestion(key: str, suggestion: str) -> None:
    layers = [{"name": "unit", "run": green, "cost_ms": 1}, {"name": "e2e", "run": green, key: 9}]
    with pytest.raises(EarlyExitTypeError) as info:
        PyramidRun.start(None, 2, layers)
    assert (info.value.code, info.value.field) == ("unknown_option", f"layers[1].{key}")
    assert f"did you mean '{suggestion}'" in str(info.value), str(info.value)


def test_a_mapping_refuses_other_keys() -> None:
    PyramidRun.start(None, 1, [{"name": "unit", "run": green, "cost_ms": 7}])
    with pytest.raises(EarlyExitTypeError) as info:
        PyramidRun.start(None, 1, [{"name": "unit", "run": green, "timeout": 30}])
    assert (info.value.code, info.value.field) == ("unknown_option", "layers[0].timeout")
    assert "did you mean" not in str(info.value)


class Layer:
    def __init__(self, name: str, **attributes: Any) -> None:
        self.name = name
        self._private_cost = 1  # underscored attributes are the object's own
        for key, value in attributes.items():
            setattr(self, key, value)

    def run(self) -> Dict[str, Any]:
        return GREEN


@pytest.mark.parametrize("key, suggestion", [("cost", "cost_ms"), ("costMs", "cost_ms"), ("costMS", "cost_ms")])
def test_a_layer_object_attribute_near_a_known_one_is_refused(key: str, suggestion: str) -> None:
    with pytest.raises(EarlyExitTypeError) as info:
        EarlyExitController(None, 2).run([Layer("unit", cost_ms=1), Layer("e2e", **{key: 9})])
    assert (info.value.code, info.value.field) == ("unknown_option", f"layers[1].{key}")
    assert f"did you mean '{suggestion}'" in str(info.value), str(info.value)


def test_a_layer_object_keeps_its_other_attributes_and_its_cost_counts() -> None:
    controller = EarlyExitController(ee.EarlyExitConfig.AGGRESSIVE, 3)
    layers = [Layer("unit", cost_ms=1, timeout=30, owner="ci"), Layer("integration", cost_ms=10), Layer("e2e", cost_ms=100)]
    result = controller.run(layers)
    assert result.compute_saved_ms is not None
