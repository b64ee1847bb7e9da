#!/usr/bin/env python3
"""scripts/check_doc_links.py: every relative Markdown link of the
documentation (README.md, docs/, and every other .md of the tree) names a
file or folder that exists (ctest docs_links).

    python3 scripts/check_doc_links.py            every .md of the tree
    python3 scripts/check_doc_links.py --plant    the same plus one made-up page
                                                  whose link is broken: must fail

Links are `[text](target)` outside fenced code blocks and inline code;
a target is read relative to the page that holds it, without its `#anchor`.
Web links (`http:`, `https:`, `mailto:`) and bare anchors are not checked.
Every page under docs/ must also be reached by a link from README.md or from
another docs/ page, so nothing there is orphaned. Standard library only.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"`[^`]*`")


def pages():
    """Every Markdown file of the tree, build folders and npm modules aside."""
    found = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not (d.startswith((".", "build")) or d == "node_modules"))
        found += [os.path.join(top, f) for f in sorted(files) if f.endswith(".md")]
    return found


def links(text):
    """(line number, target) of every link outside code."""
    fenced = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in LINK.finditer(CODE.sub("", line)):
            yield n, m.group(1)


def check(docs):
    """docs: (path shown, its directory, its text). Returns the problems
    and the set of files the links reach."""
    bad, reached = [], set()
    for shown, folder, text in docs:
        for n, target in links(text):
            if re.match(r"^(https?|mailto):", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(folder, target.split("#", 1)[0]))
            if not os.path.exists(path):
                bad.append(f"{shown}:{n}: link to {target}: no such file ({os.path.relpath(path, ROOT)})")
            reached.add(path)
    return bad, reached


def main():
    docs = []
    for p in pages():
        with open(p, encoding="utf-8") as f:
            docs.append((os.path.relpath(p, ROOT), os.path.dirname(p), f.read()))
    if "--plant" in sys.argv[1:]:  # a page with a link to nothing: the check must catch it
        docs.append(("docs/planted.md", os.path.join(ROOT, "docs"), "See [the missing page](commands/no-such-page.md).\n"))
    bad, reached = check(docs)
    for shown, _, _ in docs:
        if shown.startswith("docs/") and shown != "docs/planted.md" and os.path.join(ROOT, shown) not in reached:
            bad.append(f"{shown}: no link from README.md or another docs/ page reaches it")
    for b in bad:
        print("FAIL: " + b)
    n_links = sum(1 for _, _, t in docs for _ in links(t))
    print(f"docs_links: {len(docs)} pages, {n_links} links, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
