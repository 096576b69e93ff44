"""Peak RSS of one engine over N record + should_stop iterations, in its own process.

`python bench/memory/rss_loop.py N` prints `rss python n=N peak_kb=K seconds=S`, K being
VmHWM from /proc/self/status (Linux). scripts/bench.sh also runs it with N = 0, the
interpreter and module alone, so the loop's own share is the difference.
"""

import sys
import time

import earlyexit


def peak_kb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    engine = earlyexit.EarlyStopping()
    record, should_stop = engine.record, engine.should_stop
    start = time.perf_counter()
    score = 50.0
    for i in range(1, n + 1):
        # A saw-tooth between 50 and 95: every step improves by >= 5 %, so the loop never stops.
        step = 5.0 if i % 10 else -45.0
        score += step
        record(i, score, 0.5, "passed", step)
        should_stop()
    seconds = time.perf_counter() - start
    print(f"rss python n={n} peak_kb={peak_kb()} seconds={seconds:.2f} history={len(engine)}")


if __name__ == "__main__":
    main()
