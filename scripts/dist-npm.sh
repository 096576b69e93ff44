#!/usr/bin/env bash
# The two npm packages every platform shares, packed into dist/npm/ and linted:
#   earlyexit       the JS layer, types and napi-rs's platform loader, with every platform
#                   package (scripts/dist-npm-native.sh) as an optional dependency at this
#                   exact version and earlyexit-wasm as a dependency (the fallback where no
#                   platform package fits). Its manifest as published is
#                   bindings/node/package.json plus the optionalDependencies
#                   (scripts/metadata.py npm-main); the addon is not in it.
#   earlyexit-wasm  bindings/wasm as it is, one tarball for every platform.
# Each tarball must hold README.md (the package's own, byte for byte), LICENSE and
# THIRD_PARTY_NOTICES, and pass publint (--strict: warnings fail, suggestions are printed)
# and @arethetypeswrong/cli (attw) with the node16 profile: the packages need Node 20, whose
# resolution node16 describes (the `node10` resolution of TypeScript's old
# `moduleResolution: node` does not read `exports`). Two of earlyexit-wasm's entries are
# not for attw: `./web`, the ES module for browsers and bundlers (no CommonJS build by
# design; Node takes index.cjs / index.mjs), and the `.wasm` files, assets a bundler or
# server resolves, not modules with types. publint suggests "type" for earlyexit-wasm: its
# pkg/web/*.js are ES modules and pkg/nodejs/*.js CommonJS, so no one value fits.
# Builds the packages first when their build outputs are missing (scripts/build-node.sh,
# scripts/build-wasm.sh; `make test` leaves them built).
set -euo pipefail
DIST_STEP=dist-npm
source "$(dirname "$0")/dist-env.sh"
cd "$DIST_ROOT"
[ -x node_modules/.bin/publint ] && [ -x node_modules/.bin/attw ] ||
  dist_fail "publint or attw is missing from node_modules: run npm ci (make setup)"
[ -f bindings/node/native.cjs ] && [ -f bindings/node/api.cjs ] || bash scripts/build-node.sh
[ -f bindings/wasm/pkg/web/earlyexit_wasm_bg.wasm ] && [ -f bindings/wasm/api.cjs ] || bash scripts/build-wasm.sh
mkdir -p dist/npm
t0=$SECONDS

# earlyexit: the packed file list of bindings/node, less the addon, and the published manifest.
stage=$DIST_ROOT/target/dist/npm-stage/earlyexit
rm -rf "$stage"
mkdir -p "$stage"
(cd bindings/node && npm pack --dry-run --json 2>/dev/null) | node -e '
  const [{ files }] = JSON.parse(require("fs").readFileSync(0, "utf8"));
  for (const { path } of files) if (!path.endsWith(".node") && path !== "package.json") console.log(path);
' | while read -r path; do
  mkdir -p "$stage/$(dirname "$path")"
  cp "bindings/node/$path" "$stage/$path"
done
python3 scripts/metadata.py npm-main bindings/node "$stage" >/dev/null
main=$(cd "$stage" && npm pack --silent --pack-destination "$DIST_ROOT/dist/npm" | tail -n 1)
wasm=$(cd bindings/wasm && npm pack --silent --pack-destination "$DIST_ROOT/dist/npm" | tail -n 1)

lint() { # TARBALL README [ATTW ARGS...]: contents, publint, attw
  local name=$1 tarball=dist/npm/$1 readme=$2 list
  shift 2
  list=$(tar -tzf "$tarball")
  for member in package.json README.md LICENSE THIRD_PARTY_NOTICES; do
    grep -qx "package/$member" <<<"$list" || dist_fail "$name lacks $member"
  done
  tar -xOzf "$tarball" package/README.md | cmp -s - "$readme" || dist_fail "$name: README.md is not $readme"
  if [[ "$name" == earlyexit-[0-9]* ]] && grep -q '\.node$' <<<"$list"; then
    dist_fail "$name holds an addon (it belongs in the platform packages)"
  fi
  node_modules/.bin/publint run "$tarball" --strict --pack false
  node_modules/.bin/attw "$tarball" --profile node16 --format table-flipped --no-emoji --no-color "$@"
  echo "dist-npm: $name $(dist_size "$tarball") bytes, $(grep -cv '/$' <<<"$list") files: publint and attw clean"
}
lint "$main" bindings/node/README.md
node -e '
  const m = require(process.argv[1] + "/package.json");
  const want = Object.keys(m.optionalDependencies || {});
  if (want.length === 0) throw new Error("earlyexit has no optionalDependencies");
  console.log("dist-npm: earlyexit optionalDependencies: " + want.join(", ") + "; dependencies: " + Object.keys(m.dependencies).join(", "));
' "$stage"
lint "$wasm" bindings/wasm/README.md --exclude-entrypoints ./web ./earlyexit_wasm_bg.wasm ./earlyexit_replay_bg.wasm
echo "dist-npm: done in $((SECONDS - t0)) s"
