/* fixtures.c: the sample, a small dataset written by lfa itself
 * (lfa/fixtures.h lfa_fixture_write_sample).
 *
 * It is the bundled default that the README's first command dumps, and a
 * fixture for tests. It is scripted by hand against the format layer;
 * every object sits at its upstream path in its upstream encoding. The
 * history (hand-checked in tests/read/test_dataset.c and tests/cli/cli_dump.sh):
 *
 *   v1 Overwrite   fragments 0 and 1, 10 rows each, fields id(0), text(1)
 *   v2 Merge       adds nullable `embedding` (2) with no data files, and
 *                  starts tracking it unassigned: a 0-byte root
 *   v3 Update      REWRITE_COLUMNS writes embedding at fragment 0 offsets
 *                  {1,2,5} and fragment 1 offset {3}: two partial bitmaps
 *   v4 Delete      fragment 0 offsets {2,7} (an `.arrow` deletion file);
 *                  the root of v3 is shared, not rewritten
 *   v5 Append      fragment 2, 4 rows, embedding supplied: all assigned; the
 *                  new root reuses both bitmaps of v3
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/deletion.h"
#include "lfa/fixtures.h"
#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/transaction.h"

typedef struct writer {
  const char *dir;
  unsigned uuids; /* deterministic ids make the sample byte-for-byte reproducible */
  lfa_error *err;
} writer;

static void next_uuid(writer *w, char out[37]) {
  snprintf(out, 37, "5a3b1e00-0000-4000-8000-%012x", ++w->uuids);
}

static lfa_status put(writer *w, const char *rel, const lfa_buf *bytes) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_status st = lfa_fs_join(path, sizeof path, w->dir, rel, w->err);
  return st == LFA_OK ? lfa_fs_write_new(path, bytes->data, bytes->len, w->err) : st;
}

/* Writes a bitmap object for (field, fragment) and describes it in *out. */
static lfa_status put_bitmap(writer *w, Lance__Table__FieldAssignmentFile *out, char path[128], int32_t field,
                             uint64_t fragment, const uint32_t *offsets, uint32_t n) {
  char uuid[37];
  lfa_buf bytes = {0};
  roaring_bitmap_t *bm = roaring_bitmap_of_ptr(n, offsets);
  next_uuid(w, uuid);
  snprintf(path, 128, "_field_assignments/bitmaps/%d/%" PRIu64 "/%s.rbm", field, fragment, uuid);
  lance__table__field_assignment_file__init(out);
  lfa_status st = lfa_bitmap_encode(&bytes, bm, w->err);
  if (st == LFA_OK) st = put(w, path, &bytes);
  out->path = path;
  out->has_size_bytes = true;
  out->size_bytes = bytes.len;
  lfa_buf_free(&bytes);
  roaring_bitmap_free(bm);
  return st;
}

static lfa_status put_root(writer *w, Lance__Table__FieldAssignmentFile *out, char path[128], int32_t field,
                           const lfa_root *root) {
  char uuid[37];
  lfa_buf bytes = {0};
  next_uuid(w, uuid);
  snprintf(path, 128, "_field_assignments/roots/%d/%s.root", field, uuid);
  lance__table__field_assignment_file__init(out);
  lfa_status st = lfa_root_encode(&bytes, root, w->err);
  if (st == LFA_OK) st = put(w, path, &bytes);
  out->path = path;
  out->has_size_bytes = bytes.len > 0; /* proto3 upstream omits a 0 size */
  out->size_bytes = bytes.len;
  lfa_buf_free(&bytes);
  return st;
}

/* Writes the `.txn` file and the manifest (with the same transaction inline). */
static lfa_status commit(writer *w, Lance__Table__Manifest *m, Lance__Table__Transaction *txn) {
  char uuid[37], txn_name[64], rel[96];
  lfa_buf bytes = {0};
  next_uuid(w, uuid);
  txn->read_version = m->version - 1;
  txn->uuid = uuid;
  snprintf(txn_name, sizeof txn_name, "%" PRIu64 "-%s.txn", txn->read_version, uuid);
  snprintf(rel, sizeof rel, "_transactions/%s", txn_name);
  m->transaction_file = txn_name;
  /* Flags are recomputed on every commit, as Lance does: deletion files
   * (1, reader and writer), and bit 65536 exactly when a field is tracked, in
   * the writer word [FA-FLAG-1] and the reader word [FA-FLAG-2]. */
  uint64_t flags = m->n_field_assignment_states ? LFA_FLAG_FIELD_ASSIGNMENT : 0;
  for (size_t i = 0; i < m->n_fragments; i++) flags |= m->fragments[i]->deletion_file != NULL;
  m->reader_feature_flags = flags;
  m->writer_feature_flags = flags;
  lfa_status st = lfa_transaction_encode(&bytes, txn, w->err);
  if (st == LFA_OK) st = put(w, rel, &bytes);
  lfa_buf_free(&bytes);
  snprintf(rel, sizeof rel, "_versions/%" PRIu64 ".manifest", m->version);
  if (st == LFA_OK) st = lfa_manifest_file_encode(&bytes, m, txn, w->err);
  if (st == LFA_OK) st = put(w, rel, &bytes);
  lfa_buf_free(&bytes);
  if (st != LFA_OK) lfa_error_prefix(w->err, "version %" PRIu64, m->version), lfa_error_at_version(w->err, m->version);
  return st;
}

/* ---- the history ------------------------------------------------------------ */

typedef struct history {
  Lance__Table__Manifest m;
  Lance__File__Field fields[3];
  Lance__File__Field *field_list[3];
  Lance__Table__DataFragment frags[3];
  Lance__Table__DataFragment *frag_list[3];
  Lance__Table__DataFile files[3][2];
  Lance__Table__DataFile *file_list[3][2];
  Lance__Table__DeletionFile deletion;
  Lance__Table__FieldAssignmentState state;
  Lance__Table__FieldAssignmentState *state_list[1];
  Lance__Table__FieldAssignmentFile root_file, partial[2];
  char root_path[128], partial_path[2][128];
  lfa_root_entry entries[3];
  lfa_root_entry *entry_list[3];
  lfa_root root;
} history;

static int32_t ID_TEXT[] = {0, 1}, EMBEDDING[] = {2}, ALL_FIELDS[] = {0, 1, 2};

static void add_field(history *h, int32_t id, const char *name, const char *type) {
  Lance__File__Field *f = &h->fields[id];
  lance__file__field__init(f);
  f->type = LANCE__FILE__FIELD__TYPE__LEAF;
  f->name = (char *)name;
  f->id = id;
  f->parent_id = -1;
  f->logical_type = (char *)type;
  f->nullable = true;
  h->field_list[id] = f;
  h->m.fields = h->field_list;
  h->m.n_fields = (size_t)id + 1;
}

static void add_file(history *h, size_t frag, size_t k, const char *path, int32_t *fields, size_t n) {
  Lance__Table__DataFile *f = &h->files[frag][k];
  lance__table__data_file__init(f);
  f->path = (char *)path;
  f->fields = fields;
  f->n_fields = n;
  f->file_major_version = 2;
  f->file_minor_version = 0;
  h->file_list[frag][k] = f;
  h->frags[frag].files = h->file_list[frag];
  h->frags[frag].n_files = k + 1;
}

static void add_fragment(history *h, uint64_t id, uint64_t rows, const char *path, int32_t *fields, size_t n) {
  lance__table__data_fragment__init(&h->frags[id]);
  h->frags[id].id = id;
  h->frags[id].physical_rows = rows;
  add_file(h, (size_t)id, 0, path, fields, n);
  h->frag_list[id] = &h->frags[id];
  h->m.fragments = h->frag_list;
  h->m.n_fragments = (size_t)id + 1;
  h->m._max_fragment_id_case = LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID;
  h->m.max_fragment_id = (uint32_t)id;
}

static void set_entry(history *h, size_t i, uint64_t frag, uint64_t rows, Lance__Table__FieldAssignmentFile *partial) {
  lfa_root_entry *e = &h->entries[i];
  lance__table__field_assignment_fragment__init(e);
  e->fragment_id = frag;
  e->physical_rows = rows;
  e->state_case = partial ? LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL
                          : LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED;
  if (partial) e->partial = partial;
  else e->all_assigned = true;
  h->entry_list[i] = e;
  h->root.fragments = h->entry_list;
  h->root.n_fragments = i + 1;
}

static lfa_status v1_create(writer *w, history *h) {
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__Overwrite op = LANCE__TABLE__TRANSACTION__OVERWRITE__INIT;
  h->m.version = 1;
  add_field(h, 0, "id", "int64");
  add_field(h, 1, "text", "string");
  add_fragment(h, 0, 10, "f0.lance", ID_TEXT, 2);
  add_fragment(h, 1, 10, "f1.lance", ID_TEXT, 2);
  op.fragments = h->m.fragments;
  op.n_fragments = h->m.n_fragments;
  op.schema = h->m.fields;
  op.n_schema = h->m.n_fields;
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE;
  txn.overwrite = &op;
  return commit(w, &h->m, &txn);
}

static lfa_status v2_add_tracked_column(writer *w, history *h) {
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__Merge op = LANCE__TABLE__TRANSACTION__MERGE__INIT;
  Sidecar side = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization init =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIALIZATION__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization *inits[] = {&init};
  h->m.version = 2;
  add_field(h, 2, "embedding", "fixed_size_list:float:4");
  init.field_id = 2;
  init.initial_state = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__UNASSIGNED;
  side.initializations = inits;
  side.n_initializations = 1;
  op.fragments = h->m.fragments;
  op.n_fragments = h->m.n_fragments;
  op.schema = h->m.fields;
  op.n_schema = h->m.n_fields;
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_MERGE;
  txn.merge = &op;
  txn.field_assignment_transaction = &side;
  /* [FA-ROOT-1] nothing assigned: the empty root, 0 bytes */
  lance__table__field_assignment_state__init(&h->state);
  h->state.field_id = 2;
  h->state.root = &h->root_file;
  h->state_list[0] = &h->state;
  h->m.field_assignment_states = h->state_list;
  h->m.n_field_assignment_states = 1;
  lance__table__field_assignment_root__init(&h->root);
  lfa_status st = put_root(w, &h->root_file, h->root_path, 2, &h->root);
  return st == LFA_OK ? commit(w, &h->m, &txn) : st;
}

static lfa_status v3_write_some_rows(writer *w, history *h) {
  static const uint32_t FRAG0[] = {1, 2, 5}, FRAG1[] = {3};
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__Update op = LANCE__TABLE__TRANSACTION__UPDATE__INIT;
  Lance__Table__Transaction__Update__UpdatedFragmentOffsetBitmapsEntry offs[2];
  Lance__Table__Transaction__Update__UpdatedFragmentOffsetBitmapsEntry *off_list[] = {&offs[0], &offs[1]};
  uint32_t modified[] = {2};
  lfa_buf bits[2] = {{0}, {0}};
  h->m.version = 3;
  add_file(h, 0, 1, "e0.lance", EMBEDDING, 1);
  add_file(h, 1, 1, "e1.lance", EMBEDDING, 1);
  lfa_status st = put_bitmap(w, &h->partial[0], h->partial_path[0], 2, 0, FRAG0, 3);
  if (st == LFA_OK) st = put_bitmap(w, &h->partial[1], h->partial_path[1], 2, 1, FRAG1, 1);
  set_entry(h, 0, 0, 10, &h->partial[0]);
  set_entry(h, 1, 1, 10, &h->partial[1]);
  if (st == LFA_OK) st = put_root(w, &h->root_file, h->root_path, 2, &h->root);
  for (size_t i = 0; i < 2; i++) {
    roaring_bitmap_t *bm = roaring_bitmap_of_ptr(i ? 1 : 3, i ? FRAG1 : FRAG0);
    if (st == LFA_OK) st = lfa_bitmap_encode(&bits[i], bm, w->err);
    roaring_bitmap_free(bm);
    lance__table__transaction__update__updated_fragment_offset_bitmaps_entry__init(&offs[i]);
    offs[i].key = i;
    offs[i].value = (ProtobufCBinaryData){bits[i].len, bits[i].data};
  }
  op.update_mode = LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_COLUMNS;
  op.updated_fragments = h->m.fragments;
  op.n_updated_fragments = 2;
  op.fields_modified = modified;
  op.n_fields_modified = 1;
  op.updated_fragment_offset_bitmaps = off_list;
  op.n_updated_fragment_offset_bitmaps = 2;
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE;
  txn.update = &op;
  if (st == LFA_OK) st = commit(w, &h->m, &txn);
  lfa_buf_free(&bits[0]);
  lfa_buf_free(&bits[1]);
  return st;
}

static lfa_status v4_delete(writer *w, history *h) {
  static const uint32_t DELETED[] = {2, 7};
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__Delete op = LANCE__TABLE__TRANSACTION__DELETE__INIT;
  Lance__Table__DataFragment *updated[] = {&h->frags[0]};
  lfa_buf bytes = {0};
  h->m.version = 4;
  lance__table__deletion_file__init(&h->deletion);
  h->deletion.file_type = LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__ARROW_ARRAY;
  h->deletion.read_version = 3;
  h->deletion.id = 4242;
  h->deletion.num_deleted_rows = 2;
  h->frags[0].deletion_file = &h->deletion;
  roaring_bitmap_t *bm = roaring_bitmap_of_ptr(2, DELETED);
  lfa_status st = lfa_deletion_encode(&bytes, LFA_DELETION_ARROW, bm, w->err);
  if (st == LFA_OK) st = put(w, "_deletions/0-3-4242.arrow", &bytes);
  roaring_bitmap_free(bm);
  lfa_buf_free(&bytes);
  op.updated_fragments = updated;
  op.n_updated_fragments = 1;
  op.predicate = "id IN (2, 7)";
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_DELETE;
  txn.delete_ = &op;
  /* deletions mask rows; the assignment root of v3 stays as it is */
  return st == LFA_OK ? commit(w, &h->m, &txn) : st;
}

static lfa_status v5_append(writer *w, history *h) {
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__Append op = LANCE__TABLE__TRANSACTION__APPEND__INIT;
  h->m.version = 5;
  add_fragment(h, 2, 4, "f2.lance", ALL_FIELDS, 3);
  /* embedding supplied by every appended row: all assigned; the partial
   * bitmaps of v3 are referenced again, not copied */
  set_entry(h, 2, 2, 4, NULL);
  lfa_status st = put_root(w, &h->root_file, h->root_path, 2, &h->root);
  op.fragments = &h->frag_list[2];
  op.n_fragments = 1;
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_APPEND;
  txn.append = &op;
  return st == LFA_OK ? commit(w, &h->m, &txn) : st;
}


lfa_status lfa_fixture_write_sample(const char *dir, lfa_error *err) {
  writer w = {dir, 0, err};
  history *h = calloc(1, sizeof *h);
  lfa_status st = h ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK) lance__table__manifest__init(&h->m);
  if (st == LFA_OK) st = v1_create(&w, h);
  if (st == LFA_OK) st = v2_add_tracked_column(&w, h);
  if (st == LFA_OK) st = v3_write_some_rows(&w, h);
  if (st == LFA_OK) st = v4_delete(&w, h);
  if (st == LFA_OK) st = v5_append(&w, h);
  free(h);
  return st;
}
