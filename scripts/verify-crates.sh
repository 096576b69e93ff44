#!/usr/bin/env bash
# Uses the packed crates of dist/crates/ (scripts/dist-crates.sh) as a user of crates.io
# would: a fresh cargo project outside the repository depends on the unpacked `earlyexit`
# crate and runs README.md's Rust quick start as its main; the crate's documentation builds
# as docs.rs builds it (every feature, --cfg docsrs, warnings as errors). Crates that
# depend on another of ours resolve it to the unpacked one ([patch.crates-io]), as
# crates.io will once that one is published. Closing line: `verify-crates: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
version=$(python3 scripts/metadata.py list version)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/earlyexit-verify-crates.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
passed=0
failed=0
check() {
  local name=$1
  shift
  printf '\n=== %s\n' "$name"
  if "$@"; then passed=$((passed + 1)); echo "--- $name: ok"; else failed=$((failed + 1)); echo "--- $name: FAILED"; fi
}
# Builds share one target dir beside the repository's, so a second run need not compile again.
export CARGO_TARGET_DIR=$root/target/dist/crates

unpack() { # NAME: the unpacked crate's folder
  local crate=$root/dist/crates/$1-$version.crate
  [ -f "$crate" ] || { echo "missing $crate (scripts/dist-crates.sh)" >&2; return 1; }
  tar -xzf "$crate" -C "$scratch" && echo "$scratch/$1-$version"
}

quickstart() {
  local core project=$scratch/quickstart
  core=$(unpack earlyexit) || return 1
  mkdir -p "$project/src"
  printf '[package]\nname = "quickstart"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nearlyexit = { path = "%s" }\n\n[workspace]\n' "$core" >"$project/Cargo.toml"
  python3 scripts/metadata.py quickstart quickstart-rust rust "$scratch/qs" >/dev/null || return 1
  cp "$scratch/qs/quickstart-1.rust" "$project/src/main.rs"
  (cd "$project" && cargo run --quiet --offline) || return 1
  echo "README.md's Rust quick start ran against the packed earlyexit $version"
}

docs() {
  local core
  core=$(unpack earlyexit) || return 1
  (cd "$core" && RUSTDOCFLAGS="--cfg docsrs -D warnings" cargo doc --quiet --no-deps --all-features --offline) || return 1
  echo "cargo doc --all-features of the packed crate: no warnings"
}

check "crate earlyexit: README quick start as a dependency" quickstart
check "crate earlyexit: docs as docs.rs builds them" docs
echo
echo "verify-crates: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
