#!/usr/bin/env bash
# Runs every suite in turn and keeps going after a failure:
#   rust       scripts/test-rust.sh       core tests, vectors, clippy, fmt, dependency and version checks
#   python     scripts/test-python.sh     venv, maturin build, stubtest, mypy, pytest
#   node       scripts/test-node.sh       native addon and wasm-in-Node suites
#   browser    scripts/test-browser.sh    wasm build in headless Chromium, dashboard
#   packaging  scripts/test-packaging.sh  wheel and npm tarballs installed into scratch places
#   cli        scripts/test-cli.sh        the earlyexit command and MCP server, end to end
#
# Each suite ends with one or more lines `NAME: N passed, M failed` (read from the last 30
# lines of its output, the last line per NAME); this script collects them with each suite's exit code and ends with one summary line per suite and a total
# line `N passed, N failed`. A suite whose script is missing, or that exits non-zero
# without reporting a failure (a missing tool, a crash), adds one failure to the total.
# Exit status: 0 only when every suite exited 0 and reported no failure. Logs: test-output/logs/<suite>.log.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

SUITES=(rust python node browser packaging cli)
mkdir -p test-output/logs

total_passed=0
total_failed=0
any_failed=0
summary=()
started=$SECONDS

for suite in "${SUITES[@]}"; do
  script="scripts/test-$suite.sh"
  log="test-output/logs/$suite.log"
  printf '\n######## %s (%s)\n' "$suite" "$script"
  if [ ! -f "$script" ]; then
    echo "missing: $script does not exist" | tee "$log"
    summary+=("$(printf '%-10s %-6s  %4s s  missing %s (counted as 1 failure)' "$suite" FAILED - "$script")")
    total_failed=$((total_failed + 1))
    any_failed=1
    continue
  fi
  t0=$SECONDS
  bash "$script" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  seconds=$((SECONDS - t0))
  # The closing lines: matches among the log's last 30 lines, the last one per NAME.
  counts=$(tail -n 30 "$log" | grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed$' |
    awk '{ if (!($1 in last)) order[n++] = $1; last[$1] = $0 } END { for (i = 0; i < n; i++) print last[order[i]] }' || true)
  suite_passed=0
  suite_failed=0
  while read -r _ p _ f _; do
    [ -n "${p:-}" ] || continue
    suite_passed=$((suite_passed + p))
    suite_failed=$((suite_failed + f))
  done <<<"$counts"
  note=""
  if [ "$status" -ne 0 ] && [ "$suite_failed" -eq 0 ]; then
    suite_failed=1
    note=" (exited $status without reporting a failed test: counted as 1 failure)"
  fi
  if [ -z "$counts" ]; then
    note="$note (no 'NAME: N passed, M failed' line)"
  fi
  total_passed=$((total_passed + suite_passed))
  total_failed=$((total_failed + suite_failed))
  if [ "$status" -eq 0 ] && [ "$suite_failed" -eq 0 ]; then verdict=ok; else verdict=FAILED; any_failed=1; fi
  reported=$(printf '%s' "$counts" | paste -sd ';' - | sed 's/;/; /g')
  summary+=("$(printf '%-10s %-6s  %4d s  exit %d  %s%s' "$suite" "$verdict" "$seconds" "$status" "${reported:--}" "$note")")
done

printf '\n######## summary (%d s, logs in test-output/logs/)\n' "$((SECONDS - started))"
for line in "${summary[@]}"; do
  echo "$line"
done
echo "$total_passed passed, $total_failed failed"
exit "$any_failed"
