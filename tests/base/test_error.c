/* test_error.c: the place an lfa_error carries as data (ref/base/error.c),
 * which every finding names [FA-VERIFY-2]: set by the innermost code that
 * knows it, kept by the layers that add context, cleared by a new failure,
 * and never read back from the message. Requirement ids: FA-VERIFY-2. */
#include "testutil.h"

/* The failure of a partial bitmap, as the reader reports one: the check
 * fails, the entry adds the partial's path and the fragment, the field adds
 * its id and its root's path, the snapshot its version. */
static lfa_status fail_like_a_partial(lfa_error *err) {
  lfa_status st = lfa_fail(err, LFA_ERR_RULE, "FA-BITMAP-4", "partial bitmap holds offset 10, physical_rows is 10");
  lfa_error_at_file(err, "_field_assignments/bitmaps/2/0/a.rbm");
  lfa_error_prefix(err, "root entry 0 (fragment 7)"), lfa_error_at_fragment(err, 7);
  lfa_error_prefix(err, "field 2: root r.root"), lfa_error_at_field(err, 2), lfa_error_at_file(err, "r.root");
  lfa_error_at_version(err, 3);
  return st;
}

static void test_FA_VERIFY_2_the_innermost_place_is_kept(void **state) {
  (void)state;
  lfa_error err = {0};
  assert_int_equal(fail_like_a_partial(&err), LFA_ERR_RULE);
  tu_assert_place(&err, 3, 2, 7, "_field_assignments/bitmaps/2/0/a.rbm"); /* the partial, not the root */
  assert_string_equal(err.msg, "field 2: root r.root: root entry 0 (fragment 7): partial bitmap holds offset 10, "
                               "physical_rows is 10"); /* the words as before */
  /* an outer layer naming another fragment, field or version does not move it */
  lfa_error_at_fragment(&err, 9), lfa_error_at_field(&err, 5), lfa_error_at_version(&err, 4);
  tu_assert_place(&err, 3, 2, 7, "_field_assignments/bitmaps/2/0/a.rbm");
}

static void test_FA_VERIFY_2_a_new_failure_starts_with_no_place(void **state) {
  (void)state;
  lfa_error err = {0};
  fail_like_a_partial(&err);
  lfa_fail(&err, LFA_ERR_USAGE, NULL, "something else");
  tu_assert_place(&err, -1, -1, -1, NULL);
  fail_like_a_partial(&err);
  lfa_error_clear(&err);
  tu_assert_place(&err, -1, -1, -1, NULL);
  assert_int_equal(err.status, LFA_OK);
  /* an error left uninitialized by its caller gets a clean place too */
  lfa_error junk;
  memset(&junk, 0xa5, sizeof junk);
  lfa_fail(&junk, LFA_ERR_IO, NULL, "x");
  tu_assert_place(&junk, -1, -1, -1, NULL);
  /* 0 is a place like any other: fragment 0, field 0, version 0 */
  lfa_error_at_fragment(&junk, 0), lfa_error_at_field(&junk, 0), lfa_error_at_version(&junk, 0);
  tu_assert_place(&junk, 0, 0, 0, NULL);
}

static void test_FA_VERIFY_2_a_long_file_is_cut_not_overrun(void **state) {
  (void)state;
  static char path[LFA_ERROR_FILE_MAX + 100];
  memset(path, 'p', sizeof path - 1);
  path[sizeof path - 1] = '\0';
  lfa_error err = {0};
  lfa_fail(&err, LFA_ERR_IO, NULL, "x");
  lfa_error_at_file(&err, path);
  assert_int_equal(strlen(err.file), LFA_ERROR_FILE_MAX - 1);
  assert_memory_equal(err.file, path, LFA_ERROR_FILE_MAX - 1);
  /* NULL errors and NULL files are no-ops */
  lfa_error_at_file(NULL, "a"), lfa_error_at_field(NULL, 1), lfa_error_at_fragment(NULL, 1);
  lfa_error_at_version(NULL, 1);
  lfa_fail(&err, LFA_ERR_IO, NULL, "x");
  lfa_error_at_file(&err, NULL);
  tu_assert_place(&err, -1, -1, -1, NULL);
}

/* A context the user never named comes off again, and only that one. */
static void test_unprefix_takes_off_one_leading_context(void **state) {
  (void)state;
  lfa_error err = {0};
  lfa_fail(&err, LFA_ERR_USAGE, "FA-INVAL-2", "cannot invalidate unknown field '%s'", "x");
  lfa_error_prefix(&err, "update");
  assert_string_equal(err.msg, "update: cannot invalidate unknown field 'x'");
  lfa_error_unprefix(&err, "track"); /* another head: untouched */
  assert_string_equal(err.msg, "update: cannot invalidate unknown field 'x'");
  lfa_error_unprefix(&err, "upd"); /* a part of the head is not it */
  assert_string_equal(err.msg, "update: cannot invalidate unknown field 'x'");
  lfa_error_unprefix(&err, "update");
  assert_string_equal(err.msg, "cannot invalidate unknown field 'x'");
  assert_string_equal(err.rule, "FA-INVAL-2");
  lfa_error_unprefix(NULL, "update");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_VERIFY_2_the_innermost_place_is_kept),
      cmocka_unit_test(test_FA_VERIFY_2_a_new_failure_starts_with_no_place),
      cmocka_unit_test(test_FA_VERIFY_2_a_long_file_is_cut_not_overrun),
      cmocka_unit_test(test_unprefix_takes_off_one_leading_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
