#!/usr/bin/env bash
# cli_stale_build.sh: scripts/stale_build.sh, which bootstrap.sh runs before
# configuring: a build directory whose CMake cache names another source
# directory is explained and its cache removed, so that CMake configures
# cleanly instead of failing; a cache of this checkout is left alone.
. "$(dirname "$0")/lib_cli.sh" "$1"
repo=$(pwd -P)
mkdir -p "$tmp/other" "$tmp/b/CMakeFiles" "$tmp/mine/CMakeFiles"
printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$tmp/other" >"$tmp/b/CMakeCache.txt"
echo kept >"$tmp/b/lfa"
printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$repo" >"$tmp/mine/CMakeCache.txt"
check "a cache from another checkout is named and removed" bash -c "
  bash scripts/stale_build.sh '$tmp/b' >'$tmp/o' && grep -qF 'was configured from another checkout ($tmp/other), not this one ($repo)' '$tmp/o' &&
  test ! -e '$tmp/b/CMakeCache.txt' && test ! -e '$tmp/b/CMakeFiles' && test -f '$tmp/b/lfa'"
check "...and CMake then configures there cleanly" bash -c "
  printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' '$tmp/other' >'$tmp/b/CMakeCache.txt'
  mkdir -p '$tmp/min' && printf 'cmake_minimum_required(VERSION 3.16)\nproject(x NONE)\n' >'$tmp/min/CMakeLists.txt' &&
  ! cmake -S '$tmp/min' -B '$tmp/b' >/dev/null 2>&1 &&
  (cd '$tmp/min' && bash '$repo/scripts/stale_build.sh' '$tmp/b' >/dev/null && cmake -S . -B '$tmp/b' >/dev/null)"
check "this checkout's own cache is left alone" bash -c "
  bash scripts/stale_build.sh '$tmp/mine' >'$tmp/o2' && test ! -s '$tmp/o2' && test -f '$tmp/mine/CMakeCache.txt'"
check "no build directory yet: nothing to do" bash scripts/stale_build.sh "$tmp/none"
finish
