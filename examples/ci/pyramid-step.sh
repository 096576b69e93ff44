#!/usr/bin/env bash
# The steps of examples/ci/earlyexit-pyramid.yml: every job runs one of them, and the only
# thing jobs share is the state file (uploaded and downloaded as an artifact).
#
#   pyramid-step.sh start STATE LAYER...          first job: a new run over the layers, in order
#   pyramid-step.sh layer STATE NAME REPORT CMD   a layer's job: if the run asks for NAME (to run
#                                                 or to verify), run CMD (which writes the JUnit
#                                                 report REPORT) and submit the report; else skip
#   pyramid-step.sh verdict STATE                 last job: print the result; fail on a red build
#
# EARLYEXIT names the command (default: earlyexit on PATH).
set -uo pipefail
EARLYEXIT=${EARLYEXIT:-earlyexit}

step=${1:?usage: pyramid-step.sh start|layer|verdict STATE ...}
state=${2:?the state file}
shift 2

case "$step" in
  start)
    args=()
    for layer in "$@"; do args+=(--layer "$layer"); done
    "$EARLYEXIT" pyramid start --state "$state" --force "${args[@]}"
    ;;
  layer)
    name=${1:?the layer name}
    report=${2:?the JUnit report the command writes}
    shift 2
    next=$("$EARLYEXIT" --json pyramid next --state "$state")
    code=$?
    case "$code" in
      0 | 11) ;;
      10) echo "$name: skipped (the run is done)"; exit 0 ;;
      *) exit "$code" ;;
    esac
    pending=$(printf '%s' "$next" | sed -n 's/.*"name":"\([^"]*\)".*/\1/p')
    if [ "$pending" != "$name" ]; then
      echo "$name: skipped (the run asks for $pending)"
      exit 0
    fi
    # A failing test run is a result to submit, not a failed job: the verdict decides.
    "$@" || echo "$name: tests failed (exit $?); submitting the report"
    "$EARLYEXIT" pyramid submit "$name" --state "$state" --junit "$report"
    code=$?
    case "$code" in 0 | 10 | 11) exit 0 ;; *) exit "$code" ;; esac
    ;;
  verdict)
    "$EARLYEXIT" pyramid result --state "$state" "$@"
    ;;
  *)
    echo "unknown step: $step" >&2
    exit 2
    ;;
esac
