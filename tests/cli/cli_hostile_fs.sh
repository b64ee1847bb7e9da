#!/usr/bin/env bash
# cli_hostile_fs.sh: hostile file-system layouts against every command
# that reads a dataset. In place of a manifest, a transaction, a deletion
# file, a root, a bitmap or a tag: a FIFO (which would block an open or a
# read forever), a socket, a device (mknod, and a link to /dev/null), a
# link loop, a dangling link, a directory; an unreadable file (chmod 000)
# and a file that vanishes between its listing and its read; and a tree
# deeper than the walk limits. Every command must finish (no hang: each
# runs under `timeout`), never crash (exit 0, 1 or 2), and name what it
# refused; an unreadable or vanished file is an error of the command that
# needed it, never a pass, never a wrong rule, never a deletion.
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

fa=_field_assignments
declare -A TARGET=(
  [manifest]=_versions/5.manifest
  [transaction]=_transactions/4-5a3b1e00-0000-4000-8000-00000000000a.txn
  [deletion]=_deletions/0-3-4242.arrow
  [root]=$fa/roots/2/5a3b1e00-0000-4000-8000-000000000009.root
  [bitmap]=$fa/bitmaps/2/0/5a3b1e00-0000-4000-8000-000000000004.rbm
  [tag]=_refs/tags/t.json
)

# make KIND PATH: puts a hostile KIND at PATH; false when this system cannot
make() {
  rm -f "$2" && mkdir -p "$(dirname "$2")" &&
    case $1 in
      fifo) mkfifo "$2" ;;
      socket) python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$2" ;;
      device) mknod "$2" c 1 3 2>/dev/null ;;
      devlink) ln -s /dev/null "$2" ;;
      loop) ln -s "$(basename "$2")" "$2" ;;
      dangling) ln -s nowhere "$2" ;;
      directory) mkdir "$2" ;;
    esac
}

# runs one command with a time limit: status 0..2 and no hang, no crash;
# the status is left in $tmp/status. $runner (may be empty) runs it: as
# another user, or with a preload.
runner=()
bounded() { # name, then lfa arguments
  local name=$1; shift
  timeout 20 "${runner[@]}" "$lfa" "$@" >"$tmp/o" 2>"$tmp/e"
  local s=$?
  echo "$s" >"$tmp/status"
  if [ $s -gt 2 ]; then echo "$name: exit $s (124: hung)"; head -5 "$tmp/e"; return 1; fi
}

exited() { # the status the last bounded command left: one of the given ones
  local s; s=$(cat "$tmp/status")
  for want in "$@"; do [ "$s" = "$want" ] && return 0; done
  echo "exit $s, expected one of $*"; head -5 "$tmp/o" "$tmp/e"; return 1
}

said() { # the refusal names the file's kind or the failure: stdout or stderr
  grep -Eq "$1" "$tmp/o" "$tmp/e" || { echo "no '$1' in:"; head -5 "$tmp/o" "$tmp/e"; return 1; }
}

for what in "${!TARGET[@]}"; do
  for kind in fifo socket device devlink loop dangling directory; do
    d=$tmp/$what-$kind
    "$lfa" sample "$d" >/dev/null
    if ! make "$kind" "$d/${TARGET[$what]}"; then echo "skipped: $kind ($what) cannot be made here"; continue; fi
    case $kind in fifo) word='FIFO' ;; socket) word='socket' ;; device | devlink) word='device' ;;
      directory) word='directory' ;; *) word='Too many levels|No such file' ;; esac
    check "verify, $kind as $what" bounded verify verify "$d"
    [ "$what" != tag ] && check "verify names it, $kind as $what" said "$word"
    check "verify --json, $kind as $what" bounded verify verify --json "$d"
    check "dump, $kind as $what" bounded dump dump "$d"
    check "dump --json, $kind as $what" bounded dump dump --json "$d"
    check "eval, $kind as $what" bounded eval eval "$d" --field embedding
    check "cleanup --dry-run, $kind as $what" bounded cleanup cleanup "$d" --keep-from 5 --dry-run
    [ "$what" = tag ] && check "cleanup names the tag, $kind" said "$word"
    listing_before=$(cd "$d" && find . | sort)
    check "cleanup, $kind as $what" bounded cleanup cleanup "$d" --keep-from 5
    case $what in manifest | root | bitmap | tag)
      check "cleanup deleted nothing, $kind as $what" test "$listing_before" = "$(cd "$d" && find . | sort)" ;;
    esac
  done
done

# ---- unreadable and vanishing files -------------------------------------------
# Each in place of a file the commands read: the version 5 manifest, its
# transaction, a deletion file, its root, a bitmap it lists, and a tag
# that keeps version 3. A file that cannot be read is named with the
# reason; verify reports it as an error (FA-VERIFY-5 when it is there but
# unreadable: an I/O error, not FA-STORE-5 or any rule of the dataset; the
# rule that needs the file when it vanished); dump and eval fail; cleanup
# deletes nothing that a kept version, or the tag, still needs.

# fresh D: the sample with the tag, owned by whoever runs the commands
fresh() {
  rm -rf "$1" && "$lfa" sample "$1" >/dev/null && mkdir -p "$1/_refs/tags" &&
    printf '{"version": 3}' >"$1/_refs/tags/t.json" &&
    { [ -z "$as_user" ] || chown -R "$as_user" "$1"; }
}

listing() { (cd "$1" && find . | sort | grep -vxF "./$2"); } # D FILE: D's files less FILE
same_listing() { [ "$(listing "$1" "$2")" = "$3" ] || { echo "files changed:"; diff <(echo "$3") <(listing "$1" "$2"); }; }
failed_naming() { exited 1 2 && said "$1"; } # the last command failed, naming $1

# hostile WHAT HOW: every command with TARGET[WHAT] unreadable or vanishing
hostile() {
  local what=$1 how=$2 d=$tmp/$2-$1 file=${TARGET[$1]} before cmd reason='Permission denied'
  [ "$how" = vanishing ] && reason='No such file'
  for cmd in verify dump eval dry-run cleanup; do
    check "$how $what: a fresh dataset for $cmd" fresh "$d"
    before=$(listing "$d" "$file")
    if [ "$how" = unreadable ]; then chmod 000 "$d/$file"; runner=("${drop[@]}")
    else runner=(env "LD_PRELOAD=$vanish" "LFA_TEST_VANISH=$file" "ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0"); fi
    case $cmd in
      verify) check "verify, $what $how" bounded verify verify "$d" ;;
      dump) check "dump, $what $how" bounded dump dump "$d" ;;
      eval) check "eval, $what $how" bounded eval eval "$d" --field embedding ;;
      dry-run) check "cleanup --dry-run, $what $how" bounded cleanup cleanup "$d" --keep-from 5 --dry-run ;;
      cleanup) check "cleanup, $what $how" bounded cleanup cleanup "$d" --keep-from 5 ;;
    esac
    runner=()
    # verify, dump and eval read the file (verify and dump a tag only to list it)
    if [ "$what" != tag ] && [ "$cmd" = verify ]; then check "verify: an error, $what $how" exited 1; fi
    if [ "$what" != tag ] && [ "$cmd" != cleanup ] && [ "$cmd" != dry-run ]; then
      check "$cmd fails naming why, $what $how" failed_naming "$reason"
    fi
    if [ "$cmd" = verify ] && [ "$how" = unreadable ] && [ "$what" != tag ]; then
      check "verify: an I/O error [FA-VERIFY-5], $what" said "error FA-VERIFY-5"
      check "verify: no rule of the dataset blamed, $what" bash -c "! grep -E 'error FA-(STORE|LANCE|ROOT|BITMAP)' '$tmp/o'"
    fi
    # cleanup reads the kept manifest, its roots and the tags: without one it deletes nothing
    case $cmd-$what in dry-run-* | cleanup-manifest | cleanup-root | cleanup-tag)
      check "$cmd deleted nothing, $what $how" same_listing "$d" "$file" "$before" ;;
    esac
    case $cmd-$what in cleanup-manifest | cleanup-root | cleanup-tag) check "$cmd refused, $what $how" exited 1 2 ;; esac
    if [ "$cmd" = cleanup ] && [ "$how" = unreadable ]; then check "cleanup kept the unreadable $what" test -e "$d/$file"; fi
    if [ "$cmd" = cleanup ] && [ "$what" = tag ]; then check "the tagged version stays ($how tag)" test -e "$d/_versions/3.manifest"; fi
  done
}

# chmod 000 does not stop root: as root the commands run as nobody (setpriv)
as_user='' drop=()
if [ "$(id -u)" -eq 0 ]; then
  if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    as_user=65534:65534 drop=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    chmod 755 "$tmp" # nobody walks into the scratch directory
  else
    drop=(false)
  fi
fi
probe=$tmp/probe
: >"$probe" && chmod 000 "$probe" && { [ -z "$as_user" ] || chown "$as_user" "$probe"; }
if [ "${drop[0]:-}" = false ] || "${drop[@]}" cat "$probe" >/dev/null 2>&1; then
  echo "skipped: unreadable files (chmod 000 does not stop this user, and no other user can be run)"
else
  for what in "${!TARGET[@]}"; do hostile "$what" unreadable; done
fi
vanish=$(dirname "$lfa")/liblfa_test_vanish.so
if [ ! -e "$vanish" ]; then
  echo "skipped: vanishing files ($vanish, the preload that removes a file as it is opened, is not built)"
else
  for what in "${!TARGET[@]}"; do hostile "$what" vanishing; done
fi

# a base path of /dev: no device is opened, the objects are refused
d=$tmp/devbase
"$lfa" sample "$d" >/dev/null
check "verify with objects under /dev (a link in place of the root directory)" bash -c "
  rm -rf '$d/$fa/roots/2' && ln -s /dev '$d/$fa/roots/2'"
check "verify finishes" bounded verify verify "$d"

# deep trees: past the walk limits, nothing fails or is deleted
d=$tmp/deep
"$lfa" sample "$d" >/dev/null
deep=$d/$fa/x$(printf '/x%.0s' $(seq 1 40))
mkdir -p "$deep" && printf 'o' >"$deep/old.rbm" && touch -d '30 days ago' "$deep/old.rbm"
check "cleanup of a 40-deep tree under $fa: runs" bounded cleanup cleanup "$d" --keep-from 5
check "...the deep file is left alone" test -e "$deep/old.rbm"
check "...and said (FA-LIMIT-1)" said "deeper than LFA_CLEANUP_DEPTH_MAX"
mkdir -p "$d/tree/a" && ln -s .. "$d/tree/a/loop"
check "cleanup with a link loop under tree/: finishes" bounded cleanup cleanup "$d" --dry-run
check "verify of the deep dataset" bounded verify verify "$d"

finish
