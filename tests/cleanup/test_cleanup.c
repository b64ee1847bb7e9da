/* test_cleanup.c: the cleanup planner and executor (lfa/cleanup.h,
 * spec/09-cleanup.md) on histories the reference writer puts on disk, with
 * what the writer cannot make done by hand: a failed attempt's objects, an
 * unreadable root, a branch or clone whose own root reuses its source's
 * bitmaps, files outside `_field_assignments/`. Each expectation is derived
 * by hand from the history in the comment beside it; object paths come
 * from the reader (lfa/dataset.h), never from the planner. File ages are
 * set with utimensat, never waited for.
 * Requirement ids: FA-CLEAN-1, FA-CLEAN-2, FA-CLEAN-3, FA-CLEAN-4,
 * FA-CLEAN-5, FA-CLEAN-6, FA-CLEAN-7, FA-CLEAN-8, FA-CLEAN-9, FA-CLEAN-10. */
#define _XOPEN_SOURCE 700 /* mkdtemp, realpath, symlink, utimensat */
#include "disk_util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lfa/cleanup.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/manifest.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/verify.h"

#define KEYS(...) ((lfa_keys){sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (const uint64_t[]){__VA_ARGS__}})
#define DAY 86400

static const uint64_t K1_12[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
static const lfa_new_field UNTRACKED[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNTRACKED},
};
static const char *ID_ONLY[] = {"id"}, *EMB_ONLY[] = {"emb"};

/* ---- scratch directories ------------------------------------------------------------------ */

typedef struct scratch {
  char base[64]; /* the mkdtemp directory, removed at the end */
  char p[96];    /* the dataset cleaned */
  char clone[96], other[96], branch[128];
} scratch;

static void scratch_make(scratch *s) {
  strcpy(s->base, "/tmp/lfa-clean-XXXXXX");
  assert_non_null(mkdtemp(s->base));
  snprintf(s->p, sizeof s->p, "%s/p", s->base);
  snprintf(s->clone, sizeof s->clone, "%s/clone", s->base);
  snprintf(s->other, sizeof s->other, "%s/other", s->base);
  snprintf(s->branch, sizeof s->branch, "%s/tree/feature", s->p);
}

__attribute__((format(printf, 1, 2))) static int run(const char *fmt, ...) {
  char cmd[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  return system(cmd);
}

static void scratch_remove(const scratch *s) { assert_int_equal(run("rm -rf '%s'", s->base), 0); }

static void join(char *out, size_t cap, const char *dir, const char *rel) {
  if ((size_t)snprintf(out, cap, "%s/%s", dir, rel) >= cap) fail_msg("path too long: %s/%s", dir, rel);
}

static bool exists(const char *dir, const char *rel) {
  char path[512];
  struct stat st;
  join(path, sizeof path, dir, rel);
  return lstat(path, &st) == 0;
}

static void set_mtime(const char *dir, const char *rel, int64_t t) {
  char path[512];
  join(path, sizeof path, dir, rel);
  struct timespec times[2] = {{(time_t)t, 0}, {(time_t)t, 0}};
  if (utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) != 0) fail_msg("utimensat %s", path);
}

/* A file with these bytes (parents created) and this modification time. */
static void plant(const char *dir, const char *rel, const void *bytes, size_t len, int64_t mtime) {
  char path[512];
  lfa_error err = {0};
  join(path, sizeof path, dir, rel);
  assert_ok(lfa_fs_write_new(path, bytes, len, &err), &err);
  set_mtime(dir, rel, mtime);
}

/* Replaces a file's bytes in place (a corruption: never what a writer does). */
static void overwrite(const char *dir, const char *rel, const char *bytes) {
  char path[512];
  join(path, sizeof path, dir, rel);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, strlen(bytes), f), strlen(bytes));
  assert_int_equal(fclose(f), 0);
}

static uint8_t *read_rel(const char *dir, const char *rel, size_t *len) {
  char path[512];
  join(path, sizeof path, dir, rel);
  return tu_read_file(path, len);
}

/* Regular files under dir/sub, counted by find(1), not by the planner. */
static int count_files(const char *dir, const char *sub) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "find '%s/%s' -type f | wc -l", dir, sub);
  FILE *f = popen(cmd, "r");
  int n = -1;
  assert_non_null(f);
  assert_int_equal(fscanf(f, "%d", &n), 1);
  pclose(f);
  return n;
}

/* ---- the history every test starts from -------------------------------------------------------- */

/* Keys 1..12 in fragments 0..3 of 3 rows each (key k at fragment (k-1)/3,
 * offset (k-1)%3); `emb` is the one tracked field:
 *   v1 create, nothing assigned: the 0-byte root R1
 *   v2 write emb on keys 1, 2, 5: fragment 0 {0, 1} (bitmap Ba), fragment 1 {1} (Bb); root R2
 *   v3 invalidate key 5: fragment 1 has nothing left; root R3 lists Ba only
 *   v4 write emb on key 12: fragment 3 {2} (Bc); root R4 lists Ba and Bc
 * So under `_field_assignments/` there are 7 objects: R1..R4, Ba, Bb, Bc. */
static void build_open(lfa_history *h, const char *dir) {
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, dir, 5, &err), &err);
  lfa_request create = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {12, K1_12},
                        .rows_per_file = 3, .fields = {1, ID_ONLY}};
  lfa_request write = {.op = LFA_OP_UPDATE, .rows = KEYS(1, 2, 5), .fields = {1, EMB_ONLY}, .rewrite_columns = true};
  lfa_request inval = {.op = LFA_OP_UPDATE, .rows = KEYS(5), .invalidate = {1, EMB_ONLY}};
  lfa_request later = {.op = LFA_OP_UPDATE, .rows = KEYS(12), .fields = {1, EMB_ONLY}, .rewrite_columns = true};
  const lfa_request *steps[] = {&create, &write, &inval, &later};
  for (size_t i = 0; i < 4; i++)
    if (lfa_history_apply(h, steps[i], 0, &err) != LFA_OK) fail_msg("step %zu: %s", i + 1, err.msg);
}

static void build(const char *dir) {
  lfa_history h;
  build_open(&h, dir);
  lfa_history_close(&h);
}

typedef struct objs {
  int32_t field_id;
  char r[5][160]; /* r[v]: version v's root, as its descriptor names it */
  char ba[160], bb[160], bc[160];
} objs;

/* The path of fragment `frag`'s partial in version v's root, or "". */
static void partial_of(char *out, size_t cap, const lfa_snapshot *s, uint64_t frag) {
  out[0] = '\0';
  const lfa_root *root = s->tracked[0].root;
  for (size_t k = 0; k < root->n_fragments; k++)
    if (root->fragments[k]->fragment_id == frag &&
        root->fragments[k]->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL)
      snprintf(out, cap, "%s", root->fragments[k]->partial->path);
}

/* The objects of build()'s history, read back; and the sharing the
 * derivations rely on (Ba reused by v3 and v4, FA-STORE-11). */
static void learn(objs *o, const char *dir) {
  char p[160];
  for (uint64_t v = 1; v <= 4; v++) {
    lfa_snapshot s;
    load_version(&s, dir, v);
    assert_int_equal(s.n_tracked, 1);
    o->field_id = s.tracked[0].field_id;
    snprintf(o->r[v], sizeof o->r[v], "%s", s.tracked[0].root_file->path);
    if (v == 2) partial_of(o->ba, sizeof o->ba, &s, 0), partial_of(o->bb, sizeof o->bb, &s, 1);
    if (v == 4) partial_of(o->bc, sizeof o->bc, &s, 3);
    if (v >= 3) partial_of(p, sizeof p, &s, 0), assert_string_equal(p, o->ba);
    if (v == 3) partial_of(p, sizeof p, &s, 1), assert_string_equal(p, "");
    lfa_snapshot_free(&s);
  }
  assert_true(o->bb[0] != '\0' && o->bc[0] != '\0');
  for (int v = 1; v <= 4; v++)
    for (int w = 1; w < v; w++) assert_string_not_equal(o->r[v], o->r[w]);
}

/* ---- planning ------------------------------------------------------------------------------------ */

static lfa_cleanup_options options(int64_t now, uint64_t grace) {
  return (lfa_cleanup_options){.now = now, .grace_seconds = grace};
}

static void plan_ok(lfa_cleanup_plan *pl, const char *dir, const lfa_cleanup_options *o) {
  lfa_error err = {0};
  if (lfa_cleanup_plan_make(pl, dir, o, &err) != LFA_OK) fail_msg("plan of %s: %s", dir, err.msg);
}

static const lfa_cleanup_object *object(const lfa_cleanup_plan *pl, const char *rel) {
  for (size_t i = 0; i < pl->n_objects; i++)
    if (strcmp(pl->objects[i].path, rel) == 0) return &pl->objects[i];
  fail_msg("the plan lists no object %s", rel);
  return NULL;
}

static void expect(const lfa_cleanup_plan *pl, const char *rel, lfa_cleanup_verdict want) {
  const lfa_cleanup_object *o = object(pl, rel);
  if (o->verdict != want)
    fail_msg("%s: %s, expected %s", rel, lfa_cleanup_verdict_name(o->verdict), lfa_cleanup_verdict_name(want));
}

static void expect_ref(const lfa_cleanup_plan *pl, const char *rel, size_t dataset, uint64_t version) {
  const lfa_cleanup_object *o = object(pl, rel);
  assert_true(o->has_ref);
  assert_int_equal(o->ref_dataset, dataset);
  assert_int_equal(o->ref_version, version);
}

static void expect_keep(const lfa_cleanup_plan *pl, uint64_t version, lfa_cleanup_keep want) {
  for (size_t i = 0; i < pl->n_versions; i++)
    if (pl->versions[i].version == version) {
      if (pl->versions[i].keep != want)
        fail_msg("version %" PRIu64 ": %s, expected %s", version, lfa_cleanup_keep_name(pl->versions[i].keep),
                 lfa_cleanup_keep_name(want));
      return;
    }
  fail_msg("the plan lists no version %" PRIu64, version);
}

static size_t notes_with(const lfa_cleanup_plan *pl, const char *rule) {
  size_t n = 0;
  for (size_t i = 0; i < pl->n_notes; i++) n += strcmp(pl->notes[i].rule, rule) == 0;
  return n;
}

static const lfa_cleanup_note *note_with(const lfa_cleanup_plan *pl, const char *rule) {
  for (size_t i = 0; i < pl->n_notes; i++)
    if (strcmp(pl->notes[i].rule, rule) == 0) return &pl->notes[i];
  fail_msg("no %s note", rule);
  return NULL;
}

static lfa_cleanup_done execute(const lfa_cleanup_plan *pl) {
  lfa_cleanup_done done;
  lfa_error err = {0};
  assert_ok(lfa_cleanup_execute(&done, pl, &err), &err);
  return done;
}

/* ---- clones and branches made by hand ------------------------------------------------------------ */

/* A shallow clone of version `version` of h at `dir` (its version 1), by
 * the reference writer: every descriptor names the source through base 1. */
static void shallow_clone(const lfa_history *h, uint64_t version, const char *dir) {
  lfa_history c;
  lfa_error err = {0};
  assert_ok(lfa_history_clone(&c, h, version, dir, false, 11, &err), &err);
  lfa_history_close(&c);
  lfa_snapshot s;
  load_version(&s, dir, 1);
  assert_int_equal(s.file.manifest->n_base_paths, 1);
  assert_int_equal(s.file.manifest->base_paths[0]->id, 1);
  assert_true(s.tracked[0].root_file->has_base_id && s.tracked[0].root_file->base_id == 1);
  lfa_snapshot_free(&s);
}

/* Writes version `to` of the dataset at `dir` as its writer would: version
 * `from`'s manifest and inline transaction with the number changed and,
 * when `root` is given, the descriptor's root replaced; when `base` is
 * given, base_paths is {1: base, a dataset root}. (The reference writer
 * takes no commit after a clone: FA-CLONE-4 is not implemented.) */
static void write_version_based(const char *dir, uint64_t from, uint64_t to, AssignmentFile *root, char *base) {
  char rel[64];
  size_t len;
  lfa_manifest_file mf;
  lfa_error err = {0};
  lfa_buf out = {0};
  snprintf(rel, sizeof rel, "_versions/%" PRIu64 ".manifest", from);
  uint8_t *bytes = read_rel(dir, rel, &len);
  assert_ok(lfa_manifest_file_decode(&mf, bytes, len, &err), &err);
  Lance__Table__FieldAssignmentState *d = mf.manifest->field_assignment_states[0];
  AssignmentFile *own = d->root;
  Lance__Table__BasePath b = LANCE__TABLE__BASE_PATH__INIT, *bases[] = {&b}, **own_bases = mf.manifest->base_paths;
  size_t n_own_bases = mf.manifest->n_base_paths;
  b.id = 1, b.is_dataset_root = true, b.path = base;
  mf.manifest->version = to;
  if (root != NULL) d->root = root;
  if (base != NULL) mf.manifest->base_paths = bases, mf.manifest->n_base_paths = 1;
  assert_ok(lfa_manifest_file_encode(&out, mf.manifest, mf.transaction, &err), &err);
  d->root = own; /* the decoded manifest frees its own */
  mf.manifest->base_paths = own_bases, mf.manifest->n_base_paths = n_own_bases;
  snprintf(rel, sizeof rel, "_versions/%" PRIu64 ".manifest", to);
  plant(dir, rel, out.data, out.len, (int64_t)time(NULL));
  lfa_buf_free(&out);
  lfa_manifest_file_free(&mf);
  free(bytes);
}

static void write_version(const char *dir, uint64_t from, uint64_t to, AssignmentFile *root) {
  write_version_based(dir, from, to, root, NULL);
}

/* A root written in the clone at `dir`, at `rel`: the entries of the
 * source's root `src_rel` (in `src`), each partial naming the source
 * through base 1 explicitly, as a local root reusing them must
 * [FA-STORE-12]. *out describes it (no base_id: it is the clone's own). */
static void write_local_root(AssignmentFile *out, char *rel, size_t cap, const char *dir, const char *src,
                             const char *src_rel, int32_t field_id) {
  size_t len, partials = 0;
  lfa_root *root;
  lfa_buf buf = {0};
  lfa_error err = {0};
  uint8_t *bytes = read_rel(src, src_rel, &len);
  assert_ok(lfa_root_decode(&root, bytes, len, &err), &err);
  for (size_t k = 0; k < root->n_fragments; k++)
    if (root->fragments[k]->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL) {
      root->fragments[k]->partial->has_base_id = 1, root->fragments[k]->partial->base_id = 1;
      partials++;
    }
  assert_true(partials > 0);
  assert_ok(lfa_root_encode(&buf, root, &err), &err);
  snprintf(rel, cap, "_field_assignments/roots/%d/0000c1ea-0000-4000-8000-000000000001.root", field_id);
  plant(dir, rel, buf.data, buf.len, (int64_t)time(NULL));
  lance__table__field_assignment_file__init(out);
  out->path = rel;
  out->size_bytes = buf.len, out->has_size_bytes = buf.len != 0;
  lfa_buf_free(&buf);
  lfa_root_free(root);
  free(bytes);
}

/* A file that is not a root is not one of the history's objects. */
#define ORPHAN_ROOT "_field_assignments/roots/%d/0000dead-0000-4000-8000-000000000001.root"
#define ORPHAN_BITMAP "_field_assignments/bitmaps/%d/3/0000dead-0000-4000-8000-000000000002.rbm"

/* ---- FA-CLEAN-1: kept versions keep what they reach ------------------------------------------------- */

/* keep_from 3 keeps versions 3 (retained) and 4 (latest), removes 1 and 2.
 * Kept reach: R3, R4, Ba (v3, v4), Bc (v4): kept [FA-CLEAN-1]. Only
 * removed versions reach R1 (v1), R2 and Bb (v2): deleted at once, young
 * as they are [FA-CLEAN-5]. 7 objects, 3 deleted: R1 (0 bytes), R2, Bb. */
static void test_FA_CLEAN_1_kept_versions_keep_what_they_reach(void **state) {
  (void)state;
  scratch s;
  objs o;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 3;
  lfa_cleanup_plan pl;
  plan_ok(&pl, s.p, &opt);
  expect_keep(&pl, 1, LFA_CLEANUP_REMOVED);
  expect_keep(&pl, 2, LFA_CLEANUP_REMOVED);
  expect_keep(&pl, 3, LFA_CLEANUP_RETAINED);
  expect_keep(&pl, 4, LFA_CLEANUP_LATEST);
  assert_int_equal(pl.n_objects, 7);
  expect(&pl, o.r[1], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[2], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.bb, LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[3], LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.r[4], LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.ba, LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.bc, LFA_CLEANUP_KEEP_REACHABLE);
  expect_ref(&pl, o.ba, 0, 3); /* the first kept version that lists it */
  expect_ref(&pl, o.bb, 0, 2);
  assert_false(pl.blocked);
  assert_int_equal(pl.n_notes, 0);
  uint64_t r2_size = object(&pl, o.r[2])->size, bb_size = object(&pl, o.bb)->size;
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.manifests_deleted, 2);
  assert_int_equal(done.objects_deleted, 3);
  assert_int_equal(done.bytes_deleted, r2_size + bb_size); /* R1 is the 0-byte root */
  assert_false(exists(s.p, "_versions/1.manifest") || exists(s.p, "_versions/2.manifest"));
  assert_false(exists(s.p, o.r[1]) || exists(s.p, o.r[2]) || exists(s.p, o.bb));
  assert_true(exists(s.p, o.r[3]) && exists(s.p, o.r[4]) && exists(s.p, o.ba) && exists(s.p, o.bc));
  /* [FA-CLEAN-9] every version left reads whole, and the verifier agrees */
  lfa_snapshot snap;
  load_version(&snap, s.p, 3);
  lfa_snapshot_free(&snap);
  load_version(&snap, s.p, 4);
  lfa_snapshot_free(&snap);
  verify_clean(s.p);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* Which versions are kept [FA-CLEAN-1]: the newest, tagged and listed
 * ones, and the window; nothing else. */
static void test_FA_CLEAN_1_newest_tagged_and_listed_versions_kept(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  lfa_error err = {0};
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  int64_t now = (int64_t)time(NULL);
  uint64_t one = 1, seven = 7;
  /* keep_from 4 and keep {1}: v1 listed, v4 latest; v2 and v3 removed. R1
   * is v1's; R2 and Bb only v2's; R3 only v3's; Ba is v4's too. */
  lfa_cleanup_options opt = options(now, 3600);
  opt.has_keep_from = true, opt.keep_from = 4, opt.n_keep = 1, opt.keep = &one;
  plan_ok(&pl, s.p, &opt);
  expect_keep(&pl, 1, LFA_CLEANUP_LISTED);
  expect_keep(&pl, 2, LFA_CLEANUP_REMOVED);
  expect_keep(&pl, 3, LFA_CLEANUP_REMOVED);
  expect_keep(&pl, 4, LFA_CLEANUP_LATEST);
  expect(&pl, o.r[1], LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.r[2], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.bb, LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[3], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.ba, LFA_CLEANUP_KEEP_REACHABLE);
  expect_ref(&pl, o.ba, 0, 4);
  lfa_cleanup_plan_free(&pl);
  /* A tag of version 2 on the main branch keeps it; a tag of a branch's
   * version 1 keeps nothing here: v1 and v3 removed. */
  const char *stable = "{\"branch\": null, \"version\": 2, \"manifestSize\": 100}";
  const char *branch_tag = "{\"branch\": \"feature\", \"version\": 1, \"manifestSize\": 100}";
  plant(s.p, "_refs/tags/stable.json", stable, strlen(stable), now);
  plant(s.p, "_refs/tags/on-branch.json", branch_tag, strlen(branch_tag), now);
  opt.n_keep = 0;
  plan_ok(&pl, s.p, &opt);
  expect_keep(&pl, 1, LFA_CLEANUP_REMOVED);
  expect_keep(&pl, 2, LFA_CLEANUP_TAGGED);
  assert_string_equal(pl.versions[1].tag, "_refs/tags/stable.json");
  expect_keep(&pl, 3, LFA_CLEANUP_REMOVED);
  expect(&pl, o.r[1], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[2], LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.r[3], LFA_CLEANUP_DELETE_REMOVED);
  lfa_cleanup_plan_free(&pl);
  /* keep_from 4 alone keeps only the newest; no keep_from keeps every
   * version, so every object is reachable */
  opt.has_keep_from = false;
  plan_ok(&pl, s.p, &opt);
  for (uint64_t v = 1; v <= 3; v++) expect_keep(&pl, v, v == 2 ? LFA_CLEANUP_TAGGED : LFA_CLEANUP_RETAINED);
  for (size_t i = 0; i < pl.n_objects; i++) assert_int_equal(pl.objects[i].verdict, LFA_CLEANUP_KEEP_REACHABLE);
  lfa_cleanup_plan_free(&pl);
  /* a tag naming no version is said */
  const char *lost = "{\"version\": 9}";
  plant(s.p, "_refs/tags/lost.json", lost, strlen(lost), now);
  opt.has_keep_from = true, opt.keep_from = 4;
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(notes_with(&pl, "FA-CLEAN-1"), 1);
  assert_non_null(strstr(note_with(&pl, "FA-CLEAN-1")->message, "_refs/tags/lost.json"));
  lfa_cleanup_plan_free(&pl);
  /* refused: keep_from past the newest, a listed version that is not there,
   * a tag that cannot be read (the kept set would be a guess) */
  opt.keep_from = 5;
  assert_status(lfa_cleanup_plan_make(&pl, s.p, &opt, &err), LFA_ERR_USAGE, &err);
  lfa_cleanup_plan_free(&pl);
  opt.keep_from = 4, opt.n_keep = 1, opt.keep = &seven;
  assert_status(lfa_cleanup_plan_make(&pl, s.p, &opt, &err), LFA_ERR_USAGE, &err);
  lfa_cleanup_plan_free(&pl);
  opt.n_keep = 0;
  plant(s.p, "_refs/tags/broken.json", "{\"version\": ", 12, now);
  assert_status(lfa_cleanup_plan_make(&pl, s.p, &opt, &err), LFA_ERR_FORMAT, &err);
  assert_non_null(strstr(err.msg, "_refs/tags/broken.json"));
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* A detached version (`d<n>.manifest`, not in the version list) is never
 * removed here, so what it reaches is kept [FA-CLEAN-1]: a copy of v2's
 * manifest there keeps R2 and Bb although v2 itself is removed. */
static void test_FA_CLEAN_1_detached_manifest_keeps_its_objects(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  size_t len;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  uint8_t *v2 = read_rel(s.p, "_versions/2.manifest", &len);
  plant(s.p, "_versions/d9223372036854775810.manifest", v2, len, (int64_t)time(NULL));
  free(v2);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 3;
  plan_ok(&pl, s.p, &opt);
  expect_keep(&pl, 2, LFA_CLEANUP_REMOVED);
  expect(&pl, o.r[2], LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.r[1], LFA_CLEANUP_DELETE_REMOVED);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* ---- FA-CLEAN-5 and FA-CLEAN-10: orphans and the grace period ------------------------------------------ */

/* A commit attempt that lost (a conflict, a crash) wrote a root and a
 * bitmap that no manifest names. Every version is kept, the grace period
 * is Lance's 7 days: the root, 8 days old, is past it and deleted; the
 * bitmap, a day old, may belong to an attempt still in flight and stays
 * [FA-CLEAN-5]. The verifier warns about the old one only [FA-CLEAN-10];
 * once it is deleted, about nothing. */
static void test_div_failed_attempt_orphans_not_referenced(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  char old_root[160], young_bitmap[160];
  size_t len;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  int64_t now = (int64_t)time(NULL);
  snprintf(old_root, sizeof old_root, ORPHAN_ROOT, o.field_id);
  snprintf(young_bitmap, sizeof young_bitmap, ORPHAN_BITMAP, o.field_id);
  uint8_t *r4 = read_rel(s.p, o.r[4], &len); /* what the attempt wrote: v4's state again */
  plant(s.p, old_root, r4, len, now - 8 * DAY);
  free(r4);
  uint8_t *bc = read_rel(s.p, o.bc, &len);
  plant(s.p, young_bitmap, bc, len, now - 1 * DAY);
  free(bc);
  lfa_cleanup_options opt = options(now, LFA_CLEANUP_GRACE_DEFAULT_SECONDS);
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(pl.n_objects, 9);
  expect(&pl, old_root, LFA_CLEANUP_DELETE_EXPIRED);
  expect(&pl, young_bitmap, LFA_CLEANUP_KEEP_YOUNG);
  assert_false(object(&pl, old_root)->has_ref);
  for (int v = 1; v <= 4; v++) expect(&pl, o.r[v], LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_REACHABLE);
  /* lfa verify: one FA-CLEAN-10 warning, naming the old orphan */
  lfa_verify_result r;
  lfa_error err = {0};
  assert_ok(lfa_verify_dataset(&r, s.p, NULL, &err), &err);
  size_t warned = 0;
  for (size_t i = 0; i < r.findings.count; i++) {
    const lfa_finding *f = &r.findings.items[i];
    if (strcmp(f->rule, "FA-CLEAN-10") != 0) continue;
    warned++;
    assert_int_equal(f->severity, LFA_SEVERITY_WARNING);
    assert_string_equal(f->file, old_root);
    assert_int_equal(f->version, 4); /* reported against the last version checked */
  }
  assert_int_equal(warned, 1);
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR), 0);
  lfa_verify_result_free(&r);
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.objects_deleted, 1);
  assert_int_equal(done.manifests_deleted, 0);
  assert_false(exists(s.p, old_root));
  assert_true(exists(s.p, young_bitmap));
  assert_ok(lfa_verify_dataset(&r, s.p, NULL, &err), &err);
  assert_null(lfa_findings_find(&r.findings, "FA-CLEAN-10", LFA_SEVERITY_WARNING));
  lfa_verify_result_free(&r);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* Grace G = 1000 s at `now` N. Age is N - mtime; deleted only when older
 * than G [FA-CLEAN-5]: mtime N-1001 (age 1001) goes, N-1000 (age 1000,
 * not older) stays, a future mtime stays. Bb, referenced by the removed
 * v2 only, goes at once however young (mtime N: age 0). With G = 0,
 * age 1 goes and age 0 stays. */
static void test_FA_CLEAN_5_grace_period_boundaries(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  int64_t now = (int64_t)time(NULL);
  const char *a = "_field_assignments/bitmaps/9/0/0000dead-0000-4000-8000-00000000000a.rbm";
  const char *b = "_field_assignments/bitmaps/9/0/0000dead-0000-4000-8000-00000000000b.rbm";
  const char *c = "_field_assignments/bitmaps/9/0/0000dead-0000-4000-8000-00000000000c.rbm";
  const char *d = "_field_assignments/bitmaps/9/0/0000dead-0000-4000-8000-00000000000d.rbm";
  const char *e = "_field_assignments/bitmaps/9/0/0000dead-0000-4000-8000-00000000000e.rbm";
  plant(s.p, a, "a", 1, now - 1001);
  plant(s.p, b, "b", 1, now - 1000);
  plant(s.p, c, "c", 1, now + 500);
  set_mtime(s.p, o.bb, now);
  lfa_cleanup_options opt = options(now, 1000);
  opt.has_keep_from = true, opt.keep_from = 3;
  plan_ok(&pl, s.p, &opt);
  expect(&pl, a, LFA_CLEANUP_DELETE_EXPIRED);
  expect(&pl, b, LFA_CLEANUP_KEEP_YOUNG);
  expect(&pl, c, LFA_CLEANUP_KEEP_YOUNG);
  expect(&pl, o.bb, LFA_CLEANUP_DELETE_REMOVED);
  lfa_cleanup_plan_free(&pl);
  plant(s.p, d, "d", 1, now - 1);
  plant(s.p, e, "e", 1, now);
  opt = options(now, 0);
  plan_ok(&pl, s.p, &opt);
  expect(&pl, a, LFA_CLEANUP_DELETE_EXPIRED);
  expect(&pl, b, LFA_CLEANUP_DELETE_EXPIRED);
  expect(&pl, d, LFA_CLEANUP_DELETE_EXPIRED);
  expect(&pl, e, LFA_CLEANUP_KEEP_YOUNG);
  expect(&pl, c, LFA_CLEANUP_KEEP_YOUNG);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* ---- FA-CLEAN-3 and FA-CLEAN-4: unreadable roots ----------------------------------------------------- */

/* keep_from 3. R2, the root of the removed v2, is corrupted (3 bytes, not
 * its size_bytes): cleanup goes on [FA-CLEAN-4]. R2 itself is still named
 * by v2, so it goes at once with R1; Bb, which only R2 listed, is now
 * unreferenced: young, it stays; past the grace period, it goes
 * [FA-CLEAN-5]. The kept objects are as in the first test. */
static void test_div_cleanup_unreadable_removed_root(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  int64_t now = (int64_t)time(NULL);
  overwrite(s.p, o.r[2], "xyz");
  lfa_cleanup_options opt = options(now, 3600);
  opt.has_keep_from = true, opt.keep_from = 3;
  plan_ok(&pl, s.p, &opt);
  assert_false(pl.blocked);
  const lfa_cleanup_note *n = note_with(&pl, "FA-CLEAN-4");
  assert_int_equal(n->level, LFA_CLEANUP_INFO);
  assert_true(n->has_version && n->version == 2);
  assert_non_null(strstr(n->message, o.r[2]));
  expect(&pl, o.r[1], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[2], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_YOUNG);
  expect(&pl, o.ba, LFA_CLEANUP_KEEP_REACHABLE);
  expect(&pl, o.r[3], LFA_CLEANUP_KEEP_REACHABLE);
  lfa_cleanup_plan_free(&pl);
  set_mtime(s.p, o.bb, now - 3601);
  plan_ok(&pl, s.p, &opt);
  expect(&pl, o.bb, LFA_CLEANUP_DELETE_EXPIRED);
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.objects_deleted, 3);
  assert_int_equal(done.manifests_deleted, 2);
  verify_clean(s.p);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
  /* a removed version whose manifest is unreadable does not stop cleanup
   * either: its objects are unreferenced (R2, Bb young: kept), R1 goes */
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  overwrite(s.p, "_versions/2.manifest", "not a manifest");
  plan_ok(&pl, s.p, &opt);
  assert_false(pl.blocked);
  assert_int_equal(notes_with(&pl, "FA-CLEAN-4"), 1);
  expect(&pl, o.r[1], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[2], LFA_CLEANUP_KEEP_YOUNG);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_YOUNG);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* keep_from 3, and R3, the root of the kept v3, is corrupted: which
 * bitmaps v3 reaches is unknown, so nothing is deleted
 * [FA-CLEAN-3]: R1, R2 and Bb, which would go, are blocked, and so are
 * the manifests of v1 and v2: a blocked run deletes nothing. The same when
 * the kept version's manifest itself cannot be read. */
static void test_FA_CLEAN_3_unreadable_kept_root_blocks(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  overwrite(s.p, o.r[3], "xyz");
  lfa_cleanup_options opt = options((int64_t)time(NULL), 0);
  opt.has_keep_from = true, opt.keep_from = 3;
  plan_ok(&pl, s.p, &opt);
  assert_true(pl.blocked);
  const lfa_cleanup_note *n = note_with(&pl, "FA-CLEAN-3");
  assert_int_equal(n->level, LFA_CLEANUP_ERROR);
  assert_true(n->has_version && n->version == 3);
  assert_string_equal(n->file, "_versions/3.manifest");
  assert_non_null(strstr(n->message, o.r[3]));
  expect(&pl, o.r[1], LFA_CLEANUP_KEEP_BLOCKED);
  expect(&pl, o.r[2], LFA_CLEANUP_KEEP_BLOCKED);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_BLOCKED);
  expect(&pl, o.r[4], LFA_CLEANUP_KEEP_REACHABLE);
  int before = count_files(s.p, "_field_assignments");
  assert_int_equal(before, 7);
  /* blocked deletes nothing, manifests included: the plan holds them */
  expect_keep(&pl, 1, LFA_CLEANUP_HELD);
  expect_keep(&pl, 2, LFA_CLEANUP_HELD);
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.objects_deleted, 0);
  assert_int_equal(done.manifests_deleted, 0);
  assert_int_equal(count_files(s.p, "_field_assignments"), 7);
  assert_true(exists(s.p, "_versions/1.manifest") && exists(s.p, "_versions/2.manifest"));
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  overwrite(s.p, "_versions/3.manifest", "not a manifest");
  plan_ok(&pl, s.p, &opt);
  assert_true(pl.blocked);
  assert_int_equal(note_with(&pl, "FA-CLEAN-3")->version, 3);
  expect(&pl, o.r[1], LFA_CLEANUP_KEEP_BLOCKED);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* ---- FA-CLEAN-3: what cannot be resolved blocks everything ------------------------------------------- */

/* Version 5 copies v4 with a root of its own whose partials (Ba, Bc) go
 * through base 1, a dataset root naming the dataset itself by `base` (valid
 * under FA-CLEAN-6; the version reads whole). keep_from 5 removes v1..v4,
 * so only v5 reaches Ba and Bc. */
static void self_based_version(objs *o, char *rel, size_t cap, AssignmentFile *rf, const char *dir, char *base) {
  build(dir);
  learn(o, dir);
  write_local_root(rf, rel, cap, dir, dir, o->r[4], o->field_id);
  write_version_based(dir, 4, 5, rf, base);
}

/* Moved away from the place its base path names, v5's partials lead to no
 * file: which files they meant is unknown, so the run deletes nothing, not
 * even the manifests of v1..v4; moved back, every version still reads
 * (before, Ba and Bc were deleted as reached by removed versions only). */
static void test_FA_CLEAN_3_moved_dataset_blocks(void **state) {
  (void)state;
  scratch s;
  objs o;
  char rel[160], abs[PATH_MAX], moved[PATH_MAX];
  AssignmentFile rf;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  assert_int_equal(mkdir(s.p, 0777), 0);
  assert_non_null(realpath(s.p, abs));
  assert_int_equal(rmdir(s.p), 0);
  self_based_version(&o, rel, sizeof rel, &rf, s.p, abs);
  lfa_snapshot snap;
  load_version(&snap, s.p, 5); /* it reads whole through the base */
  lfa_snapshot_free(&snap);
  snprintf(moved, sizeof moved, "%s-moved", s.p);
  assert_int_equal(rename(s.p, moved), 0);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 5;
  plan_ok(&pl, moved, &opt);
  assert_true(pl.blocked);
  assert_true(notes_with(&pl, "FA-CLEAN-9") >= 2); /* Ba and Bc, each named */
  expect_keep(&pl, 1, LFA_CLEANUP_HELD);
  expect(&pl, o.ba, LFA_CLEANUP_KEEP_BLOCKED);
  expect(&pl, o.bc, LFA_CLEANUP_KEEP_BLOCKED);
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.manifests_deleted + done.objects_deleted, 0);
  lfa_cleanup_plan_free(&pl);
  assert_int_equal(rename(moved, s.p), 0);
  for (uint64_t v = 1; v <= 5; v++) {
    load_version(&snap, s.p, v);
    lfa_snapshot_free(&snap);
  }
  scratch_remove(&s);
}

/* A relative base path would be resolved against the working directory:
 * from the directory above the dataset it names the dataset, from
 * anywhere else nothing. The verdict must not depend on `cd`: blocked from
 * both, with the base named. */
static void test_FA_CLEAN_3_relative_base_path_blocks(void **state) {
  (void)state;
  scratch s;
  objs o;
  char rel[160], base[] = "p", cwd[PATH_MAX];
  AssignmentFile rf;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  self_based_version(&o, rel, sizeof rel, &rf, s.p, base);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 5;
  assert_non_null(getcwd(cwd, sizeof cwd));
  const char *from[] = {s.base, "/"};
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(chdir(from[i]), 0);
    plan_ok(&pl, s.p, &opt);
    assert_int_equal(chdir(cwd), 0);
    assert_true(pl.blocked);
    assert_non_null(strstr(note_with(&pl, "FA-CLEAN-3")->message, "relative"));
    expect(&pl, o.ba, LFA_CLEANUP_KEEP_BLOCKED);
    lfa_cleanup_plan_free(&pl);
  }
  scratch_remove(&s);
}

/* ---- FA-CLEAN-2: branches and clones ------------------------------------------------------------------- */

/* The branch `feature` (Lance's layout: `tree/feature/`, a shallow clone of
 * v2) wrote its own root R' listing the parent's Ba and Bb through the
 * base, and has since dropped its version 1 (the clone of v2): R' is all
 * it references. The parent keeps from 4: v1..v3 are removed. Only removed
 * versions name R1, R2 and R3: they go. Bb is named by the removed v2 and
 * by the branch's own root: kept [FA-CLEAN-2] (upstream's first iteration
 * skipped branch-local roots and deleted it, D9.9); Ba is v4's.
 * Without the branch (renamed away) Bb would go: the test can tell. */
static void test_div_cleanup_keeps_parent_bitmap_of_branch_root(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_history h;
  lfa_cleanup_plan pl;
  AssignmentFile local;
  char local_rel[160], moved[160];
  scratch_make(&s);
  build_open(&h, s.p);
  learn(&o, s.p);
  assert_int_equal(run("mkdir '%s/tree'", s.p), 0); /* where Lance puts its branches */
  shallow_clone(&h, 2, s.branch);
  lfa_history_close(&h);
  write_local_root(&local, local_rel, sizeof local_rel, s.branch, s.p, o.r[2], o.field_id);
  write_version(s.branch, 1, 2, &local);
  assert_int_equal(run("rm '%s/_versions/1.manifest'", s.branch), 0);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 4;
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(pl.n_datasets, 2);
  assert_int_equal(pl.datasets[1].kind, LFA_CLEANUP_BRANCH);
  assert_string_equal(pl.datasets[1].dir, s.branch);
  assert_int_equal(pl.n_objects, 7); /* R' is the branch's, not a candidate here */
  expect(&pl, o.r[1], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[2], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[3], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_REACHABLE);
  expect_ref(&pl, o.bb, 1, 2);
  expect(&pl, o.ba, LFA_CLEANUP_KEEP_REACHABLE);
  expect_ref(&pl, o.ba, 0, 4);
  /* the branch says it was made from v2 (its Clone transaction), and v2
   * reaches Ba and Bb: the reuse is sound [FA-CLEAN-7] */
  assert_true(pl.datasets[1].has_source_version);
  assert_int_equal(pl.datasets[1].source_version, 2);
  assert_int_equal(notes_with(&pl, "FA-CLEAN-7"), 0);
  assert_false(pl.blocked);
  lfa_cleanup_plan_free(&pl);
  snprintf(moved, sizeof moved, "%s/elsewhere", s.base);
  assert_int_equal(run("mv '%s/tree' '%s'", s.p, moved), 0);
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(pl.n_datasets, 1);
  expect(&pl, o.bb, LFA_CLEANUP_DELETE_REMOVED);
  lfa_cleanup_plan_free(&pl);
  /* `tree` as a link to where the branches are: they are still read */
  assert_int_equal(run("ln -s '%s' '%s/tree'", moved, s.p), 0);
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(pl.n_datasets, 2);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_REACHABLE);
  lfa_cleanup_plan_free(&pl);
  assert_int_equal(run("rm '%s/tree' && mv '%s' '%s/tree'", s.p, moved, s.p), 0);
  plan_ok(&pl, s.p, &opt);
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.objects_deleted, 3);
  assert_int_equal(done.manifests_deleted, 3);
  lfa_snapshot snap;
  load_version(&snap, s.branch, 2); /* reads R' and, through the base, Ba and Bb */
  lfa_snapshot_free(&snap);
  load_version(&snap, s.p, 4);
  lfa_snapshot_free(&snap);
  assert_true(exists(s.branch, local_rel));
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* A shallow clone elsewhere, named by the caller, counts like a branch
 * [FA-CLEAN-2]. The clone of v2 keeps its version 1 (R2 through the base)
 * and wrote version 2 with its own root listing Ba and Bb. keep_from 4:
 * R2 and Bb stay for the clone, R1 and R3 go. Not named, the clone is
 * unknown and R2 and Bb go: why a shallow clone should be made from a
 * tagged version [FA-CLEAN-8], which is said until v2 is tagged. */
static void test_FA_CLEAN_2_named_clone_counts_and_FA_CLEAN_8_tag(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_history h;
  lfa_cleanup_plan pl;
  AssignmentFile local;
  char local_rel[160];
  scratch_make(&s);
  build_open(&h, s.p);
  learn(&o, s.p);
  shallow_clone(&h, 2, s.clone);
  lfa_history_close(&h);
  write_local_root(&local, local_rel, sizeof local_rel, s.clone, s.p, o.r[2], o.field_id);
  write_version(s.clone, 1, 2, &local);
  const char *datasets[] = {s.clone, s.p}; /* the dataset itself, named too, counts for nothing */
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 4, opt.n_datasets = 2, opt.datasets = datasets;
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(pl.n_datasets, 2);
  assert_int_equal(pl.datasets[1].kind, LFA_CLEANUP_GIVEN);
  assert_int_equal(pl.datasets[1].n_versions, 2);
  assert_int_equal(pl.datasets[1].source_version, 2);
  expect(&pl, o.r[2], LFA_CLEANUP_KEEP_REACHABLE);
  expect_ref(&pl, o.r[2], 1, 1);
  expect(&pl, o.bb, LFA_CLEANUP_KEEP_REACHABLE);
  expect_ref(&pl, o.bb, 1, 1);
  expect(&pl, o.r[1], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.r[3], LFA_CLEANUP_DELETE_REMOVED);
  expect_keep(&pl, 2, LFA_CLEANUP_REMOVED);
  assert_int_equal(notes_with(&pl, "FA-CLEAN-8"), 1);
  assert_int_equal(note_with(&pl, "FA-CLEAN-8")->level, LFA_CLEANUP_WARNING);
  assert_int_equal(notes_with(&pl, "FA-CLEAN-7"), 0);
  lfa_cleanup_plan_free(&pl);
  opt.n_datasets = 0;
  plan_ok(&pl, s.p, &opt);
  expect(&pl, o.r[2], LFA_CLEANUP_DELETE_REMOVED);
  expect(&pl, o.bb, LFA_CLEANUP_DELETE_REMOVED);
  lfa_cleanup_plan_free(&pl);
  const char *tag = "{\"version\": 2}";
  plant(s.p, "_refs/tags/for-the-clone.json", tag, strlen(tag), (int64_t)time(NULL));
  opt.n_datasets = 1;
  plan_ok(&pl, s.p, &opt);
  expect_keep(&pl, 2, LFA_CLEANUP_TAGGED);
  assert_int_equal(notes_with(&pl, "FA-CLEAN-8"), 0);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* [FA-CLEAN-7] a clone of v2 whose version 2 takes R3 through the base:
 * R3 is reached by v3, not by v2, the version the clone was made from, so
 * keeping v2 (its tag) would not keep it. Said as an error naming R3; R3
 * is still kept in this run, since the clone is known. */
static void test_FA_CLEAN_7_clone_reuses_beyond_its_source(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_history h;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  build_open(&h, s.p);
  learn(&o, s.p);
  shallow_clone(&h, 2, s.clone);
  lfa_history_close(&h);
  lfa_snapshot snap;
  load_version(&snap, s.p, 3);
  AssignmentFile r3;
  lance__table__field_assignment_file__init(&r3);
  r3.path = o.r[3];
  r3.size_bytes = snap.tracked[0].root_file->size_bytes, r3.has_size_bytes = r3.size_bytes != 0;
  r3.has_base_id = 1, r3.base_id = 1;
  lfa_snapshot_free(&snap);
  write_version(s.clone, 1, 2, &r3);
  const char *datasets[] = {s.clone};
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.n_datasets = 1, opt.datasets = datasets;
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(notes_with(&pl, "FA-CLEAN-7"), 1);
  const lfa_cleanup_note *n = note_with(&pl, "FA-CLEAN-7");
  assert_int_equal(n->level, LFA_CLEANUP_ERROR);
  assert_int_equal(n->dataset, 1);
  assert_int_equal(n->version, 2);
  assert_non_null(strstr(n->message, o.r[3]));
  expect(&pl, o.r[3], LFA_CLEANUP_KEEP_REACHABLE);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* ---- FA-CLEAN-6: only this dataset's own _field_assignments/ ------------------------------------------ */

/* Cleaning a shallow clone never deletes its source's objects, though its
 * removed version reached them through the base: the clone of v2 gets a
 * version 2 (the same state), keeps from 2, and removes its version 1. Its
 * only object of its own is an old orphan: that goes. The source keeps
 * all 7 objects. */
static void test_FA_CLEAN_6_clone_cleanup_spares_the_source(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_history h;
  lfa_cleanup_plan pl;
  char orphan[160];
  scratch_make(&s);
  build_open(&h, s.p);
  learn(&o, s.p);
  shallow_clone(&h, 2, s.clone);
  lfa_history_close(&h);
  write_version(s.clone, 1, 2, NULL);
  int64_t now = (int64_t)time(NULL);
  snprintf(orphan, sizeof orphan, ORPHAN_BITMAP, o.field_id);
  plant(s.clone, orphan, "x", 1, now - 2 * DAY);
  lfa_cleanup_options opt = options(now, DAY);
  opt.has_keep_from = true, opt.keep_from = 2;
  plan_ok(&pl, s.clone, &opt);
  expect_keep(&pl, 1, LFA_CLEANUP_REMOVED);
  assert_int_equal(pl.n_objects, 1);
  expect(&pl, orphan, LFA_CLEANUP_DELETE_EXPIRED);
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.objects_deleted, 1);
  assert_int_equal(done.manifests_deleted, 1);
  assert_int_equal(count_files(s.p, "_field_assignments"), 7);
  lfa_snapshot snap;
  load_version(&snap, s.clone, 2);
  lfa_snapshot_free(&snap);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* Old unreferenced files outside `_field_assignments/` (a deletion file, a
 * look-alike directory, a file at the root) and a symbolic link inside it
 * are not objects: with every version kept and no grace at all, nothing is
 * deleted but... nothing, and all of them are still there. A dataset whose
 * `_field_assignments` is a link to another dataset's has no objects at
 * all, so it cannot delete the other's. */
static void test_FA_CLEAN_6_nothing_outside_own_field_assignments(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  char path[512], target[512];
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  int64_t now = (int64_t)time(NULL), old = now - 30 * DAY;
  const char *outside[] = {"_deletions/0-1-99.arrow", "_field_assignments_old/bitmaps/1/0/x.rbm", "outside.rbm"};
  for (size_t i = 0; i < 3; i++) plant(s.p, outside[i], "x", 1, old);
  const char *link = "_field_assignments/bitmaps/1/0/0000dead-0000-4000-8000-00000000000f.rbm";
  join(path, sizeof path, s.p, link);
  join(target, sizeof target, s.p, "outside.rbm");
  assert_int_equal(run("mkdir -p \"$(dirname '%s')\" && ln -s '%s' '%s'", path, target, path), 0);
  lfa_cleanup_options opt = options(now, 0);
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(pl.n_objects, 7); /* the history's own, nothing else */
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.objects_deleted, 0);
  for (size_t i = 0; i < 3; i++) assert_true(exists(s.p, outside[i]));
  assert_true(exists(s.p, link));
  lfa_cleanup_plan_free(&pl);
  /* `other` tracks nothing; its _field_assignments is a link to p's */
  lfa_history h;
  lfa_error err = {0};
  assert_ok(lfa_history_open(&h, s.other, 3, &err), &err);
  lfa_request create = {.op = LFA_OP_CREATE, .new_fields = UNTRACKED, .n_new_fields = 2, .rows = {3, K1_12},
                        .fields = {1, ID_ONLY}};
  assert_ok(lfa_history_apply(&h, &create, 0, &err), &err);
  lfa_history_close(&h);
  join(path, sizeof path, s.other, "_field_assignments");
  join(target, sizeof target, s.p, "_field_assignments");
  assert_int_equal(symlink(target, path), 0);
  opt = options(now + 365 * DAY, 0); /* every file of p would be old enough */
  plan_ok(&pl, s.other, &opt);
  assert_int_equal(pl.n_objects, 0);
  execute(&pl);
  assert_int_equal(count_files(s.p, "_field_assignments"), 7);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* ---- FA-CLEAN-9: versions left in _versions/ stay readable ---------------------------------------------- */

/* Ba is listed by the roots of v2, v3 and v4. Deleted by hand, each of
 * those versions is unreadable: the verifier reports the missing object
 * against each of them (and not v1) [FA-CLEAN-9], and the planner, which
 * keeps every version here, says so for each, and deletes nothing
 * [FA-CLEAN-3]. */
static void test_FA_CLEAN_9_missing_object_reported_per_version(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  assert_int_equal(run("rm '%s/%s'", s.p, o.ba), 0);
  lfa_verify_result r;
  lfa_error err = {0};
  assert_ok(lfa_verify_dataset(&r, s.p, NULL, &err), &err);
  bool seen[5] = {false};
  for (size_t i = 0; i < r.findings.count; i++) {
    const lfa_finding *f = &r.findings.items[i];
    if (strcmp(f->rule, "FA-STORE-5") != 0 || f->severity != LFA_SEVERITY_ERROR) continue;
    assert_true(f->version >= 1 && f->version <= 4);
    assert_non_null(strstr(f->message, o.ba));
    seen[f->version] = true;
  }
  assert_false(seen[1]);
  assert_true(seen[2] && seen[3] && seen[4]);
  lfa_verify_result_free(&r);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  plan_ok(&pl, s.p, &opt);
  bool noted[5] = {false};
  for (size_t i = 0; i < pl.n_notes; i++)
    if (strcmp(pl.notes[i].rule, "FA-CLEAN-9") == 0 && pl.notes[i].version <= 4) noted[pl.notes[i].version] = true;
  assert_false(noted[1]);
  assert_true(noted[2] && noted[3] && noted[4]);
  /* [FA-CLEAN-3] a reference that leads to no file may have meant one of
   * this dataset's under another name (a base that moved): it blocks */
  assert_true(pl.blocked);
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* A writer commits version 5 after the plan (keep_from 3: R1, R2 and Bb
 * planned). Its writer read the head, and may reuse what the plan would
 * delete: the run removes the manifests planned but no object, and says
 * so; the next run plans again. [FA-CLEAN-5] */
static void test_FA_CLEAN_5_commit_after_the_plan_stops_object_deletion(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 3;
  plan_ok(&pl, s.p, &opt);
  expect(&pl, o.bb, LFA_CLEANUP_DELETE_REMOVED);
  write_version(s.p, 4, 5, NULL); /* the concurrent commit */
  lfa_cleanup_done done = execute(&pl);
  assert_true(done.new_versions);
  assert_int_equal(done.manifests_deleted, 2);
  assert_int_equal(done.objects_deleted, 0);
  assert_true(exists(s.p, o.r[1]) && exists(s.p, o.r[2]) && exists(s.p, o.bb));
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* ---- the executor deletes exactly the plan ----------------------------------------------------------- */

/* keep_from 3 plans R1, R2, Bb and two manifests. Before it runs, R2 is
 * deleted by someone else and Bb's path is given to a new file: R2 counts
 * as already gone, the new Bb is not the file planned and stays. */
static void test_execute_deletes_only_what_was_planned(void **state) {
  (void)state;
  scratch s;
  objs o;
  lfa_cleanup_plan pl;
  char path[512], fresh[512];
  scratch_make(&s);
  build(s.p);
  learn(&o, s.p);
  lfa_cleanup_options opt = options((int64_t)time(NULL), 3600);
  opt.has_keep_from = true, opt.keep_from = 3;
  plan_ok(&pl, s.p, &opt);
  assert_int_equal(run("rm '%s/%s'", s.p, o.r[2]), 0);
  join(path, sizeof path, s.p, o.bb);
  join(fresh, sizeof fresh, s.p, "fresh.rbm");
  plant(s.p, "fresh.rbm", "new", 3, (int64_t)time(NULL)); /* a new inode while the old one still exists */
  assert_int_equal(rename(fresh, path), 0);
  lfa_cleanup_done done = execute(&pl);
  assert_int_equal(done.manifests_deleted, 2);
  assert_int_equal(done.objects_deleted, 1); /* R1 */
  assert_int_equal(done.already_gone, 1);    /* R2 */
  assert_int_equal(done.changed, 1);         /* Bb's path */
  assert_true(exists(s.p, o.bb));
  lfa_cleanup_plan_free(&pl);
  scratch_remove(&s);
}

/* [FA-LIMIT-1] the walk of _field_assignments/ goes LFA_CLEANUP_DEPTH_MAX
 * directories deep and no deeper: a file under 16 nested directories is
 * listed (an orphan), one under 17 is not (and the plan says so), so
 * nothing there can be deleted. */
static void test_FA_LIMIT_1_walk_depth_at_its_limit(void **state) {
  (void)state;
  for (unsigned depth = LFA_CLEANUP_DEPTH_MAX; depth <= LFA_CLEANUP_DEPTH_MAX + 1; depth++) {
    scratch s;
    scratch_make(&s);
    build(s.p);
    char rel[512] = "_field_assignments", cmd[1024];
    for (unsigned k = 0; k < depth; k++) strcat(rel, "/d");
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s' && printf o > '%s/%s/old.rbm'", s.p, rel, s.p, rel);
    assert_int_equal(system(cmd), 0);
    strcat(rel, "/old.rbm");
    lfa_cleanup_options opt = options((int64_t)time(NULL), 0);
    lfa_cleanup_plan pl;
    plan_ok(&pl, s.p, &opt);
    bool listed = false;
    for (size_t i = 0; i < pl.n_objects; i++) listed = listed || strcmp(pl.objects[i].path, rel) == 0;
    if (listed != (depth <= LFA_CLEANUP_DEPTH_MAX)) fail_msg("%u directories deep: listed %d", depth, (int)listed);
    assert_int_equal(notes_with(&pl, "FA-LIMIT-1"), depth <= LFA_CLEANUP_DEPTH_MAX ? 0 : 1);
    lfa_cleanup_plan_free(&pl);
    scratch_remove(&s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_CLEAN_1_kept_versions_keep_what_they_reach),
      cmocka_unit_test(test_FA_LIMIT_1_walk_depth_at_its_limit),
      cmocka_unit_test(test_FA_CLEAN_1_newest_tagged_and_listed_versions_kept),
      cmocka_unit_test(test_FA_CLEAN_1_detached_manifest_keeps_its_objects),
      cmocka_unit_test(test_div_failed_attempt_orphans_not_referenced),
      cmocka_unit_test(test_FA_CLEAN_5_grace_period_boundaries),
      cmocka_unit_test(test_div_cleanup_unreadable_removed_root),
      cmocka_unit_test(test_FA_CLEAN_3_unreadable_kept_root_blocks),
      cmocka_unit_test(test_FA_CLEAN_3_moved_dataset_blocks),
      cmocka_unit_test(test_FA_CLEAN_3_relative_base_path_blocks),
      cmocka_unit_test(test_div_cleanup_keeps_parent_bitmap_of_branch_root),
      cmocka_unit_test(test_FA_CLEAN_2_named_clone_counts_and_FA_CLEAN_8_tag),
      cmocka_unit_test(test_FA_CLEAN_7_clone_reuses_beyond_its_source),
      cmocka_unit_test(test_FA_CLEAN_6_clone_cleanup_spares_the_source),
      cmocka_unit_test(test_FA_CLEAN_6_nothing_outside_own_field_assignments),
      cmocka_unit_test(test_FA_CLEAN_9_missing_object_reported_per_version),
      cmocka_unit_test(test_execute_deletes_only_what_was_planned),
      cmocka_unit_test(test_FA_CLEAN_5_commit_after_the_plan_stops_object_deletion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
