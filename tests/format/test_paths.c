/* test_paths.c: resolving manifest paths through base_paths
 * (ref/format/paths.c) and deletion-file dispatch (ref/format/deletion.c).
 * Requirement ids: FA-STORE-6, FA-STORE-9, FA-LANCE-3. */
#include "testutil.h"

#include "lfa/bitmap.h"
#include "lfa/deletion.h"
#include "lfa/paths.h"

typedef struct fixture {
  Lance__Table__Manifest m;
  Lance__Table__BasePath root, plain;
  Lance__Table__BasePath *bases[2];
} fixture;

static void fixture_init(fixture *x) {
  lance__table__manifest__init(&x->m);
  lance__table__base_path__init(&x->root);
  lance__table__base_path__init(&x->plain);
  x->root.id = 3, x->root.is_dataset_root = true, x->root.path = "file:///data/parent";
  x->plain.id = 4, x->plain.is_dataset_root = false, x->plain.path = "/data/files";
  x->bases[0] = &x->root, x->bases[1] = &x->plain;
  x->m.base_paths = x->bases, x->m.n_base_paths = 2;
}

static void test_FA_STORE_6_base_resolution(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  char out[256];
  lfa_error err = {0};
  const char *rel = "_field_assignments/roots/2/a.root";
  assert_ok(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){false, 0}, true, "", rel, &err), &err);
  assert_string_equal(out, "/ds/_field_assignments/roots/2/a.root");
  assert_ok(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){true, 3}, true, "", rel, &err), &err);
  assert_string_equal(out, "/data/parent/_field_assignments/roots/2/a.root");
  assert_ok(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){false, 0}, false, "_deletions", "0-1-2.bin", &err), &err);
  assert_string_equal(out, "/ds/_deletions/0-1-2.bin");
  /* assignment objects only under a dataset root */
  assert_status(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){true, 4}, true, "", rel, &err),
                LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-6");
  assert_status(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){true, 9}, true, "", rel, &err),
                LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-6");
  x.root.path = "s3://bucket/parent"; /* resolvable, but not here */
  assert_status(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){true, 3}, true, "", rel, &err),
                LFA_ERR_IO, &err);
}

static void test_FA_STORE_7_paths_stay_inside(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  char out[256];
  lfa_error err = {0};
  const char *bad[] = {"../secret", "_field_assignments/../../etc/passwd", "/etc/passwd", "", "a/..",
                       "a//b", "a/", "./a", "a\\b", "."};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_status(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){0}, true, "", bad[i], &err),
                  LFA_ERR_RULE, &err);
    assert_rule(&err, "FA-STORE-9");
  }
  assert_ok(lfa_path_resolve(out, sizeof out, "/ds", &x.m, (lfa_anchor){0}, true, "", "a/..b/c", &err), &err);
  char tiny[8];
  assert_status(lfa_path_resolve(tiny, sizeof tiny, "/ds", &x.m, (lfa_anchor){0}, true, "", "abcdefgh", &err),
                LFA_ERR_LIMIT, &err);
}

static void test_FA_LANCE_3_deletion_dispatch(void **state) {
  (void)state;
  roaring_bitmap_t *in = roaring_bitmap_create();
  for (uint32_t v = 3; v < 9000; v += 3) roaring_bitmap_add(in, v);
  for (int kind = LFA_DELETION_ARROW; kind <= LFA_DELETION_BITMAP; kind++) {
    lfa_buf b = {0};
    lfa_error err = {0};
    roaring_bitmap_t *out = NULL;
    assert_ok(lfa_deletion_encode(&b, (lfa_deletion_kind)kind, in, &err), &err);
    /* .arrow files start with the IPC magic, .bin with the no-run cookie */
    if (kind == LFA_DELETION_ARROW) assert_memory_equal(b.data, "ARROW1", 6);
    else assert_int_equal(lfa_load_u32le(b.data), 12346);
    assert_ok(lfa_deletion_decode(&out, (lfa_deletion_kind)kind, b.data, b.len, &err), &err);
    assert_true(roaring_bitmap_equals(in, out));
    /* the other decoder refuses it */
    roaring_bitmap_t *wrong = NULL;
    assert_int_not_equal(lfa_deletion_decode(&wrong, (lfa_deletion_kind)(1 - kind), b.data, b.len, &err), LFA_OK);
    assert_null(wrong);
    roaring_bitmap_free(out);
    lfa_buf_free(&b);
  }
  lfa_error err = {0};
  roaring_bitmap_t *out = NULL;
  assert_status(lfa_deletion_decode(&out, (lfa_deletion_kind)7, (const uint8_t *)"", 0, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-LANCE-3");
  roaring_bitmap_free(in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_STORE_6_base_resolution),
      cmocka_unit_test(test_FA_STORE_7_paths_stay_inside),
      cmocka_unit_test(test_FA_LANCE_3_deletion_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
