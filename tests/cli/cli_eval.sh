#!/usr/bin/env bash
# cli_eval.sh: `lfa eval`, is_assigned(field) per live row, from the outside.
# Expected values are stated by hand: the sample's history (top of
# testkit/fixtures.c) and the upstream example's README table, never computed
# by lfa. Covers FA-EXPR-2 and FA-EXPR-4 (planning errors, qualified
# references), FA-EXPR-3 (name resolution), FA-EXPR-5 (the physical address
# decides), FA-EXPR-7 (planning reads no assignment object), FA-EXPR-9 (a
# missing object fails, never false), FA-EXPR-12 and FA-EXPR-13 (Substrait,
# --substrait and --emit-substrait), FA-LANCE-7 and FA-LANCE-11 (row id
# sequences), FA-LANCE-12.
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"
up=../shared/upstream-layout-example/address-mode-history

fails() { # expected text on stderr, then eval arguments: exit 2, one stderr line, empty stdout
  local want=$1; shift
  "$lfa" eval "$@" >"$tmp/f.out" 2>"$tmp/f.err"; local got=$?
  [ "$got" -eq 2 ] || { echo "exit $got, expected 2: eval $*"; cat "$tmp/f.out" "$tmp/f.err"; return 1; }
  [ ! -s "$tmp/f.out" ] || { echo "stdout is not empty:"; head -5 "$tmp/f.out"; return 1; }
  [ "$(wc -l <"$tmp/f.err")" -eq 1 ] || { echo "stderr is not one line:"; cat "$tmp/f.err"; return 1; }
  grep -qF -- "$want" "$tmp/f.err" || { echo "stderr lacks '$want':"; cat "$tmp/f.err"; return 1; }
}
ej() { # python assertions, then eval arguments (--json is added)
  local code=$1; shift
  "$lfa" eval --json "$@" >"$tmp/e.json" || return 1
  python3 - "$tmp/e.json" "$code" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["dataset", "version", "field", "stable_row_ids", "rows", "totals"], list(d)
assert list(d["field"]) == ["id", "name", "path"], d["field"]
rows = d["rows"]
keys = [(r["fragment"], r["offset"]) for r in rows]
assert keys == sorted(set(keys)), "rows are not in (fragment, offset) order, or repeat"
for r in rows:
    assert r["address"] == (r["fragment"] << 32) | r["offset"], r
    assert ("row_id" in r) == d["stable_row_ids"], r
    assert r["assigned"] is True or r["assigned"] is False, r
R = {(r["fragment"], r["offset"]): r["assigned"] for r in rows}
t = d["totals"]
assert t == {"live_rows": len(rows), "assigned": sum(R.values()), "unassigned": len(rows) - sum(R.values())}, t
def expect(live, assigned):
    """live: {fragment: offsets}; assigned: the set of (fragment, offset) that are true."""
    want = {(f, o): (f, o) in assigned for f, offs in live.items() for o in offs}
    assert R == want, sorted(set(R.items()) ^ set(want.items()))
exec(sys.argv[2])
PY
}

# ---- the command ----------------------------------------------------------------
check "lfa --help lists eval" bash -c "'$lfa' --help | grep -qF 'eval DATASET (--field NAME | --substrait FILE)'"
check "eval --help teaches the grammar" bash -c "'$lfa' eval --help | grep -q 'dotted path of field names'"
check "eval --help names the system columns" bash -c "'$lfa' eval --help | grep -q _rowaddr"
"$lfa" sample "$tmp/s" >/dev/null || { echo "FAIL: lfa sample"; exit 1; }
check "eval without --field is bad usage" bash -c "'$lfa' eval '$tmp/s' >/dev/null 2>&1; [ \$? -eq 2 ]"
check "...in a short message: the reason and the usage lines, not the whole help" bash -c "
  '$lfa' eval '$tmp/s' 2>'$tmp/usage.err'; head -1 '$tmp/usage.err' | grep -qx 'lfa eval: missing --field NAME (is_assigned takes exactly one field)' &&
  tail -1 '$tmp/usage.err' | grep -qx '(see lfa eval --help)' && test \$(wc -l <'$tmp/usage.err') -eq 6"
check "eval without a dataset is bad usage" bash -c "'$lfa' eval --field embedding >/dev/null 2>&1; [ \$? -eq 2 ]"
check "FA-EXPR-4 item 1: --field twice is bad usage" \
  bash -c "'$lfa' eval '$tmp/s' --field embedding --field id 2>&1 >/dev/null | grep -q 'exactly one field'"
check "eval of an unknown version" fails "version 99 does not exist" "$tmp/s" --field embedding --version 99
check "eval of a missing directory" fails "$tmp/none" "$tmp/none" --field embedding

# ---- the sample, by hand from its history (testkit/fixtures.c) ----------------------
# v3 writes fragment 0 {1,2,5} and fragment 1 {3}; v4 deletes fragment 0 {2,7};
# v5 appends fragment 2 (4 rows, all supplied).
check "FA-EXPR-5 sample v5 (latest by default)" ej '
assert d["version"] == 5 and d["field"] == {"id": 2, "name": "embedding", "path": "embedding"}
assert d["stable_row_ids"] is False
expect({0: [0, 1, 3, 4, 5, 6, 8, 9], 1: range(10), 2: range(4)},
       {(0, 1), (0, 5), (1, 3), (2, 0), (2, 1), (2, 2), (2, 3)})
assert d["totals"] == {"live_rows": 22, "assigned": 7, "unassigned": 15}
' "$tmp/s" --field embedding
check "FA-EXPR-5 sample v2: the 0-byte root assigns nothing" ej '
expect({0: range(10), 1: range(10)}, set())
' "$tmp/s" --field embedding --version 2
check "FA-EXPR-5 sample v3: partial bitmaps" ej '
expect({0: range(10), 1: range(10)}, {(0, 1), (0, 2), (0, 5), (1, 3)})
' "$tmp/s" --field embedding --version 3
check "FA-EXPR-5 sample v4: deleted rows are not listed" ej '
expect({0: [0, 1, 3, 4, 5, 6, 8, 9], 1: range(10)}, {(0, 1), (0, 5), (1, 3)})
' "$tmp/s" --field embedding --version 4
check "sample v5 as text" bash -c "
  out=\$('$lfa' eval '$tmp/s' --field embedding) &&
  head -1 <<<\"\$out\" | grep -q 'version 5, is_assigned(embedding): field 2' &&
  grep -qx 'fragment 0 offset 1: true' <<<\"\$out\" && grep -qx 'fragment 0 offset 0: false' <<<\"\$out\" &&
  ! grep -q 'fragment 0 offset 2:' <<<\"\$out\" && ! grep -q 'fragment 0 offset 7:' <<<\"\$out\" &&
  grep -qx 'fragment 2 offset 3: true' <<<\"\$out\" &&
  tail -1 <<<\"\$out\" | grep -qx 'totals: 22 live rows, 7 assigned, 15 unassigned' &&
  [ \$(wc -l <<<\"\$out\") -eq 24 ]"
check "FA-EXPR-3: a bare name falls back to ASCII case-insensitive" ej '
assert d["field"]["id"] == 2 and d["field"]["path"] == "embedding" and d["totals"]["assigned"] == 7
' "$tmp/s" --field EMBEDDING
check "FA-EXPR-3: a quoted name is a name" ej 'assert d["field"]["id"] == 2' "$tmp/s" --field '"embedding"'

# ---- planning errors [FA-EXPR-4], each before any assignment object is read -------
check "FA-EXPR-4 item 3: unknown field" fails "is_assigned references unknown field 'nope'" "$tmp/s" --field nope
check "FA-EXPR-4 item 3: unknown child" fails "unknown field 'embedding.x' ('embedding' has no such child)" \
  "$tmp/s" --field embedding.x
check "FA-EXPR-4 item 4: untracked field with its stable id" \
  fails "is_assigned references untracked field 'id' (stable field id 0)" "$tmp/s" --field id
check "FA-EXPR-4 item 4: untracked before tracking starts (v1)" \
  fails "version 1: is_assigned references untracked field 'text' (stable field id 1)" "$tmp/s" --field text --version 1
check "FA-EXPR-4 item 3: a field added later is unknown at v1" \
  fails "version 1: is_assigned references unknown field 'embedding'" "$tmp/s" --field embedding --version 1
for arg in 42 'id + 1' 'f(x)' _rowid _rowaddr _ROWID '' ' id' 'id ' '"id' '""' 'a..b' '.id' 'id.' "id'" 'is_assigned(id)'; do
  check "FA-EXPR-2: '$arg' is not a field reference" \
    fails "is_assigned requires a direct field reference (FA-EXPR-2), got '$arg'" "$tmp/s" --field "$arg"
done
check "FA-EXPR-2: a literal is named as such" fails "a literal is not a field" "$tmp/s" --field 42
check "FA-EXPR-2: a system column is named as such" fails "a system column is not a field" "$tmp/s" --field _rowid
check "planning errors cite FA-EXPR-4" fails "[FA-EXPR-4]" "$tmp/s" --field nope
check "FA-EXPR-4 on old Lance data: untracked comes first" \
  fails "untracked field 'x' (stable field id 0)" ../shared/lance-test-data/v0.7.5/with_deletions --field x

# ---- FA-EXPR-7 and FA-EXPR-9: the tracked field's root is gone -------------------
root=$("$lfa" dump --json --version 5 "$tmp/s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["versions"][0]["tracked"][0]["root"])')
cp -r "$tmp/s" "$tmp/noroot"
rm "$tmp/noroot/$root"
check "FA-EXPR-7: an untracked field still plans (nothing was read)" \
  fails "is_assigned references untracked field 'id' (stable field id 0)" "$tmp/noroot" --field id
check "FA-EXPR-7: an unknown field still plans" fails "unknown field 'nope'" "$tmp/noroot" --field nope
check "FA-EXPR-7: a non-reference still plans" fails "got 'id + 1'" "$tmp/noroot" --field 'id + 1'
check "FA-EXPR-9: a missing root fails naming its path, never false" fails "$root" "$tmp/noroot" --field embedding
check "FA-EXPR-9: cited" fails "[FA-EXPR-9]" "$tmp/noroot" --field embedding --json
check "FA-EXPR-9: earlier versions keep their own root" ej 'expect({0: range(10), 1: range(10)}, set())' \
  "$tmp/noroot" --field embedding --version 2
bitmap=$(cd "$tmp/s" && ls _field_assignments/bitmaps/2/0/*.rbm | head -1)
cp -r "$tmp/s" "$tmp/badbitmap"
printf 'x' >>"$tmp/badbitmap/$bitmap"
check "FA-EXPR-9: a bitmap of the wrong size fails naming its path" fails "$bitmap" "$tmp/badbitmap" --field embedding

# ---- the upstream example, by its README table --------------------------------
# embedding (2): v3 frag 0 {1,2,5}, frag 1 {3}; v4 + frag 2 all (frag 3 omitted);
# v5 deletes frag 0 {2,7}; v6 unassigns frag 1 offset 3; v7 renames it `vec`;
# v9 compacts 0 and 1 into 4 (18 rows): frag 2 all, frag 4 {1,4}.
check "upstream v2" ej 'expect({0: range(10), 1: range(10)}, set())' "$up" --field embedding --version 2
check "upstream v3" ej 'expect({0: range(10), 1: range(10)}, {(0, 1), (0, 2), (0, 5), (1, 3)})' \
  "$up" --field embedding --version 3
check "upstream v4" ej '
expect({0: range(10), 1: range(10), 2: range(10), 3: range(10)}, {(0, 1), (0, 2), (0, 5), (1, 3)} | {(2, o) for o in range(10)})
' "$up" --field embedding --version 4
check "upstream v5: deletions" ej '
expect({0: [0, 1, 3, 4, 5, 6, 8, 9], 1: range(10), 2: range(10), 3: range(10)},
       {(0, 1), (0, 5), (1, 3)} | {(2, o) for o in range(10)})
assert d["totals"] == {"live_rows": 38, "assigned": 13, "unassigned": 25}
' "$up" --field embedding --version 5
check "upstream v6: invalidation" ej '
expect({0: [0, 1, 3, 4, 5, 6, 8, 9], 1: range(10), 2: range(10), 3: range(10)}, {(0, 1), (0, 5)} | {(2, o) for o in range(10)})
' "$up" --field embedding --version 6
check "FA-EXPR-3 upstream v7: vec after the rename" ej '
assert d["field"] == {"id": 2, "name": "vec", "path": "vec"}
expect({0: [0, 1, 3, 4, 5, 6, 8, 9], 1: range(10), 2: range(10), 3: range(10)}, {(0, 1), (0, 5)} | {(2, o) for o in range(10)})
' "$up" --field vec --version 7
check "FA-EXPR-4 upstream v7: embedding is unknown after the rename" \
  fails "version 7: is_assigned references unknown field 'embedding'" "$up" --field embedding --version 7
check "FA-EXPR-4 upstream v6: vec is unknown before the rename" \
  fails "version 6: is_assigned references unknown field 'vec'" "$up" --field vec --version 6
check "upstream v9: compaction" ej '
assert d["version"] == 9
expect({2: range(10), 3: range(10), 4: range(18)}, {(2, o) for o in range(10)} | {(4, 1), (4, 4)})
' "$up" --field vec --version 9
check "upstream: the latest is v9" bash -c "
  diff <('$lfa' eval '$up' --field vec) <('$lfa' eval '$up' --field vec --version 9)"

# ---- manifests edited in place: stable row ids, nested fields ------------------
# No writer of stable row id datasets exists yet, so the test re-encodes the
# sample's v5 manifest: the protobuf is edited field by field and put back
# before the unchanged 16-byte footer (the sections before it do not move).
export LFA_TESTS_DIR="$(cd "$(dirname "$0")/.." && pwd)"  # where pb_fields.py is
cat >"$tmp/edit.py" <<'PY'
import os, struct, sys
sys.path.insert(0, os.environ["LFA_TESTS_DIR"])
from pb_fields import emit, msg, parse
def put(fields, num, v):  # replaces a varint field, or adds it
    fields[:] = [f for f in fields if f[0] != num] + [[num, 0, v]]
def fragment(man, fid, edit):
    for f in man:
        if f[0] == 2:
            fr = parse(f[2])
            if [x[2] for x in fr if x[0] == 1] == [fid] or (fid == 0 and not any(x[0] == 1 for x in fr)):
                edit(fr); f[2] = emit(fr); return
    raise KeyError(fid)
# RowIdSequence segments (rowids.proto)
def seq(*segments): return msg(*[(1, s) for s in segments])
def rng(a, b): return msg((1, msg((1, a), (2, b))))
def u16_array(base, offs): return msg((5, msg((1, msg((1, base), (2, b"".join(struct.pack("<H", o) for o in offs)))))))
def sorted_u64(vals): return msg((4, msg((3, msg((2, b"".join(struct.pack("<Q", v) for v in vals)))))))
path = sys.argv[1]
data = open(path, "rb").read()
M = struct.unpack_from("<q", data, len(data) - 16)[0]
n = struct.unpack_from("<I", data, M)[0]
man = parse(data[M + 4:M + 4 + n])
exec(sys.argv[2])
new = emit(man)
open(path, "wb").write(data[:M] + struct.pack("<I", len(new)) + new + data[-16:])
PY
edit() { python3 "$tmp/edit.py" "$1/_versions/5.manifest" "$2"; }

# Row ids chosen so that an implementation consulting them would be wrong
# [FA-EXPR-5]: fragment 1's ids are 9..0, so row id 1 (the address of the
# assigned row (0, 1)) sits at the unassigned row (1, 8).
stable='
import os
root = path.rsplit("/_versions/", 1)[0]
seq2 = seq(sorted_u64([10, 11, 12, 1 << 40]))
os.makedirs(root + "/_rowids")
open(root + "/_rowids/f2.bin", "wb").write(b"abc" + seq2 + b"trailing bytes")
flags = [f[2] for f in man if f[0] == 9][0]
put(man, 9, flags | 2); put(man, 14, 1 << 41)
fragment(man, 0, lambda fr: fr.append([5, 2, seq(rng(100, 110))]))
fragment(man, 1, lambda fr: fr.append([5, 2, seq(u16_array(0, range(9, -1, -1)))]))
fragment(man, 2, lambda fr: fr.append([6, 2, msg((1, "_rowids/f2.bin"), (2, 3), (3, len(seq2)))]))
'
cp -r "$tmp/s" "$tmp/stable"
check "edit: stable row ids, inline and external" edit "$tmp/stable" "$stable"
check "FA-EXPR-5 stable row ids: keyed by address and row id, decided by address" ej '
assert d["stable_row_ids"] is True and d["version"] == 5
expect({0: [0, 1, 3, 4, 5, 6, 8, 9], 1: range(10), 2: range(4)},
       {(0, 1), (0, 5), (1, 3), (2, 0), (2, 1), (2, 2), (2, 3)})
ids = {(r["fragment"], r["offset"]): r["row_id"] for r in rows}
assert all(ids[0, o] == 100 + o for o in [0, 1, 3, 4, 5, 6, 8, 9])
assert all(ids[1, o] == 9 - o for o in range(10))
assert [ids[2, o] for o in range(4)] == [10, 11, 12, 1 << 40]
assert R[1, 8] is False and ids[1, 8] == 1
' "$tmp/stable" --field embedding
check "stable row ids as text" bash -c "
  out=\$('$lfa' eval '$tmp/stable' --field embedding) &&
  grep -qx 'fragment 1 offset 3 row_id 6: true' <<<\"\$out\" &&
  grep -qx 'fragment 2 offset 3 row_id 1099511627776: true' <<<\"\$out\" &&
  head -1 <<<\"\$out\" | grep -q 'stable row ids'"

cp -r "$tmp/s" "$tmp/short"
check "edit: a sequence one id short" edit "$tmp/short" 'put(man, 9, 259)
fragment(man, 0, lambda fr: fr.append([5, 2, seq(rng(100, 110))]))
fragment(man, 1, lambda fr: fr.append([5, 2, seq(rng(0, 9))]))
fragment(man, 2, lambda fr: fr.append([5, 2, seq(rng(20, 24))]))'
check "FA-LANCE-7: a sequence shorter than physical_rows" \
  fails "fragment 1: row id sequence holds 9 ids" "$tmp/short" --field embedding
check "FA-LANCE-7: cited" fails "[FA-LANCE-7]" "$tmp/short" --field embedding
cp -r "$tmp/s" "$tmp/missing"
check "edit: fragment 2 without a sequence" edit "$tmp/missing" 'put(man, 9, 259)
fragment(man, 0, lambda fr: fr.append([5, 2, seq(rng(100, 110))]))
fragment(man, 1, lambda fr: fr.append([5, 2, seq(rng(0, 10))]))'
check "FA-LANCE-7: a fragment without a sequence" fails "fragment 2: has no row id sequence" "$tmp/missing" --field embedding
cp -r "$tmp/s" "$tmp/outside"
check "edit: an external range past the end of its file" edit "$tmp/outside" 'put(man, 9, 259)
fragment(man, 0, lambda fr: fr.append([5, 2, seq(rng(100, 110))]))
fragment(man, 1, lambda fr: fr.append([5, 2, seq(rng(0, 10))]))
fragment(man, 2, lambda fr: fr.append([6, 2, msg((1, "_versions/1.manifest"), (2, 1 << 20), (3, 8))]))'
check "FA-LANCE-7: an external byte range outside its file" \
  fails "fragment 2: range [1048576, +8) passes the end of _versions/1.manifest" "$tmp/outside" --field embedding
cp -r "$tmp/s" "$tmp/badseq"
check "edit: an inverted range" edit "$tmp/badseq" 'put(man, 9, 259)
fragment(man, 0, lambda fr: fr.append([5, 2, seq(rng(110, 100))]))
fragment(man, 1, lambda fr: fr.append([5, 2, seq(rng(0, 10))]))
fragment(man, 2, lambda fr: fr.append([5, 2, seq(rng(20, 24))]))'
check "FA-LANCE-11: an invalid sequence is unusable input" fails "[FA-LANCE-11]" "$tmp/badseq" --field embedding
cp -r "$tmp/s" "$tmp/unknownrows"
check "edit: physical_rows 0 (old Lance's unknown)" edit "$tmp/unknownrows" 'fragment(man, 2, lambda fr: put(fr, 4, 0))'
check "FA-LANCE-12: unknown physical_rows in a tracked snapshot is unusable" \
  fails "fragment 2: physical_rows is unknown (0) in a manifest with tracked fields [FA-LANCE-12]" \
  "$tmp/unknownrows" --field embedding

# Nested fields [FA-EXPR-3]: struct meta (3) with children Source (4), Dup (5)
# and DUP (6); Source is tracked with an empty root.
cp -r "$tmp/s" "$tmp/nested"
mkdir -p "$tmp/nested/_field_assignments/roots/4" && : >"$tmp/nested/_field_assignments/roots/4/empty.root"
check "edit: nested fields" edit "$tmp/nested" '
man += [[1, 2, msg((2, "meta"), (3, 3), (4, -1), (5, "struct"), (6, 1))],
        [1, 2, msg((1, 2), (2, "Source"), (3, 4), (4, 3), (5, "int32"), (6, 1))],
        [1, 2, msg((1, 2), (2, "Dup"), (3, 5), (4, 3), (5, "int32"), (6, 1))],
        [1, 2, msg((1, 2), (2, "DUP"), (3, 6), (4, 3), (5, "int32"), (6, 1))],
        [1022, 2, msg((1, 4), (2, msg((1, "_field_assignments/roots/4/empty.root"))))]]'
check "FA-EXPR-3: a nested path, case-insensitive per segment" ej '
assert d["field"] == {"id": 4, "name": "Source", "path": "meta.Source"} and d["totals"]["assigned"] == 0
assert d["totals"]["live_rows"] == 22
' "$tmp/nested" --field META.source
check "FA-EXPR-3: quoted segments" ej 'assert d["field"]["id"] == 4' "$tmp/nested" --field '"meta"."Source"'
check "FA-EXPR-3: an exact match wins over a case-insensitive one" \
  fails "untracked field 'meta.DUP' (stable field id 6)" "$tmp/nested" --field meta.DUP
check "FA-EXPR-3: two case-insensitive matches are ambiguous" \
  fails "is_assigned references ambiguous field 'meta.dup'" "$tmp/nested" --field meta.dup
check "FA-EXPR-4 item 4: a struct is untracked when only its child is" \
  fails "untracked field 'meta' (stable field id 3)" "$tmp/nested" --field meta
check "FA-EXPR-4 item 3: no such child" fails "unknown field 'meta.nope' ('meta' has no such child)" \
  "$tmp/nested" --field meta.nope

# ---- Substrait [FA-EXPR-12, FA-EXPR-13] and qualified references [FA-EXPR-2] ---------
check "eval --help shows the Substrait options" bash -c "'$lfa' eval --help | grep -q -- '--emit-substrait OUT'"
# 180 bytes, by hand from the field numbers (test_expr.c spells out a
# two-level example byte by byte): URI list 35, declaration 23, referred
# expression 50 (call 20, output name "is_assigned(embedding)" 22), base
# schema 30 (name 11, record struct 15 holding list<fp32>), version 7
# ("lfa"), URN list 35.
check "FA-EXPR-12: --emit-substrait writes the call and says so" bash -c "
  out=\$('$lfa' eval '$tmp/s' --field embedding --version 3 --emit-substrait '$tmp/emb.sub') &&
  [ \"\$out\" = '$tmp/emb.sub: is_assigned(embedding), field 2, version 3, as a Substrait ExtendedExpression (180 bytes)' ] &&
  [ \$(wc -c <'$tmp/emb.sub') -eq 180 ]"
# The message's top-level fields, read with the wire reader above: URIs (1),
# declarations (2), one referred expression (3), base_schema (4) naming just
# `embedding`, version (7), URNs (8); both extension lists name the URN.
cat >"$tmp/top.py" <<'PY'
import sys
exec(open(sys.argv[1]).read().split("path = sys.argv[1]")[0])  # rv, parse, emit, msg from edit.py
top = parse(open(sys.argv[2], "rb").read())
assert [f[0] for f in top] == [1, 2, 3, 4, 7, 8], [f[0] for f in top]
urn = b"urn:lance:extension:functions"
assert parse(top[0][2]) == [[1, 0, 1], [2, 2, urn]] and parse(top[5][2]) == [[1, 0, 1], [2, 2, urn]]
fn = parse(parse(top[1][2])[0][2])
assert fn == [[1, 0, 1], [2, 0, 1], [3, 2, b"is_assigned"], [4, 0, 1]], fn
names = [f[2] for f in parse(top[3][2]) if f[0] == 1]
assert names == [b"embedding"], names
PY
check "FA-EXPR-12: the file holds is_assigned of urn:lance:extension:functions" \
  python3 "$tmp/top.py" "$tmp/edit.py" "$tmp/emb.sub"
check "FA-EXPR-12: --substrait evaluates what --field does (v5)" bash -c "
  diff <('$lfa' eval '$tmp/s' --substrait '$tmp/emb.sub' --json) <('$lfa' eval '$tmp/s' --field embedding --json)"
check "FA-EXPR-12: --substrait plans against the version evaluated (v3)" bash -c "
  diff <('$lfa' eval '$tmp/s' --substrait '$tmp/emb.sub' --version 3) <('$lfa' eval '$tmp/s' --field embedding --version 3)"
check "FA-EXPR-4 via Substrait: the field is unknown at v1" \
  fails "version 1: $tmp/emb.sub: is_assigned references unknown field 'embedding'" "$tmp/s" --substrait "$tmp/emb.sub" --version 1
check "FA-EXPR-7: --emit-substrait reads no assignment object (the root is gone)" \
  exits 0 "$lfa" eval "$tmp/noroot" --field embedding --emit-substrait "$tmp/noroot.sub"
check "--emit-substrait never overwrites" fails "$tmp/emb.sub" "$tmp/s" --field embedding --emit-substrait "$tmp/emb.sub"
check "--emit-substrait of an untracked field writes nothing" bash -c "
  '$lfa' eval '$tmp/s' --field id --emit-substrait '$tmp/id.sub' 2>&1 | grep -q 'untracked field' && [ ! -e '$tmp/id.sub' ]"
# Upstream's later form, written by hand: ExtendedExpression {8 URN {1: 1,
# 2: urn}, 2 declaration {3 function {2 anchor: 1, 3 name, 4 URN ref: 1}},
# 3 referred {1 expression {3 call {1 reference: 1, 4 argument {3 value
# {1 literal {5 i32: FIELD}}}}}}}; no base_schema is needed.
cat >"$tmp/literal.py" <<'PY'
import sys
exec(open(sys.argv[1]).read().split("path = sys.argv[1]")[0])
urn = msg((1, 1), (2, "urn:lance:extension:functions"))
decl = msg((3, msg((2, 1), (3, "is_assigned"), (4, 1))))
literal = msg((5, int(sys.argv[3])))  # Literal {5 i32}, written even when 0: a oneof member
argument = msg((3, msg((1, literal))))  # FunctionArgument {3 value: Expression {1 literal}}
call = msg((1, 1), (4, argument))  # ScalarFunction {1 function_reference, 4 arguments}
referred = msg((1, msg((3, call))))  # ExpressionReference {1 expression: Expression {3 scalar_function}}
open(sys.argv[2], "wb").write(msg((8, urn), (2, decl), (3, referred)))
PY
check "write the literal form for field 2" python3 "$tmp/literal.py" "$tmp/edit.py" "$tmp/lit2.sub" 2
check "write the literal form for field 0" python3 "$tmp/literal.py" "$tmp/edit.py" "$tmp/lit0.sub" 0
check "FA-EXPR-13: the Int32 literal field id is accepted" bash -c "
  diff <('$lfa' eval '$tmp/s' --substrait '$tmp/lit2.sub' --json) <('$lfa' eval '$tmp/s' --field embedding --json)"
check "FA-EXPR-13: and FA-EXPR-4 item 4 still applies" \
  fails "untracked field 'id' (stable field id 0)" "$tmp/s" --substrait "$tmp/lit0.sub"
check "FA-EXPR-12: the literal form re-emitted is the field reference form" bash -c "
  '$lfa' eval '$tmp/s' --substrait '$tmp/lit2.sub' --emit-substrait '$tmp/again.sub' >/dev/null &&
  '$lfa' eval '$tmp/s' --field embedding --emit-substrait '$tmp/emb5.sub' >/dev/null &&
  cmp '$tmp/again.sub' '$tmp/emb5.sub'"
printf 'not protobuf' >"$tmp/junk.sub"
check "FA-EXPR-12: bytes that are not an ExtendedExpression" fails "[FA-EXPR-12]" "$tmp/s" --substrait "$tmp/junk.sub"
check "--substrait of a missing file names it" fails "$tmp/none.sub" "$tmp/s" --substrait "$tmp/none.sub"
check "--field and --substrait together is bad usage" \
  exits 2 "$lfa" eval "$tmp/s" --field embedding --substrait "$tmp/emb.sub"
check "--relation with --substrait is bad usage" exits 2 "$lfa" eval "$tmp/s" --substrait "$tmp/emb.sub" --relation s
check "FA-EXPR-2: a reference qualified by --relation" bash -c "
  diff <('$lfa' eval '$tmp/s' --field S.embedding --relation s --json) <('$lfa' eval '$tmp/s' --field embedding --json)"
check "FA-EXPR-2: no qualifier without --relation" \
  fails "unknown field 's.embedding'" "$tmp/s" --field s.embedding
check "FA-EXPR-2: another relation's column is not this one's" \
  fails "unknown field 'other.embedding'" "$tmp/s" --field other.embedding --relation s

# ---- --count, --by-fragment, --ranges ----------------------------------------------
# Expected by hand from the sample's history (testkit/fixtures.c) at v5, field
# embedding: fragment 0 has the partial {1,2,5} and deletes {2,7} (10
# physical, 8 live: {1,5} assigned, the deleted 2 is neither); fragment 1
# the partial {3} of 10 live; fragment 2 all of its 4 rows.
cat >"$tmp/count.want" <<'TXT'
fragment 0: 10 physical rows, 2 deleted, 8 live: 2 assigned, 6 unassigned
fragment 1: 10 physical rows, 0 deleted, 10 live: 1 assigned, 9 unassigned
fragment 2: 4 physical rows, 0 deleted, 4 live: 4 assigned, 0 unassigned
totals: 22 live rows, 7 assigned, 15 unassigned
TXT
check "--count prints the totals of live rows alone" bash -c "'$lfa' eval '$tmp/s' --field embedding --count >'$tmp/c.out' &&
  [ \$(wc -l <'$tmp/c.out') -eq 2 ] && tail -1 '$tmp/c.out' | grep -qx 'totals: 22 live rows, 7 assigned, 15 unassigned'"
check "--by-fragment splits them: live = assigned + unassigned, deleted rows apart" bash -c "
  '$lfa' eval '$tmp/s' --field embedding --count --by-fragment | tail -n +2 | diff - '$tmp/count.want'"
check "--count --json: totals and fragments, no rows" bash -c "'$lfa' eval '$tmp/s' --field embedding --count --by-fragment --json |
  python3 -c 'import json,sys; d=json.load(sys.stdin); assert \"rows\" not in d
assert d[\"totals\"]=={\"live_rows\":22,\"assigned\":7,\"unassigned\":15}, d[\"totals\"]
assert [(f[\"fragment\"],f[\"physical_rows\"],f[\"deleted_rows\"],f[\"live_rows\"],f[\"assigned\"],f[\"unassigned\"]) for f in d[\"fragments\"]]==[(0,10,2,8,2,6),(1,10,0,10,1,9),(2,4,0,4,4,0)], d[\"fragments\"]'"
# runs of live rows with one value; the deleted offsets 2 and 7 end runs
A1=$((1 << 32)) A2=$((2 << 32))
cat >"$tmp/ranges.want" <<TXT
fragment 0 offsets 0-0 (addresses 0-0, 1 rows): false
fragment 0 offsets 1-1 (addresses 1-1, 1 rows): true
fragment 0 offsets 3-4 (addresses 3-4, 2 rows): false
fragment 0 offsets 5-5 (addresses 5-5, 1 rows): true
fragment 0 offsets 6-6 (addresses 6-6, 1 rows): false
fragment 0 offsets 8-9 (addresses 8-9, 2 rows): false
fragment 1 offsets 0-2 (addresses $A1-$((A1 + 2)), 3 rows): false
fragment 1 offsets 3-3 (addresses $((A1 + 3))-$((A1 + 3)), 1 rows): true
fragment 1 offsets 4-9 (addresses $((A1 + 4))-$((A1 + 9)), 6 rows): false
fragment 2 offsets 0-3 (addresses $A2-$((A2 + 3)), 4 rows): true
totals: 22 live rows, 7 assigned, 15 unassigned
TXT
check "--ranges: one line per run" bash -c "'$lfa' eval '$tmp/s' --field embedding --ranges | tail -n +2 | diff - '$tmp/ranges.want'"
check "--ranges --json: the same runs in place of rows" bash -c "'$lfa' eval '$tmp/s' --field embedding --ranges --json |
  python3 -c 'import json,sys; d=json.load(sys.stdin); assert \"rows\" not in d
r=[(x[\"fragment\"],x[\"first_offset\"],x[\"last_offset\"],x[\"rows\"],x[\"assigned\"]) for x in d[\"ranges\"]]
assert r==[(0,0,0,1,False),(0,1,1,1,True),(0,3,4,2,False),(0,5,5,1,True),(0,6,6,1,False),(0,8,9,2,False),(1,0,2,3,False),(1,3,3,1,True),(1,4,9,6,False),(2,0,3,4,True)], r
assert d[\"ranges\"][6][\"first_address\"]==1<<32 and d[\"ranges\"][9][\"last_address\"]==(2<<32)+3'"
check "--count and --ranges are one or the other" bash -c "'$lfa' eval '$tmp/s' --field embedding --count --ranges 2>&1 >/dev/null | grep -q 'give one'"
check "--by-fragment needs --count" bash -c "'$lfa' eval '$tmp/s' --field embedding --by-fragment 2>&1 >/dev/null | grep -q 'splits the totals of --count'"

finish
