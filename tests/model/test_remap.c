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
#include "lfa/bits.h"
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

/* Both remaps on one group; the fast one must give the plain one's cells. */
static void assert_same_remap(const lfa_remap_source *old, size_t n_old, const uint64_t *rows, size_t n_new,
                              const char *what) {
  enum { MAX_NEW = 16 };
  lfa_cell out[MAX_NEW], want[MAX_NEW];
  lfa_error err = {0};
  assert_true(n_new <= MAX_NEW);
  assert_ok(lfa_remap_group_plain(want, rows, n_new, old, n_old, &err), &err);
  assert_ok(lfa_remap_group(out, rows, n_new, old, n_old, &err), &err);
  for (size_t k = 0; k < n_new; k++) {
    if (out[k].kind != want[k].kind) fail_msg("%s: new fragment %zu: kind %d, plain %d", what, k, out[k].kind, want[k].kind);
    if (want[k].kind == LFA_CELL_PARTIAL && !roaring_bitmap_equals(out[k].rows, want[k].rows))
      fail_msg("%s: new fragment %zu of %llu rows differs from the plain remap", what, k, (unsigned long long)rows[k]);
  }
  free_cells(out, n_new);
  free_cells(want, n_new);
}

/* [FA-REMAP-1] The word by word compaction at every density of the state
 * and of the deletions the benchmark measures and beyond (0.1% .. every
 * row), deletions scattered, in runs, or every other row, each old
 * fragment over several containers and new fragments cut at offsets that
 * are not multiples of 64 or of 65536: the fast remap gives exactly the
 * plain loop's cells. */
static void test_FA_REMAP_1_densities_and_deletion_patterns(void **state) {
  (void)state;
  static const double density[] = {0, 0.001, 0.01, 0.1, 0.5, 0.9, 0.999, 1};
  static const double deleted[] = {0, 0.001, 0.01, 0.1, 0.5, 0.99};
  enum { N_OLD = 3 };
  uint64_t rng = 0xC0FFEE5EEDULL;
  for (size_t d = 0; d < sizeof density / sizeof density[0]; d++)
    for (size_t x = 0; x < sizeof deleted / sizeof deleted[0] + 2; x++) {
      lfa_fragment frag[N_OLD];
      lfa_cell cell[N_OLD];
      lfa_remap_source old[N_OLD];
      uint64_t live = 0;
      for (size_t i = 0; i < N_OLD; i++) {
        uint64_t rows = 65536 + 1 + tu_rand(&rng) % 140000;
        memset(&frag[i], 0, sizeof frag[i]);
        frag[i].physical_rows = rows;
        if (x < sizeof deleted / sizeof deleted[0]) { /* scattered */
          frag[i].deleted = deleted[x] > 0 ? tu_density_set(&rng, rows, deleted[x]) : NULL;
        } else if (x == sizeof deleted / sizeof deleted[0]) { /* in runs */
          frag[i].deleted = roaring_bitmap_create();
          for (uint64_t at = tu_rand(&rng) % 700; at < rows; at += 1000 + tu_rand(&rng) % 5000)
            roaring_bitmap_add_range(frag[i].deleted, at, at + 1 + tu_rand(&rng) % 600 < rows ? at + 1 + tu_rand(&rng) % 600 : rows);
        } else { /* every other row */
          frag[i].deleted = roaring_bitmap_create();
          for (uint64_t at = 1; at < rows; at += 2) roaring_bitmap_add(frag[i].deleted, (uint32_t)at);
        }
        cell[i] = (lfa_cell){LFA_CELL_PARTIAL, tu_density_set(&rng, rows, density[d])};
        old[i] = (lfa_remap_source){&frag[i], &cell[i]};
        live += lfa_fragment_live_rows(&frag[i]);
      }
      uint64_t rows[8];
      size_t n_new = 0;
      for (uint64_t left = live; left > 0; n_new++) {
        uint64_t take = n_new == 7 ? left : 1 + tu_rand(&rng) % (left < 100000 ? left : 100000);
        rows[n_new] = take, left -= take;
      }
      char what[96];
      snprintf(what, sizeof what, "density %g, deletion pattern %zu", density[d], x);
      assert_same_remap(old, N_OLD, rows, n_new, what);
      for (size_t i = 0; i < N_OLD; i++) {
        lfa_bitmap_free(cell[i].rows);
        lfa_fragment_free(&frag[i]);
      }
    }
}

/* One old fragment of `rows` rows for the chunk-at-a-time cases: state
 * ranges [from, to) and deletion ranges, given as pairs. */
static void ranged_fragment(lfa_fragment *f, lfa_cell *c, uint64_t rows, const uint64_t *state, size_t n_state,
                            const uint64_t *gone, size_t n_gone) {
  memset(f, 0, sizeof *f);
  f->physical_rows = rows;
  if (n_gone > 0) f->deleted = roaring_bitmap_create();
  for (size_t i = 0; i < n_gone; i += 2) roaring_bitmap_add_range(f->deleted, gone[i], gone[i + 1]);
  *c = (lfa_cell){LFA_CELL_PARTIAL, roaring_bitmap_create()};
  for (size_t i = 0; i < n_state; i += 2) roaring_bitmap_add_range(c->rows, state[i], state[i + 1]);
}

/* New fragments cut from `live` rows at the given sizes, the last taking the rest. */
static size_t cut_new(uint64_t *rows, uint64_t live, const uint64_t *sizes, size_t n_sizes) {
  size_t n = 0;
  for (size_t i = 0; i < n_sizes && live > sizes[i]; i++) rows[n++] = sizes[i], live -= sizes[i];
  rows[n++] = live;
  return n;
}

/* [FA-REMAP-1] The chunk-at-a-time remap's own cases, each against the
 * plain loop: uniform runs of state words (all 0 or all 1, 32 words and
 * more) with and without deletions, a state with no container in a chunk
 * (its live rows counted from the deletion container: array, bitset or
 * runs, whole or the fragment's last partial chunk), words wholly deleted,
 * old and new fragments of row counts that are not multiples of 64 or of
 * 2^16, new fragment boundaries inside a word and on container
 * boundaries, new fragments of one row, and an old fragment every row of
 * which is deleted. */
static void test_FA_REMAP_1_chunk_sink_cases(void **state) {
  (void)state;
  enum { N_OLD = 3 };
  static const uint64_t sizes[][4] = {{65536, 65536, 1, 64}, {1, 1, 63, 65537}, {100, 131072, 7, 5},
                                      {65535, 2, 65536, 3}, {200000, 1, 1, 1}, {3 * 65536 + 17, 64, 128, 1}};
  uint64_t rng = 0x51CC5EEDULL;
  for (int round = 0; round < 60; round++) {
    lfa_fragment frag[N_OLD];
    lfa_cell cell[N_OLD];
    lfa_remap_source old[N_OLD];
    uint64_t live = 0;
    for (size_t i = 0; i < N_OLD; i++) {
      uint64_t rows = 1 + tu_rand(&rng) % (4 * 65536 + 100), a = tu_rand(&rng) % rows, b = a + tu_rand(&rng) % (rows - a + 1);
      uint64_t st[6] = {a, b, 0, 1 + tu_rand(&rng) % 3, rows - 1 - tu_rand(&rng) % (rows < 70 ? 1 : 70), rows};
      uint64_t del_from = tu_rand(&rng) % rows, del_to = del_from + tu_rand(&rng) % (rows - del_from + 1);
      uint64_t gone[4] = {del_from, del_to, rows / 2, rows / 2 + 1};
      int how = (int)(tu_rand(&rng) % 5); /* deletions: none, a run, scattered, every row, a run and one */
      ranged_fragment(&frag[i], &cell[i], rows, st, 2 + 2 * (tu_rand(&rng) % 3), gone, how == 1 ? 2 : how == 4 ? 4 : 0);
      if (how == 2) frag[i].deleted = tu_density_set(&rng, rows, tu_rand(&rng) % 2 ? 0.01 : 0.2);
      if (how == 3) frag[i].deleted = roaring_bitmap_from_range(0, rows, 1);
      if (frag[i].deleted != NULL && tu_rand(&rng) % 2) roaring_bitmap_run_optimize(frag[i].deleted);
      if (tu_rand(&rng) % 2) roaring_bitmap_run_optimize(cell[i].rows);
      old[i] = (lfa_remap_source){&frag[i], &cell[i]};
      live += lfa_fragment_live_rows(&frag[i]);
    }
    uint64_t rows[8];
    size_t n_new = live == 0 ? 0 : cut_new(rows, live, sizes[round % 6], 4);
    char what[64];
    snprintf(what, sizeof what, "round %d", round);
    assert_same_remap(old, N_OLD, rows, n_new, what);
    for (size_t i = 0; i < N_OLD; i++) {
      lfa_bitmap_free(cell[i].rows);
      lfa_fragment_free(&frag[i]);
    }
  }
}

/* [FA-REMAP-1] A new fragment boundary inside a uniform run and inside a
 * word: one old fragment of 5 chunks assigned but for its first 64 rows,
 * deletions every 3rd row of its second chunk, cut into new fragments of
 * 65536 + 33, 1, 70000 rows and the rest. */
static void test_FA_REMAP_1_boundary_inside_a_run(void **state) {
  (void)state;
  lfa_fragment f;
  lfa_cell c;
  uint64_t st[2] = {64, 5 * 65536};
  ranged_fragment(&f, &c, 5 * 65536, st, 2, NULL, 0);
  f.deleted = roaring_bitmap_create();
  for (uint64_t o = 65536; o < 2 * 65536; o += 3) roaring_bitmap_add(f.deleted, (uint32_t)o);
  lfa_remap_source old = {&f, &c};
  uint64_t rows[4] = {65536 + 33, 1, 70000, 0}, live = lfa_fragment_live_rows(&f);
  rows[3] = live - rows[0] - rows[1] - rows[2];
  assert_same_remap(&old, 1, rows, 4, "a boundary inside a run");
  lfa_bitmap_free(c.rows);
  lfa_fragment_free(&f);
}

/* [FA-REMAP-1] The word kernels themselves, against a bit by bit loop:
 * lfa_bits_squeeze keeps a word's bits at its live offsets in order, and
 * lfa_bits_append_live (pext where the CPU has it) and its portable
 * _plain twin append exactly those bits at any starting bit, keeping the
 * stream's bits below it and ignoring whatever was above it. */
static void test_FA_REMAP_1_word_kernels_match_bit_loop(void **state) {
  (void)state;
  enum { WORDS = 40 };
  uint64_t rng = 0xB1757EADULL;
  for (int round = 0; round < 3000; round++) {
    uint64_t bits[WORDS], gone[WORDS], n_bits = 1 + tu_rand(&rng) % (64 * (WORDS - 4)), start = tu_rand(&rng) % 200;
    int dens = (int)(tu_rand(&rng) % 4); /* deletions: none, sparse, half, dense */
    for (size_t i = 0; i < WORDS; i++) {
      bits[i] = tu_rand(&rng);
      uint64_t g = tu_rand(&rng);
      gone[i] = dens == 0 ? 0 : dens == 1 ? g & tu_rand(&rng) & tu_rand(&rng) & tu_rand(&rng) : dens == 2 ? g : g | tu_rand(&rng);
    }
    bool with_gone = tu_rand(&rng) % 4 != 0;
    uint64_t want[2 * WORDS + 8] = {0}, fast[2 * WORDS + 8], plain[2 * WORDS + 8];
    for (size_t i = 0; i < 2 * WORDS + 8; i++) fast[i] = plain[i] = tu_rand(&rng); /* what is above *pos is ignored */
    uint64_t head = tu_rand(&rng), pw = start;
    for (uint64_t o = 0; o < start; o++) { /* the bits below the start are kept */
      uint64_t b = head >> (o % 64) & 1;
      want[o / 64] |= b << (o % 64);
      fast[o / 64] = (fast[o / 64] & ~(UINT64_C(1) << (o % 64))) | b << (o % 64);
      plain[o / 64] = (plain[o / 64] & ~(UINT64_C(1) << (o % 64))) | b << (o % 64);
    }
    for (uint64_t o = 0; o < n_bits; o++)
      if (!with_gone || !(gone[o / 64] >> (o % 64) & 1)) want[pw / 64] |= (bits[o / 64] >> (o % 64) & 1) << (pw % 64), pw++;
    uint64_t pf = start, pp = start;
    lfa_bits_append_live(fast, &pf, bits, with_gone ? gone : NULL, n_bits);
    lfa_bits_append_live_plain(plain, &pp, bits, with_gone ? gone : NULL, n_bits);
    assert_int_equal(pf, pw);
    assert_int_equal(pp, pw);
    for (uint64_t o = 0; o < pw; o++) {
      uint64_t w = want[o / 64] >> (o % 64) & 1;
      if ((fast[o / 64] >> (o % 64) & 1) != w || (plain[o / 64] >> (o % 64) & 1) != w)
        fail_msg("round %d: bit %llu of %llu (start %llu)", round, (unsigned long long)o, (unsigned long long)pw,
                 (unsigned long long)start);
    }
    for (size_t i = 0; i < WORDS && with_gone; i++) {
      uint64_t expect = 0, b = bits[i], g = gone[i];
      for (unsigned o = 0, at = 0; o < 64; o++)
        if (!(g >> o & 1)) expect |= (b >> o & 1) << at++;
      assert_true(lfa_bits_squeeze(b, g) == expect);
    }
  }
}

/* A bit array back into a bitmap: every value, a bitset above 4096 values
 * and an array below, and the count, against adding the bits one by one. */
static void test_FA_REMAP_1_words_to_bitmap(void **state) {
  (void)state;
  uint64_t rng = 0x70B17A4ULL;
  static const double density[] = {0, 0.0001, 0.03, 0.0625, 0.07, 0.5, 1};
  for (size_t d = 0; d < sizeof density / sizeof density[0]; d++) {
    uint64_t n_bits = 3 * 65536 + 1 + tu_rand(&rng) % 65535, n_words = (n_bits + 63) / 64, cut = (uint64_t)(density[d] * 1.8e19);
    uint64_t *w = calloc(n_words, 8);
    assert_non_null(w);
    roaring_bitmap_t *want = roaring_bitmap_create();
    for (uint64_t o = 0; o < n_bits; o++)
      if (density[d] >= 1 || tu_rand(&rng) < cut) w[o / 64] |= UINT64_C(1) << (o % 64), roaring_bitmap_add(want, (uint32_t)o);
    roaring_bitmap_t *got = NULL;
    uint64_t count = 0;
    lfa_error err = {0};
    assert_ok(lfa_bits_to_bitmap(&got, &count, w, n_bits, &err), &err);
    assert_true(roaring_bitmap_equals(got, want));
    assert_int_equal(count, roaring_bitmap_get_cardinality(want));
    assert_int_equal(lfa_bits_count(w, n_bits), count);
    roaring_bitmap_free(got);
    roaring_bitmap_free(want);
    free(w);
  }
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
      cmocka_unit_test(test_FA_REMAP_1_densities_and_deletion_patterns),
      cmocka_unit_test(test_FA_REMAP_1_chunk_sink_cases),
      cmocka_unit_test(test_FA_REMAP_1_boundary_inside_a_run),
      cmocka_unit_test(test_FA_REMAP_1_word_kernels_match_bit_loop),
      cmocka_unit_test(test_FA_REMAP_1_words_to_bitmap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
