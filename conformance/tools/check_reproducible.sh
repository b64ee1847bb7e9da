#!/usr/bin/env bash
# check_reproducible.sh: the committed conformance/invalid and conformance/edge
# datasets are exactly what make_invalid writes today, byte for byte, with
# no dataset missing or extra; and the tables of conformance/invalid/README.md
# are what `make_invalid --markdown` prints.
#
# Usage: conformance/tools/check_reproducible.sh MAKE_INVALID
# Run from the repository root. Exit status: 0 same, 1 different, 2 usage.
# Tools: bash, diff, mktemp, sed.
set -uo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: check_reproducible.sh MAKE_INVALID" >&2
  exit 2
fi
gen=$1
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0

"$gen" "$tmp/invalid" || { echo "FAIL: make_invalid could not write the invalid datasets"; exit 1; }
"$gen" --edge "$tmp/edge" || { echo "FAIL: make_invalid could not write the edge datasets"; exit 1; }

for set in invalid edge; do
  if ! diff -r -x README.md "conformance/$set" "$tmp/$set" >"$tmp/$set.diff"; then
    echo "FAIL: conformance/$set is not what make_invalid writes now (regenerate it, see conformance/invalid/README.md):"
    sed 's/^/  | /' "$tmp/$set.diff" | head -40
    status=1
  fi
done

# The README's tables, between their markers, against the generator's.
for set in invalid edge; do
  flag=""
  [ "$set" = edge ] && flag=--edge
  "$gen" $flag --markdown >"$tmp/$set.md"
  sed -n "/^<!-- $set table: make_invalid${flag:+ $flag} --markdown -->\$/,/^<!-- end of $set table -->\$/p" \
    conformance/invalid/README.md | sed '1d;$d' >"$tmp/$set.readme"
  if ! diff "$tmp/$set.readme" "$tmp/$set.md" >"$tmp/$set.mddiff"; then
    echo "FAIL: the $set table of conformance/invalid/README.md is not what make_invalid${flag:+ $flag} --markdown prints:"
    sed 's/^/  | /' "$tmp/$set.mddiff" | head -20
    status=1
  fi
done

[ $status -eq 0 ] && echo "conformance datasets: reproducible"
exit $status
