#!/usr/bin/env bash
# Every PyPI package of scripts/packages.toml at once, for the release workflow's jobs:
#   scripts/dist-pypi.sh wheels TARGET   scripts/dist-wheel.sh TARGET for each package
#   scripts/dist-pypi.sh sdists          scripts/dist-sdist.sh for each package
#   scripts/dist-pypi.sh verify          scripts/verify-pypi.sh for each package and its quick start
# `make artifacts` runs the same per-package scripts one step at a time (scripts/artifacts.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: scripts/dist-pypi.sh wheels TARGET | sdists | verify}
python3 scripts/metadata.py list packages | while IFS=$'\t' read -r registry name manifest quickstart _; do
  [ "$registry" = pypi ] || continue
  case "$what" in
    wheels) bash scripts/dist-wheel.sh "${2:?usage: scripts/dist-pypi.sh wheels TARGET}" "$(dirname "$manifest")" ;;
    sdists) bash scripts/dist-sdist.sh "$(dirname "$manifest")" ;;
    verify) bash scripts/verify-pypi.sh "$name" "$quickstart" ;;
    *) echo "dist-pypi: unknown step $what" >&2; exit 2 ;;
  esac
done
