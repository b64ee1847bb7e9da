#!/usr/bin/env python3
"""broken_adapter.py: an adapter that makes one protocol mistake on
purpose, for the self-test (tests/cli_selftest.sh) and the acceptance run
(tests/cli_acceptance.sh). It wraps lfa's reference adapter ($LFA adapter)
and then spoils what that wrote:

    broken_adapter.py MISTAKE SCENARIO.json OUT_DIR

MISTAKE is one of: none, no-observations, keys-as-strings, stop-at-refusal,
no-observed, no-dataset, crash, skip-without-reason, steps-from-one,
segfault, and the planted writer bugs (no protocol mistakes) off-by-one
(the row after the last assigned one is reported assigned too) and
lose-root (a root object of the dataset is deleted, which the verifier
finds); "off-by-one+lose-root" makes both. With
BROKEN_ADAPTER_SLOW_ON=NAME it first sleeps 4 s on scenario NAME, so a
test can watch the runner while it still runs.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
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
    rc = subprocess.call([os.environ["LFA"], "adapter", scenario, out])
    if rc != 0:
        return rc
    path = os.path.join(out, "observations.json")
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
