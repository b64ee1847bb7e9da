/* materialize.c: is_assigned materialization (spec/B-cost-model.md, measurement d).
 *
 * A snapshot of FRAGMENTS fragments of ROWS rows (100 x 10^6 = 10^8 rows by
 * default) with one tracked field, in several states; every fragment's
 * is_assigned turned into a bit-packed Boolean array (lfa_assigned_bits,
 * ref/format/bits.c, FA-EXPR-5) into one output of 10^8 bits, against
 * memcpy of an output of the same size from another buffer. Partial bitmaps
 * are what a reader holds (encoded in the no-run form and decoded).
 * Deleted rows read 0, so states with deletions clear them too. For one
 * state, a per-row loop (roaring_bitmap_contains for each offset, as `lfa
 * eval` does) is timed as well. Best of several runs.
 *
 * Target (materialize_vs_memcpy): materialization at least half the speed of
 * memcpy in every state, with 0%, 1% and 10% of the rows deleted; one
 * "targets" line gives the worst state of each.
 *
 *   materialize [--smoke] [--fragments N] [--rows N]
 */
#include "bench_util.h"

#include "lfa/bitmap.h"
#include "lfa/materialize.h"

/* A snapshot built in memory with just what lfa_assigned_bits reads. */
typedef struct fixture {
  lfa_snapshot snap;
  Lance__Table__Manifest manifest;
  Lance__Table__DataFragment *frags, **frag_list;
  lfa_root root;
  lfa_tracked_field tracked;
  lfa_fragment_assignment *entries;
  roaring_bitmap_t **deleted;
  uint8_t *out, *src;
  size_t frag_bytes, total_bytes;
} fixture;

typedef enum kind { ALL, NONE, RANDOM, CLUSTERED } kind;

typedef struct state {
  const char *name;
  kind kind;
  double density, deleted;
  bool naive;
} state;

static void *must(void *p) {
  if (p == NULL) {
    fprintf(stderr, "materialize: out of memory\n");
    exit(2);
  }
  return p;
}

/* A bitmap as a reader holds it: the no-run object, decoded. */
static roaring_bitmap_t *as_read(const uint32_t *v, size_t n) {
  roaring_bitmap_t *b = must(roaring_bitmap_of_ptr(n, v)), *back = NULL;
  lfa_buf bytes = {0};
  lfa_error err = {0};
  if (lfa_bitmap_encode(&bytes, b, &err) != LFA_OK || lfa_bitmap_decode(&back, bytes.data, bytes.len, &err) != LFA_OK) {
    fprintf(stderr, "materialize: %s\n", err.msg);
    exit(2);
  }
  roaring_bitmap_free(b);
  lfa_buf_free(&bytes);
  return back;
}

static void build(fixture *x, size_t n, uint64_t rows, const state *s) {
  memset(x, 0, sizeof *x);
  x->frags = must(calloc(n, sizeof *x->frags));
  x->frag_list = must(calloc(n, sizeof *x->frag_list));
  x->entries = must(calloc(n, sizeof *x->entries));
  x->deleted = must(calloc(n, sizeof *x->deleted));
  uint32_t *v = must(malloc(rows * sizeof *v));
  uint64_t rng = 4242;
  for (size_t i = 0; i < n; i++) {
    lance__table__data_fragment__init(&x->frags[i]);
    x->frags[i].id = i, x->frags[i].physical_rows = rows, x->frag_list[i] = &x->frags[i];
    size_t k = 0;
    if (s->kind == RANDOM)
      for (uint64_t o = 0; o < rows; o++) {
        if (bench_unit(&rng) < s->density) v[k++] = (uint32_t)o;
      }
    else if (s->kind == CLUSTERED)
      for (uint64_t len = (uint64_t)(s->density * (double)rows), o = bench_rand(&rng) % (rows - len + 1), end = o + len;
           o < end; o++)
        v[k++] = (uint32_t)o;
    if (s->kind != NONE) {
      lfa_fragment_assignment *e = &x->entries[x->tracked.count++];
      e->fragment_id = i, e->all = s->kind == ALL, e->rows = s->kind == ALL ? NULL : as_read(v, k);
    }
    k = 0;
    for (uint64_t o = 0; s->deleted > 0 && o < rows; o++)
      if (bench_unit(&rng) < s->deleted) v[k++] = (uint32_t)o;
    x->deleted[i] = k > 0 ? as_read(v, k) : NULL;
  }
  free(v);
  x->manifest = (Lance__Table__Manifest)LANCE__TABLE__MANIFEST__INIT;
  x->manifest.n_fragments = n, x->manifest.fragments = x->frag_list;
  x->root = (lfa_root)LANCE__TABLE__FIELD_ASSIGNMENT_ROOT__INIT;
  x->tracked.field_id = 1, x->tracked.root = &x->root, x->tracked.fragments = x->entries;
  x->snap.file.manifest = &x->manifest;
  x->snap.deleted = x->deleted;
  x->snap.n_tracked = 1, x->snap.tracked = &x->tracked;
  x->frag_bytes = (size_t)(rows / 8 + (rows % 8 != 0)), x->total_bytes = x->frag_bytes * n;
  x->out = must(malloc(x->total_bytes)), x->src = must(malloc(x->total_bytes));
  memset(x->out, 0x55, x->total_bytes), memset(x->src, 0x33, x->total_bytes);
}

static void release(fixture *x) {
  for (size_t i = 0; i < x->manifest.n_fragments; i++) lfa_bitmap_free(x->deleted[i]);
  for (size_t i = 0; i < x->tracked.count; i++) lfa_bitmap_free(x->entries[i].rows);
  free(x->frags), free(x->frag_list), free(x->entries), free(x->deleted), free(x->out), free(x->src);
}

static void op_ours(void *ctx) {
  fixture *x = ctx;
  lfa_error err = {0};
  for (size_t i = 0; i < x->manifest.n_fragments; i++)
    if (lfa_assigned_bits(x->out + i * x->frag_bytes, x->frag_bytes, &x->snap, 0, i, &err) != LFA_OK) {
      fprintf(stderr, "materialize: %s\n", err.msg);
      exit(2);
    }
}

static void op_memcpy(void *ctx) {
  fixture *x = ctx;
  memcpy(x->out, x->src, x->total_bytes);
  bench_sink += x->out[x->total_bytes / 2];
}

/* Row by row, as `lfa eval` decides each row, over the first
 * NAIVE_FRAGMENTS fragments (it is slow). */
enum { NAIVE_FRAGMENTS = 10 };
static void op_naive(void *ctx) {
  fixture *x = ctx;
  memset(x->out, 0, x->total_bytes);
  for (size_t i = 0, e = 0; i < x->manifest.n_fragments && i < NAIVE_FRAGMENTS; i++) {
    const lfa_fragment_assignment *entry = e < x->tracked.count && x->entries[e].fragment_id == i ? &x->entries[e++] : NULL;
    uint8_t *out = x->out + i * x->frag_bytes;
    for (uint32_t o = 0; entry != NULL && o < x->frags[i].physical_rows; o++) {
      bool live = x->deleted[i] == NULL || !roaring_bitmap_contains(x->deleted[i], o);
      if (live && (entry->all || roaring_bitmap_contains(entry->rows, o))) out[o / 8] |= (uint8_t)(1u << (o % 8));
    }
  }
}

/* The output agrees with a per-row check of FA-EXPR-5 at sampled rows. */
static bool spot_check(const fixture *x, uint64_t rows) {
  uint64_t rng = 7;
  for (int k = 0; k < 20000; k++) {
    size_t i = (size_t)(bench_rand(&rng) % x->manifest.n_fragments);
    uint32_t o = (uint32_t)(bench_rand(&rng) % rows);
    const lfa_fragment_assignment *e = NULL;
    for (size_t j = 0; j < x->tracked.count; j++)
      if (x->entries[j].fragment_id == i) e = &x->entries[j];
    bool want = e != NULL && (e->all || roaring_bitmap_contains(e->rows, o)) &&
                (x->deleted[i] == NULL || !roaring_bitmap_contains(x->deleted[i], o));
    bool got = (x->out[i * x->frag_bytes + o / 8] >> (o % 8)) & 1;
    if (want != got) return false;
  }
  return true;
}

static bool run_state(double *ratio_out, const state *s, size_t n, uint64_t rows, bool smoke) {
  fixture x;
  build(&x, n, rows, s);
  int reps = smoke ? 1 : 5;
  double min = smoke ? 0 : 0.1;
  double t_ours, t_copy;
  bench_time_pair(&t_ours, &t_copy, op_ours, &x, op_memcpy, &x, reps, min);
  op_ours(&x);
  bool ok = spot_check(&x, rows);
  double t_naive = s->naive ? bench_time(op_naive, &x, 1, 0) : 0; /* over NAIVE_FRAGMENTS fragments */
  double total = (double)(rows * n), ratio = t_copy / t_ours;
  *ratio_out = ratio;
  double naive_rows = (double)(rows * (n < NAIVE_FRAGMENTS ? n : NAIVE_FRAGMENTS));
  char why[640];
  snprintf(why, sizeof why, "%.2f ms against %.2f ms for memcpy of %.1f MB: %s", t_ours * 1e3, t_copy * 1e3,
           (double)x.total_bytes / 1e6,
           s->deleted > 0 ? "a bitset of deletions is folded into the pass that writes the state (an AND NOT of "
                            "16 bytes at a time, or one test per value of an array state); an array of deletions "
                            "(fewer than 4,096 in 65,536 rows, as at 1%) is cleared after the chunk is written, "
                            "one read-modify-write per deleted row while the chunk is in cache"
                          : "the chunks are written one container at a time, each fragment a call of its own");
  bench_json j;
  bench_json_begin(&j, "materialize");
  bench_json_str(&j, "state", s->name);
  bench_json_u64(&j, "rows", (uint64_t)total);
  bench_json_u64(&j, "fragments", n);
  bench_json_num(&j, "value", total / t_ours);
  bench_json_str(&j, "unit", "rows/s");
  bench_json_num(&j, "memcpy_rows_per_s", total / t_copy);
  bench_json_num(&j, "ms", t_ours * 1e3);
  bench_json_num(&j, "memcpy_ms", t_copy * 1e3);
  if (s->naive) bench_json_num(&j, "per_row_rows_per_s", naive_rows / t_naive);
  bench_json_num(&j, "ratio", ratio);
  bench_json_str(&j, "ratio_def", "materialization speed / memcpy speed (same output size)");
  bench_json_target(&j, "materialization >= 1/2 memcpy", ratio >= 0.5, why);
  bench_json_end(&j);
  fprintf(stderr, "materialize %-34s %8.2f ms  memcpy %6.2f ms  ratio %.2f%s%s\n", s->name, t_ours * 1e3,
          t_copy * 1e3, ratio, s->naive ? "  per-row loop ms " : "", ok ? "" : "  WRONG BITS");
  if (s->naive)
    fprintf(stderr, "            per-row loop %.0f rows/s (%.0fx slower)\n", naive_rows / t_naive,
            (total / t_ours) / (naive_rows / t_naive));
  release(&x);
  return ok;
}

int main(int argc, char **argv) {
  bool smoke = false;
  size_t n = 100;
  uint64_t rows = 1000000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--smoke") == 0) smoke = true;
    else if (strcmp(argv[i], "--fragments") == 0 && i + 1 < argc) n = (size_t)strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: materialize [--smoke] [--fragments N] [--rows N]\n");
      return 2;
    }
  }
  if (smoke) n = 4, rows = 100000;
  if (n < 1 || n > 10000 || rows < 64 || rows > 4000000) {
    fprintf(stderr, "materialize: fragments in 1 .. 10000, rows in 64 .. 4000000\n");
    return 2;
  }
  const state states[] = {
      {"all_assigned", ALL, 1, 0, false},
      {"no entry (0%)", NONE, 0, 0, false},
      {"random 50%", RANDOM, 0.5, 0, true},
      {"random 0.1%", RANDOM, 0.001, 0, false},
      {"clustered 50% (one run per fragment)", CLUSTERED, 0.5, 0, false},
      {"all_assigned, 1% deleted", ALL, 1, 0.01, false},
      {"random 50%, 1% deleted", RANDOM, 0.5, 0.01, false},
      {"all_assigned, 10% deleted", ALL, 1, 0.1, false},
      {"random 50%, 10% deleted", RANDOM, 0.5, 0.1, false},
      {"random 0.1%, 10% deleted", RANDOM, 0.001, 0.1, false},
  };
  bool ok = true;
  double worst[3] = {1e300, 1e300, 1e300}; /* by deleted rows: 0, 1%, 10% */
  const char *worst_state[3] = {NULL, NULL, NULL};
  for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
    double r = 0;
    ok = run_state(&r, &states[i], n, rows, smoke) && ok;
    size_t g = states[i].deleted == 0 ? 0 : states[i].deleted < 0.05 ? 1 : 2;
    if (r < worst[g]) worst[g] = r, worst_state[g] = states[i].name;
  }
  size_t g = worst[0] <= worst[1] && worst[0] <= worst[2] ? 0 : worst[1] <= worst[2] ? 1 : 2;
  bench_json j;
  bench_target_begin(&j, "materialize_vs_memcpy", worst[g], 0.5, worst[g] >= 0.5, rows * n);
  bench_json_u64(&j, "fragments", n);
  bench_json_str(&j, "ratio_def", "materialization speed / memcpy speed of the same output, worst state");
  bench_json_num(&j, "deleted_0", worst[0]);
  bench_json_num(&j, "deleted_1pct", worst[1]);
  bench_json_num(&j, "deleted_10pct", worst[2]);
  bench_json_str(&j, "worst_state", worst_state[g]);
  if (worst[g] < 0.5) {
    char why[900];
    snprintf(why, sizeof why, "worst in '%s': %s", worst_state[g],
             g == 1 ? "with 1% deleted rows the deletions are array containers (about 655 values in each 65,536 "
                      "rows), and each deleted row is one read-modify-write after the chunk is written, about 1 ns: "
                      "10^6 deleted rows cost about as long as the memcpy of the whole output, so the ratio sits "
                      "near 0.5 and the run's noise decides. Interleaving copy and clears by 1 KiB blocks, to hide "
                      "the clears under the copy's wait on memory, measured slower here; what would reach it is "
                      "keeping the deletions of a dense enough fragment as a bitset (one AND NOT per 128 rows, as "
                      "at 10%)"
             : g == 2 ? "with 10% deleted rows the pass reads two inputs of the output's size (the state's and the "
                        "deletions' bitsets, each container its own allocation) where memcpy reads one, and waits "
                        "on memory; the next chunk is prefetched 2 KiB ahead"
                      : "the chunks are written one container at a time, each fragment a call of its own");
    bench_json_str(&j, "reason", why);
  }
  bench_target_end(&j);
  if (!ok) fprintf(stderr, "materialize: the output disagrees with FA-EXPR-5 at some row\n");
  return ok ? 0 : 1;
}
