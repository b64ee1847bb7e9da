#!/usr/bin/env bash
# cli_adapter_contained.sh: lfa conformance keeps an adapter contained.
#  - after the adapter exits, by success or failure (a timeout too, tested in
#    cli_conformance.sh), its whole process group is killed and reaped: a
#    child it left running in the background does not outlive the run;
#  - its output is kept bounded: OUT.log holds its first and last MiB
#    (LFA_ADAPTER_LOG_HEAD_BYTES, LFA_ADAPTER_LOG_TAIL_BYTES) and one line
#    saying how many bytes were dropped between them, and the verdict still
#    quotes its last line.
. "$(dirname "$0")/lib_cli.sh" "$1"
cd "$(dirname "$0")/../.."
scenario=add_columns_tracked
# The sleeps last a time no other run on the machine picks (this test's PID in it).
nap=32$$
mk() { printf '#!/bin/sh\n%s\n' "$2" >"$tmp/$1" && chmod +x "$tmp/$1"; }
mk leaves_child.sh "sleep $nap >/dev/null 2>&1 & \"\$LFA\" adapter \"\$@\""
mk chatty.sh "yes a | head -c 3145728; echo; echo 'writer: the last word' >&2; sleep $nap & exit 3"
export LFA=$lfa
gone() { ! pgrep -f "^sleep $nap\$" >/dev/null; }

check "an adapter that passes but leaves a child running: the scenario passes" \
  exits 0 "$lfa" conformance --filter $scenario --adapter "$tmp/leaves_child.sh" --work "$tmp/w1"
check "...and the child does not outlive the run" gone
check "an adapter that prints 3 MiB and fails: exit 1" \
  exits 1 "$lfa" conformance --filter $scenario --adapter "$tmp/chatty.sh" --work "$tmp/w2"
check "...its last line is still quoted" grep -q "its last line: writer: the last word" "$tmp/cmd.out"
check "...its child is gone too" gone
log=$tmp/w2/$scenario.log
check "...the log keeps at most 2 MiB and one line" test "$(stat -c %s "$log")" -le $((2 * 1048576 + 300))
check "...the first MiB as printed" bash -c "head -c 1048576 '$log' | tr -d 'a\\n' | wc -c | grep -qx 0"
check "...a line saying what was dropped (3 MiB + 1 printed, 2 MiB kept)" \
  grep -q "^\[lfa conformance: $((3145728 + 1 + 22 - 2097152)) bytes of the adapter's output dropped here" "$log"
check "...and the end" bash -c "tail -n 1 '$log' | grep -qx 'writer: the last word'"
finish
