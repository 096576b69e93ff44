#!/usr/bin/env bash
# Builds the Python binding into .venv and runs its checks and tests:
#   1. .venv (python3 -m venv) with maturin 1.16, pytest, mypy and hypothesis (pinned), installed
#      only when missing
#   2. maturin develop --release (the native module earlyexit._native, abi3)
#   3. cargo clippy -p earlyexit-python -D warnings (here, where pyo3 finds the venv's Python)
#      python -m mypy.stubtest earlyexit._native   (the hand-written stub matches the module)
#   4. mypy --strict tests/python/typed_usage.py   (the API types check in a strict user file)
#   5. pytest tests/python                         (vectors, API, errors, pickling, threads, runners, README)
#   6. the pytest plugin (integrations/pytest-earlyexit), installed editable with the pinned
#      pytest-rerunfailures, pytest-xdist and pytest-cov it is tested with: pytester on example projects
# Needs only python3 (with venv and pip) and a Rust toolchain; reaches PyPI and crates.io
# the first time. Exits non-zero when anything fails; the last line is
# "python: N passed, M failed" (pytest's tests plus clippy and the two type checks), after
# "pytest-earlyexit: N passed, M failed" (the plugin's tests).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="$ROOT/.venv"
PY="$VENV/bin/python"
# Keep VIRTUAL_ENV (and so pyo3's view of the interpreter) the same for every cargo call.
export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
# A target dir of its own: no lock fights with other builds, no rebuilds when they change flags.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_PYTHON:-$ROOT/target/python}"
unset PYTHONHOME

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
step() { printf '\n==> %s\n' "$*"; }

# shellcheck source=lib/check.sh
. scripts/lib/check.sh

# --- 1. virtual environment ---------------------------------------------------------------
step "virtual environment ($VENV)"
t0="$(now)"
if [ ! -x "$PY" ]; then
  if ! python3 -m venv "$VENV"; then
    echo "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
    echo "python: 0 passed, 1 failed"
    exit 1
  fi
fi
missing=()
"$VENV/bin/maturin" --version 2>/dev/null | grep -q '^maturin 1\.16\.' || missing+=("maturin==1.16.*")
"$PY" -c 'import pytest' 2>/dev/null || missing+=("pytest")
"$PY" -c 'import mypy' 2>/dev/null || missing+=("mypy")
# Property tests of the conversions (tests/python/test_properties.py); pinned, so a run is
# reproducible: a fixed seed and a bounded number of examples here, more in `make fuzz`.
HYPOTHESIS=6.170.17
"$PY" -c "import hypothesis, sys; sys.exit(hypothesis.__version__ != '$HYPOTHESIS')" 2>/dev/null || missing+=("hypothesis==$HYPOTHESIS")
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  if ! "$PY" -m pip install --disable-pip-version-check -q "${missing[@]}"; then
    echo "pip install failed" >&2
    echo "python: 0 passed, 1 failed"
    exit 1
  fi
else
  echo "maturin, pytest, mypy and hypothesis already present"
fi
echo "venv ready ($(elapsed "$t0") s)"

# --- 2. build -------------------------------------------------------------------------------
step "maturin develop --release"
t0="$(now)"
if ! "$VENV/bin/maturin" develop --release --quiet; then
  echo "build failed ($(elapsed "$t0") s)" >&2
  echo "python: 0 passed, 1 failed"
  exit 1
fi
echo "built ($(elapsed "$t0") s)"

# --- 3./4. lint and type checks ---------------------------------------------------------------
check "clippy -p earlyexit-python" cargo clippy -p earlyexit-python --all-targets -- -D warnings
check "stubtest earlyexit._native" "$PY" -m mypy.stubtest earlyexit._native
check "mypy --strict tests/python/typed_usage.py" "$PY" -m mypy --strict --no-incremental tests/python/typed_usage.py

# --- 5. pytest ---------------------------------------------------------------------------------
step "pytest tests/python"
t0="$(now)"
log="$(mktemp)"
"$PY" -m pytest tests/python -q -rfE -p no:cacheprovider 2>&1 | tee "$log"
pytest_status=${PIPESTATUS[0]}
echo "pytest took $(elapsed "$t0") s"
summary="$(grep -E '^(=+ )?[0-9]+ (passed|failed|error)' "$log" | tail -n 1)"
rm -f "$log"
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
pytest_failed=$(($(count failed) + $(count error)))
if [ "$pytest_status" -ne 0 ] && [ "$pytest_failed" -eq 0 ]; then
  pytest_failed=1 # pytest failed without a failed test (collection error, no tests run, ...)
fi
add_counts pytest "$(count passed)" "$pytest_failed"
python_skipped=$(count skipped)

# --- 6. the pytest plugin ------------------------------------------------------------------
step "pytest-earlyexit (integrations/pytest-earlyexit)"
t0="$(now)"
RERUNFAILURES=16.7
XDIST=3.8.0
COV=7.0.0
plugin=()
"$PY" -c "import importlib.metadata as m, sys; sys.exit(m.version('pytest-rerunfailures') != '$RERUNFAILURES')" 2>/dev/null ||
  plugin+=("pytest-rerunfailures==$RERUNFAILURES")
"$PY" -c "import importlib.metadata as m, sys; sys.exit(m.version('pytest-xdist') != '$XDIST')" 2>/dev/null ||
  plugin+=("pytest-xdist==$XDIST")
"$PY" -c "import importlib.metadata as m, sys; sys.exit(m.version('pytest-cov') != '$COV')" 2>/dev/null ||
  plugin+=("pytest-cov==$COV")
"$PY" -c "import pytest_earlyexit" 2>/dev/null || plugin+=(-e integrations/pytest-earlyexit)
pe_passed=0
pe_failed=0
if [ "${#plugin[@]}" -gt 0 ] && ! "$PY" -m pip install --disable-pip-version-check -q "${plugin[@]}"; then
  echo "pip install failed: ${plugin[*]}" >&2
  pe_failed=1
else
  plog="$(mktemp)"
  "$PY" -m pytest integrations/pytest-earlyexit/tests -q -rfE -p no:cacheprovider 2>&1 | tee "$plog"
  plugin_status=${PIPESTATUS[0]}
  summary="$(grep -E '^(=+ )?[0-9]+ (passed|failed|error)' "$plog" | tail -n 1)"
  rm -f "$plog"
  pe_passed=$(count passed)
  pe_failed=$(($(count failed) + $(count error)))
  if [ "$plugin_status" -ne 0 ] && [ "$pe_failed" -eq 0 ]; then pe_failed=1; fi
fi
echo "pytest-earlyexit took $(elapsed "$t0") s"
[ "$pe_failed" -eq 0 ] || failures+=("pytest-earlyexit ($pe_failed)")
echo "pytest-earlyexit: $pe_passed passed, $pe_failed failed"

echo
echo "python: $python_skipped skipped (vectors for other suites: JS null inputs, core-internal jsnum)"
finish_checks python && [ "$pe_failed" -eq 0 ]
