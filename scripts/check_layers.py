#!/usr/bin/env python3
"""check_layers.py: the layer graph of lfa's sources, checked.

Reads LAYERS (bottom first; each line: name, folder, the layers it uses,
what it holds), finds every `#include "..."` in each layer's folder,
resolves it to the layer that owns the header, and prints the graph between
layers (with the number of includes on each edge). Fails (exit 1), with no
exemption, on:
  - an include of a layer above the including one;
  - an include of a layer below it that its LAYERS line does not name: a
    layer may include only the layers it names directly (one it reaches
    through them is not enough), so the graph in LAYERS is the one the
    files have and the one CMake links;
  - a layer named in LAYERS that none of its files includes, and a LAYERS
    line naming a layer not listed before it;
  - an include that names no header of any layer;
  - a cycle of includes between files.

  scripts/check_layers.py                  check the tree
  scripts/check_layers.py --plant F:H      the same, as if file F also
                                           included header H ("lfa/x.h"):
                                           shows a planted edge is caught
The cli/, tests/, fuzz/, bench/, interop/ and conformance/ folders sit above
every layer: their includes are checked to resolve, never to be upward.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ABOVE = ["cli", "tests", "fuzz", "bench", "interop", "conformance"]


def read_layers():
    """[(name, folder)] bottom first, and {name: set of the layers it uses}."""
    layers, uses = [], {}
    with open(os.path.join(ROOT, "LAYERS")) as f:
        for line in f:
            if line[:1].isalpha():
                name, folder, used = line.split()[:3]
                layers.append((name, folder))
                uses[name] = set() if used == "-" else set(used.split(","))
    return layers, uses


def header_dirs(folder):
    """Where a layer's public headers live: <folder>/lfa or <folder>/include/lfa."""
    for d in (os.path.join(folder, "include"), folder):
        if os.path.isdir(os.path.join(ROOT, d, "lfa")):
            return d
    return folder


def sources(folder):
    for dirpath, _, names in os.walk(os.path.join(ROOT, folder)):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(dirpath, n), ROOT)


def main(argv):
    planted = []
    if len(argv) == 3 and argv[1] == "--plant" and ":" in argv[2]:
        planted.append(tuple(argv[2].split(":", 1)))
    elif len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    layers, uses = read_layers()
    rank = {name: i for i, (name, _) in enumerate(layers)}
    problems = []
    for name, _ in layers:
        for used in sorted(uses[name]):
            if rank.get(used, len(layers)) >= rank[name]:
                problems.append(f"LAYERS: {name} uses {used}, which is not a layer listed before it")
    owner = {}  # "lfa/x.h" -> layer name
    for name, folder in layers:
        d = os.path.join(ROOT, header_dirs(folder), "lfa")
        for h in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if h.endswith(".h"):
                if "lfa/" + h in owner:
                    print(f"lfa/{h}: in both {owner['lfa/' + h]} and {name}")
                    return 1
                owner["lfa/" + h] = name

    edges, file_edges = {}, {}
    groups = [(name, folder) for name, folder in layers] + [(None, a) for a in ABOVE]
    for name, folder in groups:
        for path in sources(folder):
            with open(os.path.join(ROOT, path), errors="replace") as f:
                incs = INCLUDE.findall(f.read())
            incs += [h for p, h in planted if p == path]
            for inc in incs:
                local = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                if path.startswith("tests/") and not os.path.exists(os.path.join(ROOT, local)):
                    local = os.path.join("tests", inc)  # tests/<layer>/ share the helpers of tests/ itself
                if inc in owner:
                    target, target_file = owner[inc], None
                    for n2, f2 in layers:
                        if n2 == target:
                            target_file = os.path.join(header_dirs(f2), inc)
                elif os.path.exists(os.path.join(ROOT, local)):
                    target, target_file = name, local  # a private header beside the file
                    if name is not None and not local.startswith(folder + "/"):
                        problems.append(f"{path}: includes {inc}, outside its layer's folder")
                elif inc.endswith(".pb-c.h") or os.path.exists(os.path.join(ROOT, "cmake", os.path.basename(inc) + ".in")):
                    continue  # generated from proto/ or cmake/, below every layer
                elif os.path.exists(os.path.join(ROOT, os.path.dirname(path), inc[:-2] + ".json")):
                    continue  # generated from a data file beside the includer (bench/design_states.json)
                else:
                    problems.append(f"{path}: includes {inc}, which no layer has")
                    continue
                file_edges.setdefault(path, set()).add(target_file)
                if name is None or target is None:
                    continue
                if rank[target] > rank[name]:
                    problems.append(f"{path}: layer {name} includes {inc} of layer {target}, above it")
                elif target != name and target not in uses[name]:
                    problems.append(f"{path}: layer {name} includes {inc} of layer {target}, "
                                    f"which its LAYERS line does not name")
                if target != name:
                    edges[(name, target)] = edges.get((name, target), 0) + 1

    for name, _ in layers:
        for used in sorted(uses[name] - {t for (s, t) in edges if s == name}):
            problems.append(f"LAYERS: {name} names {used}, but no file of {name} includes it")

    print("layer graph (bottom first; an edge is 'uses'):")
    for name, _ in layers:
        out = [f"{t} ({n})" for (s, t), n in sorted(edges.items(), key=lambda e: rank[e[0][1]]) if s == name]
        print(f"  {name:8} -> {', '.join(out) if out else '-'}")

    # a cycle of includes between files (each header guarded or not, it is a knot)
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(file_edges.get(node, ())):
            if state.get(nxt) == 1:
                problems.append("include cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(file_edges):
        if node not in state:
            visit(node, [])

    for p in problems:
        print("LAYERING: " + p)
    print(f"{len(layers)} layers, {sum(edges.values())} includes between layers, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
