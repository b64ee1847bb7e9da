/* test_dataset.c: loading versions from disk (ref/read/dataset.c) against
 * hand-derived expectations: the bundled sample, the independent upstream
 * layout example, real Lance datasets, and broken copies of the sample.
 * Requirement ids: FA-STORE-5, FA-STORE-6, FA-ROOT-3, FA-ROOT-5,
 * FA-BITMAP-3, FA-BITMAP-4, FA-LANCE-4, FA-LANCE-10, FA-FLAG-1, FA-FLAG-2,
 * FA-VERIFY-2. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <inttypes.h>
#include <unistd.h>

#include "lfa/bitmap.h"
#include "lfa/dataset.h"
#include "lfa/limits.h"
#include "lfa/snapshot_model.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/fixtures.h"
#include "rowids.pb-c.h"
#include "lfa/transaction.h"

/* An open that reads every tracked field too. */
static const lfa_snapshot_options LOADED = {.load_fields = true};

/* ---- helpers ------------------------------------------------------------------ */

typedef struct loaded {
  lfa_version_list versions;
  lfa_names names;
  lfa_snapshot snap[16];
  size_t count;
} loaded;

static void load_all(loaded *l, const char *dir) {
  lfa_error err = {0};
  assert_ok(lfa_dataset_versions(&l->versions, &l->names, NULL, dir, &err), &err);
  assert_true(l->versions.count <= 16);
  for (size_t i = 0; i < l->versions.count; i++)
    if (lfa_snapshot_open(&l->snap[i], dir, &l->versions.entries[i], &LOADED, &err) != LFA_OK)
      fail_msg("%s version %llu: %s", dir, (unsigned long long)l->versions.entries[i].version, err.msg);
  l->count = l->versions.count;
}

static void unload(loaded *l) {
  for (size_t i = 0; i < l->count; i++) lfa_snapshot_free(&l->snap[i]);
  lfa_version_list_free(&l->versions);
  lfa_fs_names_free(&l->names);
}

/* Writes "frag:offset " for every live row whose field is assigned, in
 * fragment then offset order: the observable state, independent of how the
 * root encodes it. */
static void live_assigned(char *out, size_t cap, const lfa_snapshot *s, int32_t field_id) {
  size_t n = 0;
  out[0] = '\0';
  for (size_t t = 0; t < s->n_tracked; t++) {
    if (s->tracked[t].field_id != field_id) continue;
    for (size_t k = 0; k < s->tracked[t].count; k++) {
      const lfa_fragment_assignment *a = &s->tracked[t].fragments[k];
      size_t i = lfa_snapshot_fragment(s, a->fragment_id);
      for (uint32_t off = 0; off < s->file.manifest->fragments[i]->physical_rows; off++) {
        bool on = a->all || roaring_bitmap_contains(a->rows, off);
        bool deleted = s->deleted[i] && roaring_bitmap_contains(s->deleted[i], off);
        if (on && !deleted) n += (size_t)snprintf(out + n, cap - n, "%llu:%u ", (unsigned long long)a->fragment_id, off);
      }
    }
  }
}

static void make_sample(char *dir) {
  strcpy(dir, "/tmp/lfa-test-XXXXXX");
  assert_non_null(mkdtemp(dir));
  strcat(dir, "/ds");
  lfa_error err = {0};
  assert_ok(lfa_fixture_write_sample(dir, &err), &err);
}

static void remove_tree(const char *dir) {
  char cmd[LFA_PATH_BYTES_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%.*s'", (int)(strrchr(dir, '/') - dir), dir);
  assert_int_equal(system(cmd), 0);
}

/* ---- the bundled sample ------------------------------------------------------------ */

static void test_sample_history_as_written(void **state) {
  (void)state;
  char dir[64], got[512];
  make_sample(dir);
  loaded l;
  load_all(&l, dir);
  assert_int_equal(l.count, 5);
  assert_int_equal(l.snap[0].n_tracked, 0);
  assert_string_equal(lfa_transaction_operation_name(l.snap[0].transaction), "Overwrite");
  /* v2: tracked, nothing assigned, a 0-byte root */
  assert_int_equal(l.snap[1].n_tracked, 1);
  assert_int_equal(l.snap[1].tracked[0].root_file->size_bytes, 0);
  assert_int_equal(l.snap[1].file.manifest->writer_feature_flags, (uint64_t)1 << 52); /* FA-FLAG-1 */
  assert_int_equal(l.snap[1].file.manifest->reader_feature_flags, (uint64_t)1 << 52); /* FA-FLAG-2 */
  live_assigned(got, sizeof got, &l.snap[1], 2);
  assert_string_equal(got, "");
  /* v3: rows written by the update */
  live_assigned(got, sizeof got, &l.snap[2], 2);
  assert_string_equal(got, "0:1 0:2 0:5 1:3 ");
  /* v4: offsets 2 and 7 of fragment 0 deleted; the root object is shared */
  live_assigned(got, sizeof got, &l.snap[3], 2);
  assert_string_equal(got, "0:1 0:5 1:3 ");
  assert_string_equal(l.snap[3].tracked[0].root_file->path, l.snap[2].tracked[0].root_file->path);
  assert_int_equal(l.snap[3].file.manifest->reader_feature_flags, ((uint64_t)1 << 52) + 1);
  /* v5: fragment 2 appended with embedding: all four rows */
  live_assigned(got, sizeof got, &l.snap[4], 2);
  assert_string_equal(got, "0:1 0:5 1:3 2:0 2:1 2:2 2:3 ");
  assert_string_not_equal(l.snap[4].tracked[0].root_file->path, l.snap[3].tracked[0].root_file->path);
  assert_string_equal(l.snap[4].tracked[0].root->fragments[0]->partial->path,
                      l.snap[2].tracked[0].root->fragments[0]->partial->path);
  unload(&l);
  remove_tree(dir);
}

/* ---- the independent upstream layout example ----------------------------------------- */

static void test_upstream_layout_example_states(void **state) {
  (void)state;
  /* From ../shared/upstream-layout-example/README.md, per version. */
  static const char *const want[9] = {
      NULL,
      "",
      "0:1 0:2 0:5 1:3 ",
      "0:1 0:2 0:5 1:3 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 2:8 2:9 ",
      "0:1 0:5 1:3 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 2:8 2:9 ",
      "0:1 0:5 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 2:8 2:9 ",
      "0:1 0:5 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 2:8 2:9 ",
      "0:1 0:5 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 2:8 2:9 ",
      "2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 2:8 2:9 4:1 4:4 ",
  };
  loaded l;
  char got[512];
  load_all(&l, SHARED_DIR "/upstream-layout-example/address-mode-history");
  assert_int_equal(l.count, 9);
  for (size_t v = 0; v < 9; v++) {
    if (want[v] == NULL) {
      assert_int_equal(l.snap[v].n_tracked, 0);
      continue;
    }
    live_assigned(got, sizeof got, &l.snap[v], 2);
    if (strcmp(got, want[v]) != 0) fail_msg("version %zu: got '%s', want '%s'", v + 1, got, want[v]);
  }
  assert_string_equal(lfa_snapshot_field(&l.snap[6], 2)->name, "vec"); /* renamed at v7 */
  unload(&l);
}

/* ---- real Lance datasets ----------------------------------------------------------------- */

static void test_lance_test_data_loads(void **state) {
  (void)state;
  static const struct {
    const char *dir;
    size_t versions;
  } sets[] = {
      {"v0.5.9/no_fragments", 1}, {"v0.5.9/dataset_with_fragments", 3}, {"v0.7.5/with_deletions", 2},
      {"v0.15.0/v1_no_files.lance", 1}, {"v0.15.0/v1_with_files.lance", 1}, {"v0.15.0/v2_no_files.lance", 1},
      {"v0.15.0/v2_with_files.lance", 1}, {"v0.16.0/wrong_data_version_can_fix.lance", 2},
      {"0.27.0/legacy_fts_index", 2}, {"0.36.0/btree_in_index_pkg.lance", 2},
  };
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    char dir[256];
    snprintf(dir, sizeof dir, SHARED_DIR "/lance-test-data/%s", sets[i].dir);
    loaded l;
    load_all(&l, dir);
    assert_int_equal(l.count, sets[i].versions);
    for (size_t v = 0; v < l.count; v++) assert_int_equal(l.snap[v].n_tracked, 0); /* pre-FA */
    unload(&l);
  }
}

static void test_v0_7_5_deletion_file_reads_10_to_19(void **state) {
  (void)state;
  loaded l;
  load_all(&l, SHARED_DIR "/lance-test-data/v0.7.5/with_deletions");
  const lfa_snapshot *s = &l.snap[1];
  assert_non_null(s->deleted[0]);
  assert_int_equal(roaring_bitmap_get_cardinality(s->deleted[0]), 10);
  for (uint32_t off = 10; off < 20; off++) assert_true(roaring_bitmap_contains(s->deleted[0], off));
  unload(&l);
}

/* ---- broken copies of the sample ------------------------------------------------------- */

static void put_file(const char *dir, const char *rel, const lfa_buf *b) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_error err = {0};
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  unlink(path);
  assert_ok(lfa_fs_write_new(path, b->data, b->len, &err), &err);
}

typedef void (*mutation)(Lance__Table__Manifest *m, void *ctx);

/* Strings of a decoded message are freed with it: replace, never alias. */
static void set_string(char **slot, const char *value) {
  free(*slot);
  *slot = strdup(value);
  assert_non_null(*slot);
}

/* Decodes version v of the sample, lets `fix` edit it, writes it back. */
static void rewrite_manifest(const char *dir, uint64_t v, mutation fix, void *ctx) {
  char path[LFA_PATH_BYTES_MAX], rel[64];
  lfa_buf b = {0};
  lfa_error err = {0};
  lfa_manifest_file mf;
  snprintf(rel, sizeof rel, "_versions/%llu.manifest", (unsigned long long)v);
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&mf, b.data, b.len, &err), &err);
  fix(mf.manifest, ctx);
  b.len = 0;
  assert_ok(lfa_manifest_file_encode(&b, mf.manifest, mf.transaction, &err), &err);
  put_file(dir, rel, &b);
  lfa_manifest_file_free(&mf);
  lfa_buf_free(&b);
}

/* Loads version v and expects it to break `rule`, as *err says. */
static void expect_broken_as(const char *dir, uint64_t v, const char *rule, lfa_error *err) {
  lfa_version_entry e = {v, NULL};
  char name[32];
  snprintf(name, sizeof name, "%llu.manifest", (unsigned long long)v);
  e.name = name;
  lfa_snapshot s;
  if (lfa_snapshot_open(&s, dir, &e, &LOADED, err) == LFA_OK)
    fail_msg("version %llu loaded; expected %s", (unsigned long long)v, rule);
  assert_rule(err, rule);
}

static void expect_broken(const char *dir, uint64_t v, const char *rule) {
  lfa_error err = {0};
  expect_broken_as(dir, v, rule, &err);
}

static void root_size_plus_one(Lance__Table__Manifest *m, void *ctx) {
  (void)ctx;
  m->field_assignment_states[0]->root->size_bytes += 1;
}

static void root_base_7(Lance__Table__Manifest *m, void *ctx) {
  (void)ctx;
  m->field_assignment_states[0]->root->has_base_id = true;
  m->field_assignment_states[0]->root->base_id = 7;
}

static void physical_rows_7(Lance__Table__Manifest *m, void *ctx) {
  (void)ctx;
  m->fragments[0]->physical_rows = 7;
}

static void deleted_count_3(Lance__Table__Manifest *m, void *ctx) {
  (void)ctx;
  m->fragments[0]->deletion_file->num_deleted_rows = 3;
}

typedef struct object_ref {
  const char *path;
  size_t size;
} object_ref;

static void point_root_at(Lance__Table__Manifest *m, void *ctx) {
  const object_ref *o = ctx;
  set_string(&m->field_assignment_states[0]->root->path, o->path);
  m->field_assignment_states[0]->root->size_bytes = o->size;
  m->field_assignment_states[0]->root->has_size_bytes = o->size > 0;
}

static void point_txn_at(Lance__Table__Manifest *m, void *ctx) {
  set_string(&m->transaction_file, ctx);
}

/* Writes a root with one entry for `fragment` (all rows when `bits` is
 * NULL, else a bitmap object) and makes version 3 use it. */
static void use_root(const char *dir, uint64_t fragment, uint64_t physical_rows, const roaring_bitmap_t *bits) {
  lfa_root root = LANCE__TABLE__FIELD_ASSIGNMENT_ROOT__INIT;
  lfa_root_entry e = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__INIT, *list[] = {&e};
  Lance__Table__FieldAssignmentFile partial = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  lfa_buf b = {0};
  lfa_error err = {0};
  e.fragment_id = fragment, e.physical_rows = physical_rows;
  e.state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED, e.all_assigned = true;
  if (bits != NULL) {
    assert_ok(lfa_bitmap_encode(&b, bits, &err), &err);
    put_file(dir, "_field_assignments/bitmaps/2/0/test.rbm", &b);
    partial.path = "_field_assignments/bitmaps/2/0/test.rbm";
    partial.has_size_bytes = true, partial.size_bytes = b.len;
    e.state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL, e.partial = &partial;
  }
  root.fragments = list, root.n_fragments = 1;
  b.len = 0;
  assert_ok(lfa_root_encode(&b, &root, &err), &err);
  put_file(dir, "_field_assignments/roots/2/test.root", &b);
  object_ref o = {"_field_assignments/roots/2/test.root", b.len};
  rewrite_manifest(dir, 3, point_root_at, &o);
  lfa_buf_free(&b);
}

static void test_FA_STORE_5_and_6_object_description(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  rewrite_manifest(dir, 3, root_size_plus_one, NULL);
  expect_broken(dir, 3, "FA-STORE-5");
  rewrite_manifest(dir, 4, root_base_7, NULL);
  expect_broken(dir, 4, "FA-STORE-6");
  remove_tree(dir);
}

static void test_FA_ROOT_3_and_5_entries_match_the_manifest(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  use_root(dir, 9, 10, NULL); /* fragment 9 does not exist */
  expect_broken(dir, 3, "FA-ROOT-5");
  use_root(dir, 0, 11, NULL); /* fragment 0 has 10 rows */
  expect_broken(dir, 3, "FA-ROOT-3");
  use_root(dir, 0, 10, NULL); /* and the same, right, loads */
  lfa_version_entry e = {3, "3.manifest"};
  lfa_snapshot s;
  lfa_error err = {0};
  assert_ok(lfa_snapshot_open(&s, dir, &e, &LOADED, &err), &err);
  assert_true(s.tracked[0].fragments[0].all);
  lfa_snapshot_free(&s);
  remove_tree(dir);
}

static void test_FA_BITMAP_3_and_4_partials_in_bounds(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  roaring_bitmap_t *bm = roaring_bitmap_from_range(0, 10, 1); /* every row: that is all_assigned */
  use_root(dir, 0, 10, bm);
  expect_broken(dir, 3, "FA-BITMAP-3");
  roaring_bitmap_clear(bm);
  roaring_bitmap_add(bm, 1);
  roaring_bitmap_add(bm, 10); /* offset 10 of a 10-row fragment */
  use_root(dir, 0, 10, bm);
  expect_broken(dir, 3, "FA-BITMAP-4");
  roaring_bitmap_free(bm);
  remove_tree(dir);
}

static void test_FA_LANCE_4_and_10_base_structure(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  rewrite_manifest(dir, 4, deleted_count_3, NULL); /* the file holds 2 offsets */
  expect_broken(dir, 4, "FA-LANCE-4");
  rewrite_manifest(dir, 5, physical_rows_7, NULL); /* offset 7 deleted, now past the end */
  expect_broken(dir, 5, "FA-LANCE-4");
  /* a .txn that is not the inline transaction of its version */
  lfa_buf b = {0};
  lfa_error err = {0};
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  txn.read_version = 99;
  assert_ok(lfa_transaction_encode(&b, &txn, &err), &err);
  put_file(dir, "_transactions/other.txn", &b);
  rewrite_manifest(dir, 3, point_txn_at, "other.txn");
  expect_broken(dir, 3, "FA-LANCE-10");
  lfa_buf_free(&b);
  remove_tree(dir);
}

/* [FA-VERIFY-2] A refused version's error carries where it failed as data
 * (the verifier's findings name it from there): the version, the field, the
 * fragment and the innermost file, each as set up here by hand, or unset. */
static void test_FA_VERIFY_2_reader_failures_carry_their_place(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  lfa_error err = {0};
  roaring_bitmap_t *bm = roaring_bitmap_of(2, 1, 10); /* offset 10 of fragment 0, which has 10 rows */
  use_root(dir, 0, 10, bm);
  expect_broken_as(dir, 3, "FA-BITMAP-4", &err);
  tu_assert_place(&err, 3, 2, 0, "_field_assignments/bitmaps/2/0/test.rbm"); /* the partial, not its root */
  roaring_bitmap_free(bm);
  use_root(dir, 9, 10, NULL); /* an entry for fragment 9, which does not exist */
  expect_broken_as(dir, 3, "FA-ROOT-5", &err);
  tu_assert_place(&err, 3, 2, 9, "_field_assignments/roots/2/test.root");
  rewrite_manifest(dir, 4, deleted_count_3, NULL); /* fragment 0's deletion file holds 2 offsets */
  expect_broken_as(dir, 4, "FA-LANCE-4", &err);
  assert_true(strncmp(err.file, "_deletions/0-", 13) == 0); /* named {fragment}-{read_version}-{id} */
  tu_assert_place(&err, 4, -1, 0, err.file);
  lfa_buf b = {0};
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  txn.read_version = 99;
  assert_ok(lfa_transaction_encode(&b, &txn, &err), &err);
  put_file(dir, "_transactions/other.txn", &b);
  rewrite_manifest(dir, 5, point_txn_at, "other.txn"); /* not the inline transaction of version 5 */
  expect_broken_as(dir, 5, "FA-LANCE-10", &err);
  tu_assert_place(&err, 5, -1, -1, "_transactions/other.txn");
  lfa_buf_free(&b);
  remove_tree(dir);
}

/* Version 6 of the sample, rewritten: 8 fragments of LFA_ROW_IDS_MAX rows
 * with stable row ids, each sequence one range segment (a few bytes), no
 * tracked field. Each sequence is within its own limit; together they
 * would expand to 8 GiB of ids. The snapshot refuses them before
 * expanding any [FA-LIMIT-1], naming LFA_SNAPSHOT_ROW_IDS_MAX [FA-LIMIT-2]. */
static void test_FA_LIMIT_1_row_ids_budgeted_per_snapshot(void **state) {
  (void)state;
  enum { FRAGS = 8 };
  char dir[LFA_PATH_BYTES_MAX], path[LFA_PATH_BYTES_MAX + 32];
  make_sample(dir);
  lfa_error err = {0};
  lfa_buf in = {0}, seq[FRAGS] = {{0}}, out = {0};
  lfa_manifest_file mf;
  snprintf(path, sizeof path, "%s/_versions/5.manifest", dir);
  assert_ok(lfa_fs_read(&in, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&mf, in.data, in.len, &err), &err);
  Lance__Table__Manifest m = *mf.manifest;
  Lance__Table__DataFragment frags[FRAGS], *list[FRAGS];
  assert_ok(lfa_fixture_range_sequences(seq, FRAGS, LFA_ROW_IDS_MAX, &err), &err);
  for (size_t i = 0; i < FRAGS; i++) {
    frags[i] = *mf.manifest->fragments[0];
    frags[i].id = i, frags[i].physical_rows = LFA_ROW_IDS_MAX, frags[i].deletion_file = NULL;
    frags[i].row_id_sequence_case = LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS;
    frags[i].inline_row_ids = (ProtobufCBinaryData){seq[i].len, seq[i].data};
    list[i] = &frags[i];
  }
  m.fragments = list, m.n_fragments = FRAGS, m.max_fragment_id = FRAGS - 1, m.version = 6;
  m.n_field_assignment_states = 0;
  m.reader_feature_flags |= 2, m.writer_feature_flags |= 2; /* stable row ids */
  assert_ok(lfa_manifest_file_encode(&out, &m, NULL, &err), &err);
  printf("a manifest of %zu bytes asking for %llu row ids\n", out.len, (unsigned long long)FRAGS * LFA_ROW_IDS_MAX);
  snprintf(path, sizeof path, "%s/_versions/6.manifest", dir);
  assert_ok(lfa_fs_write_new(path, out.data, out.len, &err), &err);
  lfa_snapshot snap;
  lfa_snapshot_options v6 = {.version = 6, .load_fields = true};
  assert_status(lfa_snapshot_open(&snap, dir, NULL, &v6, &err), LFA_ERR_LIMIT, &err);
  assert_rule(&err, "FA-LIMIT-1");
  assert_non_null(strstr(err.msg, "LFA_SNAPSHOT_ROW_IDS_MAX"));
  lfa_snapshot_free(&snap);
  for (size_t i = 0; i < FRAGS; i++) lfa_buf_free(&seq[i]);
  lfa_buf_free(&in), lfa_buf_free(&out);
  lfa_manifest_file_free(&mf);
  remove_tree(dir);
}

/* Version 5 of the sample rewritten as version 6 (7 with `words` 0) with
 * stable row ids, its first fragment keeping an inline sequence of its
 * physical rows and the others none, and the extra feature `words`. */
enum { FRAGMENTS_MAX = 8 };

static void write_without_sequences(const char *dir, uint64_t version, uint64_t words, size_t *n_fragments) {
  char path[LFA_PATH_BYTES_MAX + 32];
  lfa_error err = {0};
  lfa_buf in = {0}, seq = {0}, out = {0};
  lfa_manifest_file mf;
  snprintf(path, sizeof path, "%s/_versions/5.manifest", dir);
  assert_ok(lfa_fs_read(&in, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&mf, in.data, in.len, &err), &err);
  Lance__Table__Manifest m = *mf.manifest;
  assert_true(m.n_fragments >= 2 && m.n_fragments <= FRAGMENTS_MAX);
  Lance__Table__DataFragment frags[FRAGMENTS_MAX], *list[FRAGMENTS_MAX];
  assert_ok(lfa_fixture_range_sequences(&seq, 1, m.fragments[0]->physical_rows, &err), &err);
  for (size_t i = 0; i < m.n_fragments; i++) {
    frags[i] = *m.fragments[i], list[i] = &frags[i];
    frags[i].row_id_sequence_case = LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE__NOT_SET;
  }
  frags[0].row_id_sequence_case = LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS;
  frags[0].inline_row_ids = (ProtobufCBinaryData){seq.len, seq.data};
  m.fragments = list, m.version = version;
  m.reader_feature_flags |= 2 | words, m.writer_feature_flags |= 2 | words; /* stable row ids */
  assert_ok(lfa_manifest_file_encode(&out, &m, NULL, &err), &err);
  snprintf(path, sizeof path, "%s/_versions/%" PRIu64 ".manifest", dir, version);
  assert_ok(lfa_fs_write_new(path, out.data, out.len, &err), &err);
  *n_fragments = m.n_fragments;
  lfa_buf_free(&in), lfa_buf_free(&seq), lfa_buf_free(&out);
  lfa_manifest_file_free(&mf);
}

/* [FA-VERIFY-8] With spilled row lineage (bit 2048) a fragment without a
 * sequence keeps its ids in its data files: the snapshot loads, every
 * tracked field with it, the first fragment's ids are read and the others
 * are counted and marked not read; only the table, which follows rows by
 * id, is refused, naming the first such fragment. [FA-LANCE-7] Without the
 * bit the same fragments are an error, located at the fragment. */
static void test_FA_VERIFY_8_spilled_row_ids_not_in_metadata(void **state) {
  (void)state;
  char dir[LFA_PATH_BYTES_MAX];
  make_sample(dir);
  size_t n = 0;
  write_without_sequences(dir, 6, 2048, &n);
  lfa_error err = {0};
  lfa_snapshot snap;
  lfa_snapshot_options v6 = {.version = 6, .load_fields = true};
  assert_ok(lfa_snapshot_open(&snap, dir, NULL, &v6, &err), &err);
  assert_true(snap.stable_row_ids);
  assert_int_equal(snap.row_ids_unread, n - 1);
  for (size_t i = 0; i < n; i++) {
    const Lance__Table__DataFragment *f = snap.file.manifest->fragments[i];
    assert_int_equal(lfa_snapshot_row_ids_read(&snap, i), i == 0);
    assert_int_equal(snap.row_ids[i].count, i == 0 ? f->physical_rows : 0);
  }
  for (size_t t = 0; t < snap.n_tracked; t++) assert_non_null(snap.tracked[t].root); /* every field loaded */
  assert_true(snap.n_tracked > 0);
  lfa_table table;
  assert_status(lfa_table_from_snapshot(&table, &snap, &err), LFA_ERR_USAGE, &err);
  assert_true(err.has_fragment);
  assert_int_equal(err.fragment_id, snap.file.manifest->fragments[1]->id);
  assert_non_null(strstr(err.msg, "not in metadata"));
  lfa_snapshot_free(&snap);

  write_without_sequences(dir, 7, 0, &n);
  lfa_error_clear(&err);
  lfa_snapshot_options v7 = {.version = 7, .load_fields = true};
  assert_status(lfa_snapshot_open(&snap, dir, NULL, &v7, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-LANCE-7");
  assert_true(err.has_fragment);
  assert_non_null(strstr(err.msg, "has no row id sequence"));
  lfa_snapshot_free(&snap);
  remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sample_history_as_written),
      cmocka_unit_test(test_upstream_layout_example_states),
      cmocka_unit_test(test_lance_test_data_loads),
      cmocka_unit_test(test_v0_7_5_deletion_file_reads_10_to_19),
      cmocka_unit_test(test_FA_STORE_5_and_6_object_description),
      cmocka_unit_test(test_FA_ROOT_3_and_5_entries_match_the_manifest),
      cmocka_unit_test(test_FA_BITMAP_3_and_4_partials_in_bounds),
      cmocka_unit_test(test_FA_LANCE_4_and_10_base_structure),
      cmocka_unit_test(test_FA_LIMIT_1_row_ids_budgeted_per_snapshot),
      cmocka_unit_test(test_FA_VERIFY_8_spilled_row_ids_not_in_metadata),
      cmocka_unit_test(test_FA_VERIFY_2_reader_failures_carry_their_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
