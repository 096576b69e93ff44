#!/usr/bin/env bash
# Replays loop policies over the public agent-loop runs (InterCode, LDB) in DATA=<dir>
# (default ../shared/data, beside the repository):
# converts them to the replay format (docs/replay.md) under target/replay/loops/ (outside the
# tracked files: no data enters the project), then prints per dataset the `seed` preset, the
# simple rule for k = 2..6 and the `recommended` preset on the `report` half, and the
# frontier of the preset's knob, then the calibrated policies (calibrate_loops). TUNE=1 also prints the `tune` half and the tuning grid;
# EXPLORE=1 then runs the policy search of explore_policies.py (docs/replay.md).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH="$HOME/.cargo/bin:$PATH"
DATA="${DATA:-${DATA_DIR:-../shared/data}}"
if [ ! -d "$DATA/intercode" ] && [ ! -d "$DATA/ldb" ]; then
  echo "loops: skipped: no agent-loop data under $DATA (set DATA=<dir>)"
  exit 0
fi
OUT=target/replay/loops
python3 examples/real-runs/loops/convert.py "$DATA" "$OUT"
cargo build --release -q -p earlyexit --example replay_loops
BIN=target/release/examples/replay_loops
if [ "${TUNE:-0}" = 1 ]; then
  REPLAY_GRID=1 "$BIN" --split tune "$OUT"/*.jsonl
fi
"$BIN" --split report "$OUT"/*.jsonl
# Calibrated policies (docs/replay.md "Calibrated policies"): calibrated on the tune half,
# replayed on the report half, then SPLITS (default 200) random halves.
cargo build --release -q -p earlyexit --example calibrate_loops
echo
SPLITS="${SPLITS:-200}" target/release/examples/calibrate_loops "$OUT"/*.jsonl
if [ "${EXPLORE:-0}" = 1 ]; then
  echo
  # The project venv (after scripts/test-python.sh) also cross-checks the model against the engine.
  PY=python3
  [ -x .venv/bin/python ] && PY=.venv/bin/python
  "$PY" examples/real-runs/loops/explore_policies.py "$OUT"
fi
