#!/usr/bin/env bash
# Replays the ADR's DEFAULT preset, fail-fast and the risk-bounded policy over the public
# LRTS CI builds in ../shared/data, prints the per-dataset table of docs/replay-pyramids.md
# and writes the per-project report docs/lrts-report.md (at the documented settings, risk
# 0.005 and delta 0.1; other settings write target/real-runs/pyramids/lrts-report.md).
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
RISK="${RISK:-0.005}"
DELTA="${DELTA:-0.1}"
REPORT="$OUT/lrts-report.md"
if [ "$RISK" = 0.005 ] && [ "$DELTA" = 0.1 ]; then REPORT=docs/lrts-report.md; fi
nice cargo run --release -q -p earlyexit-digest --example pyramid_lifecycle -- "$OUT" "$RISK" "$DELTA" > "$REPORT.tmp"
mv "$REPORT.tmp" "$REPORT"
echo
echo "Per-project report (shadow mode, promotion, receipts): wrote $REPORT"
