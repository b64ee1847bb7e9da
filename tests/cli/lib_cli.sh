# lib_cli.sh: what the command-line tests (tests/cli/cli_*.sh) share. Source it
# with the built lfa as its argument: `. "$(dirname "$0")/lib_cli.sh" "$1"`.
# It sets $lfa and a scratch $tmp (removed on exit) and counts checks;
# end the script with `finish`, which prints the plain closing line.
set -uo pipefail
lfa=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

check() { # name, then a command that must succeed
  local name=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $name"; sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -20; fi
}

exits() { # expected status, command...
  local want=$1; shift
  "$@" >"$tmp/cmd.out" 2>"$tmp/cmd.err"; local got=$?
  [ "$got" -eq "$want" ] || { echo "exit $got, expected $want: $*"; cat "$tmp/cmd.out" "$tmp/cmd.err"; return 1; }
}

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
