/* test_cleanup_oracle.c: the data-loss oracle of cleanup (spec/09-cleanup.md).
 *
 * CASES random cases, each: a history written by the reference writer
 * (either row-id mode; writes, invalidations, appends, deletes), sometimes
 * a shallow clone of one of its versions as a branch under `tree/` or as a
 * clone elsewhere named to cleanup, tags (of "main", of another branch, or
 * of no branch), orphans old and young, and sometimes the whole directory
 * moved away from where its bases name it. Then random options, a dry-run
 * plan, and a real run. Whatever happened:
 *  - the real run deleted exactly what the dry run planned, and nothing
 *    outside the dataset's `_versions/` and `_field_assignments/`
 *    [FA-CLEAN-6] (nothing at all when the plan is blocked, FA-CLEAN-3);
 *  - every version the plan keeps, of the dataset and of its branch or
 *    clone, still loads with every reader rule, and is_assigned is the
 *    same on every row of every tracked field as before [FA-CLEAN-1]
 *    [FA-CLEAN-2] [FA-CLEAN-9].
 * A failure names the case's seed, so it replays alone.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include "disk_util.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lfa/cleanup.h"
#include "lfa/fs.h"
#include "lfa/history.h"

enum { CASES = 2000, KEYS_MAX = 24, FILES_MAX = 512 };

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
static const char *ID_ONLY[] = {"id"}, *EMB_ONLY[] = {"emb"}, *BOTH[] = {"id", "emb"};

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t next(rng *r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static uint64_t below(rng *r, uint64_t n) { return next(r) % n; }

/* ---- one case's world ----------------------------------------------------------------------- */

typedef struct world {
  char base[64], dir[96], moved[104], other[160]; /* other: the branch or clone, "" without */
  bool other_is_branch, moved_away;
  uint64_t versions, next_key;
  uint64_t *keys; /* live keys */
  size_t n_keys;
} world;

/* A random non-empty subset of the live keys, at most `max`. */
static lfa_keys some_keys(uint64_t *out, size_t max, const world *w, rng *r) {
  size_t n = 0;
  for (size_t i = 0; i < w->n_keys && n < max; i++)
    if (below(r, 3) == 0) out[n++] = w->keys[i];
  if (n == 0 && w->n_keys > 0) out[n++] = w->keys[below(r, w->n_keys)];
  return (lfa_keys){n, out};
}

static void forget_keys(world *w, lfa_keys gone) {
  size_t k = 0;
  for (size_t i = 0; i < w->n_keys; i++) {
    bool deleted = false;
    for (size_t j = 0; j < gone.count && !deleted; j++) deleted = gone.keys[j] == w->keys[i];
    if (!deleted) w->keys[k++] = w->keys[i];
  }
  w->n_keys = k;
}

/* One random mutation; a refused one (say, deleting the last rows) is no version. */
static void mutate(lfa_history *h, world *w, rng *r) {
  uint64_t picked[KEYS_MAX], fresh[4];
  lfa_request q = {.op = LFA_OP_UPDATE};
  lfa_keys sel = some_keys(picked, KEYS_MAX, w, r);
  switch (below(r, 4)) {
    case 0: q.rows = sel, q.fields = (lfa_names_list){1, EMB_ONLY}, q.rewrite_columns = below(r, 2); break;
    case 1: q.rows = sel, q.invalidate = (lfa_names_list){1, EMB_ONLY}; break;
    case 2:
      for (size_t i = 0; i < 4; i++) fresh[i] = w->next_key++;
      q.op = LFA_OP_APPEND, q.rows = (lfa_keys){1 + below(r, 4), fresh};
      q.fields = below(r, 2) ? (lfa_names_list){2, BOTH} : (lfa_names_list){1, ID_ONLY};
      break;
    default: q.op = LFA_OP_DELETE, q.rows = sel; break;
  }
  lfa_error err = {0};
  if (lfa_history_apply(h, &q, 0, &err) != LFA_OK) return;
  w->versions++;
  if (q.op == LFA_OP_APPEND && w->n_keys + q.rows.count <= KEYS_MAX)
    for (size_t i = 0; i < q.rows.count; i++) w->keys[w->n_keys++] = q.rows.keys[i];
  if (q.op == LFA_OP_DELETE) forget_keys(w, sel);
}

static void build(world *w, rng *r) {
  static const uint64_t FIRST[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  lfa_history h;
  lfa_error err = {0};
  assert_ok(lfa_history_open(&h, w->dir, next(r), &err), &err);
  lfa_request create = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {12, FIRST},
                        .rows_per_file = 3, .fields = {1, ID_ONLY}, .stable_row_ids = below(r, 2)};
  assert_ok(lfa_history_apply(&h, &create, 0, &err), &err);
  w->versions = 1, w->next_key = 13, w->n_keys = 12;
  for (size_t i = 0; i < 12; i++) w->keys[i] = FIRST[i];
  for (uint64_t steps = 1 + below(r, 6); steps > 0; steps--) mutate(&h, w, r);
  if (below(r, 3) == 0) { /* a shallow clone of a random version: a branch, or a clone told to cleanup */
    w->other_is_branch = below(r, 2);
    char tree[112];
    snprintf(tree, sizeof tree, "%s/tree", w->dir);
    assert_int_equal(mkdir(tree, 0777), 0);
    if (w->other_is_branch) snprintf(w->other, sizeof w->other, "%s/b", tree);
    else snprintf(w->other, sizeof w->other, "%s/clone", w->base);
    lfa_history c;
    assert_ok(lfa_history_clone(&c, &h, 1 + below(r, w->versions), w->other, false, next(r), &err), &err);
    lfa_history_close(&c);
  }
  lfa_history_close(&h);
}

static void plant(const char *dir, const char *rel, const char *text, time_t mtime) {
  char path[512];
  lfa_error err = {0};
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  assert_ok(lfa_fs_write_new(path, (const uint8_t *)text, strlen(text), &err), &err);
  struct timespec t[2] = {{mtime, 0}, {mtime, 0}};
  assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Tags (of "main", of no branch, of another branch) and orphans. */
static void decorate(const world *w, rng *r, time_t now) {
  static const char *const BRANCH[] = {"null", "\"main\"", "\"other\""};
  char rel[96], text[96];
  for (uint64_t i = below(r, 3); i > 0; i--) {
    snprintf(rel, sizeof rel, "_refs/tags/t%" PRIu64 ".json", i);
    snprintf(text, sizeof text, "{\"version\": %" PRIu64 ", \"branch\": %s}", 1 + below(r, w->versions),
             BRANCH[below(r, 3)]);
    plant(w->dir, rel, text, now);
  }
  for (uint64_t i = below(r, 3); i > 0; i--) {
    snprintf(rel, sizeof rel, "_field_assignments/bitmaps/1/0/0000dead-0000-4000-8000-%012" PRIu64 ".rbm", i);
    plant(w->dir, rel, "orphan", now - (time_t)below(r, 20) * 86400);
  }
}

/* ---- what is on disk ------------------------------------------------------------------------ */

typedef struct listing {
  size_t count, skip; /* skip: the length of the root's path and its '/' */
  char *files[FILES_MAX];
} listing;

static listing *walking; /* nftw takes no context: the listing being filled, one walk at a time */

static int collect(const char *path, const struct stat *s, int type, struct FTW *f) {
  (void)f;
  if (type != FTW_F || !S_ISREG(s->st_mode)) return 0;
  if (walking->count == FILES_MAX) return 1;
  walking->files[walking->count++] = strdup(path + walking->skip);
  return 0;
}

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list_files(listing *out, const char *dir) {
  out->count = 0, out->skip = strlen(dir) + 1;
  walking = out;
  assert_int_equal(nftw(dir, collect, 16, FTW_PHYS), 0);
  walking = NULL;
  qsort(out->files, out->count, sizeof *out->files, by_text);
}

static void listing_free(listing *l) {
  for (size_t i = 0; i < l->count; i++) free(l->files[i]);
  l->count = 0;
}

static bool listed(const listing *l, const char *rel) {
  return bsearch(&rel, l->files, l->count, sizeof *l->files, by_text) != NULL;
}

static int remove_one(const char *path, const struct stat *s, int type, struct FTW *f) {
  (void)s, (void)type, (void)f;
  return remove(path);
}

/* is_assigned of every row of every tracked field, as one number; 0 when
 * the version does not load. */
static bool mix(uint32_t value, void *h) {
  *(uint64_t *)h = (*(uint64_t *)h ^ value) * 1099511628211u;
  return true;
}

static uint64_t state_of(const char *dir, uint64_t version) {
  lfa_snapshot s;
  lfa_error err = {0};
  lfa_snapshot_options opt = {.version = version, .load_fields = true};
  if (lfa_snapshot_open(&s, dir, NULL, &opt, &err) != LFA_OK) return 0;
  uint64_t h = 1469598103934665603u;
  for (size_t t = 0; t < s.n_tracked; t++) {
    mix((uint32_t)s.tracked[t].field_id, &h);
    for (size_t k = 0; k < s.tracked[t].count; k++) {
      const lfa_fragment_assignment *a = &s.tracked[t].fragments[k];
      mix((uint32_t)a->fragment_id, &h), mix(a->all ? 0xA11u : 0x9A27u, &h);
      if (!a->all) roaring_iterate(a->rows, mix, &h);
    }
  }
  lfa_snapshot_free(&s);
  return h | 1;
}

/* ---- one case ---------------------------------------------------------------------------------- */

static lfa_cleanup_options random_options(const world *w, rng *r, time_t now, uint64_t *keep) {
  static const uint64_t GRACE[] = {0, 86400, 30 * 86400};
  lfa_cleanup_options o = {.now = (int64_t)now, .grace_seconds = GRACE[below(r, 3)], .keep = keep};
  o.has_keep_from = below(r, 4) != 0, o.keep_from = 1 + below(r, w->versions);
  if (below(r, 3) == 0) keep[o.n_keep++] = 1 + below(r, w->versions);
  return o;
}

/* The files the plan deletes, relative to the dataset directory. */
static void planned_deletions(listing *out, const lfa_cleanup_plan *pl) {
  out->count = 0;
  for (size_t i = 0; i < pl->n_versions; i++)
    if (pl->versions[i].keep == LFA_CLEANUP_REMOVED) out->files[out->count++] = strdup(pl->versions[i].file);
  for (size_t i = 0; i < pl->n_objects; i++)
    if (lfa_cleanup_deletes(pl->objects[i].verdict)) out->files[out->count++] = strdup(pl->objects[i].path);
  qsort(out->files, out->count, sizeof *out->files, by_text);
}

static void expect_same_files(const listing *want, const listing *got, uint64_t seed, const char *what) {
  bool same = want->count == got->count;
  for (size_t i = 0; same && i < want->count; i++) same = strcmp(want->files[i], got->files[i]) == 0;
  if (!same) fail_msg("seed %" PRIu64 ": %s: %zu planned, %zu done (first planned %s, first done %s)", seed, what,
                      want->count, got->count, want->count ? want->files[0] : "-", got->count ? got->files[0] : "-");
}

/* Plans twice (the dry run, then the run), executes the second: returns
 * the dry run's plan; *deleted: what disappeared from the dataset. */
static void clean(lfa_cleanup_plan *dry, listing *deleted, const world *w, const lfa_cleanup_options *o, uint64_t seed) {
  const char *at = w->moved_away ? w->moved : w->dir;
  const char *given[] = {w->other};
  lfa_cleanup_options opts = *o;
  if (w->other[0] != '\0' && !w->other_is_branch) opts.datasets = given, opts.n_datasets = 1;
  listing before, after;
  lfa_cleanup_plan pl;
  lfa_cleanup_done done;
  lfa_error err = {0};
  list_files(&before, at);
  if (lfa_cleanup_plan_make(dry, at, &opts, &err) != LFA_OK) fail_msg("seed %" PRIu64 ": dry run: %s", seed, err.msg);
  if (lfa_cleanup_plan_make(&pl, at, &opts, &err) != LFA_OK) fail_msg("seed %" PRIu64 ": plan: %s", seed, err.msg);
  if (lfa_cleanup_execute(&done, &pl, &err) != LFA_OK) fail_msg("seed %" PRIu64 ": run: %s", seed, err.msg);
  list_files(&after, at);
  deleted->count = 0;
  for (size_t i = 0; i < before.count; i++)
    if (!listed(&after, before.files[i])) deleted->files[deleted->count++] = strdup(before.files[i]);
  listing_free(&before), listing_free(&after);
  lfa_cleanup_plan_free(&pl);
}

/* How many cases did what, so that a run shows it exercised something. */
typedef struct tally {
  size_t deleting, blocked, moved, branches, clones;
} tally;

static void one_case(tally *t, uint64_t seed, time_t now) {
  rng r = {seed};
  uint64_t keys[KEYS_MAX], keep[1], before[64] = {0}, other_before = 0;
  world w = {.keys = keys};
  /* a memory file system when there is one: 2,000 datasets are written and removed */
  snprintf(w.base, sizeof w.base, "%s/lfa-oracle-XXXXXX", lfa_fs_is_dir("/dev/shm") ? "/dev/shm" : "/tmp");
  assert_non_null(mkdtemp(w.base));
  snprintf(w.dir, sizeof w.dir, "%s/ds", w.base), snprintf(w.moved, sizeof w.moved, "%s/moved", w.base);
  build(&w, &r);
  decorate(&w, &r, now);
  for (uint64_t v = 1; v <= w.versions; v++) before[v] = state_of(w.dir, v);
  if (w.other[0] != '\0') other_before = state_of(w.other, 1);
  lfa_cleanup_options o = random_options(&w, &r, now, keep);
  if ((w.moved_away = below(&r, 8) == 0)) assert_int_equal(rename(w.dir, w.moved), 0);
  lfa_cleanup_plan dry;
  listing planned, deleted;
  clean(&dry, &deleted, &w, &o, seed);
  if (w.moved_away) assert_int_equal(rename(w.moved, w.dir), 0);
  planned_deletions(&planned, &dry);
  expect_same_files(&planned, &deleted, seed, "the dry run and the run");
  if (dry.blocked && deleted.count > 0) fail_msg("seed %" PRIu64 ": a blocked plan deleted %s", seed, deleted.files[0]);
  t->deleting += deleted.count > 0, t->blocked += dry.blocked, t->moved += w.moved_away;
  t->branches += w.other[0] && w.other_is_branch, t->clones += w.other[0] && !w.other_is_branch;
  for (size_t i = 0; i < dry.n_versions; i++) {
    uint64_t v = dry.versions[i].version;
    if (dry.versions[i].keep != LFA_CLEANUP_REMOVED && state_of(w.dir, v) != before[v])
      fail_msg("seed %" PRIu64 ": kept version %" PRIu64 " reads differently after cleanup", seed, v);
  }
  if (w.other[0] != '\0' && state_of(w.other, 1) != other_before)
    fail_msg("seed %" PRIu64 ": %s reads differently after cleanup", seed, w.other);
  listing_free(&planned), listing_free(&deleted);
  lfa_cleanup_plan_free(&dry);
  assert_int_equal(nftw(w.base, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void test_FA_CLEAN_1_random_cleanups_lose_nothing(void **state) {
  (void)state;
  time_t now = time(NULL);
  clock_t t0 = clock();
  tally t = {0};
  for (uint64_t seed = 1; seed <= CASES; seed++) one_case(&t, seed, now);
  printf("%d random cleanup cases in %.1f s of CPU: %zu deleted files, %zu blocked; %zu with a branch, %zu with a "
         "clone, %zu moved\n",
         CASES, (double)(clock() - t0) / CLOCKS_PER_SEC, t.deleting, t.blocked, t.branches, t.clones, t.moved);
  assert_true(t.deleting > CASES / 4 && t.blocked > 0); /* the cases reach both outcomes */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_CLEAN_1_random_cleanups_lose_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
