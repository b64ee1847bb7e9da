/* test_root.c: field-assignment roots (ref/format/root.c). Requirement ids:
 * FA-ROOT-1, FA-ROOT-2, FA-ROOT-3, FA-ROOT-4, FA-ROOT-6, FA-ROOT-7. */
#include "testutil.h"

#include "lfa/bitmap.h"
#include "lfa/root.h"

typedef struct fixture {
  lfa_root root;
  lfa_root_entry e[2];
  lfa_root_entry *list[2];
  Lance__Table__FieldAssignmentFile partial;
} fixture;

/* fragment 3: all of 10 rows; fragment 8: a partial bitmap object */
static void fixture_init(fixture *x) {
  lance__table__field_assignment_root__init(&x->root);
  for (int i = 0; i < 2; i++) lance__table__field_assignment_fragment__init(&x->e[i]), x->list[i] = &x->e[i];
  lance__table__field_assignment_file__init(&x->partial);
  x->e[0].fragment_id = 3, x->e[0].physical_rows = 10;
  x->e[0].state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED, x->e[0].all_assigned = true;
  x->partial.path = "_field_assignments/bitmaps/2/8/b.rbm";
  x->partial.has_size_bytes = true, x->partial.size_bytes = 18;
  x->e[1].fragment_id = 8, x->e[1].physical_rows = 20;
  x->e[1].state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL, x->e[1].partial = &x->partial;
  x->root.fragments = x->list, x->root.n_fragments = 2;
}

static lfa_status round_trip(const lfa_root *in, lfa_root **out, lfa_error *err) {
  lfa_buf b = {0};
  assert_ok(lfa_root_encode(&b, in, err), err);
  lfa_status st = lfa_root_decode(out, b.data, b.len, err);
  lfa_buf_free(&b);
  return st;
}

static void expect_rejected(const lfa_root *in, const char *rule) {
  lfa_root *out = NULL;
  lfa_error err = {0};
  if (round_trip(in, &out, &err) == LFA_OK) fail_msg("accepted; expected %s", rule);
  assert_null(out);
  assert_rule(&err, rule);
}

static void test_FA_ROOT_1_empty_root_is_zero_bytes(void **state) {
  (void)state;
  lfa_root empty = LANCE__TABLE__FIELD_ASSIGNMENT_ROOT__INIT;
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_root_encode(&b, &empty, &err), &err);
  assert_int_equal(b.len, 0);
  lfa_root *out = NULL;
  assert_ok(lfa_root_decode(&out, (const uint8_t *)"", 0, &err), &err);
  assert_int_equal(out->n_fragments, 0);
  lfa_root_free(out);
}

static void test_FA_ROOT_1_round_trip(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  lfa_root *out = NULL;
  lfa_error err = {0};
  assert_ok(round_trip(&x.root, &out, &err), &err);
  assert_int_equal(out->n_fragments, 2);
  assert_int_equal(out->fragments[1]->fragment_id, 8);
  assert_string_equal(out->fragments[1]->partial->path, x.partial.path);
  assert_int_equal(out->fragments[1]->partial->size_bytes, 18);
  assert_false(out->fragments[1]->partial->has_base_id);
  lfa_root_free(out);
}

static void test_FA_ROOT_2_ids_strictly_ascending(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  x.e[1].fragment_id = 3; /* duplicate */
  expect_rejected(&x.root, "FA-ROOT-2");
  x.e[1].fragment_id = 1; /* descending */
  expect_rejected(&x.root, "FA-ROOT-2");
}

static void test_FA_ROOT_3_physical_rows_positive(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  x.e[0].physical_rows = 0;
  expect_rejected(&x.root, "FA-ROOT-3");
}

static void test_FA_ROOT_4_state_present_and_true(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  x.e[0].all_assigned = false;
  /* proto3 drops a false bool, so on the wire this is "no state" */
  expect_rejected(&x.root, "FA-ROOT-4");
  x.e[0].state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE__NOT_SET;
  expect_rejected(&x.root, "FA-ROOT-4");
  /* an explicit false on the wire: field 3, varint 0, inside entry 1 */
  const uint8_t explicit_false[] = {0x0A, 0x06, 0x08, 0x01, 0x10, 0x05, 0x18, 0x00};
  lfa_root *out = NULL;
  lfa_error err = {0};
  assert_status(lfa_root_decode(&out, explicit_false, sizeof explicit_false, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-ROOT-4");
  assert_non_null(strstr(err.msg, "all_assigned=false"));
}

static void test_FA_ROOT_6_partial_file_described(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  x.partial.size_bytes = 0, x.partial.has_size_bytes = false;
  expect_rejected(&x.root, "FA-ROOT-6");
  x.partial.size_bytes = 18, x.partial.has_size_bytes = true;
  x.partial.path = "";
  expect_rejected(&x.root, "FA-ROOT-6");
}

static void test_FA_ROOT_7_inline_partial_rejected(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  roaring_bitmap_t *bm = roaring_bitmap_create();
  roaring_bitmap_add(bm, 7);
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_bitmap_encode(&b, bm, &err), &err);
  /* even a valid bitmap: a first-iteration reader would see no state */
  x.e[1].state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_INLINE_PARTIAL;
  x.e[1].inline_partial = (ProtobufCBinaryData){b.len, b.data};
  expect_rejected(&x.root, "FA-ROOT-7");
  roaring_bitmap_free(bm);
  lfa_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_ROOT_1_empty_root_is_zero_bytes),
      cmocka_unit_test(test_FA_ROOT_1_round_trip),
      cmocka_unit_test(test_FA_ROOT_2_ids_strictly_ascending),
      cmocka_unit_test(test_FA_ROOT_3_physical_rows_positive),
      cmocka_unit_test(test_FA_ROOT_4_state_present_and_true),
      cmocka_unit_test(test_FA_ROOT_6_partial_file_described),
      cmocka_unit_test(test_FA_ROOT_7_inline_partial_rejected),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
