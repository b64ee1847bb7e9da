/* test_rebase.c: a change built against an older version and committed on
 * a later head (ref/commit/rebase.c through lfa_history_apply), each pair of
 * 06§2 checked against states derived by hand.
 * Requirement ids: FA-CONC-1, FA-CONC-3, FA-CONC-4, FA-CONC-5, FA-CONC-7,
 * FA-CONC-8, FA-REMAP-1 (also into two new fragments), FA-REMAP-3, FA-MERGEINSERT-6. */
#include "testutil.h"

#include "lfa/history.h"

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
enum { EMB = 1 };
static const uint64_t K1_6[] = {1, 2, 3, 4, 5, 6};
static const char *ID[] = {"id"}, *EMB_NAME[] = {"emb"}, *BOTH[] = {"id", "emb"};

/* Version 1: keys 1..6 in two fragments of 3, emb tracked, nothing assigned.
 * Version 2: emb written on every row. */
static void setup(lfa_history *h, bool stable) {
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, NULL, 1, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .stable_row_ids = stable,
                   .rows = {6, K1_6}, .rows_per_file = 3, .fields = {1, ID}};
  assert_ok(lfa_history_apply(h, &c, 0, &err), &err);
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = {6, K1_6}, .fields = {1, EMB_NAME}, .rewrite_columns = true};
  assert_ok(lfa_history_apply(h, &w, 0, &err), &err);
}

static void assigned(char *out, size_t cap, const lfa_table *t) {
  size_t used = 0;
  const lfa_field_state *s = lfa_table_tracked(t, EMB);
  out[0] = '\0';
  for (uint64_t key = 1; key < 64; key++)
    for (size_t i = 0; i < t->n_fragments; i++)
      for (uint32_t o = 0; o < t->fragments[i].physical_rows; o++)
        if (t->fragments[i].keys[o] == key && lfa_fragment_is_live(&t->fragments[i], o) && lfa_cell_contains(&s->cells[i], o))
          used += (size_t)snprintf(out + used, cap - used, "%llu ", (unsigned long long)key);
}

static lfa_request invalidate(const uint64_t *keys, size_t n) {
  return (lfa_request){.op = LFA_OP_UPDATE, .rows = {n, keys}, .invalidate = {1, EMB_NAME}};
}

static void test_FA_CONC_3_two_invalidations_both_kept(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  char got[128];
  setup(&h, false);
  lfa_request a = invalidate((const uint64_t[]){2}, 1), b = invalidate((const uint64_t[]){5}, 1);
  assert_ok(lfa_history_apply(&h, &a, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &b, 2, &err), &err); /* built at 2, committed on 3 */
  assigned(got, sizeof got, lfa_history_head(&h));
  assert_string_equal(got, "1 3 4 6 ");
  lfa_history_close(&h);
}

static void test_FA_CONC_4_append_then_invalidation_keeps_addresses(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  char got[128];
  setup(&h, false);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}}, .fields = {2, BOTH}};
  lfa_request inv = invalidate((const uint64_t[]){1, 6}, 2);
  assert_ok(lfa_history_apply(&h, &ap, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &inv, 2, &err), &err); /* item 1: the rows stayed */
  assigned(got, sizeof got, lfa_history_head(&h));
  assert_string_equal(got, "2 3 4 5 7 8 ");
  lfa_history_close(&h);
}

static void test_FA_CONC_4_deleted_rows_drop_out(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  char got[128];
  setup(&h, false);
  lfa_request del = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){2}}};
  lfa_request inv = invalidate((const uint64_t[]){2, 3}, 2);
  assert_ok(lfa_history_apply(&h, &del, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &inv, 2, &err), &err); /* item 2: 2's address is dropped */
  assigned(got, sizeof got, lfa_history_head(&h));
  assert_string_equal(got, "1 4 5 6 ");
  lfa_history_close(&h);
}

static void test_FA_CONC_4_rows_moved_by_an_update(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    lfa_history h;
    lfa_error err = {0};
    char got[128];
    setup(&h, stable);
    lfa_request move = {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){2, 3}}, .fields = {1, ID}};
    lfa_request inv = invalidate((const uint64_t[]){3}, 1);
    assert_ok(lfa_history_apply(&h, &move, 2, &err), &err); /* rows 2 and 3 move, emb kept */
    lfa_status st = lfa_history_apply(&h, &inv, 2, &err);
    if (stable) { /* item 3: the row id leads to the moved row */
      assert_ok(st, &err);
      assigned(got, sizeof got, lfa_history_head(&h));
      assert_string_equal(got, "1 2 4 5 6 ");
    } else { /* address mode cannot tell moved from deleted: retryable */
      assert_status(st, LFA_ERR_CONFLICT, &err);
      assert_rule(&err, "FA-CONC-4");
      assert_int_equal(h.count, 3);
    }
    lfa_history_close(&h);
  }
}

static void test_FA_CONC_5_update_rebuilt_on_the_head(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  char got[128];
  setup(&h, false);
  lfa_request inv = invalidate((const uint64_t[]){4}, 1);
  lfa_request move = {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){4, 5}}, .fields = {1, ID}};
  assert_ok(lfa_history_apply(&h, &inv, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &move, 2, &err), &err); /* the invalidation stays on moved row 4 */
  assigned(got, sizeof got, lfa_history_head(&h));
  assert_string_equal(got, "1 2 3 5 6 ");
  lfa_history_close(&h);
}

static void test_delete_with_delete(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  setup(&h, false);
  lfa_request a = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){1}}};
  lfa_request b = {.op = LFA_OP_DELETE, .rows = {2, (const uint64_t[]){2, 3}}};
  assert_ok(lfa_history_apply(&h, &a, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &b, 2, &err), &err); /* the sets merge: fragment 0 is emptied */
  assert_int_equal(lfa_history_head(&h)->n_fragments, 1);
  lfa_request c = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){4}}};
  lfa_request d = {.op = LFA_OP_DELETE, .rows = {2, (const uint64_t[]){4, 5}}};
  assert_ok(lfa_history_apply(&h, &c, 4, &err), &err);
  assert_status(lfa_history_apply(&h, &d, 4, &err), LFA_ERR_CONFLICT, &err); /* both deleted 4 */
  lfa_history_close(&h);
}

static void test_FA_CONC_4_invalidation_after_compaction(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    lfa_history h;
    lfa_error err = {0};
    char got[128];
    setup(&h, stable);
    lfa_request compact = {.op = LFA_OP_COMPACT};
    lfa_request inv = invalidate((const uint64_t[]){3, 5}, 2);
    assert_ok(lfa_history_apply(&h, &compact, 2, &err), &err); /* both fragments become one */
    assert_int_equal(lfa_history_head(&h)->n_fragments, 1);
    assert_ok(lfa_history_apply(&h, &inv, 2, &err), &err); /* item 3: remapped (FA-REMAP-1) or by row id */
    assigned(got, sizeof got, lfa_history_head(&h));
    assert_string_equal(got, "1 2 4 6 ");
    lfa_history_close(&h);
  }
}

/* [FA-REMAP-1] a compaction into two new fragments (4 and 2 rows), then an
 * invalidation read before it of the fifth row: the row's new address is
 * the first row of the second new fragment (offset 4 is one past the first
 * fragment's last row), so the state is 1 2 3 4 6 in either mode. */
static void test_FA_REMAP_1_invalidation_after_compaction_into_two(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    lfa_history h;
    lfa_error err = {0};
    char got[128];
    setup(&h, stable);
    lfa_request compact = {.op = LFA_OP_COMPACT, .rows_per_file = 4};
    lfa_request inv = invalidate((const uint64_t[]){5}, 1);
    assert_ok(lfa_history_apply(&h, &compact, 2, &err), &err);
    const lfa_table *head = lfa_history_head(&h);
    assert_int_equal(head->n_fragments, 2);
    assert_int_equal(head->fragments[0].physical_rows, 4);
    assert_int_equal(head->fragments[1].physical_rows, 2);
    assert_ok(lfa_history_apply(&h, &inv, 2, &err), &err);
    assigned(got, sizeof got, lfa_history_head(&h));
    assert_string_equal(got, "1 2 3 4 6 ");
    lfa_history_close(&h);
  }
}

static void test_FA_CONC_5_compaction_after_invalidation(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    lfa_history h;
    lfa_error err = {0};
    char got[128];
    setup(&h, stable);
    lfa_request inv = invalidate((const uint64_t[]){4}, 1);
    lfa_request compact = {.op = LFA_OP_COMPACT};
    assert_ok(lfa_history_apply(&h, &inv, 2, &err), &err);
    assert_ok(lfa_history_apply(&h, &compact, 2, &err), &err); /* states read in P, not R */
    assigned(got, sizeof got, lfa_history_head(&h));
    assert_string_equal(got, "1 2 3 5 6 ");
    lfa_history_close(&h);
  }
}

static void test_FA_CONC_7_initialization_racing_an_append(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  setup(&h, false);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = {1, (const uint64_t[]){7}}, .fields = {1, ID}};
  lfa_request yes = {.op = LFA_OP_TRACK, .field = "id", .assignment = LFA_ASSIGNED};
  lfa_request no = {.op = LFA_OP_TRACK, .field = "id", .assignment = LFA_UNASSIGNED};
  assert_ok(lfa_history_apply(&h, &ap, 2, &err), &err);
  assert_status(lfa_history_apply(&h, &yes, 2, &err), LFA_ERR_CONFLICT, &err); /* row 7 was never seen */
  assert_rule(&err, "FA-CONC-7");
  assert_ok(lfa_history_apply(&h, &no, 2, &err), &err); /* unassigned never conflicts */
  assert_non_null(lfa_table_tracked(lfa_history_head(&h), 0));
  lfa_request again = {.op = LFA_OP_TRACK, .field = "id", .assignment = LFA_UNASSIGNED};
  assert_int_not_equal(lfa_history_apply(&h, &again, 3, &err), LFA_OK); /* [FA-CONC-8] */
  assert_rule(&err, "FA-CONC-8");
  lfa_history_close(&h);
}

/* Three writers read version 2: an append of 7, 8 (committed as 3, first
 * file v3-0.lance), a compaction of fragments 0 and 1 (committed as 4,
 * v4-0.lance: named after the version it commits as, not after the read
 * version the append shares, FA-LANCE-20) and an invalidation of key 1.
 * The invalidation is mapped through the compaction's group (FA-REMAP-1):
 * key 1 is the group's first live old row (fragment 0, offset 0), so it
 * lands on the first row of the compaction's new fragment, found by its
 * first file, which holds key 1; never on the appended fragment (7, 8).
 * emb was written on 1..6 (setup) and 7, 8 are appended storing it. */
static void test_FA_CONC_4_remap_finds_the_compacted_fragment_by_its_file(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  char got[128];
  setup(&h, false);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}}, .fields = {2, BOTH}};
  lfa_request compact = {.op = LFA_OP_COMPACT};
  lfa_request inv = invalidate((const uint64_t[]){1}, 1);
  assert_ok(lfa_history_apply(&h, &ap, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &compact, 2, &err), &err);
  const lfa_table *four = lfa_history_version(&h, 4);
  assert_int_equal(four->n_fragments, 2); /* the appended fragment 2, then the compacted one */
  assert_string_equal(four->fragments[0].files[0].path, "v3-0.lance");
  assert_string_equal(four->fragments[1].files[0].path, "v4-0.lance");
  assert_ok(lfa_history_apply(&h, &inv, 2, &err), &err);
  assigned(got, sizeof got, lfa_history_head(&h));
  assert_string_equal(got, "2 3 4 5 6 7 8 ");
  lfa_history_close(&h);
}

/* [FA-CONC-7] A merge_insert that deletes the matched key 1 and inserts
 * key 7 leaves six live rows, as before, but row 7 was never seen by an
 * assigned initialization read at version 2: retryable. Unassigned goes
 * through. */
static void test_FA_CONC_7_insert_that_keeps_the_row_count(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  setup(&h, false);
  lfa_request mi = {.op = LFA_OP_MERGE_INSERT, .rows = {1, (const uint64_t[]){1}}, .inserts = {1, (const uint64_t[]){7}},
                    .fields = {1, ID}, .delete_matched = true};
  lfa_request yes = {.op = LFA_OP_TRACK, .field = "id", .assignment = LFA_ASSIGNED};
  lfa_request no = {.op = LFA_OP_TRACK, .field = "id", .assignment = LFA_UNASSIGNED};
  assert_ok(lfa_history_apply(&h, &mi, 2, &err), &err);
  assert_status(lfa_history_apply(&h, &yes, 2, &err), LFA_ERR_CONFLICT, &err);
  assert_rule(&err, "FA-CONC-7");
  assert_ok(lfa_history_apply(&h, &no, 2, &err), &err);
  lfa_history_close(&h);
}

/* 06§2 "Merge or cast | any Update, Append, Delete, Rewrite |
 * retryable (Lance)": a Merge restates the fragment list it read, so an
 * add_columns read at 2 cannot commit over an append (version 3). */
static void test_merge_after_an_append_is_retryable(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  setup(&h, false);
  static const lfa_new_field score[] = {{"score", "double", true, LFA_UNASSIGNED}};
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = {1, (const uint64_t[]){7}}, .fields = {1, ID}};
  lfa_request add = {.op = LFA_OP_ADD_COLUMNS, .new_fields = score, .n_new_fields = 1};
  assert_ok(lfa_history_apply(&h, &ap, 2, &err), &err);
  assert_status(lfa_history_apply(&h, &add, 2, &err), LFA_ERR_CONFLICT, &err);
  assert_int_equal(h.count, 3);
  assert_ok(lfa_history_apply(&h, &add, 3, &err), &err);
  lfa_history_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_CONC_3_two_invalidations_both_kept),
      cmocka_unit_test(test_FA_CONC_4_append_then_invalidation_keeps_addresses),
      cmocka_unit_test(test_FA_CONC_4_deleted_rows_drop_out),
      cmocka_unit_test(test_FA_CONC_4_rows_moved_by_an_update),
      cmocka_unit_test(test_FA_CONC_5_update_rebuilt_on_the_head),
      cmocka_unit_test(test_delete_with_delete),
      cmocka_unit_test(test_FA_CONC_4_invalidation_after_compaction),
      cmocka_unit_test(test_FA_REMAP_1_invalidation_after_compaction_into_two),
      cmocka_unit_test(test_FA_CONC_5_compaction_after_invalidation),
      cmocka_unit_test(test_FA_CONC_7_initialization_racing_an_append),
      cmocka_unit_test(test_FA_CONC_4_remap_finds_the_compacted_fragment_by_its_file),
      cmocka_unit_test(test_FA_CONC_7_insert_that_keeps_the_row_count),
      cmocka_unit_test(test_merge_after_an_append_is_retryable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
