/* op_costs.c: assignment bytes written per commit, every operation, by the
 * real writer (spec/B-cost-model.md §3, the "measured" column).
 *
 * A dataset of K fragments of 4 rows (1,000 by default) with two tracked
 * fields: f (90% of fragments all_assigned, 10% partial) and g (all
 * assigned everywhere), written by the reference writer (lfa/history.h).
 * Then one commit of each operation, in order, each on the head; for each,
 * the bytes and objects the commit added under _field_assignments/ (objects
 * are never overwritten, so that is exactly what it wrote), and what
 * upstream's first iteration would write: the same plus every tracked root
 * our writer reused although the set of fragment ids changed.
 *
 *   op_costs [--smoke] [--fragments N]
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include "bench_util.h"

#include <ftw.h>
#include <sys/stat.h>

#include "lfa/dataset.h"
#include "lfa/history.h"

enum { ROWS = 4, PARTIAL_EVERY = 10 };

static uint64_t tree_bytes, tree_files;
static int add_file(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)path, (void)ftw;
  if (flag == FTW_F) tree_bytes += (uint64_t)st->st_size, tree_files++;
  return 0;
}

static void tree_size(const char *dir, uint64_t *bytes, uint64_t *files) {
  char fa[512];
  snprintf(fa, sizeof fa, "%s/_field_assignments", dir);
  tree_bytes = 0, tree_files = 0;
  nftw(fa, add_file, 16, FTW_PHYS);
  *bytes = tree_bytes, *files = tree_files;
}

static void check(lfa_status st, const lfa_error *err, const char *what) {
  if (st != LFA_OK) {
    fprintf(stderr, "op_costs: %s: %s\n", what, err->msg);
    exit(2);
  }
}

/* The head version's descriptors and fragment ids, read back from disk. */
typedef struct head {
  size_t n_roots;
  char **paths;
  uint64_t *sizes;
  size_t n_ids;
  uint64_t *ids;
} head;

static void head_free(head *h) {
  for (size_t i = 0; i < h->n_roots; i++) free(h->paths[i]);
  free(h->paths), free(h->sizes), free(h->ids);
  memset(h, 0, sizeof *h);
}

static void read_head(head *out, const char *dir, uint64_t version) {
  lfa_version_list list;
  lfa_names names;
  lfa_error err = {0};
  check(lfa_dataset_versions(&list, &names, NULL, dir, &err), &err, "versions");
  const lfa_version_entry *e = NULL;
  for (size_t i = 0; i < list.count; i++)
    if (list.entries[i].version == version) e = &list.entries[i];
  lfa_snapshot snap;
  if (e == NULL) exit(2);
  check(lfa_snapshot_open(&snap, dir, e, NULL, &err), &err, "open");
  const Lance__Table__Manifest *m = snap.file.manifest;
  out->n_roots = m->n_field_assignment_states;
  out->paths = calloc(out->n_roots + 1, sizeof *out->paths);
  out->sizes = calloc(out->n_roots + 1, sizeof *out->sizes);
  out->n_ids = m->n_fragments;
  out->ids = calloc(out->n_ids + 1, sizeof *out->ids);
  if (out->paths == NULL || out->sizes == NULL || out->ids == NULL) exit(2);
  for (size_t i = 0; i < out->n_roots; i++) {
    out->paths[i] = strdup(m->field_assignment_states[i]->root->path);
    out->sizes[i] = m->field_assignment_states[i]->root->size_bytes;
  }
  for (size_t i = 0; i < out->n_ids; i++) out->ids[i] = m->fragments[i]->id;
  lfa_snapshot_free(&snap);
  lfa_version_list_free(&list);
  lfa_fs_names_free(&names);
}

static bool same_ids(const head *a, const head *b) {
  return a->n_ids == b->n_ids && memcmp(a->ids, b->ids, a->n_ids * sizeof *a->ids) == 0;
}

/* Upstream rewrites every tracked root whenever the fragment ids change:
 * the roots our writer kept (same path) are what it writes on top. */
static uint64_t upstream_extra(const head *before, const head *after, size_t *rewritten) {
  uint64_t extra = 0;
  *rewritten = 0;
  if (same_ids(before, after)) return 0;
  for (size_t i = 0; i < after->n_roots; i++)
    for (size_t j = 0; j < before->n_roots; j++)
      if (strcmp(after->paths[i], before->paths[j]) == 0) extra += after->sizes[i], (*rewritten)++;
  return extra;
}

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"f", "string", true, LFA_UNASSIGNED},
    {"g", "string", true, LFA_UNASSIGNED},
};
static const lfa_new_field H_ASSIGNED[] = {{"h", "string", true, LFA_ASSIGNED}};
static const lfa_new_field K_UNASSIGNED[] = {{"k", "string", true, LFA_UNASSIGNED}};
static const char *ID[] = {"id"}, *F[] = {"f"}, *G[] = {"g"}, *ID_F[] = {"id", "f"};

static uint64_t key_of(size_t fragment, unsigned offset) { return (uint64_t)fragment * ROWS + offset + 1; }

int main(int argc, char **argv) {
  size_t k = 1000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--smoke") == 0) k = 60;
    else if (strcmp(argv[i], "--fragments") == 0 && i + 1 < argc) k = (size_t)strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: op_costs [--smoke] [--fragments N (>= 60)]\n");
      return 2;
    }
  }
  if (k < 60 || k > 100000) {
    fprintf(stderr, "op_costs: fragments in 60 .. 100000\n");
    return 2;
  }
  char base[] = "/tmp/lfa-op-costs-XXXXXX", dir[128];
  if (mkdtemp(base) == NULL) return 2;
  snprintf(dir, sizeof dir, "%s/ds", base);
  uint64_t n = (uint64_t)k * ROWS, m = 0, next = n + 1;
  uint64_t *keys = calloc(n + 64, sizeof *keys), *set = calloc(n + 1, sizeof *set);
  if (keys == NULL || set == NULL) return 2;
  for (uint64_t i = 0; i < n + 64; i++) keys[i] = i + 1;
  for (uint64_t i = 0; i < n; i++)
    if ((i / ROWS) % PARTIAL_EVERY != PARTIAL_EVERY - 1 || i % ROWS == 0) set[m++] = i + 1;
  lfa_history h;
  lfa_error err = {0};
  check(lfa_history_open(&h, dir, 3, &err), &err, "open");
  /* the setup: not measured */
  uint64_t compacted[10];
  for (size_t j = 0; j < 10; j++) compacted[j] = key_of(40 + j, 1);
  lfa_request setup[] = {
      {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 3, .rows = {n, keys}, .rows_per_file = ROWS,
       .fields = {1, ID}},
      {.op = LFA_OP_UPDATE, .rows = {m, set}, .fields = {1, F}, .rewrite_columns = true},
      {.op = LFA_OP_UPDATE, .rows = {n, keys}, .fields = {1, G}, .rewrite_columns = true},
      {.op = LFA_OP_DELETE, .rows = {10, compacted}}, /* fragments 40..49 lose a row each: compaction candidates */
  };
  for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) check(lfa_history_apply(&h, &setup[i], 0, &err), &err, "setup");
  /* the measured commits */
  uint64_t k_row1 = key_of(0, 1), k_partial = key_of(9, 1), k_all = key_of(5, 1), k_move = key_of(6, 2);
  uint64_t frag2[] = {key_of(2, 0), key_of(2, 1), key_of(2, 2), key_of(2, 3)}, k_overlay = key_of(29, 2);
  uint64_t appended[] = {next, next + 1, next + 2, next + 3};
  const char *inval[] = {"f"};
  struct {
    const char *name;
    lfa_request q;
  } ops[] = {
      {"compaction (Rewrite) of 10 fragments", {.op = LFA_OP_COMPACT, .rows_per_file = ROWS}},
      {"append of one fragment storing f, not g", {.op = LFA_OP_APPEND, .rows = {4, appended}, .fields = {2, ID_F}}},
      {"delete of one row", {.op = LFA_OP_DELETE, .rows = {1, &k_row1}}},
      {"delete of a whole fragment", {.op = LFA_OP_DELETE, .rows = {4, frag2}}},
      {"update REWRITE_COLUMNS of f, one row of a partial fragment",
       {.op = LFA_OP_UPDATE, .rows = {1, &k_partial}, .fields = {1, F}, .rewrite_columns = true}},
      {"invalidation-only update of f, one row", {.op = LFA_OP_UPDATE, .rows = {1, &k_all}, .invalidate = {1, inval}}},
      {"update REWRITE_ROWS of f, one row", {.op = LFA_OP_UPDATE, .rows = {1, &k_move}, .fields = {1, F}}},
      {"data replacement of f in one fragment", {.op = LFA_OP_REPLACE, .fragment_id = 19, .fields = {1, F}}},
      {"data overlay of f on one row", {.op = LFA_OP_OVERLAY, .fragment_id = 29, .rows = {1, &k_overlay}, .fields = {1, F}}},
      {"add_columns h, ASSIGNED", {.op = LFA_OP_ADD_COLUMNS, .new_fields = H_ASSIGNED, .n_new_fields = 1}},
      {"add_columns k, UNASSIGNED", {.op = LFA_OP_ADD_COLUMNS, .new_fields = K_UNASSIGNED, .n_new_fields = 1}},
      {"rename f to f2 (Project)", {.op = LFA_OP_RENAME, .field = "f", .new_name = "f2"}},
      {"cast g (Transfer to a new id)", {.op = LFA_OP_CAST, .field = "g", .new_type = "large_string"}},
      {"create_index", {.op = LFA_OP_CREATE_INDEX}},
      {"update_config", {.op = LFA_OP_UPDATE_CONFIG}},
      {"restore of the version before the compaction", {.op = LFA_OP_RESTORE, .version = 4}},
      {"update REWRITE_COLUMNS of f, one row, after the restore",
       {.op = LFA_OP_UPDATE, .rows = {1, &k_partial}, .fields = {1, F}, .rewrite_columns = true}},
  };
  bool ok = true;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    uint64_t b0, f0, b1, f1;
    head before, after;
    read_head(&before, dir, h.count);
    tree_size(dir, &b0, &f0);
    check(lfa_history_apply(&h, &ops[i].q, 0, &err), &err, ops[i].name);
    tree_size(dir, &b1, &f1);
    read_head(&after, dir, h.count);
    size_t rewritten;
    uint64_t extra = upstream_extra(&before, &after, &rewritten);
    bench_json j;
    bench_json_begin(&j, "op_costs");
    bench_json_str(&j, "op", ops[i].name);
    bench_json_u64(&j, "fragments", k);
    bench_json_u64(&j, "version", h.count);
    bench_json_u64(&j, "value", b1 - b0);
    bench_json_str(&j, "unit", "bytes");
    bench_json_u64(&j, "objects_written", f1 - f0);
    bench_json_u64(&j, "tracked_fields", after.n_roots);
    bench_json_u64(&j, "upstream_bytes", b1 - b0 + extra);
    bench_json_u64(&j, "upstream_extra_roots", rewritten);
    bench_json_num(&j, "ratio", (double)(b1 - b0) / (double)(b1 - b0 + extra ? b1 - b0 + extra : 1));
    bench_json_str(&j, "ratio_def", "ours / upstream first iteration");
    bench_json_target(&j, "none", -1, NULL);
    bench_json_end(&j);
    fprintf(stderr, "v%-3zu %-58s ours %8" PRIu64 " bytes %3" PRIu64 " objects   upstream %8" PRIu64 "\n", h.count,
            ops[i].name, b1 - b0, f1 - f0, b1 - b0 + extra);
    /* what costs nothing must cost nothing [FA-STORE-10] */
    if (ops[i].q.op == LFA_OP_CREATE_INDEX || ops[i].q.op == LFA_OP_UPDATE_CONFIG || ops[i].q.op == LFA_OP_RENAME)
      ok = ok && b1 == b0;
    head_free(&before), head_free(&after);
  }
  /* clones: a new dataset each, its version 1 the head; what it holds under
   * _field_assignments/ is what the clone wrote */
  for (int deep = 1; deep >= 0; deep--) {
    char cdir[160];
    snprintf(cdir, sizeof cdir, "%s/clone-%s", base, deep ? "deep" : "shallow");
    lfa_history c;
    check(lfa_history_clone(&c, &h, h.count, cdir, deep, 9, &err), &err, "clone");
    lfa_history_close(&c);
    uint64_t b, f;
    tree_size(cdir, &b, &f);
    const char *name = deep ? "deep clone (a new dataset)" : "shallow clone (a new dataset)";
    bench_json j;
    bench_json_begin(&j, "op_costs");
    bench_json_str(&j, "op", name);
    bench_json_u64(&j, "fragments", k);
    bench_json_u64(&j, "version", 1);
    bench_json_u64(&j, "value", b);
    bench_json_str(&j, "unit", "bytes");
    bench_json_u64(&j, "objects_written", f);
    bench_json_u64(&j, "tracked_fields", 0);
    bench_json_u64(&j, "upstream_bytes", b);
    bench_json_u64(&j, "upstream_extra_roots", 0);
    bench_json_num(&j, "ratio", 1);
    bench_json_str(&j, "ratio_def", "ours / upstream first iteration");
    bench_json_target(&j, "none", -1, NULL);
    bench_json_end(&j);
    fprintf(stderr, "     %-58s ours %8" PRIu64 " bytes %3" PRIu64 " objects\n", name, b, f);
    ok = ok && (deep || b == 0); /* [FA-CLONE-1] a shallow clone copies nothing */
  }
  lfa_history_close(&h);
  free(keys), free(set);
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  if (system(cmd) != 0) fprintf(stderr, "op_costs: could not remove %s\n", base);
  if (!ok) fprintf(stderr, "op_costs: an operation that changes no state wrote assignment objects\n");
  return ok ? 0 : 1;
}
