#!/usr/bin/env bash
# The Node suites: one node:test suite (tests/node/) run against the napi addon (package
# `earlyexit`) and against the WebAssembly build in Node (package `earlyexit-wasm`), switched
# by EARLYEXIT_IMPL, as lightningcss runs one suite several ways. Steps:
#   npm ci          only when node_modules is missing or older than package-lock.json
#   build           scripts/build-node.sh (napi addon) and scripts/build-wasm.sh (wasm package;
#                   it installs nothing and says what is missing: scripts/setup.sh installs it)
#   tsc             tsc --noEmit --strict on tests/node/typed-usage.ts (+ .cts), both packages' types
#   node --test     tests/node/ with EARLYEXIT_IMPL=native, then EARLYEXIT_IMPL=wasm
#   vitest          tests/vitest/ over both built packages, loaded three ways (linked: the
#                   workspace symlinks, which vite inlines; inline: server.deps.inline; external)
#   aiwg            upstream's own test files for the four replaced modules, both packages
#                   (tests/aiwg/run.mjs; skipped with a message without ../shared/reference)
# Ends with `node: N passed, M failed` (native suite + tsc), `wasm: N passed, M failed`,
# `vitest: N passed, M failed` (the three loading modes together) and, with the reference
# folder, `aiwg: N passed, M failed` (or `aiwg: skipped: ...`, which counts nothing).
# Logs (TAP) in test-output/node/.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
out=test-output/node
mkdir -p "$out"
status=0

step() { printf '\n==> %s\n' "$*"; }

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci"
  npm ci --no-audit --no-fund || { echo "node: 0 passed, 1 failed"; echo "wasm: 0 passed, 1 failed"; exit 1; }
fi

step "build the napi addon"
t0=$SECONDS
native_built=1
bash scripts/build-node.sh || { native_built=0; status=1; }
echo "test-node: napi build took $((SECONDS - t0))s"

step "build the wasm package"
t0=$SECONDS
wasm_built=1
bash scripts/build-wasm.sh || { wasm_built=0; status=1; }
echo "test-node: wasm build took $((SECONDS - t0))s"

step "tsc --noEmit --strict (tests/node/tsconfig.json: typed-usage.ts and the other typed-* files)"
tsc_failed=0
node_modules/.bin/tsc --noEmit --strict -p tests/node/tsconfig.json || { tsc_failed=1; status=1; }
[ "$tsc_failed" = 0 ] && echo "tsc: ok"

# Runs the suite for one build; prints its spec output, keeps TAP for the counts.
run_suite() {
  local impl=$1
  EARLYEXIT_IMPL=$impl node --test \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$out/$impl.tap" \
    tests/node/ || status=1
}

count() { # count <tap file> <pass|fail>
  grep -E "^# $2 [0-9]+$" "$1" 2>/dev/null | tail -n 1 | awk '{print $3}'
}

native_passed=0 native_failed=0 wasm_passed=0 wasm_failed=0
if [ "$native_built" = 1 ]; then
  step "node --test tests/node/ (EARLYEXIT_IMPL=native)"
  run_suite native
  native_passed=$(count "$out/native.tap" pass); native_failed=$(count "$out/native.tap" fail)
  [ -n "$native_passed" ] || { native_passed=0; native_failed=1; }
else
  native_failed=1
fi
if [ "$wasm_built" = 1 ]; then
  step "node --test tests/node/ (EARLYEXIT_IMPL=wasm)"
  run_suite wasm
  wasm_passed=$(count "$out/wasm.tap" pass); wasm_failed=$(count "$out/wasm.tap" fail)
  [ -n "$wasm_passed" ] || { wasm_passed=0; wasm_failed=1; }
else
  wasm_failed=1
fi

# vitest's loader inlines linked packages (and those in server.deps.inline) and gives a default
# import of CommonJS its `module.exports.default`: the ES entries must not rely on that.
vitest_passed=0 vitest_failed=0
if [ "$native_built" = 1 ] && [ "$wasm_built" = 1 ]; then
  for mode in linked inline external; do
    step "vitest run tests/vitest/ (EARLYEXIT_VITEST=$mode)"
    report="$out/vitest-$mode.json"
    rm -f "$report"
    EARLYEXIT_VITEST=$mode node_modules/.bin/vitest run --config tests/vitest/vitest.config.mjs --root . \
      --reporter=default --reporter=json --outputFile.json="$report" || status=1
    counts=$(node -e 'const r = require(require("node:path").resolve(process.argv[1])); console.log(r.numPassedTests, r.numFailedTests + (r.success || r.numFailedTests ? 0 : 1))' "$report" 2>/dev/null || echo "0 1")
    vitest_passed=$((vitest_passed + ${counts% *})); vitest_failed=$((vitest_failed + ${counts#* }))
  done
else
  vitest_failed=1
fi

# Upstream's own test files for the four modules the packages replace, read from the
# reference folder (../shared/reference/aiwg-tests, or EARLYEXIT_REFERENCE_DIR) and run against
# both packages with only their import lines rewritten (tests/aiwg/run.mjs); skipped with a
# message when that folder is absent.
aiwg_line=""
if [ "$native_built" = 1 ] && [ "$wasm_built" = 1 ]; then
  step "upstream's test files (tests/aiwg/run.mjs, both packages)"
  node tests/aiwg/run.mjs native wasm 2>&1 | tee "$out/aiwg.log" || status=1
  aiwg_line=$(grep -E '^aiwg: ' "$out/aiwg.log" | tail -n 1)
  [ -n "$aiwg_line" ] || aiwg_line="aiwg: 0 passed, 1 failed"
fi

if [ "$tsc_failed" = 1 ]; then native_failed=$((native_failed + 1)); else native_passed=$((native_passed + 1)); fi
echo
echo "node: $native_passed passed, $native_failed failed"
echo "wasm: $wasm_passed passed, $wasm_failed failed"
echo "vitest: $vitest_passed passed, $vitest_failed failed"
if [ -n "$aiwg_line" ]; then echo "$aiwg_line"; fi
[ "$native_failed" = 0 ] && [ "$wasm_failed" = 0 ] && [ "$vitest_failed" = 0 ] || status=1
case "$aiwg_line" in "" | "aiwg: skipped"* | *", 0 failed") ;; *) status=1 ;; esac
exit "$status"
