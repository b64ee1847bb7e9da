#!/usr/bin/env bash
# s3_cost.sh: what `lfa verify --from N` of the newest commit costs on s3://
# as the history grows: requests and bytes (--stats) at 10, 100 and 1000
# commits, on the local S3 server (interop/s3/), beside the same command on
# the local copy (file operations) and a whole `lfa verify`.
#
#   bash bench/s3_cost.sh LFA VERIFY_SCALING [COMMITS...]   # default 10 100 1000
#
# Each history is bench/verify_scaling's (50 fragments of 24 rows, one
# tracked field, one commit writing one row each), written locally and
# uploaded with plain PUTs (interop/s3/tree.mjs). One JSON line per size on
# stdout ({"bench": "s3_cost", ...}), a table on stderr. Exit 77 with
# LFA_SKIP_LANCE=1 (no npm peers), 1 when interop/s3 is not installed.
set -uo pipefail
lfa=$(realpath "$1") vs=$(realpath "$2")
shift 2
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100 1000)
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
. tests/s3_util.sh
s3_need
s3_start
E=$(s3_env "$S3_ENDPOINT")
stat_of() { sed -n 's/.*: \([0-9]*\) requests, \([0-9]*\) bytes read.*/\1 \2/p' "$1"; }
printf '%-8s %9s %14s %14s %14s %14s\n' commits versions "s3 requests" "s3 bytes" "local ops" "whole: s3 req" >&2
for n in "${sizes[@]}"; do
  "$vs" --fragments 50 --rows 24 --commits "$n" --keep >"$tmp/vs.out" 2>&1 || { cat "$tmp/vs.out" >&2; exit 1; }
  dir=$(sed -n 's/^kept: //p' "$tmp/vs.out")
  s3_put "$dir" "h$n"
  last=$(ls "$dir/_versions" | sed -n 's/^\([0-9]*\)\.manifest$/\1/p' | sort -n | tail -1)
  versions=$(ls "$dir/_versions" | grep -c '\.manifest$')
  env $E "$lfa" verify "s3://lfa/h$n" --from "$last" --stats >/dev/null 2>"$tmp/s3.err" || { cat "$tmp/s3.err" >&2; exit 1; }
  "$lfa" verify "$dir" --from "$last" --stats >/dev/null 2>"$tmp/local.err" || exit 1
  env $E "$lfa" verify "s3://lfa/h$n" --stats >/dev/null 2>"$tmp/whole.err" || exit 1
  read -r req bytes < <(stat_of "$tmp/s3.err")
  read -r lreq lbytes < <(stat_of "$tmp/local.err")
  read -r wreq wbytes < <(stat_of "$tmp/whole.err")
  printf '%-8s %9s %14s %14s %14s %14s\n' "$n" "$versions" "$req" "$bytes" "$lreq" "$wreq" >&2
  printf '{"bench": "s3_cost", "command": "verify --from %s", "commits": %s, "versions": %s, "s3_requests": %s, "s3_bytes_read": %s, "local_operations": %s, "local_bytes_read": %s, "whole_verify_s3_requests": %s, "whole_verify_s3_bytes_read": %s}\n' \
    "$last" "$n" "$versions" "$req" "$bytes" "$lreq" "$lbytes" "$wreq" "$wbytes"
  rm -rf "$dir"
done
