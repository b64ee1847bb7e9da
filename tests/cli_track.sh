#!/usr/bin/env bash
# cli_track.sh: `lfa track` and `lfa invalidate` from the outside, on the
# sample (`lfa sample`: 22 live rows in fragments 0, 1 and 2; fragment 1 has
# ten rows and no deletion; `text` untracked, `embedding` tracked). The
# commits onto tables Lance wrote are the lane's (interop/onto_lane.mjs).
# Expected values by hand: Initialization(ASSIGNED) assigns every row (04§2,
# FA-PROJECT-4); an invalidation clears exactly the named rows (FA-INVAL-1);
# refusals (FA-TXN-8, FA-INVAL-2, FA-TXN-10) are one stderr line and write
# nothing. The feature words on an untracked head are test_onto's.
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"
"$lfa" sample "$tmp/s" >/dev/null || { echo "lfa sample failed"; exit 1; }
files() { find "$tmp/s" -type f | wc -l; }

refused() { # expected text on stderr, then the command's arguments: exit 2, one line, no file written
  local want=$1 before; before=$(files); shift
  "$lfa" "$@" >"$tmp/r.out" 2>"$tmp/r.err"; local got=$?
  [ "$got" -eq 2 ] || { echo "exit $got, expected 2: $*"; cat "$tmp/r.out" "$tmp/r.err"; return 1; }
  [ "$(wc -l <"$tmp/r.err")" -eq 1 ] || { echo "stderr is not one line:"; cat "$tmp/r.err"; return 1; }
  grep -qF -- "$want" "$tmp/r.err" || { echo "stderr lacks '$want':"; cat "$tmp/r.err"; return 1; }
  [ "$(files)" -eq "$before" ] || { echo "a refused commit wrote files"; return 1; }
}
assigned() { # version, expected count of assigned rows, expected count of rows
  "$lfa" eval "$tmp/s" --field text --version "$1" --json >"$tmp/e.json" &&
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"]; a=sum(x["assigned"] for x in r)
assert (a, len(r)) == (int(sys.argv[2]), int(sys.argv[3])), (a, len(r))' "$tmp/e.json" "$2" "$3"
}

check "track --help states the flag policy" sh -c "'$lfa' track --help | grep -q 'both feature words' &&
  '$lfa' track --help | grep -q 'Lance 8' && '$lfa' track --help | grep -q -- '--writer-bit-only' &&
  '$lfa' invalidate --help | grep -q -- '--row-ids'"
check "an unknown field is refused" refused "unknown field 'nope'" track "$tmp/s" --field nope --initial assigned
check "--initial is required" refused "--initial" track "$tmp/s" --field text
check "an untracked field is not invalidated" refused "FA-INVAL-2" invalidate "$tmp/s" --field text --rows 0
check "a tracked field is not tracked again" refused "FA-TXN-8" track "$tmp/s" --field embedding --initial assigned
check "track text assigned, writer bit only" sh -c "'$lfa' track '$tmp/s' --field text --initial assigned --writer-bit-only | grep -q 'committed version 6'"
check "every live row assigned at 6" assigned 6 22 22
check "fragment 1 offset 3 invalidated" sh -c "'$lfa' invalidate '$tmp/s' --field text --rows $(((1 << 32) | 3)) | grep -q 'committed version 7'"
check "one row unassigned at 7" assigned 7 21 22
check "a row past the fragment is refused" refused "FA-TXN-10" invalidate "$tmp/s" --field text --rows $(((1 << 32) | 10))
check "row ids need stable row ids" refused "stable row ids" invalidate "$tmp/s" --field text --row-ids 0
check "--rows takes numbers" refused "--rows needs" invalidate "$tmp/s" --field text --rows 1,x
check "verify finds no error" "$lfa" verify "$tmp/s"
# 03§1: a table tracked with the writer bit alone keeps that policy; facts of
# the shared dataset by its README (one field, x, versions 1 and 2)
cp -r ../shared/lance-test-data/0.36.0/btree_in_index_pkg.lance "$tmp/w"
chmod -R u+w "$tmp/w"
check "track --writer-bit-only on a Lance table" sh -c "'$lfa' track '$tmp/w' --field x --initial assigned --writer-bit-only | grep -q 'version 3 .*in the writer word only'"
check "a later invalidate keeps the writer bit alone" sh -c "'$lfa' invalidate '$tmp/w' --field x --rows 0 | grep -q 'version 4 .*in the writer word only' &&
  '$lfa' dump '$tmp/w' --version 4 | grep -q 'reader flags 0, writer flags 65536 (field_assignment)'"
check "--reader-bit sets both words after all" sh -c "'$lfa' invalidate '$tmp/w' --field x --rows 1 --reader-bit | grep -q 'version 5 .*in both feature words' &&
  '$lfa' dump '$tmp/w' --version 5 | grep -q 'reader flags 65536 (field_assignment), writer flags 65536 (field_assignment)'"
check "--writer-bit-only and --reader-bit contradict" refused "contradict" invalidate "$tmp/w" --field x --rows 2 --writer-bit-only --reader-bit
# [FA-LANCE-12] a table old Lance wrote with physical_rows 0 ("unknown";
# lance-test-data/README.md: v0.7.5) cannot be tracked: the version a track
# committed would break the rule, so it is refused and nothing is written.
cp -r ../shared/lance-test-data/v0.7.5/with_deletions "$tmp/old"
check "track refuses a table with physical_rows 0" sh -c "
  before=\$(find '$tmp/old' -type f | wc -l)
  '$lfa' track '$tmp/old' --field x --initial assigned >/dev/null 2>'$tmp/old.err'; rc=\$?
  [ \$rc -eq 2 ] && grep -q 'FA-LANCE-12' '$tmp/old.err' && grep -q 'physical_rows 0' '$tmp/old.err' &&
    [ \$(find '$tmp/old' -type f | wc -l) -eq \$before ]"
finish
