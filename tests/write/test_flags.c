/* test_flags.c: feature bit 2^52, the upstream draft's bit 256, and the
 * writer's refusal of bits it does not
 * know (spec 03-flags.md). The reference writer meets a foreign writer word
 * in a table read from disk (lfa_table_from_snapshot keeps the manifest's
 * word) or in a version another writer committed while a commit was in
 * flight. Expected outcomes are derived by hand from the spec.
 * Requirement ids: FA-FLAG-1, FA-FLAG-2, FA-FLAG-3, FA-FLAG-4, FA-FLAG-5,
 * FA-FLAG-7, FA-LANCE-21. */
#include "rules_util.h"

#include "lfa/commit.h"
#include "lfa/snapshot_model.h"
#include "lfa/mutate.h"

#define UPSTREAM "../shared/upstream-layout-example/address-mode-history"

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"extra", "int32", true, LFA_UNTRACKED},
};
static const uint64_t K1_6[] = {1, 2, 3, 4, 5, 6};

/* v1: keys 1..6 in fragments 0 (1, 2, 3) and 1 (4, 5, 6), `id` and `emb`
 * stored, emb tracked. v2: emb written on keys 1 and 4. */
static void setup(lfa_history *h, const char *dir) {
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, dir, 3, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 3, .rows = {6, K1_6},
                   .rows_per_file = 3, .fields = NAMES("id", "emb")};
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = KEYS(1, 4), .fields = NAMES("emb"), .rewrite_columns = true};
  apply_head(h, &c);
  apply_head(h, &w);
}

/* ---- FA-FLAG-7: the upstream draft's bit 256, read as that layout ------------ */

/* The independent upstream-layout history writes writer bit 256 (and no
 * reader bit, as upstream's first iteration). Its head (v9) tracks field 2
 * (`vec`): fragment 2 all assigned, fragment 4 partial {1, 4}, fragment 3
 * nothing (README of the example). The reference committer reads it as the
 * draft's layout: an append on top commits, and the state follows
 * FA-APPEND-1 (the new fragment stores field 2, so it is all assigned); the
 * new version's words are the writer's to compute (bit 2^52, FA-FLAG-7). */
static void test_div_draft_bit_256_read_as_that_layout(void **state) {
  (void)state;
  lfa_table r, n;
  lfa_change c;
  lfa_error err = {0};
  read_table(&r, UPSTREAM, 9);
  assert_int_equal(r.writer_feature_flags, 256); /* the draft's marker alone */
  assert_ok(lfa_check_writer_flags(&r, &err), &err);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(100, 101), .fields = NAMES("id", "vec")};
  assert_ok(lfa_mutate(&c, &r, &ap, &err), &err);
  assert_ok(lfa_commit(&n, &r, &c, NULL, &err), &err);
  /* fragments 2, 3, 4 and the new one (id 5: max_fragment_id is 4) */
  assert_int_equal(n.n_fragments, 4);
  assert_int_equal(n.fragments[3].id, 5);
  const lfa_field_state *s = lfa_table_tracked(&n, 2);
  assert_non_null(s);
  assert_int_equal(s->cells[0].kind, LFA_CELL_ALL);     /* fragment 2 */
  assert_int_equal(s->cells[1].kind, LFA_CELL_NONE);    /* fragment 3 */
  assert_int_equal(s->cells[2].kind, LFA_CELL_PARTIAL); /* fragment 4: {1, 4} */
  assert_int_equal(roaring_bitmap_get_cardinality(s->cells[2].rows), 2);
  assert_true(roaring_bitmap_contains(s->cells[2].rows, 1) && roaring_bitmap_contains(s->cells[2].rows, 4));
  assert_int_equal(s->cells[3].kind, LFA_CELL_ALL); /* fragment 5 stores field 2 */
  assert_int_equal(n.writer_feature_flags, 0);      /* the writer computes N's words */
  lfa_table_free(&n);
  lfa_change_free(&c);
  /* FA-FLAG-4: Lance's bits 1 to 64 and bit 2^52 are known */
  r.writer_feature_flags = 0x7F | ((uint64_t)1 << 52);
  assert_ok(lfa_check_writer_flags(&r, &err), &err);
  /* Lance 12's 128 (covered index metadata) was never taught [FA-FLAG-5] */
  r.writer_feature_flags = 128u;
  assert_status(lfa_check_writer_flags(&r, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-FLAG-5");
  /* [FA-LANCE-21] without tracked fields, bit 256 is Lance 12's mixed
   * data-file versions, which this committer cannot keep */
  lfa_table plain;
  read_table(&plain, UPSTREAM, 1); /* nothing tracked yet */
  assert_int_equal(plain.n_tracked, 0);
  plain.writer_feature_flags = 256u;
  assert_status(lfa_check_writer_flags(&plain, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-FLAG-5");
  lfa_table_free(&plain);
  lfa_table_free(&r);
}

/* ---- FA-FLAG-5: unknown writer bits refused on every mutation path -------------- */

static void add_bit_512(lfa_manifest_file *file, void *ctx) {
  (void)ctx;
  file->manifest->writer_feature_flags |= 512u;
}

/* Version 2 written to disk, its manifest then given writer bit 512 (a
 * feature of a newer writer). Read back, the table keeps the word, and no
 * mutation plans against it; the same requests on the same table with the
 * word it had plan and commit, so the bit alone makes the difference. */
static void test_FA_FLAG_5_every_mutation_path_refuses_an_unknown_writer_bit(void **state) {
  (void)state;
  scratch s;
  lfa_history h;
  lfa_table disk;
  scratch_make(&s);
  setup(&h, s.ds);
  rewrite_manifest(s.ds, 2, add_bit_512, NULL);
  read_table(&disk, s.ds, 2);
  /* the writer wrote 2^52 alone (emb tracked; no deletion file, no stable
   * row ids, no overlay), and the rewrite added 512 */
  assert_int_equal(disk.writer_feature_flags, ((uint64_t)1 << 52) | 512u);
  lfa_table r;
  lfa_error err = {0};
  assert_ok(lfa_table_copy(&r, lfa_history_version(&h, 2), &err), &err); /* keys are not on disk */
  /* one valid request per mutation path on v2 (each commits when the word
   * is known: see the control below) */
  static const lfa_new_field more[] = {{"more", "int32", true, LFA_UNTRACKED}};
  static const lfa_new_field fresh[] = {{"id", "int64", false, LFA_UNASSIGNED}};
  const lfa_request q[] = {
      {.op = LFA_OP_APPEND, .rows = KEYS(7), .fields = NAMES("id")},
      {.op = LFA_OP_ADD_COLUMNS, .new_fields = more, .n_new_fields = 1},
      {.op = LFA_OP_TRACK, .field = "extra", .assignment = LFA_UNASSIGNED},
      {.op = LFA_OP_RENAME, .field = "extra", .new_name = "extra2"},
      {.op = LFA_OP_CAST, .field = "extra", .new_type = "int64"},
      {.op = LFA_OP_SET_NULLABLE, .field = "extra", .nullable = true},
      {.op = LFA_OP_DROP, .fields = NAMES("extra")},
      {.op = LFA_OP_UPDATE, .rows = KEYS(2), .fields = NAMES("emb"), .rewrite_columns = true},
      {.op = LFA_OP_UPDATE, .rows = KEYS(2), .fields = NAMES("id")}, /* rows move */
      {.op = LFA_OP_UPDATE, .rows = KEYS(1), .invalidate = NAMES("emb")},
      {.op = LFA_OP_MERGE_INSERT, .rows = KEYS(3), .fields = NAMES("id"), .inserts = KEYS(9)},
      {.op = LFA_OP_DELETE, .rows = KEYS(3)},
      {.op = LFA_OP_COMPACT},
      {.op = LFA_OP_REPLACE, .fragment_id = 0, .fields = NAMES("extra")},
      {.op = LFA_OP_OVERLAY, .fragment_id = 0, .rows = KEYS(2), .fields = NAMES("emb")},
      {.op = LFA_OP_RESTORE, .version = 1},
      {.op = LFA_OP_OVERWRITE, .new_fields = fresh, .n_new_fields = 1, .rows = KEYS(1), .fields = NAMES("id")},
      {.op = LFA_OP_CLONE},
      {.op = LFA_OP_CREATE_INDEX},
      {.op = LFA_OP_UPDATE_CONFIG},
  };
  for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
    lfa_change c;
    lfa_table out;
    const lfa_table *restored = q[k].op == LFA_OP_RESTORE ? lfa_history_version(&h, 1)
                                : q[k].op == LFA_OP_CLONE ? &r : NULL;
    r.writer_feature_flags = disk.writer_feature_flags;
    lfa_status st = lfa_mutate(&c, &r, &q[k], &err);
    if (st != LFA_ERR_RULE) fail_msg("%s: %s, expected a refusal (%s)", lfa_op_name(q[k].op), lfa_status_name(st), err.msg);
    assert_rule(&err, "FA-FLAG-5");
    r.writer_feature_flags = ((uint64_t)1 << 52); /* control: known bits only */
    assert_ok(lfa_mutate(&c, &r, &q[k], &err), &err);
    st = lfa_commit(&out, q[k].op == LFA_OP_CLONE ? NULL : &r, &c, restored, &err);
    if (st != LFA_OK) fail_msg("%s: %s", lfa_op_name(q[k].op), err.msg);
    lfa_table_free(&out);
    lfa_change_free(&c);
  }
  lfa_table_free(&r);
  lfa_table_free(&disk);
  lfa_history_close(&h);
  scratch_remove(&s);
}

/* A change planned against R (known bits) meets a head whose word gained
 * bit 512 while it was in flight (another, newer writer committed it): the
 * commit is refused after the rebase, before anything is written, and the
 * head stays. The same change on a head with known bits commits. Restore
 * and clone copy a version: one with an unknown bit cannot be copied. */
static void test_FA_FLAG_5_checked_again_after_a_rebase(void **state) {
  (void)state;
  scratch s;
  lfa_history h;
  lfa_error err = {0};
  scratch_make(&s);
  setup(&h, s.ds);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7), .fields = NAMES("id", "emb")};
  lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .invalidate = NAMES("emb")};
  apply_head(&h, &ap); /* v3 */
  h.versions[2].writer_feature_flags = ((uint64_t)1 << 52) | 512u; /* v3 as a newer writer left it */
  assert_status(lfa_history_apply(&h, &inv, 2, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-FLAG-5");
  assert_int_equal(h.count, 3);
  char path[256];
  manifest_path(path, sizeof path, s.ds, 4);
  assert_false(lfa_fs_exists(path)); /* nothing written for version 4 */
  /* the same bits at R: refused while planning */
  assert_status(lfa_history_apply(&h, &inv, 3, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-FLAG-5");
  /* control: with known bits on the head the same change commits (v4),
   * its invalidation moved onto v3: key 1 loses emb, key 4 keeps it */
  h.versions[2].writer_feature_flags = ((uint64_t)1 << 52);
  apply_at(&h, &inv, 2);
  const lfa_table *v4 = lfa_history_head(&h);
  const lfa_field_state *emb = lfa_table_tracked(v4, 1);
  assert_int_equal(emb->cells[0].kind, LFA_CELL_NONE);    /* fragment 0: key 1 was its only assigned row */
  assert_int_equal(emb->cells[1].kind, LFA_CELL_PARTIAL); /* fragment 1: key 4 (offset 0) */
  assert_true(roaring_bitmap_contains(emb->cells[1].rows, 0));
  /* a restore copies the version it names: one a newer writer left with
   * an unknown bit cannot be copied */
  h.versions[0].writer_feature_flags = 512u;
  lfa_request restore = {.op = LFA_OP_RESTORE, .version = 1};
  assert_status(lfa_history_apply(&h, &restore, 0, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-FLAG-5");
  assert_int_equal(h.count, 4);
  h.versions[0].writer_feature_flags = 0;
  apply_head(&h, &restore); /* v5 */
  lfa_history_close(&h);
  scratch_remove(&s);
}

/* ---- FA-FLAG-1..3 on disk: div_reader_bit_set_with_writer_bit ----------------------- */

static void flags_of(uint64_t *reader, uint64_t *writer, const char *dir, uint64_t version) {
  lfa_snapshot snap;
  load_version(&snap, dir, version);
  *reader = snap.file.manifest->reader_feature_flags;
  *writer = snap.file.manifest->writer_feature_flags;
  lfa_snapshot_free(&snap);
}

/* v1: nothing tracked (emb created untracked): bit 2^52 in neither word.
 * v2: emb tracked: 2^52 in both [FA-FLAG-1] [FA-FLAG-2]. v3: extra tracked
 * too: still both. v4: emb dropped, extra still tracked: still both. v5:
 * extra dropped, no descriptor left: both cleared [FA-FLAG-1] [FA-FLAG-3].
 * No deletion file, no stable row ids, no overlay: no other bit is set. */
static void test_div_reader_bit_set_with_writer_bit(void **state) {
  (void)state;
  static const lfa_new_field untracked[] = {
      {"id", "int64", false, LFA_UNTRACKED},
      {"emb", "fixed_size_list:float:4", true, LFA_UNTRACKED},
      {"extra", "int32", true, LFA_UNTRACKED},
  };
  scratch s;
  lfa_history h;
  lfa_error err = {0};
  scratch_make(&s);
  assert_ok(lfa_history_open(&h, s.ds, 5, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = untracked, .n_new_fields = 3, .rows = KEYS(1, 2), .fields = NAMES("id")};
  lfa_request t1 = {.op = LFA_OP_TRACK, .field = "emb", .assignment = LFA_UNASSIGNED};
  lfa_request t2 = {.op = LFA_OP_TRACK, .field = "extra", .assignment = LFA_ASSIGNED};
  lfa_request d1 = {.op = LFA_OP_DROP, .fields = NAMES("emb")};
  lfa_request d2 = {.op = LFA_OP_DROP, .fields = NAMES("extra")};
  const lfa_request *steps[] = {&c, &t1, &t2, &d1, &d2};
  const uint64_t want[] = {0, (uint64_t)1 << 52, (uint64_t)1 << 52, (uint64_t)1 << 52, 0};
  for (size_t k = 0; k < 5; k++) {
    uint64_t reader, writer;
    apply_head(&h, steps[k]);
    flags_of(&reader, &writer, s.ds, k + 1);
    assert_int_equal(writer, want[k]);
    assert_int_equal(reader, want[k]);
  }
  lfa_history_close(&h);
  scratch_remove(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_div_draft_bit_256_read_as_that_layout),
      cmocka_unit_test(test_FA_FLAG_5_every_mutation_path_refuses_an_unknown_writer_bit),
      cmocka_unit_test(test_FA_FLAG_5_checked_again_after_a_rebase),
      cmocka_unit_test(test_div_reader_bit_set_with_writer_bit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
