#!/usr/bin/env bash
# One machine's run store (docs/store.md): 120 recorded loop runs (a synthetic agent whose
# quality climbs until it passes) imported twice (added once), listed, exported back as
# JSONL, checked, and calibrated on; the calibration artifact kept in the store, promoted
# there on an audit split and run by a loop from the store; a shadow-mode pyramid run's
# receipt appended to the store's receipt log `ci` twice (a retried step: kept once) and
# verified.
#
#   bash examples/store/one-machine.sh [DIR]     (needs `earlyexit` on PATH)
set -euo pipefail
dir="${1:-$(mktemp -d)}"
mkdir -p "$dir"
cd "$dir"
unset EARLYEXIT_STORE

# The runs, one JSON object per line (the form `earlyexit replay loops` reads).
runs() { # FROM TO: the runs of tasks FROM..TO-1
awk -v from="$1" -v to="$2" 'BEGIN {
  for (t = from; t < to; t++) {
    srand(t + 1); solved = 2 + int(rand() * 5); line = ""
    for (k = 1; k <= 8; k++) {
      q = (k >= solved) ? 95 : 30 + 9 * k; v = (k >= solved) ? "passed" : "failed"
      line = line (k > 1 ? ", " : "") sprintf("{\"quality_score\": %d, \"confidence\": 0.5, \"verification_status\": \"%s\"}", q, v)
    }
    printf "{\"id\": \"task-%d\", \"dataset\": \"demo\", \"iterations\": [%s]}\n", t, line
  }
}'
}
runs 0 120 > runs.jsonl

# No --store: the default sqlite:.earlyexit/store.db, its folder ignored by git.
earlyexit runs import --run-label examples runs.jsonl
earlyexit runs import --run-label examples runs.jsonl
cat .earlyexit/.gitignore

# A store named once for every command that follows.
export EARLYEXIT_STORE="sqlite:$dir/.earlyexit/store.db"
earlyexit runs list --run-label examples --limit 3 | cut -f 2,4,5
earlyexit runs export --run-label examples --out exported.jsonl
wc -l < exported.jsonl
earlyexit runs check

# Calibration reads the store as it reads a file.
earlyexit calibrate loops --store "$EARLYEXIT_STORE" --run-label examples --out artifact.json
echo "calibrated: $(grep -o '"kind":"loop"' artifact.json)"

# The artifact kept in the store by name (store:NAME wherever an artifact file goes),
# promoted there on an audit split of other tasks, and run by a loop from the store.
earlyexit calibrate loops --store "$EARLYEXIT_STORE" --run-label examples --out store:agent >/dev/null
earlyexit runs artifacts | cut -f 1-3                     # agent  loop  shadow
runs 120 220 > audit.jsonl
earlyexit promote loops --artifact store:agent audit.jsonl
earlyexit runs artifacts | cut -f 1-3                     # agent  loop  promoted
earlyexit loop record --state loop.json --policy store:agent \
  --quality 95 --confidence 0.5 --verification passed || echo "loop: stop (exit $?)"
earlyexit runs artifact agent --out promoted.json

# A shadow-mode pyramid run whose fail_fast policy would have exited: its receipt goes to
# the store's log `ci`; the retried result step appends nothing.
earlyexit pyramid start --state build.json --layer unit=10 --layer e2e=90 \
  --policy fail_fast --mode shadow --run-id build-1 >/dev/null
earlyexit pyramid submit --state build.json unit --pass-rate 0.5 --flaky 0 --coverage 1 >/dev/null || true
earlyexit pyramid submit --state build.json e2e --pass-rate 1 --flaky 0 --coverage 1 >/dev/null || true
for attempt in 1 2; do
  earlyexit pyramid result --state build.json --log ci >/dev/null || [ $? = 12 ]
done
earlyexit receipts verify --log ci | head -1
