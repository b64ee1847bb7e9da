#!/usr/bin/env bash
# cli_schema.sh: the JSON Schemas of conformance/schema/ against what they
# describe. Every scenario of the suite is valid; every planted invalid
# file of tests/schema/ is invalid, and lfa's own readers refuse it too
# (the validator, scripts/check_schema.py, shares no code with them); the
# observations `lfa adapter` writes, and the document `lfa conformance
# --json` prints, are valid. Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"
export TMPDIR=$tmp
schema() { python3 scripts/check_schema.py "$@"; }
S=conformance/schema

check "every scenario of the suite is valid" schema $S/scenario.schema.json conformance/scenarios
check "the planted scenarios are invalid" schema --expect-invalid $S/scenario.schema.json \
  $(ls tests/schema/planted_*.json | grep -v '\.observations\.json$')
for f in $(ls tests/schema/planted_*.json | grep -v '\.observations\.json$'); do
  n=$(basename "$f" .json)
  check "lfa run refuses $n too" bash -c "'$lfa' run '$f' '$tmp/run_$n' >/dev/null 2>&1; test \$? -eq 2"
done
check "the planted observations are invalid" schema --expect-invalid $S/observations.schema.json \
  tests/schema/*.observations.json
for f in tests/schema/*.observations.json; do
  n=$(basename "$f" .observations.json)
  printf '#!/bin/sh\nmkdir "$2/dataset"; cp %s "$2/observations.json"\n' "$(pwd)/$f" >"$tmp/give_$n.sh"
  chmod +x "$tmp/give_$n.sh"
  check "lfa conformance finds $n's observations unusable too" bash -c "
    '$lfa' conformance --filter delete_changes_no_state --adapter '$tmp/give_$n.sh' >'$tmp/o' 2>/dev/null
    test \$? -eq 1 && grep -q 'fail: unusable observations' '$tmp/o'"
done

# The Lance release registry (02§7): the real one is valid and keeps its own
# rules; a fact without a source, or an unconfirmed number given anyway, is
# refused by the schema; an unknown source id or two overlapping meanings of
# one number by the generator, which the build runs (so neither builds).
R=conformance/schema/lance-releases.schema.json
check "spec/lance-releases.json is valid and keeps its rules" bash -c "
  python3 scripts/check_schema.py $R spec/lance-releases.json &&
  python3 scripts/gen_lance_releases.py check spec/lance-releases.json >/dev/null"
check "a registry fact without a source, or a guessed number, is invalid" schema --expect-invalid $R \
  tests/schema/registry_field_without_source.json tests/schema/registry_unconfirmed_number_guessed.json
for f in unknown_source overlapping_numbers; do
  check "the generator refuses a registry with $f" bash -c "
    python3 scripts/gen_lance_releases.py c tests/schema/registry_$f.json '$tmp/r.c' 2>/dev/null; test \$? -eq 1 && ! test -e '$tmp/r.c'"
done

# lfa dump --json against its schema: the sample's history (with --rows) and
# a tracked edge dataset are valid; a feature-bit entry with a key the
# schema does not list, or a version without its manifest_fields, is not.
D=conformance/schema/dump.schema.json
check "lfa dump --json is valid (sample with --rows, a tracked edge dataset)" bash -c "
  '$lfa' sample '$tmp/sample' >/dev/null && '$lfa' dump --json --rows '$tmp/sample' >'$tmp/dump1.json' &&
  '$lfa' dump --json conformance/edge/root9_empty_root_zero_bytes >'$tmp/dump2.json' &&
  python3 scripts/check_schema.py $D '$tmp/dump1.json' '$tmp/dump2.json'"
check "a dump document with an unlisted bit key or no manifest_fields is invalid" bash -c "
  python3 -c \"
import json
d = json.load(open('$tmp/dump2.json'))
d['versions'][0]['feature_bits'][0]['extra'] = 1
json.dump(d, open('$tmp/dump_bad1.json', 'w'))
d = json.load(open('$tmp/dump2.json'))
del d['versions'][0]['manifest_fields']
json.dump(d, open('$tmp/dump_bad2.json', 'w'))\" &&
  python3 scripts/check_schema.py --expect-invalid $D '$tmp/dump_bad1.json' '$tmp/dump_bad2.json'"

mkdir "$tmp/obs"
for s in delete_changes_no_state refused_invalidate_untracked_or_unknown conc_track_assigned_merge_insert; do
  mkdir "$tmp/obs/$s" "$tmp/obs/$s.all"
  "$lfa" adapter "conformance/scenarios/$s.json" "$tmp/obs/$s" &&
    "$lfa" adapter --observe-all "conformance/scenarios/$s.json" "$tmp/obs/$s.all"
  cp "$tmp/obs/$s/observations.json" "$tmp/obs/$s.json"
  cp "$tmp/obs/$s.all/observations.json" "$tmp/obs/$s.all.json"
done
check "lfa adapter's observations are valid (with and without --observe-all)" schema $S/observations.schema.json \
  "$tmp/obs"/*.json
check "--observe-all observes every step" python3 -c "
import json
d = json.load(open('$tmp/obs/delete_changes_no_state.all.json'))
s = json.load(open('conformance/scenarios/delete_changes_no_state.json'))
assert len(d['steps']) == len(s['steps']) + 1 and all('observed' in x for x in d['steps']), d
plain = json.load(open('$tmp/obs/delete_changes_no_state.json'))
checked = [i for i, x in enumerate([s['setup']] + s['steps']) if 'check' in x]
assert [i for i, x in enumerate(plain['steps']) if 'observed' in x] == checked, checked"

mk() { printf '#!/bin/sh\n%s\n' "$2" >"$tmp/$1" && chmod +x "$tmp/$1"; }
mk crash.sh 'echo "writer: boom"; exit 3'
check "lfa conformance --json is valid: failures, crashes, passes, invalid" bash -c "
  LFA='$lfa' '$lfa' conformance --filter 'update_*' --filter 'delete_*' --adapter 'python3 conformance/adapters/example_adapter.py --drop-invalidations' --json >'$tmp/r1.json' 2>/dev/null
  '$lfa' conformance --filter 'append_*' --adapter '$tmp/crash.sh' --json >'$tmp/r2.json' 2>/dev/null
  '$lfa' conformance --filter 'append_*' --json --max-failures 1 >'$tmp/r3.json' 2>/dev/null
  python3 scripts/check_schema.py $S/report.schema.json '$tmp/r1.json' '$tmp/r2.json' '$tmp/r3.json' &&
  grep -q '\"verdict\": \"fail\"' '$tmp/r1.json' && grep -q '\"verdict\": \"crash\"' '$tmp/r2.json'"
check "the validator refuses a keyword it does not implement" bash -c "
  echo '{\"type\": \"object\", \"maxProperties\": 1}' >'$tmp/s.json' && echo '{}' >'$tmp/d.json'
  python3 scripts/check_schema.py '$tmp/s.json' '$tmp/d.json'; test \$? -eq 2"
finish
