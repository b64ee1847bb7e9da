/* test_objects.c: the one object loader and its cache (lfa/objects.h).
 *
 *  - a load reads through the file system it is given (a memfs here) and
 *    labels what it finds: a size that contradicts size_bytes, and an
 *    object that is not there, are FA-STORE-5; a file that is there but
 *    cannot be read is an I/O error with no rule, named by its path;
 *  - a partial is checked against its fragment [FA-BITMAP-3] [FA-BITMAP-4]
 *    whether read or lent;
 *  - the cache lends one decoded object to every load of its key, keeps
 *    what no one borrows only within its byte budget, least recently used
 *    dropped first, and never drops what is borrowed;
 *  - a whole verification of a long history keeps within a small budget
 *    (what it holds at its peak, from the cache's own count), with the
 *    same findings as with room for everything and as `full`.
 * Expected sets and sizes are written by hand.
 */
#include "testutil.h"

#include "lfa/bitmap.h"
#include "lfa/dataset.h"
#include "lfa/history.h"
#include "lfa/memfs.h"
#include "lfa/objects.h"
#include "lfa/pb_types.h"
#include "lfa/verify.h"

/* Puts the portable encoding of {values} at `path`; its length in *size. */
static void put_bitmap(lfa_memfs *m, const char *path, const uint32_t *values, size_t n, uint64_t *size) {
  roaring_bitmap_t *r = roaring_bitmap_of_ptr(n, values);
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_non_null(r);
  assert_ok(lfa_bitmap_encode(&b, r, &err), &err);
  assert_ok(lfa_memfs_put(m, path, b.data, b.len, &err), &err);
  *size = b.len;
  lfa_buf_free(&b);
  roaring_bitmap_free(r);
}

static AssignmentFile descriptor(const char *path, uint64_t size) {
  AssignmentFile f = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  f.path = (char *)path;
  f.size_bytes = size;
  return f;
}

/* A file system that is the memfs but for one path, which is there (it
 * has a size) and cannot be read: a file without read permission. */
typedef struct locked_fs {
  lfa_memfs *m;
  const char *locked;
  lfa_fs_ops ops;
  lfa_fs fs;
} locked_fs;

static lfa_status locked_read(void *ctx, lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err) {
  locked_fs *l = ctx;
  memset(out, 0, sizeof *out);
  if (strcmp(path, l->locked) == 0) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: Permission denied", path);
  return lfa_fs_read_in(out, &l->m->fs, path, max_bytes, err);
}

static int locked_size(void *ctx, const char *path, uint64_t *size) {
  return lfa_fs_size_in(&((locked_fs *)ctx)->m->fs, path, size);
}

static void lock(locked_fs *l, lfa_memfs *m, const char *path) {
  l->m = m, l->locked = path;
  l->ops = *m->fs.ops;
  l->ops.read = locked_read, l->ops.size = locked_size;
  l->fs = (lfa_fs){&l->ops, l};
}

/* ---- what a load finds [FA-STORE-5] ------------------------------------------------------ */

static void test_FA_STORE_5_labels_what_a_load_finds(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  roaring_bitmap_t *rows = NULL;
  uint64_t size = 0;
  const uint32_t v[] = {1, 3};
  lfa_memfs_init(&m);
  put_bitmap(&m, "ds/b.rbm", v, 2, &size);
  lfa_objects at = {&m.fs, NULL};
  /* read through the memfs, with its size, and checked: {1, 3} of 4 rows */
  AssignmentFile f = descriptor("b.rbm", size);
  bool decoded = false;
  assert_ok(lfa_object_load_partial(&rows, &decoded, at, "ds/b.rbm", &f, 4, &err), &err);
  assert_true(decoded);
  assert_int_equal(roaring_bitmap_get_cardinality(rows), 2);
  assert_true(roaring_bitmap_contains(rows, 1) && roaring_bitmap_contains(rows, 3));
  lfa_object_release(NULL, LFA_OBJECT_BITMAP, rows); /* uncached: the release frees it */
  /* one byte more in the descriptor: the size contradicts it */
  f = descriptor("b.rbm", size + 1);
  assert_status(lfa_object_load_partial(&rows, NULL, at, "ds/b.rbm", &f, 4, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-5");
  assert_null(rows);
  /* nothing there: the snapshot's error, FA-STORE-5, naming the object */
  f = descriptor("gone.rbm", size);
  assert_status(lfa_object_load_partial(&rows, &decoded, at, "ds/gone.rbm", &f, 4, &err), LFA_ERR_IO, &err);
  assert_rule(&err, "FA-STORE-5");
  assert_false(decoded);
  assert_non_null(strstr(err.msg, "gone.rbm"));
  /* a directory there: not a regular file, FA-STORE-5 too */
  assert_ok(lfa_memfs_put(&m, "ds/dir.rbm/x", (const uint8_t *)"x", 1, &err), &err);
  f = descriptor("dir.rbm", size);
  assert_status(lfa_object_load_partial(&rows, NULL, at, "ds/dir.rbm", &f, 4, &err), LFA_ERR_IO, &err);
  assert_rule(&err, "FA-STORE-5");
  /* there, with the right size, but unreadable: an I/O error, no rule */
  locked_fs l;
  lock(&l, &m, "ds/b.rbm");
  f = descriptor("b.rbm", size);
  lfa_objects locked = {&l.fs, NULL};
  assert_status(lfa_object_load_partial(&rows, NULL, locked, "ds/b.rbm", &f, 4, &err), LFA_ERR_IO, &err);
  assert_null(err.rule);
  assert_non_null(strstr(err.msg, "b.rbm"));
  assert_non_null(strstr(err.msg, "Permission denied"));
  lfa_memfs_free(&m);
}

/* A deletion file: keyed by its size, FA-LANCE-16 when it is not there. */
static void test_FA_LANCE_16_deletion_file_not_there(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_object_cache c;
  roaring_bitmap_t *a = NULL, *b = NULL;
  uint64_t size = 0;
  const uint32_t v[] = {0, 2};
  lfa_memfs_init(&m);
  lfa_object_cache_init(&c, 0);
  put_bitmap(&m, "ds/_deletions/0-1-7.bin", v, 2, &size);
  lfa_objects at = {&m.fs, &c};
  bool decoded = false;
  assert_ok(lfa_object_load_deletion(&a, &decoded, at, "ds/_deletions/0-1-7.bin", true, &err), &err);
  assert_true(decoded);
  assert_ok(lfa_object_load_deletion(&b, &decoded, at, "ds/_deletions/0-1-7.bin", true, &err), &err);
  assert_false(decoded);
  assert_ptr_equal(a, b); /* lent: one decoded set */
  assert_int_equal(c.stats.kept[LFA_OBJECT_DELETION], 1);
  assert_status(lfa_object_load_deletion(&b, NULL, at, "ds/_deletions/0-1-8.bin", true, &err), LFA_ERR_IO, &err);
  assert_rule(&err, "FA-LANCE-16");
  lfa_object_release(&c, LFA_OBJECT_DELETION, a);
  lfa_object_release(&c, LFA_OBJECT_DELETION, a);
  lfa_object_cache_free(&c);
  lfa_memfs_free(&m);
}

/* ---- a partial against its fragment, read or lent [FA-BITMAP-3] [FA-BITMAP-4] -------------- */

static void test_FA_BITMAP_3_FA_BITMAP_4_partial_checked_when_lent(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_object_cache c;
  roaring_bitmap_t *rows = NULL, *again = NULL;
  uint64_t size = 0;
  const uint32_t v[] = {0, 1, 2, 3};
  lfa_memfs_init(&m);
  lfa_object_cache_init(&c, 0);
  put_bitmap(&m, "ds/b.rbm", v, 4, &size);
  AssignmentFile f = descriptor("b.rbm", size);
  lfa_objects at = {&m.fs, &c};
  /* {0..3} in a fragment of 5 rows: some, not all */
  assert_ok(lfa_object_load_partial(&rows, NULL, at, "ds/b.rbm", &f, 5, &err), &err);
  /* the same object lent to a fragment of 4 rows: all of them [FA-BITMAP-3] */
  assert_status(lfa_object_load_partial(&again, NULL, at, "ds/b.rbm", &f, 4, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-BITMAP-3");
  assert_null(again);
  /* ... and to one of 3: offset 3 is past it [FA-BITMAP-4] */
  assert_status(lfa_object_load_partial(&again, NULL, at, "ds/b.rbm", &f, 3, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-BITMAP-4");
  assert_int_equal(c.stats.hits, 2);
  assert_int_equal(c.stats.kept[LFA_OBJECT_BITMAP], 1);
  /* the refused loads gave their loan back: one release leaves it idle */
  lfa_object_release(&c, LFA_OBJECT_BITMAP, rows);
  assert_non_null(c.idle_oldest);
  assert_ptr_equal(c.idle_oldest, c.idle_newest); /* one idle entry */
  lfa_object_cache_free(&c);
  lfa_memfs_free(&m);
}

/* ---- the cache: lent, kept within the budget, never dropped while borrowed ------------------- */

/* Bitmaps a0.rbm ... a9.rbm of equal shape (one array container of the
 * same cardinality), so that each counts the same against a budget. */
static void put_equal_bitmaps(lfa_memfs *m, uint64_t *size) {
  for (uint32_t i = 0; i < 10; i++) {
    char path[32];
    uint32_t v[3] = {i, i + 10, i + 20};
    snprintf(path, sizeof path, "ds/a%u.rbm", i);
    put_bitmap(m, path, v, 3, size);
  }
}

/* Loads and at once releases a<i>.rbm; whether it was read. */
static bool touch(lfa_object_cache *c, lfa_memfs *m, unsigned i, uint64_t size) {
  char path[32], rel[32];
  snprintf(path, sizeof path, "ds/a%u.rbm", i);
  snprintf(rel, sizeof rel, "a%u.rbm", i);
  AssignmentFile f = descriptor(rel, size);
  roaring_bitmap_t *rows = NULL;
  lfa_error err = {0};
  bool decoded = false;
  assert_ok(lfa_object_load_partial(&rows, &decoded, (lfa_objects){&m->fs, c}, path, &f, 64, &err), &err);
  lfa_object_release(c, LFA_OBJECT_BITMAP, rows);
  return decoded;
}

static void test_cache_keeps_the_most_recent_within_its_budget(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_object_cache probe, c;
  uint64_t size = 0;
  lfa_memfs_init(&m);
  put_equal_bitmaps(&m, &size);
  /* what one object counts: measured alone, in a cache with room */
  lfa_object_cache_init(&probe, 0);
  assert_true(touch(&probe, &m, 0, size));
  uint64_t one = probe.stats.held_bytes;
  assert_true(one > 0);
  lfa_object_cache_free(&probe);
  /* room for three and a half: the fourth drops the least recently used */
  lfa_object_cache_init(&c, 3 * one + one / 2);
  for (unsigned i = 0; i < 3; i++) assert_true(touch(&c, &m, i, size));
  assert_int_equal(c.stats.held_bytes, 3 * one);
  assert_int_equal(c.stats.evicted, 0);
  assert_false(touch(&c, &m, 0, size)); /* lent: a0 is now the most recent */
  assert_true(touch(&c, &m, 3, size));  /* a1, the least recent, goes */
  assert_int_equal(c.stats.evicted, 1);
  assert_int_equal(c.stats.held_bytes, 3 * one);
  assert_false(touch(&c, &m, 0, size));
  assert_false(touch(&c, &m, 2, size));
  assert_false(touch(&c, &m, 3, size));
  assert_true(touch(&c, &m, 1, size)); /* dropped, so read again */
  assert_int_equal(c.stats.evicted, 2);
  /* a long run of new objects: never more than the budget held between loads */
  for (unsigned round = 0; round < 3; round++)
    for (unsigned i = 0; i < 10; i++) {
      touch(&c, &m, i, size);
      assert_true(c.stats.held_bytes <= c.budget);
    }
  assert_true(c.stats.peak_bytes <= c.budget + one); /* at most one object in flight over it */
  lfa_object_cache_free(&c);
  lfa_memfs_free(&m);
}

static void test_cache_never_drops_a_borrowed_object(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_object_cache c;
  lfa_error err = {0};
  uint64_t size = 0;
  lfa_memfs_init(&m);
  put_equal_bitmaps(&m, &size);
  lfa_object_cache_init(&c, 1); /* room for nothing */
  roaring_bitmap_t *held[3] = {NULL, NULL, NULL};
  AssignmentFile f = descriptor("a5.rbm", size);
  lfa_objects at = {&m.fs, &c};
  for (int k = 0; k < 3; k++) assert_ok(lfa_object_load_partial(&held[k], NULL, at, "ds/a5.rbm", &f, 64, &err), &err);
  assert_ptr_equal(held[0], held[1]);
  assert_ptr_equal(held[1], held[2]);
  assert_int_equal(c.stats.evicted, 0); /* over the budget, but in use */
  assert_true(c.stats.held_bytes > c.budget);
  lfa_object_release(&c, LFA_OBJECT_BITMAP, held[0]);
  lfa_object_release(&c, LFA_OBJECT_BITMAP, held[1]);
  assert_int_equal(c.stats.evicted, 0);
  assert_true(roaring_bitmap_contains(held[2], 25)); /* still whole: {5, 15, 25} */
  lfa_object_release(&c, LFA_OBJECT_BITMAP, held[2]); /* the last loan back: over budget, dropped */
  assert_int_equal(c.stats.evicted, 1);
  assert_int_equal(c.stats.held_bytes, 0);
  lfa_object_cache_free(&c);
  lfa_memfs_free(&m);
}

/* ---- a verification within a small budget ------------------------------------------------------ */

enum { ROWS = 40000, COMMITS = 30 };

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
static const char *ID[] = {"id"}, *EMB[] = {"emb"};

/* One fragment of ROWS rows (keys 1..ROWS at offsets 0..ROWS-1); emb
 * written on every even offset (a bitmap of 20000 values, a bitset
 * container: 8 KiB), then COMMITS updates each writing one odd offset
 * more: every version has a bitmap and a root of its own. */
static void write_history(lfa_memfs *m) {
  static uint64_t keys[ROWS];
  lfa_history h;
  lfa_error err = {0};
  for (uint64_t k = 0; k < ROWS; k++) keys[k] = k + 1;
  assert_ok(lfa_history_open_in(&h, &m->fs, "ds", 5, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {ROWS, keys},
                   .rows_per_file = ROWS, .fields = {1, ID}};
  assert_ok(lfa_history_apply(&h, &c, 0, &err), &err);
  for (uint64_t k = 0; k < ROWS / 2; k++) keys[k] = 2 * k + 1; /* offsets 0, 2, 4, ... */
  lfa_request even = {.op = LFA_OP_UPDATE, .rows = {ROWS / 2, keys}, .fields = {1, EMB}, .rewrite_columns = true};
  assert_ok(lfa_history_apply(&h, &even, 0, &err), &err);
  for (uint64_t j = 0; j < COMMITS; j++) {
    uint64_t key = 2 * j + 2; /* offset 2j + 1 */
    lfa_request one = {.op = LFA_OP_UPDATE, .rows = {1, &key}, .fields = {1, EMB}, .rewrite_columns = true};
    assert_ok(lfa_history_apply(&h, &one, 0, &err), &err);
  }
  lfa_history_close(&h);
}

static void verify_with(lfa_verify_result *out, lfa_memfs *m, bool full, uint64_t budget) {
  lfa_error err = {0};
  lfa_verify_options o = {.full = full, .fs = &m->fs, .cache_bytes = budget};
  assert_ok(lfa_verify_dataset(out, "ds", &o, &err), &err);
}

/* What the objects of the last version count, loaded alone. */
static uint64_t one_version(lfa_memfs *m) {
  lfa_object_cache c;
  lfa_snapshot s;
  lfa_version_list l;
  lfa_names names;
  lfa_error err = {0};
  lfa_object_cache_init(&c, 0);
  assert_ok(lfa_dataset_versions(&l, &names, &m->fs, "ds", &err), &err);
  lfa_snapshot_options opt = {.fs = &m->fs, .cache = &c};
  assert_ok(lfa_snapshot_open(&s, "ds", &l.entries[l.count - 1], &opt, &err), &err);
  for (size_t i = 0; i < s.n_tracked; i++) assert_ok(lfa_snapshot_load_field(&s, "ds", i, &err), &err);
  uint64_t bytes = c.stats.held_bytes;
  lfa_snapshot_free(&s);
  lfa_version_list_free(&l);
  lfa_fs_names_free(&names);
  lfa_object_cache_free(&c);
  return bytes;
}

static void same_findings(const lfa_findings *a, const lfa_findings *b) {
  assert_int_equal(a->count, b->count);
  for (size_t i = 0; i < a->count; i++) {
    assert_string_equal(a->items[i].rule, b->items[i].rule);
    assert_string_equal(a->items[i].message, b->items[i].message);
  }
}

/* Two versions are in memory at a time, each borrowing its root and
 * bitmap; the cache keeps the rest only within its budget, so the most it
 * holds is the budget, the objects of two versions, and one object in
 * flight. With room for everything it holds every version's objects. */
static void test_verify_keeps_within_its_cache_budget(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_verify_result small, roomy, full;
  lfa_memfs_init(&m);
  write_history(&m);
  uint64_t one = one_version(&m);
  assert_true(one > 8192); /* a bitset container at least */
  uint64_t budget = 4 * one;
  verify_with(&small, &m, false, budget);
  verify_with(&roomy, &m, false, 0);
  verify_with(&full, &m, true, 0);
  assert_int_equal(small.versions_checked, COMMITS + 2);
  assert_int_equal(lfa_findings_count(&small.findings, LFA_SEVERITY_ERROR), 0);
  same_findings(&small.findings, &roomy.findings);
  same_findings(&small.findings, &full.findings);
  assert_true(small.cache.evicted > 0);
  assert_true(small.cache.peak_bytes <= budget + 3 * one);
  /* the bound says something: without eviction the run holds far more */
  assert_int_equal(roomy.cache.evicted, 0);
  assert_true(roomy.cache.peak_bytes > budget + 3 * one);
  assert_true(roomy.cache.peak_bytes >= (COMMITS + 1) * (one - one / 8)); /* about one per version */
  assert_int_equal(full.cache.peak_bytes, 0); /* no cache at all */
  lfa_verify_result_free(&small);
  lfa_verify_result_free(&roomy);
  lfa_verify_result_free(&full);
  lfa_memfs_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_STORE_5_labels_what_a_load_finds),
      cmocka_unit_test(test_FA_LANCE_16_deletion_file_not_there),
      cmocka_unit_test(test_FA_BITMAP_3_FA_BITMAP_4_partial_checked_when_lent),
      cmocka_unit_test(test_cache_keeps_the_most_recent_within_its_budget),
      cmocka_unit_test(test_cache_never_drops_a_borrowed_object),
      cmocka_unit_test(test_verify_keeps_within_its_cache_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
