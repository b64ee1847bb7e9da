/* commit_rules.c: rules of one commit (P to N with T) that the transition
 * rule of apply.c does not see, because they are about the transaction's
 * other fields, the schema, or the objects rather than the state:
 *
 *   FA-TXN-15   a Restore or Clone carries no sidecar, or an empty one
 *   FA-ID-1     a carried tracked field keeps its type and parent
 *   FA-ID-3     no field is removed and another added under its id
 *   FA-ID-4     a field whose id changes takes its tracking by a Transfer
 *   FA-UPDATE-3 a column update's added files list exactly the tracked
 *               fields of its fields_modified
 *   FA-STORE-10 (warning) a root rewritten with unchanged entries
 *   FA-STORE-11 (warning) a bitmap rewritten with an unchanged set
 *   FA-STORE-12 a reused bitmap keeps its effective base
 *   FA-META-2   UpdateBases keeps every base N's objects are read through
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lfa/limits.h"
#include "lfa/pb_types.h"

static bool is_op(const Txn *t, Lance__Table__Transaction__OperationCase op) { return t->operation_case == op; }

static lfa_where at_version(const vf_version *n) { return (lfa_where){.version = n->version, .file = n->manifest_path}; }

static lfa_where at_field(const vf_version *n, int32_t field_id) {
  lfa_where w = at_version(n);
  w.has_field = true, w.field_id = field_id, w.field_name = vf_snapshot_field_name(&n->snap, field_id);
  return w;
}

/* ---- FA-TXN-15 ------------------------------------------------------------------------------ */

void vf_check_copy_sidecar(const vf_ctx *c, const vf_version *n, const Txn *t) {
  const Lance__Table__Transaction__FieldAssignmentTransaction *s = t->field_assignment_transaction;
  if (s == NULL || s->n_initializations + s->n_row_changes + s->n_fragment_states + s->n_transfers == 0) return;
  lfa_where w = at_version(n);
  lfa_findings_add(c->findings, &w, "FA-TXN-15", LFA_SEVERITY_ERROR,
                   "the %s carries a sidecar (%zu initializations, %zu row changes, %zu fragment states, %zu "
                   "transfers): its state comes from the version it copies, so the sidecar could only be ignored",
                   is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_RESTORE) ? "Restore" : "Clone", s->n_initializations,
                   s->n_row_changes, s->n_fragment_states, s->n_transfers);
}

/* ---- FA-CLONE-2 ----------------------------------------------------------------------------- */

/* A deep clone owns every object it references: no descriptor and no
 * partial may still reach another dataset through a base. */
static bool is_partial(const lfa_root_entry *e);

void vf_check_deep_clone(const vf_ctx *c, const vf_version *n) {
  const Lance__Table__Manifest *m = n->snap.file.manifest;
  for (size_t i = 0; m != NULL && i < m->n_field_assignment_states; i++) { /* from the manifest: even unloadable */
    const AssignmentFile *root = m->field_assignment_states[i]->root;
    lfa_where w = at_field(n, m->field_assignment_states[i]->field_id);
    w.file = root ? root->path : NULL;
    if (root != NULL && root->has_base_id)
      lfa_findings_add(c->findings, &w, "FA-CLONE-2", LFA_SEVERITY_ERROR,
                       "a deep clone's root still names base_id %" PRIu32 ": its objects must be its own copies",
                       root->base_id);
  }
  for (size_t i = 0; i < n->snap.n_tracked; i++) { /* the partials of the roots that loaded */
    const lfa_tracked_field *f = &n->snap.tracked[i];
    for (size_t k = 0; f->root != NULL && k < f->root->n_fragments; k++) {
      const lfa_root_entry *e = f->root->fragments[k];
      if (!is_partial(e) || !e->partial->has_base_id) continue;
      lfa_where w = at_field(n, f->field_id);
      w.has_fragment = true, w.fragment_id = e->fragment_id, w.file = e->partial->path;
      lfa_findings_add(c->findings, &w, "FA-CLONE-2", LFA_SEVERITY_ERROR,
                       "a deep clone's partial still names base_id %" PRIu32 " (FA-CLONE-3: the root that lists it "
                       "must be rewritten at a fresh path without it)",
                       e->partial->base_id);
    }
  }
}

/* ---- FA-ID-1, FA-ID-3 ----------------------------------------------------------------------- */

static bool same_text(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

/* A field id of both P and N whose type or parent changed: another field
 * took the id in this commit. Tracked in P: its tracking went to the new
 * field [FA-ID-1]; either way the id was reused [FA-ID-3]. */
static void check_field_ids(const vf_ctx *c, const vf_version *p, const vf_version *n) {
  for (size_t i = 0; i < n->table.n_fields; i++) {
    const lfa_field *now = &n->table.fields[i], *before = lfa_table_field(&p->table, now->id);
    if (before == NULL || (same_text(now->logical_type, before->logical_type) && now->parent_id == before->parent_id))
      continue;
    bool tracked = lfa_table_tracked(&p->table, now->id) != NULL;
    lfa_where w = at_field(n, now->id);
    lfa_findings_add(c->findings, &w, tracked ? "FA-ID-1" : "FA-ID-3", LFA_SEVERITY_ERROR,
                     "field %d is '%s' (%s, parent %d) in version %" PRIu64 " and '%s' (%s, parent %d) here: %s",
                     now->id, before->name ? before->name : "", before->logical_type ? before->logical_type : "",
                     before->parent_id, p->version, now->name ? now->name : "",
                     now->logical_type ? now->logical_type : "", now->parent_id,
                     tracked ? "a tracked id keeps its type and parent; another field took the id, and its tracking with it"
                             : "a commit never removes a field and adds another under the same id");
  }
}

/* The name path of a field ("payload.value"); "" when a parent is missing. */
static void name_path(char *out, size_t cap, const lfa_table *t, int32_t id) {
  out[0] = '\0';
  const lfa_field *f = lfa_table_field(t, id);
  for (size_t depth = 0; f != NULL && depth < t->n_fields; depth++) { /* a parent cycle ends here */
    char tail[LFA_PATH_BYTES_MAX];
    snprintf(tail, sizeof tail, "%s%s%s", f->name ? f->name : "", out[0] ? "." : "", out);
    snprintf(out, cap, "%s", tail);
    if (f->parent_id == -1) return;
    f = lfa_table_field(t, f->parent_id);
  }
  out[0] = '\0';
}

static bool transfers_from(const Txn *t, int32_t id) {
  const Lance__Table__Transaction__FieldAssignmentTransaction *s = t->field_assignment_transaction;
  for (size_t i = 0; s != NULL && i < s->n_transfers; i++)
    if (s->transfers[i]->source_field_id == id) return true;
  return false;
}

/* [FA-ID-4] A tracked field leaves the schema while a new id arrives with
 * its name path and type: the field's id changed (Lance's repair of
 * duplicate ids), and its tracking must follow by a Transfer. */
static void check_id_changes(const vf_ctx *c, const vf_version *p, const vf_version *n, const Txn *t) {
  char was[LFA_PATH_BYTES_MAX], is[LFA_PATH_BYTES_MAX];
  for (size_t s = 0; s < p->table.n_tracked; s++) {
    int32_t id = p->table.tracked[s].field_id;
    const lfa_field *old = lfa_table_field(&p->table, id);
    if (old == NULL || lfa_table_field(&n->table, id) != NULL || transfers_from(t, id)) continue;
    name_path(was, sizeof was, &p->table, id);
    for (size_t i = 0; was[0] != '\0' && i < n->table.n_fields; i++) {
      const lfa_field *f = &n->table.fields[i];
      if (lfa_table_field(&p->table, f->id) != NULL || !same_text(f->logical_type, old->logical_type)) continue;
      name_path(is, sizeof is, &n->table, f->id);
      if (strcmp(was, is) != 0) continue;
      lfa_where w = at_field(n, f->id);
      lfa_findings_add(c->findings, &w, "FA-ID-4", LFA_SEVERITY_ERROR,
                       "tracked field '%s' (%s) moved from id %d to id %d without a Transfer(%d, %d): its tracking "
                       "was dropped", was, f->logical_type ? f->logical_type : "", id, f->id, id, f->id);
    }
  }
}

/* ---- FA-UPDATE-3 ------------------------------------------------------------------------------ */

static bool file_in(const lfa_fragment *f, const char *path) {
  for (size_t k = 0; k < f->n_files; k++)
    if (strcmp(f->files[k].path, path) == 0) return true;
  return false;
}

/* Does a data file of N's fragment `now` that P's `before` lacks list `id`? */
static bool added_file_lists(const lfa_fragment *now, const lfa_fragment *before, int32_t id) {
  for (size_t k = 0; k < now->n_files; k++) {
    if (file_in(before, now->files[k].path)) continue;
    for (size_t j = 0; j < now->files[k].n_fields; j++)
      if (now->files[k].fields[j] == id) return true;
  }
  return false;
}

static bool modified(const Lance__Table__Transaction__Update *u, int32_t id) {
  for (size_t k = 0; k < u->n_fields_modified; k++)
    if (id >= 0 && u->fields_modified[k] == (uint32_t)id) return true;
  return false;
}

/* [FA-UPDATE-3] per updated fragment, per tracked field of N: listed by an
 * added file exactly when fields_modified names it. */
static void check_fields_modified(const vf_ctx *c, const vf_version *p, const vf_version *n, const Txn *t) {
  const Lance__Table__Transaction__Update *u = t->update;
  if (u->update_mode != LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_COLUMNS) return;
  for (size_t g = 0; g < u->n_updated_fragments; g++) {
    size_t i = lfa_table_fragment(&n->table, u->updated_fragments[g]->id);
    size_t k = lfa_table_fragment(&p->table, u->updated_fragments[g]->id);
    if (i == SIZE_MAX || k == SIZE_MAX) continue; /* removed by the same commit, or not carried */
    const lfa_fragment *now = &n->table.fragments[i], *before = &p->table.fragments[k];
    for (size_t s = 0; s < n->table.n_tracked; s++) {
      int32_t id = n->table.tracked[s].field_id;
      bool listed = added_file_lists(now, before, id), named = modified(u, id);
      if (listed == named) continue;
      lfa_where w = at_field(n, id);
      w.has_fragment = true, w.fragment_id = now->id;
      lfa_findings_add(c->findings, &w, "FA-UPDATE-3", LFA_SEVERITY_ERROR,
                       "fragment %" PRIu64 ": tracked field %d is %s by a data file the column update adds, but %s "
                       "fields_modified",
                       now->id, id, listed ? "listed" : "not listed", named ? "named in" : "missing from");
    }
  }
}

/* ---- FA-STORE-10, FA-STORE-11, FA-STORE-12 ------------------------------------------------------- */

enum { NO_BASE = -1 };

/* The base an object is read through: its own base_id, else `inherited`
 * (the root's, for a partial), NO_BASE for the dataset root. */
static int64_t base_of(const AssignmentFile *f, int64_t inherited) {
  return f->has_base_id ? (int64_t)f->base_id : inherited;
}

static bool same_object(const AssignmentFile *a, int64_t base_a, const AssignmentFile *b, int64_t base_b) {
  return base_a == base_b && same_text(a->path, b->path);
}

static bool is_partial(const lfa_root_entry *e) {
  return e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL && e->partial != NULL;
}

/* Entries equal: same fragments, states, bitmap objects and bases. */
static bool same_entries(const lfa_root *a, int64_t base_a, const lfa_root *b, int64_t base_b) {
  if (a->n_fragments != b->n_fragments) return false;
  for (size_t k = 0; k < a->n_fragments; k++) {
    const lfa_root_entry *x = a->fragments[k], *y = b->fragments[k];
    if (x->fragment_id != y->fragment_id || x->physical_rows != y->physical_rows || is_partial(x) != is_partial(y))
      return false;
    if (is_partial(x) && !same_object(x->partial, base_of(x->partial, base_a), y->partial, base_of(y->partial, base_b)))
      return false;
  }
  return true;
}

static const char *base_name(char *buf, size_t cap, int64_t base) {
  if (base == NO_BASE) snprintf(buf, cap, "the dataset root");
  else snprintf(buf, cap, "base %" PRId64, base);
  return buf;
}

/* One carried fragment's entry in P and in N, both partial. */
static void compare_partials(const vf_ctx *c, const vf_version *n, int32_t id, const lfa_fragment_assignment *before,
                             int64_t base_p, const lfa_fragment_assignment *now, int64_t base_n,
                             const lfa_root_entry *ep, const lfa_root_entry *en) {
  int64_t bp = base_of(ep->partial, base_p), bn = base_of(en->partial, base_n);
  lfa_where w = at_field(n, id);
  w.has_fragment = true, w.fragment_id = en->fragment_id, w.file = en->partial->path;
  if (same_object(ep->partial, bp, en->partial, bn)) return;
  char was[32], is[32];
  if (same_text(ep->partial->path, en->partial->path)) /* [FA-STORE-12] the reuse lost its base */
    lfa_findings_add(c->findings, &w, "FA-STORE-12", LFA_SEVERITY_ERROR,
                     "fragment %" PRIu64 " reuses bitmap '%s', read through %s in the parent and through %s here: a "
                     "reused object keeps its base, which the entry must name by base_id",
                     en->fragment_id, en->partial->path, base_name(was, sizeof was, bp), base_name(is, sizeof is, bn));
  else if (before->rows != NULL && now->rows != NULL && roaring_bitmap_equals(before->rows, now->rows))
    lfa_findings_add(c->findings, &w, "FA-STORE-11", LFA_SEVERITY_WARNING,
                     "fragment %" PRIu64 ": new bitmap '%s' holds exactly the set of '%s', which it replaces; "
                     "writers reuse the object", en->fragment_id, en->partial->path, ep->partial->path);
}

/* Field `id`, tracked in P (index tp) and N (index tn), both loaded. */
static void check_reuse(const vf_ctx *c, const vf_version *p, const vf_version *n, size_t tp, size_t tn) {
  const lfa_tracked_field *a = &p->snap.tracked[tp], *b = &n->snap.tracked[tn];
  int64_t base_p = base_of(a->root_file, NO_BASE), base_n = base_of(b->root_file, NO_BASE);
  if (same_object(a->root_file, base_p, b->root_file, base_n)) return; /* the same root: nothing was rewritten */
  if (same_entries(a->root, base_p, b->root, base_n)) {
    lfa_where w = at_field(n, b->field_id);
    w.file = b->root_file->path;
    lfa_findings_add(c->findings, &w, "FA-STORE-10", LFA_SEVERITY_WARNING,
                     "root '%s' has the same entries as '%s' of version %" PRIu64 ", which it replaces; writers copy "
                     "the descriptor instead", b->root_file->path, a->root_file->path, p->version);
    return;
  }
  /* entries of fragments in both: a loaded root's entries strictly ascend
   * [FA-ROOT-2], so one merge of the two lists finds them */
  for (size_t k = 0, j = 0; k < b->count && j < a->count;) {
    const lfa_root_entry *en = b->root->fragments[k], *ep = a->root->fragments[j];
    if (ep->fragment_id < en->fragment_id) {
      j++;
    } else if (en->fragment_id < ep->fragment_id) {
      k++;
    } else {
      if (is_partial(ep) && is_partial(en))
        compare_partials(c, n, b->field_id, &a->fragments[j], base_p, &b->fragments[k], base_n, ep, en);
      j++, k++;
    }
  }
}

static void check_objects_reused(const vf_ctx *c, const vf_version *p, const vf_version *n) {
  for (size_t tn = 0; tn < n->snap.n_tracked; tn++) {
    size_t tp = lfa_snapshot_tracked(&p->snap, n->snap.tracked[tn].field_id);
    if (tp != SIZE_MAX && p->snap.tracked[tp].root != NULL && n->snap.tracked[tn].root != NULL)
      check_reuse(c, p, n, tp, tn);
  }
}

/* ---- FA-META-2 ------------------------------------------------------------------------------------ */

static const Lance__Table__BasePath *find_base(const Lance__Table__Manifest *m, uint32_t id) {
  for (size_t i = 0; i < m->n_base_paths; i++)
    if (m->base_paths[i]->id == id) return m->base_paths[i];
  return NULL;
}

/* Base `id`, through which N reads `path`: the same entry in P and N. */
static void check_base_kept(const vf_ctx *c, const vf_version *p, const vf_version *n, uint32_t id, int32_t field,
                            const char *path) {
  const Lance__Table__BasePath *was = find_base(p->snap.file.manifest, id), *is = find_base(n->snap.file.manifest, id);
  if (was == NULL || is == NULL ||
      (was->is_dataset_root == is->is_dataset_root && same_text(was->path, is->path)))
    return; /* a base P lacked is no change of P's; one N lacks fails to resolve (FA-STORE-6) */
  lfa_where w = at_field(n, field);
  w.file = path;
  lfa_findings_add(c->findings, &w, "FA-META-2", LFA_SEVERITY_ERROR,
                   "UpdateBases changes base %u ('%s'%s to '%s'%s), through which '%s' is read", (unsigned)id,
                   was->path ? was->path : "", was->is_dataset_root ? ", dataset root" : "", is->path ? is->path : "",
                   is->is_dataset_root ? ", dataset root" : "", path);
}

static void check_update_bases(const vf_ctx *c, const vf_version *p, const vf_version *n) {
  for (size_t i = 0; i < n->snap.n_tracked; i++) {
    const lfa_tracked_field *t = &n->snap.tracked[i];
    if (t->root_file->has_base_id) check_base_kept(c, p, n, t->root_file->base_id, t->field_id, t->root_file->path);
    for (size_t k = 0; t->root != NULL && k < t->root->n_fragments; k++) {
      const lfa_root_entry *e = t->root->fragments[k];
      if (is_partial(e) && e->partial->has_base_id)
        check_base_kept(c, p, n, e->partial->base_id, t->field_id, e->partial->path);
    }
  }
}

/* ---- the commit ------------------------------------------------------------------------------------ */

void vf_check_commit_rules(const vf_ctx *c, const vf_version *p, const vf_version *n, const Txn *t) {
  check_field_ids(c, p, n);
  check_id_changes(c, p, n, t);
  if (is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_UPDATE)) check_fields_modified(c, p, n, t);
  check_objects_reused(c, p, n);
  if (is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_UPDATE_BASES)) check_update_bases(c, p, n);
}
