#!/usr/bin/env bash
# One version number for the whole project: the Cargo workspace's `[workspace.package]
# version` is the source, and every crate, pyproject.toml (and a literal __version__ in the
# Python package) and every package.json of the npm packages must carry the same one. Files that do not exist yet are skipped; a
# mismatch fails. (pyproject.toml may instead declare `dynamic = ["version"]`, letting
# maturin take the crate's version.)
# One Node minimum too: every package.json `engines.node` (">=N") and every minimum a
# document or script states ("Node N+", "Node N or later", "requires Node N", "Node >= N",
# "from Node N on") must name the same N.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'PY'
import glob, json, os, re, sys

def toml_section(path, section):
    """The key = value lines of one [section] of a TOML file (no TOML library needed)."""
    values, current = {}, None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            header = re.fullmatch(r"\[\s*([^\]]+?)\s*\]", line)
            if header:
                current = header.group(1)
            elif current == section and "=" in line:
                key, value = (part.strip() for part in line.split("=", 1))
                values[key] = value
    return values

def unquote(value):
    m = re.fullmatch(r'"([^"]*)"', value or "")
    return m.group(1) if m else None

workspace = unquote(toml_section("Cargo.toml", "workspace.package").get("version"))
if not workspace:
    sys.exit("check-versions: FAILED: Cargo.toml has no [workspace.package] version")

checked, problems = [("Cargo.toml [workspace.package]", workspace)], []

members = re.findall(r'"([^"]+)"', toml_section("Cargo.toml", "workspace").get("members", ""))
for member in members:
    path = os.path.join(member, "Cargo.toml")
    if not os.path.exists(path):
        continue
    package = toml_section(path, "package")
    if package.get("version.workspace") == "true":
        checked.append((path, workspace + " (version.workspace)"))
    elif unquote(package.get("version")) is not None:
        version = unquote(package.get("version"))
        checked.append((path, version))
        if version != workspace:
            problems.append(f"{path}: version {version} != workspace {workspace}")
    else:
        problems.append(f"{path}: no version (use version.workspace = true)")

if os.path.exists("pyproject.toml"):
    project = toml_section("pyproject.toml", "project")
    if "version" in project.get("dynamic", ""):
        checked.append(("pyproject.toml", "dynamic (from the crate)"))
    else:
        version = unquote(project.get("version"))
        checked.append(("pyproject.toml", version))
        if version != workspace:
            problems.append(f"pyproject.toml: version {version} != workspace {workspace}")

init = os.path.join("bindings", "python", "earlyexit", "__init__.py")
if os.path.exists(init):
    with open(init, encoding="utf-8") as f:
        m = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", f.read(), re.M)
    if m:  # a literal version; one read from package metadata needs no check
        checked.append((init, m.group(1)))
        if m.group(1) != workspace:
            problems.append(f"{init}: __version__ {m.group(1)} != workspace {workspace}")

manifests = ["package.json"] + sorted(
    p for p in glob.glob("bindings/**/package.json", recursive=True)
    if "node_modules" not in p.split(os.sep) and not re.search(r"(^|/)pkg[^/]*/", p)
)
for path in manifests:
    if not os.path.exists(path):
        continue
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if "version" not in data:
        if data.get("private"):
            checked.append((path, "private, no version"))
            continue
        problems.append(f"{path}: no version")
        continue
    checked.append((path, data["version"]))
    if data["version"] != workspace:
        problems.append(f"{path}: version {data['version']} != workspace {workspace}")
    for field in ("dependencies", "optionalDependencies", "peerDependencies"):
        for name, spec in (data.get(field) or {}).items():
            if name.startswith("earlyexit") and spec.lstrip("=^~") != workspace and not spec.startswith(("file:", "workspace:")):
                problems.append(f"{path}: {field}.{name} is {spec}, expected {workspace}")

# --- one Node minimum ------------------------------------------------------------------
NODE = r"Node(?:\.js)?"
CLAIMS = [
    re.compile(NODE + r"\s+(\d+)(?:\.\d+)*\s*(?:\+|or later|or newer|and later|and up)"),
    re.compile(NODE + r"\s*>=\s*(\d+)"),
    re.compile(r"\b(?:requires|needs|need)\s+" + NODE + r"\s+(\d+)"),
    re.compile(r"\bfrom\s+" + NODE + r"\s+(\d+)\s+on\b"),
]
minimums = []  # (where, major)
for path in manifests:
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            node = (json.load(f).get("engines") or {}).get("node")
        if node is not None:
            m = re.fullmatch(r">=\s*(\d+)(?:\.\d+)*", node.strip())
            if m is None:
                problems.append(f"{path}: engines.node is {node!r}, expected '>=N'")
            else:
                minimums.append((f"{path} engines.node", int(m.group(1))))
skip = {"node_modules", "target", "test-output", ".venv", ".git", "pkg"}
texts = []
for top, dirs, files in os.walk("."):
    dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("pkg"))
    texts += [os.path.join(top, f)[2:] for f in sorted(files) if f.endswith(".md")]
texts += sorted(glob.glob("scripts/*.sh"))
for path in texts:
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            for claim in CLAIMS:
                for m in claim.finditer(line):
                    minimums.append((f"{path}:{number} ({m.group(0).strip()!r})", int(m.group(1))))
node_majors = sorted({major for _, major in minimums})
if len(node_majors) > 1:
    engine_majors = {major for where, major in minimums if "engines.node" in where}
    want = min(engine_majors) if engine_majors else node_majors[0]
    for where, major in minimums:
        if major != want:
            problems.append(f"{where}: Node minimum {major}, but {want} elsewhere (package.json engines)")
if node_majors:
    checked.append((f"Node minimum ({len(minimums)} statements)", " / ".join(str(m) for m in node_majors)))

width = max(len(p) for p, _ in checked)
for path, version in checked:
    print(f"  {path:<{width}}  {version}")
if problems:
    print("check-versions: FAILED:")
    for problem in problems:
        print(f"  {problem}")
    sys.exit(1)
print(f"check-versions: ok: {workspace} everywhere ({len(checked) - 1 if node_majors else len(checked)} files), one Node minimum")
PY
