#!/usr/bin/env bash
# Uses the packed crates of dist/crates/ (scripts/dist-crates.sh) as a user of crates.io
# would, one per crates.io row of scripts/packages.toml, each unpacked outside the repository:
#   a library   a fresh cargo project depends on it and runs the row's quick start (its
#               ```rust block) as its main; its documentation builds as docs.rs builds it
#               (every feature, --cfg docsrs, warnings as errors)
#   a binary    `cargo install --debug --locked --path` of the unpacked crate, then the row's quick
#               start (its ```sh blocks) with the installed command first on PATH (a debug
#               build: what this proves is that the packed sources build and run; the
#               optimized build of the same sources is the wheels')
# A binary crate that depends on another of ours gets the unpacked one ([patch.crates-io]),
# as crates.io will have it once that one is published. Closing line:
# `verify-crates: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
version=$(python3 scripts/metadata.py list version)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/earlyexit-verify-crates.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=lib/check.sh
. scripts/lib/check.sh
# Builds share one target dir beside the repository's, so a second run need not compile again.
export CARGO_TARGET_DIR=$root/target/dist/crates

mapfile -t rows < <(python3 scripts/metadata.py list packages | awk -F'\t' '$1 == "crates.io"')
patches=()
packed=() # in scripts/packages.toml's order: a crate after the crates of ours it needs
for row in "${rows[@]}"; do
  IFS=$'\t' read -r _ name _ _ _ <<<"$row"
  crate=$root/dist/crates/$name-$version.crate
  [ -f "$crate" ] || { echo "missing $crate (scripts/dist-crates.sh)"; add_counts "$crate" 0 1; continue; }
  tar -xzf "$crate" -C "$scratch"
  packed+=("$name")
  patches+=(--config "patch.crates-io.$name.path=\"$scratch/$name-$version\"")
done

library() { # NAME QUICKSTART: the quick start's ```rust block as a dependent's main
  local name=$1 quickstart=$2 project=$scratch/use-$1 dep
  mkdir -p "$project/src"
  # The crate, and the crates of ours it builds on (which its quick start may name too).
  printf '[package]\nname = "quickstart"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n' >"$project/Cargo.toml"
  for dep in "${packed[@]}"; do
    printf '%s = { path = "%s" }\n' "$dep" "$scratch/$dep-$version" >>"$project/Cargo.toml"
    [ "$dep" = "$name" ] && break
  done
  printf '\n[workspace]\n' >>"$project/Cargo.toml"
  python3 scripts/metadata.py quickstart "$quickstart" rust "$scratch/qs-$name" >/dev/null || return 1
  cp "$scratch/qs-$name/quickstart-1.rust" "$project/src/main.rs"
  (cd "$project" && cargo run --quiet "${patches[@]}") || return 1
  echo "the quick start ($quickstart) ran against the packed $name $version"
}

docs() { # NAME
  # With the crates of ours it needs from the packing (patches), as for the quick start.
  (cd "$scratch/$1-$version" && RUSTDOCFLAGS="--cfg docsrs -D warnings" cargo doc --quiet --no-deps --all-features "${patches[@]}") || return 1
  echo "cargo doc --all-features of the packed $1: no warnings"
}

binary() { # NAME QUICKSTART: cargo install, then the quick start's ```sh blocks
  local name=$1 quickstart=$2 block
  cargo install --quiet --debug --locked --path "$scratch/$name-$version" --root "$scratch/bin-$name" "${patches[@]}" || return 1
  python3 scripts/metadata.py quickstart "$quickstart" sh "$scratch/qs-$name" >/dev/null || return 1
  for block in "$scratch/qs-$name"/*.sh; do
    (cd "$scratch" && PATH="$scratch/bin-$name/bin:$PATH" bash -euo pipefail "$block") || return 1
  done
  echo "cargo install --debug of the packed $name, then its quick start ($quickstart)"
}

for row in "${rows[@]}"; do
  IFS=$'\t' read -r _ name _ quickstart _ <<<"$row"
  [ -d "$scratch/$name-$version" ] || continue
  if [ -f "$scratch/$name-$version/src/lib.rs" ]; then
    check "crate $name: its quick start as a dependency" library "$name" "$quickstart"
    check "crate $name: docs as docs.rs builds them" docs "$name"
  else
    check "crate $name: cargo install --debug and its quick start" binary "$name" "$quickstart"
  fi
done
echo
finish_checks verify-crates
