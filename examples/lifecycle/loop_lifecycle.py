"""A loop policy's lifecycle, end to end, on a synthetic agent (docs/lifecycle.md).

1. Run the agent on 300 tasks with a cap only (8 iterations), the `recommended` policy in
   shadow beside it: every run goes to runs.jsonl, every receipt to receipts.jsonl.
2. Calibrate on the first 150 tasks' runs.
3. Promote the artifact on an audit slice (tasks 150 to 229) that shares no task with them.
4. Enforce the promoted policy on the rest (tasks 230 to 299), the calibrated one still in
   shadow beside the cap for comparison, and print the receipts' counts.

    python examples/lifecycle/loop_lifecycle.py [DIR]    (files in DIR, default a temporary one)
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

import earlyexit as ee

CAP = 8


def attempt(task: int, k: int) -> tuple[float, bool]:
    """The agent's k-th try at `task`: its quality (0..100) and whether its tests passed."""
    rng = random.Random(task * 1000 + k)
    solved_at = random.Random(task).choice([1, 1, 2, 2, 3, 3, 4, 5, 6, None])
    if solved_at is not None and k >= solved_at:
        return 92 + 5 * rng.random(), True
    return min(85.0, 30 + 8 * k + 5 * rng.random()), False


def run_task(task: int, shadow: Any, artifact: Optional[Dict[str, Any]] = None) -> ee.FinishedRun:
    if artifact is not None:
        loop = ee.Loop(artifact=artifact, max_iterations=CAP, task=f"t{task}", dataset="synthetic", shadow=shadow)
    else:
        loop = ee.Loop(policy={"any": [{"condition": "max_iterations", "limit": CAP}]}, max_iterations=CAP,
                       task=f"t{task}", dataset="synthetic", shadow=shadow)
    for k in range(1, CAP + 1):
        quality, passed = attempt(task, k)
        if loop.step(f"patch {k}", quality, confidence=quality / 100, verified=passed).stop:
            break
    return loop.finish()


def main(out: Path) -> Dict[str, Any]:
    runs_file, receipts_file = out / "runs.jsonl", out / "receipts.jsonl"
    runs: List[Dict[str, Any]] = []
    receipts: List[Dict[str, Any]] = []
    for task in range(300):
        finished = run_task(task, "recommended")
        runs.append(finished.run)
        assert finished.receipt is not None
        receipts.append(finished.receipt)
    runs_file.write_text("".join(json.dumps(r) + "\n" for r in runs))
    receipts_file.write_text(ee.append_receipts("", receipts))
    shadow = ee.verify_receipts(receipts_file.read_text())
    print(f"shadow: {shadow['receipts']} receipts of recommended: {json.dumps(shadow['labels'], sort_keys=True)}")

    calibration = ee.calibrate_loop_policy(runs[:150], 0.1, 0.1)
    print(f"calibrated on 150 tasks: {calibration.status}")
    promotion = ee.promote_loop_policy(calibration, runs[150:230])
    print(f"promotion on 80 audit tasks: {'promoted' if promotion['promoted'] else 'not promoted'} ({promotion['reason']})")
    artifact = promotion["artifact"]
    (out / "artifact.json").write_text(json.dumps(artifact))

    used = 0
    enforced: List[Dict[str, Any]] = []
    for task in range(230, 300):
        finished = run_task(task, artifact, artifact=artifact)
        used += len(finished.run["iterations"])
        assert finished.receipt is not None
        enforced.append(finished.receipt)
    log = ee.append_receipts(receipts_file.read_text(), enforced)
    receipts_file.write_text(receipts_file.read_text() + log)
    report = ee.verify_receipts(receipts_file.read_text())
    print(f"enforced on 70 tasks: {used} iterations (cap: {70 * CAP})")
    print(f"receipt log: valid={report['valid']}, {report['receipts']} receipts")
    for item in report["slices"]:
        rate = item["rates"]["prematureStop"]
        print(f"  {item['slice']}: {json.dumps(item['labels'], sort_keys=True)}; premature {rate['count']}/{rate['of']}")
    return {"shadow": shadow, "promotion": promotion, "report": report, "used": used}


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
