#!/usr/bin/env bash
# cli_exit_codes.sh: an exit status never hides a certain error. An 8 GiB
# sparse newest manifest (over LFA_MANIFEST_FILE_BYTES_MAX) leaves that
# version unchecked: an error (FA-VERIFY-6), exit 1, as dump exits 2. An
# 8 GiB sparse bitmap whose root says otherwise breaks FA-STORE-5, which
# its size alone proves: an error, not a reader-limit warning (FA-LIMIT-2).
# Sparse files: no disk space is used, and nothing reads them whole.
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

B4=_field_assignments/bitmaps/2/0/5a3b1e00-0000-4000-8000-000000000004.rbm

check "sample" exits 0 "$lfa" sample "$tmp/m"
truncate -s 8G "$tmp/m/_versions/6.manifest"
check "verify: a version over the manifest limit is an error" exits 1 "$lfa" verify "$tmp/m"
check "...named under FA-LIMIT-2 as not checked at all" bash -c "'$lfa' verify --json '$tmp/m' | python3 -c \"
import json, sys; d = json.load(sys.stdin)
f = [x for x in d['findings'] if x['version'] == 6 and x['severity'] == 'error']
assert f and f[0]['rule'] == 'FA-LIMIT-2' and 'not checked at all' in f[0]['message'], d['findings']
\""
check "dump agrees: version 6 is that version's error, exit 1" exits 1 "$lfa" dump "$tmp/m"

check "sample" exits 0 "$lfa" sample "$tmp/b"
truncate -s 8G "$tmp/b/$B4"
check "verify: an 8 GiB bitmap its root sizes otherwise is an error" exits 1 "$lfa" verify "$tmp/b"
check "...under FA-STORE-5, for each version listing it, with no limit warning" bash -c "'$lfa' verify --json '$tmp/b' | python3 -c \"
import json, sys; d = json.load(sys.stdin)
store = {x['version'] for x in d['findings'] if x['rule'] == 'FA-STORE-5' and x['severity'] == 'error'}
assert store == {3, 4, 5}, d['findings']
assert not [x for x in d['findings'] if x['rule'] == 'FA-LIMIT-2'], d['findings']
\""
check "eval: the same object fails with FA-STORE-5" bash -c "'$lfa' eval '$tmp/b' --field embedding 2>&1 >/dev/null | grep -q 'FA-STORE-5'"

finish
