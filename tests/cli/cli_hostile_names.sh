#!/usr/bin/env bash
# cli_hostile_names.sh: names and paths from hostile files never make an
# output invalid or forge one. The sample's tracked field is renamed (same
# length, in every manifest) to bytes that are not UTF-8: a surrogate, a
# lead byte F5, a newline and an escape sequence; its other field `text`
# to a quote, a control byte 01, a byte FF and a backslash; a data file path
# gets a newline and FF; an old orphan under _field_assignments/ has a
# newline in its name that would forge a "keep" line; the dataset argument
# itself (a directory) has a quote, a newline, 01, FE and FF. (Transactions
# get the same edit: a manifest's inline transaction must equal its file.)
# Then every JSON output (dump, eval, verify, cleanup) parses as strict
# UTF-8 JSON and gives back each hostile string as its bytes decoded with
# U+FFFD for what is not UTF-8 (Python's decoder, an independent one);
# every JUnit XML (verify, and conformance on a suite and work directory
# with such names, one scenario file named so) parses and gives back its
# names as XML can hold them; every text output is one entry per line with
# no control byte and valid UTF-8. Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

d=$tmp/$'ds"\n\x01\xfe\xff'
check "sample" exits 0 "$lfa" sample "$d"
python3 - "$d" <<'PY'
import os, sys, glob
d = sys.argv[1].encode('utf-8', 'surrogateescape')
for m in glob.glob(os.path.join(d, b'_versions', b'*.manifest')) + glob.glob(os.path.join(d, b'_transactions', b'*')):
    b = open(m, 'rb').read()
    b = b.replace(b'embedding', b'\xed\xa0\x80\xf5\n\x1b[2J').replace(b'f0.lance', b'f\nkeep\xff.')
    b = b.replace(b'\x04text', b'\x04"\x01\xff\\')  # the field name `text`, after its length byte
    open(m, 'wb').write(b)
evil = os.path.join(d, b'_field_assignments', b'roots', b'2', b'x\n  keep   forged.root')
open(evil, 'wb').write(b'o')
os.utime(evil, (1, 1))
PY

# strict checks of an output file: kind (json, xml, text), then python
# assertions on `t` (the text), `doc` (the parsed JSON or XML root) and the
# hostile strings as they should come back: DS (the dataset argument), EMB
# and TEXT (the renamed fields), DATA (the data file), ORPHAN (its path),
# each as JSON gives it back (`j`) and as an XML attribute holds it (`xa`)
valid() {
  python3 - "$d" "$@" <<'PY'
import json, sys, xml.etree.ElementTree as ET
raw_ds, kind, path = sys.argv[1].encode('utf-8', 'surrogateescape'), sys.argv[2], sys.argv[3]
def j(b): return b.decode('utf-8', 'replace')
def xa(b):  # XML 1.0 holds no control character but tab, LF, CR; an attribute reads tab and LF as spaces
    s = ''.join('\ufffd' if ord(c) < 0x20 and c not in '\t\n\r' or c in '\ufffe\uffff' else c for c in j(b))
    return s.replace('\t', ' ').replace('\n', ' ')
DS, EMB, TEXT = raw_ds, b'\xed\xa0\x80\xf5\n\x1b[2J', b'"\x01\xff\\'
DATA, ORPHAN = b'f\nkeep\xff.', b'_field_assignments/roots/2/x\n  keep   forged.root'
raw = open(path, 'rb').read()
t = raw.decode('utf-8')  # strict: invalid UTF-8 fails
doc = None
if kind == 'json': doc = json.loads(t)
elif kind == 'xml': doc = ET.fromstring(raw)
else:
    bad = [c for c in t if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) <= 0x9f]
    assert not bad, bad
for a in sys.argv[4:]: exec(a)
PY
}

run_to() { "$lfa" "$@" >"$tmp/out.1" 2>"$tmp/err.1"; [ $? -le 2 ]; }

check "dump" run_to dump "$d"
check "dump text: one 'tracked fields' line per version, no forged one" valid text "$tmp/out.1" \
  "assert t.count('tracked fields: 1') == 4 and 'tracked fields: 0' not in t.replace('tracked fields: 0\n', '', 1), t" \
  "assert '\\\\xf5' in t and '\\\\x1b' in t and '\\\\n' in t and '\\\\x01' in t, t"
check "dump --json" run_to dump --json "$d"
check "dump --json is valid and gives back the dataset, field and file names" valid json "$tmp/out.1" \
  "assert '\\\\ufffd' in t, t" \
  "assert doc['dataset'] == j(DS), doc['dataset']" \
  "v = doc['versions'][-1]; names = [f['name'] for f in v['fields']]; assert names == ['id', j(TEXT), j(EMB)], names" \
  "assert v['tracked'][0]['name'] == j(EMB), v['tracked']" \
  "assert j(DATA) in [f['path'] for g in v['fragments'] for f in g['files']], v['fragments']"
check "eval (text) of the renamed field, by its quoted name" run_to eval "$d" --field "\"$(printf '\355\240\200\365\n\033[2J')\""
check "eval text is clean" valid text "$tmp/out.1" "assert t.startswith('dataset ') and t.count('\n') > 2 and '\\\\x1b[2J' in t, t"
check "eval --json of the renamed field" exits 0 "$lfa" eval --json "$d" --field "\"$(printf '\355\240\200\365\n\033[2J')\""
check "eval --json is valid and gives back the dataset and the field's name" valid json "$tmp/cmd.out" \
  "assert doc['dataset'] == j(DS), doc['dataset']" \
  "assert (doc['field']['id'], doc['field']['name']) == (2, j(EMB)), doc['field']" \
  "assert len(doc['rows']) == 22 and sum(r['assigned'] for r in doc['rows']) > 0, doc['rows']"  # 8 + 10 + 4 live
check "eval --json of an untracked field is refused in one line, printing no JSON" bash -c "
  '$lfa' eval --json '$d' --field id >'$tmp/o' 2>'$tmp/e'; [ \$? -eq 2 ] && [ ! -s '$tmp/o' ] && [ \$(wc -l <'$tmp/e') -eq 1 ]"
check "verify" run_to verify "$d" --junit "$tmp/v.xml"
check "verify text is clean" valid text "$tmp/out.1" "assert '\\\\xfe' in t and '\\\\xff' in t and '\\\\x01' in t, t"
check "verify --junit is valid XML, the dataset in its names" valid xml "$tmp/v.xml" \
  "s = doc.find('testsuite'); assert s.get('name') == xa(DS), (s.get('name'), xa(DS))" \
  "assert [c.get('classname') for c in s.iter('testcase')] == [xa(DS)] * 5"
check "verify --json" run_to verify --json "$d"
check "verify --json is valid, gives back the dataset, and names the orphan" valid json "$tmp/out.1" \
  "assert doc['dataset'] == j(DS) and doc['dataset'].endswith('\ufffd'), doc['dataset']" \
  "assert [f for f in doc['findings'] if f['file'] == '_field_assignments/roots/2/x\\\\n  keep   forged.root'], doc"
check "cleanup --dry-run" run_to cleanup "$d" --dry-run
check "cleanup text: the orphan's name on one line, no forged keep line" valid text "$tmp/out.1" \
  "assert not [l for l in t.splitlines() if l.startswith('  keep   forged')], t" \
  "assert [l for l in t.splitlines() if l.startswith('  delete _field_assignments/roots/2/x\\\\n  keep')], t"
check "cleanup --json" run_to cleanup --json "$d" --dry-run
check "cleanup --json is valid, gives back the dataset and the orphan's path" valid json "$tmp/out.1" \
  "assert doc['dataset'] == j(DS), doc['dataset']" \
  "assert [o for o in doc['objects'] if o['path'] == j(ORPHAN) and o['action'] == 'delete'], doc['objects']"
check "an error line on stderr stays one line" bash -c "'$lfa' dump '$d/none' 2>'$tmp/e' >/dev/null; [ \$(wc -l <'$tmp/e') -eq 1 ]"

# an adapter that prints control bytes and invalid UTF-8, then fails
cd "$(dirname "$0")/../.." || exit 1
adapter="printf 'bad \\001\\033[2J\\377\\302\\233 line\\n'; exit 3"
check "conformance with a hostile adapter" run_to conformance --adapter "$adapter" --filter add_columns_tracked \
  --junit "$tmp/c.xml" --work "$tmp/work"
check "conformance text is clean" valid text "$tmp/out.1" "assert 'FAIL' in t and '\\\\x1b' in t and '\\\\xc2\\\\x9b' in t, t"
check "conformance --junit is valid XML" valid xml "$tmp/c.xml"
check "conformance --tap is clean" bash -c "'$lfa' conformance --adapter \"\$0\" --filter add_columns_tracked --tap --work '$tmp/work2' >'$tmp/tap'; true" "$adapter"
check "...TAP text" valid text "$tmp/tap" "assert 'not ok' in t"

# a suite in a directory named like the dataset, with one scenario file so
# named too (it fails: its name is not its file's); work there as well
suite=$tmp/$'suite"\n\x01\xfe\xff' work=$tmp/$'work"\n\x01\xfe\xff'
mkdir -p "$suite/scenarios" "$work"
cp conformance/scenarios/add_columns_tracked.json "$suite/scenarios/"
cp conformance/scenarios/add_columns_tracked.json "$suite/scenarios/"$'evil"\n\x01\xfe\xff.json'
check "conformance on a hostile suite, reference writer" run_to conformance --suite "$suite" --work "$work/a" \
  --junit "$tmp/h.xml"
check "...its text is clean and names the scenario escaped" valid text "$tmp/out.1" \
  "assert 'INVALID evil\"\\\\n\\\\x01\\\\xfe\\\\xff: ' in t, t"
check "...its progress lines on stderr are clean too" valid text "$tmp/err.1" \
  "assert '] invalid evil\"\\\\n\\\\x01\\\\xfe\\\\xff 0.' in t, t"
check "...its --junit is valid XML: the scenario's name and the message naming its file" valid xml "$tmp/h.xml" \
  "cases = {c.get('name'): c for c in doc.iter('testcase')}" \
  "assert sorted(cases) == sorted(['add_columns_tracked', xa(b'evil\"\n\x01\xfe\xff')]), sorted(cases)" \
  "assert cases['add_columns_tracked'].find('failure') is None, ET.tostring(cases['add_columns_tracked'])" \
  "f = cases[xa(b'evil\"\n\x01\xfe\xff')].find('error'); assert 'its file is evil\"\n' in f.text, f.text"
check "...its --tap is clean" bash -c "'$lfa' conformance --suite \"\$0\" --work \"\$1/b\" --tap >'$tmp/tap2'; true" "$suite" "$work"
check "...TAP text" valid text "$tmp/tap2" "assert 'not ok 2 - evil\"\\\\n\\\\x01\\\\xfe\\\\xff' in t, t"

finish
