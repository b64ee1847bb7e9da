#!/usr/bin/env bash
# check_divergence_cases.sh: every case of spec/A-divergences.md §5 ("Case
# list") exists in the conformance suite or the tests.
#
# Usage: scripts/check_divergence_cases.sh
#
# A case `div_<what>` exists when at least one of these does:
#   conformance/scenarios/div_<what>.json            (address mode)
#   conformance/scenarios/div_<what>_stable_row_ids.json
#   conformance/invalid/div_<what>/ or conformance/edge/div_<what>/
#   a test function in tests/*/*.c named div_<what> or ending in _div_<what>
# The case list says every case runs in both row-id modes unless its name
# says otherwise, so a scenario in one mode without the other fails too.
# Prints one line per problem and a last line "divergence cases: N listed,
# N scenarios, N datasets, N tests"; exit 0 when there is no problem, 1
# otherwise.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 2
spec=spec/A-divergences.md
cases=$(sed -n '/^## 5\./,$p' "$spec" | grep -oE '^\| `div_[a-z0-9_]+`' | tr -d '|` ' | sort -u)
[ -n "$cases" ] || { echo "FAIL: no case found in $spec, section 5"; exit 1; }
bad=0 n=0 n_scen=0 n_data=0 n_test=0
for c in $cases; do
  n=$((n + 1))
  a=conformance/scenarios/$c.json s=conformance/scenarios/${c}_stable_row_ids.json
  found=0
  if [ -f "$a" ] || [ -f "$s" ]; then
    found=1 n_scen=$((n_scen + 1))
    case $c in
      *stable_row_ids*) ;;
      *) if [ ! -f "$a" ] || [ ! -f "$s" ]; then
           echo "FAIL: $c is a scenario in one row-id mode only (need $a and $s)"; bad=1
         fi ;;
    esac
  fi
  if [ -d "conformance/invalid/$c" ] || [ -d "conformance/edge/$c" ]; then found=1 n_data=$((n_data + 1)); fi
  if grep -qE "void ([A-Za-z0-9_]*_)?$c\(" tests/*/*.c 2>/dev/null; then found=1 n_test=$((n_test + 1)); fi
  [ "$found" -eq 1 ] || { echo "FAIL: $c (spec/A-divergences.md §5) has no scenario, dataset or test"; bad=1; }
done
echo "divergence cases: $n listed, $n_scen scenarios, $n_data datasets, $n_test tests"
exit "$bad"
