/* rebase.c: a change built against R, moved onto the head P (lfa/rebase.h,
 * spec 06-concurrency.md). For each intervening commit I, in order:
 *
 *   1. the sidecar's conflicts: fields it names (initialized, invalidated,
 *      transferred, given fragment states) that left the schema (FA-CONC-6),
 *      Initialization(ASSIGNED) racing added rows (FA-CONC-7), the same
 *      field initialized twice (FA-CONC-8);
 *   2. Lance's own conflicts between the two operations (06§2); they keep the fragments a change rewrites as they were at R;
 *   3. RowChange addresses moved through I (FA-CONC-4).
 *
 * Then, against P: deletion sets merged (Lance's Delete/Delete rebase), and
 * the states of moved rows computed again (FA-CONC-5, FA-CONC-9).
 * Retryable conflicts are LFA_ERR_CONFLICT, incompatible ones LFA_ERR_RULE.
 */
#include "lfa/rebase.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/pb_types.h"
#include "lfa/rowids.h"
#include "lfa/search.h"

/* A row of the head: its fragment index and physical offset. */
typedef struct src_row {
  size_t fragment;
  uint32_t offset;
} src_row;

typedef struct rb {
  lfa_change *c;
  const lfa_request *req;
  const lfa_table *versions;
  const lfa_change *changes;
  uint64_t r, head;
  lfa_error *err;
} rb;

static const lfa_table *version(const rb *b, uint64_t v) { return &b->versions[v - 1]; }
static int op(const Txn *t) { return (int)t->operation_case; }

static lfa_status retry(const rb *b, uint64_t v, const char *rule, const char *why) {
  return lfa_fail(b->err, LFA_ERR_CONFLICT, rule, "retryable conflict with version %" PRIu64 ": %s", v, why);
}

static lfa_status incompatible(const rb *b, uint64_t v, const char *rule, const char *why) {
  return lfa_fail(b->err, LFA_ERR_RULE, rule, "incompatible with version %" PRIu64 ": %s", v, why);
}

static bool is_metadata(const Txn *t) {
  switch (op(t)) {
    case LANCE__TABLE__TRANSACTION__OPERATION_CREATE_INDEX:
    case LANCE__TABLE__TRANSACTION__OPERATION_UPDATE_CONFIG:
    case LANCE__TABLE__TRANSACTION__OPERATION_RESERVE_FRAGMENTS:
    case LANCE__TABLE__TRANSACTION__OPERATION_UPDATE_BASES:
    case LANCE__TABLE__TRANSACTION__OPERATION_UPDATE_MEM_WAL_STATE: return true;
    default: return false;
  }
}

/* ---- 1. Lance's operation conflicts ---------------------------------------------- */

/* A Rewrite or a REWRITE_ROWS Update: it moves rows (FA-CONC-5). */
static bool moves_rows(const Txn *t) {
  return op(t) == LANCE__TABLE__TRANSACTION__OPERATION_REWRITE ||
         (op(t) == LANCE__TABLE__TRANSACTION__OPERATION_UPDATE &&
          t->update->update_mode == LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_ROWS);
}

static void add_ids(roaring_bitmap_t *set, DataFragment *const *fs, size_t n) {
  for (size_t i = 0; i < n; i++) roaring_bitmap_add(set, (uint32_t)fs[i]->id);
}

/* The fragments of P an operation rewrites, deletes from or writes into. */
static roaring_bitmap_t *touched(const Txn *t) {
  roaring_bitmap_t *s = roaring_bitmap_create();
  if (s == NULL) return NULL;
  if (op(t) == LANCE__TABLE__TRANSACTION__OPERATION_DELETE) {
    add_ids(s, t->delete_->updated_fragments, t->delete_->n_updated_fragments);
    for (size_t i = 0; i < t->delete_->n_deleted_fragment_ids; i++) roaring_bitmap_add(s, (uint32_t)t->delete_->deleted_fragment_ids[i]);
  } else if (op(t) == LANCE__TABLE__TRANSACTION__OPERATION_UPDATE) {
    add_ids(s, t->update->updated_fragments, t->update->n_updated_fragments);
    for (size_t i = 0; i < t->update->n_removed_fragment_ids; i++) roaring_bitmap_add(s, (uint32_t)t->update->removed_fragment_ids[i]);
  } else if (op(t) == LANCE__TABLE__TRANSACTION__OPERATION_REWRITE) {
    add_ids(s, t->rewrite->old_fragments, t->rewrite->n_old_fragments);
    for (size_t g = 0; g < t->rewrite->n_groups; g++)
      add_ids(s, t->rewrite->groups[g]->old_fragments, t->rewrite->groups[g]->n_old_fragments);
  } else if (op(t) == LANCE__TABLE__TRANSACTION__OPERATION_DATA_REPLACEMENT) {
    for (size_t i = 0; i < t->data_replacement->n_replacements; i++)
      roaring_bitmap_add(s, (uint32_t)t->data_replacement->replacements[i]->fragment_id);
  } else if (op(t) == LANCE__TABLE__TRANSACTION__OPERATION_DATA_OVERLAY) {
    for (size_t i = 0; i < t->data_overlay->n_groups; i++) roaring_bitmap_add(s, (uint32_t)t->data_overlay->groups[i]->fragment_id);
  }
  return s;
}

/* [FA-CONC-13] Lance's operation conflicts, for the pairs the sidecar's
 * rules leave open: after an Overwrite or Restore only an Overwrite goes on
 * (item 1); a Merge is retried after anything but metadata (item 2), and
 * anything but an Append after a Merge (item 3); a Project after a Project
 * (item 4). Two deletes of one fragment rebase (their sets merge, step 4;
 * item 5); every other overlap of touched fragments is retryable (item 6),
 * as in Lance, and keeps a rewrite's mapping true in P (FA-CONC-5,
 * FA-CONC-10). */
static lfa_status operation_conflicts(const rb *b, const Txn *mine, const Txn *theirs, uint64_t v) {
  int m = op(mine), t = op(theirs);
  if (t == LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE || t == LANCE__TABLE__TRANSACTION__OPERATION_RESTORE) {
    /* item 1; row addresses that cannot follow are FA-CONC-4 item 4's */
    const Sidecar *s = mine->field_assignment_transaction;
    const char *rule = s != NULL && s->n_row_changes > 0 ? "FA-CONC-4" : "FA-CONC-13";
    return m == LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE ? LFA_OK : incompatible(b, v, rule, "it replaced the dataset");
  }
  if (is_metadata(mine) || is_metadata(theirs) || m == LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE ||
      m == LANCE__TABLE__TRANSACTION__OPERATION_APPEND)
    return LFA_OK;
  /* a Merge restates the fragment list it read: retried after any commit
   * that changed it, an Append included (06§2 "Merge or cast") */
  if (m == LANCE__TABLE__TRANSACTION__OPERATION_MERGE) return retry(b, v, "FA-CONC-13", "a merge restates every fragment");
  if (t == LANCE__TABLE__TRANSACTION__OPERATION_MERGE || t == LANCE__TABLE__TRANSACTION__OPERATION_PROJECT)
    return m == LANCE__TABLE__TRANSACTION__OPERATION_PROJECT || t == LANCE__TABLE__TRANSACTION__OPERATION_MERGE
               ? retry(b, v, "FA-CONC-13", "both change the schema or fragment list") : LFA_OK;
  roaring_bitmap_t *a = touched(mine), *x = touched(theirs);
  bool both_delete = m == LANCE__TABLE__TRANSACTION__OPERATION_DELETE && t == LANCE__TABLE__TRANSACTION__OPERATION_DELETE;
  bool overlap = a && x && roaring_bitmap_intersect(a, x);
  lfa_bitmap_free(a);
  lfa_bitmap_free(x);
  if (a == NULL || x == NULL) return lfa_fail(b->err, LFA_ERR_NOMEM, NULL, "out of memory");
  bool overlay = m == LANCE__TABLE__TRANSACTION__OPERATION_DATA_OVERLAY || t == LANCE__TABLE__TRANSACTION__OPERATION_DATA_OVERLAY;
  bool moves = moves_rows(mine) || moves_rows(theirs);
  if (overlap && !both_delete) /* item 6, or the rules that name a moving commit */
    return retry(b, v, overlay ? "FA-CONC-10" : moves ? "FA-CONC-5" : "FA-CONC-13", "both change the same fragment");
  return LFA_OK;
}

/* ---- 2. the sidecar against I ---------------------------------------------------- */

static uint64_t table_live_rows(const lfa_table *t) {
  uint64_t n = 0;
  for (size_t i = 0; i < t->n_fragments; i++) n += lfa_fragment_live_rows(&t->fragments[i]);
  return n;
}

static int by_key(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* [FA-CONC-7] Did I add rows? A live row of a fragment I created is a row
 * I added unless it is a row of `before` that I moved (a Rewrite, a
 * REWRITE_ROWS Update): the writer knows its rows by key
 * (lfa_fragment.keys), and a created fragment without keys counts as new
 * rows. Counting live rows is not enough: a merge_insert that deletes one
 * row and inserts another leaves the count as it was. */
static lfa_status added_rows(bool *out, const rb *b, const lfa_table *before, const lfa_table *after) {
  uint64_t n = 0, cap = table_live_rows(before);
  uint64_t *seen = calloc(cap + 1, sizeof *seen);
  *out = false;
  if (seen == NULL) return lfa_fail(b->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < before->n_fragments; i++)
    for (uint32_t o = 0; before->fragments[i].keys && o < before->fragments[i].physical_rows && n < cap; o++)
      if (lfa_fragment_is_live(&before->fragments[i], o)) seen[n++] = before->fragments[i].keys[o];
  qsort(seen, n, sizeof *seen, by_key);
  for (size_t i = 0; i < after->n_fragments && !*out; i++) {
    const lfa_fragment *f = &after->fragments[i];
    if (lfa_table_fragment(before, f->id) != SIZE_MAX) continue; /* carried: the same rows (FA-LANCE-19) */
    for (uint32_t o = 0; o < f->physical_rows && !*out; o++)
      *out = lfa_fragment_is_live(f, o) &&
             (f->keys == NULL || lfa_search(&f->keys[o], seen, n, sizeof *seen, by_key) == SIZE_MAX);
  }
  free(seen);
  return LFA_OK;
}

static bool left_schema(const lfa_table *before, const lfa_table *after, int32_t id) {
  return lfa_table_field(before, id) != NULL && lfa_table_field(after, id) == NULL;
}

static lfa_status sidecar_conflicts(const rb *b, const lfa_table *before, const lfa_table *after, uint64_t v) {
  const Sidecar *s = b->c->txn->field_assignment_transaction;
  if (s == NULL) return LFA_OK;
  for (size_t k = 0; k < s->n_row_changes; k++)
    if (left_schema(before, after, s->row_changes[k]->field_id)) /* [FA-CONC-6] */
      return retry(b, v, "FA-CONC-6", "a field the commit invalidates left the schema");
  for (size_t k = 0; k < s->n_transfers; k++)
    if (left_schema(before, after, s->transfers[k]->source_field_id) ||
        left_schema(before, after, s->transfers[k]->target_field_id))
      return retry(b, v, "FA-CONC-6", "a field the commit transfers from or to left the schema");
  for (size_t k = 0; k < s->n_fragment_states; k++) /* [FA-CONC-6] a compaction's or a moving update's too */
    if (left_schema(before, after, s->fragment_states[k]->field_id))
      return retry(b, v, "FA-CONC-6", "a field the commit gives fragment states left the schema");
  bool added = false;
  if (s->n_initializations > 0) {
    lfa_status st = added_rows(&added, b, before, after);
    if (st != LFA_OK) return st;
  }
  for (size_t k = 0; k < s->n_initializations; k++) {
    int32_t f = s->initializations[k]->field_id;
    if (left_schema(before, after, f)) return retry(b, v, "FA-CONC-6", "a field the commit initializes left the schema");
    if (lfa_table_tracked(after, f) != NULL && lfa_table_tracked(before, f) == NULL) /* [FA-CONC-8] */
      return incompatible(b, v, "FA-CONC-8", "it initialized the same field");
    if (added && s->initializations[k]->initial_state ==
                     LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__ASSIGNED) /* [FA-CONC-7] */
      return retry(b, v, "FA-CONC-7", "rows were added that an assigned initialization did not see");
  }
  return LFA_OK;
}

/* ---- 3. row addresses through I (FA-CONC-4) ------------------------------------- */

enum { KEEP, DROP };

/* The live row of `t` with stable row id `id`, as an address; false when gone. */
static bool find_row_id(uint64_t *addr, const lfa_table *t, uint64_t id) {
  for (size_t i = 0; i < t->n_fragments; i++)
    for (uint64_t o = 0; t->fragments[i].row_ids != NULL && o < t->fragments[i].physical_rows; o++)
      if (t->fragments[i].row_ids[o] == id && lfa_fragment_is_live(&t->fragments[i], (uint32_t)o)) {
        *addr = t->fragments[i].id << 32 | o;
        return true;
      }
  return false;
}

/* [FA-REMAP-1] the k-th live old row of a group is the k-th new row. */
static bool remap(uint64_t *addr, const lfa_table *before, const lfa_table *after,
                  const Lance__Table__Transaction__Rewrite__RewriteGroup *g, uint64_t frag, uint32_t off) {
  uint64_t k = 0;
  bool found = false;
  for (size_t j = 0; j < g->n_old_fragments && !found; j++) {
    size_t i = lfa_table_fragment(before, g->old_fragments[j]->id);
    if (i == SIZE_MAX) return false;
    const lfa_fragment *f = &before->fragments[i];
    for (uint32_t o = 0; o < f->physical_rows && !found; o++) {
      if (f->id == frag && o == off) found = true;
      else if (lfa_fragment_is_live(f, o)) k++;
    }
  }
  for (size_t j = 0; found && j < g->n_new_fragments; j++) {
    /* new fragments got their ids at commit: find them in `after` by first
     * file, a path no other data file of the history has [FA-LANCE-20] */
    for (size_t i = 0; i < after->n_fragments; i++) {
      const lfa_fragment *f = &after->fragments[i];
      if (f->n_files == 0 || g->new_fragments[j]->n_files == 0 ||
          strcmp(f->files[0].path, g->new_fragments[j]->files[0]->path) != 0)
        continue;
      if (k < f->physical_rows) {
        *addr = f->id << 32 | k;
        return true;
      }
      k -= f->physical_rows;
    }
  }
  return false;
}

static const Lance__Table__Transaction__Rewrite__RewriteGroup *group_of(const Txn *t, uint64_t frag) {
  for (size_t g = 0; g < t->rewrite->n_groups; g++)
    for (size_t j = 0; j < t->rewrite->groups[g]->n_old_fragments; j++)
      if (t->rewrite->groups[g]->old_fragments[j]->id == frag) return t->rewrite->groups[g];
  return NULL;
}

/* Where the row at *addr of `before` is after I: KEEP (maybe moved), DROP
 * (deleted), or a conflict. */
static lfa_status move_address(int *out, uint64_t *addr, const rb *b, uint64_t v) {
  const lfa_table *before = version(b, v - 1), *after = version(b, v);
  const Txn *i = b->changes[v - 1].txn;
  uint64_t frag = *addr >> 32;
  uint32_t off = (uint32_t)*addr;
  size_t bi = lfa_table_fragment(before, frag), ai = lfa_table_fragment(after, frag);
  if (ai != SIZE_MAX && lfa_fragment_is_live(&after->fragments[ai], off)) {
    *out = KEEP; /* item 1 */
    return LFA_OK;
  }
  bool moves = moves_rows(i);
  *out = DROP;
  if (!moves) return LFA_OK; /* item 2: deleted in place */
  if (before->stable_row_ids && bi != SIZE_MAX) { /* item 3, stable row ids: follow the id */
    if (find_row_id(addr, after, before->fragments[bi].row_ids[off])) *out = KEEP;
    return LFA_OK;
  }
  const Lance__Table__Transaction__Rewrite__RewriteGroup *g =
      op(i) == LANCE__TABLE__TRANSACTION__OPERATION_REWRITE ? group_of(i, frag) : NULL;
  if (g != NULL && remap(addr, before, after, g, frag, off)) { /* item 3, address mode */
    *out = KEEP;
    return LFA_OK;
  }
  return retry(b, v, "FA-CONC-4", "it moved a row the commit invalidates, and addresses cannot follow it");
}

/* Moves one RowChange's addresses from R to P; an empty one is removed. */
static lfa_status move_row_change(bool *keep, const rb *b, Lance__Table__Transaction__FieldAssignmentTransaction__RowChange *rc) {
  lfa_treemap in, out = {0};
  lfa_buf bytes = {0};
  lfa_status st = lfa_treemap_decode(&in, rc->row_addresses.data, rc->row_addresses.len, b->err);
  for (size_t k = 0; st == LFA_OK && k < in.count; k++) {
    roaring_uint32_iterator_t *it = roaring_create_iterator(in.low[k]);
    for (; st == LFA_OK && it && it->has_value; roaring_advance_uint32_iterator(it)) {
      uint64_t addr = (uint64_t)in.high[k] << 32 | it->current_value;
      int fate = KEEP;
      for (uint64_t v = b->r + 1; st == LFA_OK && fate == KEEP && v <= b->head; v++) st = move_address(&fate, &addr, b, v);
      if (st == LFA_OK && fate == KEEP) st = lfa_treemap_add(&out, addr, b->err);
    }
    if (it) roaring_free_uint32_iterator(it);
  }
  *keep = out.count > 0;
  if (st == LFA_OK && *keep) st = lfa_treemap_encode(&bytes, &out, b->err);
  if (st == LFA_OK && *keep)
    rc->row_addresses = (ProtobufCBinaryData){bytes.len, lfa_arena_memdup(&b->c->arena, bytes.data, bytes.len)};
  lfa_treemap_free(&in);
  lfa_treemap_free(&out);
  lfa_buf_free(&bytes);
  return st == LFA_OK ? lfa_arena_check(&b->c->arena, b->err) : st;
}

static lfa_status move_row_changes(const rb *b) {
  Sidecar *s = b->c->txn->field_assignment_transaction;
  size_t kept = 0;
  for (size_t k = 0; s != NULL && k < s->n_row_changes; k++) {
    bool keep;
    lfa_status st = move_row_change(&keep, b, s->row_changes[k]);
    if (st != LFA_OK) return st;
    if (keep) s->row_changes[kept++] = s->row_changes[k];
  }
  if (s != NULL) s->n_row_changes = kept;
  return LFA_OK;
}

/* ---- 4. against P: deletions merged, moved rows' states recomputed --------------- */

static lfa_deletion_set *my_set(const rb *b, const DataFragment *pb) {
  for (size_t i = 0; i < b->c->n_deletions; i++)
    if (b->c->deletions[i].fragment_id == pb->id && b->c->deletions[i].file_id == pb->deletion_file->id)
      return &b->c->deletions[i];
  return NULL;
}

/* One fragment my Delete changes, when P's deletions differ from R's: the
 * rows each side deleted must not meet; the file then holds both. Returns
 * through *emptied when no row is left. */
static lfa_status merge_deletions(bool *emptied, const rb *b, DataFragment *pb) {
  const lfa_table *rt = version(b, b->r), *pt = version(b, b->head);
  size_t ri = lfa_table_fragment(rt, pb->id), pi = lfa_table_fragment(pt, pb->id);
  lfa_deletion_set *mine = pb->deletion_file ? my_set(b, pb) : NULL;
  *emptied = false;
  if (pi == SIZE_MAX) return retry(b, b->head, NULL, "a fragment the commit deletes from has left");
  if (ri == SIZE_MAX || mine == NULL) return lfa_fail(b->err, LFA_ERR_USAGE, NULL, "delete names an unknown fragment");
  const roaring_bitmap_t *sr = rt->fragments[ri].deleted, *sp = pt->fragments[pi].deleted;
  if (sp == NULL || (sr != NULL && roaring_bitmap_equals(sr, sp))) return LFA_OK;
  roaring_bitmap_t *mine_new = sr ? roaring_bitmap_andnot(mine->offsets, sr) : roaring_bitmap_copy(mine->offsets);
  roaring_bitmap_t *theirs_new = sr ? roaring_bitmap_andnot(sp, sr) : roaring_bitmap_copy(sp);
  lfa_status st = mine_new && theirs_new ? LFA_OK : lfa_fail(b->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK && roaring_bitmap_intersect(mine_new, theirs_new)) /* [FA-CONC-13] item 5 */
    st = retry(b, b->head, "FA-CONC-13", "both deleted the same rows");
  if (st == LFA_OK) {
    roaring_bitmap_or_inplace(mine_new, sp);
    lfa_bitmap_free(mine->offsets);
    mine->offsets = mine_new, mine_new = NULL;
    pb->deletion_file->num_deleted_rows = roaring_bitmap_get_cardinality(mine->offsets);
    pb->deletion_file->read_version = b->head; /* [FA-TXN-18] Lance writes the merged file against the head */
    *emptied = pb->deletion_file->num_deleted_rows == pb->physical_rows;
  }
  lfa_bitmap_free(mine_new);
  lfa_bitmap_free(theirs_new);
  return st;
}

static lfa_status merge_delete(const rb *b) {
  Lance__Table__Transaction__Delete *d = b->c->txn->delete_;
  uint64_t *gone = lfa_arena_array(&b->c->arena, d->n_deleted_fragment_ids + d->n_updated_fragments + 1, sizeof *gone);
  size_t n_gone = 0, kept = 0;
  if (gone == NULL) return lfa_fail(b->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; k < d->n_deleted_fragment_ids; k++) /* a fragment both emptied is simply gone */
    if (lfa_table_fragment(version(b, b->head), d->deleted_fragment_ids[k]) != SIZE_MAX) gone[n_gone++] = d->deleted_fragment_ids[k];
  for (size_t k = 0; k < d->n_updated_fragments; k++) {
    bool emptied;
    lfa_status st = merge_deletions(&emptied, b, d->updated_fragments[k]);
    if (st != LFA_OK) return st;
    if (emptied) gone[n_gone++] = d->updated_fragments[k]->id;
    else d->updated_fragments[kept++] = d->updated_fragments[k];
  }
  d->n_updated_fragments = kept;
  d->deleted_fragment_ids = gone, d->n_deleted_fragment_ids = n_gone;
  return LFA_OK;
}

/* The old row (index into P, offset) each row of a rewrite group's new
 * fragments comes from: by row id with stable row ids (FA-REMAP-3), else
 * the k-th live old row (FA-REMAP-1). Lance's conflicts keep the old
 * fragments as they were at R, so the mapping holds in P. */
static lfa_status group_sources(src_row *src, uint64_t n, const lfa_table *p,
                                const Lance__Table__Transaction__Rewrite__RewriteGroup *g, const uint64_t *ids, lfa_error *err) {
  uint64_t k = 0;
  for (size_t j = 0; j < g->n_old_fragments; j++) {
    size_t i = lfa_table_fragment(p, g->old_fragments[j]->id);
    if (i == SIZE_MAX) return lfa_fail(err, LFA_ERR_USAGE, "FA-REMAP-1", "old fragment %" PRIu64 " is not in the head", g->old_fragments[j]->id);
    for (uint32_t o = 0; o < p->fragments[i].physical_rows; o++) {
      if (!lfa_fragment_is_live(&p->fragments[i], o)) continue;
      if (ids == NULL && k < n) src[k] = (src_row){i, o};
      for (uint64_t x = 0; ids != NULL && x < n; x++)
        if (p->fragments[i].row_ids && ids[x] == p->fragments[i].row_ids[o]) src[x] = (src_row){i, o};
      k++;
    }
  }
  return k == n ? LFA_OK : lfa_fail(err, LFA_ERR_USAGE, "FA-REMAP-2", "group has %" PRIu64 " live rows for %" PRIu64 " new ones", k, n);
}

/* [FA-CONC-5] [FA-CONC-9] every new fragment of my Rewrite, every field
 * tracked in P: the state of the rows it took, read in P. */
static lfa_status restate_rewrite(const rb *b) {
  const lfa_table *p = version(b, b->head);
  Sidecar *s = lfa_change_sidecar(b->c, b->err);
  if (s == NULL) return lfa_arena_check(&b->c->arena, b->err);
  s->n_fragment_states = 0;
  const Lance__Table__Transaction__Rewrite *rw = b->c->txn->rewrite;
  lfa_status st = LFA_OK;
  for (size_t g = 0; st == LFA_OK && g < rw->n_groups; g++) {
    const Lance__Table__Transaction__Rewrite__RewriteGroup *grp = rw->groups[g];
    uint64_t total = 0;
    for (size_t j = 0; j < grp->n_new_fragments; j++) total += grp->new_fragments[j]->physical_rows;
    src_row *src = calloc(total + 1, sizeof *src);
    uint64_t *ids = NULL;
    st = src ? LFA_OK : lfa_fail(b->err, LFA_ERR_NOMEM, NULL, "out of memory");
    if (st == LFA_OK && p->stable_row_ids) { /* the moved rows' ids, in new-row order */
      ids = calloc(total + 1, sizeof *ids);
      uint64_t at = 0;
      for (size_t j = 0; ids && j < grp->n_new_fragments; j++) {
        lfa_row_ids seq = {0};
        const DataFragment *nf = grp->new_fragments[j];
        st = lfa_row_ids_decode_rows(&seq, nf->inline_row_ids.data, nf->inline_row_ids.len, nf->physical_rows, b->err);
        for (uint64_t x = 0; st == LFA_OK && x < seq.count && at < total; x++) ids[at++] = seq.ids[x];
        lfa_row_ids_free(&seq);
      }
    }
    if (st == LFA_OK) st = group_sources(src, total, p, grp, ids, b->err);
    uint64_t base = 0;
    for (size_t j = 0; st == LFA_OK && j < grp->n_new_fragments; j++) {
      const DataFragment *nf = grp->new_fragments[j];
      for (size_t f = 0; f < p->n_tracked; f++) {
        lfa_cell cell = {LFA_CELL_PARTIAL, roaring_bitmap_create()};
        for (uint64_t x = 0; cell.rows && x < nf->physical_rows; x++)
          if (lfa_cell_contains(&p->tracked[f].cells[src[base + x].fragment], src[base + x].offset))
            roaring_bitmap_add(cell.rows, (uint32_t)x);
        lfa_cell_canonicalize(&cell, nf->physical_rows);
        lfa_change_add_fragment_state(b->c, p, nf, p->tracked[f].field_id, &cell, b->err);
        lfa_bitmap_free(cell.rows);
      }
      base += nf->physical_rows;
    }
    free(src);
    free(ids);
  }
  return st == LFA_OK ? lfa_arena_check(&b->c->arena, b->err) : st;
}

/* [FA-CONC-5] a row-rewriting update builds again against P: Lance's
 * conflicts kept its rows where they were, so the same request names the
 * same rows, and their states are read in P. */
static lfa_status rebuild(const rb *b) {
  lfa_change fresh;
  lfa_status st = lfa_mutate(&fresh, version(b, b->head), b->req, b->err);
  if (st != LFA_OK) return st;
  lfa_change_free(b->c);
  *b->c = fresh;
  return LFA_OK;
}

lfa_status lfa_rebase(lfa_change *change, const lfa_request *req, const lfa_table *versions,
                      const lfa_change *changes, uint64_t r, uint64_t count, lfa_error *err) {
  rb b = {change, req, versions, changes, r, count, err};
  if (r == 0 || r > count) return lfa_fail(err, LFA_ERR_USAGE, NULL, "read version %" PRIu64 " is not in the history", r);
  lfa_status st = LFA_OK;
  for (uint64_t v = r + 1; st == LFA_OK && v <= count; v++) {
    /* [FA-CONC-14] one intervening commit at a time, so a field that left
     * and whose id came back is still seen leaving. The sidecar's rules first: an incompatible pair (FA-CONC-8) must not
     * be reported as retryable just because Lance would also retry it */
    st = sidecar_conflicts(&b, version(&b, v - 1), version(&b, v), v);
    if (st == LFA_OK) st = operation_conflicts(&b, change->txn, changes[v - 1].txn, v);
  }
  if (st == LFA_OK) st = move_row_changes(&b);
  const Txn *t = change->txn;
  if (st == LFA_OK && op(t) == LANCE__TABLE__TRANSACTION__OPERATION_DELETE) st = merge_delete(&b);
  if (st == LFA_OK && op(t) == LANCE__TABLE__TRANSACTION__OPERATION_REWRITE) st = restate_rewrite(&b);
  if (st == LFA_OK && op(t) == LANCE__TABLE__TRANSACTION__OPERATION_UPDATE &&
      t->update->update_mode == LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_ROWS)
    st = rebuild(&b);
  if (st == LFA_OK && (op(change->txn) == LANCE__TABLE__TRANSACTION__OPERATION_DELETE ||
                       op(change->txn) == LANCE__TABLE__TRANSACTION__OPERATION_UPDATE))
    change->txn->read_version = count; /* Lance bumps it for deletes and updates */
  return st;
}
