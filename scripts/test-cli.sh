#!/usr/bin/env bash
# The command-line suite (docs/cli.md, "Tests and figures"):
#   1. cargo test -p earlyexit-cli      exit codes, state files, concurrency, JUnit samples,
#                                       documents against the library, --help vs docs/cli.md
#   2. clippy on the crate
#   3. .venv (as scripts/test-python.sh makes it) with mcp, pytest-rerunfailures and
#      coverage (pinned, installed only when missing), and the Python module (maturin develop)
#   4. end to end from bash: the shell loop example, parallel records on one state file, the
#      CI workflow's steps in separate processes passing only the state file, JUnit reports
#      written now by pytest, pytest-rerunfailures and node --test, coverage.py's XML
#   5. the MCP server driven by the official Python MCP SDK (tests/cli/test_mcp.py)
#   6. the earlyexit-cli wheel (maturin bin bindings) installed into a fresh venv
# Closing line: `cli: N passed, M failed` (cargo's and pytest's tests, one per check).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"

# shellcheck source=lib/check.sh
. scripts/lib/check.sh
scratch=$(mktemp -d "${TMPDIR:-/tmp}/earlyexit-cli.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

finish() {
  finish_checks cli
  exit $?
}

# --- 1, 2: cargo ---------------------------------------------------------------------------
section "cargo test -p earlyexit-cli --no-fail-fast"
log="$scratch/cargo.log"
cargo test -p earlyexit-cli --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
read -r p f < <(cargo_counts "$log")
[ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
add_counts "cargo test" "$p" "$f"
check clippy cargo clippy -p earlyexit-cli --all-targets -- -D warnings

cargo build -p earlyexit-cli --quiet || { failures+=("cargo build"); failed=$((failed + 1)); finish; }
BIN="$ROOT/target/debug/earlyexit"
export EARLYEXIT="$BIN"

# --- 3: the Python side --------------------------------------------------------------------
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
MCP=2.3.0
RERUNFAILURES=16.7
COVERAGE=7.17.5
python_ready() {
  if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV" || { echo "python3 -m venv failed (apt-get install python3-venv)"; return 1; }
  fi
  local missing=()
  "$VENV/bin/maturin" --version 2>/dev/null | grep -q '^maturin 1\.16\.' || missing+=("maturin==1.16.*")
  "$PY" -c 'import pytest' 2>/dev/null || missing+=("pytest")
  "$PY" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP')" 2>/dev/null || missing+=("mcp==$MCP")
  "$PY" -c "import importlib.metadata as m, sys; sys.exit(m.version('pytest-rerunfailures') != '$RERUNFAILURES')" 2>/dev/null ||
    missing+=("pytest-rerunfailures==$RERUNFAILURES")
  "$PY" -c "import importlib.metadata as m, sys; sys.exit(m.version('coverage') != '$COVERAGE')" 2>/dev/null || missing+=("coverage==$COVERAGE")
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    "$PY" -m pip install --disable-pip-version-check -q "${missing[@]}" || return 1
  else
    echo "maturin, pytest, mcp $MCP, pytest-rerunfailures $RERUNFAILURES and coverage $COVERAGE already present"
  fi
  # The Python module the MCP test compares with (incremental: quick when up to date).
  VIRTUAL_ENV="$VENV" CARGO_TARGET_DIR="${CARGO_TARGET_DIR_PYTHON:-$ROOT/target/python}" \
    "$VENV/bin/maturin" develop --release --quiet || return 1
  "$PY" -c 'import earlyexit' && have_python=1
}
have_python=0
check python-environment python_ready

# --- 4: end to end from bash ----------------------------------------------------------------
json_field() { # KEY: the first "KEY":value of stdin's JSON (numbers, booleans, strings)
  grep -o "\"$1\":\(\"[^\"]*\"\|[^,}]*\)" | head -n 1 | cut -d: -f2- | tr -d '"'
}

shell_loop_example() {
  local dir="$scratch/ralph" out code
  mkdir -p "$dir"
  out=$(AGENT_SCORES="62 71 74.5 75 75.2 75.3 75.3" bash examples/shell/ralph.sh "$dir/loop.json")
  code=$?
  printf '%s\n' "$out"
  [ "$code" -eq 0 ] || { echo "ralph.sh exited $code"; return 1; }
  local status
  status=$("$BIN" --json loop status --state "$dir/loop.json")
  [ "$(json_field stopped_early <<<"$status")" = true ] || { echo "not stopped: $status"; return 1; }
  [ "$(json_field stopping_trigger <<<"$status")" = quality_plateau ] || { echo "trigger: $status"; return 1; }
  [ "$(json_field total_iterations <<<"$status")" = 5 ] || { echo "iterations: $status"; return 1; }
  # Resumed after the stop, the loop records one more attempt and stops again.
  AGENT_SCORES="62 71 74.5 75 75.2 75.3 75.3" bash examples/shell/ralph.sh "$dir/loop.json" >/dev/null || return 1
  [ "$("$BIN" --json loop status --state "$dir/loop.json" | json_field total_iterations)" = 6 ] || return 1
  # A score the engine refuses ends the loop with exit 2 and leaves the state as it was.
  AGENT_SCORES="50 abc" bash examples/shell/ralph.sh "$dir/bad.json" >/dev/null 2>"$dir/err"
  code=$?
  [ "$code" -eq 2 ] || { echo "bad score: exit $code"; return 1; }
  grep -q 'invalid_result (quality_score)' "$dir/err" || { cat "$dir/err"; return 1; }
  [ "$("$BIN" --json loop status --state "$dir/bad.json" | json_field total_iterations)" = 1 ]
}
check shell-loop-example shell_loop_example

# The loop lifecycle from the command line (examples/lifecycle/loop-lifecycle.sh): 300 tasks
# in shadow, calibration, promotion on an audit slice, the promoted policy enforced.
lifecycle_example() {
  local dir="$scratch/lifecycle" out
  out=$(PATH="$(dirname "$BIN"):$PATH" bash examples/lifecycle/loop-lifecycle.sh "$dir") || { printf '%s\n' "$out"; return 1; }
  printf '%s\n' "$out"
  # The shadow phase's labels count the 300 runs, one receipt each.
  local shadow
  shadow=$(grep '^shadow: ' <<<"$out") || return 1
  [ "$(grep -o '[0-9]\+' <<<"$shadow" | awk '{ s += $1 } END { print s }')" = 300 ] || { echo "shadow receipts: $shadow"; return 1; }
  grep -q '^promoted: ' <<<"$out" || return 1
  grep -q '^valid: 370 receipt' <<<"$out"
}
check loop-lifecycle-example lifecycle_example

# One machine's run store (examples/store/one-machine.sh, docs/store.md): imported twice,
# added once; exported, checked, calibrated on; the artifact stored, promoted in the store and
# run from it; a retried receipt kept once.
store_example() {
  local dir="$scratch/store" out
  out=$(PATH="$(dirname "$BIN"):$PATH" bash examples/store/one-machine.sh "$dir") || { printf '%s\n' "$out"; return 1; }
  printf '%s\n' "$out"
  grep -q '^120 run(s) added (0 already' <<<"$out" || return 1
  grep -q '^0 run(s) added (120 already' <<<"$out" || return 1
  grep -q '^valid: schema [0-9]*, 120 run(s)' <<<"$out" || return 1
  grep -q '^calibrated: "kind":"loop"' <<<"$out" || return 1
  grep -q "^agent	loop	shadow\$" <<<"$out" || return 1
  grep -q "^agent	loop	promoted\$" <<<"$out" || return 1
  grep -q '^loop: stop (exit 10)' <<<"$out" || return 1
  grep -q '"promotion"' "$dir/promoted.json" || return 1
  grep -q '^valid: 1 receipt(s)' <<<"$out"
}
check store-example store_example

parallel_records() {
  local state="$scratch/parallel.json" i n=24
  for i in $(seq 1 "$n"); do
    "$BIN" loop record --state "$state" --quality "$((i + 10))" --confidence 0.5 --verification failed \
      --no-strict-iterations >/dev/null &
  done
  wait
  local got
  got=$("$BIN" --json loop status --state "$state" | json_field total_iterations)
  echo "$n parallel records, $got in the state file"
  [ "$got" = "$n" ]
}
check parallel-records parallel_records

# The CI example: the workflow's `run:` steps that call pyramid-step.sh, each in a job
# directory of its own (a fresh copy of the project), passing only the state file.
ci_project() { # DIR E2E_FAILS: a project with the three layers' tests
  local dir=$1 fails=$2
  mkdir -p "$dir/tests/unit" "$dir/tests/integration" "$dir/tests/e2e" "$dir/examples/ci"
  cp examples/ci/pyramid-step.sh "$dir/examples/ci/"
  printf 'def test_adds():\n    assert 1 + 1 == 2\n\ndef test_joins():\n    assert "-".join("ab") == "a-b"\n' >"$dir/tests/unit/test_unit.py"
  printf "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('api answers', () => assert.equal(2 * 2, 4));\n" \
    >"$dir/tests/integration/api.test.mjs"
  if [ "$fails" = 1 ]; then
    printf 'def test_checkout():\n    assert False, "the button is gone"\n\ndef test_login():\n    assert True\n' >"$dir/tests/e2e/test_e2e.py"
  else
    printf 'def test_checkout():\n    assert True\n\ndef test_login():\n    assert True\n' >"$dir/tests/e2e/test_e2e.py"
  fi
}
ci_run() { # E2E_FAILS EXPECTED_EXIT EXPECTED_VERDICT
  local fails=$1 want_exit=$2 want_verdict=$3 base="$scratch/ci-$1" previous="" job=0 code=0
  ci_project "$base/project" "$fails"
  local steps
  steps=$(sed -n 's/^ *- run: \(bash examples\/ci\/pyramid-step\.sh .*\)$/\1/p' examples/ci/earlyexit-pyramid.yml)
  [ "$(printf '%s\n' "$steps" | wc -l)" -eq 5 ] || { echo "expected 5 pyramid steps in the workflow"; return 1; }
  while IFS= read -r step; do
    job=$((job + 1))
    local dir="$base/job$job"
    cp -r "$base/project" "$dir"
    [ -n "$previous" ] && cp "$previous/pyramid.json" "$dir/pyramid.json"
    echo "job $job: $step"
    (cd "$dir" && PATH="$VENV/bin:$PATH" bash -c "$step") >"$dir/job.log" 2>&1
    code=$?
    sed 's/^/    /' "$dir/job.log"
    previous=$dir
  done <<<"$steps"
  # The last step is the verdict: its exit code and the result it printed.
  [ "$code" -eq "$want_exit" ] || { echo "verdict step exited $code, expected $want_exit"; return 1; }
  local result
  result=$("$BIN" --json pyramid result --state "$previous/pyramid.json")
  [ "$(json_field verdict <<<"$result")" = "$want_verdict" ] || { echo "verdict: $result"; return 1; }
  echo "verdict $want_verdict, exit $code"
}
ci_green() { ci_run 0 0 passed; }
ci_red() { ci_run 1 12 failed; }
if [ "$have_python" = 1 ]; then
  check ci-workflow-green ci_green
  check ci-workflow-red ci_red
else
  check ci-workflow false
fi

# JUnit reports made now by the real runners, read back through `pyramid submit --junit`.
junit_counts() { # NAME REPORT EXPECTED: "total passed failed flaky skipped"
  local name=$1 report=$2 want=$3 state="$scratch/junit-$1.json" out
  "$BIN" pyramid start --state "$state" --force --layer "$name" >/dev/null
  out=$("$BIN" --json pyramid submit 0 --state "$state" --junit "$report" ${4:+--coverage-xml "$4"})
  local code=$?
  echo "$name: $out"
  [ "$code" -eq 10 ] || { echo "submit exited $code"; return 1; }
  local got
  got="$(json_field total <<<"$out") $(json_field passed <<<"$out") $(json_field failed <<<"$out") $(json_field flaky <<<"$out") $(json_field skipped <<<"$out")"
  [ "$got" = "$want" ] || { echo "$name counts: got '$got', expected '$want'"; return 1; }
  if [ -n "${5:-}" ]; then
    [ "$(json_field coverage <<<"$out")" = "$5" ] || { echo "coverage: expected $5"; return 1; }
  fi
}
pytest_reports() {
  local dir="$scratch/pytest"
  mkdir -p "$dir"
  cat >"$dir/test_sample.py" <<'PY'
import os
import pathlib

import pytest

from sample import add

COUNTER = pathlib.Path(os.environ["FLAKY_COUNTER"])


def test_adds():
    assert add(1, 2) == 3


def test_flaky():
    n = int(COUNTER.read_text()) if COUNTER.exists() else 0
    COUNTER.write_text(str(n + 1))
    assert n >= 1, "fails on the first attempt only"


def test_always_fails():
    assert add(2, 2) == 5


@pytest.mark.skip(reason="not on this machine")
def test_skipped():
    pass
PY
  printf 'def add(a, b):\n    return a + b\n\n\ndef unused():\n    return 0\n' >"$dir/sample.py"
  (
    cd "$dir" || exit 1
    # Plain pytest: the flaky test fails once and stays failed.
    FLAKY_COUNTER="$dir/plain.count" "$PY" -m pytest -q -p no:cacheprovider -p no:rerunfailures --junitxml=plain.xml test_sample.py
    # pytest-rerunfailures: one <testcase> per attempt; coverage.py measures the same run.
    FLAKY_COUNTER="$dir/rerun.count" "$PY" -m coverage run --source=sample -m pytest -q -p no:cacheprovider --reruns 2 \
      --junitxml=rerun.xml test_sample.py
    "$PY" -m coverage xml -o coverage.xml
    true
  )
  # One element per attempt: test_adds 1, test_flaky 2, test_always_fails 3, the skip 1.
  [ "$(grep -o '<testcase ' "$dir/rerun.xml" | wc -l)" -eq 7 ] || { echo "pytest-rerunfailures: not one <testcase> per attempt"; return 1; }
  # total passed failed flaky skipped
  junit_counts pytest "$dir/plain.xml" "3 1 2 0 1" || return 1
  # Coverage: sample.py has 4 statements, 3 of them ran (unused() was never called).
  junit_counts pytest-rerunfailures "$dir/rerun.xml" "3 2 1 1 1" "$dir/coverage.xml" 0.75 || return 1
}
node_report() {
  local dir="$scratch/node"
  mkdir -p "$dir/t"
  cat >"$dir/t/sample.test.mjs" <<'JS'
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
describe('outer', () => {
  it('adds', () => assert.equal(1 + 1, 2));
  describe('inner', () => {
    it('fails', () => assert.equal(1, 2));
    it('same name', () => {});
  });
  it('same name', () => {});
});
test('top level passes', () => {});
test('skipped one', { skip: true }, () => {});
JS
  (cd "$dir" && node --test --test-reporter=junit --test-reporter-destination=node.xml t/)
  grep -q '<testsuites>' "$dir/node.xml" || return 1
  # Nested suites and bare test cases; 'same name' twice, in different suites, is two tests.
  junit_counts node "$dir/node.xml" "5 4 1 0 1"
}
surefire_sample() {
  junit_counts surefire cli/tests/data/surefire-flaky.xml "4 3 1 1 1" cli/tests/data/cobertura.xml 0.85
}
two_reports_rerun() { # a CI rerun's report after the first: failed then passed = flaky
  local dir="$scratch/rerun2"
  mkdir -p "$dir"
  printf '<testsuite name="s"><testcase classname="c" name="a"><failure/></testcase><testcase classname="c" name="b"/></testsuite>' >"$dir/first.xml"
  printf '<testsuites><testsuite name="s"><testcase classname="c" name="a"/></testsuite></testsuites>' >"$dir/rerun.xml"
  local state="$scratch/two.json" out
  "$BIN" pyramid start --state "$state" --force --layer l >/dev/null
  out=$("$BIN" --json pyramid submit l --state "$state" --junit "$dir/first.xml" "$dir/rerun.xml")
  echo "$out"
  [ "$(json_field passRate <<<"$out") $(json_field flakyRatio <<<"$out")" = "1 0.5" ]
}
malformed_reports() {
  local dir="$scratch/bad" state="$scratch/bad.json" file err
  mkdir -p "$dir"
  : >"$dir/empty.xml"
  printf '<testsuite name="x"><testcase name="a">' >"$dir/truncated.xml"
  printf 'not xml at all' >"$dir/text.xml"
  "$BIN" pyramid start --state "$state" --force --layer l >/dev/null
  local before
  before=$(cat "$state")
  for file in empty truncated text; do
    err=$("$BIN" --json pyramid submit l --state "$state" --junit "$dir/$file.xml" 2>&1 >/dev/null)
    [ $? -eq 2 ] || { echo "$file: not exit 2"; return 1; }
    echo "$file: $err"
    [ "$(json_field code <<<"$err") $(json_field field <<<"$err")" = "invalid_layer_result junit[0]" ] || return 1
  done
  [ "$(cat "$state")" = "$before" ]
}
if [ "$have_python" = 1 ]; then
  check junit-pytest-and-rerunfailures-and-coverage pytest_reports
else
  check junit-pytest false
fi
check junit-node-test node_report
check junit-surefire-sample surefire_sample
check junit-two-reports-rerun two_reports_rerun
check junit-malformed-and-empty malformed_reports

# --- 5: MCP with the official Python SDK ------------------------------------------------------
if [ "$have_python" = 1 ]; then
  section "pytest tests/cli (the MCP server with the Python MCP SDK $MCP)"
  log="$scratch/pytest.log"
  EARLYEXIT_BIN="$BIN" "$PY" -m pytest tests/cli -q -p no:cacheprovider 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  p=$(grep -Eo '[0-9]+ passed' "$log" | tail -n 1 | cut -d' ' -f1)
  f=$(grep -Eo '[0-9]+ (failed|error)' "$log" | awk '{s += $1} END {print s + 0}')
  p=${p:-0}
  [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  add_counts mcp "$p" "$f"
else
  check mcp false
fi

# --- 6: the wheel of the binary ------------------------------------------------------------
cli_wheel() {
  local out="$ROOT/test-output/cli-wheel"
  rm -rf "$out"
  # A dev-profile wheel in the shared target dir: it reuses the debug build above (39 s
  # against 409 s for a release build in a target dir of its own, measured on the 2-CPU
  # machine); what is tested is that the wheel installs and runs the command. Release wheels
  # are release builds, not part of `make test`. --profile dev, explicitly: cli/pyproject.toml
  # names the wheels' profile (dist-cli), which maturin would otherwise use (308 s here).
  VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" build --quiet --profile dev -m cli/Cargo.toml --out "$out" || return 1
  local wheel
  wheel=$(ls "$out"/earlyexit_cli-*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || { echo "no earlyexit_cli wheel in $out"; return 1; }
  echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
  python3 -m venv "$scratch/wheel-venv" || return 1
  "$scratch/wheel-venv/bin/pip" install --disable-pip-version-check -q --no-index "$wheel" || return 1
  local cmd="$scratch/wheel-venv/bin/earlyexit"
  "$cmd" --version | grep -q '^earlyexit ' || return 1
  "$cmd" loop record --state "$scratch/wheel-loop.json" --quality 97 --confidence 0.97 --verification passed
  [ $? -eq 10 ] || { echo "the installed command did not stop a verified, confident loop"; return 1; }
  local status
  status=$("$cmd" --json loop status --state "$scratch/wheel-loop.json") # exit 10: stopped
  grep -qF '"stopping_reason":"High confidence (97.0%) AND verification passed"' <<<"$status"
}
if [ "$have_python" = 1 ]; then
  check cli-wheel cli_wheel
else
  check cli-wheel false
fi

finish
