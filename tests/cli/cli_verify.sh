#!/usr/bin/env bash
# cli_verify.sh: `lfa verify` from the outside: exit codes, help, the text,
# JSON and JUnit outputs, the version range, valid histories (no error
# finding) and a broken copy of the sample (error findings, exit 1), the
# same in --full mode (every snapshot from scratch).
# Covers FA-VERIFY-2 (each finding names rule, version, file, field,
# fragment), FA-VERIFY-4 (FA-FLAG-2 and the draft layout's FA-FLAG-7 only warn), FA-VERIFY-5 (what cannot be
# checked is said), FA-FLAG-1 and FA-STORE-5 (the injected faults).
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"
up=../shared/upstream-layout-example/address-mode-history

vj() { # dataset, python assertions over `d` (the parsed --json document), then more lfa arguments
  local ds=$1 code=$2; shift 2
  "$lfa" verify --json "$ds" "$@" >"$tmp/v.json"
  python3 - "$tmp/v.json" "$code" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"dataset", "versions_checked", "findings", "summary"}, d.keys()
keys = {"rule", "severity", "version", "file", "field_id", "field", "fragment_id", "rows", "message"}
for f in d["findings"]:
    assert keys <= f.keys(), f
    assert f["severity"] in ("error", "warning", "info"), f
    assert f["rule"].startswith("FA-") and isinstance(f["rows"], list) and len(f["rows"]) <= 5, f
assert [f["version"] for f in d["findings"]] == sorted(f["version"] for f in d["findings"])
assert d["summary"]["errors"] == sum(f["severity"] == "error" for f in d["findings"])
assert d["summary"]["warnings"] == sum(f["severity"] == "warning" for f in d["findings"])
E = [f for f in d["findings"] if f["severity"] == "error"]
def has(rule, version, **kw):
    return any(f["rule"] == rule and f["version"] == version and all(f[k] == v for k, v in kw.items()) for f in E)
exec(sys.argv[2])
PY
}

# the command itself
check "verify --help teaches the JSON shape and exit codes" bash -c "'$lfa' verify --help | grep -q -- '--junit FILE' &&
  '$lfa' verify --help | grep -q 'Exit status: 0 no error finding; 1 error findings; 2'"
check "lfa --help lists verify" bash -c "'$lfa' --help | grep -q 'verify DATASET'"
check "verify without a dataset" exits 2 "$lfa" verify
check "verify of a missing directory" exits 2 "$lfa" verify "$tmp/none"
check "verify with a bad --from" exits 2 "$lfa" verify "$up" --from x
check "verify with --from after --to" exits 2 "$lfa" verify "$up" --from 5 --to 4
check "verify of a range without versions" exits 2 "$lfa" verify "$up" --from 20
check "unusable input: one line on stderr, nothing on stdout" bash -c "
  '$lfa' verify '$tmp/none' >'$tmp/o' 2>'$tmp/e'; [ ! -s '$tmp/o' ] && [ \$(wc -l <'$tmp/e') -eq 1 ] &&
  grep -q '_versions' '$tmp/e'"

# valid histories: exit 0, no error finding
check "upstream example verifies (exit 0)" exits 0 "$lfa" verify "$up"
check "upstream example: only FA-FLAG-7 warnings (the draft layout, writer bit 256)" vj "$up" '
assert d["versions_checked"] == 9 and d["summary"]["errors"] == 0
assert {(f["rule"], f["severity"]) for f in d["findings"]} == {("FA-FLAG-7", "warning")}
'
check "sample writes" exits 0 "$lfa" sample "$tmp/s"
check "sample verifies without any finding" vj "$tmp/s" 'assert d["findings"] == [] and d["versions_checked"] == 5'
for ds in ../shared/lance-test-data/*/*/; do
  check "verify $ds (exit 0)" exits 0 "$lfa" verify "$ds"
done
check "old datasets without transactions: said, as info" vj ../shared/lance-test-data/v0.5.9/dataset_with_fragments '
assert d["summary"]["errors"] == 0 and all(f["rule"] == "FA-VERIFY-5" and f["severity"] == "info" for f in d["findings"])
'

# the range
check "--from 3 --to 4 checks two versions" vj "$up" '
assert d["versions_checked"] == 2 and {f["version"] for f in d["findings"]} == {3, 4}
' --from 3 --to 4
check "a range says it left the orphan check out (FA-VERIFY-5, info)" vj "$up" '
assert [f["version"] for f in d["findings"] if "FA-CLEAN-10" in f["message"]] == [9], d["findings"]
' --from 8

# --since-last: a CI job checks what is new (FA-VERIFY-7); expected states by hand
cp -r "$up" "$tmp/inc"
check "--since-last and --from contradict" exits 2 "$lfa" verify "$tmp/inc" --since-last "$tmp/st" --from 3
check "--since-last is in --help" bash -c "'$lfa' verify --help | grep -q -- '--since-last STATEFILE'"
check "a first run checks up to --to and records 7" bash -c "'$lfa' verify '$tmp/inc' --to 7 --since-last '$tmp/st' &&
  sed -n 1,2p '$tmp/st' | tr '\\n' ' ' | grep -qx 'lfa-verify-state 1 version 7 '"
check "the next run checks 8 and 9 only" vj "$tmp/inc" '
assert d["versions_checked"] == 2 and d["summary"]["errors"] == 0, d
' --since-last "$tmp/st"
check "...and records 9" grep -qx 'version 9' "$tmp/st"
check "nothing new: exit 0, nothing checked" vj "$tmp/inc" 'assert d["versions_checked"] == 0 and d["findings"] == []' \
  --since-last "$tmp/st"
printf junk >>"$tmp/inc/_versions/9.manifest"
check "a rewritten manifest under the state: exit 1" exits 1 "$lfa" verify "$tmp/inc" --since-last "$tmp/st"
check "...named FA-VERIFY-7 at version 9" vj "$tmp/inc" 'assert has("FA-VERIFY-7", 9, file="_versions/9.manifest")' \
  --since-last "$tmp/st"
check "...and the state is kept" grep -qx 'version 9' "$tmp/st"
printf 'lfa-verify-state 1\nversion x\n' >"$tmp/bad"
check "a file that is no state: exit 2" exits 2 "$lfa" verify "$tmp/inc" --since-last "$tmp/bad"

# faults: exit 1, every finding located
cp -r "$tmp/s" "$tmp/b"
# version 3's root (shared by version 4) one byte short: size_bytes no longer matches (FA-STORE-5)
root=$("$lfa" dump --json --version 3 "$tmp/b" | python3 -c 'import json,sys; print(json.load(sys.stdin)["versions"][0]["tracked"][0]["root"])')
head -c -1 "$tmp/b/$root" >"$tmp/root" && cp "$tmp/root" "$tmp/b/$root"
check "a truncated root: exit 1" exits 1 "$lfa" verify "$tmp/b"
check "a truncated root: FA-STORE-5 with its field and file" vj "$tmp/b" '
hits = [f for f in E if f["rule"] == "FA-STORE-5"]
assert hits and all(f["field_id"] == 2 and f["field"] == "embedding" and f["file"].startswith("_field_assignments/roots/2/") for f in hits), hits
assert any(f["rule"] == "FA-VERIFY-5" for f in d["findings"])
'
check "--full is in --help" bash -c "'$lfa' verify --help | grep -q -- '--full'"
check "--full: exit 1 on the same faults" exits 1 "$lfa" verify "$tmp/b" --full
check "--full reports the same findings as the default run" bash -c "
  '$lfa' verify --json '$tmp/b' >'$tmp/inc.json'; '$lfa' verify --json --full '$tmp/b' >'$tmp/full.json'; cmp -s '$tmp/inc.json' '$tmp/full.json'"
check "text output names rule, version and file" bash -c "
  '$lfa' verify '$tmp/b' | grep -E -q '^version [0-9]+: error FA-STORE-5 _field_assignments/roots/2/.* field 2 \\(embedding\\)'"

# JUnit: one test case per version, failed where there are error findings
check "JUnit report" bash -c "'$lfa' verify '$tmp/b' --junit '$tmp/j.xml' >/dev/null; [ \$? -eq 1 ] && python3 - '$tmp/j.xml' <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall('./testsuite/testcase')
assert [c.get('name') for c in cases] == ['version %d' % v for v in range(1, 6)], [c.get('name') for c in cases]
failed = [c.get('name') for c in cases if c.find('failure') is not None]
assert failed and int(root.get('failures')) == len(failed), failed
for c in cases:
    f = c.find('failure')
    assert f is None or 'FA-' in f.get('type'), f
PY"
check "JUnit of a valid dataset has no failure" bash -c "'$lfa' verify '$up' --junit '$tmp/ok.xml' >/dev/null &&
  grep -q 'tests=\"9\" failures=\"0\"' '$tmp/ok.xml' && ! grep -q '<failure' '$tmp/ok.xml'"
check "JUnit to an unwritable path" exits 2 "$lfa" verify "$up" --junit "$tmp/none/j.xml"

# [FA-LANCE-21] bit 256 in both words without descriptors is Lance 12's mixed
# data-file versions: no error, one info naming it; the dump names the bit so
edge=conformance/edge/lance21_mixed_data_file_versions_bits
check "Lance 12 mixed data-file versions: exit 0" exits 0 "$lfa" verify "$edge"
check "Lance 12 mixed data-file versions: an FA-LANCE-21 info, no FA-FLAG finding" vj "$edge" '
assert [(f["rule"], f["severity"]) for f in d["findings"]] == [("FA-LANCE-21", "info")], d["findings"]
'
check "dump names bit 256 by the descriptors" bash -c "
  '$lfa' dump '$edge' | grep -q 'reader flags 256 (mixed_data_file_versions), writer flags 256 (mixed_data_file_versions)' &&
  '$lfa' dump conformance/edge/root9_empty_root_zero_bytes | grep -q 'reader flags 4503599627370496 (field_assignment)' &&
  '$lfa' dump conformance/edge/flag7_upstream_draft_layout | grep -q 'writer flags 256 (field_assignment_draft)'"

finish
