#!/usr/bin/env bash
# One wheel: scripts/dist-wheel.sh TARGET [PROJECT_DIR]
#   TARGET       a Rust target triple (scripts/packages.toml wheel-targets)
#   PROJECT_DIR  the folder of the pyproject.toml to build (default: the repository root,
#                the `earlyexit-engines` wheel)
# writes dist/pypi/<name>-<version>-<tags>.whl. Linux wheels are manylinux2014 (glibc 2.17):
# maturin links with zig (`--zig`), and `auditwheel show` must find nothing newer than
# manylinux_2_17 nor any external library. Every wheel passes `twine check --strict`.
# Needs scripts/release-tools.sh. Run by `make artifacts` for the Linux targets this machine
# builds, and by the release workflow on each platform's runner.
set -euo pipefail
DIST_STEP=dist-wheel
source "$(dirname "$0")/dist-env.sh"
cd "$DIST_ROOT"
target=${1:?usage: scripts/dist-wheel.sh TARGET [PROJECT_DIR]}
project=${2:-.}
[ -f "$project/pyproject.toml" ] || dist_fail "$project/pyproject.toml does not exist"
dist_tools
dist_target "$target" wheel || exit 1

out=$DIST_ROOT/dist/pypi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"
t0=$SECONDS
args=(build --release --target "$target" --out "$scratch")
if [ "$DIST_ZIG" = 1 ]; then
  case "$target" in
    *-linux-gnu) args+=(--zig --compatibility manylinux2014) ;;
    *-linux-musl) args+=(--zig --compatibility musllinux_1_2) ;;
  esac
fi
(cd "$project" && maturin "${args[@]}" ${BUILD_STD[@]+"${BUILD_STD[@]}"})
wheel=$(ls "$scratch"/*.whl)
[ "$(echo "$wheel" | wc -l)" = 1 ] || dist_fail "maturin wrote more than one wheel"
name=$(basename "$wheel")
case "$target" in
  *-linux-gnu)
    case "$name" in *manylinux_2_17_*) ;; *) dist_fail "$name is not tagged manylinux_2_17" ;; esac
    report=$(auditwheel show "$wheel")
    echo "$report"
    grep -q "consistent with the following platform tag" <<<"$report" &&
      grep -Eq "\"manylinux_2_17_(x86_64|aarch64)\"" <<<"$report" ||
      dist_fail "auditwheel show: $name is not manylinux_2_17"
    ! grep -q "external shared libraries are required" <<<"$report" ||
      dist_fail "auditwheel show: $name needs external shared libraries"
    ;;
esac
twine check --strict "$wheel"
mv "$wheel" "$out/"
echo "dist-wheel: $name $(dist_size "$out/$name") bytes ($((SECONDS - t0)) s)"
