# The check harness of the test and verify scripts (sourced, never run): each check is one
# pass or one failure, and each script ends with `LABEL: N passed, M failed`, the line
# `make test` and `make artifacts` sum.
# shellcheck shell=bash

passed=0
failed=0
failures=()

section() { printf '\n=== %s\n' "$*"; }

# check NAME COMMAND...: runs COMMAND and counts one pass or one failure, with its time.
check() {
  local name=$1
  shift
  section "$name${2:+: $*}"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "--- $name: ok ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "--- $name: FAILED ($((SECONDS - t0)) s)"
  fi
}

# cargo_counts LOG: prints "PASSED FAILED", summed over cargo's `test result:` lines in LOG.
cargo_counts() {
  sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$1" |
    awk '{p += $1; f += $2} END {print p + 0, f + 0}'
}

# add_counts NAME PASSED FAILED: adds a suite's counts (a suite with failures is listed by name).
add_counts() {
  passed=$((passed + $2))
  failed=$((failed + $3))
  [ "$3" -eq 0 ] || failures+=("$1 ($3)")
}

# finish_checks LABEL: prints the failures and the closing line; fails when anything failed.
finish_checks() {
  echo
  [ "${#failures[@]}" -eq 0 ] || echo "failed: ${failures[*]}"
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
