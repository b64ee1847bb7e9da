#!/usr/bin/env python3
"""broken_adapter.py: an adapter that makes one protocol mistake on
purpose, for the self-test (tests/cli/cli_selftest.sh) and the acceptance run
(tests/cli/cli_acceptance.sh). It wraps lfa's reference adapter ($LFA adapter)
and then spoils what that wrote:

    broken_adapter.py MISTAKE SCENARIO.json OUT_DIR

MISTAKE is one of: none, no-observations, keys-as-strings, stop-at-refusal,
no-observed, no-dataset, crash, skip-without-reason, steps-from-one,
segfault; off-by-one (its reader reports the row after the last assigned
one as assigned too, while the bytes are right) and report-the-model (it
reports the expected state while its bytes lack the last checked change,
as an adapter reporting its writer's memory would): observations that are
not what the dataset holds; and the planted writer bugs (no protocol
mistakes) lose-last-change (the last checked step that commits changes
nothing, and its reader says so) and lose-root (a root object of the
dataset is deleted, which the verifier finds); "off-by-one+lose-root"
makes both. With
BROKEN_ADAPTER_SLOW_ON=NAME it first sleeps 4 s on scenario NAME, so a
test can watch the runner while it still runs.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def spoil(mistake, obs):
    steps = obs["steps"]
    if mistake == "keys-as-strings":
        for s in steps:
            if "observed" in s:
                s["observed"]["live"] = [str(k) for k in s["observed"]["live"]]
    elif mistake == "stop-at-refusal":
        for i, s in enumerate(steps):
            if s["outcome"] != "ok":
                del steps[i + 1:]
                break
    elif mistake == "no-observed":
        for s in steps:
            s.pop("observed", None)
    elif mistake == "steps-from-one":
        for s in steps:
            s["step"] += 1
    elif mistake == "off-by-one":
        for s in steps:
            for keys in s.get("observed", {}).get("assigned", {}).values():
                if keys and keys[-1] + 1 not in keys:
                    keys.append(keys[-1] + 1)
    return obs


KEPT = ("check", "expect", "expect_rule", "note", "read_step")


def lose_last_change(scenario_path, tmp):
    """The scenario as a writer that loses its last checked change runs it:
    that step becomes a commit that changes nothing (update_config)."""
    with open(scenario_path) as f:
        scenario = json.load(f)
    steps = scenario["steps"]
    last = max((i for i, s in enumerate(steps) if "check" in s and s.get("expect", "ok") == "ok"), default=None)
    if last is not None:
        steps[last] = {"op": "update_config", **{k: steps[last][k] for k in KEPT if k in steps[last]}}
    path = os.path.join(tmp, os.path.basename(scenario_path))
    with open(path, "w") as f:
        json.dump(scenario, f)
    return path


def run_reference(scenario, out):
    return subprocess.call([os.environ["LFA"], "adapter", scenario, out])


def main(mistake, scenario, out):
    if os.path.basename(scenario) == os.environ.get("BROKEN_ADAPTER_SLOW_ON", "") + ".json":
        time.sleep(4)
    if mistake == "crash":
        print("adapter: cannot open the writer's session")
        return 1
    if mistake == "segfault":
        print("adapter: about to dereference the row map", flush=True)
        os.kill(os.getpid(), signal.SIGSEGV)
    if mistake == "skip-without-reason":
        return 77
    path = os.path.join(out, "observations.json")
    with tempfile.TemporaryDirectory() as tmp:
        spoiled = lose_last_change(scenario, tmp) if mistake in ("lose-last-change", "report-the-model") else scenario
        rc = run_reference(spoiled, out)
        if rc == 0 and mistake == "report-the-model":  # what the writer meant to write, not what it wrote
            os.mkdir(os.path.join(tmp, "meant"))
            rc = run_reference(scenario, os.path.join(tmp, "meant"))
            with open(os.path.join(tmp, "meant", "observations.json")) as f:
                meant = json.load(f)["steps"]
            with open(path) as f:
                obs = json.load(f)
            for step, want in zip(obs["steps"], meant):
                if "observed" in want:
                    step["observed"] = want["observed"]
            with open(path, "w") as f:
                json.dump(obs, f)
    if rc != 0:
        return rc
    if mistake == "no-observations":
        os.remove(path)
        return 0
    if mistake == "no-dataset":
        shutil.rmtree(os.path.join(out, "dataset"))
    if "lose-root" in mistake.split("+"):
        roots = sorted(os.path.join(d, n) for d, _, names in os.walk(os.path.join(out, "dataset"))
                       for n in names if n.endswith(".root"))
        os.remove(roots[-1])
    with open(path) as f:
        obs = json.load(f)
    for m in mistake.split("+"):
        obs = spoil(m, obs)
    obs["adapter"] = "broken_adapter.py " + mistake
    with open(path, "w") as f:
        json.dump(obs, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
