#!/bin/bash
# install_consumer.sh BUILD_DIR LFA: lfa installed to a temporary prefix and
# used from outside the tree. tests/install/consumer.c is built against the
# installed library with pkg-config and with find_package (shared and
# static), and run on a dataset: its verdict and its is_assigned counts must
# be those of the `lfa` command, and a dataset with a broken bitmap must
# fail it. The installed `lfa --version` must name the version, the spec
# revision and the pinned Lance releases as their sources state them.
#
# install_consumer.sh --library-only: the same on a tree configured here with
# -DLFA_BUILD_TESTS=OFF, which must build the library and `lfa` and nothing
# of tests/, fuzz/, bench/ or conformance/.
set -u
src="$(pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
if [ "$1" = "--library-only" ]; then
  build="$tmp/build"
  { cmake -S "$src" -B "$build" -DLFA_VARIANT=release -DLFA_BUILD_TESTS=OFF && cmake --build "$build" -j2; } \
    >"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log"; echo "FAIL: the library-only build"; exit 1; }
  lfa="$build/lfa"
  [ -x "$lfa" ] && [ -e "$build/liblfa.a" ] && ok "-DLFA_BUILD_TESTS=OFF builds liblfa and lfa" || bad "no lfa or liblfa.a"
  extra="$(cd "$build" && ls test_* mix_versions set_flags fuzz bench conformance 2>/dev/null)"
  [ -z "$extra" ] && ok "... and no test, tool, fuzz target or benchmark" || bad "a library-only build made: $extra"
  grep -q "cmocka" "$build/CMakeCache.txt" && bad "a library-only build looked for cmocka" || ok "... without cmocka"
else
  build="$1"
  lfa="$2"
fi

prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
libdir="$(ls -d "$prefix"/lib* | head -1)"
for f in bin/lfa include/lfa/lfa.h include/lfa/version.h include/lfa/proto/table.pb-c.h; do
  [ -e "$prefix/$f" ] && ok "installed $f" || bad "installed $f"
done
for f in liblfa.a liblfa.so pkgconfig/lfa.pc cmake/lfa/lfaConfig.cmake cmake/lfa/lfaTargets.cmake; do
  [ -e "$libdir/$f" ] && ok "installed lib/$f" || bad "installed lib/$f"
done
# the man pages (scripts/gen_man.py): lfa(1) and one per command `lfa --help` lists
for cmd in $("$prefix/bin/lfa" --help | sed -n 's/^  \([a-z][a-z]*\).*/\1/p'); do
  [ -e "$prefix/share/man/man1/lfa-$cmd.1" ] && ok "installed man page lfa-$cmd.1" || bad "no man page lfa-$cmd.1"
done
if command -v man >/dev/null; then
  MANPATH="$prefix/share/man" MANWIDTH=200 LC_ALL=C man -P cat lfa-verify 2>&1 | grep -q -- '--since-last STATEFILE' &&
    ok "man lfa-verify renders, with --since-last" || bad "man lfa-verify: $(MANPATH="$prefix/share/man" man -P cat lfa-verify 2>&1 | head -3)"
fi
[ -e "$prefix/share/man/man1/lfa.1" ] && ok "installed man page lfa.1" || bad "no man page lfa.1"

# --version against its sources: spec/README.md and each peer's package.json
want_spec="$(sed -n 's/^Revision \([0-9]*\)\..*/\1/p' spec/README.md | head -1)"
want_version="$(sed -n 's/^project(lfa VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
version_out="$("$prefix/bin/lfa" --version)"
echo "$version_out" | grep -qx "lfa $want_version" && ok "--version names lfa $want_version" || bad "--version: $version_out"
echo "$version_out" | grep -qx "spec revision $want_spec" && ok "--version names spec revision $want_spec" || bad "--version spec: $version_out"
for peer in interop/lance*/package.json; do
  lance="$(sed -n 's/.*embeds \(Lance [0-9.]*\)".*/\1/p' "$peer")"
  echo "$version_out" | grep -q "$lance" && ok "--version names $lance" || bad "--version lacks $lance: $version_out"
done

ds="$tmp/ds"
"$lfa" sample "$ds" >/dev/null || { echo "FAIL: lfa sample"; exit 1; }
want="$("$lfa" eval "$ds" --field embedding --json | python3 -c '
import json, sys
t = json.load(sys.stdin)["totals"]
print("assigned %d unassigned %d" % (t["assigned"], t["unassigned"]))')"
broken="$tmp/broken"
cp -r "$ds" "$broken"
bitmap="$(find "$broken/_field_assignments" -name '*.bitmap' -o -name '*.bin' -path '*_field_assignments*' | head -1)"
[ -n "$bitmap" ] || bitmap="$(find "$broken/_field_assignments" -type f | sort | tail -1)"
printf 'not a bitmap' >"$bitmap"

run_consumer() { # NAME BINARY
  local out rc
  out="$("$2" "$ds" embedding 2>"$tmp/err")"; rc=$?
  if [ $rc -eq 0 ] && echo "$out" | grep -qx "errors 0" && echo "$out" | grep -qx "$want"; then
    ok "$1: verifies clean and counts '$want'"
  else
    bad "$1: exit $rc, output: $out $(cat "$tmp/err")"
  fi
  "$2" "$broken" embedding >/dev/null 2>&1; rc=$?
  [ $rc -ne 0 ] && ok "$1: a broken bitmap fails it (exit $rc)" || bad "$1: a broken bitmap passed"
}

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# liblfa links libcurl (the s3:// file system): a static link must bring it
pkg-config --static --libs lfa | grep -q -- '-lcurl' && ok "lfa.pc carries libcurl for a static link" ||
  bad "lfa.pc lacks libcurl: $(pkg-config --static --libs lfa)"
# shellcheck disable=SC2046
if cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags lfa) tests/install/consumer.c \
      -o "$tmp/consumer_pc" $(pkg-config --libs lfa) -Wl,-rpath,"$libdir" 2>"$tmp/cc.log"; then
  ok "built with pkg-config"
  run_consumer "pkg-config build" "$tmp/consumer_pc"
else
  cat "$tmp/cc.log"; bad "build with pkg-config"
fi

# A private prefix: the shared build without an rpath does not find
# liblfa.so at run time; LD_LIBRARY_PATH (or -Wl,-rpath, above) does (README).
# shellcheck disable=SC2046
if cc -std=c11 $(pkg-config --cflags lfa) tests/install/consumer.c -o "$tmp/consumer_norpath" $(pkg-config --libs lfa) \
      2>"$tmp/cc.log"; then
  "$tmp/consumer_norpath" "$ds" embedding >/dev/null 2>"$tmp/err" && bad "ran without liblfa.so on its path" ||
    { grep -q "liblfa.so" "$tmp/err" && ok "without an rpath liblfa.so is not found"; } || bad "$(cat "$tmp/err")"
  LD_LIBRARY_PATH="$libdir" run_consumer "pkg-config build, LD_LIBRARY_PATH" "$tmp/consumer_norpath"
else
  cat "$tmp/cc.log"; bad "build with pkg-config, no rpath"
fi
# pkg-config --static: liblfa.a and every dependency lfa.pc names (libcurl's
# own through Requires.private), no run-time path needed
# shellcheck disable=SC2046
if cc -std=c11 $(pkg-config --cflags lfa) tests/install/consumer.c -o "$tmp/consumer_static_pc" \
      -Wl,-Bstatic -llfa -Wl,-Bdynamic $(pkg-config --static --libs lfa) 2>"$tmp/cc.log"; then
  ok "linked with pkg-config --static"
  ldd "$tmp/consumer_static_pc" | grep -q liblfa && bad "the --static build loads liblfa.so" || ok "... liblfa linked in"
  run_consumer "pkg-config --static build" "$tmp/consumer_static_pc"
else
  cat "$tmp/cc.log"; bad "link with pkg-config --static"
fi

if cmake -S "$src/tests/install" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cm.log" 2>&1 &&
   cmake --build "$tmp/cm" >>"$tmp/cm.log" 2>&1; then
  ok "built with find_package(lfa)"
  run_consumer "find_package build, shared" "$tmp/cm/consumer_shared"
  run_consumer "find_package build, static" "$tmp/cm/consumer_static"
  ldd "$tmp/cm/consumer_shared" | grep -q "$libdir/liblfa.so" && ok "the shared build uses the installed liblfa.so" ||
    bad "the shared build does not load $libdir/liblfa.so"
else
  cat "$tmp/cm.log"; bad "build with find_package(lfa)"
fi

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
