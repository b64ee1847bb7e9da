#!/usr/bin/env python3
"""example_adapter.py: a worked example of a conformance adapter.

`lfa conformance --adapter CMD` runs, for every scenario,

    CMD SCENARIO.json OUT_DIR

with OUT_DIR an empty directory. An adapter executes the scenario's setup
and steps with the writer under test, leaves the dataset in OUT_DIR/dataset,
and writes OUT_DIR/observations.json (format: conformance/README.md). Exit 0
when the observations are written, 77 to skip a scenario the writer cannot
run (say why in "skipped"); anything else is a crash.

This example shows the three duties of an adapter:

  1. declare what the writer cannot do, and skip those scenarios (exit 77);
  2. drive the writer, step by step, keeping its own map from the
     scenario's logical keys to rows;
  3. report each step's outcome and what the writer's *own reader* returns.

To plug in your writer, replace `run_with_writer`: execute scenario["setup"]
(a create) and each of scenario["steps"], and build the observations from
your reader (for each step with a "check": the live keys, the tracked field
paths, and for each tracked field the live keys whose is_assigned is true).

Here the writer is lfa's reference writer, reached through `lfa adapter`
(which does all of the above in C), so this script runs as it is. Two
options make it a writer with known gaps, to see how the suite reports them:

  --lacks OP[,OP...]     skip scenarios that use these operations
                         (e.g. --lacks clone,restore)
  --drop-invalidations   a deliberately broken writer: it loses every
                         invalidation (the "invalidate" lists of update and
                         merge_insert steps), as a writer that forgot the
                         sidecar's invalidation records would

Set LFA to the lfa binary (default: `lfa` on PATH, then build/lfa).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def find_lfa():
    """The lfa binary: $LFA, else lfa on PATH, else build/lfa."""
    for candidate in (os.environ.get("LFA"), shutil.which("lfa"), "build/lfa"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("example_adapter: cannot find lfa (set LFA=/path/to/lfa)")


def operations(scenario):
    """The operations a scenario uses (the setup is a create)."""
    return {"create"} | {step["op"] for step in scenario["steps"]}


def skip(out_dir, reason):
    """Duty 1: a capability the writer lacks is a skip, not a failure."""
    with open(os.path.join(out_dir, "observations.json"), "w") as f:
        json.dump({"adapter": "example_adapter.py", "skipped": reason}, f)
    sys.exit(SKIP)


KEPT = ("check", "expect", "expect_rule", "note", "read_step")


def without_invalidations(scenario):
    """The broken writer's view: every invalidation request lost. A step
    that did nothing but invalidate still commits, changing nothing (as a
    metadata-only commit), the way such a writer would."""
    for i, step in enumerate(scenario["steps"]):
        if not step.pop("invalidate", None):
            continue
        if step["op"] in ("update", "merge_insert") and not step.get("fields") and not step.get("inserts"):
            scenario["steps"][i] = {"op": "update_config", **{k: step[k] for k in KEPT if k in step}}
    return scenario


def run_with_writer(scenario, out_dir):
    """Duties 2 and 3: execute every step and observe with the writer's own
    reader. Replace this with your writer. The reference writer behind
    `lfa adapter` writes OUT_DIR/dataset and OUT_DIR/observations.json."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scenario.json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        done = subprocess.run([find_lfa(), "adapter", path, out_dir])
    if done.returncode != 0:
        sys.exit(done.returncode)  # the runner reports it as a crash
    with open(os.path.join(out_dir, "observations.json")) as f:
        observations = json.load(f)
    observations["adapter"] = "example_adapter.py over lfa's reference writer"
    with open(os.path.join(out_dir, "observations.json"), "w") as f:
        json.dump(observations, f, indent=1)


def main(argv):
    lacks, broken, args = set(), False, []
    i = 0
    while i < len(argv):
        if argv[i] == "--lacks" and i + 1 < len(argv):
            lacks |= set(argv[i + 1].split(","))
            i += 2
        elif argv[i] == "--drop-invalidations":
            broken = True
            i += 1
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        sys.exit("usage: example_adapter.py [--lacks OPS] [--drop-invalidations] SCENARIO.json OUT_DIR")
    scenario_path, out_dir = args
    with open(scenario_path) as f:
        scenario = json.load(f)
    missing = sorted(operations(scenario) & lacks)
    if missing:
        skip(out_dir, "this writer cannot " + ", ".join(missing))
    run_with_writer(without_invalidations(scenario) if broken else scenario, out_dir)


if __name__ == "__main__":
    main(sys.argv[1:])
