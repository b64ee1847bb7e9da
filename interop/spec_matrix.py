#!/usr/bin/env python3
"""spec_matrix.py: the released-writer tables of spec/C-released-lance.md.

    spec_matrix.py check SPEC RELEASE TABLE   exit 1 when SPEC's table for RELEASE differs from TABLE
    spec_matrix.py write SPEC RELEASE TABLE   put TABLE into SPEC, between the release's markers

TABLE is what interop/matrix.mjs --markdown wrote.
"""
import sys


def split(spec, release):
    start = "<!-- matrix: %s -->\n" % release
    end = "<!-- end of matrix: %s -->" % release
    a = spec.index(start) + len(start)
    b = spec.index(end)
    return spec[:a], spec[a:b], spec[b:]


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("check", "write"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mode, spec_path, release, table_path = sys.argv[1:]
    spec = open(spec_path).read()
    table = open(table_path).read()
    head, old, tail = split(spec, release)
    if mode == "write":
        open(spec_path, "w").write(head + table + tail)
        return 0
    if old == table:
        print("%s: spec/C-released-lance.md agrees with the measurement" % release)
        return 0
    print("%s: spec/C-released-lance.md differs from the measurement (scripts/released_matrix.sh writes it):" % release)
    olds, news = old.splitlines(), table.splitlines()
    for line in news:
        if line not in olds:
            print("  measured: " + line)
    for line in olds:
        if line not in news:
            print("  spec:     " + line)
    return 1


if __name__ == "__main__":
    sys.exit(main())
