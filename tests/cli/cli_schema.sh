#!/usr/bin/env bash
# cli_schema.sh: the JSON Schemas of conformance/schema/ against what they
# describe. Every scenario of the suite is valid; every planted invalid
# file of tests/schema/ is invalid, and lfa's own readers refuse it too
# (the validator, scripts/check_schema.py over Debian's python3-jsonschema,
# shares no code with them); the
# observations `lfa adapter` writes, and the document `lfa conformance
# --json` prints, are valid. Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"
export TMPDIR=$tmp
schema() { scripts/check_schema.py "$@"; }
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
    LFA='$lfa' '$lfa' conformance --filter delete_changes_no_state --adapter '$tmp/give_$n.sh' >'$tmp/o' 2>/dev/null
    test \$? -eq 1 && grep -q 'fail: unusable observations' '$tmp/o'"
done

# The Lance release registry (02§7): the real one is valid and keeps its own
# rules (its release-notes sources included); a fact without a source, an
# unconfirmed number given anyway, a docs.rs source that is no docs.rs page,
# or release notes that do not say what they show, is refused by the schema; an unknown source id or two overlapping meanings of
# one number by the generator, which the build runs (so neither builds).
R=conformance/schema/lance-releases.schema.json
check "spec/lance-releases.json is valid and keeps its rules" bash -c "
  scripts/check_schema.py $R spec/lance-releases.json &&
  python3 scripts/gen_lance_releases.py check spec/lance-releases.json >/dev/null"
check "a registry fact without a source, a guessed number, or a source of the wrong kind, is invalid" schema --expect-invalid $R \
  tests/schema/registry_field_without_source.json tests/schema/registry_unconfirmed_number_guessed.json \
  tests/schema/registry_docs_source_elsewhere.json tests/schema/registry_release_notes_without_note.json
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
  scripts/check_schema.py $D '$tmp/dump1.json' '$tmp/dump2.json'"
check "a dump document with an unlisted bit key or no manifest_fields is invalid" bash -c "
  python3 -c \"
import json
d = json.load(open('$tmp/dump2.json'))
d['versions'][0]['feature_bits'][0]['extra'] = 1
json.dump(d, open('$tmp/dump_bad1.json', 'w'))
d = json.load(open('$tmp/dump2.json'))
del d['versions'][0]['manifest_fields']
json.dump(d, open('$tmp/dump_bad2.json', 'w'))\" &&
  scripts/check_schema.py --expect-invalid $D '$tmp/dump_bad1.json' '$tmp/dump_bad2.json'"

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
  scripts/check_schema.py $S/report.schema.json '$tmp/r1.json' '$tmp/r2.json' '$tmp/r3.json' &&
  grep -q '\"verdict\": \"fail\"' '$tmp/r1.json' && grep -q '\"verdict\": \"crash\"' '$tmp/r2.json'"
# The validator itself: jsonschema ignores a keyword the draft does not
# define, so a misspelt constraint would pass everything; check_schema.py
# refuses it, and a schema jsonschema finds invalid or of another draft.
D12='"$schema": "https://json-schema.org/draft/2020-12/schema"'
echo '{}' >"$tmp/d.json"
echo '{"a": 1, "b": 2}' >"$tmp/two.json"
echo "{$D12, \"type\": \"object\", \"requried\": [\"a\"]}" >"$tmp/typo.json"
echo "{$D12, \"type\": \"objekt\"}" >"$tmp/badtype.json"
echo '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}' >"$tmp/draft7.json"
echo "{$D12, \"maxProperties\": 1}" >"$tmp/max.json"
for s in "typo:not defined by 2020-12" "badtype:not a valid 2020-12 schema" "draft7:must declare"; do
  check "the validator refuses a schema with ${s%%:*} (${s#*:})" bash -c "
    scripts/check_schema.py '$tmp/${s%%:*}.json' '$tmp/d.json' 2>'$tmp/err'; test \$? -eq 2 && grep -q '${s#*:}' '$tmp/err'"
done
check "the validator judges a document by a keyword our schemas do not use (maxProperties)" bash -c "
  scripts/check_schema.py --expect-invalid '$tmp/max.json' '$tmp/two.json' >/dev/null &&
  scripts/check_schema.py '$tmp/max.json' '$tmp/d.json' >/dev/null"
# One shape of a finding (lfa/verify.h lfa_finding_put_json): lfa verify
# --json against its schema, with findings that have a field, a fragment
# and rows, and with --stats; a finding in conformance's older shape
# (offsets for rows, no field) is invalid. A scenario whose writer leaves an
# orphan root (a FA-CLEAN-10 warning) gives conformance --json a finding
# that is the verifier's own, member for member, plus keys and text.
V=conformance/schema/verify.schema.json
check "lfa verify --json is valid (findings with field and rows; --stats)" bash -c "
  '$lfa' verify --json conformance/invalid/op4_append_stored_field_unassigned >'$tmp/v1.json'; test \$? -eq 1 &&
  '$lfa' sample '$tmp/vs' >/dev/null && '$lfa' verify --json --stats '$tmp/vs' >'$tmp/v2.json' 2>/dev/null &&
  scripts/check_schema.py $V '$tmp/v1.json' '$tmp/v2.json' &&
  python3 -c \"
import json
f = json.load(open('$tmp/v1.json'))['findings']
assert [x for x in f if x['rows'] and x['field'] and x['fragment_id'] is not None], f
assert json.load(open('$tmp/v2.json'))['stats']['backend'] == 'local'\""
check "a verify finding with offsets for rows, or without field, is invalid" bash -c "
  python3 -c \"
import json
d = json.load(open('$tmp/v1.json'))
d['findings'][0]['offsets'] = d['findings'][0].pop('rows')
json.dump(d, open('$tmp/v_bad1.json', 'w'))
d = json.load(open('$tmp/v1.json'))
del d['findings'][0]['field']
json.dump(d, open('$tmp/v_bad2.json', 'w'))\" &&
  scripts/check_schema.py --expect-invalid $V '$tmp/v_bad1.json' '$tmp/v_bad2.json'"
mk orphan.sh '"$LFA" adapter "$1" "$2" || exit $?
f="$2/dataset/_field_assignments/roots/1/00000000-0000-4000-8000-000000000000.root"
mkdir -p "${f%/*}" && : >"$f" && touch -d "30 days ago" "$f"'
check "a conformance finding is the verifier's, plus keys and text, and valid" bash -c "
  LFA='$lfa' '$lfa' conformance --filter delete_changes_no_state --adapter '$tmp/orphan.sh' --work '$tmp/cw' --json >'$tmp/r4.json' &&
  '$lfa' verify --json '$tmp/cw/delete_changes_no_state/dataset' >'$tmp/v4.json' &&
  scripts/check_schema.py $S/report.schema.json '$tmp/r4.json' &&
  python3 -c \"
import json
c = json.load(open('$tmp/r4.json'))['scenarios'][0]['findings']
v = json.load(open('$tmp/v4.json'))['findings']
assert len(c) == 1 and c[0]['rule'] == 'FA-CLEAN-10' and c[0]['severity'] == 'warning', c
assert c[0]['keys'] is None and c[0]['text'].startswith('version '), c
assert [{k: x[k] for k in x if k not in ('keys', 'text')} for x in c] == v, (c, v)\""
check "the validator refuses a keyword it does not implement" bash -c "
  echo '{\"type\": \"object\", \"maxProperties\": 1}' >'$tmp/s.json' && echo '{}' >'$tmp/d.json'
  scripts/check_schema.py '$tmp/s.json' '$tmp/d.json'; test \$? -eq 2"
finish
