#!/usr/bin/env bash
# cli_verify_metadata_only.sh: the verifier reads metadata only, never a
# `.lance` data file [FA-VERIFY-1]. Each dataset is copied to a scratch
# directory and verified three times, at the same path: as it is, with
# every `.lance` file under data/ and _indices/ overwritten with garbage,
# and with those files removed. The three reports (--json, and the text
# form) must be byte for byte the same. The datasets: every folder of
# ../shared/lance-test-data (written by Lance releases, with real data
# files), and the reference writer's sample with tracked fields, given a
# garbage file at every data file path its manifests name. Where strace
# works, the verifier is also seen opening no `.lance` file at all.
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

# Every dataset directory (the parent of a _versions/) under the test data.
datasets=$(find ../shared/lance-test-data -type d -name _versions | sed 's|/_versions$||' | sort)

garble() { # dir: every .lance file gets other bytes, of another length
  find "$1" -name '*.lance' -type f | while read -r f; do head -c 777 /dev/urandom >"$f"; done
}

unlance() { # dir: every .lance file goes
  find "$1" -name '*.lance' -type f -delete
}

reports() { # dir, out prefix
  "$lfa" verify --json "$1" >"$2.json" 2>"$2.err"; echo "exit $?" >>"$2.json"
  "$lfa" verify "$1" >"$2.txt" 2>>"$2.err"; echo "exit $?" >>"$2.txt"
}

same_reports() { # dir: pristine, garbled and removed data files give one report
  local ds=$1
  reports "$ds" "$tmp/a"
  garble "$ds"
  reports "$ds" "$tmp/b"
  unlance "$ds"
  reports "$ds" "$tmp/c"
  cmp "$tmp/a.json" "$tmp/b.json" && cmp "$tmp/a.json" "$tmp/c.json" &&
    cmp "$tmp/a.txt" "$tmp/b.txt" && cmp "$tmp/a.txt" "$tmp/c.txt" &&
    cmp "$tmp/a.err" "$tmp/b.err" && cmp "$tmp/a.err" "$tmp/c.err"
}

n=0
for src in $datasets; do
  n=$((n + 1))
  ds="$tmp/ds$n"
  cp -r "$src" "$ds"
  lances=$(find "$ds" -name '*.lance' -type f | wc -l)
  check "$src: the same report with its $lances data files intact, garbled, removed" same_reports "$ds"
done
check "the test data has datasets with data files" test "$n" -ge 5

# The sample tracks fields; its manifests name data files no one wrote.
check "lfa sample writes" "$lfa" sample "$tmp/sample"
paths=$("$lfa" dump --json "$tmp/sample" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(sorted({f["path"] for v in d["versions"] for fr in v["fragments"] for f in fr["files"]})))')
check "the sample names data files" test -n "$paths"
with_files() {
  mkdir -p "$tmp/sample/data"
  while read -r p; do head -c 64 /dev/urandom >"$tmp/sample/data/$p"; done <<<"$paths"
  same_reports "$tmp/sample"
}
check "sample: the same report with garbage at every data file path, and without" with_files

# The system calls, where strace can trace: no open of any .lance path.
if strace -f -o /dev/null true 2>/dev/null; then
  traced() {
    local ds="$tmp/traced"
    cp -r ../shared/lance-test-data/v0.15.0/v1_with_files.lance "$ds"
    strace -f -e trace=open,openat -o "$tmp/trace" "$lfa" verify "$ds" >/dev/null
    ! grep '\.lance"' "$tmp/trace"
  }
  check "verify opens no .lance file (strace)" traced
else
  echo "note: strace cannot trace here; the system-call check is skipped"
fi

finish
