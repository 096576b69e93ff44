#!/usr/bin/env bash
# Publishes dist/ (what the build steps wrote) to PyPI, npm and crates.io:
#   scripts/publish.sh --tag vX.Y.Z   the release workflow's last step: the tag must name the
#                                     version every package carries; needs TWINE_PASSWORD,
#                                     NODE_AUTH_TOKEN, CARGO_REGISTRY_TOKEN
#   scripts/publish.sh --dry-run      everything short of uploading (`make artifacts` runs it):
#                                     twine check, npm publish --dry-run of every tarball,
#                                     cargo publish --dry-run of the crates
# Order: the crates (the core before the crates that depend on it), the npm platform packages
# before earlyexit-wasm and before earlyexit (whose optional dependencies they are), then the
# wheels and sdists. Every artifact a row of scripts/packages.toml names must be in dist/,
# and each npm platform package named in napi.targets.
set -euo pipefail
DIST_STEP=publish
source "$(dirname "$0")/dist-env.sh"
cd "$DIST_ROOT"
mode=""
tag=""
case "${1:-}" in
  --dry-run) mode=dry-run ;;
  --tag) mode=publish; tag=${2:?--tag needs the tag, e.g. v0.1.0} ;;
  *) echo "usage: scripts/publish.sh --dry-run | --tag vX.Y.Z" >&2; exit 2 ;;
esac
version=$(python3 scripts/metadata.py list version)
if [ "$mode" = publish ] && [ "$tag" != "v$version" ]; then
  dist_fail "the tag is $tag but the packages are at $version (Cargo.toml [workspace.package] version)"
fi
# CHANGELOG.md (Keep a Changelog) names the release: `## [X.Y.Z] - YYYY-MM-DD`.
if ! grep -Eq "^## \[$version\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\$" CHANGELOG.md; then
  [ "$mode" = publish ] && dist_fail "CHANGELOG.md has no '## [$version] - YYYY-MM-DD' heading"
  echo "publish: CHANGELOG.md has no '## [$version] - YYYY-MM-DD' heading yet (a release adds it; --tag refuses without)"
fi
dist_tools
python3 scripts/metadata.py check >/dev/null || dist_fail "scripts/metadata.py check fails: the manifests disagree"

# What must be there.
crates=()
npm_last=()
pypi=()
while IFS=$'\t' read -r registry name _ _ _; do
  case "$registry" in
    crates.io)
      [ -f "dist/crates/$name-$version.crate" ] || dist_fail "missing dist/crates/$name-$version.crate"
      crates+=("$name") ;;
    npm)
      [ -f "dist/npm/$name-$version.tgz" ] || dist_fail "missing dist/npm/$name-$version.tgz"
      npm_last+=("dist/npm/$name-$version.tgz") ;;
    pypi)
      stem=${name//-/_}
      ls dist/pypi/"$stem"-"$version"-*.whl >/dev/null 2>&1 || dist_fail "no $name wheel in dist/pypi"
      [ -f "dist/pypi/$stem-$version.tar.gz" ] || dist_fail "missing dist/pypi/$stem-$version.tar.gz"
      pypi+=(dist/pypi/"$stem"-"$version"[-.]*) ;;
  esac
done < <(python3 scripts/metadata.py list packages)
platforms=()
while read -r target; do
  suffix=$(python3 scripts/metadata.py list npm-suffix "$target")
  file=dist/npm/earlyexit-$suffix-$version.tgz
  if [ -f "$file" ]; then
    platforms+=("$file")
  elif [ "$mode" = publish ]; then
    dist_fail "missing $file (earlyexit lists it as an optional dependency)"
  else
    echo "publish: $file not built here (only configured: the release workflow builds it)"
  fi
done < <(python3 scripts/metadata.py list napi-targets)
# earlyexit-wasm before earlyexit: order the npm rows so that the napi one comes last.
mapfile -t npm_last < <(printf '%s\n' "${npm_last[@]}" | awk '{ print ($0 ~ /\/earlyexit-[0-9]/ ? 1 : 0) "\t" $0 }' | sort -s -k1,1n | cut -f2)

# --- crates.io ------------------------------------------------------------------------
if [ "$mode" = publish ]; then
  for name in "${crates[@]}"; do cargo publish -p "$name"; done
else
  # A crate that depends on another of ours cannot be dry-run before that one is on
  # crates.io; scripts/verify-crates.sh built it from its packed sources instead.
  for name in "${crates[@]}"; do
    if output=$(cargo publish --dry-run --no-verify --allow-dirty -p "$name" 2>&1); then
      echo "publish: cargo publish --dry-run -p $name: ok"
    elif grep -q 'no matching package named `earlyexit' <<<"$output"; then
      echo "publish: cargo publish --dry-run -p $name: needs its dependency on crates.io first (built from its packed sources by scripts/verify-crates.sh)"
    else
      echo "$output"
      dist_fail "cargo publish --dry-run -p $name failed"
    fi
  done
fi

# --- npm ------------------------------------------------------------------------------
for tarball in "${platforms[@]}" "${npm_last[@]}"; do
  if [ "$mode" = publish ]; then
    npm publish "$tarball" --access public --provenance
  else
    npm publish "$tarball" --dry-run --access public 2>&1 | grep -E '^npm notice (name|version|package size|total files)' || true
    echo "publish: npm publish --dry-run $tarball: ok"
  fi
done

# --- PyPI -----------------------------------------------------------------------------
twine check --strict "${pypi[@]}"
if [ "$mode" = publish ]; then
  twine upload --non-interactive --skip-existing "${pypi[@]}"
fi
echo "publish: ${mode}: ${#crates[@]} crates, $(( ${#platforms[@]} + ${#npm_last[@]} )) npm tarballs, ${#pypi[@]} PyPI files"
