#!/usr/bin/env bash
# cli_selftest.sh: `lfa conformance --self-test` against adapters that each
# make one protocol mistake on purpose (tests/broken_adapter.py): each
# mistake must be explained, in the words written here by hand, and a
# correct adapter, or one whose writer merely behaves wrongly, must show
# none. Run by ctest with the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"
export LFA=$lfa TMPDIR=$tmp
broken="python3 $(pwd)/tests/broken_adapter.py"
selftest() { # mistake, expected exit, text stdout must hold
  check "self-test: $1" bash -c "
    '$lfa' conformance --self-test --adapter '$broken $1' --timeout 20 >'$tmp/st.out' 2>'$tmp/st.err'; rc=\$?
    test \$rc -eq $2 || { echo exit \$rc; cat '$tmp/st.out'; exit 1; }
    grep -qF -- \"\$0\" '$tmp/st.out' || { echo 'stdout does not say:' \"\$0\"; cat '$tmp/st.out'; exit 1; }" "$3"
}
selftest none 0 'self-test: 4 scenarios, 0 protocol mistakes'
selftest lose-last-change 0 'protocol followed (the writer'"'"'s behaviour differs from the scenario, which the suite judges: step 4 (delete, line 37): on disk: version 5: live: expected {4, 6}, got {4, 5, 6} (unexpected {5})'
# observations that are not what the dataset holds, either way round: the
# bytes right and the reader wrong, or the expected state reported over
# bytes that lack it (keys and versions derived by hand from the scenarios)
selftest off-by-one 1 'its observations are not what its dataset holds (step 1 (update, line 17): version 2: assigned "emb": on disk {2, 3, 5}, its reader returned {2, 3, 5, 6} (unexpected {6})): report what the writer'"'"'s own reader returns'
selftest report-the-model 1 'its observations are not what its dataset holds (step 4 (delete, line 37): version 5: live: on disk {4, 5, 6}, its reader returned {4, 6} (missing {5})'
selftest no-observations 1 'it exited 0 but wrote no OUT_DIR/observations.json'
selftest keys-as-strings 1 'its observations.json is not in the protocol'"'"'s form: '
selftest stop-at-refusal 1 'stopped after a refusal or conflict, before step 2 (update, line '
selftest no-observed 1 '6 steps with a check in the scenario have no "observed" in their report (the first: setup (create, line 5))'
selftest no-dataset 1 'it left no dataset in OUT_DIR/dataset'
selftest crash 1 'it did not finish normally (the adapter exited with status 1; its last line: adapter: cannot open the writer'"'"'s session)'
selftest segfault 1 'it did not finish normally (the adapter was killed by SIGSEGV'
selftest skip-without-reason 1 'it exited 77 (skipped) without saying why'
selftest steps-from-one 1 'steps are reported in order from 0 (the setup)'
check "every mistake is counted: four scenarios, four mistakes" bash -c "
  '$lfa' conformance --self-test --adapter '$broken no-observed' | tail -1 | grep -qx 'self-test: 4 scenarios, 4 protocol mistakes'"
check "observations unlike the bytes are counted, scenario by scenario" bash -c "
  '$lfa' conformance --self-test --adapter '$broken off-by-one' 2>/dev/null | tail -1 | grep -qx 'self-test: 4 scenarios, 2 protocol mistakes' &&
  '$lfa' conformance --self-test --adapter '$broken report-the-model' 2>/dev/null | tail -1 | grep -qx 'self-test: 4 scenarios, 3 protocol mistakes'"
check "the self-test leaves no folder behind" test -z "$(ls "$tmp" | grep lfa-conformance)"
check "--self-test with a suite that lacks its scenarios is unusable" bash -c "
  mkdir -p '$tmp/empty/scenarios' && cp conformance/scenarios/delete_changes_no_state.json '$tmp/empty/scenarios/' &&
  '$lfa' conformance --self-test --suite '$tmp/empty' >/dev/null 2>'$tmp/e'; test \$? -eq 2 && grep -q 'needs scenario' '$tmp/e'"
finish
