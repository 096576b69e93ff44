#!/usr/bin/env bash
# Builds the `earlyexit` npm package in bindings/node/: the napi addon (release) with
# napi-rs's platform loader, and the shared JS layer and types copied from bindings/js/.
# Needs `npm ci` first (for @napi-rs/cli) and a Rust toolchain for the host.
set -euo pipefail
cd "$(dirname "$0")/.."

napi=node_modules/.bin/napi
if [ ! -x "$napi" ]; then
  echo "build-node: $napi is missing; run 'npm ci' first" >&2
  exit 1
fi
command -v cargo >/dev/null || { echo "build-node: cargo is missing (install Rust)" >&2; exit 1; }

start=$(date +%s)
"$napi" build --platform --release \
  --manifest-path bindings/node/Cargo.toml \
  --package-json-path bindings/node/package.json \
  --output-dir bindings/node \
  --js native.cjs --dts native.d.ts
node bindings/js/build.mjs bindings/node
addon=$(ls bindings/node/*.node)
echo "build-node: $(basename "$addon") $(stat -c %s "$addon") bytes, built in $(( $(date +%s) - start ))s"
