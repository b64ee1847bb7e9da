#!/usr/bin/env bash
# cli_explore.sh: `lfa explore` from the outside. Its options are strict
# and --help teaches them; a known-bad oracle (--plant-oracle-bug: its
# delete forgets the last of several rows) is caught at depth 1, shrunk to
# a create and one delete, and written as a scenario that `lfa run` parses
# and that then fails on the reference writer at that delete (exit 1, not
# 2): the disagreement stays found. The clean exploration itself is ctest
# `explore_ci`. Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

says() { grep -qF -- "$1" "$tmp/cmd.out" "$tmp/cmd.err" || { echo "output does not say: $1"; cat "$tmp/cmd.out" "$tmp/cmd.err"; return 1; }; }

check "--help exits 0" exits 0 "$lfa" explore --help
check "...and teaches every option" bash -c "for o in --depth --mode --concurrent --json --scenario --plant-oracle-bug; do grep -q -- \"\$o\" '$tmp/cmd.out' || exit 1; done"
check "the front door lists explore" bash -c "'$lfa' --help | grep -q 'explore \[--depth K\]'"
check "depth 0 is refused" exits 2 "$lfa" explore --depth 0
check "depth past the bound is refused" exits 2 "$lfa" explore --depth 7
check "an unknown mode is refused" exits 2 "$lfa" explore --mode sideways
check "an option twice is refused" exits 2 "$lfa" explore --json --json
check "an unknown option is refused" exits 2 "$lfa" explore --deep 2
check "a positional argument is refused" exits 2 "$lfa" explore somewhere
check "a concurrent pair needs two operations of the depth" exits 2 "$lfa" explore --depth 1 --concurrent
check "...and says so" says "--concurrent needs depth 2"

check "the planted oracle bug is caught" exits 1 "$lfa" explore --depth 1 --mode address --plant-oracle-bug --json \
  --scenario "$tmp/explore_counterexample.json"
check "...and reported as one disagreement" says '"disagreements": 1'
check "...shrunk to the create and one delete" python3 -c "
import json, sys
r = json.load(open('$tmp/cmd.out'))['disagreement']
h = r['history']
assert len(h) == 2 and h[0].startswith('create') and h[1].startswith('delete'), h
assert 'live rows' in r['difference'], r"
check "...written as a scenario lfa run parses and fails at the delete" exits 1 "$lfa" run "$tmp/explore_counterexample.json" "$tmp/ce_out"
check "...naming that step" says "step 1 (delete"
check "a clean exploration exits 0" exits 0 "$lfa" explore --depth 1 --mode stable --json
check "...with the report's parts" python3 -c "
import json
r = json.load(open('$tmp/cmd.out'))
assert r['disagreements'] == 0 and r['disagreement'] is None
assert r['distinct_states'] > 12 and r['histories'] == r['levels'][1]['runs'] > 0
assert r['refusals'].get('FA-SEM-5', 0) > 0 and r['refusals'].get('FA-INVAL-2', 0) > 0"
finish
