#!/usr/bin/env bash
# cli_acceptance.sh: the new implementer's trial, re-run. An adapter with a
# planted bug (tests/broken_adapter.py off-by-one: its reader reports the
# row after the last assigned one as assigned too, while its bytes are
# right) runs the update_*
# scenarios, the last of them slowly. While the run is still going, the
# first scenario's progress line is already on stderr; at the end the
# failing scenarios' folders are kept (dataset, observations, log) and named,
# and the --json verdicts parse and name the failing step with expected and
# observed state. Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"
export LFA=$lfa TMPDIR=$tmp
adapter="python3 $(pwd)/tests/broken_adapter.py off-by-one"
names=$(ls conformance/scenarios/ | sed -n 's/^\(update_.*\)\.json$/\1/p')
first=$(head -1 <<<"$names") last=$(tail -1 <<<"$names") n=$(wc -l <<<"$names")

BROKEN_ADAPTER_SLOW_ON=$last "$lfa" conformance --filter 'update_*' --adapter "$adapter" --json \
  >"$tmp/verdicts.json" 2>"$tmp/progress" &
pid=$!
seen_while_running() { # the first line arrives while the runner still works on the rest
  for _ in $(seq 1 200); do
    if [ -s "$tmp/progress" ]; then kill -0 "$pid" 2>/dev/null; return; fi
    sleep 0.1
  done
  return 1
}
check "progress is visible from the first scenario, while the run goes on" seen_while_running
wait "$pid"
rc=$?
check "the planted bug fails the run" test "$rc" -eq 1
check "the first progress line names the first scenario with its verdict and time" \
  grep -qE "^\[1/$n\] fail $first [0-9]+\.[0-9]{2} s\$" "$tmp/progress"
check "--json verdicts parse (python3 -m json.tool)" python3 -m json.tool "$tmp/verdicts.json"
check "...and say where it broke: the step, the expected and the observed state" python3 -c "
import json, os
d = json.load(open('$tmp/verdicts.json'))
bad = [c for c in d['scenarios'] if c['verdict'] == 'fail']
assert len(d['scenarios']) == $n and bad, d['summary']
for c in bad:
    f = c['failing_step']
    assert f and f['expected']['check'] and f['observed']['state'], c
    want, got = f['expected']['check']['assigned'], f['observed']['state']['assigned']
    assert any(set(got[p]) - set(want[p]) for p in want), (want, got)  # a row reported assigned too many
    assert c['message'].startswith(f['label'] + ': the writer\\'s reader disagrees with what it wrote: version '), c['message']
    assert c['disagreement'].startswith(f['label'] + ': version '), c
    w = c['work_dir']
    assert w and os.path.isfile(w + '/observations.json') and os.path.isdir(w + '/dataset/_versions'), w
    assert os.path.isfile(w + '.log'), w
"
check "the text report names the kept folders" bash -c "
  '$lfa' conformance --filter '$first' --adapter '$adapter' >'$tmp/text' 2>/dev/null
  grep -q '^kept the folders of 1 scenario that did not pass' '$tmp/text' &&
  d=\$(sed -n 's/^  \(.*\/$first\)\$/\1/p' '$tmp/text') && test -d \"\$d/dataset\" && '$lfa' verify \"\$d/dataset\" >/dev/null"
check "a step failure and the verifier's findings are reported together" bash -c "
  '$lfa' conformance --filter delete_changes_no_state --adapter '$adapter+lose-root' >'$tmp/both' 2>/dev/null
  '$lfa' conformance --filter delete_changes_no_state --adapter '$adapter+lose-root' --json >'$tmp/both.json' 2>/dev/null
  grep -q '^FAIL  delete_changes_no_state: fail: step 1 (update, line 17): the writer.s reader disagrees with what it wrote: version 2' '$tmp/both' &&
  grep -qE '^      error: version [0-9]+, _field_assignments/roots/.*\.root: FA-' '$tmp/both' &&
  python3 -c '
import json
c = json.load(open(\"$tmp/both.json\"))[\"scenarios\"][0]
assert c[\"failing_step\"][\"step\"] == 1, c
errors = [f for f in c[\"findings\"] if f[\"severity\"] == \"error\"]
assert errors and all(f[\"file\"].endswith(\".root\") and f[\"rule\"].startswith(\"FA-\") for f in errors), c[\"findings\"]
'"
# The runner reads the bytes (both messages derived by hand from
# delete_changes_no_state: step 4 deletes key 5, leaving live {4, 6} and
# emb assigned {}; a writer that loses that change leaves 5 live and
# assigned in version 5).
model="python3 $(pwd)/tests/broken_adapter.py report-the-model"
check "observations that equal the expectations over bytes that differ fail on disk" bash -c "
  '$lfa' conformance --filter delete_changes_no_state --adapter '$model' >'$tmp/model' 2>/dev/null; test \$? -eq 1 &&
  grep -qxF 'FAIL  delete_changes_no_state: fail: step 4 (delete, line 37): on disk: version 5: live: expected {4, 6}, got {4, 5, 6} (unexpected {5}); assigned \"emb\": expected {}, got {5} (unexpected {5})' '$tmp/model'"
check "right bytes under wrong observations fail as the reader's disagreement" bash -c "
  '$lfa' conformance --filter delete_changes_no_state --adapter '$adapter' >'$tmp/reader' 2>/dev/null; test \$? -eq 1 &&
  grep -qxF 'FAIL  delete_changes_no_state: fail: step 1 (update, line 17): the writer'\\''s reader disagrees with what it wrote: version 2: assigned \"emb\": on disk {2, 3, 5}, its reader returned {2, 3, 5, 6} (unexpected {6})' '$tmp/reader'"
finish
