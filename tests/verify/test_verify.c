/* test_verify.c: the verifier (verify/) against valid histories, which
 * must give no error finding, and against faults injected into copies of
 * them, each of which must be reported as an error under the expected rule.
 * The harness prints its kill count; it must kill every fault.
 *
 * Valid: the upstream layout example (independent of this code), the
 * bundled sample, every real Lance dataset in ../shared/lance-test-data,
 * and histories the reference writer writes in both row id modes.
 * Faults: edited manifests, transactions and roots (the pattern of
 * tests/read/test_dataset.c: decode, edit, encode again).
 * Requirement ids: FA-VERIFY-2, FA-VERIFY-3, FA-VERIFY-5, FA-FLAG-1,
 * FA-FLAG-2, FA-FLAG-6, FA-OP-1, FA-OP-4, FA-STORE-1, FA-STORE-2,
 * FA-STORE-3, FA-STORE-5, FA-ROOT-2, FA-ROOT-3, FA-ROOT-4, FA-ROOT-5,
 * FA-BITMAP-2, FA-BITMAP-3, FA-BITMAP-4, FA-LANCE-8, FA-TXN-8, FA-TXN-9,
 * FA-TXN-10, FA-SEM-5, FA-SEM-8, FA-REWRITE-1, FA-REMAP-1, FA-REMAP-3,
 * FA-RESTORE-1, FA-LANCE-17, FA-UPDATE-6. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <dirent.h>
#include <unistd.h>

#include "lfa/bitmap.h"
#include "lfa/edit.h"
#include "lfa/fixtures.h"
#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/rowids.h"
#include "lfa/transaction.h"
#include "lfa/verify.h"

#define EXAMPLE SHARED_DIR "/upstream-layout-example/address-mode-history"
#define TEST_DATA SHARED_DIR "/lance-test-data"

enum { EMB = 2 }; /* the tracked field of the sample and of the example */

/* ---- datasets in temporary directories ------------------------------------------------ */

static void shell(const char *cmd) { assert_int_equal(system(cmd), 0); }

/* dir (64 bytes) becomes "/tmp/lfa-verify-XXXXXX/ds". */
static void temp_dataset(char *dir) {
  strcpy(dir, "/tmp/lfa-verify-XXXXXX");
  assert_non_null(mkdtemp(dir));
  strcat(dir, "/ds");
}

static void make_sample(char *dir) {
  temp_dataset(dir);
  lfa_error err = {0};
  assert_ok(lfa_fixture_write_sample(dir, &err), &err);
}

static void copy_example(char *dir) {
  char cmd[256];
  temp_dataset(dir);
  snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", EXAMPLE, dir);
  shell(cmd);
}

static void remove_tree(const char *dir) {
  char cmd[LFA_PATH_BYTES_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%.*s'", (int)(strrchr(dir, '/') - dir), dir);
  shell(cmd);
}

static void put_file(const char *dir, const char *rel, const uint8_t *data, size_t len) {
  lfa_error err = {0};
  assert_ok(lfa_edit_replace(NULL, dir, rel, data, len, &err), &err);
}

/* ---- verifying ------------------------------------------------------------------------ */

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* the incremental run (objects decoded once, the default)
 * and the --full run (every snapshot from scratch) report the same
 * findings, and the incremental one never decodes more. */
static void expect_same_findings(const char *dir, const lfa_verify_result *a, const lfa_verify_result *b) {
  if (a->findings.count != b->findings.count)
    fail_msg("%s: %zu findings incremental, %zu with --full", dir, a->findings.count, b->findings.count);
  for (size_t i = 0; i < a->findings.count; i++) {
    const lfa_finding *x = &a->findings.items[i], *y = &b->findings.items[i];
    if (strcmp(x->rule, y->rule) != 0 || x->severity != y->severity || x->version != y->version ||
        !same_text(x->file, y->file) || !same_text(x->message, y->message) || x->has_fragment != y->has_fragment ||
        x->fragment_id != y->fragment_id || x->n_rows != y->n_rows)
      fail_msg("%s: finding %zu differs: '%s' incremental, '%s' with --full", dir, i, x->message, y->message);
  }
  assert_int_equal(b->objects_reused, 0);
  assert_true(a->objects_decoded <= b->objects_decoded);
}

static lfa_verify_result verify(const char *dir) {
  lfa_verify_result r, full;
  lfa_error err = {0};
  if (lfa_verify_dataset(&r, dir, NULL, &err) != LFA_OK) fail_msg("%s: %s", dir, err.msg);
  if (lfa_verify_dataset(&full, dir, &(lfa_verify_options){.full = true}, &err) != LFA_OK)
    fail_msg("%s --full: %s", dir, err.msg);
  expect_same_findings(dir, &r, &full);
  lfa_verify_result_free(&full);
  return r;
}

static bool has_error(const lfa_verify_result *r, const char *rule, uint64_t version) {
  for (size_t i = 0; i < r->findings.count; i++) {
    const lfa_finding *f = &r->findings.items[i];
    if (f->severity == LFA_SEVERITY_ERROR && f->version == version && strcmp(f->rule, rule) == 0) return true;
  }
  return false;
}

/* No error finding: a valid history is never reported (no false positive). */
static void expect_clean(const char *dir) {
  lfa_verify_result r = verify(dir);
  size_t errors = lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR);
  if (errors > 0) {
    lfa_verify_print_text(stdout, &r, dir);
    fail_msg("%s: %zu error findings on a valid history", dir, errors);
  }
  lfa_verify_result_free(&r);
}

/* ---- editing versions ------------------------------------------------------------------ */

/* A deep copy through the wire: every part owned, freed with its parent. */
static void *clone_msg(const void *msg) {
  lfa_buf b = {0};
  lfa_error err = {0};
  ProtobufCMessage *m = NULL;
  assert_ok(lfa_pb_pack(&b, msg, &err), &err);
  assert_ok(lfa_pb_unpack(&m, ((const ProtobufCMessage *)msg)->descriptor, b.data, b.len, "clone", &err), &err);
  lfa_buf_free(&b);
  return m;
}

/* Appends an owned item to a repeated field of a decoded message. */
#define PUSH(list, n, item)                                   \
  do {                                                        \
    void *grown_ = realloc((list), ((n) + 1) * sizeof *(list)); \
    assert_non_null(grown_);                                  \
    (list) = grown_;                                          \
    (list)[(n)++] = (item);                                   \
  } while (0)

static void set_string(char **slot, const char *value) {
  free(*slot);
  *slot = strdup(value);
  assert_non_null(*slot);
}

typedef void (*edit_fn)(lfa_manifest_file *mf, const char *dir, void *ctx);

/* Decodes version v, lets `fix` edit it, writes it back. */
static void edit_version(const char *dir, uint64_t v, edit_fn fix, void *ctx) {
  lfa_error err = {0};
  lfa_edit e;
  assert_ok(lfa_edit_open(&e, NULL, dir, v, &err), &err);
  fix(&e.file, dir, ctx);
  assert_ok(lfa_edit_save(&e, &err), &err);
  lfa_edit_close(&e);
}

/* The version's transaction, made inline so that it can be edited (the
 * `.txn` file is no longer named, so the two never disagree). */
static Txn *txn_to_edit(lfa_manifest_file *mf, const char *dir) {
  lfa_error err = {0};
  assert_ok(lfa_edit_load_transaction(mf, NULL, dir, &err), &err);
  set_string(&mf->manifest->transaction_file, "");
  return mf->transaction;
}

static Sidecar *sidecar_of(Txn *t) {
  if (t->field_assignment_transaction == NULL) {
    Sidecar empty = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
    t->field_assignment_transaction = clone_msg(&empty);
  }
  return t->field_assignment_transaction;
}

/* ---- roots and bitmaps -------------------------------------------------------------------- */

static lfa_buf bitmap_of(const uint32_t *offsets, size_t n) {
  roaring_bitmap_t *bm = roaring_bitmap_of_ptr(n, offsets);
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_bitmap_encode(&b, bm, &err), &err);
  roaring_bitmap_free(bm);
  return b;
}

typedef struct root_ref {
  char path[128];
  uint64_t size;
} root_ref;

static void point_root(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir;
  const root_ref *r = ctx;
  AssignmentFile *f = mf->manifest->field_assignment_states[0]->root;
  set_string(&f->path, r->path);
  f->size_bytes = r->size, f->has_size_bytes = r->size > 0;
}

/* A partial entry: `bytes` written as a bitmap object for `fragment`. */
static lfa_root_entry *partial_entry(const char *dir, uint64_t fragment, uint64_t rows, const lfa_buf *bytes) {
  char rel[128];
  snprintf(rel, sizeof rel, "_field_assignments/bitmaps/2/%llu/feedface-0000-4000-8000-%012llx.rbm",
           (unsigned long long)fragment, (unsigned long long)fragment);
  put_file(dir, rel, bytes->data, bytes->len);
  AssignmentFile file = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  file.path = rel, file.size_bytes = bytes->len, file.has_size_bytes = true;
  lfa_root_entry e = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__INIT;
  e.fragment_id = fragment, e.physical_rows = rows;
  e.state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL, e.partial = &file;
  return clone_msg(&e);
}

static lfa_root_entry *all_entry(uint64_t fragment, uint64_t rows, bool value) {
  lfa_root_entry e = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__INIT;
  e.fragment_id = fragment, e.physical_rows = rows;
  e.state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED, e.all_assigned = value;
  return clone_msg(&e);
}

/* Writes a root of these entries (freed here) and makes version v's first
 * descriptor use it. */
static void use_root(const char *dir, uint64_t v, lfa_root_entry **entries, size_t n) {
  lfa_root root = LANCE__TABLE__FIELD_ASSIGNMENT_ROOT__INIT;
  root.fragments = entries, root.n_fragments = n;
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_root_encode(&b, &root, &err), &err);
  root_ref r = {"", b.len};
  snprintf(r.path, sizeof r.path, "_field_assignments/roots/2/feedface-0000-4000-8000-0000000000%02llx.root",
           (unsigned long long)v);
  put_file(dir, r.path, b.data, b.len);
  edit_version(dir, v, point_root, &r);
  for (size_t i = 0; i < n; i++) lfa_pb_free(entries[i]);
  lfa_buf_free(&b);
}

static lfa_buf treemap_of(uint64_t address) {
  lfa_treemap tm = {0};
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_treemap_add(&tm, address, &err), &err);
  assert_ok(lfa_treemap_encode(&b, &tm, &err), &err);
  lfa_treemap_free(&tm);
  return b;
}

/* ---- manifest faults ------------------------------------------------------------------------ */

static void clear_writer_bit(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir, (void)ctx;
  mf->manifest->writer_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
}

/* What an older writer leaves: descriptors and bits gone, fields kept. */
static void drop_descriptors(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir, (void)ctx;
  Manifest *m = mf->manifest;
  for (size_t i = 0; i < m->n_field_assignment_states; i++) lfa_pb_free(m->field_assignment_states[i]);
  m->n_field_assignment_states = 0;
  m->writer_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
  m->reader_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
}

/* A second descriptor, a copy of the first with field id *ctx. */
static void add_descriptor(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir;
  Manifest *m = mf->manifest;
  Lance__Table__FieldAssignmentState *d = clone_msg(m->field_assignment_states[0]);
  d->field_id = *(const int32_t *)ctx;
  PUSH(m->field_assignment_states, m->n_field_assignment_states, d);
}

static void root_size_plus_one(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir, (void)ctx;
  mf->manifest->field_assignment_states[0]->root->size_bytes += 1;
}

static void max_fragment_id_0(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir, (void)ctx;
  mf->manifest->_max_fragment_id_case = LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID;
  mf->manifest->max_fragment_id = 0; /* fragment 1 exists */
}

/* The appended fragment no longer stores field 2, though its rows are
 * recorded assigned [FA-SEM-8, FA-APPEND-1]. */
static void unstore_field(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir, (void)ctx;
  Lance__Table__DataFragment *f = mf->manifest->fragments[mf->manifest->n_fragments - 1];
  for (size_t k = 0; k < f->n_files; k++) {
    size_t n = 0;
    for (size_t j = 0; j < f->files[k]->n_fields; j++)
      if (f->files[k]->fields[j] != EMB) f->files[k]->fields[n++] = f->files[k]->fields[j];
    f->files[k]->n_fields = n;
  }
}

static void f_writer_bit(const char *dir) { edit_version(dir, 3, clear_writer_bit, NULL); }
static void f_vanished(const char *dir) { edit_version(dir, 4, drop_descriptors, NULL); }
static void f_rename_loses(const char *dir) { edit_version(dir, 7, drop_descriptors, NULL); }
static void f_duplicate(const char *dir) { edit_version(dir, 3, add_descriptor, &(int32_t){EMB}); }
static void f_not_in_schema(const char *dir) { edit_version(dir, 3, add_descriptor, &(int32_t){7}); }
static void f_size_bytes(const char *dir) { edit_version(dir, 3, root_size_plus_one, NULL); }
static void f_append_unstored(const char *dir) { edit_version(dir, 5, unstore_field, NULL); }

/* ---- root faults (sample version 3: fragments 0 and 1, 10 rows each) ----------------------- */

static void f_root_rows(const char *dir) { use_root(dir, 3, (lfa_root_entry *[]){all_entry(0, 11, true)}, 1); }
static void f_root_missing(const char *dir) { use_root(dir, 3, (lfa_root_entry *[]){all_entry(9, 10, true)}, 1); }
static void f_all_false(const char *dir) { use_root(dir, 3, (lfa_root_entry *[]){all_entry(0, 10, false)}, 1); }

static void f_root_unsorted(const char *dir) {
  use_root(dir, 3, (lfa_root_entry *[]){all_entry(1, 10, true), all_entry(0, 10, true)}, 2);
}

static void f_root_duplicate(const char *dir) {
  use_root(dir, 3, (lfa_root_entry *[]){all_entry(0, 10, true), all_entry(0, 10, true)}, 2);
}

static void use_partial(const char *dir, uint64_t v, const uint32_t *offsets, size_t n) {
  lfa_buf b = bitmap_of(offsets, n);
  use_root(dir, v, (lfa_root_entry *[]){partial_entry(dir, 0, 10, &b)}, 1);
  lfa_buf_free(&b);
}

static void f_empty_partial(const char *dir) { use_partial(dir, 3, NULL, 0); }
static void f_full_partial(const char *dir) { use_partial(dir, 3, (const uint32_t[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10); }
static void f_past_end(const char *dir) { use_partial(dir, 3, (const uint32_t[]){1, 10}, 2); }

static void f_corrupt_roaring(const char *dir) {
  lfa_buf b = bitmap_of((const uint32_t[]){1, 2, 5}, 3);
  b.data[b.len - 2] = 0, b.data[b.len - 1] = 0; /* values 1, 2, 0: not ascending */
  use_root(dir, 3, (lfa_root_entry *[]){partial_entry(dir, 0, 10, &b)}, 1);
  lfa_buf_free(&b);
}

/* The delete of version 4 also rewrote fragment 0: live row (0, 5) lost its
 * assignment although a delete changes no state [FA-DELETE-1]. */
static void f_delete_changes(const char *dir) {
  lfa_buf b0 = bitmap_of((const uint32_t[]){1, 2}, 2), b1 = bitmap_of((const uint32_t[]){3}, 1);
  lfa_root_entry *e0 = partial_entry(dir, 0, 10, &b0), *e1 = partial_entry(dir, 1, 10, &b1);
  use_root(dir, 4, (lfa_root_entry *[]){e0, e1}, 2);
  lfa_buf_free(&b0);
  lfa_buf_free(&b1);
}

/* ---- transaction faults -------------------------------------------------------------------- */

typedef struct row_change_spec {
  int32_t field_id;
  bool assigned;
  uint64_t address;
} row_change_spec;

static void add_row_change(lfa_manifest_file *mf, const char *dir, void *ctx) {
  const row_change_spec *spec = ctx;
  Sidecar *side = sidecar_of(txn_to_edit(mf, dir));
  lfa_buf b = treemap_of(spec->address);
  RowChange rc = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__ROW_CHANGE__INIT;
  rc.field_id = spec->field_id, rc.assigned = spec->assigned;
  rc.row_addresses = (ProtobufCBinaryData){b.len, b.data};
  PUSH(side->row_changes, side->n_row_changes, clone_msg(&rc));
  lfa_buf_free(&b);
}

static void add_initialization(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)ctx;
  Sidecar *side = sidecar_of(txn_to_edit(mf, dir));
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization in =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIALIZATION__INIT;
  in.field_id = EMB;
  PUSH(side->initializations, side->n_initializations, clone_msg(&in));
}

static void add_transfer(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)ctx;
  Sidecar *side = sidecar_of(txn_to_edit(mf, dir));
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer tr =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__TRANSFER__INIT;
  tr.source_field_id = EMB, tr.target_field_id = 1; /* the source stays in the schema */
  PUSH(side->transfers, side->n_transfers, clone_msg(&tr));
}

/* The Delete of version 4 invalidates (0, 1), but its root still has it. */
static void f_invalidation_ignored(const char *dir) {
  edit_version(dir, 4, add_row_change, &(row_change_spec){EMB, false, 1});
}

/* The Update of version 3 writes (0, 1) and also invalidates it. */
static void f_written_and_invalidated(const char *dir) {
  edit_version(dir, 3, add_row_change, &(row_change_spec){EMB, false, 1});
}

static void f_untracked_row_change(const char *dir) {
  edit_version(dir, 3, add_row_change, &(row_change_spec){1, false, 1}); /* field 1 (text) is not tracked */
}

static void f_initialize_tracked(const char *dir) { edit_version(dir, 3, add_initialization, NULL); }
static void f_bad_transfer(const char *dir) { edit_version(dir, 3, add_transfer, NULL); }

/* ---- compaction faults (the example's version 9: fragments 0 and 1 into 4) ------------------- */

/* Fragment 4's state, in the root and (when `both`) in T's FragmentState. */
typedef struct rewrite_spec {
  lfa_buf bitmap;
  int32_t field_id;
} rewrite_spec;

static void set_fragment_state(lfa_manifest_file *mf, const char *dir, void *ctx) {
  const rewrite_spec *spec = ctx;
  Sidecar *side = sidecar_of(txn_to_edit(mf, dir));
  Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState *fs = NULL;
  for (size_t k = 0; k < side->n_fragment_states; k++)
    if (side->fragment_states[k]->field_id == spec->field_id) fs = side->fragment_states[k];
  assert_non_null(fs); /* one new fragment: one state per field */
  fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL;
  free(fs->partial.data);
  fs->partial.data = malloc(spec->bitmap.len);
  assert_non_null(fs->partial.data);
  memcpy(fs->partial.data, spec->bitmap.data, spec->bitmap.len);
  fs->partial.len = spec->bitmap.len;
}

static void rewrite_to(const char *dir, const uint32_t *offsets, size_t n, bool both) {
  rewrite_spec spec = {bitmap_of(offsets, n), EMB};
  /* fragment 2 stays all assigned; fragment 4 (18 rows) gets the partial */
  use_root(dir, 9, (lfa_root_entry *[]){all_entry(2, 10, true), partial_entry(dir, 4, 18, &spec.bitmap)}, 2);
  if (both) edit_version(dir, 9, set_fragment_state, &spec);
  lfa_buf_free(&spec.bitmap);
}

/* Right: {1, 4}. Old offsets kept: {1, 5}. */
static void f_not_remapped(const char *dir) { rewrite_to(dir, (const uint32_t[]){1, 5}, 2, false); }
static void f_not_remapped_in_txn(const char *dir) { rewrite_to(dir, (const uint32_t[]){1, 5}, 2, true); }
static void f_compaction_creates(const char *dir) { rewrite_to(dir, (const uint32_t[]){1, 4, 7}, 3, true); }
static void f_compaction_loses(const char *dir) { rewrite_to(dir, (const uint32_t[]){1}, 1, true); }

/* ---- histories of the reference writer -------------------------------------------------------- */

enum { RESTORE_VERSION = 8 };

/* Every kind of commit the writer makes, in one history: create, column
 * update, append, row-moving update with an invalidation, delete,
 * compaction, invalidation only, restore (version 8), rename, index. */
static void write_history(const char *dir, bool stable) {
  lfa_request steps[LFA_FIXTURE_EVERY_COMMIT_STEPS];
  lfa_fixture_every_commit(steps, stable);
  lfa_history h;
  lfa_error err = {0};
  assert_ok(lfa_history_open(&h, dir, 42, &err), &err);
  for (size_t i = 0; i < LFA_FIXTURE_EVERY_COMMIT_STEPS; i++)
    if (lfa_history_apply(&h, &steps[i], 0, &err) != LFA_OK)
      fail_msg("step %zu (%s): %s", i + 1, lfa_op_name(steps[i].op), err.msg);
  lfa_history_close(&h);
}

static void make_history(char *dir) {
  temp_dataset(dir);
  write_history(dir, false);
}

static void make_stable_history(char *dir) {
  temp_dataset(dir);
  write_history(dir, true);
}

/* The restore keeps none of version 3's descriptors. */
static void f_restore_differs(const char *dir) { edit_version(dir, RESTORE_VERSION, drop_descriptors, NULL); }

/* The writer's compaction (version 6: every row into fragment 4, 7 rows):
 * field 1 (emb, the first descriptor) stated and recorded as {0} only,
 * which is not where its assigned rows went. */
static void f_writer_compaction_wrong(const char *dir) {
  rewrite_spec spec = {bitmap_of((const uint32_t[]){0}, 1), 1};
  use_root(dir, 6, (lfa_root_entry *[]){partial_entry(dir, 4, 7, &spec.bitmap)}, 1);
  edit_version(dir, 6, set_fragment_state, &spec);
  lfa_buf_free(&spec.bitmap);
}

/* Stable row ids: the compacted fragment's first row gets an id no old
 * row had, so one old row is lost and one new row comes from nowhere. */
static void change_row_id(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir, (void)ctx;
  Lance__Table__DataFragment *f = mf->manifest->fragments[0];
  lfa_row_ids ids;
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_int_equal(f->row_id_sequence_case, LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS);
  assert_ok(lfa_row_ids_decode(&ids, f->inline_row_ids.data, f->inline_row_ids.len, &err), &err);
  ids.ids[0] = 1000000;
  assert_ok(lfa_row_ids_encode(&b, ids.ids, ids.count, &err), &err);
  free(f->inline_row_ids.data);
  f->inline_row_ids = (ProtobufCBinaryData){b.len, b.data}; /* the manifest owns the bytes now */
  lfa_row_ids_free(&ids);
}

static void f_compaction_changes_row_id(const char *dir) { edit_version(dir, 6, change_row_id, NULL); }

/* [FA-UPDATE-6] Stable row ids: the row-moving update of version 4 moves
 * rows 1 and 2 into one new fragment. It neither writes nor invalidates
 * field 4 (tag, assigned on every row), yet its FragmentState, and so the
 * root of version 4, drop the assignment of the first moved row. apply
 * trusts the FragmentState; only the row-by-row check sees it. */
enum { TAG = 4 };

static void drop_moved_row(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)ctx;
  Manifest *m = mf->manifest;
  Sidecar *side = sidecar_of(txn_to_edit(mf, dir));
  assert_int_equal(mf->transaction->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_UPDATE);
  assert_int_equal(mf->transaction->update->update_mode, LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_ROWS);
  Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState *fs = NULL;
  for (size_t k = 0; k < side->n_fragment_states; k++)
    if (side->fragment_states[k]->field_id == TAG) fs = side->fragment_states[k];
  assert_non_null(fs); /* one new fragment: one state per field */
  assert_int_equal(fs->state_case, LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED);
  const Lance__Table__DataFragment *frag = NULL;
  for (size_t k = 0; k < m->n_fragments; k++)
    if (m->fragments[k]->n_files > 0 && strcmp(m->fragments[k]->files[0]->path, fs->fragment_path) == 0)
      frag = m->fragments[k];
  assert_non_null(frag);
  assert_int_equal(frag->physical_rows, 2); /* the moved rows 1 and 2 */
  /* the state: offset 1 only */
  lfa_buf bm = bitmap_of((const uint32_t[]){1}, 1);
  fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL;
  fs->partial.data = malloc(bm.len);
  assert_non_null(fs->partial.data);
  memcpy(fs->partial.data, bm.data, bm.len);
  fs->partial.len = bm.len;
  /* the root of field 4, with the new fragment's entry made that partial */
  Lance__Table__FieldAssignmentState *d = NULL;
  for (size_t k = 0; k < m->n_field_assignment_states; k++)
    if (m->field_assignment_states[k]->field_id == TAG) d = m->field_assignment_states[k];
  assert_non_null(d);
  char rel[160];
  lfa_error err = {0};
  lfa_root *root = NULL;
  assert_ok(lfa_edit_read_root(&root, NULL, dir, d->root->path, &err), &err);
  lfa_root_entry *e = NULL;
  for (size_t k = 0; k < root->n_fragments; k++)
    if (root->fragments[k]->fragment_id == frag->id) e = root->fragments[k];
  assert_non_null(e);
  snprintf(rel, sizeof rel, "_field_assignments/bitmaps/%d/%llu/feedface-0000-4000-8000-00000000d00d.rbm", TAG,
           (unsigned long long)frag->id);
  put_file(dir, rel, bm.data, bm.len);
  AssignmentFile file = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  file.path = rel, file.size_bytes = bm.len, file.has_size_bytes = true;
  e->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL;
  e->partial = clone_msg(&file); /* freed with the root */
  uint64_t size = 0;
  snprintf(rel, sizeof rel, "_field_assignments/roots/%d/feedface-0000-4000-8000-00000000d00d.root", TAG);
  assert_ok(lfa_edit_put_root(NULL, dir, rel, root, &size, &err), &err);
  set_string(&d->root->path, rel);
  d->root->size_bytes = size, d->root->has_size_bytes = true;
  lfa_root_free(root);
  lfa_buf_free(&bm);
}

static void f_update_drops_moved_row(const char *dir) { edit_version(dir, 4, drop_moved_row, NULL); }

/* ---- the harness --------------------------------------------------------------------------------- */

typedef struct fault {
  const char *name;
  const char *rule;    /* reported as an error ... */
  uint64_t version;    /* ... at this version */
  void (*base)(char *dir);
  void (*inject)(const char *dir);
} fault;

static const fault FAULTS[] = {
    {"writer flag cleared", "FA-FLAG-1", 3, make_sample, f_writer_bit},
    {"descriptor vanished with its field present", "FA-OP-1", 4, make_sample, f_vanished},
    {"rename losing the descriptor", "FA-OP-1", 7, copy_example, f_rename_loses},
    {"duplicate descriptors", "FA-STORE-1", 3, make_sample, f_duplicate},
    {"descriptor for a field not in the schema", "FA-STORE-3", 3, make_sample, f_not_in_schema},
    {"size_bytes wrong", "FA-STORE-5", 3, make_sample, f_size_bytes},
    {"root physical_rows wrong", "FA-ROOT-3", 3, make_sample, f_root_rows},
    {"root entry for a missing fragment", "FA-ROOT-5", 3, make_sample, f_root_missing},
    {"unsorted root entries", "FA-ROOT-2", 3, make_sample, f_root_unsorted},
    {"duplicate root entries", "FA-ROOT-2", 3, make_sample, f_root_duplicate},
    {"all_assigned=false", "FA-ROOT-4", 3, make_sample, f_all_false},
    {"empty partial", "FA-BITMAP-3", 3, make_sample, f_empty_partial},
    {"full partial", "FA-BITMAP-3", 3, make_sample, f_full_partial},
    {"offset past physical_rows", "FA-BITMAP-4", 3, make_sample, f_past_end},
    {"corrupt Roaring", "FA-BITMAP-2", 3, make_sample, f_corrupt_roaring},
    {"delete rewriting state so a live row changes", "FA-OP-4", 4, make_sample, f_delete_changes},
    {"invalidation ignored", "FA-OP-4", 4, make_sample, f_invalidation_ignored},
    {"append marking assigned a field the fragment does not store", "FA-OP-4", 5, make_sample, f_append_unstored},
    {"a field both written and invalidated", "FA-SEM-5", 3, make_sample, f_written_and_invalidated},
    {"RowChange on an untracked field", "FA-TXN-10", 3, make_sample, f_untracked_row_change},
    {"initializing a tracked field", "FA-TXN-8", 3, make_sample, f_initialize_tracked},
    {"a bad Transfer", "FA-TXN-9", 3, make_sample, f_bad_transfer},
    {"partial not remapped after compaction", "FA-REWRITE-1", 9, copy_example, f_not_remapped},
    {"compaction stating the unmapped state", "FA-REWRITE-1", 9, copy_example, f_not_remapped_in_txn},
    {"compaction creating an assignment", "FA-REWRITE-1", 9, copy_example, f_compaction_creates},
    {"compaction losing one", "FA-REWRITE-1", 9, copy_example, f_compaction_loses},
    {"writer compaction stating the wrong state", "FA-REWRITE-1", 6, make_history, f_writer_compaction_wrong},
    {"writer compaction stating the wrong state, stable row ids", "FA-REWRITE-1", 6, make_stable_history,
     f_writer_compaction_wrong},
    {"compaction changing a row id", "FA-REMAP-3", 6, make_stable_history, f_compaction_changes_row_id},
    {"REWRITE_ROWS losing a moved row's state for an unwritten field", "FA-UPDATE-6", 4, make_stable_history,
     f_update_drops_moved_row},
    {"restore not matching its target", "FA-RESTORE-1", RESTORE_VERSION, make_history, f_restore_differs},
};

static void test_fault_injection_kill_ratio(void **state) {
  (void)state;
  size_t n = sizeof FAULTS / sizeof FAULTS[0], killed = 0;
  for (size_t i = 0; i < n; i++) {
    const fault *f = &FAULTS[i];
    char dir[64];
    f->base(dir);
    f->inject(dir);
    lfa_verify_result r = verify(dir);
    if (getenv("LFA_TEST_VERBOSE") != NULL) { /* what the verifier says about each fault */
      printf("---- %s\n", f->name);
      lfa_verify_print_text(stdout, &r, dir);
    }
    if (has_error(&r, f->rule, f->version)) {
      killed++;
    } else {
      printf("SURVIVED: %s (expected %s at version %llu); the verifier said:\n", f->name, f->rule,
             (unsigned long long)f->version);
      lfa_verify_print_text(stdout, &r, dir);
    }
    lfa_verify_result_free(&r);
    remove_tree(dir);
  }
  printf("fault injection: %zu of %zu faults killed (%.0f%%)\n", killed, n, 100.0 * (double)killed / (double)n);
  assert_int_equal(killed, n);
}

/* ---- valid histories: no error finding ----------------------------------------------------- */

static void test_upstream_example_is_valid(void **state) {
  (void)state;
  lfa_verify_result r = verify(EXAMPLE);
  assert_int_equal(r.versions_checked, 9);
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR), 0);
  /* [FA-VERIFY-4] [FA-FLAG-7] the first iteration's layout (writer bit 256):
   * read as that layout, warned once per tracked version, accepted */
  for (size_t i = 0; i < r.findings.count; i++) assert_string_equal(r.findings.items[i].rule, "FA-FLAG-7");
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_WARNING), 8); /* versions 2 to 9 */
  lfa_verify_result_free(&r);
}

static void test_sample_is_valid(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  lfa_verify_result r = verify(dir);
  if (r.findings.count != 0) lfa_verify_print_text(stdout, &r, dir);
  assert_int_equal(r.findings.count, 0); /* written by lfa: not even a warning */
  lfa_verify_result_free(&r);
  remove_tree(dir);
}

static void test_lance_test_data_is_valid(void **state) {
  (void)state;
  size_t datasets = 0;
  DIR *top = opendir(TEST_DATA);
  assert_non_null(top);
  for (struct dirent *rel; (rel = readdir(top)) != NULL;) {
    if (rel->d_name[0] == '.') continue;
    char release[512];
    snprintf(release, sizeof release, "%s/%s", TEST_DATA, rel->d_name);
    DIR *d = opendir(release);
    for (struct dirent *ds; d != NULL && (ds = readdir(d)) != NULL;) {
      if (ds->d_name[0] == '.') continue;
      char dir[1024];
      snprintf(dir, sizeof dir, "%s/%s", release, ds->d_name);
      expect_clean(dir);
      datasets++;
    }
    if (d != NULL) closedir(d);
  }
  closedir(top);
  assert_true(datasets >= 10);
}

static void test_reference_writer_histories_are_valid(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    char dir[64];
    if (stable) make_stable_history(dir);
    else make_history(dir);
    lfa_verify_result r = verify(dir);
    assert_int_equal(r.versions_checked, 10);
    if (r.findings.count != 0) lfa_verify_print_text(stdout, &r, dir);
    assert_int_equal(r.findings.count, 0);
    lfa_verify_result_free(&r);
    remove_tree(dir);
  }
}

/* ---- several faults in one version, each reported ---------------------------------------------- */

static void three_faults(lfa_manifest_file *mf, const char *dir, void *ctx) {
  clear_writer_bit(mf, dir, ctx);
  max_fragment_id_0(mf, dir, ctx);
  add_descriptor(mf, dir, &(int32_t){-5}); /* not in the schema, and out of order */
}

static void test_every_fault_of_one_version_is_reported(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  edit_version(dir, 3, three_faults, NULL); /* the manifest rules, readers reject it (FA-STORE-3) */
  edit_version(dir, 5, clear_writer_bit, NULL);
  edit_version(dir, 5, max_fragment_id_0, NULL);
  use_root(dir, 5, (lfa_root_entry *[]){all_entry(0, 11, true)}, 1); /* and a root rule of the same version */
  lfa_verify_result r = verify(dir);
  static const char *const v3[] = {"FA-FLAG-1", "FA-LANCE-8", "FA-STORE-3", "FA-STORE-2"};
  static const char *const v5[] = {"FA-FLAG-1", "FA-LANCE-8", "FA-ROOT-3"};
  for (size_t i = 0; i < 4; i++)
    if (!has_error(&r, v3[i], 3)) fail_msg("version 3: %s not reported", v3[i]);
  for (size_t i = 0; i < 3; i++)
    if (!has_error(&r, v5[i], 5)) fail_msg("version 5: %s not reported", v5[i]);
  /* [FA-VERIFY-5] transitions into and out of unreadable version 3 are not checked, and say so */
  const lfa_finding *nc = lfa_findings_find(&r.findings, "FA-VERIFY-5", LFA_SEVERITY_WARNING);
  assert_non_null(nc);
  assert_int_equal(nc->version, 3);
  for (size_t i = 1; i < r.findings.count; i++) /* sorted by version */
    assert_true(r.findings.items[i - 1].version <= r.findings.items[i].version);
  lfa_verify_result_free(&r);
  remove_tree(dir);
}

/* ---- what a finding says --------------------------------------------------------------------- */

static void test_FA_VERIFY_2_findings_name_field_fragment_rows(void **state) {
  (void)state;
  char dir[64];
  make_sample(dir);
  f_delete_changes(dir);
  lfa_verify_result r = verify(dir);
  const lfa_finding *f = lfa_findings_find(&r.findings, "FA-OP-4", LFA_SEVERITY_ERROR);
  assert_non_null(f);
  assert_int_equal(f->version, 4);
  assert_true(f->has_field && f->field_id == EMB);
  assert_string_equal(f->field_name, "embedding");
  assert_true(f->has_fragment && f->fragment_id == 0);
  assert_int_equal(f->n_rows, 1);
  assert_int_equal(f->rows[0], 5); /* (0, 5) lost its assignment; deleted (0, 2) does not count */
  assert_non_null(strstr(f->file, "_field_assignments/roots/2/"));
  lfa_verify_result_free(&r);
  remove_tree(dir);
}

/* The one error finding under `rule` at `version`, which must be where it
 * is expected: field, fragment (negative: none) and file. */
static void expect_found_at(const lfa_verify_result *r, const char *rule, uint64_t version, int32_t field,
                            int64_t fragment, const char *file) {
  const lfa_finding *f = lfa_findings_find(&r->findings, rule, LFA_SEVERITY_ERROR);
  if (f == NULL) fail_msg("no %s finding", rule);
  assert_int_equal(f->version, version);
  assert_int_equal(f->has_field, field >= 0);
  if (field >= 0) assert_int_equal(f->field_id, field);
  assert_int_equal(f->has_fragment, fragment >= 0);
  if (fragment >= 0) assert_int_equal(f->fragment_id, (uint64_t)fragment);
  assert_string_equal(f->file, file);
}

/* Reader and model failures become findings at the place the error
 * carries as data, not read from its message: the partial that fails, the
 * fragment a root entry names, the row (fragment 0, offset 1) a row change
 * names. Each expected place is the one the fault above sets up. */
static void test_FA_VERIFY_2_failures_found_where_they_are(void **state) {
  (void)state;
  static const struct {
    void (*inject)(const char *dir);
    const char *rule;
    int32_t field;
    int64_t fragment;
    const char *file;
  } CASES[] = {
      {f_past_end, "FA-BITMAP-4", EMB, 0, "_field_assignments/bitmaps/2/0/feedface-0000-4000-8000-000000000000.rbm"},
      {f_corrupt_roaring, "FA-BITMAP-2", EMB, 0,
       "_field_assignments/bitmaps/2/0/feedface-0000-4000-8000-000000000000.rbm"},
      {f_root_missing, "FA-ROOT-5", EMB, 9, "_field_assignments/roots/2/feedface-0000-4000-8000-000000000003.root"},
      {f_written_and_invalidated, "FA-SEM-5", EMB, 0, "_versions/3.manifest"}, /* the inline transaction */
  };
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    char dir[64];
    make_sample(dir);
    CASES[i].inject(dir);
    lfa_verify_result r = verify(dir);
    expect_found_at(&r, CASES[i].rule, 3, CASES[i].field, CASES[i].fragment, CASES[i].file);
    lfa_verify_result_free(&r);
    remove_tree(dir);
  }
}

/* ---- what cannot be checked is said [FA-VERIFY-5] ------------------------------------------------ */

static void drop_transaction(lfa_manifest_file *mf, const char *dir, void *ctx) {
  (void)dir, (void)ctx;
  lfa_transaction_free(mf->transaction);
  mf->transaction = NULL;
  set_string(&mf->manifest->transaction_file, "");
}

static void test_FA_VERIFY_5_not_checkable(void **state) {
  (void)state;
  char dir[64], path[128];
  make_sample(dir);
  /* version 5 without a transaction: not checkable, and FA-LANCE-17 broken */
  edit_version(dir, 5, drop_transaction, NULL);
  lfa_verify_result r = verify(dir);
  assert_true(has_error(&r, "FA-LANCE-17", 5));
  const lfa_finding *nc = lfa_findings_find(&r.findings, "FA-VERIFY-5", LFA_SEVERITY_WARNING);
  assert_true(nc != NULL && nc->version == 5);
  lfa_verify_result_free(&r);
  remove_tree(dir);
  make_sample(dir);
  /* version 2 gone (cleaned up): the commits that made 2 and 3 cannot be checked */
  snprintf(path, sizeof path, "%s/_versions/2.manifest", dir);
  assert_int_equal(unlink(path), 0);
  r = verify(dir);
  assert_int_equal(r.versions_checked, 4);
  const lfa_finding *f = lfa_findings_find(&r.findings, "FA-VERIFY-5", LFA_SEVERITY_WARNING);
  assert_non_null(f);
  assert_int_equal(f->version, 3);
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR), 0);
  lfa_verify_result_free(&r);
  /* a garbage manifest: one finding, and the versions after it are still checked */
  snprintf(path, sizeof path, "%s/_versions/4.manifest", dir);
  FILE *fp = fopen(path, "ab");
  assert_non_null(fp);
  fputs("junk", fp);
  fclose(fp);
  r = verify(dir);
  assert_true(has_error(&r, "FA-LANCE-1", 4));
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR), 1);
  assert_int_equal(r.versions_checked, 4);
  lfa_verify_result_free(&r);
  remove_tree(dir);
}

static void test_range_and_unreadable_input(void **state) {
  (void)state;
  lfa_verify_result r;
  lfa_error err = {0};
  lfa_verify_options o = {.has_from = true, .from = 3, .has_to = true, .to = 4};
  assert_ok(lfa_verify_dataset(&r, EXAMPLE, &o, &err), &err);
  assert_int_equal(r.versions_checked, 2);
  assert_int_equal(r.versions[0], 3);
  for (size_t i = 0; i < r.findings.count; i++) assert_true(r.findings.items[i].version >= 3 && r.findings.items[i].version <= 4);
  lfa_verify_result_free(&r);
  o.from = 20, o.to = 30;
  assert_int_not_equal(lfa_verify_dataset(&r, EXAMPLE, &o, &err), LFA_OK);
  lfa_verify_result_free(&r);
  assert_int_not_equal(lfa_verify_dataset(&r, "/nonexistent/lfa", NULL, &err), LFA_OK);
  lfa_verify_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_upstream_example_is_valid),
      cmocka_unit_test(test_sample_is_valid),
      cmocka_unit_test(test_lance_test_data_is_valid),
      cmocka_unit_test(test_reference_writer_histories_are_valid),
      cmocka_unit_test(test_fault_injection_kill_ratio),
      cmocka_unit_test(test_every_fault_of_one_version_is_reported),
      cmocka_unit_test(test_FA_VERIFY_2_findings_name_field_fragment_rows),
      cmocka_unit_test(test_FA_VERIFY_2_failures_found_where_they_are),
      cmocka_unit_test(test_FA_VERIFY_5_not_checkable),
      cmocka_unit_test(test_range_and_unreadable_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
