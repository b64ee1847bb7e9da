#!/usr/bin/env bash
# cli_safe_writes.sh: every file lfa leaves for its user in a directory it
# does not own (the --since-last state, --junit, lfa report -o) is made
# fresh beside its name (mkstemp: O_CREAT|O_EXCL) and renamed over it, so a
# symbolic link planted at the name, or at the state's old temporary name
# STATEFILE.tmp, is replaced, never written through; and nothing temporary
# is left behind, on success or failure: a commit that fails leaves no
# file it created, cleanup removes lfa's stale temporaries past the grace
# period and verify reports them (FA-CLEAN-14). The victim of each link is a file
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
# no temporary left behind [FA-CLEAN-14]: a commit whose every write fails (no file may
# grow: ulimit -f 0, SIGXFSZ ignored, so write(2) fails with EFBIG) leaves the dataset
# as it was; before, the 0-byte file it had created stayed
cp -r "$tmp/ds" "$tmp/full"
before=$(cd "$tmp/full" && find . | sort)
check "a commit onto a disk that takes no byte: exit 2" \
  exits 2 bash -c "trap '' XFSZ; ulimit -f 0; exec '$lfa' invalidate '$tmp/full' --field embedding --rows 1"
check "...and every file it created is gone" test "$(cd "$tmp/full" && find . | sort)" = "$before"

# cleanup removes lfa's stale temporaries past the grace period, and only those; verify
# reports each as info
cp -r "$tmp/ds" "$tmp/tmps"
old=.tmp_5a3b1e00-0000-4000-8000-0000000000aa young=.tmp_hint_5a3b1e00-0000-4000-8000-0000000000bb
for f in $old $young .tmp_not-a-uuid; do printf 'x' >"$tmp/tmps/_versions/$f"; done
touch -d '2020-01-01' "$tmp/tmps/_versions/$old" "$tmp/tmps/_versions/.tmp_not-a-uuid"
check "verify reports lfa's temporaries as info, and passes" exits 0 "$lfa" verify "$tmp/tmps"
check "...each by name under FA-CLEAN-14" bash -c "grep -c 'info FA-CLEAN-14' '$tmp/cmd.out' | grep -qx 2 &&
  grep -q '_versions/$old' '$tmp/cmd.out' && grep -q '_versions/$young' '$tmp/cmd.out'"
check "cleanup --dry-run plans the old one, keeps the young one" bash -c "'$lfa' cleanup '$tmp/tmps' --grace 3600 --dry-run --json |
  python3 -c 'import json,sys; t={x[\"path\"]: x[\"action\"] for x in json.load(sys.stdin)[\"temporaries\"]}
assert t == {\"_versions/$old\": \"delete\", \"_versions/$young\": \"keep\"}, t'"
check "cleanup deletes it" exits 0 "$lfa" cleanup "$tmp/tmps" --grace 3600
check "...saying so" grep -q "deleted 1 of lfa's stale temporaries" "$tmp/cmd.out"
check "...the young one and a name not lfa's are left" bash -c "cd '$tmp/tmps/_versions' && ! test -e $old &&
  test -f $young && test -f .tmp_not-a-uuid"
finish
