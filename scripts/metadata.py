#!/usr/bin/env python3
"""The packages' metadata from one place.

Cargo.toml's [workspace.package] holds what every package shares: the version, the project
URL (`repository`, the one line a release changes), the authors, the keywords, the license
and the Rust version. scripts/packages.toml lists the packages, one row each. From the two:

  check               (the default; scripts/test-rust.sh runs it) every manifest agrees: the
                      crates inherit the shared fields, pyproject.toml takes them from its
                      crate (dynamic) and carries the generated [project.urls], every
                      package.json carries the generated fields, every platform is in the
                      release workflow's matrix. Exit 1 with one line per difference.
  write               rewrites what `check` would report (make metadata).
  npm-platform TARGET DIR
                      writes DIR/package.json of the napi platform package for TARGET (a
                      Rust target triple from bindings/node/package.json napi.targets).
  npm-main SRC DIR    writes DIR/package.json of the package in SRC as published: SRC's
                      manifest with the platform packages as optionalDependencies.
  list WHAT           prints one item a line: wheel-targets, napi-targets, packages
                      (registry, name, manifest, quickstart; tab-separated), npm-suffix TARGET,
                      version, url.
  quickstart [FILE#]SECTION LANG DIR
                      writes the LANG code blocks of FILE's (default README.md) SECTION
                      (between <!-- SECTION:start --> and <!-- SECTION:end -->) to
                      DIR/quickstart-N.LANG, one file each, and prints their paths.

Python 3.11 or later (tomllib); no other dependency.
"""

import json
import os
import re
import sys
import tomllib

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
os.chdir(ROOT)

# napi-rs's platform names: the package suffix, and the package.json os/cpu/libc a platform
# package declares so that npm installs only the one that fits.
NAPI_PLATFORMS = {
    "x86_64-unknown-linux-gnu": ("linux-x64-gnu", "linux", "x64", "glibc"),
    "aarch64-unknown-linux-gnu": ("linux-arm64-gnu", "linux", "arm64", "glibc"),
    "x86_64-unknown-linux-musl": ("linux-x64-musl", "linux", "x64", "musl"),
    "aarch64-unknown-linux-musl": ("linux-arm64-musl", "linux", "arm64", "musl"),
    "x86_64-apple-darwin": ("darwin-x64", "darwin", "x64", None),
    "aarch64-apple-darwin": ("darwin-arm64", "darwin", "arm64", None),
    "x86_64-pc-windows-msvc": ("win32-x64-msvc", "win32", "x64", None),
    "aarch64-pc-windows-msvc": ("win32-arm64-msvc", "win32", "arm64", None),
}
WORKFLOW = ".github/workflows/release.yml"


def load_toml(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def shared():
    """Cargo.toml's [workspace.package], with the fields every package needs checked present."""
    ws = load_toml("Cargo.toml").get("workspace", {}).get("package", {})
    missing = [k for k in ("version", "repository", "authors", "keywords", "license", "rust-version") if not ws.get(k)]
    if missing:
        sys.exit(f"metadata: Cargo.toml [workspace.package] lacks {', '.join(missing)}")
    url = ws["repository"].rstrip("/")
    if not re.fullmatch(r"https://[^\s\"]+", url):
        sys.exit(f"metadata: Cargo.toml repository {url!r} is not an https URL")
    return dict(ws, repository=url)


def version_tuple(text):
    return tuple(int(part) for part in text.split("."))


def packages():
    table = load_toml("scripts/packages.toml")
    return table, table.get("package", [])


def npm_fields(meta, directory):
    """The shared fields of a package.json, derived from Cargo.toml's [workspace.package]."""
    url = meta["repository"]
    return {
        "version": meta["version"],
        "license": meta["license"],
        "author": meta["authors"][0] if len(meta["authors"]) == 1 else None,
        "contributors": meta["authors"] if len(meta["authors"]) > 1 else None,
        "homepage": url + "#readme",
        "repository": {"type": "git", "url": "git+" + url + ".git", "directory": directory},
        "bugs": {"url": url + "/issues"},
        "keywords": meta["keywords"],
        "engines": None,  # checked, not derived: the Node minimum (scripts/check-versions.sh)
    }


def python_urls(meta):
    """[project.urls] of every pyproject.toml (the workflow publishes from a GitHub-style forge)."""
    url = meta["repository"]
    return {
        "Homepage": url,
        "Repository": url,
        "Issues": url + "/issues",
        "Changelog": url + "/blob/main/CHANGELOG.md",
    }


URLS_HEADER = "# Written by scripts/metadata.py from Cargo.toml's repository (make metadata): edit that line."


def urls_block(meta):
    lines = [URLS_HEADER, "[project.urls]"]
    lines += [f'{key} = "{value}"' for key, value in python_urls(meta).items()]
    return "\n".join(lines) + "\n"


def ordered_json(data, after, fields):
    """data with `fields` set (None removes one), new keys placed after the key `after`."""
    result = {}
    for key, value in data.items():
        if key in fields:
            if fields[key] is not None:
                result[key] = fields[key]
        else:
            result[key] = value
        if key == after:
            for new, value2 in fields.items():
                if new not in data and value2 is not None:
                    result[new] = value2
    for new, value2 in fields.items():
        if new not in result and new not in data and value2 is not None:
            result[new] = value2
    return result


def write_json(path, data):
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def platform_suffix(target):
    if target not in NAPI_PLATFORMS:
        sys.exit(f"metadata: no napi platform name for {target} (add it to NAPI_PLATFORMS in scripts/metadata.py)")
    return NAPI_PLATFORMS[target][0]


def napi_row():
    _, rows = packages()
    for row in rows:
        if row["registry"] == "npm" and row.get("targets") == "napi":
            return row
    sys.exit("metadata: scripts/packages.toml has no npm row with targets = \"napi\"")


def napi_targets():
    return read_json(napi_row()["manifest"])["napi"]["targets"]


def expected_npm(meta, row, manifest):
    """The fields scripts/metadata.py owns in one package.json."""
    directory = os.path.dirname(row["manifest"])
    fields = {k: v for k, v in npm_fields(meta, directory).items() if k != "engines"}
    if row.get("targets") == "napi":
        # The wasm build is a dependency, so that a platform without a binary falls back to it offline.
        deps = dict(manifest.get("dependencies") or {})
        for other in packages()[1]:
            if other["registry"] == "npm" and other.get("targets") != "napi":
                deps[other["name"]] = meta["version"]
        fields["dependencies"] = deps
    return fields


# --- check and write ------------------------------------------------------------------------


def check(write):
    meta = shared()
    table, rows = packages()
    problems = []

    def differ(where, what, have, want):
        problems.append(f"{where}: {what} is {json.dumps(have)}, expected {json.dumps(want)}")

    # Cargo.toml's homepage is the URL too, written from `repository`: maturin turns it into the
    # wheels' Home-page, the field pip before 24 shows (newer pips read Project-URL Homepage).
    workspace_text = open("Cargo.toml", encoding="utf-8").read()
    homepage = load_toml("Cargo.toml")["workspace"]["package"].get("homepage")
    if homepage != meta["repository"]:
        if write:
            workspace_text = re.sub(r'^homepage = "[^"\n]*"\n', "", workspace_text, flags=re.M)
            workspace_text = re.sub(r'^(repository = "[^"\n]*"\n)', lambda m: m.group(1) + f'homepage = "{meta["repository"]}"\n',
                                    workspace_text, count=1, flags=re.M)
            with open("Cargo.toml", "w", encoding="utf-8") as f:
                f.write(workspace_text)
        else:
            differ("Cargo.toml [workspace.package]", "homepage", homepage, meta["repository"])

    inherited = ("version", "edition", "license", "repository", "authors", "keywords", "rust-version")
    for row in rows:
        where = row["manifest"]
        if not os.path.exists(where):
            problems.append(f"{where}: does not exist (scripts/packages.toml names it)")
            continue
        for key in ("registry", "name", "manifest", "quickstart"):
            if key not in row:
                problems.append(f"scripts/packages.toml: the row of {where} has no {key}")
        if row["registry"] == "crates.io":
            package = load_toml(where).get("package", {})
            if package.get("name") != row["name"]:
                differ(where, "package.name", package.get("name"), row["name"])
            for key in inherited:
                if key == "rust-version" and isinstance(package.get(key), str) and \
                        version_tuple(package[key]) > version_tuple(meta["rust-version"]):
                    continue  # a crate may need a newer Rust than the workspace's (the CLI's rmcp)
                if package.get(key) != {"workspace": True}:
                    differ(where, key, package.get(key), {"workspace": True})
            for key in ("description", "readme", "categories"):
                if not package.get(key):
                    problems.append(f"{where}: no {key} (crates.io shows it)")
            if package.get("publish") is False:
                problems.append(f"{where}: publish = false, but scripts/packages.toml publishes it")
            if "docs" not in package.get("metadata", {}):
                problems.append(f"{where}: no [package.metadata.docs.rs] (what docs.rs builds)")
            # A crate that needs another of ours names its version (cargo packs the version,
            # not the path): this release's, exactly.
            ours = {r["name"] for r in rows if r["registry"] == "crates.io"}
            workspace_deps = load_toml("Cargo.toml").get("workspace", {}).get("dependencies", {})
            for dep, spec in load_toml(where).get("dependencies", {}).items():
                if dep not in ours:
                    continue
                if isinstance(spec, dict) and spec.get("workspace"):
                    spec = workspace_deps.get(dep, {})
                have = spec.get("version") if isinstance(spec, dict) else spec
                if have != "=" + meta["version"]:
                    differ(where, f"the version of its dependency {dep}", have, "=" + meta["version"])
        elif row["registry"] == "pypi":
            pyproject = load_toml(where)
            project = pyproject.get("project", {})
            if project.get("name") != row["name"]:
                differ(where, "project.name", project.get("name"), row["name"])
            dynamic = set(project.get("dynamic", []))
            for key in ("version", "authors", "keywords"):
                if key not in dynamic:
                    problems.append(f"{where}: {key} is not dynamic (maturin takes it from the crate, which inherits it)")
            for key in ("description", "readme", "requires-python", "license", "classifiers"):
                if not project.get(key):
                    problems.append(f"{where}: no project.{key}")
            crate = os.path.join(os.path.dirname(where), pyproject.get("tool", {}).get("maturin", {}).get("manifest-path", "Cargo.toml"))
            crate_package = load_toml(crate).get("package", {})
            for key in ("version", "authors", "keywords", "repository", "homepage"):
                if crate_package.get(key) != {"workspace": True}:
                    differ(crate, key, crate_package.get(key), {"workspace": True})
            if project.get("urls") != python_urls(meta):
                if write:
                    with open(where, encoding="utf-8") as f:
                        text = f.read()
                    text = re.sub(r"(?:^# Written by scripts/metadata\.py[^\n]*\n)?^\[project\.urls\]\n(?:^[^\[\n][^\n]*\n)*", "", text, flags=re.M)
                    # Right after the [project] table: before the next table header.
                    at = re.search(r"^\[project\]\n(?:^(?!\[)[^\n]*\n)*", text, flags=re.M)
                    body = text[: at.end()].rstrip("\n") + "\n\n" + urls_block(meta) + "\n" + text[at.end():].lstrip("\n")
                    with open(where, "w", encoding="utf-8") as f:
                        f.write(body)
                else:
                    differ(where, "[project.urls]", project.get("urls"), python_urls(meta))
        elif row["registry"] == "npm":
            manifest = read_json(where)
            if manifest.get("name") != row["name"]:
                differ(where, "name", manifest.get("name"), row["name"])
            fields = expected_npm(meta, row, manifest)
            wrong = {k: v for k, v in fields.items() if manifest.get(k) != v}
            for key in ("description", "engines", "files", "exports", "types"):
                if not manifest.get(key):
                    problems.append(f"{where}: no {key}")
            if row.get("targets") == "napi":
                for target in manifest.get("napi", {}).get("targets", []):
                    if target not in NAPI_PLATFORMS:
                        problems.append(f"{where}: napi target {target} has no platform name in scripts/metadata.py")
                if manifest.get("optionalDependencies"):
                    problems.append(f"{where}: optionalDependencies belong in the published manifest only (metadata.py npm-main)")
            if wrong and write:
                write_json(where, ordered_json(manifest, "license", fields))
            else:
                for key, value in wrong.items():
                    differ(where, key, manifest.get(key), value)
        else:
            problems.append(f"scripts/packages.toml: unknown registry {row['registry']!r}")

    # The release workflow builds every platform named here.
    if os.path.exists(WORKFLOW):
        with open(WORKFLOW, encoding="utf-8") as f:
            workflow = f.read()
        for target in table.get("wheel-targets", []):
            if not re.search(r"wheel-target:\s*" + re.escape(target) + r"\b", workflow):
                problems.append(f"{WORKFLOW}: no wheel build for {target} (wheel-target: {target})")
        for target in napi_targets():
            if not re.search(r"napi-target:\s*" + re.escape(target) + r"\b", workflow):
                problems.append(f"{WORKFLOW}: no npm platform package build for {target} (napi-target: {target})")
    else:
        problems.append(f"{WORKFLOW}: missing")

    if problems:
        print("metadata: FAILED (make metadata rewrites the generated fields):")
        for problem in problems:
            print("  " + problem)
        return 1
    print(f"metadata: ok: {len(rows)} packages at {meta['version']} from {meta['repository']}")
    return 0


# --- the npm manifests as published -------------------------------------------------------


def npm_platform(target, directory):
    meta = shared()
    row = napi_row()
    main = read_json(row["manifest"])
    platform_suffix(target)  # exits on a target without a platform name
    suffix, os_name, cpu, libc = NAPI_PLATFORMS[target]
    binary = f"{main['napi']['binaryName']}.{suffix}.node"
    manifest = {
        "name": f"{row['name']}-{suffix}",
        "version": meta["version"],
        "description": f"The {suffix} native addon of {row['name']} (installed by {row['name']} on that platform).",
        "license": meta["license"],
        "main": binary,
        "files": [binary],
        "os": [os_name],
        "cpu": [cpu],
    }
    if libc:
        manifest["libc"] = [libc]
    manifest.update({k: v for k, v in npm_fields(meta, os.path.dirname(row["manifest"])).items() if k not in manifest and v is not None})
    manifest["engines"] = main["engines"]
    os.makedirs(directory, exist_ok=True)
    write_json(os.path.join(directory, "package.json"), manifest)
    with open(os.path.join(directory, "README.md"), "w", encoding="utf-8") as f:
        f.write(
            f"# {manifest['name']}\n\n"
            f"The native addon of [`{row['name']}`]({meta['repository']}) for {suffix} ({target}).\n"
            f"Install `{row['name']}`, not this package: npm installs the platform package that fits\n"
            f"as an optional dependency of `{row['name']}`, which loads it.\n"
        )
    print(os.path.join(directory, "package.json"))


def npm_main(source, directory):
    meta = shared()
    manifest = read_json(os.path.join(source, "package.json"))
    name = manifest["name"]
    targets = manifest.get("napi", {}).get("targets", [])
    manifest["optionalDependencies"] = {f"{name}-{platform_suffix(t)}": meta["version"] for t in targets}
    # The addons travel in the platform packages, not in this one.
    manifest["files"] = [f for f in manifest["files"] if not f.endswith(".node")]
    os.makedirs(directory, exist_ok=True)
    write_json(os.path.join(directory, "package.json"), manifest)
    print(os.path.join(directory, "package.json"))


def quickstart(where, lang, directory):
    path, _, section = where.rpartition("#")
    path = path or "README.md"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(rf"<!-- {re.escape(section)}:start -->(.*?)<!-- {re.escape(section)}:end -->", text, re.S)
    if not m:
        sys.exit(f"metadata: {path} has no {section} section")
    blocks = re.findall(rf"^```{re.escape(lang)}\n(.*?)^```$", m.group(1), re.S | re.M)
    if not blocks:
        sys.exit(f"metadata: {path}'s {section} has no ```{lang} block")
    os.makedirs(directory, exist_ok=True)
    for number, block in enumerate(blocks, start=1):
        path = os.path.join(directory, f"quickstart-{number}.{lang}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(block)
        print(path)


def main(argv):
    command = argv[0] if argv else "check"
    if command in ("check", "write"):
        return check(command == "write")
    if command == "npm-platform" and len(argv) == 3:
        npm_platform(argv[1], argv[2])
        return 0
    if command == "npm-main" and len(argv) == 3:
        npm_main(argv[1], argv[2])
        return 0
    if command == "quickstart" and len(argv) == 4:
        quickstart(argv[1], argv[2], argv[3])
        return 0
    if command == "list" and len(argv) >= 2:
        what = argv[1]
        if what == "wheel-targets":
            print("\n".join(packages()[0].get("wheel-targets", [])))
        elif what == "napi-targets":
            print("\n".join(napi_targets()))
        elif what == "npm-suffix" and len(argv) == 3:
            print(platform_suffix(argv[2]))
        elif what == "packages":
            for row in packages()[1]:
                print("\t".join([row["registry"], row["name"], row["manifest"], row.get("quickstart", ""), row.get("native", "")]))
        elif what == "version":
            print(shared()["version"])
        elif what == "url":
            print(shared()["repository"])
        else:
            sys.exit(f"metadata: unknown list {what!r}")
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
