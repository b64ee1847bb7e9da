/* test_verify_edges.c: verifier rules at the edge of what they compare,
 * where an off-by-one in the check would still reject every dataset of
 * conformance/invalid/: a fragment id listed twice (not only out of
 * order), and a carried fragment that keeps its row count but not its last
 * row id. Each fault comes with its control, which must give no error
 * under the rule. Histories are written by the reference writer and then
 * spoiled in place, as another writer could have left them.
 * Requirement ids: FA-LANCE-5 (fragment ids strictly ascend: equal is as
 * wrong as descending), FA-LANCE-19 (one id, one fragment: the same ids,
 * every one of them), FA-LANCE-15 (a data file's field values: an id or
 * the tombstone -2, and -1 is neither), FA-LANCE-13 (fragment ids below
 * 2^32 with tracked fields), FA-LANCE-4 (num_deleted_rows either side of
 * the count), FA-REMAP-2 (a compaction's row count either side). */
#include "rules_util.h"

#include "lfa/pb.h"
#include "lfa/rowids.h"
#include "lfa/verify.h"

static const lfa_new_field PLAIN[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNTRACKED},
};
static const lfa_new_field TRACKED[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};

/* v1: keys 1..6 in two fragments of 3 (ids 0 and 1); then v2 from `then`
 * when not NULL. */
static const uint64_t K7_8[] = {7, 8}, K2_3[] = {2, 3};
static const char *const ID[] = {"id"};
static const lfa_request APPEND = {.op = LFA_OP_APPEND, .rows = {2, K7_8}, .fields = {1, ID}};
static const lfa_request DELETE = {.op = LFA_OP_DELETE, .rows = {2, K2_3}};
static const lfa_request COMPACT = {.op = LFA_OP_COMPACT};

static void write_history(const char *dir, const lfa_new_field *fields, bool stable, const lfa_request *then) {
  lfa_history h;
  lfa_error err = {0};
  assert_ok(lfa_history_open(&h, dir, 5, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = fields, .n_new_fields = 2, .stable_row_ids = stable,
                   .rows = KEYS(1, 2, 3, 4, 5, 6), .rows_per_file = 3, .fields = NAMES("id")};
  apply_head(&h, &c);
  if (then != NULL) apply_head(&h, then);
  lfa_history_close(&h);
}

/* The error findings of `rule` at `version` in a verification of dir. */
static size_t errors_of(const char *dir, const char *rule, uint64_t version) {
  lfa_verify_result r;
  lfa_error err = {0};
  assert_ok(lfa_verify_dataset(&r, dir, NULL, &err), &err);
  size_t n = 0;
  for (size_t k = 0; k < r.findings.count; k++) {
    const lfa_finding *f = &r.findings.items[k];
    n += f->severity == LFA_SEVERITY_ERROR && f->version == version && strcmp(f->rule, rule) == 0;
  }
  lfa_verify_result_free(&r);
  return n;
}

static void set_second_id(lfa_manifest_file *file, void *ctx) {
  assert_int_equal(file->manifest->n_fragments, 2);
  file->manifest->fragments[1]->id = *(const uint64_t *)ctx;
}

/* [FA-LANCE-5] the second fragment's id: 1 (ascending, the control), 0
 * (the first's: listed twice) and, with three or more, 0 after 1 is tested
 * by conformance/invalid/lance5_fragments_descending. */
static void test_FA_LANCE_5_fragment_id_listed_twice(void **state) {
  (void)state;
  const uint64_t second[] = {1, 0};
  const size_t want[] = {0, 1};
  for (size_t i = 0; i < 2; i++) {
    scratch s;
    scratch_make(&s);
    write_history(s.ds, PLAIN, false, NULL);
    rewrite_manifest(s.ds, 1, set_second_id, (void *)&second[i]);
    size_t got = errors_of(s.ds, "FA-LANCE-5", 1);
    if (got != want[i])
      fail_msg("fragments 0, %" PRIu64 ": %zu FA-LANCE-5 errors, expected %zu", second[i], got, want[i]);
    scratch_remove(&s);
  }
}

/* Fragment 0 of v2 (carried by the append) gets the row ids `ids`. */
static void set_row_ids_of_0(lfa_manifest_file *file, void *ctx) {
  const uint64_t *ids = ctx;
  lfa_buf b = {0};
  lfa_error err = {0};
  Lance__Table__DataFragment *f = file->manifest->fragments[0];
  assert_int_equal(f->id, 0);
  assert_int_equal(f->row_id_sequence_case, LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS);
  assert_ok(lfa_row_ids_encode(&b, ids, 3, &err), &err);
  free(f->inline_row_ids.data);
  f->inline_row_ids.data = b.data, f->inline_row_ids.len = b.len; /* the message now owns the bytes */
}

/* [FA-LANCE-19] with stable row ids, fragment 0 of v1 holds ids 0, 1, 2;
 * v2 carries it with 3 rows and: the same ids (control), another first
 * id, another last id. The row count never changes, so only the ids can
 * tell, all three of them. */
static void test_FA_LANCE_19_carried_fragment_keeps_every_row_id(void **state) {
  (void)state;
  const uint64_t ids[][3] = {{0, 1, 2}, {100, 1, 2}, {0, 1, 100}};
  const size_t want[] = {0, 1, 1};
  for (size_t i = 0; i < 3; i++) {
    scratch s;
    scratch_make(&s);
    write_history(s.ds, TRACKED, true, &APPEND);
    rewrite_manifest(s.ds, 2, set_row_ids_of_0, (void *)ids[i]);
    size_t got = errors_of(s.ds, "FA-LANCE-19", 2);
    if (got != want[i])
      fail_msg("row ids %" PRIu64 ", %" PRIu64 ", %" PRIu64 ": %zu FA-LANCE-19 errors, expected %zu", ids[i][0],
               ids[i][1], ids[i][2], got, want[i]);
    scratch_remove(&s);
  }
}

static void set_first_file_field(lfa_manifest_file *file, void *ctx) {
  Lance__Table__DataFile *df = file->manifest->fragments[0]->files[0];
  assert_true(df->n_fields >= 1);
  df->fields[0] = *(const int32_t *)ctx;
}

/* [FA-LANCE-15] a data file lists schema field ids or the tombstone -2,
 * nothing else: the values beside the tombstone, -1 and -3, are errors,
 * -2 itself is none (conformance/invalid/lance15_bad_field_value holds -3). */
static void test_FA_LANCE_15_field_values_beside_the_tombstone(void **state) {
  (void)state;
  const int32_t values[] = {-1, -2, -3};
  const size_t want[] = {1, 0, 1};
  for (size_t i = 0; i < 3; i++) {
    scratch s;
    scratch_make(&s);
    write_history(s.ds, PLAIN, false, NULL);
    rewrite_manifest(s.ds, 1, set_first_file_field, (void *)&values[i]);
    size_t got = errors_of(s.ds, "FA-LANCE-15", 1);
    if ((got > 0) != (want[i] > 0)) fail_msg("field value %d: %zu FA-LANCE-15 errors", values[i], got);
    scratch_remove(&s);
  }
}

static void unknown_rows_of_0(lfa_manifest_file *file, void *ctx) {
  (void)ctx;
  assert_int_equal(file->manifest->fragments[0]->id, 0);
  file->manifest->fragments[0]->physical_rows = 0;
}

/* [FA-LANCE-19] physical_rows 0 is "unknown" (old Lance wrote no count):
 * a fragment whose count is unknown in either version is not compared, so
 * v1 with fragment 0 of unknown rows and v2 carrying it with 3 give no
 * FA-LANCE-19; the same with v2's count unknown. */
static void test_FA_LANCE_19_unknown_row_count_is_not_compared(void **state) {
  (void)state;
  for (uint64_t v = 1; v <= 2; v++) {
    scratch s;
    scratch_make(&s);
    write_history(s.ds, PLAIN, false, &APPEND);
    rewrite_manifest(s.ds, v, unknown_rows_of_0, NULL);
    size_t got = errors_of(s.ds, "FA-LANCE-19", 2);
    if (got != 0) fail_msg("fragment 0 of unknown rows in version %" PRIu64 ": %zu FA-LANCE-19 errors", v, got);
    scratch_remove(&s);
  }
}

/* [FA-LANCE-13] with tracked fields every fragment id is below 2^32 (its
 * rows need row addresses): 2^32 - 1 passes the rule, 2^32 breaks it. */
static void test_FA_LANCE_13_fragment_id_at_2_to_the_32(void **state) {
  (void)state;
  const uint64_t ids[] = {UINT32_MAX, (uint64_t)UINT32_MAX + 1};
  for (size_t i = 0; i < 2; i++) {
    scratch s;
    scratch_make(&s);
    write_history(s.ds, TRACKED, false, NULL);
    rewrite_manifest(s.ds, 1, set_second_id, (void *)&ids[i]);
    size_t got = errors_of(s.ds, "FA-LANCE-13", 1);
    if (got != i) fail_msg("fragment id %" PRIu64 ": %zu FA-LANCE-13 errors, expected %zu", ids[i], got, i);
    scratch_remove(&s);
  }
}

static void set_num_deleted(lfa_manifest_file *file, void *ctx) {
  Lance__Table__DataFragment *f = file->manifest->fragments[0];
  assert_non_null(f->deletion_file);
  f->deletion_file->num_deleted_rows = *(const uint64_t *)ctx;
}

/* [FA-LANCE-4] num_deleted_rows is the count the deletion file holds (0:
 * unknown): v2 deletes keys 2 and 3 of fragment 0, so 2 and 0 pass, and
 * 1 and 3, one either side, break the rule. */
static void test_FA_LANCE_4_num_deleted_rows_either_side(void **state) {
  (void)state;
  const uint64_t counts[] = {2, 0, 1, 3};
  const size_t want[] = {0, 0, 1, 1};
  for (size_t i = 0; i < 4; i++) {
    scratch s;
    scratch_make(&s);
    write_history(s.ds, PLAIN, false, &DELETE);
    rewrite_manifest(s.ds, 2, set_num_deleted, (void *)&counts[i]);
    size_t got = errors_of(s.ds, "FA-LANCE-4", 2);
    if ((got > 0) != (want[i] > 0)) fail_msg("num_deleted_rows %" PRIu64 " for 2 offsets: %zu FA-LANCE-4 errors", counts[i], got);
    scratch_remove(&s);
  }
}

static void set_rows_of_new(lfa_manifest_file *file, void *ctx) {
  assert_int_equal(file->manifest->n_fragments, 1);
  file->manifest->fragments[0]->physical_rows = *(const uint64_t *)ctx;
}

/* [FA-REMAP-2] in address mode a compaction's new fragments hold exactly
 * the old fragments' live rows: 6 into one of 6 passes the rule, 5 and 7
 * (one row short, one too many) break it. */
static void test_FA_REMAP_2_compaction_row_count_either_side(void **state) {
  (void)state;
  const uint64_t rows[] = {6, 5, 7};
  for (size_t i = 0; i < 3; i++) {
    scratch s;
    scratch_make(&s);
    write_history(s.ds, TRACKED, false, &COMPACT);
    rewrite_manifest(s.ds, 2, set_rows_of_new, (void *)&rows[i]);
    size_t got = errors_of(s.ds, "FA-REMAP-2", 2);
    if ((got > 0) != (i > 0)) fail_msg("6 live rows compacted into %" PRIu64 ": %zu FA-REMAP-2 errors", rows[i], got);
    scratch_remove(&s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_LANCE_5_fragment_id_listed_twice),
      cmocka_unit_test(test_FA_LANCE_19_carried_fragment_keeps_every_row_id),
      cmocka_unit_test(test_FA_LANCE_15_field_values_beside_the_tombstone),
      cmocka_unit_test(test_FA_LANCE_19_unknown_row_count_is_not_compared),
      cmocka_unit_test(test_FA_LANCE_13_fragment_id_at_2_to_the_32),
      cmocka_unit_test(test_FA_LANCE_4_num_deleted_rows_either_side),
      cmocka_unit_test(test_FA_REMAP_2_compaction_row_count_either_side),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
