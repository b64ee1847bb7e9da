/* commit.c: building N from the head P and a change (lfa/commit.h), the way
 * Lance's manifest builder does, then its state by lfa_apply_assignment.
 *
 * Structure, per operation (02§8.1, 02§8.3, 02§8.4):
 *   Append            P's fragments + the new ones (ids handed out)
 *   Delete            updated fragments take their new deletion sets;
 *                     deleted_fragment_ids leave
 *   Overwrite         T's schema and fragments; ids restart at 0
 *   Rewrite           each group's old fragments leave, its new ones arrive
 *   Merge             T's schema and whole fragment list
 *   Project           T's schema
 *   Update            removed leave, updated are replaced, new arrive
 *   DataReplacement   the fragment's file with the same fields is swapped,
 *                     or the new file added
 *   DataOverlay       each group's overlays join its fragment's list
 *   ReserveFragments  the id high-water mark moves
 *   Restore, Clone    the restored (cloned) version, structure and state
 *   others            P as it is
 *
 * Then, whatever the operation: field ids stored twice in one fragment are
 * repaired as Lance's committer does (FA-ID-4), and no id may pass to
 * another field (FA-ID-3); a writer word with an unknown bit stops the
 * commit first (FA-FLAG-5).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "lfa/commit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/apply.h"
#include "lfa/bitmap.h"
#include "lfa/pb_types.h"
#include "lfa/rowids.h"


/* ---- fragments of the transaction -------------------------------------------- */

static lfa_status copy_u64(uint64_t **out, const uint64_t *src, uint64_t n, lfa_error *err) {
  *out = NULL;
  if (n == 0) return LFA_OK;
  if (n > SIZE_MAX / sizeof **out || (*out = malloc((size_t)n * sizeof **out)) == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot copy %" PRIu64 " ids", n);
  memcpy(*out, src, (size_t)n * sizeof **out);
  return LFA_OK;
}

static lfa_status take_deletions(lfa_fragment *out, const DataFragment *pb, const lfa_change *c, lfa_error *err) {
  if (pb->deletion_file == NULL) return LFA_OK;
  out->deletion_file = (lfa_deletion_file){pb->deletion_file->read_version, pb->deletion_file->id,
                                           pb->deletion_file->file_type ==
                                               LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP};
  for (size_t i = 0; i < c->n_deletions; i++)
    if (c->deletions[i].fragment_id == pb->id && c->deletions[i].file_id == pb->deletion_file->id) {
      out->deleted = roaring_bitmap_copy(c->deletions[i].offsets);
      return out->deleted ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    }
  return lfa_fail(err, LFA_ERR_USAGE, NULL, "fragment %" PRIu64 ": the change holds no set for deletion file %" PRIu64,
                  pb->id, pb->deletion_file->id);
}

static lfa_status take_keys(lfa_fragment *out, const lfa_change *c, lfa_error *err) {
  for (size_t i = 0; out->n_files > 0 && i < c->n_keys; i++)
    if (strcmp(c->keys[i].first_file, out->files[0].path) == 0) {
      if (c->keys[i].count != out->physical_rows)
        return lfa_fail(err, LFA_ERR_USAGE, NULL, "'%s': %" PRIu64 " keys for %" PRIu64 " rows", out->files[0].path,
                        c->keys[i].count, out->physical_rows);
      return copy_u64(&out->keys, c->keys[i].keys, c->keys[i].count, err);
    }
  return LFA_OK;
}

static lfa_status take_row_ids(lfa_fragment *out, const DataFragment *pb, lfa_error *err) {
  if (pb->row_id_sequence_case != LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS) return LFA_OK;
  lfa_row_ids ids;
  /* [FA-LANCE-7] one id per physical row */
  lfa_status st = lfa_row_ids_decode_rows(&ids, pb->inline_row_ids.data, pb->inline_row_ids.len, pb->physical_rows, err);
  if (st != LFA_OK) lfa_error_prefix(err, "fragment %" PRIu64, pb->id), lfa_error_at_fragment(err, pb->id);
  if (st == LFA_OK) out->row_ids = ids.ids, ids.ids = NULL;
  lfa_row_ids_free(&ids);
  return st;
}

/* A fragment of T as the model holds it. */
static lfa_status fragment_of(lfa_fragment *out, const DataFragment *pb, const lfa_change *c, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->id = pb->id;
  out->physical_rows = pb->physical_rows;
  out->files = calloc(pb->n_files + 1, sizeof *out->files);
  if (out->files == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; k < pb->n_files; k++, out->n_files++) {
    lfa_data_file *f = &out->files[k];
    f->n_fields = pb->files[k]->n_fields;
    f->path = strdup(pb->files[k]->path);
    f->fields = malloc((f->n_fields + 1) * sizeof *f->fields);
    if (f->path == NULL || f->fields == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    if (f->n_fields) memcpy(f->fields, pb->files[k]->fields, f->n_fields * sizeof *f->fields);
  }
  lfa_status st = take_deletions(out, pb, c, err);
  for (size_t k = 0; st == LFA_OK && k < pb->n_overlays; k++) st = lfa_fragment_add_overlay(out, pb->overlays[k], err);
  if (st == LFA_OK) st = take_row_ids(out, pb, err);
  if (st == LFA_OK) st = take_keys(out, c, err);
  return st;
}

/* ---- the fragment list of N ----------------------------------------------------------- */

static size_t index_of(const lfa_table *n, uint64_t id) {
  for (size_t i = 0; i < n->n_fragments; i++) /* N may be unsorted while it is built */
    if (n->fragments[i].id == id) return i;
  return SIZE_MAX;
}

static lfa_status remove_fragment(lfa_table *n, uint64_t id, lfa_error *err) {
  size_t i = index_of(n, id);
  if (i == SIZE_MAX) return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-5", "fragment %" PRIu64 " is not in the snapshot", id);
  lfa_fragment_free(&n->fragments[i]);
  memmove(&n->fragments[i], &n->fragments[i + 1], (n->n_fragments - i - 1) * sizeof *n->fragments);
  n->n_fragments--;
  return LFA_OK;
}

/* Hands out the next fragment id, as Lance's builder does for id 0. */
static uint64_t next_fragment_id(lfa_table *n) {
  uint64_t id = n->has_max_fragment_id ? (uint64_t)n->max_fragment_id + 1 : 0;
  n->max_fragment_id = (uint32_t)id;
  n->has_max_fragment_id = true;
  return id;
}

/* Stable row ids: created rows without ids take the next ones. */
static lfa_status give_row_ids(lfa_table *n, lfa_fragment *f, lfa_error *err) {
  if (!n->stable_row_ids || f->row_ids != NULL || f->physical_rows == 0) return LFA_OK;
  if ((f->row_ids = malloc((size_t)f->physical_rows * sizeof *f->row_ids)) == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (uint64_t o = 0; o < f->physical_rows; o++) f->row_ids[o] = n->next_row_id++;
  return LFA_OK;
}

/* Takes ownership of *f (also on failure). A created fragment (`fresh`)
 * with id 0 gets a new id. */
static lfa_status add_fragment(lfa_table *n, lfa_fragment *f, bool fresh, lfa_error *err) {
  if (fresh && f->id == 0) f->id = next_fragment_id(n);
  if (f->id > UINT32_MAX) {
    lfa_fragment_free(f);
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-5", "fragment id %" PRIu64 " does not fit a row address", f->id);
  }
  if (!n->has_max_fragment_id || f->id > n->max_fragment_id) n->max_fragment_id = (uint32_t)f->id;
  n->has_max_fragment_id = true;
  lfa_fragment *grown = realloc(n->fragments, (n->n_fragments + 1) * sizeof *grown);
  lfa_status st = grown ? give_row_ids(n, f, err) : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (grown) n->fragments = grown;
  if (st != LFA_OK) {
    lfa_fragment_free(f);
    return st;
  }
  n->fragments[n->n_fragments++] = *f;
  return LFA_OK;
}

static lfa_status add_from_txn(lfa_table *n, DataFragment *const *pbs, size_t count, const lfa_change *c,
                               lfa_error *err) {
  for (size_t k = 0; k < count; k++) {
    lfa_fragment f;
    lfa_status st = fragment_of(&f, pbs[k], c, err);
    if (st != LFA_OK) {
      lfa_fragment_free(&f);
      return st;
    }
    if ((st = add_fragment(n, &f, true, err)) != LFA_OK) return st;
  }
  return LFA_OK;
}

/* An updated fragment keeps its rows: keys and row ids it does not restate
 * carry over from P. */
static lfa_status replace_fragment(lfa_table *n, const DataFragment *pb, const lfa_change *c, lfa_error *err) {
  size_t i = index_of(n, pb->id);
  if (i == SIZE_MAX) return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-5", "updated fragment %" PRIu64 " is not in the snapshot", pb->id);
  lfa_fragment f;
  lfa_status st = fragment_of(&f, pb, c, err);
  lfa_fragment *old = &n->fragments[i];
  if (st == LFA_OK && f.physical_rows != old->physical_rows)
    st = lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-5", "updated fragment %" PRIu64 " changes its physical rows", pb->id);
  if (st != LFA_OK) {
    lfa_fragment_free(&f);
    return st;
  }
  if (f.keys == NULL) f.keys = old->keys, old->keys = NULL;
  if (f.row_ids == NULL) f.row_ids = old->row_ids, old->row_ids = NULL;
  if (f.n_overlays == 0) /* overlays stay until a compaction folds them [FA-OVERLAY-2] */
    f.overlays = old->overlays, f.n_overlays = old->n_overlays, old->overlays = NULL, old->n_overlays = 0;
  lfa_fragment_free(old);
  *old = f;
  return LFA_OK;
}

static int by_id(const void *a, const void *b) {
  uint64_t x = ((const lfa_fragment *)a)->id, y = ((const lfa_fragment *)b)->id;
  return (x > y) - (x < y);
}

/* Lance re-sorts the list by id after every change [FA-LANCE-5]. */
static lfa_status sort_fragments(lfa_table *n, lfa_error *err) {
  if (n->n_fragments > 1) qsort(n->fragments, n->n_fragments, sizeof *n->fragments, by_id); /* qsort(NULL, 0) is UB */
  for (size_t i = 1; i < n->n_fragments; i++)
    if (n->fragments[i].id == n->fragments[i - 1].id)
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-5", "two fragments have id %" PRIu64, n->fragments[i].id);
  return LFA_OK;
}

/* ---- per operation ------------------------------------------------------------------ */

static lfa_status set_schema(lfa_table *n, Lance__File__Field *const *fields, size_t count, lfa_error *err) {
  for (size_t i = 0; i < n->n_fields; i++) {
    free(n->fields[i].name);
    free(n->fields[i].logical_type);
  }
  free(n->fields);
  n->n_fields = 0;
  if ((n->fields = calloc(count + 1, sizeof *n->fields)) == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < count; i++, n->n_fields++) {
    lfa_field *f = &n->fields[i];
    f->id = fields[i]->id, f->parent_id = fields[i]->parent_id, f->nullable = fields[i]->nullable;
    f->name = strdup(fields[i]->name ? fields[i]->name : "");
    f->logical_type = strdup(fields[i]->logical_type ? fields[i]->logical_type : "");
    if (f->name == NULL || f->logical_type == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  return LFA_OK;
}

static void drop_fragments(lfa_table *n) {
  for (size_t i = 0; i < n->n_fragments; i++) lfa_fragment_free(&n->fragments[i]);
  n->n_fragments = 0;
}

/* [FA-OVERWRITE-4] [FA-LANCE-22] Ids restart at 0, the high-water mark
 * stays (02§8.5); next_row_id is P's, copied with it, so new rows continue
 * from it. */
static lfa_status build_overwrite(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction__Overwrite *op = c->txn->overwrite;
  lfa_status st = set_schema(n, op->schema, op->n_schema, err);
  drop_fragments(n);
  uint32_t mark = n->max_fragment_id;
  bool had = n->has_max_fragment_id;
  n->has_max_fragment_id = false;
  if (st == LFA_OK) st = add_from_txn(n, op->fragments, op->n_fragments, c, err);
  if (had && mark > n->max_fragment_id) n->max_fragment_id = mark;
  n->has_max_fragment_id |= had;
  return st;
}

static lfa_status build_rewrite(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction__Rewrite *op = c->txn->rewrite;
  /* the legacy form is one group in fields 1 and 2 [FA-REMAP-4] */
  Lance__Table__Transaction__Rewrite__RewriteGroup legacy = LANCE__TABLE__TRANSACTION__REWRITE__REWRITE_GROUP__INIT;
  legacy.old_fragments = op->old_fragments, legacy.n_old_fragments = op->n_old_fragments;
  legacy.new_fragments = op->new_fragments, legacy.n_new_fragments = op->n_new_fragments;
  lfa_status st = LFA_OK;
  for (size_t g = 0; st == LFA_OK && g < op->n_groups + 1; g++) {
    const Lance__Table__Transaction__Rewrite__RewriteGroup *grp = g < op->n_groups ? op->groups[g] : &legacy;
    for (size_t k = 0; st == LFA_OK && k < grp->n_old_fragments; k++) st = remove_fragment(n, grp->old_fragments[k]->id, err);
    if (st == LFA_OK) st = add_from_txn(n, grp->new_fragments, grp->n_new_fragments, c, err);
  }
  return st;
}

/* Merge restates the whole list: fragments of P are replaced (and none may
 * be left out, as Lance validates), others are created. */
static lfa_status build_merge(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction__Merge *op = c->txn->merge;
  lfa_status st = set_schema(n, op->schema, op->n_schema, err);
  size_t of_p = n->n_fragments, restated = 0;
  for (size_t k = 0; st == LFA_OK && k < op->n_fragments; k++) {
    size_t i = index_of(n, op->fragments[k]->id);
    if (i < of_p) {
      st = replace_fragment(n, op->fragments[k], c, err);
      restated++;
    } else {
      st = add_from_txn(n, &op->fragments[k], 1, c, err);
    }
  }
  if (st == LFA_OK && restated != of_p)
    st = lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-5", "merge restates %zu of the %zu fragments of the snapshot", restated, of_p);
  return st;
}

static lfa_status build_update(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction__Update *op = c->txn->update;
  lfa_status st = LFA_OK;
  for (size_t k = 0; st == LFA_OK && k < op->n_removed_fragment_ids; k++) st = remove_fragment(n, op->removed_fragment_ids[k], err);
  for (size_t k = 0; st == LFA_OK && k < op->n_updated_fragments; k++) st = replace_fragment(n, op->updated_fragments[k], c, err);
  if (st == LFA_OK) st = add_from_txn(n, op->new_fragments, op->n_new_fragments, c, err);
  return st;
}

static lfa_status build_delete(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction__Delete *op = c->txn->delete_;
  lfa_status st = LFA_OK;
  for (size_t k = 0; st == LFA_OK && k < op->n_updated_fragments; k++) st = replace_fragment(n, op->updated_fragments[k], c, err);
  for (size_t k = 0; st == LFA_OK && k < op->n_deleted_fragment_ids; k++) st = remove_fragment(n, op->deleted_fragment_ids[k], err);
  return st;
}

/* Data files that list no field of the schema are removed; mixed files
 * keep listing dropped ids (02§8.4). */
static void drop_dead_files(lfa_table *n) {
  for (size_t i = 0; i < n->n_fragments; i++) {
    lfa_fragment *f = &n->fragments[i];
    size_t kept = 0;
    for (size_t k = 0; k < f->n_files; k++) {
      bool alive = false;
      for (size_t j = 0; j < f->files[k].n_fields; j++) alive |= lfa_table_field(n, f->files[k].fields[j]) != NULL;
      if (alive) {
        f->files[kept++] = f->files[k];
      } else {
        free(f->files[k].path);
        free(f->files[k].fields);
      }
    }
    f->n_files = kept;
  }
}

/* The schema changes, and files with no field of it go. */
static lfa_status build_project(lfa_table *n, const lfa_change *c, lfa_error *err) {
  lfa_status st = set_schema(n, c->txn->project->schema, c->txn->project->n_schema, err);
  if (st == LFA_OK) drop_dead_files(n);
  return st;
}

static bool same_fields(const lfa_data_file *a, const Lance__Table__DataFile *b) {
  if (a->n_fields != b->n_fields) return false;
  return a->n_fields == 0 || memcmp(a->fields, b->fields, a->n_fields * sizeof *a->fields) == 0;
}

/* The file holding the same fields is swapped; if none does, the new file
 * joins the fragment (an all-NULL column replaced with data). */
static lfa_status build_replacement(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction__DataReplacement *op = c->txn->data_replacement;
  for (size_t g = 0; g < op->n_replacements; g++) {
    const Lance__Table__DataFile *nf = op->replacements[g]->new_file;
    size_t i = index_of(n, op->replacements[g]->fragment_id);
    if (i == SIZE_MAX || nf == NULL)
      return lfa_fail(err, LFA_ERR_RULE, "FA-REPLACE-1", "replacement %zu names no fragment of the snapshot", g);
    lfa_fragment *f = &n->fragments[i];
    size_t k = 0;
    while (k < f->n_files && !same_fields(&f->files[k], nf)) k++;
    if (k == f->n_files) {
      lfa_data_file *grown = realloc(f->files, (f->n_files + 1) * sizeof *grown);
      if (grown == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
      f->files = grown;
      memset(&f->files[k], 0, sizeof f->files[k]);
      f->n_files++;
      f->files[k].n_fields = nf->n_fields;
      if ((f->files[k].fields = malloc((nf->n_fields + 1) * sizeof(int32_t))) == NULL)
        return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
      if (nf->n_fields) memcpy(f->files[k].fields, nf->fields, nf->n_fields * sizeof(int32_t));
    }
    free(f->files[k].path);
    if ((f->files[k].path = strdup(nf->path)) == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  return LFA_OK;
}

/* Each group's overlays join its fragment's list, after those it has, with
 * committed_version stamped as N's version (Lance stamps it at commit). */
static lfa_status build_overlay(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction__DataOverlay *op = c->txn->data_overlay;
  for (size_t g = 0; g < op->n_groups; g++) {
    size_t i = index_of(n, op->groups[g]->fragment_id);
    if (i == SIZE_MAX)
      return lfa_fail(err, LFA_ERR_RULE, "FA-OVERLAY-1", "overlay on fragment %" PRIu64 ", which is not in the snapshot",
                      op->groups[g]->fragment_id);
    lfa_fragment *f = &n->fragments[i];
    for (size_t k = 0; k < op->groups[g]->n_overlays; k++) {
      lfa_status st = lfa_fragment_add_overlay(f, op->groups[g]->overlays[k], err);
      if (st != LFA_OK) return st;
      f->overlays[f->n_overlays - 1].committed_version = n->version;
    }
  }
  return LFA_OK;
}

static lfa_status build_structure(lfa_table *n, const lfa_change *c, lfa_error *err) {
  const Lance__Table__Transaction *t = c->txn;
  switch ((int)t->operation_case) {
    case LANCE__TABLE__TRANSACTION__OPERATION_APPEND:
      return add_from_txn(n, t->append->fragments, t->append->n_fragments, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_DELETE: return build_delete(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE: return build_overwrite(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_REWRITE: return build_rewrite(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_MERGE: return build_merge(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_PROJECT: return build_project(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_UPDATE: return build_update(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_DATA_REPLACEMENT: return build_replacement(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_DATA_OVERLAY: return build_overlay(n, c, err);
    case LANCE__TABLE__TRANSACTION__OPERATION_RESERVE_FRAGMENTS:
      for (uint32_t k = 0; k < t->reserve_fragments->num_fragments; k++) (void)next_fragment_id(n);
      return LFA_OK;
    default: return LFA_OK; /* metadata operations keep P's structure */
  }
}

/* ---- field ids: Lance's repair, and no id given to another field -------------------------- */

static int by_value(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The ids (tombstones aside) that some fragment of N stores in two data
 * files [FA-LANCE-6], ascending. OWNERSHIP: free(*out). */
static lfa_status duplicated_ids(int32_t **out, size_t *count, const lfa_table *n, lfa_error *err) {
  size_t cap = 1;
  for (size_t i = 0; i < n->n_fragments; i++)
    for (size_t k = 0; k < n->fragments[i].n_files; k++) cap += n->fragments[i].files[k].n_fields;
  *count = 0;
  if ((*out = malloc(cap * sizeof **out)) == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < n->n_fragments; i++) {
    const lfa_fragment *f = &n->fragments[i];
    for (size_t k = 1; k < f->n_files; k++)
      for (size_t j = 0; j < f->files[k].n_fields; j++) {
        int32_t id = f->files[k].fields[j];
        bool earlier = false, known = false;
        for (size_t kk = 0; kk < k && !earlier; kk++)
          for (size_t jj = 0; jj < f->files[kk].n_fields; jj++) earlier |= f->files[kk].fields[jj] == id;
        for (size_t d = 0; d < *count; d++) known |= (*out)[d] == id;
        if (id >= 0 && earlier && !known) (*out)[(*count)++] = id;
      }
  }
  qsort(*out, *count, sizeof **out, by_value);
  return LFA_OK;
}

/* The newest data file of `f` that lists `id` (files from the last back)
 * lists `to` instead: its values are the current field's. */
static void renumber_newest(lfa_fragment *f, int32_t id, int32_t to) {
  for (size_t k = f->n_files; k-- > 0;)
    for (size_t j = 0; j < f->files[k].n_fields; j++)
      if (f->files[k].fields[j] == id) {
        f->files[k].fields[j] = to;
        return;
      }
}

/* The sidecar names the field by its new id: the repair renames it for the
 * whole commit. */
static void rename_in_sidecar(Lance__Table__Transaction__FieldAssignmentTransaction *s, int32_t from, int32_t to) {
  for (size_t k = 0; s != NULL && k < s->n_initializations; k++)
    if (s->initializations[k]->field_id == from) s->initializations[k]->field_id = to;
  for (size_t k = 0; s != NULL && k < s->n_row_changes; k++)
    if (s->row_changes[k]->field_id == from) s->row_changes[k]->field_id = to;
  for (size_t k = 0; s != NULL && k < s->n_fragment_states; k++)
    if (s->fragment_states[k]->field_id == from) s->fragment_states[k]->field_id = to;
  for (size_t k = 0; s != NULL && k < s->n_transfers; k++)
    if (s->transfers[k]->target_field_id == from) s->transfers[k]->target_field_id = to;
}

/* [FA-ID-4] Lance's repair of duplicate field ids (fix_schema, run on every
 * commit; 02§8.5), for a P an older writer left with an id
 * stored twice in one fragment (FA-LANCE-6): each such id gets a fresh id
 * (from max_field_id() + 1, in ascending order of the old ids), which the
 * newest file listing it in each fragment and the schema field take;
 * files left with no schema field go. The field is the same field under a
 * new id, so a tracked one keeps its tracking with Transfer(old, new),
 * added to the change's sidecar: the stored transaction says what was
 * applied (FA-TXN-17). */
static lfa_status repair_field_ids(lfa_table *n, const lfa_table *p, lfa_change *c, lfa_error *err) {
  int32_t *dup = NULL, largest = -1;
  size_t count = 0;
  lfa_status st = duplicated_ids(&dup, &count, n, err);
  for (size_t i = 0; i < n->n_fields; i++) largest = n->fields[i].id > largest ? n->fields[i].id : largest;
  for (size_t i = 0; i < n->n_fragments; i++)
    for (size_t k = 0; k < n->fragments[i].n_files; k++)
      for (size_t j = 0; j < n->fragments[i].files[k].n_fields; j++)
        largest = n->fragments[i].files[k].fields[j] > largest ? n->fragments[i].files[k].fields[j] : largest;
  /* a duplicated id is listed, so largest >= 0 whenever count > 0 */
  if (st == LFA_OK && count > 0 && count > (size_t)(INT32_MAX - largest)) /* hostile ids: no fresh one left */
    st = lfa_fail(err, LFA_ERR_LIMIT, NULL, "%zu duplicated field ids, and no fresh id above %d", count, largest);
  for (size_t d = 0; st == LFA_OK && d < count; d++) {
    int32_t next = largest + 1 + (int32_t)d; /* Lance's max_field_id() + 1, in order */
    for (size_t i = 0; i < n->n_fragments; i++) renumber_newest(&n->fragments[i], dup[d], next);
    bool in_schema = false;
    for (size_t i = 0; i < n->n_fields; i++) {
      if (n->fields[i].id == dup[d]) n->fields[i].id = next, in_schema = true;
      if (n->fields[i].parent_id == dup[d]) n->fields[i].parent_id = next;
    }
    if (!in_schema) continue; /* only files knew the id: nothing to carry */
    rename_in_sidecar(c->txn->field_assignment_transaction, dup[d], next);
    bool carried = p != NULL && c->txn->operation_case != LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE &&
                   lfa_table_tracked(p, dup[d]) != NULL;
    if (carried) lfa_change_add_transfer(c, p, dup[d], next, err);
    st = lfa_arena_check(&c->arena, err);
  }
  if (st == LFA_OK && count > 0) drop_dead_files(n);
  free(dup);
  return st;
}

/* [FA-ID-3] Outside Overwrite (which numbers its schema afresh), a field
 * id that stays in the schema stays one field: same type, same parent (or
 * the parent's new id after a repair). A change means the commit removed a
 * field and added another under its id. Tracked fields are apply's to
 * check (FA-ID-1, which the verifier shares). */
static lfa_status check_ids_keep_fields(const lfa_table *n, const lfa_table *p, const lfa_change *c, lfa_error *err) {
  if (p == NULL || c->txn->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE) return LFA_OK;
  for (size_t i = 0; i < n->n_fields; i++) {
    const lfa_field *after = &n->fields[i], *before = lfa_table_field(p, after->id);
    if (before == NULL || lfa_table_tracked(p, after->id) != NULL) continue;
    bool same = strcmp(before->logical_type, after->logical_type) == 0 &&
                (before->parent_id == after->parent_id ||
                 lfa_apply_renumbered(p, before->parent_id, n, after->parent_id));
    if (!same)
      return lfa_fail(err, LFA_ERR_RULE, "FA-ID-3", "field id %d was '%s' (%s, parent %d) and is now '%s' (%s, parent "
                      "%d): a commit never gives a field's id to another field", after->id, before->name,
                      before->logical_type, before->parent_id, after->name, after->logical_type, after->parent_id);
  }
  return LFA_OK;
}

static lfa_status commit_restore(lfa_table *n, const lfa_table *p, const lfa_table *restored, lfa_error *err) {
  if (restored == NULL) return lfa_fail(err, LFA_ERR_USAGE, NULL, "restore and clone need the source version's table");
  /* [FA-FLAG-5] N copies the restored version: a feature this writer does
   * not know could not come along */
  lfa_status st = lfa_check_writer_flags(restored, err);
  if (st == LFA_OK) st = lfa_table_copy(n, restored, err);
  if (st != LFA_OK) return st;
  n->version = p ? p->version + 1 : 1;
  n->writer_feature_flags = 0; /* the writer's to compute (FA-FLAG-1) */
  /* [FA-RESTORE-3] [FA-LANCE-22] the restored fragments, ids and
   * next_row_id; max_fragment_id the larger of P's and theirs */
  if (p != NULL && p->has_max_fragment_id && (!n->has_max_fragment_id || p->max_fragment_id > n->max_fragment_id))
    n->max_fragment_id = p->max_fragment_id, n->has_max_fragment_id = true;
  return LFA_OK;
}

lfa_status lfa_commit(lfa_table *n, const lfa_table *p, lfa_change *c, const lfa_table *restored, lfa_error *err) {
  memset(n, 0, sizeof *n);
  /* [FA-FLAG-5] P is the head committed on, after any rebase: a bit that
   * appeared since R stops the commit here, before anything is written */
  lfa_status flags = p != NULL ? lfa_check_writer_flags(p, err) : LFA_OK;
  if (flags != LFA_OK) return flags;
  int op = (int)c->txn->operation_case;
  if (op == LANCE__TABLE__TRANSACTION__OPERATION_RESTORE || op == LANCE__TABLE__TRANSACTION__OPERATION_CLONE)
    return commit_restore(n, p, restored, err); /* FA-RESTORE-1, FA-CLONE-1/2: state comes along */
  lfa_status st = LFA_OK;
  if (p != NULL) st = lfa_table_copy(n, p, err);
  else n->stable_row_ids = c->stable_row_ids;
  if (st != LFA_OK) return st;
  lfa_table_drop_state(n); /* the structure changes; the state is derived again */
  n->version = p ? p->version + 1 : 1;
  st = build_structure(n, c, err);
  if (st == LFA_OK) st = sort_fragments(n, err);
  if (st == LFA_OK) st = repair_field_ids(n, p, c, err);
  if (st == LFA_OK) st = check_ids_keep_fields(n, p, c, err);
  if (st == LFA_OK) st = lfa_apply_assignment(n, p, c->txn, err);
  if (st != LFA_OK) lfa_table_free(n);
  else n->writer_feature_flags = 0; /* N's words are the writer's to compute (FA-FLAG-1) */
  return st;
}
