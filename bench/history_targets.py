#!/usr/bin/env python3
"""history_targets.py: the targets on a long real history (scripts/bench.sh).

    python3 bench/history_targets.py --lfa LFA --history HISTORY_BENCH [--work DIR] [--smoke]

Prints one JSON line per target, the shape every target of scripts/bench.sh
has:

    {"bench": "targets", "target": T, "ratio": R, "threshold": X, "met": B, "detail": {...}}

  verify_newest_commit  `history` (bench/history.c): lfa verify --from N
                        against decoding manifests N-1 and N; at most 5
  verify_vs_decode      the same program: every version against a bare
                        decode of every manifest; at most 3
  verify_vs_lance       Lance 12 opening every version and counting its rows
                        (interop/history.mjs --open: CPU seconds of every
                        thread of the Node process over the loop, Node's
                        start-up not counted) / CPU seconds of `lfa verify`
                        of the same directory (the whole process, best of
                        3); at least 5. CPU, not wall: the machine is shared,
                        and Lance's threads count as its work. Wall seconds
                        of both are in the detail.
  dump_memory_flat      peak RSS of `lfa dump --json` over every version /
                        over the first 10 versions of the same dataset (hard
                        links to the same files, later manifests left out);
                        at most 2. The peak RSS of `lfa verify` over both is
                        in the detail.

The history is 1,000 versions Lance 12 writes (interop/history.mjs: 900
appends of 100 rows, 99 deletes of one row), generated once into
WORK/h1000 (about 2 minutes) and reused. Without Node or the Lance 12 peer,
and no history cached, the targets are skipped with a "meta_skip" line
saying why. --smoke runs the same steps on the upstream layout example
(nine versions, cut at 3), Lance left out, in seconds: the lines' shape and
the steps are what it checks (ctest bench_history_targets_smoke).
Exit status 1 when a step broke (a failed run, an invariant), not for a
missed target: that is "met": false with its reason in the detail.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "..", "shared", "upstream-layout-example", "address-mode-history")
U64_MAX = (1 << 64) - 1


def line(target, ratio, threshold, at_most, detail):
    met = ratio <= threshold if at_most else ratio >= threshold
    detail = dict(detail, met_when="ratio <= threshold" if at_most else "ratio >= threshold")
    return {"bench": "targets", "target": target, "ratio": round(ratio, 4), "threshold": threshold, "met": met,
            "detail": detail}


def run_rss(argv):
    """Wall seconds, peak RSS in KiB, CPU seconds (user + system), exit
    status and stderr of one run, output dropped. GNU time measures: the
    rusage of a child Python forks would count the copy of Python itself
    it starts as."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss, open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", rss.name] + argv, stdout=null,
                           stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
        text = rss.read().strip().splitlines()
    fields = text[-1].split() if text else []
    kib, cpu = (int(fields[0]), float(fields[1]) + float(fields[2])) if len(fields) == 3 else (0, 0.0)
    return wall, kib, cpu, p.returncode, p.stderr.decode(errors="replace")


def version_of(name):
    """The version a _versions/ file name holds (V1 plain, V2 inverted), or None."""
    stem = name[:-len(".manifest")] if name.endswith(".manifest") else None
    if stem is None or not stem.isdigit():
        return None
    n = int(stem)
    return U64_MAX - n if len(stem) == 20 else n


def cut(src, dst, keep):
    """dst: src with hard links to its files, _versions/ only up to `keep`."""
    shutil.copytree(src, dst, copy_function=os.link)
    vdir = os.path.join(dst, "_versions")
    for name in os.listdir(vdir):
        v = version_of(name)
        if v is None or v > keep:
            os.unlink(os.path.join(vdir, name))


def history_lines(bench, dataset, smoke):
    r = subprocess.run([bench, dataset] + (["--smoke"] if smoke else ["--reps", "5"]), capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        raise RuntimeError(f"{bench} {dataset}: exit {r.returncode}")
    return [json.loads(x) for x in r.stdout.splitlines() if x.strip()]


def memory_line(lfa, dataset, work, keep, full_versions):
    small = os.path.join(work, f"cut{keep}")
    shutil.rmtree(small, ignore_errors=True)
    cut(dataset, small, keep)
    rss = {}
    for label, ds in (("small", small), ("full", dataset)):
        for cmd in ("dump", "verify"):
            argv = [lfa, "dump", "--json", ds] if cmd == "dump" else [lfa, "verify", ds]
            _, kib, _, code, err = run_rss(argv)
            if code != 0:
                raise RuntimeError(f"lfa {cmd} {ds}: exit {code}: {err.strip()[:300]}")
            rss[f"{cmd}_{label}"] = kib
    shutil.rmtree(small, ignore_errors=True)
    ratio = rss["dump_full"] / rss["dump_small"]
    detail = {"ratio_def": f"peak RSS of lfa dump --json, {full_versions} versions / the first {keep}",
              f"dump_peak_kib_{keep}": rss["dump_small"], f"dump_peak_kib_{full_versions}": rss["dump_full"],
              f"verify_peak_kib_{keep}": rss["verify_small"], f"verify_peak_kib_{full_versions}": rss["verify_full"]}
    if ratio > 2:
        detail["reason"] = "memory grows with the versions dumped: a version's output or objects are held past it"
    return line("dump_memory_flat", ratio, 2, True, detail)


def lance_line(lfa, dataset):
    node = subprocess.run(["node", os.path.join(ROOT, "interop", "history.mjs"), "--release", "lance12", "--open",
                           dataset], capture_output=True, text=True)
    if node.returncode != 0:
        raise RuntimeError(f"interop/history.mjs --open: exit {node.returncode}: {node.stderr.strip()[:300]}")
    lance = json.loads(node.stdout.strip().splitlines()[-1])
    runs = [run_rss([lfa, "verify", dataset]) for _ in range(3)]
    if any(r[3] != 0 for r in runs):
        raise RuntimeError(f"lfa verify {dataset}: exit {runs[0][3]}")
    cpu, wall = min(r[2] for r in runs), min(r[0] for r in runs)
    ratio = lance["cpu_seconds"] / cpu
    detail = {"ratio_def": "CPU seconds (user + system, every thread) of Lance 12 checking out every version and "
                           "counting its rows / of the lfa verify process over every version",
              "lance_cpu_s": round(lance["cpu_seconds"], 3), "lfa_verify_cpu_s": round(cpu, 3),
              "lance_wall_s": round(lance["seconds"], 3), "lfa_verify_wall_s": round(wall, 3),
              "versions": lance["versions"]}
    if ratio < 5:
        detail["reason"] = ("lfa verify decodes only the fragments each commit changed, but still builds every "
                            "version's model table from all of its fragments and reads every manifest whole; "
                            "what would reach it: share the parent's table rows for unchanged fragments "
                            "(verify_vs_decode's reason)")
    return line("verify_vs_lance", ratio, 5, False, detail)


def lance_missing():
    if os.environ.get("LFA_SKIP_LANCE") == "1":
        return "LFA_SKIP_LANCE=1"
    if shutil.which("node") is None:
        return "node is missing (run scripts/peers.sh)"
    if not os.path.isfile(os.path.join(ROOT, "interop", "lance12", "node_modules", "@lancedb", "lancedb",
                                       "package.json")):
        return "the Lance 12 peer is not installed in interop/lance12/node_modules (run scripts/peers.sh)"
    return None


def the_history(work):
    """WORK/h1000/hist.lance, written once by Lance 12; (path, None) or (None, why not)."""
    ds = os.path.join(work, "h1000", "hist.lance")
    if os.path.isdir(os.path.join(ds, "_versions")):
        return ds, None
    why = lance_missing()
    if why:
        return None, why
    sys.stderr.write("== history_targets: writing 1,000 versions with Lance 12 into %s (once)\n" % ds)
    r = subprocess.run(["node", os.path.join(ROOT, "interop", "history.mjs"), "--release", "lance12", "--out",
                        os.path.join(work, "h1000"), "--commits", "1000"], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(os.path.join(work, "h1000"), ignore_errors=True)
        raise RuntimeError(f"interop/history.mjs: exit {r.returncode}: {r.stderr.strip()[:300]}")
    return ds, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lfa", required=True)
    ap.add_argument("--history", required=True, help="the bench/history program")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work"))
    ap.add_argument("--smoke", action="store_true")
    a = ap.parse_args()
    out = []
    if a.smoke:
        work = tempfile.mkdtemp(prefix="lfa-history-targets-")
        try:
            ds = os.path.join(work, "ds")
            shutil.copytree(EXAMPLE, ds)
            out += history_lines(a.history, ds, True)
            out.append(memory_line(a.lfa, ds, work, 3, 9))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        want = {"bench", "target", "ratio", "threshold", "met", "detail"}
        assert [x["target"] for x in out] == ["verify_newest_commit", "verify_vs_decode", "dump_memory_flat"], out
        assert all(set(x) == want and isinstance(x["met"], bool) for x in out), out
    else:
        os.makedirs(a.work, exist_ok=True)
        ds, why = the_history(a.work)
        if ds is None:
            print(json.dumps({"bench": "meta_skip", "program": "history_targets", "reason": why}))
            return 0
        out += history_lines(a.history, ds, False)
        why = lance_missing()
        if why:
            out.append({"bench": "meta_skip", "program": "verify_vs_lance", "reason": why})
        else:
            out.append(lance_line(a.lfa, ds))
        out.append(memory_line(a.lfa, ds, a.work, 10, 1000))
    for x in out:
        print(json.dumps(x))
        if x.get("bench") == "targets":
            sys.stderr.write("history_targets %-22s ratio %8.3f threshold %g: %s\n" %
                             (x["target"], x["ratio"], x["threshold"], "met" if x["met"] else "MISSED"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError, AssertionError) as e:
        sys.stderr.write(f"history_targets: {e}\n")
        sys.exit(1)
