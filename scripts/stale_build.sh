#!/usr/bin/env bash
# stale_build.sh BUILD_DIR: a build directory configured from another
# checkout (copied, or the repository moved) has a CMake cache that names
# that other source directory, and CMake then refuses to configure with an
# error that does not say what to do. This says it, and removes the cache
# (CMakeCache.txt and CMakeFiles/, nothing else) so the next configure
# starts clean. Run from the repository root; bootstrap.sh calls it.
set -euo pipefail
build=${1:?usage: stale_build.sh BUILD_DIR}
cache=$build/CMakeCache.txt
[ -f "$cache" ] || exit 0
home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
here=$(pwd -P)
if [ -n "$home" ] && [ "$(cd "$home" 2>/dev/null && pwd -P || echo "$home")" != "$here" ]; then
  echo "$build/ was configured from another checkout ($home), not this one ($here):"
  echo "removing its CMake cache ($cache and $build/CMakeFiles/) to configure afresh here"
  rm -rf "$cache" "$build/CMakeFiles"
fi
