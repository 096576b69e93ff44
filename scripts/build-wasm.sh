#!/usr/bin/env bash
# Builds the `earlyexit-wasm` npm package in bindings/wasm/: two wasm modules (profile
# wasm-release), its wasm-bindgen glue for Node (pkg/nodejs, CommonJS) and for browsers
# and bundlers (pkg/web, ES module with init()), and the shared JS layer and types from bindings/js/.
#
# Installs nothing. It needs, and says so clearly when missing:
#   - a Rust compiler that can target wasm32-unknown-unknown: a rustup toolchain with that
#     target installed, or else Debian's rustc-web + cargo-web + rust-web-src (std is then
#     built from source with -Z build-std, see ../shared/design/toolchain.md);
#   - a wasm linker (rustup's rust-lld, or Debian's lld-19 / wasm-ld);
#   - wasm-bindgen-cli at exactly the version bindings/wasm/Cargo.toml pins.
# Prints the engines module's size raw and gzipped against the budget (120 KB raw, 45 KB gzipped);
# over it, a warning (EARLYEXIT_WASM_SIZE_STRICT=1: a failure). The Node suite's size test
# (tests/node/wasm.test.mjs) always fails over budget.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "build-wasm: $*" >&2; exit 1; }
TARGET=wasm32-unknown-unknown
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_WASM:-$PWD/target/wasm}"
# Measured on this crate: opt-level "z" comes out 10% smaller than the profile's "s"
# (164 KB vs 182 KB with the flags below), unlike the prototype in performance.md.
export CARGO_PROFILE_WASM_RELEASE_OPT_LEVEL="${CARGO_PROFILE_WASM_RELEASE_OPT_LEVEL:-z}"
# Target features against rustc's wasm32 defaults: SIMD moves 16 bytes per instruction where
# structs and strings are copied (-723 B raw / -170 B gzipped); without reference types
# wasm-bindgen keeps JS objects in its JS-side heap instead of an externref table whose
# management code is in the module (-1,018 B / -412 B; the JS glue grows by ~0.1 KB gzipped).
# Browser baseline: SIMD, i.e. Chrome/Edge 91, Firefox 89, Safari 16.4, Node 16.4
# (bindings/wasm/README.md "Browser support"). Multi-value stays on: without it the module is 50 B smaller
# gzipped but the JS glue 168 B larger (string results through memory).
WASM_FEATURES="-Ctarget-feature=+simd128,-reference-types"
start=$(date +%s)

# --- wasm-bindgen CLI: exactly the crate's version ------------------------------------
want=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' bindings/wasm/Cargo.toml)
[ -n "$want" ] || fail "cannot read the pinned wasm-bindgen version from bindings/wasm/Cargo.toml"
bindgen=""
for candidate in "${WASM_BINDGEN:-}" "$(command -v wasm-bindgen || true)" "$HOME/.cargo/bin/wasm-bindgen"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then bindgen=$candidate; break; fi
done
[ -n "$bindgen" ] || fail "wasm-bindgen-cli $want is not installed (cargo install wasm-bindgen-cli --version =$want)"
have=$("$bindgen" --version | awk '{print $2}')
[ "$have" = "$want" ] || fail "wasm-bindgen-cli is $have at $bindgen, the crate pins $want (cargo install wasm-bindgen-cli --version =$want)"

# --- compiler: rustup's wasm32 target, else Debian's rustc-web with build-std ----------
if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
  echo "build-wasm: rustup toolchain with the $TARGET target"
  build() { RUSTFLAGS="$WASM_FEATURES" cargo build -p earlyexit-wasm --profile wasm-release --target "$TARGET" "$@"; }
else
  [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] || fail "no compiler for $TARGET: install the rustup target ($TARGET) or Debian's rustc-web, cargo-web and rust-web-src"
  /usr/bin/rustc --print target-list | grep -qx "$TARGET" || fail "/usr/bin/rustc does not know $TARGET (install Debian's rustc-web)"
  src="$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust/library"
  [ -d "$src" ] || fail "the Rust standard library source is missing at $src (install Debian's rust-web-src)"
  linker=""
  rustup_lld="$( (rustc --print sysroot 2>/dev/null || true) | head -1)/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld"
  for candidate in "${WASM_LINKER:-}" "$rustup_lld" "$(command -v wasm-ld-19 || true)" \
      "$(command -v wasm-ld || true)" /usr/bin/rust-lld; do
    # -x follows symlinks, so a dangling one (Debian's rust-lld without lld) is skipped.
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then linker=$candidate; break; fi
  done
  [ -n "$linker" ] || fail "no wasm linker: install rustup (its rust-lld) or Debian's lld-19"
  echo "build-wasm: Debian's $(/usr/bin/rustc --version) with -Z build-std, linker $linker"
  # std is built here anyway, so panics can be immediate aborts: no panic message or
  # location machinery in the module (-13 KB). The core never panics on any input.
  build() {
    RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none $WASM_FEATURES" \
    RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER="$linker" \
      /usr/bin/cargo build -p earlyexit-wasm --profile wasm-release \
        -Z build-std=std,panic_abort --target "$TARGET" "$@"
  }
fi
# Two modules (docs/internals/wasm-size.md): the engines module (earlyexit_wasm, the budgeted
# one) and the replay module (earlyexit_replay: loop and pyramid replay, the policy), which
# the package loads only for replay. Both builds write the same file, so each is copied out.
wasm="$CARGO_TARGET_DIR/$TARGET/wasm-release/earlyexit_wasm.wasm"
modules="$CARGO_TARGET_DIR/$TARGET/wasm-release/modules"
mkdir -p "$modules"
rm -f "$wasm"
build
[ -f "$wasm" ] || fail "the build did not produce $wasm"
cp "$wasm" "$modules/earlyexit_wasm.wasm"
rm -f "$wasm"
build --features replay-module
[ -f "$wasm" ] || fail "the replay-module build did not produce $wasm"
cp "$wasm" "$modules/earlyexit_replay.wasm"

# --- glue for Node and for browsers ----------------------------------------------------
# --experimental-reset-state-function: the glue gets __wbg_reset_state(), which instantiates
# the compiled module afresh; the package calls it after a trap (bindings/wasm/README.md,
# "Memory and traps"). The .wasm is the same; the glue grows by ~2 KB (~0.4 KB gzipped).
rm -rf bindings/wasm/pkg
for name in earlyexit_wasm earlyexit_replay; do
  for flavour in nodejs web; do
    "$bindgen" "$modules/$name.wasm" --target "$flavour" --out-dir "bindings/wasm/pkg/$flavour" \
      --out-name "$name" --remove-name-section --remove-producers-section --experimental-reset-state-function
  done
done
node bindings/js/build.mjs bindings/wasm --esm

# --- size ----------------------------------------------------------------------------
out=bindings/wasm/pkg/web/earlyexit_wasm_bg.wasm
raw=$(stat -c %s "$out")
gz=$(gzip -9 -c "$out" | wc -c)
echo "build-wasm: earlyexit_wasm_bg.wasm (engines) $raw bytes raw ($(( raw / 1024 )) KB), $gz bytes gzipped ($(( gz / 1024 )) KB); budget 120 KB / 45 KB"
replay=bindings/wasm/pkg/web/earlyexit_replay_bg.wasm
echo "build-wasm: earlyexit_replay_bg.wasm (replay, loaded only for replay) $(stat -c %s "$replay") bytes raw, $(gzip -9 -c "$replay" | wc -c) bytes gzipped"
echo "build-wasm: built in $(( $(date +%s) - start ))s"
if [ "$raw" -gt $((120 * 1024)) ] || [ "$gz" -gt $((45 * 1024)) ]; then
  echo "build-wasm: WARNING: over the size budget (what the module is made of: docs/internals/wasm-size.md)" >&2
  if [ "${EARLYEXIT_WASM_SIZE_STRICT:-0}" = 1 ]; then fail "over the size budget"; fi
fi
