#!/usr/bin/env bash
# deps.sh: installs the Debian 12 packages lfa needs, only those missing.
# Silent when everything is present; idempotent; needs root (or sudo).
set -euo pipefail

packages=(cmake make gcc clang pkg-config python3
          python3-jsonschema  # scripts/check_schema.py validates the JSON documents against conformance/schema/
          libprotobuf-c-dev protobuf-c-compiler libroaring-dev libzstd-dev libcmocka-dev
          libcurl4-openssl-dev libexpat1-dev
          libxml2-dev  # the reference parse of fuzz/s3_listing_fuzz.c (a test dependency)
          chromium     # the headless browser tests/report_browser.sh opens reports in
          # what libcurl.pc's Libs.private names: `pkg-config --static --libs lfa` links
          libnghttp2-dev librtmp-dev libssh2-1-dev libpsl-dev libkrb5-dev libldap-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps.sh: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "deps.sh: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
