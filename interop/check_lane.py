#!/usr/bin/env python3
"""check_lane.py: lfa against what a released Lance said about its own tables.

    check_lane.py LFA GEN_DIR [--summary FILE]

GEN_DIR is what interop/generate.mjs wrote: the datasets and expected.json,
Lance's own view of every version (countRows(), and the live rows'
_rowaddr and _rowid from a scan), recorded when Lance wrote them. For every
dataset and version this requires:

  - `lfa dump --json --rows` reads it (exit 0), and every version Lance
    listed is there, with no version error;
  - its live-row count equals Lance's countRows();
  - its live row addresses equal the _rowaddr Lance scanned, and with stable
    row ids its row ids equal the _rowid of each, in address order;
  - `lfa verify` exits 0 with no error finding, and its --json and --junit
    outputs parse (the JUnit report with no failure);
  - on a table with mixed data-file versions (Lance 12's feature bit 256),
    no version is read as carrying field assignment state, and the verifier
    names the bit as Lance 12's (FA-LANCE-21).

A version whose fragments have physical_rows 0 (Lance 0.7 and before:
"unknown") must read, and is counted as one whose rows could not be
compared. A version recorded by a release whose API shows no row addresses (the
release sweep's old releases: expected.json has its count_rows only) is
held to the count alone. One line per dataset, then a total; --summary
FILE writes the totals as JSON, with the false positives (error findings of
lfa verify on a table Lance wrote) counted apart. Exit 1 on any
disagreement, 2 on unusable input. Nothing here computes an expected value: they all come
from expected.json.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def first_difference(got, want):
    """Where two lists first differ, as a short phrase."""
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "at position %d: lfa %d, Lance %d" % (i, g, w)
    return "lfa has %d, Lance %d" % (len(got), len(want))


UNKNOWN_ROWS = "physical_rows unknown"


def rows_unknown(v):
    return "error" in v and UNKNOWN_ROWS in v["error"]["message"]


def check_dump(lfa, path, ds, problems, counts_only, unknown, id_set):
    code, out, err = run([lfa, "dump", "--json", "--rows", path])
    try:
        doc = json.loads(out)
    except ValueError as e:
        problems.append("lfa dump --json is not JSON: %s" % e)
        return 0, 0
    got = {v["version"]: v for v in doc["versions"]}
    # A fragment old Lance wrote with physical_rows 0 ("unknown") has no
    # row list lfa can give (docs/commands/dump.md: dump --rows reports it as an error);
    # such a version must still read without --rows, and is then counted as
    # one whose rows could not be compared, not as a disagreement.
    if code == 1 and any(rows_unknown(v) for v in got.values()):
        c2, out2, _ = run([lfa, "dump", "--json", path])
        plain = {v["version"]: v for v in json.loads(out2)["versions"]} if c2 in (0, 1) else {}
        for n, v in list(got.items()):
            if rows_unknown(v) and n in plain and "error" not in plain[n]:
                got[n] = dict(plain[n], rows_unknown=True)
        if all(not ("error" in v) for v in got.values()):
            code = 0
    if code != 0:
        problems.append("lfa dump exit %d: %s" % (code, err.strip().splitlines()[-1] if err.strip() else "?"))
    rows = 0
    for want in ds["versions"]:
        n = want["version"]
        v = got.get(n)
        if v is None:
            problems.append("version %d: Lance lists it, lfa dump does not" % n)
            continue
        if "error" in v:
            problems.append("version %d: lfa cannot read it: %s" % (n, v["error"]["message"]))
            continue
        if v.get("rows_unknown"):
            unknown[0] += 1
            continue
        live = v.get("live_rows")
        if live is None:
            problems.append("version %d: lfa dump --rows lists no live rows" % n)
            continue
        if len(live) != want["count_rows"]:
            problems.append("version %d: %d live rows, Lance's countRows() %d" % (n, len(live), want["count_rows"]))
        if "row_addrs" not in want:
            # no _rowaddr: in address mode Lance's _rowid is the address
            if "row_id_set" in want and sorted(live) != want["row_id_set"]:
                problems.append("version %d: live row addresses differ from Lance's _rowid set %s"
                                % (n, first_difference(sorted(live), want["row_id_set"])))
            (id_set if "row_id_set" in want else counts_only)[0] += 1
            rows += want["count_rows"]
            continue
        if live != want["row_addrs"]:
            problems.append("version %d: live row addresses differ %s" % (n, first_difference(live, want["row_addrs"])))
        if ds["stable_row_ids"]:
            ids = v.get("live_row_ids")
            if ids is None:
                problems.append("version %d: Lance used stable row ids, lfa dump lists none" % n)
            elif ids != want["row_ids"]:
                problems.append("version %d: row ids differ %s" % (n, first_difference(ids, want["row_ids"])))
        elif "live_row_ids" in v:
            problems.append("version %d: lfa reads stable row ids where Lance used none" % n)
        rows += len(want["row_addrs"])
        if ds.get("mixed_data_file_versions") and v["tracked"]:
            problems.append("version %d: Lance 12's bit 256 read as field assignment state" % n)
    return len(ds["versions"]), rows


def check_verify(lfa, path, ds, problems, false_positives):
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "verify.xml")
        code, out, err = run([lfa, "verify", "--json", "--junit", junit, path])
        try:
            doc = json.loads(out)
        except ValueError as e:
            problems.append("lfa verify --json is not JSON (exit %d): %s %s" % (code, e, err.strip()[:200]))
            return
        errors = [f for f in doc["findings"] if f["severity"] == "error"]
        false_positives[0] += len(errors)
        for f in errors[:5]:
            problems.append("lfa verify: version %s: %s %s" % (f["version"], f["rule"], f["message"]))
        if ds.get("mixed_data_file_versions"):
            noted = {f["version"] for f in doc["findings"] if f["rule"] == "FA-LANCE-21"}
            if not noted:
                problems.append("lfa verify does not name bit 256 as Lance 12's mixed data-file versions")
        if code != 0 and not errors:
            problems.append("lfa verify exit %d without an error finding: %s" % (code, err.strip()[:200]))
        try:
            suites = ET.parse(junit).getroot()
            failures = sum(int(s.get("failures", "0")) for s in suites.iter("testsuite"))
            if failures != len({f["version"] for f in errors}):
                problems.append("JUnit report has %d failures for %d erring versions" % (failures, len(errors)))
        except (ET.ParseError, OSError) as e:
            problems.append("lfa verify --junit is not XML: %s" % e)


def main():
    argv = sys.argv[1:]
    summary = None
    if len(argv) == 4 and argv[2] == "--summary":
        summary = argv[3]
        argv = argv[:2]
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    lfa, gen = argv
    try:
        expected = json.load(open(os.path.join(gen, "expected.json")))
    except (OSError, ValueError) as e:
        print("check_lane: %s/expected.json: %s" % (gen, e), file=sys.stderr)
        return 2
    release = "%s (Lance %s)" % (expected["release"], expected["lance"])
    total = {"datasets": 0, "versions": 0, "rows": 0, "disagreements": 0}
    counts_only, false_positives, unknown, id_set = [0], [0], [0], [0]
    for ds in expected["datasets"]:
        start = time.time()
        problems = []
        path = os.path.join(gen, ds["path"])
        versions, rows = check_dump(lfa, path, ds, problems, counts_only, unknown, id_set)
        check_verify(lfa, path, ds, problems, false_positives)
        total["datasets"] += 1
        total["versions"] += versions
        total["rows"] += rows
        total["disagreements"] += len(problems)
        print("%s %s: %d versions, %d rows compared, %d disagreements (%.1f s)"
              % (release, ds["name"], versions, rows, len(problems), time.time() - start))
        for p in problems:
            print("  DISAGREE %s: %s" % (ds["name"], p))
    for s in expected.get("skipped", []):
        print("%s: not generated: %s (%s)" % (release, s["what"], s["why"]))
    print("%s: %d datasets, %d versions, %d rows compared, %d disagreements"
          % (release, total["datasets"], total["versions"], total["rows"], total["disagreements"]))
    if summary:
        total.update(counts_only_versions=counts_only[0], false_positives=false_positives[0],
                     rows_unknown_versions=unknown[0], rowid_set_versions=id_set[0])
        with open(summary, "w") as f:
            json.dump(total, f)
    return 1 if total["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
