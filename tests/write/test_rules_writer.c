/* test_rules_writer.c: rules the reference writer keeps on its own side:
 * what it stores where (the target id after a cast, the sidecar in field 5
 * only), what it never trusts (the in-memory sidecar key, an object cleanup
 * removed), how far an appended fragment's inferred state may move, what
 * a merge on _rowid matches, which limits it stays under, and that a
 * fragment without data files breaks nothing. Expectations are derived by
 * hand from the spec.
 * Requirement ids: FA-CAST-1, FA-CAST-3, FA-APPEND-2, FA-SEM-8, FA-TXN-5,
 * FA-TXN-13, FA-TXN-14, FA-RESTORE-2, FA-LIMIT-3, FA-MERGEINSERT-2. */
#include "rules_util.h"

#include "lfa/bitmap.h"
#include "lfa/commit.h"
#include "lfa/mutate.h"
#include "lfa/pb_types.h"
#include "lfa/transaction.h"
#include "lfa/verify.h"
#include "lfa/writer.h"


enum { ID = 0, EMB = 1, EXTRA = 2 }; /* the field ids of rules_setup */

/* v1 and v2 of rules_util.h, v2 with emb written on keys 1 and 2 (fragment
 * 0 partial {0, 1}, fragment 1 none). */
static void setup(lfa_history *h, const char *dir, bool stable) { rules_setup(h, dir, 17, stable, KEYS(1, 2)); }

/* ---- FA-CAST-3: the target's objects under the target id ---------------------------- */

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* v3 casts emb to another type: it gets id 3 (max_field_id() is 2) and a
 * Transfer(1, 3) [FA-CAST-1]. Its state is emb's in v2, keys 1 and 2; the
 * root is written under roots/3/ and the partial of fragment 0 under
 * bitmaps/3/0/, not reused from id 1 [FA-CAST-3]. No descriptor for 1
 * is left. (div_transfer_root_under_target_id) */
static void test_div_transfer_root_under_target_id(void **state) {
  (void)state;
  scratch s;
  lfa_history h;
  scratch_make(&s);
  setup(&h, s.ds, false);
  lfa_request cast = {.op = LFA_OP_CAST, .field = "emb", .new_type = "fixed_size_list:float:8"};
  apply_head(&h, &cast);
  expect_assigned(lfa_history_head(&h), 3, "1 2 ");
  lfa_snapshot snap;
  load_version(&snap, s.ds, 3);
  assert_int_equal(snap.n_tracked, 1);
  assert_int_equal(snap.tracked[0].field_id, 3);
  assert_true(starts_with(snap.tracked[0].root_file->path, "_field_assignments/roots/3/"));
  assert_int_equal(snap.tracked[0].root->n_fragments, 1);
  const Lance__Table__FieldAssignmentFragment *e = snap.tracked[0].root->fragments[0];
  assert_int_equal(e->fragment_id, 0);
  assert_int_equal(e->state_case, LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL);
  assert_true(starts_with(e->partial->path, "_field_assignments/bitmaps/3/0/"));
  lfa_snapshot_free(&snap);
  verify_clean(s.ds);
  lfa_history_close(&h);
  scratch_remove(&s);
}

/* ---- FA-APPEND-2: a fragment state narrows an appended fragment, never widens ---------- */

static Sidecar *sidecar_of(lfa_change *c) {
  if (c->txn->field_assignment_transaction == NULL) {
    Sidecar *s = lfa_arena_alloc(&c->arena, sizeof *s);
    assert_non_null(s);
    lance__table__transaction__field_assignment_transaction__init(s);
    c->txn->field_assignment_transaction = s;
  }
  return c->txn->field_assignment_transaction;
}

/* Adds FragmentState(path, field, all | partial rows) to the change. */
static void add_fragment_state(lfa_change *c, const char *path, int32_t field, const roaring_bitmap_t *rows) {
  Sidecar *s = sidecar_of(c);
  FragmentState *fs = lfa_arena_alloc(&c->arena, sizeof *fs);
  FragmentState **list = lfa_arena_array(&c->arena, s->n_fragment_states + 1, sizeof *list);
  assert_non_null(fs);
  assert_non_null(list);
  lance__table__transaction__field_assignment_transaction__fragment_state__init(fs);
  fs->fragment_path = lfa_arena_strdup(&c->arena, path);
  fs->field_id = field;
  if (rows == NULL) {
    fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED;
    fs->all_assigned = true;
  } else {
    lfa_buf b = {0};
    lfa_error err = {0};
    assert_ok(lfa_bitmap_encode(&b, rows, &err), &err);
    fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL;
    fs->partial = (ProtobufCBinaryData){b.len, lfa_arena_memdup(&c->arena, b.data, b.len)};
    lfa_buf_free(&b);
  }
  if (s->n_fragment_states) memcpy(list, s->fragment_states, s->n_fragment_states * sizeof *list);
  list[s->n_fragment_states++] = fs;
  s->fragment_states = list;
}

/* Commits an append of keys 7, 8, 9 (id and emb stored, one file
 * v4-0.lance) on `p` (v3), with FragmentState(v4-0.lance, field, rows: all
 * when NULL). */
static lfa_status append_with(lfa_table *n, const lfa_table *p, int32_t field, const roaring_bitmap_t *rows,
                              lfa_error *err) {
  lfa_change c;
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7, 8, 9), .fields = NAMES("id", "emb")};
  assert_ok(lfa_mutate(&c, p, &ap, err), err);
  assert_string_equal(c.txn->append->fragments[0]->files[0]->path, "v4-0.lance");
  add_fragment_state(&c, "v4-0.lance", field, rows);
  lfa_status st = lfa_commit(n, p, &c, NULL, err);
  lfa_change_free(&c);
  return st;
}

/* v3 tracks extra (unassigned). The appended fragment stores id and emb,
 * so FA-APPEND-1 infers emb all assigned and extra unassigned. A writer
 * that knows key 8 did not supply emb narrows it with a partial {0, 2}:
 * emb is then assigned on 7 and 9 only [FA-APPEND-2]. A state that widens
 * (extra, which the fragment does not store, all or partly assigned)
 * asserts a write that never happened: refused [FA-SEM-8]. */
static void test_div_append_fragment_state_cannot_widen(void **state) {
  (void)state;
  lfa_history h;
  lfa_table n;
  lfa_error err = {0};
  setup(&h, NULL, false);
  lfa_request track = {.op = LFA_OP_TRACK, .field = "extra", .assignment = LFA_UNASSIGNED};
  apply_head(&h, &track);
  const lfa_table *p = lfa_history_head(&h);
  roaring_bitmap_t *narrow = roaring_bitmap_of(2, 0, 2), *one = roaring_bitmap_of(1, 1);
  assert_ok(append_with(&n, p, EMB, narrow, &err), &err);
  expect_assigned(&n, EMB, "1 2 7 9 ");
  expect_assigned(&n, EXTRA, "");
  lfa_table_free(&n);
  assert_status(append_with(&n, p, EXTRA, NULL, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-SEM-8");
  assert_status(append_with(&n, p, EXTRA, one, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-SEM-8");
  lfa_bitmap_free(narrow);
  lfa_bitmap_free(one);
  lfa_history_close(&h);
}

/* ---- FA-TXN-5: field 5 only; the in-memory key means nothing ----------------------- */

static const char RESERVED_KEY[] = "__lance_field_assignment_transaction";

static bool has_reserved_key(const Lance__Table__Transaction *t) {
  for (size_t i = 0; i < t->n_transaction_properties; i++)
    if (strcmp(t->transaction_properties[i]->key, RESERVED_KEY) == 0) return true;
  return false;
}

/* The `.txn` file version `v`'s manifest names, decoded. */
static Lance__Table__Transaction *txn_file(const char *dir, uint64_t v) {
  lfa_snapshot snap;
  char path[512];
  lfa_buf bytes = {0};
  lfa_error err = {0};
  Lance__Table__Transaction *t = NULL;
  load_version(&snap, dir, v);
  snprintf(path, sizeof path, "%s/_transactions/%s", dir, snap.file.manifest->transaction_file);
  lfa_snapshot_free(&snap);
  assert_ok(lfa_fs_read(&bytes, path, LFA_TRANSACTION_BYTES_MAX, &err), &err);
  assert_ok(lfa_transaction_decode(&t, bytes.data, bytes.len, &err), &err);
  lfa_buf_free(&bytes);
  return t;
}

/* A sidecar that would change the state if anyone read it: start tracking
 * extra as assigned, and invalidate emb on key 1 (address 0:0). As the
 * in-memory convention stores it: lowercase hex of the protobuf. */
static char *hidden_sidecar_hex(lfa_arena *arena) {
  Sidecar s = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization in =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIALIZATION__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__RowChange rc =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__ROW_CHANGE__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization *ins[] = {&in};
  Lance__Table__Transaction__FieldAssignmentTransaction__RowChange *rcs[] = {&rc};
  lfa_treemap tm = {0};
  lfa_buf addrs = {0};
  lfa_error err = {0};
  assert_ok(lfa_treemap_add(&tm, 0, &err), &err);
  assert_ok(lfa_treemap_encode(&addrs, &tm, &err), &err);
  in.field_id = EXTRA;
  in.initial_state = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__ASSIGNED;
  rc.field_id = EMB;
  rc.row_addresses = (ProtobufCBinaryData){addrs.len, addrs.data};
  s.initializations = ins, s.n_initializations = 1;
  s.row_changes = rcs, s.n_row_changes = 1;
  size_t len = protobuf_c_message_get_packed_size(&s.base);
  uint8_t *bytes = malloc(len + 1);
  char *hex = lfa_arena_alloc(arena, 2 * len + 1);
  assert_non_null(bytes);
  assert_non_null(hex);
  protobuf_c_message_pack(&s.base, bytes);
  for (size_t i = 0; i < len; i++) snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
  free(bytes);
  lfa_treemap_free(&tm);
  lfa_buf_free(&addrs);
  return hex;
}

/* v3 invalidates key 2: its sidecar (one RowChange) is in field 5 of both
 * the `.txn` file and the manifest's inline transaction, and neither has
 * the reserved property key [FA-TXN-5]. v4 is an UpdateConfig whose
 * transaction carries that key with a sidecar in it (tracking extra,
 * invalidating key 1): the committer ignores it, so v4 equals v3 (emb on
 * key 1, extra untracked); written as it is, the key reaches disk, and
 * the verifier, which applies the stored transaction to v3, finds v4's
 * state right: it did not read the key either. Storing the key at all
 * breaks FA-TXN-5 (a MUST on writers), so that is the one error it
 * reports, on version 4 only. (div_sidecar_property_key_ignored) */
static void test_div_sidecar_property_key_ignored(void **state) {
  (void)state;
  scratch s;
  lfa_history h;
  lfa_table n;
  lfa_change c;
  lfa_error err = {0};
  scratch_make(&s);
  setup(&h, s.ds, false);
  lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(2), .invalidate = NAMES("emb")};
  apply_head(&h, &inv);
  Lance__Table__Transaction *t2 = txn_file(s.ds, 3);
  assert_non_null(t2->field_assignment_transaction);
  assert_int_equal(t2->field_assignment_transaction->n_row_changes, 1);
  assert_false(has_reserved_key(t2));
  lfa_transaction_free(t2);
  lfa_snapshot snap;
  load_version(&snap, s.ds, 3);
  assert_non_null(snap.file.transaction);
  assert_non_null(snap.file.transaction->field_assignment_transaction);
  assert_false(has_reserved_key(snap.file.transaction));
  lfa_snapshot_free(&snap);

  lfa_request cfg = {.op = LFA_OP_UPDATE_CONFIG};
  assert_ok(lfa_mutate(&c, lfa_history_head(&h), &cfg, &err), &err);
  Lance__Table__Transaction__TransactionPropertiesEntry *e = lfa_arena_alloc(&c.arena, sizeof *e);
  Lance__Table__Transaction__TransactionPropertiesEntry **list = lfa_arena_array(&c.arena, 1, sizeof *list);
  assert_non_null(e);
  assert_non_null(list);
  lance__table__transaction__transaction_properties_entry__init(e);
  e->key = lfa_arena_strdup(&c.arena, RESERVED_KEY);
  e->value = hidden_sidecar_hex(&c.arena);
  list[0] = e;
  c.txn->transaction_properties = list, c.txn->n_transaction_properties = 1;
  assert_ok(lfa_commit(&n, lfa_history_head(&h), &c, NULL, &err), &err);
  assert_int_equal(n.n_tracked, 1);
  expect_assigned(&n, EMB, "1 ");
  assert_ok(lfa_writer_commit(h.writer, &n, c.txn, &err), &err);
  t2 = txn_file(s.ds, 4);
  assert_true(has_reserved_key(t2)); /* on disk, as committed */
  assert_null(t2->field_assignment_transaction);
  lfa_transaction_free(t2);
  lfa_table disk;
  read_table(&disk, s.ds, 4);
  assert_int_equal(disk.n_tracked, 1);
  assert_null(lfa_table_tracked(&disk, EXTRA));
  lfa_table_free(&disk);
  lfa_verify_result result;
  assert_ok(lfa_verify_dataset(&result, s.ds, NULL, &err), &err);
  size_t errors = 0;
  for (size_t k = 0; k < result.findings.count; k++) {
    const lfa_finding *f = &result.findings.items[k];
    if (f->severity != LFA_SEVERITY_ERROR) continue;
    errors++;
    if (strcmp(f->rule, "FA-TXN-5") != 0 || f->version != 4)
      fail_msg("version %" PRIu64 ": %s %s", f->version, f->rule, f->message);
  }
  assert_true(errors >= 1);
  lfa_verify_result_free(&result);
  lfa_table_free(&n);
  lfa_change_free(&c);
  lfa_history_close(&h);
  scratch_remove(&s);
}

/* ---- FA-TXN-13, FA-TXN-14: a fragment without data files ----------------------------- */

/* v1: keys 1, 2, 3 (fragment 0), id and emb stored, emb created ASSIGNED:
 * all three assigned. v2: keys 4, 5 appended with only extra (fragment 1,
 * one file listing extra): emb unassigned there. v3: extra dropped, so
 * fragment 1's only file goes and it has no data file at all. Commits that
 * create fragments and must state them still work, their states keyed by
 * their own first files (div_fragment_without_data_files_ok):
 *   v4 moves key 2 (id rewritten, REWRITE_ROWS) to fragment 2, keeping
 *      emb assigned; v5 invalidates key 1;
 *   v6 compacts fragments 0 (a third deleted), 1 and 2 into one: rows 1 3
 *      4 5 2, emb on 3 and 2 only.
 * The verifier finds every commit right. */
static void test_div_fragment_without_data_files_ok(void **state) {
  (void)state;
  static const lfa_new_field schema[] = {
      {"id", "int64", false, LFA_UNTRACKED},
      {"emb", "fixed_size_list:float:4", true, LFA_ASSIGNED},
      {"extra", "int32", true, LFA_UNTRACKED},
  };
  for (int stable = 0; stable < 2; stable++) {
    scratch s;
    lfa_history h;
    lfa_error err = {0};
    scratch_make(&s);
    assert_ok(lfa_history_open(&h, s.ds, 4, &err), &err);
    lfa_request c = {.op = LFA_OP_CREATE, .new_fields = schema, .n_new_fields = 3, .stable_row_ids = stable,
                     .rows = KEYS(1, 2, 3), .fields = NAMES("id", "emb")};
    lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(4, 5), .fields = NAMES("extra")};
    lfa_request drop = {.op = LFA_OP_DROP, .fields = NAMES("extra")};
    lfa_request move = {.op = LFA_OP_UPDATE, .rows = KEYS(2), .fields = NAMES("id")};
    lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .invalidate = NAMES("emb")};
    lfa_request compact = {.op = LFA_OP_COMPACT};
    apply_head(&h, &c);
    apply_head(&h, &ap);
    apply_head(&h, &drop);
    assert_int_equal(lfa_history_head(&h)->fragments[1].n_files, 0);
    apply_head(&h, &move);
    expect_assigned(lfa_history_head(&h), EMB, "1 2 3 ");
    apply_head(&h, &inv);
    apply_head(&h, &compact);
    assert_int_equal(lfa_history_head(&h)->n_fragments, 1);
    expect_assigned(lfa_history_head(&h), EMB, "2 3 ");
    verify_clean(s.ds);
    lfa_history_close(&h);
    scratch_remove(&s);
  }
}

/* ---- FA-RESTORE-2: objects cleanup removed are not named again --------------------------- */

static void remove_file(const char *dir, const char *rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  assert_int_equal(unlink(path), 0);
}

/* v3 invalidates key 1 (fragment 0 becomes partial {1}: a new bitmap and
 * root). Restoring v2 would name v2's bitmap of fragment 0 ({0, 1}) again,
 * the same bytes for the same field and fragment. When cleanup has
 * removed v2's objects, the writer checks before naming them and writes
 * the bitmap (and root) anew: the restored version reads back with v2's
 * state, keys 1 and 2 [FA-RESTORE-2]. The control, without the removal,
 * names v2's bitmap again (FA-STORE-11). */
static void test_FA_RESTORE_2_restore_checks_the_objects_still_exist(void **state) {
  (void)state;
  for (int removed = 0; removed < 2; removed++) {
    scratch s;
    lfa_history h;
    scratch_make(&s);
    setup(&h, s.ds, false);
    lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .invalidate = NAMES("emb")};
    lfa_request restore = {.op = LFA_OP_RESTORE, .version = 2};
    apply_head(&h, &inv); /* v3 */
    lfa_snapshot v2;
    load_version(&v2, s.ds, 2);
    char root[256], partial[256];
    snprintf(root, sizeof root, "%s", v2.tracked[0].root_file->path);
    assert_int_equal(v2.tracked[0].root->n_fragments, 1);
    snprintf(partial, sizeof partial, "%s", v2.tracked[0].root->fragments[0]->partial->path);
    lfa_snapshot_free(&v2);
    if (removed) remove_file(s.ds, root), remove_file(s.ds, partial);
    apply_head(&h, &restore); /* v4 */
    lfa_snapshot v4;
    load_version(&v4, s.ds, 4); /* every object read, with its size */
    const char *p4 = v4.tracked[0].root->fragments[0]->partial->path;
    if (removed) assert_string_not_equal(p4, partial);
    else assert_string_equal(p4, partial);
    lfa_snapshot_free(&v4);
    lfa_table t;
    read_table(&t, s.ds, 4);
    const lfa_field_state *emb = lfa_table_tracked(&t, EMB);
    assert_int_equal(emb->cells[0].kind, LFA_CELL_PARTIAL);
    assert_int_equal(roaring_bitmap_get_cardinality(emb->cells[0].rows), 2); /* keys 1, 2: offsets 0, 1 */
    assert_true(roaring_bitmap_contains(emb->cells[0].rows, 0) && roaring_bitmap_contains(emb->cells[0].rows, 1));
    assert_int_equal(emb->cells[1].kind, LFA_CELL_NONE);
    lfa_table_free(&t);
    lfa_history_close(&h);
    scratch_remove(&s);
  }
}

/* ---- FA-LIMIT-3: nothing over a reference reader limit ------------------------------------ */

/* One fragment of LFA_DELETION_ARROW_ROWS_MAX + 2 rows, of which all but
 * the last are deleted, its deletion file named `.arrow`: a reader refuses
 * an `.arrow` file with more than LFA_DELETION_ARROW_ROWS_MAX rows
 * (FA-LIMIT-1), so the writer refuses to write it, as a limit, before
 * writing anything [FA-LIMIT-3]. Named `.bin`, the same set is written and
 * reads back. */
static void test_FA_LIMIT_3_writer_stays_within_reader_limits(void **state) {
  (void)state;
  for (int bin = 0; bin < 2; bin++) {
    scratch s;
    lfa_history h;
    lfa_writer *w;
    lfa_error err = {0};
    scratch_make(&s);
    assert_ok(lfa_history_open(&h, NULL, 1, &err), &err);
    static const lfa_new_field ID_ONLY[] = {{"id", "int64", false, LFA_UNTRACKED}};
    lfa_request c = {.op = LFA_OP_CREATE, .new_fields = ID_ONLY, .n_new_fields = 1, .rows = KEYS(1), .fields = NAMES("id")};
    apply_head(&h, &c);
    lfa_table t;
    assert_ok(lfa_table_copy(&t, lfa_history_head(&h), &err), &err);
    lfa_fragment *f = &t.fragments[0];
    f->physical_rows = (uint64_t)LFA_DELETION_ARROW_ROWS_MAX + 2;
    free(f->keys), f->keys = NULL; /* not on disk; one per row otherwise */
    f->deleted = roaring_bitmap_from_range(0, (uint64_t)LFA_DELETION_ARROW_ROWS_MAX + 1, 1);
    f->deletion_file = (lfa_deletion_file){0, 7, bin};
    assert_ok(lfa_writer_open(&w, s.ds, 1, &err), &err);
    lfa_status st = lfa_writer_commit(w, &t, h.changes[0].txn, &err);
    char path[256];
    manifest_path(path, sizeof path, s.ds, 1);
    if (!bin) {
      assert_status(st, LFA_ERR_LIMIT, &err);
      assert_rule(&err, "FA-LIMIT-3");
      assert_false(lfa_fs_exists(path));
    } else {
      assert_ok(st, &err);
      lfa_table back;
      read_table(&back, s.ds, 1);
      assert_int_equal(roaring_bitmap_get_cardinality(back.fragments[0].deleted), (uint64_t)LFA_DELETION_ARROW_ROWS_MAX + 1);
      lfa_table_free(&back);
    }
    lfa_writer_close(w);
    lfa_table_free(&t);
    lfa_history_close(&h);
    scratch_remove(&s);
  }
}

/* ---- FA-MERGEINSERT-2: _rowid values are row ids of R --------------------------------------- */

/* Stable row ids: create hands out ids 0..5 to keys 1..6 in order (from
 * next_row_id 0, 02§8.6); v3 compacts both fragments into one
 * (ids kept, FA-REMAP-3), v4 deletes key 3 (id 2). A merge on _rowid
 * whose source holds the values 1, 2, 4 and 99 and emb: 1 and 4 are keys
 * 2 and 5, written; 2 is deleted and 99 was never handed out: they match
 * nothing, are neither written nor inserted, and are counted (2).
 * Address mode: the values are addresses of R: 0:1 (key 2) and 1:1 (key
 * 5) match; 0:2 (key 3, deleted), 7:0 (no fragment 7) and 0:99 (past the
 * fragment's rows) do not (3). Either way emb ends on keys 1 2 5 (key 1
 * from v2) and the live keys stay 1 2 4 5 6. */
static void test_FA_MERGEINSERT_2_rowid_values_are_row_ids_of_r(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    lfa_history h;
    setup(&h, NULL, stable);
    const lfa_table *v1 = lfa_history_version(&h, 1);
    if (stable)
      for (size_t i = 0; i < 2; i++)
        for (uint32_t o = 0; o < 3; o++) assert_int_equal(v1->fragments[i].row_ids[o], 3 * i + o);
    lfa_request del = {.op = LFA_OP_DELETE, .rows = KEYS(3)};
    lfa_request compact = {.op = LFA_OP_COMPACT};
    if (stable) apply_head(&h, &compact);
    apply_head(&h, &del);
    static const uint64_t by_id[] = {1, 2, 4, 99};
    static const uint64_t by_address[] = {1, (1ull << 32) | 1, 2, 7ull << 32, 99};
    lfa_request merge = {.op = LFA_OP_MERGE_INSERT, .on_row_id = true, .fields = NAMES("emb")};
    merge.rowid_values = stable ? (lfa_keys){4, by_id} : (lfa_keys){5, by_address};
    apply_head(&h, &merge);
    assert_int_equal(h.changes[h.count - 1].unmatched_source_rows, stable ? 2 : 3);
    expect_assigned(lfa_history_head(&h), EMB, "1 2 5 ");
    char live[64];
    size_t used = 0;
    const lfa_table *t = lfa_history_head(&h);
    for (uint64_t key = 1; key < 16; key++)
      for (size_t i = 0; i < t->n_fragments; i++)
        for (uint32_t o = 0; o < t->fragments[i].physical_rows; o++)
          if (t->fragments[i].keys[o] == key && lfa_fragment_is_live(&t->fragments[i], o))
            used += (size_t)snprintf(live + used, sizeof live - used, "%llu ", (unsigned long long)key);
    assert_string_equal(live, "1 2 4 5 6 ");
    lfa_history_close(&h);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_div_transfer_root_under_target_id),
      cmocka_unit_test(test_div_append_fragment_state_cannot_widen),
      cmocka_unit_test(test_div_sidecar_property_key_ignored),
      cmocka_unit_test(test_div_fragment_without_data_files_ok),
      cmocka_unit_test(test_FA_RESTORE_2_restore_checks_the_objects_still_exist),
      cmocka_unit_test(test_FA_LIMIT_3_writer_stays_within_reader_limits),
      cmocka_unit_test(test_FA_MERGEINSERT_2_rowid_values_are_row_ids_of_r),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
