#!/usr/bin/env bash
# released_matrix.sh: writes the tables of spec/C-released-lance.md anew from
# a run of interop/matrix.mjs with each pinned release (which must be
# installed: scripts/peers.sh), using build/lfa. The lane
# (tests/lance_lane.sh) fails when the spec and a run differ; run this after
# a deliberate change, and read the diff before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
lfa=${1:-build/lfa}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for release in lance12 lance8; do
  node interop/matrix.mjs --release "$release" --lfa "$lfa" --work "$work/$release" \
    --markdown "$work/$release.md" 2>/dev/null | tail -1
  python3 interop/spec_matrix.py write spec/C-released-lance.md "$release" "$work/$release.md"
done
