#!/usr/bin/env bash
# spec_figures.sh [--check] LFA OUT_DIR: the figures of spec/ (spec/figures/*.svg),
# each one field's grid drawn by `lfa report --svg` from a dataset of
# conformance/: a scenario run by the reference writer (`lfa run`), or a
# committed invalid dataset. The drawing depends on the dataset's structure
# and states only (no path, date or file name), so it is the same on every
# machine.
#
#   cmake --build build --target spec-figures   writes spec/figures/
#   ctest -R spec_figures                        --check: draws them into OUT_DIR
#                                                and fails when one differs from
#                                                the committed figure
set -u
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
lfa=$1
out=$2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | dataset: scenario:NAME or a conformance/ path | field id | title
figures=(
  "partial-delete-compaction|scenario:compact_with_deletions|1|emb: partial state through a delete and two compactions (05§3, 05§5)"
  "row-moving-update-stable-row-ids|scenario:update_rewrite_rows_moves_state_stable_row_ids|1|emb: row-moving updates with stable row ids (05§10)"
  "rebase-invalidation-over-compaction|scenario:div_compaction_then_invalidation|1|label: an invalidation rebased over a compaction (06§1, Appendix A D4.4)"
  "released-writer-hazard|conformance/invalid/op1_descriptors_vanished|1|emb: an older writer's commit drops the state (03§2, Appendix A D9.6)"
)

status=0
for f in "${figures[@]}"; do
  IFS='|' read -r name source field title <<<"$f"
  dataset=$source
  if [ "${source#scenario:}" != "$source" ]; then
    scenario=${source#scenario:}
    dataset=$tmp/$scenario
    "$lfa" run "conformance/scenarios/$scenario.json" "$dataset" >/dev/null ||
      { echo "spec_figures: FAIL: lfa run $scenario"; exit 1; }
  fi
  "$lfa" report "$dataset" --svg "$field" --title "$title" -o "$out/$name.svg"
  [ $? -le 1 ] || { echo "spec_figures: FAIL: lfa report $dataset"; exit 1; }
  if [ $check = 1 ] && ! cmp -s "$out/$name.svg" "spec/figures/$name.svg"; then
    echo "spec_figures: FAIL: spec/figures/$name.svg differs from what $source draws (cmake --build build --target spec-figures)"
    status=1
  fi
done
[ $check = 1 ] && [ $status = 0 ] && echo "spec_figures: ${#figures[@]} figures as committed"
exit $status
