#!/usr/bin/env bash
# Fuzzes the core and the JUnit / Cobertura reader (cargo-fuzz, nightly toolchain): each target in turn for FUZZ_SECONDS
# (default 600), growing fuzz/corpus/<target>/, then prints per target the executions,
# the corpus size and the findings (crash-/timeout-/leak-/oom- files under
# fuzz/artifacts/<target>/). Installs cargo-fuzz into ~/.cargo when it is missing. Then the
# Python property tests (tests/python/test_properties.py, test_pyramid_models.py) with the "fuzz" profile: random
# seeds and EARLYEXIT_HYPOTHESIS_EXAMPLES examples per test (default 20,000), when the
# Python module is built (.venv, as scripts/test-python.sh makes it). FUZZ_PYTHON=0 skips them.
#
#   make fuzz                                  all six targets, 10 minutes each, then Python
#   FUZZ_SECONDS=60 bash scripts/fuzz.sh       shorter
#   bash scripts/fuzz.sh loop_ops jsnum_format only these (and the Python properties)
#   FUZZ_MINIMIZE=1 bash scripts/fuzz.sh       afterwards shrink each corpus (cargo fuzz cmin, edges)
#   FUZZ_JS_RUNS=100000 bash scripts/fuzz.sh    more cases for the JS properties (block below)
#   FUZZ_LOG_DIR=/tmp/fuzz-logs ...            logs elsewhere (relative to the repository, or absolute)
#   bash scripts/fuzz.sh --where [targets]     only print where each target's log goes
#
# Targets and invariants: docs/internals/reliability.md. A finding stops that target's run (libFuzzer
# writes the input to fuzz/artifacts/<target>/); reproduce with
# `cargo +nightly fuzz run <target> <file>`. Exit status: 1 if any target found something.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

seconds=${FUZZ_SECONDS:-600}
where=0
if [ "${1:-}" = --where ]; then # print each target's log file and stop (tests/fuzz-script check)
  where=1
  shift
fi
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(loop_ops pyramid_run snapshot_restore jsnum_format json_read junit_read)
# Absolute from here on: the runs below happen in fuzz/ (a relative FUZZ_LOG_DIR is taken
# from the repository root, an absolute one as it is).
mkdir -p "${FUZZ_LOG_DIR:-fuzz/logs}"
logs=$(cd "${FUZZ_LOG_DIR:-fuzz/logs}" && pwd)

# The largest input per target: call sequences are capped by their harness (a longer input
# adds nothing), snapshots and text get room, and json_read takes 1 MiB (objects of
# thousands of keys, JSONL of hundreds of lines: where quadratic costs would show);
# junit_read 64 KiB (XML with suites nested a thousand deep; its hostile shapes are built
# larger by the harness itself).
max_len() {
  case "$1" in
    json_read) echo 1048576 ;;
    snapshot_restore | junit_read) echo 65536 ;;
    *) echo 4096 ;;
  esac
}

if [ "$where" = 1 ]; then
  for target in "${targets[@]}"; do echo "$logs/$target.log"; done
  exit 0
fi

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked || exit 2
fi

cd fuzz
cargo +nightly fuzz build -O || exit 2

summary=()
found_any=0
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target" "artifacts/$target"
  before=$(find "artifacts/$target" -type f | wc -l)
  log="$logs/$target.log"
  len=$(max_len "$target")
  echo "=== $target: ${seconds} s, inputs up to $len bytes (log: $log)"
  t0=$SECONDS
  # -timeout: one input taking over 10 s is a finding; -rss_limit_mb: so is over 2 GB.
  # -len_control=0: use the full -max_len at once; the inputs are call sequences, and short
  # ones never reach long histories or finished pyramid runs.
  cargo +nightly fuzz run -O "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$len" -len_control=0 -print_final_stats=1 \
    >"$log" 2>&1
  status=$?
  elapsed=$((SECONDS - t0))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
  files=$(find "corpus/$target" -type f | wc -l)
  size=$(du -sk --apparent-size "corpus/$target" | cut -f1)
  after=$(find "artifacts/$target" -type f | wc -l)
  findings=$((after - before))
  if [ "$status" -ne 0 ] && [ "$findings" -eq 0 ]; then
    findings="? (exit $status, see $log)"
  fi
  [ "$findings" = 0 ] || found_any=1
  line=$(printf '%-17s %5d s  %10s executions  corpus %4d files %5d KB  findings %s' \
    "$target" "$elapsed" "${runs:-?}" "$files" "$size" "$findings")
  echo "$line"
  summary+=("$line")
  if [ "$findings" != 0 ]; then
    grep -E "panicked at|SUMMARY|Test unit written" "$log" | head -n 5 | sed 's/^/    /'
  fi
done

# --- the JS binding layers: tests/node/properties.test.mjs and pyramid_models.test.mjs (fast-check) with many more cases
# than `make test` runs, a fresh seed each time, for the napi addon and the wasm build (both
# built first: scripts/build-node.sh, scripts/build-wasm.sh). FUZZ_JS_RUNS cases per property
# (default 20000); a failure prints its seed and counterexample (FC_SEED=<seed> reproduces).
# FUZZ_JS=0 skips this block.
if [ "${FUZZ_JS:-1}" != 0 ]; then
  js_runs=${FUZZ_JS_RUNS:-20000}
  js_seed=${FC_SEED:-$(( $(date +%s) % 2147483647 ))}
  for impl in native wasm; do
    js_log="$(cd .. && pwd)/fuzz/logs/js_properties_$impl.log"
    mkdir -p "$(dirname "$js_log")"
    echo "=== js_properties ($impl): $js_runs cases per property, seed $js_seed (log: fuzz/logs/${js_log##*/})"
    t0=$SECONDS
    (cd .. && EARLYEXIT_IMPL=$impl FC_RUNS=$js_runs FC_SEED=$js_seed node --test tests/node/properties.test.mjs tests/node/pyramid_models.test.mjs) >"$js_log" 2>&1
    status=$?
    line=$(printf '%-17s %5d s  %10s cases      seed %s  findings %s' "js_prop_$impl" "$((SECONDS - t0))" "$((js_runs * 3))" "$js_seed" \
      "$([ "$status" = 0 ] && echo 0 || echo "1 (see fuzz/logs/${js_log##*/})")")
    echo "$line"
    summary+=("$line")
    if [ "$status" != 0 ]; then
      found_any=1
      grep -E "Counterexample|seed" "$js_log" | head -n 3 | sed 's/^/    /'
    fi
  done
fi

if [ -n "${FUZZ_MINIMIZE:-}" ]; then
  for target in "${targets[@]}"; do
    echo "=== minimizing corpus/$target"
    # Edges only (-use_counters=0): keeps every covered edge in a corpus small enough to commit.
    cargo +nightly fuzz cmin -O "$target" "corpus/$target" -- -max_len="$(max_len "$target")" -use_counters=0 \
      >"$logs/$target.cmin.log" 2>&1
    echo "$target: $(find "corpus/$target" -type f | wc -l) files, $(du -sk --apparent-size "corpus/$target" | cut -f1) KB"
  done
fi

# --- the Python property tests, longer ---------------------------------------------------
cd ..
if [ "${FUZZ_PYTHON:-1}" != 0 ]; then
  if .venv/bin/python -c 'import earlyexit, hypothesis' >/dev/null 2>&1; then
    examples=${EARLYEXIT_HYPOTHESIS_EXAMPLES:-20000}
    echo "=== python properties: $examples examples per test, random seeds (log: $logs/python_properties.log)"
    t0=$SECONDS
    EARLYEXIT_HYPOTHESIS_PROFILE=fuzz EARLYEXIT_HYPOTHESIS_EXAMPLES=$examples \
      .venv/bin/python -m pytest tests/python/test_properties.py tests/python/test_pyramid_models.py -q -p no:cacheprovider >"$logs/python_properties.log" 2>&1
    status=$?
    result=$(grep -E '^[0-9]+ (passed|failed)' "$logs/python_properties.log" | tail -n 1)
    [ "$status" -eq 0 ] || found_any=1
    line=$(printf '%-17s %5d s  %s examples per test  %s' python_properties "$((SECONDS - t0))" "$examples" "${result:-see the log}")
    echo "$line"
    summary+=("$line")
  else
    summary+=("python_properties skipped: build the module first (bash scripts/test-python.sh)")
  fi
fi

echo
echo "fuzz summary (${seconds} s per target):"
printf '  %s\n' "${summary[@]}"
exit "$found_any"
