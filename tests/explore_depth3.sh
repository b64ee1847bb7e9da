#!/usr/bin/env bash
# explore_depth3.sh: `lfa explore --depth 3 --concurrent` in one row-id
# mode ($2: address or stable; ctest runs both side by side), the
# acceptance depth of the explorer: every history of three
# operations and every concurrent pair from every state one operation
# deep, with no disagreement, and with every restore those histories make
# run from a path that shows its earlier state (none uncovered: below
# depth 4 the pairs of harness/explore_graph.c cover them all). Some
# restores must have needed a later path, or the test would not show that
# paths are kept. Run by ctest (optimized build only: about seven minutes
# of one core per mode) with the built lfa as $1.
set -euo pipefail
lfa=$1 mode=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$lfa" explore --depth 3 --mode "$mode" --concurrent --json >"$out" || status=$?
python3 - "$out" "$status" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
status = int(sys.argv[2])
problems = []
if status != 0 or r["disagreements"] != 0:
    problems.append(f"exit {status}, disagreement: {json.dumps(r.get('disagreement'))}")
if r["uncovered_restores"] != 0:
    problems.append(f"{r['uncovered_restores']} restores not covered")
if r["paths_kept"] == 0:
    problems.append("no later path was kept for a restore")
levels = r["levels"]
if not (levels[3]["histories"] > levels[2]["histories"] > levels[1]["histories"] > 0):
    problems.append(f"histories per depth do not grow: {[l['histories'] for l in levels]}")
if r["pairs"] == 0 or not r["conflicts"]:
    problems.append("no concurrent pair ran or none was refused")
for p in problems:
    print("explore_depth3:", p)
print(f"explore_depth3: {r['histories']} histories, {r['distinct_states']} states, "
      f"{r['pairs']} pairs, {r['milliseconds'] / 1000:.0f} s")
sys.exit(1 if problems else 0)
PY
