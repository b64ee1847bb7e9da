/* test_concurrency.c: commits built against a read version R and committed
  * on a later head P (06, 04§4), through
 * lfa_history_apply (mutate at R, rebase, commit on P, write). What must
 * happen is derived by hand from the rules and the pair table, by logical
 * key; stored transactions are read back from disk.
 * Requirement ids: FA-CONC-2, FA-CONC-5, FA-CONC-6, FA-CONC-9, FA-CONC-10,
 * FA-TXN-11, FA-TXN-17, FA-TXN-18, FA-OP-3, FA-OP-5, FA-CONC-13, FA-CONC-14. */
#include "rules_util.h"

#include "lfa/bitmap.h"
#include "lfa/commit.h"
#include "lfa/mutate.h"
#include "lfa/verify.h"

enum { ID = 0, EMB = 1, EXTRA = 2 }; /* the field ids of rules_setup */

/* v1 and v2 of rules_util.h, v2 with emb written on every row: every live
 * row is assigned for emb. */
static void setup(lfa_history *h, const char *dir, bool stable) { rules_setup(h, dir, 21, stable, KEYS(1, 2, 3, 4, 5, 6)); }

/* Refused as retryable under `rule`; nothing committed. */
static void expect_retry(lfa_history *h, const lfa_request *q, uint64_t read_version, const char *rule) {
  lfa_error err = {0};
  size_t before = h->count;
  assert_status(lfa_history_apply(h, q, read_version, &err), LFA_ERR_CONFLICT, &err);
  assert_rule(&err, rule);
  assert_int_equal(h->count, before);
}

/* The addresses of a treemap, in order, as "fragment:offset ". */
static void addresses(char *out, size_t cap, const ProtobufCBinaryData *bytes) {
  lfa_treemap tm;
  lfa_error err = {0};
  size_t used = 0;
  assert_ok(lfa_treemap_decode(&tm, bytes->data, bytes->len, &err), &err);
  out[0] = '\0';
  for (size_t b = 0; b < tm.count; b++) {
    roaring_uint32_iterator_t *it = roaring_create_iterator(tm.low[b]);
    for (; it->has_value; roaring_advance_uint32_iterator(it))
      used += (size_t)snprintf(out + used, cap - used, "%u:%u ", (unsigned)tm.high[b], (unsigned)it->current_value);
    roaring_free_uint32_iterator(it);
  }
  lfa_treemap_free(&tm);
}

/* ---- the sidecar moved onto the head ------------------------------------------------ */

/* Invalidation of emb on keys 2 and 5, built at v2 (addresses 0:1 and
 * 1:1). Meanwhile v3 appends keys 7, 8 (emb supplied: fragment 2 all
 * assigned) and v4 deletes key 2. The commit (v5) rebuilds N from P = v4
 * [FA-CONC-1] [FA-OP-3]: key 2's address is dropped (deleted, FA-CONC-4
 * item 2), key 5's stays. The stored transaction is the applied one
 * [FA-TXN-17]: read back from disk, its read version is 4 and its one
 * RowChange names 1:1 only, an address of P [FA-TXN-11]; the rebased
 * attempt checked its sidecar against P and wrote its own objects
 * [FA-CONC-2]: the verifier, which applies the stored transaction to the
 * real parent, finds nothing wrong. emb ends assigned on 1 3 4 6 7 8.
 * [FA-TXN-18] read version 4 (P, not the R of 2) names its .txn file too. */
static void test_div_sidecar_rebased_against_head(void **state) {
  (void)state;
  scratch s;
  lfa_history h;
  char got[128];
  scratch_make(&s);
  setup(&h, s.ds, false);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7, 8), .fields = NAMES("id", "emb")};
  lfa_request del = {.op = LFA_OP_DELETE, .rows = KEYS(2)};
  lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(2, 5), .invalidate = NAMES("emb")};
  apply_head(&h, &ap);
  apply_head(&h, &del);
  apply_at(&h, &inv, 2);
  expect_assigned(lfa_history_head(&h), EMB, "1 3 4 6 7 8 ");
  lfa_snapshot snap;
  load_version(&snap, s.ds, 5);
  const Lance__Table__Transaction *t = snap.transaction;
  assert_int_equal(t->read_version, 4);
  assert_int_equal(strncmp(snap.file.manifest->transaction_file, "4-", 2), 0);
  assert_non_null(t->field_assignment_transaction);
  assert_int_equal(t->field_assignment_transaction->n_row_changes, 1);
  assert_int_equal(t->field_assignment_transaction->row_changes[0]->field_id, EMB);
  assert_false(t->field_assignment_transaction->row_changes[0]->assigned);
  addresses(got, sizeof got, &t->field_assignment_transaction->row_changes[0]->row_addresses);
  assert_string_equal(got, "1:1 ");
  lfa_snapshot_free(&snap);
  verify_clean(s.ds);
  lfa_history_close(&h);
  scratch_remove(&s);
}

/* [FA-TXN-11] Both modes: v3 compacts fragments 0 and 1 into fragment 2
 * (keys 1..6 at offsets 0..5: group order and offsets ascending, or the
 * row ids). An invalidation of keys 3 and 5 built at v2 names 0:2 and 1:1
 * there; committed on v3 it is stored with 2:2 and 2:4, P's addresses of
 * the same rows [FA-TXN-17], and those rows lose emb. */
static void test_FA_TXN_11_row_changes_stored_as_addresses_of_p(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    scratch s;
    lfa_history h;
    char got[128];
    scratch_make(&s);
    setup(&h, s.ds, stable);
    lfa_request compact = {.op = LFA_OP_COMPACT};
    lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(3, 5), .invalidate = NAMES("emb")};
    apply_head(&h, &compact);
    assert_int_equal(lfa_history_head(&h)->fragments[0].id, 2);
    apply_at(&h, &inv, 2);
    const Lance__Table__Transaction__FieldAssignmentTransaction *mem = h.changes[3].txn->field_assignment_transaction;
    addresses(got, sizeof got, &mem->row_changes[0]->row_addresses);
    assert_string_equal(got, "2:2 2:4 ");
    lfa_snapshot snap;
    load_version(&snap, s.ds, 4);
    addresses(got, sizeof got, &snap.transaction->field_assignment_transaction->row_changes[0]->row_addresses);
    assert_string_equal(got, "2:2 2:4 ");
    lfa_snapshot_free(&snap);
    expect_assigned(lfa_history_head(&h), EMB, "1 2 4 6 ");
    verify_clean(s.ds);
    lfa_history_close(&h);
    scratch_remove(&s);
  }
}

/* ---- compaction states computed against P, on every attempt ------------------------- */

/* The FragmentState of field `field` for the new fragment whose first file
 * is `path`, read back from version `v`'s stored transaction, as offsets. */
static void stored_state(char *out, size_t cap, const char *dir, uint64_t v, int32_t field) {
  lfa_snapshot snap;
  lfa_error err = {0};
  load_version(&snap, dir, v);
  const Lance__Table__Transaction__FieldAssignmentTransaction *s = snap.transaction->field_assignment_transaction;
  assert_non_null(s);
  out[0] = '\0';
  for (size_t k = 0; k < s->n_fragment_states; k++) {
    const Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState *fs = s->fragment_states[k];
    if (fs->field_id != field) continue;
    if (fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED)
      snprintf(out, cap, "all");
    else if (fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED)
      snprintf(out, cap, "none");
    else {
      roaring_bitmap_t *b;
      size_t used = 0;
      assert_ok(lfa_bitmap_decode(&b, fs->partial.data, fs->partial.len, &err), &err);
      roaring_uint32_iterator_t *it = roaring_create_iterator(b);
      for (; it->has_value; roaring_advance_uint32_iterator(it))
        used += (size_t)snprintf(out + used, cap - used, "%u ", (unsigned)it->current_value);
      roaring_free_uint32_iterator(it);
      lfa_bitmap_free(b);
    }
  }
  lfa_snapshot_free(&snap);
}

/* A compaction planned at v2, when every row had emb, commits after v3
 * invalidated key 4: its state for the new fragment (keys 1..6 at offsets
 * 0..5) is computed from P, so key 4's offset 3 is left out [FA-CONC-5]:
 * stored as partial {0, 1, 2, 4, 5} [FA-TXN-17], and key 4 stays
 * unassigned. Both modes. (A compaction that cannot rebase and is planned
 * again: test_FA_CONC_2_failed_attempt_then_retry.) */
static void test_div_compaction_recomputed_on_retry(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    scratch s;
    lfa_history h;
    char got[128];
    scratch_make(&s);
    setup(&h, s.ds, stable);
    lfa_request compact = {.op = LFA_OP_COMPACT};
    lfa_request inv4 = {.op = LFA_OP_UPDATE, .rows = KEYS(4), .invalidate = NAMES("emb")};
    apply_head(&h, &inv4);         /* v3 */
    apply_at(&h, &compact, 2);     /* v4, planned at v2 */
    stored_state(got, sizeof got, s.ds, 4, EMB);
    assert_string_equal(got, "0 1 2 4 5 ");
    expect_assigned(lfa_history_head(&h), EMB, "1 2 3 5 6 ");
    verify_clean(s.ds);
    lfa_history_close(&h);
    scratch_remove(&s);
  }
}

/* [FA-CONC-2] An attempt that fails leaves nothing a manifest references,
 * and the next attempt, planned again from the new head, writes what it
 * needs and checks its sidecar against that head.
 * v3 appends keys 7, 8 in fragment 2 without emb. A compaction planned at
 * v3 (fragments 0, 1 and 2: small and adjacent, one group) meets v4, which
 * deleted key 5 from fragment 1: Lance's rule makes it retryable
 * (FA-CONC-5), and nothing is written: the files of the dataset are those
 * before the attempt. Planned again at v4, the compaction takes the same
 * three fragments into one new fragment of keys 1 2 3 4 6 7 8, emb
 * assigned on the first five (from v4: offsets 0..4); every object on
 * disk is named by some manifest. */
static void test_FA_CONC_2_failed_attempt_then_retry(void **state) {
  (void)state;
  scratch s;
  lfa_history h;
  char got[128];
  path_set before = {0}, after = {0}, named = {0};
  scratch_make(&s);
  setup(&h, s.ds, false);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7, 8), .fields = NAMES("id")};
  lfa_request del = {.op = LFA_OP_DELETE, .rows = KEYS(5)};
  lfa_request compact = {.op = LFA_OP_COMPACT};
  apply_head(&h, &ap);  /* v3 */
  apply_head(&h, &del); /* v4 */
  list_files(&before, s.ds, ".");
  expect_retry(&h, &compact, 3, "FA-CONC-5");
  list_files(&after, s.ds, ".");
  assert_int_equal(after.n, before.n);
  for (size_t i = 0; i < after.n; i++) assert_true(path_set_has(&before, after.items[i]));
  apply_at(&h, &compact, 4); /* v5 */
  stored_state(got, sizeof got, s.ds, 5, EMB);
  assert_string_equal(got, "0 1 2 3 4 ");
  expect_assigned(lfa_history_head(&h), EMB, "1 2 3 4 6 ");
  path_set_free(&after);
  list_files(&after, s.ds, "./_field_assignments");
  referenced_objects(&named, s.ds, 5);
  for (size_t i = 0; i < after.n; i++) {
    const char *rel = after.items[i] + 2; /* without "./" */
    if (!path_set_has(&named, rel)) fail_msg("%s is named by no manifest", rel);
  }
  verify_clean(s.ds);
  path_set_free(&before);
  path_set_free(&after);
  path_set_free(&named);
  lfa_history_close(&h);
  scratch_remove(&s);
}

/* ---- FA-CONC-6: a field the sidecar names left the schema ---------------------------- */

/* Each change below names emb (or extra) in its sidecar and was built at
 * v2; an intervening commit removed that field from the schema. Retryable
 * [FA-CONC-6]; planned again at the head, the sidecar names what the head
 * has. A cast gives emb a new id (3, the next free one), and the id 1 it
 * left must not be followed. */
static void test_FA_CONC_6_named_field_left_the_schema(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(2), .invalidate = NAMES("emb")};
  lfa_request compact = {.op = LFA_OP_COMPACT};
  lfa_request track = {.op = LFA_OP_TRACK, .field = "extra", .assignment = LFA_UNASSIGNED};
  lfa_request cast = {.op = LFA_OP_CAST, .field = "emb", .new_type = "fixed_size_list:float:8"};
  lfa_request drop_emb = {.op = LFA_OP_DROP, .fields = NAMES("emb")};
  lfa_request drop_extra = {.op = LFA_OP_DROP, .fields = NAMES("extra")};

  /* a RowChange after a cast: emb's id 1 left; replanned on id 3 */
  setup(&h, NULL, false);
  apply_head(&h, &cast); /* v3 */
  assert_non_null(lfa_table_tracked(lfa_history_head(&h), 3));
  expect_retry(&h, &inv, 2, "FA-CONC-6");
  apply_at(&h, &inv, 3);
  expect_assigned(lfa_history_head(&h), 3, "1 3 4 5 6 ");
  lfa_history_close(&h);

  /* a RowChange, and a compaction's FragmentStates, after a drop */
  setup(&h, NULL, false);
  apply_head(&h, &drop_emb); /* v3 */
  expect_retry(&h, &inv, 2, "FA-CONC-6");
  expect_retry(&h, &compact, 2, "FA-CONC-6");
  apply_at(&h, &compact, 3); /* replanned: nothing tracked, no state */
  assert_int_equal(lfa_history_head(&h)->n_tracked, 0);
  lfa_history_close(&h);

  /* an Initialization, and a cast's Transfer source, after a drop */
  setup(&h, NULL, false);
  apply_head(&h, &drop_extra); /* v3 */
  expect_retry(&h, &track, 2, "FA-CONC-6");
  apply_head(&h, &drop_emb); /* v4 */
  expect_retry(&h, &cast, 3, "FA-CONC-6");
  assert_status(lfa_history_apply(&h, &track, 4, &err), LFA_ERR_USAGE, &err); /* extra is gone */
  lfa_history_close(&h);
}

/* ---- FA-CONC-9: a field initialized meanwhile is tracked ---------------------------- */

/* extra is tracked by v3, after each change below was planned at v2. None
 * fails for missing states of extra [FA-CONC-9]:
 *   compaction: its new fragment gets extra's state from P: all assigned
 *     (v3 initialized it ASSIGNED);
 *   a row-rewriting update of key 2 (id written): the moved row keeps
 *     extra's state in P, assigned;
 *   an in-place update writing extra on key 3, extra initialized UNASSIGNED:
 *     the write assigns key 3 only;
 *   an append of key 7 supplying extra, initialized UNASSIGNED: the appended
 *     fragment stores extra, so key 7 is assigned (FA-APPEND-1). */
static void test_FA_CONC_9_field_initialized_meanwhile_is_tracked(void **state) {
  (void)state;
  lfa_request yes = {.op = LFA_OP_TRACK, .field = "extra", .assignment = LFA_ASSIGNED};
  lfa_request no = {.op = LFA_OP_TRACK, .field = "extra", .assignment = LFA_UNASSIGNED};
  lfa_request compact = {.op = LFA_OP_COMPACT};
  lfa_request move = {.op = LFA_OP_UPDATE, .rows = KEYS(2), .fields = NAMES("id")};
  lfa_request write = {.op = LFA_OP_UPDATE, .rows = KEYS(3), .fields = NAMES("extra"), .rewrite_columns = true};
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7), .fields = NAMES("id", "extra")};
  for (int stable = 0; stable < 2; stable++) {
    lfa_history h;
    setup(&h, NULL, stable);
    apply_head(&h, &yes);
    apply_at(&h, &compact, 2); /* div_initialization_then_compaction */
    expect_assigned(lfa_history_head(&h), EXTRA, "1 2 3 4 5 6 ");
    expect_assigned(lfa_history_head(&h), EMB, "1 2 3 4 5 6 ");
    lfa_history_close(&h);

    setup(&h, NULL, stable);
    apply_head(&h, &yes);
    apply_at(&h, &move, 2); /* div_initialization_then_rewrite_rows */
    expect_assigned(lfa_history_head(&h), EXTRA, "1 2 3 4 5 6 ");
    lfa_history_close(&h);

    setup(&h, NULL, stable);
    apply_head(&h, &no);
    apply_at(&h, &write, 2);
    expect_assigned(lfa_history_head(&h), EXTRA, "3 ");
    apply_at(&h, &ap, 2); /* planned before extra was tracked, too */
    expect_assigned(lfa_history_head(&h), EXTRA, "3 7 ");
    lfa_history_close(&h);
  }
}

/* ---- FA-CONC-10: overlays and rewrites of one fragment ------------------------------- */

/* An overlay of emb on key 1 (fragment 0) and a compaction of fragments 0
 * and 1, in either order, conflict retryably [FA-CONC-10]; so does the
 * overlay after a row-rewriting update that moved key 1, the row it
 * covers. An append in between does not touch fragment 0: the overlay
 * rebases (control). Replanned at the head, the overlay commits on the
 * compacted fragment (id 2). */
static void test_FA_CONC_10_overlay_and_rewrite_of_one_fragment(void **state) {
  (void)state;
  lfa_history h;
  lfa_request overlay = {.op = LFA_OP_OVERLAY, .fragment_id = 0, .rows = KEYS(1), .fields = NAMES("emb")};
  lfa_request compact = {.op = LFA_OP_COMPACT};
  lfa_request move = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .fields = NAMES("id")};
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7), .fields = NAMES("id")};

  setup(&h, NULL, false);
  apply_head(&h, &compact); /* v3 */
  expect_retry(&h, &overlay, 2, "FA-CONC-10");
  lfa_request again = overlay;
  again.fragment_id = 2;
  apply_at(&h, &again, 3);
  assert_int_equal(lfa_history_head(&h)->fragments[0].n_overlays, 1);
  lfa_history_close(&h);

  setup(&h, NULL, false);
  apply_head(&h, &overlay); /* v3 */
  expect_retry(&h, &compact, 2, "FA-CONC-10");
  lfa_history_close(&h);

  setup(&h, NULL, false);
  apply_head(&h, &move); /* v3: key 1 leaves fragment 0 */
  expect_retry(&h, &overlay, 2, "FA-CONC-10");
  lfa_history_close(&h);

  setup(&h, NULL, false);
  apply_head(&h, &ap); /* v3 */
  apply_at(&h, &overlay, 2);
  assert_int_equal(lfa_history_head(&h)->fragments[0].n_overlays, 1);
  lfa_history_close(&h);
}

/* ---- FA-OP-5: a detached commit ------------------------------------------------------ */

/* A detached commit's P is its read version, whatever the branch's head
 * is. The model writes no detached version, so the committer is driven
 * directly: an invalidation of key 6 built at v2 and committed onto v2,
 * while the head (v3) invalidated key 1. N follows FA-OP-2 from v2: key 6
 * unassigned, key 1 still assigned (v3 is not its parent), and its
 * RowChange names v2's address of key 6, 1:2 (FA-TXN-11: the read
 * version for a detached commit). */
static void test_FA_OP_5_detached_commit_applies_to_its_read_version(void **state) {
  (void)state;
  lfa_history h;
  lfa_change c;
  lfa_table n;
  lfa_error err = {0};
  char got[64];
  setup(&h, NULL, false);
  lfa_request inv1 = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .invalidate = NAMES("emb")};
  lfa_request inv6 = {.op = LFA_OP_UPDATE, .rows = KEYS(6), .invalidate = NAMES("emb")};
  apply_head(&h, &inv1); /* v3, the head */
  const lfa_table *r = lfa_history_version(&h, 2);
  assert_ok(lfa_mutate(&c, r, &inv6, &err), &err);
  assert_ok(lfa_commit(&n, r, &c, NULL, &err), &err);
  expect_assigned(&n, EMB, "1 2 3 4 5 ");
  addresses(got, sizeof got, &c.txn->field_assignment_transaction->row_changes[0]->row_addresses);
  assert_string_equal(got, "1:2 ");
  expect_assigned(lfa_history_head(&h), EMB, "2 3 4 5 6 "); /* the branch is untouched */
  lfa_table_free(&n);
  lfa_change_free(&c);
  lfa_history_close(&h);
}

/* ---- FA-CONC-13: the pairs Lance's operation conflicts decide ------------------------ */

/* One pair: `theirs` commits v3 on the setup's v2 (emb on every row), then
 * `mine`, built at v2, is committed on v3. want: LFA_OK, LFA_ERR_CONFLICT
 * (retryable) or LFA_ERR_RULE (incompatible), naming `rule`. */
typedef struct pair_case {
  const char *what;
  lfa_request theirs, mine;
  lfa_status want;
  const char *rule;
} pair_case;

static const lfa_new_field NEW_N[] = {{"n", "int32", true, LFA_UNTRACKED}};
static const lfa_new_field OVER[] = {{"id", "int64", false, LFA_UNTRACKED},
                                     {"emb", "fixed_size_list:float:4", true, LFA_ASSIGNED}};

/* Each outcome read from FA-CONC-13's items (06§1) by hand. Fragments:
 * 0 holds keys 1-3, 1 holds 4-6. */
static void test_FA_CONC_13_pairs_lance_decides(void **state) {
  (void)state;
  const lfa_request add = {.op = LFA_OP_ADD_COLUMNS, .new_fields = NEW_N, .n_new_fields = 1};
  const lfa_request rename = {.op = LFA_OP_RENAME, .field = "extra", .new_name = "more"};
  const lfa_request write1 = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .fields = NAMES("emb"), .rewrite_columns = true};
  const lfa_request write2 = {.op = LFA_OP_UPDATE, .rows = KEYS(2), .fields = NAMES("emb"), .rewrite_columns = true};
  const lfa_request inval1 = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .invalidate = NAMES("emb")};
  const lfa_request del1 = {.op = LFA_OP_DELETE, .rows = KEYS(1)};
  const lfa_request del2 = {.op = LFA_OP_DELETE, .rows = KEYS(2)};
  const lfa_request compact = {.op = LFA_OP_COMPACT};
  const lfa_request overlay = {.op = LFA_OP_OVERLAY, .fragment_id = 0, .rows = KEYS(1), .fields = NAMES("emb")};
  const lfa_request append = {.op = LFA_OP_APPEND, .rows = KEYS(7)};
  const lfa_request overwrite = {.op = LFA_OP_OVERWRITE, .new_fields = OVER, .n_new_fields = 2, .rows = KEYS(9)};
  const lfa_request restore = {.op = LFA_OP_RESTORE, .version = 1};
  const lfa_request rename2 = {.op = LFA_OP_RENAME, .field = "extra", .new_name = "other"};
  const pair_case cases[] = {
      {"write after add_columns (item 3)", add, write1, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"invalidation-only update after add_columns (item 3)", add, inval1, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"delete after add_columns (item 3)", add, del1, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"compaction after add_columns (item 3)", add, compact, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"overlay after add_columns (item 3)", add, overlay, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"rename after add_columns (item 3)", add, rename, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"append after add_columns (item 3)", add, append, LFA_OK, NULL},
      {"add_columns after a write (item 2)", write1, add, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"rename after rename (item 4)", rename, rename2, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"write after rename (item 4)", rename, write1, LFA_OK, NULL},
      {"delete of the row another delete took (item 5)", del1, del1, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"delete of another row of the fragment (item 5)", del1, del2, LFA_OK, NULL},
      {"delete on a fragment a column update wrote (item 6)", write2, del1, LFA_ERR_CONFLICT, "FA-CONC-13"},
      {"append after overwrite (item 1)", overwrite, append, LFA_ERR_RULE, "FA-CONC-13"},
      {"delete after restore (item 1)", restore, del1, LFA_ERR_RULE, "FA-CONC-13"},
      {"overwrite after overwrite (item 1)", overwrite, overwrite, LFA_OK, NULL},
  };
  for (size_t k = 0; k < 2 * (sizeof cases / sizeof cases[0]); k++) {
    const pair_case *c = &cases[k / 2];
    lfa_history h;
    lfa_error err = {0};
    setup(&h, NULL, k % 2 == 1); /* both row-id modes: the same outcomes */
    apply_head(&h, &c->theirs);
    lfa_status st = lfa_history_apply(&h, &c->mine, 2, &err);
    if (st != c->want) fail_msg("%s (stable row ids: %d): status %d, wanted %d (%s)", c->what, (int)(k % 2), (int)st,
                                (int)c->want, err.msg);
    if (c->rule != NULL) assert_rule(&err, c->rule);
    assert_int_equal(h.count, c->want == LFA_OK ? 4 : 3);
    lfa_history_close(&h);
  }
}

/* [FA-CONC-14] v3 tracks extra (id 2) ASSIGNED; an invalidation of extra
 * on key 1 is built at v3. v4 drops extra; no data file ever stored it (v1
 * stores id, v2 emb), so v5's add_columns gives `n` id 2 again (08§2), and
 * v6 tracks it. Committed on v5 or on v6, the invalidation fails
 * retryably under FA-CONC-6: the drop is seen in its own commit, although
 * P's schema has id 2, untracked (v5) or tracked (v6). */
static void test_FA_CONC_14_dropped_id_that_came_back(void **state) {
  (void)state;
  for (int tracked_again = 0; tracked_again < 2; tracked_again++) {
    lfa_history h;
    setup(&h, NULL, false);
    lfa_request track = {.op = LFA_OP_TRACK, .field = "extra", .assignment = LFA_ASSIGNED};
    lfa_request drop = {.op = LFA_OP_DROP, .fields = NAMES("extra")};
    lfa_request add = {.op = LFA_OP_ADD_COLUMNS, .new_fields = NEW_N, .n_new_fields = 1};
    lfa_request track_n = {.op = LFA_OP_TRACK, .field = "n", .assignment = LFA_UNASSIGNED};
    lfa_request inv = {.op = LFA_OP_UPDATE, .rows = KEYS(1), .invalidate = NAMES("extra")};
    apply_head(&h, &track); /* v3 */
    apply_head(&h, &drop);  /* v4 */
    apply_head(&h, &add);   /* v5 */
    if (tracked_again) apply_head(&h, &track_n); /* v6 */
    const lfa_table *p = lfa_history_head(&h);
    assert_int_equal(p->fields[p->n_fields - 1].id, EXTRA); /* `n` has extra's old id */
    assert_int_equal(lfa_table_tracked(p, EXTRA) != NULL, tracked_again);
    expect_retry(&h, &inv, 3, "FA-CONC-6");
    lfa_history_close(&h);
  }
}

/* 05§2 "every field" is R's schema: v3 adds `t` with data, tracked
 * ASSIGNED on every row; an append of key 7 without `fields`, built at
 * v2, supplies id, emb and extra (v2's fields), not t. Committed on v3
 * (Append rebases over a Merge, 06§2), key 7 is unassigned for t and
 * assigned for emb [FA-APPEND-1] [FA-CONC-9]. */
static void test_append_every_field_is_that_of_the_read_version(void **state) {
  (void)state;
  static const lfa_new_field with_t[] = {{"t", "int32", true, LFA_ASSIGNED}};
  lfa_request add = {.op = LFA_OP_ADD_COLUMNS, .new_fields = with_t, .n_new_fields = 1, .with_data = true};
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = KEYS(7)};
  for (int stable = 0; stable < 2; stable++) {
    lfa_history h;
    setup(&h, NULL, stable);
    apply_head(&h, &add);
    apply_at(&h, &ap, 2);
    const lfa_table *n = lfa_history_head(&h);
    expect_assigned(n, n->fields[n->n_fields - 1].id, "1 2 3 4 5 6 ");
    expect_assigned(n, EMB, "1 2 3 4 5 6 7 ");
    lfa_history_close(&h);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_div_sidecar_rebased_against_head),
      cmocka_unit_test(test_FA_TXN_11_row_changes_stored_as_addresses_of_p),
      cmocka_unit_test(test_div_compaction_recomputed_on_retry),
      cmocka_unit_test(test_FA_CONC_2_failed_attempt_then_retry),
      cmocka_unit_test(test_FA_CONC_6_named_field_left_the_schema),
      cmocka_unit_test(test_FA_CONC_9_field_initialized_meanwhile_is_tracked),
      cmocka_unit_test(test_FA_CONC_10_overlay_and_rewrite_of_one_fragment),
      cmocka_unit_test(test_FA_OP_5_detached_commit_applies_to_its_read_version),
      cmocka_unit_test(test_FA_CONC_13_pairs_lance_decides),
      cmocka_unit_test(test_FA_CONC_14_dropped_id_that_came_back),
      cmocka_unit_test(test_append_every_field_is_that_of_the_read_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
