#!/usr/bin/env bash
# The adapters (earlyexit.integrations) against the real frameworks, offline, and the pytest
# plugin under the oldest pytest it supports (`make test-integrations`; .ci/run runs it after
# `make test`):
#   1. .venv-integrations (python3 -m venv, kept between runs and git-ignored) with the exact
#      pins of tests/integrations/requirements.txt and maturin; reinstalled only when that file
#      changes (its SHA-256 is kept in the venv)
#   2. the package's wheel built from this checkout (maturin build --release), installed into it
#   3. pytest tests/integrations: each adapter with its framework, the examples of
#      docs/agents.md run as written; offline for real: LITELLM_LOCAL_MODEL_COST_MAP=True,
#      the Agents SDK's tracing off, HF_HUB_OFFLINE=1, no *_API_KEY, and a socket guard
#      (tests/integrations/network_guard.py, installed by its conftest.py) failing any test
#      that connects beyond loopback
#   4. the pytest plugin's suite (integrations/pytest-earlyexit) under pytest 8.4 on Python 3.9
#      in .venv-integrations-pytest84: the first python3.9 found on PATH, in pyenv's versions or
#      through `uv python find 3.9`; without one, on python3, and the run says so
#   5. the run store on a real PostgreSQL (scripts/postgres-test-server.sh: Debian's
#      postgresql-15, installed when missing, a cluster in a temporary folder on a Unix socket
#      only, stopped and removed on exit): the store's conformance suite and process tests
#      with --features postgres, the command's and the MCP server's PostgreSQL tests, and
#      examples/store/fleet.sh
# Needs python3 (with venv and pip) and a Rust toolchain (`make setup`); reaches PyPI the first
# time. Exits non-zero when anything fails; the last line is "integrations: N passed, M failed".
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="$ROOT/.venv-integrations"
PY="$VENV/bin/python"
REQUIREMENTS="$ROOT/tests/integrations/requirements.txt"
MATURIN="maturin==1.16.*"
# The pytest plugin's oldest supported pytest, and the plugins its suite drives: the pins of
# scripts/test-python.sh but pytest-rerunfailures, whose last release for Python 3.9 is 16.0.1.
PYTEST_OLDEST=8.4.2
PLUGIN_PINS=(pytest-rerunfailures==16.0.1 pytest-xdist==3.8.0 pytest-cov==7.0.0)
export PATH="$HOME/.cargo/bin:$PATH"
# A target dir of its own for the binding (as scripts/test-python.sh): no lock fights.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_PYTHON:-$ROOT/target/python}"
unset PYTHONHOME

# Offline: the frameworks' own switches, and no credentials of any provider.
export LITELLM_LOCAL_MODEL_COST_MAP=True
export OPENAI_AGENTS_DISABLE_TRACING=1
export HF_HUB_OFFLINE=1
export DSP_CACHEDIR="$ROOT/test-output/integrations/dspy-cache"
while IFS= read -r name; do unset "$name"; done < <(env | grep -oE '^[A-Za-z_]+_API_KEY' || true)

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
step() { printf '\n==> %s\n' "$*"; }
passed=0
failed=0
failures=()
count() { echo "$1" | grep -oE "[0-9]+ $2" | grep -oE '^[0-9]+' || echo 0; }

# run_cargo NAME ARGS...: runs cargo test, adds its counts (every "test result:" line) to the totals.
run_cargo() {
  local name="$1" log status p f
  shift
  log="$(mktemp)"
  cargo test "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  p=$(grep -oE '^test result: .* [0-9]+ passed' "$log" | grep -oE '[0-9]+ passed' | awk '{ s += $1 } END { print s + 0 }')
  f=$(grep -oE '^test result: .* [0-9]+ failed' "$log" | grep -oE '[0-9]+ failed' | awk '{ s += $1 } END { print s + 0 }')
  rm -f "$log"
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || failures+=("$name ($f)")
  echo "$name: $p passed, $f failed"
}

# run_pytest NAME PYTHON ARGS...: runs pytest, adds its counts to the totals.
run_pytest() {
  local name="$1" python="$2" log summary status p f
  shift 2
  log="$(mktemp)"
  "$python" -m pytest -q -rfE -p no:cacheprovider "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  summary="$(grep -E '^(=+ )?[0-9]+ (passed|failed|error)' "$log" | tail -n 1)"
  rm -f "$log"
  p=$(count "$summary" passed)
  f=$(($(count "$summary" failed) + $(count "$summary" error)))
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || failures+=("$name ($f)")
  echo "$name: $p passed, $f failed"
}

finish() {
  [ "${#failures[@]}" -eq 0 ] || echo "failed: ${failures[*]}"
  echo "integrations: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

# --- 1. the frameworks' venv ----------------------------------------------------------------
step "virtual environment ($VENV)"
t0="$(now)"
if [ ! -x "$PY" ] && ! python3 -m venv "$VENV"; then
  echo "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
  failures+=("venv"); failed=1; finish
fi
want="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1) $MATURIN"
if [ "$(cat "$VENV/.requirements" 2>/dev/null)" != "$want" ]; then
  echo "installing tests/integrations/requirements.txt and $MATURIN"
  if ! "$PY" -m pip install --disable-pip-version-check -q -r "$REQUIREMENTS" "$MATURIN"; then
    echo "pip install failed" >&2
    failures+=("pip install"); failed=1; finish
  fi
  echo "$want" >"$VENV/.requirements"
else
  echo "the pinned frameworks are already installed"
fi
echo "venv ready ($(elapsed "$t0") s)"

# --- 2. the package from this checkout ------------------------------------------------------
# One wheel (abi3, Python >= 3.9) for both venvs: the package as built from this checkout.
step "maturin build --release"
t0="$(now)"
WHEELS="$ROOT/test-output/integrations/wheels"
rm -rf "$WHEELS"
if ! VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" build --release --quiet -o "$WHEELS" ||
  ! "$PY" -m pip install --disable-pip-version-check -q --force-reinstall --no-deps "$WHEELS"/*.whl; then
  echo "build failed ($(elapsed "$t0") s)" >&2
  failures+=("build"); failed=1; finish
fi
echo "built and installed $(basename "$WHEELS"/*.whl) ($(elapsed "$t0") s)"

# --- 3. the adapters with their frameworks ----------------------------------------------------
step "pytest tests/integrations"
t0="$(now)"
mkdir -p "$DSP_CACHEDIR"
run_pytest adapters "$PY" tests/integrations
echo "adapters took $(elapsed "$t0") s"

# --- 4. the pytest plugin under its oldest pytest ------------------------------------------
step "pytest-earlyexit under pytest $PYTEST_OLDEST"
t0="$(now)"
OLD_VENV="$ROOT/.venv-integrations-pytest84"
python39=""
# A python3.9 that runs (a pyenv shim on PATH may not), else one of pyenv's, else uv's.
for candidate in "$(command -v python3.9 2>/dev/null)" "$HOME"/.pyenv/versions/3.9*/bin/python3.9 \
  "$(command -v uv >/dev/null 2>&1 && uv python find 3.9 2>/dev/null)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] &&
    "$candidate" -c 'import sys, venv; sys.exit(sys.version_info[:2] != (3, 9))' 2>/dev/null; then
    python39="$candidate"
    break
  fi
done
if [ -n "$python39" ]; then
  base="$python39"
  echo "Python 3.9: $python39"
else
  base="python3"
  echo "no Python 3.9 found (python3.9 on PATH, ~/.pyenv/versions/3.9*, uv python find 3.9):"
  echo "  pytest $PYTEST_OLDEST runs on $(python3 --version 2>&1) instead; Python 3.9 itself is untested here"
fi
old_want="$("$base" --version 2>&1) pytest==$PYTEST_OLDEST ${PLUGIN_PINS[*]}"
if [ -x "$OLD_VENV/bin/python" ] && [ "$(cat "$OLD_VENV/.requirements" 2>/dev/null)" != "$old_want" ]; then
  rm -rf "$OLD_VENV" # another Python or other pins
fi
if { [ -x "$OLD_VENV/bin/python" ] || "$base" -m venv "$OLD_VENV"; } &&
  { [ "$(cat "$OLD_VENV/.requirements" 2>/dev/null)" = "$old_want" ] ||
    { "$OLD_VENV/bin/python" -m pip install --disable-pip-version-check -q "pytest==$PYTEST_OLDEST" "${PLUGIN_PINS[@]}" &&
      echo "$old_want" >"$OLD_VENV/.requirements"; }; }; then
  if "$OLD_VENV/bin/python" -m pip install --disable-pip-version-check -q --force-reinstall --no-deps "$WHEELS"/*.whl &&
    "$OLD_VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps -e integrations/pytest-earlyexit; then
    "$OLD_VENV/bin/python" -c 'import sys, pytest; print("Python %d.%d.%d," % sys.version_info[:3], "pytest", pytest.__version__)'
    run_pytest "pytest-earlyexit (pytest $PYTEST_OLDEST)" "$OLD_VENV/bin/python" integrations/pytest-earlyexit/tests
  else
    echo "installing the package or the plugin failed" >&2
    failures+=("pytest-earlyexit install"); failed=$((failed + 1))
  fi
else
  echo "the pytest $PYTEST_OLDEST venv could not be made" >&2
  failures+=("pytest $PYTEST_OLDEST venv"); failed=$((failed + 1))
fi
echo "pytest-earlyexit took $(elapsed "$t0") s"

# --- 5. the run store on PostgreSQL -----------------------------------------------------------
step "the run store on PostgreSQL"
t0="$(now)"
source "$ROOT/scripts/postgres-test-server.sh"
trap pg_test_server_stop EXIT
if pg_test_server_start; then
  # The workspace's own target dir (not the binding's): the command's tests build there.
  CARGO_TARGET_DIR="$ROOT/target" run_cargo "store on PostgreSQL" \
    -p earlyexit-store --features postgres --test conformance --test processes
  CARGO_TARGET_DIR="$ROOT/target" run_cargo "command and MCP on PostgreSQL" \
    -p earlyexit-cli --test store --test store_mcp
  fleet_out=$(PATH="$ROOT/target/debug:$PATH" bash examples/store/fleet.sh "$EARLYEXIT_TEST_POSTGRES" \
    "$(mktemp -d)" 2>&1)
  printf '%s\n' "$fleet_out"
  if grep -q '^fleet: 120 run(s) from 4 runner(s)' <<<"$fleet_out" &&
    grep -q '^calibrated: "kind":"loop"' <<<"$fleet_out" && grep -q '^model: 4 build(s)' <<<"$fleet_out" &&
    grep -q '^valid: 2 receipt(s)' <<<"$fleet_out" && grep -q '^valid: schema 3' <<<"$fleet_out"; then
    echo "fleet example: 1 passed, 0 failed"; passed=$((passed + 1))
  else
    echo "fleet example: 0 passed, 1 failed"; failures+=("fleet example"); failed=$((failed + 1))
  fi
else
  failures+=("PostgreSQL server"); failed=$((failed + 1))
fi
pg_test_server_stop
echo "the store on PostgreSQL took $(elapsed "$t0") s"

finish
