#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian machine that has rustup (stable),
# python3 and Node 20, and skips everything already present. Safe to run again: a second
# run installs nothing and takes seconds.
#
#   Debian packages  rustc-web cargo-web rust-web-src (the wasm32 toolchain without a
#                    rustup target), chromium chromium-driver (the browser suite), and
#                    python3-venv where the system python3 lacks venv/ensurepip.
#                    `apt-get update` runs at most once, and only when something is missing.
#   wasm-bindgen-cli pinned to the exact version of the `wasm-bindgen` crate in
#                    bindings/wasm/Cargo.toml; `cargo install` only when missing or wrong.
#   node_modules     `npm ci` when node_modules is missing or older than package-lock.json
#                    (`npm install`, with a note, while no lockfile is committed).
#
# The Python virtual environment (.venv with maturin, pytest, mypy) is made by
# scripts/test-python.sh, not here.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_DEFAULT=0.2.130
APT_PACKAGES=(rustc-web cargo-web rust-web-src chromium chromium-driver)

installed=()
present=()
notes=()
started=$SECONDS

step_start() { step_t0=$SECONDS; }
step_time() { echo "$((SECONDS - step_t0)) s"; }
say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root for: $* (run as root or install sudo)"
  fi
}

# --- what must already be there -------------------------------------------------------
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust with rustup (https://rustup.rs), then run again"
command -v python3 >/dev/null 2>&1 || die "python3 not found"
command -v node >/dev/null 2>&1 || die "node not found: install Node 20 or later"
command -v npm >/dev/null 2>&1 || die "npm not found: install Node 20 or later (it ships npm)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "Node $(node --version) found; Node 20 or later is needed"
say "using $(cargo --version), $(python3 --version 2>&1), node $(node --version), npm $(npm --version)"

step_start
if command -v rustup >/dev/null 2>&1; then
  for component in rustfmt clippy; do
    if rustup component list --installed 2>/dev/null | grep -q "^$component"; then
      present+=("rustup component $component")
    else
      say "adding rustup component $component"
      rustup component add "$component"
      installed+=("rustup component $component ($(step_time))")
    fi
  done
else
  notes+=("rustup not found: cargo fmt and cargo clippy must come with your Rust install")
fi

# --- Debian packages ------------------------------------------------------------------
step_start
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  # `dpkg -s` also succeeds for a removed package whose config files remain: check the status.
  if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ]; then
    present+=("apt $pkg")
  else
    missing+=("$pkg")
  fi
done
# The venv test-python.sh makes needs venv + ensurepip; Debian ships them in python3-venv.
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [ "$(command -v python3)" = /usr/bin/python3 ]; then
    missing+=(python3-venv)
  else
    notes+=("$(command -v python3) has no venv/ensurepip module; the Python suite will fail to make its venv")
  fi
fi
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get: install them yourself"
  say "apt-get update (missing: ${missing[*]})"
  as_root apt-get update
  say "apt-get install -y ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  installed+=("apt ${missing[*]} ($(step_time))")
fi

# --- wasm-bindgen-cli, the exact version of the crate ------------------------------------
step_start
wanted=$(sed -n 's/^wasm-bindgen *= *{[^}]*version *= *"=\([0-9.]*\)".*/\1/p; s/^wasm-bindgen *= *"=\([0-9.]*\)".*/\1/p' \
  bindings/wasm/Cargo.toml 2>/dev/null | head -n 1)
wanted=${wanted:-$WASM_BINDGEN_DEFAULT}
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" = "$wanted" ]; then
  present+=("wasm-bindgen-cli $wanted")
else
  say "installing wasm-bindgen-cli $wanted (found: ${have:-none}); this takes about 5 minutes on 2 cores"
  # The lock file published with wasm-bindgen-cli 0.2.130 names webpki-roots 1.0.11, which
  # is not on crates.io (the newest is 1.0.10), so `--locked` cannot resolve on any machine
  # (0.2.129's lock does resolve, checked 2026-12; 0.2.130 is the newest CLI, and the CLI
  # must equal the wasm-bindgen crate the package pins). For such a version we install
  # unlocked at once, which is safe: `--version =X` pins the CLI exactly, and its manifest
  # pins its own wasm-bindgen crates (cli-support, shared, ...) with `=X` too, so the code
  # that writes the glue and rewrites the module is exactly version X. Unlocked only lets
  # third-party dependencies (ureq and webpki-roots for the test runner's downloads, walrus,
  # wasmparser, clap) take the newest semver-compatible release; every build's output is
  # then checked by the wasm suites (size record, Node and browser tests). Other versions
  # try their lock first.
  case "$wanted" in
    0.2.130) locked=() ;;
    *) locked=(--locked) ;;
  esac
  if [ "${#locked[@]}" -eq 0 ]; then
    say "wasm-bindgen-cli $wanted: its published lock cannot resolve (webpki-roots 1.0.11 is not on crates.io); installing unlocked (see the comment in scripts/setup.sh)"
    cargo install wasm-bindgen-cli --version "=$wanted" --force
  elif ! cargo install wasm-bindgen-cli --version "=$wanted" "${locked[@]}"; then
    say "--locked install failed (a locked dependency version is not on the registry); retrying unlocked"
    cargo install wasm-bindgen-cli --version "=$wanted" --force
  fi
  [ "$(wasm-bindgen --version | awk '{print $2}')" = "$wanted" ] || die "wasm-bindgen is not $wanted after install"
  installed+=("wasm-bindgen-cli $wanted ($(step_time))")
fi

# --- npm dev dependencies --------------------------------------------------------------
step_start
if [ ! -f package.json ]; then
  notes+=("package.json not found: npm ci skipped (the JS packages are not in this checkout)")
elif [ ! -f package-lock.json ]; then
  say "npm install (no package-lock.json to npm ci from)"
  npm install --no-audit --no-fund
  installed+=("node_modules via npm install ($(step_time))")
  notes+=("package-lock.json was missing: ran npm install; commit the lockfile so setup can use npm ci")
elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund
  installed+=("node_modules via npm ci ($(step_time))")
else
  present+=("node_modules (newer than package-lock.json)")
fi

# --- report ---------------------------------------------------------------------------
echo
say "installed: ${#installed[@]}"
for item in "${installed[@]}"; do say "  + $item"; done
say "already present: ${#present[@]}"
for item in "${present[@]}"; do say "  = $item"; done
for note in "${notes[@]}"; do say "note: $note"; done
say "done in $((SECONDS - started)) s"
