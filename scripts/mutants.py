#!/usr/bin/env python3
"""mutants.py: the mutation suite (tests/mutants.tsv).

Each mutant of the catalog is a one-line change of library code: in FILE the
ORIGINAL text (found exactly once) becomes the REPLACEMENT. A mutant names the
requirement it threatens and its layer, so the table reads per layer. The
suite copies the tree into a scratch directory, builds it once, and then, one
mutant at a time, applies it, rebuilds (only what the change touches) and runs
the fast test subset (FAST_EXCLUDE: no real-Lance or S3 lanes, no depth-3
explorer, browser, install or bench tests). A mutant is killed by the first
test that fails (or times out); one that passes every test survived. A
survivor the catalog marks `equivalent: <reason>` cannot change behaviour
and is left out of the kill ratio, its reason shown beside it.

Usage: scripts/mutants.py [--check] [--sample N | --ci | --only ID,...]
                          [--out DIR] [--scratch DIR] [--jobs N]
  --check       only check that every mutant still applies (its original
                text is in its file exactly once) and is well formed; no build
  --sample N    a fixed subset of N mutants, spread evenly over the catalog
  --ci          the mutants whose sample column is `ci`; fails unless each is
                killed (what ctest `mutants_ci` runs)
  --only IDS    the named mutants (comma-separated)
  --out DIR     where the table goes: DIR/mutants.md and DIR/mutants.jsonl
                (default bench/results for a whole-catalog run; none for a
                subset unless given)
  --scratch DIR the scratch copy and its build (default build-mutants/)
  --jobs N      build and test jobs (default 2)
  --merge       with --out: the mutants run replace their rows in the table
                already in DIR (a re-run after tests were added); the other
                rows stay as they were
  --retable     no run: the table in --out (default bench/results) written
                again with the catalog's current notes (a survivor the
                catalog now explains as equivalent is counted so)
  --resume      with --merge: no baseline (the run that began the table
                passed it), and without --only only the mutants the table
                does not hold yet
Mutants run in an order that takes the layers in turn, so that a run cut
short still covers every layer. The tree is copied again before each
mutant, so a test added meanwhile takes part; each row records the commit
it ran at.
Exit status: 0 done (for --ci: every mutant killed), 1 a survivor under --ci,
a baseline that fails, or a mutant that does not build; 2 a catalog that does
not apply, or usage.
Progress lines go to stderr: one per mutant, with its verdict and time.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
CATALOG = os.path.join(ROOT, "tests", "mutants.tsv")
COLUMNS = ["id", "layer", "file", "requirement", "original", "replacement", "sample", "note"]
# The fast subset: every ctest but these (the real-Lance and S3 lanes, the
# depth-3 explorer, the browser, the install test, the benches and this
# suite's own tests).
FAST_EXCLUDE = (r"^(lance_lane_|s3_lane_|cli_s3$|design_compare_lance_smoke$|explore_depth3_|report_browser$|"
                r"install_consumer$|bench_|mutants_)")
# The layers in LAYERS' order (bottom first), and cli above them.
with open(os.path.join(ROOT, "LAYERS"), encoding="utf-8") as _f:
    LAYERS = [line.split()[0] for line in _f if line[:1].isalpha()] + ["cli"]


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def read_catalog():
    """The catalog's rows, with the errors that make it unusable: each
    names the mutant and its file, so a moved text is quick to fix."""
    rows, errors, seen = [], [], set()
    req_ids = set()
    with open(os.path.join(ROOT, "spec", "requirements.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("FA-"):
                req_ids.add(line.split("\t", 1)[0])
    with open(CATALOG, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != len(COLUMNS):
                errors.append(f"tests/mutants.tsv:{n}: {len(cells)} columns, expected {len(COLUMNS)}")
                continue
            r = dict(zip(COLUMNS, cells))
            r["line"] = n
            where = f"mutant {r['id']} ({r['file']}, tests/mutants.tsv:{n})"
            if r["id"] in seen:
                errors.append(f"{where}: id used twice")
            seen.add(r["id"])
            if r["layer"] not in LAYERS:
                errors.append(f"{where}: layer '{r['layer']}' is none of {' '.join(LAYERS)}")
            for rid in r["requirement"].split(","):
                if rid not in req_ids and r["requirement"] != "-":  # -: harness code no requirement states
                    errors.append(f"{where}: requirement {rid} is not in spec/requirements.tsv")
            if r["original"] == r["replacement"]:
                errors.append(f"{where}: the replacement equals the original")
            path = os.path.join(ROOT, r["file"])
            if not os.path.isfile(path):
                errors.append(f"{where}: no such file")
            else:
                text = open(path, encoding="utf-8").read()
                count = text.count(r["original"])
                if count != 1:
                    errors.append(f"{where}: original text found {count} times, expected once: {r['original']}")
                elif "\n" in r["original"]:
                    errors.append(f"{where}: the original spans lines")
            rows.append(r)
    return rows, errors


def by_layers(rows):
    """rows with the layers taken in turn: the first of each layer, then
    the second of each, and so on."""
    queues = {}
    for r in rows:
        queues.setdefault(r["layer"], []).append(r)
    out = []
    while any(queues.values()):
        for layer in LAYERS:
            if queues.get(layer):
                out.append(queues[layer].pop(0))
    return out


def select(rows, args):
    if args.only:
        want = args.only.split(",")
        missing = [w for w in want if w not in {r["id"] for r in rows}]
        if missing:
            sys.exit(f"mutants: no mutant {' '.join(missing)} in the catalog")
        return [r for r in rows if r["id"] in want]
    if args.ci:
        return [r for r in rows if r["sample"] == "ci"]
    if args.sample:
        step = len(rows) / args.sample
        return [rows[int(i * step)] for i in range(min(args.sample, len(rows)))]
    return rows


def copy_tree(scratch):
    """The tree as it is (tracked and untracked files, not ignored ones) in
    scratch/src; scratch/shared points at the shared test data the tests
    read from ../shared/."""
    src = os.path.join(scratch, "src")
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "-z"],
                           check=True, capture_output=True).stdout.decode().split("\0")
    for rel in files:
        if not rel:
            continue
        a, b = os.path.join(ROOT, rel), os.path.join(src, rel)
        if not os.path.lexists(a) or os.path.isdir(a):
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        if os.path.islink(a):
            if os.path.lexists(b):
                os.unlink(b)
            os.symlink(os.readlink(a), b)
        elif not os.path.exists(b) or open(a, "rb").read() != open(b, "rb").read():
            shutil.copy(a, b)  # a new mtime: the build sees the change
    shared = os.path.join(scratch, "shared")
    if not os.path.lexists(shared):
        os.symlink(os.path.realpath(os.path.join(ROOT, "..", "shared")), shared)
    return src


def build(src, bdir, jobs, targets=None):
    """Builds the targets named (None: everything)."""
    if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", src, "-B", bdir, "-DLFA_VARIANT=release"], check=True,
                       stdout=subprocess.DEVNULL)
    if targets is not None and not targets:
        return True, ""
    cmd = ["cmake", "--build", bdir, "-j", str(jobs)] + (["--target"] + sorted(targets) if targets else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]


def fast_tests(bdir):
    """The fast subset, each test with the build targets it runs (the
    programs of its command that the build makes), so that a mutant's first
    tests need only their own programs rebuilt."""
    out = subprocess.run(["ctest", "--test-dir", bdir, "--show-only=json-v1"], check=True, capture_output=True,
                         text=True).stdout
    tests = {}
    for t in json.loads(out)["tests"]:
        if re.search(FAST_EXCLUDE, t["name"]):
            continue
        tests[t["name"]] = {os.path.basename(a) for a in t.get("command", [])
                            if a.startswith(bdir + "/") and os.access(a, os.X_OK)}
    return tests


# The tests of each layer, tried first on its mutants (before the layer's
# earlier killers and then the whole subset): an order only, never a
# verdict, so a wrong guess costs time and nothing else.
LAYER_TESTS = {
    "base": ["test_json", "test_search", "test_hash", "test_arena", "test_escape"],
    "format": ["test_bitmap", "test_manifest", "test_rowids", "test_root", "test_transaction"],
    "model": ["test_apply", "test_remap", "test_materialize"],
    "fs": ["test_fs_ops", "test_memfs", "test_s3_listing"],
    "read": ["test_dataset", "test_objects", "test_fs_ops"],
    "mutate": ["test_mutate", "test_mutate_files", "test_mutate_schema"],
    "commit": ["test_commit", "test_rebase", "test_concurrency"],
    "write": ["test_writer", "test_history_disk", "test_onto"],
    "query": ["test_expr", "test_materialize"],
    "cleanup": ["test_cleanup", "test_cleanup_oracle"],
    "verify": ["test_verify", "test_verify_edges", "conformance_invalid_rejected"],
    "harness": ["test_conformance", "conformance_reference"],
}


def first_tests(r, tests, killers):
    """The tests tried first on mutant r: those named after its file, those
    of its layer, and those that killed earlier mutants of its layer."""
    stem = os.path.splitext(os.path.basename(r["file"]))[0]
    named = [t for t in tests if t in ("test_" + stem, "cli_" + stem) or (t.startswith("fuzz_replay_") and stem in t)]
    guess = named + LAYER_TESTS.get(r["layer"], []) + killers.get(r["layer"], [])[:4]
    return [t for t in dict.fromkeys(guess) if t in tests]


def stages(r, tests, killers):
    """The tests of mutant r in the order they are run, in stages that stop
    at the first failure: its first tests, the other unit tests (fast, and
    their programs are small), then the rest (the command line, the
    conformance suite, the checks of the tree)."""
    first = first_tests(r, tests, killers)
    units = [t for t in tests if t not in first and t.startswith(("test_", "fuzz_replay_"))]
    rest = [t for t in tests if t not in first and t not in units]
    return [first, units, rest]


def run_tests(bdir, names, jobs, timeout):
    """Runs the named tests, stopping at the first failure. Returns the
    failing test's name (None: all passed) and the seconds taken."""
    if not names:
        return None, 0.0
    regex = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    env = dict(os.environ, LFA_SKIP_LANCE="1", LFA_SKIP_BROWSER="1")
    t0 = time.time()
    p = subprocess.Popen(["ctest", "--test-dir", bdir, "-R", regex, "-j", str(jobs), "--stop-on-failure",
                          "--timeout", "300"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                         env=env, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.communicate()
        return "(timeout of the whole run)", time.time() - t0
    except BaseException:  # interrupted: the tests go too
        os.killpg(p.pid, 9)
        raise
    failed = re.findall(r"Test\s+#\d+: (\S+) \.+\**\s*(?:\*\*\*)?(Failed|Timeout|Exception|Not Run|SEGFAULT|"
                        r"Child aborted|Subprocess aborted|OTHER_FAULT|BAD_COMMAND)", out)
    if failed:
        return failed[0][0], time.time() - t0
    if p.returncode != 0:
        return "(ctest exit %d)" % p.returncode, time.time() - t0
    return None, time.time() - t0


def apply(src, r):
    path = os.path.join(src, r["file"])
    text = open(path, encoding="utf-8").read()
    if text.count(r["original"]) != 1:
        raise SystemExit(f"mutant {r['id']} ({r['file']}): original text not found once in the copy")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(r["original"], r["replacement"]))
    return path, text


def write_table(out, results, total_s, selected_all, catalog_size):
    os.makedirs(out, exist_ok=True)
    counted = [x for x in results if x["verdict"] != "equivalent"]
    killed = [x for x in counted if x["verdict"] == "killed"]
    ratio = len(killed) / len(counted) if counted else 0.0
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    per_layer = {}
    for x in results:
        d = per_layer.setdefault(x["layer"], {"mutants": 0, "killed": 0, "equivalent": 0, "survived": 0})
        d["mutants"] += 1
        d[x["verdict"] if x["verdict"] in d else "survived"] += 1
    with open(os.path.join(out, "mutants.jsonl"), "w") as f:
        f.write(json.dumps({"bench": "targets", "target": "mutation_kill_ratio", "ratio": round(ratio, 4),
                            "threshold": 0.95, "met": ratio >= 0.95, "detail": {
                                "ratio_def": "mutants killed by the fast test subset / mutants not equivalent",
                                "met_when": "ratio >= threshold", "mutants": len(results),
                                "killed": len(killed), "equivalent": len(results) - len(counted),
                                "survived": len(counted) - len(killed), "whole_catalog": selected_all, "catalog": catalog_size,
                                "commit": head, "wall_s": round(total_s), "per_layer": per_layer,
                                **({} if ratio >= 0.95 else {"reason": "survived: " + ", ".join(
                                    x["id"] for x in counted if x["verdict"] != "killed") + (
                                    "" if selected_all else f"; {len(results)} of {catalog_size} mutants run")})}})
                + "\n")
        for x in results:
            f.write(json.dumps({"bench": "mutant", **{k: x[k] for k in (
                "id", "layer", "file", "requirement", "verdict", "killed_by", "seconds", "commit")}}) + "\n")
    lines = ["# Mutation suite (scripts/mutants.py, tests/mutants.tsv)", "",
             f"Run at commit {head}, {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, load average "
             f"{' '.join(load)} at the end, wall time {total_s / 60:.0f} min"
             f"{'' if selected_all else f' ({len(results)} of the catalog' + chr(39) + f's {catalog_size} mutants)'}.", "",
             f"**{len(killed)} of {len(counted)} mutants killed ({100 * ratio:.1f}%)**; "
             f"{len(results) - len(counted)} equivalent, {len(counted) - len(killed)} survived.", "",
             "| layer | mutants | killed | equivalent | survived |", "|---|---|---|---|---|"]
    for layer in LAYERS:
        if layer in per_layer:
            d = per_layer[layer]
            lines.append(f"| {layer} | {d['mutants']} | {d['killed']} | {d['equivalent']} | {d['survived']} |")
    lines += ["", "| mutant | layer | file | requirement | change | verdict | killed by / reason |",
              "|---|---|---|---|---|---|---|"]
    for x in results:
        change = f"`{x['original']}` → `{x['replacement']}`".replace("|", "\\|")
        why = (x["killed_by"] or x["note"]).replace("|", "\\|")
        lines.append(f"| {x['id']} | {x['layer']} | {x['file']} | {x['requirement']} | {change} | "
                     f"{x['verdict']} | {why} |")
    with open(os.path.join(out, "mutants.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def retable(rows, out):
    by_id = {r["id"]: r for r in rows}
    results, wall = [], 0
    for line in open(os.path.join(out, "mutants.jsonl")):
        x = json.loads(line)
        if x.get("bench") == "targets":
            wall = x["detail"].get("wall_s", 0)
        elif x.get("bench") == "mutant" and x["id"] in by_id:
            r = dict(by_id[x["id"]], **{k: x.get(k, "") for k in ("verdict", "killed_by", "seconds", "commit")})
            if r["verdict"] in ("survived", "equivalent"):
                r["verdict"] = "equivalent" if r["note"].startswith("equivalent:") else "survived"
            results.append(r)
    order = {r["id"]: i for i, r in enumerate(rows)}
    results.sort(key=lambda r: order[r["id"]])
    write_table(out, results, wall, len(results) == len(rows), len(rows))
    print(f"mutants: {len(results)} rows written again in {os.path.relpath(out, ROOT)}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, usage=argparse.SUPPRESS)
    ap.add_argument("--check", action="store_true")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--sample", type=int)
    g.add_argument("--ci", action="store_true")
    g.add_argument("--only")
    ap.add_argument("--out")
    ap.add_argument("--scratch", default=os.path.join(ROOT, "build-mutants"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--merge", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--retable", action="store_true")
    args = ap.parse_args()
    rows, errors = read_catalog()
    for e in errors:
        print("mutants: " + e, file=sys.stderr)
    if errors:
        return 2
    if args.check:
        print(f"mutants: {len(rows)} mutants, each applies once")
        return 0
    if args.retable:
        return retable(rows, os.path.realpath(args.out or os.path.join(ROOT, "bench", "results")))
    chosen = select(rows, args)
    whole = len(chosen) == len(rows)
    out = args.out or (os.path.join(ROOT, "bench", "results") if whole else None)
    out = os.path.realpath(out) if out else None
    t_start = time.time()
    scratch = os.path.realpath(args.scratch)
    say(f"mutants: {len(chosen)} of {len(rows)} mutants; scratch {scratch}")
    src = copy_tree(scratch)
    bdir = os.path.join(scratch, "build")
    ok, log = build(src, bdir, args.jobs)
    if not ok:
        say(log)
        say("mutants: the unmutated tree does not build")
        return 1
    tests = fast_tests(bdir)
    if args.resume or args.ci:
        # --ci runs inside ctest, whose own run of the same unmutated tree is
        # the baseline: a fast test that fails there fails the suite anyway,
        # so a kill here is trusted exactly when the suite is green.
        secs = 600.0
        say(f"mutants: {'resuming' if args.resume else 'CI sample'}, {len(tests)} fast tests, no baseline")
    else:
        failed, secs = run_tests(bdir, list(tests), args.jobs, 3600)
        if failed:
            say(f"mutants: the unmutated tree fails {failed}: no mutant can be judged")
            return 1
        say(f"mutants: baseline {len(tests)} fast tests pass in {secs:.0f} s (built in {time.time() - t_start:.0f} s)")
    timeout = 3 * secs + 300
    killers = {}  # layer -> tests that killed its mutants so far, tried first
    results = []
    earlier = {}
    if args.merge:
        if not (out and os.path.exists(os.path.join(out, "mutants.jsonl"))):
            sys.exit("mutants: --merge needs an --out that holds a table")
        by_id = {r["id"]: r for r in rows}
        for line in open(os.path.join(out, "mutants.jsonl")):
            x = json.loads(line)
            if x.get("bench") == "mutant" and x["id"] in by_id:
                earlier[x["id"]] = dict(by_id[x["id"]], **{k: x.get(k, "") for k in (
                    "verdict", "killed_by", "seconds", "commit")})
        if args.resume and not args.only:  # mutants named are run again on purpose
            chosen = [r for r in chosen if r["id"] not in earlier]

    def table(done):
        merged = dict(earlier, **{x["id"]: x for x in results})
        ordered = [merged[r["id"]] for r in rows if r["id"] in merged]
        write_table(out, ordered, time.time() - t_start, done and len(ordered) == len(rows), len(rows))

    chosen = by_layers(chosen)
    for i, r in enumerate(chosen, 1):
        t0 = time.time()
        copy_tree(scratch)  # tests added since the run began take part
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        path, original = apply(src, r)
        try:
            killer = None
            for names in stages(r, tests, killers):
                # the programs the stage runs (cli_hostile_fs also preloads lfa_test_vanish)
                targets = set().union(*(tests[t] for t in names)) | ({"lfa_test_vanish"} if names else set())
                ok, log = build(src, bdir, args.jobs, targets)
                if not ok:
                    say(log)
                    say(f"mutants: mutant {r['id']} ({r['file']}) does not build: fix its replacement")
                    return 1
                killer, _ = run_tests(bdir, names, args.jobs, timeout)
                if killer:
                    break
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
        if killer:
            verdict = "killed"
            if not killer.startswith("("):
                killers.setdefault(r["layer"], [])
                if killer not in killers[r["layer"]]:
                    killers[r["layer"]].insert(0, killer)
        elif r["note"].startswith("equivalent:"):
            verdict = "equivalent"
        else:
            verdict = "survived"
        res = dict(r, verdict=verdict, killed_by=killer or "", seconds=round(time.time() - t0, 1), commit=commit)
        results.append(res)
        say(f"mutants: [{i}/{len(chosen)}] {r['id']} {r['layer']} {r['file']}: {verdict}"
            f"{' by ' + killer if killer else ''} ({res['seconds']:.0f} s, {(time.time() - t_start) / 60:.1f} min)")
        if out:
            table(False)  # the table so far, rewritten after each mutant
    if not args.ci:  # a CI scratch copy is not reused
        ok, _ = build(src, bdir, args.jobs)  # the copy back as it was, for the next run
    total = time.time() - t_start
    if out:
        table(True)
        say(f"mutants: table in {os.path.relpath(out, ROOT)}/mutants.md")
    survived = [x for x in results if x["verdict"] == "survived"]
    say(f"mutants: {sum(x['verdict'] == 'killed' for x in results)} killed, "
        f"{sum(x['verdict'] == 'equivalent' for x in results)} equivalent, {len(survived)} survived"
        f"{': ' + ' '.join(x['id'] for x in survived) if survived else ''}; {total / 60:.1f} min")
    if args.ci and (survived or any(x["verdict"] == "equivalent" for x in results)):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
