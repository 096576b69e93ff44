#!/usr/bin/env bash
# `make bench`: every figure of issue 7, printed; nothing here passes or fails on a time.
#
#   scripts/bench.sh [--quick]      --quick: a smoke run (short criterion runs, 3 rounds,
#                                   100,000-iteration memory loops); figures are rougher.
#
# Runs after the README's setup (`make setup`). Builds what it needs in release mode: the
# core's benches (criterion, a dev-dependency), the Python module into .venv (maturin
# develop --release, as scripts/test-python.sh does), the Node addon and the wasm package
# (scripts/build-node.sh, scripts/build-wasm.sh). Sections:
#   1. Rust core: criterion medians and spreads (one record + decision, a whole trajectory,
#      a decision at history 10 and 1,000,000, a pyramid run);
#   2. core memory: bytes retained per recorded iteration; decision time at history 10 vs
#      1,000,000 measured side by side; JSON reading of objects of 10,000 to 200,000 keys;
#      loop replay of 1,000,000 iterations and the calibration grid (500 candidates x
#      15,000 runs: loop decisions per second per core, and on every core); the run store
#      (10,000 runs added one SQLite transaction each; 100,000 streamed into calibration);
#   3. Python: one record + should_stop pair beside an empty method call; the trajectory
#      workload vs a pure-Python port of the seed; the adapters (3b); the pytest plugin's
#      cost per test item and per layer decision (3c);
#   4. wasm size, raw and gzipped, against the budget;
#   5. peak RSS of a 1,000,000-iteration loop in Rust, Python, Node native and wasm in Node,
#      each in its own process, beside the same process with no iteration;
#   6. the JS figures: bench/js/bench.mjs --impl both, when present;
#   7. `earlyexit hook claude-code`: one Stop event at 20 KB and 20 MB of transcript
#      (--fingerprint none, no check), and the git fingerprint on 10,000 files.
# A section that cannot run says why; the exit status is non-zero if any section failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"

QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "bench: unknown argument $arg (use --quick)" >&2; exit 2 ;;
  esac
done
if [ "$QUICK" = 1 ]; then
  CRITERION_ARGS=(--warm-up-time 0.5 --measurement-time 1 --sample-size 30)
  ROUNDS=3
  LOOP_N=100000
  QUICK_FLAG=(--quick)
else
  CRITERION_ARGS=()
  ROUNDS=7
  LOOP_N=1000000
  QUICK_FLAG=()
fi

# criterion is a dev-dependency of the core only under this cfg (so `cargo test` never builds
# it, see core/Cargo.toml); a target dir of its own keeps the flag from rebuilding the others.
BENCH_TARGET="${CARGO_TARGET_DIR_BENCH:-$ROOT/target/bench}"
bench_cargo() { RUSTFLAGS="${RUSTFLAGS:-} --cfg earlyexit_bench" CARGO_TARGET_DIR="$BENCH_TARGET" nice cargo "$@"; }

failed=()
section() { printf '\n=== %s\n' "$*"; }
note_failure() { failed+=("$1"); echo "bench: $1 FAILED (see above)"; }
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
quietly() { # runs a build, shows its output only when it fails
  if "$@" >"$build_log" 2>&1; then return 0; fi
  cat "$build_log"
  return 1
}

section "earlyexit benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
echo "machine: $(nproc) CPU(s), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tools: $(rustc --version), node $(node --version 2>/dev/null || echo absent), $(python3 --version 2>&1)"
[ "$QUICK" = 1 ] && echo "mode: --quick (smoke run: short measurements, rough figures)"

# --- 1. Rust core: criterion ------------------------------------------------------------
section "1. Rust core (criterion, cargo bench -p earlyexit --bench core)"
if quietly bench_cargo bench -p earlyexit --bench core --no-run; then
  if bench_cargo bench -p earlyexit --bench core -- --noplot "${CRITERION_ARGS[@]}" >"$build_log" 2>&1; then
    grep -E '^[a-z].*time:|^ {20,}time:|^loop|^pyramid' "$build_log" | sed 's/^/  /'
    python3 - "$BENCH_TARGET/criterion" <<'PY'
import json, os, sys
base = sys.argv[1]
rows = [
    ("loop_record_and_decide", "one record + should_stop (reset at stop or 10)", 100.0),
    ("loop_trajectory", "trajectory: new engine, <= 10 pairs, summary", None),
    ("loop_decision_at_history/10", "should_stop alone, history 10", None),
    ("loop_decision_at_history/1000000", "should_stop alone, history 1,000,000", None),
    ("loop_policy_decision/seed_tree/10", "under a policy: the seed config's tree, history 10", None),
    ("loop_policy_decision/seed_tree/1000000", "under a policy: the seed config's tree, history 1,000,000", None),
    ("loop_policy_decision/composed/10", "under a policy: 8 composed conditions, history 10", None),
    ("loop_policy_decision/composed/1000000", "under a policy: 8 composed conditions, history 1,000,000", None),
    ("loop_behavior_policy_decision/detectors/10", "under a policy: 5 detector conditions + 1, history 10", None),
    ("loop_behavior_policy_decision/detectors/1000000", "under a policy: 5 detector conditions + 1, history 1,000,000", None),
    ("pyramid_run", "pyramid: 4 layers, start to result", None),
    ("reference_reason_string", "for scale: one 47-byte String made and dropped", None),
]
print()
print(f"  {'core, thread CPU time per call':<52} {'median':>11} {'± MAD':>9}  target")
medians = {}
for key, label, target in rows:
    try:
        with open(os.path.join(base, key, "new", "estimates.json")) as f:
            e = json.load(f)
    except OSError:
        print(f"  {label:<52} {'missing':>11}")
        continue
    m, mad = e["median"]["point_estimate"], e["median_abs_dev"]["point_estimate"]
    medians[key] = m
    verdict = "" if target is None else (f"<= {target:.0f} ns: " + ("met" if m <= target else "MISSED"))
    print(f"  {label:<52} {m:9.1f} ns {mad:7.1f} ns  {verdict}")
a, b = medians.get("loop_decision_at_history/10"), medians.get("loop_decision_at_history/1000000")
if a and b:
    print(f"  decision cost at history 1,000,000 / at 10: {b / a:.2f} (1.0 = O(window))")
c, d = medians.get("loop_policy_decision/seed_tree/10"), medians.get("loop_policy_decision/composed/1000000")
if a and c:
    print(f"  composition: the seed config's tree / the config's fixed order: {c / a:.2f} per decision")
if c and d:
    print(f"  8 composed conditions at history 1,000,000 / the seed tree at 10: {d / c:.2f}")
e, f = medians.get("loop_behavior_policy_decision/detectors/10"), medians.get("loop_behavior_policy_decision/detectors/1000000")
if e and f:
    print(f"  5 detector conditions at history 1,000,000 / at 10: {f / e:.2f} (1.0 = O(the windows))")
PY
  else
    cat "$build_log"
    note_failure "Rust criterion benches"
  fi
else
  note_failure "Rust bench build"
fi

# --- 2. core memory and scaling -------------------------------------------------------------
section "2. core memory and decision scaling (cargo bench -p earlyexit --bench memory)"
if quietly bench_cargo bench -p earlyexit --bench memory --no-run; then
  bench_cargo bench -p earlyexit --bench memory -- retained "$LOOP_N" 2>/dev/null | sed 's/^/  /' || note_failure "core retained bytes"
  bench_cargo bench -p earlyexit --bench memory -- scaling "$ROUNDS" 2>/dev/null | sed 's/^/  /' || note_failure "core scaling"
else
  note_failure "memory bench build"
fi

# --- 2b. JSON reading ----------------------------------------------------------------------------
section "2b. JSON reading: objects of 10,000 to 200,000 keys (cargo bench -p earlyexit --bench json)"
if quietly bench_cargo bench -p earlyexit --bench json --no-run; then
  bench_cargo bench -p earlyexit --bench json -- "$ROUNDS" 2>/dev/null | sed 's/^/  /' || note_failure "JSON reading"
else
  note_failure "json bench build"
fi

# --- 2c. loop replay and calibration throughput ---------------------------------------------------
section "2c. loop replay and calibration (examples replay_bench, calibration_grid)"
if quietly cargo build --release -p earlyexit --example replay_bench \
  && quietly cargo build --release -p earlyexit-calibrate --example calibration_grid; then
  nice target/release/examples/replay_bench | sed 's/^/  /' || note_failure "loop replay"
  nice target/release/examples/calibration_grid | sed 's/^/  /' || note_failure "loop calibration grid"
else
  note_failure "loop replay/calibration build"
fi

# --- 2d. JUnit reader throughput ------------------------------------------------------------------
section "2d. JUnit reader (example read_bench: a 200 MB report, and a quarter of it)"
if quietly cargo build --release -p earlyexit-junit --example read_bench; then
  nice target/release/examples/read_bench "${QUICK_FLAG[@]}" | sed 's/^/  /' || note_failure "JUnit reader"
else
  note_failure "JUnit reader build"
fi

# --- 2e. loop shadow mode and receipts ----------------------------------------------------------
section "2e. loop shadow mode and receipts (example loop_shadow_bench)"
if quietly cargo build --release -p earlyexit-digest --example loop_shadow_bench; then
  nice target/release/examples/loop_shadow_bench "${QUICK_FLAG[@]}" | sed 's/^/  /' || note_failure "loop shadow"
else
  note_failure "loop shadow build"
fi

section "2f. run store: 10,000 runs added one transaction each, 100,000 streamed into calibration (example store_bench)"
# EARLYEXIT_BENCH_POSTGRES=postgresql://... adds the PostgreSQL figure beside SQLite's.
if quietly cargo build --release -p earlyexit-store --features postgres --example store_bench; then
  nice target/release/examples/store_bench "${QUICK_FLAG[@]}" | sed 's/^/  /' || note_failure "run store"
else
  note_failure "run store build"
fi

# --- 3. Python -----------------------------------------------------------------------------------
section "3. Python (bench/python/bench.py, module built with maturin develop --release)"
VENV="$ROOT/.venv"
python_ready=0
(
  export VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" CARGO_TARGET_DIR="${CARGO_TARGET_DIR_PYTHON:-$ROOT/target/python}"
  unset PYTHONHOME
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || exit 1
  "$VENV/bin/maturin" --version 2>/dev/null | grep -q '^maturin 1\.16\.' ||
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q "maturin==1.16.*" || exit 1
  quietly nice "$VENV/bin/maturin" develop --release --quiet
) && python_ready=1
if [ "$python_ready" = 1 ]; then
  "$VENV/bin/python" bench/python/bench.py "${QUICK_FLAG[@]}" --rounds "$ROUNDS" | sed 's/^/  /' || note_failure "Python bench"
else
  note_failure "Python build (.venv, maturin develop --release)"
fi

# The pytest plugin, installed editable into .venv as scripts/test-python.sh does.
section "3c. pytest-earlyexit: cost per test item and per layer decision (bench/pytest/bench_plugin.py)"
if [ "$python_ready" = 1 ] && { "$VENV/bin/python" -c "import pytest_earlyexit" 2>/dev/null ||
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q -e integrations/pytest-earlyexit; }; then
  nice "$VENV/bin/python" bench/pytest/bench_plugin.py "${QUICK_FLAG[@]}" --rounds "$ROUNDS" | sed 's/^/  /' ||
    note_failure "pytest plugin bench"
else
  note_failure "pytest plugin bench (the plugin did not install into .venv)"
fi

# The adapters' overhead (earlyexit.integrations) needs the frameworks: only where
# `make test-integrations` has made .venv-integrations (it installed this checkout's wheel).
if [ -x "$ROOT/.venv-integrations/bin/python" ]; then
  section "3b. agent-framework adapters per iteration vs a bare Loop.step (bench/python/bench_adapters.py, .venv-integrations)"
  LITELLM_LOCAL_MODEL_COST_MAP=True OPENAI_AGENTS_DISABLE_TRACING=1 HF_HUB_OFFLINE=1 \
    "$ROOT/.venv-integrations/bin/python" bench/python/bench_adapters.py "${QUICK_FLAG[@]}" --rounds "$ROUNDS" 2>/dev/null | sed 's/^/  /' ||
    note_failure "adapters bench"
else
  echo "  (3b. the adapters' bench needs .venv-integrations: run make test-integrations first)"
fi

# --- 4. Node and wasm builds, wasm size ------------------------------------------------------------
section "4. Node addon and wasm package (scripts/build-node.sh, scripts/build-wasm.sh); wasm size"
node_ready=0
wasm_ready=0
if quietly nice bash scripts/build-node.sh; then node_ready=1; else note_failure "Node addon build"; fi
if quietly nice bash scripts/build-wasm.sh; then wasm_ready=1; else note_failure "wasm build"; fi
wasm_file=bindings/wasm/pkg/web/earlyexit_wasm_bg.wasm
if [ "$wasm_ready" = 1 ] && [ -f "$wasm_file" ]; then
  raw=$(stat -c %s "$wasm_file")
  gz=$(gzip -9 -c "$wasm_file" | wc -c)
  awk -v raw="$raw" -v gz="$gz" 'BEGIN {
    printf "  wasm raw:     %7d B = %6.1f KB  budget 120 KB: %s (%.0f%% of it)\n", raw, raw / 1024, raw <= 120 * 1024 ? "met" : "MISSED", 100 * raw / (120 * 1024)
    printf "  wasm gzip -9: %7d B = %6.1f KB  budget  45 KB: %s (%.0f%% of it)\n", gz, gz / 1024, gz <= 45 * 1024 ? "met" : "MISSED", 100 * gz / (45 * 1024)
  }'
fi

# --- 5. peak RSS, each language in its own process ------------------------------------------------------
section "5. peak RSS of one engine over $LOOP_N record + should_stop iterations (VmHWM, own process each)"
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"; } # name, line
rss_line() { # label, command...: runs N = 0 and N = LOOP_N, prints one row
  local label=$1
  shift
  local base full
  base=$("$@" 0 2>&1 | grep '^rss ') || { echo "  $label: failed"; return 1; }
  full=$("$@" "$LOOP_N" 2>&1 | grep '^rss ') || { echo "  $label: failed"; return 1; }
  awk -v label="$label" -v n="$LOOP_N" -v bk="$(field peak_kb "$base")" -v fk="$(field peak_kb "$full")" \
    -v s="$(field seconds "$full")" 'BEGIN {
    printf "  %-22s %9.1f MB %9.1f MB %9.1f MB %9.0f B %8.2f s\n", label, bk / 1024, fk / 1024, (fk - bk) / 1024, (fk - bk) * 1024 / n, s
  }'
}
printf '  %-22s %12s %12s %12s %11s %10s\n' "language" "peak, N=0" "peak, N" "difference" "per iter." "loop time"
rust_bin=$(ls -t "$BENCH_TARGET"/release/deps/memory-* 2>/dev/null | grep -v '\.d$' | head -1)
if [ -n "$rust_bin" ]; then
  rss_line "Rust (core)" "$rust_bin" rss || note_failure "Rust RSS"
else
  echo "  Rust (core): the memory bench binary is missing"; note_failure "Rust RSS"
fi
if [ "$python_ready" = 1 ]; then
  rss_line "Python" "$VENV/bin/python" bench/memory/rss_loop.py || note_failure "Python RSS"
fi
if [ "$node_ready" = 1 ]; then
  rss_line "Node native (napi)" node bench/memory/rss_loop.mjs native || note_failure "Node RSS"
fi
if [ "$wasm_ready" = 1 ]; then
  rss_line "wasm in Node" node bench/memory/rss_loop.mjs wasm || note_failure "wasm RSS"
fi

# --- 6. JS speed (bench/js, owned by the JS path) -------------------------------------------------------------
section "6. Node native and wasm in Node vs the seed (bench/js/bench.mjs --impl both)"
if [ -f bench/js/bench.mjs ]; then
  if [ "$node_ready" = 1 ] && [ "$wasm_ready" = 1 ]; then
    node bench/js/bench.mjs --impl both --rounds "$ROUNDS" "${QUICK_FLAG[@]}" | sed 's/^/  /' || note_failure "JS bench"
  else
    echo "  skipped: the Node addon or the wasm package did not build (section 4)"
  fi
else
  echo "  not present: bench/js/bench.mjs does not exist in this checkout, so no JS speed figures"
fi

# --- 7. the Claude Code hook -------------------------------------------------------------------------------------
section "7. earlyexit hook claude-code: one Stop event, wall time (bench/hook/hook_bench.py)"
if quietly cargo build --release -p earlyexit-cli; then
  nice python3 bench/hook/hook_bench.py target/release/earlyexit --rounds "$ROUNDS" "${QUICK_FLAG[@]}" \
    | sed 's/^/  /' || note_failure "hook bench"
else
  note_failure "hook bench build"
fi

echo
if [ "${#failed[@]}" -gt 0 ]; then
  echo "bench: done with failures: ${failed[*]}"
  exit 1
fi
echo "bench: done (figures above; no pass/fail on any time)"
