#!/usr/bin/env bash
# A loop policy's lifecycle from the command line (docs/lifecycle.md), on the same synthetic
# agent as loop_lifecycle.py: 300 tasks capped at 8 iterations with `recommended` in shadow
# (runs.jsonl, receipts.jsonl), calibration on the first 150 tasks, promotion on tasks 150 to
# 229, the promoted policy enforced on tasks 230 to 299, then the receipts' counts.
#
#   bash examples/lifecycle/loop-lifecycle.sh [DIR]     (needs `earlyexit` on PATH)
set -euo pipefail
dir="${1:-$(mktemp -d)}"
mkdir -p "$dir"
cap=8
capped='{"any": [{"condition": "max_iterations", "limit": 8}]}'

# The agent's k-th try at a task: "quality verification" (deterministic per task and try).
attempt() {
  awk -v t="$1" -v k="$2" 'BEGIN {
    srand(t + 1); r = rand(); solved = (r < 0.2) ? 1 : (r < 0.4) ? 2 : (r < 0.6) ? 3 : (r < 0.7) ? 4 : (r < 0.8) ? 5 : (r < 0.9) ? 6 : 99
    srand(t * 1000 + k); n = rand()
    if (k >= solved) printf "%.2f passed\n", 92 + 5 * n
    else { q = 30 + 8 * k + 5 * n; if (q > 85) q = 85; printf "%.2f failed\n", q }
  }'
}

# One task: records until the enforced policy stops, then the receipt and the run.
run_task() { # TASK POLICY SHADOW
  local task=$1 state="$dir/state-$1.json" k quality verification code
  rm -f "$state"
  for k in $(seq 1 "$cap"); do
    read -r quality verification < <(attempt "$task" "$k")
    code=0
    earlyexit loop record --state "$state" --policy "$2" --shadow "$3" --quality "$quality" \
      --confidence "0.$(printf '%.0f' "$quality" | cut -c1-2)" --verification "$verification" >/dev/null || code=$?
    [ "$code" -eq 10 ] && break
    [ "$code" -eq 0 ] || exit 1
  done
  earlyexit loop finish --state "$state" --task "t$task" --dataset synthetic \
    --receipts "$dir/receipts.jsonl" --runs "$dir/$4" >/dev/null
}

rm -f "$dir/receipts.jsonl" "$dir/runs.jsonl" "$dir/audit.jsonl" "$dir/rest.jsonl" "$dir/calibration.jsonl"
for task in $(seq 0 299); do
  run_task "$task" "$capped" '"recommended"' runs.jsonl
done
echo "shadow: $(earlyexit --json receipts verify "$dir/receipts.jsonl" | grep -o '"labels":{[^}]*}')"

head -n 150 "$dir/runs.jsonl" >"$dir/calibration.jsonl"
sed -n '151,230p' "$dir/runs.jsonl" >"$dir/audit.jsonl"
earlyexit calibrate loops "$dir/calibration.jsonl" --risk 0.1 --delta 0.1 --out "$dir/artifact.json" >/dev/null
if earlyexit promote loops --artifact "$dir/artifact.json" --out "$dir/promoted.json" "$dir/audit.jsonl"; then
  artifact="$dir/promoted.json"
else
  echo "not promoted: the policy stays in shadow"
  exit 0
fi
for task in $(seq 230 299); do
  run_task "$task" "$artifact" "$artifact" rest.jsonl
done
echo "enforced on 70 tasks: $(grep -o '"quality_score"' "$dir/rest.jsonl" | wc -l) iterations (cap: $((70 * cap)))"
earlyexit receipts verify "$dir/receipts.jsonl"
echo "all: $(earlyexit --json receipts verify "$dir/receipts.jsonl" | grep -o '"labels":{[^}]*}')"
