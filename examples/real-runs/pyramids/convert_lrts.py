#!/usr/bin/env python3
"""Convert LRTS multi-stage CI builds (../shared/data/lrts) into pyramid replay JSONL.

Nothing is copied into the project: the data is read where it lies and the JSONL goes to
an output directory outside the source tree (target/real-runs/pyramids by default).

Mapping (pinned by issue 10; see docs/replay-pyramids.md):

* a dataset = one project's builds; a run = one build (pr_name, build_id);
* a layer = one CI stage of that build; stages are ordered by the project's median
  `stage_duration_by_suite_sum` over the tuning split (stages the tuning split never saw
  go last, ordered by their median over the report split);
* `durationMs` = the stage's summed suite duration (`stage_duration_by_suite_sum`, the
  LRTS unit; only ratios matter for the savings figures);
* `failed` = the stage had a failing test method or class (`num_fail_method > 0` or
  `num_fail_class > 0`). The build-level `failcount` is the same on every stage of a
  build, so it says nothing about which stage failed and is not used;
* `total`/`passed` = the stage's test methods (`num_pass_method + num_fail_method`,
  `num_pass_method`); `flakyRatio` = `num_trans_class` over the stage's classes (LRTS's
  flakiness proxy), used only to feed the ADR's quality signal.

Splits: LRTS James has `training` (tune) and `testing` (report) files; TVM ships one file,
split by build timestamp into the earlier half (tune) and the later half (report).

Usage: convert_lrts.py DATA_DIR OUT_DIR  ->  OUT_DIR/<dataset>.<tune|report>.jsonl
"""

import csv
import json
import os
import statistics
import sys
from collections import OrderedDict


def read_builds(path):
    """Rows grouped by build, in file order; each build keeps its stages in file order."""
    builds = OrderedDict()
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            key = (row["project"], row["pr_name"], row["build_id"])
            builds.setdefault(key, []).append(row)
    return list(builds.values())


def chronological(build):
    first = build[0]
    return (float(first["build_timestamp"]), first["pr_name"], int(first["build_id"]))


def stage_order(tune_builds, report_builds):
    """Stage names ordered by median summed suite duration (tuning split first)."""

    def medians(builds):
        durations = {}
        for build in builds:
            for row in build:
                durations.setdefault(row["stage_id"], []).append(float(row["stage_duration_by_suite_sum"]))
        return {stage: statistics.median(values) for stage, values in durations.items()}

    tuned = medians(tune_builds)
    order = sorted(tuned, key=lambda s: (tuned[s], s))
    late = medians(report_builds)
    order += sorted((s for s in late if s not in tuned), key=lambda s: (late[s], s))
    return order


def to_run(build, order):
    rank = {stage: i for i, stage in enumerate(order)}
    rows = sorted(build, key=lambda r: rank[r["stage_id"]])
    first = rows[0]
    layers = []
    for row in rows:
        passed = int(row["num_pass_method"])
        failed_methods = int(row["num_fail_method"])
        classes = int(row["num_pass_class"]) + int(row["num_fail_class"])
        layer = {
            "name": row["stage_id"],
            "durationMs": float(row["stage_duration_by_suite_sum"]),
            "failed": failed_methods > 0 or int(row["num_fail_class"]) > 0,
            "total": passed + failed_methods,
            "passed": passed,
        }
        if classes > 0:
            layer["flakyRatio"] = min(1.0, int(row["num_trans_class"]) / classes)
        layers.append(layer)
    return {
        "id": "%s/%s#%s" % (first["project"], first["pr_name"], first["build_id"]),
        "timestamp": float(first["build_timestamp"]),
        "layers": layers,
    }


def write(path, runs):
    with open(path, "w") as out:
        for run in runs:
            out.write(json.dumps(run, separators=(",", ":")) + "\n")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    data, out_dir = argv[1], argv[2]
    lrts = os.path.join(data, "lrts")
    os.makedirs(out_dir, exist_ok=True)
    datasets = []

    # The CSVs list builds stage by stage, not in time order; replays learn online, so
    # every split is put in build order first.
    james_tune = sorted(read_builds(os.path.join(lrts, "james_training_builds.csv")), key=chronological)
    james_report = sorted(read_builds(os.path.join(lrts, "james_testing_builds.csv")), key=chronological)
    datasets.append(("lrts-james", james_tune, james_report))

    tvm = sorted(read_builds(os.path.join(lrts, "tvm_testing_builds.csv")), key=chronological)
    half = len(tvm) // 2
    datasets.append(("lrts-tvm", tvm[:half], tvm[half:]))

    for name, tune, report in datasets:
        order = stage_order(tune, report)
        for split, builds in (("tune", tune), ("report", report)):
            runs = [to_run(b, order) for b in builds]
            write(os.path.join(out_dir, "%s.%s.jsonl" % (name, split)), runs)
        print("%s: stages %s; %d tune runs, %d report runs" % (name, " < ".join(order), len(tune), len(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
