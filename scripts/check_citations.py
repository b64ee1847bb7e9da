#!/usr/bin/env python3
"""check_citations.py: what the code may cite.

Code and scripts cite the spec as `05§5` (file 05, section 5; every spec
file numbers its sections from 1, so a bare "spec §5" is ambiguous) and
requirement ids as FA-...; they never cite an issue, or a note outside the
repository (the design notes the spec was written from). Facts needed from
those notes live in spec/02-lance-base.md. Exit 1 with each offending line.
"""
import re
import subprocess
import sys

PATTERNS = [
    (re.compile(r"\bissues? #?\d|\[issue\b|\(issue\b", re.I), "cites an issue"),
    (re.compile(r"lance-internals|upstream-poc|DESIGN\.md|style-anchors|shared/design|shared/seeds"),
     "cites a note outside the repository"),
    (re.compile(r"\bspec §\d"), "a bare 'spec §N' (which file? write 05§5)"),
    (re.compile(r"(?<!\d)\d\d-[a-z-]+\.md,? §\d"), "long form (write 05§5)"),
]
CODE = ["*.c", "*.h", "*.sh", "*.py", "*.mjs", "*.cmake", "*.in", "CMakeLists.txt", "*.json"]
DOCS = ["*.md"]  # prose may name a spec file in full, but cites no issue or outside note


def main():
    files = subprocess.check_output(["git", "ls-files", "--", *CODE], text=True).split()
    docs = set(subprocess.check_output(["git", "ls-files", "--", *DOCS], text=True).split())
    files += sorted(docs)
    bad = 0
    for path in files:
        if path == "scripts/check_citations.py":
            continue
        with open(path, errors="replace") as f:
            for n, line in enumerate(f, 1):
                for pat, why in PATTERNS[:2] if path in docs else PATTERNS:
                    if pat.search(line):
                        print(f"{path}:{n}: {why}: {line.strip()[:120]}")
                        bad += 1
    print(f"{len(files)} files, {bad} citations to fix")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
