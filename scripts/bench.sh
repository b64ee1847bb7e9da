#!/usr/bin/env bash
# scripts/bench.sh: every benchmark of bench/ in one command.
#
#   bash scripts/bench.sh
#
# Builds an optimized build in build-bench/ (its own directory: your
# build/ is left alone), runs each benchmark at full size, and writes
#   bench/results/results.jsonl   one JSON object per measurement
#   bench/results/results.md      the Markdown tables, targets met / missed
#   bench/results/*.svg           plots (root bytes per append, verify time per commit)
# About 5 to 10 minutes on 2 shared cores. Exit status 1 when a benchmark's
# own invariant broke (a wrong result, not a missed target: missed targets
# are reported in the results with their reasons).
set -uo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
load=$(cut -d' ' -f1-3 /proc/loadavg)
build=build-bench
out=bench/results
mkdir -p "$out"
tmp=$(mktemp "$out/.results.XXXXXX")
trap 'rm -f "$tmp"' EXIT

echo "== building $build (release)" >&2
cmake -S . -B "$build" -DLFA_VARIANT=release >/dev/null || exit 2
nice cmake --build "$build" -j2 --target remap design_compare root_growth op_costs materialize decode verify_scaling >/dev/null ||
  exit 2

failed=0
run() {
  local name=$1 t0=$SECONDS
  shift
  echo "== $name $*" >&2
  if ! "$build/bench/$name" "$@" >>"$tmp"; then
    echo "!! $name $*: an invariant broke (see above)" >&2
    failed=1
  fi
  printf '{"bench": "meta_time", "program": "%s", "args": "%s", "wall_seconds": %s}\n' "$name" "$*" \
    $((SECONDS - t0)) >>"$tmp"
}

run remap
run design_compare
run root_growth
run op_costs
run materialize
run decode
for fragments in 250 500 1000 2000; do
  run verify_scaling --fragments "$fragments" --commits 50 --json --check
done

wall=$(($(date +%s) - start))
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
printf '{"bench": "meta", "date": "%s", "cpu": "%s", "cores": %s, "load": "%s", "commit": "%s", "wall_seconds": %s}\n' \
  "$(date -u +%Y-%m-%dT%H:%MZ)" "$cpu" "$(nproc)" "$load" "$commit" "$wall" >>"$tmp"
python3 bench/report.py "$tmp" "$out" || exit 2
mv "$tmp" "$out/results.jsonl"
trap - EXIT
echo "== wrote $out/results.jsonl, $out/results.md and plots in ${wall} s" >&2
exit "$failed"
