#!/usr/bin/env bash
# peers.sh: installs the pinned test peers, the two released Lances of
# interop/ (each a Node package with its lock file), and Debian's nodejs and
# npm first when node is missing. Idempotent: a peer already installed at
# its pinned versions is left alone. Exit 1 with a one-line reason when a
# peer cannot be installed. LFA_SKIP_LANCE=1 skips it, and says so.
# --check installs nothing: exit 1, with the reason, when a peer is not at
# its pins (what the test lane asks before it runs); `--check s3` checks
# interop/s3 alone (what the s3:// tests ask).
#
# interop/s3 is the local S3-compatible server of the s3:// tests (s3rver,
# pinned with its lock; interop/s3/server.mjs says what it does on node 20).
#
# lance8 installs with `npm ci`. lance12 (@lancedb/lancedb 0.39.0) cannot:
# its lock lists builds for other platforms that the registry does not
# serve, and `npm ci` refuses it; `npm install` from the same lock works and
# must leave the lock as it is (checked). 0.39.0 asks for node >= 22 and
# runs on Debian 12's node 20 (npm prints a warning only).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${LFA_SKIP_LANCE:-}" = 1 ]; then
  echo "peers.sh: LFA_SKIP_LANCE=1: the released Lances are not installed"
  exit 0
fi

check=0 only=""
[ "${1:-}" = --check ] && check=1 && only="${2:-}"

if [ $check -eq 1 ]; then
  command -v node >/dev/null || { echo "peers.sh: node is missing (run scripts/peers.sh)" >&2; exit 1; }
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "peers.sh: installing Debian's nodejs and npm"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# "name version" of every direct dependency whose installed version differs
# from its pin in package.json (nothing when all match).
stale() { # dir
  node -e '
    const fs = require("fs"), dir = process.argv[1];
    const deps = JSON.parse(fs.readFileSync(dir + "/package.json")).dependencies;
    for (const [name, pin] of Object.entries(deps)) {
      let got = "missing";
      try { got = JSON.parse(fs.readFileSync(`${dir}/node_modules/${name}/package.json`)).version; } catch {}
      if (got !== pin) console.log(`${name} ${pin} (installed: ${got})`);
    }' "$1"
}

install_peer() { # dir, npm command
  local dir=$1 cmd=$2 lock before left log
  left=$(stale "$dir")
  [ -z "$left" ] && return 0
  if [ $check -eq 1 ]; then
    echo "peers.sh: $dir is not at its pins: $(echo $left) (run scripts/peers.sh)" >&2
    exit 1
  fi
  echo "peers.sh: npm $cmd in $dir"
  lock="$dir/package-lock.json"
  log=$(mktemp)
  before=$(sha256sum "$lock")
  if ! (cd "$dir" && npm "$cmd" --no-audit --no-fund --loglevel=error >/dev/null) 2>"$log"; then
    echo "peers.sh: cannot install $dir: npm $cmd failed: $(grep -m1 -E 'npm (error|ERR)' "$log" || tail -1 "$log")" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  [ "$(sha256sum "$lock")" = "$before" ] ||
    { echo "peers.sh: npm $cmd in $dir changed $lock: the pin no longer holds" >&2; exit 1; }
  left=$(stale "$dir")
  [ -z "$left" ] || { echo "peers.sh: $dir: not at the pinned versions after install: $left" >&2; exit 1; }
}

if [ "$only" = s3 ]; then
  install_peer interop/s3 ci
  exit 0
fi
install_peer interop/lance8 ci
install_peer interop/lance12 install
install_peer interop/s3 ci
