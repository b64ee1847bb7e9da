#!/usr/bin/env bash
# bootstrap.sh: the README's first command. Installs what is missing, builds
# lfa, writes the bundled sample dataset and dumps it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DLFA_VARIANT=release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
rm -rf build/sample
build/lfa sample build/sample >/dev/null
build/lfa dump build/sample
