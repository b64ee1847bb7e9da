#!/usr/bin/env bash
# cli_run.sh: `lfa run` from the outside. Every scenario in
# conformance/scenarios/ runs to exit 0 and writes a directory `lfa dump`
# decodes version by version; a scenario whose expectation is wrong exits 1
# naming the step and what differed; input that is not a valid scenario
# exits 2 with its line and column and nothing on stdout. Run by ctest with
# the built lfa as $1.
. "$(dirname "$0")/lib_cli.sh" "$1"

says() { # what stderr of the last `exits` must contain
  grep -qF -- "$1" "$tmp/cmd.err" || { echo "stderr does not say: $1"; cat "$tmp/cmd.err"; return 1; }
}
quiet() { # stdout of the last `exits` is empty, stderr one line
  [ ! -s "$tmp/cmd.out" ] && [ "$(wc -l <"$tmp/cmd.err")" -eq 1 ] || { echo "stdout not empty or stderr not one line"; cat "$tmp/cmd.out" "$tmp/cmd.err"; return 1; }
}
out() { mktemp -u "$tmp/o.XXXXXX"; } # a fresh output directory, not created
# edit SRC DST PYTHON: DST is SRC with `d` (the parsed document) changed
edit() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
d["name"] = os.path.basename(sys.argv[2])[:-len(".json")]  # named after its file, as every scenario is
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}
refused_input() { # name, file, text stderr must hold: exit 2, one line, nothing on stdout
  check "$1" bash -c "$(declare -f exits says quiet); tmp='$tmp'; exits 2 '$lfa' run '$2' '$(out)' && says '$3' && quiet"
}

# ---- the command ------------------------------------------------------------------
check "lfa --help lists run" bash -c "'$lfa' --help | grep -q 'run SCENARIO.json OUT_DIR'"
check "run --help exits 0" exits 0 "$lfa" run --help
check "run --help points to the format" bash -c "'$lfa' run --help | grep -q conformance/SCENARIOS.md"
check "run without arguments" exits 2 "$lfa" run
check "run without OUT_DIR" exits 2 "$lfa" run conformance/scenarios/create_initial_states.json
check "run with a bad seed" exits 2 "$lfa" run conformance/scenarios/create_initial_states.json "$(out)" --seed -1
check "run of a missing file" exits 2 "$lfa" run "$tmp/none.json" "$(out)"

# ---- every scenario passes, and its dataset decodes ----------------------------------
# Every scenario runs to exit 0 (`lfa conformance` also checks names and
# verifies each dataset); a few, chosen for covering both row-id modes, a
# refusal and nested fields, are also dumped version by version.
count=0
for f in conformance/scenarios/*.json; do
  count=$((count + 1))
  check "$f runs to exit 0" exits 0 "$lfa" run "$f" "$(out)"
done
for name in delete_changes_no_state delete_changes_no_state_stable_row_ids refused_write_and_invalidate \
  nested_write_and_invalidate; do
  f=conformance/scenarios/$name.json
  o=$(out)
  check "$f: every version decodes" bash -c "
    '$lfa' run '$f' '$o' >/dev/null && '$lfa' dump --json '$o' >'$tmp/dump.json' &&
    '$lfa' run --json '$f' '$o.again' >'$tmp/run.json' &&
    python3 -c \"
import json
d, r = json.load(open('$tmp/dump.json')), json.load(open('$tmp/run.json'))
assert r['passed'] and r['failure'] is None, r
assert [v['version'] for v in d['versions']] == list(range(1, r['versions'] + 1)), (len(d['versions']), r['versions'])
assert r['steps'][0]['op'] == 'create' and r['steps'][0]['head'] == 1
\""
done
check "at least 6 scenarios" test "$count" -ge 6
o=$(out)
check "one seed, one history, the same bytes" bash -c "
  '$lfa' run --seed 7 conformance/scenarios/delete_changes_no_state.json '$o.a' >/dev/null &&
  '$lfa' run --seed 7 conformance/scenarios/delete_changes_no_state.json '$o.b' >/dev/null &&
  diff -r '$o.a' '$o.b'"
check "OUT_DIR must not exist" exits 2 "$lfa" run conformance/scenarios/create_initial_states.json "$o.a"

# ---- an expectation that does not hold: exit 1, naming the step --------------------------
base=conformance/scenarios/delete_changes_no_state.json
edit "$base" "$tmp/wrong_check.json" 'd["steps"][1]["check"]["assigned"]["emb"] = [2]'
check "a wrong check exits 1" exits 1 "$lfa" run "$tmp/wrong_check.json" "$(out)"
check "...naming the step and the difference" says 'step 2 (delete, line '
check "...with the keys" says 'assigned "emb": expected {2}, got {2, 5} (unexpected {5})'
edit "$base" "$tmp/wrong_live.json" 'd["steps"][2]["check"]["live"] = [4, 5, 6, 7]'
check "a wrong live set exits 1" exits 1 "$lfa" run "$tmp/wrong_live.json" "$(out)"
check "...missing key 7" says 'step 3 (delete, line '
check "...live" says 'live: expected {4, 5, 6, 7}, got {4, 5, 6} (missing {7})'
edit "$base" "$tmp/wrong_tracked.json" 'd["setup"]["check"]["tracked"] = []'
check "a wrong tracked set exits 1" exits 1 "$lfa" run "$tmp/wrong_tracked.json" "$(out)"
check "...at the setup" says 'setup (create, line '
edit "$base" "$tmp/wrong_expect.json" 'del d["steps"][4]["expect"]'
check "a refusal where ok was expected exits 1" exits 1 "$lfa" run "$tmp/wrong_expect.json" "$(out)"
check "...saying why it was refused" says 'step 5 (delete, line '
check "...and what happened" says 'expected it to commit, but it was refused'
edit conformance/scenarios/refused_write_and_invalidate.json "$tmp/wrong_rule.json" 'd["steps"][0]["expect_rule"] = "FA-INVAL-2"'
check "a refusal under another rule exits 1" exits 1 "$lfa" run "$tmp/wrong_rule.json" "$(out)"
check "...naming both rules" says 'under rule FA-SEM-5, not FA-INVAL-2'
edit "$base" "$tmp/wrong_refusal.json" 'd["steps"][1]["expect"] = "refused"'
check "a commit where a refusal was expected exits 1" exits 1 "$lfa" run "$tmp/wrong_refusal.json" "$(out)"
check "...with its version" says 'expected refused, but it committed version 3'
o=$(out)
check "the versions before the failure stay" bash -c "
  '$lfa' run '$tmp/wrong_check.json' '$o' >/dev/null 2>&1; [ \$? -eq 1 ] &&
  '$lfa' dump --json '$o' | python3 -c 'import json,sys; assert len(json.load(sys.stdin)[\"versions\"]) == 3'"
check "--json on failure" bash -c "
  '$lfa' run --json '$tmp/wrong_check.json' '$(out)' 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert not r[\"passed\"] and r[\"failure\"][\"step\"] == 2 and r[\"steps\"][-1][\"check\"] == \"failed\", r'"

# every operation parses (the first step fails on purpose, after the whole file was read)
cat >"$tmp/every_op.json" <<'EOF'
{"name": "every_op", "description": "d", "requirements": ["FA-OP-1"],
 "setup": {"fields": [{"path": "id", "type": "int64"}, {"path": "s", "type": "struct", "assignment": "unassigned"},
                      {"path": "s.x", "type": "int32", "nullable": false, "assignment": "assigned"}], "rows": [1, 2]},
 "steps": [
  {"op": "delete", "rows": [99], "note": "refused: fails the run here"},
  {"op": "append", "rows": [3], "fields": ["id"], "rows_per_file": 1},
  {"op": "add_columns", "new_fields": [{"path": "c", "type": "string", "assignment": "unassigned"}], "with_data": true},
  {"op": "track", "field": "id", "assignment": "assigned"},
  {"op": "rename", "field": "c", "new_name": "d"},
  {"op": "cast", "field": "s.x", "new_type": "int64"},
  {"op": "set_nullable", "field": "id", "nullable": true},
  {"op": "drop", "fields": ["d"]},
  {"op": "update", "rows": [1], "fields": ["id"], "invalidate": ["s"], "rewrite_columns": true},
  {"op": "merge_insert", "rows": [1], "inserts": [4], "fields": ["id"], "invalidate": ["s.x"], "on_row_id": false,
   "delete_matched": false},
  {"op": "delete", "rows": [2]},
  {"op": "compact", "rows_per_file": 10, "read_step": 1, "expect": "conflict", "expect_rule": "FA-CONC-3"},
  {"op": "replace", "fragment_id": 0, "fields": ["id"]},
  {"op": "overlay", "fragment_id": 0, "rows": [1], "fields": ["id"]},
  {"op": "restore", "to_step": 0},
  {"op": "overwrite", "new_fields": [{"path": "id", "type": "int64"}], "rows": [5], "fields": ["id"], "rows_per_file": 0},
  {"op": "clone", "deep": true},
  {"op": "create_index", "check": {"tracked": []}},
  {"op": "update_config", "expect": "refused", "check": {"live": [], "tracked": [], "assigned": {}}}
 ]}
EOF
check "every operation parses" exits 1 "$lfa" run "$tmp/every_op.json" "$(out)"
check "...and the first step fails as planned" says 'step 1 (delete, line 5): expected it to commit, but it was refused'

# ---- input that is not a valid scenario: exit 2 ------------------------------------------
printf '{"name": "x",\n "steps": [1, 2,]}' >"$tmp/trailing.json"
refused_input "trailing comma" "$tmp/trailing.json" 'trailing.json: line 2, column 16: trailing comma in an array'
printf '{"name": "x" // a comment\n}' >"$tmp/comment.json"
refused_input "comment" "$tmp/comment.json" 'line 1, column 14: comments are not JSON'
printf '{"name": "x", "name": "y"}' >"$tmp/dup.json"
refused_input "duplicate key" "$tmp/dup.json" 'line 1, column 15: duplicate key "name"'
printf '{"name": "caf\xc3"}' >"$tmp/utf8.json"
refused_input "invalid UTF-8" "$tmp/utf8.json" 'invalid UTF-8'
printf '' >"$tmp/empty.json"
refused_input "empty file" "$tmp/empty.json" 'line 1, column 1'
edit "$base" "$tmp/rowz.json" 'd["steps"][0]["rowz"] = d["steps"][0].pop("rows")'
refused_input "unknown key in a step" "$tmp/rowz.json" 'steps[0]: unknown key "rowz" (update takes:'
edit "$base" "$tmp/other_op_key.json" 'd["steps"][1]["new_name"] = "x"'
refused_input "another operation's key" "$tmp/other_op_key.json" 'steps[1]: delete does not take "new_name"'
edit "$base" "$tmp/merge_mode.json" 'd["steps"].append({"op": "merge_insert", "rows": [4], "fields": ["id"], "rewrite_columns": True})'
refused_input "merge_insert chooses its own mode" "$tmp/merge_mode.json" 'steps[5]: merge_insert does not take "rewrite_columns"'
edit "$base" "$tmp/top_key.json" 'd["requirement"] = ["FA-OP-1"]'
refused_input "unknown top-level key" "$tmp/top_key.json" 'unknown key "requirement"'
edit "$base" "$tmp/setup_key.json" 'd["setup"]["rows_per_file"] = 3'
refused_input "unknown setup key" "$tmp/setup_key.json" 'setup: unknown key "rows_per_file"'
edit "$base" "$tmp/check_key.json" 'd["steps"][0]["check"]["assigned_keys"] = {}'
refused_input "unknown check key" "$tmp/check_key.json" 'steps[0].check: unknown key "assigned_keys"'
edit "$base" "$tmp/field_key.json" 'd["setup"]["fields"][0]["nulable"] = True'
refused_input "unknown field-definition key" "$tmp/field_key.json" 'setup.fields[0]: unknown key "nulable"'
edit "$base" "$tmp/op.json" 'd["steps"][0]["op"] = "upsert"'
refused_input "unknown operation" "$tmp/op.json" 'steps[0].op: unknown operation "upsert"'
edit "$base" "$tmp/float_key.json" 'd["steps"][0]["rows"][0] = 2.0'
refused_input "a non-integer key" "$tmp/float_key.json" 'steps[0].rows[0] must be an integer from 0 to 2^64-1, not 2.0 (not an integer)'
edit "$base" "$tmp/string_key.json" 'd["steps"][0]["rows"][0] = "2"'
refused_input "a string key" "$tmp/string_key.json" 'steps[0].rows[0] must be an integer'
edit "$base" "$tmp/set_twice.json" 'd["steps"][0]["check"]["live"] = [1, 2, 1]'
refused_input "a key twice in a check" "$tmp/set_twice.json" 'steps[0].check.live lists key 1 twice'
edit "$base" "$tmp/empty_check.json" 'd["steps"][0]["check"] = {}'
refused_input "an empty check" "$tmp/empty_check.json" 'steps[0].check states nothing'
edit "$base" "$tmp/rule_alone.json" 'd["steps"][0]["expect_rule"] = "FA-SEM-5"'
refused_input "expect_rule without a refusal" "$tmp/rule_alone.json" '"expect_rule" needs "expect": "refused" or "conflict"'
edit "$base" "$tmp/bad_rule.json" 'd["steps"][4]["expect_rule"] = "SEM-5"'
refused_input "a malformed rule id" "$tmp/bad_rule.json" 'must be a requirement id like'
edit "$base" "$tmp/expect.json" 'd["steps"][4]["expect"] = "rejected"'
refused_input "an unknown outcome" "$tmp/expect.json" 'must be "ok", "refused" or "conflict"'
edit "$base" "$tmp/rs_self.json" 'd["steps"][0]["read_step"] = 1'
refused_input "read_step naming the step itself" "$tmp/rs_self.json" 'steps[0].read_step: 1 is not an earlier step (this is step 1; 0 is the setup)'
edit "$base" "$tmp/rs_refused.json" 'd["steps"].append({"op": "delete", "rows": [4], "read_step": 5})'
refused_input "read_step naming a step expected refused" "$tmp/rs_refused.json" 'steps[5].read_step: step 5 is expected to be refused, so it commits no version to name'
edit "$base" "$tmp/rv.json" 'd["steps"][1]["read_version"] = 1'
refused_input "a version named by number (read_version)" "$tmp/rv.json" 'unknown key "read_version"'
edit "$base" "$tmp/to_past.json" 'd["steps"].append({"op": "restore", "to_step": 9})'
refused_input "to_step past the steps" "$tmp/to_past.json" 'steps[5].to_step: 9 is not an earlier step'
edit "$base" "$tmp/restore_none.json" 'd["steps"].append({"op": "restore"})'
refused_input "a restore naming no version" "$tmp/restore_none.json" 'restore needs exactly one of "to_step"'
edit "$base" "$tmp/supplied.json" 'd["setup"]["supplied"] = []'
refused_input "an empty supplied list" "$tmp/supplied.json" 'setup.supplied is empty; to supply every field leave it out'
edit "$base" "$tmp/required.json" 'd["steps"].append({"op": "track", "field": "emb"})'
refused_input "a required key missing" "$tmp/required.json" 'steps[5]: track needs "assignment"'
edit "$base" "$tmp/assign.json" 'd["setup"]["fields"][1]["assignment"] = "tracked"'
refused_input "an unknown assignment" "$tmp/assign.json" 'must be "untracked", "unassigned" or "assigned"'
edit "$base" "$tmp/name.json" 'd["name"] = "Delete Scenario"'
refused_input "a name that cannot name a file" "$tmp/name.json" 'name must be lowercase letters, digits and'
edit "$base" "$tmp/no_setup.json" 'del d["setup"]'
refused_input "no setup" "$tmp/no_setup.json" 'the scenario needs "setup"'
edit "$base" "$tmp/no_reqs.json" 'd["requirements"] = []'
refused_input "no requirement ids" "$tmp/no_reqs.json" 'requirements must name at least one requirement id'
edit "$base" "$tmp/renamed.json" 'd["name"] = "delete_changes_no_state"'
refused_input "a name that is not its file's" "$tmp/renamed.json" \
  'the scenario is named "delete_changes_no_state", but its file is renamed.json'

# --json: unusable input is a document on stdout too, with the verdict "invalid"
check "run --json of an invalid scenario prints its error as JSON" bash -c "
  '$lfa' run --json '$tmp/rowz.json' '$tmp/never' >'$tmp/inv.json' 2>/dev/null; test \$? -eq 2 &&
  python3 -c '
import json
d = json.load(open(\"$tmp/inv.json\"))
assert sorted(d) == [\"error\", \"scenario\", \"verdict\"] and d[\"verdict\"] == \"invalid\", d
assert d[\"scenario\"].endswith(\"rowz.json\") and \"unknown key \\\"rowz\\\"\" in d[\"error\"][\"message\"], d
assert d[\"error\"][\"status\"] == \"format\", d
' && test ! -e '$tmp/never'"

# ---- the bytes judged -----------------------------------------------------------------
# lfa run reads each checked version back from OUT_DIR: a deletion file that
# vanishes as soon as it is written (tests/vanish_preload.c) fails the check
# of the version that needs it, on disk. delete_changes_no_state's step 2
# deletes key 3 from fragment 0 at version 3; with seed 0 its deletion file
# is _deletions/0-2-3.arrow (fragment 0, read version 2, id 3: 02§4).
vanish=$(dirname "$lfa")/liblfa_test_vanish.so
if [ -e "$vanish" ]; then
  check "a check is judged on the bytes the run wrote" bash -c "
    env LD_PRELOAD='$vanish' LFA_TEST_VANISH=0-2-3.arrow ASAN_OPTIONS=\${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
      '$lfa' run conformance/scenarios/delete_changes_no_state.json '$(out)' >'$tmp/vanish.out' 2>'$tmp/vanish.err'
    test \$? -eq 1 && grep -qF 'step 2 (delete, line 25): on disk: lfa'\\''s reader cannot read what the writer wrote: version 3: fragment 0: _deletions/0-2-3.arrow: ' '$tmp/vanish.err'"
else
  echo "skipped: the bytes judged ($vanish is not built)"
fi
finish
