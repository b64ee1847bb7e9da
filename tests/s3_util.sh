# s3_util.sh: the local S3 server and the fault proxies of interop/s3/ for
# the s3:// tests (tests/cli/cli_s3.sh, tests/s3_lane.sh). Source it after
# lib_cli.sh (it needs $tmp), from the repository root.
#
#   s3_need          exit 77 when LFA_SKIP_LANCE=1 (the npm peers are not
#                    installed then), exit 1 with one line when interop/s3 is
#                    not installed at its pin
#   s3_start         starts s3rver with bucket "lfa": sets S3_ENDPOINT
#   proxy_start VAR ARGS  starts interop/s3/proxy.mjs before it: VAR its endpoint
#   s3_env ENDPOINT  the lfa environment for that endpoint, as `env` arguments
# Every process started here is stopped by its id when the script exits.
S3_PIDS=()
s3_cleanup() {
  local p
  for p in "${S3_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${S3_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap s3_cleanup EXIT

s3_need() {
  if [ "${LFA_SKIP_LANCE:-}" = 1 ]; then
    echo "s3 tests: skipped because LFA_SKIP_LANCE=1 (the npm peers, s3rver among them, are not installed)"
    exit 77
  fi
  command -v node >/dev/null || { echo "s3 tests: node is missing (run scripts/peers.sh)"; exit 1; }
  bash scripts/peers.sh --check s3 >/dev/null 2>"$tmp/peers.err" || { echo "s3 tests: $(cat "$tmp/peers.err")"; exit 1; }
}

# Waits up to 10 s for a JSON line {"endpoint": ...} in file $1.
s3_wait_endpoint() {
  local i
  for i in $(seq 100); do
    [ -s "$1" ] && { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["endpoint"])' "$1"; return 0; }
    sleep 0.1
  done
  echo "s3 tests: the server did not start ($(cat "$1.err" 2>/dev/null | tail -1))" >&2
  return 1
}

s3_start() {
  local f="$tmp/s3rver.json"
  mkdir -p "$tmp/s3rver"
  node interop/s3/server.mjs --dir "$tmp/s3rver" --bucket lfa --port-file "$f" >/dev/null 2>"$f.err" &
  S3_PIDS+=($!)
  S3_ENDPOINT=$(s3_wait_endpoint "$f") || exit 1
  S3_DIR="$tmp/s3rver"
}

# proxy_start VAR ARGS...: a proxy with these faults; VAR is set to its
# endpoint, and its log is $tmp/VAR.log.
proxy_start() {
  local var=$1 f="$tmp/$1.json"
  shift
  rm -f "$f"
  node interop/s3/proxy.mjs --upstream "$S3_ENDPOINT" --port-file "$f" --log "$tmp/$var.log" "$@" \
    >/dev/null 2>"$f.err" &
  S3_PIDS+=($!)
  local ep
  ep=$(s3_wait_endpoint "$f") || exit 1
  printf -v "$var" '%s' "$ep"
}

s3_env() {
  echo "AWS_ENDPOINT_URL=$1 AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1"
}

# put DIR PREFIX / get PREFIX DIR: copies with plain requests (interop/s3/tree.mjs), not lfa.
s3_put() { node interop/s3/tree.mjs put "$S3_ENDPOINT" lfa "$2" "$1" >/dev/null; }
s3_get() { rm -rf "$2"; mkdir -p "$2"; node interop/s3/tree.mjs get "$S3_ENDPOINT" lfa "$1" "$2" >/dev/null; }
