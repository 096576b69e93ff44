#!/usr/bin/env bash
# The browser suite: the wasm web build in Debian's headless Chromium
# (tests/browser/browser.test.mjs, node:test + playwright-core, never a
# downloaded browser): every conformance vector, the dashboard with the bundled
# examples, a config change that moves the stop point, malformed files, the
# live step view; the dashboard's layout at 390 and 1280 px (tests/browser/layout.test.mjs:
# nothing scrolls sideways); screenshots in test-output/.
#
# Needs node_modules (npm install; scripts/setup.sh) and /usr/bin/chromium
# (apt-get install chromium; scripts/setup.sh). Builds the wasm package with
# scripts/build-wasm.sh when its web build is missing.
# Ends with `browser: N passed, M failed` (node:test's counts).
set -uo pipefail
cd "$(dirname "$0")/.."

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 # belt and braces: only /usr/bin/chromium is used
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM

fail() {
  echo "test-browser: $*" >&2
  echo "browser: 0 passed, 1 failed"
  exit 1
}

[ -x "$CHROMIUM" ] || fail "Chromium not found at $CHROMIUM: apt-get install chromium (scripts/setup.sh does it)"
[ -f node_modules/playwright-core/package.json ] && [ -f node_modules/uplot/dist/uPlot.esm.js ] ||
  fail "node_modules lacks playwright-core or uplot: run npm install (scripts/setup.sh does it)"

if [ ! -f bindings/wasm/web.mjs ] || [ ! -f bindings/wasm/api.mjs ] || [ ! -f bindings/wasm/pkg/web/earlyexit_wasm_bg.wasm ] || [ ! -f bindings/wasm/pkg/web/earlyexit_replay_bg.wasm ]; then
  echo "test-browser: the wasm web build is missing; building it (scripts/build-wasm.sh)"
  bash scripts/build-wasm.sh || fail "scripts/build-wasm.sh failed"
fi

mkdir -p test-output
log=$(mktemp)
trap 'rm -f "$log"' EXIT
node --test --test-reporter=spec tests/browser/ 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# node:test's spec reporter closes with `ℹ pass N` and `ℹ fail M`.
passed=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$log" | tail -1)
passed=${passed:-0}
failed=${failed:-0}
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # it failed before a test could report (a crash, a missing module)
fi
[ -f test-output/dashboard.png ] && echo "test-browser: screenshots in test-output/dashboard.png, dashboard-pyramid.png and dashboard-{390,1280}-*.png"
echo "browser: $passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
