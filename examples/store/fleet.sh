#!/usr/bin/env bash
# A fleet sharing one PostgreSQL run store (docs/store.md, "PostgreSQL"): four runner
# processes at once, each recording 30 loop runs and one shadow-mode pyramid build (its
# receipt to the log, its outcome merged into the model), then one calibration from all
# their runs, the merged model written to a file, the receipt chain and the store checked.
#
#   bash examples/store/fleet.sh postgresql://USER@HOST/DBNAME [DIR]    (needs `earlyexit`)
#
# A Unix socket: postgresql://postgres@/earlyexit?host=/run/postgresql. make
# test-integrations runs it against the throwaway server it starts.
set -euo pipefail
export EARLYEXIT_STORE="${1:?usage: fleet.sh STORE_URL [DIR]}"
dir="${2:-$(mktemp -d)}"
mkdir -p "$dir"
cd "$dir"
runners=4
# This fleet's names: a store outlives one run of the example.
fleet="fleet-$(date +%s)-$$"
since="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

runner() {
  local i=$1
  # 30 runs of a synthetic agent whose quality climbs until it passes (the replay form).
  awk -v runner="$i" -v fleet="$fleet" 'BEGIN {
    for (t = 0; t < 30; t++) {
      srand(runner * 100 + t + 1); solved = 2 + int(rand() * 5); line = ""
      for (k = 1; k <= 8; k++) {
        q = (k >= solved) ? 95 : 30 + 9 * k; v = (k >= solved) ? "passed" : "failed"
        line = line (k > 1 ? ", " : "") sprintf("{\"quality_score\": %d, \"confidence\": 0.5, \"verification_status\": \"%s\"}", q, v)
      }
      printf "{\"id\": \"%s-r%d-task-%d\", \"dataset\": \"demo\", \"iterations\": [%s]}\n", fleet, runner, t, line
    }
  }' > "runs-$i.jsonl"
  earlyexit runs import --run-label "runner-$i" "runs-$i.jsonl" >/dev/null
  # A shadow-mode pyramid build: its receipt to the log, its outcome into the model.
  earlyexit pyramid start --state "build-$i.json" --layer unit=10 --layer e2e=90 \
    --policy fail_fast --mode shadow --run-id "$fleet-build-$i" >/dev/null
  earlyexit pyramid submit --state "build-$i.json" unit --pass-rate "$([ $((i % 2)) = 0 ] && echo 0.5 || echo 1)" \
    --flaky 0 --coverage 1 >/dev/null || true
  earlyexit pyramid submit --state "build-$i.json" e2e --pass-rate 1 --flaky 0 --coverage 1 >/dev/null || true
  earlyexit pyramid result --state "build-$i.json" --log "$fleet" \
    --merge-model "$fleet" --build-id "$fleet-build-$i" --build-seq "$i" >/dev/null || [ $? = 12 ]
}

pids=()
for i in $(seq 1 "$runners"); do
  runner "$i" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

total=0
for i in $(seq 1 "$runners"); do
  total=$((total + $(earlyexit runs list --run-label "runner-$i" --since "$since" | wc -l)))
done
echo "fleet: $total run(s) from $runners runner(s)"

# One calibration from every runner's runs (those recorded since the fleet started).
earlyexit calibrate loops --store "$EARLYEXIT_STORE" --since "$since" --out artifact.json
echo "calibrated: $(grep -o '"kind":"loop"' artifact.json)"

# The model all the builds merged into, as the file `pyramid start --model` reads.
earlyexit runs model "$fleet" --out model.json
echo "model: $(grep -o "\"id\":\"$fleet-build-[0-9]*\"" model.json | wc -l) build(s)"
earlyexit receipts verify --log "$fleet" | head -1
earlyexit runs check
