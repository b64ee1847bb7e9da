/* test_fs_ops.c: the operations lfa_fs gained for object stores and for
 * cleanup (ref/fs/lfa/fs.h), on the POSIX file system and the memfs alike:
 * read_range, stat, remove_beneath [FA-CLEAN-6] [FA-CLEAN-11], publish_new
 * [FA-CONC-11], replace_hint; and a manifest read footer first
 * (lfa_manifest_fetch) reading only what the footer and the manifest point
 * at, to the same decode as the whole file [FA-LANCE-1]; the read and
 * join limits at their edges [FA-LIMIT-1]. The S3 client
 * itself is tested against a server (tests/cli/cli_s3.sh). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lfa/dataset.h"
#include "lfa/fs.h"
#include "lfa/manifest.h"
#include "lfa/memfs.h"
#include "lfa/pb.h"
#include "lfa/transaction.h"

/* ---- the same contract on both file systems ---------------------------------------------- */

typedef struct where {
  const lfa_fs *fs;
  char root[256]; /* a directory on it */
} where;

static void path_of(char *out, size_t cap, const where *w, const char *rel) {
  lfa_error err = {0};
  assert_ok(lfa_fs_join(out, cap, w->root, rel, &err), &err);
}

static void put(const where *w, const char *rel, const char *text) {
  char p[LFA_PATH_BYTES_MAX];
  lfa_error err = {0};
  path_of(p, sizeof p, w, rel);
  assert_ok(lfa_fs_write_new_in(w->fs, p, (const uint8_t *)text, strlen(text), &err), &err);
}

static void contract(const where *w) {
  char p[LFA_PATH_BYTES_MAX], tmp[LFA_PATH_BYTES_MAX];
  lfa_error err = {0};
  lfa_buf b = {0};
  uint64_t total = 0, size = 0;
  put(w, "d/a.txt", "0123456789");
  path_of(p, sizeof p, w, "d/a.txt");
  /* read_range: a slice, a slice cut at the end, nothing past it */
  assert_ok(lfa_fs_read_range_in(&b, w->fs, p, 2, 3, &total, &err), &err);
  assert_int_equal(b.len, 3), assert_memory_equal(b.data, "234", 3), assert_int_equal(total, 10);
  lfa_buf_free(&b);
  assert_ok(lfa_fs_read_range_in(&b, w->fs, p, 8, 100, &total, &err), &err);
  assert_int_equal(b.len, 2), assert_memory_equal(b.data, "89", 2);
  lfa_buf_free(&b);
  assert_status(lfa_fs_read_range_in(&b, w->fs, p, 11, 1, &total, &err), LFA_ERR_IO, &err);
  /* stat: a file, a directory, nothing */
  lfa_fs_stat s;
  assert_ok(lfa_fs_stat_in(w->fs, p, 0, &s, &err), &err);
  assert_int_equal(s.kind, LFA_FS_FILE), assert_int_equal(s.size, 10);
  path_of(tmp, sizeof tmp, w, "d");
  assert_ok(lfa_fs_stat_in(w->fs, tmp, 0, &s, &err), &err);
  assert_int_equal(s.kind, LFA_FS_DIR);
  path_of(tmp, sizeof tmp, w, "d/none");
  assert_ok(lfa_fs_stat_in(w->fs, tmp, 0, &s, &err), &err);
  assert_int_equal(s.kind, LFA_FS_MISSING);
  /* remove_beneath: not while it is another file [FA-CLEAN-11], gone, removed */
  lfa_fs_stat planned;
  assert_ok(lfa_fs_stat_in(w->fs, p, 0, &planned, &err), &err);
  lfa_fs_stat other = planned;
  other.ino ^= 1, other.size += 1;
  lfa_fs_removed r;
  assert_ok(lfa_fs_remove_beneath_in(w->fs, &r, &size, w->root, "d/a.txt", &other, &err), &err);
  assert_int_equal(r, LFA_FS_CHANGED);
  assert_true(lfa_fs_size_in(w->fs, p, &size));
  assert_ok(lfa_fs_remove_beneath_in(w->fs, &r, &size, w->root, "d/none", &planned, &err), &err);
  assert_int_equal(r, LFA_FS_GONE);
  /* [FA-CLEAN-12] a path that is not names only is refused by name: nothing outside `dir` is reached */
  put(w, "victim.txt", "v");
  path_of(tmp, sizeof tmp, w, "d");
  const char *climbing[] = {"../victim.txt", "./../victim.txt", "a.txt/../../victim.txt", "/victim.txt", "a.txt/", ""};
  for (size_t i = 0; i < sizeof climbing / sizeof climbing[0]; i++) {
    assert_status(lfa_fs_remove_beneath_in(w->fs, &r, &size, tmp, climbing[i], NULL, &err), LFA_ERR_IO, &err);
    assert_rule(&err, "FA-CLEAN-12");
  }
  path_of(tmp, sizeof tmp, w, "victim.txt");
  assert_true(lfa_fs_size_in(w->fs, tmp, &size));
  assert_ok(lfa_fs_remove_beneath_in(w->fs, &r, &size, w->root, "d/a.txt", &planned, &err), &err);
  assert_int_equal(r, LFA_FS_REMOVED), assert_int_equal(size, 10);
  assert_false(lfa_fs_size_in(w->fs, p, &size));
  /* publish_new: all at once, never over anything [FA-CONC-11] */
  path_of(p, sizeof p, w, "d/v1.manifest");
  path_of(tmp, sizeof tmp, w, "d/.tmp_v1");
  assert_ok(lfa_fs_publish_new_in(w->fs, p, tmp, (const uint8_t *)"first", 5, &err), &err);
  assert_status(lfa_fs_publish_new_in(w->fs, p, tmp, (const uint8_t *)"second", 6, &err), LFA_ERR_CONFLICT, &err);
  assert_rule(&err, "FA-CONC-11");
  assert_ok(lfa_fs_read_in(&b, w->fs, p, 100, &err), &err);
  assert_int_equal(b.len, 5), assert_memory_equal(b.data, "first", 5);
  lfa_buf_free(&b);
  assert_false(lfa_fs_exists_in(w->fs, tmp));
  /* replace_hint: replaces */
  path_of(p, sizeof p, w, "d/hint.json");
  put(w, "d/hint.json", "{\"version\":1}");
  assert_ok(lfa_fs_replace_hint_in(w->fs, p, tmp, (const uint8_t *)"{\"version\":2}", 13, &err), &err);
  assert_ok(lfa_fs_read_in(&b, w->fs, p, 100, &err), &err);
  assert_memory_equal(b.data, "{\"version\":2}", 13);
  lfa_buf_free(&b);
}

static void test_FA_CONC_11_memfs_keeps_the_contract(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_memfs_init(&m);
  where w = {&m.fs, "ds"};
  contract(&w);
  assert_int_equal(lfa_fs_caps(&m.fs) & LFA_FS_CAP_MTIME, 0); /* no ages: orphans are not judged there */
  lfa_memfs_free(&m);
}

static void test_FA_CLEAN_11_posix_keeps_the_contract(void **state) {
  (void)state;
  char dir[] = "/tmp/lfa-test-fs-ops-XXXXXX";
  assert_non_null(mkdtemp(dir));
  where w = {lfa_fs_posix(), ""};
  snprintf(w.root, sizeof w.root, "%s", dir);
  contract(&w);
  /* a link is not followed: stat says so, and nothing is removed through one [FA-CLEAN-6] */
  char p[LFA_PATH_BYTES_MAX], link_path[LFA_PATH_BYTES_MAX];
  lfa_error err = {0};
  put(&w, "real/x.bin", "x");
  path_of(p, sizeof p, &w, "real");
  path_of(link_path, sizeof link_path, &w, "linked");
  assert_int_equal(symlink(p, link_path), 0);
  lfa_fs_stat s;
  assert_ok(lfa_fs_stat_in(w.fs, link_path, 0, &s, &err), &err);
  assert_int_equal(s.kind, LFA_FS_LINK);
  assert_ok(lfa_fs_stat_in(w.fs, link_path, 1, &s, &err), &err);
  assert_int_equal(s.kind, LFA_FS_DIR);
  lfa_fs_removed r;
  uint64_t size = 0;
  assert_ok(lfa_fs_remove_beneath_in(w.fs, &r, &size, w.root, "linked/x.bin", NULL, &err), &err);
  assert_int_equal(r, LFA_FS_CHANGED);
  path_of(p, sizeof p, &w, "real/x.bin");
  assert_true(lfa_fs_size_in(w.fs, p, &size));
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* ---- a manifest read footer first ------------------------------------------------------------- */

/* Counts the reads a file system is asked for, and where they start. */
typedef struct counted {
  lfa_memfs *m;
  lfa_fs_ops ops;
  lfa_fs fs;
  unsigned reads, ranges;
  uint64_t lowest; /* the lowest byte a ranged read asked for */
  uint64_t lie;    /* when not 0: the size the second ranged read reports */
} counted;

static lfa_status counted_read(void *ctx, lfa_buf *out, const char *path, size_t max, lfa_error *err) {
  counted *c = ctx;
  c->reads++;
  return lfa_fs_read_in(out, &c->m->fs, path, max, err);
}

static lfa_status counted_range(void *ctx, lfa_buf *out, const char *path, uint64_t offset, size_t len, uint64_t *total,
                                lfa_error *err) {
  counted *c = ctx;
  if (offset < c->lowest) c->lowest = offset;
  lfa_status st = lfa_fs_read_range_in(out, &c->m->fs, path, offset, len, total, err);
  if (++c->ranges == 2 && c->lie != 0) *total = c->lie; /* the file changed in between */
  return st;
}

static int counted_size(void *ctx, const char *path, uint64_t *size) {
  return lfa_fs_size_in(&((counted *)ctx)->m->fs, path, size);
}

/* The memfs, counted (the operations a manifest fetch uses are wrapped). */
static void count(counted *c, lfa_memfs *m) {
  memset(c, 0, sizeof *c);
  c->m = m, c->ops = *m->fs.ops, c->lowest = UINT64_MAX;
  c->ops.read = counted_read, c->ops.read_range = counted_range, c->ops.size = counted_size;
  c->fs = (lfa_fs){&c->ops, c};
}

/* A manifest file with `junk` bytes nobody points at first, then the
 * inline transaction, a manifest of `fields` schema fields, the footer. */
static lfa_buf framed(size_t junk, size_t fields) {
  lfa_error err = {0};
  Lance__Table__Manifest m = LANCE__TABLE__MANIFEST__INIT;
  Lance__File__Field *f = calloc(fields, sizeof *f);
  Lance__File__Field **fp = calloc(fields, sizeof *fp);
  char(*names)[40] = calloc(fields, sizeof *names);
  assert_non_null(f), assert_non_null(fp), assert_non_null(names);
  for (size_t i = 0; i < fields; i++) {
    lance__file__field__init(&f[i]);
    snprintf(names[i], sizeof names[i], "a_rather_long_field_name_%zu", i);
    f[i].id = (int32_t)i, f[i].name = names[i], f[i].parent_id = -1, fp[i] = &f[i];
  }
  m.fields = fp, m.n_fields = fields, m.version = 7;
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__ReserveFragments op = LANCE__TABLE__TRANSACTION__RESERVE_FRAGMENTS__INIT;
  op.num_fragments = 3;
  txn.read_version = 6, txn.uuid = "u", txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_RESERVE_FRAGMENTS;
  txn.reserve_fragments = &op;
  lfa_buf b = {0}, t = {0}, pb = {0};
  uint8_t *fill = NULL;
  if (junk > 0) {
    assert_ok(lfa_buf_extend(&b, junk, &fill, &err), &err);
    memset(fill, 0xAB, junk);
  }
  assert_ok(lfa_transaction_encode(&t, &txn, &err), &err);
  m._transaction_section_case = LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION;
  m.transaction_section = junk;
  assert_ok(lfa_buf_put_u32le(&b, (uint32_t)t.len, &err), &err);
  assert_ok(lfa_buf_append(&b, t.data, t.len, &err), &err);
  uint64_t pos = b.len;
  assert_ok(lfa_pb_pack(&pb, &m.base, &err), &err);
  assert_ok(lfa_buf_put_u32le(&b, (uint32_t)pb.len, &err), &err);
  assert_ok(lfa_buf_append(&b, pb.data, pb.len, &err), &err);
  assert_ok(lfa_buf_put_u64le(&b, pos, &err), &err);
  assert_ok(lfa_buf_put_u32le(&b, 2, &err), &err); /* footer version 0.2 */
  assert_ok(lfa_buf_append(&b, "LANC", 4, &err), &err);
  lfa_buf_free(&t), lfa_buf_free(&pb);
  free(f), free(fp), free(names);
  return b;
}

/* lfa_manifest_fetch of `file` decodes as the whole file does. */
static void same_decode(const lfa_buf *fetched, const lfa_buf *file) {
  lfa_manifest_file a, b;
  lfa_error err = {0};
  lfa_buf x = {0}, y = {0};
  assert_int_equal(fetched->len, file->len);
  assert_ok(lfa_manifest_file_decode(&a, fetched->data, fetched->len, &err), &err);
  assert_ok(lfa_manifest_file_decode(&b, file->data, file->len, &err), &err);
  assert_ok(lfa_manifest_file_encode(&x, a.manifest, a.transaction, &err), &err);
  assert_ok(lfa_manifest_file_encode(&y, b.manifest, b.transaction, &err), &err);
  assert_int_equal(x.len, y.len), assert_memory_equal(x.data, y.data, x.len);
  lfa_manifest_file_free(&a), lfa_manifest_file_free(&b);
  lfa_buf_free(&x), lfa_buf_free(&y);
}

static void test_FA_LANCE_1_manifest_read_footer_first(void **state) {
  (void)state;
  lfa_memfs m;
  lfa_memfs_init(&m);
  lfa_error err = {0};
  counted c;
  lfa_buf got = {0};
  uint64_t unread = 0;
  /* small: one whole read */
  lfa_buf small = framed(0, 10);
  assert_true(small.len <= LFA_MANIFEST_TAIL_BYTES);
  assert_ok(lfa_memfs_put(&m, "small.manifest", small.data, small.len, &err), &err);
  count(&c, &m);
  assert_ok(lfa_manifest_fetch(&got, &unread, &c.fs, "small.manifest", NULL, &err), &err);
  assert_int_equal(c.reads, 1), assert_int_equal(c.ranges, 0), assert_int_equal(unread, 0);
  same_decode(&got, &small);
  lfa_buf_free(&got);
  /* large, with 100,000 bytes nothing points at: never read */
  const size_t junk = 100000;
  lfa_buf big = framed(junk, 4000);
  assert_true(big.len - junk > LFA_MANIFEST_TAIL_BYTES); /* the manifest alone is longer than the tail */
  assert_ok(lfa_memfs_put(&m, "big.manifest", big.data, big.len, &err), &err);
  count(&c, &m);
  assert_ok(lfa_manifest_fetch(&got, &unread, &c.fs, "big.manifest", NULL, &err), &err);
  assert_int_equal(c.reads, 0);
  assert_int_equal(c.ranges, 3); /* the tail, the rest of the manifest, the transaction before it */
  assert_int_equal(unread, junk), assert_int_equal(c.lowest, junk);
  same_decode(&got, &big);
  lfa_buf_free(&got);
  /* a file that changes while it is read: an I/O error, never a mixed decode */
  count(&c, &m);
  c.lie = big.len + 1;
  assert_status(lfa_manifest_fetch(&got, &unread, &c.fs, "big.manifest", NULL, &err), LFA_ERR_IO, &err);
  assert_non_null(strstr(err.msg, "changed while it was read"));
  /* a footer that is not Lance's: the whole file, then the decoder says why */
  big.data[big.len - 1] = 'X';
  assert_ok(lfa_memfs_put(&m, "bad.manifest", big.data, big.len, &err), &err);
  count(&c, &m);
  assert_ok(lfa_manifest_fetch(&got, &unread, &c.fs, "bad.manifest", NULL, &err), &err);
  assert_int_equal(unread, 0), assert_int_equal(got.len, big.len);
  assert_memory_equal(got.data, big.data, big.len);
  lfa_manifest_file mf;
  assert_status(lfa_manifest_file_decode(&mf, got.data, got.len, &err), LFA_ERR_FORMAT, &err);
  lfa_buf_free(&got);
  lfa_buf_free(&small), lfa_buf_free(&big);
  lfa_memfs_free(&m);
}

/* [FA-LIMIT-1] the two bounds of the POSIX file system at their edges: a
 * file of exactly max_bytes is read, one byte more is refused as a limit;
 * a joined path fits when its bytes and the NUL fit the buffer and stay
 * below LFA_PATH_BYTES_MAX, and is refused one byte past either. */
static void test_FA_LIMIT_1_read_and_join_at_their_limits(void **state) {
  (void)state;
  char dir[] = "/tmp/lfa-fs-limits-XXXXXX", path[64];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/f", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite("0123456789", 1, 10, f), 10);
  assert_int_equal(fclose(f), 0);
  lfa_buf b;
  lfa_error err = {0};
  assert_ok(lfa_fs_read(&b, path, 10, &err), &err);
  assert_int_equal(b.len, 10);
  lfa_buf_free(&b);
  assert_status(lfa_fs_read(&b, path, 9, &err), LFA_ERR_LIMIT, &err);
  assert_rule(&err, "FA-LIMIT-1");
  lfa_buf_free(&b);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0);

  char out[16 + 1]; /* one byte of slack: a join that overruns `cap` stays inside */
  assert_ok(lfa_fs_join(out, 8, "abc", "def", &err), &err); /* "abc/def" and its NUL: 8 bytes */
  assert_string_equal(out, "abc/def");
  assert_status(lfa_fs_join(out, 7, "abc", "def", &err), LFA_ERR_LIMIT, &err);
  static char a[LFA_PATH_BYTES_MAX + 8], big[LFA_PATH_BYTES_MAX + 8];
  memset(a, 'a', LFA_PATH_BYTES_MAX - 3);
  a[LFA_PATH_BYTES_MAX - 3] = '\0'; /* + "/b" = LFA_PATH_BYTES_MAX - 1 bytes */
  assert_ok(lfa_fs_join(big, sizeof big, a, "b", &err), &err);
  assert_int_equal(strlen(big), LFA_PATH_BYTES_MAX - 1);
  assert_status(lfa_fs_join(big, sizeof big, a, "bc", &err), LFA_ERR_LIMIT, &err);
  assert_rule(&err, "FA-LIMIT-1");
}

/* ---- the one name of a dataset (cleanup finds itself among the clones it reads) --------------- */

static void name_is(char *got, const char *want) {
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

static void test_real_path_is_the_one_name(void **state) {
  (void)state;
  char dir[] = "/tmp/lfa-test-fs-real-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *base = lfa_fs_real_path_in(NULL, dir); /* /tmp itself could be a link */
  assert_non_null(base);
  char a[LFA_PATH_BYTES_MAX], want[LFA_PATH_BYTES_MAX + 8], p[LFA_PATH_BYTES_MAX + 32];
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(want, sizeof want, "%s/a", base);
  assert_int_equal(mkdir(a, 0700), 0);
  snprintf(p, sizeof p, "%s/l", dir);
  assert_int_equal(symlink(a, p), 0);
  /* POSIX: ".", "..", a trailing '/', a link and a file:// URI all name the one directory */
  snprintf(p, sizeof p, "%s/a/../a/.", dir), name_is(lfa_fs_real_path_in(NULL, p), want);
  snprintf(p, sizeof p, "%s/l/", dir), name_is(lfa_fs_real_path_in(lfa_fs_posix(), p), want);
  snprintf(p, sizeof p, "file://%s/l", dir), name_is(lfa_fs_real_path_in(NULL, p), want);
  snprintf(p, sizeof p, "%s/missing", dir);
  assert_null(lfa_fs_real_path_in(NULL, p));
  /* the memfs (like an object store): its paths are its names, less a trailing '/' */
  lfa_memfs m;
  lfa_memfs_init(&m);
  name_is(lfa_fs_real_path_in(&m.fs, "ds"), "ds");
  name_is(lfa_fs_real_path_in(&m.fs, "ds//"), "ds");
  name_is(lfa_fs_real_path_in(&m.fs, "/"), "/");
  lfa_memfs_free(&m);
  snprintf(p, sizeof p, "%s/l", dir), unlink(p);
  rmdir(a), rmdir(dir);
  free(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_path_is_the_one_name),
      cmocka_unit_test(test_FA_CONC_11_memfs_keeps_the_contract),
      cmocka_unit_test(test_FA_LIMIT_1_read_and_join_at_their_limits),
      cmocka_unit_test(test_FA_CLEAN_11_posix_keeps_the_contract),
      cmocka_unit_test(test_FA_LANCE_1_manifest_read_footer_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
