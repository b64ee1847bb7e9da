#!/usr/bin/env bash
# design_compare_lance_smoke.sh: interop/design_compare_lance.mjs at 10^4 rows against the pinned
# Lance 12, for its invariants, in well under a minute.
#
#   tests/design_compare_lance_smoke.sh LFA
#
# In every state of the benchmark, the Boolean column plus BITMAP index that
# Lance writes and the field-assignment state lfa commits onto the same rows
# must agree: Lance's countRows("flag"), its `WHERE flag` row count and
# `lfa eval`'s assigned total all equal the generator's true rows, before
# and after the sparse update and the compaction (the script exits 1 when
# one differs). Then every line it wrote must carry the fields the results
# need. Exit 77 (LFA_SKIP_LANCE=1): skipped; the peer missing: a one-line
# failure.
set -uo pipefail
lfa=$1
cd "$(dirname "$0")/.."
if [ "${LFA_SKIP_LANCE:-}" = 1 ]; then
  echo "design_compare_lance smoke: skipped because LFA_SKIP_LANCE=1"
  exit 77
fi
command -v node >/dev/null || { echo "design_compare_lance smoke: node is missing (run scripts/peers.sh)"; exit 1; }
[ -f interop/lance12/node_modules/@lancedb/lancedb/package.json ] ||
  { echo "design_compare_lance smoke: the Lance 12 peer is not installed (interop/lance12/node_modules; run scripts/peers.sh)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/design_compare_lance_smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! nice node interop/design_compare_lance.mjs --release lance12 --lfa "$lfa" --work "$work" --rows 10000 \
     --fragment-rows 2500 --reps 1 --out "$work/lines.jsonl" 2>"$work/log"; then
  cat "$work/log"
  echo "design_compare_lance smoke: FAILED (an invariant broke or the run failed, above)"
  exit 1
fi
python3 - "$work/lines.jsonl" <<'PY' || { cat "$work/log"; echo "design_compare_lance smoke: FAILED (the lines above)"; exit 1; }
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
rows = [r for r in lines if r["bench"] == "alt_real"]
targets = {r["target"]: r for r in lines if r["bench"] == "targets"}
states = {r["state"] for r in rows}
bad = []
for r in rows:  # each comparison is a line of the targets table too, with the same verdict
    t = targets.get(r["target"])
    if t is None or (t["ratio"], t["threshold"], t["met"]) != (r["ratio"], r["threshold"], r["met"]):
        bad.append(f"{r['target']}: no targets line, or one that differs")
    elif not t["met"] and not t["detail"].get("reason"):
        bad.append(f"{r['target']}: targets line lost without a reason")
if len(targets) != len(rows):
    bad.append(f"{len(targets)} targets lines for {len(rows)} comparisons")
if len(states) != 7:
    bad.append(f"{len(states)} states, want 7")
for r in rows:
    for k in ("target", "ratio", "threshold", "met", "target_met", "value", "alt_value"):
        if k not in r:
            bad.append(f"{r.get('target')}: no {k}")
    if r.get("met") is False and not r.get("reason"):
        bad.append(f"{r['target']}: lost without a reason")
    if r.get("met") != (r.get("ratio", 0) <= r.get("threshold", 0)):
        bad.append(f"{r['target']}: met does not follow from ratio and threshold")
for r in rows:  # ours reads at least the newest manifest and every state object, and its process more
    if r["measure"] == "read":
        need = r["ours_manifest_file"] + r["ours_state_objects"]
        if not (r["value"] == r["ours_dataset_bytes"] and need <= r["value"] <= r["ours_process_rchar"]):
            bad.append(f"{r['target']}: {r['value']} dataset bytes read, not within {need} .. {r['ours_process_rchar']}")
for m in ("metadata", "read", "latency", "update", "compaction"):
    if sum(r["measure"] == m for r in rows) != 7:
        bad.append(f"measure {m}: not one line per state")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"{len(rows)} lines, 7 states")
PY
echo "design_compare_lance smoke: Lance 12 and lfa agree on WHERE flag in every state"
