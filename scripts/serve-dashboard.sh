#!/usr/bin/env bash
# Serves the repository on http://127.0.0.1:PORT/ (default 8000) for the dashboard
# (examples/dashboard/) and the in-browser vector runner (tests/browser/vectors.html).
#
#   scripts/serve-dashboard.sh            # then open http://127.0.0.1:8000/examples/dashboard/
#   PORT=9000 scripts/serve-dashboard.sh  # another port; PORT=0 picks a free one
#
# Builds the wasm package (scripts/build-wasm.sh) when its web build is missing and
# runs `npm install` when uPlot is missing. Ctrl+C stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f bindings/wasm/web.mjs ] || [ ! -f bindings/wasm/api.mjs ] || [ ! -f bindings/wasm/pkg/web/earlyexit_wasm_bg.wasm ] || [ ! -f bindings/wasm/pkg/web/earlyexit_replay_bg.wasm ]; then
  echo "serve-dashboard: the wasm web build is missing; building it (scripts/build-wasm.sh)"
  bash scripts/build-wasm.sh
fi
if [ ! -f node_modules/uplot/dist/uPlot.esm.js ]; then
  echo "serve-dashboard: uPlot is missing; running npm install"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
exec node tests/browser/serve.mjs --port "${PORT:-8000}"
