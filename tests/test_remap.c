/* test_remap.c: one field's state across a compaction group
 * (ref/model/remap.c). Requirement ids: FA-REMAP-1 (the k-th live old row
 * becomes the k-th new row), FA-REMAP-2 (live rows fill the new fragments
 * exactly), FA-REWRITE-1 (every live row keeps its state).
 *
 * Hand-made groups first, each with its derivation, run through both
 * implementations: lfa_remap_group_plain (the plain loop of 05§5, the
 * reference) and lfa_remap_group (the fast one); then lfa_remap_rows, the
 * plain mapping, by hand; then many random groups on which the fast one
 * must give exactly the plain one's cells. */
#include "random_set.h"
#include "testutil.h"

#include "lfa/bitmap.h"
#include "lfa/remap.h"

/* An old fragment of `rows` rows with deleted offsets `del` (n_del). */
static lfa_fragment old_fragment(uint64_t rows, const uint32_t *del, size_t n_del) {
  lfa_fragment f;
  memset(&f, 0, sizeof f);
  f.physical_rows = rows;
  f.deleted = n_del ? roaring_bitmap_of_ptr(n_del, del) : NULL;
  return f;
}

typedef lfa_status (*remap_fn)(lfa_cell *out, const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old,
                               size_t n_old, lfa_error *err);
static const remap_fn BOTH[] = {lfa_remap_group_plain, lfa_remap_group};

static lfa_cell partial(const uint32_t *v, size_t n) { return (lfa_cell){LFA_CELL_PARTIAL, roaring_bitmap_of_ptr(n, v)}; }

static void free_cells(lfa_cell *c, size_t n) {
  for (size_t i = 0; i < n; i++) lfa_bitmap_free(c[i].rows);
}

/* The cell is PARTIAL and holds exactly v[0 .. n). */
static void assert_partial(const lfa_cell *c, const uint32_t *v, size_t n) {
  assert_int_equal(c->kind, LFA_CELL_PARTIAL);
  roaring_bitmap_t *want = roaring_bitmap_of_ptr(n, v);
  assert_true(roaring_bitmap_equals(c->rows, want));
  roaring_bitmap_free(want);
}

/* A (6 rows, deleted {1, 4}, assigned {0, 2, 4, 5}) then B (4 rows, all
 * assigned), into new fragments of 5 and 3 rows.
 * FA-REMAP-1: A's live offsets 0, 2, 3, 5 are k = 0..3 with states
 * T, T, F, T (offset 4 is deleted, so its assignment does not travel);
 * B's offsets 0..3 are k = 4..7, all T.
 * New fragment 0 = k 0..4 = T T F T T -> partial {0, 1, 3, 4};
 * new fragment 1 = k 5..7 = T T T -> all_assigned. */
static void test_FA_REMAP_1_two_fragments_by_hand(void **state) {
  (void)state;
  uint32_t del[] = {1, 4}, set[] = {0, 2, 4, 5}, want0[] = {0, 1, 3, 4};
  lfa_fragment a = old_fragment(6, del, 2), b = old_fragment(4, NULL, 0);
  lfa_cell ca = partial(set, 4), cb = {LFA_CELL_ALL, NULL};
  lfa_remap_source old[] = {{&a, &ca}, {&b, &cb}};
  uint64_t rows[] = {5, 3};
  for (size_t m = 0; m < 2; m++) {
    lfa_cell out[2];
    lfa_error err = {0};
    assert_ok(BOTH[m](out, rows, 2, old, 2, &err), &err);
    assert_partial(&out[0], want0, 4);
    assert_int_equal(out[1].kind, LFA_CELL_ALL);
    assert_null(out[1].rows);
    free_cells(out, 2);
  }
  lfa_bitmap_free(ca.rows);
  lfa_fragment_free(&a);
}

/* Group order decides, not fragment ids [FA-REMAP-1]: the same two
 * fragments listed B then A give k 0..3 = T T T T (B), k 4..7 = T T F T
 * (A's live 0, 2, 3, 5), into one new fragment of 8 rows:
 * partial {0, 1, 2, 3, 4, 5, 7}. */
static void test_FA_REMAP_1_group_order(void **state) {
  (void)state;
  uint32_t del[] = {1, 4}, set[] = {0, 2, 4, 5}, want[] = {0, 1, 2, 3, 4, 5, 7};
  lfa_fragment a = old_fragment(6, del, 2), b = old_fragment(4, NULL, 0);
  lfa_cell ca = partial(set, 4), cb = {LFA_CELL_ALL, NULL};
  lfa_remap_source old[] = {{&b, &cb}, {&a, &ca}};
  uint64_t rows[] = {8};
  for (size_t m = 0; m < 2; m++) {
    lfa_cell out[1];
    lfa_error err = {0};
    assert_ok(BOTH[m](out, rows, 1, old, 2, &err), &err);
    assert_partial(&out[0], want, 7);
    free_cells(out, 1);
  }
  lfa_bitmap_free(ca.rows);
  lfa_fragment_free(&a);
}

/* Canonical results: the assigned rows of a partial fragment are all
 * deleted except none, so its live rows are all unassigned -> NONE; an
 * ALL fragment with deletions stays ALL on its live rows. Old: C (4 rows,
 * deleted {0, 3}, assigned {0, 3}) -> live 1, 2 unassigned; D (3 rows,
 * deleted {2}, ALL) -> live 0, 1 assigned. New fragments of 2 and 2:
 * NONE and ALL. */
static void test_FA_REWRITE_1_canonical_cells(void **state) {
  (void)state;
  uint32_t del_c[] = {0, 3}, set_c[] = {0, 3}, del_d[] = {2};
  lfa_fragment c = old_fragment(4, del_c, 2), d = old_fragment(3, del_d, 1);
  lfa_cell cc = partial(set_c, 2), cd = {LFA_CELL_ALL, NULL};
  lfa_remap_source old[] = {{&c, &cc}, {&d, &cd}};
  uint64_t rows[] = {2, 2};
  for (size_t m = 0; m < 2; m++) {
    lfa_cell out[2];
    lfa_error err = {0};
    assert_ok(BOTH[m](out, rows, 2, old, 2, &err), &err);
    assert_int_equal(out[0].kind, LFA_CELL_NONE);
    assert_int_equal(out[1].kind, LFA_CELL_ALL);
    free_cells(out, 2);
  }
  lfa_bitmap_free(cc.rows);
  lfa_fragment_free(&c);
  lfa_fragment_free(&d);
}

/* Across Roaring containers (2^16 values each): 70000 rows, deleted {0},
 * assigned {65535, 65536, 69999}. Every live offset o moves to k = o - 1:
 * 65534, 65535, 69998. New fragments of 65535 and 4464 rows (69999 live):
 * fragment 0 takes k < 65535 -> {65534}; fragment 1 takes k - 65535 ->
 * {0, 4463}. */
static void test_FA_REMAP_1_across_containers(void **state) {
  (void)state;
  uint32_t del[] = {0}, set[] = {65535, 65536, 69999}, want0[] = {65534}, want1[] = {0, 4463};
  lfa_fragment a = old_fragment(70000, del, 1);
  lfa_cell ca = partial(set, 3);
  lfa_remap_source old[] = {{&a, &ca}};
  uint64_t rows[] = {65535, 4464};
  for (size_t m = 0; m < 2; m++) {
    lfa_cell out[2];
    lfa_error err = {0};
    assert_ok(BOTH[m](out, rows, 2, old, 1, &err), &err);
    assert_partial(&out[0], want0, 1);
    assert_partial(&out[1], want1, 2);
    free_cells(out, 2);
  }
  lfa_bitmap_free(ca.rows);
  lfa_fragment_free(&a);
}

/* Dense (bitset containers): 100000 rows, every even offset assigned
 * (50000 values), deleted {1}. Offset 0 -> k 0; offset o >= 2 -> k o - 1,
 * so even o = 2j (j >= 1) lands on the odd k = 2j - 1. New state of one
 * fragment of 99999 rows: {0} and every odd k up to 99997: 50000 values;
 * k = 2 (offset 3, odd) and k = 99998 (offset 99999, odd) unassigned. */
static void test_FA_REMAP_1_dense(void **state) {
  (void)state;
  uint32_t del[] = {1};
  lfa_fragment a = old_fragment(100000, del, 1);
  lfa_cell ca = {LFA_CELL_PARTIAL, roaring_bitmap_from_range(0, 100000, 2)};
  lfa_remap_source old[] = {{&a, &ca}};
  uint64_t rows[] = {99999};
  for (size_t m = 0; m < 2; m++) {
    lfa_cell out[1];
    lfa_error err = {0};
    assert_ok(BOTH[m](out, rows, 1, old, 1, &err), &err);
    assert_int_equal(out[0].kind, LFA_CELL_PARTIAL);
    assert_int_equal(roaring_bitmap_get_cardinality(out[0].rows), 50000);
    assert_true(roaring_bitmap_contains(out[0].rows, 0));
    assert_true(roaring_bitmap_contains(out[0].rows, 1));
    assert_false(roaring_bitmap_contains(out[0].rows, 2));
    assert_true(roaring_bitmap_contains(out[0].rows, 3));
    assert_true(roaring_bitmap_contains(out[0].rows, 99997));
    assert_false(roaring_bitmap_contains(out[0].rows, 99998));
    free_cells(out, 1);
  }
  lfa_bitmap_free(ca.rows);
  lfa_fragment_free(&a);
}

/* [FA-REMAP-2] 6 - 2 = 4 live rows cannot fill new fragments of 5 rows. */
static void test_FA_REMAP_2_row_counts_must_match(void **state) {
  (void)state;
  uint32_t del[] = {1, 4}, set[] = {0};
  lfa_fragment a = old_fragment(6, del, 2);
  lfa_cell ca = partial(set, 1);
  lfa_remap_source old[] = {{&a, &ca}};
  uint64_t rows[] = {5}, zero[] = {4, 0};
  for (size_t m = 0; m < 2; m++) {
    lfa_cell out[2];
    lfa_error err = {0};
    assert_status(BOTH[m](out, rows, 1, old, 1, &err), LFA_ERR_USAGE, &err);
    assert_rule(&err, "FA-REMAP-2");
    assert_int_equal(out[0].kind, LFA_CELL_NONE);
    assert_status(BOTH[m](out, zero, 2, old, 1, &err), LFA_ERR_USAGE, &err); /* an empty fragment */
  }
  lfa_bitmap_free(ca.rows);
  lfa_fragment_free(&a);
}

/* ---- the plain mapping by hand ----------------------------------------------------------- */

enum { ROWS_SEEN_MAX = 16 };

typedef struct seen {
  size_t n;
  lfa_remap_row rows[ROWS_SEEN_MAX];
} seen;

static void record(void *ctx, const lfa_remap_row *row) {
  seen *s = ctx;
  assert_true(s->n < ROWS_SEEN_MAX);
  s->rows[s->n++] = *row;
}

/* The first hand-made group as rows: A (6 rows, deleted {1, 4}) then B
 * (4 rows), into new fragments of 0, 5, 0 and 3 rows (the empty ones take
 * no row). A's live 0, 2, 3, 5 become rows 0..3 of new fragment 1, B's 0
 * becomes its row 4; B's 1, 2, 3 become rows 0..2 of new fragment 3. */
static void test_FA_REMAP_1_rows_by_hand(void **state) {
  (void)state;
  uint32_t del[] = {1, 4};
  lfa_fragment a = old_fragment(6, del, 2), b = old_fragment(4, NULL, 0);
  const lfa_fragment *old[] = {&a, &b};
  uint64_t rows[] = {0, 5, 0, 3};
  const lfa_remap_row want[] = {{0, 0, 1, 0}, {0, 2, 1, 1}, {0, 3, 1, 2}, {0, 5, 1, 3},
                                {1, 0, 1, 4}, {1, 1, 3, 0}, {1, 2, 3, 1}, {1, 3, 3, 2}};
  seen s = {0};
  lfa_error err = {0};
  assert_ok(lfa_remap_rows(rows, 4, old, 2, record, &s, &err), &err);
  assert_int_equal(s.n, 8);
  for (size_t i = 0; i < 8; i++) {
    assert_int_equal(s.rows[i].old, want[i].old);
    assert_int_equal(s.rows[i].old_offset, want[i].old_offset);
    assert_int_equal(s.rows[i].new_fragment, want[i].new_fragment);
    assert_int_equal(s.rows[i].new_offset, want[i].new_offset);
  }
  lfa_fragment_free(&a);
}

/* [FA-REMAP-2] 8 live rows into 7: refused before any row is visited. */
static void test_FA_REMAP_2_rows_refused_before_visiting(void **state) {
  (void)state;
  uint32_t del[] = {1, 4};
  lfa_fragment a = old_fragment(6, del, 2), b = old_fragment(4, NULL, 0);
  const lfa_fragment *old[] = {&a, &b};
  uint64_t rows[] = {4, 3};
  seen s = {0};
  lfa_error err = {0};
  assert_status(lfa_remap_rows(rows, 2, old, 2, record, &s, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-REMAP-2");
  assert_int_equal(s.n, 0);
  lfa_fragment_free(&a);
}

/* ---- random groups: the fast remap against the plain one ------------------------------------ */

static uint64_t random_rows(uint64_t *rng) {
  uint64_t r = tu_rand(rng) % 4;
  return r == 0 ? 1 + tu_rand(rng) % 8 : r == 1 ? 1 + tu_rand(rng) % 300 : 1 + tu_rand(rng) % 140000;
}

/* One random group: 1 to 6 old fragments, random states and deletions
 * (which may delete every row), new fragments of random sizes summing to
 * the live rows. The fast remap must give the plain one's cells. */
static void one_random_group(uint64_t *rng) {
  enum { MAX_OLD = 6, MAX_NEW = 10 };
  lfa_fragment frag[MAX_OLD];
  lfa_cell cell[MAX_OLD];
  lfa_remap_source old[MAX_OLD];
  size_t n_old = 1 + (size_t)(tu_rand(rng) % MAX_OLD);
  uint64_t live = 0;
  for (size_t i = 0; i < n_old; i++) {
    uint64_t rows = random_rows(rng);
    memset(&frag[i], 0, sizeof frag[i]);
    frag[i].physical_rows = rows;
    if (tu_rand(rng) % 2) frag[i].deleted = tu_random_set(rng, rows);
    uint64_t kind = tu_rand(rng) % 4;
    cell[i] = (lfa_cell){kind == 0 ? LFA_CELL_NONE : kind == 1 ? LFA_CELL_ALL : LFA_CELL_PARTIAL, NULL};
    if (cell[i].kind == LFA_CELL_PARTIAL) cell[i].rows = tu_random_set(rng, rows); /* may be empty or full: no matter */
    old[i] = (lfa_remap_source){&frag[i], &cell[i]};
    live += rows - (frag[i].deleted ? roaring_bitmap_get_cardinality(frag[i].deleted) : 0);
  }
  uint64_t rows[MAX_NEW];
  size_t n_new = 0;
  for (uint64_t left = live; left > 0; n_new++) {
    uint64_t take = n_new == MAX_NEW - 1 ? left : 1 + tu_rand(rng) % left;
    rows[n_new] = take, left -= take;
  }
  lfa_cell out[MAX_NEW], want[MAX_NEW];
  lfa_error err = {0};
  assert_ok(lfa_remap_group_plain(want, rows, n_new, old, n_old, &err), &err);
  assert_ok(lfa_remap_group(out, rows, n_new, old, n_old, &err), &err);
  for (size_t k = 0; k < n_new; k++) {
    if (out[k].kind != want[k].kind) fail_msg("new fragment %zu: kind %d, plain %d", k, out[k].kind, want[k].kind);
    if (want[k].kind == LFA_CELL_PARTIAL && !roaring_bitmap_equals(out[k].rows, want[k].rows))
      fail_msg("new fragment %zu of %llu rows differs from the plain remap", k, (unsigned long long)rows[k]);
  }
  free_cells(out, n_new);
  free_cells(want, n_new);
  for (size_t i = 0; i < n_old; i++) {
    lfa_bitmap_free(cell[i].rows);
    lfa_fragment_free(&frag[i]);
  }
}

static void test_FA_REMAP_1_random_groups_fast_matches_plain(void **state) {
  (void)state;
  uint64_t rng = 0x5EED0F5EEDULL;
  for (int i = 0; i < 300; i++) one_random_group(&rng);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_REMAP_1_two_fragments_by_hand),
      cmocka_unit_test(test_FA_REMAP_1_group_order),
      cmocka_unit_test(test_FA_REWRITE_1_canonical_cells),
      cmocka_unit_test(test_FA_REMAP_1_across_containers),
      cmocka_unit_test(test_FA_REMAP_1_dense),
      cmocka_unit_test(test_FA_REMAP_2_row_counts_must_match),
      cmocka_unit_test(test_FA_REMAP_1_rows_by_hand),
      cmocka_unit_test(test_FA_REMAP_2_rows_refused_before_visiting),
      cmocka_unit_test(test_FA_REMAP_1_random_groups_fast_matches_plain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
