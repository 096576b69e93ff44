#!/usr/bin/env bash
# A Ralph-style external loop: run an agent again and again, record how each attempt
# scored, and stop when earlyexit says so (exit 10), keeping the best attempt.
#
#   examples/shell/ralph.sh [STATE_FILE]
#
# The agent below is a stand-in that replays the scores in $AGENT_SCORES (default: a run
# that plateaus); put your agent CLI and your own scoring in `run_agent` (tests passed as
# quality, your verifier's verdict as verification). The loop is resumable: the state file
# holds every recorded iteration (strictIterations is on), so a killed loop restarted with
# the same state file goes on where it was.
set -uo pipefail

EARLYEXIT=${EARLYEXIT:-earlyexit}
state=${1:-.earlyexit-loop.json}
read -r -a scores <<<"${AGENT_SCORES:-62 71 74.5 75 75.2 75.3 75.3}"

iteration=$("$EARLYEXIT" --json loop status --state "$state" 2>/dev/null | grep -o '"total_iterations":[0-9]*' | cut -d: -f2)
iteration=${iteration:-0}

run_agent() { # one attempt: sets quality, confidence, verification
  iteration=$((iteration + 1))
  local i=$((iteration - 1))
  [ "$i" -lt "${#scores[@]}" ] || i=$((${#scores[@]} - 1))
  quality=${scores[$i]}
  confidence=$(awk -v q="$quality" 'BEGIN { printf "%.2f", q / 100 }')
  verification=passed
  echo "attempt $iteration: quality $quality"
}

run_agent
while "$EARLYEXIT" loop record --state "$state" --iteration "$iteration" \
  --quality "$quality" --confidence "$confidence" --verification "$verification"
  code=$?
  [ "$code" -eq 0 ]
do
  run_agent
done
[ "$code" -eq 10 ] || { echo "earlyexit failed (exit $code)" >&2; exit "$code"; }
"$EARLYEXIT" loop best --state "$state"
