"""The loop lifecycle example (examples/lifecycle/loop_lifecycle.py) runs end to end: 300
tasks in shadow, calibration on 150, promotion on an audit slice, the rest enforced."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_lifecycle_example_runs(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("loop_lifecycle", ROOT / "examples/lifecycle/loop_lifecycle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.main(tmp_path)
    assert out["shadow"]["receipts"] == 300 and out["shadow"]["valid"]
    assert out["promotion"]["promoted"], out["promotion"]["reason"]
    assert out["report"]["valid"] and out["report"]["receipts"] == 370
    assert out["used"] < 70 * 8
    assert (tmp_path / "runs.jsonl").read_text().count("\n") == 300
