# Sourced by the scripts/dist-*.sh build steps: the release tools and a Rust compiler for
# one target. Not run on its own.
#
#   dist_tools           puts the release tools' venv (.venv-release, made by
#                        scripts/release-tools.sh: maturin, ziglang, cargo-zigbuild,
#                        auditwheel, twine) first on PATH; fails when it is missing.
#   dist_target TARGET KIND
#                        chooses a compiler for TARGET (a Rust target triple) and sets:
#                          DIST_TOOLCHAIN   "rustup" (the host, or a target rustup has
#                                           installed) or "build-std" (Debian's rustc-web,
#                                           which knows every target, with std built from
#                                           Debian's rust-web-src, as for wasm32)
#                          BUILD_STD        the cargo arguments that go with it (-Z build-std;
#                                           expand as ${BUILD_STD[@]+"${BUILD_STD[@]}"}: an
#                                           empty array is "unbound" to macOS's bash 3.2)
#                          CARGO_TARGET_DIR target/dist/TARGET-KIND: one per target and build
#                                           tool (KIND: wheel for maturin, napi for
#                                           cargo-zigbuild). The two tools link through
#                                           different zig wrappers, and the linker is part of
#                                           every crate's fingerprint ("ConfigSettingsChanged"):
#                                           in one shared folder each build after the other's
#                                           compiled std and every crate again (measured: the
#                                           aarch64 wheel 384 s after an addon build, 1 s after
#                                           its own).
#                        and for a Linux target also DIST_ZIG=1 (link with zig, against
#                        glibc 2.17 for -gnu: manylinux2014, and the musl zig ships for -musl).
#                        Returns 1, saying why, when this machine cannot build TARGET: macOS
#                        and Windows targets need their own SDKs (the release workflow builds
#                        them on macOS and Windows runners).
#   dist_can_build TARGET  the same test, silent.

DIST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"
# Windows runners have `python`, not `python3`.
if ! command -v python3 >/dev/null 2>&1 && command -v python >/dev/null 2>&1; then
  python3() { python "$@"; }
fi

dist_fail() { echo "${DIST_STEP:-dist}: $*" >&2; exit 1; }
# Tests on a command's output take it as a here-string, never through `| grep -q`: grep -q
# exits at its first match, the writer may then die of SIGPIPE, and under pipefail that made
# a present file look missing (seen: "earlyexit-linux-arm64-gnu-0.1.0.tgz lacks package.json").

dist_tools() {
  local venv=$DIST_ROOT/.venv-release
  if [ -x "$venv/bin/maturin" ]; then
    export PATH="$venv/bin:$PATH"
  elif [ -x "$venv/Scripts/maturin.exe" ]; then
    export PATH="$venv/Scripts:$PATH"
  elif ! command -v maturin >/dev/null; then
    dist_fail "the release tools are missing: run scripts/release-tools.sh (makes .venv-release)"
  fi
}

dist_host() { rustc -vV | sed -n 's/^host: //p'; }

# dist_toolchain TARGET: prints rustup, build-std or nothing (cannot build it here).
dist_toolchain() {
  local target=$1 os
  case "$target" in
    *-linux-gnu | *-linux-musl) os=linux ;;
    *-apple-darwin) os=darwin ;;
    *-windows-msvc) os=windows ;;
    *) return 0 ;;
  esac
  # A Linux machine cross-builds Linux targets only (zig links them); macOS and Windows
  # targets are built on their own systems.
  case "$(uname -s)" in
    Linux) [ "$os" = linux ] || return 0 ;;
    Darwin) [ "$os" = darwin ] || return 0 ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) [ "$os" = windows ] || return 0 ;;
  esac
  if [ "$target" = "$(dist_host)" ] ||
    { command -v rustup >/dev/null && grep -qx "$target" <<<"$(rustup target list --installed 2>/dev/null)"; }; then
    echo rustup
  elif [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] &&
    grep -qx "$target" <<<"$(/usr/bin/rustc --print target-list 2>/dev/null)" &&
    [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust/library" ]; then
    echo build-std
  fi
}

dist_can_build() { [ -n "$(dist_toolchain "$1")" ]; }

# dist_sysroot: where scripts/release-tools.sh --cross-std keeps the std of the targets Debian's
# rustc-web builds: outside the clone (a tool, as rustup's targets are), one per compiler.
dist_sysroot() {
  local id
  id=$(/usr/bin/rustc -vV | sed -n 's/^release: //p')-$(/usr/bin/rustc -vV | sed -n 's/^commit-hash: //p' | cut -c1-12)
  echo "${EARLYEXIT_SYSROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/earlyexit/rust-sysroot}/$id"
}

dist_target() {
  local target=$1 kind=${2:?dist_target TARGET KIND}
  DIST_TOOLCHAIN=$(dist_toolchain "$target")
  if [ -z "$DIST_TOOLCHAIN" ]; then
    echo "${DIST_STEP:-dist}: this machine cannot build $target (the release workflow builds it on its own runner)" >&2
    return 1
  fi
  export CARGO_TARGET_DIR=$DIST_ROOT/target/dist/$target-$kind
  BUILD_STD=()
  if [ "$DIST_TOOLCHAIN" = build-std ]; then
    # Debian's compiler and cargo (1.96, from rustc-web and cargo-web) in place of rustup's;
    # cargo and the build tools (maturin, cargo-zigbuild) find them on PATH.
    local shim=$DIST_ROOT/target/dist/debian-rust-bin
    mkdir -p "$shim"
    ln -sf /usr/bin/cargo "$shim/cargo"
    ln -sf /usr/bin/rustc "$shim/rustc"
    ln -sf /usr/bin/rustdoc "$shim/rustdoc"
    export PATH="$shim:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
    local sysroot
    sysroot=$(dist_sysroot)
    if [ -f "$sysroot/lib/rustlib/$target/lib/.complete" ]; then
      # The target's std, built once by scripts/release-tools.sh --cross-std. RUSTFLAGS reach
      # only the target's crates: with --target, build scripts and proc macros are host
      # builds, compiled against the host's own std.
      export RUSTFLAGS="--sysroot=$sysroot${RUSTFLAGS:+ $RUSTFLAGS}"
    else
      echo "${DIST_STEP:-dist}: no prebuilt std for $target (scripts/release-tools.sh --cross-std): building it in this build" >&2
      BUILD_STD=(-Z build-std=std,panic_abort)
    fi
  fi
  DIST_ZIG=0
  case "$target" in
    *-linux-gnu | *-linux-musl) DIST_ZIG=1 ;;
  esac
  case "$target" in
    # A native addon is a shared library, which a musl target links only without the static C runtime.
    # (RUSTFLAGS, not CARGO_TARGET_<TRIPLE>_RUSTFLAGS: cargo reads only the first source of
    # flags it finds, and the prebuilt std's --sysroot is in RUSTFLAGS.)
    *-linux-musl)
      export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C target-feature=-crt-static"
      ;;
  esac
  local how=$DIST_TOOLCHAIN
  [ "$how" != build-std ] || [ "${#BUILD_STD[@]}" -gt 0 ] || how="Debian's rustc-web and the prebuilt std"
  [ "$DIST_ZIG" = 0 ] || how="$how, linked by zig"
  echo "${DIST_STEP:-dist}: $target with $how ($(${RUSTC:-rustc} --version))"
}

# dist_size FILE: its size in bytes.
dist_size() { stat -c %s "$1" 2>/dev/null || stat -f %z "$1"; }
