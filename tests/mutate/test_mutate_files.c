/* test_mutate_files.c: merge_insert, compaction, data replacement and data
 * overlays (ref/mutate/mutate_files.c), built against R and committed with
 * lfa_commit, so that apply's rules check every transaction. Expected
 * states are derived by hand from the spec (05§5, 05§11, 05§13,
 * §14) and Lance's compaction planning (02§8.3), in both
 * row-id modes. Requirement ids: FA-MERGEINSERT-1, FA-MERGEINSERT-3,
 * FA-MERGEINSERT-4, FA-MERGEINSERT-5, FA-MERGEINSERT-6, FA-UPDATE-4,
 * FA-SEM-5, FA-INVAL-2, FA-REWRITE-1, FA-REWRITE-2, FA-REMAP-1, FA-REMAP-2,
 * FA-REMAP-3, FA-REPLACE-1, FA-OVERLAY-1, FA-OVERLAY-3. */
#include "testutil.h"

#include "history_util.h"

static const lfa_fragment *fragment(const lfa_table *t, uint64_t id) {
  size_t i = lfa_table_fragment(t, id);
  if (i == SIZE_MAX) fail_msg("no fragment %llu", (unsigned long long)id);
  return &t->fragments[i];
}

/* The cell of `field` in fragment `id`: "all", "none" or "o o ...". */
static void check_cell(const lfa_table *t, uint64_t id, int32_t field, const char *want) {
  char got[256] = "";
  size_t i = lfa_table_fragment(t, id), used = 0;
  const lfa_cell *c = &lfa_table_tracked(t, field)->cells[i];
  if (c->kind != LFA_CELL_PARTIAL) snprintf(got, sizeof got, "%s", c->kind == LFA_CELL_ALL ? "all" : "none");
  for (uint32_t o = 0; c->kind == LFA_CELL_PARTIAL && o < t->fragments[i].physical_rows; o++)
    if (roaring_bitmap_contains(c->rows, o)) used += (size_t)snprintf(got + used, sizeof got - used, "%u ", o);
  assert_string_equal(got, want);
}

/* "id:rows ..." of every fragment, in list order. */
static void check_fragments(const lfa_table *t, const char *want) {
  char got[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < t->n_fragments; i++)
    used += (size_t)snprintf(got + used, sizeof got - used, "%llu:%llu ", (unsigned long long)t->fragments[i].id,
                             (unsigned long long)t->fragments[i].physical_rows);
  assert_string_equal(got, want);
}

/* Every key in these tests is given at insert, in order, and so is every
 * stable row id (from 0): a live row's id is its key - 1, wherever it went.
 * Address mode: no row ids. */
static void check_row_ids(const lfa_table *t) {
  for (size_t i = 0; i < t->n_fragments; i++) {
    const lfa_fragment *f = &t->fragments[i];
    if (!t->stable_row_ids) assert_null(f->row_ids);
    for (uint32_t o = 0; t->stable_row_ids && o < f->physical_rows; o++)
      if (lfa_fragment_is_live(f, o)) assert_int_equal(f->row_ids[o], f->keys[o] - 1);
  }
}

static const uint64_t K1_20[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"payload", "struct", true, LFA_UNTRACKED},
    {"payload.value", "int32", true, LFA_UNASSIGNED},
};
enum { ID = 0, EMB = 1, PAYLOAD = 2, VALUE = 3 };
static const char *ID_ONLY[] = {"id"}, *EMB_ONLY[] = {"emb"}, *VALUE_ONLY[] = {"payload.value"};
static const char *ID_EMB[] = {"id", "emb"}, *FULL[] = {"id", "emb", "payload"};

/* Keys 1..rows, `per_file` rows per fragment, only `id` stored. */
static void create(hist *h, bool stable, size_t rows, uint64_t per_file) {
  lfa_request q = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 4, .stable_row_ids = stable,
                   .rows = {rows, K1_20}, .rows_per_file = per_file, .fields = {1, ID_ONLY}};
  must(h, &q);
}

/* Writes `fields` on `keys` in place (REWRITE_COLUMNS). */
static void write_cols(hist *h, lfa_keys keys, const char **fields, size_t n_fields) {
  lfa_request q = {.op = LFA_OP_UPDATE, .rows = keys, .fields = {n_fields, fields}, .rewrite_columns = true};
  must(h, &q);
}

#define KEYS(...) ((lfa_keys){sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (const uint64_t[]){__VA_ARGS__}})

/* ---- merge_insert ----------------------------------------------------------- */

static void test_FA_MERGEINSERT_1_on_rowid_is_update_only(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    create(&h, stable, 6, 3);
    /* source (_rowid, emb) for rows 2 and 5; emb values may be NULL: a NULL
     * value in the source is written all the same */
    lfa_request q = {.op = LFA_OP_MERGE_INSERT, .on_row_id = true, .rows = KEYS(2, 5), .fields = {1, EMB_ONLY}};
    must(&h, &q);
    check_assigned(head(&h), EMB, "2 5 ");
    check_assigned(head(&h), VALUE, "");
    check_fragments(head(&h), "0:3 1:3 "); /* partial source: columns in place */
    check_row_ids(head(&h));
    lfa_request with_insert = q;
    with_insert.inserts = KEYS(7);
    refused(&h, &with_insert, "FA-MERGEINSERT-1");
    lfa_request with_delete = q;
    with_delete.delete_matched = true;
    refused(&h, &with_delete, "FA-MERGEINSERT-1");
    lfa_request nothing = {.op = LFA_OP_MERGE_INSERT, .on_row_id = true, .rows = KEYS(2)};
    refused(&h, &nothing, "FA-INVAL-2");
    /* source (_rowid) only, invalidating emb on row 5 */
    lfa_request inval = {.op = LFA_OP_MERGE_INSERT, .on_row_id = true, .rows = KEYS(5), .invalidate = {1, EMB_ONLY}};
    must(&h, &inval);
    check_assigned(head(&h), EMB, "2 ");
    /* source (_rowid, id) with emb invalidated: nothing left assigned */
    lfa_request again = {.op = LFA_OP_MERGE_INSERT, .on_row_id = true, .rows = KEYS(2, 5), .fields = {1, ID_ONLY},
                         .invalidate = {1, EMB_ONLY}};
    must(&h, &again);
    check_assigned(head(&h), EMB, "");
    check_live(head(&h), "1 2 3 4 5 6 ");
    free_hist(&h);
  }
}

static void test_FA_MERGEINSERT_3_and_4_full_schema_rows_move(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    create(&h, stable, 6, 3); /* fragment 0: keys 1 2 3, fragment 1: keys 4 5 6 */
    write_cols(&h, KEYS(1, 4), EMB_ONLY, 1);
    lfa_request q = {.op = LFA_OP_MERGE_INSERT, .rows = KEYS(2, 4), .inserts = KEYS(7, 8), .fields = {3, FULL}};
    must(&h, &q);
    const lfa_table *t = head(&h);
    /* 2 and 4 moved to fragment 2, every field written; 7 and 8 inserted
     * into fragment 3, every field supplied; 1 kept its state */
    check_assigned(t, EMB, "1 2 4 7 8 ");
    check_assigned(t, VALUE, "2 4 7 8 ");
    check_live(t, "1 2 3 4 5 6 7 8 ");
    check_fragments(t, "0:3 1:3 2:2 3:2 ");
    assert_int_equal(fragment(t, 2)->keys[0], 2);
    assert_int_equal(fragment(t, 2)->keys[1], 4);
    assert_int_equal(fragment(t, 2)->files[0].n_fields, 4);
    assert_int_equal(fragment(t, 3)->files[0].n_fields, 4);
    check_cell(t, 2, EMB, "all");
    check_cell(t, 3, VALUE, "all");
    check_row_ids(t); /* moved rows keep their ids; 7 and 8 get 6 and 7 */
    /* a full source writes every field: none can be invalidated */
    lfa_request inval = {.op = LFA_OP_MERGE_INSERT, .rows = KEYS(5), .fields = {3, FULL}, .invalidate = {1, EMB_ONLY}};
    refused(&h, &inval, "FA-SEM-5");
    free_hist(&h);
  }
}

static void test_FA_MERGEINSERT_3_and_FA_UPDATE_4_partial_schema(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    create(&h, stable, 6, 3);
    write_cols(&h, KEYS(1, 2), VALUE_ONLY, 1);
    lfa_request q = {.op = LFA_OP_MERGE_INSERT, .rows = KEYS(2, 5), .inserts = KEYS(7), .fields = {2, ID_EMB}};
    must(&h, &q);
    const lfa_table *t = head(&h);
    /* matched 2 and 5: emb written, value kept (2 assigned, 5 not);
     * inserted 7: emb assigned, value not supplied */
    check_assigned(t, EMB, "2 5 7 ");
    check_assigned(t, VALUE, "1 2 ");
    check_fragments(t, "0:3 1:3 2:1 "); /* matched rows stay; 7 in a new fragment */
    const lfa_fragment *inserted = fragment(t, 2);
    assert_int_equal(inserted->n_files, 1); /* it stores only the source's fields */
    assert_int_equal(inserted->files[0].n_fields, 2);
    assert_int_equal(inserted->files[0].fields[0], ID);
    assert_int_equal(inserted->files[0].fields[1], EMB);
    check_cell(t, 2, EMB, "all");
    check_cell(t, 2, VALUE, "none");
    check_cell(t, 0, EMB, "1 "); /* key 2 at offset 1 */
    check_row_ids(t);
    free_hist(&h);
  }
}

static void test_FA_MERGEINSERT_5_invalidation(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    const char *emb_payload[] = {"emb", "payload"}, *nope[] = {"nope"};
    create(&h, stable, 6, 3);
    write_cols(&h, KEYS(1, 2, 3, 4, 5, 6), emb_payload, 2); /* everything assigned */
    lfa_request q = {.op = LFA_OP_MERGE_INSERT, .rows = KEYS(2, 3), .inserts = KEYS(7), .fields = {2, ID_EMB},
                     .invalidate = {1, VALUE_ONLY}};
    must(&h, &q);
    check_assigned(head(&h), EMB, "1 2 3 4 5 6 7 ");
    check_assigned(head(&h), VALUE, "1 4 5 6 "); /* 2 3 invalidated, 7 not supplied */
    check_row_ids(head(&h));
    lfa_request source_field = q;
    source_field.inserts = (lfa_keys){0, NULL}, source_field.invalidate = (lfa_names_list){1, EMB_ONLY};
    refused(&h, &source_field, "FA-SEM-5"); /* the source holds emb */
    lfa_request deleting = q;
    deleting.delete_matched = true;
    deleting.inserts = (lfa_keys){0, NULL};
    refused(&h, &deleting, "FA-MERGEINSERT-5"); /* no matched-row update */
    lfa_request unknown = q;
    unknown.inserts = (lfa_keys){0, NULL}, unknown.invalidate = (lfa_names_list){1, nope};
    refused(&h, &unknown, "FA-INVAL-2");
    free_hist(&h);
  }
}

static void test_FA_MERGEINSERT_6_delete_matched(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    create(&h, stable, 6, 3);
    write_cols(&h, KEYS(1, 2, 4), EMB_ONLY, 1);
    lfa_request q = {.op = LFA_OP_MERGE_INSERT, .rows = KEYS(2, 4), .delete_matched = true, .inserts = KEYS(7),
                     .fields = {2, ID_EMB}};
    must(&h, &q);
    check_live(head(&h), "1 3 5 6 7 ");
    check_assigned(head(&h), EMB, "1 7 "); /* deleted rows: gone, no other change */
    check_assigned(head(&h), VALUE, "");
    /* delete-only: keys 1 and 3 were fragment 0's last live rows */
    lfa_request only = {.op = LFA_OP_MERGE_INSERT, .rows = KEYS(1, 3), .delete_matched = true};
    must(&h, &only);
    check_live(head(&h), "5 6 7 ");
    check_assigned(head(&h), EMB, "7 ");
    check_fragments(head(&h), "1:3 2:1 ");
    check_row_ids(head(&h));
    free_hist(&h);
  }
}

/* ---- compaction ----------------------------------------------------------------- */

/* Builds (without committing) the change of `q` on the head and describes
 * its Rewrite groups: "old>new ..." fragment counts per group. */
static void check_groups(const hist *h, const lfa_request *q, const char *want) {
  lfa_change c;
  lfa_error err = {0};
  char got[256] = "";
  size_t used = 0;
  assert_ok(lfa_mutate(&c, head(h), q, &err), &err);
  const Lance__Table__Transaction__Rewrite *rw = c.txn->rewrite;
  assert_non_null(rw);
  assert_int_equal(rw->n_old_fragments + rw->n_new_fragments, 0); /* groups, not the legacy form */
  for (size_t g = 0; g < rw->n_groups; g++)
    used += (size_t)snprintf(got + used, sizeof got - used, "%zu>%zu ", rw->groups[g]->n_old_fragments,
                             rw->groups[g]->n_new_fragments);
  lfa_change_free(&c);
  assert_string_equal(got, want);
}

/* The upstream layout example (address-mode-history v3-v9): two 10-row
 * fragments; emb on offsets {1,2,5} of fragment 0 and {3} of fragment 1;
 * offsets {2,7} of fragment 0 deleted; offset 3 of fragment 1 invalidated;
 * then compacted into one 18-row fragment where emb is {1,4}. */
static void test_FA_REWRITE_1_and_FA_REMAP_1_upstream_example(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    create(&h, stable, 20, 10); /* fragment 0: keys 1..10 at offsets 0..9; fragment 1: keys 11..20 */
    write_cols(&h, KEYS(2, 3, 6, 14), EMB_ONLY, 1);
    write_cols(&h, KEYS(12, 20), VALUE_ONLY, 1);
    lfa_request del = {.op = LFA_OP_DELETE, .rows = KEYS(3, 8)};
    must(&h, &del);
    lfa_request inval = {.op = LFA_OP_UPDATE, .rows = KEYS(14), .invalidate = {1, EMB_ONLY}};
    must(&h, &inval);
    lfa_request compact = {.op = LFA_OP_COMPACT};
    check_groups(&h, &compact, "2>1 ");
    must(&h, &compact);
    const lfa_table *t = head(&h);
    /* new offsets: fragment 0's live 0 1 3 4 5 6 8 9 -> 0..7, fragment 1's
     * 0..9 -> 8..17: emb {1,5} -> {1,4}; value {1,9} of fragment 1 -> {9,17} */
    check_fragments(t, "2:18 ");
    check_cell(t, 2, EMB, "1 4 ");
    check_cell(t, 2, VALUE, "9 17 ");
    check_assigned(t, EMB, "2 6 ");
    check_assigned(t, VALUE, "12 20 ");
    check_live(t, "1 2 4 5 6 7 9 10 11 12 13 14 15 16 17 18 19 20 ");
    const lfa_fragment *f = fragment(t, 2);
    assert_null(f->deleted); /* [FA-REMAP-2] no deletion file */
    assert_int_equal(f->n_files, 1);
    assert_int_equal(f->files[0].n_fields, 4); /* every field of the schema */
    assert_int_equal(f->keys[1], 2);
    assert_int_equal(f->keys[4], 6);
    assert_int_equal(f->keys[8], 11);
    check_row_ids(t); /* [FA-REMAP-3] ids survive */
    free_hist(&h);
  }
}

static void test_FA_REMAP_1_deletion_heavy_fragment_compacts_itself(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    lfa_error err = {0};
    create(&h, stable, 20, 10);
    write_cols(&h, KEYS(12, 13, 19), EMB_ONLY, 1);
    lfa_request compact = {.op = LFA_OP_COMPACT, .rows_per_file = 10};
    assert_status(step(&h, &compact, &err), LFA_ERR_USAGE, &err); /* 10 rows each: no candidate */
    assert_non_null(strstr(err.msg, "nothing to compact"));
    assert_rule(&err, "FA-REWRITE-4"); /* an empty plan is refused */
    lfa_request del = {.op = LFA_OP_DELETE, .rows = KEYS(11)};
    must(&h, &del);
    /* [FA-REWRITE-4] exactly 10% deleted is not more than 10%, and candidacy
     * counts physical rows (10, not below the target) where live rows (9)
     * would have made both fragments candidates */
    refused(&h, &compact, "FA-REWRITE-4");
    del.rows = KEYS(13);
    must(&h, &del);
    check_groups(&h, &compact, "1>1 ");
    must(&h, &compact); /* fragment 1 alone: 20% deleted */
    const lfa_table *t = head(&h);
    check_fragments(t, "0:10 2:8 ");
    /* fragment 2 holds 12 14 15 16 17 18 19 20 at offsets 0..7 */
    check_cell(t, 2, EMB, "0 6 ");
    check_assigned(t, EMB, "12 19 ");
    check_cell(t, 0, EMB, "none");
    check_row_ids(t);
    free_hist(&h);
  }
}

static void test_FA_REMAP_1_only_adjacent_candidates_are_grouped(void **state) {
  (void)state;
  static const uint64_t more[] = {13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26};
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    create(&h, stable, 12, 3); /* fragments 0..3: keys 1-3, 4-6, 7-9, 10-12 */
    size_t sizes[] = {5, 2, 5, 2}, at = 0;
    for (size_t k = 0; k < 4; at += sizes[k++]) { /* fragments 4..7 */
      lfa_request a = {.op = LFA_OP_APPEND, .rows = {sizes[k], more + at}, .fields = {1, ID_ONLY}};
      must(&h, &a);
    }
    write_cols(&h, KEYS(2, 7, 18), EMB_ONLY, 1);
    /* target 4: candidates 0 1 2 3 (3 rows), 5 and 7 (2 rows); 4 and 6 (5
     * rows) are not. Runs: 0..3, then 5 alone and 7 alone, which only want
     * neighbours: dropped. 0..3 (live 3 3 3 3) splits into 0 1 | 2 3, and
     * each group's 6 rows fill new fragments of 4 and 2 rows. */
    lfa_request compact = {.op = LFA_OP_COMPACT, .rows_per_file = 4};
    check_groups(&h, &compact, "2>2 2>2 ");
    must(&h, &compact);
    const lfa_table *t = head(&h);
    check_fragments(t, "4:5 5:2 6:5 7:2 8:4 9:2 10:4 11:2 ");
    check_cell(t, 8, EMB, "1 ");  /* keys 1 2 3 4 */
    check_cell(t, 9, EMB, "none"); /* keys 5 6 */
    check_cell(t, 10, EMB, "0 "); /* keys 7 8 9 10 */
    check_cell(t, 5, EMB, "0 ");  /* keys 18 19, untouched */
    check_assigned(t, EMB, "2 7 18 ");
    assert_int_equal(fragment(t, 11)->keys[1], 12);
    check_row_ids(t);
    free_hist(&h);
  }
}

/* ---- data replacement and overlays ---------------------------------------------- */

/* Builds q against the head, hands its change to `look`, then commits it. */
static void mutate_look_commit(hist *h, const lfa_request *q, void (*look)(const lfa_change *c)) {
  lfa_change c;
  lfa_error err = {0};
  assert_ok(lfa_mutate(&c, head(h), q, &err), &err);
  look(&c);
  assert_ok(lfa_commit(&h->v[h->n], head(h), &c, NULL, &err), &err);
  h->n++;
  lfa_change_free(&c);
}

/* The data files of a created fragment list every field of the schema, id
 * 0 to 3 in schema order, each once [FA-REWRITE-5]. */
static void check_whole_rows(const Lance__Table__DataFragment *pb) {
  size_t listed[4] = {0};
  for (size_t k = 0; k < pb->n_files; k++)
    for (size_t j = 0; j < pb->files[k]->n_fields; j++) {
      int32_t id = pb->files[k]->fields[j];
      assert_true(id >= 0 && id < 4);
      listed[id]++;
    }
  for (size_t id = 0; id < 4; id++) assert_int_equal(listed[id], 1);
}

static void look_rewrite_rows(const lfa_change *c) {
  assert_int_equal(c->txn->update->update_mode, LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_ROWS);
  assert_int_equal(c->txn->update->n_new_fragments, 1);
  check_whole_rows(c->txn->update->new_fragments[0]);
  /* [FA-UPDATE-7] the invalidation is in the FragmentStates, no RowChange */
  assert_non_null(c->txn->field_assignment_transaction);
  assert_int_equal(c->txn->field_assignment_transaction->n_row_changes, 0);
  assert_int_equal(c->txn->field_assignment_transaction->n_fragment_states, 2); /* emb, payload.value */
}

static void look_rewrite(const lfa_change *c) {
  assert_int_equal(c->txn->rewrite->n_groups, 1);
  assert_int_equal(c->txn->rewrite->groups[0]->n_new_fragments, 1);
  check_whole_rows(c->txn->rewrite->groups[0]->new_fragments[0]);
}

/* Keys 1..6 in fragments 0 {1,2,3} and 1 {4,5,6}, only id stored; value
 * written on 2, 5, emb on 2 (in place). A REWRITE_ROWS update writes emb
 * and invalidates payload.value on 2, 5: they move to fragment 2, whose
 * file stores whole rows [FA-REWRITE-5] and whose FragmentStates carry
 * the invalidation [FA-UPDATE-7]: emb {2,5}, value {}. Both old fragments
 * now have 1 of 3 rows deleted and fragment 2 is small, so a compaction
 * (target 1Mi) groups 0, 1, 2 into one new fragment 3 of 6 rows, whole;
 * the states stay. */
static void test_FA_REWRITE_5_and_FA_UPDATE_7_moved_rows_stored_whole(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    create(&h, stable, 6, 3);
    write_cols(&h, KEYS(2, 5), VALUE_ONLY, 1);
    write_cols(&h, KEYS(2), EMB_ONLY, 1);
    lfa_request move = {.op = LFA_OP_UPDATE, .rows = KEYS(2, 5), .fields = {1, EMB_ONLY}, .invalidate = {1, VALUE_ONLY}};
    mutate_look_commit(&h, &move, look_rewrite_rows);
    check_assigned(head(&h), EMB, "2 5 ");
    check_assigned(head(&h), VALUE, "");
    lfa_request compact = {.op = LFA_OP_COMPACT};
    mutate_look_commit(&h, &compact, look_rewrite);
    check_fragments(head(&h), "3:6 "); /* 2 + 2 live old rows, and the 2 moved ones */
    check_assigned(head(&h), EMB, "2 5 ");
    check_assigned(head(&h), VALUE, "");
    check_live(head(&h), "1 2 3 4 5 6 ");
    check_row_ids(head(&h));
    free_hist(&h);
  }
}

static void test_FA_REPLACE_1_whole_fragment_for_the_replaced_field(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    const char *none[] = {NULL};
    create(&h, stable, 6, 3);
    write_cols(&h, KEYS(2), EMB_ONLY, 1);
    lfa_request q = {.op = LFA_OP_REPLACE, .fragment_id = 1, .fields = {1, EMB_ONLY}};
    must(&h, &q); /* fragment 1 has no emb file: the file is added */
    check_assigned(head(&h), EMB, "2 4 5 6 ");
    check_assigned(head(&h), VALUE, "");
    assert_int_equal(fragment(head(&h), 1)->n_files, 2);
    lfa_request inval = {.op = LFA_OP_UPDATE, .rows = KEYS(5), .invalidate = {1, EMB_ONLY}};
    must(&h, &inval);
    must(&h, &q); /* the emb file is swapped: every row assigned again */
    check_assigned(head(&h), EMB, "2 4 5 6 ");
    assert_int_equal(fragment(head(&h), 1)->n_files, 2);
    q.fragment_id = 0;
    must(&h, &q); /* fragment 0 gained an emb file from the update: swapped */
    check_assigned(head(&h), EMB, "1 2 3 4 5 6 ");
    check_assigned(head(&h), VALUE, "");
    check_live(head(&h), "1 2 3 4 5 6 ");
    check_row_ids(head(&h));
    lfa_request bad = {.op = LFA_OP_REPLACE, .fragment_id = 9, .fields = {1, EMB_ONLY}};
    refused(&h, &bad, NULL);
    bad.fragment_id = 1, bad.fields = (lfa_names_list){2, ID_EMB}; /* files [id] and [emb]: none exactly */
    refused(&h, &bad, "FA-REPLACE-2");
    bad.fields = (lfa_names_list){0, none};
    refused(&h, &bad, NULL);
    free_hist(&h);
  }
}

/* The overlay file of a DataOverlay change: its field count and coverage. */
static void check_coverage(const hist *h, const lfa_request *q, size_t fields, size_t bitmaps) {
  lfa_change c;
  lfa_error err = {0};
  assert_ok(lfa_mutate(&c, head(h), q, &err), &err);
  const Lance__Table__DataOverlayFile *of = c.txn->data_overlay->groups[0]->overlays[0];
  assert_int_equal(of->data_file->n_fields, fields);
  if (bitmaps == 0) {
    assert_int_equal(of->coverage_case, LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_SHARED_OFFSET_BITMAP);
  } else {
    assert_int_equal(of->coverage_case, LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_FIELD_COVERAGE);
    assert_int_equal(of->field_coverage->n_offset_bitmaps, bitmaps);
  }
  lfa_change_free(&c);
}

static void test_FA_OVERLAY_1_and_3_exactly_the_covered_rows(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    const char *emb_payload[] = {"emb", "payload"};
    create(&h, stable, 6, 3);
    /* covered values may be NULL: they count as written */
    lfa_request q = {.op = LFA_OP_OVERLAY, .fragment_id = 0, .rows = KEYS(1, 3), .fields = {1, EMB_ONLY}};
    check_coverage(&h, &q, 1, 0);
    must(&h, &q);
    check_assigned(head(&h), EMB, "1 3 ");
    check_assigned(head(&h), VALUE, "");
    lfa_request two = {.op = LFA_OP_OVERLAY, .fragment_id = 1, .rows = KEYS(5), .fields = {2, emb_payload}};
    check_coverage(&h, &two, 3, 3); /* emb, payload, payload.value: one bitmap each */
    must(&h, &two);
    check_assigned(head(&h), EMB, "1 3 5 ");
    check_assigned(head(&h), VALUE, "5 ");
    check_fragments(head(&h), "0:3 1:3 "); /* the structure does not change */
    assert_int_equal(fragment(head(&h), 1)->n_files, 1);
    check_row_ids(head(&h));
    lfa_request bad = {.op = LFA_OP_OVERLAY, .fragment_id = 0, .rows = KEYS(1, 4), .fields = {1, EMB_ONLY}};
    refused(&h, &bad, NULL); /* key 4 is a row of fragment 1 */
    bad.rows = (lfa_keys){0, NULL};
    refused(&h, &bad, NULL);
    bad.rows = KEYS(1), bad.fragment_id = 7;
    refused(&h, &bad, NULL);
    free_hist(&h);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_MERGEINSERT_1_on_rowid_is_update_only),
      cmocka_unit_test(test_FA_MERGEINSERT_3_and_4_full_schema_rows_move),
      cmocka_unit_test(test_FA_MERGEINSERT_3_and_FA_UPDATE_4_partial_schema),
      cmocka_unit_test(test_FA_MERGEINSERT_5_invalidation),
      cmocka_unit_test(test_FA_MERGEINSERT_6_delete_matched),
      cmocka_unit_test(test_FA_REWRITE_1_and_FA_REMAP_1_upstream_example),
      cmocka_unit_test(test_FA_REMAP_1_deletion_heavy_fragment_compacts_itself),
      cmocka_unit_test(test_FA_REMAP_1_only_adjacent_candidates_are_grouped),
      cmocka_unit_test(test_FA_REWRITE_5_and_FA_UPDATE_7_moved_rows_stored_whole),
      cmocka_unit_test(test_FA_REPLACE_1_whole_fragment_for_the_replaced_field),
      cmocka_unit_test(test_FA_OVERLAY_1_and_3_exactly_the_covered_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
