#!/usr/bin/env bash
# cli_dump.sh: `lfa`, `lfa sample` and `lfa dump` from the outside: exit
# codes, help, and JSON checked against facts stated by hand (the sample's
# history in testkit/fixtures.c, the upstream example's README table, the
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
def raw(n, field): return [f.get("bitmap_rows") for t in V[n]["tracked"] if t["field_id"] == field for f in t["fragments"]]
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
assert frags(4) == [(0, 10, 2), (1, 10, 0)] and V[4]["reader_feature_flags"] == (1 << 52) + 1
assert V[4]["tracked"][0]["root"] == V[3]["tracked"][0]["root"]
# assigned_rows: live rows only; fragment 0 deletes offset 2 of its bitmap
# {1,2,5} at v4 (FA-DELETE-1 keeps it there): 2 assigned, the raw bitmap 3
assert state(5, 2) == [(0, "partial", 2), (1, "partial", 1), (2, "all", 4)]
assert raw(5, 2) == [3, 1, None] and raw(3, 2) == [3, 1]
assert [f["unassigned_rows"] for t in V[5]["tracked"] for f in t["fragments"]] == [6, 9, 0]
assert frags(5)[2] == (2, 4, 0) and V[5]["fragments"][0]["live_rows"] == 8
'
check "dump text: assigned of live rows, the raw bitmap labelled beside physical and deleted" bash -c "
  '$lfa' dump '$tmp/s' --version 5 | grep -qx '      fragment 0: partial, 2 of 8 live rows assigned (bitmap 3 offsets, 10 physical, 2 deleted)' &&
  '$lfa' dump '$tmp/s' --version 5 | grep -qx '      fragment 2: all, 4 of 4 live rows assigned (4 physical, 0 deleted)'"
check "dump --version 3 only" json "$tmp/s" 'pass'
check "dump --version selects" bash -c "'$lfa' dump --json --version 3 '$tmp/s' | grep -c '\"version\": ' | grep -qx 1"

# the independent upstream example, by its README
check "upstream example JSON" json ../shared/upstream-layout-example/address-mode-history '
assert [v["version"] for v in d["versions"]] == list(range(1, 10))
assert state(3, 2) == [(0, "partial", 3), (1, "partial", 1)]
assert frags(5)[0] == (0, 10, 2)
assert state(6, 2) == [(0, "partial", 2), (2, "all", 10)] and raw(6, 2) == [3, None]  # {1,5} live, 2 deleted
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

# live rows (--rows), by hand from the sample's history (testkit/fixtures.c):
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
# A Lance-14-style manifest, built by hand from a real Lance 0.15 table: bits
# 512, 1024 and 4096 in both words (Lance 13.0.0 defines them, docs.rs
# lance-table 13.0.0), 16384 in the writer word (FLAG_MANAGED_BLOBS of
# 14.0.2, value unconfirmed), 2^40 (no release), and manifest fields 23
# (length-delimited) and 99 (varint), which no known release defines. dump
# names each by the release registry's sources (02§7), read by hand.
set_flags="$(dirname "$lfa")/set_flags"
cp -r ../shared/lance-test-data/v0.15.0/v2_with_files.lance "$tmp/l14" && chmod -R u+w "$tmp/l14"
"$set_flags" "$tmp/l14/_versions/1.manifest" $((512 | 1024 | 4096)) $((512 | 1024 | 4096 | 16384 | (1 << 40)))
python3 - "$tmp/l14/_versions/1.manifest" <<'PY'
import struct, sys
p = sys.argv[1]; b = open(p, "rb").read()
m = struct.unpack("<q", b[-16:-8])[0]; n = struct.unpack("<I", b[m:m + 4])[0]
pb = b[m + 4:m + 4 + n] + bytes([0xba, 0x01, 0x02, 0x08, 0x01]) + bytes([0x98, 0x06, 0x07])  # 23: {1: 1}; 99: 7
open(p, "wb").write(b[:m] + struct.pack("<I", len(pb)) + pb + b[-16:])
PY
check "dump names Lance 13/14 bits and fields no release defines (text)" bash -c "
  '$lfa' dump '$tmp/l14' >'$tmp/l14.txt' &&
  grep -q '4096 \[reader+writer\] FLAG_FRAGMENT_TREE (Lance 13.0.0)' '$tmp/l14.txt' &&
  grep -q '512 \[reader+writer\] FLAG_FRAG_REUSE_WITH_STABLE_ROW_IDS (Lance 13.0.0)' '$tmp/l14.txt' &&
  grep -q '16384 \[writer\] (no known Lance release defines it; perhaps FLAG_MANAGED_BLOBS of Lance 14.0.2, value unconfirmed)' '$tmp/l14.txt' &&
  grep -q '1099511627776 \[writer\] (no known Lance release defines it)' '$tmp/l14.txt' &&
  grep -q '9 reader_feature_flags (Lance 0.5.0)' '$tmp/l14.txt' &&
  grep -q '23 (no known Lance release defines it), 99 (no known Lance release defines it)' '$tmp/l14.txt'"
check "dump names Lance 13/14 bits and fields no release defines (--json)" json "$tmp/l14" '
F = {f["number"]: f for f in V[1]["manifest_fields"]}
assert F[2]["name"] == "fragments" and F[2]["lance_release"] == "0.3.0", F[2]
assert F[12]["name"] == "transaction_file" and F[12]["lance_release"] == "0.7.0", F[12]
for n in (23, 99):
    assert F[n] == {"number": n, "name": None, "lance_release": None, "unconfirmed": None, "here": None}, F[n]
B = {b["value"]: b for b in V[1]["feature_bits"]}
assert sorted(B) == [512, 1024, 4096, 16384, 1 << 40], sorted(B)
assert B[4096] == {"value": 4096, "reader": True, "writer": True, "name": "FLAG_FRAGMENT_TREE",
                   "lance_release": "13.0.0", "unconfirmed": None, "here": None}, B[4096]
assert B[16384]["reader"] is False and B[16384]["lance_release"] is None, B[16384]
assert B[16384]["unconfirmed"] == {"name": "FLAG_MANAGED_BLOBS", "lance_release": "14.0.2"}, B[16384]
assert B[1 << 40]["name"] is None and B[1 << 40]["unconfirmed"] is None, B[1 << 40]'

check "dump --help explains -2" bash -c "'$lfa' dump --help | grep -q 'where -2 is a tombstone'"

finish
