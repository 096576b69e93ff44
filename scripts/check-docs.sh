#!/usr/bin/env bash
# User docs speak of the product and point at files that exist. Over README.md,
# CONTRIBUTING.md, docs/**/*.md and every README.md under core/, bindings*/ and examples/
# (tests/vectors/README.md is developer text and is not checked), it fails on:
#   shared   a `../shared` path (a user's clone has no ../shared; name a variable instead)
#   issue    "issue N" (user docs never cite issues)
#   path     a repository path that does not exist: markdown link targets (relative to the
#            page), and words in `code` spans and fenced blocks that start with a top-level
#            folder of the repository, today's or a former one (bindings-node/, js/, ...).
#            A path passes when git tracks it (file or folder) or .gitignore covers it (a
#            build output such as bindings/wasm/pkg/). A `:LINE` suffix is ignored; words
#            with * { < $ are patterns, not paths.
#   length   README.md over 250 lines
#
#   scripts/check-docs.sh [--list]    --list: print every violation, allowed or not
#
# scripts/check-docs-allow.txt lists the violations known when this check was written, one
# `FILE | KIND | TEXT` per line (`README.md | length` for the length); they pass. An allowed
# violation that is gone fails too (delete its line), so the list only shrinks, and the
# docs renovation empties it. Exit 0: no violation outside the list and no stale line.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - "$@" <<'PY'
import glob, os, re, subprocess, sys

LIST = "--list" in sys.argv[1:]
ALLOW_FILE = "scripts/check-docs-allow.txt"
README_MAX = 250
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
        and t.split("/")[0] in ("core", "bindings", "bindings-node", "bindings-python", "bindings-wasm", "examples")))
)
docs = [d for d in docs if d in files]

SHARED = re.compile(r"\.\./shared\b[^\s`)\"',;]*")
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
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
    if doc == "README.md" and len(lines) > README_MAX:
        found.append((doc, len(lines), "length", ""))
    fenced = False
    for n, line in enumerate(lines, 1):
        for m in SHARED.finditer(line):
            found.append((doc, n, "shared", m.group(0)))
        for m in ISSUE.finditer(line):
            found.append((doc, n, "issue", m.group(0)))
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

allowed = set()
if os.path.exists(ALLOW_FILE):
    with open(ALLOW_FILE, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) == 2:
                parts.append("")
            if len(parts) != 3 or parts[1] not in ("shared", "issue", "path", "length"):
                print(f"{ALLOW_FILE}:{n}: expected `FILE | KIND | TEXT` (KIND shared, issue, path or length): {line}")
                sys.exit(1)
            allowed.add(tuple(parts))

bad = [v for v in found if (v[0], v[2], v[3]) not in allowed]
seen = {(v[0], v[2], v[3]) for v in found}
stale = sorted(a for a in allowed if a not in seen)
if LIST:
    for doc, n, kind, text in found:
        mark = "" if (doc, kind, text) in allowed else "  (not allowed)"
        print(f"{doc}:{n}: {kind}: {text}{mark}")
for doc, n, kind, text in bad:
    what = {"shared": "a ../shared path", "issue": "cites an issue", "path": "no such file in the repository",
            "length": f"{n} lines, over {README_MAX}"}[kind]
    print(f"check-docs: {doc}:{n}: {kind}: {what}{': ' + text if text else ''}")
for doc, kind, text in stale:
    print(f"check-docs: {ALLOW_FILE} allows `{doc} | {kind}{' | ' + text if text else ''}`, which no longer occurs: delete the line")
print(f"check-docs: {len(docs)} pages, {len(found)} violations, {len(found) - len(bad)} of them allowed, "
      f"{len(bad)} not allowed, {len(stale)} stale allowances")
sys.exit(1 if bad or stale else 0)
PY
