#!/usr/bin/env bash
# cli_s3.sh: lfa on s3:// against the local S3 server (s3rver, interop/s3/),
# directly and through the fault proxy (interop/s3/proxy.mjs).
#
#  - dump, verify, eval and cleanup answer on s3://lfa/P exactly as on a
#    local copy of P (the URL read as the path): the copy is made with plain
#    HTTP requests (interop/s3/tree.mjs), not by lfa;
#  - lfa report draws the same page byte for byte, of the sample and of a
#    dataset with error findings, directly and through faults: the page names
#    its DATASET as given, in its title and its header, and nowhere else, so
#    the s3:// page with the URL read as the path is the local page;
#  - --stats: on stderr, and under "stats" in the JSON;
#  - plain http is refused unless AWS_ALLOW_HTTP=true or --allow-http;
#  - track and invalidate commit on s3://, and a version another writer made
#    first is never replaced (FA-CONC-11, FA-CONC-12): s3rver ignores
#    If-None-Match (checked here, so a future s3rver that honours it says
#    so), lfa's HEAD finds the version; with the proxy answering 412 as S3
#    does, the 412 is that lost race;
#  - faults: a 500 on every third request, 503 SlowDown, a body cut short,
#    many listing pages: the same answers (retries counted); a listing that
#    changed between pages, hostile listings, the server stopped mid-run:
#    a clear error (exit 1 or 2, never a clean verdict), in seconds;
#  - listings parsed (FA-CLEAN-13): a _versions/ page cut short, without its
#    close tag, with a lying KeyCount or reordered keys: verify and cleanup
#    exit 2, nothing deleted;
#  - keys are names (FA-CLEAN-12): a listed key with '..' segments is refused
#    by name, cleanup deletes nothing (nor the object outside the dataset it
#    would name) and verify is not clean;
#  - cleanup for real on s3:// leaves what it does on a local copy, also
#    through faults; a run that stops deletes nothing it keeps; a commit
#    during the run stops the object deletion (FA-CLEAN-11).
# Run by ctest with the built lfa as $1; exit 77 (skipped) with
# LFA_SKIP_LANCE=1, which leaves the npm peers uninstalled.
. "$(dirname "$0")/lib_cli.sh" "$1"
cd "$(dirname "$0")/../.."
. tests/s3_util.sh
s3_need
s3_start

"$lfa" sample "$tmp/ds" >/dev/null || { echo "FAIL: lfa sample"; exit 1; }
for p in sample commit race race2 clean faulty stopped busy dots; do s3_put "$tmp/ds" "$p"; done
mkdir -p "$tmp/victim" && printf 'not the dataset' >"$tmp/victim/x.root" && s3_put "$tmp/victim" victim
bad=conformance/invalid/bitmap3_empty_partial # error findings, an unreadable bitmap named in them
s3_put "$bad" invalid
direct=$S3_ENDPOINT

# same NAME ENDPOINT PREFIX DIR CMD ARGS...: lfa CMD on s3://lfa/PREFIX through
# ENDPOINT and on DIR: same exit status, same stdout with the URL read as DIR.
same() {
  local ep=$1 prefix=$2 dir=$3 cmd=$4
  shift 4
  env $(s3_env "$ep") "$lfa" "$cmd" "s3://lfa/$prefix" "$@" >"$tmp/s3.out" 2>"$tmp/s3.err"
  local a=$?
  "$lfa" "$cmd" "$dir" "$@" >"$tmp/local.out" 2>"$tmp/local.err"
  local b=$?
  sed "s#s3://lfa/$prefix#$dir#g" "$tmp/s3.out" >"$tmp/s3.sub"
  if [ $a -ne $b ] || ! cmp -s "$tmp/s3.sub" "$tmp/local.out"; then
    echo "exit $a on s3://, $b local"
    diff "$tmp/s3.sub" "$tmp/local.out" | head -20
    head -5 "$tmp/s3.err"
    return 1
  fi
}

# same_report ENDPOINT PREFIX DIR ARGS...: lfa report of s3://lfa/PREFIX through
# ENDPOINT and of DIR: the same exit status, the URL named exactly twice (the
# title, the header), and the same page once it is read as DIR.
same_report() {
  local ep=$1 prefix=$2 dir=$3
  shift 3
  env $(s3_env "$ep") "$lfa" report "s3://lfa/$prefix" -o "$tmp/s3.html" "$@" 2>"$tmp/s3.err"
  local a=$?
  "$lfa" report "$dir" -o "$tmp/local.html" "$@" 2>"$tmp/local.err"
  local b=$?
  local named
  named=$(grep -o "s3://lfa/$prefix" "$tmp/s3.html" | wc -l)
  sed "s#s3://lfa/$prefix#$dir#g" "$tmp/s3.html" >"$tmp/s3.sub"
  if [ $a -ne $b ] || [ $a -gt 1 ] || [ "$named" -ne 2 ] || ! grep -q '<tr id="v-' "$tmp/local.html" ||
     ! cmp -s "$tmp/s3.sub" "$tmp/local.html"; then
    echo "exit $a on s3://, $b local; the URL named $named times"
    diff "$tmp/s3.sub" "$tmp/local.html" | head -20
    head -5 "$tmp/s3.err" "$tmp/local.err"
    return 1
  fi
}

# 1. the same answers
for args in "dump --json --rows" "dump" "verify --json" "verify" "verify --json --from 4" "verify --json --full" \
            "eval --field embedding --json" "eval --field embedding --version 3" "dump --version 2 --json"; do
  # shellcheck disable=SC2086
  check "same answer on s3:// and a local copy: lfa $args" same "$direct" sample "$tmp/ds" $args
done
check "same page: lfa report" same_report "$direct" sample "$tmp/ds"
check "same page: lfa report --versions 2..4" same_report "$direct" sample "$tmp/ds" --versions 2..4
check "same page: lfa report of a dataset with error findings" same_report "$direct" invalid "$bad"
check "...which has some (exit 1)" exits 1 "$lfa" report "$bad" -o "$tmp/bad.html"
check "--stats: lfa report says what s3:// cost" bash -c "env $(s3_env "$direct") '$lfa' report s3://lfa/sample -o '$tmp/st.html' --stats 2>&1 >/dev/null |
  grep -E '^lfa report: stats \(s3\): [1-9][0-9]* requests, [1-9][0-9]* bytes read, 0 bytes written, 0 retries$'"
check "lfa report refuses plain http without AWS_ALLOW_HTTP, exit 2" bash -c "
  env AWS_ENDPOINT_URL=$direct '$lfa' report s3://lfa/sample -o '$tmp/no.html' 2>&1 >/dev/null | grep -q 'plain http: set AWS_ALLOW_HTTP=true'
  env AWS_ENDPOINT_URL=$direct '$lfa' report s3://lfa/sample -o '$tmp/no.html' 2>/dev/null; test \$? -eq 2"
check "...and --allow-http allows it" bash -c "env AWS_ENDPOINT_URL=$direct '$lfa' report s3://lfa/sample -o '$tmp/yes.html' --allow-http"
check "same plan: cleanup --dry-run --json" bash -c "
  env $(s3_env "$direct") '$lfa' cleanup s3://lfa/sample --dry-run --json --now 4000000000 --grace 0 --keep-from 4 |
    sed 's#s3://lfa/sample#$tmp/ds#g' >'$tmp/c1.json'
  '$lfa' cleanup '$tmp/ds' --dry-run --json --now 4000000000 --grace 0 --keep-from 4 >'$tmp/c2.json'
  python3 - '$tmp/c1.json' '$tmp/c2.json' <<'EOF'
import json, sys
def norm(path):
    d = json.load(open(path))
    for o in d['objects']:
        o.pop('mtime'); o.pop('age_seconds')
    return d
a, b = norm(sys.argv[1]), norm(sys.argv[2])
assert a == b, (a, b)
assert any(o['action'] == 'delete' for o in a['objects']), 'the plan deletes nothing: no test'
EOF"

# 2. --stats
check "--stats: one line on stderr" bash -c "env $(s3_env "$direct") '$lfa' verify s3://lfa/sample --stats 2>&1 >/dev/null |
  grep -E '^lfa verify: stats \(s3\): [1-9][0-9]* requests, [0-9]+ bytes read, 0 bytes written, 0 retries$'"
check "--stats --json: under \"stats\"" bash -c "env $(s3_env "$direct") '$lfa' dump s3://lfa/sample --json --stats 2>/dev/null |
  python3 -c 'import json,sys; s = json.load(sys.stdin)[\"stats\"]; assert s[\"backend\"] == \"s3\" and s[\"requests\"] > 0 and s[\"bytes_read\"] > 0, s'"
check "--stats on a local path counts file operations" bash -c "'$lfa' eval '$tmp/ds' --field embedding --json --stats 2>/dev/null |
  python3 -c 'import json,sys; s = json.load(sys.stdin)[\"stats\"]; assert s[\"backend\"] == \"local\" and s[\"requests\"] > 0, s'"

# 3. plain http only when allowed; https verified
check "plain http refused without AWS_ALLOW_HTTP" bash -c "
  env AWS_ENDPOINT_URL=$direct AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER '$lfa' verify s3://lfa/sample 2>&1 >/dev/null;
  test \$? -eq 2" 
check "...and the reason said" bash -c "env AWS_ENDPOINT_URL=$direct '$lfa' dump s3://lfa/sample 2>&1 | grep -q 'plain http: set AWS_ALLOW_HTTP=true'"
check "--allow-http allows it" bash -c "env AWS_ENDPOINT_URL=$direct AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER '$lfa' verify s3://lfa/sample --allow-http >/dev/null"
check "an https endpoint that is not there: a clear error, exit 2" bash -c "
  env AWS_ENDPOINT_URL=https://127.0.0.1:9 LFA_S3_RETRIES=0 '$lfa' verify s3://lfa/sample 2>&1 >/dev/null | grep -q 'GET failed'"

# 4. commits: track and invalidate on s3://
E=$(s3_env "$direct")
check "track on s3://" exits 0 env $E "$lfa" track s3://lfa/commit --field text --initial unassigned
check "invalidate on s3://" exits 0 env $E "$lfa" invalidate s3://lfa/commit --field embedding --rows 1,4294967296
check "...verify finds no error" exits 0 env $E "$lfa" verify s3://lfa/commit
cp -r "$tmp/ds" "$tmp/commit"
"$lfa" track "$tmp/commit" --field text --initial unassigned >/dev/null
"$lfa" invalidate "$tmp/commit" --field embedding --rows 1,4294967296 >/dev/null
check "...and is_assigned is what the same commits give locally" same "$direct" commit "$tmp/commit" eval --field embedding --json
check "s3rver ignores If-None-Match on PUT (why lfa also asks HEAD first)" bash -c "
  for i in 1 2; do curl -s -o /dev/null -w '%{http_code}\n' -X PUT --data-binary x -H 'If-None-Match: *' \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' $direct/lfa/inm/probe; done | tr '\n' ' ' | grep -qx '200 200 '"
want5=$(sha256sum <"$tmp/ds/_versions/5.manifest")
proxy_start hide --hide-version 5.manifest
check "a version lfa did not list is there: the commit is refused, exit 2 (FA-CONC-11)" \
  exits 2 env $(s3_env "$hide") "$lfa" track s3://lfa/race --field text --initial unassigned
check "...the lost race said" grep -q "another writer committed it first" "$tmp/cmd.err"
s3_get race "$tmp/race.got"
check "...and that version is not replaced" test "$(sha256sum <"$tmp/race.got/_versions/5.manifest")" = "$want5"
proxy_start inm --hide-head 5.manifest --if-none-match
check "HTTP 412 on the manifest PUT is that lost race (FA-CONC-12)" \
  exits 2 env $(s3_env "$inm") "$lfa" invalidate s3://lfa/race2 --field embedding --rows 1
check "...the PUT drew 412" grep -q "_versions/5.manifest 412" "$tmp/inm.log"
s3_get race2 "$tmp/race2.got"
check "...and version 5 is not replaced" test "$(sha256sum <"$tmp/race2.got/_versions/5.manifest")" = "$want5"

# 5. faults that end in the same answer
proxy_start fail3 --fail-every 3
proxy_start slow --slow-down-every 4
proxy_start cut --truncate-every 2
proxy_start pages --page-keys 2
for ep in fail3 slow cut pages; do
  for args in "dump --json --rows" "verify --json" "eval --field embedding --json"; do
    # shellcheck disable=SC2086
    check "$ep: the same answer: lfa $args" same "${!ep}" sample "$tmp/ds" $args
  done
  check "$ep: the same page: lfa report" same_report "${!ep}" invalid "$bad"
done
check "a 500 on every third request: retried, and counted" bash -c "env $(s3_env "$fail3") '$lfa' verify s3://lfa/sample --stats 2>&1 >/dev/null |
  grep -E ' [1-9][0-9]* retries$'"

# 6. faults that end in a clear error
proxy_start back --page-keys 2 --listing-goes-back
check "a listing that changed between pages: exit 2, said" exits 2 env $(s3_env "$back") "$lfa" verify s3://lfa/sample
check "...in one line" grep -q "the listing changed while it was read" "$tmp/cmd.err"
for kind in bytes no-token huge-key outside entities; do
  proxy_start g --garbage-listing $kind
  check "a hostile listing ($kind): exit 2 with a reason, no crash" exits 2 env $(s3_env "$g") "$lfa" dump s3://lfa/sample
  kill "${S3_PIDS[-1]}"
done
# listings parsed, not searched [FA-CLEAN-13]: a _versions/ page cut after its second
# entry (before: "2 versions checked: 0 errors", and cleanup deleted what the head
# needs), without its close tag, with a lying KeyCount or reordered keys
for kind in cut-entries no-close keycount reorder; do
  proxy_start m --mangle-listing $kind
  check "a _versions/ listing made hostile ($kind): verify exits 2" exits 2 env $(s3_env "$m") "$lfa" verify s3://lfa/sample
  check "...saying why" grep -q "listing" "$tmp/cmd.err"
  check "...cleanup exits 2" \
    exits 2 env $(s3_env "$m") "$lfa" cleanup s3://lfa/sample --keep-from 1 --grace 0 --now 4000000000
  check "...and sends no DELETE" bash -c "! grep -q '^DELETE' '$tmp/m.log'"
  kill "${S3_PIDS[-1]}"
done
# a _versions/ page cut at every 97th byte (every byte: tests/fs/test_s3_listing.c), its
# Content-Length saying the cut: never a clean verdict
page=$(curl -s "$direct/lfa?list-type=2&prefix=sample%2F_versions%2F" | wc -c)
cuts=0 clean=0
for ((n = 0; n < page; n += 97)); do
  proxy_start c --mangle-listing cut-at:$n
  env $(s3_env "$c") "$lfa" verify s3://lfa/sample >/dev/null 2>&1
  [ $? -eq 2 ] || clean=$((clean + 1))
  cuts=$((cuts + 1))
  kill "${S3_PIDS[-1]}"
done
check "a _versions/ page cut at $cuts points of its $page bytes: verify exits 2 at each ($clean did not)" test "$clean" -eq 0 -a "$cuts" -gt 5
s3_get sample "$tmp/sample.got"
check "...the dataset is whole after them" bash -c "diff <(cd '$tmp/ds' && find . -type f | sort) <(cd '$tmp/sample.got' && find . -type f | sort)"

# keys are names [FA-CLEAN-12]: a key with dot segments (literal on S3, inside the prefix)
# is refused by name; before, curl merged them and cleanup deleted s3://lfa/victim/x.root
proxy_start dots --inject-key "dots/_field_assignments/roots/2/../../../../victim/x.root" --inject-size 15
check "a listed key with '..' segments: cleanup exits 2" \
  exits 2 env $(s3_env "$dots") "$lfa" cleanup s3://lfa/dots --keep-from 4 --grace 0 --now 4000000000
check "...naming the key" grep -q "never a path.*'dots/_field_assignments/roots/2/\.\./\.\./\.\./\.\./victim/x.root'" "$tmp/cmd.err"
check "...no DELETE was sent" bash -c "! grep -q '^DELETE' '$tmp/dots.log'"
s3_get victim "$tmp/victim.got"
check "...the object outside the dataset is still there" cmp "$tmp/victim/x.root" "$tmp/victim.got/x.root"
s3_get dots "$tmp/dots.got"
check "...and so is every object of the dataset" bash -c "diff <(cd '$tmp/ds' && find . -type f | sort) <(cd '$tmp/dots.got' && find . -type f | sort)"
check "...verify is not clean: exit 1" exits 1 env $(s3_env "$dots") "$lfa" verify s3://lfa/dots
check "...with an error finding of FA-CLEAN-12" grep -q "error FA-CLEAN-12" "$tmp/cmd.out"
proxy_start stop --stop-after 6
start=$(date +%s)
env $(s3_env "$stop") "$lfa" verify s3://lfa/sample --json >"$tmp/stop.out" 2>"$tmp/stop.err"
rc=$?
check "the server stopped mid-run: verify does not pass (exit $rc)" test "$rc" -eq 1 -o "$rc" -eq 2
check "...says why" grep -rq "stopped answering\|failed after" "$tmp/stop.out" "$tmp/stop.err"
check "...within 30 s" test $(($(date +%s) - start)) -le 30

# 7. cleanup for real
listing() { (cd "$1" && find . -type f | sort); }
cp -r "$tmp/ds" "$tmp/clean"
"$lfa" cleanup "$tmp/clean" --keep-from 4 --grace 0 --now 4000000000 >/dev/null
check "cleanup on s3:// deletes" exits 0 env $E "$lfa" cleanup s3://lfa/clean --keep-from 4 --grace 0 --now 4000000000
s3_get clean "$tmp/clean.got"
check "...exactly what it deletes on a local copy" bash -c "diff <(cd '$tmp/clean' && find . -type f | sort) <(cd '$tmp/clean.got' && find . -type f | sort)"
check "...and the rest verifies" exits 0 env $E "$lfa" verify s3://lfa/clean
check "cleanup through a 500 on every third request" exits 0 env $(s3_env "$fail3") "$lfa" cleanup s3://lfa/faulty --keep-from 4 --grace 0 --now 4000000000
s3_get faulty "$tmp/faulty.got"
check "...leaves the same" bash -c "diff <(cd '$tmp/clean' && find . -type f | sort) <(cd '$tmp/faulty.got' && find . -type f | sort)"
env $E "$lfa" cleanup s3://lfa/stopped --keep-from 4 --grace 0 --now 4000000000 --dry-run --json --stats >"$tmp/plan.json" \
  2>"$tmp/plan.err"
planned=$(sed -n 's/.*(s3): \([0-9]*\) requests.*/\1/p' "$tmp/plan.err")
proxy_start halt --stop-after $((planned + 3)) # the plan, a HEAD and a DELETE, then nothing
env $(s3_env "$halt") "$lfa" cleanup s3://lfa/stopped --keep-from 4 --grace 0 --now 4000000000 >/dev/null 2>"$tmp/halt.err"
rc=$?
check "a cleanup whose server stops while it deletes: exit 2 (got $rc)" test "$rc" -eq 2
check "...says so" grep -q "stopped" "$tmp/halt.err"
s3_get stopped "$tmp/stopped.got"
check "...and everything the plan keeps is still there" python3 - "$tmp/plan.json" "$tmp/stopped.got" <<'EOF'
import json, os, sys
plan, root = json.load(open(sys.argv[1])), sys.argv[2]
keep = [v['file'] for v in plan['versions'] if v['kept']] + [o['path'] for o in plan['objects'] if o['action'] == 'keep']
missing = [k for k in keep if not os.path.isfile(os.path.join(root, k))]
assert keep and not missing, missing
EOF
check "...and the versions left verify" exits 0 "$lfa" verify "$tmp/stopped.got"
proxy_start writer --commit-on-delete 5
check "a commit during the cleanup" exits 0 env $(s3_env "$writer") "$lfa" cleanup s3://lfa/busy --keep-from 4 --grace 0 --now 4000000000 --json
check "...stops the object deletion (FA-CLEAN-11)" python3 -c "
import json; d = json.load(open('$tmp/cmd.out')); assert d['done']['new_versions'] and d['done']['objects_deleted'] == 0, d['done']"
s3_get busy "$tmp/busy.got"
check "...every object is still there" bash -c "diff <(cd '$tmp/ds/_field_assignments' && find . -type f | sort) \
  <(cd '$tmp/busy.got/_field_assignments' && find . -type f | sort)"
check "...and the kept versions verify" exits 0 "$lfa" verify "$tmp/busy.got" --to 5

finish
