#!/usr/bin/env bash
# test.sh: the README's second command, and all that CI runs (.ci/run).
# Builds and runs the whole suite twice: gcc optimized, then clang with
# AddressSanitizer + UndefinedBehaviorSanitizer. Warnings are errors in both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/peers.sh  # the pinned Lances of interop/, for the real-Lance lane
rm -rf build-lance     # the lane's datasets: generated afresh once per run, shared by both builds
jobs=$(nproc)

run_variant() { # name cc variant
  local dir="build-test-$1"
  echo "== $1: CC=$2 LFA_VARIANT=$3"
  CC="$2" cmake -S . -B "$dir" -DLFA_VARIANT="$3" >/dev/null
  cmake --build "$dir" -j"$jobs" 2>&1 | grep -Ev '^\[|^-- |Built target|Scanning dependencies|Consolidate compiler' || true
  # the build must have succeeded even though its chatter was filtered
  cmake --build "$dir" -j"$jobs" >/dev/null
  ctest --test-dir "$dir" -j"$jobs" --output-on-failure
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_variant release gcc release
run_variant sanitize clang sanitize
