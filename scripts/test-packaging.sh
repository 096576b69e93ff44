#!/usr/bin/env bash
# The installable artifacts, installed the way a user installs them, into scratch places
# outside the repository, each then imported and asked for one real decision:
#   python   `maturin build --release` makes one abi3 wheel; pip installs it (no index)
#            into a fresh venv; `import earlyexit` decides one loop.
#   npm      `npm pack` makes the tarballs of `earlyexit` (bindings/node, with this machine's
#            napi addon: the tarball a clone makes) and `earlyexit-wasm` (bindings/wasm); each
#            is installed offline into a fresh directory (earlyexit with earlyexit-wasm, its
#            dependency; EARLYEXIT_NO_FALLBACK=1, so the addon must load), then loaded with
#            require() and with import, each deciding one loop (and the subpath entries
#            `<package>/early-stopping`, `/iteration-analytics`, `/behavior-detector`,
#            `/intervention-system` checked, the last two answering one detection and its
#            intervention; `/ai-sdk`'s stop condition deciding two steps, without `ai`
#            installed). earlyexit-wasm's dashboard/ is then served from the scratch install
#            and opened in headless Chromium (tests/browser/installed-dashboard.mjs).
#   crate    `cargo package --list` of the core (crate `earlyexit`).
# Each artifact carries its package's own README (the wheel as its long description, the
# tarballs and the crate as README.md), byte for byte the file in the repository.
# The release artifacts (manylinux wheels, npm platform packages, crates) are `make
# artifacts` (scripts/artifacts.sh).
#
# Uses the venv scripts/test-python.sh makes (.venv with maturin) and the package builds
# scripts/test-node.sh makes (npm run build:node / build:wasm); builds a package itself
# only when its tarball would lack the native part. The wheel and tarballs are kept in
# test-output/packaging/; installs go to a temporary directory outside the repository.
# Closing line: `packaging: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"

out=$root/test-output/packaging      # the wheel and the tarballs, kept for inspection
rm -rf "$out"
mkdir -p "$out"
# Installs go outside the repository, so nothing can resolve to the workspace's own copies.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/earlyexit-packaging.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# shellcheck source=lib/check.sh
. scripts/lib/check.sh

# One decision every binding must make identically: a verified, confident iteration stops
# the loop with the seed's exact reason string.
REASON='High confidence (97.0%) AND verification passed'

# --- Python: the abi3 wheel -----------------------------------------------------------
wheel=""
build_wheel() {
  if [ ! -x .venv/bin/maturin ]; then
    echo "no .venv/bin/maturin: scripts/test-python.sh makes the venv (run it first, or make test)"
    return 1
  fi
  VIRTUAL_ENV=$root/.venv CARGO_TARGET_DIR=$root/target/python \
    .venv/bin/maturin build --release --interpreter .venv/bin/python --out "$out/wheels" || return 1
  wheel=$(ls "$out"/wheels/*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || { echo "maturin wrote no wheel"; return 1; }
  echo "wheel: $(basename "$wheel") ($(stat -c %s "$wheel") bytes)"
  case "$(basename "$wheel")" in
    *-abi3-*) ;;
    *) echo "not an abi3 wheel: $(basename "$wheel")"; return 1 ;;
  esac
  # aiwg's MIT notice travels with the package (it reproduces aiwg's modules' behaviour and strings).
  python3 -c "import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); \
sys.exit(0 if any(n.endswith('.dist-info/licenses/THIRD_PARTY_NOTICES') for n in names) else 'the wheel lacks THIRD_PARTY_NOTICES')" "$wheel" || return 1
  # The long description is the package's own README (what PyPI shows), not the repository's.
  python3 -c "import sys, zipfile, email; z = zipfile.ZipFile(sys.argv[1]); \
meta = next(n for n in z.namelist() if n.endswith('.dist-info/METADATA')); \
msg = email.message_from_bytes(z.read(meta)); body = msg.get_payload().strip(); \
readme = open(sys.argv[2], encoding='utf-8').read().strip(); \
sys.exit(0 if (msg['Description-Content-Type'] or '').startswith('text/markdown') and body == readme else \
  'the wheel\'s long description is not bindings/python/README.md (content type %s, %d vs %d characters)' \
  % (msg['Description-Content-Type'], len(body), len(readme)))" "$wheel" bindings/python/README.md || return 1
  echo "wheel: long description = bindings/python/README.md"
  # Only the package and its metadata: maturin packs python-source's earlyexit/ folder, and
  # nothing else under bindings/python/ (src/, Cargo.toml) may slip in.
  python3 -c "import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); \
other = [n for n in names if not (n.startswith('earlyexit/') or n.split('/')[0].endswith('.dist-info'))]; \
sys.exit('the wheel holds files outside earlyexit/ and its metadata: ' + ', '.join(other) if other else \
  (0 if 'earlyexit/__init__.py' in names else 'the wheel lacks earlyexit/__init__.py'))" "$wheel" || return 1
}

install_wheel() {
  [ -n "$wheel" ] || { echo "no wheel to install"; return 1; }
  python3 -m venv "$scratch/venv" || return 1
  "$scratch/venv/bin/python" -m pip install --quiet --no-index --disable-pip-version-check "$wheel" || return 1
  (cd "$scratch" && EXPECTED_REASON=$REASON "$scratch/venv/bin/python" - <<'PY'
import os, sys
import earlyexit

location = os.path.realpath(earlyexit.__file__)
assert location.startswith(os.path.realpath(sys.prefix) + os.sep), f"imported from {location}, not the venv"
engine = earlyexit.EarlyStopping()
engine.record(1, quality_score=91.0, confidence=0.97, verification_status="passed", quality_delta=0.0,
              timestamp="2026-01-01T00:00:00.000Z")
decision = engine.should_stop()
assert decision.stop is True and decision.trigger == "high_confidence", decision
assert decision.reason == os.environ["EXPECTED_REASON"], decision.reason
print(f"import earlyexit from {location}: stop={decision.stop}, trigger={decision.trigger}, reason={decision.reason!r}")
PY
  )
}

check "python: maturin build --release makes an abi3 wheel" build_wheel
check "python: the wheel installs into a fresh venv and decides" install_wheel

# --- npm: the two tarballs ------------------------------------------------------------
# pack_package DIR BUILD_SCRIPT NATIVE_PATTERN: npm pack DIR into $out/tarballs; when the
# packed file list has nothing matching NATIVE_PATTERN (the .node addon, the .wasm module),
# run the workspace's build script first.
pack_package() {
  local dir=$1 build=$2 pattern=$3
  [ -f "$dir/package.json" ] || { echo "$dir/package.json does not exist"; return 1; }
  if ! (cd "$dir" && npm pack --dry-run --json 2>/dev/null) | grep -Eq "\"path\": \"[^\"]*$pattern\""; then
    echo "$dir: nothing matching $pattern to pack yet; running npm run $build"
    npm run --silent "$build" || return 1
  fi
  mkdir -p "$out/tarballs"
  local name
  name=$(cd "$dir" && npm pack --silent --pack-destination "$out/tarballs" | tail -n 1) || return 1
  [ -f "$out/tarballs/$name" ] || { echo "npm pack wrote no tarball"; return 1; }
  # The listing whole, then grep (as scripts/dist-env.sh says): `npm pack | grep -q` let grep exit
  # at the match, and under pipefail npm's broken pipe could fail the check now and then.
  local listing
  listing=$(cd "$dir" && npm pack --dry-run --json 2>/dev/null) || return 1
  grep -Eq "\"path\": \"[^\"]*$pattern\"" <<<"$listing" ||
    { echo "$name has no file matching $pattern"; return 1; }
  grep -q '"path": "THIRD_PARTY_NOTICES"' <<<"$listing" ||
    { echo "$name lacks THIRD_PARTY_NOTICES (aiwg's MIT notice)"; return 1; }
  # The package's own README, as the repository holds it (npm shows it on the package page).
  [ -f "$dir/README.md" ] || { echo "$dir/README.md does not exist"; return 1; }
  tar -xOzf "$out/tarballs/$name" package/README.md 2>/dev/null | cmp -s - "$dir/README.md" ||
    { echo "$name lacks $dir/README.md (or holds another README.md)"; return 1; }
  echo "tarball: $name ($(stat -c %s "$out/tarballs/$name") bytes), README.md = $dir/README.md"
}

# install_and_use PACKAGE TARBALL_GLOB [DEPENDENCY_GLOB...]: install the tarballs offline into
# a fresh directory, then require() the package and import it, deciding one loop each way.
install_and_use() {
  local package=$1 glob tarballs=() tarball
  shift
  for glob in "$@"; do
    tarball=$(ls "$out"/tarballs/$glob 2>/dev/null | head -n 1)
    [ -n "$tarball" ] || { echo "no tarball $glob (npm pack failed above)"; return 1; }
    tarballs+=("$tarball")
  done
  local dir="$scratch/npm-$package"
  mkdir -p "$dir"
  (cd "$dir" && printf '{"name": "scratch-%s", "private": true}\n' "$package" >package.json &&
    npm install --offline --no-audit --no-fund --silent "${tarballs[@]}") || return 1
  local script='
    const { EarlyStopping } = lib;
    const engine = new EarlyStopping();
    engine.recordIterationResult(1, { quality_score: 91, confidence: 0.97, verification_status: "passed",
                                      quality_delta: 0, timestamp: "2026-01-01T00:00:00.000Z" });
    const d = engine.shouldStop(1);
    if (d.stop !== true || d.trigger !== "high_confidence" || d.reason !== process.env.EXPECTED_REASON)
      throw new Error("unexpected decision: " + JSON.stringify(d));
    // Replay too: in earlyexit-wasm it is a second wasm module the tarball must carry.
    const r = lib.replayLoops([{ id: "a", iterations: [{ quality_score: 0.5, confidence: 0.5, verification_status: "failed" }] }], "recommended");
    if (r.runs.length !== 1 || r.runs[0].trigger !== "end_of_run") throw new Error("unexpected replay: " + JSON.stringify(r));
    // The subpath entries (aiwg-style default imports) are in the tarball and give the same classes.
    const CLASSES = [lib.EarlyStopping, lib.IterationAnalytics, lib.BehaviorDetector, lib.InterventionSystem];
    if (SUBPATHS.some((entry, i) => entry.default !== CLASSES[i]))
      throw new Error("the subpath entries do not give the same classes as the main entry");
    // The behaviour drop-ins (in earlyexit-wasm, answered by the second module too).
    const stuck = new SUBPATHS[2].default().detect([1, 2, 3].map(() => ({ analysis: { error: "E", completionPercentage: 0 } })));
    const level = new SUBPATHS[3].default().intervene(stuck[0]).level;
    if (stuck[0].type !== "stuck" || level !== SUBPATHS[3].INTERVENTION_LEVELS.REDIRECT)
      throw new Error("unexpected behaviour answers: " + JSON.stringify(stuck) + " " + level);
    // The AI SDK adapter (`ai` is not installed here: the subpath needs nothing of it).
    const stop = AISDK.earlyexitStop({ quality: (step) => step.score, maxSteps: 2 });
    const steps = [{ text: "a", score: 0.4, usage: { totalTokens: 10 }, content: [] }];
    if (stop({ steps }) !== false || stop({ steps: [...steps, { text: "b", score: 0.9, content: [] }] }) !== true ||
        stop.loop.output !== "b" || stop.loop.decision.trigger !== "max_iterations" || !(stop.loop instanceof lib.Loop))
      throw new Error("unexpected ai-sdk answers: " + JSON.stringify(stop.loop.decision));
    console.log(`${HOW}: stop=${d.stop}, trigger=${d.trigger}, reason=${JSON.stringify(d.reason)}`);'
  (cd "$dir" && EARLYEXIT_NO_FALLBACK=1 EXPECTED_REASON=$REASON node -e "
    const lib = require('$package');
    const where = require.resolve('$package');
    if (!where.startsWith('$dir/node_modules/')) throw new Error('resolved outside the scratch install: ' + where);
    const HOW = \"require('$package') from \" + where;
    const SUBPATHS = ['early-stopping', 'iteration-analytics', 'behavior-detector', 'intervention-system'].map((s) => require('$package/' + s));
    const AISDK = require('$package/ai-sdk');
    $script") || return 1
  (cd "$dir" && EARLYEXIT_NO_FALLBACK=1 EXPECTED_REASON=$REASON node --input-type=module -e "
    const lib = await import('$package');
    const where = import.meta.resolve('$package');
    if (!where.startsWith('file://$dir/node_modules/')) throw new Error('resolved outside the scratch install: ' + where);
    const HOW = \"import '$package' from \" + where;
    const SUBPATHS = await Promise.all(['early-stopping', 'iteration-analytics', 'behavior-detector', 'intervention-system'].map((s) => import('$package/' + s)));
    const AISDK = await import('$package/ai-sdk');
    $script") || return 1
}

check "npm: npm pack earlyexit (bindings/node)" pack_package bindings/node build:node '\.node'
check "npm: npm pack earlyexit-wasm (bindings/wasm)" pack_package bindings/wasm build:wasm '\.wasm'
# earlyexit depends on earlyexit-wasm (its fallback where no addon fits): both tarballs install together.
check "npm: the earlyexit tarball installs offline, require() and import decide" \
  install_and_use earlyexit 'earlyexit-[0-9]*.tgz' 'earlyexit-wasm-[0-9]*.tgz'
check "npm: the earlyexit-wasm tarball installs offline, require() and import decide" \
  install_and_use earlyexit-wasm 'earlyexit-wasm-[0-9]*.tgz'

# The dashboard the earlyexit-wasm tarball ships (dashboard/, with uPlot in dashboard/vendor/ and
# uPlot's MIT notice in THIRD_PARTY_NOTICES): the installed package served on 127.0.0.1 and
# opened in headless Chromium (tests/browser/installed-dashboard.mjs), every request inside the
# package, the bundled examples rendered at 390 and 1280 px with nothing overflowing.
# Screenshots: test-output/packaging/dashboard-installed-{390,1280}.png.
installed_dashboard() {
  local tarball dir=$scratch/npm-earlyexit-wasm
  tarball=$(ls "$out"/tarballs/earlyexit-wasm-[0-9]*.tgz 2>/dev/null | head -n 1)
  [ -n "$tarball" ] || { echo "no earlyexit-wasm tarball (npm pack failed above)"; return 1; }
  local list
  list=$(tar -tzf "$tarball") || return 1
  for member in dashboard/index.html dashboard/app.js dashboard/vendor/uPlot.esm.js dashboard/vendor/uPlot.min.css \
      dashboard/data/loops.jsonl dashboard/data/pyramids.jsonl; do
    grep -qx "package/$member" <<<"$list" || { echo "$(basename "$tarball") lacks $member"; return 1; }
  done
  tar -xOzf "$tarball" package/THIRD_PARTY_NOTICES | grep -q '^uPlot (dashboard/vendor/)' ||
    { echo "$(basename "$tarball"): THIRD_PARTY_NOTICES lacks uPlot's notice"; return 1; }
  if tar -xOzf "$tarball" package/dashboard/index.html | grep -q '\.\./\.\./'; then
    echo "the shipped dashboard/index.html points outside the package (../../)"; return 1
  fi
  [ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "Chromium not found at ${CHROMIUM:-/usr/bin/chromium} (scripts/setup.sh installs it)"; return 1; }
  [ -d "$dir/node_modules/earlyexit-wasm" ] || { echo "the earlyexit-wasm tarball is not installed in $dir (the check above failed)"; return 1; }
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 node tests/browser/installed-dashboard.mjs "$dir" "$out/dashboard-installed"
}
check "npm: the installed earlyexit-wasm tarball's dashboard/ renders in Chromium (390 and 1280 px)" installed_dashboard

# --- crates.io: the core ---------------------------------------------------------------
crate_readme() { # the crate's manifest names core/README.md and `cargo package` packs it
  local list readme
  readme=$(cargo metadata --no-deps --format-version 1 --offline | python3 -c '
import json, sys
print(next(p["readme"] or "" for p in json.load(sys.stdin)["packages"] if p["name"] == "earlyexit"))') || return 1
  [ "$readme" = "README.md" ] || { echo "core/Cargo.toml: readme is ${readme:-unset}, expected README.md"; return 1; }
  list=$(cargo package --list -p earlyexit --allow-dirty --offline 2>/dev/null) || { echo "cargo package --list failed"; return 1; }
  grep -qx 'README.md' <<<"$list" || { echo "the crate package lacks README.md"; return 1; }
  # aiwg's MIT notice (core/THIRD_PARTY_NOTICES links to the repository's): the core holds
  # every string the drop-ins reproduce.
  grep -qx 'THIRD_PARTY_NOTICES' <<<"$list" || { echo "the crate package lacks THIRD_PARTY_NOTICES"; return 1; }
  echo "crate earlyexit: $(wc -l <<<"$list") files, README.md = core/README.md, THIRD_PARTY_NOTICES"
}
check "crate: cargo package -p earlyexit packs core/README.md and THIRD_PARTY_NOTICES" crate_readme

finish_checks packaging
