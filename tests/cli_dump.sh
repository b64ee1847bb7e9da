#!/usr/bin/env bash
# cli_dump.sh: `lfa`, `lfa sample` and `lfa dump` from the outside: exit
# codes, help, and JSON checked against facts stated by hand (the sample's
# history in harness/sample.c, the upstream example's README table, the
# test-data README). Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

json() { # dataset, python assertions over `d` (the parsed document)
  dump_json "$1" "$2"
}
json_rows() { # the same with --rows
  dump_json "$1" "$2" --rows
}
dump_json() { # dataset, assertions, extra options
  "$lfa" dump --json "$1" "${@:3}" >"$tmp/d.json" || return 1
  python3 - "$tmp/d.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["versions"]:
    for k in ("version", "operation", "fields", "fragments", "tracked", "reader_feature_flags", "writer_feature_flags"):
        assert k in v, (v.get("version"), k)
    for f in v["fragments"]:
        assert {"id", "physical_rows", "deleted_rows", "live_rows", "files"} <= f.keys(), f
    for t in v["tracked"]:
        assert "field_id" in t and "fragments" in t, t
V = {v["version"]: v for v in d["versions"]}
def frags(n): return [(f["id"], f["physical_rows"], f["deleted_rows"]) for f in V[n]["fragments"]]
def state(n, field): return [(f["id"], f["state"], f["assigned_rows"]) for t in V[n]["tracked"] if t["field_id"] == field for f in t["fragments"]]
exec(sys.argv[2])
PY
}

# the command itself
check "lfa --help exits 0" exits 0 "$lfa" --help
check "lfa alone is a usage error" exits 2 "$lfa"
check "unknown command is a usage error" exits 2 "$lfa" frobnicate
check "dump --help teaches --json" bash -c "'$lfa' dump --help | grep -q -- --json"
check "dump without a dataset" exits 2 "$lfa" dump
check "dump of a missing directory" exits 2 "$lfa" dump "$tmp/none"
check "dump of an unknown version" exits 2 "$lfa" dump ../shared/upstream-layout-example/address-mode-history --version 99

# the sample, by hand from its history
check "sample writes" exits 0 "$lfa" sample "$tmp/s"
check "sample never overwrites" exits 2 "$lfa" sample "$tmp/s"
check "sample dumps as text" bash -c "'$lfa' dump '$tmp/s' | grep -q 'version 5: Append'"
check "sample JSON" json "$tmp/s" '
assert [v["operation"] for v in d["versions"]] == ["Overwrite", "Merge", "Update", "Delete", "Append"]
assert V[1]["tracked"] == [] and V[1]["writer_feature_flags"] == 0
assert V[2]["tracked"][0]["root_size_bytes"] == 0 and state(2, 2) == []
assert state(3, 2) == [(0, "partial", 3), (1, "partial", 1)]
assert frags(4) == [(0, 10, 2), (1, 10, 0)] and V[4]["reader_feature_flags"] == 65537
assert V[4]["tracked"][0]["root"] == V[3]["tracked"][0]["root"]
assert state(5, 2) == [(0, "partial", 3), (1, "partial", 1), (2, "all", 4)]
assert frags(5)[2] == (2, 4, 0) and V[5]["fragments"][0]["live_rows"] == 8
'
check "dump --version 3 only" json "$tmp/s" 'pass'
check "dump --version selects" bash -c "'$lfa' dump --json --version 3 '$tmp/s' | grep -c '\"version\": ' | grep -qx 1"

# the independent upstream example, by its README
check "upstream example JSON" json ../shared/upstream-layout-example/address-mode-history '
assert [v["version"] for v in d["versions"]] == list(range(1, 10))
assert state(3, 2) == [(0, "partial", 3), (1, "partial", 1)]
assert frags(5)[0] == (0, 10, 2)
assert state(6, 2) == [(0, "partial", 3), (2, "all", 10)]
assert [f["name"] for f in V[7]["fields"]] == ["id", "text", "vec"]
assert frags(9) == [(2, 10, 0), (3, 10, 0), (4, 18, 0)] and state(9, 2) == [(2, "all", 10), (4, "partial", 2)]
'

# every real Lance dataset dumps; facts from lance-test-data/README.md
for ds in ../shared/lance-test-data/*/*/; do
  check "dump --json $ds" json "$ds" 'assert all(v["tracked"] == [] for v in d["versions"])'
done
check "v0.7.5 deletions" json ../shared/lance-test-data/v0.7.5/with_deletions '
assert frags(2) == [(0, 0, 10)] and V[2]["fragments"][0]["live_rows"] is None
'
check "writer_version as the manifest records it (Lance 0.16.1)" json ../shared/lance-test-data/v0.16.0/wrong_data_version_can_fix.lance '
assert all(v["writer_version"] == {"library": "lance", "version": "0.16.1"} for v in d["versions"])
'
check "no writer_version is null (Lance 0.5.9)" json ../shared/lance-test-data/v0.5.9/no_fragments '
assert all(v["writer_version"] is None for v in d["versions"])
'
check "v0.5.9 three appends" json ../shared/lance-test-data/v0.5.9/dataset_with_fragments '
assert len(d["versions"]) == 3 and [len(V[n]["fragments"]) for n in (1, 2, 3)] == [1, 2, 3]
'

# live rows (--rows), by hand from the sample's history (harness/sample.c):
# fragments 0 and 1 of 10 rows, then 2 of 4; version 4 deletes offsets 2 and 7
# of fragment 0 ({2,7}); the sample uses address row ids, so no live_row_ids
check "dump --rows JSON" json_rows "$tmp/s" '
F1 = 1 << 32
assert V[1]["live_rows"] == list(range(10)) + [F1 + k for k in range(10)]
assert V[4]["live_rows"] == [k for k in range(10) if k not in (2, 7)] + [F1 + k for k in range(10)]
assert V[5]["live_rows"][-4:] == [(2 << 32) + k for k in range(4)] and len(V[5]["live_rows"]) == 22
assert all("live_row_ids" not in v for v in d["versions"])
'
check "dump --rows text shows runs" bash -c "'$lfa' dump --rows --version 4 '$tmp/s' | grep -qx '  live rows: 0-1,3-6,8-9,4294967296-4294967305'"
check "dump without --rows lists none" json "$tmp/s" 'assert all("live_rows" not in v and "live_row_ids" not in v for v in d["versions"])'
check "dump --rows when physical_rows is unknown" exits 1 "$lfa" dump --rows ../shared/lance-test-data/v0.7.5/with_deletions

# an unreadable version is that version's error; the others still print
cp -r "$tmp/s" "$tmp/broken"
printf 'junk' >>"$tmp/broken/_versions/3.manifest"
check "a broken manifest is a finding" exits 1 "$lfa" dump --json "$tmp/broken"
check "reported in JSON as version 3's error, the others printed" bash -c "
  '$lfa' dump --json '$tmp/broken' 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
V = {v[\"version\"]: v for v in d[\"versions\"]}
assert sorted(V) == [1, 2, 3, 4, 5], sorted(V)
e = V[3][\"error\"]
assert \"_versions/3.manifest\" in e[\"message\"] and e[\"status\"] and \"fragments\" not in V[3], e
assert all(\"error\" not in V[n] and \"fragments\" in V[n] for n in (1, 2, 4, 5))
'"
check "and in text, with one summary line on stderr" bash -c "
  '$lfa' dump '$tmp/broken' 2>'$tmp/e' | grep -q '^version 3: unreadable: _versions/3.manifest' &&
  '$lfa' dump '$tmp/broken' 2>/dev/null | grep -q '^version 5: Append' &&
  [ \"\$(wc -l <'$tmp/e')\" -eq 1 ] && grep -q '1 of 5 versions could not be read' '$tmp/e'"

# [FA-VERIFY-2] the error says where, as data: a partial bitmap one byte
# longer than its size_bytes (FA-STORE-5) is that file, of field 2 and the
# fragment its directory names (_field_assignments/bitmaps/<field>/<fragment>/)
cp -r "$tmp/s" "$tmp/partial"
printf 'x' >>"$tmp/partial/_field_assignments/bitmaps/2/1/"*.rbm
check "a bad partial: each version reading it says version, field, fragment and file" bash -c "
  '$lfa' dump --json '$tmp/partial' 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = [v for v in d[\"versions\"] if \"error\" in v]
assert bad, d
for v in bad:
    e = v[\"error\"]
    assert e[\"rule\"] == \"FA-STORE-5\" and e[\"version\"] == v[\"version\"], e
    assert (e[\"field_id\"], e[\"fragment_id\"]) == (2, 1), e
    assert e[\"file\"].startswith(\"_field_assignments/bitmaps/2/1/\") and e[\"file\"].endswith(\".rbm\"), e
'"
check "an unreadable manifest is its file, of no field or fragment" bash -c "
  '$lfa' dump --json '$tmp/broken' 2>/dev/null | python3 -c '
import json, sys
e = {v[\"version\"]: v for v in json.load(sys.stdin)[\"versions\"]}[3][\"error\"]
assert (e[\"version\"], e[\"field_id\"], e[\"fragment_id\"], e[\"file\"]) == (3, None, None, \"_versions/3.manifest\"), e
'"

# A column rewrite (REWRITE_COLUMNS, 02§8.4) leaves the tombstone -2 in the
# older data file's fields; the dump says what it is, once per version, and
# only where one appears (version 1 of that scenario has none).
"$lfa" run conformance/scenarios/update_rewrite_columns_and_invalidate.json "$tmp/rc" >/dev/null
check "dump explains the tombstone -2 where a version has one" bash -c "
  '$lfa' dump '$tmp/rc' --version 2 >'$tmp/d2' && grep -q 'fields \[0,-2,2\]' '$tmp/d2' &&
  test \$(grep -c '(-2 in fields: a tombstone' '$tmp/d2') -eq 1 &&
  '$lfa' dump '$tmp/rc' --version 1 >'$tmp/d1' && ! grep -q -- '-2' '$tmp/d1'"
check "dump --help explains -2" bash -c "'$lfa' dump --help | grep -q 'where -2 is a tombstone'"

finish
