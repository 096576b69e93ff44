"""pytest-earlyexit: what the plugin costs a test session.

    python bench/pytest/bench_plugin.py [--rounds N] [--quick]

Writes a three-layer project (tests/unit, tests/integration, tests/e2e; trivial passing tests,
so pytest's own cost per item is as small as it gets and the plugin's share is as large as it
gets) at two sizes, then runs pytest in a fresh process each time, side by side in one run,
in alternating order:
  off       the plugin not loaded (-p no:earlyexit)
  inactive  the plugin installed, not enabled (what every session of a project that has it pays)
  shadow    --earlyexit (shadow mode: every layer runs, a decision after each layer)
Prints the medians of CPU time (user + system of the session's process), the plugin's cost per test item (the slope between the two
sizes, so pytest's start-up and the plugin's fixed cost cancel out), its fixed cost per
session, and the layer decision's own time as the plugin reports it ("decision overhead").
Nothing here passes or fails on a time.
"""

import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

LAYERS = ("unit", "integration", "e2e")
DECISION = re.compile(r"decision overhead: ([0-9.]+) ms at most per layer")


def write_project(root, per_layer):
    for layer in LAYERS:
        folder = os.path.join(root, "tests", layer)
        os.makedirs(folder)
        per_file = 50
        for f in range(max(1, per_layer // per_file)):
            body = "".join(f"def test_{layer}_{f}_{i}():\n    assert {i} == {i}\n\n" for i in range(per_file))
            with open(os.path.join(folder, f"test_{layer}_{f}.py"), "w") as out:
                out.write(body)
    with open(os.path.join(root, "pytest.ini"), "w") as out:
        out.write("[pytest]\n")


def run(root, mode):
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    if mode == "off":
        args += ["-p", "no:earlyexit"]
    elif mode == "shadow":
        args += ["--earlyexit", "--earlyexit-layers", ",".join(LAYERS)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, cwd=root, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU time (user + system) of the session's process: far less sensitive to a busy machine
    # than wall time, and a plugin's cost is CPU.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"pytest ({mode}) exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    found = DECISION.search(done.stdout)
    if mode == "shadow" and found is None:
        raise SystemExit("the shadow run printed no decision overhead line:\n" + done.stdout[-2000:])
    return cpu, (float(found.group(1)) if found else None)


def main():
    rounds = 7
    quick = "--quick" in sys.argv
    if "--rounds" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1])
    sizes = (30, 300) if quick else (100, 1000)  # tests per layer
    modes = ("off", "inactive", "shadow")
    walls = {(n, m): [] for n in sizes for m in modes}
    decisions = []
    with tempfile.TemporaryDirectory() as scratch:
        roots = {}
        for n in sizes:
            roots[n] = os.path.join(scratch, f"p{n}")
            write_project(roots[n], n)
            for m in modes:  # warm the file cache and the bytecode caches
                run(roots[n], m)
        for r in range(rounds):
            for n in sizes:
                order = modes if r % 2 == 0 else tuple(reversed(modes))
                for m in order:
                    cpu, decision = run(roots[n], m)
                    walls[(n, m)].append(cpu)
                    if decision is not None:
                        decisions.append(decision)
    med = {k: statistics.median(v) for k, v in walls.items()}
    version = subprocess.run([sys.executable, "-m", "pytest", "--version"], capture_output=True, text=True)
    print(f"{version.stdout.strip() or version.stderr.strip()}, CPU time medians of {rounds} rounds, 3 layers of trivial tests, a fresh process per session")
    print(f"{'items':>6}  {'off':>9}  {'inactive':>9}  {'shadow':>9}   shadow vs off")
    for n in sizes:
        off, inactive, shadow = (med[(n, m)] for m in modes)
        print(f"{3 * n:>6}  {off * 1000:>7.0f}ms  {inactive * 1000:>7.0f}ms  {shadow * 1000:>7.0f}ms   "
              f"{(shadow / off - 1) * 100:+.1f}%")
    small, large = sizes
    items = 3 * (large - small)
    for m in ("inactive", "shadow"):
        cost = lambda n: med[(n, m)] - med[(n, "off")]  # noqa: E731
        per_item_us = (cost(large) - cost(small)) / items * 1e6
        fixed_ms = (cost(small) - per_item_us * 3 * small / 1e6) * 1000
        print(f"{m}: {per_item_us:+.1f} us per test item (slope), {fixed_ms:+.1f} ms per session (fixed)")
    per_item_pytest = (med[(large, "off")] - med[(small, "off")]) / items * 1e6
    print(f"pytest's own cost per trivial item: {per_item_pytest:.1f} us")
    print(f"layer decision (the plugin's own figure, max per layer of a session): median "
          f"{statistics.median(decisions):.3f} ms, max {max(decisions):.3f} ms over {len(decisions)} sessions")


if __name__ == "__main__":
    main()
