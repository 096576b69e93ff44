#!/usr/bin/env bash
# Measures two commits side by side: wasm sizes, and unless --size-only the JS, Rust and
# Python speed figures, base | head | delta.
#
#   scripts/compare-builds.sh BASE [HEAD] [--size-only] [--rounds N] [--no-rust] [--no-python] [--keep]
#
#   BASE, HEAD    any commit-ish; HEAD defaults to this checkout's HEAD (the commit: changes
#                 not committed are not measured, and a warning says so). BASE = HEAD is
#                 allowed and shows the noise.
#   --size-only   only build the wasm package on each side and compare sizes (measured on a
#                 busy 2-CPU machine: 4 min cold, 45 s with COMPARE_TARGET_CACHE; the whole
#                 comparison with --rounds 3 and the cache: 7.5 min)
#   --rounds N    rounds for the JS and Python benchmarks (default 7)
#   --no-rust, --no-python   leave out the criterion or the Python comparison
#   --keep        keep the work dir and both worktrees (printed at the end)
#
# How: `git worktree add --detach` puts each commit into a temp dir ($TMPDIR), and each is
# built by its own scripts with its own target dir inside it, so no build is shared (cargo's
# registry and download cache are). COMPARE_TARGET_CACHE=<dir> (say an existing checkout's
# target/) is copied into both before building, which spares rebuilding the dependencies
# (their fingerprints do not depend on the checkout's path; the workspace crates rebuild).
# The binding folders are found per tree: bindings/<name>/ (after the move) or
# bindings-<name>/ (before).
#
# Printed:
#   1. sizes of the engines module (earlyexit_wasm_bg.wasm, pkg/web) and the replay module:
#      raw, `gzip -9`, Node zlib level 9 (the figure tests/node/wasm.test.mjs records) and
#      brotli quality 11. Exit 1 if the head's engines module is larger than the base's raw
#      or Node-zlib-gzipped (the "not larger than main" rule).
#   2. JS speed, seed/ours ratios per workload and implementation (native, wasm). The seed
#      (EARLYEXIT_REFERENCE_DIR, default ../shared/reference next to this checkout) is the
#      yardstick inside each process, which cancels machine load. If a side's
#      bench/js/bench.mjs has --against, one process times the seed, that side's packages and
#      the other side's (through a folder of links, so either layout works); the noise band
#      is the base's per-round min..max. Otherwise four runs alternate base, head, head,
#      base, and the band is the base's two medians. A head median below the band's low end
#      minus 2% fails (exit 1).
#   3. Rust (criterion, core bench): `--save-baseline base` on the base tree, `--baseline
#      base` on the head tree in one target dir; medians and change. Figures only.
#   4. Python (bench/python/bench.py) in one venv per side (maturin develop --release), runs
#      alternating base, head, head, base; in-process ratios (against an empty call and a
#      pure-Python port of the seed) are the ones that cancel load. Figures only.
# Exit status: 0 as good as the base, 1 a size or JS speed regression, 2 a usage or build
# failure. Build logs: <work dir>/logs/ (kept with --keep, or printed when a build fails).
# Environment: COMPARE_TARGET_CACHE, EARLYEXIT_REFERENCE_DIR, COMPARE_CRITERION_ARGS (default
# "--warm-up-time 1 --measurement-time 3"), TMPDIR.
set -euo pipefail
ORIG="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ORIG"
export PATH="$HOME/.cargo/bin:$PATH"
# Each side chooses its own target dirs (inside its tree); nothing inherited may merge them.
unset CARGO_TARGET_DIR CARGO_TARGET_DIR_WASM CARGO_TARGET_DIR_PYTHON CARGO_TARGET_DIR_BENCH VIRTUAL_ENV

usage() { sed -n '5,15p' "$0" >&2; exit 2; }
SIZE_ONLY=0 ROUNDS=7 RUST=1 PYTHON=1 KEEP=0
revs=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --size-only) SIZE_ONLY=1 ;;
    --rounds) shift; ROUNDS=${1:-} ;;
    --rounds=*) ROUNDS=${1#--rounds=} ;;
    --no-rust) RUST=0 ;;
    --no-python) PYTHON=0 ;;
    --keep) KEEP=1 ;;
    -h | --help) sed -n '2,46p' "$0"; exit 0 ;;
    -*) echo "compare-builds: unknown option $1" >&2; usage ;;
    *) revs+=("$1") ;;
  esac
  shift
done
[ "${#revs[@]}" -ge 1 ] && [ "${#revs[@]}" -le 2 ] || usage
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "compare-builds: --rounds needs a whole number >= 1" >&2; exit 2; }
resolve() { git rev-parse --verify --quiet "$1^{commit}" || { echo "compare-builds: unknown revision $1" >&2; exit 2; }; }
BASE_REV=${revs[0]}
HEAD_REV=${revs[1]:-HEAD}
base_sha=$(resolve "$BASE_REV")
head_sha=$(resolve "$HEAD_REV")
if [ "${#revs[@]}" -eq 1 ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "compare-builds: warning: this checkout has uncommitted changes; they are not measured (HEAD is ${head_sha:0:10})" >&2
fi
REFERENCE_DIR=${EARLYEXIT_REFERENCE_DIR:-$ORIG/../shared/reference}
CRITERION_ARGS=(${COMPARE_CRITERION_ARGS:---warm-up-time 1 --measurement-time 3})

WORK=$(mktemp -d "${TMPDIR:-/tmp}/compare-builds.XXXXXX")
mkdir -p "$WORK/logs"
cleanup() {
  if [ "$KEEP" = 1 ]; then
    echo "compare-builds: kept $WORK (remove with: git worktree remove --force $WORK/base; git worktree remove --force $WORK/head; rm -rf $WORK)"
    return
  fi
  local side
  for side in base head; do
    [ -d "$WORK/$side" ] && git -C "$ORIG" worktree remove --force "$WORK/$side" >/dev/null 2>&1
  done
  git -C "$ORIG" worktree prune
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

section() { printf '\n=== %s\n' "$*"; }
status=0
regressions=()

# run NAME COMMAND...: runs a build step (a command at low priority, or a function of this
# script that calls nice itself), its output in logs/NAME.log; on failure shows the log's end.
run() {
  local name=$1 t0=$SECONDS
  shift
  local lower=(nice)
  declare -F "$1" >/dev/null && lower=()
  if "${lower[@]}" "$@" >"$WORK/logs/$name.log" 2>&1; then
    echo "  $name: ok ($((SECONDS - t0)) s)"
  else
    echo "  $name: FAILED ($((SECONDS - t0)) s); the end of $WORK/logs/$name.log:"
    tail -n 30 "$WORK/logs/$name.log" | sed 's/^/    /'
    return 1
  fi
}

# binding_dir TREE NAME: the tree's binding folder for NAME (wasm, node, python).
binding_dir() {
  if [ -d "$1/bindings/$2" ]; then echo "$1/bindings/$2"
  elif [ -d "$1/bindings-$2" ]; then echo "$1/bindings-$2"
  else return 1; fi
}

section "compare-builds: base ${base_sha:0:10} ($BASE_REV) | head ${head_sha:0:10} ($HEAD_REV)"
echo "base: $(git log -1 --format='%h %s' "$base_sha")"
echo "head: $(git log -1 --format='%h %s' "$head_sha")"
echo "machine: $(nproc) CPU(s), load $(cut -d' ' -f1-3 /proc/loadavg); work dir $WORK"
for side in base head; do
  sha=$base_sha
  [ "$side" = head ] && sha=$head_sha
  git worktree add --detach --quiet "$WORK/$side" "$sha"
  if [ -n "${COMPARE_TARGET_CACHE:-}" ]; then
    [ -d "$COMPARE_TARGET_CACHE" ] || { echo "compare-builds: COMPARE_TARGET_CACHE=$COMPARE_TARGET_CACHE is not a directory" >&2; exit 2; }
    mkdir -p "$WORK/$side/target"
    wanted=(wasm)
    [ "$SIZE_ONLY" = 1 ] || wanted+=(release x86_64-unknown-linux-gnu python)
    for dir in "${wanted[@]}"; do
      [ -d "$COMPARE_TARGET_CACHE/$dir" ] && cp -a --reflink=auto "$COMPARE_TARGET_CACHE/$dir" "$WORK/$side/target/"
    done
  fi
done

# --- builds ---------------------------------------------------------------------------------
section "builds (each tree by its own scripts, target dirs inside the tree)"
node_ok=() # sides whose Node addon built
for side in base head; do
  tree=$WORK/$side
  # Both builds need node_modules (bindings/js/build.mjs reads the fragments with typescript;
  # build-node.sh runs @napi-rs/cli): this checkout's when the lock file is the same, else
  # `npm ci` in the tree.
  if [ -d "$ORIG/node_modules" ] && cmp -s "$tree/package-lock.json" "$ORIG/package-lock.json"; then
    ln -s "$ORIG/node_modules" "$tree/node_modules"
  else
    run "$side-npm-ci" bash -c "cd '$tree' && npm ci --prefer-offline --no-audit --no-fund" || exit 2
  fi
  run "$side-wasm" env CARGO_TARGET_DIR_WASM="$tree/target/wasm" bash "$tree/scripts/build-wasm.sh" || exit 2
  [ "$SIZE_ONLY" = 1 ] && continue
  run "$side-node" env CARGO_TARGET_DIR="$tree/target" bash "$tree/scripts/build-node.sh" || exit 2
  node_ok+=("$side")
done

# --- 1. sizes ------------------------------------------------------------------------------------
section "1. wasm module sizes in bytes (pkg/web), base | head | delta"
# sizes FILE: raw, gzip -9, Node zlib level 9, brotli 11 (or "- - - -" when absent).
sizes() {
  if [ ! -f "$1" ]; then echo "- - - -"; return; fi
  echo "$(stat -c %s "$1") $(gzip -9 -c "$1" | wc -c) $(node -e '
    const fs = require("node:fs"), zlib = require("node:zlib");
    const bytes = fs.readFileSync(process.argv[1]);
    const br = zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } });
    console.log(zlib.gzipSync(bytes, { level: 9 }).length, br.length);' "$1")"
}
printf '  %-10s %-12s %10s %10s %16s\n' module measure base head delta
for module in engines:earlyexit_wasm replay:earlyexit_replay; do
  label=${module%%:*}
  file=${module#*:}_bg.wasm
  read -r -a b <<<"$(sizes "$(binding_dir "$WORK/base" wasm)/pkg/web/$file")"
  read -r -a h <<<"$(sizes "$(binding_dir "$WORK/head" wasm)/pkg/web/$file")"
  measures=("raw" "gzip -9" "node zlib 9" "brotli 11")
  for i in 0 1 2 3; do
    if [ "${b[$i]}" = - ] || [ "${h[$i]}" = - ]; then delta="-"
    else delta=$(awk -v b="${b[$i]}" -v h="${h[$i]}" 'BEGIN { printf "%+d (%+.2f%%)", h - b, 100 * (h - b) / b }'); fi
    printf '  %-10s %-12s %10s %10s %16s\n' "$([ "$i" = 0 ] && echo "$label")" "${measures[$i]}" "${b[$i]}" "${h[$i]}" "$delta"
    if [ "$label" = engines ] && { [ "$i" = 0 ] || [ "$i" = 2 ]; } && [ "${b[$i]}" != - ] && [ "${h[$i]}" != - ] \
        && [ "${h[$i]}" -gt "${b[$i]}" ]; then
      regressions+=("engines module larger ${measures[$i]}: ${b[$i]} -> ${h[$i]} B")
    fi
  done
done

if [ "$SIZE_ONLY" = 1 ]; then
  :
else
  # --- 2. JS speed -------------------------------------------------------------------------------
  section "2. JS speed: ratio seed/ours per workload (> 1: ours faster), rounds $ROUNDS"
  if [ "${#node_ok[@]}" -lt 2 ]; then
    echo "  skipped: the Node addon did not build on both sides"
  elif [ ! -f "$REFERENCE_DIR/early-stopping.mjs" ] || [ ! -f "$REFERENCE_DIR/early-exit-adr.mjs" ]; then
    echo "  skipped: the seed files are not in $REFERENCE_DIR (set EARLYEXIT_REFERENCE_DIR)"
  else
    export EARLYEXIT_REFERENCE_DIR=$REFERENCE_DIR
    runner=""
    for side in head base; do
      if grep -q -- "--against" "$WORK/$side/bench/js/bench.mjs" 2>/dev/null; then runner=$side; break; fi
    done
    if [ -n "$runner" ]; then
      other=base
      [ "$runner" = base ] && other=head
      # The other side's packages under both layouts' names; Node follows the links to the
      # real folders, so the packages' own relative requires resolve in their tree.
      sides="$WORK/sides/$other"
      mkdir -p "$sides/bindings"
      for name in node wasm; do
        ln -s "$(binding_dir "$WORK/$other" "$name")" "$sides/bindings-$name"
        ln -s "$(binding_dir "$WORK/$other" "$name")" "$sides/bindings/$name"
      done
      echo "  one process: $runner's bench/js/bench.mjs --impl both --rounds $ROUNDS --against <$other's packages>"
      (cd "$WORK/$runner" && node bench/js/bench.mjs --impl both --rounds "$ROUNDS" --against "$sides") >"$WORK/logs/js.log" 2>&1 ||
        { tail -n 30 "$WORK/logs/js.log"; echo "  JS bench FAILED"; exit 2; }
      runs=("$runner:$WORK/logs/js.log")
    else
      echo "  neither side's bench.mjs has --against: four runs, base head head base"
      runs=()
      n=0
      for side in base head head base; do
        n=$((n + 1))
        [ -f "$WORK/$side/bench/js/bench.mjs" ] || { echo "  skipped: $side has no bench/js/bench.mjs"; runs=(); break; }
        (cd "$WORK/$side" && node bench/js/bench.mjs --impl both --rounds "$ROUNDS") >"$WORK/logs/js-$n-$side.log" 2>&1 ||
          { tail -n 30 "$WORK/logs/js-$n-$side.log"; echo "  JS bench FAILED"; exit 2; }
        runs+=("$side:$WORK/logs/js-$n-$side.log")
      done
    fi
    if [ "${#runs[@]}" -gt 0 ]; then
      for r in "${runs[@]}"; do
        (grep -E '^bench:| ratio seed/' "${r#*:}" || true) | sed "s/^/  [${r%%:*}'s bench.mjs] /"
      done
      echo
      verdicts=$(python3 - "${runs[@]}" <<'PY'
import re, statistics, sys

# "loop ratio seed/native@base: 1.23 (spread 1.10..1.30; per round ...": workload, side
# name, median, min, max.
LINE = re.compile(r"^(\S+) ratio seed/(\S+): ([0-9][0-9.e+-]*) \(spread ([0-9][0-9.e+-]*?)\.\.([0-9][0-9.e+-]*);")
figures = {}  # (workload, impl) -> {"base": [(median, lo, hi)], "head": [...]}
for run in sys.argv[1:]:
    runner, path = run.split(":", 1)
    for line in open(path, encoding="utf-8"):
        m = LINE.match(line)
        if not m:
            continue
        workload, name, median, lo, hi = m.group(1), m.group(2), *map(float, m.group(3, 4, 5))
        impl, _, against = name.partition("@")
        side = against if against else runner
        figures.setdefault((workload, impl), {}).setdefault(side, []).append((median, lo, hi))

print(f"  {'workload':<12} {'impl':<7} {'base':>6} {'band':>12} {'head':>6} {'delta':>8}  verdict")
failed = []
for (workload, impl), sides in figures.items():
    if "base" not in sides or "head" not in sides:
        continue
    base, head = sides["base"], sides["head"]
    if len(base) == 1:  # one process: the base's per-round spread is the band
        b_med, lo, hi = base[0]
    else:  # alternating runs: the base's medians are the band
        b_med = statistics.median(m for m, _, _ in base)
        lo, hi = min(m for m, _, _ in base), max(m for m, _, _ in base)
    h_med = statistics.median(m for m, _, _ in head)
    if h_med < lo * 0.98:
        verdict = "SLOWER: below the band - 2%"
        failed.append(f"{workload} {impl} {b_med:.2f} -> {h_med:.2f}")
    elif h_med > hi * 1.02:
        verdict = "faster: above the band + 2%"
    else:
        verdict = "within the noise"
    print(f"  {workload:<12} {impl:<7} {b_med:6.2f} {lo:5.2f}..{hi:<5.2f} {h_med:6.2f} {100 * (h_med / b_med - 1):+7.1f}%  {verdict}")
for f in failed:
    print(f"REGRESSION JS speed {f}")
PY
)
      printf '%s\n' "$verdicts" | grep -v '^REGRESSION ' || true
      while IFS= read -r line; do regressions+=("${line#REGRESSION }"); done < <(printf '%s\n' "$verdicts" | grep '^REGRESSION ' || true)
    fi
  fi

  # --- 3. Rust criterion -------------------------------------------------------------------------
  section "3. Rust core (criterion, cargo bench -p earlyexit --bench core ${CRITERION_ARGS[*]})"
  if [ "$RUST" = 0 ]; then
    echo "  skipped (--no-rust)"
  elif ! grep -q earlyexit_bench "$WORK/base/core/Cargo.toml" || ! grep -q earlyexit_bench "$WORK/head/core/Cargo.toml"; then
    echo "  skipped: a side has no criterion bench under --cfg earlyexit_bench"
  else
    bench_target=$WORK/target-bench
    [ -n "${COMPARE_TARGET_CACHE:-}" ] && [ -d "$COMPARE_TARGET_CACHE/bench" ] && cp -a --reflink=auto "$COMPARE_TARGET_CACHE/bench" "$bench_target"
    crit() { # side, baseline flag
      (cd "$WORK/$1" && RUSTFLAGS="--cfg earlyexit_bench" CARGO_TARGET_DIR="$bench_target" \
        nice cargo bench -p earlyexit --bench core -- --noplot "$2" base "${CRITERION_ARGS[@]}")
    }
    if run base-criterion crit base --save-baseline && run head-criterion crit head --baseline; then
      python3 - "$bench_target/criterion" <<'PY'
import json, os, sys

root = sys.argv[1]
def median(path):
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]
print(f"  {'benchmark (median)':<40} {'base ns':>10} {'head ns':>10} {'change':>8}  criterion's 95% interval")
for dirpath, dirs, files in sorted(os.walk(root)):
    if os.path.basename(dirpath) != "base" or "estimates.json" not in files:
        continue
    bench = os.path.dirname(dirpath)
    new = os.path.join(bench, "new", "estimates.json")
    if not os.path.exists(new):
        continue
    name = os.path.relpath(bench, root)
    b, h = median(os.path.join(dirpath, "estimates.json")), median(new)
    interval = ""
    change = os.path.join(bench, "change", "estimates.json")
    if os.path.exists(change):
        with open(change) as f:
            ci = json.load(f)["median"]["confidence_interval"]
        interval = f"{100 * ci['lower_bound']:+.1f}%..{100 * ci['upper_bound']:+.1f}%"
    print(f"  {name:<40} {b:10.1f} {h:10.1f} {100 * (h / b - 1):+7.1f}%  {interval}")
PY
    else
      echo "  criterion comparison FAILED (figures only: not counted as a regression)"
    fi
  fi

  # --- 4. Python ---------------------------------------------------------------------------------
  section "4. Python (bench/python/bench.py --rounds $ROUNDS, one venv per side; runs base head head base)"
  if [ "$PYTHON" = 0 ]; then
    echo "  skipped (--no-python)"
  elif [ ! -f "$WORK/base/bench/python/bench.py" ] || [ ! -f "$WORK/head/bench/python/bench.py" ]; then
    echo "  skipped: a side has no bench/python/bench.py"
  else
    python_ok=1
    venv_setup() { # side: a venv with maturin, then the module built into it
      local venv=$WORK/venv-$1
      python3 -m venv "$venv" &&
        nice "$venv/bin/python" -m pip install --disable-pip-version-check -q "maturin==1.16.*" &&
        (cd "$WORK/$1" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="$WORK/$1/target/python" \
          nice "$venv/bin/maturin" develop --release --quiet)
    }
    for side in base head; do run "$side-python" venv_setup "$side" || { python_ok=0; break; }; done
    if [ "$python_ok" = 1 ]; then
      runs=()
      n=0
      for side in base head head base; do
        n=$((n + 1))
        log=$WORK/logs/python-$n-$side.log
        (cd "$WORK/$side" && "$WORK/venv-$side/bin/python" bench/python/bench.py --rounds "$ROUNDS") >"$log" 2>&1 ||
          { tail -n 20 "$log"; echo "  Python bench FAILED"; python_ok=0; break; }
        runs+=("$side:$log")
      done
      [ "$python_ok" = 1 ] && python3 - "${runs[@]}" <<'PY'
import re, statistics, sys

# "python: LABEL:   VALUE UNIT ...": repeated labels (the two speed-up lines) are numbered.
LINE = re.compile(r"^python: (.+?):\s+([0-9][0-9.]*) (ns|µs|x)\b")
values, units, order = {}, {}, []
for run in sys.argv[1:]:
    side, path = run.split(":", 1)
    seen = {}
    for line in open(path, encoding="utf-8"):
        m = LINE.match(line)
        if not m:
            continue
        label = m.group(1)
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} ({seen[label]})"
        if label not in units:
            order.append(label)
        units[label] = m.group(3)
        values.setdefault(label, {}).setdefault(side, []).append(float(m.group(2)))
print(f"  {'figure (median of the two runs per side)':<48} {'base':>9} {'head':>9} {'delta':>8}")
for label in order:
    sides = values[label]
    if "base" not in sides or "head" not in sides:
        continue
    b, h = statistics.median(sides["base"]), statistics.median(sides["head"])
    unit = units[label]
    note = "  (ratio in one process: cancels load)" if unit == "x" else ""
    print(f"  {label:<48} {b:9.2f} {h:9.2f} {100 * (h / b - 1):+7.1f}%  {unit}{note}")
PY
    fi
    [ "$python_ok" = 1 ] || echo "  Python comparison FAILED (figures only: not counted as a regression)"
  fi
fi

section "verdict"
if [ "${#regressions[@]}" -gt 0 ]; then
  for r in "${regressions[@]}"; do echo "  REGRESSION: $r"; done
  status=1
  echo "compare-builds: head ${head_sha:0:10} is worse than base ${base_sha:0:10}"
else
  echo "compare-builds: ok: head ${head_sha:0:10}'s engines module is not larger than base ${base_sha:0:10}'s$([ "$SIZE_ONLY" = 1 ] || echo ", and no JS workload is slower than the noise band")"
fi
exit "$status"
