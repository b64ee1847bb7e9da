/* test_verify_range.c: the verifier over part of a history (10§5): a range
 * reads its first version's parent and its own versions and nothing else,
 * says that it left the orphan check out [FA-VERIFY-5], and a run resumed
 * from a state checks only what is new after the state's history is found
 * unchanged [FA-VERIFY-7].
 *
 * The dataset is the upstream layout example (nine versions, independent
 * of this code): 1 Overwrite, 2 Merge, 3 Update, 4 Append, 5 Delete,
 * 6 Update, 7 Project, 8 ReserveFragments, 9 Rewrite; no restore or clone,
 * so no version in a range names one outside it. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <unistd.h>

#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/verify.h"

#define EXAMPLE SHARED_DIR "/upstream-layout-example/address-mode-history"

static void shell(const char *cmd) { assert_int_equal(system(cmd), 0); }

/* dir (64 bytes) becomes "/tmp/lfa-range-XXXXXX/ds", a copy of the example. */
static void copy_example(char *dir) {
  char cmd[256];
  strcpy(dir, "/tmp/lfa-range-XXXXXX");
  assert_non_null(mkdtemp(dir));
  strcat(dir, "/ds");
  snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", EXAMPLE, dir);
  shell(cmd);
}

static void remove_copy(const char *dir) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%.*s'", (int)(strrchr(dir, '/') - dir), dir);
  shell(cmd);
}

/* Appends bytes to a file of the dataset: a manifest that no longer decodes. */
static void spoil(const char *dir, const char *rel) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  FILE *f = fopen(path, "ab");
  assert_non_null(f);
  fputs("junk", f);
  fclose(f);
}

static size_t count_rule(const lfa_verify_result *r, const char *rule, lfa_severity severity) {
  size_t n = 0;
  for (size_t i = 0; i < r->findings.count; i++)
    n += strcmp(r->findings.items[i].rule, rule) == 0 && r->findings.items[i].severity == severity;
  return n;
}

/* 64-bit FNV-1a written here from its definition (offset basis, prime),
 * not taken from lfa, for the digest the state must record. */
static uint64_t fnv1a(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  uint64_t h = (uint64_t)14695981039346656037u;
  for (int c; (c = fgetc(f)) != EOF;) h = (h ^ (uint64_t)(unsigned char)c) * (uint64_t)1099511628211u;
  fclose(f);
  return h;
}

static lfa_verify_result run(const char *dir, const lfa_verify_options *o) {
  lfa_verify_result r;
  lfa_error err = {0};
  if (lfa_verify_dataset(&r, dir, o, &err) != LFA_OK) fail_msg("%s: %s", dir, err.msg);
  return r;
}

static void test_FA_VERIFY_7_state_text(void **state) {
  (void)state;
  const char text[] = "lfa-verify-state 1\nversion 1000\nmanifest_fnv1a64 0123456789abcdef\n"
                      "listing_fnv1a64 fedcba9876543210\n";
  lfa_verify_state s = {1000, 0x0123456789abcdefULL, 0xfedcba9876543210ULL}, back;
  char out[LFA_VERIFY_STATE_TEXT_MAX];
  lfa_verify_state_format(out, &s);
  assert_string_equal(out, text);
  lfa_error err = {0};
  assert_ok(lfa_verify_state_parse(&back, text, strlen(text), &err), &err);
  assert_memory_equal(&back, &s, sizeof s);
  const char *bad[] = {
      "",
      "lfa-verify-state 2\nversion 1000\nmanifest_fnv1a64 0123456789abcdef\nlisting_fnv1a64 fedcba9876543210\n",
      "lfa-verify-state 1\nversion 1000\nmanifest_fnv1a64 0123456789ABCDEF\nlisting_fnv1a64 fedcba9876543210\n",
      "lfa-verify-state 1\nversion 1000\nmanifest_fnv1a64 0123456789abcdef\nlisting_fnv1a64 fedcba9876543210",
      "lfa-verify-state 1\nversion 1000\nmanifest_fnv1a64 0123456789abcdef\nlisting_fnv1a64 fedcba9876543210\nx",
      "lfa-verify-state 1\nversion -1\nmanifest_fnv1a64 0123456789abcdef\nlisting_fnv1a64 fedcba9876543210\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    lfa_error_clear(&err);
    if (lfa_verify_state_parse(&back, bad[i], strlen(bad[i]), &err) == LFA_OK) fail_msg("accepted bad state %zu", i);
    assert_string_equal(err.rule, "FA-VERIFY-7");
  }
}

/* A range reads nothing before its first version's parent: versions 1 and
 * 2 made unreadable change nothing for 8..9, while the whole history
 * reports them. The range says it left the orphans out [FA-VERIFY-5]. */
static void test_range_reads_only_the_range(void **state) {
  (void)state;
  char dir[64];
  copy_example(dir);
  spoil(dir, "_versions/1.manifest");
  spoil(dir, "_versions/2.manifest");
  lfa_verify_options o = {.has_from = true, .from = 8};
  lfa_verify_result r = run(dir, &o);
  assert_int_equal(r.versions_checked, 2);
  assert_true(r.ranged);
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR), 0);
  assert_int_equal(count_rule(&r, "FA-VERIFY-5", LFA_SEVERITY_INFO), 1);
  const lfa_finding *note = lfa_findings_find(&r.findings, "FA-VERIFY-5", LFA_SEVERITY_INFO);
  assert_int_equal(note->version, 9);
  assert_non_null(strstr(note->message, "FA-CLEAN-10"));
  lfa_verify_result_free(&r);
  r = run(dir, NULL);
  assert_false(r.ranged);
  assert_int_equal(count_rule(&r, "FA-LANCE-1", LFA_SEVERITY_ERROR), 2);
  for (size_t i = 0; i < r.findings.count; i++) assert_null(strstr(r.findings.items[i].message, "FA-CLEAN-10"));
  lfa_verify_result_free(&r);
  remove_copy(dir);
}

/* A copy of the example in dir, and the state of a run up to version 7:
 * that version, and the digest of its manifest file's bytes. */
static lfa_verify_state first_run_to_7(char *dir) {
  char path[128];
  copy_example(dir);
  lfa_verify_options to7 = {.has_to = true, .to = 7};
  lfa_verify_result r = run(dir, &to7);
  assert_true(r.has_state);
  assert_int_equal(r.state.version, 7);
  snprintf(path, sizeof path, "%s/_versions/7.manifest", dir);
  assert_true(r.state.manifest_digest == fnv1a(path));
  lfa_verify_state s = r.state;
  lfa_verify_result_free(&r);
  return s;
}

/* The state of a run names its last version and the digests of its
 * manifest and of the listing; resumed from it, a run checks only what
 * follows, and nothing when nothing does. */
static void test_FA_VERIFY_7_resume_checks_what_is_new(void **state) {
  (void)state;
  char dir[64];
  lfa_verify_state s7 = first_run_to_7(dir);
  lfa_verify_options since = {.since = &s7};
  lfa_verify_result r = run(dir, &since);
  assert_int_equal(r.versions_checked, 2);
  assert_int_equal(r.versions[0], 8);
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR), 0);
  assert_true(r.has_state && r.state.version == 9);
  lfa_verify_state s9 = r.state;
  lfa_verify_result_free(&r);
  since.since = &s9;
  r = run(dir, &since); /* nothing new: no failure, no finding, the same state */
  assert_int_equal(r.versions_checked, 0);
  assert_int_equal(r.findings.count, 0);
  assert_true(r.has_state);
  assert_memory_equal(&r.state, &s9, sizeof s9);
  lfa_verify_result_free(&r);
  remove_copy(dir);
}

/* History changed under a state: the state's manifest rewritten, or a
 * version before it gone, is an error finding at the state's version;
 * the versions after it are still checked. */
static void test_FA_VERIFY_7_changed_history_is_an_error(void **state) {
  (void)state;
  char dir[64], path[128];
  lfa_verify_state s7 = first_run_to_7(dir);
  lfa_verify_options since = {.since = &s7};
  snprintf(path, sizeof path, "%s/_versions/3.manifest", dir);
  assert_int_equal(unlink(path), 0); /* a cleanup removed version 3 */
  lfa_verify_result r = run(dir, &since);
  assert_int_equal(count_rule(&r, "FA-VERIFY-7", LFA_SEVERITY_ERROR), 1);
  const lfa_finding *f = lfa_findings_find(&r.findings, "FA-VERIFY-7", LFA_SEVERITY_ERROR);
  assert_int_equal(f->version, 7);
  assert_string_equal(f->file, "_versions/");
  assert_int_equal(r.versions_checked, 2);
  lfa_verify_result_free(&r);
  s7.listing_digest = 0; /* now the listing differs, and so do the bytes of 7 */
  spoil(dir, "_versions/7.manifest");
  r = run(dir, &since);
  assert_int_equal(count_rule(&r, "FA-VERIFY-7", LFA_SEVERITY_ERROR), 2);
  assert_string_equal(r.findings.items[0].file, "_versions/7.manifest");
  lfa_verify_result_free(&r);
  s7.version = 42; /* a version the dataset never had */
  r = run(dir, &since);
  assert_int_equal(count_rule(&r, "FA-VERIFY-7", LFA_SEVERITY_ERROR), 1);
  assert_int_equal(r.versions_checked, 0);
  lfa_verify_result_free(&r);
  remove_copy(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_VERIFY_7_state_text),
      cmocka_unit_test(test_range_reads_only_the_range),
      cmocka_unit_test(test_FA_VERIFY_7_resume_checks_what_is_new),
      cmocka_unit_test(test_FA_VERIFY_7_changed_history_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
