#!/usr/bin/env bash
# Supply-chain check of every dependency (normal, dev and build, every platform, all
# features) of every workspace crate and of the fuzz crate, from `cargo metadata --locked
# --offline`, against the policy in deny.toml:
#   * each license expression is satisfiable from [licenses] allow;
#   * no crate appears in two semver-incompatible versions unless [bans] skip lists one;
#   * the core crate `earlyexit` has no non-optional runtime dependency (zero with default
#     features; see also check-core-deps.sh, which asks cargo tree).
# Then, only if cargo-deny is installed, `cargo deny check licenses bans` with the same file
# (advisories need the network: not checked here).
#
# `cargo metadata` reads the manifest of every locked package, so each must be in the cargo
# cache first: on a machine that never built the project (or never ran `make bench`, whose
# criterion and its dependencies no `cargo test` downloads) it stopped with "failed to
# download anes v0.1.6 ... --offline was specified". So the locked packages are fetched
# first: offline when the cache has them all (no network touched), else from the registry.
# `make test-rust` runs this script once more against an empty CARGO_HOME to prove that.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo_home() { echo "${CARGO_HOME:-$HOME/.cargo}"; }

manifests=(Cargo.toml)
[ -f fuzz/Cargo.lock ] && manifests+=(fuzz/Cargo.toml)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in "${!manifests[@]}"; do
  manifest=${manifests[$i]}
  if ! cargo fetch --locked --offline --manifest-path "$manifest" >/dev/null 2>&1; then
    echo "check-supply-chain: fetching the locked packages of $manifest (not all in $(cargo_home)/registry)"
    cargo fetch --locked --manifest-path "$manifest"
  fi
  cargo metadata --format-version 1 --all-features --locked --offline --manifest-path "$manifest" >"$tmp/metadata-$i.json"
done

python3 - "$tmp"/*.json <<'PY'
import json, re, sys, tomllib

with open("deny.toml", "rb") as f:
    policy = tomllib.load(f)
allowed = set(policy["licenses"]["allow"])
skips = {s["crate"] for s in policy.get("bans", {}).get("skip", [])}

def satisfiable(expression):
    """Evaluates an SPDX expression (OR, AND, WITH, parentheses; '/' is the old OR)."""
    tokens = re.findall(r"\(|\)|[^\s()]+", expression.replace("/", " OR "))
    pos = 0
    def peek():
        return tokens[pos] if pos < len(tokens) else None
    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]
    def primary():
        if peek() == "(":
            take()
            value = disjunction()
            if take() != ")":
                raise ValueError("unbalanced parentheses")
            return value
        license = take()
        if peek() == "WITH":
            take()
            license = license + " WITH " + take()
        return license.rstrip("+") in allowed or license in allowed
    def conjunction():
        value = primary()
        while peek() == "AND":
            take()
            value = primary() and value
        return value
    def disjunction():
        value = conjunction()
        while peek() == "OR":
            take()
            value = conjunction() or value
        return value
    result = disjunction()
    if pos != len(tokens):
        raise ValueError("trailing tokens")
    return result

def compat(version):
    """The semver-compatibility class: 1.2.3 -> 1, 0.3.1 -> 0.3, 0.0.4 -> 0.0.4."""
    major, minor, patch = (re.match(r"(\d+)\.(\d+)\.(\d+)", version).groups())
    if major != "0":
        return major
    return f"0.{minor}" if minor != "0" else f"0.0.{patch}"

problems, checked, licenses_seen = [], 0, set()
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        meta = json.load(f)
    resolved = {node["id"] for node in meta["resolve"]["nodes"]}
    packages = [p for p in meta["packages"] if p["id"] in resolved]
    versions = {}
    for p in packages:
        checked += 1
        license = p.get("license")
        if not license:
            problems.append(f"{p['name']} {p['version']}: no SPDX license (license_file: {p.get('license_file')})")
        else:
            licenses_seen.add(license)
            try:
                ok = satisfiable(license)
            except (ValueError, IndexError) as e:
                ok, license = False, f"{license} (unparsable: {e})"
            if not ok:
                problems.append(f"{p['name']} {p['version']}: license {license} is not in deny.toml's allow list")
        if f"{p['name']}@{p['version']}" not in skips:
            versions.setdefault(p["name"], {}).setdefault(compat(p["version"]), []).append(p["version"])
        if p["name"] == "earlyexit":
            runtime = [d["name"] for d in p["dependencies"] if d["kind"] is None and not d["optional"]]
            if runtime:
                problems.append(f"earlyexit: the core has runtime dependencies: {', '.join(runtime)}")
    for name, classes in sorted(versions.items()):
        if len(classes) > 1:
            listed = ", ".join(v for vs in classes.values() for v in vs)
            problems.append(f"{name}: in {len(classes)} incompatible versions ({listed}); list one under [bans] skip with a reason")

print(f"check-supply-chain: {checked} packages in {len(sys.argv) - 1} lock files; licenses seen:")
for license in sorted(licenses_seen):
    print(f"  {license}")
if problems:
    print("check-supply-chain: FAILED:")
    for problem in problems:
        print(f"  {problem}")
    sys.exit(1)
print("check-supply-chain: ok: every license allowed, no crate in two incompatible versions, core has no runtime dependency")
PY

if cargo deny --version >/dev/null 2>&1; then
  cargo deny --offline check licenses bans
else
  echo "check-supply-chain: cargo-deny not installed; skipped 'cargo deny check licenses bans' (same policy checked above)"
fi
