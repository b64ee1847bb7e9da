/* cache_budget.c: `lfa verify` keeps its object cache within a byte budget
 * however long the history (lfa/objects.h, LFA_OBJECT_CACHE_BYTES_MAX).
 *
 * It writes a history with the reference writer, keeping only the head in
 * memory: one fragment of ROWS rows and one tracked field, created with
 * emb written on every row, then emb invalidated on row 0 (one partial
 * bitmap of every row but one: about ROWS / 8 bytes), then VERSIONS - 2
 * more commits:
 *   --shared    each updates the untracked `id` of one row: every version
 *               references the one large bitmap (FA-STORE-11);
 *   --distinct  each invalidates emb on one row more: every version has a
 *               large bitmap of its own.
 * Then it verifies the history in process (default mode, the given cache
 * budget) and prints what the cache held at its peak, what it dropped, and
 * the findings; with --keep it leaves the dataset for an outside
 * measurement (`/usr/bin/time -v lfa verify DIR`, scripts/bench.sh).
 *
 *   cache_budget [--rows N] [--versions N] [--shared | --distinct] [--budget BYTES] [--keep] [--smoke]
 *
 * --smoke (ctest): 2^17 rows, 24 distinct versions, a budget of 4 bitmaps:
 * exits 1 unless the run dropped objects, held at most the budget plus
 * three bitmaps (two versions in use and one in flight), and found no
 * error. */
#include "bench_util.h"

#include "lfa/commit.h"
#include "lfa/limits.h"
#include "lfa/mutate.h"
#include "lfa/verify.h"
#include "lfa/writer.h"

typedef struct args {
  uint64_t rows, versions, budget;
  bool shared, keep, smoke;
} args;

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_ASSIGNED},
};
static const char *ID[] = {"id"}, *EMB[] = {"emb"}, *BOTH[] = {"id", "emb"};

static bool parse(args *a, int argc, char **argv) {
  *a = (args){1u << 20, 300, 0, true, false, false};
  for (int i = 1; i < argc; i++) {
    uint64_t *slot = strcmp(argv[i], "--rows") == 0       ? &a->rows
                     : strcmp(argv[i], "--versions") == 0 ? &a->versions
                     : strcmp(argv[i], "--budget") == 0   ? &a->budget
                                                          : NULL;
    if (slot != NULL && i + 1 < argc) *slot = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--shared") == 0) a->shared = true;
    else if (strcmp(argv[i], "--distinct") == 0) a->shared = false;
    else if (strcmp(argv[i], "--keep") == 0) a->keep = true;
    else if (strcmp(argv[i], "--smoke") == 0) a->smoke = true;
    else return false;
  }
  if (a->smoke) a->rows = 1u << 17, a->versions = 24, a->shared = false;
  /* every distinct commit invalidates a row still assigned, and one stays */
  return a->rows >= 4 && a->rows <= (1u << 27) && a->versions >= 2 && (a->shared || a->versions < a->rows);
}

/* One commit of `req` onto *head (NULL before the first), written; *head
 * becomes the new version. */
static lfa_status commit(lfa_table **head, lfa_table *slots, lfa_writer *w, lfa_request *req, uint64_t version,
                         lfa_error *err) {
  lfa_change change;
  lfa_table *next = *head == &slots[0] ? &slots[1] : &slots[0];
  req->new_version = version;
  lfa_status st = lfa_mutate(&change, *head, req, err);
  if (st != LFA_OK) return st;
  st = lfa_commit(next, *head, &change, NULL, err);
  if (st == LFA_OK) st = lfa_writer_commit(w, next, change.txn, err);
  lfa_change_free(&change);
  if (st != LFA_OK) return st;
  if (*head != NULL) lfa_table_free(*head);
  *head = next;
  return LFA_OK;
}

static lfa_status generate(const char *dir, const args *a, lfa_error *err) {
  uint64_t *keys = malloc((size_t)a->rows * sizeof *keys);
  lfa_writer *w = NULL;
  lfa_table slots[2], *head = NULL;
  if (keys == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (uint64_t k = 0; k < a->rows; k++) keys[k] = k + 1; /* key k + 1 at offset k */
  lfa_status st = lfa_writer_open(&w, dir, 42, err);
  lfa_request create = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {(size_t)a->rows, keys},
                        .rows_per_file = a->rows, .fields = {2, BOTH}};
  if (st == LFA_OK) st = commit(&head, slots, w, &create, 1, err);
  for (uint64_t v = 2; st == LFA_OK && v <= a->versions; v++) {
    uint64_t key = a->shared ? 1 : v - 1; /* offset 0, then (distinct) 1, 2, ... */
    lfa_request invalidate = {.op = LFA_OP_UPDATE, .rows = {1, &key}, .invalidate = {1, EMB}, .rewrite_columns = true};
    lfa_request touch = {.op = LFA_OP_UPDATE, .rows = {1, &key}, .fields = {1, ID}, .rewrite_columns = true};
    st = commit(&head, slots, w, v == 2 || !a->shared ? &invalidate : &touch, v, err);
  }
  if (head != NULL) lfa_table_free(head);
  lfa_writer_close(w);
  free(keys);
  return st;
}

static int run(const char *dir, const args *a) {
  lfa_error err = {0};
  double t0 = bench_now();
  if (generate(dir, a, &err) != LFA_OK) {
    fprintf(stderr, "cache_budget: generating %s: %s\n", dir, err.msg);
    return 2;
  }
  double gen = bench_now() - t0;
  uint64_t bitmap = a->rows / 8 + a->rows / 65536 * 8 + 64; /* the large bitmap: bitset containers, and headers */
  uint64_t budget = a->smoke ? 4 * bitmap : a->budget;
  lfa_verify_options o = {.cache_bytes = budget};
  lfa_verify_result r;
  t0 = bench_now();
  if (lfa_verify_dataset(&r, dir, &o, &err) != LFA_OK) {
    fprintf(stderr, "cache_budget: verifying %s: %s\n", dir, err.msg);
    lfa_verify_result_free(&r);
    return 2;
  }
  double secs = bench_now() - t0;
  size_t errors = lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR);
  uint64_t used = budget ? budget : (uint64_t)LFA_OBJECT_CACHE_BYTES_MAX; /* 0: the default */
  uint64_t bound = used + 3 * (bitmap + bitmap / 4);
  bench_json j;
  bench_json_begin(&j, "cache_budget");
  bench_json_str(&j, "mode", a->shared ? "shared" : "distinct");
  bench_json_u64(&j, "rows", a->rows);
  bench_json_u64(&j, "versions", r.versions_checked);
  bench_json_u64(&j, "budget", used);
  bench_json_u64(&j, "peak_bytes", r.cache.peak_bytes);
  bench_json_u64(&j, "evicted", r.cache.evicted);
  bench_json_u64(&j, "decoded", r.objects_decoded);
  bench_json_u64(&j, "reused", r.objects_reused);
  bench_json_u64(&j, "errors", errors);
  bench_json_fixed(&j, "generate_s", gen, 2);
  bench_json_fixed(&j, "verify_s", secs, 2);
  bench_json_u64(&j, "value", r.cache.peak_bytes);
  bench_json_str(&j, "unit", "bytes");
  bench_json_target(&j, "none", -1, NULL);
  bench_json_end(&j);
  bool held = r.cache.evicted > 0 && r.cache.peak_bytes <= bound && errors == 0;
  if (a->smoke && !held)
    fprintf(stderr, "cache_budget: peak %" PRIu64 " bytes (bound %" PRIu64 "), %" PRIu64 " dropped, %zu errors\n",
            r.cache.peak_bytes, bound, r.cache.evicted, errors);
  lfa_verify_result_free(&r);
  return a->smoke && !held ? 1 : 0;
}

int main(int argc, char **argv) {
  args a;
  if (!parse(&a, argc, argv)) {
    fprintf(stderr, "usage: cache_budget [--rows N (4..2^27)] [--versions N] [--shared | --distinct] "
                    "[--budget BYTES] [--keep] [--smoke]\n");
    return 2;
  }
  char base[4096], dir[4160];
  if (!bench_scratch(base, sizeof base, "cache_budget")) return 2;
  snprintf(dir, sizeof dir, "%s/dataset", base);
  int rc = run(dir, &a);
  if (a.keep) fprintf(stderr, "kept: %s\n", dir);
  else bench_scratch_remove(base, "cache_budget");
  return rc;
}
