#!/usr/bin/env bash
# One npm platform package: scripts/dist-npm-native.sh TARGET
#   TARGET  a Rust target triple from bindings/node/package.json napi.targets
# builds the napi addon (crate earlyexit-node, release) for TARGET and packs the platform
# package napi-rs's convention names, earlyexit-<platform> (earlyexit-linux-x64-gnu, ...):
# the addon as earlyexit.<platform>.node, a package.json with the os/cpu/libc npm matches
# (scripts/metadata.py npm-platform), a README, LICENSE and THIRD_PARTY_NOTICES, written to
# dist/npm/. The `earlyexit` package lists every platform package as an optional dependency
# (scripts/dist-npm.sh). Linux addons are linked by zig: -gnu against glibc 2.17 (checked:
# no symbol version newer), -musl against musl. `file` must name the target's format and
# machine. Needs scripts/release-tools.sh (zig) on Linux.
set -euo pipefail
DIST_STEP=dist-npm-native
source "$(dirname "$0")/dist-env.sh"
cd "$DIST_ROOT"
target=${1:?usage: scripts/dist-npm-native.sh TARGET}
suffix=$(python3 scripts/metadata.py list npm-suffix "$target")
dist_tools
dist_target "$target" napi || exit 1

t0=$SECONDS
# Symbols stripped, as napi-rs's release builds do (the addon shrinks by about a tenth): a
# flag of the addon's own compile (as maturin strips the wheel's module), not a profile
# setting, which would change every crate's fingerprint and rebuild them all.
strip=(-- -C strip=symbols)
if [ "$DIST_ZIG" = 1 ]; then
  zig_target=$target
  case "$target" in *-linux-gnu) zig_target=$target.2.17 ;; esac
  cargo-zigbuild rustc -p earlyexit-node --lib --release --target "$zig_target" ${BUILD_STD[@]+"${BUILD_STD[@]}"} "${strip[@]}"
else
  cargo rustc -p earlyexit-node --lib --release --target "$target" ${BUILD_STD[@]+"${BUILD_STD[@]}"} "${strip[@]}"
fi
built=$CARGO_TARGET_DIR/$target/release
case "$target" in
  *-windows-*) library=$built/earlyexit_node.dll ;;
  *-apple-*) library=$built/libearlyexit_node.dylib ;;
  *) library=$built/libearlyexit_node.so ;;
esac
[ -f "$library" ] || dist_fail "the build wrote no $library"

# What the file is: format and machine as the platform needs them.
case "$target" in
  x86_64-*-linux-*) want='ELF 64-bit LSB shared object, x86-64' ;;
  aarch64-*-linux-*) want='ELF 64-bit LSB shared object, ARM aarch64' ;;
  x86_64-apple-*) want='Mach-O 64-bit .*x86_64' ;;
  aarch64-apple-*) want='Mach-O 64-bit .*arm64' ;;
  x86_64-pc-windows-*) want='PE32\+ executable \(DLL\).*x86-64' ;;
  *) want='.' ;;
esac
description=$(file -b "$library")
grep -Eq "$want" <<<"$description" || dist_fail "$library is '$description', expected /$want/"
case "$target" in
  *-linux-gnu)
    # Nothing newer than glibc 2.17, the manylinux2014 floor of the wheels.
    newest=$(readelf -V --wide "$library" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n | tail -n 1)
    [ -n "$newest" ] || dist_fail "$library references no glibc symbol version (not a glibc build?)"
    [ "$(printf '%s\n2.17\n' "$newest" | sort -t. -k1,1n -k2,2n | tail -n 1)" = 2.17 ] ||
      dist_fail "$library needs glibc $newest; the platform package promises 2.17"
    description="$description; glibc >= $newest"
    ;;
  *-linux-musl)
    ! grep -q 'GLIBC_' <<<"$(readelf -V --wide "$library")" || dist_fail "$library references glibc symbol versions"
    description="$description; needs $(readelf -d "$library" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | paste -sd, -)"
    ;;
esac

stage=$DIST_ROOT/target/dist/npm-stage/earlyexit-$suffix
rm -rf "$stage"
python3 scripts/metadata.py npm-platform "$target" "$stage" >/dev/null
cp "$library" "$stage/earlyexit.$suffix.node"
cp LICENSE THIRD_PARTY_NOTICES "$stage/"
mkdir -p dist/npm
tarball=$(cd "$stage" && npm pack --silent --pack-destination "$DIST_ROOT/dist/npm" | tail -n 1)
listing=$(tar -tzf "dist/npm/$tarball")
for member in package.json README.md LICENSE "earlyexit.$suffix.node"; do
  grep -qx "package/$member" <<<"$listing" || dist_fail "$tarball lacks $member"
done
echo "dist-npm-native: $tarball $(dist_size "dist/npm/$tarball") bytes: $description ($((SECONDS - t0)) s)"
