#!/usr/bin/env bash
# `make artifacts`: every artifact this machine can build, built by the release workflow's
# own scripts (.github/workflows/release.yml), each installed into a clean place and its
# README quick start run, then a publish dry run. In order, one step at a time:
#   tools      scripts/release-tools.sh --qemu --cross-std (the release venv, qemu-user, Node
#              for arm64, the std of the targets rustup lacks here: built once per compiler)
#   metadata   scripts/metadata.py check: every manifest agrees with the one place
#   per package row of scripts/packages.toml:
#     pypi       scripts/dist-sdist.sh, then scripts/dist-wheel.sh for each wheel target
#                this machine builds (Linux: x86_64 and aarch64, manylinux2014)
#     npm        scripts/dist-npm-native.sh for each napi target this machine builds (Linux
#                x64 and arm64 glibc, x64 musl), then scripts/dist-npm.sh
#     crates.io  scripts/dist-crates.sh (all crates at once)
#   verify     scripts/verify-pypi.sh (per PyPI row), verify-npm.sh, verify-crates.sh
#   pytest-earlyexit  scripts/dist-pytest-plugin.sh: the pytest plugin's wheel and sdist (pure
#              Python, not a packages.toml row), the wheel installed into a fresh venv with the
#              earlyexit-engines wheel built above and docs/pytest.md's quick start run
#   publish    scripts/publish.sh --dry-run
# Targets this machine cannot build (macOS, Windows) are listed as configured: the workflow
# builds them on their own runners. Ends with every artifact in dist/ and its size, and the
# closing line `artifacts: N passed, M failed` (one per step). Logs: test-output/artifacts/.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/dist-env.sh
logs=test-output/artifacts
rm -rf dist "$logs"
mkdir -p "$logs"
started=$SECONDS
passed=0
failed=0
failures=()
summary=()

step() { # NAME COMMAND...: one step, its output in the log and on the terminal
  local name=$1 log t0=$SECONDS status
  shift
  log=$logs/$(echo "$name" | tr -c 'A-Za-z0-9.-' '_').log
  printf '\n######## %s: %s\n' "$name" "$*"
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    summary+=("$(printf '%-44s ok      %4d s' "$name" $((SECONDS - t0)))")
  else
    failed=$((failed + 1))
    failures+=("$name")
    summary+=("$(printf '%-44s FAILED  %4d s  (%s)' "$name" $((SECONDS - t0)) "$log")")
  fi
}

step tools bash scripts/release-tools.sh --qemu --cross-std
step metadata python3 scripts/metadata.py check

built=()
configured=()
mapfile -t wheel_targets < <(python3 scripts/metadata.py list wheel-targets)
mapfile -t napi_targets < <(python3 scripts/metadata.py list napi-targets)
mapfile -t rows < <(python3 scripts/metadata.py list packages)
for row in "${rows[@]}"; do
  IFS=$'\t' read -r registry name manifest _ _ <<<"$row"
  case "$registry" in
    pypi)
      project=$(dirname "$manifest")
      step "$name: sdist" bash scripts/dist-sdist.sh "$project"
      for target in "${wheel_targets[@]}"; do
        if dist_can_build "$target"; then
          step "$name: wheel $target" bash scripts/dist-wheel.sh "$target" "$project"
          built+=("$name wheel $target")
        else
          configured+=("$name wheel $target")
        fi
      done
      ;;
    npm)
      if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("napi") is not None)' "$manifest")" = True ]; then
        for target in "${napi_targets[@]}"; do
          suffix=$(python3 scripts/metadata.py list npm-suffix "$target")
          if dist_can_build "$target"; then
            step "npm: $name-$suffix" bash scripts/dist-npm-native.sh "$target"
            built+=("npm $name-$suffix ($target)")
          else
            configured+=("npm $name-$suffix ($target)")
          fi
        done
      fi
      ;;
  esac
done
step "npm: earlyexit, earlyexit-wasm" bash scripts/dist-npm.sh
step "crates" bash scripts/dist-crates.sh

for row in "${rows[@]}"; do
  IFS=$'\t' read -r registry name _ quickstart _ <<<"$row"
  [ "$registry" = pypi ] && step "verify: $name" bash scripts/verify-pypi.sh "$name" "$quickstart"
done
step "pytest-earlyexit: build, install, quick start" bash scripts/dist-pytest-plugin.sh
step "verify: npm" bash scripts/verify-npm.sh
step "verify: crates" bash scripts/verify-crates.sh
step "publish --dry-run" bash scripts/publish.sh --dry-run

printf '\n######## artifacts (%d s; logs in %s/)\n' $((SECONDS - started)) "$logs"
for line in "${summary[@]}"; do echo "$line"; done
echo
echo "dist/ (built here):"
find dist -type f | sort | while read -r file; do
  printf '  %9s bytes  %s\n' "$(dist_size "$file")" "$file"
done
echo "built for: ${#built[@]} platform artifacts; configured only (built by the release workflow on its runners):"
for item in "${configured[@]}"; do echo "  $item"; done
[ "${#failures[@]}" -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
echo "artifacts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
