#!/usr/bin/env bash
# `make replay` (or `DATA=<dir> bash scripts/replay.sh`): replays the policies over the public
# recorded runs in DATA (default ../shared/data, beside the repository) and prints the tables
# of docs/replay.md ("Results on real runs") and docs/replay-pyramids.md ("On real runs"):
# loops (examples/real-runs/loops/run.sh), then pyramids (examples/real-runs/pyramids/run.sh).
# The data stays where it is; without it this says so and skips.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export DATA="${DATA:-../shared/data}"
if [ ! -d "$DATA" ]; then
  echo "replay: skipped: $DATA is absent (set DATA=<dir> to the folder that holds the public runs)"
  exit 0
fi
status=0
echo "== Loops"
bash examples/real-runs/loops/run.sh || status=1
if [ -f examples/real-runs/pyramids/run.sh ]; then
  echo
  echo "== Pyramids"
  bash examples/real-runs/pyramids/run.sh || status=1
else
  echo
  echo "(pyramids: examples/real-runs/pyramids/run.sh is not here yet; skipped)"
fi
exit $status
