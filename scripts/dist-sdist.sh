#!/usr/bin/env bash
# The source distribution: scripts/dist-sdist.sh [PROJECT_DIR] (default: the repository root,
# `earlyexit-engines`) writes dist/pypi/<name>-<version>.tar.gz with `maturin sdist`: the
# Rust crates it needs (the binding and the core) and the Python package, so that
# `pip install <name>` builds it where no wheel fits, with only Rust and pip (pip fetches
# maturin, the build backend). Checked by `twine check --strict`; scripts/verify-pypi.sh
# builds and installs it in a fresh venv. Needs scripts/release-tools.sh.
set -euo pipefail
DIST_STEP=dist-sdist
source "$(dirname "$0")/dist-env.sh"
cd "$DIST_ROOT"
project=${1:-.}
[ -f "$project/pyproject.toml" ] || dist_fail "$project/pyproject.toml does not exist"
dist_tools
out=$DIST_ROOT/dist/pypi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"
(cd "$project" && maturin sdist --out "$scratch")
sdist=$(ls "$scratch"/*.tar.gz)
name=$(basename "$sdist")
# Only what the build needs: no tests, benchmarks data, node_modules or build outputs.
listing=$(tar -tzf "$sdist")
! grep -E '/(node_modules|target|test-output|\.venv[^/]*)/' <<<"$listing" || dist_fail "$name holds build outputs or dependencies"
grep -q '/PKG-INFO$' <<<"$listing" || dist_fail "$name has no PKG-INFO"
twine check --strict "$sdist"
mv "$sdist" "$out/"
echo "dist-sdist: $name $(dist_size "$out/$name") bytes, $(echo "$listing" | grep -cv '/$') files"
