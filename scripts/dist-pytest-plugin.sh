#!/usr/bin/env bash
# The pytest plugin's artifacts (`make artifacts` runs it after verify-pypi): builds
# `pytest-earlyexit` (integrations/pytest-earlyexit, pure Python) into dist/pypi/ as a wheel and
# an sdist with `python -m build`, checks both with `twine check --strict`, then installs the
# wheel into a fresh venv outside the repository (earlyexit-engines from the wheel built here,
# pytest from PyPI at the pin below, the plugin with --no-index, so its declared dependencies
# are what resolves them) and runs the quick start of docs/pytest.md on the three-layer project
# it describes (its ```ini block, as written): shadow mode exits 0 with a shadow report, the
# enforced run with `--earlyexit-policy adr --earlyexit-preset aggressive` skips the e2e layer
# and exits 13 (unverified), both as the page shows.
# Usage: scripts/dist-pytest-plugin.sh [ENGINES_WHEEL] (default: the earlyexit-engines wheel of
# dist/pypi/ this machine runs). Closing line: `dist-pytest-plugin: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BUILD=1.6.1
TWINE=7.0.0
PYTEST=9.2.0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/earlyexit-pytest-plugin.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=lib/check.sh
. scripts/lib/check.sh
out=$root/dist/pypi
mkdir -p "$out"

engines=${1:-}
if [ -z "$engines" ]; then
  for file in "$out"/earlyexit_engines-*.whl; do
    [ -f "$file" ] || continue
    if python3 -c '
import sys
from pip._vendor.packaging.tags import sys_tags
from pip._vendor.packaging.utils import parse_wheel_filename
sys.exit(0 if parse_wheel_filename(sys.argv[1])[3] & set(sys_tags()) else 1)' "$(basename "$file")"; then
      engines=$file
      break
    fi
  done
fi

build() {
  python3 -m venv "$scratch/tools" &&
    "$scratch/tools/bin/python" -m pip install --quiet --disable-pip-version-check "build==$BUILD" "twine==$TWINE" &&
    rm -f "$out"/pytest_earlyexit-* &&
    "$scratch/tools/bin/python" -m build --outdir "$out" integrations/pytest-earlyexit &&
    "$scratch/tools/bin/twine" check --strict "$out"/pytest_earlyexit-* &&
    ls -l "$out"/pytest_earlyexit-*
}

# The project of docs/pytest.md's section 1: 2 tests and 1 skipped in unit, 1 in integration,
# 1 in e2e, and the page's own ini block.
project() {
  local dir=$scratch/project
  mkdir -p "$dir/test/unit" "$dir/test/integration" "$dir/test/e2e"
  python3 - "$root/docs/pytest.md" "$dir/pytest.ini" <<'PY' || return 1
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"```ini\n(.*?)```", text, re.S)
assert blocks, "docs/pytest.md has no ```ini block"
open(sys.argv[2], "w", encoding="utf-8").write(blocks[0])
PY
  printf 'import pytest\n\ndef test_a():\n    assert 1\n\ndef test_b():\n    assert 2\n\n@pytest.mark.skip(reason="later")\ndef test_c():\n    pass\n' >"$dir/test/unit/test_u.py"
  printf 'def test_i():\n    assert True\n' >"$dir/test/integration/test_i.py"
  printf 'def test_e():\n    assert True\n' >"$dir/test/e2e/test_e.py"
}

quickstart() ( # a subshell: it changes directory
  local venv=$scratch/venv bin output status
  bin=$venv/bin
  [ -n "$engines" ] || { echo "no earlyexit-engines wheel for this machine in dist/pypi (scripts/dist-wheel.sh) and none given"; return 1; }
  python3 -m venv "$venv" &&
    "$bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$engines" &&
    "$bin/python" -m pip install --quiet --disable-pip-version-check "pytest==$PYTEST" &&
    "$bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$out"/pytest_earlyexit-*.whl || return 1
  # Read whole before grep: `pip show | grep -q` let grep exit at the match, and under pipefail
  # pip's broken pipe failed the step now and then.
  shown=$("$bin/python" -m pip show pytest-earlyexit) || return 1
  grep -qx 'Name: pytest-earlyexit' <<<"$shown" || { echo "pip show names no pytest-earlyexit"; return 1; }
  project || return 1
  cd "$scratch/project" || return 1
  output=$("$bin/pytest" -p no:cacheprovider --earlyexit 2>&1)
  status=$?
  echo "$output"
  [ "$status" -eq 0 ] || { echo "shadow run: exit $status, not 0"; return 1; }
  grep -q 'earlyexit (shadow' <<<"$output" && grep -q '^verdict: passed' <<<"$output" || { echo "shadow run: no shadow report or verdict"; return 1; }
  output=$("$bin/pytest" -p no:cacheprovider --earlyexit --earlyexit-mode enforced --earlyexit-policy adr --earlyexit-preset aggressive -rs 2>&1)
  status=$?
  echo "$output"
  [ "$status" -eq 13 ] || { echo "enforced run: exit $status, not 13 (unverified)"; return 1; }
  grep -q "^e2e: skipped (1 test(s)): confident_exit after layer 'unit'" <<<"$output" || { echo "enforced run: the e2e layer was not skipped as docs/pytest.md shows"; return 1; }
  grep -q '^verdict: unverified' <<<"$output" || { echo "enforced run: no unverified verdict"; return 1; }
)

check "pytest-earlyexit: wheel and sdist" build
check "pytest-earlyexit: wheel installed, docs/pytest.md quick start" quickstart
finish_checks dist-pytest-plugin
