#!/usr/bin/env python3
"""sweep.py: one released LanceDB package measured, and Appendix C's release table.

    sweep.py run PACKAGE VERSION --lfa LFA --out ROW.json [--modules DIR] [--work DIR]
    sweep.py table SPEC ROW.json...
    sweep.py check SPEC ROW.json

`run` installs PACKAGE@VERSION (@lancedb/lancedb or vectordb; npm brings
the apache-arrow its peer range allows) into a temporary folder with an npm
cache of its own, or uses an installed node_modules (--modules: the lane's
pinned releases), then:

  - interop/generate.mjs --core writes the core histories through the
    release's API, each row-id mode it has, recording Lance's own view;
  - interop/check_lane.py holds lfa to that view (live rows and counts,
    lfa verify finding no error: a false positive otherwise);
  - the Lance it embeds is read from the tables it wrote (the manifests'
    writer_version, lfa dump --json);
  - interop/matrix.mjs runs the released-writer matrix on it.

It writes one row as JSON and removes the temporary folder (time and disk
recorded before). A release that does not install or run gets its reason.

`table` writes the rows into SPEC between `<!-- release table -->` and
`<!-- end of release table -->`, one per release in the order given.
`check` (the lane, for a pinned release) fails when the row's measured
cells differ from SPEC's row for that release (install time and disk are
not compared: they vary by machine).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STEP_TIMEOUT_S = 240  # one generator, check or matrix run
INSTALL_TIMEOUT_S = 300
BEGIN, END = "<!-- release table -->", "<!-- end of release table -->"
COLUMNS = ["package", "release", "apache-arrow", "Lance (writer_version)", "core datasets / versions / rows compared",
           "disagreements", "false positives", "marker: reader and writer bit", "marker: writer bit only",
           "could not do", "install s", "disk MB"]
UNCOMPARED = {"install s", "disk MB"}


def one_line(text, n=160):
    lines = [l for l in (text or "").strip().splitlines() if l.strip()]
    return re.sub(r"\s+", " ", lines[-1] if lines else "").strip()[:n]


def run(cmd, timeout, **kw):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, **kw)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout


def disk_mb(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except OSError:
                pass
    return round(total / 1e6, 1)


def install(package, version, tmp):
    prefix = os.path.join(tmp, "pkg")
    os.makedirs(prefix)
    with open(os.path.join(prefix, "package.json"), "w") as f:
        json.dump({"name": "lfa-sweep", "private": True}, f)
    t0 = time.time()
    code, out, err = run(["npm", "install", "--prefix", prefix, "--cache", os.path.join(tmp, "npm-cache"),
                          "--no-audit", "--no-fund", "--loglevel=error", "%s@%s" % (package, version)],
                         INSTALL_TIMEOUT_S)
    secs = round(time.time() - t0, 1)
    if code != 0:
        return None, secs, "npm install failed: %s" % one_line(err or out)
    return os.path.join(prefix, "node_modules"), secs, None


def arrow_version(modules):
    try:
        return json.load(open(os.path.join(modules, "apache-arrow", "package.json")))["version"]
    except (OSError, ValueError, KeyError):
        return None


def lance_of_tables(lfa, gen):
    """The writer_version names of the tables the release wrote, and of none."""
    names, missing = set(), 0
    db = os.path.join(gen, "db")
    for d in sorted(os.listdir(db)) if os.path.isdir(db) else []:
        code, out, _ = run([lfa, "dump", "--json", "--version", "1", os.path.join(db, d)], 120)
        try:
            v = json.loads(out)["versions"][0]
        except (ValueError, KeyError, IndexError):
            continue
        wv = v.get("writer_version")
        if wv is None:
            if "error" not in v:
                missing += 1
        else:
            names.add("%s %s" % (wv.get("library"), wv.get("version")))
    return sorted(names), missing


def template_gap(text):
    """A matrix cell with no template because the API lacks a call it needs."""
    return text.startswith("no template (") and ("is not a function" in text or "not in API" in text)


def cell_class(text):
    if template_gap(text):
        m = re.search(r"(\w+(?:\.\w+)?) is not a function", text)
        name = re.sub(r"^t\.", "table.", m.group(1)) if m else "call"
        return "no matrix (the API has no %s(), which the template needs)" % name
    if text.startswith("refused (feature flags)"):
        return "refused"
    if text.startswith("refused"):
        # Lance's refusal may quote an index's random id (a UUID, cut short
        # by the matrix): named as <id>, so that a cell says the same at
        # every sweep of the same release.
        return re.sub(r"\b[0-9a-f]{8}-[0-9a-f-]*", "<id>", text)
    if text == "not in API":
        return "n/a"
    m = re.match(r"committed, state lost: ([A-Z0-9, -]+?) at v", text)
    if m:
        return "lost (%s)" % m.group(1)
    if text.startswith("committed, tracking ends"):
        return "ends"
    if text.startswith("committed, state kept"):
        return "kept"
    return text


def matrix_summary(cells, marker):
    """One marker's twelve mutations, grouped by outcome; the stable-row-id
    cells only where they differ from the address ones."""
    ops, by = [], {}
    for c in cells:
        if c["marker"] == marker:
            if c["op"] not in ops:
                ops.append(c["op"])
            by[(c["op"], c["mode"])] = c["text"]
    groups = {}
    for op in ops:
        groups.setdefault(cell_class(by.get((op, "address"), "?")), []).append(op)
    parts = []
    for cls, names in groups.items():
        parts.append(("%s (all 12)" % cls) if len(names) == 12 else "%s: %s" % (cls, ", ".join(names)))
    stable = [by.get((op, "stable"), "?") for op in ops]
    if all(s.startswith("lfa track refuses") for s in stable):
        pass
    elif all(s.startswith("n/a (no stable") for s in stable):
        parts.append("no stable row ids")
    else:
        differ = [op for op in ops if cell_class(by.get((op, "stable"), "?")) != cell_class(by.get((op, "address"), "?"))]
        for op in differ:
            parts.append("stable row ids, %s: %s" % (op, cell_class(by[(op, "stable")])))
    return "; ".join(parts)


def no_paths(text):
    """A reason without the machine's paths (temporary folders, cargo's)."""
    return re.sub(r",? ?(?:location: )?/(?:tmp|work|home|root|usr)/\S*", "", text)


def could_not(skipped):
    """What the generator could not do, grouped: API gaps by step, refusals
    by step, and the histories not made at all, each with its reason."""
    api, refused, datasets = [], [], []
    for s in skipped:
        what, why = s["what"], no_paths(s["why"])
        step = what.split(": ", 1)[1] if ": " in what else None
        if step is None:
            short = re.sub(r"^\S+: ", "", why)
            short = re.sub(r" \(.*", "", short) if "not in this release's API" in short else short
            datasets.append("%s (%s)" % (what, short[:90]))
        elif "not in this release" in why:
            if step not in api:
                api.append(step)
        else:
            reason = re.sub(r"^Lance refused: ", "", why)
            item = "%s (%s)" % (step, reason[:70])
            if not any(r.startswith(step + " (") for r in refused):
                refused.append(item)
    parts = []
    if api:
        parts.append("not in API: " + ", ".join(api))
    if refused:
        parts.append("refused: " + "; ".join(refused))
    if datasets:
        parts.append("not made: " + "; ".join(datasets))
    return " / ".join(parts) or "nothing"


def measure(args, modules, row, work):
    gen = os.path.join(work, "gen")
    node_label = "%s@%s" % (row["package"], row["release"])
    code, out, err = run(["node", os.path.join(HERE, "generate.mjs"), "--release", "swept", "--modules", modules,
                          "--out", gen, "--core"], STEP_TIMEOUT_S)
    if code != 0:
        row["reason"] = "the generator failed: %s" % one_line(err or out)
        return
    expected = json.load(open(os.path.join(gen, "expected.json")))
    summary = os.path.join(work, "check.json")
    code, out, err = run([sys.executable, os.path.join(HERE, "check_lane.py"), args["lfa"], gen, "--summary", summary],
                         STEP_TIMEOUT_S)
    if code not in (0, 1) or not os.path.exists(summary):
        row["reason"] = "check_lane failed: %s" % one_line(err or out)
        return
    row["check"] = json.load(open(summary))
    row["disagreement_lines"] = [l.strip() for l in out.splitlines() if "DISAGREE" in l][:20]
    names, missing = lance_of_tables(args["lfa"], gen)
    row["writer_versions"], row["tables_without_writer_version"] = names, missing
    row["lance_from_binary"] = expected.get("lance")
    row["skipped"] = expected["skipped"]
    mjson = os.path.join(work, "matrix.json")
    code, out, err = run(["node", os.path.join(HERE, "matrix.mjs"), "--release", node_label, "--modules", modules,
                          "--lfa", args["lfa"], "--work", os.path.join(work, "matrix"), "--json", mjson], STEP_TIMEOUT_S)
    if not os.path.exists(mjson):
        row["matrix_reason"] = "matrix.mjs failed: %s" % one_line(err or out)
    else:
        m = json.load(open(mjson))
        row["matrix"] = m["cells"]
        row["matrix_failures"] = m["failures"]
        row["matrix_failure_lines"] = [l.strip() for l in out.splitlines() if "FAIL:" in l][:20]


def cmd_run(argv):
    if len(argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    package, version = argv[0], argv[1]
    args = dict(zip([a.lstrip("-") for a in argv[2::2]], argv[3::2]))
    if "lfa" not in args or "out" not in args:
        sys.exit("sweep.py run: --lfa and --out are required")
    args["lfa"] = os.path.abspath(args["lfa"])
    row = {"package": package, "release": version}
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="lfa-sweep-", dir=args.get("work"))
    try:
        modules = args.get("modules")
        if modules:
            modules = os.path.abspath(modules)
        else:
            modules, row["install_seconds"], reason = install(package, version, tmp)
            if reason:
                row["reason"] = reason
        if modules:
            row["apache_arrow"] = arrow_version(modules)
            if not args.get("modules"):
                row["installed_mb"] = disk_mb(os.path.join(tmp, "pkg"))
            measure(args, modules, row, os.path.join(tmp, "work"))
        row["disk_mb"] = disk_mb(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    row["seconds"] = round(time.time() - t0, 1)
    with open(args["out"], "w") as f:
        json.dump(row, f, indent=1)
        f.write("\n")
    print(render(row)[0])
    return 0


def lance_cell(row):
    names = row.get("writer_versions") or []
    cell = ", ".join(names) if names else "none recorded"
    if not names or row.get("tables_without_writer_version"):
        cell += " (binary: lance %s)" % row.get("lance_from_binary") if row.get("lance_from_binary") else ""
    return cell


def render(row):
    """The row's cells, in COLUMNS order, and whether it measured anything."""
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
    cells = {"package": row["package"], "release": row["release"], "apache-arrow": row.get("apache_arrow") or "-",
             "install s": row.get("install_seconds", "-"), "disk MB": row.get("disk_mb", "-")}
    if "reason" in row and "check" not in row:
        for c in COLUMNS:
            cells.setdefault(c, "-")
        cells["Lance (writer_version)"] = "did not run: " + row["reason"]
    else:
        ck = row["check"]
        extra = []
        if ck.get("counts_only_versions"):
            extra.append("%d by count only" % ck["counts_only_versions"])
        if ck.get("rowid_set_versions"):
            extra.append("%d by count and _rowid set" % ck["rowid_set_versions"])
        if ck.get("rows_unknown_versions"):
            extra.append("%d with physical_rows unknown" % ck["rows_unknown_versions"])
        cells["Lance (writer_version)"] = lance_cell(row)
        cells["core datasets / versions / rows compared"] = "%d / %d / %d%s" % (
            ck["datasets"], ck["versions"], ck["rows"], " (%s)" % ", ".join(extra) if extra else "")
        cells["disagreements"] = ck["disagreements"]
        cells["false positives"] = ck["false_positives"]
        if "matrix" in row:
            for marker in ["reader and writer bit", "writer bit only"]:
                cells["marker: " + marker] = matrix_summary(row["matrix"], marker)
            gaps = sum(1 for l in row.get("matrix_failure_lines", []) if "is not a function" in l)
            if row.get("matrix_failures", 0) - gaps > 0:
                cells["marker: writer bit only"] += " (%d lane failures)" % (row["matrix_failures"] - gaps)
        else:
            cells["marker: reader and writer bit"] = row.get("matrix_reason", "-")
            cells["marker: writer bit only"] = "-"
        cells["could not do"] = could_not(row.get("skipped", []))
    line = "| " + " | ".join(esc(cells[c]) for c in COLUMNS) + " |"
    return line, cells


def totals(rows):
    """The sweep's counts, for the line under the table."""
    ran = [r for r in rows if "check" in r]
    installed = [r for r in rows if not str(r.get("reason", "")).startswith("npm install failed")]
    add = lambda k: sum(r["check"].get(k, 0) for r in ran)
    secs = sum(r.get("seconds", 0) for r in rows)
    disks = sorted(r["disk_mb"] for r in rows if isinstance(r.get("disk_mb"), (int, float)))
    return ("Totals: %d releases tried, %d installed, %d ran; %d datasets, %d versions, %d rows compared; "
            "%d disagreements, %d false positives; %d matrix runs; %.0f s of measuring in all; "
            "disk per release %.0f to %.0f MB (median %.0f), removed after each."
            % (len(rows), len(installed), len(ran), add("datasets"), add("versions"), add("rows"),
               add("disagreements"), add("false_positives"), sum(len(r.get("matrix", [])) for r in ran), secs,
               disks[0] if disks else 0, disks[-1] if disks else 0, disks[len(disks) // 2] if disks else 0))


def table_lines(rows):
    return (["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)] + [render(r)[0] for r in rows]
            + ["", totals(rows)])


def cmd_table(argv):
    spec, files = argv[0], argv[1:]
    rows = [json.load(open(f)) for f in files]
    text = open(spec).read()
    if BEGIN not in text or END not in text:
        sys.exit("sweep.py table: %s has no %s ... %s" % (spec, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(spec, "w") as f:
        f.write(head + BEGIN + "\n" + "\n".join(table_lines(rows)) + "\n" + END + tail)
    return 0


def parse_row(line):
    cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
    return dict(zip(COLUMNS, cells))


def cmd_check(argv):
    spec, rowfile = argv
    row = json.load(open(rowfile))
    text = open(spec).read()
    if BEGIN not in text:
        print("sweep check: %s has no release table" % spec)
        return 1
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    want = None
    for line in [l for l in body.strip().splitlines() if l.startswith("|")][2:]:
        c = parse_row(line)
        if c.get("package") == row["package"] and c.get("release") == row["release"]:
            want = c
    if want is None:
        print("sweep check: %s has no row for %s %s" % (spec, row["package"], row["release"]))
        return 1
    _, got = render(row)
    bad = 0
    for c in COLUMNS:
        if c in UNCOMPARED:
            continue
        g = str(got[c]).replace("\n", " ")
        if g != want[c]:
            bad += 1
            print("sweep check: %s %s, %s: measured '%s', the table says '%s'" % (row["package"], row["release"], c, g, want[c]))
    for l in row.get("disagreement_lines", []) + row.get("matrix_failure_lines", []):
        print("  " + l)
    print("sweep check: %s %s: %s" % (row["package"], row["release"],
                                      "the release table's row holds" if not bad else "%d cells differ" % bad))
    return 1 if bad else 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("run", "table", "check"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    return {"run": cmd_run, "table": cmd_table, "check": cmd_check}[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
