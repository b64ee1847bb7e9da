/* test_conformance.c: the conformance runner's case results
 * (harness/lfa/conformance.h): an adapter's key map read strictly, and
 * verifier findings named by the scenario's keys through it, by offset
 * where the map does not reach; a checked step judged on its bytes first,
 * then on the writer's observation of them; versions named by the step
 * that committed them. Every expected text is written by hand from the
 * inputs here. */
#include "lfa/conformance.h"
#include "lfa/json.h"
#include "lfa/explore.h"
#include "testutil.h"

/* Version 2 has fragment 0 with keys 10, 11, 12 at offsets 0-2 and
 * fragment 3 with keys 7, 9; version 1 (step 0) has fragment 0 only. */
static const char OBS[] =
    "{\"adapter\": \"t\", \"steps\": ["
    " {\"step\": 0, \"outcome\": \"ok\", \"version\": 1, \"rows\": [{\"fragment\": 0, \"keys\": [1, 2, 3]}]},"
    " {\"step\": 1, \"outcome\": \"ok\", \"version\": 2,"
    "  \"rows\": [{\"fragment\": 0, \"keys\": [10, 11, 12]}, {\"fragment\": 3, \"keys\": [7, 9]}]}]}";

static void load_case(lfa_conformance_case *c, const char *text) {
  lfa_error err = {0};
  memset(c, 0, sizeof *c);
  if (lfa_observations_parse(&c->observations, (const uint8_t *)text, strlen(text), 8, &err) != LFA_OK)
    fail_msg("observations refused: %s", err.msg);
  c->has_observations = true;
}

static lfa_finding finding(uint64_t version, uint64_t fragment, size_t n, const uint64_t *rows) {
  lfa_finding f = {.rule = "FA-UPDATE-6", .severity = LFA_SEVERITY_ERROR, .version = version, .has_fragment = true,
                   .fragment_id = fragment, .n_rows = n, .message = (char *)"state differs"};
  if (n > 0) memcpy(f.rows, rows, n * sizeof *rows);
  return f;
}

static void test_key_map_read(void **state) {
  (void)state;
  lfa_conformance_case c;
  load_case(&c, OBS);
  assert_int_equal(c.observations.steps[1].n_fragments, 2);
  assert_int_equal(c.observations.steps[1].fragments[1].id, 3);
  assert_int_equal(c.observations.steps[1].fragments[1].keys.count, 2);
  assert_int_equal(c.observations.steps[1].fragments[1].keys.keys[1], 9);
  lfa_conformance_case_free(&c);
}

static void test_key_map_refused(void **state) {
  (void)state;
  static const char *const BAD[] = {
      "{\"adapter\": \"t\", \"steps\": [{\"step\": 0, \"outcome\": \"ok\", \"rows\": [{\"fragment\": 0, \"keys\": [\"1\"]}]}]}",
      "{\"adapter\": \"t\", \"steps\": [{\"step\": 0, \"outcome\": \"ok\", \"rows\": [{\"fragment\": 0}]}]}",
      "{\"adapter\": \"t\", \"steps\": [{\"step\": 0, \"outcome\": \"ok\", \"rows\": [{\"fragment\": 0, \"keys\": [], \"x\": 1}]}]}",
      "{\"adapter\": \"t\", \"steps\": [{\"step\": 0, \"outcome\": \"ok\", \"rows\": {\"0\": [1]}}]}",
  };
  for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
    lfa_observations obs;
    lfa_error err = {0};
    if (lfa_observations_parse(&obs, (const uint8_t *)BAD[i], strlen(BAD[i]), 8, &err) != LFA_ERR_FORMAT)
      fail_msg("accepted: %s", BAD[i]);
    assert_non_null(strstr(err.msg, "steps[0].rows"));
  }
}

static void test_finding_rows_by_key(void **state) {
  (void)state;
  lfa_conformance_case c;
  char text[512];
  uint64_t keys[LFA_FINDING_ROWS_MAX];
  load_case(&c, OBS);
  lfa_finding f = finding(2, 3, 2, (const uint64_t[]){1, 0});
  assert_true(lfa_conformance_finding_keys(keys, &c, &f));
  assert_int_equal(keys[0], 9);
  assert_int_equal(keys[1], 7);
  lfa_conformance_finding_text(text, sizeof text, &c, &f);
  assert_string_equal(text, "version 2: FA-UPDATE-6: state differs; rows with keys {9, 7}");
  f = finding(1, 0, 1, (const uint64_t[]){2}); /* the map of version 1, not 2 */
  lfa_conformance_finding_text(text, sizeof text, &c, &f);
  assert_string_equal(text, "version 1: FA-UPDATE-6: state differs; rows with keys {3}");
  lfa_conformance_case_free(&c);
}

static void test_finding_rows_by_offset_without_map(void **state) {
  (void)state;
  lfa_conformance_case c;
  char text[512];
  uint64_t keys[LFA_FINDING_ROWS_MAX];
  load_case(&c, OBS);
  lfa_finding past = finding(2, 3, 1, (const uint64_t[]){2}); /* fragment 3 has two rows */
  assert_false(lfa_conformance_finding_keys(keys, &c, &past));
  lfa_conformance_finding_text(text, sizeof text, &c, &past);
  assert_string_equal(text,
                      "version 2: FA-UPDATE-6: state differs; rows at offsets {2} (the adapter gave no key map for them)");
  lfa_finding other = finding(5, 0, 1, (const uint64_t[]){0}); /* no step reported version 5 */
  assert_false(lfa_conformance_finding_keys(keys, &c, &other));
  lfa_finding none = finding(2, 0, 0, NULL);
  none.file = (char *)"_versions/2.manifest";
  lfa_conformance_finding_text(text, sizeof text, &c, &none);
  assert_string_equal(text, "version 2, _versions/2.manifest: FA-UPDATE-6: state differs");
  lfa_conformance_case_free(&c);
}

static void test_observed_needs_version_and_key_map(void **state) {
  (void)state;
  static const char *const BAD[] = {
      "{\"adapter\": \"t\", \"steps\": [{\"step\": 0, \"outcome\": \"ok\", \"version\": 1,"
      " \"observed\": {\"live\": [], \"tracked\": [], \"assigned\": {}}}]}",
      "{\"adapter\": \"t\", \"steps\": [{\"step\": 0, \"outcome\": \"ok\", \"rows\": [],"
      " \"observed\": {\"live\": [], \"tracked\": [], \"assigned\": {}}}]}",
  };
  static const char *const SAYS[] = {"without \"rows\" (the key map)", "without \"version\""};
  for (size_t i = 0; i < 2; i++) {
    lfa_observations obs;
    lfa_error err = {0};
    if (lfa_observations_parse(&obs, (const uint8_t *)BAD[i], strlen(BAD[i]), 8, &err) != LFA_ERR_FORMAT)
      fail_msg("accepted: %s", BAD[i]);
    if (strstr(err.msg, SAYS[i]) == NULL) fail_msg("%s does not say %s", err.msg, SAYS[i]);
  }
}

/* A check of emb's assigned keys {2} after step 2, at version 3. */
static const uint64_t TWO[] = {2}, ONE_TWO[] = {1, 2};
static lfa_scenario_check emb_assigned(lfa_scenario_assigned *a, const uint64_t *keys, size_t n) {
  *a = (lfa_scenario_assigned){"emb", {n, keys}};
  return (lfa_scenario_check){.n_assigned = 1, .assigned = a};
}

static lfa_scenario_result judged(const lfa_scenario_check *observed, const lfa_scenario_check *on_disk,
                                  const char *unreadable) {
  lfa_scenario_assigned want_a;
  lfa_scenario_step step = {.expect = LFA_SCENARIO_OK, .has_check = true};
  step.check = emb_assigned(&want_a, TWO, 1);
  lfa_scenario_result r = {.outcome = LFA_SCENARIO_OK, .head = 3};
  lfa_scenario_judge(&r, &step, observed, on_disk, unreadable);
  return r;
}

static void test_bytes_judged_before_observation(void **state) {
  (void)state;
  lfa_scenario_assigned a, b;
  lfa_scenario_check right = emb_assigned(&a, TWO, 1), wrong = emb_assigned(&b, ONE_TWO, 2);
  /* the writer reports the expected state; its bytes still assign 1 */
  lfa_scenario_result r = judged(&right, &wrong, NULL);
  assert_false(r.passed);
  assert_string_equal(r.failure, "on disk: version 3: assigned \"emb\": expected {2}, got {1, 2} (unexpected {1})");
  assert_true(r.disagrees);
  assert_string_equal(r.disagreement,
                      "version 3: assigned \"emb\": on disk {1, 2}, its reader returned {2} (missing {1})");
  /* the bytes are right; the writer's reader says otherwise */
  r = judged(&wrong, &right, NULL);
  assert_false(r.passed);
  assert_string_equal(r.failure, "the writer's reader disagrees with what it wrote: version 3: assigned \"emb\": on "
                                 "disk {2}, its reader returned {1, 2} (unexpected {1})");
  /* both right; bytes that cannot be read; no bytes at all (memory only) */
  r = judged(&right, &right, NULL);
  assert_true(r.passed && r.checked && !r.disagrees);
  r = judged(&right, NULL, "version 3: no manifest");
  assert_string_equal(r.failure, "on disk: lfa's reader cannot read what the writer wrote: version 3: no manifest");
  r = judged(&wrong, NULL, NULL);
  assert_string_equal(r.failure, "check of version 3: assigned \"emb\": expected {2}, got {1, 2} (unexpected {1})");
}

/* Step 1 made two commits (versions 2 and 3, as a writer that reserves
 * fragments first may); the steps after it name it by step. */
static void test_versions_named_by_step(void **state) {
  (void)state;
  static const char DOC[] =
      "{\"name\": \"s\", \"description\": \"d\", \"requirements\": [\"FA-RESTORE-1\"],"
      " \"setup\": {\"fields\": [{\"path\": \"id\", \"type\": \"int64\"}], \"rows\": [1]},"
      " \"steps\": [{\"op\": \"compact\"}, {\"op\": \"delete\", \"rows\": [1], \"read_step\": 1},"
      " {\"op\": \"restore\", \"to_step\": 0}, {\"op\": \"restore\", \"version\": 99, \"expect\": \"refused\"}]}";
  lfa_json_doc doc;
  lfa_scenario s;
  lfa_error err = {0};
  assert_status(lfa_json_parse(&doc, (const uint8_t *)DOC, strlen(DOC), &err), LFA_OK, &err);
  assert_status(lfa_scenario_parse(&s, doc.root, &err), LFA_OK, &err);
  const uint64_t left[] = {1, 3, 4, 5};
  lfa_request q;
  uint64_t read_version;
  lfa_scenario_resolve(&q, &read_version, &s, 1, left);
  assert_int_equal(read_version, 0); /* the head */
  lfa_scenario_resolve(&q, &read_version, &s, 2, left);
  assert_int_equal(read_version, 3); /* what step 1 committed last */
  lfa_scenario_resolve(&q, &read_version, &s, 3, left);
  assert_int_equal(read_version, 0);
  assert_int_equal(q.version, 1); /* the setup's */
  lfa_scenario_resolve(&q, &read_version, &s, 4, left);
  assert_int_equal(q.version, 99); /* by number: one that does not exist */
  lfa_scenario_free(&s);
  lfa_json_free(&doc);
}

static void test_verdict_names(void **state) {
  (void)state;
  assert_string_equal(lfa_conformance_verdict_name(LFA_VERDICT_INVALID), "invalid");
  assert_string_equal(lfa_conformance_verdict_name(LFA_VERDICT_NOT_RUN), "not-run");
  assert_string_equal(lfa_conformance_verdict_name(LFA_VERDICT_REFUSED_AS_EXPECTED), "refused-as-expected");
}

/* An adapter reports at most the scenario's steps: OBS has
 * 2 steps, so a scenario of 2 takes them and one of 1 refuses them, as
 * one step too many. */
static void test_steps_at_the_scenario_length(void **state) {
  (void)state;
  for (size_t max = 1; max <= 2; max++) {
    lfa_observations obs;
    lfa_error err = {0};
    lfa_status st = lfa_observations_parse(&obs, (const uint8_t *)OBS, strlen(OBS), max, &err);
    if (max == 2) {
      assert_ok(st, &err);
      lfa_observations_free(&obs);
    } else {
      assert_int_equal(st, LFA_ERR_FORMAT);
      assert_non_null(strstr(err.msg, "steps reports 2 steps; the scenario has 1"));
    }
  }
}

/* The explorer's depth is 1 .. LFA_EXPLORE_DEPTH_MAX: 0 and one past the
 * bound are refused before anything runs (the judge is never called). */
static void test_explore_depth_past_its_bound_refused(void **state) {
  (void)state;
  lfa_explore_judge judge = {0};
  const unsigned depths[] = {0, LFA_EXPLORE_DEPTH_MAX + 1};
  for (size_t i = 0; i < 2; i++) {
    lfa_explore_options o = {.depth = depths[i], .address = true, .judge = &judge};
    lfa_explore_result *r = malloc(sizeof *r);
    assert_non_null(r);
    lfa_error err = {0};
    assert_status(lfa_explore(r, &o, &err), LFA_ERR_USAGE, &err);
    free(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_steps_at_the_scenario_length),
      cmocka_unit_test(test_explore_depth_past_its_bound_refused),
      cmocka_unit_test(test_key_map_read),
      cmocka_unit_test(test_key_map_refused),
      cmocka_unit_test(test_finding_rows_by_key),
      cmocka_unit_test(test_finding_rows_by_offset_without_map),
      cmocka_unit_test(test_observed_needs_version_and_key_map),
      cmocka_unit_test(test_bytes_judged_before_observation),
      cmocka_unit_test(test_versions_named_by_step),
      cmocka_unit_test(test_verdict_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
