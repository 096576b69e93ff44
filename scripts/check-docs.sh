#!/usr/bin/env bash
# User docs speak of the product and point at files that exist. Over README.md,
# CONTRIBUTING.md, docs/**/*.md and every README.md under core/, cli/, bindings/ and examples/
# (tests/vectors/README.md is developer text and is not checked), it fails on:
#   shared   a `../shared` path (a user's clone has no ../shared; name a variable instead)
#   issue    "issue N" (user docs never cite the project's tracker), or "session" outside
#            `code` spans and fenced blocks (in code it is the MCP server's argument name)
#   path     a repository path that does not exist: markdown link targets (relative to the
#            page), and words in `code` spans and fenced blocks that start with a top-level
#            folder of the repository, today's or a former one (bindings-node/, js/, ...).
#            A path passes when git tracks it (file or folder) or .gitignore covers it (a
#            build output such as bindings/wasm/pkg/). A `:LINE` suffix is ignored; words
#            with * { < $ are patterns, not paths.
#   seed     "the seed", "seed's" or "seed rules" outside `code` spans: the docs speak of
#            the original modules by name (`early-stopping.mjs`) or as "the original"; the
#            word seed names only the `seed` preset, in code
#   adr      "ADR-033" anywhere but README.md's opening paragraph (once: the compatibility
#            sentence) and docs/README.md
#   length   README.md over 250 lines; a package's README (bindings/{python,node,wasm}/,
#            core/) over 120
#
# Exit 0: no finding. Each finding is printed as FILE:LINE: KIND: what.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - "$@" <<'PY'
import glob, os, re, subprocess, sys

README_MAX = 250
PACKAGE_README_MAX = 120
PACKAGE_READMES = ("bindings/python/README.md", "bindings/node/README.md", "bindings/wasm/README.md", "core/README.md", "cli/README.md")
# Top-level folders a path in the docs may start with: today's and former layouts' (so a
# path into a folder that moved is caught).
ROOTS = ("bench", "bindings", "bindings-node", "bindings-python", "bindings-wasm", "cli", "core",
         "docs", "examples", "fuzz", "js", "python", "scripts", "tests")

tracked = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
tracked = [t for t in tracked if t]
files = set(tracked)
folders = {os.path.dirname(t) for t in tracked}
for t in list(folders):
    while t:
        t = os.path.dirname(t)
        folders.add(t)

def ignored(path):
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", path]).returncode == 0

def exists(path):
    path = os.path.normpath(path)
    return path in files or path in folders or ignored(path)

docs = ["README.md", "CONTRIBUTING.md"] + sorted(
    t for t in tracked
    if t.endswith(".md") and (t.startswith("docs/") or (os.path.basename(t) == "README.md"
        and t.split("/")[0] in ("core", "cli", "bindings", "examples")))
)
docs = [d for d in docs if d in files]

SHARED = re.compile(r"\.\./shared\b[^\s`)\"',;]*")
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
SESSION = re.compile(r"\bsessions?\b", re.IGNORECASE)
SEED = re.compile(r"\bthe\s+seeds?\b|\bseed's\b|\bseed\s+rules\b", re.IGNORECASE)
ADR = re.compile(r"\bADR-033\b")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SPAN = re.compile(r"`([^`\n]+)`")
WORD_PATH = re.compile(r"^(?:\./)?((?:%s)/[^\s]*)$" % "|".join(re.escape(r) for r in ROOTS))

found = []  # (file, line, kind, text)

def check_word(doc, n, word):
    word = word.strip("'\"()[],;.:")
    m = WORD_PATH.match(word)
    if not m:
        return
    path = m.group(1)
    if any(c in path for c in "*{<$…"):
        return
    path = re.sub(r":\d+(?:[-,]\d+)*$", "", path).rstrip(".,;:")
    path = path.split("#", 1)[0]
    if path and not exists(path):
        found.append((doc, n, "path", path))

for doc in docs:
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    limit = README_MAX if doc == "README.md" else PACKAGE_README_MAX if doc in PACKAGE_READMES else None
    if limit is not None and len(lines) > limit:
        found.append((doc, len(lines), "length", f"{len(lines)} lines, over {limit}"))
    # README.md's opening paragraph: the lines before its first `##` heading.
    opening = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines)) if doc == "README.md" else 0
    adr_seen = 0
    fenced = False
    for n, line in enumerate(lines, 1):
        for m in SHARED.finditer(line):
            found.append((doc, n, "shared", m.group(0)))
        for m in ISSUE.finditer(line):
            found.append((doc, n, "issue", m.group(0)))
        if not fenced and not line.lstrip().startswith("```"):
            for m in SESSION.finditer(SPAN.sub("", line)):
                found.append((doc, n, "issue", m.group(0)))
        for m in SEED.finditer(line if fenced else SPAN.sub("", line)):
            found.append((doc, n, "seed", m.group(0)))
        for m in ADR.finditer(line):
            adr_seen += 1
            if doc != "docs/README.md" and not (doc == "README.md" and n <= opening and adr_seen == 1):
                found.append((doc, n, "adr", m.group(0)))
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            for word in line.split():
                check_word(doc, n, word)
            continue
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            target = target.split("#", 1)[0]
            if not target:
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(doc), target))
            if path.startswith(".."):
                if not SHARED.search(target):  # ../shared is reported above
                    found.append((doc, n, "path", target))
            elif not exists(path):
                found.append((doc, n, "path", target))
        for m in SPAN.finditer(line):
            for word in m.group(1).split():
                check_word(doc, n, word)

WHAT = {"shared": "a ../shared path", "issue": "cites the tracker or a session", "path": "no such file in the repository",
        "seed": "say `early-stopping.mjs` or \"the original\"; `seed` only names the preset, in code",
        "adr": "ADR-033 belongs to README.md's opening sentence and docs/README.md only", "length": "too long"}
for doc, n, kind, text in found:
    print(f"check-docs: {doc}:{n}: {kind}: {WHAT[kind]}: {text}")
print(f"check-docs: {len(docs)} pages, {len(found)} findings")
sys.exit(1 if found else 0)
PY
