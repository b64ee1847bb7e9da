/* test_expr.c: is_assigned(field) through lfa/expr.h, on histories the
 * reference writer puts on disk (lfa/history.h), read back as a reader
 * does: plan, bind, scan; row by row and pushed down; as Substrait.
 *
 * Every expected set below is derived by hand from the history written
 * (the comment above HISTORY gives the derivation), never from lfa.
 * Requirement ids: FA-EXPR-1, FA-EXPR-2, FA-EXPR-3, FA-EXPR-4, FA-EXPR-5,
 * FA-EXPR-6, FA-EXPR-8, FA-EXPR-9, FA-EXPR-10, FA-EXPR-11, FA-EXPR-12,
 * FA-EXPR-13, FA-SEM-7, FA-STORE-8, FA-LIMIT-1. Divergence cases (spec/A-divergences.md):
 * div_filter_pushdown_same_result, div_binding_in_projection_filter_aggregate,
 * div_bitmaps_loaded_for_scanned_fragments_only, div_qualified_reference_accepted,
 * div_object_cache_across_versions, div_bound_plan_not_reused_across_snapshots,
 * div_substrait_field_reference. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "testutil.h"

#include <inttypes.h>
#include <stdbool.h>
#include <unistd.h>

#include "lfa/arena.h"
#include "lfa/bitmap.h"
#include "lfa/dataset.h"
#include "lfa/expr.h"
#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/pb.h"
#include "lfa/root.h"
#include "substrait_is_assigned.pb-c.h"

#define KEYS(...) ((lfa_keys){sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (const uint64_t[]){__VA_ARGS__}})

/* ---- the history ---------------------------------------------------------------------
 *
 * Keys 1..40 in five fragments of 8 rows (ids 0..4): key k sits at
 * fragment (k-1)/8, offset (k-1)%8. Field ids follow the schema: id 0,
 * emb 1, meta 2, meta.score 3, when 4; emb, meta.score and when are
 * tracked (when is never written).
 *
 *   v1 create       nothing assigned
 *   v2 update emb   keys 12 | 17 19 21 23 | 25..29 31 32 | 33..40, in place:
 *                   fragment 0 none; 1 {3} (one row); 2 {0,2,4,6} (half);
 *                   3 {0,1,2,3,4,6,7} (all but 5); 4 all eight (all_assigned)
 *   v3 delete       keys 18 19 26 30 33: fragment 2 offsets {1,2}, 3 {1,5},
 *                   4 {0}. State unchanged; live rows where emb is true:
 *                   1 {3}; 2 {0,4,6}; 3 {0,2,3,4,6,7}; 4 {1..7}: 17 of 35
 *   v4 update meta.score  keys 9..12: fragment 1 {0,1,2,3}
 *   v5 update       invalidates emb on keys 12 and 35 (fragment 1 offset 3,
 *                   fragment 4 offset 2): emb true on 2 {0,4,6}; 3 {0,2,3,4,6,7};
 *                   4 {1,3,4,5,6,7}: 15 of 35
 *   v6 rename       emb becomes vec (same id 1, same state)
 *   v7 drop         vec
 */
static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"meta", "struct", true, LFA_UNTRACKED},
    {"meta.score", "int32", true, LFA_UNASSIGNED},
    {"when", "date32:day", true, LFA_UNASSIGNED},
};
static const char *ID[] = {"id"}, *EMB[] = {"emb"}, *SCORE[] = {"meta.score"}, *VEC[] = {"vec"};
enum { F_ID = 0, F_EMB = 1, F_META = 2, F_SCORE = 3 };

static const char V2_EMB[] = "1:3 2:0 2:2 2:4 2:6 3:0 3:1 3:2 3:3 3:4 3:6 3:7 4:0 4:1 4:2 4:3 4:4 4:5 4:6 4:7";
static const char V3_EMB[] = "1:3 2:0 2:4 2:6 3:0 3:2 3:3 3:4 3:6 3:7 4:1 4:2 4:3 4:4 4:5 4:6 4:7";
static const char V3_NOT_EMB[] = "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 1:0 1:1 1:2 1:4 1:5 1:6 1:7 2:3 2:5 2:7";
static const char V5_EMB[] = "2:0 2:4 2:6 3:0 3:2 3:3 3:4 3:6 3:7 4:1 4:3 4:4 4:5 4:6 4:7";

typedef struct fixture {
  char base[64]; /* mkdtemp directory, removed at the end */
  char dir[96];  /* the dataset */
  lfa_history h;
} fixture;

static void apply(lfa_history *h, const lfa_request *q) {
  lfa_error err = {0};
  if (lfa_history_apply(h, q, 0, &err) != LFA_OK) fail_msg("%s: %s", lfa_op_name(q->op), err.msg);
}

static void write_history(fixture *fx, bool stable) {
  lfa_error err = {0};
  strcpy(fx->base, "/tmp/lfa-expr-XXXXXX");
  assert_non_null(mkdtemp(fx->base));
  snprintf(fx->dir, sizeof fx->dir, "%s/ds", fx->base);
  assert_ok(lfa_history_open(&fx->h, fx->dir, 5, &err), &err);
  uint64_t keys[40];
  for (uint64_t k = 0; k < 40; k++) keys[k] = k + 1;
  lfa_request create = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 5, .stable_row_ids = stable,
                        .rows = {40, keys}, .rows_per_file = 8, .fields = {1, ID}};
  lfa_request v2 = {.op = LFA_OP_UPDATE, .fields = {1, EMB}, .rewrite_columns = true,
                    .rows = KEYS(12, 17, 19, 21, 23, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)};
  lfa_request v3 = {.op = LFA_OP_DELETE, .rows = KEYS(18, 19, 26, 30, 33)};
  lfa_request v4 = {.op = LFA_OP_UPDATE, .fields = {1, SCORE}, .rewrite_columns = true, .rows = KEYS(9, 10, 11, 12)};
  lfa_request v5 = {.op = LFA_OP_UPDATE, .invalidate = {1, EMB}, .rows = KEYS(12, 35)};
  lfa_request v6 = {.op = LFA_OP_RENAME, .field = "emb", .new_name = "vec"};
  lfa_request v7 = {.op = LFA_OP_DROP, .fields = {1, VEC}};
  const lfa_request *steps[] = {&create, &v2, &v3, &v4, &v5, &v6, &v7};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) apply(&fx->h, steps[i]);
}

static void remove_history(fixture *fx) {
  char cmd[128];
  lfa_history_close(&fx->h);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->base);
  assert_int_equal(system(cmd), 0);
}

/* Opens version v (manifest, transaction, deletion files: no assignment
 * object) through `cache` (may be NULL). */
static void open_version(lfa_snapshot *snap, const char *dir, uint64_t v, lfa_object_cache *cache) {
  lfa_version_list list;
  lfa_names names;
  lfa_error err = {0};
  assert_ok(lfa_dataset_versions(&list, &names, NULL, dir, &err), &err);
  const lfa_version_entry *entry = NULL;
  for (size_t i = 0; i < list.count; i++)
    if (list.entries[i].version == v) entry = &list.entries[i];
  if (entry == NULL) fail_msg("%s has no version %" PRIu64, dir, v);
  if (lfa_snapshot_open(snap, dir, entry, &(lfa_snapshot_options){.cache = cache}, &err) != LFA_OK)
    fail_msg("version %" PRIu64 ": %s", v, err.msg);
  lfa_version_list_free(&list);
  lfa_fs_names_free(&names);
}

/* A bound reader of one field at one version: snapshot, plan, binding. */
typedef struct reader {
  lfa_snapshot snap;
  lfa_expr_plan plan;
  lfa_expr_binding b;
} reader;

static void read_field(reader *r, const char *dir, uint64_t v, const char *ref, lfa_object_cache *cache) {
  lfa_error err = {0};
  open_version(&r->snap, dir, v, cache);
  assert_ok(lfa_expr_plan_reference(&r->plan, dir, &r->snap, ref, NULL, &err), &err);
  assert_ok(lfa_expr_bind(&r->b, &r->plan, dir, &r->snap, &err), &err);
}

static void close_reader(reader *r) {
  lfa_expr_unbind(&r->b);
  lfa_snapshot_free(&r->snap);
}

static void scan_all(lfa_expr_scan *s, reader *r, const char *dir) {
  lfa_error err = {0};
  assert_ok(lfa_expr_scan_open(s, &r->b, dir, &r->snap, NULL, 0, &err), &err);
}

/* ---- the two ways to evaluate --------------------------------------------------------- */

static void append(char *out, size_t cap, uint64_t fragment, uint32_t offset) {
  size_t len = strlen(out);
  snprintf(out + len, cap - len, "%s%" PRIu64 ":%" PRIu32, len ? " " : "", fragment, offset);
}

static bool is_live(const lfa_expr_fragment *f, uint32_t o) {
  return f->deleted == NULL || !roaring_bitmap_contains(f->deleted, o);
}

/* "F:o ..." of the live rows where is_assigned == want, row by row. */
static void row_by_row(char *out, size_t cap, const lfa_expr_scan *s, bool want) {
  lfa_error err = {0};
  out[0] = '\0';
  for (size_t k = 0; k < s->count; k++)
    for (uint32_t o = 0; o < s->fragments[k].physical_rows; o++) {
      bool v = !want;
      if (!is_live(&s->fragments[k], o)) continue;
      assert_ok(lfa_expr_row(&v, s, k, o, &err), &err);
      if (v == want) append(out, cap, s->fragments[k].id, o);
    }
}

/* The same, pushed down: one selection bitmap per fragment. */
static void pushed_down(char *out, size_t cap, const lfa_expr_scan *s, bool want) {
  lfa_error err = {0};
  out[0] = '\0';
  for (size_t k = 0; k < s->count; k++) {
    roaring_bitmap_t *sel;
    assert_ok(lfa_expr_select(&sel, s, k, want, &err), &err);
    roaring_uint32_iterator_t it;
    roaring_init_iterator(sel, &it);
    for (; it.has_value; roaring_advance_uint32_iterator(&it)) append(out, cap, s->fragments[k].id, it.current_value);
    roaring_bitmap_free(sel);
  }
}

/* Both ways give `want_true` and its complement `want_false`. */
static void check_scan(const lfa_expr_scan *s, const char *want_true, const char *want_false) {
  char got[1024];
  row_by_row(got, sizeof got, s, true);
  assert_string_equal(got, want_true);
  pushed_down(got, sizeof got, s, true);
  assert_string_equal(got, want_true);
  row_by_row(got, sizeof got, s, false);
  assert_string_equal(got, want_false);
  pushed_down(got, sizeof got, s, false);
  assert_string_equal(got, want_false);
}

static size_t words(const char *s) {
  size_t n = 0;
  for (bool in = false; *s; s++) {
    if (*s != ' ' && !in) n++;
    in = *s != ' ';
  }
  return n;
}

/* ---- FA-EXPR-1: one argument, a Boolean for every row -------------------------------------- */

static void test_FA_EXPR_1_call_has_exactly_one_argument(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot snap;
  lfa_expr_plan p;
  lfa_error err = {0};
  write_history(&fx, false);
  open_version(&snap, fx.dir, 3, NULL);
  /* the name ignoring case, spaces around the parts */
  assert_ok(lfa_expr_plan_call(&p, fx.dir, &snap, "is_assigned(emb)", NULL, &err), &err);
  assert_int_equal(p.field_id, F_EMB);
  assert_ok(lfa_expr_plan_call(&p, fx.dir, &snap, "  IS_Assigned ( meta.score )  ", NULL, &err), &err);
  assert_int_equal(p.field_id, F_SCORE);
  /* [FA-EXPR-4] item 1 */
  const char *arity[][2] = {{"is_assigned()", "got 0"},
                            {"is_assigned(   )", "got 0"},
                            {"is_assigned(emb, meta.score)", "got 2"},
                            {"is_assigned(emb,)", "got 2"},
                            {"is_assigned(,)", "got 2"},
                            {"is_assigned(emb, \"a,b\", 'c,d')", "got 3"}};
  for (size_t i = 0; i < sizeof arity / sizeof arity[0]; i++) {
    assert_status(lfa_expr_plan_call(&p, fx.dir, &snap, arity[i][0], NULL, &err), LFA_ERR_USAGE, &err);
    assert_rule(&err, "FA-EXPR-4");
    if (strstr(err.msg, "exactly one argument (FA-EXPR-1)") == NULL || strstr(err.msg, arity[i][1]) == NULL)
      fail_msg("%s: %s", arity[i][0], err.msg);
  }
  /* one argument that is not a field: commas inside parentheses or quotes do not split [FA-EXPR-2] */
  const char *one[] = {"is_assigned(f(emb, id))", "is_assigned('a,b')", "is_assigned(42)", "is_assigned(emb + 1)"};
  for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
    assert_status(lfa_expr_plan_call(&p, fx.dir, &snap, one[i], NULL, &err), LFA_ERR_USAGE, &err);
    assert_rule(&err, "FA-EXPR-4");
    if (strstr(err.msg, "requires a direct field reference (FA-EXPR-2)") == NULL) fail_msg("%s: %s", one[i], err.msg);
  }
  /* not a call of is_assigned at all */
  const char *other[] = {"is_assignd(emb)", "is_assigned_x(emb)", "is_assigned emb", "is_assigned(emb",
                         "is_assigned(emb) AND true", "is_assigned(\"emb)"};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
    assert_status(lfa_expr_plan_call(&p, fx.dir, &snap, other[i], NULL, &err), LFA_ERR_USAGE, &err);
  lfa_snapshot_free(&snap);
  remove_history(&fx);
}

/* [FA-EXPR-2] the bytes of a bare name at the edges of their ranges: a
 * digit from 0 to 9 continues a name (emb0 and emb9 are names, unknown
 * here, not a name followed by a stray byte), and ASCII case folds from A
 * to Z on both sides (zeta, ZETA and zEtA name the field Zeta, none of
 * them exactly). */
static void test_FA_EXPR_2_name_bytes_at_their_edges(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot snap;
  lfa_expr_plan p;
  lfa_error err = {0};
  write_history(&fx, false);
  open_version(&snap, fx.dir, 3, NULL);
  const char *names[] = {"is_assigned(emb0)", "is_assigned(emb9)"};
  for (size_t i = 0; i < 2; i++) {
    assert_status(lfa_expr_plan_call(&p, fx.dir, &snap, names[i], NULL, &err), LFA_ERR_USAGE, &err);
    char want[64];
    snprintf(want, sizeof want, "unknown field '%.4s'", names[i] + 12);
    if (strstr(err.msg, want) == NULL) fail_msg("%s: %s", names[i], err.msg);
  }
  lfa_snapshot_free(&snap);
  remove_history(&fx);

  static const lfa_new_field ZETA[] = {{"id", "int64", false, LFA_UNTRACKED}, {"Zeta", "int32", true, LFA_UNASSIGNED}};
  strcpy(fx.base, "/tmp/lfa-expr-XXXXXX");
  assert_non_null(mkdtemp(fx.base));
  snprintf(fx.dir, sizeof fx.dir, "%s/ds", fx.base);
  assert_ok(lfa_history_open(&fx.h, fx.dir, 5, &err), &err);
  lfa_request create = {.op = LFA_OP_CREATE, .new_fields = ZETA, .n_new_fields = 2, .rows = KEYS(1, 2), .fields = {1, ID}};
  apply(&fx.h, &create);
  open_version(&snap, fx.dir, 1, NULL);
  const char *calls[] = {"is_assigned(zeta)", "is_assigned(ZETA)", "is_assigned(zEtA)"};
  for (size_t i = 0; i < 3; i++) {
    assert_ok(lfa_expr_plan_call(&p, fx.dir, &snap, calls[i], NULL, &err), &err);
    assert_int_equal(p.field_id, 1);
  }
  lfa_snapshot_free(&snap);
  remove_history(&fx);
}

/* [FA-LIMIT-1] the call's text is at most LFA_EXPR_TEXT_BYTES_MAX bytes:
 * `is_assigned(emb)` padded with spaces to exactly the limit is planned,
 * one byte more is refused as a limit, before any of it is parsed. */
static void test_FA_LIMIT_1_call_text_at_its_limit(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot snap;
  lfa_expr_plan p;
  lfa_error err = {0};
  write_history(&fx, false);
  open_version(&snap, fx.dir, 3, NULL);
  static const char call[] = "is_assigned(emb)";
  for (size_t extra = 0; extra <= 1; extra++) {
    size_t n = LFA_EXPR_TEXT_BYTES_MAX + extra;
    char *text = malloc(n + 1);
    assert_non_null(text);
    memset(text, ' ', n);
    memcpy(text + n - strlen(call), call, strlen(call));
    text[n] = '\0';
    if (extra == 0) {
      assert_ok(lfa_expr_plan_call(&p, fx.dir, &snap, text, NULL, &err), &err);
      assert_int_equal(p.field_id, F_EMB);
    } else {
      assert_status(lfa_expr_plan_call(&p, fx.dir, &snap, text, NULL, &err), LFA_ERR_LIMIT, &err);
    }
    free(text);
  }
  lfa_snapshot_free(&snap);
  remove_history(&fx);
}

/* Every live row of a scan gets true or false, never an error or NULL: the
 * row count is the live count, split by the totals. The Substrait form
 * declares a non-nullable Boolean (checked in the Substrait tests). */
static void test_FA_EXPR_1_every_row_is_a_boolean(void **state) {
  (void)state;
  fixture fx;
  reader r;
  lfa_expr_scan s;
  char yes[1024], no[1024];
  lfa_error err = {0};
  uint64_t assigned, unassigned;
  write_history(&fx, false);
  read_field(&r, fx.dir, 3, "emb", NULL);
  scan_all(&s, &r, fx.dir);
  row_by_row(yes, sizeof yes, &s, true);
  row_by_row(no, sizeof no, &s, false);
  assert_int_equal(words(yes) + words(no), 35); /* 40 rows, 5 deleted */
  assert_ok(lfa_expr_counts(&assigned, &unassigned, &s, &err), &err);
  assert_int_equal(assigned, 17);
  assert_int_equal(unassigned, 18);
  lfa_expr_scan_close(&s);
  close_reader(&r);
  remove_history(&fx);
}

/* ---- FA-EXPR-2, FA-EXPR-3: the reference ---------------------------------------------------- */

static void plan_ok(const char *dir, const lfa_snapshot *snap, const char *ref, const char *relation, int32_t want) {
  lfa_expr_plan p;
  lfa_error err = {0};
  if (lfa_expr_plan_reference(&p, dir, snap, ref, relation, &err) != LFA_OK) fail_msg("%s: %s", ref, err.msg);
  assert_int_equal(p.field_id, want);
  assert_int_equal(p.version, snap->version);
  assert_string_equal(p.dataset, dir);
}

static void plan_refused(const char *dir, const lfa_snapshot *snap, const char *ref, const char *relation,
                         const char *want) {
  lfa_expr_plan p;
  lfa_error err = {0};
  assert_status(lfa_expr_plan_reference(&p, dir, snap, ref, relation, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-4");
  if (strstr(err.msg, want) == NULL) fail_msg("%s: '%s' lacks '%s'", ref, err.msg, want);
}

/* `tbl.col` is accepted when tbl names the scanned relation (matched like
 * a name), and the qualifier is optional; another qualifier is not the
 * relation, and a system column stays one when qualified. */
static void test_FA_EXPR_2_div_qualified_reference_accepted(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot snap;
  write_history(&fx, false);
  open_version(&snap, fx.dir, 4, NULL);
  plan_ok(fx.dir, &snap, "tbl.emb", "tbl", F_EMB);
  plan_ok(fx.dir, &snap, "TBL.emb", "tbl", F_EMB);
  plan_ok(fx.dir, &snap, "tbl.meta.score", "tbl", F_SCORE);
  plan_ok(fx.dir, &snap, "emb", "tbl", F_EMB);
  plan_ok(fx.dir, &snap, "meta.score", "tbl", F_SCORE);
  plan_refused(fx.dir, &snap, "tbl.emb", NULL, "unknown field 'tbl.emb'");
  plan_refused(fx.dir, &snap, "other.emb", "tbl", "unknown field 'other.emb'");
  plan_refused(fx.dir, &snap, "tbl._rowid", "tbl", "a system column is not a field");
  plan_refused(fx.dir, &snap, "tbl.id", "tbl", "untracked field 'tbl.id' (stable field id 0)");
  /* a relation named like a top-level struct: `meta.score` has no column
   * score at the top, so it stays the nested path */
  plan_ok(fx.dir, &snap, "meta.score", "meta", F_SCORE);
  plan_ok(fx.dir, &snap, "meta.meta.score", "meta", F_SCORE);
  lfa_snapshot_free(&snap);
  remove_history(&fx);
}

/* Resolution by the snapshot's own schema: after the rename (v6) `vec` is
 * field 1 and `emb` unknown; a plan of v5 still reads field 1 of v5; after
 * the drop (v7) neither resolves. An engine's field-access form (a list of
 * literal names) resolves the same way. */
static void test_FA_EXPR_3_binds_to_the_snapshot_schema(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot v5, v6, v7;
  lfa_expr_plan p;
  lfa_error err = {0};
  write_history(&fx, false);
  open_version(&v5, fx.dir, 5, NULL);
  open_version(&v6, fx.dir, 6, NULL);
  open_version(&v7, fx.dir, 7, NULL);
  plan_ok(fx.dir, &v5, "emb", NULL, F_EMB);
  plan_refused(fx.dir, &v5, "vec", NULL, "unknown field 'vec'");
  plan_ok(fx.dir, &v6, "vec", NULL, F_EMB);
  plan_ok(fx.dir, &v6, "VEC", NULL, F_EMB);
  plan_refused(fx.dir, &v6, "emb", NULL, "unknown field 'emb'");
  plan_refused(fx.dir, &v7, "vec", NULL, "unknown field 'vec'");
  plan_refused(fx.dir, &v7, "meta.nope", NULL, "unknown field 'meta.nope' ('meta' has no such child)");
  const char *path[] = {"META", "score"};
  assert_ok(lfa_expr_plan_path(&p, fx.dir, &v7, path, 2, &err), &err);
  assert_int_equal(p.field_id, F_SCORE);
  /* by id, the literal form: tracked, untracked, absent */
  assert_ok(lfa_expr_plan_field_id(&p, fx.dir, &v6, F_EMB, &err), &err);
  assert_status(lfa_expr_plan_field_id(&p, fx.dir, &v6, F_ID, &err), LFA_ERR_USAGE, &err);
  assert_non_null(strstr(err.msg, "untracked field 'id' (stable field id 0)"));
  assert_status(lfa_expr_plan_field_id(&p, fx.dir, &v7, F_EMB, &err), LFA_ERR_USAGE, &err);
  assert_non_null(strstr(err.msg, "unknown field id 1"));
  lfa_snapshot_free(&v5);
  lfa_snapshot_free(&v6);
  lfa_snapshot_free(&v7);
  remove_history(&fx);
}

/* ---- FA-EXPR-6: pushdown and row by row ----------------------------------------------------- */

/* Filters on is_assigned and on NOT is_assigned, pushed down as bitmap
 * operations and evaluated row by row, give the hand-derived sets at every
 * density: none (fragment 0), one row (1), half (2), all but one (3), all
 * (4, all_assigned), with and without deletions, in both row-id modes. */
static void test_FA_EXPR_6_div_filter_pushdown_same_result(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    fixture fx;
    reader r;
    lfa_expr_scan s;
    write_history(&fx, stable);
    /* v1: nothing assigned */
    read_field(&r, fx.dir, 1, "emb", NULL);
    scan_all(&s, &r, fx.dir);
    char all[1024] = "";
    for (uint64_t f = 0; f < 5; f++)
      for (uint32_t o = 0; o < 8; o++) append(all, sizeof all, f, o);
    check_scan(&s, "", all);
    lfa_expr_scan_close(&s);
    close_reader(&r);
    /* v2: every density, no deletion */
    read_field(&r, fx.dir, 2, "emb", NULL);
    scan_all(&s, &r, fx.dir);
    check_scan(&s, V2_EMB, "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 1:0 1:1 1:2 1:4 1:5 1:6 1:7 2:1 2:3 2:5 2:7 3:5");
    lfa_expr_scan_close(&s);
    close_reader(&r);
    /* v3: deletions; fragment 3's partial now covers every live row */
    read_field(&r, fx.dir, 3, "emb", NULL);
    scan_all(&s, &r, fx.dir);
    check_scan(&s, V3_EMB, V3_NOT_EMB);
    lfa_expr_scan_close(&s);
    close_reader(&r);
    /* v5: invalidations turned fragment 4's all_assigned into a partial */
    read_field(&r, fx.dir, 5, "emb", NULL);
    scan_all(&s, &r, fx.dir);
    assert_false(s.fragments[4].entry->all);
    check_scan(&s, V5_EMB,
               "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 1:0 1:1 1:2 1:3 1:4 1:5 1:6 1:7 2:3 2:5 2:7 4:2");
    lfa_expr_scan_close(&s);
    close_reader(&r);
    remove_history(&fx);
  }
}

/* The same comparison on random histories, against the writer's own model
 * of each version (lfa_table cells, not the expression code): writes,
 * deletions and invalidations of random keys in 6 fragments of 16 rows,
 * in both row-id modes. */
static void test_FA_EXPR_6_random_histories_agree(void **state) {
  (void)state;
  uint64_t seed = 0x5eed;
  for (int round = 0; round < 4; round++) {
    fixture fx;
    bool stable = round % 2;
    lfa_error err = {0};
    strcpy(fx.base, "/tmp/lfa-expr-XXXXXX");
    assert_non_null(mkdtemp(fx.base));
    snprintf(fx.dir, sizeof fx.dir, "%s/ds", fx.base);
    assert_ok(lfa_history_open(&fx.h, fx.dir, 9, &err), &err);
    uint64_t keys[96], live[96];
    size_t n_live = 96;
    for (uint64_t k = 0; k < 96; k++) keys[k] = live[k] = k + 1;
    lfa_request create = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 5, .stable_row_ids = stable,
                          .rows = {96, keys}, .rows_per_file = 16, .fields = {1, ID}};
    apply(&fx.h, &create);
    /* write, write, delete, invalidate, write, delete: random keys each,
     * 1/4 to 4/4 of the live rows (a delete takes at most half) */
    static const int KINDS[] = {0, 0, 2, 1, 0, 2};
    for (size_t step = 0; step < sizeof KINDS / sizeof KINDS[0]; step++) {
      uint64_t pick[96];
      size_t n = 0;
      uint64_t density = KINDS[step] == 2 ? 1 : 1 + tu_rand(&seed) % 4;
      for (size_t i = 0; i < n_live; i++)
        if (tu_rand(&seed) % 4 < density) pick[n++] = live[i];
      if (n == 0) pick[n++] = live[0];
      lfa_request q = {.op = LFA_OP_UPDATE, .rows = {n, pick}, .fields = {1, EMB}, .rewrite_columns = true};
      if (KINDS[step] == 1) q = (lfa_request){.op = LFA_OP_UPDATE, .rows = {n, pick}, .invalidate = {1, EMB}};
      if (KINDS[step] == 2) {
        q = (lfa_request){.op = LFA_OP_DELETE, .rows = {n, pick}};
        size_t kept = 0;
        for (size_t i = 0; i < n_live; i++) {
          bool gone = false;
          for (size_t j = 0; j < n; j++) gone = gone || pick[j] == live[i];
          if (!gone) live[kept++] = live[i];
        }
        n_live = kept;
      }
      apply(&fx.h, &q);
    }
    /* the head has deleted rows inside partial bitmaps: the case where a
     * selection must leave the deletion set out */
    const lfa_table *head = lfa_history_head(&fx.h);
    size_t mixed = 0;
    for (size_t i = 0; i < head->n_fragments; i++) {
      const lfa_cell *c = &lfa_table_tracked(head, F_EMB)->cells[i];
      if (c->kind == LFA_CELL_PARTIAL && head->fragments[i].deleted != NULL &&
          !roaring_bitmap_is_subset(head->fragments[i].deleted, c->rows) &&
          roaring_bitmap_intersect(head->fragments[i].deleted, c->rows))
        mixed++;
    }
    assert_true(mixed > 0);
    for (uint64_t v = 1; v <= fx.h.count; v++) {
      const lfa_table *t = lfa_history_version(&fx.h, v);
      const lfa_field_state *fs = lfa_table_tracked(t, F_EMB);
      char want_true[4096] = "", want_false[4096] = "";
      for (size_t i = 0; i < t->n_fragments; i++)
        for (uint32_t o = 0; o < t->fragments[i].physical_rows; o++)
          if (lfa_fragment_is_live(&t->fragments[i], o)) {
            bool a = lfa_cell_contains(&fs->cells[i], o);
            append(a ? want_true : want_false, 4096, t->fragments[i].id, o);
          }
      reader r;
      lfa_expr_scan s;
      char got[4096];
      read_field(&r, fx.dir, v, "emb", NULL);
      scan_all(&s, &r, fx.dir);
      row_by_row(got, sizeof got, &s, true);
      assert_string_equal(got, want_true);
      pushed_down(got, sizeof got, &s, true);
      assert_string_equal(got, want_true);
      pushed_down(got, sizeof got, &s, false);
      assert_string_equal(got, want_false);
      uint64_t yes, no;
      assert_ok(lfa_expr_counts(&yes, &no, &s, &err), &err);
      assert_int_equal(yes, words(want_true));
      assert_int_equal(no, words(want_false));
      lfa_expr_scan_close(&s);
      close_reader(&r);
    }
    remove_history(&fx);
  }
}

/* One projected row: where it is and its value. */
typedef struct projected {
  uint64_t fragment;
  uint32_t offset;
  bool value;
} projected;

/* The expression in a projection (row by row), ORDER BY is_assigned (false
 * first; ties keep scan order), GROUP BY is_assigned with COUNT(*), and
 * COUNT(*) FILTER (WHERE is_assigned) / SUM(CASE WHEN is_assigned THEN 1
 * ELSE 0 END): each computed from the projection and again pushed down
 * (selections, counts), against the sets of v3 derived by hand. AND and
 * OR of two fields (v4: emb and meta.score) agree the same way. */
static void test_FA_EXPR_6_div_binding_in_projection_filter_aggregate(void **state) {
  (void)state;
  fixture fx;
  reader r;
  lfa_expr_scan s;
  lfa_error err = {0};
  write_history(&fx, false);
  read_field(&r, fx.dir, 3, "emb", NULL);
  scan_all(&s, &r, fx.dir);
  /* projection */
  projected rows[40];
  size_t n = 0;
  for (size_t k = 0; k < s.count; k++)
    for (uint32_t o = 0; o < 8; o++)
      if (is_live(&s.fragments[k], o)) {
        rows[n] = (projected){s.fragments[k].id, o, false};
        assert_ok(lfa_expr_row(&rows[n].value, &s, k, o, &err), &err);
        n++;
      }
  assert_int_equal(n, 35);
  /* ORDER BY is_assigned from the projection: a stable sort */
  char by_rows[1024] = "", by_sets[1024], tail[1024];
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      if (rows[i].value == (pass == 1)) append(by_rows, sizeof by_rows, rows[i].fragment, rows[i].offset);
  /* ORDER BY pushed down: the false selections, then the true ones */
  pushed_down(by_sets, sizeof by_sets, &s, false);
  pushed_down(tail, sizeof tail, &s, true);
  strcat(strcat(by_sets, " "), tail);
  assert_string_equal(by_rows, by_sets);
  char want[1024];
  snprintf(want, sizeof want, "%s %s", V3_NOT_EMB, V3_EMB);
  assert_string_equal(by_rows, want);
  /* GROUP BY is_assigned, COUNT(*): (false, 18), (true, 17) */
  uint64_t group[2] = {0, 0}, yes, no, sum_case = 0;
  for (size_t i = 0; i < n; i++) group[rows[i].value]++, sum_case += rows[i].value ? 1 : 0;
  assert_ok(lfa_expr_counts(&yes, &no, &s, &err), &err);
  assert_int_equal(group[0], 18);
  assert_int_equal(group[1], 17);
  assert_int_equal(no, group[0]);
  assert_int_equal(yes, group[1]);
  assert_int_equal(sum_case, 17);
  lfa_expr_scan_close(&s);
  close_reader(&r);

  /* v4: emb AND / OR meta.score. meta.score is true on fragment 1 {0,1,2,3}
   * (keys 9..12); emb as in v3. AND: 1:3. OR: 1:0 1:1 1:2 1:3, then emb's. */
  reader e, m;
  lfa_expr_scan se, sm;
  read_field(&e, fx.dir, 4, "emb", NULL);
  read_field(&m, fx.dir, 4, "meta.score", NULL);
  scan_all(&se, &e, fx.dir);
  scan_all(&sm, &m, fx.dir);
  char and_rows[1024] = "", or_rows[1024] = "", and_sets[1024] = "", or_sets[1024] = "";
  for (size_t k = 0; k < se.count; k++) {
    for (uint32_t o = 0; o < 8; o++) {
      bool a, b;
      if (!is_live(&se.fragments[k], o)) continue;
      assert_ok(lfa_expr_row(&a, &se, k, o, &err), &err);
      assert_ok(lfa_expr_row(&b, &sm, k, o, &err), &err);
      if (a && b) append(and_rows, sizeof and_rows, se.fragments[k].id, o);
      if (a || b) append(or_rows, sizeof or_rows, se.fragments[k].id, o);
    }
    roaring_bitmap_t *x, *y;
    assert_ok(lfa_expr_select(&x, &se, k, true, &err), &err);
    assert_ok(lfa_expr_select(&y, &sm, k, true, &err), &err);
    roaring_bitmap_t *both = roaring_bitmap_and(x, y), *either = roaring_bitmap_or(x, y);
    uint32_t vals[8];
    roaring_bitmap_to_uint32_array(both, vals);
    for (uint64_t i = 0; i < roaring_bitmap_get_cardinality(both); i++)
      append(and_sets, sizeof and_sets, se.fragments[k].id, vals[i]);
    roaring_bitmap_to_uint32_array(either, vals);
    for (uint64_t i = 0; i < roaring_bitmap_get_cardinality(either); i++)
      append(or_sets, sizeof or_sets, se.fragments[k].id, vals[i]);
    roaring_bitmap_free(x), roaring_bitmap_free(y), roaring_bitmap_free(both), roaring_bitmap_free(either);
  }
  assert_string_equal(and_rows, "1:3");
  assert_string_equal(and_sets, "1:3");
  snprintf(want, sizeof want, "1:0 1:1 1:2 %s", V3_EMB);
  assert_string_equal(or_rows, want);
  assert_string_equal(or_sets, want);
  lfa_expr_scan_close(&se);
  lfa_expr_scan_close(&sm);
  close_reader(&e);
  close_reader(&m);
  remove_history(&fx);
}

/* ---- FA-EXPR-8: only the scanned fragments' bitmaps --------------------------------------- */

/* v3 has partials in fragments 1, 2 and 3. Binding reads the root and no
 * bitmap; each scan reads the bitmaps of its fragments not read before;
 * fragments 0 (no entry) and 4 (all_assigned) need none. The root is read
 * once whatever the scans. A bitmap nobody scans may even be missing. */
static void test_FA_EXPR_8_div_bitmaps_loaded_for_scanned_fragments_only(void **state) {
  (void)state;
  fixture fx;
  reader r;
  lfa_expr_scan s;
  lfa_error err = {0};
  char got[1024];
  write_history(&fx, false);
  read_field(&r, fx.dir, 3, "emb", NULL);
  assert_int_equal(r.b.roots_read, 1);
  assert_int_equal(r.b.bitmaps_read, 0);
  const uint64_t f2[] = {2}, f04[] = {4, 0}, f12[] = {1, 2};
  assert_ok(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, f2, 1, &err), &err);
  assert_int_equal(r.b.bitmaps_read, 1);
  row_by_row(got, sizeof got, &s, true);
  assert_string_equal(got, "2:0 2:4 2:6");
  lfa_expr_scan_close(&s);
  assert_ok(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, f04, 2, &err), &err);
  assert_int_equal(r.b.bitmaps_read, 1);
  pushed_down(got, sizeof got, &s, true); /* in the order asked: fragment 4, then 0 */
  assert_string_equal(got, "4:1 4:2 4:3 4:4 4:5 4:6 4:7");
  lfa_expr_scan_close(&s);
  assert_ok(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, f12, 2, &err), &err);
  assert_int_equal(r.b.bitmaps_read, 2); /* fragment 1's; fragment 2's was read */
  lfa_expr_scan_close(&s);
  scan_all(&s, &r, fx.dir);
  assert_int_equal(r.b.bitmaps_read, 3); /* fragment 3's */
  check_scan(&s, V3_EMB, V3_NOT_EMB);
  lfa_expr_scan_close(&s);
  assert_int_equal(r.b.roots_read, 1);
  assert_int_equal(r.b.cache_hits, 0);
  /* a scan names fragments of this version, once each */
  const uint64_t nine[] = {9}, twice[] = {2, 2};
  assert_status(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, nine, 1, &err), LFA_ERR_USAGE, &err);
  assert_status(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, twice, 2, &err), LFA_ERR_USAGE, &err);

  /* fragment 3's bitmap removed: a new binding scans 1 and 2; 3 fails
   * naming the object [FA-EXPR-9] */
  const lfa_fragment_assignment *e3 = &r.b.entries[2];
  assert_int_equal(e3->fragment_id, 3);
  char path[512];
  snprintf(path, sizeof path, "%s/%s", fx.dir, r.b.root->fragments[2]->partial->path);
  char rel[256];
  snprintf(rel, sizeof rel, "%s", r.b.root->fragments[2]->partial->path);
  close_reader(&r);
  assert_int_equal(unlink(path), 0);
  read_field(&r, fx.dir, 3, "emb", NULL);
  assert_ok(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, f12, 2, &err), &err);
  row_by_row(got, sizeof got, &s, true);
  assert_string_equal(got, "1:3 2:0 2:4 2:6");
  lfa_expr_scan_close(&s);
  const uint64_t f3[] = {3};
  assert_status(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, f3, 1, &err), LFA_ERR_IO, &err);
  assert_rule(&err, "FA-EXPR-9");
  if (strstr(err.msg, rel) == NULL) fail_msg("'%s' does not name %s", err.msg, rel);
  assert_null(s.fragments);
  close_reader(&r);
  remove_history(&fx);
}

/* ---- FA-EXPR-10, FA-EXPR-11: one snapshot, and only with one -------------------------------- */

/* A plan of v2 is refused by v3, a binding of v2 will not scan v3 (or the
 * same version under another dataset name), and the v2 binding keeps
 * giving v2's answer after v3 is read. */
static void test_FA_EXPR_10_div_bound_plan_not_reused_across_snapshots(void **state) {
  (void)state;
  fixture fx;
  reader r2, r3;
  lfa_expr_binding b;
  lfa_expr_scan s;
  lfa_error err = {0};
  write_history(&fx, false);
  read_field(&r2, fx.dir, 2, "emb", NULL);
  read_field(&r3, fx.dir, 3, "emb", NULL);
  assert_int_equal(r2.b.plan.version, 2);
  assert_status(lfa_expr_bind(&b, &r2.plan, fx.dir, &r3.snap, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-10");
  assert_false(b.bound);
  assert_status(lfa_expr_scan_open(&s, &r2.b, fx.dir, &r3.snap, NULL, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-10");
  char other[128];
  snprintf(other, sizeof other, "%s/.", fx.dir);
  assert_status(lfa_expr_scan_open(&s, &r2.b, other, &r2.snap, NULL, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-10");
  lfa_buf bytes = {0};
  assert_status(lfa_expr_to_substrait(&bytes, &r2.plan, fx.dir, &r3.snap, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-10");
  assert_int_equal(bytes.len, 0);
  /* each binding answers for its own version */
  scan_all(&s, &r3, fx.dir);
  check_scan(&s, V3_EMB, V3_NOT_EMB);
  lfa_expr_scan_close(&s);
  scan_all(&s, &r2, fx.dir);
  char got[1024];
  row_by_row(got, sizeof got, &s, true);
  assert_string_equal(got, V2_EMB);
  lfa_expr_scan_close(&s);
  close_reader(&r2);
  close_reader(&r3);
  remove_history(&fx);
}

/* Without a binding, or without a snapshot, there is no state to read. */
static void test_FA_EXPR_11_evaluation_needs_a_bound_snapshot(void **state) {
  (void)state;
  fixture fx;
  reader r;
  lfa_expr_binding zero;
  lfa_expr_scan s, none;
  lfa_error err = {0};
  bool v = true;
  roaring_bitmap_t *sel = NULL;
  uint64_t yes = 7, no = 7;
  write_history(&fx, false);
  read_field(&r, fx.dir, 3, "emb", NULL);
  memset(&zero, 0, sizeof zero);
  memset(&none, 0, sizeof none);
  assert_status(lfa_expr_scan_open(&s, &zero, fx.dir, &r.snap, NULL, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-11");
  assert_status(lfa_expr_scan_open(&s, NULL, fx.dir, &r.snap, NULL, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-11");
  assert_status(lfa_expr_scan_open(&s, &r.b, fx.dir, NULL, NULL, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-11");
  assert_status(lfa_expr_row(&v, &none, 0, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-11");
  assert_false(v);
  assert_status(lfa_expr_select(&sel, &none, 0, true, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-11");
  assert_null(sel);
  assert_status(lfa_expr_counts(&yes, &no, &none, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-11");
  /* unbinding ends it too */
  lfa_expr_unbind(&r.b);
  assert_status(lfa_expr_scan_open(&s, &r.b, fx.dir, &r.snap, NULL, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-11");
  close_reader(&r);
  remove_history(&fx);
}

/* ---- FA-STORE-8, FA-EXPR-10: an object cache across versions ----------------------------- */

/* v2 and v3 share emb's root and its three bitmaps (a delete changes no
 * state, FA-STORE-10). Read through one cache, v2 decodes them and v3
 * decodes none, yet each binding answers for its own version: the
 * deletions of v3 come from v3's manifest, not from the shared objects. */
static void test_FA_STORE_8_div_object_cache_across_versions(void **state) {
  (void)state;
  fixture fx;
  lfa_object_cache c;
  reader r2, r3;
  lfa_expr_scan s;
  char got[1024];
  write_history(&fx, false);
  lfa_object_cache_init(&c, 0);
  read_field(&r2, fx.dir, 2, "emb", &c);
  read_field(&r3, fx.dir, 3, "emb", &c);
  size_t t2 = lfa_snapshot_tracked(&r2.snap, F_EMB), t3 = lfa_snapshot_tracked(&r3.snap, F_EMB);
  assert_string_equal(r2.snap.tracked[t2].root_file->path, r3.snap.tracked[t3].root_file->path);
  assert_int_equal(r2.b.roots_read, 1);
  assert_int_equal(r3.b.roots_read, 0);
  assert_int_equal(r3.b.cache_hits, 1);
  scan_all(&s, &r2, fx.dir);
  row_by_row(got, sizeof got, &s, true);
  assert_string_equal(got, V2_EMB);
  lfa_expr_scan_close(&s);
  assert_int_equal(r2.b.bitmaps_read, 3);
  scan_all(&s, &r3, fx.dir);
  assert_int_equal(r3.b.bitmaps_read, 0);
  assert_int_equal(r3.b.cache_hits, 4); /* the root and three bitmaps */
  check_scan(&s, V3_EMB, V3_NOT_EMB);
  lfa_expr_scan_close(&s);
  assert_int_equal(c.stats.kept[LFA_OBJECT_ROOT], 1);
  assert_int_equal(c.stats.kept[LFA_OBJECT_BITMAP], 3);
  assert_int_equal(c.stats.kept[LFA_OBJECT_DELETION], 3); /* v3's fragments 2, 3 and 4 */
  /* the binding is still v2's alone [FA-EXPR-10] */
  lfa_error err = {0};
  assert_status(lfa_expr_scan_open(&s, &r2.b, fx.dir, &r3.snap, NULL, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-10");
  close_reader(&r2);
  close_reader(&r3);
  lfa_object_cache_free(&c);
  remove_history(&fx);
}

/* ---- FA-SEM-7: a version's own descriptors ----------------------------------------------- */

/* Read after every later version exists (v5 invalidated emb and so gave it
 * a new root, v7 dropped it), v2, v3 and v5 each answer from their own
 * descriptors. */
static void test_FA_SEM_7_old_version_reads_its_own_descriptors(void **state) {
  (void)state;
  fixture fx;
  reader r;
  lfa_expr_scan s;
  char got[1024];
  write_history(&fx, false);
  read_field(&r, fx.dir, 5, "emb", NULL);
  scan_all(&s, &r, fx.dir);
  row_by_row(got, sizeof got, &s, true);
  assert_string_equal(got, V5_EMB);
  lfa_expr_scan_close(&s);
  lfa_snapshot v3;
  open_version(&v3, fx.dir, 3, NULL);
  size_t a = lfa_snapshot_tracked(&r.snap, F_EMB), b = lfa_snapshot_tracked(&v3, F_EMB);
  assert_string_not_equal(r.snap.tracked[a].root_file->path, v3.tracked[b].root_file->path);
  lfa_snapshot_free(&v3);
  close_reader(&r);
  read_field(&r, fx.dir, 3, "emb", NULL);
  scan_all(&s, &r, fx.dir);
  check_scan(&s, V3_EMB, V3_NOT_EMB);
  lfa_expr_scan_close(&s);
  close_reader(&r);
  read_field(&r, fx.dir, 2, "emb", NULL);
  scan_all(&s, &r, fx.dir);
  row_by_row(got, sizeof got, &s, true);
  assert_string_equal(got, V2_EMB);
  lfa_expr_scan_close(&s);
  close_reader(&r);
  remove_history(&fx);
}

/* ---- FA-EXPR-12, FA-EXPR-13: Substrait ---------------------------------------------------- */

/* is_assigned(meta.score) as lfa writes it, derived by hand from the
 * Substrait field numbers (messages in field-number order, proto3: default
 * values are not written):
 *
 *   ExtendedExpression
 *    1 extension_uris  {1 anchor: 1, 2 uri: "urn:lance:extension:functions" (29 bytes)}
 *    2 extensions      {3 extension_function: {1 uri ref: 1, 2 anchor: 1,
 *                                              3 name: "is_assigned", 4 urn ref: 1}}
 *    3 referred_expr   {1 expression: {3 scalar_function: {
 *                          1 function_reference: 1,
 *                          3 output_type: {1 bool: {2 nullability: REQUIRED (2)}},
 *                          4 arguments: {3 value: {2 selection: {
 *                              1 direct_reference: {2 struct_field: {(field 0)
 *                                  2 child: {2 struct_field: {(field 0)}}}},
 *                              4 root_reference: {}}}}}},
 *                       3 output_names: "is_assigned(meta.score)" (23 bytes)}
 *    4 base_schema     {1 names: "meta", 1 names: "score",
 *                       2 struct: {1 types: {25 struct: {1 types: {5 i32: {2 nullability: NULLABLE (1)}},
 *                                                        3 nullability: NULLABLE (1)}},
 *                                  3 nullability: REQUIRED (2)}}
 *    7 version         {5 producer: "lfa"}
 *    8 extension_urns  {1 anchor: 1, 2 urn: "urn:lance:extension:functions"}
 * Tags are (number << 3) | 2 for messages and strings, | 0 for varints;
 * 25 << 3 | 2 = 202 is the varint ca 01. */
#define URN_BYTES 'u', 'r', 'n', ':', 'l', 'a', 'n', 'c', 'e', ':', 'e', 'x', 't', 'e', 'n', 's', 'i', 'o', 'n', ':', \
                  'f', 'u', 'n', 'c', 't', 'i', 'o', 'n', 's'
static const uint8_t SCORE_SUBSTRAIT[] = {
    0x0a, 0x21, 0x08, 0x01, 0x12, 0x1d, URN_BYTES,                      /* 1: URI, 33 bytes */
    0x12, 0x15, 0x1a, 0x13, 0x08, 0x01, 0x10, 0x01, 0x1a, 0x0b,         /* 2: declaration 21, function 19 */
    'i', 's', '_', 'a', 's', 's', 'i', 'g', 'n', 'e', 'd', 0x20, 0x01,  /*    name, urn ref */
    0x1a, 0x35,                                                         /* 3: referred expression, 53 */
    0x0a, 0x1a, 0x1a, 0x18,                                             /*    expression 26, function 24 */
    0x08, 0x01,                                                         /*    function_reference 1 */
    0x1a, 0x04, 0x0a, 0x02, 0x10, 0x02,                                 /*    output type: bool, REQUIRED */
    0x22, 0x0e, 0x1a, 0x0c, 0x12, 0x0a,                                 /*    argument 14, value 12, selection 10 */
    0x0a, 0x06, 0x12, 0x04, 0x12, 0x02, 0x12, 0x00,                     /*    segment > field > child > field */
    0x22, 0x00,                                                         /*    root_reference */
    0x1a, 0x17, 'i', 's', '_', 'a', 's', 's', 'i', 'g', 'n', 'e', 'd',  /*    output name, 23 */
    '(', 'm', 'e', 't', 'a', '.', 's', 'c', 'o', 'r', 'e', ')',
    0x22, 0x1e,                                                         /* 4: base_schema, 30 */
    0x0a, 0x04, 'm', 'e', 't', 'a', 0x0a, 0x05, 's', 'c', 'o', 'r', 'e', /*   names */
    0x12, 0x0f, 0x0a, 0x0b, 0xca, 0x01, 0x08,                           /*    record 15, type 11, struct 8 */
    0x0a, 0x04, 0x2a, 0x02, 0x10, 0x01, 0x18, 0x01,                     /*    i32 NULLABLE; meta NULLABLE */
    0x18, 0x02,                                                         /*    record REQUIRED */
    0x3a, 0x05, 0x2a, 0x03, 'l', 'f', 'a',                              /* 7: version */
    0x42, 0x21, 0x08, 0x01, 0x12, 0x1d, URN_BYTES,                      /* 8: URN */
};

static void test_FA_EXPR_12_div_substrait_field_reference(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot snap;
  lfa_expr_plan p, back;
  lfa_error err = {0};
  lfa_buf bytes = {0};
  write_history(&fx, false);
  open_version(&snap, fx.dir, 4, NULL);
  /* the bytes, exactly */
  assert_ok(lfa_expr_plan_reference(&p, fx.dir, &snap, "meta.score", NULL, &err), &err);
  assert_ok(lfa_expr_to_substrait(&bytes, &p, fx.dir, &snap, &err), &err);
  assert_int_equal(bytes.len, sizeof SCORE_SUBSTRAIT);
  assert_memory_equal(bytes.data, SCORE_SUBSTRAIT, sizeof SCORE_SUBSTRAIT);
  /* and back, to the same field */
  assert_ok(lfa_expr_plan_substrait(&back, fx.dir, &snap, bytes.data, bytes.len, &err), &err);
  assert_int_equal(back.field_id, F_SCORE);
  lfa_buf_free(&bytes);
  /* emb, a list type, round trips too; the declared result is a
   * non-nullable Boolean [FA-EXPR-1] */
  assert_ok(lfa_expr_plan_reference(&p, fx.dir, &snap, "emb", NULL, &err), &err);
  assert_ok(lfa_expr_to_substrait(&bytes, &p, fx.dir, &snap, &err), &err);
  Substrait__ExtendedExpression *x;
  assert_ok(lfa_pb_unpack((ProtobufCMessage **)&x, &substrait__extended_expression__descriptor, bytes.data, bytes.len,
                          "test", &err), &err);
  const Substrait__Type *out = x->referred_expr[0]->expression->scalar_function->output_type;
  assert_int_equal(out->kind_case, SUBSTRAIT__TYPE__KIND_BOOLEAN);
  assert_int_equal(out->boolean->nullability, SUBSTRAIT__TYPE__NULLABILITY__NULLABILITY_REQUIRED);
  assert_int_equal(x->base_schema->struct_type->types[0]->kind_case, SUBSTRAIT__TYPE__KIND_LIST);
  /* never the id as a literal [FA-EXPR-12] */
  assert_int_equal(x->referred_expr[0]->expression->scalar_function->arguments[0]->value->rex_type_case,
                   SUBSTRAIT__EXPRESSION__REX_TYPE_SELECTION);
  lfa_pb_free(x);
  assert_ok(lfa_expr_plan_substrait(&back, fx.dir, &snap, bytes.data, bytes.len, &err), &err);
  assert_int_equal(back.field_id, F_EMB);
  /* planned at v4, the expression names `emb`; at v6 that name is gone */
  lfa_snapshot v6;
  open_version(&v6, fx.dir, 6, NULL);
  assert_status(lfa_expr_plan_substrait(&back, fx.dir, &v6, bytes.data, bytes.len, &err), LFA_ERR_USAGE, &err);
  assert_non_null(strstr(err.msg, "unknown field 'emb'"));
  lfa_snapshot_free(&v6);
  lfa_buf_free(&bytes);
  /* `when` (date32) has no Substrait type in lfa's table: refused, nothing
   * written; its literal id form needs no type [FA-EXPR-13] */
  assert_ok(lfa_expr_plan_reference(&p, fx.dir, &snap, "when", NULL, &err), &err);
  assert_status(lfa_expr_to_substrait(&bytes, &p, fx.dir, &snap, &err), LFA_ERR_USAGE, &err);
  assert_non_null(strstr(err.msg, "field 'when' has Lance type 'date32:day', which lfa does not map to Substrait"));
  assert_int_equal(bytes.len, 0);
  lfa_snapshot_free(&snap);
  remove_history(&fx);
}

/* ---- Substrait written by hand, as another producer would ----------------------------- */

/* What the producer writes; zero values give the well-formed call. */
typedef enum arg_kind { ARG_FIELD, ARG_I32, ARG_BOOL, ARG_OUTER, ARG_NO_ROOT, ARG_LIST_ELEMENT, ARG_CALL } arg_kind;

typedef struct producer {
  const char *urn;  /* NULL: the right one */
  bool by_uri;      /* declare by the deprecated extension_uris only */
  const char *name; /* NULL: "is_assigned" */
  uint32_t reference; /* function_reference; the declaration's anchor is 7 */
  size_t n_arguments; /* 0: one */
  bool no_arguments;
  arg_kind arg;
  const int32_t *positions; /* struct field positions into the schema */
  size_t n_positions;
  int32_t literal;
  bool nullable_output, option, deprecated_args, no_schema, two_expressions, enhancement;
  size_t drop_names; /* names left out of base_schema */
} producer;

static void *msg(lfa_arena *a, const ProtobufCMessageDescriptor *d) {
  void *m = lfa_arena_alloc(a, d->sizeof_message);
  assert_non_null(m);
  protobuf_c_message_init(d, m);
  return m;
}

static Substrait__Type *leaf(lfa_arena *a) {
  Substrait__Type *t = msg(a, &substrait__type__descriptor);
  t->kind_case = SUBSTRAIT__TYPE__KIND_I32;
  t->i32 = msg(a, &substrait__type__i32__descriptor);
  return t;
}

static Substrait__Type *struct_type(lfa_arena *a, Substrait__Type **types, size_t n) {
  Substrait__Type *t = msg(a, &substrait__type__descriptor);
  t->kind_case = SUBSTRAIT__TYPE__KIND_STRUCT_TYPE;
  t->struct_type = msg(a, &substrait__type__struct__descriptor);
  t->struct_type->n_types = n;
  t->struct_type->types = lfa_arena_memdup(a, types, n * sizeof *types);
  return t;
}

/* The table as this producer sees it, a superset of the dataset's that
 * orders its columns differently:
 *   a: struct<x: i32, y: struct<z: i32>>, id: i32, meta: struct<other: i32, score: i32>,
 *   emb: list<struct<w: i32>>
 * names depth first: a x y z id meta other score emb w (indexes 0..9). */
static Substrait__NamedStruct *producer_schema(lfa_arena *a, size_t drop_names) {
  static const char *names[] = {"a", "x", "y", "z", "id", "meta", "other", "score", "emb", "w"};
  Substrait__Type *z[] = {leaf(a)};
  Substrait__Type *ax[] = {leaf(a), struct_type(a, z, 1)};
  Substrait__Type *meta[] = {leaf(a), leaf(a)};
  Substrait__Type *w[] = {leaf(a)};
  Substrait__Type *list = msg(a, &substrait__type__descriptor);
  list->kind_case = SUBSTRAIT__TYPE__KIND_LIST;
  list->list = msg(a, &substrait__type__list__descriptor);
  list->list->type = struct_type(a, w, 1);
  Substrait__Type *top[] = {struct_type(a, ax, 2), leaf(a), struct_type(a, meta, 2), list};
  Substrait__NamedStruct *ns = msg(a, &substrait__named_struct__descriptor);
  ns->n_names = 10 - drop_names;
  ns->names = (char **)names;
  ns->struct_type = struct_type(a, top, 4)->struct_type;
  return ns;
}

static Substrait__Expression *argument(lfa_arena *a, const producer *p) {
  Substrait__Expression *v = msg(a, &substrait__expression__descriptor);
  if (p->arg == ARG_I32 || p->arg == ARG_BOOL) {
    Substrait__Expression__Literal *l = msg(a, &substrait__expression__literal__descriptor);
    l->literal_type_case = p->arg == ARG_I32 ? SUBSTRAIT__EXPRESSION__LITERAL__LITERAL_TYPE_I32
                                             : SUBSTRAIT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN;
    l->i32 = p->literal;
    v->rex_type_case = SUBSTRAIT__EXPRESSION__REX_TYPE_LITERAL, v->literal = l;
    return v;
  }
  if (p->arg == ARG_CALL) {
    v->rex_type_case = SUBSTRAIT__EXPRESSION__REX_TYPE_SCALAR_FUNCTION;
    v->scalar_function = msg(a, &substrait__expression__scalar_function__descriptor);
    return v;
  }
  Substrait__Expression__ReferenceSegment *child = NULL;
  for (size_t i = p->n_positions; i > 0; i--) {
    Substrait__Expression__ReferenceSegment *seg = msg(a, &substrait__expression__reference_segment__descriptor);
    if (p->arg == ARG_LIST_ELEMENT && i == p->n_positions) { /* list_element = 3, not a struct field */
      static const uint8_t element[] = {0x02, 0x08, 0x00}; /* length, then ListElement{offset: 0} */
      ProtobufCMessageUnknownField *u = lfa_arena_alloc(a, sizeof *u);
      *u = (ProtobufCMessageUnknownField){3, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, sizeof element, (uint8_t *)element};
      seg->base.n_unknown_fields = 1, seg->base.unknown_fields = u;
    } else {
      seg->reference_type_case = SUBSTRAIT__EXPRESSION__REFERENCE_SEGMENT__REFERENCE_TYPE_STRUCT_FIELD;
      seg->struct_field = msg(a, &substrait__expression__reference_segment__struct_field__descriptor);
      seg->struct_field->field = p->positions[i - 1];
      seg->struct_field->child = child;
    }
    child = seg;
  }
  Substrait__Expression__FieldReference *r = msg(a, &substrait__expression__field_reference__descriptor);
  r->reference_type_case = SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__REFERENCE_TYPE_DIRECT_REFERENCE;
  r->direct_reference = child;
  if (p->arg == ARG_OUTER) {
    r->root_type_case = SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__ROOT_TYPE_OUTER_REFERENCE;
    r->outer_reference = msg(a, &substrait__expression__field_reference__outer_reference__descriptor);
    r->outer_reference->steps_out = 1;
  } else if (p->arg != ARG_NO_ROOT) {
    r->root_type_case = SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__ROOT_TYPE_ROOT_REFERENCE;
    r->root_reference = msg(a, &substrait__expression__field_reference__root_reference__descriptor);
  }
  v->rex_type_case = SUBSTRAIT__EXPRESSION__REX_TYPE_SELECTION, v->selection = r;
  return v;
}

static void produce(lfa_buf *out, const producer *p) {
  lfa_arena a = {0};
  lfa_error err = {0};
  Substrait__ExtendedExpression *x = msg(&a, &substrait__extended_expression__descriptor);
  /* the declaration: URN anchor 3 (or URI anchor 4), function anchor 7 */
  Substrait__SimpleExtensionDeclaration__ExtensionFunction *f =
      msg(&a, &substrait__simple_extension_declaration__extension_function__descriptor);
  f->function_anchor = 7;
  f->name = (char *)(p->name ? p->name : "is_assigned");
  const char *urn = p->urn ? p->urn : LFA_EXPR_URN;
  if (p->by_uri) {
    Substrait__SimpleExtensionURI *u = msg(&a, &substrait__simple_extension_uri__descriptor);
    u->extension_uri_anchor = 4, u->uri = (char *)urn;
    f->extension_uri_reference = 4;
    x->n_extension_uris = 1, x->extension_uris = lfa_arena_memdup(&a, &u, sizeof u);
  } else {
    Substrait__SimpleExtensionURN *u = msg(&a, &substrait__simple_extension_urn__descriptor);
    u->extension_urn_anchor = 3, u->urn = (char *)urn;
    f->extension_urn_reference = 3;
    x->n_extension_urns = 1, x->extension_urns = lfa_arena_memdup(&a, &u, sizeof u);
  }
  Substrait__SimpleExtensionDeclaration *d = msg(&a, &substrait__simple_extension_declaration__descriptor);
  d->mapping_type_case = SUBSTRAIT__SIMPLE_EXTENSION_DECLARATION__MAPPING_TYPE_EXTENSION_FUNCTION;
  d->extension_function = f;
  x->n_extensions = 1, x->extensions = lfa_arena_memdup(&a, &d, sizeof d);
  /* the call */
  Substrait__Expression__ScalarFunction *call = msg(&a, &substrait__expression__scalar_function__descriptor);
  call->function_reference = p->reference ? p->reference : 7;
  size_t n = p->no_arguments ? 0 : p->n_arguments ? p->n_arguments : 1;
  Substrait__FunctionArgument *args[3];
  for (size_t i = 0; i < n; i++) {
    args[i] = msg(&a, &substrait__function_argument__descriptor);
    args[i]->arg_type_case = SUBSTRAIT__FUNCTION_ARGUMENT__ARG_TYPE_VALUE;
    args[i]->value = argument(&a, p);
  }
  if (p->deprecated_args) {
    call->n_args = 1, call->args = lfa_arena_memdup(&a, &args[0]->value, sizeof args[0]->value);
    n = 0;
  }
  call->n_arguments = n, call->arguments = lfa_arena_memdup(&a, args, (n ? n : 1) * sizeof args[0]);
  if (p->nullable_output) {
    call->output_type = msg(&a, &substrait__type__descriptor);
    call->output_type->kind_case = SUBSTRAIT__TYPE__KIND_BOOLEAN;
    call->output_type->boolean = msg(&a, &substrait__type__boolean__descriptor);
    call->output_type->boolean->nullability = SUBSTRAIT__TYPE__NULLABILITY__NULLABILITY_NULLABLE;
  }
  if (p->option) {
    Substrait__FunctionOption *o = msg(&a, &substrait__function_option__descriptor);
    o->name = (char *)"overflow";
    call->n_options = 1, call->options = lfa_arena_memdup(&a, &o, sizeof o);
  }
  Substrait__Expression *e = msg(&a, &substrait__expression__descriptor);
  e->rex_type_case = SUBSTRAIT__EXPRESSION__REX_TYPE_SCALAR_FUNCTION, e->scalar_function = call;
  Substrait__ExpressionReference *r = msg(&a, &substrait__expression_reference__descriptor);
  r->expr_type_case = SUBSTRAIT__EXPRESSION_REFERENCE__EXPR_TYPE_EXPRESSION, r->expression = e;
  Substrait__ExpressionReference *refs[2] = {r, r};
  x->n_referred_expr = p->two_expressions ? 2 : 1, x->referred_expr = lfa_arena_memdup(&a, refs, sizeof refs);
  if (!p->no_schema) x->base_schema = producer_schema(&a, p->drop_names);
  if (p->enhancement) {
    x->advanced_extensions = msg(&a, &substrait__advanced_extension__descriptor);
    x->advanced_extensions->enhancement = msg(&a, &substrait__any_message__descriptor);
    x->advanced_extensions->enhancement->type_url = (char *)"type.example/Hint";
  }
  assert_ok(lfa_arena_check(&a, &err), &err);
  assert_ok(lfa_pb_pack(out, &x->base, &err), &err);
  lfa_arena_free(&a);
}

static lfa_status consume(lfa_expr_plan *p, const char *dir, const lfa_snapshot *snap, const producer *pr,
                          lfa_error *err) {
  lfa_buf bytes = {0};
  produce(&bytes, pr);
  lfa_status st = lfa_expr_plan_substrait(p, dir, snap, bytes.data, bytes.len, err);
  lfa_buf_free(&bytes);
  return st;
}

static void consumed_refused(const char *dir, const lfa_snapshot *snap, const producer *pr, const char *rule,
                             const char *want) {
  lfa_expr_plan p;
  lfa_error err = {0};
  lfa_status st = consume(&p, dir, snap, pr, &err);
  if (st == LFA_OK) fail_msg("accepted; expected '%s'", want);
  assert_rule(&err, rule);
  if (strstr(err.msg, want) == NULL) fail_msg("'%s' lacks '%s'", err.msg, want);
}

/* Positions index the producer's base_schema; its names (depth first)
 * name the field, which resolves against the snapshot: `meta` is position
 * 2 there and its child `score` position 1 (names index 7); `emb` is
 * position 3 (index 8, after a x y z id meta other score). The literal
 * form binds the id [FA-EXPR-13]. Everything else is refused. */
static void test_FA_EXPR_12_substrait_from_another_producer(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot snap;
  lfa_expr_plan p;
  lfa_error err = {0};
  write_history(&fx, false);
  open_version(&snap, fx.dir, 4, NULL);
  const int32_t score[] = {2, 1}, emb[] = {3}, id[] = {1}, a_y_z[] = {0, 1, 0}, past[] = {4}, deep[] = {3, 0};
  producer pr = {.positions = score, .n_positions = 2};
  assert_ok(consume(&p, fx.dir, &snap, &pr, &err), &err);
  assert_int_equal(p.field_id, F_SCORE);
  pr = (producer){.positions = emb, .n_positions = 1};
  assert_ok(consume(&p, fx.dir, &snap, &pr, &err), &err);
  assert_int_equal(p.field_id, F_EMB);
  /* by the deprecated URI when no URN is listed; a compound name, any case */
  pr = (producer){.positions = emb, .n_positions = 1, .by_uri = true, .name = "IS_Assigned:any"};
  assert_ok(consume(&p, fx.dir, &snap, &pr, &err), &err);
  assert_int_equal(p.field_id, F_EMB);
  /* [FA-EXPR-13] the literal field id */
  pr = (producer){.arg = ARG_I32, .literal = F_SCORE};
  assert_ok(consume(&p, fx.dir, &snap, &pr, &err), &err);
  assert_int_equal(p.field_id, F_SCORE);
  pr = (producer){.arg = ARG_I32, .literal = F_EMB, .no_schema = true};
  assert_ok(consume(&p, fx.dir, &snap, &pr, &err), &err);
  assert_int_equal(p.field_id, F_EMB);
  pr = (producer){.arg = ARG_I32, .literal = F_ID};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "untracked field 'id' (stable field id 0)");
  pr = (producer){.arg = ARG_I32, .literal = 999};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "unknown field id 999");
  /* the argument [FA-EXPR-4] items 1 to 4 */
  pr = (producer){.positions = id, .n_positions = 1};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "untracked field 'id'");
  pr = (producer){.positions = a_y_z, .n_positions = 3};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "unknown field 'a.y.z'");
  pr = (producer){.positions = score, .n_positions = 2, .n_arguments = 2};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "exactly one argument (FA-EXPR-1), got 2");
  pr = (producer){.no_arguments = true};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "got 0");
  pr = (producer){.arg = ARG_BOOL};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "a literal other than an Int32 field id is not a field");
  pr = (producer){.arg = ARG_CALL};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "a function expression is not a field");
  pr = (producer){.arg = ARG_OUTER, .positions = emb, .n_positions = 1};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "an outer reference is a column of another relation");
  pr = (producer){.arg = ARG_NO_ROOT, .positions = emb, .n_positions = 1};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "root_reference");
  pr = (producer){.arg = ARG_LIST_ELEMENT, .positions = deep, .n_positions = 2};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "a map key or list element is not a field");
  pr = (producer){.positions = deep, .n_positions = 2}; /* a struct field of the list emb */
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-4", "a struct field of a field that is not a struct");
  /* the envelope [FA-EXPR-12] */
  pr = (producer){.positions = emb, .n_positions = 1, .urn = "extension:io.substrait:functions_boolean"};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "is_assigned is declared by 'extension:io.substrait:");
  pr = (producer){.positions = emb, .n_positions = 1, .name = "is_null"};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "the function is 'is_null', not is_assigned");
  pr = (producer){.positions = emb, .n_positions = 1, .name = "is_assigned_now"};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "not is_assigned");
  pr = (producer){.positions = emb, .n_positions = 1, .reference = 8};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "function_reference 8 names no declared extension function");
  pr = (producer){.positions = emb, .n_positions = 1, .option = true};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "is_assigned has no options, got 'overflow'");
  pr = (producer){.positions = emb, .n_positions = 1, .two_expressions = true};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "holds 2 referred expressions, not one");
  pr = (producer){.positions = emb, .n_positions = 1, .no_schema = true};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "needs base_schema");
  pr = (producer){.positions = emb, .n_positions = 1, .drop_names = 1};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "base_schema lists 9 names for a struct that has 10");
  pr = (producer){.positions = past, .n_positions = 1};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "struct field 4 is not one of the 4 in base_schema");
  pr = (producer){.positions = emb, .n_positions = 1, .deprecated_args = true};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "deprecated `args`");
  pr = (producer){.positions = emb, .n_positions = 1, .enhancement = true};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-12", "enhancement 'type.example/Hint'");
  /* [FA-EXPR-1] a nullable result is not is_assigned's */
  pr = (producer){.positions = emb, .n_positions = 1, .nullable_output = true};
  consumed_refused(fx.dir, &snap, &pr, "FA-EXPR-1", "non-nullable Boolean");
  lfa_snapshot_free(&snap);
  remove_history(&fx);
}

/* Bytes that are not an ExtendedExpression, too many, or nested too deep
 * for the decoder are refused before anything is planned. */
static void test_FA_EXPR_12_hostile_substrait_bytes(void **state) {
  (void)state;
  fixture fx;
  lfa_snapshot snap;
  lfa_expr_plan p;
  lfa_error err = {0};
  write_history(&fx, false);
  open_version(&snap, fx.dir, 4, NULL);
  /* cut short: the last byte of a valid expression is missing */
  assert_status(lfa_expr_plan_substrait(&p, fx.dir, &snap, SCORE_SUBSTRAIT, sizeof SCORE_SUBSTRAIT - 1, &err),
                LFA_ERR_PROTO, &err);
  assert_rule(&err, "FA-EXPR-12");
  /* a group (field 1, wire type 3) ahead of valid bytes: a wire type Substrait never uses */
  uint8_t group[1 + sizeof SCORE_SUBSTRAIT] = {0x0b};
  memcpy(group + 1, SCORE_SUBSTRAIT, sizeof SCORE_SUBSTRAIT);
  assert_status(lfa_expr_plan_substrait(&p, fx.dir, &snap, group, sizeof group, &err), LFA_ERR_PROTO, &err);
  assert_rule(&err, "FA-EXPR-12");
  /* empty: no referred expression */
  assert_status(lfa_expr_plan_substrait(&p, fx.dir, &snap, SCORE_SUBSTRAIT, 0, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-EXPR-12");
  /* over the size limit, refused before a byte is looked at */
  uint8_t *big = calloc((size_t)LFA_SUBSTRAIT_BYTES_MAX + 1, 1);
  assert_non_null(big);
  assert_status(lfa_expr_plan_substrait(&p, fx.dir, &snap, big, (size_t)LFA_SUBSTRAIT_BYTES_MAX + 1, &err),
                LFA_ERR_LIMIT, &err);
  free(big);
  /* base_schema (4) > struct (2) > types (1) > struct_type (25) > types ...:
   * 5 bytes a level, 25 levels while lengths fit one byte: the innermost
   * struct is 52 messages deep */
  uint8_t deep[512];
  size_t len = 0;
  for (int level = 0; level < 40; level++) { /* build inside out: [tag, len, inner] */
    uint8_t tmp[512];
    size_t n = 0;
    tmp[n++] = 0xca, tmp[n++] = 0x01, tmp[n++] = (uint8_t)len; /* Type.struct_type (25) */
    memcpy(tmp + n, deep, len), n += len;
    deep[0] = 0x0a, deep[1] = (uint8_t)n; /* Struct.types (1) */
    memcpy(deep + 2, tmp, n);
    len = n + 2;
    if (len > 120) break; /* one-byte lengths: stop before 128 */
  }
  uint8_t top[600];
  size_t n = 0;
  top[n++] = 0x22, top[n++] = (uint8_t)(len + 2); /* ExtendedExpression.base_schema */
  top[n++] = 0x12, top[n++] = (uint8_t)len;       /* NamedStruct.struct */
  memcpy(top + n, deep, len), n += len;
  assert_status(lfa_expr_plan_substrait(&p, fx.dir, &snap, top, n, &err), LFA_ERR_LIMIT, &err);
  if (strstr(err.msg, "nest deeper") == NULL) fail_msg("%s", err.msg);
  /* 5000 random edits of the valid bytes (flipped bits, cut tails): each
   * plans a field of the snapshot or fails with a message, never crashes
   * (the sanitizer build watches memory) */
  uint64_t seed = 0xfeed;
  size_t planned = 0, refused = 0;
  for (int round = 0; round < 5000; round++) {
    uint8_t b[sizeof SCORE_SUBSTRAIT];
    memcpy(b, SCORE_SUBSTRAIT, sizeof b);
    for (uint64_t flips = 1 + tu_rand(&seed) % 3; flips > 0; flips--)
      b[tu_rand(&seed) % sizeof b] ^= (uint8_t)(1u << (tu_rand(&seed) % 8));
    size_t cut = round % 4 == 0 ? (size_t)(tu_rand(&seed) % sizeof b) : sizeof b;
    lfa_error_clear(&err);
    if (lfa_expr_plan_substrait(&p, fx.dir, &snap, b, cut, &err) == LFA_OK) {
      assert_true(lfa_snapshot_tracked(&snap, p.field_id) != SIZE_MAX); /* planning keeps only tracked fields */
      planned++;
    } else {
      assert_true(err.msg[0] != '\0');
      refused++;
    }
  }
  assert_true(planned > 0 && refused > 0);
  lfa_snapshot_free(&snap);
  remove_history(&fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_EXPR_1_call_has_exactly_one_argument),
      cmocka_unit_test(test_FA_LIMIT_1_call_text_at_its_limit),
      cmocka_unit_test(test_FA_EXPR_2_name_bytes_at_their_edges),
      cmocka_unit_test(test_FA_EXPR_1_every_row_is_a_boolean),
      cmocka_unit_test(test_FA_EXPR_2_div_qualified_reference_accepted),
      cmocka_unit_test(test_FA_EXPR_3_binds_to_the_snapshot_schema),
      cmocka_unit_test(test_FA_EXPR_6_div_filter_pushdown_same_result),
      cmocka_unit_test(test_FA_EXPR_6_random_histories_agree),
      cmocka_unit_test(test_FA_EXPR_6_div_binding_in_projection_filter_aggregate),
      cmocka_unit_test(test_FA_EXPR_8_div_bitmaps_loaded_for_scanned_fragments_only),
      cmocka_unit_test(test_FA_EXPR_10_div_bound_plan_not_reused_across_snapshots),
      cmocka_unit_test(test_FA_EXPR_11_evaluation_needs_a_bound_snapshot),
      cmocka_unit_test(test_FA_STORE_8_div_object_cache_across_versions),
      cmocka_unit_test(test_FA_SEM_7_old_version_reads_its_own_descriptors),
      cmocka_unit_test(test_FA_EXPR_12_div_substrait_field_reference),
      cmocka_unit_test(test_FA_EXPR_12_substrait_from_another_producer),
      cmocka_unit_test(test_FA_EXPR_12_hostile_substrait_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
