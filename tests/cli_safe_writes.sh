#!/usr/bin/env bash
# cli_safe_writes.sh: every file lfa leaves for its user in a directory it
# does not own (the --since-last state, --junit, lfa report -o) is made
# fresh beside its name (mkstemp: O_CREAT|O_EXCL) and renamed over it, so a
# symbolic link planted at the name, or at the state's old temporary name
# STATEFILE.tmp, is replaced, never written through; and nothing temporary
# is left behind, on success or failure. The victim of each link is a file
# the test wrote, whose bytes must not change.
. "$(dirname "$0")/lib_cli.sh" "$1"

"$lfa" sample "$tmp/ds" >/dev/null || { echo "FAIL: lfa sample"; exit 1; }
mkdir -p "$tmp/o"
printf 'precious\n' >"$tmp/victim"
victim_intact() { test "$(cat "$tmp/victim")" = precious; }
only() { # DIR NAMES...: the directory holds exactly these names (no temporary left)
  local d=$1; shift
  test "$(cd "$d" && ls -A | sort | tr '\n' ' ')" = "$(printf "%s\n" "$@" | sed "/^$/d" | sort | tr "\n" " ")"
}

# the state: a link at STATEFILE.tmp (the name an earlier lfa wrote through)
ln -s "$tmp/victim" "$tmp/o/st.tmp"
check "verify --since-last with a link at STATEFILE.tmp" exits 0 "$lfa" verify "$tmp/ds" --since-last "$tmp/o/st"
check "...the file it points to is untouched" victim_intact
check "...the state is a regular file, read back" bash -c "test -f '$tmp/o/st' && ! test -L '$tmp/o/st' &&
  grep -q '^lfa-verify-state 1$' '$tmp/o/st'"
check "...no temporary left beside it" only "$tmp/o" st st.tmp
check "...and the next run resumes from it" bash -c "'$lfa' verify '$tmp/ds' --since-last '$tmp/o/st' | grep -q '0 versions checked'"

# --junit and report --out: a link at the name itself is replaced by the file
ln -s "$tmp/victim" "$tmp/o/j.xml"
check "verify --junit onto a link" exits 0 "$lfa" verify "$tmp/ds" --junit "$tmp/o/j.xml"
check "...the file it points to is untouched" victim_intact
check "...the link is replaced by the JUnit file" bash -c "! test -L '$tmp/o/j.xml' && grep -q '<testsuites' '$tmp/o/j.xml'"
ln -s "$tmp/victim" "$tmp/o/r.html"
check "report -o onto a link" exits 0 "$lfa" report "$tmp/ds" -o "$tmp/o/r.html"
check "...the file it points to is untouched" victim_intact
check "...the link is replaced by the page" bash -c "! test -L '$tmp/o/r.html' && grep -qi '<html' '$tmp/o/r.html'"
check "...with the mode a plain create gives (0666 less umask 022)" bash -c "test \$(stat -c %a '$tmp/o/r.html') = 644"
check "...and no temporary is left" only "$tmp/o" st st.tmp j.xml r.html

# failures leave nothing: a directory that is not there, one that cannot be written
check "--junit into a missing directory: exit 2" exits 2 "$lfa" verify "$tmp/ds" --junit "$tmp/none/j.xml"
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
  check "report --out into a read-only directory: exit 2" exits 2 "$lfa" report "$tmp/ds" --out "$tmp/ro/r.html"
fi
check "...nothing is left there" only "$tmp/ro"
finish
