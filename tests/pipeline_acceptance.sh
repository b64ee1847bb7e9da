#!/usr/bin/env bash
# pipeline_acceptance.sh LFA: a pipeline's day on a table the pinned Lance 12
# writes (interop/pipeline.mjs: 60,000 rows in fragments 0, 1, 2 of 20,000,
# then ids 0 to 1,999, fragment 0's offsets 0 to 1,999, deleted): verify it,
# track a field, invalidate 50,000 rows from a file in one commit, read the
# count, and Lance reads the table again. Expected values by hand: the first
# 50,000 live addresses are fragment 0's offsets 2,000 to 19,999 (18,000),
# all of fragment 1 (20,000) and fragment 2's offsets 0 to 11,999 (12,000),
# so 8,000 of the 58,000 live rows stay assigned (FA-INVAL-1); tracked with
# the writer bit alone, Lance 12 reads the table and refuses to write it
# (03§1). Exit 77 (LFA_SKIP_LANCE=1): skipped.
. "$(dirname "$0")/cli/lib_cli.sh" "$1"
if [ "${LFA_SKIP_LANCE:-}" = 1 ]; then echo "pipeline acceptance: skipped because LFA_SKIP_LANCE=1"; exit 77; fi
[ -f interop/lance12/node_modules/@lancedb/lancedb/package.json ] ||
  { echo "FAIL: the Lance 12 peer is not installed (interop/lance12/node_modules; run scripts/peers.sh)"; exit 1; }
node interop/pipeline.mjs --write "$tmp/db" >"$tmp/w.out" 2>&1 || { cat "$tmp/w.out"; echo "FAIL: Lance 12 wrote no table"; exit 1; }
t="$tmp/db/t.lance"
addr() { echo $((($1 << 32) | $2)); }
{ for o in $(seq 2000 19999); do addr 0 "$o"; done
  for o in $(seq 0 19999); do addr 1 "$o"; done
  for o in $(seq 0 11999); do addr 2 "$o"; done; } >"$tmp/rows.txt"

check "Lance 12 wrote 58,000 live rows" grep -qx "rows 58000" "$tmp/w.out"
check "the table verifies clean" sh -c "'$lfa' verify '$t' | tail -1 | grep -q ': 0 errors, 0 warnings'"
check "50,000 rows in the file" test "$(wc -l <"$tmp/rows.txt")" -eq 50000
check "track v, writer bit only: version 5" sh -c "'$lfa' track '$t' --field v --initial assigned --writer-bit-only | grep -q 'committed version 5'"
check "invalidate the 50,000 rows in one commit: version 6" sh -c "'$lfa' invalidate '$t' --field v --rows-from '$tmp/rows.txt' | grep -q 'committed version 6'"
check "one commit: version 6 is the head" sh -c "'$lfa' dump '$t' | grep -c '^version' | grep -qx 6"
check "the count: 8,000 of 58,000 live rows assigned" sh -c "'$lfa' eval '$t' --field v --count | tail -1 | grep -qx 'totals: 58000 live rows, 8000 assigned, 50000 unassigned'"
cat >"$tmp/by.want" <<'TXT'
fragment 0: 20000 physical rows, 2000 deleted, 18000 live: 0 assigned, 18000 unassigned
fragment 1: 20000 physical rows, 0 deleted, 20000 live: 0 assigned, 20000 unassigned
fragment 2: 20000 physical rows, 0 deleted, 20000 live: 8000 assigned, 12000 unassigned
totals: 58000 live rows, 8000 assigned, 50000 unassigned
TXT
check "the count per fragment" sh -c "'$lfa' eval '$t' --field v --count --by-fragment | tail -n +2 | diff - '$tmp/by.want'"
check "dump agrees: fragment 2 has 8000 of 20000 live rows assigned" sh -c "'$lfa' dump '$t' --version 6 | grep -q 'fragment 2: partial, 8000 of 20000 live rows assigned (bitmap 8000 offsets, 20000 physical, 0 deleted)'"
flag2=$("$lfa" verify "$t" | grep 'warning FA-FLAG-2' | sed 's/ _versions.*//' | tr '\n' ' ')
check "verify: FA-FLAG-2 once, at 5 where the policy starts" test "$flag2" = "version 5: warning FA-FLAG-2 "
check "verify: no error" sh -c "'$lfa' verify '$t' | tail -1 | grep -q ': 0 errors, 1 warning'"
node interop/pipeline.mjs --read "$tmp/db" >"$tmp/r.out" 2>&1
check "Lance 12 still reads the 58,000 rows" grep -qx "rows 58000" "$tmp/r.out"
check "... and refuses to write the tracked table (no lfa untrack yet)" grep -q "^append: refused" "$tmp/r.out"
finish
