#!/usr/bin/env bash
# s3_lane.sh: the real-Lance lane on an object store, for one pinned release.
#
#   tests/s3_lane.sh LFA lance12
#
# Starts the local S3 server (interop/s3/server.mjs: s3rver on 127.0.0.1, a
# free port, a temporary directory) and a fault proxy before it (many listing
# pages, a 500 on every fifth request), then has the release write tables to
# it and holds lfa on s3:// to lfa on a copy made with plain GETs
# (interop/s3_lane.mjs). Then every dataset the real-Lance lane left in
# build-lance/lance12/ and build-lance/lance8/ (tests/lance_lane.sh, which
# ctest runs first: fixtures lance_datasets_<release>) is put on the same
# server, and lfa dump, verify (whole and --from the newest) and eval must
# answer on s3:// as on disk (interop/s3_datasets.mjs). Run by ctest.
#
# The pinned release and interop/s3 must be installed (scripts/peers.sh):
# otherwise this fails with a one-line reason. LFA_SKIP_LANCE=1 skips it, and
# says so in its last line (exit 77, which ctest shows as skipped).
set -uo pipefail
lfa=$1 release=$2
cd "$(dirname "$0")/.."
if [ "${LFA_SKIP_LANCE:-}" = 1 ]; then
  echo "s3 lane $release: skipped because LFA_SKIP_LANCE=1"
  exit 77
fi
bash scripts/peers.sh --check || { echo "s3 lane $release: a peer is not installed (above)"; exit 1; }
tmp=$(mktemp -d)
. tests/s3_util.sh
s3_start
proxy_start faulty --page-keys 7 --fail-every 5
work=build-lance/$release/s3
node interop/s3_lane.mjs --release "$release" --lfa "$lfa" --work "$work" --endpoint "$S3_ENDPOINT" --proxy "$faulty" ||
  status=1
node interop/s3_datasets.mjs --lfa "$lfa" --endpoint "$S3_ENDPOINT" --gen build-lance/lance12,build-lance/lance8 || status=1
exit ${status:-0}
