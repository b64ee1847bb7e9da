/* mutate_files.c: mutations that rewrite or add data files of existing rows:
 * compaction (Rewrite), merge_insert (an Update), data replacement and data
 * overlays. Spec 05§5, 05§11 (FA-MERGEINSERT-1..6), 05§13, 05§14; 02§8.3
 * (compaction planning and execution) and §5.1-5.3. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/pb_types.h"
#include "lfa/remap.h"
#include "mutate_internal.h"

/* Every field of R's schema, in schema order. OWNERSHIP: free(). */
static int32_t *all_fields(const lfa_table *r) {
  int32_t *ids = calloc(r->n_fields + 1, sizeof *ids);
  for (size_t i = 0; ids != NULL && i < r->n_fields; i++) ids[i] = r->fields[i].id;
  return ids;
}

/* Appends a created fragment to an Update's new_fragments. */
static void add_new_fragment(mut *m, Update *op, DataFragment *pb) {
  DataFragment **grown = lfa_arena_array(&m->change->arena, op->n_new_fragments + 1, sizeof *grown);
  if (grown == NULL || pb == NULL) return; /* the arena records the failure */
  if (op->n_new_fragments) memcpy(grown, op->new_fragments, op->n_new_fragments * sizeof *grown);
  grown[op->n_new_fragments++] = pb;
  op->new_fragments = grown;
}

/* ---- compaction (Rewrite, 05§5) ------------------------------------------ */

/* Lance's default target_rows_per_fragment (02§8.3). */
enum { COMPACT_DEFAULT_TARGET = 1024 * 1024 };

typedef enum candidacy { NOT_CANDIDATE, WITH_NEIGHBORS, ITSELF } candidacy;

/* One task of the plan: R's adjacent fragments first .. first + count - 1. */
typedef struct bin {
  size_t first, count;
} bin;

/* [02§8.3] More than 10% of the rows deleted: the fragment is
 * rewritten even alone. Fewer physical rows than the target: it is merged
 * with candidate neighbours, if it has any. (deleted / physical > 0.1, in
 * integers so that exactly 10% is not a candidate, as in Lance.) */
static candidacy candidate(const lfa_fragment *f, uint64_t target) {
  uint64_t deleted = f->physical_rows - lfa_fragment_live_rows(f);
  if (deleted * 10 > f->physical_rows) return ITSELF;
  return f->physical_rows < target ? WITH_NEIGHBORS : NOT_CANDIDATE;
}

/* Lance's split_for_size: take fragments until their live rows reach the
 * target; if the rest still reaches it, that is a bin and the rest is split
 * again, otherwise the rest joins the last bin. Returns the bins written. */
static size_t split_for_size(bin *out, const lfa_table *r, bin run, uint64_t target) {
  size_t n = 0;
  for (;;) {
    size_t len = 0;
    for (uint64_t sum = 0; sum < target && len < run.count; len++) sum += lfa_fragment_live_rows(&r->fragments[run.first + len]);
    uint64_t rest = 0;
    for (size_t k = run.first + len; k < run.first + run.count; k++) rest += lfa_fragment_live_rows(&r->fragments[k]);
    if (rest < target) break;
    out[n++] = (bin){run.first, len};
    run.first += len, run.count -= len;
  }
  out[n++] = run;
  return n;
}

/* [02§8.3] Lance's plan over R's fragments in id order: the
 * maximal runs of adjacent candidates (the model has no indices, so no run
 * is cut by index coverage); a run of one fragment that only wants
 * neighbours is dropped; each run is split for size. `out` holds up to
 * n_fragments bins. */
static size_t plan_bins(bin *out, const lfa_table *r, uint64_t target) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_fragments;) {
    if (candidate(&r->fragments[i], target) == NOT_CANDIDATE) {
      i++;
      continue;
    }
    bin run = {i, 0};
    for (; i < r->n_fragments && candidate(&r->fragments[i], target) != NOT_CANDIDATE; i++) run.count++;
    if (run.count == 1 && candidate(&r->fragments[run.first], target) == WITH_NEIGHBORS) continue;
    n += split_for_size(out + n, r, run, target);
  }
  return n;
}

/* One new fragment holding R's rows rows[0 .. n) in this order: one data
 * file listing every field [FA-REWRITE-5], no deletion file, the rows' keys and (stable
 * row ids) their row ids [FA-REMAP-3]; for every tracked field s the mapped
 * state cells[s * stride] [FA-REWRITE-1, FA-REWRITE-2, FA-TXN-14]. */
static DataFragment *compacted_fragment(mut *m, const row_ref *rows, size_t n, const int32_t *fields,
                                        const lfa_cell *cells, size_t stride) {
  uint64_t *keys = calloc(n + 1, sizeof *keys), *ids = calloc(n + 1, sizeof *ids);
  DataFragment *pb = NULL;
  if (keys != NULL && ids != NULL) {
    for (size_t k = 0; k < n; k++) {
      const lfa_fragment *f = &m->r->fragments[rows[k].fragment];
      keys[k] = f->keys ? f->keys[rows[k].offset] : 0;
      ids[k] = f->row_ids ? f->row_ids[rows[k].offset] : 0;
    }
    pb = mut_new_fragment(m, keys, n, fields, m->r->n_fields);
  }
  if (pb != NULL && m->r->stable_row_ids) mut_set_row_ids(m, pb, ids, n);
  for (size_t s = 0; pb != NULL && s < m->r->n_tracked; s++)
    mut_add_fragment_state(m, pb, m->r->tracked[s].field_id, &cells[s * stride]);
  if (pb == NULL) m->change->arena.failed = true;
  free(keys);
  free(ids);
  return pb;
}

/* [FA-REMAP-1] [FA-REMAP-2] Every tracked field's state in the new
 * fragments of `b`, which hold new_rows[k] rows each: cells[s * n_new + k]
 * (lfa/remap.h, the bit-stream form of the row mapping below). With stable
 * row ids the rows keep this order too, so the mapping by row id is the
 * same [FA-REMAP-3]. OWNERSHIP: free with free_cells. */
static lfa_status remap_fields(lfa_cell *cells, const mut *m, bin b, const uint64_t *new_rows, size_t n_new) {
  lfa_remap_source *old = calloc(b.count + 1, sizeof *old);
  lfa_status st = old ? LFA_OK : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t s = 0; st == LFA_OK && s < m->r->n_tracked; s++) {
    for (size_t j = 0; j < b.count; j++)
      old[j] = (lfa_remap_source){&m->r->fragments[b.first + j], &m->r->tracked[s].cells[b.first + j]};
    st = lfa_remap_group(cells + s * n_new, new_rows, n_new, old, b.count, m->err);
  }
  free(old);
  return st;
}

static void free_cells(lfa_cell *cells, size_t n) {
  for (size_t i = 0; cells != NULL && i < n; i++) lfa_bitmap_free(cells[i].rows);
  free(cells);
}

/* [FA-REMAP-1] [FA-REMAP-2] One group: R's fragments of `b` leave; their
 * live rows, fragment by fragment in group order and offsets ascending,
 * fill new fragments of up to `target` rows, in that order. */
static lfa_status compact_group(mut *m, Lance__Table__Transaction__Rewrite__RewriteGroup *g, bin b, uint64_t target,
                                const int32_t *fields) {
  size_t n = 0, at = 0;
  for (size_t i = b.first; i < b.first + b.count; i++) n += (size_t)lfa_fragment_live_rows(&m->r->fragments[i]);
  size_t n_new = (size_t)((n + target - 1) / target), n_cells = m->r->n_tracked * n_new;
  uint64_t *new_rows = calloc(n_new + 1, sizeof *new_rows);
  lfa_cell *cells = calloc(n_cells + 1, sizeof *cells);
  for (size_t k = 0; new_rows != NULL && k < n_new; k++) new_rows[k] = n - k * target < target ? n - k * target : target;
  lfa_status st = new_rows && cells ? remap_fields(cells, m, b, new_rows, n_new)
                                    : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  free(new_rows);
  row_ref *rows = st == LFA_OK ? calloc(n + 1, sizeof *rows) : NULL;
  if (rows == NULL) {
    free_cells(cells, n_cells);
    return st == LFA_OK ? lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory") : st;
  }
  g->old_fragments = lfa_arena_array(&m->change->arena, b.count, sizeof *g->old_fragments);
  for (size_t i = b.first; g->old_fragments != NULL && i < b.first + b.count; i++) {
    const lfa_fragment *f = &m->r->fragments[i];
    g->old_fragments[g->n_old_fragments++] = mut_fragment_pb(m, f);
    for (uint32_t o = 0; o < f->physical_rows; o++)
      if (lfa_fragment_is_live(f, o)) rows[at++] = (row_ref){i, o};
  }
  g->new_fragments = lfa_arena_array(&m->change->arena, n_new + 1, sizeof *g->new_fragments);
  for (at = 0; g->new_fragments != NULL && at < n; at += (size_t)target) {
    size_t rows_here = n - at < target ? n - at : (size_t)target;
    g->new_fragments[g->n_new_fragments] = compacted_fragment(m, rows + at, rows_here, fields,
                                                              cells + g->n_new_fragments, n_new);
    g->n_new_fragments++;
  }
  free(rows);
  free_cells(cells, n_cells);
  return lfa_arena_check(&m->change->arena, m->err);
}

/* One Rewrite, one group per bin of Lance's plan (Rewrite.groups)
 * [FA-REWRITE-4]; an empty plan commits nothing. New fragments get their
 * ids at commit (mutate.h): no ReserveFragments version comes first, the
 * choice FA-REWRITE-3 leaves to the writer. */
lfa_status mut_compact(mut *m) {
  uint64_t target = m->req->rows_per_file ? m->req->rows_per_file : COMPACT_DEFAULT_TARGET;
  bin *bins = calloc(m->r->n_fragments + 1, sizeof *bins);
  int32_t *fields = all_fields(m->r);
  size_t n = bins && fields ? plan_bins(bins, m->r, target) : 0;
  lfa_status st = LFA_OK;
  if (bins == NULL || fields == NULL) st = lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  else if (n == 0)
    st = lfa_fail(m->err, LFA_ERR_USAGE, "FA-REWRITE-4", "nothing to compact: no fragment has more than 10%% of its rows deleted, "
                  "and no two adjacent fragments both have fewer than %" PRIu64 " physical rows", target);
  if (st != LFA_OK) {
    free(bins);
    free(fields);
    return st;
  }
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Rewrite *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (op != NULL) lance__table__transaction__rewrite__init(op);
  if (t != NULL && op != NULL && (op->groups = lfa_arena_array(&m->change->arena, n, sizeof *op->groups)) != NULL) {
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_REWRITE;
    t->rewrite = op;
    for (size_t k = 0; st == LFA_OK && k < n; k++) {
      Lance__Table__Transaction__Rewrite__RewriteGroup *g = lfa_arena_alloc(&m->change->arena, sizeof *g);
      if (g == NULL) break; /* the arena records the failure */
      lance__table__transaction__rewrite__rewrite_group__init(g);
      op->groups[op->n_groups++] = g;
      st = compact_group(m, g, bins[k], target, fields);
    }
  }
  free(bins);
  free(fields);
  return st;
}

/* ---- merge_insert (an Update, 05§11) ------------------------------------------ */

/* [FA-MERGEINSERT-1] [FA-MERGEINSERT-5] What a merge may ask, before
 * anything is resolved. */
static lfa_status check_merge(const mut *m) {
  const lfa_request *q = m->req;
  if (q->on_row_id && (q->inserts.count > 0 || q->delete_matched))
    return lfa_fail(m->err, LFA_ERR_USAGE, "FA-MERGEINSERT-1", "_rowid is supported only as the sole key of an "
                    "update-only merge_insert: no inserted rows (%zu given), no deletion of matched rows (%s)",
                    q->inserts.count, q->delete_matched ? "asked" : "not asked");
  if (q->invalidate.count > 0 && q->delete_matched)
    return lfa_fail(m->err, LFA_ERR_USAGE, "FA-MERGEINSERT-5", "field invalidation requires a matched-row update, "
                    "and this merge deletes the matched rows");
  if (q->rowid_values.count > 0 && (!q->on_row_id || q->rows.count > 0))
    return lfa_fail(m->err, LFA_ERR_USAGE, "FA-MERGEINSERT-2", "_rowid values name the target rows of a merge on "
                    "_rowid, in place of keys");
  if (q->rows.count == 0 && q->rowid_values.count == 0 && q->inserts.count == 0)
    return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "nothing to merge: no matched rows and no rows to insert");
  /* the source holds its key, a field, unless the key is _rowid; inserted
   * rows need values; a delete-only merge needs nothing */
  bool needs_fields = q->inserts.count > 0 || (!q->on_row_id && !q->delete_matched);
  if (needs_fields && q->fields.count == 0)
    return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "the source's fields are missing (a key source holds "
                    "at least its key; inserted rows hold the source's fields)");
  if (q->on_row_id && q->fields.count == 0 && q->invalidate.count == 0)
    return lfa_fail(m->err, LFA_ERR_USAGE, "FA-INVAL-2", "no value writes and no field invalidations");
  return LFA_OK;
}

/* [FA-MERGEINSERT-4] [FA-UPDATE-4] The inserted rows: one new fragment
 * storing the source's fields, assigned for exactly those (FA-TXN-14:
 * a state for every tracked field). It is a fragment of its own, apart from
 * rows a full-schema merge moves: those carry their row ids inline, and
 * commit gives new ids to a created fragment that has none. */
static lfa_status insert_rows(mut *m, Update *op, const int32_t *written, size_t n_written) {
  const lfa_keys *ins = &m->req->inserts;
  DataFragment *pb = mut_new_fragment(m, ins->keys, ins->count, written, n_written);
  add_new_fragment(m, op, pb);
  for (size_t s = 0; pb != NULL && s < m->r->n_tracked; s++) {
    int32_t f = m->r->tracked[s].field_id;
    lfa_cell cell = {mut_listed(written, n_written, f) ? LFA_CELL_ALL : LFA_CELL_NONE, NULL};
    mut_add_fragment_state(m, pb, f, &cell);
  }
  return lfa_arena_check(&m->change->arena, m->err);
}

/* [FA-MERGEINSERT-6] Matched rows deleted instead of updated: deletion
 * files grow, whole fragments leave; no state changes. Nothing is
 * rewritten in place, so the Update is in REWRITE_ROWS mode. */
static lfa_status delete_matched(mut *m, Update *op, const row_ref *rows, size_t n) {
  roaring_bitmap_t **gone = NULL;
  lfa_status st = mut_group_rows(&gone, m, rows, n);
  op->update_mode = LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_ROWS;
  if (st == LFA_OK)
    st = mut_delete_rows(m, gone, &op->updated_fragments, &op->n_updated_fragments, &op->removed_fragment_ids,
                         &op->n_removed_fragment_ids);
  mut_free_groups(gone, m->r->n_fragments);
  return st;
}

/* [FA-MERGEINSERT-3] The matched rows. A full-schema source rewrites them
 * whole (REWRITE_ROWS: they move, every field written); a partial one
 * rewrites its columns in place (REWRITE_COLUMNS) and invalidations are
 * RowChange(false) on the unchanged addresses [FA-MERGEINSERT-5]. */
static lfa_status update_matched(mut *m, Update *op, row_ref *rows, size_t n, const int32_t *written,
                                 size_t n_written, const int32_t *inval, size_t n_inval) {
  bool full = n_written == m->r->n_fields;
  if (full) return n > 0 ? mut_update_rows(m, op, rows, n, written, n_written, inval, n_inval) : LFA_OK;
  op->update_mode = LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_COLUMNS;
  if (n == 0) return LFA_OK; /* inserts only: no column is rewritten */
  lfa_status st = mut_update_columns(m, op, rows, n, written, n_written);
  for (size_t k = 0; st == LFA_OK && k < n_inval; k++) mut_add_row_change(m, inval[k], false, rows, n);
  return st;
}

/* The live row of R a _rowid value names: the row holding that stable row
 * id, or in address mode the row at that address (fragment << 32 |
 * offset). */
static bool find_rowid(row_ref *out, const lfa_table *r, uint64_t value) {
  for (size_t i = 0; i < r->n_fragments; i++) {
    const lfa_fragment *f = &r->fragments[i];
    if (!r->stable_row_ids) {
      if (f->id != value >> 32 || !lfa_fragment_is_live(f, (uint32_t)value)) continue;
      *out = (row_ref){i, (uint32_t)value};
      return true;
    }
    for (uint64_t o = 0; f->row_ids != NULL && o < f->physical_rows; o++)
      if (f->row_ids[o] == value && lfa_fragment_is_live(f, (uint32_t)o)) {
        *out = (row_ref){i, (uint32_t)o};
        return true;
      }
  }
  return false;
}

/* [FA-MERGEINSERT-2] The target rows the source's _rowid values match, as
 * row ids of R. A value that is no live row of R matches nothing: that
 * source row is neither written nor inserted, only counted. Two source
 * rows matching one target row is a planning error, as for keys. */
static lfa_status rows_by_rowid(row_ref *out, size_t *n, mut *m, const lfa_keys *values) {
  *n = 0;
  for (size_t k = 0; k < values->count; k++) {
    row_ref ref;
    if (!find_rowid(&ref, m->r, values->keys[k])) {
      m->change->unmatched_source_rows++;
      continue;
    }
    for (size_t j = 0; j < *n; j++)
      if (out[j].fragment == ref.fragment && out[j].offset == ref.offset)
        return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "two source rows match the target row with _rowid %" PRIu64,
                        values->keys[k]);
    out[(*n)++] = ref;
  }
  return LFA_OK;
}

/* rows: the source rows matching target rows (by key, or by _rowid when
 * on_row_id: the keys of the rows, or their _rowid values); inserts: new
 * keys; fields: the source's fields (every field of the schema: a full
 * schema). */
lfa_status mut_merge_insert(mut *m) {
  const lfa_request *q = m->req;
  int32_t *written = NULL, *inval = NULL;
  size_t n_written = 0, n_inval = 0, n = q->rows.count + q->rowid_values.count;
  row_ref *rows = calloc(n + 1, sizeof *rows);
  lfa_status st = rows ? check_merge(m) : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK && q->rowid_values.count > 0) st = rows_by_rowid(rows, &n, m, &q->rowid_values);
  else if (st == LFA_OK) st = mut_rows(rows, m, &q->rows);
  if (st == LFA_OK) st = mut_new_keys(m, &q->inserts);
  if (st == LFA_OK) st = mut_written_fields(&written, &n_written, m, &q->fields);
  if (st == LFA_OK) st = mut_invalidated_fields(&inval, &n_inval, m, &q->invalidate, written, n_written);
  Txn *t = mut_txn(m);
  Update *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (st == LFA_OK && t && op) {
    lance__table__transaction__update__init(op);
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE;
    t->update = op;
    if (q->delete_matched) st = delete_matched(m, op, rows, n);
    else st = update_matched(m, op, rows, n, written, n_written, inval, n_inval);
    if (st == LFA_OK && q->inserts.count > 0) st = insert_rows(m, op, written, n_written);
  }
  free(rows);
  free(written);
  free(inval);
  return st;
}

/* ---- data replacement and overlays (05§13, 05§14) -------------------------------- */

/* The index of R's fragment `id`, or a usage error naming it. */
static lfa_status find_fragment(size_t *out, const mut *m, uint64_t id) {
  *out = lfa_table_fragment(m->r, id);
  if (*out == SIZE_MAX) return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "fragment %" PRIu64 " is not in the snapshot", id);
  return LFA_OK;
}

/* [FA-REPLACE-2] [02§8.4] Lance swaps the file that lists exactly these
 * fields, or adds the new file when no file of the fragment lists any of
 * them (an all-NULL column replaced with data); anything between it
 * refuses: there is no file to replace. */
static lfa_status check_replaceable(const mut *m, const lfa_fragment *f, const int32_t *fields, size_t n) {
  bool exact = false, overlap = false;
  for (size_t k = 0; k < f->n_files; k++) {
    const lfa_data_file *df = &f->files[k];
    exact |= df->n_fields == n && memcmp(df->fields, fields, n * sizeof *fields) == 0;
    for (size_t j = 0; j < df->n_fields; j++) overlap |= mut_listed(fields, n, df->fields[j]);
  }
  if (exact || !overlap) return LFA_OK;
  return lfa_fail(m->err, LFA_ERR_USAGE, "FA-REPLACE-2", "fragment %" PRIu64 " has no data file with exactly the replaced "
                  "fields, but some file lists one of them", f->id);
}

/* [FA-REPLACE-1] One DataReplacementGroup: fragment_id and a new data file
 * listing the written fields (FA-NEST-2); commit swaps or adds it, and
 * apply assigns every physical row for the tracked fields it lists. */
lfa_status mut_replace(mut *m) {
  const lfa_request *q = m->req;
  int32_t *fields = NULL;
  size_t i = 0, n = 0;
  lfa_status st = find_fragment(&i, m, q->fragment_id);
  if (st == LFA_OK && q->fields.count == 0)
    st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "no fields: name the fields whose file is replaced");
  if (st == LFA_OK) st = mut_written_fields(&fields, &n, m, &q->fields);
  if (st == LFA_OK) st = check_replaceable(m, &m->r->fragments[i], fields, n);
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__DataReplacement *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  Lance__Table__Transaction__DataReplacementGroup *g = lfa_arena_alloc(&m->change->arena, sizeof *g);
  if (st == LFA_OK && t && op && g) {
    lance__table__transaction__data_replacement__init(op);
    lance__table__transaction__data_replacement_group__init(g);
    g->fragment_id = q->fragment_id;
    g->new_file = mut_file_pb(m, mut_file_name(m), fields, n);
    op->replacements = lfa_arena_memdup(&m->change->arena, &g, sizeof g);
    op->n_replacements = 1;
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_DATA_REPLACEMENT;
    t->data_replacement = op;
  }
  free(fields);
  return st;
}

/* The overlay's rows as offsets of fragment i; each key must be a live
 * row of that fragment. OWNERSHIP: roaring_bitmap_free(*out). */
static lfa_status overlay_offsets(roaring_bitmap_t **out, const mut *m, size_t i) {
  const lfa_keys *keys = &m->req->rows;
  row_ref *rows = calloc(keys->count + 1, sizeof *rows);
  lfa_status st = rows ? mut_rows(rows, m, keys) : lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK && keys->count == 0) st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "no rows to overlay");
  *out = st == LFA_OK ? roaring_bitmap_create() : NULL;
  if (st == LFA_OK && *out == NULL) st = lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; st == LFA_OK && k < keys->count; k++) {
    if (rows[k].fragment != i)
      st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "key %" PRIu64 " is a row of fragment %" PRIu64 ", not of fragment %" PRIu64,
                    keys->keys[k], m->r->fragments[rows[k].fragment].id, m->r->fragments[i].id);
    else roaring_bitmap_add(*out, rows[k].offset);
  }
  free(rows);
  return st;
}

/* [FA-OVERLAY-3] Coverage: every listed field covers the same offsets.
 * One field: the shared bitmap; several: field_coverage, one bitmap per
 * entry of data_file.fields, in that order. */
static lfa_status set_coverage(mut *m, Lance__Table__DataOverlayFile *of, const roaring_bitmap_t *offsets) {
  lfa_buf b = {0};
  lfa_status st = lfa_bitmap_encode(&b, offsets, m->err);
  ProtobufCBinaryData bytes = {b.len, st == LFA_OK ? lfa_arena_memdup(&m->change->arena, b.data, b.len) : NULL};
  lfa_buf_free(&b);
  if (st != LFA_OK) return st;
  size_t n = of->data_file->n_fields;
  if (n == 1) {
    of->coverage_case = LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_SHARED_OFFSET_BITMAP;
    of->shared_offset_bitmap = bytes;
    return lfa_arena_check(&m->change->arena, m->err);
  }
  Lance__Table__FieldCoverage *fc = lfa_arena_alloc(&m->change->arena, sizeof *fc);
  ProtobufCBinaryData *per_field = lfa_arena_array(&m->change->arena, n, sizeof *per_field);
  if (fc == NULL || per_field == NULL) return lfa_arena_check(&m->change->arena, m->err);
  lance__table__field_coverage__init(fc);
  for (size_t k = 0; k < n; k++) per_field[k] = bytes; /* the bytes are the arena's; sharing them is safe */
  fc->offset_bitmaps = per_field, fc->n_offset_bitmaps = n;
  of->coverage_case = LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_FIELD_COVERAGE;
  of->field_coverage = fc;
  return lfa_arena_check(&m->change->arena, m->err);
}

/* [FA-OVERLAY-1] One DataOverlayGroup with one DataOverlayFile: a data file
 * listing the written fields (FA-NEST-2) and their coverage. Values are not
 * modelled: a covered NULL counts as written all the same. The fragment
 * list of N does not change (apply reads the writes from T). */
lfa_status mut_overlay(mut *m) {
  const lfa_request *q = m->req;
  int32_t *fields = NULL;
  size_t i = 0, n = 0;
  roaring_bitmap_t *offsets = NULL;
  lfa_status st = find_fragment(&i, m, q->fragment_id);
  if (st == LFA_OK && q->fields.count == 0) st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "no fields to overlay");
  if (st == LFA_OK) st = mut_written_fields(&fields, &n, m, &q->fields);
  if (st == LFA_OK) st = overlay_offsets(&offsets, m, i);
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__DataOverlay *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  Lance__Table__Transaction__DataOverlayGroup *g = lfa_arena_alloc(&m->change->arena, sizeof *g);
  Lance__Table__DataOverlayFile *of = lfa_arena_alloc(&m->change->arena, sizeof *of);
  if (st == LFA_OK && t && op && g && of) {
    lance__table__transaction__data_overlay__init(op);
    lance__table__transaction__data_overlay_group__init(g);
    lance__table__data_overlay_file__init(of);
    of->data_file = mut_file_pb(m, mut_file_name(m), fields, n);
    of->committed_version = m->version; /* Lance stamps it at commit; N is known here */
    st = of->data_file ? set_coverage(m, of, offsets) : lfa_arena_check(&m->change->arena, m->err);
    g->fragment_id = q->fragment_id;
    g->overlays = lfa_arena_memdup(&m->change->arena, &of, sizeof of), g->n_overlays = 1;
    op->groups = lfa_arena_memdup(&m->change->arena, &g, sizeof g), op->n_groups = 1;
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_DATA_OVERLAY;
    t->data_overlay = op;
  }
  lfa_bitmap_free(offsets);
  free(fields);
  return st;
}
