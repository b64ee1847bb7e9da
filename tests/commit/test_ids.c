/* test_ids.c: field ids across commits (08§2): a
 * carried tracked field stays the same field, an id never passes to another
 * field, and Lance's repair of duplicate ids carries tracking with a
 * Transfer. Changes are built by the mutations, then spoiled or committed
 * on a P an older writer could have left; expectations are derived by hand.
 * Requirement ids: FA-ID-1, FA-ID-3, FA-ID-4, FA-CAST-3, FA-TXN-9 (one source, one transfer). */
#include "rules_util.h"

#include "lfa/apply.h"
#include "lfa/commit.h"
#include "lfa/mutate.h"
#include "lfa/verify.h"
#include "lfa/writer.h"

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"extra", "int32", true, LFA_UNTRACKED},
    {"payload", "struct", true, LFA_UNTRACKED},
    {"payload.value", "int32", true, LFA_UNASSIGNED},
};
enum { ID = 0, EMB = 1, EXTRA = 2, PAYLOAD = 3, VALUE = 4 };
static const uint64_t K1_6[] = {1, 2, 3, 4, 5, 6};

/* v1: keys 1..6, fragment 0 (keys 1, 2, 3; file v1-0.lance [0]) and
 * fragment 1 (keys 4, 5, 6; v1-1.lance [0]); emb and payload.value tracked.
 * v2: emb written in place on keys 1, 2 and 4: fragment 0 gains
 * v2-0.lance [1], fragment 1 v2-1.lance [1]. */
static void setup(lfa_history *h, const char *dir) {
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, dir, 9, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 5, .rows = {6, K1_6},
                   .rows_per_file = 3, .fields = NAMES("id")};
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = KEYS(1, 2, 4), .fields = NAMES("emb"), .rewrite_columns = true};
  apply_head(h, &c);
  apply_head(h, &w);
}

/* The schema field with `id` in a Project's or Merge's schema. */
static Lance__File__Field *schema_field(Lance__File__Field **fields, size_t n, int32_t id) {
  for (size_t i = 0; i < n; i++)
    if (fields[i]->id == id) return fields[i];
  fail_msg("no field %d in the transaction's schema", id);
  return NULL;
}

/* A Project of R's schema (a rename of `extra`, which keeps every id) that
 * the test then spoils: `field` gets `type` and `parent`. */
static lfa_status commit_project(lfa_table *n, const lfa_table *r, int32_t field, const char *type, int32_t parent,
                                 lfa_error *err) {
  lfa_change c;
  lfa_request q = {.op = LFA_OP_RENAME, .field = "extra", .new_name = "extra2"};
  assert_ok(lfa_mutate(&c, r, &q, err), err);
  Lance__File__Field *f = schema_field(c.txn->project->schema, c.txn->project->n_schema, field);
  f->logical_type = lfa_arena_strdup(&c.arena, type);
  f->parent_id = parent;
  lfa_status st = lfa_commit(n, r, &c, NULL, err);
  lfa_change_free(&c);
  return st;
}

/* ---- FA-ID-1 ------------------------------------------------------------------------ */

/* emb (1) is tracked with keys 1, 2, 4 assigned; payload.value (4) is
 * tracked under payload (3). A commit that keeps id 1 but makes it a
 * string, or keeps id 4 but moves it to the top level, carries an id whose
 * field is another: refused (by apply, the rule the verifier runs too).
 * Name and nullability may change: the controls commit. */
static void test_FA_ID_1_carried_tracked_field_keeps_type_and_parent(void **state) {
  (void)state;
  lfa_history h;
  lfa_table n;
  lfa_error err = {0};
  setup(&h, NULL);
  const lfa_table *r = lfa_history_head(&h);
  assert_status(commit_project(&n, r, EMB, "string", -1, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-ID-1");
  assert_status(commit_project(&n, r, VALUE, "int32", -1, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-ID-1");
  assert_ok(commit_project(&n, r, EMB, "fixed_size_list:float:4", -1, &err), &err); /* control: unchanged */
  const lfa_field_state *s = lfa_table_tracked(&n, EMB);
  assert_non_null(s);
  assert_int_equal(roaring_bitmap_get_cardinality(s->cells[0].rows), 2); /* keys 1, 2 */
  assert_int_equal(s->cells[1].kind, LFA_CELL_PARTIAL);                  /* key 4 */
  lfa_table_free(&n);
  /* a rename of the tracked field itself, and nullability: same field */
  lfa_request ren = {.op = LFA_OP_RENAME, .field = "emb", .new_name = "vec"};
  lfa_request nul = {.op = LFA_OP_SET_NULLABLE, .field = "payload.value", .nullable = true};
  apply_head(&h, &ren);
  apply_head(&h, &nul);
  assert_non_null(lfa_table_tracked(lfa_history_head(&h), EMB));
  assert_non_null(lfa_table_tracked(lfa_history_head(&h), VALUE));
  lfa_history_close(&h);
}

/* [FA-ID-4] payload.value (4, tracked, under payload 3) leaves the schema
 * and a field of its name path and type arrives as id 6, with no
 * Transfer: a renumbering the commit must refuse. Its name path is two
 * names deep, so both levels are compared. */
static void test_FA_ID_4_nested_field_renumbered_without_transfer(void **state) {
  (void)state;
  lfa_history h;
  lfa_table n;
  lfa_change c;
  lfa_error err = {0};
  setup(&h, NULL);
  const lfa_table *r = lfa_history_head(&h);
  lfa_request q = {.op = LFA_OP_RENAME, .field = "extra", .new_name = "extra2"};
  assert_ok(lfa_mutate(&c, r, &q, &err), &err);
  schema_field(c.txn->project->schema, c.txn->project->n_schema, VALUE)->id = 6;
  assert_status(lfa_commit(&n, r, &c, NULL, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-ID-4");
  lfa_change_free(&c);
  lfa_history_close(&h);
}

/* ---- FA-ID-3 ------------------------------------------------------------------------ */

/* extra (2) is untracked. A commit that keeps id 2 for an int64, or for a
 * child of payload, removed `extra` and added another field under its id:
 * the committer refuses it, tracked or not (only the type and parent show
 * it; a rename alone is the same field, as the control shows). */
static void test_FA_ID_3_an_id_never_passes_to_another_field(void **state) {
  (void)state;
  lfa_history h;
  lfa_table n;
  lfa_error err = {0};
  setup(&h, NULL);
  const lfa_table *r = lfa_history_head(&h);
  assert_status(commit_project(&n, r, EXTRA, "int64", -1, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-ID-3");
  assert_status(commit_project(&n, r, EXTRA, "int32", PAYLOAD, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-ID-3");
  assert_ok(commit_project(&n, r, EXTRA, "int32", -1, &err), &err);
  assert_string_equal(lfa_table_field(&n, EXTRA)->name, "extra2");
  lfa_table_free(&n);
  lfa_history_close(&h);
}

/* ---- FA-ID-4: the duplicate-id repair ----------------------------------------------- */

/* Inserts a data file listing `ids` at position `at` of fragment `f`. */
static void insert_file(lfa_fragment *f, size_t at, const char *path, const int32_t *ids, size_t n) {
  lfa_data_file *grown = realloc(f->files, (f->n_files + 1) * sizeof *grown);
  assert_non_null(grown);
  f->files = grown;
  memmove(&f->files[at + 1], &f->files[at], (f->n_files - at) * sizeof *f->files);
  f->n_files++;
  f->files[at].path = strdup(path);
  f->files[at].fields = malloc(n * sizeof *ids);
  assert_non_null(f->files[at].path);
  assert_non_null(f->files[at].fields);
  memcpy(f->files[at].fields, ids, n * sizeof *ids);
  f->files[at].n_fields = n;
}

static void assert_files(const lfa_fragment *f, size_t n, const char *const *paths, const int32_t *const *ids,
                         const size_t *counts) {
  assert_int_equal(f->n_files, n);
  for (size_t k = 0; k < n; k++) {
    assert_string_equal(f->files[k].path, paths[k]);
    assert_int_equal(f->files[k].n_fields, counts[k]);
    assert_memory_equal(f->files[k].fields, ids[k], counts[k] * sizeof(int32_t));
  }
}

static const Lance__Table__Transaction__FieldAssignmentTransaction__Transfer *only_transfer(const lfa_change *c) {
  const Lance__Table__Transaction__FieldAssignmentTransaction *s = c->txn->field_assignment_transaction;
  assert_non_null(s);
  assert_int_equal(s->n_transfers, 1);
  return s->transfers[0];
}

/* P is v2 as an older writer (Lance 0.10.5, 02§8.5) left it:
 * fragment 0 also holds an older file z-old.lance listing id 1 (a dropped
 * field's values). Id 1 is stored twice in fragment 0 (FA-LANCE-6). An
 * append of key 7 (id and emb, file v3-0.lance [0, 1]) commits on it, and
 * the committer repairs as Lance's fix_schema does:
 *   max_field_id() is 4, so id 1 becomes 5; the newest file listing 1 in
 *   each fragment lists 5: v2-0.lance, v2-1.lance and v3-0.lance;
 *   z-old.lance lists no schema field any more and goes; emb is id 5.
 * emb is tracked, so the commit carries Transfer(1, 5) [FA-ID-4], and
 * field 5 has emb's state: fragment 0 {0, 1} (keys 1, 2), fragment 1 {0}
 * (key 4), and the appended fragment 2 all assigned (it stores 5,
 * FA-APPEND-1). Id 1 is tracked no more. On disk (v1, v2 as written,
 * then this commit as v3) the root of field 5 and its partials live
 * under id 5 [FA-CAST-3], and the verifier finds no error. */
static void test_div_duplicate_id_repair_transfers_tracking(void **state) {
  (void)state;
  scratch s;
  lfa_history h;
  lfa_table p, n;
  lfa_change c;
  lfa_error err = {0};
  scratch_make(&s);
  setup(&h, s.ds);
  assert_ok(lfa_table_copy(&p, lfa_history_head(&h), &err), &err);
  insert_file(&p.fragments[0], 0, "z-old.lance", (const int32_t[]){EMB}, 1);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7), .fields = NAMES("id", "emb")};
  assert_ok(lfa_mutate(&c, &p, &ap, &err), &err);
  assert_ok(lfa_commit(&n, &p, &c, NULL, &err), &err);
  assert_int_equal(only_transfer(&c)->source_field_id, EMB);
  assert_int_equal(only_transfer(&c)->target_field_id, 5);
  assert_int_equal(lfa_table_field(&n, 5)->parent_id, -1);
  assert_string_equal(lfa_table_field(&n, 5)->name, "emb");
  assert_null(lfa_table_field(&n, EMB));
  assert_files(&n.fragments[0], 2, (const char *const[]){"v1-0.lance", "v2-0.lance"},
               (const int32_t *const[]){(const int32_t[]){ID}, (const int32_t[]){5}}, (const size_t[]){1, 1});
  assert_files(&n.fragments[1], 2, (const char *const[]){"v1-1.lance", "v2-1.lance"},
               (const int32_t *const[]){(const int32_t[]){ID}, (const int32_t[]){5}}, (const size_t[]){1, 1});
  assert_files(&n.fragments[2], 1, (const char *const[]){"v3-0.lance"},
               (const int32_t *const[]){(const int32_t[]){ID, 5}}, (const size_t[]){2});
  assert_int_equal(n.n_tracked, 2);
  assert_null(lfa_table_tracked(&n, EMB));
  const lfa_field_state *emb = lfa_table_tracked(&n, 5);
  assert_non_null(emb);
  assert_int_equal(emb->cells[0].kind, LFA_CELL_PARTIAL);
  assert_int_equal(roaring_bitmap_get_cardinality(emb->cells[0].rows), 2);
  assert_true(roaring_bitmap_contains(emb->cells[0].rows, 0) && roaring_bitmap_contains(emb->cells[0].rows, 1));
  assert_int_equal(emb->cells[1].kind, LFA_CELL_PARTIAL);
  assert_int_equal(roaring_bitmap_get_cardinality(emb->cells[1].rows), 1);
  assert_true(roaring_bitmap_contains(emb->cells[1].rows, 0));
  assert_int_equal(emb->cells[2].kind, LFA_CELL_ALL);

  /* the same structure without the Transfer: the rule (which the verifier
   * runs) sees emb leave and a field of its name path and type arrive */
  lfa_table bare;
  assert_ok(lfa_table_copy(&bare, &n, &err), &err);
  lfa_table_drop_state(&bare);
  c.txn->field_assignment_transaction->n_transfers = 0;
  assert_status(lfa_apply_assignment(&bare, &p, c.txn, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-ID-4");
  c.txn->field_assignment_transaction->n_transfers = 1;
  lfa_table_free(&bare);

  /* the Transfer listed twice, back to back: one source, two transfers [FA-TXN-9] */
  Lance__Table__Transaction__FieldAssignmentTransaction *side = c.txn->field_assignment_transaction;
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer *twice[] = {side->transfers[0], side->transfers[0]},
                                                                   **kept = side->transfers;
  assert_ok(lfa_table_copy(&bare, &n, &err), &err);
  lfa_table_drop_state(&bare);
  side->transfers = twice, side->n_transfers = 2;
  assert_status(lfa_apply_assignment(&bare, &p, c.txn, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-TXN-9");
  if (strstr(err.msg, "source of two transfers") == NULL) fail_msg("%s", err.msg);
  side->transfers = kept, side->n_transfers = 1;
  lfa_table_free(&bare);

  /* on disk as v3 after the v1 and v2 the history wrote */
  assert_ok(lfa_writer_commit(h.writer, &n, c.txn, &err), &err);
  lfa_snapshot snap;
  load_version(&snap, s.ds, 3);
  size_t t = lfa_snapshot_tracked(&snap, 5);
  assert_int_not_equal(t, SIZE_MAX);
  assert_int_equal(strncmp(snap.tracked[t].root_file->path, "_field_assignments/roots/5/", 27), 0);
  for (size_t k = 0; k < snap.tracked[t].root->n_fragments; k++) {
    const lfa_root_entry *e = snap.tracked[t].root->fragments[k];
    char want[64];
    snprintf(want, sizeof want, "_field_assignments/bitmaps/5/%" PRIu64 "/", e->fragment_id);
    if (e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL)
      assert_int_equal(strncmp(e->partial->path, want, strlen(want)), 0);
  }
  assert_int_equal(snap.transaction->field_assignment_transaction->n_transfers, 1);
  lfa_snapshot_free(&snap);
  lfa_verify_result result;
  assert_ok(lfa_verify_dataset(&result, s.ds, NULL, &err), &err);
  for (size_t k = 0; k < result.findings.count; k++)
    if (result.findings.items[k].severity == LFA_SEVERITY_ERROR)
      fail_msg("version %" PRIu64 ": %s %s", result.findings.items[k].version, result.findings.items[k].rule,
               result.findings.items[k].message);
  lfa_verify_result_free(&result);

  lfa_change_free(&c);
  lfa_table_free(&n);
  lfa_table_free(&p);
  lfa_history_close(&h);
  scratch_remove(&s);
}

/* The struct payload (3, untracked) is what is stored twice: fragment 1
 * holds z-old.lance [3] and, newest, v9-p.lance [3, 4]. The repair gives
 * payload id 5 (max_field_id() is 4) in v9-p.lance and the schema, and
 * drops z-old.lance. payload is untracked, so no Transfer; payload.value
 * (4) is carried, and its parent moved from 3 to 5 only because the parent
 * was renumbered: the same parent [FA-ID-1], so the commit stands and 4
 * keeps its (empty) state. */
static void test_FA_ID_1_parent_renumbered_by_a_repair(void **state) {
  (void)state;
  lfa_history h;
  lfa_table p, n;
  lfa_change c;
  lfa_error err = {0};
  setup(&h, NULL);
  assert_ok(lfa_table_copy(&p, lfa_history_head(&h), &err), &err);
  insert_file(&p.fragments[1], 0, "z-old.lance", (const int32_t[]){PAYLOAD}, 1);
  insert_file(&p.fragments[1], 3, "v9-p.lance", (const int32_t[]){PAYLOAD, VALUE}, 2);
  lfa_request cfg = {.op = LFA_OP_UPDATE_CONFIG};
  assert_ok(lfa_mutate(&c, &p, &cfg, &err), &err);
  assert_ok(lfa_commit(&n, &p, &c, NULL, &err), &err);
  assert_null(c.txn->field_assignment_transaction);
  assert_string_equal(lfa_table_field(&n, 5)->name, "payload");
  assert_int_equal(lfa_table_field(&n, VALUE)->parent_id, 5);
  assert_files(&n.fragments[1], 3, (const char *const[]){"v1-1.lance", "v2-1.lance", "v9-p.lance"},
               (const int32_t *const[]){(const int32_t[]){ID}, (const int32_t[]){EMB}, (const int32_t[]){5, VALUE}},
               (const size_t[]){1, 1, 2});
  assert_non_null(lfa_table_tracked(&n, VALUE));
  assert_int_equal(lfa_table_tracked(&n, VALUE)->cells[1].kind, LFA_CELL_NONE);
  lfa_table_free(&n);
  lfa_change_free(&c);
  lfa_table_free(&p);
  lfa_history_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_ID_1_carried_tracked_field_keeps_type_and_parent),
      cmocka_unit_test(test_FA_ID_3_an_id_never_passes_to_another_field),
      cmocka_unit_test(test_div_duplicate_id_repair_transfers_tracking),
      cmocka_unit_test(test_FA_ID_4_nested_field_renumbered_without_transfer),
      cmocka_unit_test(test_FA_ID_1_parent_renumbered_by_a_repair),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
