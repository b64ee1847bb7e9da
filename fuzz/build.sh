#!/bin/bash -eu
# fuzz/build.sh: builds every fuzz target for a fuzzing farm, following the
# OSS-Fuzz build contract (ClusterFuzzLite runs it through
# .clusterfuzzlite/build.sh). fuzz/README.md, "Farms", has the details.
#
# Reads:  $CC $CXX $CFLAGS $CXXFLAGS (sanitizer and coverage flags included),
#         $LIB_FUZZING_ENGINE (libFuzzer, AFL++'s driver, ...), $OUT, and
#         $SRC (the checkout is $SRC/lfa, else the folder above this script);
#         $WORK for scratch when set.
# Writes: $OUT/<target> for each fuzz/<target>_fuzz.c,
#         $OUT/<target>_seed_corpus.zip (corpus/<target>/),
#         $OUT/<target>.options and $OUT/<target>.dict (when the target has
#         one: the byte-decision targets ops_differential and
#         verifier_faults have none),
#         $OUT/lib/libroaring.so.<n> (Debian ships CRoaring only as a shared
#         library; the targets find it through an $ORIGIN/lib rpath, while
#         protobuf-c and zstd are linked statically).
#
# The libraries are built by the project's own CMake (release variant, no
# sanitizer flags of its own: the farm's $CFLAGS bring them), then each
# target is compiled with $CC and linked with $CXX, as the contract asks
# (a fuzzing engine may be C++). Every target links every layer, the
# testkit's oracle, editor and fixtures among them (as fuzz/CMakeLists.txt
# does).
src="${SRC:-}/lfa"
[ -f "$src/CMakeLists.txt" ] || src="$(cd "$(dirname "$0")/.." && pwd)"
build="${WORK:-/tmp}/lfa-fuzz-build"
: "${OUT:?OUT must name the output folder}"
: "${LIB_FUZZING_ENGINE:?LIB_FUZZING_ENGINE must name the fuzzing engine}"
CXX="${CXX:-clang++}"

rm -rf "$build"
includes_layers=()
# CMAKE_BUILD_TYPE=None: no -O2/-g of our own on top of the farm's $CFLAGS.
CC="$CC" CFLAGS="${CFLAGS:-}" cmake -S "$src" -B "$build" -DLFA_VARIANT=release -DCMAKE_BUILD_TYPE=None
cmake --build "$build" --target lfa_testkit -j"$(nproc)"
# every layer's library, top first (LAYERS lists them bottom first)
layer_libs=()
while read -r name dir _; do
  case "$name" in ''|'#'*) continue ;; esac
  layer_libs=("$build/liblfa_$name.a" "${layer_libs[@]}")
  includes_layers+=(-I"$src/$dir" -I"$src/$dir/include")
done < "$src/LAYERS"

lib_roaring="$($CC -print-file-name=libroaring.so)"
lib_roaring="$(readlink -f "$lib_roaring")"
soname="$(objdump -p "$lib_roaring" | awk '/SONAME/ {print $2}')"
mkdir -p "$OUT/lib"
cp "$lib_roaring" "$OUT/lib/$soname"

for target_src in "$src"/fuzz/*_fuzz.c; do
  target="$(basename "$target_src" _fuzz.c)"
  includes=(-I"$src/fuzz" "${includes_layers[@]}" -I"$build/gen")
  objects=("$build/$target.o")
  $CC $CFLAGS -std=c11 "${includes[@]}" -c "$target_src" -o "$build/$target.o"
  $CXX $CXXFLAGS "${objects[@]}" -o "$OUT/$target" $LIB_FUZZING_ENGINE \
    "${layer_libs[@]}" "$build/liblfa_proto.a" \
    -l:libprotobuf-c.a -l:libzstd.a -lroaring -Wl,-rpath,'$ORIGIN/lib'
  rm -f "$OUT/${target}_seed_corpus.zip"
  (cd "$src/corpus/$target" && zip -q -j "$OUT/${target}_seed_corpus.zip" ./*)
  cp "$src/fuzz/$target.options" "$OUT/"
  if [ -f "$src/fuzz/$target.dict" ]; then cp "$src/fuzz/$target.dict" "$OUT/"; fi
done
