/* mutate_rows.c: mutations that add, remove or rewrite rows: create,
 * append, delete, update (both modes, and invalidation only). Spec
 * 05§2-4, 05§9, 05§10, 05§12; FA-NEST-2, FA-NEST-3, FA-SEM-5. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "mutate_internal.h"

/* ---- fields a write supplies ---------------------------------------------- */

/* [FA-NEST-2] supplying a field supplies its descendants, and the structs
 * above it hold it: all of them are stored. `names` empty: every field. */
static lfa_status supplied_fields(int32_t **out, size_t *n, mut *m, const lfa_table *schema,
                                  const lfa_names_list *names) {
  int32_t *named = calloc(names->count + 1, sizeof *named);
  *out = calloc(schema->n_fields + 1, sizeof **out);
  *n = 0;
  lfa_status st = named && *out ? LFA_OK : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < names->count; i++) {
    const lfa_field *f = mut_field(schema, names->names[i]);
    if (f == NULL) st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "unknown field '%s'", names->names[i]);
    else named[i] = f->id;
  }
  for (size_t k = 0; st == LFA_OK && k < schema->n_fields; k++) { /* schema order: parents first */
    int32_t id = schema->fields[k].id;
    bool take = names->count == 0;
    for (size_t i = 0; !take && i < names->count; i++)
      take = mut_in_subtree(schema, id, named[i]) || mut_in_subtree(schema, named[i], id);
    if (take) (*out)[(*n)++] = id;
  }
  free(named);
  return st;
}

/* Created fragments for `keys`, `per_file` rows each (0: one fragment). */
static lfa_status new_fragments(DataFragment ***out, size_t *count, mut *m, const lfa_keys *keys, uint64_t per_file,
                                const int32_t *fields, size_t n_fields) {
  uint64_t step = per_file ? per_file : (keys->count ? keys->count : 1);
  size_t n = (size_t)((keys->count + step - 1) / step);
  *out = lfa_arena_array(&m->change->arena, n + 1, sizeof **out);
  *count = 0;
  for (uint64_t at = 0; *out != NULL && at < keys->count; at += step) {
    uint64_t rows = keys->count - at < step ? keys->count - at : step;
    (*out)[(*count)++] = mut_new_fragment(m, keys->keys + at, rows, fields, n_fields);
  }
  return lfa_arena_check(&m->change->arena, m->err);
}

/* ---- append --------------------------------------------------------------------- */

/* [FA-APPEND-1] what the appended files list decides each field's state. */
lfa_status mut_append(mut *m) {
  const lfa_request *q = m->req;
  int32_t *fields = NULL;
  size_t n_fields = 0;
  lfa_status st = q->rows.count ? mut_new_keys(m, &q->rows) : lfa_fail(m->err, LFA_ERR_USAGE, NULL, "no rows to append");
  if (st == LFA_OK) st = supplied_fields(&fields, &n_fields, m, m->r, &q->fields);
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Append *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (st == LFA_OK && t && op) {
    lance__table__transaction__append__init(op);
    st = new_fragments(&op->fragments, &op->n_fragments, m, &q->rows, q->rows_per_file, fields, n_fields);
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_APPEND;
    t->append = op;
  }
  free(fields);
  return st;
}

/* ---- create ------------------------------------------------------------------------ */

/* The initializations the new fields ask for [FA-OVERWRITE-2]. Shared with
 * overwrite and add_columns through the request. */
static void initialize_new_fields(mut *m, const lfa_table *schema) {
  const lfa_request *q = m->req;
  for (size_t i = 0; i < q->n_new_fields; i++)
    if (q->new_fields[i].assignment != LFA_UNTRACKED)
      mut_add_initialization(m, mut_field(schema, q->new_fields[i].path)->id, q->new_fields[i].assignment);
}

/* An Overwrite with no parent: schema, rows, and tracking from the start. */
lfa_status mut_create(mut *m) {
  const lfa_request *q = m->req;
  lfa_table schema;
  int32_t *fields = NULL;
  size_t n_fields = 0;
  if (m->r->n_fields != 0 || m->r->version != 0) return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "the dataset exists");
  lfa_status st = mut_schema_with(&schema, m, NULL, q->new_fields, q->n_new_fields);
  if (st == LFA_OK) st = mut_new_keys(m, &q->rows);
  if (st == LFA_OK) st = supplied_fields(&fields, &n_fields, m, &schema, &q->fields);
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Overwrite *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (st == LFA_OK && t && op) {
    lance__table__transaction__overwrite__init(op);
    st = new_fragments(&op->fragments, &op->n_fragments, m, &q->rows, q->rows_per_file, fields, n_fields);
    op->schema = mut_schema_pb(m, &schema);
    op->n_schema = schema.n_fields;
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE;
    t->overwrite = op;
    initialize_new_fields(m, &schema);
    m->change->stable_row_ids = q->stable_row_ids;
  }
  free(fields);
  lfa_table_free(&schema);
  return st;
}

/* ---- delete --------------------------------------------------------------------------- */

/* [FA-DELETE-1] no state changes; the rows stop being live. */
lfa_status mut_delete(mut *m) {
  const lfa_request *q = m->req;
  row_ref *rows = calloc(q->rows.count + 1, sizeof *rows);
  roaring_bitmap_t **gone = NULL;
  lfa_status st = rows ? mut_rows(rows, m, &q->rows) : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK) st = mut_group_rows(&gone, m, rows, q->rows.count);
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Delete *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (st == LFA_OK && t && op) {
    lance__table__transaction__delete__init(op);
    st = mut_delete_rows(m, gone, &op->updated_fragments, &op->n_updated_fragments, &op->deleted_fragment_ids,
                         &op->n_deleted_fragment_ids);
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_DELETE;
    t->delete_ = op;
  }
  mut_free_groups(gone, m->r->n_fragments);
  free(rows);
  return st;
}

/* ---- update ------------------------------------------------------------------------------ */

lfa_status mut_written_fields(int32_t **out, size_t *n, mut *m, const lfa_names_list *names) {
  if (names->count > 0) return supplied_fields(out, n, m, m->r, names);
  *n = 0;
  *out = calloc(1, sizeof **out);
  return *out ? LFA_OK : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
}

lfa_status mut_invalidated_fields(int32_t **out, size_t *n, mut *m, const lfa_names_list *names,
                                  const int32_t *written, size_t n_written) {
  *n = 0;
  *out = calloc(m->r->n_tracked + 1, sizeof **out);
  if (*out == NULL) return lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < names->count; i++) {
    const lfa_field *f = mut_field(m->r, names->names[i]);
    if (f == NULL) return lfa_fail(m->err, LFA_ERR_USAGE, "FA-INVAL-2", "cannot invalidate unknown field '%s'", names->names[i]);
    if (lfa_table_tracked(m->r, f->id) == NULL)
      return lfa_fail(m->err, LFA_ERR_USAGE, "FA-INVAL-2", "cannot invalidate untracked field '%s' (stable field id %d)",
                      names->names[i], f->id);
    for (size_t s = 0; s < m->r->n_tracked; s++) { /* [FA-NEST-3] it and its tracked descendants */
      int32_t id = m->r->tracked[s].field_id;
      if (!mut_in_subtree(m->r, id, f->id) || mut_listed(*out, *n, id)) continue;
      if (mut_listed(written, n_written, id)) /* [FA-SEM-5] [FA-NEST-5] */
        return lfa_fail(m->err, LFA_ERR_USAGE, "FA-SEM-5", "field '%s' cannot be both written and invalidated",
                        lfa_table_field(m->r, id)->name);
      (*out)[(*n)++] = id;
    }
  }
  return LFA_OK;
}

/* R's fragment restated with `written` moved to a new file: earlier files
 * mark those ids -2, and a file left with nothing else goes. */
static DataFragment *with_new_columns(mut *m, const lfa_fragment *f, const int32_t *written, size_t n_written) {
  DataFragment *pb = mut_fragment_pb(m, f);
  if (pb == NULL) return NULL;
  size_t kept = 0;
  for (size_t k = 0; k < pb->n_files; k++) {
    bool any = false;
    for (size_t j = 0; j < pb->files[k]->n_fields; j++) {
      if (mut_listed(written, n_written, pb->files[k]->fields[j])) pb->files[k]->fields[j] = -2;
      any |= pb->files[k]->fields[j] != -2;
    }
    if (any) pb->files[kept++] = pb->files[k];
  }
  pb->n_files = kept;
  Lance__Table__DataFile *added = mut_file_pb(m, mut_file_name(m), written, n_written);
  Lance__Table__DataFile **files = lfa_arena_array(&m->change->arena, pb->n_files + 1, sizeof *files);
  if (added == NULL || files == NULL) return NULL;
  if (pb->n_files) memcpy(files, pb->files, pb->n_files * sizeof *files);
  files[pb->n_files++] = added;
  pb->files = files;
  return pb;
}

static int by_place(const void *a, const void *b) {
  const row_ref *x = a, *y = b;
  if (x->fragment != y->fragment) return x->fragment < y->fragment ? -1 : 1;
  return (x->offset > y->offset) - (x->offset < y->offset);
}

/* [FA-UPDATE-1] [FA-UPDATE-2] [FA-INVAL-1] columns rewritten in place: each
 * matched fragment gains a file with the written fields and its matched
 * offsets; invalidations are RowChanges on the unchanged addresses. */
lfa_status mut_update_columns(mut *m, Lance__Table__Transaction__Update *op, const row_ref *rows, size_t n,
                              const int32_t *written, size_t n_written) {
  roaring_bitmap_t **matched = NULL;
  lfa_status st = mut_group_rows(&matched, m, rows, n);
  op->update_mode = LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_COLUMNS;
  op->updated_fragments = lfa_arena_array(&m->change->arena, m->r->n_fragments + 1, sizeof *op->updated_fragments);
  op->updated_fragment_offset_bitmaps =
      lfa_arena_array(&m->change->arena, m->r->n_fragments + 1, sizeof *op->updated_fragment_offset_bitmaps);
  op->fields_modified = lfa_arena_array(&m->change->arena, n_written + 1, sizeof *op->fields_modified);
  for (size_t i = 0; st == LFA_OK && n_written > 0 && i < m->r->n_fragments; i++) {
    if (matched[i] == NULL || op->updated_fragments == NULL || op->updated_fragment_offset_bitmaps == NULL) continue;
    Lance__Table__Transaction__Update__UpdatedFragmentOffsetBitmapsEntry *e = lfa_arena_alloc(&m->change->arena, sizeof *e);
    lfa_buf b = {0};
    st = e ? lfa_bitmap_encode(&b, matched[i], m->err) : LFA_ERR_NOMEM;
    if (st != LFA_OK) break;
    lance__table__transaction__update__updated_fragment_offset_bitmaps_entry__init(e);
    e->key = m->r->fragments[i].id;
    e->value = (ProtobufCBinaryData){b.len, lfa_arena_memdup(&m->change->arena, b.data, b.len)};
    lfa_buf_free(&b);
    op->updated_fragment_offset_bitmaps[op->n_updated_fragment_offset_bitmaps++] = e;
    op->updated_fragments[op->n_updated_fragments++] = with_new_columns(m, &m->r->fragments[i], written, n_written);
  }
  for (size_t k = 0; op->fields_modified != NULL && k < n_written; k++)
    op->fields_modified[op->n_fields_modified++] = (uint32_t)written[k];
  mut_free_groups(matched, m->r->n_fragments);
  return st == LFA_OK ? lfa_arena_check(&m->change->arena, m->err) : st;
}

/* Rows rewritten whole: deleted where they were, written again (every
 * field stored [FA-REWRITE-5]) into one new fragment that keeps their keys
 * and row ids. Invalidations go into its FragmentStates, never into a
 * RowChange [FA-UPDATE-7]. */
lfa_status mut_update_rows(mut *m, Lance__Table__Transaction__Update *op, row_ref *rows, size_t n,
                           const int32_t *written, size_t n_written, const int32_t *inval, size_t n_inval) {
  roaring_bitmap_t **gone = NULL;
  qsort(rows, n, sizeof *rows, by_place); /* Lance scans in fragment and offset order */
  uint64_t *keys = calloc(n + 1, sizeof *keys), *ids = calloc(n + 1, sizeof *ids);
  int32_t *all = calloc(m->r->n_fields + 1, sizeof *all);
  lfa_status st = keys && ids && all ? mut_group_rows(&gone, m, rows, n) : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK)
    st = mut_delete_rows(m, gone, &op->updated_fragments, &op->n_updated_fragments, &op->removed_fragment_ids,
                         &op->n_removed_fragment_ids);
  for (size_t k = 0; st == LFA_OK && k < n; k++) {
    const lfa_fragment *f = &m->r->fragments[rows[k].fragment];
    keys[k] = f->keys ? f->keys[rows[k].offset] : 0;
    ids[k] = f->row_ids ? f->row_ids[rows[k].offset] : 0;
  }
  for (size_t i = 0; all && i < m->r->n_fields; i++) all[i] = m->r->fields[i].id;
  DataFragment *pb = st == LFA_OK ? mut_new_fragment(m, keys, n, all, m->r->n_fields) : NULL;
  op->new_fragments = lfa_arena_array(&m->change->arena, 1, sizeof *op->new_fragments);
  if (st == LFA_OK && pb != NULL && op->new_fragments != NULL) {
    op->new_fragments[op->n_new_fragments++] = pb;
    if (m->r->stable_row_ids) mut_set_row_ids(m, pb, ids, n); /* moved rows keep their row ids */
    for (size_t s = 0; s < m->r->n_tracked; s++) { /* FA-TXN-14 */
      lfa_cell cell;
      int32_t f = m->r->tracked[s].field_id;
      mut_moved_state(&cell, m, rows, n, f, mut_listed(written, n_written, f), mut_listed(inval, n_inval, f));
      mut_add_fragment_state(m, pb, f, &cell);
      lfa_bitmap_free(cell.rows);
    }
  }
  mut_free_groups(gone, m->r->n_fragments);
  free(keys);
  free(ids);
  free(all);
  return st == LFA_OK ? lfa_arena_check(&m->change->arena, m->err) : st;
}

lfa_status mut_update(mut *m) {
  const lfa_request *q = m->req;
  int32_t *written = NULL, *inval = NULL;
  size_t n_written = 0, n_inval = 0, n = q->rows.count;
  row_ref *rows = calloc(n + 1, sizeof *rows);
  lfa_status st = rows ? mut_rows(rows, m, &q->rows) : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK) st = mut_written_fields(&written, &n_written, m, &q->fields);
  if (st == LFA_OK) st = mut_invalidated_fields(&inval, &n_inval, m, &q->invalidate, written, n_written);
  if (st == LFA_OK && n_written == 0 && n_inval == 0) /* [FA-INVAL-2] */
    st = lfa_fail(m->err, LFA_ERR_USAGE, "FA-INVAL-2", "no value writes and no field invalidations");
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Update *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (st == LFA_OK && t && op) {
    lance__table__transaction__update__init(op);
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE;
    t->update = op;
    if (n_written == 0 || q->rewrite_columns) {
      st = mut_update_columns(m, op, rows, n, written, n_written);
      for (size_t k = 0; st == LFA_OK && k < n_inval && n > 0; k++) mut_add_row_change(m, inval[k], false, rows, n);
    } else {
      st = mut_update_rows(m, op, rows, n, written, n_written, inval, n_inval);
    }
  }
  free(rows);
  free(written);
  free(inval);
  return st;
}
