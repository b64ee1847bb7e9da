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
check "lfa --help names --rows-from, --count and verify's --since-last and --strict" sh -c "'$lfa' --help | grep -q -- '--rows-from FILE' &&
  '$lfa' --help | grep -q -- '--count \\[--by-fragment\\] | --ranges' && '$lfa' --help | grep -q -- '--since-last STATEFILE\\] \\[--full\\] \\[--strict' &&
  '$lfa' --help | grep -q 'dump DATASET \\[--version N\\] \\[--rows\\]'"
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
check "--rows takes numbers" refused "--rows: expected a row address" invalidate "$tmp/s" --field text --rows 1,x
# --rows-from / --row-ids-from: fragment 1 holds offsets 0 to 9, all live and
# assigned at 7 but offset 3; one number a line, or comma-separated
f1() { echo $(((1 << 32) | $1)); }
printf '%s\n\n%s, %s\r\n' "$(f1 4)" "$(f1 5)" "$(f1 6)" >"$tmp/rows.txt"
check "--rows-from a file: three rows in one commit" sh -c "'$lfa' invalidate '$tmp/s' --field text --rows-from '$tmp/rows.txt' | grep -q 'committed version 8'"
check "three more rows unassigned at 8" assigned 8 18 22
check "--rows-from - reads stdin" sh -c "f1=$(f1 7); echo \$f1 | '$lfa' invalidate '$tmp/s' --field text --rows-from - | grep -q 'committed version 9'"
check "one more row unassigned at 9" assigned 9 17 22
# item 8: the rows in the user's words, the line of the file named
check "a row named twice is refused as a row address" refused "row address $(f1 8) is named twice (fragment 1, offset 8)" invalidate "$tmp/s" --field text --rows "$(f1 8),$(f1 8)"
printf '%s\n%s\n' "$(f1 8)" "$(f1 8)" >"$tmp/twice.txt"
printf '%s\n9x\n' "$(f1 8)" >"$tmp/bad.txt"
printf '1,,2\n' >"$tmp/empty.txt"
: >"$tmp/none.txt"
check "a row named twice across lines is refused too" refused "row address $(f1 8) is named twice" invalidate "$tmp/s" --field text --rows-from "$tmp/twice.txt"
check "a bad byte names the file and its line" refused "bad.txt line 2: expected a row address" invalidate "$tmp/s" --field text --rows-from "$tmp/bad.txt"
check "an empty entry is refused with its line" refused "line 1: a comma with no number before it" invalidate "$tmp/s" --field text --rows-from "$tmp/empty.txt"
check "an empty file names no row" refused "names no row address" invalidate "$tmp/s" --field text --rows-from "$tmp/none.txt"
check "a missing file is refused" refused "cannot open it" invalidate "$tmp/s" --field text --rows-from "$tmp/missing.txt"
check "--row-ids-from needs stable row ids" refused "stable row ids" invalidate "$tmp/s" --field text --row-ids-from "$tmp/rows.txt"
check "one list only" refused "once" invalidate "$tmp/s" --field text --rows 0 --rows-from "$tmp/rows.txt"
check "a number past 2^64-1 is refused" refused "at most 2^64-1" invalidate "$tmp/s" --field text --rows 18446744073709551616
# LFA_ONTO_ROWS_MAX is 2^24 (onto.h): one more row is refused while reading
check "more rows than one commit takes" sh -c "seq 0 16777216 | '$lfa' invalidate '$tmp/s' --field text --rows-from - 2>&1 >/dev/null | grep -q 'more than 16777216 rows'"
# item 8: refusals speak of the rows and fields the user gave, never of the
# mutation lfa plans (an "update"), nor of keys
words() { # the command's arguments: its one stderr line names no internal word
  "$lfa" "$@" >/dev/null 2>"$tmp/w.err"
  [ -s "$tmp/w.err" ] || { echo "no refusal"; return 1; }
  ! sed 's/^lfa [a-z]*: [^:]*: //' "$tmp/w.err" | grep -qiE 'update:|track:|\bkey' || { cat "$tmp/w.err"; return 1; }
}
check "an untracked field: no mutation name" words invalidate "$tmp/s" --field id --rows 0
check "an unknown field: no mutation name" words invalidate "$tmp/s" --field nope --rows 0
check "a row named twice: no key" words invalidate "$tmp/s" --field text --rows 0,0
check "a tracked field tracked again: no mutation name" words track "$tmp/s" --field embedding --initial assigned
check "verify finds no error" "$lfa" verify "$tmp/s"
# 03§1: a table tracked with the writer bit alone keeps that policy; facts of
# the shared dataset by its README (one field, x, versions 1 and 2)
cp -r ../shared/lance-test-data/0.36.0/btree_in_index_pkg.lance "$tmp/w"
chmod -R u+w "$tmp/w"
check "track --writer-bit-only on a Lance table" sh -c "'$lfa' track '$tmp/w' --field x --initial assigned --writer-bit-only | grep -q 'version 3 .*in the writer word only'"
check "a later invalidate keeps the writer bit alone" sh -c "'$lfa' invalidate '$tmp/w' --field x --rows 0 | grep -q 'version 4 .*in the writer word only' &&
  '$lfa' dump '$tmp/w' --version 4 | grep -q 'reader flags 0, writer flags 4503599627370496 (field_assignment)'"
check "--reader-bit sets both words after all" sh -c "'$lfa' invalidate '$tmp/w' --field x --rows 1 --reader-bit | grep -q 'version 5 .*in both feature words' &&
  '$lfa' dump '$tmp/w' --version 5 | grep -q 'reader flags 4503599627370496 (field_assignment), writer flags 4503599627370496 (field_assignment)'"
# 10§2: the writer bit alone (v3, kept at v4) is warned about once, where it
# starts; --strict at each version that keeps it; v5 has both bits
flag2() { "$lfa" verify "$tmp/w" "$@" | grep 'warning FA-FLAG-2' | sed 's/: warning.*//' | tr '\n' ' '; }
check "FA-FLAG-2 once, at the version that set the policy" test "$(flag2)" = "version 3 "
check "--strict: at every version that keeps it" test "$(flag2 --strict)" = "version 3 version 4 "
# FA-LANCE-12: Lance 0.7.5 wrote no physical_rows (0, unknown; the shared
# data's README): tracking would commit a version no reader may load
cp -r ../shared/lance-test-data/v0.7.5/with_deletions "$tmp/old"
chmod -R u+w "$tmp/old"
files() { find "$tmp/old" -type f | wc -l; }
check "a table without physical_rows is not tracked" refused "fragment 0 of version 2 has physical_rows 0" track "$tmp/old" --field x --initial assigned
check "... and stays as Lance wrote it" sh -c "'$lfa' verify '$tmp/old' | tail -1 | grep -q '2 versions checked (1 to 2): 0 errors'"
files() { find "$tmp/s" -type f | wc -l; }
check "--writer-bit-only and --reader-bit contradict" refused "contradict" invalidate "$tmp/w" --field x --rows 2 --writer-bit-only --reader-bit
finish
