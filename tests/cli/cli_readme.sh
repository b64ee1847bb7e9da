#!/usr/bin/env bash
# cli_readme.sh: what README.md and conformance/README.md say `lfa
# conformance` prints is what it prints: the summary line of the reference
# run (so the scenario count and every figure in it), the progress line
# quoted from that run, the shape of a progress line, and the summary line
# of `lfa conformance --help`. The expected lines are read from the READMEs
# and compared with a real run, never produced by the code under test.
. "$(dirname "$0")/lib_cli.sh" "$1"
export TMPDIR=$tmp
"$lfa" conformance >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
summary=$(grep '^conformance: ' "$tmp/run.out")
n=$(ls conformance/scenarios/*.json | wc -l)
progress_re="^\[[0-9]+/$n\] (pass|refused-as-expected|fail|crash|timeout|skipped|invalid) [a-z0-9_]+ [0-9]+\.[0-9]{2} s\$"

stated_summary() { grep '^conformance: [0-9]* scenarios against lfa adapter' "$1"; }
stated_progress() { grep -o '`\[[0-9]*/[0-9]*\] [a-z-]* [a-z0-9_]* [0-9.]* s`' "$1" | tr -d '`'; }
without_time() { sed 's/ [0-9.]* s$//'; }
shape() { sed -E 's/[0-9]+/N/g; s/against [^:]*:/against X:/'; }

same_summary() {
  local stated; stated=$(stated_summary "$1")
  [ -n "$stated" ] && [ "$stated" = "$summary" ] || { echo "$1: $stated"; echo "printed: $summary"; return 1; }
}
progress_shape() {
  local ex; ex=$(stated_progress "$1")
  [ -n "$ex" ] && grep -qE "$progress_re" <<<"$ex" || { echo "$1: '$ex'"; return 1; }
}
quoted_progress() {
  local ex; ex=$(stated_progress README.md | without_time)
  [ -n "$ex" ] && without_time <"$tmp/run.err" | grep -xF "$ex" >/dev/null || { echo "stated: $ex"; sed -n 10,14p "$tmp/run.err"; return 1; }
}
every_progress_line() {
  [ "$(grep -cE "$progress_re" "$tmp/run.err")" -eq "$n" ] &&
    ls conformance/scenarios/ | sed 's/\.json$//' >"$tmp/names" &&
    sed -E 's/^\[[0-9]+\/[0-9]+\] [a-z-]+ ([a-z0-9_]+) .*/\1/' "$tmp/run.err" | diff - "$tmp/names"
}
help_summary_shape() {
  local helped
  helped=$("$lfa" conformance --help | sed -n '/^  conformance: /,/not run$/p' | sed 's/^  //' | tr '\n' ' ' | sed 's/ $//')
  [ -n "$helped" ] && [ "$(shape <<<"$helped")" = "$(shape <<<"$summary")" ] || { echo "help: $helped"; return 1; }
}

check "the reference run passes" test "$rc" -eq 0
check "it ran every scenario file" grep -qF "conformance: $n scenarios against" "$tmp/run.out"
for doc in README.md conformance/README.md; do
  check "$doc shows the summary line the run printed" same_summary "$doc"
  check "$doc's progress example has the printed shape" progress_shape "$doc"
done
check "README.md quotes a progress line of the run, time aside" quoted_progress
check "every scenario has its progress line, in order" every_progress_line
check "the --help summary line has the printed shape" help_summary_shape
finish
