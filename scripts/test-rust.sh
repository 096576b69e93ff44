#!/usr/bin/env bash
# The Rust suite: the core's tests (unit, property, the Node-checked number formatting,
# every conformance vector with its coverage table, the bundled demo data, the layout guard
# core/tests/layout.rs), the JS layer crates' unit tests (earlyexit-js, earlyexit-js-fast), the
# generator room's (earlyexit-dev: its test runs `generate --check`, built in the same cargo
# invocation and target dir, which fails with the diff to apply when a generated file is stale),
# the rust blocks of README.md and core/README.md (run by rustdoc --test),
# clippy with warnings as errors on every workspace crate but the Python binding (linted in
# scripts/test-python.sh), rustfmt, the core's rustdoc (warnings as errors), the user docs
# (scripts/check-docs.sh), the zero-runtime-dependency rule, the one-version rule, the
# packages' metadata from its one place (scripts/metadata.py) and the
# supply-chain policy (deny.toml: licenses, duplicate versions), that policy once more from
# an empty CARGO_HOME (what a machine that never built the project has: it fetches every
# locked package from the registry; EARLYEXIT_SKIP_COLD_CACHE=1 skips it where there is no
# network), and scripts/fuzz.sh's log paths.
#
# Closing line: `rust: N passed, M failed`, where N and M sum cargo's `test result:` lines
# and each of the checks after the tests (clippy, fmt, rustdoc, docs, core deps, versions,
# metadata, supply chain, cold cache, fuzz log dir, demo) counts as one test. A cargo test run that
# fails before reporting (say, a compile error) counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# shellcheck source=lib/check.sh
. scripts/lib/check.sh
log=$(mktemp)

test_passed=0
test_failed=0
cargo_tests() { # label, cargo test arguments...: adds the `test result:` lines to the counts
  local label=$1 status p f t0=$SECONDS
  shift
  section "cargo test $*"
  cargo test "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  read -r p f < <(cargo_counts "$log")
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1 # it failed before any test could report (compile error, missing file)
  fi
  test_passed=$((test_passed + p))
  test_failed=$((test_failed + f))
  [ "$f" -eq 0 ] || failures+=("$label ($f)")
  grep -h "^bad-input matrix" "$log" >>"$matrix_log" || true
  echo "--- $label: $p passed, $f failed ($((SECONDS - t0)) s)"
}
matrix_log=$(mktemp)
trap 'rm -f "$log" "$matrix_log"' EXIT
# The core (prints the vectors' coverage table), then the JS layer's crates (the string ops
# and the numeric fast path), the generator room (`generate --check`), whose tests no other
# suite runs, and the host libraries (the JUnit reader's tests replay the fuzz target
# junit_read's corpus).
cargo_tests "cargo test core" -p earlyexit --no-fail-fast -- --nocapture
cargo_tests "cargo test js crates, generator, digest, calibrate, junit, mcp-wire and store" -p earlyexit-js -p earlyexit-js-fast -p earlyexit-dev -p earlyexit-digest -p earlyexit-calibrate -p earlyexit-junit -p earlyexit-mcp-wire -p earlyexit-store --no-fail-fast

# The ```rust blocks of README.md (its Rust quick start) and core/README.md (the crate's page),
# compiled and run by rustdoc against the core as cargo builds it, so the READMEs' Rust
# examples cannot rot. Counted like cargo's tests (one per block).
readme_blocks() { # OUT.md IN.md: the ```rust blocks of IN.md, each at its own line number
  python3 -c '
import sys
out, source = sys.argv[1], sys.argv[2]
lines = open(source, encoding="utf-8").read().split("\n")
keep, inside = [""] * len(lines), False
for n, line in enumerate(lines):
    if not inside and line.strip() == "```rust":
        inside, keep[n] = True, line
    elif inside:
        keep[n] = line
        inside = line.strip() != "```"
if not any(keep):
    sys.exit(source + ": no ```rust block")
open(out, "w", encoding="utf-8").write("\n".join(keep))
' "$1" "$2"
}
readme_rust() {
  local rlib dir page status=0
  rlib=$(cargo build -q -p earlyexit --lib --message-format=json | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "earlyexit" and "lib" in m["target"]["kind"]:
        print(next(f for f in m["filenames"] if f.endswith(".rlib")))') || return 1
  [ -n "$rlib" ] || { echo "cargo build named no libearlyexit rlib"; return 1; }
  dir=$(mktemp -d)
  mkdir -p "$dir/core"
  for page in README.md core/README.md; do
    readme_blocks "$dir/$page" "$page" || status=1
  done
  for page in README.md core/README.md; do
    [ -f "$dir/$page" ] || continue
    (cd "$dir" && rustdoc --edition 2021 --test "$page" --crate-name readme \
      --extern earlyexit="$rlib" -L "dependency=$(dirname "$rlib")/deps") || status=1
  done
  rm -rf "$dir"
  return "$status"
}
section "README Rust blocks: rustdoc --test README.md core/README.md"
readme_rust 2>&1 | tee "$log"
readme_status=${PIPESTATUS[0]}
read -r readme_p readme_f < <(cargo_counts "$log")
if [ "$readme_status" -ne 0 ] && [ "$readme_f" -eq 0 ]; then
  readme_f=1 # it failed before any block could report (no block, a build error)
fi
test_passed=$((test_passed + readme_p))
test_failed=$((test_failed + readme_f))
[ "$readme_f" -eq 0 ] || failures+=("README Rust blocks ($readme_f)")
echo "--- README Rust blocks: $readme_p passed, $readme_f failed"

passed=$((passed + test_passed))
failed=$((failed + test_failed))

# Every workspace crate but the Python binding (linted by scripts/test-python.sh, where
# pyo3 finds the venv's interpreter).
check clippy cargo clippy --workspace --exclude earlyexit-python --all-targets -- -D warnings
check fmt cargo fmt --all --check
# The core's API docs: every intra-doc link resolves, no link to a private item.
check rustdoc env RUSTDOCFLAGS="-D warnings" cargo doc -p earlyexit --no-deps --quiet
check docs scripts/check-docs.sh
check core-deps scripts/check-core-deps.sh
check versions scripts/check-versions.sh
# The packages' shared metadata (version, URL, authors, keywords) as Cargo.toml states it,
# and every platform in the release workflow's matrix.
check metadata python3 scripts/metadata.py check
check supply-chain scripts/check-supply-chain.sh
supply_chain_cold_cache() { # the same check as on a machine that never built the project
  local home status
  home=$(mktemp -d)
  # The cargo configuration (a registry mirror, say), none of the downloaded packages.
  for file in config.toml config credentials.toml; do
    [ -f "${CARGO_HOME:-$HOME/.cargo}/$file" ] && cp "${CARGO_HOME:-$HOME/.cargo}/$file" "$home/"
  done
  CARGO_HOME=$home scripts/check-supply-chain.sh
  status=$?
  echo "fetched into an empty CARGO_HOME: $(find "$home/registry/cache" -name '*.crate' 2>/dev/null | wc -l) packages"
  rm -rf "$home"
  return "$status"
}
if [ "${EARLYEXIT_SKIP_COLD_CACHE:-0}" = 1 ]; then
  echo "supply-chain-cold-cache: skipped (EARLYEXIT_SKIP_COLD_CACHE=1: no network to the registry here)"
else
  check supply-chain-cold-cache supply_chain_cold_cache
fi
fuzz_logs_absolute() { # scripts/fuzz.sh once prefixed ../ to an absolute FUZZ_LOG_DIR
  local dir got
  dir=$(mktemp -d)
  got=$(FUZZ_LOG_DIR="$dir" bash scripts/fuzz.sh --where json_read)
  rm -rf "$dir"
  [ "$got" = "$dir/json_read.log" ] || { echo "fuzz.sh would log to $got, not $dir/json_read.log"; return 1; }
}
check fuzz-log-dir fuzz_logs_absolute
demo_runs() { # the demo must run to the end; show its totals, or all of it when it fails
  local out
  out=$(cargo run --quiet -p earlyexit --example demo 2>&1) || { printf '%s\n' "$out"; return 1; }
  printf '%s\n' "$out" | sed -n '/^TOTALS/,/^$/p'
}
check demo demo_runs

echo "cargo test $test_passed passed, $test_failed failed; checks $((passed - test_passed)) passed, $((failed - test_failed)) failed"
grep -h "^bad-input matrix" "$matrix_log" || echo "bad-input matrix (rust): not run"
finish_checks rust
