#!/usr/bin/env bash
# lance_lane.sh: the real-Lance lane for one pinned release of interop/.
#
#   tests/lance_lane.sh LFA lance12|lance8 MIX_VERSIONS SET_FLAGS
#
# MIX_VERSIONS is the interop/tools/mix_versions tool, with which the Lance 12
# run builds a table with mixed data-file versions (the Node API cannot);
# SET_FLAGS (interop/tools/set_flags) lets interop/probe_flags.mjs ask the
# release about each feature bit, against the table of 02§7.
#
# Has the release write every dataset interop/generate.mjs knows, recording
# Lance's own view of every version, then holds lfa to it
# (interop/check_lane.py): dump reads every version, live-row counts,
# addresses and row ids equal Lance's, verify finds no error, JSON and JUnit
# parse. The datasets go to build-lance/<release>/ at the repository root,
# shared by the builds of one scripts/test.sh run (it empties build-lance/
# first); they are generated again whenever they are missing or older than
# the generator or the release's lock. Then lfa commits onto copies of
# them (interop/onto_lane.mjs: track, invalidate) and the release reads
# every version back, and lfa and the release commit to one table at the
# same time (interop/onto_race.mjs: no version lost or replaced). Last, the
# release's row of Appendix C's release table is measured as the sweep
# measures it (interop/sweep.py run on the pinned node_modules) and must
# equal the committed row, install time and disk aside. Run by ctest.
#
# The pinned release must be installed (scripts/peers.sh): otherwise this
# fails with a one-line reason. LFA_SKIP_LANCE=1 skips the lane, and says so
# in its last line (exit 77, which ctest shows as skipped).
set -uo pipefail
lfa=$1 release=$2 mix=$3 set_flags=$4
cd "$(dirname "$0")/.."
if [ "${LFA_SKIP_LANCE:-}" = 1 ]; then
  echo "lance lane $release: skipped because LFA_SKIP_LANCE=1"
  exit 77
fi
bash scripts/peers.sh --check || exit 1

out=build-lance/$release
if [ ! -f "$out/expected.json" ] || [ interop/generate.mjs -nt "$out/expected.json" ] ||
   [ interop/tools/mix_versions.c -nt "$out/expected.json" ] ||
   [ "interop/$release/package-lock.json" -nt "$out/expected.json" ]; then
  rm -rf "$out"
  mkdir -p build-lance
  echo "== generating with $release"
  node interop/generate.mjs --release "$release" --out "$out" --mix-tool "$mix" || {
    echo "lance lane $release: the generator failed (above)"
    exit 1
  }
fi
echo "== checking lfa against $release"
python3 interop/check_lane.py "$lfa" "$out" || status=1
# [FA-VERIFY-8] [FA-FLAG-7] newer Lance's tables and foreign fields 22, 1022
# and 1005, built from this release's bytes (no release from 13 on installs)
if [ "$release" = lance12 ]; then python3 tests/newer_lance.py "$lfa" "$out/db" || status=1; fi
echo "== lfa commits onto $release's tables, read back by $release"
node interop/onto_lane.mjs --release "$release" --gen "$out" --lfa "$lfa" --work "$out/onto" || status=1
echo "== lfa and $release committing to one table at once (FA-CONC-11)"
node interop/onto_race.mjs --release "$release" --lfa "$lfa" --work "$out/race" || status=1
echo "== feature bits by $release (02§7)"
node interop/probe_flags.mjs --release "$release" --set-flags "$set_flags" --work "$out/flags" 2>/dev/null || status=1
echo "== the released-writer matrix of $release (spec/C-released-lance.md)"
node interop/matrix.mjs --release "$release" --lfa "$lfa" --work "$out/matrix" --markdown "$out/matrix.md" 2>/dev/null ||
  status=1
python3 interop/spec_matrix.py check spec/C-released-lance.md "$release" "$out/matrix.md" || status=1
echo "== $release's row of the release table (spec/C-released-lance.md, scripts/sweep_releases.sh)"
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dependencies"]["@lancedb/lancedb"])' \
  "interop/$release/package.json")
python3 interop/sweep.py run @lancedb/lancedb "$version" --modules "interop/$release/node_modules" --lfa "$lfa" \
  --out "$out/release_row.json" --work "$out" >/dev/null &&
  python3 interop/sweep.py check spec/C-released-lance.md "$out/release_row.json" || status=1
[ "${status:-0}" -eq 0 ] && echo "lance lane $release: lfa agrees with Lance" || echo "lance lane $release: FAILED"
exit ${status:-0}
