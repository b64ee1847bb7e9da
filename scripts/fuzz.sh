#!/usr/bin/env bash
# fuzz.sh: builds the fuzz targets and runs each for a few seconds, then
# prints executions per second per target (fuzz/README.md, "Running locally").
#
#   scripts/fuzz.sh [--engine libfuzzer|afl] [--seconds N] [--build DIR]
#                   [--work DIR] [TARGET...]
#
#   --engine   libfuzzer (default): clang, -DLFA_VARIANT=fuzz, ASan + UBSan;
#              afl: afl-clang-fast, -DLFA_VARIANT=afl (set AFL_USE_ASAN=1
#              AFL_USE_UBSAN=1 in the environment for sanitizers)
#   --seconds  run time of each target (default 10)
#   --build    build folder (default build-fuzz or build-afl)
#   --work     where runs keep their corpus, findings and logs
#              (default BUILD/fuzz-runs); corpus/ is only read
#   TARGET     fuzz/<TARGET>_fuzz.c; default every target
#
# The table gives, per target: executions, exec/s as the engine counts them
# (wall clock), exec per CPU second of the fuzzing process (what one core
# would do on a machine nobody else uses; libFuzzer only), edges, and the
# result.
#
# One target at a time on one core, seeded from corpus/<target>/ with
# fuzz/<target>.dict (when there is one) and the [libfuzzer] options of
# fuzz/<target>.options.
# Exit 0 when no target found anything; 1 when one crashed (the table
# names its findings folder); 2 on usage or build errors.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

engine=libfuzzer
seconds=10
build=""
work=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine=${2:?--engine needs libfuzzer or afl}; shift 2 ;;
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    --work) work=${2:?--work needs a folder}; shift 2 ;;
    -h | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
case "$engine" in
  libfuzzer) cc=clang; variant=fuzz; build=${build:-build-fuzz} ;;
  afl) cc=afl-clang-fast; variant=afl; build=${build:-build-afl} ;;
  *) echo "fuzz.sh: --engine must be libfuzzer or afl" >&2; exit 2 ;;
esac
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --seconds must be a positive integer" >&2; exit 2; }
command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (apt-get install clang afl++)" >&2; exit 2; }
work=${work:-$build/fuzz-runs}
if [ ${#targets[@]} -eq 0 ]; then
  for src in fuzz/*_fuzz.c; do t=$(basename "$src" _fuzz.c); targets+=("$t"); done
fi
for t in "${targets[@]}"; do
  [ -f "fuzz/${t}_fuzz.c" ] || { echo "fuzz.sh: no target $t (fuzz/${t}_fuzz.c)" >&2; exit 2; }
done

echo "fuzz.sh: building ($engine: CC=$cc LFA_VARIANT=$variant) in $build"
mkdir -p "$build"
CC=$cc cmake -S . -B "$build" -DLFA_VARIANT="$variant" >"$build/fuzz-configure.log" 2>&1 ||
  { cat "$build/fuzz-configure.log" >&2; exit 2; }
cmake --build "$build" -j"$(nproc)" --target fuzz_targets >"$build/fuzz-build.log" 2>&1 ||
  { tail -40 "$build/fuzz-build.log" >&2; exit 2; }

# The [libfuzzer] section of fuzz/<t>.options as -key=value flags; dict
# paths are made absolute.
libfuzzer_flags() {
  local file="fuzz/$1.options" section="" key value
  [ -f "$file" ] || return 0
  while IFS= read -r line; do
    line=${line%%#*}
    [[ "$line" =~ ^[[:space:]]*$ ]] && continue
    if [[ "$line" =~ ^\[(.*)\] ]]; then section=${BASH_REMATCH[1]}; continue; fi
    [ "$section" = libfuzzer ] || continue
    key=$(echo "${line%%=*}" | tr -d '[:space:]')
    value=$(echo "${line#*=}" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
    [ "$key" = dict ] && value="$repo/fuzz/$value"
    printf -- '-%s=%s\n' "$key" "$value"
  done <"$file"
}

# CPU seconds (user + system) of this shell's finished children, from a
# file holding the output of bash's `times` (run in this shell: its second
# line is the children's "XmY.YYYs XmY.YYYs").
children_cpu() {
  awk 'NR == 2 {
    split($1, u, "m"); split($2, s, "m"); sub("s", "", u[2]); sub("s", "", s[2])
    printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}

mkdir -p "$work"
rows=()
found=0
for t in "${targets[@]}"; do
  bin="$build/fuzz/$t"
  dir="$work/$t"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/findings"
  echo "fuzz.sh: $t for ${seconds}s ($engine)"
  times >"$dir/times-before"
  if [ "$engine" = libfuzzer ]; then
    mapfile -t flags < <(libfuzzer_flags "$t")
    status=0
    "$bin" "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$dir/findings/" "$dir/corpus" "corpus/$t" >"$dir/log" 2>&1 || status=$?
    execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$dir/log")
    rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$dir/log")
    edges=$(grep -Eo 'cov: [0-9]+' "$dir/log" | tail -1 | awk '{print $2}')
  else
    status=0
    dict=()
    [ -f "fuzz/$t.dict" ] && dict=(-x "fuzz/$t.dict")
    AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
      AFL_FAST_CAL=1 AFL_QUIET=1 \
      afl-fuzz -i "corpus/$t" -o "$dir/afl" -V "$seconds" -m none "${dict[@]}" -- "$bin" \
      >"$dir/log" 2>&1 || status=$?
    stats="$dir/afl/default/fuzzer_stats"
    afl_stat() { [ -f "$stats" ] && awk -F: -v k="$1" '{gsub(/ /, "", $1)} $1 == k {gsub(/ /, "", $2); print $2}' "$stats"; }
    execs=$(afl_stat execs_done)
    rate=$(afl_stat execs_per_sec)
    edges=$(afl_stat edges_found)
    if [ -d "$dir/afl/default/crashes" ]; then
      find "$dir/afl/default/crashes" -type f -name 'id:*' -exec cp {} "$dir/findings/" \;
    fi
  fi
  times >"$dir/times-after"
  cpu=$(awk -v a="$(children_cpu "$dir/times-before")" -v b="$(children_cpu "$dir/times-after")" \
    'BEGIN { printf "%.1f", b - a }')
  per_cpu=$(awk -v n="${execs:-0}" -v c="$cpu" 'BEGIN { if (c > 0) printf "%.0f", n / c; else print "?" }')
  # afl-fuzz runs the target in a fork server it does not always reap:
  # its CPU is not all counted here
  [ "$engine" = afl ] && per_cpu=-
  crashes=$(find "$dir/findings" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    found=1
    note="FOUND (exit $status, $crashes files in $dir/findings, log $dir/log)"
  else
    note=ok
  fi
  rows+=("$(printf '%-26s %-9s %6s %12s %9s %10s %6s  %s' "$t" "$engine" "${seconds}s" "${execs:-?}" \
    "${rate:-?}" "$per_cpu" "${edges:-?}" "$note")")
done

echo
printf '%-26s %-9s %6s %12s %9s %10s %6s  %s\n' target engine time execs exec/s exec/cpu-s edges result
for r in "${rows[@]}"; do echo "$r"; done
exit "$found"
