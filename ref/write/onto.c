/* onto.c: one commit onto a dataset another writer made (lfa/onto.h).
 *
 * One attempt, in order: load the head P with the shared reader
 * (dataset.h) and its model; refuse what cannot be committed; name the
 * rows; lfa_mutate and lfa_commit give N's state and transaction; write
 * the changed roots and bitmaps (writer.h); then N's manifest, P's own
 * with the few fields of onto.h changed, published create-only
 * [FA-CONC-11]. A lost race plans again from the new head. */
#define _POSIX_C_SOURCE 200809L
#include "lfa/onto.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/arena.h"
#include "lfa/commit.h"
#include "lfa/dataset.h"
#include "lfa/flags.h"
#include "lfa/fs.h"
#include "lfa/hash.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/snapshot_model.h"
#include "lfa/table.h"
#include "lfa/transaction.h"
#include "lfa/versions.h"
#include "lfa/writer.h"

enum { REL_CAP = 192, HINT_BYTES_MAX = 4096 };

/* Everything one attempt holds; onto_free releases it. */
typedef struct onto {
  const lfa_fs *fs; /* where the dataset is: its reads, its objects, its commit point */
  const char *dir;
  const lfa_onto_request *req;
  lfa_version_list list;
  lfa_names names;
  lfa_snapshot snap;
  lfa_table head, n;
  bool have_n;
  lfa_change change;
  lfa_writer *w;
  lfa_arena arena;
  uint64_t *keys; /* the request's rows as mutation keys */
  uint64_t reader_flags, writer_flags; /* N's words, once published */
} onto;

static void onto_free(onto *o) {
  lfa_version_list_free(&o->list);
  lfa_fs_names_free(&o->names);
  lfa_snapshot_free(&o->snap);
  lfa_table_free(&o->head);
  if (o->have_n) lfa_table_free(&o->n);
  lfa_change_free(&o->change);
  lfa_writer_close(o->w);
  lfa_arena_free(&o->arena);
  free(o->keys);
}

/* ---- 1. the head, and what refuses it -------------------------------------------- */

static lfa_status load_head(onto *o, lfa_error *err) {
  lfa_status st = lfa_dataset_versions(&o->list, &o->names, o->fs, o->dir, err);
  if (st == LFA_OK && o->list.count == 0) st = lfa_fail(err, LFA_ERR_USAGE, NULL, "%s has no version", o->dir);
  if (st != LFA_OK) return st;
  const lfa_version_entry *e = &o->list.entries[o->list.count - 1];
  st = lfa_snapshot_open(&o->snap, o->dir, e, &(lfa_snapshot_options){.fs = o->fs, .load_fields = true}, err);
  if (st == LFA_OK) st = lfa_table_from_snapshot(&o->head, &o->snap, err);
  if (st != LFA_OK) lfa_error_prefix(err, "version %" PRIu64, e->version), lfa_error_at_version(err, e->version);
  return st;
}

/* True when the manifest holds a top-level field `field` it did not read. */
static bool has_unknown_field(const Lance__Table__Manifest *m, uint32_t field) {
  for (unsigned i = 0; i < m->base.n_unknown_fields; i++)
    if (m->base.unknown_fields[i].tag == field) return true;
  return false;
}

/* [FA-FLAG-5] a writer bit lfa does not know; [FA-LANCE-21] the marker bit
 * already set where no descriptor says it is field assignment's, or a
 * field 1022 that is not field assignment's [FA-FLAG-7]: either is then
 * someone else's, and adding descriptors would give it two meanings. */
static lfa_status check_flags(const onto *o, lfa_error *err) {
  lfa_status st = lfa_check_writer_flags(&o->head, err);
  const Lance__Table__Manifest *m = o->snap.file.manifest;
  uint64_t words = m->reader_feature_flags | m->writer_feature_flags;
  if (st == LFA_OK && m->n_field_assignment_states == 0 && (words & LFA_FLAG_FIELD_ASSIGNMENT) != 0) {
    const char *name = lfa_flag_name(LFA_FLAG_FIELD_ASSIGNMENT, false);
    st = lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-21",
                  "version %" PRIu64 " sets feature bit %llu without field assignment descriptors: it is Lance's "
                  "'%s' there, and field assignment's marker would collide with it",
                  o->head.version, (unsigned long long)LFA_FLAG_FIELD_ASSIGNMENT, name ? name : "unknown");
  }
  if (st == LFA_OK && m->n_field_assignment_states == 0 && has_unknown_field(m, LFA_MANIFEST_FIELD_DESCRIPTORS))
    st = lfa_fail(err, LFA_ERR_RULE, "FA-FLAG-7",
                  "version %" PRIu64 " has a manifest field %u that is not field assignment's (no bit 2^52): "
                  "descriptors there would give it two meanings",
                  o->head.version, (unsigned)LFA_MANIFEST_FIELD_DESCRIPTORS);
  return st;
}

/* [FA-LANCE-12] N has descriptors, so every fragment needs a known
 * physical_rows: old Lance wrote 0 for "unknown", and a state is bounded by
 * the count. lfa reads no data file to learn it: the table is refused. */
static lfa_status check_rows_known(const onto *o, lfa_error *err) {
  for (size_t i = 0; i < o->head.n_fragments; i++)
    if (o->head.fragments[i].physical_rows == 0)
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-12",
                      "fragment %" PRIu64 " of version %" PRIu64 " has physical_rows 0 (unknown: written by a Lance "
                      "release that did not record it); a tracked field needs every fragment's row count, so this "
                      "table can be tracked only after its fragments are rewritten (a compaction by a current Lance)",
                      o->head.fragments[i].id, o->head.version);
  return LFA_OK;
}

/* ---- 2. the rows ------------------------------------------------------------------- */

/* [FA-TXN-10] the live row at address `a`: fragment index and offset. */
static lfa_status address_row(size_t *frag, uint32_t *offset, const lfa_table *t, uint64_t a, lfa_error *err) {
  uint64_t id = a >> 32;
  *offset = (uint32_t)(a & 0xFFFFFFFFu);
  *frag = lfa_table_fragment(t, id);
  const lfa_fragment *f = *frag == SIZE_MAX ? NULL : &t->fragments[*frag];
  if (f == NULL || *offset >= f->physical_rows || !lfa_fragment_is_live(f, *offset))
    return lfa_fail(err, LFA_ERR_USAGE, "FA-TXN-10",
                    "row address %" PRIu64 " (fragment %" PRIu64 ", offset %" PRIu32 ") is not a live row of version %" PRIu64,
                    a, id, *offset, t->version);
  return LFA_OK;
}

/* One row named by its stable row id, and where its first live row is. */
typedef struct named_id {
  uint64_t id;
  size_t frag;
  uint32_t offset;
  bool found;
} named_id;

static bool same_id(const void *item, const void *key) { return ((const named_id *)item)->id == *(const uint64_t *)key; }

/* [FA-TXN-10] the live rows with the stable row ids `ids`: the named ids
 * go into a hash table and every row id of the table is looked up in it
 * once, so naming n rows of a table of R rows costs O(R + n), not O(R n).
 * The first live row of an id is its row, in fragment and offset order. */
static lfa_status find_ids(named_id *out, lfa_hash *h, const lfa_table *t, const uint64_t *ids, size_t n, lfa_error *err) {
  lfa_status st = LFA_OK;
  for (size_t k = 0; st == LFA_OK && k < n; k++) {
    out[k] = (named_id){ids[k], 0, 0, false};
    if (lfa_hash_find(h, lfa_hash_u64(LFA_HASH_START, ids[k]), same_id, &ids[k]) == NULL)
      st = lfa_hash_add(h, lfa_hash_u64(LFA_HASH_START, ids[k]), &out[k], LFA_ONTO_ROWS_MAX, err);
  }
  for (size_t i = 0; st == LFA_OK && i < t->n_fragments; i++) {
    const lfa_fragment *f = &t->fragments[i];
    for (uint64_t r = 0; f->row_ids != NULL && r < f->physical_rows; r++) {
      named_id *s = lfa_hash_find(h, lfa_hash_u64(LFA_HASH_START, f->row_ids[r]), same_id, &f->row_ids[r]);
      if (s != NULL && !s->found && lfa_fragment_is_live(f, (uint32_t)r)) s->frag = i, s->offset = (uint32_t)r, s->found = true;
    }
  }
  for (size_t k = 0; st == LFA_OK && k < n; k++) {
    const named_id *s = lfa_hash_find(h, lfa_hash_u64(LFA_HASH_START, ids[k]), same_id, &ids[k]);
    if (!s->found)
      st = lfa_fail(err, LFA_ERR_USAGE, "FA-TXN-10", "row id %" PRIu64 " names no live row of version %" PRIu64,
                    ids[k], t->version);
    else out[k] = *s;
  }
  return st;
}

/* Each named row's fragment and offset, in the request's order. */
static lfa_status locate_rows(named_id *at, const onto *o, lfa_error *err) {
  const lfa_onto_request *q = o->req;
  if (q->by_row_id) {
    lfa_hash h = {0};
    lfa_status st = find_ids(at, &h, &o->head, q->rows, q->n_rows, err);
    lfa_hash_free(&h);
    return st;
  }
  lfa_status st = LFA_OK;
  for (size_t k = 0; st == LFA_OK && k < q->n_rows; k++)
    st = address_row(&at[k].frag, &at[k].offset, &o->head, q->rows[k], err);
  return st;
}

/* Each row named once, said in the caller's words (its address or row id)
 * before the model sees the rows as keys. One bitmap of offsets per
 * fragment: naming n rows costs O(n). */
static lfa_status named_once(const named_id *at, const onto *o, lfa_error *err) {
  const lfa_onto_request *q = o->req;
  roaring_bitmap_t **seen = calloc(o->head.n_fragments + 1, sizeof *seen);
  lfa_status st = seen ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; st == LFA_OK && k < q->n_rows; k++) {
    roaring_bitmap_t **s = &seen[at[k].frag];
    if (*s == NULL && (*s = roaring_bitmap_create()) == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    else if (!roaring_bitmap_add_checked(*s, at[k].offset))
      st = lfa_fail(err, LFA_ERR_USAGE, NULL, "%s %" PRIu64 " is named twice (fragment %" PRIu64 ", offset %" PRIu32 ")",
                    q->by_row_id ? "row id" : "row address", q->rows[k], o->head.fragments[at[k].frag].id,
                    at[k].offset);
  }
  for (size_t i = 0; seen != NULL && i < o->head.n_fragments; i++)
    if (seen[i] != NULL) roaring_bitmap_free(seen[i]); /* CRoaring 0.2 does not take NULL */
  free(seen);
  return st;
}

/* Gives the fragments holding a named row their mutation keys (the row's
 * address or row id: the name the caller used), each fragment's once, and
 * lists them in o->keys. */
static lfa_status name_rows(onto *o, lfa_error *err) {
  const lfa_onto_request *q = o->req;
  if (q->n_rows == 0) return lfa_fail(err, LFA_ERR_USAGE, "FA-INVAL-2", "no rows to invalidate");
  if (q->n_rows > LFA_ONTO_ROWS_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "%zu rows named; at most %u per commit", q->n_rows, LFA_ONTO_ROWS_MAX);
  if (q->by_row_id && !o->head.stable_row_ids)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "row ids name rows only with stable row ids; this table uses row addresses");
  named_id *at = calloc(q->n_rows, sizeof *at);
  if (at == NULL || (o->keys = malloc(q->n_rows * sizeof *o->keys)) == NULL) {
    free(at);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  lfa_status st = locate_rows(at, o, err);
  if (st == LFA_OK) st = named_once(at, o, err);
  for (size_t k = 0; st == LFA_OK && k < q->n_rows; k++) {
    lfa_fragment *f = &o->head.fragments[at[k].frag];
    if (f->keys == NULL) {
      if ((f->keys = calloc(f->physical_rows + 1, sizeof *f->keys)) == NULL)
        st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
      for (uint64_t r = 0; st == LFA_OK && r < f->physical_rows; r++)
        f->keys[r] = q->by_row_id ? f->row_ids[r] : (f->id << 32) | r;
    }
    o->keys[k] = q->rows[k];
  }
  free(at);
  return st;
}

/* ---- 3. the model: N's state and transaction --------------------------------------- */

static lfa_status plan(onto *o, lfa_error *err) {
  const lfa_onto_request *q = o->req;
  lfa_request r = {.op = q->op, .field = q->field, .assignment = q->initial};
  const char *const fields[] = {q->field};
  lfa_status st = LFA_OK;
  if (q->op == LFA_OP_UPDATE) { /* [FA-INVAL-1] columns in place, nothing written */
    st = name_rows(o, err);
    r.rows = (lfa_keys){q->n_rows, o->keys};
    r.invalidate = (lfa_names_list){1, fields};
    r.rewrite_columns = true;
  } else if (q->op != LFA_OP_TRACK || (q->initial != LFA_ASSIGNED && q->initial != LFA_UNASSIGNED)) {
    st = lfa_fail(err, LFA_ERR_USAGE, NULL, "only TRACK (assigned or unassigned) and an invalidation commit onto a table");
  }
  if (st == LFA_OK && (st = lfa_mutate(&o->change, &o->head, &r, err)) != LFA_OK)
    lfa_error_unprefix(err, lfa_op_name(q->op)); /* the caller ran track or invalidate, not "update" */
  Lance__Table__Transaction *t = o->change.txn;
  if (st == LFA_OK && q->op == LFA_OP_TRACK && t->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_PROJECT) {
    /* The Project carries P's own schema, field metadata and all: the
     * applied transaction is the stored one (FA-TXN-17). */
    t->project->schema = o->snap.file.manifest->fields;
    t->project->n_schema = o->snap.file.manifest->n_fields;
  }
  if (st == LFA_OK) st = lfa_commit(&o->n, &o->head, &o->change, NULL, err);
  o->have_n = st == LFA_OK;
  return st;
}

/* [FA-INVAL-1] [FA-PROJECT-4] N has P's fragments, unchanged: only their
 * state may differ. */
static lfa_status same_fragments(const onto *o, lfa_error *err) {
  bool same = o->n.n_fragments == o->head.n_fragments && o->n.n_fields == o->head.n_fields;
  for (size_t i = 0; same && i < o->n.n_fragments; i++)
    same = o->n.fragments[i].id == o->head.fragments[i].id &&
           o->n.fragments[i].physical_rows == o->head.fragments[i].physical_rows;
  return same ? LFA_OK : lfa_fail(err, LFA_ERR_USAGE, NULL, "the commit would change fragments or the schema");
}

/* ---- 4. N's descriptors --------------------------------------------------------------- */

static bool same_cells(const lfa_field_state *a, const lfa_field_state *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const lfa_cell *x = &a->cells[i], *y = &b->cells[i];
    if (x->kind != y->kind) return false;
    if (x->kind == LFA_CELL_PARTIAL && !roaring_bitmap_equals(x->rows, y->rows)) return false;
  }
  return true;
}

static Lance__Table__FieldAssignmentState *head_descriptor(const onto *o, int32_t field_id) {
  const Lance__Table__Manifest *m = o->snap.file.manifest;
  for (size_t i = 0; i < m->n_field_assignment_states; i++)
    if (m->field_assignment_states[i]->field_id == field_id) return m->field_assignment_states[i];
  return NULL;
}

/* One descriptor per tracked field of N, ascending [FA-STORE-2]: P's own,
 * verbatim, when the field's state did not change [FA-STORE-10]; else a
 * new root (and bitmaps) written now. */
static lfa_status descriptors(Lance__Table__FieldAssignmentState ***out, onto *o, lfa_error *err) {
  size_t n = o->n.n_tracked;
  *out = lfa_arena_array(&o->arena, n + 1, sizeof **out);
  Lance__Table__FieldAssignmentState *fresh = lfa_arena_array(&o->arena, n + 1, sizeof *fresh);
  Lance__Table__FieldAssignmentFile *roots = lfa_arena_array(&o->arena, n + 1, sizeof *roots);
  lfa_status st = lfa_arena_check(&o->arena, err);
  for (size_t s = 0; st == LFA_OK && s < n; s++) {
    const lfa_field_state *ns = &o->n.tracked[s];
    const lfa_field_state *hs = lfa_table_tracked(&o->head, ns->field_id);
    Lance__Table__FieldAssignmentState *kept = head_descriptor(o, ns->field_id);
    if (hs != NULL && kept != NULL && same_cells(hs, ns, o->n.n_fragments)) {
      (*out)[s] = kept;
      continue;
    }
    if (o->w == NULL) st = lfa_writer_attach_in(&o->w, o->fs, o->dir, o->req->seed + o->head.version, err);
    size_t t = lfa_snapshot_tracked(&o->snap, ns->field_id);
    lfa_prior_field prior = {&o->head, hs, t == SIZE_MAX ? NULL : o->snap.tracked[t].root};
    if (st == LFA_OK) st = lfa_writer_field_root(&roots[s], &o->arena, o->w, &o->n, s, prior.root && hs ? &prior : NULL, err);
    lance__table__field_assignment_state__init(&fresh[s]);
    fresh[s].field_id = ns->field_id;
    fresh[s].root = &roots[s];
    (*out)[s] = &fresh[s];
  }
  return st;
}

/* ---- 5. the manifest, the transaction, the hint ---------------------------------------- */

static lfa_status write_rel(const onto *o, const char *rel, const lfa_buf *b, uint64_t max, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_status st = b->len <= max ? LFA_OK
                                : lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-3", "%s: %zu bytes is over the reader limit", rel, b->len);
  if (st == LFA_OK) st = lfa_fs_join(path, sizeof path, o->dir, rel, err);
  return st == LFA_OK ? lfa_fs_write_new_in(o->fs, path, b->data, b->len, err) : st;
}

/* The version Lance's hint names, or 0 when it names none. */
static uint64_t hint_version(const lfa_buf *b) {
  char text[HINT_BYTES_MAX + 1];
  size_t n = b->len < HINT_BYTES_MAX ? b->len : HINT_BYTES_MAX;
  memcpy(text, b->data, n);
  text[n] = '\0';
  const char *at = strstr(text, "\"version\"");
  at = at ? strchr(at, ':') : NULL;
  return at ? strtoull(at + 1, NULL, 10) : 0;
}

/* Lance 12 keeps `_versions/latest_version_hint.json`, {"version":N}, and
 * checks it before trusting it: moved to N when it exists and names an
 * older version (never back, past a writer that got further). */
static lfa_status move_hint(const onto *o, uint64_t version, const char *uuid, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX], tmp[LFA_PATH_BYTES_MAX], rel[REL_CAP], text[64];
  lfa_buf old = {0};
  snprintf(rel, sizeof rel, "_versions/.tmp_hint_%s", uuid);
  lfa_status st = lfa_fs_join(path, sizeof path, o->dir, "_versions/latest_version_hint.json", err);
  if (st == LFA_OK) st = lfa_fs_join(tmp, sizeof tmp, o->dir, rel, err);
  if (st != LFA_OK || !lfa_fs_exists_in(o->fs, path)) return st;
  bool older = lfa_fs_read_in(&old, o->fs, path, HINT_BYTES_MAX, NULL) != LFA_OK || hint_version(&old) < version;
  lfa_buf_free(&old);
  int len = snprintf(text, sizeof text, "{\"version\":%" PRIu64 "}", version);
  return older ? lfa_fs_replace_hint_in(o->fs, path, tmp, (const uint8_t *)text, (size_t)len, err) : LFA_OK;
}

/* [FA-FLAG-1] [FA-FLAG-2] the marker in the writer word, and in the reader
 * word unless the caller asks for the writer word alone or P carries it in
 * the writer word alone (whoever tracked the table chose that policy, and a
 * later commit keeps it unless asked for the reader bit); every other bit of P's words kept, except the
 * upstream draft's marker on a table that has descriptors, which the
 * marker replaces [FA-FLAG-7]. */
static void mark(Lance__Table__Manifest *m, lfa_layout head, const lfa_onto_request *req) {
  uint64_t before = lfa_layout_marker(head); /* the draft's writer-only 256 is no policy: it is all it had */
  bool writer_bit_only = req->writer_bit_only || (!req->reader_bit && head != LFA_LAYOUT_DRAFT && before != 0 &&
                                                  (m->writer_feature_flags & before) != 0 &&
                                                  (m->reader_feature_flags & before) == 0);
  if (head == LFA_LAYOUT_PREVIOUS || head == LFA_LAYOUT_DRAFT) { /* the state moves to field 1022 */
    m->writer_feature_flags &= ~before;
    m->reader_feature_flags &= ~before;
  }
  m->writer_feature_flags |= LFA_FLAG_FIELD_ASSIGNMENT;
  if (!writer_bit_only) m->reader_feature_flags |= LFA_FLAG_FIELD_ASSIGNMENT;
}

/* N's manifest is P's with version, timestamp, writer, transaction,
 * descriptors and marker changed; the `.txn` file first, then the
 * manifest (the commit point), create-only [FA-CONC-11]. */
static lfa_status publish(onto *o, Lance__Table__FieldAssignmentState **states, lfa_error *err) {
  char uuid[37], txn_name[64], txn_rel[REL_CAP], name[32], rel[REL_CAP], tmp_rel[REL_CAP];
  char path[LFA_PATH_BYTES_MAX], tmp[LFA_PATH_BYTES_MAX];
  lfa_status st = o->w ? LFA_OK : lfa_writer_attach_in(&o->w, o->fs, o->dir, o->req->seed + o->head.version, err);
  if (st != LFA_OK) return st;
  lfa_writer_uuid(o->w, uuid);
  Lance__Table__Transaction txn = *o->change.txn;
  txn.read_version = o->head.version;
  txn.uuid = uuid;
  snprintf(txn_name, sizeof txn_name, "%" PRIu64 "-%s.txn", txn.read_version, uuid);
  snprintf(txn_rel, sizeof txn_rel, "_transactions/%s", txn_name);
  lfa_version_format_name(name, sizeof name, o->n.version, o->list.naming);
  snprintf(rel, sizeof rel, "_versions/%s", name);
  snprintf(tmp_rel, sizeof tmp_rel, "_versions/.tmp_%s", uuid);
  Lance__Table__Manifest m = *o->snap.file.manifest; /* shallow: P's decoded manifest owns the rest */
  Lance__Table__Manifest__WriterVersion writer = LANCE__TABLE__MANIFEST__WRITER_VERSION__INIT;
  Lance__Table__Timestamp ts = LANCE__TABLE__TIMESTAMP__INIT;
  writer.library = (char *)LFA_WRITER_LIBRARY, writer.version = (char *)LFA_WRITER_VERSION;
  ts.seconds = o->req->timestamp_seconds, ts.nanos = o->req->timestamp_nanos;
  m.version = o->n.version, m.writer_version = &writer, m.timestamp = &ts, m.transaction_file = txn_name;
  m.field_assignment_states = states, m.n_field_assignment_states = o->n.n_tracked;
  mark(&m, lfa_manifest_layout(o->snap.file.manifest), o->req);
  o->reader_flags = m.reader_feature_flags, o->writer_flags = m.writer_feature_flags;
  lfa_buf txn_bytes = {0}, bytes = {0};
  st = lfa_transaction_encode(&txn_bytes, &txn, err);
  if (st == LFA_OK) st = lfa_manifest_file_encode_sections(&bytes, &m, o->snap.file.index_section, &txn, err);
  if (st == LFA_OK) st = write_rel(o, txn_rel, &txn_bytes, LFA_TRANSACTION_BYTES_MAX, err);
  if (st == LFA_OK && bytes.len > LFA_MANIFEST_FILE_BYTES_MAX)
    st = lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-3", "%s: %zu bytes is over the reader limit", rel, bytes.len);
  if (st == LFA_OK) st = lfa_fs_join(path, sizeof path, o->dir, rel, err);
  if (st == LFA_OK) st = lfa_fs_join(tmp, sizeof tmp, o->dir, tmp_rel, err);
  /* [FA-CONC-11] the commit point; on an object store one conditional PUT [FA-CONC-12] */
  if (st == LFA_OK) st = lfa_fs_publish_new_in(o->fs, path, tmp, bytes.data, bytes.len, err);
  /* committed: the hint is advisory (Lance checks it), so failing to move
   * it must not report the commit as failed */
  if (st == LFA_OK) (void)move_hint(o, o->n.version, uuid, NULL);
  lfa_buf_free(&txn_bytes);
  lfa_buf_free(&bytes);
  return st;
}

/* ---- the commit ------------------------------------------------------------------------ */

static lfa_status attempt(lfa_onto_result *out, const lfa_fs *fs, const char *dir, const lfa_onto_request *req,
                          lfa_error *err) {
  onto o = {.fs = fs, .dir = dir, .req = req};
  Lance__Table__FieldAssignmentState **states = NULL;
  lfa_status st = load_head(&o, err);
  if (st == LFA_OK) st = check_flags(&o, err);
  if (st == LFA_OK) st = check_rows_known(&o, err);
  if (st == LFA_OK) st = plan(&o, err);
  if (st == LFA_OK) st = same_fragments(&o, err);
  if (st == LFA_OK) st = descriptors(&states, &o, err);
  if (st == LFA_OK) st = publish(&o, states, err);
  out->version = o.have_n ? o.n.version : 0;
  out->reader_flags = o.reader_flags, out->writer_flags = o.writer_flags;
  onto_free(&o);
  return st;
}

lfa_status lfa_onto_commit(lfa_onto_result *out, const char *dir, const lfa_onto_request *req, lfa_error *err) {
  return lfa_onto_commit_in(out, NULL, dir, req, err);
}

lfa_status lfa_onto_commit_in(lfa_onto_result *out, const lfa_fs *fs, const char *dir, const lfa_onto_request *req,
                              lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (fs == NULL) fs = lfa_fs_posix();
  lfa_status st = LFA_ERR_CONFLICT;
  bool replan = !(req->op == LFA_OP_TRACK && req->initial == LFA_ASSIGNED); /* [FA-CONC-7] */
  while (st == LFA_ERR_CONFLICT && out->attempts < (replan ? LFA_ONTO_ATTEMPTS_MAX : 1u)) {
    out->attempts++;
    st = attempt(out, fs, dir, req, err); /* [FA-CONC-1] from the head, every time */
  }
  if (st == LFA_ERR_CONFLICT)
    lfa_error_prefix(err, "%u attempt%s, each lost to another writer; nothing was replaced", out->attempts,
                     out->attempts == 1 ? "" : "s");
  return st;
}
