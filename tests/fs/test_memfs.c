/* test_memfs.c: the in-memory file system (lfa/memfs.h) and the lfa_fs
 * plumbing of the reader, the writer and the verifier (lfa/fs.h).
 *
 *  - the memfs keeps the contract of the POSIX file system: bounded reads
 *    (FA-LIMIT-1), create-only writes (FA-STORE-8), sorted listings, a
 *    directory claimed once;
 *  - its bounds (LFA_MEMFS_FILES_MAX, LFA_MEMFS_BYTES_MAX) hold for writes
 *    and for the container;
 *  - the container decoder on hostile input: every status below is derived
 *    by hand from the format in memfs.h, byte by byte;
 *  - one history written by the reference writer to a memfs and to disk
 *    with the same seed: the same files with the same bytes, both verified
 *    clean, every version read back the same from both; clones too.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "testutil.h"

#include <unistd.h>

#include "lfa/dataset.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/memfs.h"
#include "lfa/snapshot_model.h"
#include "lfa/table.h"
#include "lfa/verify.h"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

static lfa_status put(lfa_memfs *m, const char *path, const char *text, lfa_error *err) {
  return lfa_fs_write_new_in(&m->fs, path, (const uint8_t *)text, strlen(text), err);
}

static void assert_names(const lfa_names *n, const char *const *want, size_t count) {
  assert_int_equal(n->count, count);
  for (size_t i = 0; i < count; i++) assert_string_equal(n->names[i], want[i]);
}

/* ---- the lfa_fs contract ----------------------------------------------------------------- */

static void test_paths_name_one_file(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_buf b = {0};
  lfa_memfs_init(&m);
  assert_ok(put(&m, "ds/_versions/1.manifest", "abc", &err), &err);
  /* "/a//b", "./a/b" and "a/b" are one path (memfs.h, Paths) */
  assert_ok(lfa_fs_read_in(&b, &m.fs, "/ds//_versions/./1.manifest", 16, &err), &err);
  assert_int_equal(b.len, 3);
  assert_memory_equal(b.data, "abc", 3);
  lfa_buf_free(&b);
  uint64_t size = 0;
  assert_true(lfa_fs_size_in(&m.fs, "./ds/_versions/1.manifest", &size));
  assert_int_equal(size, 3);
  assert_false(lfa_fs_size_in(&m.fs, "ds/_versions", &size)); /* a directory has no size */
  assert_true(lfa_fs_is_dir_in(&m.fs, "ds"));
  assert_true(lfa_fs_is_dir_in(&m.fs, "ds/_versions/"));
  assert_true(lfa_fs_is_dir_in(&m.fs, "/")); /* the root always exists */
  assert_false(lfa_fs_is_dir_in(&m.fs, "ds/_versions/1.manifest"));
  assert_true(lfa_fs_exists_in(&m.fs, "ds/_versions/1.manifest"));
  assert_false(lfa_fs_exists_in(&m.fs, "ds/_version"));
  assert_false(lfa_fs_exists_in(&m.fs, "ds/../ds")); /* ".." is a name, not a parent */
  assert_status(lfa_fs_read_in(&b, &m.fs, "ds/_versions", 16, &err), LFA_ERR_IO, &err);
  assert_status(lfa_fs_read_in(&b, &m.fs, "ds/nothing", 16, &err), LFA_ERR_IO, &err);
  lfa_memfs_free(&m);
}

static void test_FA_LIMIT_1_read_bounded(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_buf b = {0};
  lfa_memfs_init(&m);
  assert_ok(put(&m, "f", "12345", &err), &err);
  assert_ok(lfa_fs_read_in(&b, &m.fs, "f", 5, &err), &err); /* exactly the limit: read */
  lfa_buf_free(&b);
  assert_status(lfa_fs_read_in(&b, &m.fs, "f", 4, &err), LFA_ERR_LIMIT, &err); /* one past it: refused */
  assert_rule(&err, "FA-LIMIT-1");
  assert_null(b.data);
  lfa_memfs_free(&m);
}

static void test_FA_STORE_8_write_new_never_replaces(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  assert_ok(put(&m, "a/b", "one", &err), &err);
  assert_status(put(&m, "./a//b", "two", &err), LFA_ERR_IO, &err);
  assert_rule(&err, "FA-STORE-8");
  assert_status(put(&m, "a", "x", &err), LFA_ERR_IO, &err);     /* a directory */
  assert_status(put(&m, "a/b/c", "x", &err), LFA_ERR_IO, &err); /* under a file */
  assert_status(put(&m, "/", "x", &err), LFA_ERR_IO, &err);     /* the root */
  assert_memory_equal(lfa_memfs_find(&m, "a/b")->data.data, "one", 3);
  /* lfa_memfs_put replaces (for builders and fault injection) */
  assert_ok(lfa_memfs_put(&m, "a/b", (const uint8_t *)"second", 6, &err), &err);
  assert_int_equal(lfa_memfs_find(&m, "a/b")->data.len, 6);
  assert_int_equal(m.bytes, 6);
  assert_true(lfa_memfs_remove(&m, "a/b"));
  assert_false(lfa_memfs_remove(&m, "a/b"));
  assert_int_equal(m.bytes, 0);
  assert_int_equal(m.count, 0);
  lfa_memfs_free(&m);
}

static void test_list_sorted_children(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_names n;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  /* "b-x" sorts between "b" and "b/x" ('-' is below '/'): "b" is listed once */
  static const char *const files[] = {"b/x", "b-x", "b/y/z", "a", "c.d"};
  for (size_t i = 0; i < 5; i++) assert_ok(put(&m, files[i], "", &err), &err);
  assert_ok(lfa_fs_list_in(&n, &m.fs, "", 0, &err), &err);
  assert_names(&n, (const char *const[]){"a", "b", "b-x", "c.d"}, 4);
  lfa_fs_names_free(&n);
  assert_ok(lfa_fs_list_in(&n, &m.fs, "/b/", 0, &err), &err);
  assert_names(&n, (const char *const[]){"x", "y"}, 2);
  lfa_fs_names_free(&n);
  assert_status(lfa_fs_list_in(&n, &m.fs, "nope", 0, &err), LFA_ERR_IO, &err);
  assert_ok(lfa_fs_list_in(&n, &m.fs, "nope", 1, &err), &err); /* missing_ok: empty */
  assert_int_equal(n.count, 0);
  assert_status(lfa_fs_list_in(&n, &m.fs, "a", 1, &err), LFA_ERR_IO, &err); /* a file */
  lfa_memfs_free(&m);
}

static void test_make_dir_claims_once(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_names n;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  assert_ok(lfa_fs_make_dir_in(&m.fs, ".", &err), &err); /* an empty root: claimed */
  assert_status(lfa_fs_make_dir_in(&m.fs, "", &err), LFA_ERR_USAGE, &err); /* only once */
  assert_ok(lfa_fs_make_dir_in(&m.fs, "ds", &err), &err);
  assert_status(lfa_fs_make_dir_in(&m.fs, "ds/", &err), LFA_ERR_USAGE, &err);
  assert_status(lfa_fs_make_dir_in(&m.fs, "x/y", &err), LFA_ERR_IO, &err); /* no parent */
  assert_true(lfa_fs_is_dir_in(&m.fs, "ds"));
  assert_ok(lfa_fs_list_in(&n, &m.fs, "ds", 0, &err), &err); /* empty, but there */
  assert_int_equal(n.count, 0);
  assert_ok(lfa_fs_list_in(&n, &m.fs, "", 0, &err), &err);
  assert_names(&n, (const char *const[]){"ds"}, 1);
  lfa_fs_names_free(&n);
  assert_status(put(&m, "ds", "x", &err), LFA_ERR_IO, &err);
  assert_ok(put(&m, "ds/f", "x", &err), &err);
  /* a writer refuses a directory that exists, as on disk */
  lfa_writer *w = NULL;
  assert_status(lfa_writer_open_in(&w, &m.fs, "ds", 1, &err), LFA_ERR_USAGE, &err);
  assert_null(w);
  /* a non-empty root cannot be claimed */
  lfa_memfs_free(&m);
  assert_ok(put(&m, "f", "x", &err), &err);
  assert_status(lfa_fs_make_dir_in(&m.fs, "/", &err), LFA_ERR_USAGE, &err);
  lfa_memfs_free(&m);
}

/* [FA-LANCE-2] a `_versions/` whose names are none of a manifest's: the
 * listing fails and leaves nothing to free (the fuzz target whole_dataset
 * found the version list leaked, corpus/whole_dataset/
 * FA-LANCE-2-versions-without-a-manifest-name.memfs). */
static void test_FA_LANCE_2_no_version_listed(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_version_list list;
  lfa_names names;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  assert_ok(put(&m, "_versions/1amfni.est", "LANC", &err), &err);
  assert_status(lfa_dataset_versions(&list, &names, &m.fs, ".", &err), LFA_ERR_FORMAT, &err);
  assert_rule(&err, "FA-LANCE-2");
  assert_null(list.entries);
  assert_int_equal(list.count, 0);
  assert_null(names.names);
  lfa_memfs_free(&m);
}

/* [FA-OVERLAY-3] [FA-VERIFY-5] an overlay whose coverage bitmap does not
 * decode is a finding of its version, not a failure of the whole run: the
 * fuzz target whole_dataset found lfa_verify_dataset giving up on the
 * history of corpus/whole_dataset/FA-OVERLAY-3-corrupt-coverage-bitmap.memfs
 * (version 8 names, in fragment 0's overlay, a Roaring container at offset
 * 8388624 of a 16-byte bitmap). Versions 1 to 9 are still all checked. */
static void test_FA_OVERLAY_3_corrupt_coverage_is_a_finding(void **state) {
  (void)state;
  size_t len = 0;
  uint8_t *bytes = tu_read_file("corpus/whole_dataset/FA-OVERLAY-3-corrupt-coverage-bitmap.memfs", &len);
  lfa_memfs m;
  lfa_verify_result r;
  lfa_error err = {0};
  assert_ok(lfa_memfs_decode(&m, bytes, len, &err), &err);
  assert_ok(lfa_verify_dataset(&r, ".", &(lfa_verify_options){.fs = &m.fs}, &err), &err);
  assert_int_equal(r.versions_checked, 9);
  const lfa_finding *f = lfa_findings_find(&r.findings, "FA-BITMAP-2", LFA_SEVERITY_ERROR);
  assert_non_null(f);
  assert_int_equal(f->version, 8);
  assert_non_null(strstr(f->message, "overlay"));
  lfa_verify_result_free(&r);
  /* a last version that does not load is not handed out */
  lfa_verify_options to8 = {.fs = &m.fs, .has_to = true, .to = 8};
  assert_ok(lfa_verify_dataset(&r, ".", &to8, &err), &err);
  assert_int_equal(r.versions_checked, 8);
  assert_false(r.last_loaded);
  lfa_verify_result_free(&r);
  lfa_memfs_free(&m);
  free(bytes);
}

/* ---- the bounds ------------------------------------------------------------------------------ */

static void test_limit_files(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  char name[32];
  lfa_memfs_init(&m);
  for (unsigned i = 0; i < LFA_MEMFS_FILES_MAX; i++) {
    snprintf(name, sizeof name, "f%05u", i);
    assert_ok(put(&m, name, "", &err), &err);
  }
  assert_status(put(&m, "one-more", "", &err), LFA_ERR_LIMIT, &err);
  assert_status(lfa_fs_make_dir_in(&m.fs, "dir", &err), LFA_ERR_LIMIT, &err); /* a directory counts too */
  assert_int_equal(m.count, LFA_MEMFS_FILES_MAX);
  assert_ok(lfa_memfs_put(&m, "f00000", (const uint8_t *)"x", 1, &err), &err); /* replacing adds none */
  lfa_memfs_free(&m);
}

static void test_limit_bytes(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  uint8_t *big = calloc(LFA_MEMFS_BYTES_MAX, 1);
  assert_non_null(big);
  assert_status(lfa_fs_write_new_in(&m.fs, "big", big, LFA_MEMFS_BYTES_MAX + (size_t)1, &err), LFA_ERR_LIMIT, &err);
  assert_ok(lfa_fs_write_new_in(&m.fs, "big", big, LFA_MEMFS_BYTES_MAX - 10, &err), &err);
  assert_ok(lfa_fs_write_new_in(&m.fs, "ten", big, 10, &err), &err); /* exactly full */
  assert_status(lfa_fs_write_new_in(&m.fs, "one", big, 1, &err), LFA_ERR_LIMIT, &err);
  assert_ok(lfa_fs_write_new_in(&m.fs, "empty", big, 0, &err), &err); /* 0 bytes always fit */
  /* replacing counts the difference: 10 -> 11 passes, 10 -> 9 is fine */
  assert_status(lfa_memfs_put(&m, "ten", big, 11, &err), LFA_ERR_LIMIT, &err);
  assert_ok(lfa_memfs_put(&m, "ten", big, 9, &err), &err);
  assert_int_equal(m.bytes, LFA_MEMFS_BYTES_MAX - 1);
  free(big);
  lfa_memfs_free(&m);
}

/* ---- the container on hostile input ---------------------------------------------------------- */

static lfa_status decode(lfa_memfs *m, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_status st = lfa_memfs_decode(m, data, len, err);
  if (st != LFA_OK) assert_int_equal(m->count, 0); /* an empty memfs on failure */
  return st;
}

static void test_container_valid(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  assert_ok(decode(&m, NULL, 0, &err), &err); /* no entry: an empty memfs */
  assert_int_equal(m.count, 0);
  lfa_memfs_free(&m);
  /* [1]"b" [2]"hi"  [3]"a/c" [0]  ->  a/c (0 bytes), b ("hi"); any order */
  assert_ok(decode(&m, BYTES(1, 'b', 2, 'h', 'i', 3, 'a', '/', 'c', 0), &err), &err);
  assert_int_equal(m.count, 2);
  assert_int_equal(lfa_memfs_find(&m, "a/c")->data.len, 0);
  assert_memory_equal(lfa_memfs_find(&m, "b")->data.data, "hi", 2);
  assert_int_equal(m.bytes, 2);
  /* encode writes name order: [3]"a/c" [0] [1]"b" [2]"hi" */
  lfa_buf b = {0};
  assert_ok(lfa_memfs_encode(&b, &m, &err), &err);
  const uint8_t want[] = {3, 'a', '/', 'c', 0, 1, 'b', 2, 'h', 'i'};
  assert_int_equal(b.len, sizeof want);
  assert_memory_equal(b.data, want, sizeof want);
  lfa_buf_free(&b);
  lfa_memfs_free(&m);
  /* a name is normalized: "./x//y" is x/y */
  assert_ok(decode(&m, BYTES(6, '.', '/', 'x', '/', '/', 'y', 0), &err), &err);
  assert_non_null(lfa_memfs_find(&m, "x/y"));
  lfa_memfs_free(&m);
  /* a two-byte length: 0x82 0x01 = 2 + 1 * 128 = 130 bytes of data */
  uint8_t two[1 + 1 + 2 + 130] = {1, 'z', 0x82, 0x01};
  assert_ok(decode(&m, two, sizeof two, &err), &err);
  assert_int_equal(lfa_memfs_find(&m, "z")->data.len, 130);
  lfa_memfs_free(&m);
}

static void test_container_hostile(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  /* a varint whose continuation bit runs off the end */
  assert_status(decode(&m, BYTES(0x80), &err), LFA_ERR_TRUNCATED, &err);
  /* a name length of 5 with 1 byte left */
  assert_status(decode(&m, BYTES(5, 'a'), &err), LFA_ERR_TRUNCATED, &err);
  /* a name, then no data length */
  assert_status(decode(&m, BYTES(1, 'a'), &err), LFA_ERR_TRUNCATED, &err);
  /* a data length of 3 with 2 bytes left */
  assert_status(decode(&m, BYTES(1, 'a', 3, 'x', 'y'), &err), LFA_ERR_TRUNCATED, &err);
  /* an empty name */
  assert_status(decode(&m, BYTES(0, 0), &err), LFA_ERR_FORMAT, &err);
  /* a NUL byte inside a name */
  assert_status(decode(&m, BYTES(3, 'a', 0, 'b', 0), &err), LFA_ERR_FORMAT, &err);
  /* names of the root: "/", ".", "./" */
  assert_status(decode(&m, BYTES(1, '/', 0), &err), LFA_ERR_FORMAT, &err);
  assert_status(decode(&m, BYTES(1, '.', 0), &err), LFA_ERR_FORMAT, &err);
  assert_status(decode(&m, BYTES(2, '.', '/', 0), &err), LFA_ERR_FORMAT, &err);
  /* one path twice: "a" and "./a" */
  assert_status(decode(&m, BYTES(1, 'a', 0, 3, '.', '/', 'a', 0), &err), LFA_ERR_FORMAT, &err);
  /* a file that is also a directory, either order, with "a-b" sorting between */
  assert_status(decode(&m, BYTES(1, 'a', 0, 3, 'a', '-', 'b', 0, 3, 'a', '/', 'c', 0), &err), LFA_ERR_FORMAT, &err);
  assert_status(decode(&m, BYTES(3, 'a', '/', 'c', 0, 1, 'a', 0), &err), LFA_ERR_FORMAT, &err);
  /* a tenth varint byte holding more than bit 63: past 64 bits */
  assert_status(decode(&m, BYTES(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02), &err), LFA_ERR_FORMAT,
                &err);
  /* 2^64 - 1 as a name length (the largest varint): far past the name limit */
  assert_status(decode(&m, BYTES(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01), &err), LFA_ERR_LIMIT,
                &err);
  /* an eleventh varint byte */
  assert_status(decode(&m, BYTES(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00), &err),
                LFA_ERR_FORMAT, &err);
  /* a name of LFA_PATH_BYTES_MAX bytes: 4096 = 0x80 0x20 */
  assert_status(decode(&m, BYTES(0x80, 0x20, 'a'), &err), LFA_ERR_LIMIT, &err);
  /* a data length of 2^63: truncated, nothing allocated */
  assert_status(decode(&m, BYTES(1, 'a', 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), &err),
                LFA_ERR_TRUNCATED, &err);
}

/* Every prefix of a valid container: whole entries decode (with that many
 * files), any other cut is truncated. Entries: [1]"a"[1]"x" ends at byte 4,
 * [2]"bb"[0] at byte 8, [1]"c"[2]"yz" at byte 14. */
static void test_container_every_prefix(void **state) {
  (void)state;
  const uint8_t c[] = {1, 'a', 1, 'x', 2, 'b', 'b', 0, 1, 'c', 2, 'y', 'z'};
  size_t files_at[sizeof c + 1];
  for (size_t n = 0; n <= sizeof c; n++) files_at[n] = SIZE_MAX; /* truncated */
  files_at[0] = 0, files_at[4] = 1, files_at[8] = 2, files_at[13] = 3;
  for (size_t n = 0; n <= sizeof c; n++) {
    lfa_memfs m;
    lfa_error err = {0};
    lfa_status st = decode(&m, c, n, &err);
    if (files_at[n] == SIZE_MAX) {
      assert_status(st, LFA_ERR_TRUNCATED, &err);
    } else {
      assert_ok(st, &err);
      assert_int_equal(m.count, files_at[n]);
    }
    lfa_memfs_free(&m);
  }
}

static void test_container_limits(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  /* LFA_MEMFS_FILES_MAX + 1 entries of 6 bytes: [4]"fNNN" [0], names in base 36 */
  size_t n = LFA_MEMFS_FILES_MAX + 1;
  uint8_t *c = malloc(6 * n);
  assert_non_null(c);
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (size_t i = 0; i < n; i++) {
    uint8_t *e = c + 6 * i;
    e[0] = 4, e[1] = 'f', e[2] = (uint8_t)digits[i / 1296], e[3] = (uint8_t)digits[i / 36 % 36];
    e[4] = (uint8_t)digits[i % 36], e[5] = 0;
  }
  assert_status(decode(&m, c, 6 * n, &err), LFA_ERR_LIMIT, &err);
  assert_ok(decode(&m, c, 6 * (n - 1), &err), &err); /* exactly the limit */
  assert_int_equal(m.count, LFA_MEMFS_FILES_MAX);
  lfa_memfs_free(&m);
  free(c);
}

/* Bytes from a fixed generator: never crash, fail with a known status or
 * decode to a memfs that encodes and decodes to itself. */
static void test_container_random_bytes(void **state) {
  (void)state;
  uint64_t seed = 6;
  uint8_t buf[64];
  size_t ok = 0;
  for (int round = 0; round < 20000; round++) {
    size_t len = (size_t)(tu_rand(&seed) % sizeof buf);
    for (size_t i = 0; i < len; i++) {
      uint64_t r = tu_rand(&seed);
      buf[i] = (uint8_t)(r % 4 == 0 ? r % 8 : r >> 56); /* short lengths often */
    }
    lfa_memfs m, again;
    lfa_error err = {0};
    lfa_status st = decode(&m, buf, len, &err);
    if (st != LFA_OK) {
      assert_true(st == LFA_ERR_TRUNCATED || st == LFA_ERR_FORMAT || st == LFA_ERR_LIMIT);
      continue;
    }
    ok++;
    lfa_buf b = {0};
    assert_ok(lfa_memfs_encode(&b, &m, &err), &err);
    assert_ok(decode(&again, b.data, b.len, &err), &err);
    assert_int_equal(again.count, m.count);
    for (size_t i = 0; i < m.count; i++) {
      assert_string_equal(again.entries[i].name, m.entries[i].name);
      assert_int_equal(again.entries[i].data.len, m.entries[i].data.len);
    }
    lfa_buf_free(&b);
    lfa_memfs_free(&m);
    lfa_memfs_free(&again);
  }
  assert_true(ok > 100); /* the generator reaches valid containers too */
}

/* ---- a history in memory and on disk ----------------------------------------------------------- */

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"payload", "struct", true, LFA_UNTRACKED},
    {"payload.value", "int32", true, LFA_UNASSIGNED},
    {"tag", "string", true, LFA_ASSIGNED},
};

/* Create, column update, append, row-moving update with an invalidation,
 * delete, compaction, restore, rename: deletion files, partial bitmaps,
 * shared objects and (with stable row ids) row id sequences. */
static void write_steps(lfa_history *h, bool stable, size_t from, size_t to) {
  static const uint64_t K1_6[] = {1, 2, 3, 4, 5, 6};
  const char *id[] = {"id"}, *emb[] = {"emb"}, *id_emb[] = {"id", "emb"}, *value[] = {"payload.value"};
  const lfa_request steps[] = {
      {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 5, .stable_row_ids = stable, .rows = {6, K1_6},
       .rows_per_file = 3, .fields = {1, id}},
      {.op = LFA_OP_UPDATE, .rows = {3, (const uint64_t[]){2, 4, 6}}, .fields = {1, emb}, .rewrite_columns = true},
      {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}}, .fields = {2, id_emb}},
      {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){1, 2}}, .fields = {1, value}, .invalidate = {1, emb}},
      {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){3}}},
      {.op = LFA_OP_COMPACT},
      {.op = LFA_OP_RESTORE, .version = 3},
      {.op = LFA_OP_RENAME, .field = "emb", .new_name = "vec"},
  };
  lfa_error err = {0};
  for (size_t i = from; i < to && i < sizeof steps / sizeof steps[0]; i++)
    if (lfa_history_apply(h, &steps[i], 0, &err) != LFA_OK)
      fail_msg("step %zu (%s): %s", i + 1, lfa_op_name(steps[i].op), err.msg);
}

static void write_history(lfa_history *h, bool stable) { write_steps(h, stable, 0, SIZE_MAX); }

/* Every file under `dir` on disk is in `m` under `prefix` with the same
 * bytes; returns how many there are. */
static size_t same_files(const char *dir, const lfa_memfs *m, const char *prefix) {
  lfa_names names;
  lfa_error err = {0};
  size_t files = 0;
  assert_ok(lfa_fs_list(&names, dir, 0, &err), &err);
  for (size_t i = 0; i < names.count; i++) {
    char path[LFA_PATH_BYTES_MAX], rel[LFA_PATH_BYTES_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, names.names[i]);
    snprintf(rel, sizeof rel, "%s/%s", prefix, names.names[i]);
    if (lfa_fs_is_dir(path)) {
      files += same_files(path, m, rel);
      continue;
    }
    lfa_buf b = {0};
    assert_ok(lfa_fs_read(&b, path, 1 << 20, &err), &err);
    const lfa_memfs_entry *e = lfa_memfs_find(m, rel);
    if (e == NULL) fail_msg("%s is on disk, not in memory", rel);
    assert_int_equal(e->data.len, b.len);
    if (b.len > 0) assert_memory_equal(e->data.data, b.data, b.len);
    lfa_buf_free(&b);
    files++;
  }
  lfa_fs_names_free(&names);
  return files;
}

static lfa_verify_result verify_on(const lfa_fs *fs, const char *dir) {
  lfa_verify_result r;
  lfa_error err = {0};
  lfa_verify_options o = {.fs = fs};
  if (lfa_verify_dataset(&r, dir, &o, &err) != LFA_OK) fail_msg("%s: %s", dir, err.msg);
  if (r.findings.count != 0) {
    lfa_verify_print_text(stdout, &r, dir);
    fail_msg("%s: %zu findings on a history of the reference writer", dir, r.findings.count);
  }
  return r;
}

/* Version v of `dir` on `fs`, read back as a table. */
static void read_back(lfa_table *out, const lfa_fs *fs, const char *dir, uint64_t v) {
  lfa_error err = {0};
  assert_ok(lfa_table_load_version(out, fs, dir, v, &err), &err);
}

/* Same schema, fragments (ids, rows, deletions, row ids) and state of
 * every tracked field on every live row. */
static void assert_same_table(const lfa_table *a, const lfa_table *b) {
  assert_int_equal(a->version, b->version);
  assert_int_equal(a->stable_row_ids, b->stable_row_ids);
  assert_int_equal(a->n_fields, b->n_fields);
  for (size_t i = 0; i < a->n_fields; i++) {
    assert_int_equal(a->fields[i].id, b->fields[i].id);
    assert_string_equal(a->fields[i].name, b->fields[i].name);
  }
  assert_int_equal(a->n_fragments, b->n_fragments);
  for (size_t i = 0; i < a->n_fragments; i++) {
    const lfa_fragment *x = &a->fragments[i], *y = &b->fragments[i];
    assert_int_equal(x->id, y->id);
    assert_int_equal(x->physical_rows, y->physical_rows);
    for (uint32_t o = 0; o < x->physical_rows; o++) {
      assert_int_equal(lfa_fragment_is_live(x, o), lfa_fragment_is_live(y, o));
      if (a->stable_row_ids) assert_int_equal(x->row_ids[o], y->row_ids[o]);
    }
  }
  assert_int_equal(a->n_tracked, b->n_tracked);
  for (size_t t = 0; t < a->n_tracked; t++) {
    assert_int_equal(a->tracked[t].field_id, b->tracked[t].field_id);
    for (size_t i = 0; i < a->n_fragments; i++)
      assert_true(lfa_cells_equal_live(&a->tracked[t].cells[i], &b->tracked[t].cells[i], &a->fragments[i]));
  }
}

static void scratch(char *base, size_t cap) {
  snprintf(base, cap, "/tmp/lfa-memfs-XXXXXX");
  assert_non_null(mkdtemp(base));
}

static void remove_scratch(const char *base) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  assert_int_equal(system(cmd), 0);
}

static void test_history_in_memory_equals_on_disk(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    char base[64], dir[96];
    scratch(base, sizeof base);
    snprintf(dir, sizeof dir, "%s/ds", base);
    lfa_memfs m;
    lfa_history disk, mem;
    lfa_error err = {0};
    lfa_memfs_init(&m);
    assert_ok(lfa_history_open(&disk, dir, 42, &err), &err);
    assert_ok(lfa_history_open_in(&mem, &m.fs, ".", 42, &err), &err); /* the root of a fresh memfs */
    write_history(&disk, stable);
    write_history(&mem, stable);
    /* the same seed, the same history: the same files, byte for byte */
    size_t files = same_files(dir, &m, ".");
    assert_int_equal(files, m.count);
    assert_true(files > 20);
    lfa_verify_result a = verify_on(lfa_fs_posix(), dir), b = verify_on(&m.fs, "");
    assert_int_equal(a.versions_checked, 8);
    assert_int_equal(b.versions_checked, 8);
    assert_int_equal(a.objects_decoded, b.objects_decoded);
    lfa_verify_result_free(&a);
    lfa_verify_result_free(&b);
    for (uint64_t v = 1; v <= 8; v++) {
      lfa_table x, y;
      read_back(&x, lfa_fs_posix(), dir, v);
      read_back(&y, &m.fs, "/", v);
      assert_same_table(&x, &y);
      /* the verifier hands out the last version it checked as it loaded it */
      lfa_verify_options upto = {.fs = &m.fs, .has_from = true, .from = v, .has_to = true, .to = v};
      assert_ok(lfa_verify_dataset(&b, ".", &upto, &err), &err);
      assert_true(b.last_loaded);
      assert_same_table(&b.last, &y);
      lfa_verify_result_free(&b);
      lfa_table_free(&x);
      lfa_table_free(&y);
    }
    lfa_history_close(&disk);
    lfa_history_close(&mem);
    lfa_memfs_free(&m);
    remove_scratch(base);
  }
}

/* Commits tried and taken back (the explorer's way, lfa/history.h and
 * lfa_memfs_rewind) leave no trace: a history that wrote steps 5 to 8,
 * went back to after step 4 and wrote them again holds the same files,
 * byte for byte, as one that wrote them once, so no object of a taken-back
 * commit is reused and the writer's generator went back too. Taken back
 * twice, to show a mark serves again. */
static void test_rewind_as_if_never_tried(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    lfa_memfs once, tried;
    lfa_history a, b;
    lfa_history_mark mark;
    lfa_error err = {0};
    lfa_memfs_init(&once), lfa_memfs_init(&tried);
    assert_ok(lfa_history_open_in(&a, &once.fs, ".", 7, &err), &err);
    assert_ok(lfa_history_open_in(&b, &tried.fs, ".", 7, &err), &err);
    write_history(&a, stable);
    write_steps(&b, stable, 0, 4);
    uint64_t files = lfa_memfs_mark(&tried), bytes = tried.bytes;
    assert_ok(lfa_history_mark_now(&mark, &b, &err), &err);
    for (int round = 0; round < 2; round++) {
      write_steps(&b, stable, 4, SIZE_MAX);
      assert_int_equal(b.count, 8);
      lfa_memfs_rewind(&tried, files);
      assert_ok(lfa_history_rewind(&b, &mark, &err), &err);
      assert_int_equal(b.count, 4);
      assert_int_equal(tried.bytes, bytes);
    }
    lfa_history_mark_drop(&mark);
    write_steps(&b, stable, 4, SIZE_MAX);
    assert_int_equal(once.count, tried.count);
    for (size_t i = 0; i < once.count; i++) {
      assert_string_equal(once.entries[i].name, tried.entries[i].name);
      assert_int_equal(once.entries[i].data.len, tried.entries[i].data.len);
      if (once.entries[i].data.len) assert_memory_equal(once.entries[i].data.data, tried.entries[i].data.data, once.entries[i].data.len);
    }
    lfa_history_close(&a), lfa_history_close(&b);
    lfa_memfs_free(&once), lfa_memfs_free(&tried);
  }
}

/* [FA-CLONE-1] [FA-CLONE-2] clones of a history in memory, written beside
 * it: both verify clean, read back as the version they clone, and the
 * verifier finds the shallow clone's source through the memfs. The deep
 * clone copies roots with all_assigned entries (field tag): the writer once
 * read such an entry's `partial`, a oneof member sharing its storage with
 * all_assigned, as a pointer, and crashed. */
static void test_clones_in_memory(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_history src, shallow, deep;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  assert_ok(lfa_history_open_in(&src, &m.fs, "src", 7, &err), &err);
  write_history(&src, false);
  assert_ok(lfa_history_clone(&shallow, &src, 4, "shallow", false, 8, &err), &err);
  assert_ok(lfa_history_clone(&deep, &src, 4, "deep", true, 9, &err), &err);
  assert_false(lfa_fs_exists_in(&m.fs, "shallow/_field_assignments")); /* shallow: nothing copied */
  assert_true(lfa_fs_is_dir_in(&m.fs, "deep/_field_assignments/roots"));   /* deep: the objects copied */
  lfa_table want, got;
  read_back(&want, &m.fs, "src", 4);
  for (int i = 0; i < 2; i++) {
    const char *dir = i ? "deep" : "shallow";
    lfa_verify_result r = verify_on(&m.fs, dir);
    lfa_verify_result_free(&r);
    read_back(&got, &m.fs, dir, 1);
    got.version = 4; /* the clone's version 1 is the source's version 4 */
    assert_same_table(&want, &got);
    lfa_table_free(&got);
  }
  lfa_table_free(&want);
  lfa_history_close(&shallow);
  lfa_history_close(&deep);
  lfa_history_close(&src);
  lfa_memfs_free(&m);
}

/* A new file's place is found from its sorted neighbours: names "d" + a
 * byte below '/' sort between "d" and "d/...", and must not hide that "d"
 * is a directory; a file must not hide below a file either. */
static void test_new_file_place_among_close_names(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  assert_ok(put(&m, "d-x", "1", &err), &err);
  assert_ok(put(&m, "d.y", "2", &err), &err);
  assert_ok(put(&m, "d", "3", &err), &err); /* no "d/..." yet: a file */
  assert_status(put(&m, "d/z", "4", &err), LFA_ERR_IO, &err); /* a file stands where a directory should */
  assert_ok(put(&m, "e-x", "5", &err), &err);
  assert_ok(put(&m, "e.y", "6", &err), &err);
  assert_ok(put(&m, "e/z", "7", &err), &err);
  assert_status(put(&m, "e", "8", &err), LFA_ERR_IO, &err); /* is a directory, behind e-x and e.y */
  assert_non_null(strstr(err.msg, "is a directory"));
  assert_ok(put(&m, "e0", "9", &err), &err); /* '0' sorts after '/': a sibling, not a child */
  assert_status(put(&m, "e/z/w", "10", &err), LFA_ERR_IO, &err);
  assert_ok(put(&m, "e/y/w", "11", &err), &err);
  assert_ok(put(&m, "e/y/v", "12", &err), &err);
  assert_int_equal(m.count, 9);
  lfa_memfs_free(&m);
}

/* A file cannot replace a directory, even when a sibling whose name
 * continues with a byte below '/' sorts between the two: with a/d-x and
 * a/d/y (sorted a/d-x, a/d/y, since '-' < '/'), a/d is a directory and
 * no file; a/d-x and a/d.z are files beside it. */
static void test_file_where_a_directory_is_refused(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_error err = {0};
  lfa_memfs_init(&m);
  assert_ok(put(&m, "a/d-x", "1", &err), &err);
  assert_ok(put(&m, "a/d/y", "2", &err), &err);
  assert_status(put(&m, "a/d", "3", &err), LFA_ERR_IO, &err);
  assert_non_null(strstr(err.msg, "is a directory"));
  assert_true(lfa_fs_is_dir_in(&m.fs, "a/d"));
  assert_ok(put(&m, "a/d.z", "4", &err), &err);
  lfa_memfs_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_paths_name_one_file),
      cmocka_unit_test(test_file_where_a_directory_is_refused),
      cmocka_unit_test(test_rewind_as_if_never_tried),
      cmocka_unit_test(test_FA_LIMIT_1_read_bounded),
      cmocka_unit_test(test_FA_STORE_8_write_new_never_replaces),
      cmocka_unit_test(test_list_sorted_children),
      cmocka_unit_test(test_new_file_place_among_close_names),
      cmocka_unit_test(test_make_dir_claims_once),
      cmocka_unit_test(test_FA_LANCE_2_no_version_listed),
      cmocka_unit_test(test_FA_OVERLAY_3_corrupt_coverage_is_a_finding),
      cmocka_unit_test(test_limit_files),
      cmocka_unit_test(test_limit_bytes),
      cmocka_unit_test(test_container_valid),
      cmocka_unit_test(test_container_hostile),
      cmocka_unit_test(test_container_every_prefix),
      cmocka_unit_test(test_container_limits),
      cmocka_unit_test(test_container_random_bytes),
      cmocka_unit_test(test_history_in_memory_equals_on_disk),
      cmocka_unit_test(test_clones_in_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
