#!/usr/bin/env bash
# Fails if the core crate `earlyexit` has any runtime (normal) dependency: with default
# features, `cargo tree -p earlyexit -e normal` must list the crate itself and nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

tree=$(cargo tree -p earlyexit -e normal --prefix none --offline 2>/dev/null || cargo tree -p earlyexit -e normal --prefix none)
others=$(printf '%s\n' "$tree" | awk 'NF && $1 != "earlyexit"' | sort -u)
if [ -n "$others" ]; then
  echo "check-core-deps: FAILED: the core crate has runtime dependencies (it must have none):"
  printf '%s\n' "$others" | sed 's/^/  /'
  exit 1
fi
echo "check-core-deps: ok: $(printf '%s\n' "$tree" | head -n 1) has no runtime dependencies"
