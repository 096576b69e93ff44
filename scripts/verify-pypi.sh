#!/usr/bin/env bash
# Installs the Python artifacts of dist/pypi/ (scripts/dist-wheel.sh, scripts/dist-sdist.sh)
# into fresh venvs outside the repository and runs a README.md quick start in each:
#   wheel   each wheel this machine can run (pip's own tags decide), `pip install --no-index`
#   sdist   the source distribution, built by pip from source with only Rust and pip (pip
#           fetches the build backend, maturin, from PyPI: the one network access)
# and checks what `pip show` and the metadata tell a user (name, license, author, home
# page). Wheels for other machines were checked by `auditwheel show` when built.
# Usage: scripts/verify-pypi.sh [DIST_NAME [SECTION]] (default: earlyexit-engines and its
# quick start, quickstart-python): SECTION's ```python blocks run in the venv's Python, its
# ```sh blocks in bash with the venv's bin folder first on PATH (a command-line wheel).
# Closing line: `verify-pypi: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
dist=${1:-earlyexit-engines}
section=${2:-quickstart-python}
stem=${dist//-/_}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/earlyexit-verify-pypi.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
python=${PYTHON:-python3}
if ! command -v python3 >/dev/null 2>&1; then # Windows runners: `python` only
  python=python
  python3() { python "$@"; }
fi
# shellcheck source=lib/check.sh
. scripts/lib/check.sh
python3 scripts/metadata.py quickstart "$section" python "$scratch/quickstart" >/dev/null 2>&1 ||
  python3 scripts/metadata.py quickstart "$section" sh "$scratch/quickstart" >/dev/null ||
  { echo "README.md's $section has no python or sh block"; exit 1; }
bindir() { if [ -d "$1/Scripts" ]; then echo "$1/Scripts"; else echo "$1/bin"; fi; }
url=$(python3 scripts/metadata.py list url)

# use VENV: pip show, then every quick start block, from a folder outside the repository.
use() {
  local venv=$1 show block bin
  bin=$(bindir "$venv")
  show=$("$bin/python" -m pip show "$dist" 2>/dev/null) || { echo "pip show $dist failed"; return 1; }
  grep -qx "Name: $dist" <<<"$show" || { echo "pip show does not name $dist:"; echo "$show"; return 1; }
  "$bin/python" - "$dist" "$url" "$(python3 scripts/metadata.py list version)" <<'PY' || return 1
import sys
from importlib.metadata import metadata
meta = metadata(sys.argv[1])
urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
problems = [f"{key} is {meta[key]!r}" for key, want in
            (("Version", sys.argv[3]), ("License-Expression", "MIT OR Apache-2.0"), ("Author", "The earlyexit developers"))
            if meta[key] != want]
if urls.get("Homepage") != sys.argv[2] or meta["Home-page"] != sys.argv[2]:
    problems.append(f"Project-URL Homepage is {urls.get('Homepage')!r}, Home-page {meta['Home-page']!r} (pip before 24 shows only that)")
if not meta["Summary"] or not meta["Keywords"] or not meta.get_all("Classifier"):
    problems.append("no summary, keywords or classifiers")
assert not problems, "; ".join(problems)
print(f"metadata: {meta['Name']} {meta['Version']}, {meta['License-Expression']}, Homepage {urls['Homepage']}, "
      f"{len(meta.get_all('Classifier'))} classifiers, {len(meta.get_payload() or '')} characters of description")
PY
  for block in "$scratch"/quickstart/*.sh; do
    [ -f "$block" ] || continue
    (cd "$scratch" && PATH="$bin:$PATH" bash -euo pipefail "$block") || return 1
  done
  for block in "$scratch"/quickstart/*.python; do
    [ -f "$block" ] || continue
    (cd "$scratch" && "$bin/python" -c '
import os, sys, earlyexit
where = os.path.realpath(earlyexit.__file__)
assert where.startswith(os.path.realpath(sys.prefix) + os.sep), f"earlyexit imported from {where}, not the venv"
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {"__name__": "__main__"})' "$block") || return 1
  done
  echo "$(ls "$scratch"/quickstart/ | wc -l) quick start blocks of README.md's $section passed"
}

wheel() {
  local wheel=$1 venv
  venv=$scratch/venv-$(basename "$wheel" .whl)
  "$python" -m venv "$venv" || return 1
  "$(bindir "$venv")/python" -m pip install --quiet --no-index --disable-pip-version-check "$wheel" || return 1
  use "$venv"
}

# A wheel of a binary (packages.toml native = "bin", the command) is built from its sdist in
# the dev profile, in the target dir scripts/verify-crates.sh builds the packed crate in (also
# dev, `cargo install --debug --locked`): same lock, profile and linker, so the command's ~100
# dependencies compile once for both (each took 2 to 4 min at every build). What this proves
# is that pip builds the sdist with only Rust and pip; the optimized build is the wheels'.
native=$(python3 scripts/metadata.py list packages | awk -F'\t' -v name="$dist" '$1 == "pypi" && $2 == name { print $5 }')
sdist() {
  local sdist=$1 venv=$scratch/venv-sdist target_dir=$root/target/dist/sdist
  local -a build=()
  "$python" -m venv "$venv" || return 1
  if [ "$native" = bin ]; then
    target_dir=$root/target/dist/crates
    build=(MATURIN_PEP517_ARGS="--profile dev")
  fi
  # A target dir beside the repository's own builds, so that a second run need not compile again.
  env ${build[@]+"${build[@]}"} CARGO_TARGET_DIR="$target_dir" "$(bindir "$venv")/python" -m pip install --quiet \
    --disable-pip-version-check --no-binary "$dist" "$sdist" || return 1
  use "$venv"
}

# Does pip on this machine install WHEEL? (pip's own tag list decides.)
runs_here() {
  "$python" -c '
import sys
from pip._vendor.packaging.tags import sys_tags
from pip._vendor.packaging.utils import parse_wheel_filename
sys.exit(0 if parse_wheel_filename(sys.argv[1])[3] & set(sys_tags()) else 1)' "$(basename "$1")"
}
found=0
for file in dist/pypi/"$stem"-*.whl; do
  [ -f "$file" ] || continue
  found=1
  if runs_here "$file"; then
    check "wheel $(basename "$file")" wheel "$root/$file"
  else
    echo "not run here (another platform): $(basename "$file")"
  fi
done
for file in dist/pypi/"$stem"-*.tar.gz; do
  [ -f "$file" ] || continue
  found=1
  check "sdist $(basename "$file"), built by pip" sdist "$root/$file"
done
[ "$found" = 1 ] || { echo "no $stem wheel or sdist in dist/pypi (scripts/dist-wheel.sh, dist-sdist.sh)"; add_counts "$stem" 0 1; }
echo
finish_checks verify-pypi
