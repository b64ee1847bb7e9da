#!/usr/bin/env bash
# check_upstream_vectors.sh LFA: the "Upstream vectors" tables of
# conformance/README.md are whole and true.
#
#  - the first table has a row for each of upstream's 17 first-iteration tests;
#  - every section D<n>.<m> of spec/A-divergences.md appears in the tables;
#  - every case named exists: a scenario (conformance/scenarios/NAME.json, or
#    its _stable_row_ids twin), an invalid or edge dataset, or a test
#    function in tests/*/*.c named NAME or ending in _NAME;
#  - the named scenarios, in both row-id modes, pass against the reference
#    writer (`lfa conformance --filter ...`).
# Prints one line per problem; exit 0 when there is none.
set -u
export LC_ALL=C
lfa="$1"
cd "$(dirname "$0")/.." || exit 2
readme=conformance/README.md
section=$(sed -n '/^## Upstream vectors/,/^## [^U]/p' "$readme")
[ -n "$section" ] || { echo "FAIL: $readme has no 'Upstream vectors' section"; exit 1; }
bad=0
rows=$(echo "$section" | sed -n '/^### The first iteration/,/^### /p' | grep -cE '^\| (1[0-7]|[1-9]) \|')
[ "$rows" -eq 17 ] || { echo "FAIL: the first-iteration table has $rows of 17 tests"; bad=1; }
for d in $(grep -oE '^### D[0-9X]+\.[0-9]+' spec/A-divergences.md | cut -c5-); do
  echo "$section" | grep -qE "\(?\b$d\b" || { echo "FAIL: $d (spec/A-divergences.md) is in no table"; bad=1; }
done
scenarios=()
n=0
for c in $(echo "$section" | grep '^|' | grep -oE '`[a-z][a-z0-9_]+`' | tr -d '`' | sort -u); do
  n=$((n + 1))
  if [ -f "conformance/scenarios/$c.json" ] || [ -f "conformance/scenarios/${c}_stable_row_ids.json" ]; then
    scenarios+=(--filter "$c" --filter "${c}_stable_row_ids")
  elif [ -d "conformance/invalid/$c" ] || [ -d "conformance/edge/$c" ]; then
    :
  elif grep -qE "void ([A-Za-z0-9_]*_)?$c\(" tests/*/*.c; then
    :
  else
    echo "FAIL: $c names no scenario, dataset or test"; bad=1
  fi
done
echo "upstream vectors: $n cases named, $((${#scenarios[@]} / 4)) scenarios"
# --filter may be given 64 times: run the scenarios in batches
for ((i = 0; i < ${#scenarios[@]}; i += 60)); do
  out=$("$lfa" conformance "${scenarios[@]:i:60}" 2>&1) || { echo "$out" | tail -20; echo "FAIL: a named scenario fails"; bad=1; }
  echo "$out" | tail -1
done
exit "$bad"
