#!/usr/bin/env bash
# Findings of every dataset the tree knows, one block per dataset, for
# comparing a refactor's behaviour before and after: a move or a rename
# must leave this output byte-identical.
#
#   scripts/findings_snapshot.sh LFA OUT [ROOT...]
#
# LFA is the lfa binary; OUT the file written. Each ROOT (default: the
# bundled invalid and edge datasets, the conformance run's datasets in
# build/conformance, the lane's real-Lance tables in build-lance and the
# shared test data) is searched for dataset folders, a folder holding
# _versions/. For each, in sorted order, the block is the path, then
# `lfa verify --json` and `lfa dump --json` with their exit statuses.
set -u
lfa=${1:?usage: findings_snapshot.sh LFA OUT [ROOT...]}
out=${2:?usage: findings_snapshot.sh LFA OUT [ROOT...]}
shift 2
if [ $# -eq 0 ]; then
  set -- conformance/invalid conformance/edge build/conformance \
         build-lance ../shared/lance-test-data ../shared/upstream-layout-example
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
count=0
for root in "$@"; do
  [ -d "$root" ] || { echo "findings_snapshot: $root: no such folder" >&2; exit 2; }
  find "$root" -type d -name _versions -prune -print | sed 's|/_versions$||'
done | LC_ALL=C sort -u > "$tmp"
: > "$out"
while IFS= read -r ds; do
  {
    printf '=== %s\n' "$ds"
    "$lfa" verify --json "$ds" 2>&1; printf -- '--- verify rc=%d\n' $?
    "$lfa" dump --json "$ds" 2>&1; printf -- '--- dump rc=%d\n' $?
  } >> "$out"
  count=$((count + 1))
done < "$tmp"
echo "findings_snapshot: $count datasets -> $out" >&2
