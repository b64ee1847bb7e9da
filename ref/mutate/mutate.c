/* mutate.c: the frame every mutation shares (lfa/mutate.h): resolving
 * fields and rows of R, and building the transaction in the change's arena.
 * The operations themselves are in mutate_*.c, one topic per file. */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/hash.h"
#include "lfa/limits.h"
#include "lfa/rowids.h"
#include "mutate_internal.h"

/* ---- fields ------------------------------------------------------------------ */

const lfa_field *mut_field(const lfa_table *t, const char *path) {
  int32_t parent = -1;
  const lfa_field *found = NULL;
  for (const char *p = path;;) {
    size_t n = strcspn(p, ".");
    found = NULL;
    for (size_t i = 0; i < t->n_fields && found == NULL; i++)
      if (t->fields[i].parent_id == parent && strlen(t->fields[i].name) == n && strncmp(t->fields[i].name, p, n) == 0)
        found = &t->fields[i];
    if (found == NULL || p[n] == '\0') return found;
    parent = found->id;
    p += n + 1;
  }
}

lfa_status mut_fields(int32_t *ids, const mut *m, const lfa_names_list *names, const char *rule) {
  for (size_t i = 0; i < names->count; i++) {
    const lfa_field *f = mut_field(m->r, names->names[i]);
    if (f == NULL) return lfa_fail(m->err, LFA_ERR_USAGE, rule, "unknown field '%s'", names->names[i]);
    ids[i] = f->id;
  }
  return LFA_OK;
}

bool mut_in_subtree(const lfa_table *t, int32_t id, int32_t ancestor) {
  for (int hops = 0; hops <= (int)t->n_fields && id >= 0; hops++) { /* bounded: no cycles */
    if (id == ancestor) return true;
    const lfa_field *f = lfa_table_field(t, id);
    id = f ? f->parent_id : -1;
  }
  return false;
}

/* Lance's Manifest::max_field_id: schema ids and ids data files list. */
static int32_t max_field_id(const lfa_table *t) {
  int32_t max = -1;
  for (size_t i = 0; i < t->n_fields; i++) max = t->fields[i].id > max ? t->fields[i].id : max;
  for (size_t i = 0; i < t->n_fragments; i++)
    for (size_t k = 0; k < t->fragments[i].n_files; k++)
      for (size_t j = 0; j < t->fragments[i].files[k].n_fields; j++)
        if (t->fragments[i].files[k].fields[j] > max) max = t->fragments[i].files[k].fields[j];
  return max;
}

static lfa_status add_new_field(lfa_table *out, mut *m, const lfa_new_field *nf, int32_t id) {
  const char *dot = strrchr(nf->path, '.');
  int32_t parent = -1;
  if (dot != NULL) {
    char *parent_path = strndup(nf->path, (size_t)(dot - nf->path));
    const lfa_field *p = parent_path ? mut_field(out, parent_path) : NULL;
    free(parent_path);
    if (p == NULL) return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "field '%s' has no parent in the schema", nf->path);
    parent = p->id;
  }
  if (mut_field(out, nf->path) != NULL) return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "field '%s' exists already", nf->path);
  lfa_field *f = &out->fields[out->n_fields];
  f->id = id, f->parent_id = parent, f->nullable = nf->nullable;
  f->name = strdup(dot ? dot + 1 : nf->path);
  f->logical_type = strdup(nf->type ? nf->type : "int64");
  if (f->name == NULL || f->logical_type == NULL) return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  out->n_fields++;
  return LFA_OK;
}

lfa_status mut_schema_with(lfa_table *out, mut *m, const lfa_table *base, const lfa_new_field *new_fields, size_t n) {
  memset(out, 0, sizeof *out);
  size_t have = base ? base->n_fields : 0;
  out->fields = calloc(have + n + 1, sizeof *out->fields);
  if (out->fields == NULL) return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < have; i++, out->n_fields++) {
    out->fields[i] = base->fields[i];
    out->fields[i].name = strdup(base->fields[i].name);
    out->fields[i].logical_type = strdup(base->fields[i].logical_type);
    if (out->fields[i].name == NULL || out->fields[i].logical_type == NULL)
      return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  int32_t next = (base ? max_field_id(base) : -1) + 1;
  for (size_t i = 0; i < n; i++) {
    lfa_status st = add_new_field(out, m, &new_fields[i], next++);
    if (st != LFA_OK) return st;
  }
  return LFA_OK;
}

/* ---- rows ---------------------------------------------------------------------- */

/* The keys of one request, each with the first live row of R it names.
 * Found in one pass over R through the one hash table (lfa/hash.h), so a
 * request of n keys on a table of m rows costs n + m, not n * m. */
typedef struct key_slot {
  uint64_t key;
  bool repeated; /* an earlier key of the request is the same */
  bool found;
  row_ref at;
} key_slot;

typedef struct key_index {
  key_slot *slots; /* one per key, in request order */
  lfa_hash by_key; /* the first slot of each distinct key */
} key_index;

static bool same_key(const void *item, const void *key) { return ((const key_slot *)item)->key == *(const uint64_t *)key; }

static uint64_t key_hash(uint64_t key) { return lfa_hash_u64(LFA_HASH_START, key); }

static void key_index_free(key_index *x) {
  free(x->slots);
  lfa_hash_free(&x->by_key);
  memset(x, 0, sizeof *x);
}

static lfa_status index_keys(key_index *out, const mut *m, const lfa_keys *keys) {
  memset(out, 0, sizeof *out);
  out->slots = calloc(keys->count ? keys->count : 1, sizeof *out->slots);
  lfa_status st = out->slots ? LFA_OK : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory indexing keys");
  for (size_t k = 0; st == LFA_OK && k < keys->count; k++) {
    key_slot *s = &out->slots[k];
    s->key = keys->keys[k];
    s->repeated = lfa_hash_find(&out->by_key, key_hash(s->key), same_key, &s->key) != NULL;
    if (!s->repeated) st = lfa_hash_add(&out->by_key, key_hash(s->key), s, LFA_HASH_ITEMS_MAX, m->err);
  }
  const lfa_table *t = m->r;
  for (size_t i = 0; st == LFA_OK && i < t->n_fragments; i++) { /* the first live row of each key */
    const lfa_fragment *f = &t->fragments[i];
    for (uint64_t o = 0; f->keys != NULL && o < f->physical_rows; o++) {
      key_slot *s = lfa_hash_find(&out->by_key, key_hash(f->keys[o]), same_key, &f->keys[o]);
      if (s != NULL && !s->found && lfa_fragment_is_live(f, (uint32_t)o)) s->found = true, s->at = (row_ref){i, (uint32_t)o};
    }
  }
  if (st != LFA_OK) {
    lfa_error_prefix(m->err, "indexing the %zu keys of the request", keys->count);
    key_index_free(out);
  }
  return st;
}

/* The slot whose key stands first in the request (a repeated key's). */
static const key_slot *first_of(const key_index *x, uint64_t key) {
  return lfa_hash_find(&x->by_key, key_hash(key), same_key, &key);
}

lfa_status mut_rows(row_ref *out, const mut *m, const lfa_keys *keys) {
  key_index x;
  lfa_status st = index_keys(&x, m, keys);
  for (size_t k = 0; st == LFA_OK && k < keys->count; k++) {
    const key_slot *first = first_of(&x, keys->keys[k]);
    if (!first->found)
      st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "key %" PRIu64 " names no live row", keys->keys[k]);
    else if (x.slots[k].repeated)
      st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "key %" PRIu64 " is named twice", keys->keys[k]);
    else out[k] = first->at;
  }
  key_index_free(&x);
  return st;
}

lfa_status mut_new_keys(const mut *m, const lfa_keys *keys) {
  key_index x;
  lfa_status st = index_keys(&x, m, keys);
  for (size_t k = 0; st == LFA_OK && k < keys->count; k++) {
    if (first_of(&x, keys->keys[k])->found)
      st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "key %" PRIu64 " already names a live row", keys->keys[k]);
    else if (x.slots[k].repeated)
      st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "key %" PRIu64 " is inserted twice", keys->keys[k]);
  }
  key_index_free(&x);
  return st;
}

/* ---- building the transaction --------------------------------------------------------- */

/* A zeroed, initialized message of `desc` in the change's arena. */
static void *new_msg(mut *m, const ProtobufCMessageDescriptor *desc) {
  void *msg = lfa_arena_alloc(&m->change->arena, desc->sizeof_message);
  if (msg != NULL) protobuf_c_message_init(desc, msg);
  return msg;
}

/* Appends to a repeated message field: a new array one longer (the old one
 * stays in the arena until the change is freed; lists here are short). */
static void push(mut *m, void *list_field, size_t *count, void *item) {
  void ***list = list_field;
  void **grown = lfa_arena_array(&m->change->arena, *count + 1, sizeof *grown);
  if (grown == NULL || item == NULL) return; /* the arena records the failure */
  if (*count) memcpy(grown, *list, *count * sizeof *grown);
  grown[(*count)++] = item;
  *list = grown;
}

Txn *mut_txn(mut *m) {
  if (m->change->txn == NULL) {
    m->change->txn = new_msg(m, &lance__table__transaction__descriptor);
    if (m->change->txn) m->change->txn->read_version = m->r ? m->r->version : 0;
  }
  return m->change->txn;
}

Sidecar *mut_sidecar(mut *m) {
  Txn *t = mut_txn(m);
  if (t != NULL && t->field_assignment_transaction == NULL)
    t->field_assignment_transaction = new_msg(m, &lance__table__transaction__field_assignment_transaction__descriptor);
  return t ? t->field_assignment_transaction : NULL;
}

/* [FA-LANCE-20] N is committed once per history and k once per change, so
 * no other data file of the history has this path. */
const char *mut_file_name(mut *m) {
  char name[64];
  snprintf(name, sizeof name, "v%" PRIu64 "-%u.lance", m->version, m->files++);
  return lfa_arena_strdup(&m->change->arena, name);
}

Lance__Table__DataFile *mut_file_pb(mut *m, const char *path, const int32_t *fields, size_t n) {
  Lance__Table__DataFile *f = new_msg(m, &lance__table__data_file__descriptor);
  if (f == NULL) return NULL;
  f->path = lfa_arena_strdup(&m->change->arena, path);
  f->fields = lfa_arena_memdup(&m->change->arena, fields, n * sizeof *fields);
  f->n_fields = n;
  f->file_major_version = 2;
  return f;
}

void mut_set_row_ids(mut *m, DataFragment *pb, const uint64_t *ids, uint64_t n) {
  lfa_buf b = {0};
  if (lfa_row_ids_encode(&b, ids, n, m->err) != LFA_OK) {
    m->change->arena.failed = true;
    return;
  }
  pb->row_id_sequence_case = LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS;
  pb->inline_row_ids = (ProtobufCBinaryData){b.len, lfa_arena_memdup(&m->change->arena, b.data, b.len)};
  lfa_buf_free(&b);
}

/* Points pb at deletion file `df` holding `deleted`, and records the set. */
static lfa_status deletion_pb(mut *m, DataFragment *pb, const roaring_bitmap_t *deleted, const lfa_deletion_file *df) {
  Lance__Table__DeletionFile *d = new_msg(m, &lance__table__deletion_file__descriptor);
  lfa_change *c = m->change;
  lfa_deletion_set *grown = lfa_arena_array(&c->arena, c->n_deletions + 1, sizeof *grown);
  roaring_bitmap_t *copy = roaring_bitmap_copy(deleted);
  if (d == NULL || grown == NULL || copy == NULL) {
    lfa_bitmap_free(copy);
    return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  d->file_type = df->bitmap ? LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP
                            : LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__ARROW_ARRAY;
  d->read_version = df->read_version;
  d->id = df->id;
  d->num_deleted_rows = roaring_bitmap_get_cardinality(deleted);
  pb->deletion_file = d;
  if (c->n_deletions) memcpy(grown, c->deletions, c->n_deletions * sizeof *grown);
  grown[c->n_deletions++] = (lfa_deletion_set){pb->id, df->id, copy};
  c->deletions = grown;
  return LFA_OK;
}

DataFragment *mut_fragment_pb(mut *m, const lfa_fragment *f) {
  DataFragment *pb = new_msg(m, &lance__table__data_fragment__descriptor);
  if (pb == NULL) return NULL;
  pb->id = f->id;
  pb->physical_rows = f->physical_rows;
  for (size_t k = 0; k < f->n_files; k++)
    push(m, &pb->files, &pb->n_files, mut_file_pb(m, f->files[k].path, f->files[k].fields, f->files[k].n_fields));
  if (f->row_ids != NULL) mut_set_row_ids(m, pb, f->row_ids, f->physical_rows);
  if (f->deleted != NULL) /* R's file, restated; the change carries its set */
    (void)deletion_pb(m, pb, f->deleted, &f->deletion_file);
  return pb;
}

/* [02§8.2] a new cumulative file: `.arrow` up to 5000 offsets
 * unless the fragment already had a `.bin` (Lance never demotes one). The
 * id is the version created, unique per fragment and version. */
lfa_status mut_set_deletions(mut *m, DataFragment *pb, const roaring_bitmap_t *deleted) {
  size_t i = lfa_table_fragment(m->r, pb->id);
  bool had_bin = i != SIZE_MAX && m->r->fragments[i].deleted != NULL && m->r->fragments[i].deletion_file.bitmap;
  /* [FA-TXN-18] named after R, the version the set was computed against */
  lfa_deletion_file df = {m->r->version, m->version, had_bin || roaring_bitmap_get_cardinality(deleted) > 5000};
  return deletion_pb(m, pb, deleted, &df);
}

DataFragment *mut_new_fragment(mut *m, const uint64_t *keys, uint64_t rows, const int32_t *fields, size_t n_fields) {
  DataFragment *pb = new_msg(m, &lance__table__data_fragment__descriptor);
  lfa_change *c = m->change;
  lfa_row_keys *grown = lfa_arena_array(&c->arena, c->n_keys + 1, sizeof *grown);
  if (pb == NULL || grown == NULL) return NULL;
  pb->physical_rows = rows; /* id 0: handed out at commit */
  push(m, &pb->files, &pb->n_files, mut_file_pb(m, mut_file_name(m), fields, n_fields));
  if (pb->n_files == 0) return NULL;
  if (c->n_keys) memcpy(grown, c->keys, c->n_keys * sizeof *grown);
  grown[c->n_keys++] = (lfa_row_keys){pb->files[0]->path, rows, lfa_arena_memdup(&c->arena, keys, rows * sizeof *keys)};
  c->keys = grown;
  return pb;
}

static Lance__File__Field *field_pb(mut *m, const lfa_table *t, const lfa_field *f) {
  Lance__File__Field *pb = new_msg(m, &lance__file__field__descriptor);
  if (pb == NULL) return NULL;
  bool parent = false;
  for (size_t i = 0; i < t->n_fields; i++) parent |= t->fields[i].parent_id == f->id;
  pb->type = parent ? LANCE__FILE__FIELD__TYPE__PARENT : LANCE__FILE__FIELD__TYPE__LEAF;
  pb->name = lfa_arena_strdup(&m->change->arena, f->name);
  pb->logical_type = lfa_arena_strdup(&m->change->arena, f->logical_type);
  pb->id = f->id;
  pb->parent_id = f->parent_id;
  pb->nullable = f->nullable;
  return pb;
}

Lance__File__Field **mut_schema_pb(mut *m, const lfa_table *t) {
  Lance__File__Field **list = lfa_arena_array(&m->change->arena, t->n_fields + 1, sizeof *list);
  for (size_t i = 0; list != NULL && i < t->n_fields; i++) list[i] = field_pb(m, t, &t->fields[i]);
  return list;
}

void mut_add_initialization(mut *m, int32_t field, lfa_assignment state) {
  Sidecar *s = mut_sidecar(m);
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization *in =
      new_msg(m, &lance__table__transaction__field_assignment_transaction__initialization__descriptor);
  if (s == NULL || in == NULL) return;
  in->field_id = field;
  in->initial_state = state == LFA_ASSIGNED ? LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__ASSIGNED
                                            : LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__UNASSIGNED;
  push(m, &s->initializations, &s->n_initializations, in);
}

void mut_add_row_change(mut *m, int32_t field, bool assigned, const row_ref *rows, size_t n) {
  Sidecar *s = mut_sidecar(m);
  Lance__Table__Transaction__FieldAssignmentTransaction__RowChange *rc =
      new_msg(m, &lance__table__transaction__field_assignment_transaction__row_change__descriptor);
  lfa_treemap tm = {0};
  lfa_buf b = {0};
  bool ok = s != NULL && rc != NULL;
  for (size_t k = 0; ok && k < n; k++) /* [FA-TXN-11] addresses of the snapshot committed on */
    ok = lfa_treemap_add(&tm, m->r->fragments[rows[k].fragment].id << 32 | rows[k].offset, m->err) == LFA_OK;
  ok = ok && lfa_treemap_encode(&b, &tm, m->err) == LFA_OK;
  if (ok) {
    rc->field_id = field;
    rc->assigned = assigned;
    rc->row_addresses = (ProtobufCBinaryData){b.len, lfa_arena_memdup(&m->change->arena, b.data, b.len)};
    push(m, &s->row_changes, &s->n_row_changes, rc);
  } else {
    m->change->arena.failed = true;
  }
  lfa_treemap_free(&tm);
  lfa_buf_free(&b);
}

void mut_add_fragment_state(mut *m, const DataFragment *pb, int32_t field, const lfa_cell *cell) {
  Sidecar *s = mut_sidecar(m);
  Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState *fs =
      new_msg(m, &lance__table__transaction__field_assignment_transaction__fragment_state__descriptor);
  if (s == NULL || fs == NULL || pb->n_files == 0) return;
  fs->fragment_path = pb->files[0]->path;
  fs->field_id = field;
  if (cell->kind == LFA_CELL_ALL) {
    fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED;
    fs->all_assigned = true;
  } else if (cell->kind == LFA_CELL_NONE) {
    fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED;
    fs->none_assigned = true;
  } else {
    lfa_buf b = {0};
    if (lfa_bitmap_encode(&b, cell->rows, m->err) != LFA_OK) m->change->arena.failed = true;
    fs->state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL;
    fs->partial = (ProtobufCBinaryData){b.len, lfa_arena_memdup(&m->change->arena, b.data, b.len)};
    lfa_buf_free(&b);
  }
  push(m, &s->fragment_states, &s->n_fragment_states, fs);
}

void mut_add_transfer(mut *m, int32_t source, int32_t target) {
  Sidecar *s = mut_sidecar(m);
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer *tr =
      new_msg(m, &lance__table__transaction__field_assignment_transaction__transfer__descriptor);
  if (s == NULL || tr == NULL) return;
  tr->source_field_id = source;
  tr->target_field_id = target;
  push(m, &s->transfers, &s->n_transfers, tr);
}

/* ---- the change, for committers ----------------------------------------------------- */

lfa_status lfa_check_writer_flags(const lfa_table *t, lfa_error *err) {
  /* a tracked table read by an earlier layout: its marker is field assignment's [FA-FLAG-7] */
  uint64_t earlier = t->n_tracked > 0 ? lfa_layout_marker(lfa_layout_of(0, t->writer_feature_flags, false)) : 0;
  uint64_t known = LFA_WRITER_FLAGS_KNOWN | earlier;
  uint64_t unknown = t->writer_feature_flags & ~known;
  if (unknown == 0) return LFA_OK;
  return lfa_fail(err, LFA_ERR_RULE, "FA-FLAG-5", "version %" PRIu64 " has writer feature flags 0x%" PRIx64
                  ", with bits 0x%" PRIx64 " this writer does not know: it cannot keep their state", t->version,
                  t->writer_feature_flags, unknown);
}

void lfa_change_free(lfa_change *c) {
  for (size_t i = 0; i < c->n_deletions; i++) lfa_bitmap_free(c->deletions[i].offsets);
  lfa_arena_free(&c->arena);
  memset(c, 0, sizeof *c);
}

Sidecar *lfa_change_sidecar(lfa_change *c, lfa_error *err) {
  mut m = {NULL, NULL, c, 0, 0, err};
  return mut_sidecar(&m);
}

void lfa_change_add_transfer(lfa_change *c, const lfa_table *r, int32_t source, int32_t target, lfa_error *err) {
  mut m = {r, NULL, c, 0, 0, err};
  mut_add_transfer(&m, source, target);
}

void lfa_change_add_fragment_state(lfa_change *c, const lfa_table *r, const DataFragment *pb, int32_t field,
                                   const lfa_cell *cell, lfa_error *err) {
  mut m = {r, NULL, c, 0, 0, err};
  mut_add_fragment_state(&m, pb, field, cell);
}

/* ---- dispatch ----------------------------------------------------------------------------- */

typedef lfa_status (*op_fn)(mut *m);

static const struct {
  const char *name;
  op_fn build;
} OPS[] = {
    [LFA_OP_CREATE] = {"create", mut_create},           [LFA_OP_APPEND] = {"append", mut_append},
    [LFA_OP_ADD_COLUMNS] = {"add_columns", mut_add_columns}, [LFA_OP_TRACK] = {"track", mut_track},
    [LFA_OP_RENAME] = {"rename", mut_rename},           [LFA_OP_CAST] = {"cast", mut_cast},
    [LFA_OP_SET_NULLABLE] = {"set_nullable", mut_set_nullable}, [LFA_OP_DROP] = {"drop_columns", mut_drop},
    [LFA_OP_UPDATE] = {"update", mut_update},           [LFA_OP_MERGE_INSERT] = {"merge_insert", mut_merge_insert},
    [LFA_OP_DELETE] = {"delete", mut_delete},           [LFA_OP_COMPACT] = {"compact", mut_compact},
    [LFA_OP_REPLACE] = {"data_replacement", mut_replace}, [LFA_OP_OVERLAY] = {"data_overlay", mut_overlay},
    [LFA_OP_RESTORE] = {"restore", mut_restore},        [LFA_OP_OVERWRITE] = {"overwrite", mut_overwrite},
    [LFA_OP_CLONE] = {"clone", mut_clone},              [LFA_OP_CREATE_INDEX] = {"create_index", mut_metadata},
    [LFA_OP_UPDATE_CONFIG] = {"update_config", mut_metadata},
};

const char *lfa_op_name(lfa_op op) {
  return (unsigned)op < sizeof OPS / sizeof OPS[0] ? OPS[op].name : "unknown";
}

lfa_status lfa_mutate(lfa_change *out, const lfa_table *r, const lfa_request *req, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if ((unsigned)req->op >= sizeof OPS / sizeof OPS[0])
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "unknown operation %d", (int)req->op);
  static const lfa_table EMPTY = {0};
  uint64_t read = r ? r->version : 0;
  /* [FA-LANCE-20] a version at or before R may have named files of R */
  if (req->new_version != 0 && req->new_version <= read)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-20", "%s: new version %" PRIu64 " is not after the read version %"
                    PRIu64, OPS[req->op].name, req->new_version, read);
  mut m = {r ? r : &EMPTY, req, out, req->new_version ? req->new_version : read + 1, 0, err};
  /* [FA-FLAG-5] every mutation path starts here: none plans against a
   * dataset whose writer word has a bit this writer does not know */
  lfa_status st = r != NULL ? lfa_check_writer_flags(r, err) : LFA_OK;
  if (st == LFA_OK) st = OPS[req->op].build(&m);
  if (st == LFA_OK) st = lfa_arena_check(&out->arena, err);
  if (st == LFA_OK && out->txn == NULL) st = lfa_fail(err, LFA_ERR_USAGE, NULL, "%s built no transaction", OPS[req->op].name);
  if (st != LFA_OK) {
    lfa_error_prefix(err, "%s", OPS[req->op].name);
    lfa_change_free(out);
  }
  return st;
}

/* ---- shared helpers added for mutate_schema.c ------------------------------------------- */

int32_t mut_next_field_id(const lfa_table *t) { return max_field_id(t) + 1; }

/* ---- shared by the row mutations (mutate_rows.c, mutate_files.c) ------------------------- */

bool mut_listed(const int32_t *ids, size_t n, int32_t id) {
  for (size_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

/* Per fragment of R, the offsets `rows` name (NULL where none). */
lfa_status mut_group_rows(roaring_bitmap_t ***out, mut *m, const row_ref *rows, size_t n) {
  *out = calloc(m->r->n_fragments + 1, sizeof **out);
  if (*out == NULL) return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; k < n; k++) {
    roaring_bitmap_t **b = &(*out)[rows[k].fragment];
    if (*b == NULL && (*b = roaring_bitmap_create()) == NULL) return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
    roaring_bitmap_add(*b, rows[k].offset);
  }
  return LFA_OK;
}

void mut_free_groups(roaring_bitmap_t **groups, size_t n) {
  for (size_t i = 0; groups != NULL && i < n; i++) lfa_bitmap_free(groups[i]);
  free(groups);
}

/* Deletes `gone` (offsets per fragment of R): the deletion file grows
 * cumulatively, a fragment with no live row left leaves [FA-DELETE-2]. */
lfa_status mut_delete_rows(mut *m, roaring_bitmap_t **gone, DataFragment ***updated, size_t *n_updated,
                           uint64_t **removed, size_t *n_removed) {
  *updated = lfa_arena_array(&m->change->arena, m->r->n_fragments + 1, sizeof **updated);
  *removed = lfa_arena_array(&m->change->arena, m->r->n_fragments + 1, sizeof **removed);
  *n_updated = *n_removed = 0;
  for (size_t i = 0; *updated && *removed && i < m->r->n_fragments; i++) {
    const lfa_fragment *f = &m->r->fragments[i];
    if (gone[i] == NULL) continue;
    roaring_bitmap_t *all = f->deleted ? roaring_bitmap_or(f->deleted, gone[i]) : roaring_bitmap_copy(gone[i]);
    if (all == NULL) return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
    if (roaring_bitmap_get_cardinality(all) == f->physical_rows) {
      (*removed)[(*n_removed)++] = f->id;
    } else {
      DataFragment *pb = mut_fragment_pb(m, f);
      lfa_status st = pb ? mut_set_deletions(m, pb, all) : LFA_ERR_NOMEM;
      if (st != LFA_OK) {
        roaring_bitmap_free(all);
        return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
      }
      (*updated)[(*n_updated)++] = pb;
    }
    roaring_bitmap_free(all);
  }
  return lfa_arena_check(&m->change->arena, m->err);
}

/* [FA-UPDATE-6] each moved row: written fields assigned, invalidated ones
 * not, the others as they were in R (all of them so for a compaction,
 * FA-REWRITE-1). */
void mut_moved_state(lfa_cell *cell, const mut *m, const row_ref *rows, size_t n, int32_t f, bool written,
                     bool invalidated) {
  cell->kind = written ? LFA_CELL_ALL : LFA_CELL_NONE;
  cell->rows = NULL;
  const lfa_field_state *s = lfa_table_tracked(m->r, f);
  if (written || invalidated || s == NULL) return;
  cell->kind = LFA_CELL_PARTIAL;
  cell->rows = roaring_bitmap_create();
  for (size_t k = 0; cell->rows != NULL && k < n; k++)
    if (lfa_cell_contains(&s->cells[rows[k].fragment], rows[k].offset)) roaring_bitmap_add(cell->rows, (uint32_t)k);
  lfa_cell_canonicalize(cell, n);
}
