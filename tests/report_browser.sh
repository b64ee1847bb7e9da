#!/usr/bin/env bash
# report_browser.sh LFA VERIFY_SCALING: `lfa report` pages opened in a real
# browser (Debian's chromium, headless). Each page must parse strictly and
# hold nothing from outside itself (tests/report_check.py html), be under
# 5 MB, log no console message, render a screenshot that is not blank, have
# a target for every in-page link and a working link for every finding, and
# draw exactly the cells `lfa dump --json` counts for the dataset.
#
# Pages: the sample, a compaction and a row-moving update run from the
# conformance scenarios, two invalid datasets (findings that link to a
# cell and to a version), and a 120-version history of 80 fragments
# written by bench/verify_scaling (drawn in buckets); then the pages of
# `lfa conformance --html` for an adapter with a planted bug, whose broken
# key must be marked. Before any of that,
# planted failures (a console error, a blank page, a broken link, a cell
# too few, a stray end tag) must each be caught, so no check passes by
# default.
#
# chromium missing fails with a one-line reason (scripts/deps.sh installs
# it); LFA_SKIP_BROWSER=1 skips the test and says so (exit 77). The browser
# loads file:// pages only, with every host name unresolvable.
set -u
lfa=$1
scaling=$2
check="python3 tests/report_check.py"

if [ "${LFA_SKIP_BROWSER:-}" = 1 ]; then
  echo "report_browser: skipped because LFA_SKIP_BROWSER=1"
  exit 77
fi
browser=$(command -v chromium) || {
  echo "report_browser: FAIL: chromium is not installed (bash scripts/deps.sh installs it; LFA_SKIP_BROWSER=1 skips)"
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# One headless run of page $1: its screenshot to $2, its log to $3, the DOM
# after rendering on stdout.
run_browser() {
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
    --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
    --window-size=1200,1600 --screenshot="$2" --dump-dom "file://$1" 2>"$3"
}

# ---- planted failures: each check must say no ---------------------------------
must_fail() {
  if "$@" >/dev/null; then
    echo "report_browser: FAIL: the check passed a planted failure: $*"
    failed=1
  fi
}
printf '<!DOCTYPE html><html><body><p>x</p><script>console.error("planted")</script></body></html>' >"$tmp/console.html"
run_browser "$tmp/console.html" "$tmp/console.png" "$tmp/console.log" >/dev/null
must_fail $check console "$tmp/console.log"
printf '<!DOCTYPE html><html><body></body></html>' >"$tmp/blank.html"
run_browser "$tmp/blank.html" "$tmp/blank.png" "$tmp/blank.log" >/dev/null
must_fail $check png "$tmp/blank.png"

ds=conformance/invalid/bitmap4_offset_past_rows
"$lfa" report "$ds" -o "$tmp/planted.html" >/dev/null
"$lfa" dump --json "$ds" >"$tmp/planted.json" 2>/dev/null
sed 's/ id="c-[0-9-]*"//' "$tmp/planted.html" >"$tmp/nolink.html"
must_fail $check links "$tmp/nolink.html"
awk '/data-p=/ && !done { done = 1; next } { print }' "$tmp/planted.html" >"$tmp/fewer.html"
must_fail $check cells "$tmp/fewer.html" "$tmp/planted.json"
sed 's|</h1>|</h1></div>|' "$tmp/planted.html" >"$tmp/stray.html"
must_fail $check html "$tmp/stray.html"

# ---- the pages -----------------------------------------------------------------------
"$lfa" sample "$tmp/sample" >/dev/null || { echo "report_browser: FAIL: lfa sample"; exit 1; }
for s in compact_with_deletions update_rewrite_rows_moves_state_stable_row_ids; do
  "$lfa" run "conformance/scenarios/$s.json" "$tmp/$s" >/dev/null || { echo "report_browser: FAIL: lfa run $s"; exit 1; }
done
"$scaling" --fragments 80 --commits 119 --keep >"$tmp/scaling.out" 2>&1 || {
  echo "report_browser: FAIL: verify_scaling: $(tail -1 "$tmp/scaling.out")"
  exit 1
}
history=$(sed -n 's/^kept: //p' "$tmp/scaling.out")
trap 'rm -rf "$tmp" "$(dirname "$history")"' EXIT

pages=0
for ds in "$tmp/sample" "$tmp/compact_with_deletions" "$tmp/update_rewrite_rows_moves_state_stable_row_ids" \
  conformance/invalid/bitmap4_offset_past_rows conformance/invalid/div_compaction_binary_copy_with_deletions_rejected \
  "$history"; do
  name=page$pages
  pages=$((pages + 1))
  "$lfa" report "$ds" -o "$tmp/$name.html"
  code=$?
  if [ $code -gt 1 ]; then
    echo "report_browser: FAIL: lfa report $ds exited $code"
    failed=1
    continue
  fi
  "$lfa" dump --json "$ds" >"$tmp/$name.json" 2>/dev/null
  run_browser "$tmp/$name.html" "$tmp/$name.png" "$tmp/$name.log" >"$tmp/$name.dom.html"
  for c in "html $tmp/$name.html" "console $tmp/$name.log" "png $tmp/$name.png" \
    "links $tmp/$name.dom.html" "cells $tmp/$name.dom.html $tmp/$name.json"; do
    # shellcheck disable=SC2086
    $check $c || { echo "report_browser: FAIL: $ds"; failed=1; }
  done
  # the verifier's findings, counted by `lfa verify --json`, are all listed
  want=$("$lfa" verify --json "$ds" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))')
  have=$(grep -o '<li id="f-[0-9]*"' "$tmp/$name.dom.html" | wc -l)
  if [ "$want" != "$have" ]; then
    echo "report_browser: FAIL: $ds: $have findings listed, lfa verify reports $want"
    failed=1
  fi
done

# ---- lfa conformance --html: a planted writer bug's page shows the broken cell -----
# tests/broken_adapter.py off-by-one reports the key after the last assigned
# one as assigned too: at the setup of compact_with_deletions label is
# expected on keys 1-6, so key 7 must be drawn as differing.
LFA=$(cd "$(dirname "$lfa")" && pwd)/$(basename "$lfa") "$lfa" conformance --filter compact_with_deletions \
  --adapter "python3 tests/broken_adapter.py off-by-one" --html "$tmp/conf" >/dev/null 2>&1
for page in index compact_with_deletions compact_with_deletions.dataset; do
  if [ ! -f "$tmp/conf/$page.html" ]; then
    echo "report_browser: FAIL: lfa conformance --html wrote no $page.html"
    failed=1
    continue
  fi
  run_browser "$tmp/conf/$page.html" "$tmp/conf/$page.png" "$tmp/conf/$page.log" >"$tmp/conf/$page.dom.html"
  for c in "html $tmp/conf/$page.html" "console $tmp/conf/$page.log" "png $tmp/conf/$page.png" \
    "links $tmp/conf/$page.dom.html"; do
    # shellcheck disable=SC2086
    $check $c || { echo "report_browser: FAIL: conformance page $page"; failed=1; }
  done
  pages=$((pages + 1))
done
if ! grep -q 'class="differs"><title>key 7<' "$tmp/conf/compact_with_deletions.html" 2>/dev/null; then
  echo "report_browser: FAIL: the planted bug's page does not mark key 7 as differing"
  failed=1
fi

if [ $failed -ne 0 ]; then
  echo "report_browser: FAIL"
  exit 1
fi
echo "report_browser: $pages pages valid in chromium: no console message, not blank, every link and cell as the dataset says"
