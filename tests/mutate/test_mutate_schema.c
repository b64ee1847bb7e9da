/* test_mutate_schema.c: the schema and whole-version mutations
 * (ref/mutate/mutate_schema.c) built against R and committed with lfa_commit,
 * so apply's rules check every transaction. Expectations are derived by
 * hand from the spec, by logical key. Requirement ids: FA-MERGE-1,
 * FA-MERGE-2, FA-NEST-6, FA-TXN-8, FA-PROJECT-1..4, FA-NEST-4, FA-CAST-1,
 * FA-CAST-2, FA-OVERWRITE-1, FA-OVERWRITE-2, FA-TXN-16, FA-RESTORE-1, FA-CLONE-1,
 * FA-CLONE-2, FA-TXN-15, FA-META-1, FA-ID-2. */
#include "history_util.h"

#include "lfa/bitmap.h"
#include "lfa/mutate.h"

/* ---- reading a table ---------------------------------------------------------- */

/* The id of the field at `path` ("payload.value"), or -1. */
static int32_t field_id(const lfa_table *t, const char *path) {
  int32_t parent = -1, found = -1;
  char buf[128];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *seg = strtok(buf, "."); seg != NULL; seg = strtok(NULL, ".")) {
    found = -1;
    for (size_t i = 0; i < t->n_fields && found < 0; i++)
      if (t->fields[i].parent_id == parent && strcmp(t->fields[i].name, seg) == 0) found = t->fields[i].id;
    if (found < 0) return -1;
    parent = found;
  }
  return found;
}

static void expect_state(const lfa_table *t, int32_t field, const char *want) {
  char got[512];
  assigned_keys(got, sizeof got, t, field);
  assert_string_equal(got, want);
}

/* Same tracked fields, and for each the same live rows assigned. */
static void expect_same_state(const lfa_table *a, const lfa_table *b) {
  char x[512], y[512];
  assert_int_equal(a->n_tracked, b->n_tracked);
  for (size_t k = 0; k < a->n_tracked; k++) {
    assert_int_equal(a->tracked[k].field_id, b->tracked[k].field_id);
    assigned_keys(x, sizeof x, a, a->tracked[k].field_id);
    assigned_keys(y, sizeof y, b, b->tracked[k].field_id);
    assert_string_equal(x, y);
  }
}

/* Does any data file of t list `id`? */
static bool any_file_lists(const lfa_table *t, int32_t id) {
  for (size_t i = 0; i < t->n_fragments; i++)
    if (lfa_fragment_stores(&t->fragments[i], id)) return true;
  return false;
}

/* ---- the dataset every test starts from ----------------------------------------- */

/* id 0 untracked, emb 1 unassigned, payload 2 (struct) untracked,
 * payload.value 3 unassigned; keys 1..6 in two fragments of 3 rows, only
 * `id` supplied: every data file lists [0], nothing is assigned. */
static const uint64_t K1_6[] = {1, 2, 3, 4, 5, 6};
static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"payload", "struct", true, LFA_UNTRACKED},
    {"payload.value", "int32", true, LFA_UNASSIGNED},
};
enum { ID = 0, EMB = 1, PAYLOAD = 2, VALUE = 3 };

static void create_in(hist *h, bool stable_row_ids) {
  const char *id_only[] = {"id"};
  lfa_request q = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 4, .rows = {6, K1_6}, .rows_per_file = 3,
                   .fields = {1, id_only}, .stable_row_ids = stable_row_ids};
  must(h, &q);
}

static void create(hist *h) { create_in(h, false); }

/* UPDATE in place (REWRITE_COLUMNS) of `path` on `keys`: they become assigned. */
static void write_field(hist *h, const char *path, size_t n, const uint64_t *keys) {
  const char *names[] = {path};
  lfa_request q = {.op = LFA_OP_UPDATE, .rows = {n, keys}, .fields = {1, names}, .rewrite_columns = true};
  must(h, &q);
}

static void track(hist *h, const char *path, lfa_assignment a) {
  lfa_request q = {.op = LFA_OP_TRACK, .field = path, .assignment = a};
  must(h, &q);
}

/* ---- §6 add_columns ------------------------------------------------------------------ */

static void test_FA_MERGE_2_add_columns_without_data(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  lfa_request d = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){2}}};
  must(&h, &d);
  static const lfa_new_field add[] = {
      {"a", "float", true, LFA_UNASSIGNED}, {"b", "int32", true, LFA_ASSIGNED}, {"c", "string", true, LFA_UNTRACKED}};
  lfa_request q = {.op = LFA_OP_ADD_COLUMNS, .new_fields = add, .n_new_fields = 3};
  must(&h, &q);
  const lfa_table *t = head(&h);
  /* ids from max_field_id + 1: the schema's largest id is 3, files list 0 */
  assert_int_equal(field_id(t, "a"), 4);
  assert_int_equal(field_id(t, "b"), 5);
  assert_int_equal(field_id(t, "c"), 6);
  assert_int_equal(t->n_tracked, 4); /* emb, value, a, b */
  expect_state(t, 4, "");            /* unassigned: no row */
  expect_state(t, 5, "1 3 4 5 6 ");  /* assigned: every live row */
  assert_null(lfa_table_tracked(t, 6));
  expect_state(t, EMB, "");
  for (size_t i = 0; i < t->n_fragments; i++) assert_int_equal(t->fragments[i].n_files, 1); /* AllNulls: no file */
  /* all-NULL columns must be nullable [FA-MERGE-3]; a name is not added twice */
  static const lfa_new_field not_null[] = {{"n", "int32", false, LFA_UNTRACKED}};
  static const lfa_new_field again[] = {{"id", "int32", true, LFA_UNTRACKED}};
  lfa_request bad = {.op = LFA_OP_ADD_COLUMNS, .new_fields = not_null, .n_new_fields = 1};
  refused(&h, &bad, "FA-MERGE-3");
  bad.new_fields = again;
  refused(&h, &bad, NULL);
  bad.n_new_fields = 0;
  refused(&h, &bad, NULL);
  free_hist(&h);
}

static void test_FA_MERGE_2_with_data_initial_state_stands(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) { /* both modes: the same (§6) */
    hist h = {0};
    create_in(&h, stable);
    static const lfa_new_field add[] = {
        {"d", "int64", false, LFA_UNTRACKED}, {"e", "float", true, LFA_UNASSIGNED}, {"f", "float", true, LFA_ASSIGNED}};
    lfa_request q = {.op = LFA_OP_ADD_COLUMNS, .new_fields = add, .n_new_fields = 3, .with_data = true};
    must(&h, &q);
    const lfa_table *t = head(&h);
    for (size_t i = 0; i < t->n_fragments; i++) { /* one new file per fragment listing 4 5 6 */
      assert_int_equal(t->fragments[i].n_files, 2);
      assert_int_equal(t->fragments[i].files[1].n_fields, 3);
      assert_int_equal(t->fragments[i].files[1].fields[0], 4);
      assert_int_equal(t->fragments[i].files[1].fields[2], 6);
  }
  assert_null(lfa_table_tracked(t, 4)); /* d: untracked */
  expect_state(t, 5, "");              /* e: written, yet its initial state stands */
  expect_state(t, 6, "1 2 3 4 5 6 ");
  expect_state(t, EMB, ""); /* a carried field the new file does not list */
  /* [FA-PROJECT-4] tracking later starts at the initial state on every row */
  track(&h, "d", LFA_ASSIGNED);
  expect_state(head(&h), 4, "1 2 3 4 5 6 ");
  write_field(&h, "id", 2, (const uint64_t[]){1, 2}); /* untracked: the write is not remembered */
  track(&h, "id", LFA_UNASSIGNED);
  expect_state(head(&h), ID, "");
  assert_int_equal(head(&h)->n_tracked, 6);
  if (stable) assert_int_equal(head(&h)->fragments[1].row_ids[0], 3); /* key 4 keeps row id 3 */
  free_hist(&h);
  }
}

static void test_FA_NEST_6_add_struct_initializes_children(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  static const lfa_new_field add[] = {
      {"meta", "struct", true, LFA_ASSIGNED},     {"meta.x", "int32", true, LFA_ASSIGNED},
      {"meta.y", "string", true, LFA_ASSIGNED},   {"loose", "struct", true, LFA_UNTRACKED},
      {"loose.z", "int32", true, LFA_UNASSIGNED}, /* FA-NEST-1: a child alone may be tracked */
  };
  lfa_request q = {.op = LFA_OP_ADD_COLUMNS, .new_fields = add, .n_new_fields = 5};
  must(&h, &q);
  const lfa_table *t = head(&h);
  assert_int_equal(field_id(t, "meta.y"), 6);
  expect_state(t, 4, "1 2 3 4 5 6 ");
  expect_state(t, 5, "1 2 3 4 5 6 ");
  expect_state(t, 6, "1 2 3 4 5 6 ");
  assert_null(lfa_table_tracked(t, 7));
  expect_state(t, 8, "");
  assert_int_equal(t->n_tracked, 6);
  /* a tracked struct's child with another assignment is refused */
  static const lfa_new_field untracked_child[] = {{"s", "struct", true, LFA_ASSIGNED}, {"s.k", "int32", true, LFA_UNTRACKED}};
  static const lfa_new_field other_child[] = {{"s", "struct", true, LFA_UNASSIGNED}, {"s.k", "int32", true, LFA_ASSIGNED}};
  lfa_request bad = {.op = LFA_OP_ADD_COLUMNS, .new_fields = untracked_child, .n_new_fields = 2};
  refused(&h, &bad, "FA-NEST-6");
  bad.new_fields = other_child;
  refused(&h, &bad, "FA-NEST-6");
  free_hist(&h);
}

/* ---- §7 project ------------------------------------------------------------------------ */

static void test_FA_TXN_8_tracking_twice_refused(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  lfa_request q = {.op = LFA_OP_TRACK, .field = "emb", .assignment = LFA_UNASSIGNED};
  refused(&h, &q, "FA-TXN-8");
  q.field = "payload.value", q.assignment = LFA_ASSIGNED;
  refused(&h, &q, "FA-TXN-8");
  track(&h, "id", LFA_ASSIGNED);
  q.field = "id";
  refused(&h, &q, "FA-TXN-8"); /* the second time */
  q.field = "nope"; /* an Initialization names a field of N's schema */
  refused(&h, &q, "FA-TXN-8");
  q.field = "payload", q.assignment = LFA_UNTRACKED; /* no state to start from */
  refused(&h, &q, "FA-PROJECT-4");
  assert_int_equal(h.n, 2);
  free_hist(&h);
}

static void test_FA_NEST_6_track_struct(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "payload.value", 2, (const uint64_t[]){1, 2});
  track(&h, "payload", LFA_ASSIGNED);
  expect_state(head(&h), PAYLOAD, "1 2 3 4 5 6 ");
  expect_state(head(&h), VALUE, "1 2 "); /* already tracked: keeps its state */
  assert_int_equal(head(&h)->n_tracked, 3);
  free_hist(&h);
  /* a struct whose children are untracked: all start together */
  hist g = {0};
  static const lfa_new_field schema[] = {
      {"k", "int64", false, LFA_UNTRACKED}, {"s", "struct", true, LFA_UNTRACKED},
      {"s.a", "int32", true, LFA_UNTRACKED}, {"s.b", "string", true, LFA_UNTRACKED}};
  const char *all[] = {"k", "s"};
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = schema, .n_new_fields = 4, .rows = {2, K1_6}, .fields = {2, all}};
  must(&g, &c);
  track(&g, "s", LFA_UNASSIGNED);
  assert_int_equal(head(&g)->n_tracked, 3);
  expect_state(head(&g), 1, "");
  expect_state(head(&g), 2, "");
  expect_state(head(&g), 3, "");
  free_hist(&g);
}

static void test_FA_PROJECT_1_rename_keeps_id_and_state(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "emb", 2, (const uint64_t[]){2, 4});
  lfa_request q = {.op = LFA_OP_RENAME, .field = "emb", .new_name = "vec"};
  must(&h, &q);
  assert_int_equal(field_id(head(&h), "vec"), EMB);
  assert_int_equal(field_id(head(&h), "emb"), -1);
  expect_state(head(&h), EMB, "2 4 ");
  q.field = "payload.value", q.new_name = "v";
  must(&h, &q);
  assert_int_equal(field_id(head(&h), "payload.v"), VALUE);
  assert_int_equal(head(&h)->n_tracked, 2);
  /* swapping two names swaps nothing: state follows ids */
  const char *swaps[][2] = {{"id", "tmp"}, {"vec", "id"}, {"tmp", "vec"}};
  for (size_t k = 0; k < 3; k++) {
    q.field = swaps[k][0], q.new_name = swaps[k][1];
    must(&h, &q);
  }
  assert_int_equal(field_id(head(&h), "id"), EMB);
  assert_int_equal(field_id(head(&h), "vec"), ID);
  expect_state(head(&h), EMB, "2 4 ");
  assert_null(lfa_table_tracked(head(&h), ID));
  q.field = "vec", q.new_name = "id"; /* taken */
  refused(&h, &q, NULL);
  q.new_name = "a.b";
  refused(&h, &q, NULL);
  q.new_name = "";
  refused(&h, &q, NULL);
  /* [FA-PROJECT-6] renaming, casting or dropping a field the schema lacks */
  q.field = "nope", q.new_name = "x";
  refused(&h, &q, "FA-PROJECT-6");
  lfa_request cast = {.op = LFA_OP_CAST, .field = "payload.nope", .new_type = "int32"};
  refused(&h, &cast, "FA-PROJECT-6");
  lfa_request drop = {.op = LFA_OP_DROP, .fields = {1, (const char *[]){"nope"}}};
  refused(&h, &drop, "FA-PROJECT-6");
  free_hist(&h);
}

static void test_FA_PROJECT_3_nullability(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "emb", 1, (const uint64_t[]){5});
  lfa_request q = {.op = LFA_OP_SET_NULLABLE, .field = "id", .nullable = true};
  must(&h, &q);
  assert_true(lfa_table_field(head(&h), ID)->nullable);
  expect_state(head(&h), EMB, "5 ");
  expect_same_state(head(&h), &h.v[h.n - 2]);
  q.field = "emb", q.nullable = false; /* nullable -> non-nullable is refused [FA-PROJECT-5] */
  refused(&h, &q, "FA-PROJECT-5");
  q.field = "nope", q.nullable = true; /* a field the schema lacks [FA-PROJECT-6] */
  refused(&h, &q, "FA-PROJECT-6");
  free_hist(&h);
}

static void test_FA_PROJECT_2_drop_ends_tracking(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  const char *emb[] = {"emb"}, *payload[] = {"payload"}, *value[] = {"payload.value"};
  lfa_request q = {.op = LFA_OP_DROP, .fields = {1, emb}};
  must(&h, &q);
  assert_int_equal(head(&h)->n_tracked, 1);
  assert_null(lfa_table_tracked(head(&h), EMB));
  assert_null(lfa_table_field(head(&h), EMB));
  q.fields = (lfa_names_list){1, payload}; /* [FA-NEST-4] the struct's tracked child goes with it */
  must(&h, &q);
  assert_int_equal(head(&h)->n_tracked, 0);
  assert_null(lfa_table_field(head(&h), VALUE));
  assert_int_equal(head(&h)->n_fields, 1);
  free_hist(&h);
  /* dropping a struct's only child drops the struct (Lance's Schema::exclude) */
  hist g = {0};
  create(&g);
  q.fields = (lfa_names_list){1, value};
  must(&g, &q);
  assert_int_equal(head(&g)->n_tracked, 1);
  assert_int_equal(field_id(head(&g), "payload"), -1);
  const char *nope[] = {"nope"}, *every[] = {"id", "emb"}; /* all that is left */
  q.fields = (lfa_names_list){1, nope};
  refused(&g, &q, NULL);
  q.fields = (lfa_names_list){2, every}; /* Lance: cannot drop all columns */
  refused(&g, &q, NULL);
  q.fields = (lfa_names_list){0, NULL};
  refused(&g, &q, NULL);
  free_hist(&g);
}

static void test_FA_ID_2_added_after_drop_starts_untracked(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "emb", 2, (const uint64_t[]){1, 2});
  const char *emb[] = {"emb"};
  lfa_request d = {.op = LFA_OP_DROP, .fields = {1, emb}};
  must(&h, &d);
  static const lfa_new_field add[] = {{"emb", "fixed_size_list:float:4", true, LFA_UNTRACKED}};
  lfa_request q = {.op = LFA_OP_ADD_COLUMNS, .new_fields = add, .n_new_fields = 1};
  must(&h, &q);
  /* data files still list 1, so max_field_id is 3: the new emb is 4 */
  assert_int_equal(field_id(head(&h), "emb"), 4);
  assert_null(lfa_table_tracked(head(&h), 4));
  assert_null(lfa_table_tracked(head(&h), EMB));
  free_hist(&h);
}

/* ---- §8 cast ------------------------------------------------------------------------------ */

static void test_FA_CAST_1_leaf_moves_state_to_new_id(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) { /* both modes: the same (§8) */
    hist h = {0};
    create_in(&h, stable);
    write_field(&h, "emb", 3, (const uint64_t[]){1, 3, 5}); /* files listing [1] join both fragments */
    lfa_request q = {.op = LFA_OP_CAST, .field = "emb", .new_type = "fixed_size_list:float:8"};
    must(&h, &q);
    const lfa_table *t = head(&h);
    assert_int_equal(field_id(t, "emb"), 4); /* max_field_id 3 + 1 */
    assert_string_equal(lfa_table_field(t, 4)->logical_type, "fixed_size_list:float:8");
    assert_null(lfa_table_field(t, EMB));
    assert_null(lfa_table_tracked(t, EMB));
    expect_state(t, 4, "1 3 5 "); /* the same rows assigned */
    assert_int_equal(t->n_tracked, 2);
    for (size_t i = 0; i < t->n_fragments; i++) assert_true(lfa_fragment_stores(&t->fragments[i], 4));
    assert_false(any_file_lists(t, EMB)); /* Lance's cast drops files left with no schema field */
    free_hist(&h);
  }
}

static void test_FA_CAST_2_struct_transfers_tracked_descendants(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "payload.value", 2, (const uint64_t[]){2, 6});
  lfa_request q = {.op = LFA_OP_CAST, .field = "payload", .new_type = "struct"};
  must(&h, &q);
  const lfa_table *t = head(&h);
  assert_int_equal(field_id(t, "payload"), 4); /* the subtree renumbered from 4, in schema order */
  assert_int_equal(field_id(t, "payload.value"), 5);
  assert_int_equal(lfa_table_field(t, 5)->parent_id, 4);
  assert_null(lfa_table_field(t, PAYLOAD));
  assert_null(lfa_table_field(t, VALUE));
  assert_null(lfa_table_tracked(t, VALUE));
  assert_null(lfa_table_tracked(t, 4)); /* payload was untracked */
  expect_state(t, 5, "2 6 ");
  assert_int_equal(t->n_tracked, 2);
  /* [FA-CAST-4] the struct and its child both got new ids (above), and the
   * one file the cast adds to each fragment lists exactly 4 and 5: not emb,
   * which stays unassigned (a file listing it would write it, FA-MERGE-1) */
  for (size_t i = 0; i < t->n_fragments; i++) {
    const lfa_data_file *added = &t->fragments[i].files[t->fragments[i].n_files - 1];
    assert_int_equal(added->n_fields, 2);
    assert_int_equal(added->fields[0], 4);
    assert_int_equal(added->fields[1], 5);
  }
  expect_state(t, EMB, "");
  free_hist(&h);
  /* a tracked struct and its tracked child are both transferred */
  hist g = {0};
  create(&g);
  write_field(&g, "payload.value", 2, (const uint64_t[]){2, 6});
  track(&g, "payload", LFA_ASSIGNED);
  must(&g, &q);
  expect_state(head(&g), 4, "1 2 3 4 5 6 ");
  expect_state(head(&g), 5, "2 6 ");
  assert_int_equal(head(&g)->n_tracked, 3);
  lfa_request bad = {.op = LFA_OP_CAST, .field = "nope", .new_type = "int64"};
  refused(&g, &bad, "FA-PROJECT-6");
  bad.field = "id", bad.new_type = NULL;
  refused(&g, &bad, NULL);
  free_hist(&g);
}

/* ---- §4 overwrite ---------------------------------------------------------------------------- */

static void test_FA_OVERWRITE_1_only_what_it_initializes(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "emb", 2, (const uint64_t[]){1, 2});
  static const lfa_new_field schema[] = {
      {"k", "int64", false, LFA_UNTRACKED}, {"v", "float", true, LFA_UNASSIGNED}, {"w", "float", true, LFA_ASSIGNED}};
  const char *kv[] = {"k", "v"};
  lfa_request q = {.op = LFA_OP_OVERWRITE, .new_fields = schema, .n_new_fields = 3,
                   .rows = {3, (const uint64_t[]){10, 11, 12}}, .fields = {2, kv}};
  must(&h, &q);
  const lfa_table *t = head(&h);
  assert_int_equal(t->version, 3);
  assert_int_equal(t->n_fragments, 1);
  assert_int_equal(t->fragments[0].id, 0); /* ids restart at 0 */
  assert_int_equal(field_id(t, "v"), 1);    /* emb's old id, now another field */
  assert_int_equal(t->n_tracked, 2);
  expect_state(t, 1, "");            /* v: initialized unassigned, emb's rows gone */
  expect_state(t, 2, "10 11 12 ");   /* w: initialized assigned */
  /* nothing initialized: nothing tracked, though ids 1 and 2 are in the schema */
  static const lfa_new_field plain[] = {{"k", "int64", false, LFA_UNTRACKED}, {"v", "float", true, LFA_UNTRACKED},
                                        {"w", "float", true, LFA_UNTRACKED}};
  q.new_fields = plain, q.rows = (lfa_keys){1, (const uint64_t[]){20}};
  must(&h, &q);
  assert_int_equal(head(&h)->n_tracked, 0);
  q.n_new_fields = 0;
  refused(&h, &q, NULL);
  free_hist(&h);
  /* [FA-OVERWRITE-2] without a dataset an overwrite creates one */
  hist g = {0};
  q.new_fields = schema, q.n_new_fields = 3;
  must(&g, &q);
  assert_int_equal(head(&g)->version, 1);
  expect_state(head(&g), 2, "20 ");
  free_hist(&g);
}

/* [FA-LANCE-22] [FA-OVERWRITE-4] [FA-RESTORE-3] Fragment ids and row ids
 * through an Overwrite and a Restore, stable row ids, derived from 02§2:
 * v1 fragments 0 {1,2,3} and 1 {4,5,6}, row ids 0..5; v2 appends 7, 8 as
 * fragment 2, row ids 6, 7 (next_row_id 8, max_fragment_id 2). v3
 * overwrites with 10, 11: fragment 0 again, row ids 8, 9 from P's
 * next_row_id, max_fragment_id still 2. v4 appends 12: fragment 3 (above
 * the high-water mark, not 1), row id 10. v5 restores v2: fragments 0, 1,
 * 2 and next_row_id 8 as in v2, max_fragment_id 3 (P's, the larger). v6
 * appends 13: fragment 4, row id 8. */
static void test_FA_LANCE_22_ids_after_overwrite_and_restore(void **state) {
  (void)state;
  hist h = {0};
  lfa_error err = {0};
  create_in(&h, true);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}}};
  must(&h, &ap);
  lfa_request ow = {.op = LFA_OP_OVERWRITE, .new_fields = SCHEMA, .n_new_fields = 4,
                    .rows = {2, (const uint64_t[]){10, 11}}};
  must(&h, &ow);
  const lfa_table *t = head(&h);
  assert_int_equal(t->n_fragments, 1);
  assert_int_equal(t->fragments[0].id, 0);
  assert_int_equal(t->fragments[0].row_ids[0], 8);
  assert_int_equal(t->fragments[0].row_ids[1], 9);
  assert_int_equal(t->max_fragment_id, 2);
  assert_int_equal(t->next_row_id, 10);
  ap.rows = (lfa_keys){1, (const uint64_t[]){12}};
  must(&h, &ap);
  t = head(&h);
  assert_int_equal(t->fragments[t->n_fragments - 1].id, 3);
  assert_int_equal(t->fragments[t->n_fragments - 1].row_ids[0], 10);
  lfa_request rs = {.op = LFA_OP_RESTORE, .version = 2};
  assert_ok(step_with(&h, &rs, &h.v[1], &err), &err);
  t = head(&h);
  assert_int_equal(t->n_fragments, 3);
  for (size_t i = 0; i < 3; i++) assert_int_equal(t->fragments[i].id, i);
  assert_int_equal(t->next_row_id, 8);
  assert_int_equal(t->max_fragment_id, 3);
  ap.rows = (lfa_keys){1, (const uint64_t[]){13}};
  must(&h, &ap);
  t = head(&h);
  assert_int_equal(t->fragments[t->n_fragments - 1].id, 4);
  assert_int_equal(t->fragments[t->n_fragments - 1].row_ids[0], 8);
  free_hist(&h);
}

/* ---- §15 restore, §16 clone ------------------------------------------------------------------ */

static void test_FA_RESTORE_1_restored_state(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "emb", 2, (const uint64_t[]){1, 2}); /* v2 */
  lfa_request d = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){1}}};
  must(&h, &d); /* v3 */
  const char *emb[] = {"emb"};
  lfa_request drop = {.op = LFA_OP_DROP, .fields = {1, emb}};
  must(&h, &drop); /* v4: emb untracked */
  lfa_request q = {.op = LFA_OP_RESTORE, .version = 2};
  lfa_change c;
  lfa_error err = {0};
  assert_ok(lfa_mutate(&c, head(&h), &q, &err), &err);
  assert_int_equal(c.txn->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_RESTORE);
  assert_int_equal(c.txn->restore->version, 2);
  assert_null(c.txn->field_assignment_transaction); /* FA-TXN-15 */
  assert_ok(lfa_commit(&h.v[h.n], head(&h), &c, &h.v[1], &err), &err);
  h.n++;
  lfa_change_free(&c);
  assert_int_equal(head(&h)->version, 5);
  assert_int_equal(field_id(head(&h), "emb"), EMB);
  expect_state(head(&h), EMB, "1 2 "); /* key 1 is live again */
  expect_same_state(head(&h), &h.v[1]);
  const uint64_t bad[] = {0, 5, 9};
  for (size_t k = 0; k < 3; k++) {
    q.version = bad[k];
    refused(&h, &q, NULL);
  }
  free_hist(&h);
}

static void test_FA_CLONE_1_and_2_clone_equals_source(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "emb", 2, (const uint64_t[]){2, 3});
  for (int deep = 0; deep < 2; deep++) {
    lfa_request q = {.op = LFA_OP_CLONE, .deep = deep};
    lfa_change c;
    lfa_table n;
    lfa_error err = {0};
    assert_ok(lfa_mutate(&c, head(&h), &q, &err), &err);
    assert_int_equal(c.txn->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_CLONE);
    assert_int_equal(c.txn->clone->is_shallow, !deep);
    assert_int_equal(c.txn->clone->ref_version, 2);
    assert_null(c.txn->field_assignment_transaction);
    assert_ok(lfa_commit(&n, NULL, &c, head(&h), &err), &err); /* a new dataset */
    lfa_change_free(&c);
    assert_int_equal(n.version, 1);
    assert_int_equal(n.n_fields, head(&h)->n_fields);
    assert_int_equal(n.n_fragments, head(&h)->n_fragments);
    expect_state(&n, EMB, "2 3 ");
    expect_same_state(&n, head(&h));
    lfa_table_free(&n);
  }
  free_hist(&h);
}

/* ---- §17 metadata ------------------------------------------------------------------------------ */

static void test_FA_META_1_create_index_and_update_config(void **state) {
  (void)state;
  hist h = {0};
  create(&h);
  write_field(&h, "payload.value", 1, (const uint64_t[]){4});
  const lfa_op ops[] = {LFA_OP_CREATE_INDEX, LFA_OP_UPDATE_CONFIG};
  for (size_t k = 0; k < 2; k++) {
    lfa_request q = {.op = ops[k]};
    lfa_change c;
    lfa_error err = {0};
    assert_ok(lfa_mutate(&c, head(&h), &q, &err), &err);
    assert_null(c.txn->field_assignment_transaction);
    if (ops[k] == LFA_OP_CREATE_INDEX) {
      assert_int_equal(c.txn->create_index->n_new_indices, 0);
    } else {
      assert_int_equal(c.txn->update_config->config_updates->n_update_entries, 1);
      assert_false(c.txn->update_config->config_updates->replace);
    }
    assert_ok(lfa_commit(&h.v[h.n], head(&h), &c, NULL, &err), &err);
    h.n++;
    lfa_change_free(&c);
    assert_int_equal(head(&h)->n_fragments, h.v[1].n_fragments);
    expect_state(head(&h), VALUE, "4 ");
    expect_same_state(head(&h), &h.v[1]);
  }
  free_hist(&h);
}

static void test_no_dataset_refused(void **state) {
  (void)state;
  static const lfa_new_field add[] = {{"a", "int32", true, LFA_UNASSIGNED}};
  const lfa_request qs[] = {
      {.op = LFA_OP_ADD_COLUMNS, .new_fields = add, .n_new_fields = 1},
      {.op = LFA_OP_TRACK, .field = "a"},
      {.op = LFA_OP_RESTORE, .version = 1},
      {.op = LFA_OP_CLONE},
      {.op = LFA_OP_CREATE_INDEX},
  };
  for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
    lfa_change c;
    lfa_error err = {0};
    assert_status(lfa_mutate(&c, NULL, &qs[k], &err), LFA_ERR_USAGE, &err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_MERGE_2_add_columns_without_data),
      cmocka_unit_test(test_FA_MERGE_2_with_data_initial_state_stands),
      cmocka_unit_test(test_FA_NEST_6_add_struct_initializes_children),
      cmocka_unit_test(test_FA_TXN_8_tracking_twice_refused),
      cmocka_unit_test(test_FA_NEST_6_track_struct),
      cmocka_unit_test(test_FA_PROJECT_1_rename_keeps_id_and_state),
      cmocka_unit_test(test_FA_PROJECT_3_nullability),
      cmocka_unit_test(test_FA_PROJECT_2_drop_ends_tracking),
      cmocka_unit_test(test_FA_ID_2_added_after_drop_starts_untracked),
      cmocka_unit_test(test_FA_CAST_1_leaf_moves_state_to_new_id),
      cmocka_unit_test(test_FA_CAST_2_struct_transfers_tracked_descendants),
      cmocka_unit_test(test_FA_LANCE_22_ids_after_overwrite_and_restore),
      cmocka_unit_test(test_FA_OVERWRITE_1_only_what_it_initializes),
      cmocka_unit_test(test_FA_RESTORE_1_restored_state),
      cmocka_unit_test(test_FA_CLONE_1_and_2_clone_equals_source),
      cmocka_unit_test(test_FA_META_1_create_index_and_update_config),
      cmocka_unit_test(test_no_dataset_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
