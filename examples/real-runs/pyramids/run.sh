#!/usr/bin/env bash
# Replays the ADR's DEFAULT preset, fail-fast and the risk-bounded policy over the public
# LRTS CI builds in ../shared/data and prints the per-dataset table of docs/replay-pyramids.md.
# The data is read where it lies; the converted JSONL goes to target/real-runs/pyramids.
#   DATA=<dir>  RISK=0.005  DELTA=0.1  bash examples/real-runs/pyramids/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH="$HOME/.cargo/bin:$PATH"
DATA="${DATA:-../shared/data}"
if [ ! -d "$DATA/lrts" ]; then
  echo "pyramids: skipped: $DATA/lrts not found (the public LRTS data is not part of the project; set DATA=<dir> to point at it)"
  exit 0
fi
OUT=target/real-runs/pyramids
python3 examples/real-runs/pyramids/convert_lrts.py "$DATA" "$OUT"
nice cargo run --release -q -p earlyexit --example pyramid_replay -- "$OUT" "${RISK:-0.005}" "${DELTA:-0.1}"
echo
echo "Shadow mode and promotion (docs/replay-pyramids.md):"
nice cargo run --release -q -p earlyexit-digest --example pyramid_lifecycle -- "$OUT" "${RISK:-0.005}" "${DELTA:-0.1}"
