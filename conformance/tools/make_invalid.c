/* make_invalid.c: writes the conformance suite's invalid and edge datasets.
 *
 *   make_invalid OUT_DIR                   every invalid dataset: OUT_DIR/<name>/
 *   make_invalid --edge OUT_DIR            every edge dataset:    OUT_DIR/<name>/
 *   make_invalid [--edge] --only NAME OUT_DIR    one dataset
 *   make_invalid [--edge] --markdown       the README table (name, rule, what, edited)
 *
 * Each run also writes OUT_DIR/EXPECTED.tsv: a header line, then
 * `name<TAB>rule<TAB>what` per dataset. An invalid dataset breaks exactly
 * one requirement, and `rule` is the id a verifier MUST report as an error
 * for it. An edge dataset is valid: a verifier MUST NOT report an error, and
 * MUST report `rule` as a warning (`-`: no finding at all). `what` says what
 * is broken, citing the requirement ids the case exercises.
 * conformance/invalid/README.md explains how to use them.
 *
 * How a dataset is made: the reference writer (lfa/history.h) writes a
 * small valid history, then one object is re-encoded to carry exactly one
 * fault: a manifest (decoded, one protobuf field edited, encoded again; its
 * inline transaction and `_transactions/` file are kept equal,
 * FA-LANCE-10), a transaction, a deletion file, or a root or bitmap (then
 * written as a new object, and the descriptor or root entry pointing at it
 * updated, since objects are immutable, FA-STORE-8). Everything else stays
 * as the writer wrote it, so the only fault is the one named.
 *
 * Determinism: the writer draws every uuid and deletion file id from its
 * seed (SEED) and writes no timestamp; objects this tool adds get fixed
 * v4-shaped names (crafted_root, crafted_bitmap). So every run writes the
 * same bytes at the same paths, which ctest checks
 * (conformance_invalid_reproducible).
 * OUT_DIR/<name> must not exist; OUT_DIR is created when missing.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, mkdir */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lfa/bitmap.h"
#include "lfa/deletion.h"
#include "lfa/edit.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/rowids.h"
#include "lfa/transaction.h"
#include "rowids.pb-c.h"

enum { SEED = 20240607 };

/* Field ids of the schemas below, as the writer numbers them (pre-order). */
enum { ID = 0, EMB = 1, TAG = 2 };

/* The transaction_properties key under which upstream's first iteration
 * keeps the sidecar in memory, and never on disk [FA-TXN-5]. */
#define SIDECAR_PROPERTY_KEY "__lance_field_assignment_transaction"

/* ---- failing ---------------------------------------------------------------------- */

/* This tool reads only what it wrote: any failure is a bug here, so it
 * stops with the message. */
static void need(lfa_status st, const lfa_error *err, const char *what) {
  if (st == LFA_OK) return;
  fprintf(stderr, "make_invalid: %s: %s\n", what, err->msg);
  exit(1);
}

static void need_true(bool ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "make_invalid: %s\n", what);
  exit(1);
}

static void *need_mem(void *p) {
  need_true(p != NULL, "out of memory");
  return p;
}

/* ---- files --------------------------------------------------------------------------- */

static void join(char *out, size_t cap, const char *dir, const char *rel) {
  int n = snprintf(out, cap, "%s/%s", dir, rel);
  need_true(n > 0 && (size_t)n < cap, "path too long");
}

/* Replaces (or creates) the file `rel` of the dataset (lfa/edit.h). */
static void put_bytes(const char *dir, const char *rel, const uint8_t *data, size_t len) {
  lfa_error err = {0};
  need(lfa_edit_replace(NULL, dir, rel, data, len, &err), &err, rel);
}

static lfa_buf get_bytes(const char *dir, const char *rel) {
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_edit_read(&b, NULL, dir, rel, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err, rel);
  return b;
}

/* Removes the file `rel` of the dataset, and the directories it leaves
 * empty: git keeps no empty directory, so a committed dataset has none
 * (conformance_invalid_reproducible compares the trees). */
static void remove_file(const char *dir, const char *rel) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_error err = {0};
  join(path, sizeof path, dir, rel);
  need(lfa_edit_remove(NULL, dir, rel, &err), &err, rel);
  size_t keep = strlen(dir);
  for (char *slash = strrchr(path, '/'); slash != NULL && (size_t)(slash - path) > keep; slash = strrchr(path, '/')) {
    *slash = '\0';
    if (rmdir(path) != 0) break; /* not empty: its parents are not either */
  }
}

/* ---- histories the reference writer writes --------------------------------------------- */

/* id (untracked), emb (tracked, unassigned), tag (tracked, assigned). */
static const lfa_new_field FIELDS[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"tag", "string", true, LFA_ASSIGNED},
};
/* id (untracked) and emb (tracked, unassigned): every root is 0 bytes. */
static const lfa_new_field BARE_FIELDS[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
/* Nothing tracked. */
static const lfa_new_field PLAIN_FIELDS[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNTRACKED},
};

static const uint64_t KEYS_1_6[] = {1, 2, 3, 4, 5, 6};
static const char *const NAMES_ID[] = {"id"};
static const char *const NAMES_EMB[] = {"emb"};
static const char *const NAMES_TAG[] = {"tag"};
static const char *const NAMES_ID_EMB[] = {"id", "emb"};

/* Version 1 of every history: rows 1..6 in fragments 0 and 1 (3 rows
 * each), `id` supplied. */
#define CREATE(schema) \
  {.op = LFA_OP_CREATE, .new_fields = schema, .n_new_fields = sizeof schema / sizeof schema[0], \
   .rows = {6, KEYS_1_6}, .rows_per_file = 3, .fields = {1, NAMES_ID}}

/* The steps the datasets build on. Rows are named by key: key k of the
 * create is fragment (k - 1) / 3, offset (k - 1) % 3. */
static const lfa_request CREATE_FULL = CREATE(FIELDS);
static const lfa_request CREATE_BARE = CREATE(BARE_FIELDS);
static const lfa_request CREATE_PLAIN = CREATE(PLAIN_FIELDS);
/* emb written in place on rows 2 (0, 1) and 4 (1, 0): two partial bitmaps */
static const lfa_request UPDATE_EMB = {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){2, 4}},
                                       .fields = {1, NAMES_EMB}, .rewrite_columns = true};
/* rows 7 and 8 with id and emb: fragment 2, emb all assigned, tag not */
static const lfa_request APPEND_ID_EMB = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}},
                                          .fields = {2, NAMES_ID_EMB}};
/* rows 7 and 8 with id and emb, each in its own fragment (2 and 3) */
static const lfa_request APPEND_ID_EMB_TWO = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}},
                                              .fields = {2, NAMES_ID_EMB}, .rows_per_file = 1};
/* rows 7 and 8 with id only, each in its own fragment */
static const lfa_request APPEND_ID_TWO = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}},
                                          .fields = {1, NAMES_ID}, .rows_per_file = 1};
/* emb invalidated on row 2 (0, 1) */
static const lfa_request INVALIDATE_EMB = {.op = LFA_OP_UPDATE, .rows = {1, (const uint64_t[]){2}},
                                           .invalidate = {1, NAMES_EMB}};
/* emb invalidated on row 4 (1, 0) */
static const lfa_request INVALIDATE_EMB_4 = {.op = LFA_OP_UPDATE, .rows = {1, (const uint64_t[]){4}},
                                             .invalidate = {1, NAMES_EMB}};
/* row 2 (0, 1) deleted */
static const lfa_request DELETE_2 = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){2}}};
static const lfa_request COMPACT = {.op = LFA_OP_COMPACT};
static const lfa_request RESTORE_2 = {.op = LFA_OP_RESTORE, .version = 2};
static const lfa_request RENAME_EMB = {.op = LFA_OP_RENAME, .field = "emb", .new_name = "vec"};
static const lfa_request CAST_EMB = {.op = LFA_OP_CAST, .field = "emb", .new_type = "fixed_size_list:double:4"};
static const lfa_request CREATE_INDEX = {.op = LFA_OP_CREATE_INDEX};
static const lfa_request DROP_TAG = {.op = LFA_OP_DROP, .fields = {1, NAMES_TAG}};
static const lfa_request TRACK_ID = {.op = LFA_OP_TRACK, .field = "id", .assignment = LFA_UNASSIGNED};
/* matched row 1 gets id and emb in place; key 9 is inserted into a new fragment */
static const lfa_request MERGE_PARTIAL = {.op = LFA_OP_MERGE_INSERT, .rows = {1, (const uint64_t[]){1}},
                                          .inserts = {1, (const uint64_t[]){9}}, .fields = {2, NAMES_ID_EMB}};
static const lfa_request OVERWRITE = {.op = LFA_OP_OVERWRITE, .new_fields = FIELDS, .n_new_fields = 3,
                                      .rows = {2, (const uint64_t[]){11, 12}}, .fields = {1, NAMES_ID}};

enum { STEPS_MAX = 8 };

/* Writes the history `steps` (version k is steps[k - 1]) at `dir`, a new
 * directory; `stable` turns stable row ids on at the create. */
static void write_history(const char *dir, bool stable, const lfa_request *const *steps, size_t n) {
  lfa_history h;
  lfa_error err = {0};
  need(lfa_history_open(&h, dir, SEED, &err), &err, dir);
  for (size_t i = 0; i < n; i++) {
    lfa_request req = *steps[i];
    if (i == 0) req.stable_row_ids = stable;
    need(lfa_history_apply(&h, &req, 0, &err), &err, lfa_op_name(req.op));
  }
  lfa_history_close(&h);
}

/* history(dir, stable, step, step, ...) */
#define history(dir, stable, ...)                                                   \
  write_history(dir, stable, (const lfa_request *const[]){__VA_ARGS__},             \
                sizeof((const lfa_request *const[]){__VA_ARGS__}) / sizeof(const lfa_request *))

/* ---- protobuf editing ------------------------------------------------------------------ */

/* A deep copy through the wire: every part malloc'ed, freed with its parent. */
static void *clone_msg(const void *msg) {
  lfa_buf b = {0};
  lfa_error err = {0};
  ProtobufCMessage *m = NULL;
  need(lfa_pb_pack(&b, msg, &err), &err, "pack");
  need(lfa_pb_unpack(&m, ((const ProtobufCMessage *)msg)->descriptor, b.data, b.len, "clone", &err), &err, "unpack");
  lfa_buf_free(&b);
  return m;
}

/* Appends an owned item to a repeated field of a decoded message. */
#define PUSH(list, n, item)                                                    \
  do {                                                                         \
    (list) = need_mem(realloc((list), ((n) + 1) * sizeof *(list)));           \
    (list)[(n)++] = (item);                                                    \
  } while (0)

static void set_string(char **slot, const char *value) {
  if (*slot != protobuf_c_empty_string) free(*slot);
  *slot = need_mem(strdup(value));
}

static void set_bytes(ProtobufCBinaryData *slot, const lfa_buf *b) {
  free(slot->data);
  slot->data = need_mem(malloc(b->len ? b->len : 1));
  memcpy(slot->data, b->data, b->len);
  slot->len = b->len;
}

/* Adds a raw field to a message: packed after its known fields, and read
 * back as whatever the field number means to the reader. protobuf-c keeps
 * the bytes after the tag, so a length-delimited value starts with its
 * varint length. */
static void add_unknown_field(ProtobufCMessage *m, uint32_t tag, ProtobufCWireType type, const uint8_t *data,
                              size_t len) {
  uint8_t prefix[10];
  size_t n = 0;
  for (uint64_t v = len; type == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED; v >>= 7) {
    prefix[n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
    if (v <= 0x7F) break;
  }
  ProtobufCMessageUnknownField f = {tag, type, n + len, need_mem(malloc(n + len + 1))};
  memcpy(f.data, prefix, n);
  if (len > 0) memcpy(f.data + n, data, len);
  PUSH(m->unknown_fields, m->n_unknown_fields, f);
}

/* ---- versions ------------------------------------------------------------------------------ */

/* Version v's manifest file, opened for editing (lfa/edit.h). */
static void open_version(lfa_edit *e, const char *dir, uint64_t v) {
  lfa_error err = {0};
  need(lfa_edit_open(e, NULL, dir, v, &err), &err, dir);
}

/* Encodes the manifest file again and writes the `.txn` file it names with
 * exactly the inline transaction's bytes, as the writer does
 * [FA-LANCE-10]; then closes `e`. */
static void save_version(lfa_edit *e) {
  lfa_error err = {0};
  need(lfa_edit_save(e, &err), &err, e->dir);
  need(lfa_edit_save_transaction_file(e, &err), &err, e->dir);
  lfa_edit_close(e);
}

typedef void (*edit_fn)(lfa_manifest_file *mf, const char *dir);

/* Decodes version v, lets `edit` change it, encodes it again. */
static void edit_version(const char *dir, uint64_t v, edit_fn edit) {
  lfa_edit e;
  open_version(&e, dir, v);
  edit(&e.file, dir);
  save_version(&e);
}

static Descriptor *descriptor(const Manifest *m, int32_t field_id) {
  for (size_t i = 0; i < m->n_field_assignment_states; i++)
    if (m->field_assignment_states[i]->field_id == field_id) return m->field_assignment_states[i];
  need_true(false, "no descriptor for the field");
  return NULL;
}

static DataFragment *fragment(const Manifest *m, uint64_t id) {
  for (size_t i = 0; i < m->n_fragments; i++)
    if (m->fragments[i]->id == id) return m->fragments[i];
  need_true(false, "no such fragment");
  return NULL;
}

static Lance__File__Field *schema_field(const Manifest *m, int32_t id) {
  for (size_t i = 0; i < m->n_fields; i++)
    if (m->fields[i]->id == id) return m->fields[i];
  need_true(false, "no such schema field");
  return NULL;
}

/* The fragment lists an operation carries (Append, Overwrite, Update,
 * Delete, Merge, Rewrite groups). */
typedef struct fragment_lists {
  size_t count;
  DataFragment ***lists[8];
  size_t *sizes[8];
} fragment_lists;

static void add_list(fragment_lists *l, DataFragment ***list, size_t *size) {
  l->lists[l->count] = list, l->sizes[l->count] = size;
  l->count++;
}

static fragment_lists txn_fragments(Txn *t) {
  fragment_lists l = {0};
  switch ((int)t->operation_case) {
    case LANCE__TABLE__TRANSACTION__OPERATION_APPEND: add_list(&l, &t->append->fragments, &t->append->n_fragments); break;
    case LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE:
      add_list(&l, &t->overwrite->fragments, &t->overwrite->n_fragments);
      break;
    case LANCE__TABLE__TRANSACTION__OPERATION_DELETE:
      add_list(&l, &t->delete_->updated_fragments, &t->delete_->n_updated_fragments);
      break;
    case LANCE__TABLE__TRANSACTION__OPERATION_MERGE: add_list(&l, &t->merge->fragments, &t->merge->n_fragments); break;
    case LANCE__TABLE__TRANSACTION__OPERATION_UPDATE:
      add_list(&l, &t->update->updated_fragments, &t->update->n_updated_fragments);
      add_list(&l, &t->update->new_fragments, &t->update->n_new_fragments);
      break;
    case LANCE__TABLE__TRANSACTION__OPERATION_REWRITE:
      for (size_t g = 0; g < t->rewrite->n_groups && l.count + 2 <= 8; g++) {
        add_list(&l, &t->rewrite->groups[g]->old_fragments, &t->rewrite->groups[g]->n_old_fragments);
        add_list(&l, &t->rewrite->groups[g]->new_fragments, &t->rewrite->groups[g]->n_new_fragments);
      }
      break;
    default: break;
  }
  return l;
}

/* The transaction's copy of a manifest fragment (same first data file), or
 * NULL: edits to a fragment go to both, so they never disagree. */
static DataFragment *txn_twin(Txn *t, const DataFragment *f) {
  if (t == NULL || f->n_files == 0) return NULL;
  fragment_lists l = txn_fragments(t);
  for (size_t k = 0; k < l.count; k++)
    for (size_t i = 0; i < *l.sizes[k]; i++) {
      DataFragment *g = (*l.lists[k])[i];
      if (g->n_files > 0 && strcmp(g->files[0]->path, f->files[0]->path) == 0) return g;
    }
  return NULL;
}

static Sidecar *sidecar_of(Txn *t) {
  if (t->field_assignment_transaction == NULL) {
    Sidecar empty = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
    t->field_assignment_transaction = clone_msg(&empty);
  }
  return t->field_assignment_transaction;
}

/* ---- objects --------------------------------------------------------------------------------- */

/* Objects this tool adds get v4-shaped uuids from a fixed counter, so their
 * paths follow the layout [FA-STORE-7] and never change between runs. */
static void crafted_root(char *out, size_t cap, int32_t field, unsigned n) {
  snprintf(out, cap, "_field_assignments/roots/%d/c0ffee00-0000-4000-8000-%012x.root", field, n);
}

static void crafted_bitmap(char *out, size_t cap, int32_t field, uint64_t fragment_id, unsigned n) {
  snprintf(out, cap, "_field_assignments/bitmaps/%d/%" PRIu64 "/c0ffee00-0000-4000-8000-%012x.rbm", field, fragment_id,
           n);
}

static lfa_buf bitmap_bytes(const uint32_t *offsets, size_t n) {
  roaring_bitmap_t *bm = need_mem(roaring_bitmap_of_ptr(n, offsets));
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_bitmap_encode(&b, bm, &err), &err, "bitmap");
  roaring_bitmap_free(bm);
  return b;
}

static uint64_t address(uint64_t fragment_id, uint32_t offset) { return fragment_id << 32 | offset; }

static lfa_buf treemap_bytes(const uint64_t *addresses, size_t n) {
  lfa_treemap tm = {0};
  lfa_buf b = {0};
  lfa_error err = {0};
  for (size_t i = 0; i < n; i++) need(lfa_treemap_add(&tm, addresses[i], &err), &err, "treemap");
  need(lfa_treemap_encode(&b, &tm, &err), &err, "treemap");
  lfa_treemap_free(&tm);
  return b;
}

/* The decoded root a descriptor points at. */
static lfa_root *read_root(const char *dir, const AssignmentFile *file) {
  lfa_root *root = NULL;
  lfa_error err = {0};
  need(lfa_edit_read_root(&root, NULL, dir, file->path, &err), &err, dir);
  return root;
}

/* Points `file` at a new object `rel` holding `bytes`. */
static void put_object(const char *dir, AssignmentFile *file, const char *rel, const lfa_buf *bytes) {
  put_bytes(dir, rel, bytes->data, bytes->len);
  set_string(&file->path, rel);
  file->size_bytes = bytes->len, file->has_size_bytes = bytes->len > 0;
}

/* Writes `root` as the new object `rel` and points `file` at it. */
static void write_root(const char *dir, AssignmentFile *file, const lfa_root *root, const char *rel) {
  uint64_t size = 0;
  lfa_error err = {0};
  need(lfa_edit_put_root(NULL, dir, rel, root, &size, &err), &err, dir);
  set_string(&file->path, rel);
  file->size_bytes = size, file->has_size_bytes = size > 0;
}

static lfa_root_entry *root_entry(const lfa_root *root, uint64_t fragment_id) {
  for (size_t i = 0; i < root->n_fragments; i++)
    if (root->fragments[i]->fragment_id == fragment_id) return root->fragments[i];
  need_true(false, "no root entry for the fragment");
  return NULL;
}

/* Re-encodes the root of `field` in manifest `m` after `edit` changed it,
 * as the crafted object number n. */
typedef void (*root_edit_fn)(lfa_root *root, const char *dir);

static void edit_root(const char *dir, const Manifest *m, int32_t field, unsigned n, root_edit_fn edit) {
  Descriptor *d = descriptor(m, field);
  lfa_root *root = read_root(dir, d->root);
  char rel[160];
  edit(root, dir);
  crafted_root(rel, sizeof rel, field, n);
  write_root(dir, d->root, root, rel);
  lfa_root_free(root);
}

/* Removes the root of field in version v and the partials it lists: objects
 * no version will reference once the caller repoints the descriptor. */
static void remove_root_objects(const char *dir, const Manifest *m, int32_t field) {
  const AssignmentFile *f = descriptor(m, field)->root;
  lfa_root *root = read_root(dir, f);
  for (size_t i = 0; i < root->n_fragments; i++)
    if (root->fragments[i]->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL)
      remove_file(dir, root->fragments[i]->partial->path);
  remove_file(dir, f->path);
  lfa_root_free(root);
}

/* ---- sidecar elements --------------------------------------------------------------------- */

static void add_row_change(Txn *t, int32_t field, bool assigned, const uint64_t *addresses, size_t n) {
  lfa_buf b = treemap_bytes(addresses, n);
  RowChange rc = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__ROW_CHANGE__INIT;
  rc.field_id = field, rc.assigned = assigned;
  rc.row_addresses = (ProtobufCBinaryData){b.len, b.data};
  Sidecar *side = sidecar_of(t);
  PUSH(side->row_changes, side->n_row_changes, clone_msg(&rc));
  lfa_buf_free(&b);
}

/* Version v's transaction gains one RowChange: `field` assigned or
 * invalidated on the row at `address`. */
static void row_change_at(const char *dir, uint64_t v, int32_t field, bool assign, uint64_t address) {
  lfa_edit mf;
  open_version(&mf, dir, v);
  add_row_change(mf.file.transaction, field, assign, &address, 1);
  save_version(&mf);
}

typedef enum state_kind { STATE_ALL, STATE_NONE } state_kind;

static void add_fragment_state(Txn *t, const char *path, int32_t field, state_kind kind) {
  FragmentState fs = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__INIT;
  fs.fragment_path = (char *)path, fs.field_id = field;
  if (kind == STATE_ALL)
    fs.state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED,
    fs.all_assigned = true;
  else
    fs.state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED,
    fs.none_assigned = true;
  Sidecar *side = sidecar_of(t);
  PUSH(side->fragment_states, side->n_fragment_states, clone_msg(&fs));
}

static FragmentState *fragment_state(const Txn *t, int32_t field) {
  const Sidecar *side = t->field_assignment_transaction;
  for (size_t k = 0; side != NULL && k < side->n_fragment_states; k++)
    if (side->fragment_states[k]->field_id == field) return side->fragment_states[k];
  need_true(false, "no fragment state for the field");
  return NULL;
}

/* The encoded sidecar, as lowercase hex: how upstream's first iteration
 * keeps it under SIDECAR_PROPERTY_KEY in memory. */
static char *sidecar_hex(const Sidecar *side) {
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_pb_pack(&b, &side->base, &err), &err, "sidecar");
  char *hex = need_mem(malloc(2 * b.len + 1));
  for (size_t i = 0; i < b.len; i++) snprintf(hex + 2 * i, 3, "%02x", b.data[i]);
  hex[2 * b.len] = '\0';
  lfa_buf_free(&b);
  return hex;
}

static void add_property(Txn *t, const char *key, const char *value) {
  Lance__Table__Transaction__TransactionPropertiesEntry e =
      LANCE__TABLE__TRANSACTION__TRANSACTION_PROPERTIES_ENTRY__INIT;
  e.key = (char *)key, e.value = (char *)value;
  PUSH(t->transaction_properties, t->n_transaction_properties, clone_msg(&e));
}

/* ============================================================================================
 * The invalid datasets. Each comment says what the writer wrote, what was
 * edited, and why exactly one requirement breaks.
 * ========================================================================================== */

/* ---- the manifest (spec 02-lance-base.md) -------------------------------------------------- */

/* [FA-LANCE-1] The footer's magic of version 2 reads "LANX". */
static void lance1_footer_magic(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  lfa_buf b = get_bytes(dir, "_versions/2.manifest");
  b.data[b.len - 1] = 'X';
  put_bytes(dir, "_versions/2.manifest", b.data, b.len);
  lfa_buf_free(&b);
}

static void swap_fragments(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  DataFragment *f = mf->manifest->fragments[0];
  mf->manifest->fragments[0] = mf->manifest->fragments[1];
  mf->manifest->fragments[1] = f;
}

/* [FA-LANCE-5] Fragments listed 1, 0. */
static void lance5_fragments_descending(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, swap_fragments);
}

static void max_fragment_id_0(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->max_fragment_id = 0;
}

/* [FA-LANCE-8] max_fragment_id 0 while fragment 1 exists. */
static void lance8_max_fragment_id_below(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, max_fragment_id_0);
}

static void schema_id_twice(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Manifest *m = mf->manifest;
  Lance__File__Field *again = clone_msg(schema_field(m, ID));
  set_string(&again->name, "id_again");
  PUSH(m->fields, m->n_fields, again);
}

/* [FA-LANCE-9] A fourth schema field "id_again" reuses id 0. */
static void lance9_schema_id_twice(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, schema_id_twice);
}

static void rows_unknown(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  DataFragment *f = fragment(mf->manifest, 1), *twin = txn_twin(mf->transaction, f);
  f->physical_rows = 0;
  if (twin != NULL) twin->physical_rows = 0;
}

/* [FA-LANCE-12] Fragment 1 records physical_rows 0 ("unknown") while emb is
 * tracked. No root has an entry for it: every root is 0 bytes. */
static void lance12_physical_rows_unknown(const char *dir) {
  history(dir, false, &CREATE_BARE);
  edit_version(dir, 1, rows_unknown);
}

static void id_2_32(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  DataFragment *f = fragment(mf->manifest, 1), *twin = txn_twin(mf->transaction, f);
  f->id = (uint64_t)1 << 32;
  if (twin != NULL) twin->id = f->id;
  /* max_fragment_id is a u32: leave it out, as FA-LANCE-8 allows */
  mf->manifest->_max_fragment_id_case = LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID__NOT_SET;
  mf->manifest->max_fragment_id = 0;
}

/* [FA-LANCE-13] Fragment 1 becomes fragment 2^32 while emb is tracked: its
 * rows have no row address. No root names it (0-byte roots). */
static void lance13_fragment_id_2_32(const char *dir) {
  history(dir, false, &CREATE_BARE);
  edit_version(dir, 1, id_2_32);
}

/* Sets the fields list of every data file at `path` (manifest and
 * transaction alike). */
static void set_file_fields(lfa_manifest_file *mf, const char *path, const int32_t *fields, size_t n) {
  Manifest *m = mf->manifest;
  for (size_t i = 0; i < m->n_fragments; i++) {
    DataFragment *f = m->fragments[i], *twin = txn_twin(mf->transaction, f);
    DataFragment *both[] = {f, twin};
    for (size_t b = 0; b < 2; b++)
      for (size_t k = 0; both[b] != NULL && k < both[b]->n_files; k++) {
        DataFile *df = both[b]->files[k];
        if (strcmp(df->path, path) != 0) continue;
        free(df->fields);
        df->fields = need_mem(malloc((n ? n : 1) * sizeof *df->fields));
        memcpy(df->fields, fields, n * sizeof *fields);
        df->n_fields = n;
      }
  }
}

/* set_file_fields on version v, saved in place. */
static void file_fields_at(const char *dir, uint64_t v, const char *path, const int32_t *fields, size_t n) {
  lfa_edit mf;
  open_version(&mf, dir, v);
  set_file_fields(&mf.file, path, fields, n);
  save_version(&mf);
}

/* [FA-LANCE-15] Data file v1-0.lance lists field 0 twice. */
static void lance15_field_listed_twice(const char *dir) {
  history(dir, false, &CREATE_FULL);
  file_fields_at(dir, 1, "v1-0.lance", (const int32_t[]){ID, ID}, 2);
}

/* [FA-LANCE-15] Data file v1-0.lance lists -3: neither an id nor the tombstone. */
static void lance15_bad_field_value(const char *dir) {
  history(dir, false, &CREATE_FULL);
  file_fields_at(dir, 1, "v1-0.lance", (const int32_t[]){ID, -3}, 2);
}

/* [FA-LANCE-6] [FA-ID-5] Fragment 0 of version 2 has v1-0.lance [0] and the
 * update's v2-0.lance, which now lists [1, 0]: field 0 in two files. */
static void lance6_field_in_two_files(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  file_fields_at(dir, 2, "v2-0.lance", (const int32_t[]){EMB, ID}, 2);
}

static void version_5(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->version = 5;
}

/* [FA-LANCE-18] _versions/2.manifest records version 5. */
static void lance18_version_mismatch(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  edit_version(dir, 2, version_5);
}

static void rows_plus_one(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  fragment(mf->manifest, 0)->physical_rows = 4;
}

/* [FA-LANCE-19] The append of version 2 carries fragment 0, which had 3
 * physical rows in version 1 and has 4 now. (Every root is 0 bytes, so no
 * entry records the count.) */
static void lance19_carried_fragment_rows(const char *dir) {
  history(dir, false, &CREATE_BARE, &APPEND_ID_TWO);
  edit_version(dir, 2, rows_plus_one);
}

static void drop_transaction(lfa_manifest_file *mf, const char *dir) {
  char rel[LFA_PATH_BYTES_MAX];
  snprintf(rel, sizeof rel, "_transactions/%s", mf->manifest->transaction_file);
  remove_file(dir, rel);
  set_string(&mf->manifest->transaction_file, "");
  lfa_transaction_free(mf->transaction);
  mf->transaction = NULL;
}

/* [FA-LANCE-17] Version 2 (tracked) has no transaction: neither inline nor a
 * `.txn` file. */
static void lance17_no_transaction(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  edit_version(dir, 2, drop_transaction);
}

/* [FA-LANCE-10] The `.txn` file of version 2 differs from the inline
 * transaction: another uuid. */
static void lance10_txn_file_differs(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  lfa_edit mf;
  char rel[LFA_PATH_BYTES_MAX];
  open_version(&mf, dir, 2);
  snprintf(rel, sizeof rel, "_transactions/%s", mf.file.manifest->transaction_file);
  set_string(&mf.file.transaction->uuid, "c0ffee00-0000-4000-8000-00000000aaaa");
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_transaction_encode(&b, mf.file.transaction, &err), &err, rel);
  put_bytes(dir, rel, b.data, b.len);
  lfa_buf_free(&b);
  lfa_edit_close(&mf);
}

/* The deletion file of fragment 0 in version v, as a relative path. */
static void deletion_rel(char *out, size_t cap, const char *dir, uint64_t v) {
  lfa_edit mf;
  open_version(&mf, dir, v);
  const Lance__Table__DeletionFile *d = fragment(mf.file.manifest, 0)->deletion_file;
  need_true(d != NULL, "fragment 0 has no deletion file");
  snprintf(out, cap, "_deletions/0-%" PRIu64 "-%" PRIu64 ".%s", d->read_version, d->id,
           d->file_type == LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP ? "bin" : "arrow");
  lfa_edit_close(&mf);
}

/* [FA-LANCE-4] The deletion file of version 2 holds offset 5 instead of 1;
 * fragment 0 has 3 rows. */
static void lance4_deleted_offset_past_end(const char *dir) {
  history(dir, false, &CREATE_FULL, &DELETE_2);
  char rel[LFA_PATH_BYTES_MAX];
  deletion_rel(rel, sizeof rel, dir, 2);
  roaring_bitmap_t *set = need_mem(roaring_bitmap_of(1, 5));
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_deletion_encode(&b, LFA_DELETION_ARROW, set, &err), &err, rel);
  put_bytes(dir, rel, b.data, b.len);
  lfa_buf_free(&b);
  roaring_bitmap_free(set);
}

static void deleted_count_2(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  DataFragment *f = fragment(mf->manifest, 0), *twin = txn_twin(mf->transaction, f);
  f->deletion_file->num_deleted_rows = 2;
  if (twin != NULL && twin->deletion_file != NULL) twin->deletion_file->num_deleted_rows = 2;
}

/* [FA-LANCE-4] num_deleted_rows says 2; the deletion file holds 1 offset. */
static void lance4_num_deleted_rows(const char *dir) {
  history(dir, false, &CREATE_FULL, &DELETE_2);
  edit_version(dir, 2, deleted_count_2);
}

/* [FA-LANCE-3] The `.arrow` deletion file's leading magic reads "ARROWX". */
static void lance3_arrow_magic(const char *dir) {
  history(dir, false, &CREATE_FULL, &DELETE_2);
  char rel[LFA_PATH_BYTES_MAX];
  deletion_rel(rel, sizeof rel, dir, 2);
  lfa_buf b = get_bytes(dir, rel);
  b.data[5] = 'X';
  put_bytes(dir, rel, b.data, b.len);
  lfa_buf_free(&b);
}

/* [FA-LANCE-16] The deletion file version 2 names is not there. */
static void lance16_deletion_file_missing(const char *dir) {
  history(dir, false, &CREATE_FULL, &DELETE_2);
  char rel[LFA_PATH_BYTES_MAX];
  deletion_rel(rel, sizeof rel, dir, 2);
  remove_file(dir, rel);
}

/* Replaces fragment 1's inline row ids (manifest and transaction). */
static void set_row_ids(lfa_manifest_file *mf, const lfa_buf *b) {
  DataFragment *f = fragment(mf->manifest, 1), *twin = txn_twin(mf->transaction, f);
  DataFragment *both[] = {f, twin};
  need_true(f->row_id_sequence_case == LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS,
            "row ids are not inline");
  for (size_t i = 0; i < 2; i++) /* the transaction's copy has ids only when the writer gave it some */
    if (both[i] != NULL && both[i]->row_id_sequence_case == LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS)
      set_bytes(&both[i]->inline_row_ids, b);
}

static void row_ids_short(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_row_ids_encode(&b, (const uint64_t[]){3, 4}, 2, &err), &err, "row ids");
  set_row_ids(mf, &b);
  lfa_buf_free(&b);
}

/* [FA-LANCE-7] Stable row ids: fragment 1 (3 rows) has the sequence 3, 4. */
static void lance7_row_ids_short(const char *dir) {
  history(dir, true, &CREATE_BARE);
  edit_version(dir, 1, row_ids_short);
}

static void row_ids_repeat(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_row_ids_encode(&b, (const uint64_t[]){0, 1, 2}, 3, &err), &err, "row ids");
  set_row_ids(mf, &b);
  lfa_buf_free(&b);
}

/* [FA-LANCE-14] Stable row ids: fragment 1's rows get ids 0, 1, 2, which
 * fragment 0's live rows have. */
static void lance14_row_ids_repeat(const char *dir) {
  history(dir, true, &CREATE_BARE);
  edit_version(dir, 1, row_ids_repeat);
}

/* An encoded RowIdSequence of one Range segment [start, end). */
static lfa_buf range_sequence(uint64_t start, uint64_t end) {
  Lance__Table__U64Segment__Range range = LANCE__TABLE__U64_SEGMENT__RANGE__INIT;
  Lance__Table__U64Segment seg = LANCE__TABLE__U64_SEGMENT__INIT;
  Lance__Table__RowIdSequence seq = LANCE__TABLE__ROW_ID_SEQUENCE__INIT;
  Lance__Table__U64Segment *segs[] = {&seg};
  range.start = start, range.end = end;
  seg.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE, seg.range = &range;
  seq.segments = segs, seq.n_segments = 1;
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_pb_pack(&b, &seq.base, &err), &err, "row id sequence");
  return b;
}

static void row_ids_reversed(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  lfa_buf b = range_sequence(6, 3);
  set_row_ids(mf, &b);
  lfa_buf_free(&b);
}

/* [FA-LANCE-11] Stable row ids: fragment 1's sequence is Range(6..3). */
static void lance11_range_reversed(const char *dir) {
  history(dir, true, &CREATE_BARE);
  edit_version(dir, 1, row_ids_reversed);
}

/* ---- descriptors (01§1) ------------------------------------------------------ */

static void duplicate_descriptor(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Manifest *m = mf->manifest;
  Descriptor *copy = clone_msg(descriptor(m, EMB));
  PUSH(m->field_assignment_states, m->n_field_assignment_states, copy);
  /* emb, emb, tag: sorted, so the repetition is the only fault */
  m->field_assignment_states[2] = m->field_assignment_states[1];
  m->field_assignment_states[1] = copy;
}

/* [FA-STORE-1] Two descriptors for emb (both point at its root). */
static void store1_duplicate_descriptor(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, duplicate_descriptor);
}

static void swap_descriptors(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Manifest *m = mf->manifest;
  Descriptor *d = m->field_assignment_states[0];
  m->field_assignment_states[0] = m->field_assignment_states[1];
  m->field_assignment_states[1] = d;
}

/* [FA-STORE-2] Descriptors listed tag (2), emb (1). */
static void store2_descriptors_unsorted(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, swap_descriptors);
}

static void keep_dropped_descriptor(lfa_manifest_file *mf, const char *dir) {
  lfa_edit parent;
  open_version(&parent, dir, 1);
  PUSH(mf->manifest->field_assignment_states, mf->manifest->n_field_assignment_states,
       clone_msg(descriptor(parent.file.manifest, TAG)));
  lfa_edit_close(&parent);
}

/* [FA-STORE-3] [FA-OP-1] [FA-FLAG-6] Version 2 drops tag (a Project) but keeps
 * its descriptor, as an older writer that copies field 22 does. */
static void div_descriptor_unknown_field_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &DROP_TAG);
  edit_version(dir, 2, keep_dropped_descriptor);
}

static void drop_root(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Descriptor *d = descriptor(mf->manifest, TAG);
  lfa_pb_free(d->root);
  d->root = NULL;
}

/* [FA-STORE-4] The descriptor of tag has no root. */
static void store4_descriptor_without_root(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, drop_root);
}

static void root_size_plus_one(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  descriptor(mf->manifest, EMB)->root->size_bytes += 1;
}

/* [FA-STORE-5] emb's root has 164 bytes; its descriptor says 165. */
static void store5_root_size(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  edit_version(dir, 2, root_size_plus_one);
}

/* [FA-STORE-5] The partial bitmap of emb in fragment 0 (version 2 only) is
 * gone. */
static void store5_bitmap_missing(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  lfa_edit mf;
  open_version(&mf, dir, 2);
  lfa_root *root = read_root(dir, descriptor(mf.file.manifest, EMB)->root);
  remove_file(dir, root_entry(root, 0)->partial->path);
  lfa_root_free(root);
  lfa_edit_close(&mf);
}

static void unknown_base(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  AssignmentFile *f = descriptor(mf->manifest, TAG)->root;
  f->has_base_id = true, f->base_id = 1;
}

/* [FA-STORE-6] tag's root names base_id 1; the manifest has no base_paths. */
static void store6_base_id_not_listed(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, unknown_base);
}

enum { FLAG_BASE_PATHS = 16 };

static void data_only_base(lfa_manifest_file *mf, const char *dir) {
  Manifest *m = mf->manifest;
  Lance__Table__BasePath base = LANCE__TABLE__BASE_PATH__INIT;
  base.id = 1, base.is_dataset_root = false, base.path = (char *)"/lfa-conformance/data-only-base";
  PUSH(m->base_paths, m->n_base_paths, clone_msg(&base));
  m->reader_feature_flags |= FLAG_BASE_PATHS, m->writer_feature_flags |= FLAG_BASE_PATHS;
  unknown_base(mf, dir);
}

/* [FA-STORE-6] tag's root names base 1, which is listed but is not a dataset
 * root (is_dataset_root = false). Nothing is read through it. */
static void store6_base_not_dataset_root(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, data_only_base);
}

static void escaping_path(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  set_string(&descriptor(mf->manifest, TAG)->root->path, "_field_assignments/roots/2/../../../outside.root");
}

/* [FA-STORE-9] tag's root path climbs out of the dataset with "..". */
static void div_path_escape_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, escaping_path);
}

static void absolute_path(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  set_string(&descriptor(mf->manifest, TAG)->root->path, "/_field_assignments/roots/2/absolute.root");
}

/* [FA-STORE-9] tag's root path starts with "/". */
static void store9_absolute_path(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, absolute_path);
}

static void inline_root_bytes(lfa_manifest_file *mf, const char *dir) {
  AssignmentFile *f = descriptor(mf->manifest, TAG)->root;
  lfa_buf b = get_bytes(dir, f->path);
  f->has_inline_bytes = true;
  set_bytes(&f->inline_bytes, &b);
  lfa_buf_free(&b);
}

/* [FA-STORE-13] tag's descriptor carries inline_bytes, an exact copy of its
 * root (a later upstream iteration). */
static void div_inline_root_bytes_not_written(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, inline_root_bytes);
}

/* ---- roots (01§2) ---------------------------------------------------------- */

/* Every root fault edits one root: the root of `field` in version v is
 * decoded, changed, encoded as crafted object 1, and the descriptor points
 * at it. */
typedef struct root_fault {
  uint64_t version;
  int32_t field;
  root_edit_fn edit;
} root_fault;

static void apply_root_fault(const char *dir, root_fault f) {
  lfa_edit mf;
  open_version(&mf, dir, f.version);
  edit_root(dir, mf.file.manifest, f.field, 1, f.edit);
  save_version(&mf);
}

/* Writes `bytes` as tag's root in version 1 (crafted object 1). */
static void tag_root_bytes(const char *dir, const uint8_t *data, size_t len) {
  lfa_edit mf;
  char rel[160];
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_buf_append(&b, data, len, &err), &err, "root");
  open_version(&mf, dir, 1);
  crafted_root(rel, sizeof rel, TAG, 1);
  put_object(dir, descriptor(mf.file.manifest, TAG)->root, rel, &b);
  save_version(&mf);
  lfa_buf_free(&b);
}

/* [FA-ROOT-1] tag's root holds the bytes "not a root": not a protobuf
 * ('n' is field 13 with wire type 6, which does not exist). */
static void root1_not_protobuf(const char *dir) {
  history(dir, false, &CREATE_FULL);
  tag_root_bytes(dir, (const uint8_t *)"not a root", 10);
}

static void swap_entries(lfa_root *root, const char *dir) {
  (void)dir;
  lfa_root_entry *e = root->fragments[0];
  root->fragments[0] = root->fragments[1];
  root->fragments[1] = e;
}

/* [FA-ROOT-2] tag's root lists fragment 1 before fragment 0. */
static void root2_entries_descending(const char *dir) {
  history(dir, false, &CREATE_FULL);
  apply_root_fault(dir, (root_fault){1, TAG, swap_entries});
}

static void entry_rows_4(lfa_root *root, const char *dir) {
  (void)dir;
  root_entry(root, 0)->physical_rows = 4;
}

/* [FA-ROOT-3] tag's entry for fragment 0 records 4 physical rows; the
 * fragment has 3. */
static void root3_physical_rows(const char *dir) {
  history(dir, false, &CREATE_FULL);
  apply_root_fault(dir, (root_fault){1, TAG, entry_rows_4});
}

static void entry_all_false(lfa_root *root, const char *dir) {
  (void)dir;
  root_entry(root, 1)->all_assigned = false;
}

/* [FA-ROOT-4] tag's entry for fragment 1 is all_assigned = false. */
static void root4_all_assigned_false(const char *dir) {
  history(dir, false, &CREATE_FULL);
  apply_root_fault(dir, (root_fault){1, TAG, entry_all_false});
}

static void entry_no_state(lfa_root *root, const char *dir) {
  (void)dir;
  lfa_root_entry *e = root_entry(root, 1);
  e->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE__NOT_SET, e->all_assigned = false;
}

/* [FA-ROOT-4] tag's entry for fragment 1 has no state at all. */
static void root4_entry_without_state(const char *dir) {
  history(dir, false, &CREATE_FULL);
  apply_root_fault(dir, (root_fault){1, TAG, entry_no_state});
}

static void entry_for_fragment_7(lfa_root *root, const char *dir) {
  (void)dir;
  lfa_root_entry *e = clone_msg(root->fragments[1]);
  e->fragment_id = 7;
  PUSH(root->fragments, root->n_fragments, e);
}

/* [FA-ROOT-5] tag's root has an entry for fragment 7, which the snapshot
 * does not have. */
static void root5_entry_for_missing_fragment(const char *dir) {
  history(dir, false, &CREATE_FULL);
  apply_root_fault(dir, (root_fault){1, TAG, entry_for_fragment_7});
}

static void partial_size_0(lfa_root *root, const char *dir) {
  (void)dir;
  AssignmentFile *p = root_entry(root, 0)->partial;
  p->size_bytes = 0, p->has_size_bytes = false;
}

/* [FA-ROOT-6] emb's partial for fragment 0 has no size (size_bytes 0). */
static void root6_partial_without_size(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  apply_root_fault(dir, (root_fault){2, EMB, partial_size_0});
}

static void inline_partial(lfa_root *root, const char *dir) {
  lfa_root_entry *e = root_entry(root, 0);
  lfa_buf b = get_bytes(dir, e->partial->path);
  lfa_pb_free(e->partial);
  e->partial = NULL;
  e->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_INLINE_PARTIAL;
  e->inline_partial = (ProtobufCBinaryData){0, NULL};
  set_bytes(&e->inline_partial, &b);
  lfa_buf_free(&b);
}

/* [FA-ROOT-7] emb's entry for fragment 0 holds its bitmap as inline_partial
 * (field 5 of a later upstream iteration). */
static void div_inline_partial_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  apply_root_fault(dir, (root_fault){2, EMB, inline_partial});
}

static const uint8_t VARINT_FIELD_15[] = {0x01}; /* the value 1 */

static void root_unknown_field(lfa_root *root, const char *dir) {
  (void)dir;
  add_unknown_field(&root->base, 15, PROTOBUF_C_WIRE_TYPE_VARINT, VARINT_FIELD_15, 1);
}

/* [FA-ROOT-8] tag's root carries field 15 (= 1), which the format does not
 * define. */
static void root8_unknown_field_in_root(const char *dir) {
  history(dir, false, &CREATE_FULL);
  apply_root_fault(dir, (root_fault){1, TAG, root_unknown_field});
}

static void entry_unknown_field(lfa_root *root, const char *dir) {
  (void)dir;
  add_unknown_field(&root_entry(root, 0)->base, 15, PROTOBUF_C_WIRE_TYPE_VARINT, VARINT_FIELD_15, 1);
}

/* [FA-ROOT-8] tag's entry for fragment 0 carries field 15 beside its state. */
static void root8_unknown_field_in_entry(const char *dir) {
  history(dir, false, &CREATE_FULL);
  apply_root_fault(dir, (root_fault){1, TAG, entry_unknown_field});
}

static void partial_inline_bytes(lfa_root *root, const char *dir) {
  AssignmentFile *p = root_entry(root, 0)->partial;
  lfa_buf b = get_bytes(dir, p->path);
  p->has_inline_bytes = true;
  set_bytes(&p->inline_bytes, &b);
  lfa_buf_free(&b);
}

/* [FA-STORE-13] emb's partial for fragment 0 carries inline_bytes, a copy of
 * its bitmap. */
static void store13_partial_inline_bytes(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  apply_root_fault(dir, (root_fault){2, EMB, partial_inline_bytes});
}

/* ---- bitmaps (01§3) ---------------------------------------------------------- */

/* emb's partial for fragment 0 in version 2 (3 rows; the writer's holds {1})
 * replaced by crafted bitmap 1 holding `bytes`, in a new root. */
static void use_partial(const char *dir, const lfa_buf *bytes) {
  lfa_edit mf;
  char rel[160];
  open_version(&mf, dir, 2);
  Descriptor *d = descriptor(mf.file.manifest, EMB);
  lfa_root *root = read_root(dir, d->root);
  crafted_bitmap(rel, sizeof rel, EMB, 0, 1);
  put_object(dir, root_entry(root, 0)->partial, rel, bytes);
  crafted_root(rel, sizeof rel, EMB, 1);
  write_root(dir, d->root, root, rel);
  lfa_root_free(root);
  save_version(&mf);
}

static void bitmap_fault(const char *dir, const uint32_t *offsets, size_t n) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  lfa_buf b = bitmap_bytes(offsets, n);
  use_partial(dir, &b);
  lfa_buf_free(&b);
}

/* [FA-BITMAP-2] The partial holds the array 2, 0: values not ascending. */
static void bitmap2_values_descending(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  lfa_buf b = bitmap_bytes((const uint32_t[]){0, 2}, 2);
  /* the array container is the last 4 bytes: 0, 2 as u16 */
  b.data[b.len - 4] = 2, b.data[b.len - 2] = 0;
  use_partial(dir, &b);
  lfa_buf_free(&b);
}

/* [FA-BITMAP-3] The partial is an empty bitmap. */
static void bitmap3_empty_partial(const char *dir) { bitmap_fault(dir, NULL, 0); }

/* [FA-BITMAP-3] The partial holds all 3 rows (canonical: all_assigned). */
static void bitmap3_full_partial(const char *dir) { bitmap_fault(dir, (const uint32_t[]){0, 1, 2}, 3); }

/* [FA-BITMAP-4] The partial holds offsets 1 and 3; the fragment has 3 rows. */
static void bitmap4_offset_past_rows(const char *dir) { bitmap_fault(dir, (const uint32_t[]){1, 3}, 2); }

/* ---- feature flags (spec 03-flags.md) --------------------------------------------------------- */

static void clear_writer_bit(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->writer_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
}

static void set_writer_bit(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->writer_feature_flags |= LFA_FLAG_FIELD_ASSIGNMENT;
}

static void set_reader_bit(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->reader_feature_flags |= LFA_FLAG_FIELD_ASSIGNMENT;
}

/* [FA-FLAG-1] Two descriptors, writer bit 2^52 clear (the reader bit stays). */
static void flag1_writer_bit_missing(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, clear_writer_bit);
}

/* [FA-FLAG-1] No descriptor, writer bit 2^52 set. */
static void flag1_writer_bit_untracked(const char *dir) {
  history(dir, false, &CREATE_PLAIN);
  edit_version(dir, 1, set_writer_bit);
}

/* [FA-FLAG-3] No descriptor, reader bit 2^52 set. */
static void flag3_reader_bit_untracked(const char *dir) {
  history(dir, false, &CREATE_PLAIN);
  edit_version(dir, 1, set_reader_bit);
}

/* An earlier layout's marker, `writer` and `reader`, in place of bit
 * 2^52: the encoder then writes the state in that layout's fields
 * (manifest 22, transaction 5) [FA-FLAG-7]. */
static void earlier_layout(lfa_manifest_file *mf, uint64_t writer, uint64_t reader) {
  Lance__Table__Manifest *m = mf->manifest;
  m->reader_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
  m->writer_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
  if (m->n_field_assignment_states > 0) m->writer_feature_flags |= writer, m->reader_feature_flags |= reader;
}

/* The upstream draft's marker in place of bit 2^52: writer bit 256, and
 * with `both` the reader bit 256 too. */
static void draft_marker(lfa_manifest_file *mf, bool both) {
  earlier_layout(mf, LFA_FLAG_FIELD_ASSIGNMENT_DRAFT, both ? LFA_FLAG_FIELD_ASSIGNMENT_DRAFT : 0);
}

/* lfa's previous layout: bit 65536 in both words. */
static void previous_marker(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  earlier_layout(mf, LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS, LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS);
}

static void draft_marker_writer(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  draft_marker(mf, false);
}

static void draft_marker_both(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  draft_marker(mf, true);
}

/* [FA-FLAG-7] Descriptors marked by bit 256 in both words, no bit 2^52:
 * Lance 12 would open it as mixed data-file versions and drop the state. */
static void flag7_draft_bit_in_both_words(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, draft_marker_both);
}

/* [FA-FLAG-7] The upstream draft's layout: descriptors, writer bit 256. */
static void flag7_upstream_draft_layout(const char *dir) {
  history(dir, false, &CREATE_FULL);
  edit_version(dir, 1, draft_marker_writer);
}

/* [FA-FLAG-7] lfa's previous layout in every version (descriptors in
 * manifest field 22, sidecars in transaction field 5, bit 65536 in both
 * words): read as that layout, and its transitions checked. */
static void flag7_previous_layout(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &APPEND_ID_EMB);
  for (uint64_t v = 1; v <= 3; v++) edit_version(dir, v, previous_marker);
}

/* A Lance 12 manifest's own fields 22 and 1022, holding something else
 * (a varint; a message that is no descriptor list) without bit 2^52:
 * neither is field assignment state, nor an error [FA-FLAG-7]. */
static void other_fields_22_1022(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  static const uint8_t VARINT_7[] = {0x07}, TEXT[] = {0x0a, 0x03, 'a', 'b', 'c'}; /* field 1 a string */
  add_unknown_field(&mf->manifest->base, LFA_MANIFEST_FIELD_DESCRIPTORS_BEFORE, PROTOBUF_C_WIRE_TYPE_VARINT, VARINT_7, 1);
  add_unknown_field(&mf->manifest->base, LFA_MANIFEST_FIELD_DESCRIPTORS, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, TEXT,
                    sizeof TEXT);
}

static void flag7_fields_22_1022_not_state(const char *dir) {
  history(dir, false, &CREATE_PLAIN);
  edit_version(dir, 1, other_fields_22_1022);
}

static void set_writer_256(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->writer_feature_flags |= LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS;
}

/* [FA-LANCE-21] No descriptor, bit 256 in the writer word only: half of
 * Lance 12's pair, which Lance 12 calls corrupt. */
static void lance21_bit_256_in_one_word(const char *dir) {
  history(dir, false, &CREATE_PLAIN);
  edit_version(dir, 1, set_writer_256);
}

static void set_both_bits(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->reader_feature_flags |= LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS;
  mf->manifest->writer_feature_flags |= LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS;
}

/* [FA-LANCE-21] No descriptor, bit 256 in both words: what Lance 12 writes for
 * mixed data-file versions, which carries no assignment state. */
static void lance21_mixed_data_file_versions_bits(const char *dir) {
  history(dir, false, &CREATE_PLAIN);
  edit_version(dir, 1, set_both_bits);
}

/* ---- the sidecar's form (04§3) -------------------------------------------- */

static void empty_addresses(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  RowChange *rc = mf->transaction->field_assignment_transaction->row_changes[0];
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_buf_put_u64le(&b, 0, &err), &err, "treemap"); /* a treemap of no bucket */
  set_bytes(&rc->row_addresses, &b);
  lfa_buf_free(&b);
}

/* [FA-TXN-1] The invalidation of version 3 names no row: its treemap has 0
 * buckets. */
static void txn1_row_change_without_rows(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB);
  edit_version(dir, 3, empty_addresses);
}

static void false_marker(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  FragmentState *fs = fragment_state(mf->transaction, TAG);
  fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED;
  fs->none_assigned = false;
}

/* [FA-TXN-2] The merge_insert of version 3 states tag's inserted fragment as
 * none_assigned = false. */
static void txn2_false_marker(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &MERGE_PARTIAL);
  edit_version(dir, 3, false_marker);
}

static void initial_state_7(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->transaction->field_assignment_transaction->initializations[0]->initial_state =
      (Lance__Table__Transaction__FieldAssignmentTransaction__InitialState)7;
}

/* [FA-TXN-3] The initialization of id in version 2 has initial state 7. */
static void txn3_unknown_initial_state(const char *dir) {
  history(dir, false, &CREATE_FULL, &TRACK_ID);
  edit_version(dir, 2, initial_state_7);
}

static void transfer_onto_itself(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer *t =
      mf->transaction->field_assignment_transaction->transfers[0];
  t->target_field_id = t->source_field_id;
}

/* [FA-TXN-4] The cast of version 3 transfers emb onto itself. */
static void txn4_transfer_onto_itself(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CAST_EMB);
  edit_version(dir, 3, transfer_onto_itself);
}

static void truncate_sidecar(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Txn *t = mf->transaction;
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_pb_pack(&b, &t->field_assignment_transaction->base, &err), &err, "sidecar");
  lfa_pb_free(t->field_assignment_transaction);
  t->field_assignment_transaction = NULL;
  /* field 1005 with the sidecar's bytes less the last one: a length inside it
   * now runs past its end */
  add_unknown_field(&t->base, LFA_TRANSACTION_FIELD_SIDECAR, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, b.data, b.len - 1);
  lfa_buf_free(&b);
}

/* [FA-TXN-7] The sidecar of version 3 (an invalidation) does not decode: its
 * bytes end one byte early. */
static void div_invalid_sidecar_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB);
  edit_version(dir, 3, truncate_sidecar);
}

static void sidecar_to_property(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Txn *t = mf->transaction;
  Sidecar *side = sidecar_of(t);
  add_fragment_state(t, "v3-0.lance", EMB, STATE_ALL); /* what the append wrote anyway */
  char *hex = sidecar_hex(side);
  add_property(t, SIDECAR_PROPERTY_KEY, hex);
  free(hex);
  lfa_pb_free(t->field_assignment_transaction);
  t->field_assignment_transaction = NULL;
}

/* [FA-TXN-5] The append of version 3 stores its sidecar (a FragmentState
 * restating emb all assigned, which inference gives anyway) as hex under
 * the property key instead of field 5. */
static void txn5_sidecar_under_property_key(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &APPEND_ID_EMB);
  edit_version(dir, 3, sidecar_to_property);
}

static void contradicting_property(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Sidecar other = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  Txn scratch = LANCE__TABLE__TRANSACTION__INIT;
  scratch.field_assignment_transaction = clone_msg(&other);
  add_row_change(&scratch, EMB, false, (const uint64_t[]){address(1, 0)}, 1); /* not what was committed */
  char *hex = sidecar_hex(scratch.field_assignment_transaction);
  add_property(mf->transaction, SIDECAR_PROPERTY_KEY, hex);
  free(hex);
  lfa_pb_free(scratch.field_assignment_transaction);
}

/* [FA-TXN-5] The invalidation of version 3 has its sidecar in field 5, and a
 * different one (invalidating row (1, 0)) under the property key. The state
 * follows field 5: the key changes nothing, but writers must not store it. */
static void div_sidecar_property_key_ignored(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB);
  edit_version(dir, 3, contradicting_property);
}

/* ---- the sidecar against the snapshots (04§4) --------------------------------- */

static void initialize_emb(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization in =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIALIZATION__INIT;
  in.field_id = EMB;
  Sidecar *side = sidecar_of(mf->transaction);
  PUSH(side->initializations, side->n_initializations, clone_msg(&in));
}

/* [FA-TXN-8] The commit that starts tracking id (version 2) also initializes
 * emb, which is tracked already. */
static void txn8_initialize_tracked_field(const char *dir) {
  history(dir, false, &CREATE_FULL, &TRACK_ID);
  edit_version(dir, 2, initialize_emb);
}

static void transfer_kept_source(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer tr =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__TRANSFER__INIT;
  tr.source_field_id = EMB, tr.target_field_id = ID;
  Sidecar *side = sidecar_of(mf->transaction);
  PUSH(side->transfers, side->n_transfers, clone_msg(&tr));
}

/* [FA-TXN-9] The index commit of version 2 transfers emb to id, but emb
 * stays in the schema. */
static void txn9_transfer_source_stays(const char *dir) {
  history(dir, false, &CREATE_FULL, &CREATE_INDEX);
  edit_version(dir, 2, transfer_kept_source);
}

/* [FA-TXN-10] The invalidation of version 3 also invalidates id, which is
 * not tracked. */
static void txn10_row_change_untracked_field(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB);
  row_change_at(dir, 3, ID, false, address(0, 1));
}

static void invalidate_deleted_row(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  RowChange *rc = mf->transaction->field_assignment_transaction->row_changes[0];
  lfa_buf b = treemap_bytes((const uint64_t[]){address(0, 1), address(1, 0)}, 2);
  set_bytes(&rc->row_addresses, &b);
  lfa_buf_free(&b);
}

/* [FA-TXN-10] The invalidation of version 4 names row (1, 0) and also
 * (0, 1), which version 3 deleted. */
static void txn10_row_change_deleted_row(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &DELETE_2, &INVALIDATE_EMB_4);
  edit_version(dir, 4, invalidate_deleted_row);
}

/* [FA-TXN-10] Version 2 starts tracking id (unassigned) and, in the same
 * sidecar, invalidates id on row (0, 0). */
static void div_rowchange_on_initialized_field_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &TRACK_ID);
  row_change_at(dir, 2, ID, false, address(0, 0));
}

/* [FA-TXN-12] [FA-SEM-9] The update of version 2 writes emb on (0, 1) and
 * (1, 0); its sidecar also "assigns" (0, 2), which it does not write. */
static void div_rowchange_assign_without_write_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  row_change_at(dir, 2, EMB, true, address(0, 2));
}

/* [FA-SEM-5] The update of version 2 writes emb on (0, 1) and invalidates it
 * there too. */
static void div_write_and_invalidate_same_row_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  row_change_at(dir, 2, EMB, false, address(0, 1));
}

static void state_for_existing_fragment(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  add_fragment_state(mf->transaction, "v1-0.lance", EMB, STATE_NONE);
}

/* [FA-TXN-13] The append of version 3 states emb in fragment 0 (first file
 * v1-0.lance), which it did not create. */
static void div_fragment_state_only_created_fragments(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &APPEND_ID_EMB);
  edit_version(dir, 3, state_for_existing_fragment);
}

/* Fragment 3's first file becomes v3-0.lance under base 1, another
 * dataset: one path, two files (FA-LANCE-20 holds), which a path alone
 * cannot tell apart. */
static void same_first_path(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Manifest *m = mf->manifest;
  Lance__Table__BasePath base = LANCE__TABLE__BASE_PATH__INIT;
  base.id = 1, base.is_dataset_root = true, base.path = (char *)"/lfa-conformance/other-dataset";
  PUSH(m->base_paths, m->n_base_paths, clone_msg(&base));
  m->reader_feature_flags |= FLAG_BASE_PATHS, m->writer_feature_flags |= FLAG_BASE_PATHS;
  DataFragment *f = fragment(m, 3), *twin = txn_twin(mf->transaction, f);
  set_string(&f->files[0]->path, "v3-0.lance");
  f->files[0]->_base_id_case = LANCE__TABLE__DATA_FILE___BASE_ID_BASE_ID, f->files[0]->base_id = 1;
  if (twin != NULL) {
    set_string(&twin->files[0]->path, "v3-0.lance");
    twin->files[0]->_base_id_case = LANCE__TABLE__DATA_FILE___BASE_ID_BASE_ID, twin->files[0]->base_id = 1;
  }
  add_fragment_state(mf->transaction, "v3-0.lance", EMB, STATE_ALL);
}

/* [FA-TXN-13] The append of version 3 creates fragments 2 and 3, whose
 * first data files are both at path v3-0.lance (fragment 3's under another
 * base), and states emb for that path. */
static void div_fragment_state_ambiguous_path_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &APPEND_ID_EMB_TWO);
  edit_version(dir, 3, same_first_path);
}

static void drop_fragment_states(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Sidecar *side = mf->transaction->field_assignment_transaction;
  for (size_t k = 0; k < side->n_fragment_states; k++) lfa_pb_free(side->fragment_states[k]);
  side->n_fragment_states = 0;
}

/* [FA-TXN-14] [FA-UPDATE-4] The merge_insert of version 3 (a column update)
 * inserts fragment 3 but states none of its fields. */
static void div_created_fragment_requires_state(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &MERGE_PARTIAL);
  edit_version(dir, 3, drop_fragment_states);
}

/* [FA-TXN-15] The restore of version 2 (as version 4) carries a sidecar
 * invalidating emb on (1, 0); its state is version 2's all the same. */
static void div_sidecar_on_restore_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB, &RESTORE_2);
  row_change_at(dir, 4, EMB, false, address(1, 0));
}

/* [FA-TXN-16] The overwrite of version 2 carries a RowChange. */
static void txn16_overwrite_row_change(const char *dir) {
  history(dir, false, &CREATE_FULL, &OVERWRITE);
  row_change_at(dir, 2, EMB, false, address(0, 0));
}

/* ---- operations (spec 05-operations.md, 08-nested-and-ids.md) ------------------------------------- */

static void drop_all_descriptors(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Manifest *m = mf->manifest;
  for (size_t i = 0; i < m->n_field_assignment_states; i++) lfa_pb_free(m->field_assignment_states[i]);
  m->n_field_assignment_states = 0;
  m->reader_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
  m->writer_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
}

/* [FA-OP-1] [FA-FLAG-6] The index commit of version 3 has no descriptor and
 * no bit 2^52, while emb and tag stay in the schema: what an older writer
 * that drops field 22 leaves. */
static void op1_descriptors_vanished(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CREATE_INDEX);
  edit_version(dir, 3, drop_all_descriptors);
}

static void descriptor_for_id(lfa_manifest_file *mf, const char *dir) {
  Manifest *m = mf->manifest;
  Descriptor *d = clone_msg(descriptor(m, EMB));
  char rel[160];
  lfa_buf empty = {0};
  d->field_id = ID;
  crafted_root(rel, sizeof rel, ID, 1);
  put_object(dir, d->root, rel, &empty); /* the empty root: 0 bytes */
  PUSH(m->field_assignment_states, m->n_field_assignment_states, d);
  for (size_t i = m->n_field_assignment_states - 1; i > 0; i--) { /* kept sorted: id first */
    m->field_assignment_states[i] = m->field_assignment_states[i - 1];
    m->field_assignment_states[i - 1] = d;
  }
}

/* [FA-OP-1] The index commit of version 3 adds a descriptor (an empty root)
 * for id, which was not tracked and which nothing initializes. */
static void op1_descriptor_for_untracked_field(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CREATE_INDEX);
  edit_version(dir, 3, descriptor_for_id);
}

/* Points field's descriptor in `mf` at its root in version v. */
static void root_of_version(lfa_manifest_file *mf, const char *dir, int32_t field, uint64_t v) {
  lfa_edit other;
  open_version(&other, dir, v);
  Descriptor *d = descriptor(mf->manifest, field);
  lfa_pb_free(d->root);
  d->root = clone_msg(descriptor(other.file.manifest, field)->root);
  lfa_edit_close(&other);
}

static void emb_root_of_v2(lfa_manifest_file *mf, const char *dir) { root_of_version(mf, dir, EMB, 2); }

/* [FA-OP-4] Version 3 invalidates emb on (0, 1) but keeps version 2's root,
 * where the row is assigned. */
static void op4_invalidation_not_applied(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB);
  edit_version(dir, 3, emb_root_of_v2);
}

/* [FA-OP-4] [FA-APPEND-1] The append of version 3 stores emb in fragment 2,
 * but emb's root is version 2's: fragment 2 unassigned. */
static void op4_append_stored_field_unassigned(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &APPEND_ID_EMB);
  edit_version(dir, 3, emb_root_of_v2);
}

static void unknown_operation(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Txn *t = mf->transaction;
  need_true(t->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_CREATE_INDEX, "not an index commit");
  lfa_pb_free(t->create_index);
  t->create_index = NULL;
  t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION__NOT_SET;
  /* field 150 of the operation oneof: an operation this format does not know */
  add_unknown_field(&t->base, 150, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, NULL, 0);
}

/* [FA-OP-6] Version 3's transaction has an operation this format does not
 * know (oneof field 150), on a dataset with tracked fields. */
static void op6_unknown_operation(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CREATE_INDEX);
  edit_version(dir, 3, unknown_operation);
}

static void widen_tag(lfa_root *root, const char *dir) {
  (void)dir;
  lfa_root_entry e = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__INIT;
  e.fragment_id = 2, e.physical_rows = 2;
  e.state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED, e.all_assigned = true;
  PUSH(root->fragments, root->n_fragments, clone_msg(&e));
}

static void widening_state(lfa_manifest_file *mf, const char *dir) {
  add_fragment_state(mf->transaction, "v3-0.lance", TAG, STATE_ALL);
  edit_root(dir, mf->manifest, TAG, 1, widen_tag); /* the root follows the sidecar */
}

/* [FA-SEM-8] [FA-APPEND-2] The append of version 3 stores id and emb, not
 * tag, yet its FragmentState (and tag's root) make tag all assigned there. */
static void div_append_fragment_state_cannot_widen(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &APPEND_ID_EMB);
  edit_version(dir, 3, widening_state);
}

static void drop_offsets(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Lance__Table__Transaction__Update *u = mf->transaction->update;
  for (size_t k = 0; k < u->n_updated_fragment_offset_bitmaps; k++) lfa_pb_free(u->updated_fragment_offset_bitmaps[k]);
  u->n_updated_fragment_offset_bitmaps = 0;
}

/* [FA-UPDATE-2] The column update of version 2 gives no matched offsets. */
static void div_rewrite_columns_without_offsets_rejected(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  edit_version(dir, 2, drop_offsets);
}

static void no_fields_modified(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->transaction->update->n_fields_modified = 0;
}

/* [FA-UPDATE-3] The column update of version 2 adds files listing emb to
 * fragments 0 and 1, but its fields_modified is empty. */
static void update3_fields_modified_empty(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  edit_version(dir, 2, no_fields_modified);
}

enum { FLAG_DELETION_FILES = 1 };

static void keep_deleted_row(lfa_manifest_file *mf, const char *dir) {
  Manifest *m = mf->manifest;
  need_true(m->n_fragments == 1, "the compaction made more than one fragment");
  DataFragment *f = m->fragments[0], *twin = txn_twin(mf->transaction, f);
  Lance__Table__DeletionFile d = LANCE__TABLE__DELETION_FILE__INIT;
  d.file_type = LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__ARROW_ARRAY;
  d.read_version = 2, d.id = 71, d.num_deleted_rows = 1;
  char rel[LFA_PATH_BYTES_MAX];
  snprintf(rel, sizeof rel, "_deletions/%" PRIu64 "-2-71.arrow", f->id);
  roaring_bitmap_t *set = need_mem(roaring_bitmap_of(1, 1));
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_deletion_encode(&b, LFA_DELETION_ARROW, set, &err), &err, rel);
  put_bytes(dir, rel, b.data, b.len);
  DataFragment *both[] = {f, twin};
  for (size_t i = 0; i < 2; i++) {
    if (both[i] == NULL) continue;
    both[i]->physical_rows = 6; /* every old row, the deleted (0, 1) kept as row 1 */
    both[i]->deletion_file = clone_msg(&d);
  }
  m->reader_feature_flags |= FLAG_DELETION_FILES, m->writer_feature_flags |= FLAG_DELETION_FILES;
  lfa_buf_free(&b);
  roaring_bitmap_free(set);
}

/* [FA-REMAP-2] Address mode: version 2 deletes (0, 1); the compaction of
 * version 3 copies all 6 physical rows of fragments 0 and 1 into its new
 * fragment and deletes row 1 there again, instead of writing the 5 live
 * rows. (emb is unassigned everywhere: its root stays 0 bytes.) */
static void div_compaction_binary_copy_with_deletions_rejected(const char *dir) {
  history(dir, false, &CREATE_BARE, &DELETE_2, &COMPACT);
  edit_version(dir, 3, keep_deleted_row);
}

/* emb's partial after the compaction of version 3, in the root and in the
 * FragmentState alike: offsets {1, 4}. The rows mapped there from fragments
 * 0 ({1}) and 1 ({0}) are 1 and 3. */
static void misplace_state(lfa_manifest_file *mf, const char *dir) {
  Manifest *m = mf->manifest;
  need_true(m->n_fragments == 1, "the compaction made more than one fragment");
  lfa_buf b = bitmap_bytes((const uint32_t[]){1, 4}, 2);
  FragmentState *fs = fragment_state(mf->transaction, EMB);
  need_true(fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL,
            "the compaction did not state emb as a partial");
  set_bytes(&fs->partial, &b);
  Descriptor *d = descriptor(m, EMB);
  lfa_root *root = read_root(dir, d->root);
  char rel[160];
  crafted_bitmap(rel, sizeof rel, EMB, m->fragments[0]->id, 1);
  put_object(dir, root_entry(root, m->fragments[0]->id)->partial, rel, &b);
  crafted_root(rel, sizeof rel, EMB, 1);
  write_root(dir, d->root, root, rel);
  lfa_root_free(root);
  lfa_buf_free(&b);
}

/* [FA-REWRITE-1] [FA-REMAP-1] The compaction of version 3 states emb on
 * offsets {1, 4} of its new fragment (root and FragmentState agree), where
 * the mapping of the old rows gives {1, 3}. */
static void rewrite1_compaction_misplaces_state(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &COMPACT);
  edit_version(dir, 3, misplace_state);
}

static void new_row_id(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  Manifest *m = mf->manifest;
  need_true(m->n_fragments == 1, "the compaction made more than one fragment");
  DataFragment *f = m->fragments[0], *twin = txn_twin(mf->transaction, f);
  lfa_buf b = {0};
  lfa_error err = {0};
  need(lfa_row_ids_encode(&b, (const uint64_t[]){1000, 1, 2, 3, 4, 5}, 6, &err), &err, "row ids");
  DataFragment *both[] = {f, twin};
  for (size_t i = 0; i < 2; i++)
    if (both[i] != NULL) set_bytes(&both[i]->inline_row_ids, &b);
  m->next_row_id = 1001;
  lfa_buf_free(&b);
}

/* [FA-REMAP-3] Stable row ids: the compaction of version 2 gives the first
 * row of its new fragment row id 1000 instead of 0: row 0 is lost and row
 * 1000 comes from nowhere. */
static void remap3_compaction_changes_row_id(const char *dir) {
  history(dir, true, &CREATE_BARE, &COMPACT);
  edit_version(dir, 2, new_row_id);
}

static void emb_root_of_v3(lfa_manifest_file *mf, const char *dir) { root_of_version(mf, dir, EMB, 3); }

/* [FA-RESTORE-1] The restore of version 2 (as version 4) keeps emb's root of
 * version 3 (row (0, 1) invalidated) instead of version 2's. */
static void restore1_state_differs(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB, &RESTORE_2);
  edit_version(dir, 4, emb_root_of_v3);
}

/* Sets the logical type (and name) of schema field `id` in the manifest and
 * in the Project's schema. */
static void retype(lfa_manifest_file *mf, int32_t id, const char *name, const char *type) {
  Lance__File__Field *fields[] = {schema_field(mf->manifest, id), NULL};
  const Lance__Table__Transaction__Project *p = mf->transaction->project;
  need_true(mf->transaction->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_PROJECT, "not a Project");
  for (size_t i = 0; i < p->n_schema; i++)
    if (p->schema[i]->id == id) fields[1] = p->schema[i];
  for (size_t i = 0; i < 2; i++) {
    if (fields[i] == NULL) continue;
    if (name != NULL) set_string(&fields[i]->name, name);
    set_string(&fields[i]->logical_type, type);
  }
}

static void emb_retyped(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  retype(mf, EMB, NULL, "fixed_size_list:float:8");
}

/* [FA-ID-1] The rename of version 3 also changes the type of emb (tracked,
 * id 1) from fixed_size_list:float:4 to fixed_size_list:float:8: the id
 * now names another field, and its tracking went with it. */
static void id1_tracked_field_type_changed(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &RENAME_EMB);
  edit_version(dir, 3, emb_retyped);
}

static void id_replaced(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  retype(mf, ID, "key", "string");
}

/* [FA-ID-3] The Project of version 3 replaces id (int64, id 0) by a field
 * key (string) under the same id 0. */
static void id3_field_replaced_under_same_id(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &RENAME_EMB);
  edit_version(dir, 3, id_replaced);
}

static void repair_without_transfer(lfa_manifest_file *mf, const char *dir) {
  Manifest *m = mf->manifest;
  Txn *t = mf->transaction;
  need_true(t->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_MERGE, "not a Merge");
  const Sidecar *side = t->field_assignment_transaction;
  need_true(side != NULL && side->n_transfers == 1 && side->n_transfers + side->n_fragment_states +
                                                           side->n_row_changes + side->n_initializations == 1,
            "the cast's sidecar is not one Transfer");
  int32_t moved = side->transfers[0]->target_field_id;
  set_string(&schema_field(m, moved)->logical_type, "fixed_size_list:float:4"); /* emb's own type */
  for (size_t i = 0; i < t->merge->n_schema; i++)
    if (t->merge->schema[i]->id == moved) set_string(&t->merge->schema[i]->logical_type, "fixed_size_list:float:4");
  lfa_pb_free(t->field_assignment_transaction);
  t->field_assignment_transaction = NULL;
  remove_root_objects(dir, m, moved); /* the field starts untracked, as FA-OP-1 then says */
  size_t k = 0;
  for (size_t i = 0; i < m->n_field_assignment_states; i++)
    if (m->field_assignment_states[i]->field_id == moved) lfa_pb_free(m->field_assignment_states[i]);
    else m->field_assignment_states[k++] = m->field_assignment_states[i];
  m->n_field_assignment_states = k;
}

/* [FA-ID-4] Version 3 moves emb (tracked) from id 1 to a new id with the
 * same name and type, as Lance's repair of duplicate ids does, without a
 * Transfer: emb's tracking is silently gone. (Made from a cast whose type
 * and Transfer are undone; FA-OP-1 holds: id 1 left the schema.) */
static void id4_id_change_without_transfer(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CAST_EMB);
  edit_version(dir, 3, repair_without_transfer);
}

/* ============================================================================================
 * The edge datasets: valid, and a verifier reports the named warning.
 * ========================================================================================== */

static void reuse_source_root(lfa_manifest_file *mf, const char *dir) {
  Manifest *m = mf->manifest;
  const Sidecar *side = mf->transaction->field_assignment_transaction;
  need_true(side != NULL && side->n_transfers == 1, "the cast has no transfer");
  int32_t target = side->transfers[0]->target_field_id, source = side->transfers[0]->source_field_id;
  lfa_edit parent;
  open_version(&parent, dir, 2);
  remove_root_objects(dir, m, target);
  Descriptor *d = descriptor(m, target);
  lfa_pb_free(d->root);
  d->root = clone_msg(descriptor(parent.file.manifest, source)->root); /* roots/1/..., as upstream reuses it */
  lfa_edit_close(&parent);
}

/* [FA-STORE-7] [FA-CAST-3] [FA-VERIFY-4] The cast of version 3 moves emb
 * (id 1) to a new id; the target's descriptor reuses emb's root of version
 * 2 under roots/1/ (and its bitmaps under bitmaps/1/), as upstream's first
 * iteration does. The state is the source's: valid, off the layout. */
static void div_transfer_root_under_source_id_accepted(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CAST_EMB);
  edit_version(dir, 3, reuse_source_root);
}

/* [FA-FLAG-2] [FA-VERIFY-4] Both versions have descriptors and writer bit
 * 256, and no reader bit 256 (a first-iteration dataset). */
static void clear_reader_bit(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  mf->manifest->reader_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
}

static void div_reader_bit_missing_warns(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  edit_version(dir, 1, clear_reader_bit);
  edit_version(dir, 2, clear_reader_bit);
}

static void copy_emb_root(lfa_manifest_file *mf, const char *dir) {
  AssignmentFile *f = descriptor(mf->manifest, EMB)->root;
  lfa_buf b = get_bytes(dir, f->path);
  char rel[160];
  crafted_root(rel, sizeof rel, EMB, 1);
  put_object(dir, f, rel, &b);
  lfa_buf_free(&b);
}

/* [FA-STORE-10] [FA-VERIFY-4] The index commit of version 3 writes emb's
 * root again: same entries, same bitmaps, a new object. */
static void div_rewritten_unchanged_root_warns(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CREATE_INDEX);
  edit_version(dir, 3, copy_emb_root);
}

static void move_emb_root(lfa_manifest_file *mf, const char *dir) {
  AssignmentFile *f = descriptor(mf->manifest, EMB)->root;
  lfa_buf b = get_bytes(dir, f->path);
  remove_file(dir, f->path); /* version 2 is the only one to use it */
  put_object(dir, f, "_field_assignments/roots/1/emb-of-version-2.root", &b);
  lfa_buf_free(&b);
}

/* [FA-STORE-7] [FA-VERIFY-4] emb's root of version 2 is at
 * _field_assignments/roots/1/emb-of-version-2.root: no uuid. */
static void div_path_layout_deviation_accepted(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB);
  edit_version(dir, 2, move_emb_root);
}

/* 2^28 + 1: over LFA_ROW_IDS_MAX whether that is 2^27 (limits.h) or 2^28
 * (the table of 01§5). */
#define HUGE_ROWS (((uint64_t)1 << 28) + 1)

static void huge_fragment(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  DataFragment *f = fragment(mf->manifest, 1), *twin = txn_twin(mf->transaction, f);
  lfa_buf b = range_sequence(3, 3 + HUGE_ROWS);
  set_row_ids(mf, &b);
  f->physical_rows = HUGE_ROWS;
  if (twin != NULL) twin->physical_rows = HUGE_ROWS;
  mf->manifest->next_row_id = 3 + HUGE_ROWS;
  lfa_buf_free(&b);
}

/* [FA-LIMIT-1] [FA-LIMIT-2] [FA-VERIFY-6] Stable row ids: fragment 1 has
 * 2^28 + 1 rows, row ids Range(3 .. 3 + 2^28 + 1): valid, tiny on disk,
 * and more ids than the reference reader expands. A reader with these
 * limits reports the limit, not a violation. */
static void div_object_size_limit(const char *dir) {
  history(dir, true, &CREATE_BARE);
  edit_version(dir, 1, huge_fragment);
}

static void empty_sidecar(lfa_manifest_file *mf, const char *dir) {
  (void)dir;
  need_true(mf->transaction->field_assignment_transaction == NULL, "the index commit has a sidecar");
  (void)sidecar_of(mf->transaction);
}

/* [FA-TXN-6] The index commit of version 3 carries an empty sidecar. */
static void txn6_empty_sidecar(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &CREATE_INDEX);
  edit_version(dir, 3, empty_sidecar);
}

static void copy_bitmap(lfa_root *root, const char *dir) {
  AssignmentFile *p = root_entry(root, 0)->partial;
  lfa_buf b = get_bytes(dir, p->path);
  char rel[160];
  crafted_bitmap(rel, sizeof rel, EMB, 0, 1);
  put_object(dir, p, rel, &b);
  lfa_buf_free(&b);
}

/* [FA-STORE-11] The invalidation of version 3 changes emb in fragment 1
 * only; its new root points fragment 0 at a new bitmap object holding the
 * same set as version 2's. */
static void store11_bitmap_rewritten_same_set(const char *dir) {
  history(dir, false, &CREATE_FULL, &UPDATE_EMB, &INVALIDATE_EMB_4);
  apply_root_fault(dir, (root_fault){3, EMB, copy_bitmap});
}

/* [FA-ROOT-1] [FA-ROOT-9] emb has no assigned row: its root is a 0-byte
 * object, described with no size. Nothing to report. */
static void root9_empty_root_zero_bytes(const char *dir) { history(dir, false, &CREATE_FULL); }

/* ============================================================================================
 * The catalogue
 * ========================================================================================== */

typedef struct dataset {
  const char *name;
  const char *rule;   /* invalid: the error; edge: the warning ("-": none) */
  const char *what;   /* what is broken (or allowed), citing requirement ids */
  const char *edited; /* the object this tool re-encoded */
  void (*make)(const char *dir);
} dataset;

#define D(fn, rule, what, edited) {#fn, rule, what, edited, fn}

static const dataset INVALID[] = {
    /* the manifest */
    D(lance1_footer_magic, "FA-LANCE-1", "the manifest footer's magic is LANX, not LANC", "_versions/2.manifest (footer)"),
    D(lance5_fragments_descending, "FA-LANCE-5", "fragments listed 1, 0", "_versions/1.manifest"),
    D(lance8_max_fragment_id_below, "FA-LANCE-8", "max_fragment_id 0 while fragment 1 exists", "_versions/1.manifest"),
    D(lance9_schema_id_twice, "FA-LANCE-9", "two schema fields with id 0", "_versions/1.manifest"),
    D(lance12_physical_rows_unknown, "FA-LANCE-12", "physical_rows 0 in a manifest with descriptors",
      "_versions/1.manifest"),
    D(lance13_fragment_id_2_32, "FA-LANCE-13", "fragment id 2^32 in a manifest with descriptors",
      "_versions/1.manifest"),
    D(lance15_field_listed_twice, "FA-LANCE-15", "a data file lists field 0 twice", "_versions/1.manifest"),
    D(lance15_bad_field_value, "FA-LANCE-15", "a data file lists field -3, neither an id nor the tombstone -2",
      "_versions/1.manifest"),
    D(lance6_field_in_two_files, "FA-LANCE-6",
      "field 0 stored by two data files of fragment 0 (FA-ID-5: the version is reported)", "_versions/2.manifest"),
    D(lance18_version_mismatch, "FA-LANCE-18", "_versions/2.manifest records version 5", "_versions/2.manifest"),
    D(lance19_carried_fragment_rows, "FA-LANCE-19", "an append carries fragment 0 with 4 physical rows instead of 3",
      "_versions/2.manifest"),
    D(lance17_no_transaction, "FA-LANCE-17", "a tracked version without a transaction",
      "_versions/2.manifest, _transactions/ (removed)"),
    D(lance10_txn_file_differs, "FA-LANCE-10", "the .txn file differs from the inline transaction (uuid)",
      "_transactions/1-*.txn"),
    D(lance4_deleted_offset_past_end, "FA-LANCE-4", "a deletion file deletes offset 5 of a 3-row fragment",
      "_deletions/0-1-*.arrow"),
    D(lance4_num_deleted_rows, "FA-LANCE-4", "num_deleted_rows 2, the deletion file holds 1 offset",
      "_versions/2.manifest"),
    D(lance3_arrow_magic, "FA-LANCE-3", "an .arrow deletion file with a broken magic", "_deletions/0-1-*.arrow"),
    D(lance16_deletion_file_missing, "FA-LANCE-16", "the deletion file a fragment names is missing",
      "_deletions/0-1-*.arrow (removed)"),
    D(lance7_row_ids_short, "FA-LANCE-7", "stable row ids: a 3-row fragment with a sequence of 2 ids",
      "_versions/1.manifest"),
    D(lance14_row_ids_repeat, "FA-LANCE-14", "stable row ids: two live rows share each of row ids 0, 1, 2",
      "_versions/1.manifest"),
    D(lance11_range_reversed, "FA-LANCE-11", "stable row ids: a Range segment 6..3", "_versions/1.manifest"),
    /* descriptors */
    D(store1_duplicate_descriptor, "FA-STORE-1", "two descriptors for field 1", "_versions/1.manifest"),
    D(store2_descriptors_unsorted, "FA-STORE-2", "descriptors listed field 2, field 1", "_versions/1.manifest"),
    D(div_descriptor_unknown_field_rejected, "FA-STORE-3",
      "a Project drops field 2 and keeps its descriptor, as an older writer would (FA-OP-1, FA-FLAG-6)",
      "_versions/2.manifest"),
    D(store4_descriptor_without_root, "FA-STORE-4", "a descriptor without a root", "_versions/1.manifest"),
    D(store5_root_size, "FA-STORE-5", "a root's size_bytes is one more than its length", "_versions/2.manifest"),
    D(store5_bitmap_missing, "FA-STORE-5", "a partial bitmap a root lists is missing",
      "_field_assignments/bitmaps/1/0/* (removed)"),
    D(store6_base_id_not_listed, "FA-STORE-6", "a root names base_id 1, which base_paths lacks", "_versions/1.manifest"),
    D(store6_base_not_dataset_root, "FA-STORE-6", "a root names base 1, which is not a dataset root",
      "_versions/1.manifest"),
    D(div_path_escape_rejected, "FA-STORE-9", "a root path climbs out of the dataset with '..'",
      "_versions/1.manifest"),
    D(store9_absolute_path, "FA-STORE-9", "a root path starting with '/'", "_versions/1.manifest"),
    D(div_inline_root_bytes_not_written, "FA-STORE-13", "a descriptor carries inline_bytes (a later iteration)",
      "_versions/1.manifest"),
    D(store13_partial_inline_bytes, "FA-STORE-13", "a partial carries inline_bytes", "a new root of field 1"),
    /* roots */
    D(root1_not_protobuf, "FA-ROOT-1", "a root whose bytes are not a protobuf", "a new root of field 2"),
    D(root2_entries_descending, "FA-ROOT-2", "root entries for fragments 1, 0", "a new root of field 2"),
    D(root3_physical_rows, "FA-ROOT-3", "a root entry records 4 physical rows for a 3-row fragment",
      "a new root of field 2"),
    D(root4_all_assigned_false, "FA-ROOT-4", "a root entry with all_assigned = false", "a new root of field 2"),
    D(root4_entry_without_state, "FA-ROOT-4", "a root entry without a state (FA-ROOT-8: none it knows)",
      "a new root of field 2"),
    D(root5_entry_for_missing_fragment, "FA-ROOT-5", "a root entry for fragment 7, which the version lacks",
      "a new root of field 2"),
    D(root6_partial_without_size, "FA-ROOT-6", "a partial with size_bytes 0", "a new root of field 1"),
    D(div_inline_partial_rejected, "FA-ROOT-7", "a root entry whose state is inline_partial (a later iteration)",
      "a new root of field 1"),
    D(root8_unknown_field_in_root, "FA-ROOT-8", "a root with an undefined field 15", "a new root of field 2"),
    D(root8_unknown_field_in_entry, "FA-ROOT-8", "a root entry with an undefined field 15", "a new root of field 2"),
    /* bitmaps */
    D(bitmap2_values_descending, "FA-BITMAP-2", "a partial bitmap whose array holds 2, 0",
      "a new bitmap and root of field 1"),
    D(bitmap3_empty_partial, "FA-BITMAP-3", "an empty partial bitmap", "a new bitmap and root of field 1"),
    D(bitmap3_full_partial, "FA-BITMAP-3", "a partial bitmap holding every row", "a new bitmap and root of field 1"),
    D(bitmap4_offset_past_rows, "FA-BITMAP-4", "a partial bitmap holding offset 3 of a 3-row fragment",
      "a new bitmap and root of field 1"),
    /* feature flags */
    D(flag1_writer_bit_missing, "FA-FLAG-1", "descriptors without writer bit 2^52", "_versions/1.manifest"),
    D(flag1_writer_bit_untracked, "FA-FLAG-1", "writer bit 2^52 without descriptors", "_versions/1.manifest"),
    D(flag7_draft_bit_in_both_words, "FA-FLAG-7",
      "descriptors marked by bit 256 in both words, not bit 2^52 (Lance 12: mixed data-file versions)",
      "_versions/1.manifest"),
    D(lance21_bit_256_in_one_word, "FA-LANCE-21", "no descriptor, bit 256 in the writer word only",
      "_versions/1.manifest"),
    D(flag3_reader_bit_untracked, "FA-FLAG-3", "reader bit 2^52 without descriptors", "_versions/1.manifest"),
    /* the sidecar's form */
    D(txn1_row_change_without_rows, "FA-TXN-1", "a RowChange whose treemap has no bucket", "_versions/3.manifest, .txn"),
    D(txn2_false_marker, "FA-TXN-2", "a FragmentState none_assigned = false", "_versions/3.manifest, .txn"),
    D(txn3_unknown_initial_state, "FA-TXN-3", "an Initialization with initial state 7", "_versions/2.manifest, .txn"),
    D(txn4_transfer_onto_itself, "FA-TXN-4", "a Transfer from field 1 to field 1", "_versions/3.manifest, .txn"),
    D(div_invalid_sidecar_rejected, "FA-TXN-7", "a sidecar whose bytes end one byte early: it does not decode",
      "_versions/3.manifest, .txn"),
    D(txn5_sidecar_under_property_key, "FA-TXN-5",
      "the sidecar stored as hex under the transaction_properties key, not in field 5", "_versions/3.manifest, .txn"),
    D(div_sidecar_property_key_ignored, "FA-TXN-5",
      "a contradicting sidecar under the property key; the state follows field 5, so the key changes nothing, "
      "but writers must not store it",
      "_versions/3.manifest, .txn"),
    /* the sidecar against the snapshots */
    D(txn8_initialize_tracked_field, "FA-TXN-8", "an Initialization of field 1, tracked already",
      "_versions/2.manifest, .txn"),
    D(txn9_transfer_source_stays, "FA-TXN-9", "a Transfer whose source stays in the schema",
      "_versions/2.manifest, .txn"),
    D(txn10_row_change_untracked_field, "FA-TXN-10", "a RowChange of field 0, not tracked", "_versions/3.manifest, .txn"),
    D(txn10_row_change_deleted_row, "FA-TXN-10", "a RowChange naming row (0, 1), deleted before",
      "_versions/4.manifest, .txn"),
    D(div_rowchange_on_initialized_field_rejected, "FA-TXN-10", "a RowChange of a field the same commit initializes",
      "_versions/2.manifest, .txn"),
    D(div_rowchange_assign_without_write_rejected, "FA-TXN-12",
      "RowChange(true) on a row the update does not write (FA-SEM-9: only a write assigns)",
      "_versions/2.manifest, .txn"),
    D(div_write_and_invalidate_same_row_rejected, "FA-SEM-5", "one commit writes and invalidates field 1 on (0, 1)",
      "_versions/2.manifest, .txn"),
    D(div_fragment_state_only_created_fragments, "FA-TXN-13", "an append's FragmentState names an existing fragment",
      "_versions/3.manifest, .txn"),
    D(div_fragment_state_ambiguous_path_rejected, "FA-TXN-13",
      "a FragmentState path that is the first data file path of two created fragments, on two bases",
      "_versions/3.manifest, .txn"),
    D(div_created_fragment_requires_state, "FA-TXN-14",
      "a column update inserting a fragment without FragmentStates (FA-UPDATE-4)", "_versions/3.manifest, .txn"),
    D(div_sidecar_on_restore_rejected, "FA-TXN-15", "a Restore carrying a sidecar", "_versions/4.manifest, .txn"),
    D(txn16_overwrite_row_change, "FA-TXN-16", "an Overwrite carrying a RowChange", "_versions/2.manifest, .txn"),
    /* operations */
    D(op1_descriptors_vanished, "FA-OP-1",
      "descriptors and bit 256 gone while their fields stay (FA-FLAG-6: an older writer)", "_versions/3.manifest"),
    D(op1_descriptor_for_untracked_field, "FA-OP-1", "a descriptor appears for field 0, which nothing initializes",
      "_versions/3.manifest"),
    D(op4_invalidation_not_applied, "FA-OP-4", "an invalidation the new root does not apply", "_versions/3.manifest"),
    D(op4_append_stored_field_unassigned, "FA-OP-4",
      "an appended fragment stores field 1 but is unassigned (FA-APPEND-1)", "_versions/3.manifest"),
    D(op6_unknown_operation, "FA-OP-6", "an unknown operation on a tracked dataset", "_versions/3.manifest, .txn"),
    D(div_append_fragment_state_cannot_widen, "FA-SEM-8",
      "an append's FragmentState assigns field 2, which the fragment does not store (FA-APPEND-2: narrow only)",
      "_versions/3.manifest, .txn, a new root of field 2"),
    D(div_rewrite_columns_without_offsets_rejected, "FA-UPDATE-2", "a column update of a tracked field without offsets",
      "_versions/2.manifest, .txn"),
    D(update3_fields_modified_empty, "FA-UPDATE-3", "a column update adds files listing field 1; fields_modified is empty",
      "_versions/2.manifest, .txn"),
    D(div_compaction_binary_copy_with_deletions_rejected, "FA-REMAP-2",
      "address mode: a compaction keeps a deleted row in its new fragment", "_versions/3.manifest, .txn, _deletions/"),
    D(rewrite1_compaction_misplaces_state, "FA-REWRITE-1",
      "a compaction states field 1 on the wrong rows of its new fragment (FA-REMAP-1)",
      "_versions/3.manifest, .txn, a new root and bitmap of field 1"),
    D(remap3_compaction_changes_row_id, "FA-REMAP-3", "stable row ids: a compaction changes a row id",
      "_versions/2.manifest, .txn"),
    D(restore1_state_differs, "FA-RESTORE-1", "a Restore whose state is not the restored version's",
      "_versions/4.manifest"),
    D(id1_tracked_field_type_changed, "FA-ID-1", "a tracked field id changes type", "_versions/3.manifest, .txn"),
    D(id3_field_replaced_under_same_id, "FA-ID-3", "field 0 replaced by another field (name, type) under id 0",
      "_versions/3.manifest, .txn"),
    D(id4_id_change_without_transfer, "FA-ID-4",
      "tracked field emb moves to a new id (same name and type) without a Transfer", "_versions/3.manifest, .txn"),
};

static const dataset EDGE[] = {
    D(div_transfer_root_under_source_id_accepted, "FA-STORE-7",
      "a cast target reuses the source's root under roots/<old id>/ (FA-CAST-3, FA-VERIFY-4)", "_versions/3.manifest"),
    D(div_reader_bit_missing_warns, "FA-FLAG-2", "descriptors without reader bit 256 (FA-VERIFY-4)",
      "_versions/1.manifest, _versions/2.manifest"),
    D(div_rewritten_unchanged_root_warns, "FA-STORE-10",
      "an index commit writes a new root with unchanged entries (FA-VERIFY-4)", "_versions/3.manifest, a new root"),
    D(div_path_layout_deviation_accepted, "FA-STORE-7", "a root off the layout: roots/1/emb-of-version-2.root",
      "_versions/2.manifest, the root moved"),
    D(div_object_size_limit, "FA-LIMIT-2",
      "a valid fragment of 2^28 + 1 rows whose row ids exceed the reference limit (FA-LIMIT-1, FA-VERIFY-6)",
      "_versions/1.manifest"),
    D(txn6_empty_sidecar, "FA-TXN-6", "an empty sidecar attached to an index commit", "_versions/3.manifest, .txn"),
    D(store11_bitmap_rewritten_same_set, "FA-STORE-11", "a new bitmap object with the set of the one it replaces",
      "a new root and bitmap of field 1"),
    D(root9_empty_root_zero_bytes, "-", "a 0-byte root is the empty root (FA-ROOT-1, FA-ROOT-9)", "nothing"),
    D(flag7_upstream_draft_layout, "FA-FLAG-7", "the upstream draft's layout: descriptors and writer bit 256",
      "_versions/1.manifest"),
    D(flag7_previous_layout, "FA-FLAG-7",
      "lfa's previous layout: descriptors in manifest field 22, sidecars in transaction field 5, bit 65536",
      "_versions/1.manifest to 3.manifest, their .txn files"),
    D(flag7_fields_22_1022_not_state, "FA-FLAG-7",
      "manifest field 22 a varint and field 1022 a message of another writer, no bit 2^52: neither is state",
      "_versions/1.manifest"),
    D(lance21_mixed_data_file_versions_bits, "FA-LANCE-21",
      "bit 256 in both words and no descriptor: Lance 12's mixed data-file versions (FA-LANCE-21)",
      "_versions/1.manifest"),
};

/* ---- main ------------------------------------------------------------------------------------------ */

/* mkdir -p: OUT_DIR and its missing parents. */
static void make_dir(const char *dir) {
  char path[LFA_PATH_BYTES_MAX];
  need_true(strlen(dir) < sizeof path, "path too long");
  strcpy(path, dir);
  for (char *p = path + 1; *p != '\0'; p++) {
    if (*p != '/') continue;
    *p = '\0';
    need_true(mkdir(path, 0777) == 0 || errno == EEXIST, "cannot create the output directory");
    *p = '/';
  }
  need_true(mkdir(path, 0777) == 0 || errno == EEXIST, "cannot create the output directory");
}

static void write_expected(const char *out_dir, const dataset *set, size_t n, const char *only) {
  char path[LFA_PATH_BYTES_MAX];
  join(path, sizeof path, out_dir, "EXPECTED.tsv");
  FILE *f = fopen(path, "w");
  need_true(f != NULL, "cannot write EXPECTED.tsv");
  fprintf(f, "name\trule\twhat\n");
  for (size_t i = 0; i < n; i++)
    if (only == NULL || strcmp(only, set[i].name) == 0) fprintf(f, "%s\t%s\t%s\n", set[i].name, set[i].rule, set[i].what);
  need_true(fclose(f) == 0, "cannot write EXPECTED.tsv");
}

static void print_markdown(const dataset *set, size_t n, bool edge) {
  printf("| name | %s | %s | edited |\n|---|---|---|---|\n", edge ? "warning" : "error",
         edge ? "what is allowed" : "what is broken");
  for (size_t i = 0; i < n; i++)
    printf("| `%s` | %s | %s | %s |\n", set[i].name, set[i].rule, set[i].what, set[i].edited);
}

static int usage(void) {
  fprintf(stderr, "usage: make_invalid [--edge] [--only NAME] OUT_DIR\n"
                  "       make_invalid [--edge] --markdown\n");
  return 2;
}

int main(int argc, char **argv) {
  bool edge = false, markdown = false;
  const char *only = NULL, *out_dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--edge") == 0) edge = true;
    else if (strcmp(argv[i], "--markdown") == 0) markdown = true;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (argv[i][0] != '-' && out_dir == NULL) out_dir = argv[i];
    else return usage();
  }
  const dataset *set = edge ? EDGE : INVALID;
  size_t n = edge ? sizeof EDGE / sizeof EDGE[0] : sizeof INVALID / sizeof INVALID[0];
  if (markdown) {
    print_markdown(set, n, edge);
    return 0;
  }
  if (out_dir == NULL) return usage();
  make_dir(out_dir);
  size_t made = 0;
  for (size_t i = 0; i < n; i++) {
    if (only != NULL && strcmp(only, set[i].name) != 0) continue;
    char dir[LFA_PATH_BYTES_MAX];
    join(dir, sizeof dir, out_dir, set[i].name);
    set[i].make(dir);
    made++;
  }
  if (made == 0) {
    fprintf(stderr, "make_invalid: no dataset named '%s'\n", only);
    return 2;
  }
  write_expected(out_dir, set, n, only);
  return 0;
}
