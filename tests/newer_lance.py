#!/usr/bin/env python3
"""newer_lance.py: what lfa says of the tables Lance 13 to 15 write, and of a
Lance 12 manifest whose field assignment numbers hold something else.

    python3 tests/newer_lance.py LFA LANE_DB_DIR

No release from Lance 13 on installs here (npm's newest @lancedb/lancedb,
0.39.0, embeds Lance 12.0.0), so each case is built at test time from a
table the pinned Lance 12 wrote in the lane (LANE_DB_DIR/misc_addr.lance,
twelve versions, address row ids; misc_stable.lance, stable row ids): its newest manifest (and transaction)
edited by the field numbers and rules of upstream's published sources. The
expected verdicts come from those sources and the spec, never from lfa:

- 01§1, FA-FLAG-7: a Lance 12 manifest with one more field 22 (a varint; a
  message that is no descriptor list) or field 1022 (a message, no bit 2^52),
  or a transaction with a field 1005 varint: no error, exit 0, and `lfa dump`
  reads the version.
- FA-VERIFY-8 (10§2): a fragment tree (lance-table 13.0.0: manifest field 22
  fragment_tree, "Tree tables set this, leave fragments empty, and set bit 12
  on both flag fields"), spilled row lineage (bit 2048, 14.0.0; with stable
  row ids, fragments without a row id sequence), managed
  blobs (bit 16384, 14.0.x) and a Transaction V2 commit (Transaction operation
  arm 116 composite_operation, 15.0.0): no error, a "not checked" finding
  naming the feature and its release, exit 3, and `lfa dump` reads it.
  A spilled stable table's dump marks each fragment's row ids not read
  (text "row ids: not read", JSON row_ids_read false, live_row_ids null)
  and verify says how many fragments' ids it did not check.
- No false pass: managed blobs plus a manifest whose version field is wrong
  (FA-LANCE-18) still fails, exit 1; and so do stable row ids whose
  fragments have no sequence without bit 2048 (FA-LANCE-7): verify exit 1,
  dump calls version 12 unreadable.
Exit status 0 when every case agrees, 1 otherwise.
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pb_fields import emit, msg, parse  # noqa: E402


def newest_manifest(ds):
    """The newest version's manifest path (V2 names: the smallest name)."""
    names = [p for p in glob.glob(os.path.join(ds, "_versions", "*.manifest"))]
    return min(names, key=lambda p: int(os.path.basename(p).split(".")[0]))


def manifest_fields(path):
    """The manifest message's fields: the footer gives the position of its
    length prefix."""
    b = open(path, "rb").read()
    pos = struct.unpack("<Q", b[-16:-8])[0]
    n = struct.unpack("<I", b[pos:pos + 4])[0]
    return parse(b[pos + 4:pos + 4 + n])


def edit_manifest(path, edit):
    """Rewrites the manifest message in place; the sections before it and
    the footer's position stay (the position is of the length prefix)."""
    b = open(path, "rb").read()
    pos = struct.unpack("<Q", b[-16:-8])[0]
    fields = manifest_fields(path)
    fields = edit(fields) or fields
    body = emit(fields)
    open(path, "wb").write(b[:pos] + struct.pack("<I", len(body)) + body + b[-16:])


def set_words(fields, bits):
    for f in fields:
        if f[0] in (9, 10):
            f[2] |= bits
    if not any(f[0] == 9 for f in fields):
        fields.append([9, 0, bits])
    if not any(f[0] == 10 for f in fields):
        fields.append([10, 0, bits])


def set_writer(fields, version):
    """writer_version (field 13): library "lance", version `version`."""
    fields[:] = [f for f in fields if f[0] != 13] + [[13, 2, msg((1, "lance"), (2, version))]]


def edit_transaction(ds, fields, edit):
    """The newest version's `.txn` file edited, and the manifest's inline
    copy (field 21) dropped so that the file is the transaction."""
    name = next(f[2].decode() for f in fields if f[0] == 12)
    path = os.path.join(ds, "_transactions", name)
    t = parse(open(path, "rb").read())
    t = edit(t) or t
    open(path, "wb").write(emit(t))
    fields[:] = [f for f in fields if f[0] != 21]


def run(lfa, *args):
    r = subprocess.run([lfa, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


# ---- the cases: (name, edit of the newest manifest's fields, expected exit, words each finding must hold)

def field22_varint(ds, f):
    f.append([22, 0, 7])


def field22_message(ds, f):
    f.append([22, 2, msg((1, "not a descriptor"), (2, 3))])


def field1022_message(ds, f):
    f.append([1022, 2, msg((1, "another writer's field"), (2, 3))])


def txn1005_varint(ds, f):
    edit_transaction(ds, f, lambda t: t + [[1005, 0, 7]])


def fragment_tree(ds, f):
    set_writer(f, "13.0.0")
    set_words(f, 4096)
    f[:] = [x for x in f if x[0] != 2]  # the tree holds the fragments
    f.append([22, 2, msg((1, msg((1, 0), (2, 0))))])


def spilled_row_lineage(ds, f):
    set_writer(f, "14.0.0")
    set_words(f, 2048)


def drop_row_id_sequences(f):
    """Every fragment (manifest field 2) without its row id sequence (fields
    5 inline_row_ids and 6 external_row_ids of DataFragment)."""
    for x in f:
        if x[0] == 2:
            x[2] = emit([y for y in parse(x[2]) if y[0] not in (5, 6)])


def spilled_row_lineage_stable(ds, f):
    """Stable row ids spilled: the fragments carry no row id sequence, the
    ids being hidden data-file columns (v14.0.0-beta.16)."""
    spilled_row_lineage(ds, f)
    drop_row_id_sequences(f)


def row_ids_missing_stable(ds, f):
    """The same fragments without bit 2048: stable row ids with no sequence
    break FA-LANCE-7 (02§4), whatever the writer."""
    drop_row_id_sequences(f)


def managed_blobs(ds, f):
    set_writer(f, "14.0.2")
    set_words(f, 16384)


def transaction_v2(ds, f):
    set_writer(f, "15.0.0")
    # the operation arm (100 to 115) replaced by composite_operation (116)
    edit_transaction(ds, f, lambda t: [x for x in t if not 100 <= x[0] <= 115] + [[116, 2, msg((1, msg((1, 1))))]])


def managed_blobs_and_wrong_version(ds, f):
    managed_blobs(ds, f)
    for x in f:
        if x[0] == 3:
            x[2] += 1000  # FA-LANCE-18: the version field disagrees with the file name


CASES = [
    ("field22_varint", field22_varint, 0, []),
    ("field22_message", field22_message, 0, []),
    ("field1022_message", field1022_message, 0, []),
    ("txn1005_varint", txn1005_varint, 0, []),
    ("fragment_tree", fragment_tree, 3, ["fragment trees", "13.0.0"]),
    ("spilled_row_lineage", spilled_row_lineage, 3, ["spilled row lineage", "14.0.0"]),
    ("spilled_row_lineage_stable", spilled_row_lineage_stable, 3, ["spilled row lineage", "14.0.0"]),
    ("managed_blobs", managed_blobs, 3, ["managed blobs", "14.0.0"]),
    ("transaction_v2", transaction_v2, 3, ["Transaction V2", "15.0.0"]),
    ("managed_blobs_and_wrong_version", managed_blobs_and_wrong_version, 1, ["managed blobs"]),
    ("row_ids_missing_stable", row_ids_missing_stable, 1, []),
]

# The error a failing case must report (no false pass).
EXPECTED_ERROR = {"managed_blobs_and_wrong_version": "FA-LANCE-18", "row_ids_missing_stable": "FA-LANCE-7"}


def fragments_of_newest(ds):
    """The fragments (manifest field 2) of the edited newest manifest."""
    return sum(1 for x in manifest_fields(newest_manifest(ds)) if x[0] == 2)


def check_dump(lfa, ds, name, want):
    """What `lfa dump` says of version 12: read (a spilled table's row ids
    marked not read, fragment by fragment), or, for a case that fails,
    unreadable for the rule its verify reports."""
    if want == 1:
        if name != "row_ids_missing_stable":
            return []
        jcode, jout, jerr = run(lfa, "dump", "--json", "--version", "12", ds)
        try:
            error = json.loads(jout)["versions"][0]["error"]
        except (ValueError, KeyError, IndexError):
            error = None
        if jcode != 1 or error is None or error["rule"] != EXPECTED_ERROR[name] or error["fragment_id"] is None:
            return ["lfa dump --json: exit %d, version 12 %r, expected 1 and an FA-LANCE-7 error at a fragment (%s)"
                    % (jcode, error, jerr.strip()[:200])]
        return []
    dcode, dout, derr = run(lfa, "dump", ds)
    if dcode != 0 or "version 12:" not in dout:
        return ["lfa dump did not read version 12 (exit %d: %s)" % (dcode, derr.strip()[:200])]
    if not name.endswith("_stable"):
        return []
    problems = []
    if "row ids: not read" not in dout:
        problems.append("lfa dump does not mark the fragments' row ids not read")
    jcode, jout, jerr = run(lfa, "dump", "--json", "--rows", "--version", "12", ds)
    try:
        v = json.loads(jout)["versions"][0]
    except (ValueError, KeyError, IndexError):
        return problems + ["lfa dump --json --rows printed no version (exit %d: %s)" % (jcode, jerr.strip()[:200])]
    if jcode != 0 or v.get("live_row_ids", 0) is not None:
        problems.append("dump --json --rows: exit %d, live_row_ids %r, expected 0 and null" % (jcode, v.get("live_row_ids")))
    read = [fr.get("row_ids_read") for fr in v.get("fragments", [])]
    if len(read) != fragments_of_newest(ds) or any(r is not False for r in read):
        problems.append("dump --json: row_ids_read %r, expected false for each of %d fragments" % (read, fragments_of_newest(ds)))
    return problems


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    lfa, db = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, edit, want, words in CASES:
            ds = os.path.join(tmp, name)
            source = "misc_stable.lance" if name.endswith("_stable") else "misc_addr.lance"
            shutil.copytree(os.path.join(db, source), ds)
            edit_manifest(newest_manifest(ds), lambda f: edit(ds, f))
            code, out, err = run(lfa, "verify", "--json", ds)
            problems = []
            if code != want:
                problems.append("exit %d, expected %d (%s)" % (code, want, err.strip()))
            try:
                d = json.loads(out)
            except ValueError:
                d = {"findings": []}
                problems.append("verify --json printed no JSON")
            errors = [f for f in d["findings"] if f["severity"] == "error"]
            unchecked = [f["message"] for f in d["findings"] if f["rule"] == "FA-VERIFY-8"]
            if want != 1 and errors:
                problems.append("false errors: %s" % [(f["rule"], f["message"][:100]) for f in errors])
            if want == 1 and not any(f["rule"] == EXPECTED_ERROR[name] for f in errors):
                problems.append("no %s error: a false pass" % EXPECTED_ERROR[name])
            if name == "spilled_row_lineage_stable":
                count = "the row ids of %d fragments" % fragments_of_newest(ds)
                if not any(count in m for m in unchecked):
                    problems.append("no FA-VERIFY-8 finding naming '%s' (got %s)" % (count, unchecked))
            for w in words:
                if not any(w in m for m in unchecked):
                    problems.append("no FA-VERIFY-8 finding naming '%s' (got %s)" % (w, unchecked))
            if not words and unchecked:
                problems.append("unexpected 'not checked' findings: %s" % unchecked)
            problems += check_dump(lfa, ds, name, want)
            failures += bool(problems)
            print("%s: %s" % (name, "agrees" if not problems else "DISAGREES: " + "; ".join(problems)))
    print("newer Lance cases: %d, %d disagreements" % (len(CASES), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
