#!/usr/bin/env bash
# The crates: `cargo package -p NAME...` packs every crate of scripts/packages.toml's
# crates.io rows together (the binding crates say publish = false) and writes
# dist/crates/<name>-<version>.crate. It does not build them (--no-verify): the next step,
# scripts/verify-crates.sh, builds each from its packed sources as a user does (a crate that
# needs another of them gets it from the packing, as crates.io will have it), and a second
# build of the command's ~150 crates here took minutes for nothing. Any
# cargo warning (missing metadata, a file left out of the package) fails the step, and so
# does a row of scripts/packages.toml without its .crate. Run by `make artifacts` and the
# release workflow; scripts/verify-crates.sh uses the result.
set -euo pipefail
DIST_STEP=dist-crates
source "$(dirname "$0")/dist-env.sh"
cd "$DIST_ROOT"
version=$(python3 scripts/metadata.py list version)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$SECONDS
mapfile -t crates < <(python3 scripts/metadata.py list packages | awk -F'\t' '$1 == "crates.io" { print $2 }')
selection=()
for name in "${crates[@]}"; do selection+=(-p "$name"); done
# --allow-dirty: a working tree with edits packs them (the release workflow's checkout is clean).
cargo package "${selection[@]}" --allow-dirty --no-verify 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || dist_fail "cargo package failed"
if grep -q '^warning' "$log"; then
  dist_fail "cargo package warned: $(grep '^warning' "$log" | sort -u | paste -sd';' -)"
fi
mkdir -p dist/crates
for name in "${crates[@]}"; do
  crate=target/package/$name-$version.crate
  [ -f "$crate" ] || dist_fail "cargo package wrote no $crate"
  cp "$crate" dist/crates/
  echo "dist-crates: $name-$version.crate $(dist_size "$crate") bytes, $(tar -tzf "$crate" | grep -cv '/$') files"
done
echo "dist-crates: done in $((SECONDS - t0)) s"
