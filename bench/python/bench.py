"""Python figures of issue 7: `python bench/python/bench.py [--quick] [--rounds N]`.

Prints, as medians over alternating rounds with their spread (median absolute deviation):
  * one `record` + `should_stop` pair on the native engine (target: at most 2 µs), stopping
    when told as a loop does, beside an empty Python method call taking the same five
    arguments in the same loop, for scale;
  * the seed's workload per trajectory (a fresh engine, up to 10 pairs, stopping when told,
    then `summary()`), native vs a pure-Python port of the seed's rules (seed_port.py), and
    the ratio pure-Python / native measured in the same round; then the same with a
    timestamp given in every record (so neither side reads the clock);
  * a test pyramid of 4 layers with a new `EarlyExitController(EarlyExitConfig.DEFAULT, 4)`
    per run, and the construction alone (no pure-Python baseline for the pyramid);
  * `Loop.step(output, quality, fingerprint=...)` against the bare pair it wraps (`record` +
    `should_stop`, the caller computing `quality_delta`), plain and under the `recommended`
    stop policy (the decisions `Loop` makes), per step over runs of 1,000 steps (target:
    under 2x); then the automatic fingerprint's cost per KB (a str, bytes and a dict).
Times are the thread's CPU time (time.thread_time_ns). Plain text; nothing asserts a time.
"""

import argparse
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import earlyexit  # noqa: E402
from seed_port import SeedEarlyStopping  # noqa: E402

ITERATIONS = 10

# The thread's CPU time: on a shared machine, time spent waiting for a CPU while other
# processes run is not counted (wall time would add it to every round). Equal on an idle one.
clock = time.thread_time_ns


def trajectories(count, seed=7):
    """Varied scores in four shapes (high confidence, plateau, steady gains, unverified)."""
    state = seed
    out = []
    for t in range(count):
        shape = t % 4
        previous = 0.0
        steps = []
        for i in range(ITERATIONS):
            state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            jitter = (state >> 11) / (1 << 53)
            if shape == 0:
                score, conf, status = 55 + 8 * i + 3 * jitter, 0.5 + 0.09 * i, "passed"
            elif shape == 1:
                score, conf, status = 70 + 12 * (1 - math.exp(-i)) + 0.5 * jitter, 0.6 + 0.02 * jitter, "passed"
            elif shape == 2:
                score, conf, status = 20 + 7.5 * i + 2 * jitter, 0.3 + 0.04 * i, "skipped"
            else:
                score, conf, status = 40 + 15 * math.log(i + 1) + jitter, 0.88 + 0.05 * jitter, "failed"
            score = min(score, 100.0)
            delta = 0.0 if i == 0 else score - previous
            previous = score
            steps.append((score, min(conf, 1.0), status, delta))
        out.append(steps)
    return out


class Empty:
    def record(self, iteration, quality_score, confidence, verification_status, quality_delta):
        pass


def time_pairs(engine, steps):
    """ns per record + should_stop pair, as a loop uses them: record and decide until the
    decision says stop (or 10 iterations), then reset for the next trajectory."""
    record, should_stop, reset = engine.record, engine.should_stop, engine.reset
    pairs = 0
    start = clock()
    for steps_of_one in steps:
        reset()
        i = 1
        for score, conf, status, delta in steps_of_one:
            record(i, score, conf, status, delta)
            if should_stop().stop:
                break
            i += 1
        pairs += min(i, ITERATIONS)  # i pairs when it stopped at i, else all 10
    return (clock() - start) / pairs


def time_empty(steps):
    """ns per empty method call with the same five arguments."""
    record = Empty().record
    start = clock()
    for steps_of_one in steps:
        i = 1
        for score, conf, status, delta in steps_of_one:
            record(i, score, conf, status, delta)
            i += 1
    return (clock() - start) / (len(steps) * ITERATIONS)


# Timestamps as a caller has them (toISOString's form), one per iteration, made once.
STAMPS = [f"2026-01-01T00:00:{i:02d}.000Z" for i in range(ITERATIONS)]


def time_workload(make, steps, stamped=False):
    """µs per trajectory: a fresh engine, pairs until it says stop, then summary()."""
    start = clock()
    for steps_of_one in steps:
        engine = make()
        record, should_stop = engine.record, engine.should_stop
        i = 1
        for score, conf, status, delta in steps_of_one:
            if stamped:
                record(i, score, conf, status, delta, STAMPS[i - 1])
            else:
                record(i, score, conf, status, delta)
            decision = should_stop()
            if decision.stop if hasattr(decision, "stop") else decision["stop"]:
                break
            i += 1
        engine.summary()
    return (clock() - start) / len(steps) / 1000


def pyramid_layers():
    """Four layer sets of 4 layers, as bench/js/bench.mjs's (exits with speculation and
    verification, runs on, ...)."""

    def layer(name, pass_rate, coverage, flaky_ratio):
        result = {"pass_rate": pass_rate, "coverage": coverage, "flaky_ratio": flaky_ratio}
        return (name, lambda: result)

    return [
        [layer("unit", 1, 0.95, 0), layer("integration", 0.99, 0.9, 0.01), layer("e2e", 0.97, 0.8, 0.02), layer("system", 0.95, 0.7, 0.12)],
        [layer("unit", 0.7, 0.6, 0.1), layer("integration", 0.75, 0.65, 0.08), layer("e2e", 0.8, 0.7, 0.05), layer("system", 0.85, 0.75, 0.04)],
        [layer("unit", 0.99, 0.9, 0), layer("integration", 0.98, 0.92, 0.01), layer("e2e", 0.6, 0.5, 0.3), layer("system", 1, 1, 0)],
        [layer("unit", 0.9, 0.85, 0.02), layer("integration", 0.99, 0.95, 0), layer("e2e", 0.99, 0.97, 0), layer("system", 0.99, 0.99, 0)],
    ]


def time_pyramid_new(sets, count):
    """µs per run with a new controller per run (a CI job that builds its own)."""
    controller, config = earlyexit.EarlyExitController, earlyexit.EarlyExitConfig.DEFAULT
    start = clock()
    for t in range(count):
        controller(config, 4).run(sets[t & 3])
    return (clock() - start) / count / 1000


def time_construction(count):
    """ns per EarlyExitController(EarlyExitConfig.DEFAULT, 4)."""
    controller, config = earlyexit.EarlyExitController, earlyexit.EarlyExitConfig.DEFAULT
    start = clock()
    for _ in range(count):
        controller(config, 4)
    return (clock() - start) / count


LOOP_STEPS = 1000


def step_quality(i):
    return 40 + (i * 37) % 50 + (i % 7) / 10


def time_bare_pair(runs, policy):
    """ns per record + should_stop pair, the caller computing quality_delta."""
    start = clock()
    for _ in range(runs):
        engine = earlyexit.EarlyStopping(policy=policy) if policy is not None else earlyexit.EarlyStopping()
        record, should_stop = engine.record, engine.should_stop
        last = 0.0
        for i in range(1, LOOP_STEPS + 1):
            q = step_quality(i)
            record(i, q, 0.5, "skipped", 0.0 if i == 1 else q - last)
            should_stop()
            last = q
    return (clock() - start) / (runs * LOOP_STEPS)


def time_loop_step(runs, output, fingerprint):
    """ns per Loop.step (with `fingerprint` given, or the automatic one)."""
    start = clock()
    for _ in range(runs):
        step = earlyexit.Loop(preset="recommended").step
        for i in range(1, LOOP_STEPS + 1):
            if fingerprint:
                step(output, step_quality(i), fingerprint="f%d" % (i % 3))
            else:
                step(output, step_quality(i))
    return (clock() - start) / (runs * LOOP_STEPS)


def loop_step_figures(rounds, runs):
    time_loop_step(1, "draft", True)  # warm up
    bare, loop = alternate(rounds, lambda: time_bare_pair(runs, None), lambda: time_loop_step(runs, "draft", True))
    policed, _ = alternate(rounds, lambda: time_bare_pair(runs, {"preset": "recommended"}), lambda: 0)
    (b, b_mad), (pl, pl_mad), (lo, lo_mad) = spread(bare), spread(policed), spread(loop)
    print(f"python: bare pair, no policy:               {b:8.0f} ns median (± {b_mad:.0f} MAD)")
    print(f"python: bare pair, recommended policy:      {pl:8.0f} ns median (± {pl_mad:.0f} MAD)")
    print(f"python: Loop.step with fingerprint=:        {lo:8.0f} ns median (± {lo_mad:.0f} MAD)")
    print(f"python: Loop.step / bare pair:              {lo / b:8.2f} x no policy, {lo / pl:.2f} x recommended policy (target < 2x)")
    kb_str = lambda n: "x" * (n * 1024)  # noqa: E731
    kb_bytes = lambda n: bytes(i & 255 for i in range(n * 1024))  # noqa: E731
    kb_dict = lambda n: {f"key{i}": "value-" + "v" * 12 + str(i) for i in range(n * 32)}  # noqa: E731
    for what, make in (("str", kb_str), ("bytes", kb_bytes), ("dict", kb_dict)):
        for n in (1, 16):
            output = make(n)
            size = len(output) if not isinstance(output, dict) else len(__import__("json").dumps(output, separators=(",", ":")))
            fewer = max(1, runs // (n * 4))
            given, auto = alternate(rounds, lambda: time_loop_step(fewer, output, True), lambda: time_loop_step(fewer, output, False))
            extra = statistics.median(a - g for a, g in zip(auto, given))
            print(f"python: automatic fingerprint, {what} of {size} B: +{extra:.0f} ns per step, {extra / (size / 1024):.0f} ns per KB")


def spread(values):
    m = statistics.median(values)
    return m, statistics.median(abs(v - m) for v in values)


def alternate(rounds, first, second):
    """Runs the two sides in alternating order each round; returns both lists."""
    a, b = [], []
    for r in range(rounds):
        if r % 2 == 0:
            a.append(first())
            b.append(second())
        else:
            b.append(second())
            a.append(first())
    return a, b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 7)
    count = 2_000 if args.quick else 10_000
    steps = trajectories(count)
    print(f"python: {sys.version.split()[0]}, earlyexit {earlyexit.__version__ if hasattr(earlyexit, '__version__') else ''}"
          f", {rounds} alternating rounds of {count * ITERATIONS:,} pairs / {count:,} trajectories")

    engine = earlyexit.EarlyStopping()
    time_pairs(engine, steps[:200])  # warm up
    pair, empty = alternate(rounds, lambda: time_pairs(engine, steps), lambda: time_empty(steps))
    ratios = [p / e for p, e in zip(pair, empty)]
    (p, p_mad), (e, e_mad), (r, r_mad) = spread(pair), spread(empty), spread(ratios)
    verdict = "met" if p <= 2000 else "MISSED"
    print(f"python: record + should_stop pair:          {p:8.0f} ns median (± {p_mad:.0f} MAD)  target <= 2000 ns: {verdict}")
    print(f"python: empty method call, same 5 args:     {e:8.0f} ns median (± {e_mad:.0f} MAD)")
    print(f"python: pair / empty call:                  {r:8.1f} x (± {r_mad:.1f})")

    native, pure = alternate(
        rounds,
        lambda: time_workload(earlyexit.EarlyStopping, steps),
        lambda: time_workload(SeedEarlyStopping, steps),
    )
    ratios = [pp / n for n, pp in zip(native, pure)]
    (n, n_mad), (pp, pp_mad), (r, r_mad) = spread(native), spread(pure), spread(ratios)
    print(f"python: trajectory, earlyexit (native):     {n:8.2f} µs median (± {n_mad:.2f} MAD)")
    print(f"python: trajectory, pure-Python seed port:  {pp:8.2f} µs median (± {pp_mad:.2f} MAD)")
    print(f"python: speed-up native vs pure Python:     {r:8.2f} x (± {r_mad:.2f}; > 1 = native faster)")

    native, pure = alternate(
        rounds,
        lambda: time_workload(earlyexit.EarlyStopping, steps, stamped=True),
        lambda: time_workload(SeedEarlyStopping, steps, stamped=True),
    )
    ratios = [pp / n for n, pp in zip(native, pure)]
    (n, n_mad), (pp, pp_mad), (r, r_mad) = spread(native), spread(pure), spread(ratios)
    print(f"python: trajectory, timestamps given, native: {n:6.2f} µs median (± {n_mad:.2f} MAD)")
    print(f"python: the same, pure-Python seed port:    {pp:8.2f} µs median (± {pp_mad:.2f} MAD)")
    print(f"python: speed-up native vs pure Python:     {r:8.2f} x (± {r_mad:.2f}; > 1 = native faster)")

    sets = pyramid_layers()
    time_pyramid_new(sets, 200)  # warm up
    runs, builds = alternate(rounds, lambda: time_pyramid_new(sets, count), lambda: time_construction(count))
    (p, p_mad), (b, b_mad) = spread(runs), spread(builds)
    print(f"python: pyramid, new controller per run:    {p:8.2f} µs median (± {p_mad:.2f} MAD)")
    print(f"python: of which the construction:          {b:8.0f} ns median (± {b_mad:.0f} MAD)")

    loop_step_figures(rounds, 2 if args.quick else 10)


if __name__ == "__main__":
    main()
