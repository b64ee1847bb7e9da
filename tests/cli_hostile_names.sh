#!/usr/bin/env bash
# cli_hostile_names.sh: names and paths from hostile files never make an
# output invalid or forge one. The sample's tracked field is renamed (same
# length, in every manifest) to bytes that are not UTF-8: a surrogate, a
# lead byte F5, a newline and an escape sequence; a data file path gets a
# newline and FF; an old orphan under _field_assignments/ has a newline in
# its name that would forge a "keep" line; the dataset argument itself has
# a newline and FE. (Transactions get the same edit: a manifest's inline
# transaction must equal its file.) Then: every JSON output parses as strict UTF-8 JSON,
# every JUnit XML parses, every text output is one entry per line with no
# control byte and valid UTF-8, for dump, eval, verify, cleanup and
# conformance (an adapter that prints control bytes and invalid UTF-8).
# Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

d=$tmp/$'ds\n\xfe'
check "sample" exits 0 "$lfa" sample "$d"
python3 - "$d" <<'PY'
import os, sys, glob
d = sys.argv[1].encode('utf-8', 'surrogateescape')
for m in glob.glob(os.path.join(d, b'_versions', b'*.manifest')) + glob.glob(os.path.join(d, b'_transactions', b'*')):
    b = open(m, 'rb').read()
    b = b.replace(b'embedding', b'\xed\xa0\x80\xf5\n\x1b[2J').replace(b'f0.lance', b'f\nkeep\xff.')
    open(m, 'wb').write(b)
evil = os.path.join(d, b'_field_assignments', b'roots', b'2', b'x\n  keep   forged.root')
open(evil, 'wb').write(b'o')
os.utime(evil, (1, 1))
PY

# strict checks of an output file: kind (json, xml, text), then python assertions on `t` (the text)
valid() {
  python3 - "$@" <<'PY'
import json, sys, xml.etree.ElementTree as ET
kind, path = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
t = raw.decode('utf-8')  # strict: invalid UTF-8 fails
if kind == 'json': json.loads(t)
elif kind == 'xml': ET.fromstring(raw)
else:
    bad = [c for c in t if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) <= 0x9f]
    assert not bad, bad
for a in sys.argv[3:]: exec(a)
PY
}

run_to() { "$lfa" "$@" >"$tmp/out.1" 2>"$tmp/err.1"; [ $? -le 2 ]; }

check "dump" run_to dump "$d"
check "dump text: one 'tracked fields' line per version, no forged one" valid text "$tmp/out.1" \
  "assert t.count('tracked fields: 1') == 4 and 'tracked fields: 0' not in t.replace('tracked fields: 0\n', '', 1), t" \
  "assert '\\\\xf5' in t and '\\\\x1b' in t and '\\\\n' in t, t"
check "dump --json" run_to dump --json "$d"
check "dump --json is valid" valid json "$tmp/out.1" "assert '\\\\ufffd' in t, t"
check "eval (text) of the renamed field, by its quoted name" run_to eval "$d" --field "\"$(printf '\355\240\200\365\n\033[2J')\""
check "eval text is clean" valid text "$tmp/out.1" "assert t.startswith('dataset ') and t.count('\n') > 2 and '\\\\x1b[2J' in t, t"
check "eval --json (the other field's rows; the names in the header)" run_to eval --json "$d" --field id
check "eval --json is valid (or refused in one line)" bash -c "[ -s '$tmp/out.1' ] && python3 -c \"import json; json.loads(open('$tmp/out.1', 'rb').read().decode())\" ||
  [ \$(wc -l <'$tmp/err.1') -eq 1 ]"
check "verify" run_to verify "$d" --junit "$tmp/v.xml"
check "verify text is clean" valid text "$tmp/out.1" "assert '\\\\xfe' in t"
check "verify --junit is valid XML" valid xml "$tmp/v.xml"
check "verify --json" run_to verify --json "$d"
check "verify --json is valid" valid json "$tmp/out.1" "import json; assert json.loads(t)['dataset'].endswith('\ufffd')"
check "cleanup --dry-run" run_to cleanup "$d" --dry-run
check "cleanup text: the orphan's name on one line, no forged keep line" valid text "$tmp/out.1" \
  "assert not [l for l in t.splitlines() if l.startswith('  keep   forged')], t" \
  "assert [l for l in t.splitlines() if l.startswith('  delete _field_assignments/roots/2/x\\\\n  keep')], t"
check "cleanup --json" run_to cleanup --json "$d" --dry-run
check "cleanup --json is valid" valid json "$tmp/out.1"
check "an error line on stderr stays one line" bash -c "'$lfa' dump '$d/none' 2>'$tmp/e' >/dev/null; [ \$(wc -l <'$tmp/e') -eq 1 ]"

# an adapter that prints control bytes and invalid UTF-8, then fails
cd "$(dirname "$0")/.." || exit 1
adapter="printf 'bad \\001\\033[2J\\377\\302\\233 line\\n'; exit 3"
check "conformance with a hostile adapter" run_to conformance --adapter "$adapter" --filter add_columns_tracked \
  --junit "$tmp/c.xml" --work "$tmp/work"
check "conformance text is clean" valid text "$tmp/out.1" "assert 'FAIL' in t and '\\\\x1b' in t and '\\\\xc2\\\\x9b' in t, t"
check "conformance --junit is valid XML" valid xml "$tmp/c.xml"
check "conformance --tap is clean" bash -c "'$lfa' conformance --adapter \"\$0\" --filter add_columns_tracked --tap --work '$tmp/work2' >'$tmp/tap'; true" "$adapter"
check "...TAP text" valid text "$tmp/tap" "assert 'not ok' in t"

finish
