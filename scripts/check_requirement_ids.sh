#!/usr/bin/env bash
# check_requirement_ids.sh: requirement-id traceability for spec/.
#
# Usage: scripts/check_requirement_ids.sh [--strict]
#
# Run from anywhere; it works on the repository that holds this script.
#   (a) The ids defined in spec/*.md (the bold form "**<id>** (LEVEL)") must
#       be exactly the ids of spec/requirements.tsv: each defined once, listed
#       once, with the same file and level on both sides.
#   (b) Every id cited anywhere in the repository (file contents and path
#       names, spec/ included) must be defined. Undefined ones are listed as
#       file:line and fail the check.
#   (c) Ids never cited in tests/, conformance/, fuzz/ or corpus/ (contents
#       or path names) are uncovered. They are listed as pending; only with
#       --strict do they fail the check.
# An id is FA-<TOPIC>-<n>: TOPIC in capital letters, n a decimal number.
# The last line reads "requirement ids: N defined, N cited, N covered,
# N pending"; "cited" counts the defined ids cited outside spec/.
# Exit status: 0 ok, 1 a check failed, 2 usage error.
# Tools: bash, find, mktemp, grep, sed, awk, sort, comm.

set -u
export LC_ALL=C

strict=0
for arg in "$@"; do
  case "$arg" in
    --strict) strict=1 ;;
    -h | --help)
      sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "check_requirement_ids: unknown argument '$arg' (try --help)" >&2
      exit 2
      ;;
  esac
done

root="$(cd "$(dirname "$0")/.." && pwd)" || exit 2
cd "$root" || exit 2

tsv=spec/requirements.tsv
id_re='FA-[A-Z]+-[0-9]+'
tab="$(printf '\t')"
failed=0

tmp="$(mktemp -d)" || exit 2
trap 'rm -rf "$tmp"' EXIT

# Prints its input (failure messages) and marks the run failed if non-empty.
report() {
  if [ -s "$1" ]; then
    sed -n p "$1"
    failed=1
  fi
}

# Every path of the repository except .git and build output, without "./".
walk() {
  find . \( -name .git -o -path './build*' -o -path './cmake-build*' \
    -o -path './_build' \) -prune -o "$@"
}

if [ ! -f "$tsv" ]; then
  echo "FAIL: $tsv is missing"
  exit 1
fi

# ------------------------------------------------------------- (a) ------
# "file<TAB>id<TAB>level" for every bold definition.
grep -oHE "\*\*$id_re\*\*( \((MUST|SHOULD|MAY)\))?" spec/*.md \
  | sed -E 's/^spec\/([^:]*):\*\*([^*]*)\*\*( \(([A-Z]*)\))?$/\1\t\2\t\4/' \
  | sort -t"$tab" -k2,2 >"$tmp/defs"

awk -F'\t' '$3 == "" { printf "FAIL: spec/%s: %s is defined without a level (MUST, SHOULD or MAY)\n", $1, $2 }' \
  "$tmp/defs" >"$tmp/msg"
report "$tmp/msg"

awk -F'\t' '{ n[$2]++; where[$2] = where[$2] " spec/" $1 }
  END { for (id in n) if (n[id] > 1) printf "FAIL: %s is defined %d times:%s\n", id, n[id], where[id] }' \
  "$tmp/defs" | sort >"$tmp/msg"
report "$tmp/msg"
awk -F'\t' '{ print $2 }' "$tmp/defs" | sort -u >"$tmp/defined"

# requirements.tsv: the header, then "id<TAB>level<TAB>file<TAB>summary".
awk -F'\t' -v f="$tsv" '
  NR == 1 {
    if ($0 != "id\tlevel\tfile\tsummary") printf "FAIL: %s:1: the header must be id<TAB>level<TAB>file<TAB>summary\n", f
    next
  }
  NF != 4 { printf "FAIL: %s:%d: expected 4 tab-separated fields, found %d\n", f, NR, NF; next }
  {
    if ($1 !~ /^FA-[A-Z]+-[0-9]+$/) printf "FAIL: %s:%d: malformed id \"%s\"\n", f, NR, $1
    if ($2 != "MUST" && $2 != "SHOULD" && $2 != "MAY") printf "FAIL: %s:%d: level must be MUST, SHOULD or MAY, not \"%s\"\n", f, NR, $2
    if ($4 == "") printf "FAIL: %s:%d: empty summary\n", f, NR
    if (seen[$1]++) printf "FAIL: %s:%d: %s is listed twice\n", f, NR, $1
  }' "$tsv" >"$tmp/msg"
report "$tmp/msg"

awk -F'\t' 'NR > 1 && NF == 4 { print $3 "\t" $1 "\t" $2 }' "$tsv" \
  | sort -t"$tab" -k2,2 >"$tmp/rows"
awk -F'\t' '{ print $2 }' "$tmp/rows" | sort -u >"$tmp/listed"

comm -23 "$tmp/defined" "$tmp/listed" | sed "s|^\(.*\)$|FAIL: \1 is defined in spec/ but missing from $tsv|" >"$tmp/msg"
report "$tmp/msg"
comm -13 "$tmp/defined" "$tmp/listed" | sed "s|^\(.*\)$|FAIL: \1 is listed in $tsv but not defined in spec/*.md|" >"$tmp/msg"
report "$tmp/msg"

awk -F'\t' 'NR == FNR { file[$2] = $1; level[$2] = $3; next }
  ($2 in file) {
    if (file[$2] != $1) printf "FAIL: %s is defined in spec/%s but listed with file %s\n", $2, file[$2], $1
    if (level[$2] != "" && level[$2] != $3) printf "FAIL: %s is %s in spec/%s but %s in requirements.tsv\n", $2, level[$2], file[$2], $3
  }' "$tmp/defs" "$tmp/rows" >"$tmp/msg"
report "$tmp/msg"

# ------------------------------------------------------------- (b) ------
# "where<TAB>id" for every citation: where is file:line for file contents,
# "path (name)" for ids that appear in a file or directory name.
walk -type f -exec grep -IoHnE "$id_re" {} + \
  | sed -E "s/^\.\/(.*):([0-9]+):($id_re)$/\1:\2\t\3/" >"$tmp/cites"
walk -print | sed 's|^\./||' \
  | awk -v re="$id_re" '{
      s = $0
      while (match(s, re)) {
        printf "%s (name)\t%s\n", $0, substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
      }
    }' >>"$tmp/cites"

awk -F'\t' 'NR == FNR { def[$1] = 1; next } !($2 in def) { printf "  %s: %s\n", $1, $2 }' \
  "$tmp/defined" "$tmp/cites" | sort -u >"$tmp/undefined"
if [ -s "$tmp/undefined" ]; then
  echo "FAIL: ids cited but not defined in spec/:"
  sed -n p "$tmp/undefined"
  failed=1
fi

awk -F'\t' '$1 !~ /^spec\// { print $2 }' "$tmp/cites" | sort -u >"$tmp/cited_outside"
comm -12 "$tmp/defined" "$tmp/cited_outside" >"$tmp/cited"

# ------------------------------------------------------------- (c) ------
awk -F'\t' '$1 ~ /^(tests|conformance|fuzz|corpus)\// { print $2 }' "$tmp/cites" \
  | sort -u >"$tmp/in_tests"
comm -12 "$tmp/defined" "$tmp/in_tests" >"$tmp/covered"
comm -23 "$tmp/defined" "$tmp/covered" >"$tmp/pending"

count() { awk 'END { print NR }' "$1"; }
n_defined="$(count "$tmp/defined")"
n_cited="$(count "$tmp/cited")"
n_covered="$(count "$tmp/covered")"
n_pending="$(count "$tmp/pending")"

if [ "$n_pending" -gt 0 ]; then
  if [ "$strict" -eq 1 ]; then
    echo "FAIL: $n_pending ids are not covered by any test, fuzz target, conformance case or corpus file:"
    failed=1
  else
    echo "pending: $n_pending ids are not yet covered by a test, fuzz target, conformance case or corpus file:"
  fi
  sort -t- -k2,2 -k3,3n "$tmp/pending" \
    | awk '{ printf "%s%s", (NR % 6 == 1 ? "  " : " "), $0; if (NR % 6 == 0) printf "\n" }
           END { if (NR % 6) printf "\n" }'
fi

echo "requirement ids: $n_defined defined, $n_cited cited, $n_covered covered, $n_pending pending"
exit "$failed"
