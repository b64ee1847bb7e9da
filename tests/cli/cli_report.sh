#!/usr/bin/env bash
# cli_report.sh LFA: `lfa report` on every dataset of conformance/invalid/
# and conformance/edge/ (hostile input: broken manifests, bitmaps, roots,
# deletion files): it never fails to write its page (exit 0 or 1), the page
# parses strictly, holds nothing from outside itself, and every link and
# finding has its target (tests/report_check.py). Then the options: a
# range narrows the timeline, --svg of a field no version tracks and bad
# ranges are usage errors (exit 2, one line).
set -u
lfa=$1
check="python3 tests/report_check.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "cli_report: FAIL: $*"; failed=1; }

n=0
pages=()
for d in conformance/invalid/*/ conformance/edge/*/; do
  d=${d%/}
  n=$((n + 1))
  "$lfa" report "$d" -o "$tmp/page$n.html" 2>"$tmp/err"
  code=$?
  [ $code -le 1 ] || { fail "$d: exit $code: $(head -1 "$tmp/err")"; continue; }
  pages+=("$tmp/page$n.html")
done
$check page "${pages[@]}" >"$tmp/checks" || fail "$(tail -1 "$tmp/checks")"

"$lfa" sample "$tmp/sample" >/dev/null
"$lfa" report "$tmp/sample" --versions 2..3 -o "$tmp/narrow.html" || fail "--versions 2..3"
rows=$(grep -c '<tr id="v-' "$tmp/narrow.html")
[ "$rows" = 2 ] || fail "--versions 2..3 shows $rows timeline rows, not 2"
for bad in "--versions 3..2" "--versions 3" "--fragments x..1" "--svg 999" ""; do
  # shellcheck disable=SC2086
  "$lfa" report "$tmp/sample" $bad -o "$tmp/bad.html" 2>"$tmp/err" >/dev/null
  code=$?
  if [ -z "$bad" ]; then
    [ $code = 0 ] || fail "a plain report exits $code"
  elif [ $code != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ]; then
    fail "lfa report $bad: exit $code, $(wc -l <"$tmp/err") lines on stderr"
  fi
done
"$lfa" report "$tmp/missing" -o "$tmp/bad.html" 2>/dev/null
[ $? = 2 ] || fail "a missing dataset is not exit 2"

[ $failed = 0 ] || exit 1
echo "cli_report: $n hostile datasets drawn as valid pages; options and usage errors as documented"
