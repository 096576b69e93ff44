#!/usr/bin/env python3
"""Convert the public agent-loop runs in ../shared/data to earlyexit's loop replay format.

Reads the data where it lies and writes JSONL (one run per line, docs/replay.md) to an
output directory outside the repository's tracked files; nothing is copied into the project.

    python3 convert.py DATA_DIR OUT_DIR

Mapping (as ../shared/data/README.md suggests):
- InterCode (``intercode/*.json``): one run per task; iteration i is turn i;
  quality = reward x 100; verification passed = reward 1.0; good = reward 1.0 (InterCode's
  reward is computed against the gold answer, so it is ground truth as well).
- LDB (``ldb/humaneval__<model>__results.jsonl``): one run per task; iteration i is
  debugging iteration i; quality = share of the visible tests passed x 100
  (``test_feedback[i]`` lists the failing ones); verification passed = no visible test fails;
  good = ``is_solved`` (hidden tests) on the last iteration, unknown before it.
- confidence: neither source reports one, so confidence = quality / 100.
- split: a fixed split by task id: even task numbers are ``tune``, odd ones ``report``.
"""

import glob
import json
import os
import re
import sys


def split_of(task_number):
    return "tune" if task_number % 2 == 0 else "report"


def iteration(quality, passed, good=None):
    quality = max(0.0, min(100.0, quality))
    item = {
        "quality_score": quality,
        "confidence": quality / 100.0,
        "verification_status": "passed" if passed else "failed",
    }
    if good is not None:
        item["good"] = good
    return item


def intercode_runs(path, dataset, prefix):
    with open(path) as f:
        records = json.load(f)
    for key in sorted(records, key=lambda k: int(k)):
        record = records[key]
        rewards = record["turn_history"]["rewards"]
        if not rewards:
            continue
        task = int(record.get("task_id", key))
        yield {
            "id": f"{prefix}{task}",
            "dataset": dataset,
            "split": split_of(task),
            "iterations": [iteration(r * 100.0, r >= 1.0, r >= 1.0) for r in rewards],
        }


def ldb_runs(path, dataset):
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            visible = len(record["given_tests"])
            feedback = record["test_feedback"]
            if not feedback or visible == 0:
                continue
            task = int(re.search(r"(\d+)$", record["task_id"]).group(1))
            items = []
            for i, failing in enumerate(feedback):
                failing = min(len(failing), visible)
                last = i == len(feedback) - 1
                good = bool(record["is_solved"]) if last else None
                items.append(iteration((visible - failing) / visible * 100.0, failing == 0, good))
            yield {"id": record["task_id"], "dataset": dataset, "split": split_of(task), "iterations": items}


def main():
    data_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    datasets = {}
    for path in sorted(glob.glob(os.path.join(data_dir, "intercode", "ic_bash_*.json"))):
        prefix = re.search(r"(fs_\d+)", path).group(1) + "/"
        datasets.setdefault("intercode-bash", []).extend(intercode_runs(path, "intercode-bash", prefix))
    for path in sorted(glob.glob(os.path.join(data_dir, "intercode", "ic_python_*.json"))):
        datasets.setdefault("intercode-python", []).extend(intercode_runs(path, "intercode-python", ""))
    for path in sorted(glob.glob(os.path.join(data_dir, "ldb", "*__results.jsonl"))):
        model = os.path.basename(path).split("__")[1]
        name = "ldb-" + model.split("-0")[0]
        datasets.setdefault(name, []).extend(ldb_runs(path, name))
    for name, runs in datasets.items():
        out = os.path.join(out_dir, name + ".jsonl")
        with open(out, "w") as f:
            for run in runs:
                f.write(json.dumps(run, separators=(",", ":")) + "\n")
        print(f"{name}: {len(runs)} runs, {sum(len(r['iterations']) for r in runs)} iterations -> {out}")


if __name__ == "__main__":
    main()
