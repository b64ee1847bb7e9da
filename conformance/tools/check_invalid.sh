#!/usr/bin/env bash
# check_invalid.sh: `lfa verify` against the conformance suite's invalid and
# edge datasets (conformance/invalid/README.md).
#
# Usage: conformance/tools/check_invalid.sh [--strict] LFA_BIN
#
# Run from the repository root. For every row of conformance/invalid/EXPECTED.tsv
# (name, rule, what) it runs `LFA_BIN verify --json invalid/<name>` and
# requires exit status 1 (errors found) and an error finding whose rule is
# exactly `rule`. For every row of conformance/edge/EXPECTED.tsv it requires
# exit status 0, no error finding, and a warning or note (info) whose rule
# is `rule` (`-`: no finding at all). Every dataset directory must have its row and every
# row its directory.
# --strict (what ctest runs, for the reference verifier): an invalid dataset
# gets no error under any other rule, and an edge dataset no warning other
# than its own and FA-VERIFY-5 (a check said not to run), so that each
# dataset breaks exactly the one requirement it names.
# Each failure names the dataset and what was expected and reported; the
# last line counts them. Exit status: 0 all pass, 1 a failure, 2 usage.
# Tools: bash, coreutils, python3 (to read the JSON reports, in one run).
set -uo pipefail

strict=0
if [ "${1:-}" = "--strict" ]; then strict=1; shift; fi
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: check_invalid.sh [--strict] LFA_BIN" >&2
  exit 2
fi
lfa=$1
suite=conformance
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

fail() { # dataset, message
  echo "FAIL $1: $2"
  failed=$((failed + 1))
}

has() { # word, space-separated list
  case " $2 " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# Reads every JSON report named in $tmp/reports (one "kind<TAB>name" per
# line, report at $tmp/kind.name.json) at once (one python3 start) and
# prints "kind|name|errors|warnings|count" ('|', not a tab: a tab would
# merge empty fields when read back): the error and
# warning rules (sorted, unique, space-separated) and the number of
# findings; errors is "!unreadable" for a report that is not JSON.
summarize() {
  python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
for line in open(tmp + "/reports"):
    kind, name = line.rstrip("\n").split("\t")
    try:
        d = json.load(open("%s/%s.%s.json" % (tmp, kind, name)))
        rules = lambda sev: " ".join(sorted({f["rule"] for f in d["findings"] if f["severity"] == sev}))
        print("|".join([kind, name, rules("error"), rules("warning"), str(len(d["findings"])), rules("info")]))
    except (ValueError, KeyError, TypeError):
        print("|".join([kind, name, "!unreadable", "", "0", ""]))
PY
}

# Compares one dataset's verdict with its row.
judge() { # kind, name, rule, exit status, errors, warnings, finding count, infos
  local kind=$1 name=$2 rule=$3 status=$4 errors=$5 warnings=$6 count=$7 infos=$8 extra w
  if [ "$errors" = "!unreadable" ]; then
    fail "$kind/$name" "no JSON report (exit $status): $(head -c 300 "$tmp/$kind.$name.err")"
    return
  fi
  local said="exit $status, errors [${errors}], warnings [${warnings}]"
  if [ "$kind" = invalid ]; then
    if [ "$status" -ne 1 ] || ! has "$rule" "$errors"; then
      fail "$kind/$name" "expected exit 1 with an error under $rule; the verifier reported $said"
      return
    fi
    extra=" $errors "
    extra=${extra// $rule / }
    if [ $strict -eq 1 ] && [ -n "${extra// /}" ]; then
      fail "$kind/$name" "expected errors under $rule only; the verifier reported $said"
      return
    fi
  else
    if [ "$status" -ne 0 ] || [ -n "$errors" ]; then
      fail "$kind/$name" "expected no error (exit 0); the verifier reported $said"
      return
    fi
    if [ "$rule" = "-" ] && [ "$count" -ne 0 ]; then
      fail "$kind/$name" "expected no finding at all; the verifier reported $said"
      return
    fi
    if [ "$rule" != "-" ] && ! has "$rule" "$warnings $infos"; then
      fail "$kind/$name" "expected a warning or note under $rule; the verifier reported $said, notes [${infos}]"
      return
    fi
    for w in $warnings; do
      if [ $strict -eq 1 ] && [ "$w" != "$rule" ] && [ "$w" != FA-VERIFY-5 ]; then
        fail "$kind/$name" "expected no warning but $rule (and FA-VERIFY-5); the verifier reported $said"
        return
      fi
    done
  fi
  passed=$((passed + 1))
}

# Checks a set's EXPECTED.tsv against its directories and runs the
# verifier on each listed dataset; rows to judge go to $tmp/rows.
run_set() { # kind
  local kind=$1 expected="$suite/$1/EXPECTED.tsv" name rule what dir
  if [ ! -f "$expected" ]; then
    fail "$kind" "$expected is missing"
    return
  fi
  if [ "$(head -n 1 "$expected")" != "$(printf 'name\trule\twhat')" ]; then
    fail "$kind" "$expected must start with the header name<TAB>rule<TAB>what"
  fi
  tail -n +2 "$expected" | cut -f1 | sort >"$tmp/listed"
  for dir in "$suite/$kind"/*/; do [ -d "$dir" ] && basename "$dir"; done | sort >"$tmp/present"
  while read -r name; do fail "$kind/$name" "a dataset directory without a row in EXPECTED.tsv"; done \
    < <(comm -13 "$tmp/listed" "$tmp/present")
  while read -r name; do fail "$kind/$name" "listed in EXPECTED.tsv, but there is no such directory"; done \
    < <(comm -23 "$tmp/listed" "$tmp/present")
  while IFS=$'\t' read -r name rule what; do
    [ -d "$suite/$kind/$name" ] || continue
    if [ -z "$rule" ] || [ -z "$what" ]; then
      fail "$kind/$name" "its EXPECTED.tsv row needs a rule and a description"
      continue
    fi
    "$lfa" verify --json "$suite/$kind/$name" >"$tmp/$kind.$name.json" 2>"$tmp/$kind.$name.err"
    printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$rule" "$?" >>"$tmp/rows"
    printf '%s\t%s\n' "$kind" "$name" >>"$tmp/reports"
  done < <(tail -n +2 "$expected")
}

: >"$tmp/rows"
: >"$tmp/reports"
run_set invalid
run_set edge
summarize >"$tmp/summary"
# rows and summary are in the same order, one line per dataset
while IFS=$'\t' read -r kind name rule status && IFS='|' read -r _ _ errors warnings count infos <&3; do
  judge "$kind" "$name" "$rule" "$status" "$errors" "$warnings" "$count" "$infos"
done <"$tmp/rows" 3<"$tmp/summary"
echo "conformance datasets: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
