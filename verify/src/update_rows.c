/* update_rows.c: FA-UPDATE-6 row by row (05§10).
 *
 * An Update in REWRITE_ROWS mode writes the rows it matches again, whole,
 * into new fragments. The transition rule (lfa/apply.h) takes those
 * fragments' state from T's FragmentStates, so a writer that states the
 * wrong state for a moved row passes check_apply. With stable row ids the
 * verifier can tell which rows moved: a row of a new fragment whose id is a
 * live row of P. For each carried field f the commit does one thing to all
 * of them in a fragment: writes f (every moved row assigned, and the
 * fragment stores f), invalidates f (every moved row unassigned) or leaves
 * f (every moved row keeps its state in P). Anything else is an error.
 *
 * Inserted rows (ids not live in P) are assigned only where the fragment
 * stores f: FA-SEM-8, already checked by apply. Address mode: which old row
 * a new one came from is not in the metadata; nothing is checked here. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lfa/bitmap.h"
#include "lfa/search.h"

typedef struct live_id {
  uint64_t id;
  size_t frag; /* index into P's table */
  uint32_t offset;
} live_id;

static int by_id(const void *a, const void *b) {
  uint64_t x = ((const live_id *)a)->id, y = ((const live_id *)b)->id;
  return (x > y) - (x < y);
}

/* Every live row of P with its row id, sorted by id. NULL when memory runs
 * out. */
static live_id *live_ids_of(size_t *count, const lfa_table *p) {
  size_t n = 0;
  for (size_t k = 0; k < p->n_fragments; k++) n += (size_t)p->fragments[k].physical_rows;
  live_id *ids = malloc((n ? n : 1) * sizeof *ids);
  if (ids == NULL) return NULL;
  n = 0;
  for (size_t k = 0; k < p->n_fragments; k++) {
    const lfa_fragment *f = &p->fragments[k];
    for (uint64_t off = 0; f->row_ids != NULL && off < f->physical_rows; off++)
      if (lfa_fragment_is_live(f, (uint32_t)off)) ids[n++] = (live_id){f->row_ids[off], k, (uint32_t)off};
  }
  qsort(ids, n, sizeof *ids, by_id);
  *count = n;
  return ids;
}

static bool initialized_or_transferred(const Lance__Table__Transaction *t, int32_t id) {
  const Lance__Table__Transaction__FieldAssignmentTransaction *side = t->field_assignment_transaction;
  if (side == NULL) return false;
  for (size_t i = 0; i < side->n_initializations; i++)
    if (side->initializations[i]->field_id == id) return true;
  for (size_t i = 0; i < side->n_transfers; i++)
    if (side->transfers[i]->source_field_id == id || side->transfers[i]->target_field_id == id) return true;
  return false;
}

/* One carried field in one new fragment. `src` gives, per physical row of
 * the fragment, the live row of P it was moved from (NULL: inserted, or
 * deleted in N). */
static void check_field(const vf_ctx *c, const vf_version *p, const vf_version *n, const lfa_field_state *before,
                        const lfa_field_state *now, size_t fi, const live_id *const *src) {
  const lfa_fragment *f = &n->table.fragments[fi];
  const lfa_cell *cell = &now->cells[fi];
  uint64_t moved = 0, assigned = 0, changed = 0;
  uint64_t rows[LFA_FINDING_ROWS_MAX];
  size_t n_rows = 0;
  for (uint64_t j = 0; j < f->physical_rows; j++) {
    const live_id *from = src[j];
    if (from == NULL) continue;
    bool was = lfa_cell_contains(&before->cells[from->frag], from->offset);
    bool is = lfa_cell_contains(cell, (uint32_t)j);
    moved++;
    assigned += is;
    if (was != is) {
      changed++;
      if (n_rows < LFA_FINDING_ROWS_MAX) rows[n_rows++] = j;
    }
  }
  if (moved == 0 || changed == 0) return;                         /* kept (or nothing moved here) */
  if (assigned == 0) return;                                      /* invalidated */
  if (assigned == moved && lfa_fragment_stores(f, now->field_id)) /* written */
    return;
  lfa_where w = {.version = n->version, .file = n->manifest_path, .has_field = true, .field_id = now->field_id,
                 .field_name = vf_snapshot_field_name(&n->snap, now->field_id), .has_fragment = true,
                 .fragment_id = f->id, .n_rows = n_rows, .rows = rows};
  size_t t = lfa_snapshot_tracked(&n->snap, now->field_id);
  if (t != SIZE_MAX) w.file = n->snap.tracked[t].root_file->path;
  const char *why = assigned == moved ? ", yet the fragment does not store the field (so not a write)" : "";
  lfa_findings_add(c->findings, &w, "FA-UPDATE-6", LFA_SEVERITY_ERROR,
                   "version %" PRIu64 ", field %d, fragment %" PRIu64 ": of the %" PRIu64 " rows the update moved "
                   "here from version %" PRIu64 ", %" PRIu64 " are assigned and %" PRIu64 " changed state%s: the "
                   "commit neither writes the field (every moved row assigned), invalidates it (none assigned) "
                   "nor leaves it (every moved row keeps its state)",
                   n->version, now->field_id, f->id, moved, p->version, assigned, changed, why);
}

lfa_status vf_check_update_rows(const vf_ctx *c, const vf_version *p, const vf_version *n,
                                const Lance__Table__Transaction *t, lfa_error *err) {
  if (p == NULL || t->operation_case != LANCE__TABLE__TRANSACTION__OPERATION_UPDATE || t->update == NULL ||
      t->update->update_mode != LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_ROWS)
    return LFA_OK;
  if (!n->table.stable_row_ids || !p->table.stable_row_ids) return LFA_OK; /* address mode: not row by row */
  size_t n_ids = 0;
  live_id *ids = live_ids_of(&n_ids, &p->table);
  if (ids == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory checking an update");
  lfa_status st = LFA_OK;
  for (size_t fi = 0; st == LFA_OK && fi < n->table.n_fragments; fi++) {
    const lfa_fragment *f = &n->table.fragments[fi];
    if (lfa_table_fragment(&p->table, f->id) != SIZE_MAX || f->row_ids == NULL) continue; /* not created by T */
    const live_id **src = calloc(f->physical_rows ? f->physical_rows : 1, sizeof *src);
    if (src == NULL) {
      st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory checking an update");
      break;
    }
    uint64_t moved = 0;
    for (uint64_t j = 0; j < f->physical_rows; j++) {
      if (!lfa_fragment_is_live(f, (uint32_t)j)) continue; /* only live rows count (FA-SEM-2) */
      live_id key = {f->row_ids[j], 0, 0};
      size_t at = lfa_search(&key, ids, n_ids, sizeof *ids, by_id);
      src[j] = at == SIZE_MAX ? NULL : &ids[at];
      moved += src[j] != NULL;
    }
    for (size_t s = 0; moved > 0 && s < n->table.n_tracked; s++) {
      const lfa_field_state *now = &n->table.tracked[s];
      const lfa_field_state *before = lfa_table_tracked(&p->table, now->field_id);
      if (before == NULL || initialized_or_transferred(t, now->field_id)) continue; /* not carried */
      check_field(c, p, n, before, now, fi, src);
    }
    free(src);
  }
  free(ids);
  if (st == LFA_OK && c->findings->lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory checking an update");
  return st;
}
