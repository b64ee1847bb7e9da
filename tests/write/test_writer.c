/* test_writer.c: the dataset writer (ref/write/writer.c). Tables are built by
 * hand, committed version after version, and read back through the reader
 * (lfa_dataset_versions, lfa_snapshot_open, lfa_table_from_snapshot); the
 * files on disk are checked by listing and reading them.
 * Requirement ids: FA-STORE-2, FA-STORE-5, FA-STORE-7, FA-STORE-8,
 * FA-STORE-10, FA-STORE-11, FA-ROOT-9, FA-BITMAP-1, FA-BITMAP-3,
 * FA-BITMAP-4, FA-FLAG-1, FA-FLAG-2, FA-FLAG-3, FA-LANCE-3, FA-LANCE-4,
 * FA-LANCE-5, FA-LANCE-6, FA-LANCE-7, FA-LANCE-8, FA-LANCE-9, FA-LANCE-10,
 * FA-LANCE-14, FA-LANCE-16, FA-LANCE-19, FA-STORE-1, FA-STORE-3. */
#define _POSIX_C_SOURCE 200809L
#include "disk_util.h"

#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lfa/bitmap.h"
#include "lfa/dataset.h"
#include "lfa/deletion.h"
#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/snapshot_model.h"
#include "lfa/table.h"
#include "lfa/transaction.h"
#include "lfa/writer.h"

enum { ID = 0, TEXT = 1, EMB = 2, META = 3, TAG = 4 };

/* ---- building tables by hand ------------------------------------------------------ */

static char *dup_str(const char *s) {
  char *p = strdup(s);
  assert_non_null(p);
  return p;
}

static void *grow(void *p, size_t n, size_t size) {
  void *q = realloc(p, (n ? n : 1) * size);
  assert_non_null(q);
  return q;
}

static void add_field(lfa_table *t, int32_t id, int32_t parent, const char *name, const char *type) {
  t->fields = grow(t->fields, t->n_fields + 1, sizeof *t->fields);
  t->fields[t->n_fields++] = (lfa_field){id, parent, dup_str(name), dup_str(type), true};
}

/* Appends fragment `id` (ids ascending) with one data file storing `fields`;
 * with stable row ids it takes the next `rows` ids. Tracked fields get a NONE
 * cell for it. */
static void add_fragment(lfa_table *t, uint64_t id, uint64_t rows, const int32_t *fields, size_t n) {
  char path[32];
  lfa_fragment f = {0};
  f.id = id, f.physical_rows = rows, f.n_files = 1;
  f.files = grow(NULL, 1, sizeof *f.files);
  snprintf(path, sizeof path, "f%" PRIu64 ".lance", id);
  f.files[0] = (lfa_data_file){dup_str(path), n, grow(NULL, n, sizeof(int32_t))};
  memcpy(f.files[0].fields, fields, n * sizeof(int32_t));
  if (t->stable_row_ids) {
    f.row_ids = grow(NULL, (size_t)rows, sizeof *f.row_ids);
    for (uint64_t k = 0; k < rows; k++) f.row_ids[k] = t->next_row_id++;
  }
  if (id > t->max_fragment_id) t->max_fragment_id = (uint32_t)id;
  for (size_t s = 0; s < t->n_tracked; s++) {
    t->tracked[s].cells = grow(t->tracked[s].cells, t->n_fragments + 1, sizeof(lfa_cell));
    t->tracked[s].cells[t->n_fragments] = (lfa_cell){LFA_CELL_NONE, NULL};
  }
  t->fragments = grow(t->fragments, t->n_fragments + 1, sizeof *t->fragments);
  t->fragments[t->n_fragments++] = f;
}

/* Starts tracking `field` (ids ascending), unassigned everywhere. */
static void track(lfa_table *t, int32_t field) {
  t->tracked = grow(t->tracked, t->n_tracked + 1, sizeof *t->tracked);
  lfa_cell *cells = calloc(t->n_fragments + 1, sizeof *cells);
  assert_non_null(cells);
  t->tracked[t->n_tracked++] = (lfa_field_state){field, cells};
}

static void untrack(lfa_table *t, int32_t field) {
  lfa_field_state *s = lfa_table_tracked(t, field);
  assert_non_null(s);
  for (size_t i = 0; i < t->n_fragments; i++) lfa_bitmap_free(s->cells[i].rows);
  free(s->cells);
  size_t at = (size_t)(s - t->tracked);
  memmove(s, s + 1, (t->n_tracked - at - 1) * sizeof *s);
  t->n_tracked--;
}

static lfa_cell *cell(const lfa_table *t, int32_t field, uint64_t fragment) {
  lfa_field_state *s = lfa_table_tracked(t, field);
  size_t i = lfa_table_fragment(t, fragment);
  assert_non_null(s);
  assert_true(i != SIZE_MAX);
  return &s->cells[i];
}

static void set_all(lfa_table *t, int32_t field, uint64_t fragment) {
  lfa_cell *c = cell(t, field, fragment);
  lfa_bitmap_free(c->rows);
  *c = (lfa_cell){LFA_CELL_ALL, NULL};
}

static void set_partial(lfa_table *t, int32_t field, uint64_t fragment, const uint32_t *offsets, size_t n) {
  lfa_cell *c = cell(t, field, fragment);
  lfa_bitmap_free(c->rows);
  *c = (lfa_cell){LFA_CELL_PARTIAL, roaring_bitmap_of_ptr(n, offsets)};
  assert_non_null(c->rows);
}

static void set_partial_range(lfa_table *t, int32_t field, uint64_t fragment, uint64_t lo, uint64_t hi) {
  lfa_cell *c = cell(t, field, fragment);
  lfa_bitmap_free(c->rows);
  *c = (lfa_cell){LFA_CELL_PARTIAL, roaring_bitmap_from_range(lo, hi, 1)};
  assert_non_null(c->rows);
}

static void delete_range(lfa_table *t, uint64_t fragment, uint32_t lo, uint32_t hi) {
  size_t i = lfa_table_fragment(t, fragment);
  assert_true(i != SIZE_MAX);
  lfa_fragment *f = &t->fragments[i];
  if (f->deleted == NULL) f->deleted = roaring_bitmap_create();
  assert_non_null(f->deleted);
  for (uint32_t off = lo; off < hi; off++) roaring_bitmap_add(f->deleted, off);
}

static void delete_rows(lfa_table *t, uint64_t fragment, const uint32_t *offsets, size_t n) {
  for (size_t k = 0; k < n; k++) delete_range(t, fragment, offsets[k], offsets[k] + 1);
}

static void next_version(lfa_table *out, const lfa_table *prev) {
  lfa_error err = {0};
  assert_ok(lfa_table_copy(out, prev, &err), &err);
  out->version++;
}

static const int32_t ALL_FIELDS[] = {ID, TEXT, EMB, META, TAG};

/* Version 1: id, text, embedding, and a struct `meta` with a child `tag`;
 * fragments 0 and 1 of 10 rows store every field. `embedding` is tracked:
 * fragment 0 PARTIAL {1, 2, 5}, fragment 1 ALL. */
static void base_table(lfa_table *t, bool stable) {
  static const uint32_t ROWS[] = {1, 2, 5};
  memset(t, 0, sizeof *t);
  t->version = 1;
  t->stable_row_ids = stable;
  add_field(t, ID, -1, "id", "int64");
  add_field(t, TEXT, -1, "text", "string");
  add_field(t, EMB, -1, "embedding", "fixed_size_list:float:4");
  add_field(t, META, -1, "meta", "struct");
  add_field(t, TAG, META, "tag", "string");
  track(t, EMB);
  add_fragment(t, 0, 10, ALL_FIELDS, 5);
  add_fragment(t, 1, 10, ALL_FIELDS, 5);
  set_partial(t, EMB, 0, ROWS, 3);
  set_all(t, EMB, 1);
}

/* ---- committing ----------------------------------------------------------------------- */

typedef enum op { OP_OVERWRITE, OP_APPEND, OP_DELETE, OP_UPDATE, OP_MERGE, OP_RESTORE } op;

static lfa_status commit_as(lfa_writer *w, const lfa_table *t, op kind, lfa_error *err) {
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__Overwrite overwrite = LANCE__TABLE__TRANSACTION__OVERWRITE__INIT;
  Lance__Table__Transaction__Append append = LANCE__TABLE__TRANSACTION__APPEND__INIT;
  Lance__Table__Transaction__Delete del = LANCE__TABLE__TRANSACTION__DELETE__INIT;
  Lance__Table__Transaction__Update update = LANCE__TABLE__TRANSACTION__UPDATE__INIT;
  Lance__Table__Transaction__Merge merge = LANCE__TABLE__TRANSACTION__MERGE__INIT;
  Lance__Table__Transaction__Restore restore = LANCE__TABLE__TRANSACTION__RESTORE__INIT;
  switch (kind) {
    case OP_OVERWRITE: txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE, txn.overwrite = &overwrite; break;
    case OP_APPEND: txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_APPEND, txn.append = &append; break;
    case OP_DELETE: txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_DELETE, txn.delete_ = &del; break;
    case OP_UPDATE: txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE, txn.update = &update; break;
    case OP_MERGE: txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_MERGE, txn.merge = &merge; break;
    case OP_RESTORE: txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_RESTORE, txn.restore = &restore; break;
  }
  lfa_status st = lfa_writer_commit(w, t, &txn, err);
  /* the caller's transaction is copied, not filled in */
  assert_int_equal(txn.read_version, 0);
  assert_string_equal(txn.uuid, "");
  return st;
}

static void commit_ok(lfa_writer *w, const lfa_table *t, op kind) {
  lfa_error err = {0};
  assert_ok(commit_as(w, t, kind, &err), &err);
}

static lfa_writer *open_writer(const char *dir, uint64_t seed) {
  lfa_writer *w = NULL;
  lfa_error err = {0};
  assert_ok(lfa_writer_open(&w, dir, seed, &err), &err);
  return w;
}

/* ---- scratch directories --------------------------------------------------------------- */

typedef struct scratch {
  char base[64]; /* the mkdtemp directory, removed at the end */
  char dir[80];  /* base/ds: the dataset, created by the writer */
} scratch;

static void scratch_make(scratch *s) {
  strcpy(s->base, "/tmp/lfa-writer-XXXXXX");
  assert_non_null(mkdtemp(s->base));
  snprintf(s->dir, sizeof s->dir, "%s/ds", s->base);
}

static void scratch_remove(const scratch *s) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->base);
  assert_int_equal(system(cmd), 0);
}

/* ---- reading back ------------------------------------------------------------------------ */

static bool same_set(const roaring_bitmap_t *a, const roaring_bitmap_t *b) {
  bool a_empty = a == NULL || roaring_bitmap_is_empty(a), b_empty = b == NULL || roaring_bitmap_is_empty(b);
  if (a_empty || b_empty) return a_empty == b_empty;
  return roaring_bitmap_equals(a, b);
}

static void assert_fragments_equal(const lfa_fragment *a, const lfa_fragment *b, uint64_t version) {
  if (a->id != b->id || a->physical_rows != b->physical_rows || a->n_files != b->n_files)
    fail_msg("version %" PRIu64 ": fragment %" PRIu64 " differs in id, rows or files", version, a->id);
  for (size_t k = 0; k < a->n_files; k++) {
    assert_string_equal(a->files[k].path, b->files[k].path);
    assert_int_equal(a->files[k].n_fields, b->files[k].n_fields);
    assert_memory_equal(a->files[k].fields, b->files[k].fields, a->files[k].n_fields * sizeof(int32_t));
  }
  if (!same_set(a->deleted, b->deleted))
    fail_msg("version %" PRIu64 ": fragment %" PRIu64 " deletion sets differ", version, a->id);
  /* a name the table gave is kept; an unnamed set gets one from the writer */
  if (a->deletion_file.id != 0 &&
      (a->deletion_file.read_version != b->deletion_file.read_version || a->deletion_file.id != b->deletion_file.id ||
       a->deletion_file.bitmap != b->deletion_file.bitmap))
    fail_msg("version %" PRIu64 ": fragment %" PRIu64 " deletion file names differ", version, a->id);
  assert_true((a->row_ids == NULL) == (b->row_ids == NULL));
  if (a->row_ids != NULL) assert_memory_equal(a->row_ids, b->row_ids, a->physical_rows * sizeof(uint64_t));
}

static void assert_cells_equal(const lfa_table *a, const lfa_field_state *x, const lfa_field_state *y) {
  for (size_t i = 0; i < a->n_fragments; i++) {
    const lfa_cell *c = &x->cells[i], *d = &y->cells[i];
    if (c->kind != d->kind || (c->kind == LFA_CELL_PARTIAL && !roaring_bitmap_equals(c->rows, d->rows)))
      fail_msg("version %" PRIu64 ": field %d, fragment %" PRIu64 ": cells differ (kind %d vs %d)", a->version,
               x->field_id, a->fragments[i].id, (int)c->kind, (int)d->kind);
  }
}

/* Field by field, fragment by fragment, cell by cell. */
static void assert_tables_equal(const lfa_table *a, const lfa_table *b) {
  assert_int_equal(a->version, b->version);
  assert_int_equal(a->stable_row_ids, b->stable_row_ids);
  assert_int_equal(a->next_row_id, b->next_row_id);
  assert_int_equal(a->max_fragment_id, b->max_fragment_id);
  assert_int_equal(a->n_fields, b->n_fields);
  for (size_t i = 0; i < a->n_fields; i++) {
    assert_int_equal(a->fields[i].id, b->fields[i].id);
    assert_int_equal(a->fields[i].parent_id, b->fields[i].parent_id);
    assert_string_equal(a->fields[i].name, b->fields[i].name);
    assert_string_equal(a->fields[i].logical_type, b->fields[i].logical_type);
    assert_int_equal(a->fields[i].nullable, b->fields[i].nullable);
  }
  assert_int_equal(a->n_fragments, b->n_fragments);
  for (size_t i = 0; i < a->n_fragments; i++) assert_fragments_equal(&a->fragments[i], &b->fragments[i], a->version);
  assert_int_equal(a->n_tracked, b->n_tracked);
  for (size_t s = 0; s < a->n_tracked; s++) {
    assert_int_equal(a->tracked[s].field_id, b->tracked[s].field_id);
    assert_cells_equal(a, &a->tracked[s], &b->tracked[s]);
  }
}

static void assert_reads_back(const char *dir, const lfa_table *want) {
  lfa_table got;
  read_table(&got, dir, want->version);
  assert_tables_equal(want, &got);
  lfa_table_free(&got);
}

/* ---- looking at the files ------------------------------------------------------------------ */

static size_t count_files(const char *dir, const char *sub) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_names names;
  lfa_error err = {0};
  assert_ok(lfa_fs_join(path, sizeof path, dir, sub, &err), &err);
  assert_ok(lfa_fs_list(&names, path, 1, &err), &err);
  size_t n = names.count;
  lfa_fs_names_free(&names);
  return n;
}

static long long file_size(const char *dir, const char *rel) {
  char path[LFA_PATH_BYTES_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  if (stat(path, &st) != 0) fail_msg("%s does not exist", path);
  return (long long)st.st_size;
}

/* The descriptor of `field` in a loaded snapshot. */
static const Lance__Table__FieldAssignmentFile *root_of(const lfa_snapshot *s, int32_t field) {
  const Lance__Table__Manifest *m = s->file.manifest;
  for (size_t i = 0; i < m->n_field_assignment_states; i++)
    if (m->field_assignment_states[i]->field_id == field) return m->field_assignment_states[i]->root;
  fail_msg("field %d is not tracked", field);
  return NULL;
}

/* The partial of (field, fragment) in a loaded snapshot. */
static const Lance__Table__FieldAssignmentFile *partial_of(const lfa_snapshot *s, int32_t field, uint64_t fragment) {
  size_t t = lfa_snapshot_tracked(s, field);
  assert_true(t != SIZE_MAX);
  for (size_t k = 0; k < s->tracked[t].root->n_fragments; k++) {
    const lfa_root_entry *e = s->tracked[t].root->fragments[k];
    if (e->fragment_id == fragment && e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL)
      return e->partial;
  }
  fail_msg("field %d has no partial for fragment %" PRIu64, field, fragment);
  return NULL;
}

static void root_path(char out[256], const char *dir, uint64_t version, int32_t field) {
  lfa_snapshot s;
  load_version(&s, dir, version);
  snprintf(out, 256, "%s", root_of(&s, field)->path);
  lfa_snapshot_free(&s);
}

static void partial_path(char out[256], const char *dir, uint64_t version, int32_t field, uint64_t fragment) {
  lfa_snapshot s;
  load_version(&s, dir, version);
  snprintf(out, 256, "%s", partial_of(&s, field, fragment)->path);
  lfa_snapshot_free(&s);
}

/* The deletion descriptor of a fragment (zeroed when it has none). */
static Lance__Table__DeletionFile deletion_of(const char *dir, uint64_t version, uint64_t fragment) {
  lfa_snapshot s;
  Lance__Table__DeletionFile d = LANCE__TABLE__DELETION_FILE__INIT;
  load_version(&s, dir, version);
  size_t i = lfa_snapshot_fragment(&s, fragment);
  assert_true(i != SIZE_MAX);
  if (s.file.manifest->fragments[i]->deletion_file != NULL) d = *s.file.manifest->fragments[i]->deletion_file;
  lfa_snapshot_free(&s);
  return d;
}

static void feature_flags(uint64_t *reader, uint64_t *writer, const char *dir, uint64_t version) {
  lfa_snapshot s;
  load_version(&s, dir, version);
  *reader = s.file.manifest->reader_feature_flags;
  *writer = s.file.manifest->writer_feature_flags;
  lfa_snapshot_free(&s);
}

/* Every regular file under `dir`, as paths relative to it, in sorted order. */
typedef struct tree {
  size_t count;
  char *paths[256];
} tree;

/* Breadth-first over a work list of directories (no recursion). */
static int by_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void walk(tree *out, const char *root) {
  char *dirs[64] = {dup_str("")}, path[LFA_PATH_BYTES_MAX], child[LFA_PATH_BYTES_MAX];
  size_t n_dirs = 1;
  for (size_t d = 0; d < n_dirs; d++) {
    lfa_names names;
    lfa_error err = {0};
    snprintf(path, sizeof path, "%s/%s", root, dirs[d]);
    assert_ok(lfa_fs_list(&names, path, 0, &err), &err);
    for (size_t i = 0; i < names.count; i++) {
      int n = snprintf(child, sizeof child, "%s%s%s", dirs[d], dirs[d][0] ? "/" : "", names.names[i]);
      assert_true(n > 0 && (size_t)n < sizeof child);
      n = snprintf(path, sizeof path, "%s/%s", root, child);
      assert_true(n > 0 && (size_t)n < sizeof path);
      bool is_dir = lfa_fs_is_dir(path);
      assert_true(is_dir ? n_dirs < 64 : out->count < 256);
      if (is_dir) dirs[n_dirs++] = dup_str(child);
      else out->paths[out->count++] = dup_str(child);
    }
    lfa_fs_names_free(&names);
  }
  for (size_t d = 0; d < n_dirs; d++) free(dirs[d]);
  qsort(out->paths, out->count, sizeof *out->paths, by_path);
}

static void tree_free(tree *t) {
  for (size_t i = 0; i < t->count; i++) free(t->paths[i]);
  t->count = 0;
}

/* The first entry of a directory ("" when it is empty). opendir, not
 * lfa_fs_list: that one hands qsort a NULL array for an empty directory. */
static void first_entry(char out[256], const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  out[0] = '\0';
  for (struct dirent *e; out[0] == '\0' && (e = readdir(d)) != NULL;)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) snprintf(out, 256, "%s", e->d_name);
  closedir(d);
}

static uint8_t *read_rel(const char *dir, const char *rel, size_t *len) {
  char path[LFA_PATH_BYTES_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  return tu_read_file(path, len);
}

/* ---- a history used by several tests ---------------------------------------------------------- */

enum { HISTORY = 6 };

/* v1 Overwrite the base table; v2 Delete fragment 0 {2, 7}; v3 Append
 * fragment 2 (4 rows, embedding ALL); v4 Merge: start tracking `tag`,
 * unassigned (an empty root); v5 Update: embedding of fragment 1 becomes
 * {3}, tag of fragment 0 ALL; v6 Append fragment 3 (20000 rows, embedding
 * [100, 9000): a bitset container) with 6000 of its rows deleted (a `.bin`).
 * Keeps every table in t[0..5]. */
static void write_history(lfa_table t[HISTORY], const char *dir, uint64_t seed, bool stable) {
  static const uint32_t DELETED[] = {2, 7}, THREE[] = {3};
  static const int32_t ID_EMB[] = {ID, EMB};
  lfa_writer *w = open_writer(dir, seed);
  base_table(&t[0], stable);
  commit_ok(w, &t[0], OP_OVERWRITE);
  next_version(&t[1], &t[0]);
  delete_rows(&t[1], 0, DELETED, 2);
  commit_ok(w, &t[1], OP_DELETE);
  next_version(&t[2], &t[1]);
  add_fragment(&t[2], 2, 4, ID_EMB, 2);
  set_all(&t[2], EMB, 2);
  commit_ok(w, &t[2], OP_APPEND);
  next_version(&t[3], &t[2]);
  track(&t[3], TAG);
  commit_ok(w, &t[3], OP_MERGE);
  next_version(&t[4], &t[3]);
  set_partial(&t[4], EMB, 1, THREE, 1);
  set_all(&t[4], TAG, 0);
  commit_ok(w, &t[4], OP_UPDATE);
  next_version(&t[5], &t[4]);
  add_fragment(&t[5], 3, 20000, ID_EMB, 2);
  set_partial_range(&t[5], EMB, 3, 100, 9000);
  delete_range(&t[5], 3, 0, 6000);
  commit_ok(w, &t[5], OP_APPEND);
  lfa_writer_close(w);
}

static void free_history(lfa_table t[HISTORY]) {
  for (size_t i = 0; i < HISTORY; i++) lfa_table_free(&t[i]);
}

/* ---- round trips ---------------------------------------------------------------------------------- */

static void test_history_reads_back_version_by_version(void **state) {
  (void)state;
  scratch s;
  lfa_table t[HISTORY];
  scratch_make(&s);
  write_history(t, s.dir, 1, false);
  for (size_t i = 0; i < HISTORY; i++) assert_reads_back(s.dir, &t[i]);
  assert_int_equal(count_files(s.dir, "_versions"), HISTORY);
  assert_int_equal(count_files(s.dir, "_transactions"), HISTORY);
  free_history(t);
  scratch_remove(&s);
}

/* [FA-LANCE-7] inline row id sequences, reader and writer bit 2, next_row_id. */
static void test_FA_LANCE_7_stable_row_ids_round_trip(void **state) {
  (void)state;
  scratch s;
  lfa_table t[HISTORY];
  scratch_make(&s);
  write_history(t, s.dir, 1, true);
  for (size_t i = 0; i < HISTORY; i++) assert_reads_back(s.dir, &t[i]);
  lfa_snapshot snap;
  load_version(&snap, s.dir, HISTORY);
  const Lance__Table__Manifest *m = snap.file.manifest;
  for (size_t i = 0; i < m->n_fragments; i++)
    assert_int_equal(m->fragments[i]->row_id_sequence_case, LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS);
  assert_int_equal(m->next_row_id, 10 + 10 + 4 + 20000);
  assert_true(m->reader_feature_flags & 2);
  assert_true(m->writer_feature_flags & 2);
  assert_int_equal(snap.row_ids[3].ids[19999], 10 + 10 + 4 + 19999);
  lfa_snapshot_free(&snap);
  free_history(t);
  scratch_remove(&s);
}

/* A row moved by a row-rewriting update keeps its id in the new fragment;
 * the old copy is deleted, so only one live row holds it [FA-LANCE-14]. */
static void test_FA_LANCE_14_moved_row_keeps_its_id(void **state) {
  (void)state;
  static const uint32_t MOVED[] = {4};
  scratch s;
  lfa_table v1, v2;
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 5);
  base_table(&v1, true);
  commit_ok(w, &v1, OP_OVERWRITE);
  next_version(&v2, &v1);
  delete_rows(&v2, 0, MOVED, 1);
  add_fragment(&v2, 2, 1, ALL_FIELDS, 5);
  v2.next_row_id--; /* add_fragment handed out a fresh id: give the moved row its own back */
  v2.fragments[2].row_ids[0] = v1.fragments[0].row_ids[4];
  set_all(&v2, EMB, 2);
  commit_ok(w, &v2, OP_UPDATE);
  assert_reads_back(s.dir, &v1);
  assert_reads_back(s.dir, &v2);
  lfa_writer_close(w);
  lfa_table_free(&v1);
  lfa_table_free(&v2);
  scratch_remove(&s);
}

/* ---- structural sharing ---------------------------------------------------------------------------- */

/* [FA-STORE-10] a delete and an append of a fragment without the field
 * leave the root's entries unchanged: the same root object, no new file. */
static void test_FA_STORE_10_unchanged_root_is_shared(void **state) {
  (void)state;
  static const uint32_t DELETED[] = {0, 9};
  static const int32_t ID_ONLY[] = {ID};
  scratch s;
  lfa_table v1, v2, v3;
  char r1[256], r2[256], r3[256];
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 7);
  base_table(&v1, false);
  commit_ok(w, &v1, OP_OVERWRITE);
  next_version(&v2, &v1);
  delete_rows(&v2, 1, DELETED, 2);
  commit_ok(w, &v2, OP_DELETE);
  next_version(&v3, &v2);
  add_fragment(&v3, 2, 5, ID_ONLY, 1); /* does not store embedding: NONE, no entry */
  commit_ok(w, &v3, OP_APPEND);
  root_path(r1, s.dir, 1, EMB), root_path(r2, s.dir, 2, EMB), root_path(r3, s.dir, 3, EMB);
  assert_string_equal(r1, r2);
  assert_string_equal(r1, r3);
  assert_int_equal(count_files(s.dir, "_field_assignments/roots/2"), 1);
  assert_int_equal(count_files(s.dir, "_field_assignments/bitmaps/2/0"), 1);
  assert_reads_back(s.dir, &v3);
  lfa_writer_close(w);
  lfa_table_free(&v1), lfa_table_free(&v2), lfa_table_free(&v3);
  scratch_remove(&s);
}

/* [FA-STORE-11] fragment 1's partial changes; fragment 0's partial is
 * referenced by the new root, not written again. */
static void test_FA_STORE_11_unchanged_bitmap_is_referenced(void **state) {
  (void)state;
  static const uint32_t A[] = {3}, B[] = {3, 4};
  scratch s;
  lfa_table v1, v2;
  char p1[256], p2[256], r1[256], r2[256];
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 11);
  base_table(&v1, false);
  set_partial(&v1, EMB, 1, A, 1);
  commit_ok(w, &v1, OP_OVERWRITE);
  next_version(&v2, &v1);
  set_partial(&v2, EMB, 1, B, 2);
  commit_ok(w, &v2, OP_UPDATE);
  partial_path(p1, s.dir, 1, EMB, 0), partial_path(p2, s.dir, 2, EMB, 0);
  assert_string_equal(p1, p2);
  root_path(r1, s.dir, 1, EMB), root_path(r2, s.dir, 2, EMB);
  assert_string_not_equal(r1, r2);
  assert_int_equal(count_files(s.dir, "_field_assignments/bitmaps/2/0"), 1);
  assert_int_equal(count_files(s.dir, "_field_assignments/bitmaps/2/1"), 2);
  assert_int_equal(count_files(s.dir, "_field_assignments/roots/2"), 2);
  /* going back to v1's state reuses v1's objects: nothing new is written */
  lfa_table v3;
  next_version(&v3, &v2);
  set_partial(&v3, EMB, 1, A, 1);
  commit_ok(w, &v3, OP_UPDATE);
  root_path(r2, s.dir, 3, EMB);
  assert_string_equal(r1, r2);
  assert_int_equal(count_files(s.dir, "_field_assignments/bitmaps/2/1"), 2);
  assert_int_equal(count_files(s.dir, "_field_assignments/roots/2"), 2);
  assert_reads_back(s.dir, &v3);
  lfa_writer_close(w);
  lfa_table_free(&v1), lfa_table_free(&v2), lfa_table_free(&v3);
  scratch_remove(&s);
}

/* [FA-ROOT-9] an all-unassigned field has a real 0-byte root, described
 * with size 0 (left off the wire), and shared while nothing is assigned. */
static void test_FA_ROOT_9_unassigned_field_has_a_zero_byte_root(void **state) {
  (void)state;
  scratch s;
  lfa_table t[HISTORY];
  scratch_make(&s);
  write_history(t, s.dir, 3, false);
  lfa_snapshot snap;
  load_version(&snap, s.dir, 4);
  const Lance__Table__FieldAssignmentFile *root = root_of(&snap, TAG);
  assert_false(root->has_size_bytes);
  assert_int_equal(root->size_bytes, 0);
  assert_int_equal(file_size(s.dir, root->path), 0);
  assert_int_equal(snap.tracked[lfa_snapshot_tracked(&snap, TAG)].count, 0);
  lfa_snapshot_free(&snap);
  assert_int_equal(count_files(s.dir, "_field_assignments/roots/4"), 2); /* empty in v4, then ALL in v5 */
  free_history(t);
  scratch_remove(&s);
}

/* [FA-BITMAP-1] every bitmap object is the no-run form: cookie 12346, and
 * a valid encoding (array and bitset containers both occur in the history). */
static void test_FA_BITMAP_1_bitmaps_use_the_no_run_cookie(void **state) {
  (void)state;
  scratch s;
  lfa_table t[HISTORY];
  tree files = {0};
  size_t seen = 0;
  scratch_make(&s);
  write_history(t, s.dir, 3, false);
  walk(&files, s.dir);
  for (size_t i = 0; i < files.count; i++) {
    if (strstr(files.paths[i], ".rbm") == NULL) continue;
    size_t len;
    uint8_t *bytes = read_rel(s.dir, files.paths[i], &len);
    lfa_error err = {0};
    uint64_t n = 0;
    assert_true(len >= 4);
    assert_int_equal(lfa_load_u32le(bytes), 12346);
    assert_ok(lfa_bitmap_check(&n, bytes, len, &err), &err);
    free(bytes);
    seen++;
  }
  assert_int_equal(seen, 3); /* fragment 0 {1,2,5}, fragment 1 {3}, fragment 3 [100, 9000) */
  tree_free(&files);
  free_history(t);
  scratch_remove(&s);
}

/* [FA-STORE-5] every descriptor's size_bytes is its object's length, and
 * [FA-STORE-7] every object sits at its upstream path. */
static void test_FA_STORE_5_sizes_match_the_files(void **state) {
  (void)state;
  scratch s;
  lfa_table t[HISTORY];
  scratch_make(&s);
  write_history(t, s.dir, 9, false);
  for (uint64_t v = 1; v <= HISTORY; v++) {
    lfa_snapshot snap;
    load_version(&snap, s.dir, v);
    for (size_t k = 0; k < snap.n_tracked; k++) {
      const lfa_tracked_field *tf = &snap.tracked[k];
      char prefix[64];
      snprintf(prefix, sizeof prefix, "_field_assignments/roots/%d/", tf->field_id);
      assert_int_equal(strncmp(tf->root_file->path, prefix, strlen(prefix)), 0);
      assert_int_equal(file_size(s.dir, tf->root_file->path), (long long)tf->root_file->size_bytes);
      for (size_t e = 0; e < tf->root->n_fragments; e++) {
        const lfa_root_entry *entry = tf->root->fragments[e];
        if (entry->state_case != LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL) continue;
        snprintf(prefix, sizeof prefix, "_field_assignments/bitmaps/%d/%" PRIu64 "/", tf->field_id, entry->fragment_id);
        assert_int_equal(strncmp(entry->partial->path, prefix, strlen(prefix)), 0);
        assert_int_equal(file_size(s.dir, entry->partial->path), (long long)entry->partial->size_bytes);
      }
    }
    lfa_snapshot_free(&snap);
  }
  free_history(t);
  scratch_remove(&s);
}

/* [FA-STORE-2] descriptors in field id order. */
static void test_FA_STORE_2_descriptors_sorted(void **state) {
  (void)state;
  scratch s;
  lfa_table t[HISTORY];
  scratch_make(&s);
  write_history(t, s.dir, 2, false);
  lfa_snapshot snap;
  load_version(&snap, s.dir, 5);
  const Lance__Table__Manifest *m = snap.file.manifest;
  assert_int_equal(m->n_field_assignment_states, 2);
  assert_int_equal(m->field_assignment_states[0]->field_id, EMB);
  assert_int_equal(m->field_assignment_states[1]->field_id, TAG);
  /* the schema as Lance lays it out: `meta` is a PARENT, the rest LEAF */
  assert_int_equal(m->fields[META]->type, LANCE__FILE__FIELD__TYPE__PARENT);
  assert_int_equal(m->fields[TAG]->type, LANCE__FILE__FIELD__TYPE__LEAF);
  assert_int_equal(m->fields[EMB]->type, LANCE__FILE__FIELD__TYPE__LEAF);
  lfa_snapshot_free(&snap);
  free_history(t);
  scratch_remove(&s);
}

/* ---- feature flags ------------------------------------------------------------------------------- */

/* [FA-FLAG-1] [FA-FLAG-2] [FA-FLAG-3] bit 2^52 in both words exactly while a
 * field is tracked; bit 1 while a fragment has a deletion file. */
static void test_FA_FLAG_1_FA_FLAG_2_recomputed_every_commit(void **state) {
  (void)state;
  static const uint32_t DELETED[] = {4};
  static const uint64_t WANT[] = {0, (uint64_t)1 << 52, ((uint64_t)1 << 52) + 1, 1};
  scratch s;
  lfa_table v[4];
  uint64_t reader, writer;
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 13);
  base_table(&v[0], false);
  untrack(&v[0], EMB);
  commit_ok(w, &v[0], OP_OVERWRITE);
  next_version(&v[1], &v[0]);
  track(&v[1], EMB);
  commit_ok(w, &v[1], OP_MERGE);
  next_version(&v[2], &v[1]);
  delete_rows(&v[2], 0, DELETED, 1);
  commit_ok(w, &v[2], OP_DELETE);
  next_version(&v[3], &v[2]);
  untrack(&v[3], EMB);
  commit_ok(w, &v[3], OP_MERGE);
  for (uint64_t k = 0; k < 4; k++) {
    feature_flags(&reader, &writer, s.dir, k + 1);
    assert_int_equal(writer, WANT[k]);
    assert_int_equal(reader, WANT[k]);
    assert_reads_back(s.dir, &v[k]);
  }
  lfa_writer_close(w);
  for (size_t k = 0; k < 4; k++) lfa_table_free(&v[k]);
  scratch_remove(&s);
}

/* ---- deletion files ------------------------------------------------------------------------------- */

/* [FA-LANCE-3] [FA-LANCE-16] a growing set gets a new file holding the
 * whole set; an unchanged set keeps its file (same descriptor). */
static void test_FA_LANCE_3_deletion_files_are_cumulative(void **state) {
  (void)state;
  static const uint32_t ONE[] = {1}, THREE[] = {3}, FOUR[] = {4};
  scratch s;
  lfa_table v1, v2, v3, v4;
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 17);
  base_table(&v1, false);
  commit_ok(w, &v1, OP_OVERWRITE);
  next_version(&v2, &v1);
  delete_rows(&v2, 0, ONE, 1);
  commit_ok(w, &v2, OP_DELETE);
  next_version(&v3, &v2);
  delete_rows(&v3, 0, THREE, 1);
  commit_ok(w, &v3, OP_DELETE);
  next_version(&v4, &v3);
  delete_rows(&v4, 1, FOUR, 1);
  commit_ok(w, &v4, OP_DELETE);
  Lance__Table__DeletionFile d2 = deletion_of(s.dir, 2, 0), d3 = deletion_of(s.dir, 3, 0), d4 = deletion_of(s.dir, 4, 0);
  assert_int_equal(d2.file_type, LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__ARROW_ARRAY);
  assert_int_equal(d2.read_version, 1);
  assert_int_equal(d2.num_deleted_rows, 1);
  assert_int_equal(d3.read_version, 2);
  assert_int_equal(d3.num_deleted_rows, 2);
  assert_true(d3.id != d2.id);
  assert_int_equal(d4.read_version, d3.read_version); /* unchanged: the same file */
  assert_int_equal(d4.id, d3.id);
  assert_int_equal(d4.num_deleted_rows, 2);
  assert_int_equal(count_files(s.dir, "_deletions"), 3);
  /* the v3 file holds the cumulative set {1, 3} */
  char rel[128];
  size_t len;
  snprintf(rel, sizeof rel, "_deletions/0-2-%" PRIu64 ".arrow", d3.id);
  uint8_t *bytes = read_rel(s.dir, rel, &len);
  roaring_bitmap_t *set = NULL;
  lfa_error err = {0};
  assert_ok(lfa_deletion_decode(&set, LFA_DELETION_ARROW, bytes, len, &err), &err);
  assert_int_equal(roaring_bitmap_get_cardinality(set), 2);
  assert_true(roaring_bitmap_contains(set, 1) && roaring_bitmap_contains(set, 3));
  roaring_bitmap_free(set);
  free(bytes);
  assert_reads_back(s.dir, &v4);
  lfa_writer_close(w);
  lfa_table_free(&v1), lfa_table_free(&v2), lfa_table_free(&v3), lfa_table_free(&v4);
  scratch_remove(&s);
}

/* Up to 5000 deleted rows `.arrow`, past it `.bin`; a fragment whose file is
 * `.bin` keeps `.bin` even when its set gets small again. */
static void test_FA_LANCE_16_large_deletion_sets_are_bin(void **state) {
  (void)state;
  static const int32_t ID_ONLY[] = {ID};
  scratch s;
  lfa_table v[3];
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 19);
  memset(&v[0], 0, sizeof v[0]);
  v[0].version = 1;
  add_field(&v[0], ID, -1, "id", "int64");
  add_fragment(&v[0], 0, 20000, ID_ONLY, 1);
  delete_range(&v[0], 0, 0, 5000);
  commit_ok(w, &v[0], OP_OVERWRITE);
  next_version(&v[1], &v[0]);
  delete_range(&v[1], 0, 5000, 5001);
  commit_ok(w, &v[1], OP_DELETE);
  next_version(&v[2], &v[1]);
  lfa_bitmap_free(v[2].fragments[0].deleted);
  v[2].fragments[0].deleted = roaring_bitmap_from_range(0, 10, 1);
  commit_ok(w, &v[2], OP_UPDATE);
  static const lfa_deletion_kind WANT[] = {LFA_DELETION_ARROW, LFA_DELETION_BITMAP, LFA_DELETION_BITMAP};
  static const uint64_t COUNT[] = {5000, 5001, 10};
  for (uint64_t k = 0; k < 3; k++) {
    Lance__Table__DeletionFile d = deletion_of(s.dir, k + 1, 0);
    assert_int_equal(d.file_type, WANT[k]);
    assert_int_equal(d.num_deleted_rows, COUNT[k]);
    assert_reads_back(s.dir, &v[k]);
  }
  lfa_writer_close(w);
  for (size_t k = 0; k < 3; k++) lfa_table_free(&v[k]);
  scratch_remove(&s);
}

/* Gives fragment `id` the deleted set [lo, hi) in a file the table names. */
static void set_named_deletions(lfa_table *t, uint64_t fragment, uint32_t lo, uint32_t hi, lfa_deletion_file name) {
  lfa_fragment *f = &t->fragments[lfa_table_fragment(t, fragment)];
  lfa_bitmap_free(f->deleted);
  f->deleted = NULL;
  delete_range(t, fragment, lo, hi);
  f->deletion_file = name;
}

/* [FA-LANCE-16] a deletion file the table names (as mutations do, since
 * Lance transactions name them) is written under that name once; naming it
 * again reuses it, even several versions later (a Restore); naming it for
 * another set is refused before anything is written. */
static void test_FA_LANCE_16_named_deletion_files(void **state) {
  (void)state;
  static const lfa_deletion_file A = {1, 2, false}, B = {2, 3, true}, C = {3, 4, false};
  scratch s;
  lfa_table v[6];
  lfa_error err = {0};
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 41);
  base_table(&v[0], false);
  commit_ok(w, &v[0], OP_OVERWRITE);
  next_version(&v[1], &v[0]);
  set_named_deletions(&v[1], 0, 1, 2, A);
  commit_ok(w, &v[1], OP_DELETE);
  next_version(&v[2], &v[1]); /* fragment 0 restates A */
  set_named_deletions(&v[2], 1, 0, 1, B);
  commit_ok(w, &v[2], OP_DELETE);
  next_version(&v[3], &v[2]);
  set_named_deletions(&v[3], 0, 1, 6, C);
  commit_ok(w, &v[3], OP_DELETE);
  next_version(&v[4], &v[3]); /* back to v2's file */
  set_named_deletions(&v[4], 0, 1, 2, A);
  commit_ok(w, &v[4], OP_RESTORE);
  assert_int_equal(file_size(s.dir, "_deletions/0-1-2.arrow") > 0, 1);
  assert_int_equal(file_size(s.dir, "_deletions/1-2-3.bin") > 0, 1);
  assert_int_equal(file_size(s.dir, "_deletions/0-3-4.arrow") > 0, 1);
  assert_int_equal(count_files(s.dir, "_deletions"), 3);
  for (size_t k = 0; k < 5; k++) assert_reads_back(s.dir, &v[k]);
  next_version(&v[5], &v[4]);
  set_named_deletions(&v[5], 0, 1, 3, A); /* A holds {1}, not {1, 2} */
  assert_status(commit_as(w, &v[5], OP_DELETE, &err), LFA_ERR_USAGE, &err);
  assert_non_null(strstr(err.msg, "version 6: fragment 0: deletion file 1-2 already holds another set"));
  assert_int_equal(count_files(s.dir, "_deletions"), 3);
  assert_int_equal(count_files(s.dir, "_versions"), 5);
  lfa_writer_close(w);
  for (size_t k = 0; k < 6; k++) lfa_table_free(&v[k]);
  scratch_remove(&s);
}

/* ---- determinism, versions, the reader ------------------------------------------------------------ */

/* The same seed and history give the same files, byte for byte; another
 * seed gives other names. */
static void test_same_seed_same_bytes(void **state) {
  (void)state;
  scratch a, b, c;
  lfa_table ta[HISTORY], tb[HISTORY], tc[HISTORY];
  tree fa = {0}, fb = {0}, fc = {0};
  scratch_make(&a), scratch_make(&b), scratch_make(&c);
  write_history(ta, a.dir, 42, true);
  write_history(tb, b.dir, 42, true);
  write_history(tc, c.dir, 43, true);
  walk(&fa, a.dir), walk(&fb, b.dir), walk(&fc, c.dir);
  assert_int_equal(fa.count, fb.count);
  assert_true(fa.count > 20);
  for (size_t i = 0; i < fa.count; i++) {
    size_t la, lb;
    assert_string_equal(fa.paths[i], fb.paths[i]);
    uint8_t *x = read_rel(a.dir, fa.paths[i], &la), *y = read_rel(b.dir, fb.paths[i], &lb);
    assert_int_equal(la, lb);
    if (la > 0) assert_memory_equal(x, y, la);
    free(x), free(y);
  }
  size_t same = 0;
  for (size_t i = 0; i < fc.count && i < fa.count; i++)
    if (strcmp(fa.paths[i], fc.paths[i]) == 0) same++;
  assert_int_equal(same, HISTORY); /* only the version file names agree */
  tree_free(&fa), tree_free(&fb), tree_free(&fc);
  free_history(ta), free_history(tb), free_history(tc);
  scratch_remove(&a), scratch_remove(&b), scratch_remove(&c);
}

static void test_versions_must_follow_by_one(void **state) {
  (void)state;
  scratch s;
  lfa_table v1, v2;
  lfa_error err = {0};
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 23);
  base_table(&v1, false);
  next_version(&v2, &v1);
  assert_status(commit_as(w, &v2, OP_OVERWRITE, &err), LFA_ERR_USAGE, &err); /* 2 before 1 */
  assert_non_null(strstr(err.msg, "version 2"));
  commit_ok(w, &v1, OP_OVERWRITE);
  assert_status(commit_as(w, &v1, OP_OVERWRITE, &err), LFA_ERR_USAGE, &err); /* 1 again */
  v2.version = 3;
  assert_status(commit_as(w, &v2, OP_APPEND, &err), LFA_ERR_USAGE, &err); /* 3 skips 2 */
  v2.version = 2;
  commit_ok(w, &v2, OP_APPEND);
  assert_int_equal(count_files(s.dir, "_versions"), 2);
  assert_int_equal(count_files(s.dir, "_transactions"), 2);
  assert_status(lfa_writer_commit(w, &v1, NULL, &err), LFA_ERR_USAGE, &err);
  lfa_writer_close(w);
  /* [FA-STORE-8] a writer starts a new dataset: an existing one is refused */
  lfa_writer *again = NULL;
  assert_status(lfa_writer_open(&again, s.dir, 23, &err), LFA_ERR_USAGE, &err);
  assert_null(again);
  lfa_table_free(&v1), lfa_table_free(&v2);
  scratch_remove(&s);
}

/* What `lfa dump` reads, through the reader it uses: every version loads,
 * its transaction is inline and in `_transactions/{v-1}-{uuid}.txn` and the
 * two agree [FA-LANCE-10] (the file holds exactly the inline
 * transaction's encoding, so the reader need not decode it), and the
 * writer names itself. */
static void test_FA_LANCE_10_dump_reader_reads_every_version(void **state) {
  (void)state;
  static const char *OPS[] = {"Overwrite", "Delete", "Append", "Merge", "Update", "Append"};
  scratch s;
  lfa_table t[HISTORY];
  scratch_make(&s);
  write_history(t, s.dir, 29, false);
  for (uint64_t v = 1; v <= HISTORY; v++) {
    lfa_snapshot snap;
    load_version(&snap, s.dir, v);
    const Lance__Table__Manifest *m = snap.file.manifest;
    assert_non_null(snap.file.transaction);
    assert_null(snap.txn_file); /* byte for byte the inline one: not decoded again */
    assert_ptr_equal(snap.transaction, snap.file.transaction);
    assert_string_equal(lfa_transaction_operation_name(snap.transaction), OPS[v - 1]);
    assert_int_equal(snap.transaction->read_version, v - 1);
    const char *uuid = snap.transaction->uuid;
    assert_int_equal(strlen(uuid), 36);
    assert_int_equal(uuid[14], '4');
    assert_non_null(strchr("89ab", uuid[19]));
    char name[64];
    snprintf(name, sizeof name, "%" PRIu64 "-%s.txn", v - 1, uuid);
    assert_string_equal(m->transaction_file, name);
    char path[256];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/_transactions/%s", s.dir, name);
    uint8_t *file = tu_read_file(path, &len);
    lfa_buf inline_bytes = {0};
    lfa_error err = {0};
    assert_ok(lfa_transaction_encode(&inline_bytes, snap.file.transaction, &err), &err);
    assert_int_equal(len, inline_bytes.len);
    assert_memory_equal(file, inline_bytes.data, len);
    free(file);
    lfa_buf_free(&inline_bytes);
    assert_string_equal(m->writer_version->library, "lfa");
    assert_string_equal(m->writer_version->version, "0.1.0");
    for (size_t i = 0; i < m->n_fragments; i++) assert_true(lfa_snapshot_live_rows(&snap, i) > 0);
    lfa_snapshot_free(&snap);
  }
  free_history(t);
  scratch_remove(&s);
}

/* ---- refusals: a table a reader would reject is never written ---------------------------------------- */

typedef struct bad_case {
  const char *rule;
  void (*spoil)(lfa_table *t);
} bad_case;

static void spoil_empty_partial(lfa_table *t) {
  lfa_cell *c = cell(t, EMB, 0);
  lfa_bitmap_free(c->rows);
  c->rows = roaring_bitmap_create();
}
static void spoil_full_partial(lfa_table *t) { set_partial_range(t, EMB, 0, 0, 10); }
static void spoil_offset_past_end(lfa_table *t) { set_partial_range(t, EMB, 0, 5, 11); }
static void spoil_fragment_order(lfa_table *t) { t->fragments[1].id = 0; }
static void spoil_max_fragment_id(lfa_table *t) { t->max_fragment_id = 0; }
static void spoil_deleted_past_end(lfa_table *t) { delete_range(t, 1, 10, 11); }
static void spoil_field_in_two_files(lfa_table *t) {
  lfa_fragment *f = &t->fragments[0];
  f->files = grow(f->files, 2, sizeof *f->files);
  f->files[1] = (lfa_data_file){dup_str("g0.lance"), 1, grow(NULL, 1, sizeof(int32_t))};
  f->files[1].fields[0] = TEXT;
  f->n_files = 2;
}
static void spoil_child_first(lfa_table *t) {
  lfa_field tag = t->fields[TAG];
  t->fields[TAG] = t->fields[META];
  t->fields[META] = tag;
}
static void spoil_tracked_twice(lfa_table *t) { track(t, EMB); }
static void spoil_tracked_order(lfa_table *t) {
  track(t, TEXT); /* after EMB */
}
static void spoil_tracked_unknown(lfa_table *t) { track(t, 99); }
static void spoil_row_ids_missing(lfa_table *t) {
  t->stable_row_ids = true;
  t->next_row_id = 20;
}
static void spoil_row_id_shared(lfa_table *t) {
  lfa_table stable;
  base_table(&stable, true);
  lfa_table_free(t);
  *t = stable;
  t->fragments[1].row_ids[0] = t->fragments[0].row_ids[0];
}

static const bad_case BAD_CASES[] = {
    {"FA-BITMAP-3", spoil_empty_partial},    {"FA-BITMAP-3", spoil_full_partial},
    {"FA-BITMAP-4", spoil_offset_past_end},  {"FA-LANCE-5", spoil_fragment_order},
    {"FA-LANCE-8", spoil_max_fragment_id},   {"FA-LANCE-4", spoil_deleted_past_end},
    {"FA-LANCE-6", spoil_field_in_two_files}, {"FA-LANCE-9", spoil_child_first},
    {"FA-STORE-1", spoil_tracked_twice},     {"FA-STORE-2", spoil_tracked_order},
    {"FA-STORE-3", spoil_tracked_unknown},   {"FA-LANCE-7", spoil_row_ids_missing},
    {"FA-LANCE-14", spoil_row_id_shared},
};

static void test_bad_tables_are_refused_before_writing(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof BAD_CASES / sizeof BAD_CASES[0]; i++) {
    scratch s;
    lfa_table t;
    lfa_error err = {0};
    scratch_make(&s);
    lfa_writer *w = open_writer(s.dir, 31);
    base_table(&t, false);
    BAD_CASES[i].spoil(&t);
    assert_status(commit_as(w, &t, OP_OVERWRITE, &err), LFA_ERR_USAGE, &err);
    assert_rule(&err, BAD_CASES[i].rule);
    assert_int_equal(strncmp(err.msg, "version 1: ", 11), 0);
    char first[256];
    first_entry(first, s.dir);
    if (first[0] != '\0') fail_msg("%s: %s was written", BAD_CASES[i].rule, first);
    lfa_writer_close(w);
    lfa_table_free(&t);
    scratch_remove(&s);
  }
}

/* [FA-LANCE-19] a kept fragment id keeps its physical rows, except across
 * an Overwrite. */
static void test_FA_LANCE_19_kept_fragment_keeps_its_rows(void **state) {
  (void)state;
  scratch s;
  lfa_table v1, v2;
  lfa_error err = {0};
  scratch_make(&s);
  lfa_writer *w = open_writer(s.dir, 37);
  base_table(&v1, false);
  commit_ok(w, &v1, OP_OVERWRITE);
  next_version(&v2, &v1);
  v2.fragments[1].physical_rows = 12;
  assert_status(commit_as(w, &v2, OP_APPEND, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-LANCE-19");
  assert_int_equal(count_files(s.dir, "_versions"), 1);
  commit_ok(w, &v2, OP_OVERWRITE);
  assert_reads_back(s.dir, &v2);
  lfa_writer_close(w);
  lfa_table_free(&v1), lfa_table_free(&v2);
  scratch_remove(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_history_reads_back_version_by_version),
      cmocka_unit_test(test_FA_LANCE_7_stable_row_ids_round_trip),
      cmocka_unit_test(test_FA_LANCE_14_moved_row_keeps_its_id),
      cmocka_unit_test(test_FA_STORE_10_unchanged_root_is_shared),
      cmocka_unit_test(test_FA_STORE_11_unchanged_bitmap_is_referenced),
      cmocka_unit_test(test_FA_ROOT_9_unassigned_field_has_a_zero_byte_root),
      cmocka_unit_test(test_FA_BITMAP_1_bitmaps_use_the_no_run_cookie),
      cmocka_unit_test(test_FA_STORE_5_sizes_match_the_files),
      cmocka_unit_test(test_FA_STORE_2_descriptors_sorted),
      cmocka_unit_test(test_FA_FLAG_1_FA_FLAG_2_recomputed_every_commit),
      cmocka_unit_test(test_FA_LANCE_3_deletion_files_are_cumulative),
      cmocka_unit_test(test_FA_LANCE_16_large_deletion_sets_are_bin),
      cmocka_unit_test(test_FA_LANCE_16_named_deletion_files),
      cmocka_unit_test(test_same_seed_same_bytes),
      cmocka_unit_test(test_versions_must_follow_by_one),
      cmocka_unit_test(test_FA_LANCE_10_dump_reader_reads_every_version),
      cmocka_unit_test(test_bad_tables_are_refused_before_writing),
      cmocka_unit_test(test_FA_LANCE_19_kept_fragment_keeps_its_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
