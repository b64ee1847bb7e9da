#!/usr/bin/env bash
# bootstrap.sh: the README's first command. Installs what is missing, builds
# lfa, and runs the main job: the conformance suite against the reference
# writer (every scenario's dataset written, read back and verified), then
# `lfa verify` of one of the datasets it wrote, in full. Also writes the
# bundled sample dataset to build/sample for the README's examples.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/peers.sh  # the pinned Lances the test suite checks lfa against (interop/)
bash scripts/stale_build.sh build  # a build/ copied from another checkout: say so, configure afresh
cmake -S . -B build -DLFA_VARIANT=release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
rm -rf build/sample build/conformance
build/lfa sample build/sample >/dev/null
echo "== lfa conformance: every scenario of conformance/scenarios/ on the reference writer"
build/lfa conformance --work build/conformance
dataset=build/conformance/div_invalidation_vs_compaction_stable_row_ids/dataset
[ -d "$dataset" ] || dataset=build/conformance/update_rewrite_rows_moves_state_stable_row_ids/dataset
echo
echo "== lfa verify $dataset"
build/lfa verify "$dataset"
