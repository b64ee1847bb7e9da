#!/usr/bin/env bash
# cli_cleanup.sh: `lfa cleanup` from the outside: help, usage errors, the
# dry-run plan in JSON and text, a real run and `lfa verify` after it, an
# unreadable kept root that blocks, the grace period at its boundary, a
# clone that cannot be read. Expectations come from the sample's history as
# `lfa dump` shows it (derived below), never from the plan itself.
# Covers FA-CLEAN-1, FA-CLEAN-3, FA-CLEAN-5, FA-CLEAN-6, FA-CLEAN-9.
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

# The sample (`lfa sample`), as `lfa dump` shows it: v1 tracks nothing; v2
# tracks field 2 with the 0-byte root R2 (…0002.root); v3 and v4 share the
# root R6 (…0006.root) listing bitmaps B4 (fragment 0) and B5 (fragment 1);
# v5 has the root R9 (…0009.root) listing B4 and B5 again.
fa=_field_assignments
R2=$fa/roots/2/5a3b1e00-0000-4000-8000-000000000002.root
R6=$fa/roots/2/5a3b1e00-0000-4000-8000-000000000006.root
R9=$fa/roots/2/5a3b1e00-0000-4000-8000-000000000009.root
B4=$fa/bitmaps/2/0/5a3b1e00-0000-4000-8000-000000000004.rbm
B5=$fa/bitmaps/2/1/5a3b1e00-0000-4000-8000-000000000005.rbm
OLD=$fa/bitmaps/2/0/0000dead-0000-4000-8000-000000000001.rbm   # a failed attempt's, 10 days old
YOUNG=$fa/roots/2/0000dead-0000-4000-8000-000000000002.root     # a failed attempt's, 1 hour old

sample() { # dir: the sample with the two orphans and an old file outside _field_assignments/
  "$lfa" sample "$1" >/dev/null &&
    printf 'orphan' >"$1/$OLD" && touch -d '10 days ago' "$1/$OLD" &&
    printf 'young' >"$1/$YOUNG" && touch -d '1 hour ago' "$1/$YOUNG" &&
    printf 'x' >"$1/_deletions/0-9-9.arrow" && touch -d '30 days ago' "$1/_deletions/0-9-9.arrow"
}

cj() { # dataset, python assertions over `d` (the parsed --json document), then more lfa arguments
  local ds=$1 code=$2; shift 2
  "$lfa" cleanup --json "$ds" "$@" >"$tmp/c.json"
  python3 - "$tmp/c.json" "$code" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"dataset", "now", "grace_seconds", "dry_run", "blocked", "versions", "datasets", "objects",
                  "notes", "summary", "done"}, d.keys()
for o in d["objects"]:
    assert set(o) >= {"path", "size_bytes", "mtime", "age_seconds", "action", "reason", "rule", "referenced_by",
                      "message"}, o
    assert o["action"] in ("keep", "delete") and o["rule"].startswith("FA-CLEAN-"), o
obj = {o["path"]: o for o in d["objects"]}
ver = {v["version"]: v for v in d["versions"]}
s = d["summary"]
exec(sys.argv[2])
PY
}

files() { (cd "$1" && find _versions _field_assignments _deletions -type f | sort); }

# the command itself
check "cleanup --help teaches the rules and exit codes" bash -c "'$lfa' cleanup --help >'$tmp/h' &&
  grep -q -- '--dry-run' '$tmp/h' && grep -q 'grace period' '$tmp/h' && grep -q 'FA-CLEAN-3' '$tmp/h' &&
  grep -q '^Exit status: 0 done' '$tmp/h'"
check "cleanup without a dataset" exits 2 "$lfa" cleanup
check "cleanup of a missing directory: one line on stderr, nothing on stdout" bash -c "
  '$lfa' cleanup '$tmp/none' >'$tmp/o' 2>'$tmp/e'; [ \$? -eq 2 ] && [ ! -s '$tmp/o' ] &&
  [ \$(wc -l <'$tmp/e') -eq 1 ] && grep -q '_versions' '$tmp/e'"
check "sample with orphans" sample "$tmp/s"
check "a --keep-from that is not a number" exits 2 "$lfa" cleanup "$tmp/s" --keep-from x
check "a --keep-from past the newest version" exits 2 "$lfa" cleanup "$tmp/s" --keep-from 6
check "a --keep of a version that is not there" exits 2 "$lfa" cleanup "$tmp/s" --keep 9
check "an unknown option" exits 2 "$lfa" cleanup "$tmp/s" --force

# The plan of --keep-from 4 (default grace, 7 days), derived by hand:
# versions 1..3 removed, 4 retained, 5 latest. R2 is named by v2 only: it
# goes at once (FA-CLEAN-5). R6 is v4's, R9 v5's, B4 and B5 first reached
# by v4: kept (FA-CLEAN-1). OLD, named by nothing and 10 days old, goes;
# YOUNG, an hour old, stays (FA-CLEAN-5). The file in _deletions/ is not a
# candidate (FA-CLEAN-6). Dry run: nothing on disk changes.
files "$tmp/s" >"$tmp/before"
check "dry run plan (JSON)" cj "$tmp/s" "
assert d['dry_run'] is True and d['done'] is None and d['blocked'] is False
assert [v['version'] for v in d['versions'] if not v['kept']] == [1, 2, 3]
assert ver[4]['reason'] == 'retained' and ver[5]['reason'] == 'latest'
assert sorted(obj) == sorted(['$R2', '$R6', '$R9', '$B4', '$B5', '$OLD', '$YOUNG']), sorted(obj)
assert obj['$R2']['action'] == 'delete' and obj['$R2']['reason'] == 'removed_only'
assert obj['$R2']['referenced_by'] == {'dataset': 0, 'version': 2, 'kept': False}
for p in ('$R6', '$R9', '$B4', '$B5'):
    assert obj[p]['action'] == 'keep' and obj[p]['reason'] == 'reachable' and obj[p]['rule'] == 'FA-CLEAN-1', obj[p]
assert obj['$R6']['referenced_by']['version'] == 4 and obj['$B4']['referenced_by']['version'] == 4
assert obj['$OLD']['action'] == 'delete' and obj['$OLD']['reason'] == 'expired' and obj['$OLD']['referenced_by'] is None
assert obj['$OLD']['age_seconds'] >= 10 * 86400
assert obj['$YOUNG']['action'] == 'keep' and obj['$YOUNG']['reason'] == 'young'
assert s == {'versions_removed': 3, 'versions_kept': 2, 'objects_deleted': 2, 'bytes_deleted': 6,
             'objects_kept': 5, 'errors': 0, 'notes_dropped': 0}, s
assert d['notes'] == [] and [x['kind'] for x in d['datasets']] == ['self']
" --keep-from 4 --dry-run
files "$tmp/s" >"$tmp/after"
check "dry run deletes nothing" cmp "$tmp/before" "$tmp/after"
check "dry run plan (text)" bash -c "'$lfa' cleanup '$tmp/s' --keep-from 4 --dry-run >'$tmp/t' &&
  grep -q '^  remove version 3 (_versions/3.manifest)' '$tmp/t' &&
  grep -q '^  keep   version 5 (latest)' '$tmp/t' &&
  grep -q '^  delete $R2 (0 bytes): referenced only by removed versions (version 2) \[FA-CLEAN-5\]' '$tmp/t' &&
  grep -q '^  keep   $B4 .*reached by version 4 \[FA-CLEAN-1\]' '$tmp/t' &&
  grep -q '^  delete $OLD (6 bytes): unreferenced, .* past the grace period \[FA-CLEAN-5\]' '$tmp/t' &&
  grep -q 'would remove 3 versions and delete 2 objects (6 bytes); 5 objects kept' '$tmp/t'"

# the real run: exactly the plan; the kept versions verify without error
check "real run" exits 0 "$lfa" cleanup "$tmp/s" --keep-from 4
check "what is left is what the plan kept" bash -c "cd '$tmp/s' && [ \"\$(ls _versions)\" = \"\$(printf '4.manifest\n5.manifest')\" ] &&
  [ ! -e '$R2' ] && [ ! -e '$OLD' ] && [ -e '$R6' ] && [ -e '$R9' ] && [ -e '$B4' ] && [ -e '$B5' ] &&
  [ -e '$YOUNG' ] && [ -e _deletions/0-9-9.arrow ]"
check "verify passes on the kept versions (FA-CLEAN-9)" exits 0 "$lfa" verify "$tmp/s"
check "verify: no missing object, no orphan past the grace period" bash -c "'$lfa' verify --json '$tmp/s' >'$tmp/v.json' &&
  python3 -c \"
import json; d = json.load(open('$tmp/v.json'))
assert d['summary']['errors'] == 0 and not [f for f in d['findings'] if f['rule'] in ('FA-STORE-5', 'FA-CLEAN-10')], d
\""
check "a second run has nothing left to delete" cj "$tmp/s" "
assert s['versions_removed'] == 0 and s['objects_deleted'] == 0 and d['done']['objects_deleted'] == 0
" --keep-from 4

# An unreadable root of a kept version (R6, v4's) blocks every deletion
# (FA-CLEAN-3): exit 1, R2 and OLD stay, and so do the manifests of the
# versions the plan would remove.
check "second sample" sample "$tmp/b"
printf 'xyz' >"$tmp/b/$R6"
check "a kept root unreadable: blocked, exit 1" exits 1 "$lfa" cleanup "$tmp/b" --keep-from 4
check "blocked: no object deleted, no manifest deleted" bash -c "cd '$tmp/b' && [ -e '$R2' ] && [ -e '$OLD' ] &&
  [ \"\$(ls _versions | wc -l)\" = 5 ]"
check "blocked plan (JSON) names the root and the version" cj "$tmp/b" "
assert d['blocked'] is True
n = [x for x in d['notes'] if x['rule'] == 'FA-CLEAN-3']
assert n and n[0]['severity'] == 'error' and n[0]['version'] == 4 and '$R6' in n[0]['message'], d['notes']
assert obj['$OLD']['action'] == 'keep' and obj['$OLD']['reason'] == 'blocked' and obj['$OLD']['rule'] == 'FA-CLEAN-3'
" --keep-from 4 --dry-run

# The grace period at its boundary: YOUNG's mtime is T; at --now T+10 it
# is 10 s old: kept with --grace 10 (not older), deleted with --grace 9.
check "third sample" sample "$tmp/g"
T=1700000000
touch -d "@$T" "$tmp/g/$YOUNG"
check "age equal to the grace period: kept" cj "$tmp/g" "assert obj['$YOUNG']['reason'] == 'young' and obj['$YOUNG']['age_seconds'] == 10" \
  --now $((T + 10)) --grace 10 --dry-run
check "age one second past it: deleted" cj "$tmp/g" "assert obj['$YOUNG']['reason'] == 'expired'" --now $((T + 10)) --grace 9 --dry-run

# A clone named with --clone that cannot be read: what it reaches is
# unknown, so nothing is deleted (FA-CLEAN-3), exit 1.
mkdir -p "$tmp/not-a-dataset"
check "an unreadable --clone blocks" exits 1 "$lfa" cleanup "$tmp/g" --clone "$tmp/not-a-dataset" --dry-run
check "an unreadable --clone: said" cj "$tmp/g" "
assert d['blocked'] and d['datasets'][1]['kind'] == 'clone' and any(x['rule'] == 'FA-CLEAN-3' and x['dataset'] == 1 for x in d['notes'])
" --clone "$tmp/not-a-dataset" --dry-run

finish
