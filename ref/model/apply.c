/* apply.c: the transition rule (lfa/apply.h, spec 05-operations.md).
 * Implements FA-OP-1, FA-OP-2, FA-OP-6, FA-ID-1, FA-ID-4, FA-APPEND-1, FA-MERGE-1,
 * FA-UPDATE-1..3, FA-REPLACE-1, FA-OVERLAY-1, FA-OVERLAY-3, FA-TXN-8..16,
 * FA-SEM-5, FA-SEM-8. */
#include "lfa/apply.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/pb_types.h"

enum { NOT_INITIALIZED = -1 };

/* What T asks of one field of N. */
typedef struct plan {
  int32_t field;  /* f */
  int32_t source; /* the field of P it continues: a transfer's source, or f */
  int init;       /* NOT_INITIALIZED, or the InitialState (0 unassigned, 1 assigned) */
} plan;

/* Everything the steps share. `written[i]` collects the rows of N's
 * fragment i the operation writes for the current field (step 3). */
typedef struct ctx {
  lfa_table *n;
  const lfa_table *p; /* NULL when T creates the dataset */
  const Txn *t;
  const Sidecar *side; /* never NULL: an empty sidecar when T has none */
  bool *created;       /* per fragment of N: created by this commit */
  roaring_bitmap_t **written;
} ctx;

static const Sidecar EMPTY_SIDECAR = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;

static bool is_op(const ctx *c, Lance__Table__Transaction__OperationCase op) { return c->t->operation_case == op; }

static bool in_schema(const lfa_table *t, int32_t id) { return lfa_table_field(t, id) != NULL; }

static bool tracked_in_p(const ctx *c, int32_t id) {
  /* FA-TXN-8: for an Overwrite nothing counts as tracked in P */
  if (c->p == NULL || is_op(c, LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE)) return false;
  return lfa_table_tracked(c->p, id) != NULL;
}

/* ---- 1. the tracked fields of N (FA-OP-1) ------------------------------------ */

static lfa_status add_plan(plan *plans, size_t *n, plan p, lfa_error *err) {
  for (size_t i = 0; i < *n; i++)
    if (plans[i].field == p.field) {
      lfa_status st = lfa_fail(err, LFA_ERR_RULE, p.init != NOT_INITIALIZED ? "FA-TXN-8" : "FA-TXN-9",
                               "field %d is initialized or transferred more than once, or both", p.field);
      lfa_error_at_field(err, p.field);
      return st;
    }
  plans[(*n)++] = p;
  return LFA_OK;
}

static lfa_status plan_initializations(plan *plans, size_t *n, const ctx *c, lfa_error *err) {
  for (size_t i = 0; i < c->side->n_initializations; i++) {
    const Lance__Table__Transaction__FieldAssignmentTransaction__Initialization *in = c->side->initializations[i];
    lfa_status st = LFA_OK;
    if (!in_schema(c->n, in->field_id))
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-8", "initialization of field %d, which is not in the schema",
                    in->field_id);
    else if (tracked_in_p(c, in->field_id))
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-8", "initialization of field %d, which is already tracked",
                    in->field_id);
    else st = add_plan(plans, n, (plan){in->field_id, in->field_id, (int)in->initial_state}, err);
    if (st != LFA_OK) return lfa_error_at_field(err, in->field_id), st;
  }
  return LFA_OK;
}

static lfa_status plan_transfers(plan *plans, size_t *n, const ctx *c, lfa_error *err) {
  for (size_t i = 0; i < c->side->n_transfers; i++) {
    int32_t s = c->side->transfers[i]->source_field_id, f = c->side->transfers[i]->target_field_id;
    for (size_t j = 0; j < i; j++)
      if (c->side->transfers[j]->source_field_id == s) {
        lfa_status st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-9", "field %d is the source of two transfers", s);
        return lfa_error_at_field(err, s), st;
      }
    lfa_status st = LFA_OK;
    if (!tracked_in_p(c, s) || in_schema(c->n, s))
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-9", "transfer %d -> %d: the source must be tracked and leave the schema",
                    s, f);
    else if (!in_schema(c->n, f) || tracked_in_p(c, f))
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-9",
                    "transfer %d -> %d: the target must be in the schema and not yet tracked", s, f);
    else st = add_plan(plans, n, (plan){f, s, NOT_INITIALIZED}, err);
    if (st != LFA_OK) return lfa_error_at_field(err, f), st; /* the field the transfer would track */
  }
  return LFA_OK;
}

static bool transferred_away(const ctx *c, int32_t id) {
  for (size_t i = 0; i < c->side->n_transfers; i++)
    if (c->side->transfers[i]->source_field_id == id) return true;
  return false;
}

/* Do `x` of `a` and `y` of `b` have the same name path (names from the top
 * level down)? Bounded by the schema sizes: a hostile parent cycle ends. */
static bool same_path(const lfa_table *a, int32_t x, const lfa_table *b, int32_t y) {
  for (size_t hops = 0; hops <= a->n_fields; hops++) {
    const lfa_field *fa = lfa_table_field(a, x), *fb = lfa_table_field(b, y);
    if (fa == NULL || fb == NULL || strcmp(fa->name, fb->name) != 0) return false;
    if (fa->parent_id == -1 || fb->parent_id == -1) return fa->parent_id == fb->parent_id;
    x = fa->parent_id, y = fb->parent_id;
  }
  return false;
}

bool lfa_apply_renumbered(const lfa_table *p, int32_t old_id, const lfa_table *n, int32_t new_id) {
  const lfa_field *before = lfa_table_field(p, old_id), *after = lfa_table_field(n, new_id);
  return before != NULL && after != NULL && !in_schema(n, old_id) && !in_schema(p, new_id) &&
         strcmp(before->logical_type, after->logical_type) == 0 && same_path(p, old_id, n, new_id);
}

/* [FA-ID-1] A carried tracked field keeps its data type and its parent (a
 * parent that moved to a new id by a repair, FA-ID-4, is the same parent):
 * anything else means the id was given to another field, whose rows the
 * carried state does not describe. */
static lfa_status check_carried_identity(const ctx *c, int32_t id, lfa_error *err) {
  const lfa_field *before = lfa_table_field(c->p, id), *after = lfa_table_field(c->n, id);
  if (strcmp(before->logical_type, after->logical_type) != 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-ID-1", "tracked field %d changes its type from '%s' to '%s': the id was "
                    "given to another field", id, before->logical_type, after->logical_type);
  if (before->parent_id != after->parent_id && !lfa_apply_renumbered(c->p, before->parent_id, c->n, after->parent_id))
    return lfa_fail(err, LFA_ERR_RULE, "FA-ID-1", "tracked field %d changes its parent from %d to %d: the id was "
                    "given to another field", id, before->parent_id, after->parent_id);
  return LFA_OK;
}

/* [FA-ID-4] A tracked field that leaves the schema while a field with its
 * name path and type arrives under a new id was renumbered (Lance's repair
 * of duplicate ids): its tracking continues only through a Transfer. */
static lfa_status check_renumbering(const ctx *c, int32_t id, lfa_error *err) {
  for (size_t i = 0; i < c->n->n_fields; i++)
    if (lfa_apply_renumbered(c->p, id, c->n, c->n->fields[i].id))
      return lfa_fail(err, LFA_ERR_RULE, "FA-ID-4", "tracked field %d leaves the schema while field %d arrives with "
                      "its name path and type, and no Transfer(%d, %d) carries its tracking", id, c->n->fields[i].id,
                      id, c->n->fields[i].id);
  return LFA_OK;
}

/* Carried fields: tracked in P, still in N's schema, not a transfer source. */
static lfa_status plan_fields(plan **out, size_t *count, const ctx *c, lfa_error *err) {
  size_t cap = c->side->n_initializations + c->side->n_transfers + (c->p ? c->p->n_tracked : 0) + 1;
  plan *plans = calloc(cap, sizeof *plans);
  size_t n = 0;
  if (plans == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot plan %zu fields", cap);
  lfa_status st = plan_initializations(plans, &n, c, err);
  if (st == LFA_OK) st = plan_transfers(plans, &n, c, err);
  for (size_t i = 0; st == LFA_OK && c->p && i < c->p->n_tracked; i++) {
    int32_t id = c->p->tracked[i].field_id;
    if (!tracked_in_p(c, id) || transferred_away(c, id)) continue;
    if (!in_schema(c->n, id)) st = check_renumbering(c, id, err);
    else if ((st = check_carried_identity(c, id, err)) == LFA_OK)
      st = add_plan(plans, &n, (plan){id, id, NOT_INITIALIZED}, err);
    if (st != LFA_OK) lfa_error_at_field(err, id);
  }
  if (st != LFA_OK) {
    free(plans);
    return st;
  }
  *out = plans;
  *count = n;
  return LFA_OK;
}

/* ---- 2. start state (FA-OP-2 step 1) --------------------------------------------- */

static lfa_status copy_cell(lfa_cell *out, const lfa_cell *in, lfa_error *err) {
  out->kind = in->kind;
  out->rows = NULL;
  if (in->kind == LFA_CELL_PARTIAL && (out->rows = roaring_bitmap_copy(in->rows)) == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot copy a cell");
  return LFA_OK;
}

static lfa_status start_cells(lfa_cell *cells, const ctx *c, const plan *pl, lfa_error *err) {
  const lfa_field_state *src = pl->init == NOT_INITIALIZED ? lfa_table_tracked(c->p, pl->source) : NULL;
  for (size_t i = 0; i < c->n->n_fragments; i++) {
    const lfa_fragment *f = &c->n->fragments[i];
    if (pl->init != NOT_INITIALIZED) {
      cells[i].kind = pl->init == 1 && f->physical_rows > 0 ? LFA_CELL_ALL : LFA_CELL_NONE;
    } else if (!c->created[i]) {
      lfa_status st = copy_cell(&cells[i], &src->cells[lfa_table_fragment(c->p, f->id)], err);
      if (st != LFA_OK) return st;
    } else if (is_op(c, LANCE__TABLE__TRANSACTION__OPERATION_APPEND) && lfa_fragment_stores(f, pl->field)) {
      cells[i].kind = LFA_CELL_ALL; /* [FA-APPEND-1] a stored field, NULL or not, is supplied */
    }
  }
  return LFA_OK;
}

/* ---- 3. rows the operation writes (FA-OP-2 step 2) -------------------------------- */

static lfa_status write_rows(ctx *c, size_t i, const roaring_bitmap_t *rows, lfa_error *err) {
  if (c->written[i] == NULL && (c->written[i] = roaring_bitmap_create()) == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate written rows");
  roaring_bitmap_or_inplace(c->written[i], rows);
  return LFA_OK;
}

static lfa_status write_all(ctx *c, size_t i, lfa_error *err) {
  uint64_t n = c->n->fragments[i].physical_rows;
  roaring_bitmap_t *all = n ? roaring_bitmap_from_range(0, n, 1) : roaring_bitmap_create();
  lfa_status st = all ? write_rows(c, i, all, err) : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  lfa_bitmap_free(all);
  return st;
}

static bool file_lists(const Lance__Table__DataFile *f, int32_t id) {
  for (size_t j = 0; j < f->n_fields; j++)
    if (f->fields[j] == id) return true;
  return false;
}

/* A data file of N's fragment i that P's fragment of the same id lacks. */
static bool added_file(const ctx *c, size_t i, const char *path) {
  const lfa_fragment *old = &c->p->fragments[lfa_table_fragment(c->p, c->n->fragments[i].id)];
  for (size_t k = 0; k < old->n_files; k++)
    if (strcmp(old->files[k].path, path) == 0) return false;
  return true;
}

/* [FA-MERGE-1] a data file added to a carried fragment writes every row. */
static lfa_status merge_writes(ctx *c, int32_t f, lfa_error *err) {
  for (size_t i = 0; i < c->n->n_fragments; i++) {
    const lfa_fragment *frag = &c->n->fragments[i];
    if (c->created[i]) continue;
    for (size_t k = 0; k < frag->n_files; k++) {
      bool lists = false;
      for (size_t j = 0; j < frag->files[k].n_fields; j++) lists |= frag->files[k].fields[j] == f;
      if (lists && added_file(c, i, frag->files[k].path)) {
        lfa_status st = write_all(c, i, err);
        if (st != LFA_OK) return st;
      }
    }
  }
  return LFA_OK;
}

/* [FA-REPLACE-1] the new file's fields are written on every row. */
static lfa_status replacement_writes(ctx *c, int32_t f, lfa_error *err) {
  const Lance__Table__Transaction__DataReplacement *op = c->t->data_replacement;
  for (size_t g = 0; g < op->n_replacements; g++) {
    const Lance__Table__Transaction__DataReplacementGroup *r = op->replacements[g];
    size_t i = lfa_table_fragment(c->n, r->fragment_id);
    if (r->new_file == NULL || !file_lists(r->new_file, f)) continue;
    lfa_status st = i == SIZE_MAX || c->created[i]
                        ? lfa_fail(err, LFA_ERR_RULE, "FA-REPLACE-1", "replacement names fragment %" PRIu64
                                   ", which is not a carried fragment of the new snapshot", r->fragment_id)
                        : write_all(c, i, err);
    if (st != LFA_OK) return lfa_error_at_fragment(err, r->fragment_id), st;
  }
  return LFA_OK;
}

/* Decodes an offsets bitmap of fragment i and checks its bounds. */
static lfa_status decode_offsets(roaring_bitmap_t **out, const ctx *c, size_t i, const ProtobufCBinaryData *b,
                                 const char *rule, lfa_error *err) {
  lfa_status st = lfa_bitmap_decode(out, b->data, b->len, err);
  uint64_t rows = c->n->fragments[i].physical_rows;
  if (st == LFA_OK && !roaring_bitmap_is_empty(*out) && roaring_bitmap_maximum(*out) >= rows) {
    st = lfa_fail(err, LFA_ERR_RULE, rule, "offset %u is not below physical_rows %" PRIu64,
                  (unsigned)roaring_bitmap_maximum(*out), rows);
    lfa_bitmap_free(*out);
    *out = NULL;
  }
  return st;
}

/* [FA-OVERLAY-1] covered offsets are written, NULL values included. */
static lfa_status overlay_file_writes(ctx *c, size_t i, const Lance__Table__DataOverlayFile *o, int32_t f,
                                      lfa_error *err) {
  const Lance__Table__DataFile *df = o->data_file;
  for (size_t k = 0; df != NULL && k < df->n_fields; k++) {
    if (df->fields[k] != f) continue;
    const ProtobufCBinaryData *cov = NULL;
    if (o->coverage_case == LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_SHARED_OFFSET_BITMAP)
      cov = &o->shared_offset_bitmap;
    else if (o->coverage_case == LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_FIELD_COVERAGE &&
             o->field_coverage->n_offset_bitmaps == df->n_fields)
      cov = &o->field_coverage->offset_bitmaps[k];
    if (cov == NULL) /* [FA-OVERLAY-3] one coverage bitmap per listed field */
      return lfa_fail(err, LFA_ERR_RULE, "FA-OVERLAY-3", "overlay '%s' has no coverage for field %d", df->path, f);
    roaring_bitmap_t *rows;
    lfa_status st = decode_offsets(&rows, c, i, cov, "FA-OVERLAY-3", err);
    if (st == LFA_OK) st = write_rows(c, i, rows, err);
    lfa_bitmap_free(rows);
    if (st != LFA_OK) return st;
  }
  return LFA_OK;
}

static lfa_status overlay_writes(ctx *c, int32_t f, lfa_error *err) {
  const Lance__Table__Transaction__DataOverlay *op = c->t->data_overlay;
  for (size_t g = 0; g < op->n_groups; g++) {
    size_t i = lfa_table_fragment(c->n, op->groups[g]->fragment_id);
    lfa_status st = LFA_OK;
    if (i == SIZE_MAX || c->created[i])
      st = lfa_fail(err, LFA_ERR_RULE, "FA-OVERLAY-1", "overlay on fragment %" PRIu64
                    ", which is not a carried fragment of the new snapshot", op->groups[g]->fragment_id);
    for (size_t k = 0; st == LFA_OK && k < op->groups[g]->n_overlays; k++)
      st = overlay_file_writes(c, i, op->groups[g]->overlays[k], f, err);
    if (st != LFA_OK) return lfa_error_at_fragment(err, op->groups[g]->fragment_id), st;
  }
  return LFA_OK;
}

/* The matched offsets of updated fragment `id`: field 10, else field 9
 * [FA-UPDATE-2]. NULL when neither names the fragment. */
static lfa_status matched_offsets(roaring_bitmap_t **out, const ctx *c, size_t i, lfa_error *err) {
  const Lance__Table__Transaction__Update *u = c->t->update;
  uint64_t id = c->n->fragments[i].id;
  *out = NULL;
  for (size_t k = 0; k < u->n_updated_fragment_offset_bitmaps; k++)
    if (u->updated_fragment_offset_bitmaps[k]->key == id)
      return decode_offsets(out, c, i, &u->updated_fragment_offset_bitmaps[k]->value, "FA-UPDATE-2", err);
  for (size_t k = 0; k < u->n_updated_fragment_offsets; k++) {
    const Lance__Table__Transaction__UInt32List *l = u->updated_fragment_offsets[k]->value;
    if (u->updated_fragment_offsets[k]->key != id || l == NULL) continue;
    for (size_t j = 0; j < l->n_values; j++)
      if ((j > 0 && l->values[j] <= l->values[j - 1]) || l->values[j] >= c->n->fragments[i].physical_rows)
        return lfa_fail(err, LFA_ERR_RULE, "FA-UPDATE-2", "matched offsets of fragment %" PRIu64
                        " are not strictly ascending below physical_rows", id);
    if ((*out = roaring_bitmap_of_ptr(l->n_values, l->values)) == NULL)
      return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    return LFA_OK;
  }
  return LFA_OK;
}

/* [FA-UPDATE-1] a file added to an updated fragment writes its carried
 * fields on the matched offsets, which must be given [FA-UPDATE-2]. */
static lfa_status column_update_writes(ctx *c, int32_t f, lfa_error *err) {
  const Lance__Table__Transaction__Update *u = c->t->update;
  for (size_t g = 0; g < u->n_updated_fragments; g++) {
    size_t i = lfa_table_fragment(c->n, u->updated_fragments[g]->id);
    if (i == SIZE_MAX || c->created[i]) continue; /* removed by the same commit, or not carried */
    bool writes = false;
    for (size_t k = 0; k < c->n->fragments[i].n_files; k++) {
      const lfa_data_file *df = &c->n->fragments[i].files[k];
      for (size_t j = 0; j < df->n_fields; j++) writes |= df->fields[j] == f && added_file(c, i, df->path);
    }
    if (!writes) continue;
    roaring_bitmap_t *rows;
    lfa_status st = matched_offsets(&rows, c, i, err);
    if (st == LFA_OK && (rows == NULL || roaring_bitmap_is_empty(rows)))
      st = lfa_fail(err, LFA_ERR_RULE, "FA-UPDATE-2", "fragment %" PRIu64 " gains a file for tracked field %d "
                    "but the update gives no matched offsets", c->n->fragments[i].id, f);
    if (st == LFA_OK) st = write_rows(c, i, rows, err);
    lfa_bitmap_free(rows);
    if (st != LFA_OK) return lfa_error_at_fragment(err, c->n->fragments[i].id), st;
  }
  return LFA_OK;
}

/* The table of 05§18, for a carried field f. */
static lfa_status operation_writes(ctx *c, int32_t f, lfa_error *err) {
  switch ((int)c->t->operation_case) {
    case LANCE__TABLE__TRANSACTION__OPERATION_MERGE: return merge_writes(c, f, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_DATA_REPLACEMENT: return replacement_writes(c, f, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_DATA_OVERLAY: return overlay_writes(c, f, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_UPDATE:
      if (c->t->update->update_mode == LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_COLUMNS)
        return column_update_writes(c, f, err);
      return LFA_OK; /* REWRITE_ROWS: new fragments by their FragmentStates */
    default: return LFA_OK;
  }
}

/* ---- 4. fragment states (FA-OP-2 step 3) ------------------------------------------- */

/* [FA-TXN-13] the one created fragment whose first data file is `path`. */
static lfa_status created_fragment(size_t *out, const ctx *c, const char *path, lfa_error *err) {
  *out = SIZE_MAX;
  for (size_t i = 0; i < c->n->n_fragments; i++) {
    const lfa_fragment *f = &c->n->fragments[i];
    if (!c->created[i] || f->n_files == 0 || strcmp(f->files[0].path, path) != 0) continue;
    if (*out != SIZE_MAX)
      return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-13", "fragment state '%s' matches two created fragments", path);
    *out = i;
  }
  if (*out == SIZE_MAX)
    return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-13", "fragment state '%s' names no fragment this commit created", path);
  return LFA_OK;
}

static lfa_status set_fragment_state(lfa_cell *cell, const FragmentState *fs, const ctx *c, size_t i, lfa_error *err) {
  lfa_bitmap_free(cell->rows);
  cell->rows = NULL;
  cell->kind = LFA_CELL_NONE;
  if (fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED) {
    cell->kind = LFA_CELL_ALL;
  } else if (fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL) {
    lfa_status st = decode_offsets(&cell->rows, c, i, &fs->partial, "FA-TXN-2", err);
    if (st != LFA_OK) return st;
    if (roaring_bitmap_get_cardinality(cell->rows) == c->n->fragments[i].physical_rows)
      return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-2", "partial state of '%s' holds every row", fs->fragment_path);
    cell->kind = LFA_CELL_PARTIAL;
  }
  return LFA_OK;
}

/* Applies the states for field f and counts them per created fragment. */
static lfa_status apply_fragment_states(lfa_cell *cells, unsigned *stated, const ctx *c, int32_t f, lfa_error *err) {
  for (size_t k = 0; k < c->side->n_fragment_states; k++) {
    const FragmentState *fs = c->side->fragment_states[k];
    if (fs->field_id != f) continue;
    size_t i = 0;
    lfa_status st = created_fragment(&i, c, fs->fragment_path, err);
    if (st == LFA_OK && stated[i]++ > 0)
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-13", "two fragment states for field %d in '%s'", f, fs->fragment_path);
    if (st == LFA_OK) st = set_fragment_state(&cells[i], fs, c, i, err);
    if (st != LFA_OK && i != SIZE_MAX) lfa_error_at_fragment(err, c->n->fragments[i].id);
    if (st != LFA_OK) return st;
  }
  return LFA_OK;
}

/* ---- 5. row changes (FA-OP-2 step 4) ------------------------------------------------ */

/* [FA-TXN-10] an address of a row live in P, in a carried fragment, live in N. */
static lfa_status check_address(size_t *n_index, const ctx *c, uint64_t fragment, uint32_t offset, lfa_error *err) {
  size_t pi = c->p ? lfa_table_fragment(c->p, fragment) : SIZE_MAX, ni = lfa_table_fragment(c->n, fragment);
  if (pi == SIZE_MAX || ni == SIZE_MAX || c->created[ni] || !lfa_fragment_is_live(&c->p->fragments[pi], offset) ||
      !lfa_fragment_is_live(&c->n->fragments[ni], offset))
    return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-10", "row change names row (%" PRIu64 ", %u), which is not live in "
                    "both the parent and the new snapshot", fragment, (unsigned)offset);
  *n_index = ni;
  return LFA_OK;
}

static lfa_status apply_row_change(lfa_cell *cells, const ctx *c, const RowChange *rc, lfa_error *err) {
  lfa_treemap tm;
  lfa_status st = lfa_treemap_decode(&tm, rc->row_addresses.data, rc->row_addresses.len, err);
  for (size_t b = 0; st == LFA_OK && b < tm.count; b++) {
    roaring_uint32_iterator_t *it = roaring_create_iterator(tm.low[b]);
    for (; st == LFA_OK && it != NULL && it->has_value; roaring_advance_uint32_iterator(it)) {
      size_t i = 0;
      st = check_address(&i, c, tm.high[b], it->current_value, err);
      bool wrote = st == LFA_OK && c->written[i] != NULL && roaring_bitmap_contains(c->written[i], it->current_value);
      if (st == LFA_OK && rc->assigned && !wrote) /* [FA-TXN-12] only repeats a write */
        st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-12", "row change assigns row (%u, %u), which the commit does not write",
                      (unsigned)tm.high[b], (unsigned)it->current_value);
      if (st == LFA_OK && !rc->assigned && wrote) /* [FA-SEM-5] never both */
        st = lfa_fail(err, LFA_ERR_RULE, "FA-SEM-5", "field %d is both written and invalidated on row (%u, %u)",
                      rc->field_id, (unsigned)tm.high[b], (unsigned)it->current_value);
      if (st == LFA_OK && !rc->assigned) {
        lfa_cell *cell = &cells[i];
        if (cell->kind == LFA_CELL_ALL) {
          cell->kind = LFA_CELL_PARTIAL;
          cell->rows = roaring_bitmap_from_range(0, c->n->fragments[i].physical_rows, 1);
        }
        if (cell->kind == LFA_CELL_PARTIAL) roaring_bitmap_remove(cell->rows, it->current_value);
      }
    }
    if (it != NULL) roaring_free_uint32_iterator(it);
    if (st != LFA_OK) lfa_error_at_fragment(err, tm.high[b]); /* a row address: fragment id, offset */
  }
  lfa_treemap_free(&tm);
  return st;
}

/* ---- 6. the field's final cells ------------------------------------------------------ */

/* [FA-TXN-14] Rewrite, Update and Merge state every created fragment of
 * every carried or transferred field. */
static bool needs_states(const ctx *c) {
  return is_op(c, LANCE__TABLE__TRANSACTION__OPERATION_REWRITE) || is_op(c, LANCE__TABLE__TRANSACTION__OPERATION_UPDATE) ||
         is_op(c, LANCE__TABLE__TRANSACTION__OPERATION_MERGE);
}

static lfa_status finish_cells(lfa_cell *cells, const unsigned *stated, const ctx *c, const plan *pl, lfa_error *err) {
  for (size_t i = 0; i < c->n->n_fragments; i++) {
    const lfa_fragment *f = &c->n->fragments[i];
    if (cells[i].kind == LFA_CELL_PARTIAL && cells[i].rows == NULL)
      return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    lfa_cell_canonicalize(&cells[i], f->physical_rows);
    if (!c->created[i]) continue;
    lfa_status st = LFA_OK;
    if (pl->init == NOT_INITIALIZED && needs_states(c) && stated[i] == 0)
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-14", "no fragment state for field %d in created fragment %" PRIu64,
                    pl->field, f->id);
    /* [FA-SEM-8] an assignment in a created fragment has a stored value
     * behind it, unless the commit initializes the field as assigned */
    else if (cells[i].kind != LFA_CELL_NONE && !lfa_fragment_stores(f, pl->field) && pl->init != 1)
      st = lfa_fail(err, LFA_ERR_RULE, "FA-SEM-8", "created fragment %" PRIu64 " does not store field %d "
                    "but its rows are assigned", f->id, pl->field);
    if (st != LFA_OK) return lfa_error_at_fragment(err, f->id), st;
  }
  return LFA_OK;
}

static void clear_written(ctx *c) {
  for (size_t i = 0; i < c->n->n_fragments; i++) {
    lfa_bitmap_free(c->written[i]);
    c->written[i] = NULL;
  }
}

/* FA-OP-2, steps 1 to 4, for one field of N. */
static lfa_status compute_field(lfa_field_state *out, ctx *c, const plan *pl, lfa_error *err) {
  size_t n = c->n->n_fragments ? c->n->n_fragments : 1;
  unsigned *stated = calloc(n, sizeof *stated);
  out->field_id = pl->field;
  out->cells = calloc(n, sizeof *out->cells);
  lfa_status st = stated && out->cells ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK) st = start_cells(out->cells, c, pl, err);
  bool carried = pl->init == NOT_INITIALIZED && pl->source == pl->field;
  if (st == LFA_OK && carried) st = operation_writes(c, pl->field, err);
  for (size_t i = 0; st == LFA_OK && i < c->n->n_fragments; i++) {
    if (c->written[i] == NULL) continue;
    lfa_cell *cell = &out->cells[i];
    if (cell->kind == LFA_CELL_NONE) cell->rows = roaring_bitmap_create(), cell->kind = LFA_CELL_PARTIAL;
    if (cell->kind == LFA_CELL_PARTIAL && cell->rows != NULL) roaring_bitmap_or_inplace(cell->rows, c->written[i]);
  }
  if (st == LFA_OK) st = apply_fragment_states(out->cells, stated, c, pl->field, err);
  for (size_t k = 0; st == LFA_OK && k < c->side->n_row_changes; k++) {
    const RowChange *rc = c->side->row_changes[k];
    if (rc->field_id != pl->field) continue;
    if (pl->init != NOT_INITIALIZED) /* [FA-TXN-10] not on a field it initializes */
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-10", "row change for field %d, which the commit initializes", pl->field);
    else st = apply_row_change(out->cells, c, rc, err);
  }
  if (st == LFA_OK) st = finish_cells(out->cells, stated, c, pl, err);
  clear_written(c);
  free(stated);
  return st;
}

/* ---- the rule ------------------------------------------------------------------------ */

static bool known_operation(const Txn *t) {
  unsigned k = (unsigned)t->operation_case;
  return k >= LANCE__TABLE__TRANSACTION__OPERATION_APPEND && k <= LANCE__TABLE__TRANSACTION__OPERATION_DATA_OVERLAY;
}

static bool plans_field(const plan *plans, size_t n, int32_t id) {
  for (size_t i = 0; i < n; i++)
    if (plans[i].field == id) return true;
  return false;
}

/* [FA-TXN-10] [FA-TXN-13] a row change or fragment state (`what`) is for
 * a field the new snapshot tracks. */
static lfa_status planned(const plan *plans, size_t n, int32_t id, const char *rule, const char *what, lfa_error *err) {
  if (plans_field(plans, n, id)) return LFA_OK;
  lfa_status st =
      lfa_fail(err, LFA_ERR_RULE, rule, "%s for field %d, which is not tracked in the new snapshot", what, id);
  return lfa_error_at_field(err, id), st;
}

/* Rules on the transaction as a whole, before any field is computed. */
static lfa_status check_transaction(const ctx *c, const plan *plans, size_t n_plans, lfa_error *err) {
  bool tracked = (c->p && c->p->n_tracked > 0) || n_plans > 0;
  if (tracked && !known_operation(c->t)) /* [FA-OP-6] */
    return lfa_fail(err, LFA_ERR_RULE, "FA-OP-6", "operation %d is unknown, and the dataset tracks fields",
                    (int)c->t->operation_case);
  if (is_op(c, LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE) &&
      (c->side->n_row_changes > 0 || c->side->n_transfers > 0)) /* [FA-TXN-16] */
    return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-16", "an overwrite carries row changes or transfers");
  lfa_status st = LFA_OK;
  for (size_t k = 0; st == LFA_OK && k < c->side->n_row_changes; k++)
    st = planned(plans, n_plans, c->side->row_changes[k]->field_id, "FA-TXN-10", "row change", err);
  for (size_t k = 0; st == LFA_OK && k < c->side->n_fragment_states; k++)
    st = planned(plans, n_plans, c->side->fragment_states[k]->field_id, "FA-TXN-13", "fragment state", err);
  return st;
}

static int by_field(const void *a, const void *b) {
  int32_t x = ((const lfa_field_state *)a)->field_id, y = ((const lfa_field_state *)b)->field_id;
  return (x > y) - (x < y);
}

static lfa_status compute_fields(ctx *c, const plan *plans, size_t n_plans, lfa_error *err) {
  lfa_table *n = c->n;
  free(n->tracked); /* an empty list: n_tracked is 0 */
  n->tracked = calloc(n_plans ? n_plans : 1, sizeof *n->tracked);
  if (n->tracked == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; k < n_plans; k++) {
    n->n_tracked = k + 1;
    lfa_status st = compute_field(&n->tracked[k], c, &plans[k], err);
    if (st != LFA_OK) return lfa_error_at_field(err, plans[k].field), st;
  }
  qsort(n->tracked, n->n_tracked, sizeof *n->tracked, by_field);
  return LFA_OK;
}

lfa_status lfa_apply_assignment(lfa_table *n, const lfa_table *p, const Txn *t, lfa_error *err) {
  if (n->n_tracked != 0) return lfa_fail(err, LFA_ERR_USAGE, NULL, "the new table already has tracked fields");
  ctx c = {n, p, t, t->field_assignment_transaction ? t->field_assignment_transaction : &EMPTY_SIDECAR, NULL, NULL};
  if (is_op(&c, LANCE__TABLE__TRANSACTION__OPERATION_RESTORE) || is_op(&c, LANCE__TABLE__TRANSACTION__OPERATION_CLONE))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "restore and clone take their state from another version");
  if (p == NULL && !is_op(&c, LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "only an overwrite creates a dataset");
  size_t count = n->n_fragments ? n->n_fragments : 1, n_plans = 0;
  c.created = calloc(count, sizeof *c.created);
  c.written = calloc(count, sizeof *c.written);
  plan *plans = NULL;
  lfa_status st = c.created && c.written ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < n->n_fragments; i++)
    c.created[i] = p == NULL || is_op(&c, LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE) ||
                   lfa_table_fragment_near(p, n->fragments[i].id, i) == SIZE_MAX;
  if (st == LFA_OK) st = plan_fields(&plans, &n_plans, &c, err);
  if (st == LFA_OK) st = check_transaction(&c, plans, n_plans, err);
  if (st == LFA_OK) st = compute_fields(&c, plans, n_plans, err);
  if (st != LFA_OK) lfa_table_drop_state(n);
  if (c.written != NULL) clear_written(&c);
  free(c.written);
  free(c.created);
  free(plans);
  return st;
}

lfa_status lfa_apply_copy_state(lfa_table *n, const lfa_table *source, lfa_error *err) {
  if (n->n_tracked != 0) return lfa_fail(err, LFA_ERR_USAGE, NULL, "the new table already has tracked fields");
  if (n->n_fragments != source->n_fragments)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "restored fragments differ from the source's");
  lfa_table copy;
  lfa_status st = lfa_table_copy(&copy, source, err);
  if (st != LFA_OK) return st;
  free(n->tracked); /* an empty list: n_tracked is 0 */
  n->tracked = copy.tracked, n->n_tracked = copy.n_tracked;
  copy.tracked = NULL, copy.n_tracked = 0;
  lfa_table_free(&copy);
  return LFA_OK;
}
