#!/usr/bin/env bash
# cli_hostile_fs.sh: hostile file-system layouts against every command
# that reads a dataset. In place of a manifest, a transaction, a deletion
# file, a root, a bitmap or a tag: a FIFO (which would block an open or a
# read forever), a socket, a device (mknod, and a link to /dev/null), a
# link loop, a dangling link, a directory; and a tree deeper than the
# walk limits. Every command must finish (no hang: each runs under
# `timeout`), never crash (exit 0, 1 or 2), and name what it refused.
# Not covered: unreadable files (the tests run as root, for whom chmod 000
# does not block a read) and files vanishing mid-read (no hook to time it).
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

# runs one command with a time limit: status 0..2 and no hang, no crash
bounded() { # name, then lfa arguments
  local name=$1; shift
  timeout 20 "$lfa" "$@" >"$tmp/o" 2>"$tmp/e"
  local s=$?
  if [ $s -gt 2 ]; then echo "$name: exit $s (124: hung)"; head -5 "$tmp/e"; return 1; fi
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
