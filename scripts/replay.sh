#!/usr/bin/env bash
# `make replay`: replays the policies over the public real runs in ../shared/data and prints
# the tables of the README's "Replay on real runs" section: loops
# (examples/real-runs/loops/run.sh), then pyramids (examples/real-runs/pyramids/run.sh) when
# that script exists. The data stays where it is (../shared/data, beside the repository);
# without it this says so and skips.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
if [ ! -d ../shared/data ]; then
  echo "replay: skipped: ../shared/data is absent (the public runs live beside the repository, in shared/data)"
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
