/* test_apply.c: the transition rule (ref/model/apply.c) replayed over
 * histories written by others: for every commit, the state apply derives
 * from the parent snapshot and the commit's transaction must equal, on every
 * live row, the state the history recorded. The upstream example's states
 * are stated by hand in its README (and checked in test_dataset.c), so they
 * are independent of this code. Then each rule is broken on purpose.
 * Requirement ids: FA-OP-1, FA-OP-2, FA-OP-4, FA-OP-6, FA-APPEND-1,
 * FA-DELETE-1, FA-DELETE-2, FA-REWRITE-1, FA-UPDATE-1, FA-UPDATE-2,
 * FA-PROJECT-1, FA-META-1, FA-MERGE-2, FA-TXN-8, FA-TXN-10, FA-TXN-12,
 * FA-TXN-13, FA-TXN-14, FA-TXN-16, FA-SEM-2, FA-SEM-5; FA-UPDATE-2 and FA-OVERLAY-3 at their edges;
 * FA-BITMAP-3 (canonical cells). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <inttypes.h>

#include <unistd.h>

#include "lfa/apply.h"
#include "lfa/bitmap.h"
#include "lfa/snapshot_model.h"
#include "lfa/pb.h"
#include "lfa/fixtures.h"
#include "lfa/pb_types.h"
#include "lfa/transaction.h"

/* An open that reads every tracked field too. */
static const lfa_snapshot_options LOADED = {.load_fields = true};

#define EXAMPLE SHARED_DIR "/upstream-layout-example/address-mode-history"

typedef struct history {
  lfa_version_list versions;
  lfa_names names;
  size_t count;
  lfa_snapshot snaps[16];
  lfa_table tables[16];
} history;

static void load_history(history *h, const char *dir) {
  lfa_error err = {0};
  memset(h, 0, sizeof *h);
  assert_ok(lfa_dataset_versions(&h->versions, &h->names, NULL, dir, &err), &err);
  h->count = h->versions.count;
  for (size_t i = 0; i < h->count; i++) {
    assert_ok(lfa_snapshot_open(&h->snaps[i], dir, &h->versions.entries[i], &LOADED, &err), &err);
    assert_ok(lfa_table_from_snapshot(&h->tables[i], &h->snaps[i], &err), &err);
  }
}

static void free_history(history *h) {
  for (size_t i = 0; i < h->count; i++) {
    lfa_table_free(&h->tables[i]);
    lfa_snapshot_free(&h->snaps[i]);
  }
  lfa_version_list_free(&h->versions);
  lfa_fs_names_free(&h->names);
}

/* N's structure without its state: what apply starts from. */
static void structure_of(lfa_table *out, const lfa_table *n) {
  lfa_error err = {0};
  assert_ok(lfa_table_copy(out, n, &err), &err);
  lfa_table_drop_state(out);
}

/* [FA-SEM-2] equal on every live row of every fragment, field by field. */
static void assert_same_state(const lfa_table *got, const lfa_table *want, uint64_t version) {
  if (got->n_tracked != want->n_tracked)
    fail_msg("version %llu: %zu tracked fields, recorded %zu", (unsigned long long)version, got->n_tracked, want->n_tracked);
  for (size_t s = 0; s < want->n_tracked; s++) {
    assert_int_equal(got->tracked[s].field_id, want->tracked[s].field_id);
    for (size_t i = 0; i < want->n_fragments; i++)
      if (!lfa_cells_equal_live(&got->tracked[s].cells[i], &want->tracked[s].cells[i], &want->fragments[i]))
        fail_msg("version %llu field %d fragment %llu: derived state differs from the recorded one",
                 (unsigned long long)version, want->tracked[s].field_id, (unsigned long long)want->fragments[i].id);
  }
}

/* Applies version v's transaction to version v-1 (indexes i-1, i). */
static lfa_status replay(const history *h, size_t i, const Lance__Table__Transaction *t, lfa_table *out, lfa_error *err) {
  structure_of(out, &h->tables[i]);
  return lfa_apply_assignment(out, i > 0 ? &h->tables[i - 1] : NULL, t, err);
}

static void replay_all(const char *dir, size_t expect_versions) {
  history h;
  load_history(&h, dir);
  assert_int_equal(h.count, expect_versions);
  for (size_t i = 0; i < h.count; i++) {
    lfa_table n;
    lfa_error err = {0};
    if (replay(&h, i, h.snaps[i].transaction, &n, &err) != LFA_OK)
      fail_msg("version %zu: %s", i + 1, err.msg);
    assert_same_state(&n, &h.tables[i], i + 1);
    lfa_table_free(&n);
  }
  free_history(&h);
}

static void test_FA_OP_4_upstream_example_replays(void **state) {
  (void)state;
  /* Overwrite, Merge+Initialization, Update REWRITE_COLUMNS, Append,
   * Delete, invalidation, Project, ReserveFragments, Rewrite */
  replay_all(EXAMPLE, 9);
}

static void test_FA_OP_4_sample_replays(void **state) {
  (void)state;
  char dir[64] = "/tmp/lfa-apply-XXXXXX";
  assert_non_null(mkdtemp(dir));
  strcat(dir, "/ds");
  lfa_error err = {0};
  assert_ok(lfa_fixture_write_sample(dir, &err), &err);
  replay_all(dir, 5);
  *strrchr(dir, '/') = '\0';
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* ---- each rule broken on purpose ------------------------------------------------------ */

/* A private copy of version v's transaction that a test may edit. */
static Lance__Table__Transaction *txn_of(const history *h, size_t i) {
  lfa_buf b = {0};
  lfa_error err = {0};
  ProtobufCMessage *m = NULL;
  assert_ok(lfa_transaction_encode(&b, h->snaps[i].transaction, &err), &err);
  assert_ok(lfa_pb_unpack(&m, &lance__table__transaction__descriptor, b.data, b.len, "txn", &err), &err);
  lfa_buf_free(&b);
  return (Lance__Table__Transaction *)m;
}

static void expect_refused(const history *h, size_t i, const lfa_table *p, const Lance__Table__Transaction *t,
                           const char *rule) {
  lfa_table n;
  lfa_error err = {0};
  structure_of(&n, &h->tables[i]);
  if (lfa_apply_assignment(&n, p, t, &err) == LFA_OK) fail_msg("version %zu accepted; expected %s", i + 1, rule);
  assert_rule(&err, rule);
  assert_int_equal(n.n_tracked, 0);
  lfa_table_free(&n);
}

static lfa_buf treemap_of(uint64_t address) {
  lfa_treemap tm = {0};
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_treemap_add(&tm, address, &err), &err);
  assert_ok(lfa_treemap_encode(&b, &tm, &err), &err);
  lfa_treemap_free(&tm);
  return b;
}

static void test_FA_TXN_14_and_13_rewrite_states(void **state) {
  (void)state;
  history h;
  load_history(&h, EXAMPLE);
  Lance__Table__Transaction *t = txn_of(&h, 8); /* v9: Rewrite of 0 and 1 into 4 */
  Sidecar *s = t->field_assignment_transaction;
  assert_int_equal(s->n_fragment_states, 1);
  s->n_fragment_states = 0; /* compaction without the moved state */
  expect_refused(&h, 8, &h.tables[7], t, "FA-TXN-14");
  s->n_fragment_states = 1;
  char *path = s->fragment_states[0]->fragment_path;
  s->fragment_states[0]->fragment_path = "c9.lance"; /* names nothing created */
  expect_refused(&h, 8, &h.tables[7], t, "FA-TXN-13");
  s->fragment_states[0]->fragment_path = path;
  lfa_pb_free(t);
  free_history(&h);
}

static void test_FA_TXN_10_row_change_must_name_live_rows(void **state) {
  (void)state;
  history h;
  load_history(&h, EXAMPLE);
  Lance__Table__Transaction *t = txn_of(&h, 5); /* v6: invalidate (1, 3) */
  RowChange *rc = t->field_assignment_transaction->row_changes[0];
  ProtobufCBinaryData keep = rc->row_addresses;
  size_t one = lfa_table_fragment(&h.tables[4], 1);
  assert_true(one != SIZE_MAX);
  const uint64_t rows1 = h.tables[4].fragments[one].physical_rows; /* the first offset past fragment 1 */
  const uint64_t bad[] = {(9ull << 32) | 0, (0ull << 32) | 2, (1ull << 32) | 10, (1ull << 32) | rows1};
  for (size_t k = 0; k < 4; k++) { /* no fragment 9; (0, 2) is deleted; offsets 10 and rows1 are past the end */
    lfa_buf b = treemap_of(bad[k]);
    rc->row_addresses = (ProtobufCBinaryData){b.len, b.data};
    expect_refused(&h, 5, &h.tables[4], t, "FA-TXN-10");
    lfa_buf_free(&b);
  }
  rc->row_addresses = keep;
  lfa_pb_free(t);
  free_history(&h);
}

static void test_FA_SEM_5_and_FA_TXN_12_writes_and_row_changes(void **state) {
  (void)state;
  history h;
  load_history(&h, EXAMPLE);
  Lance__Table__Transaction *t = txn_of(&h, 2); /* v3: writes (0, {1,2,5}) and (1, {3}) */
  RowChange rc = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__ROW_CHANGE__INIT, *list[] = {&rc};
  Sidecar side = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  side.row_changes = list, side.n_row_changes = 1;
  Sidecar *keep = t->field_assignment_transaction;
  t->field_assignment_transaction = &side;
  lfa_buf written = treemap_of(1), unwritten = treemap_of(0);
  rc.field_id = 2;
  rc.assigned = false; /* invalidate a row the same commit writes */
  rc.row_addresses = (ProtobufCBinaryData){written.len, written.data};
  expect_refused(&h, 2, &h.tables[1], t, "FA-SEM-5");
  rc.assigned = true; /* assign a row the commit does not write */
  rc.row_addresses = (ProtobufCBinaryData){unwritten.len, unwritten.data};
  expect_refused(&h, 2, &h.tables[1], t, "FA-TXN-12");
  rc.row_addresses = (ProtobufCBinaryData){written.len, written.data}; /* repeating a write is fine */
  lfa_table n;
  lfa_error err = {0};
  assert_ok(replay(&h, 2, t, &n, &err), &err);
  assert_same_state(&n, &h.tables[2], 3);
  lfa_table_free(&n);
  t->field_assignment_transaction = keep;
  lfa_buf_free(&written);
  lfa_buf_free(&unwritten);
  lfa_pb_free(t);
  free_history(&h);
}

static void test_FA_UPDATE_2_column_update_needs_offsets(void **state) {
  (void)state;
  history h;
  load_history(&h, EXAMPLE);
  Lance__Table__Transaction *t = txn_of(&h, 2);
  size_t n = t->update->n_updated_fragment_offset_bitmaps;
  assert_int_equal(n, 2);
  t->update->n_updated_fragment_offset_bitmaps = 0; /* upstream v1 would assign whole fragments */
  expect_refused(&h, 2, &h.tables[1], t, "FA-UPDATE-2");
  t->update->n_updated_fragment_offset_bitmaps = n;
  lfa_pb_free(t);
  free_history(&h);
}

/* [FA-UPDATE-2] an offset is below physical_rows: at the limit (an offset
 * equal to physical_rows) the update is refused, one below it is accepted.
 * v3 updates fragments 0 and 1 with offset bitmaps (field 10). */
static void test_FA_UPDATE_2_offset_at_physical_rows_refused(void **state) {
  (void)state;
  history h;
  load_history(&h, EXAMPLE);
  Lance__Table__Transaction *t = txn_of(&h, 2);
  assert_true(t->update->n_updated_fragment_offset_bitmaps > 0);
  Lance__Table__Transaction__Update__UpdatedFragmentOffsetBitmapsEntry *e = t->update->updated_fragment_offset_bitmaps[0];
  size_t i = lfa_table_fragment(&h.tables[2], e->key);
  assert_true(i != SIZE_MAX);
  uint64_t rows = h.tables[2].fragments[i].physical_rows;
  assert_true(rows > 1);
  ProtobufCBinaryData keep = e->value;
  for (int past = 0; past <= 1; past++) {
    roaring_bitmap_t *bm = roaring_bitmap_from_range(0, rows - 1 + (uint64_t)past + 1, 1); /* 0 .. rows-1+past */
    lfa_buf b = {0};
    lfa_error err = {0};
    assert_ok(lfa_bitmap_encode(&b, bm, &err), &err);
    e->value = (ProtobufCBinaryData){b.len, b.data};
    if (past) {
      expect_refused(&h, 2, &h.tables[1], t, "FA-UPDATE-2");
    } else {
      lfa_table n;
      assert_ok(replay(&h, 2, t, &n, &err), &err);
      lfa_table_free(&n);
    }
    e->value = keep;
    lfa_buf_free(&b);
    roaring_bitmap_free(bm);
  }
  lfa_pb_free(t);
  free_history(&h);
}

/* [FA-OVERLAY-3] (05§14) every coverage offset is below physical_rows: on a
 * fragment of 4 rows (stated here, not read from a history) coverage {1, 3}
 * (3 = physical_rows - 1) is accepted and kept, coverage {1, 4} (4 =
 * physical_rows) is refused and leaves the fragment's overlays as they were.
 * Both coverage forms: one shared bitmap, and field_coverage with the edge
 * in the second field's bitmap. */
static void test_FA_OVERLAY_3_coverage_offset_at_physical_rows_refused(void **state) {
  (void)state;
  char path[] = "data/overlay.lance";
  int32_t fields[] = {2, 3};
  for (int shared = 0; shared <= 1; shared++) {
    for (uint32_t edge = 3; edge <= 4; edge++) {
      lfa_fragment f = {.id = 7, .physical_rows = 4};
      roaring_bitmap_t *lo = roaring_bitmap_of(1, 1), *hi = roaring_bitmap_of(2, 1, edge);
      lfa_buf b_lo = {0}, b_hi = {0};
      lfa_error err = {0};
      assert_ok(lfa_bitmap_encode(&b_lo, lo, &err), &err);
      assert_ok(lfa_bitmap_encode(&b_hi, hi, &err), &err);
      Lance__Table__DataFile df = LANCE__TABLE__DATA_FILE__INIT;
      df.path = path, df.n_fields = 2, df.fields = fields;
      ProtobufCBinaryData per_field[] = {{b_lo.len, b_lo.data}, {b_hi.len, b_hi.data}};
      Lance__Table__FieldCoverage fc = LANCE__TABLE__FIELD_COVERAGE__INIT;
      fc.n_offset_bitmaps = 2, fc.offset_bitmaps = per_field;
      Lance__Table__DataOverlayFile pb = LANCE__TABLE__DATA_OVERLAY_FILE__INIT;
      pb.data_file = &df, pb.committed_version = 5;
      if (shared) {
        pb.coverage_case = LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_SHARED_OFFSET_BITMAP;
        pb.shared_offset_bitmap = per_field[1];
      } else {
        pb.coverage_case = LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_FIELD_COVERAGE;
        pb.field_coverage = &fc;
      }
      lfa_status st = lfa_fragment_add_overlay(&f, &pb, &err);
      if (edge < f.physical_rows) {
        assert_ok(st, &err);
        assert_int_equal(f.n_overlays, 1);
        assert_true(roaring_bitmap_equals(f.overlays[0].coverage[shared ? 0 : 1], hi));
      } else {
        if (st == LFA_OK) fail_msg("coverage offset %" PRIu32 " of %s accepted; expected FA-OVERLAY-3", edge,
                                   shared ? "shared_offset_bitmap" : "field_coverage");
        assert_status(st, LFA_ERR_RULE, &err);
        assert_rule(&err, "FA-OVERLAY-3");
        assert_int_equal(f.n_overlays, 0);
      }
      lfa_fragment_free(&f);
      lfa_buf_free(&b_lo), lfa_buf_free(&b_hi);
      roaring_bitmap_free(lo), roaring_bitmap_free(hi);
    }
  }
}

static void test_FA_TXN_8_FA_OP_6_FA_TXN_16_whole_transaction_rules(void **state) {
  (void)state;
  history h;
  load_history(&h, EXAMPLE);
  /* v2's initialization applied where field 2 is already tracked */
  expect_refused(&h, 1, &h.tables[1], h.snaps[1].transaction, "FA-TXN-8");
  /* an operation this committer does not know, on a tracked dataset */
  Lance__Table__Transaction *t = txn_of(&h, 7);
  Lance__Table__Transaction__OperationCase op = t->operation_case;
  t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION__NOT_SET;
  expect_refused(&h, 7, &h.tables[6], t, "FA-OP-6");
  t->operation_case = op;
  lfa_pb_free(t);
  /* an overwrite cannot carry row changes: no row of P survives it */
  t = txn_of(&h, 0);
  RowChange rc = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__ROW_CHANGE__INIT, *list[] = {&rc};
  Sidecar side = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  lfa_buf b = treemap_of(1);
  rc.row_addresses = (ProtobufCBinaryData){b.len, b.data};
  side.row_changes = list, side.n_row_changes = 1;
  t->field_assignment_transaction = &side;
  expect_refused(&h, 0, NULL, t, "FA-TXN-16");
  t->field_assignment_transaction = NULL;
  lfa_buf_free(&b);
  lfa_pb_free(t);
  free_history(&h);
}

/* [FA-BITMAP-3] a partial cell is never empty nor full: canonical, an
 * empty one is NONE and one of every row ALL, and one row short of every
 * row (or one of 1 row out of 2) stays PARTIAL with its rows. */
static void test_FA_BITMAP_3_canonical_cells_at_the_edges(void **state) {
  (void)state;
  const uint64_t rows = 5;
  const struct {
    uint64_t n;
    lfa_cell_kind want;
  } cases[] = {{0, LFA_CELL_NONE}, {1, LFA_CELL_PARTIAL}, {rows - 1, LFA_CELL_PARTIAL}, {rows, LFA_CELL_ALL}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lfa_cell c = {LFA_CELL_PARTIAL, roaring_bitmap_create()};
    if (cases[i].n > 0) roaring_bitmap_add_range(c.rows, 0, cases[i].n);
    lfa_cell_canonicalize(&c, rows);
    if (c.kind != cases[i].want) fail_msg("%" PRIu64 " of %" PRIu64 " rows: kind %d", cases[i].n, rows, (int)c.kind);
    assert_true((c.rows != NULL) == (cases[i].want == LFA_CELL_PARTIAL));
    if (c.rows) assert_int_equal(roaring_bitmap_get_cardinality(c.rows), cases[i].n);
    lfa_bitmap_free(c.rows);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_OP_4_upstream_example_replays),
      cmocka_unit_test(test_FA_OP_4_sample_replays),
      cmocka_unit_test(test_FA_TXN_14_and_13_rewrite_states),
      cmocka_unit_test(test_FA_TXN_10_row_change_must_name_live_rows),
      cmocka_unit_test(test_FA_SEM_5_and_FA_TXN_12_writes_and_row_changes),
      cmocka_unit_test(test_FA_UPDATE_2_column_update_needs_offsets),
      cmocka_unit_test(test_FA_UPDATE_2_offset_at_physical_rows_refused),
      cmocka_unit_test(test_FA_OVERLAY_3_coverage_offset_at_physical_rows_refused),
      cmocka_unit_test(test_FA_BITMAP_3_canonical_cells_at_the_edges),
      cmocka_unit_test(test_FA_TXN_8_FA_OP_6_FA_TXN_16_whole_transaction_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
