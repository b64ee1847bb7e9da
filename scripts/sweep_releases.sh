#!/usr/bin/env bash
# sweep_releases.sh: every LanceDB Node release npm serves for linux x64,
# measured one at a time, into the release table of spec/C-released-lance.md.
#
#   scripts/sweep_releases.sh [--lfa PATH] [--only 'PKG@VER ...'] [--results DIR] [--no-write | --table-only]
#
# For each release of @lancedb/lancedb and of the older vectordb package
# (`npm view PKG versions --json`, oldest first), interop/sweep.py installs
# it with the apache-arrow its peer range allows into a temporary folder
# with an npm cache of its own, writes the generator's core histories with
# it, holds lfa to Lance's own view of them, reads which Lance it embeds from
# the tables' writer_version, runs the released-writer matrix, and removes
# the folder (time and disk recorded first): disk stays bounded by one
# release. Releases run one after another, never in parallel.
#
# One JSON row per release goes to DIR (default build-sweep/), then the
# table is written anew from all of them (unless --no-write); read the diff
# before committing it. --only measures the listed releases and rewrites
# the table from every row in DIR; --table-only measures nothing and writes
# the table from the rows in DIR. The lfa binary is copied once, so a
# rebuild during the sweep does not change its tool. Not run by CI: the
# lane (tests/lance_lane.sh) checks the two pinned releases' rows.
set -uo pipefail
cd "$(dirname "$0")/.."
lfa=build/lfa results=build-sweep only="" write=1 measure=1
while [ $# -gt 0 ]; do
  case $1 in
    --lfa) lfa=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --no-write) write=0; shift ;;
    --table-only) measure=0; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sweep_releases.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$results/rows"
[ "$measure" = 1 ] && [ ! -x "$lfa" ] && { echo "sweep_releases.sh: no lfa at $lfa (build first)" >&2; exit 2; }
[ "$measure" = 1 ] && {
cp "$lfa" "$results/lfa"
start=$(date +%s)
if [ -n "$only" ]; then
  list=$only
else
  list=""
  for pkg in @lancedb/lancedb vectordb; do
    vs=$(npm view "$pkg" versions --json) || { echo "sweep_releases.sh: npm view $pkg failed" >&2; exit 1; }
    list+=" $(python3 -c 'import json,sys; print(" ".join(sys.argv[1] + "@" + v for v in json.loads(sys.argv[2])))' "$pkg" "$vs")"
  done
fi
n=0
for pv in $list; do
  pkg=${pv%@*} ver=${pv##*@}
  n=$((n + 1))
  file="$results/rows/$(echo "$pkg" | tr '/@' '__')-$ver.json"
  echo "== [$n] $pkg $ver ($(date -u +%H:%M:%S))"
  python3 interop/sweep.py run "$pkg" "$ver" --lfa "$results/lfa" --out "$file" || echo "   (sweep.py exit $?)"
done
echo "sweep: $n releases in $(( $(date +%s) - start )) s"
}
if [ "$write" = 1 ]; then
  # every row in DIR, @lancedb/lancedb then vectordb, each by version
  rows=$(python3 - "$results/rows" <<'PY'
import json, os, sys
d = sys.argv[1]
def key(r):  # a prerelease (0.15.0-beta.0) before its release
    base, _, pre = r["release"].partition("-")
    return (r["package"] != "@lancedb/lancedb", [int(x) for x in base.split(".")], 0 if pre else 1, pre)
rows = [(json.load(open(os.path.join(d, f))), f) for f in os.listdir(d) if f.endswith(".json")]
print(" ".join(os.path.join(d, f) for r, f in sorted(rows, key=lambda x: key(x[0]))))
PY
)
  python3 interop/sweep.py table spec/C-released-lance.md $rows && echo "sweep: spec/C-released-lance.md's release table written"
fi
