/* transition.c: the rules of one commit, P and T to N (spec/10-verifier.md
 * §3).
 *
 * The expected state of N is computed from P and T alone by the reference
 * transition rule (lfa/apply.h) on N's structure with its state dropped
 * [FA-VERIFY-3], then compared with N's recorded state on every live row of
 * every fragment [FA-OP-4, FA-SEM-2]; the tracked sets must agree [FA-OP-1].
 * A transaction the rule refuses is a finding under the rule it breaks.
 * Restore and Clone take the state of another version [FA-RESTORE-1,
 * FA-CLONE-1, FA-CLONE-2].
 *
 * apply trusts a Rewrite's FragmentStates, so rewrites get a second,
 * independent check here: each new fragment's state must equal P's state
 * carried by the row mapping the metadata implies [FA-REWRITE-1]: group
 * order and deletion sets in address mode [FA-REMAP-1, FA-REMAP-2], row ids
 * with stable row ids [FA-REMAP-3], the legacy form as one group
 * [FA-REMAP-4]. A REWRITE_ROWS Update is trusted the same way; with
 * stable row ids update_rows.c checks it row by row [FA-UPDATE-6].
 *
 * The rules on the schema, the transaction's other fields and the reuse of
 * objects are in commit_rules.c.
 *
 * What cannot be decided is said, under FA-VERIFY-5: a warning when
 * assignment state is at stake, else info. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lfa/apply.h"
#include "lfa/bitmap.h"
#include "lfa/limits.h"
#include "lfa/pb_types.h"
#include "lfa/remap.h"
#include "lfa/transaction.h"
#include "lfa/search.h"

/* ---- where findings point ----------------------------------------------------- */

/* The file T was read from: the manifest's inline section comes first
 * [FA-LANCE-10]. */
static lfa_where at_txn(const vf_version *n, char *buf, size_t cap) {
  const Lance__Table__Manifest *m = n->snap.file.manifest;
  lfa_where w = {.version = n->version, .file = n->manifest_path};
  if (n->snap.file.transaction == NULL && m->transaction_file != NULL && m->transaction_file[0] != '\0') {
    snprintf(buf, cap, "_transactions/%s", m->transaction_file);
    w.file = buf;
  }
  return w;
}

static lfa_where at_field(const vf_version *n, int32_t field_id) {
  lfa_where w = {.version = n->version, .file = n->manifest_path, .has_field = true, .field_id = field_id};
  w.field_name = vf_snapshot_field_name(&n->snap, field_id);
  size_t t = lfa_snapshot_tracked(&n->snap, field_id);
  if (t != SIZE_MAX) w.file = n->snap.tracked[t].root_file->path; /* the root that holds the state */
  return w;
}

static void not_checked(const vf_ctx *c, const vf_version *n, bool tracked, const char *why) {
  lfa_where w = {.version = n->version, .file = n->manifest_path};
  lfa_findings_add(c->findings, &w, "FA-VERIFY-5", tracked ? LFA_SEVERITY_WARNING : LFA_SEVERITY_INFO,
                   "the commit that made version %" PRIu64 " is not checked: %s", n->version, why);
}

/* ---- comparing cells on live rows ------------------------------------------------ */

/* The assigned offsets of a cell (ALL becomes [0, physical_rows)). */
static roaring_bitmap_t *cell_rows(const lfa_cell *cell, uint64_t physical_rows) {
  if (cell->kind == LFA_CELL_PARTIAL && cell->rows != NULL) return roaring_bitmap_copy(cell->rows);
  if (cell->kind == LFA_CELL_ALL && physical_rows > 0) return roaring_bitmap_from_range(0, physical_rows, 1);
  return roaring_bitmap_create();
}

typedef struct cell_diff {
  uint64_t extra;   /* live rows recorded assigned that should not be */
  uint64_t missing; /* live rows that should be assigned and are not */
  size_t n_rows;
  uint64_t rows[LFA_FINDING_ROWS_MAX]; /* the first differing offsets */
} cell_diff;

/* [FA-SEM-2] where `got` differs from `want` on live rows of `f`. False
 * when memory runs out. */
static bool diff_cells(cell_diff *out, const lfa_cell *want, const lfa_cell *got, const lfa_fragment *f) {
  roaring_bitmap_t *x = cell_rows(want, f->physical_rows), *y = cell_rows(got, f->physical_rows);
  roaring_bitmap_t *missing = x && y ? roaring_bitmap_andnot(x, y) : NULL;
  roaring_bitmap_t *extra = x && y ? roaring_bitmap_andnot(y, x) : NULL;
  roaring_bitmap_t *both = missing && extra ? roaring_bitmap_or(missing, extra) : NULL;
  memset(out, 0, sizeof *out);
  if (both != NULL && f->deleted != NULL) { /* only live rows count */
    roaring_bitmap_andnot_inplace(missing, f->deleted);
    roaring_bitmap_andnot_inplace(extra, f->deleted);
    roaring_bitmap_andnot_inplace(both, f->deleted);
  }
  if (both != NULL) {
    out->extra = roaring_bitmap_get_cardinality(extra);
    out->missing = roaring_bitmap_get_cardinality(missing);
    roaring_uint32_iterator_t *it = roaring_create_iterator(both);
    for (; it != NULL && it->has_value && out->n_rows < LFA_FINDING_ROWS_MAX; roaring_advance_uint32_iterator(it))
      out->rows[out->n_rows++] = it->current_value;
    if (it != NULL) roaring_free_uint32_iterator(it);
  }
  bool ok = both != NULL;
  lfa_bitmap_free(x);
  lfa_bitmap_free(y);
  lfa_bitmap_free(missing);
  lfa_bitmap_free(extra);
  lfa_bitmap_free(both);
  return ok;
}

/* One finding per fragment where `got` differs from `want`. */
static void compare_cell(const vf_ctx *c, lfa_where w, const lfa_cell *want, const lfa_cell *got, const lfa_fragment *f,
                         const char *rule, const char *source) {
  if (lfa_cells_equal_live(want, got, f)) return;
  cell_diff d;
  if (!diff_cells(&d, want, got, f)) {
    vf_out_of_memory(c);
    return;
  }
  w.has_fragment = true, w.fragment_id = f->id, w.n_rows = d.n_rows, w.rows = d.rows;
  lfa_findings_add(c->findings, &w, rule, LFA_SEVERITY_ERROR,
                   "fragment %" PRIu64 ": %" PRIu64 " live rows differ from %s: %" PRIu64
                   " recorded assigned should not be, %" PRIu64 " should be assigned and are not",
                   f->id, d.extra + d.missing, source, d.extra, d.missing);
}

/* ---- the tracked set and the state of N ------------------------------------------ */

typedef struct rules {
  const char *set;    /* the tracked set differs */
  const char *cells;  /* a cell differs */
  const char *source; /* what the expected state comes from, for messages */
} rules;

/* A field the rule tracks in N and N does not. A descriptor that vanished
 * while its field stays is what an older writer leaves [FA-FLAG-6]: the
 * finding names N's writer. */
static void missing_field(const vf_ctx *c, const vf_version *p, const vf_version *n, int32_t id, const rules *r) {
  lfa_where w = at_field(n, id);
  char writer[160];
  vf_writer_of(writer, sizeof writer, n->snap.file.manifest);
  if (p != NULL && lfa_table_tracked(&p->table, id) != NULL && lfa_table_field(&n->table, id) != NULL)
    lfa_findings_add(c->findings, &w, r->set, LFA_SEVERITY_ERROR,
                     "field %d was tracked in version %" PRIu64 " and stays in the schema, but its descriptor "
                     "vanished: tracking ends only when the field leaves the schema (%s)",
                     id, p->version, writer);
  else
    lfa_findings_add(c->findings, &w, r->set, LFA_SEVERITY_ERROR,
                     "field %d should be tracked (from %s) but has no descriptor (%s)", id, r->source, writer);
}

static void extra_field(const vf_ctx *c, const vf_version *n, int32_t id, const rules *r) {
  lfa_where w = at_field(n, id);
  lfa_findings_add(c->findings, &w, r->set, LFA_SEVERITY_ERROR,
                   "field %d has a descriptor, but %s does not track it: it was not tracked before and the "
                   "transaction neither initializes nor transfers it", id, r->source);
}

/* [FA-OP-1] the tracked sets, then [FA-OP-4] every cell of every field
 * both track, on live rows. `want` has N's structure. */
static void compare_tables(const vf_ctx *c, const vf_version *p, const vf_version *n, const lfa_table *want,
                           const rules *r) {
  const lfa_table *got = &n->table;
  size_t i = 0, j = 0;
  while (i < want->n_tracked || j < got->n_tracked) {
    int32_t a = i < want->n_tracked ? want->tracked[i].field_id : INT32_MAX;
    int32_t b = j < got->n_tracked ? got->tracked[j].field_id : INT32_MAX;
    if (i < want->n_tracked && (j == got->n_tracked || a < b)) {
      missing_field(c, p, n, a, r);
      i++;
    } else if (j < got->n_tracked && (i == want->n_tracked || b < a)) {
      extra_field(c, n, b, r);
      j++;
    } else {
      lfa_where w = at_field(n, a);
      for (size_t k = 0; k < got->n_fragments; k++)
        compare_cell(c, w, &want->tracked[i].cells[k], &got->tracked[j].cells[k], &got->fragments[k], r->cells,
                     r->source);
      i++, j++;
    }
  }
}

/* FA-OP-2 from P and T on N's structure, compared with N. */
static lfa_status check_apply(const vf_ctx *c, const vf_version *p, const vf_version *n, const Txn *t, lfa_error *err) {
  /* N's structure, shared, not copied: apply fills in only the tracked
   * fields (lfa/apply.h), which are want's own and freed below */
  lfa_table want = n->table;
  want.tracked = NULL, want.n_tracked = 0;
  lfa_status st = LFA_OK;
  lfa_error e = {0};
  if (lfa_apply_assignment(&want, p ? &p->table : NULL, t, &e) == LFA_OK) {
    char source[64];
    snprintf(source, sizeof source, "the state derived from version %" PRIu64 " and the transaction",
             p ? p->version : 0);
    rules r = {"FA-OP-1", "FA-OP-4", p ? source : "the transaction (a new dataset)"};
    compare_tables(c, p, n, &want, &r);
  } else if (e.status == LFA_ERR_NOMEM) {
    st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e.msg);
  } else if (e.rule == NULL) {
    not_checked(c, n, true, e.msg);
  } else {
    /* [FA-FLAG-6] a sidecar an older writer left out is its damage: name it */
    char file[LFA_PATH_BYTES_MAX], writer[160];
    lfa_where w = at_txn(n, file, sizeof file);
    vf_where_from(&w, &e, false, n);
    vf_writer_of(writer, sizeof writer, n->snap.file.manifest);
    lfa_findings_add(c->findings, &w, e.rule, LFA_SEVERITY_ERROR, "the transaction breaks %s: %s (%s)", e.rule, e.msg,
                     writer);
  }
  lfa_table_drop_state(&want); /* the state apply made; the structure is N's */
  return st;
}

/* [FA-LANCE-19] a fragment id in both P and N is one fragment: same rows
 * and, with stable row ids, the same ids. False when one is not: the
 * state of such a fragment cannot be carried. */
static bool check_carried_fragments(const vf_ctx *c, const vf_version *p, const vf_version *n) {
  bool ok = true;
  for (size_t i = 0; i < n->table.n_fragments; i++) {
    const lfa_fragment *f = &n->table.fragments[i];
    size_t k = lfa_table_fragment_near(&p->table, f->id, i);
    if (k == SIZE_MAX) continue;
    const lfa_fragment *old = &p->table.fragments[k];
    if (f->physical_rows == 0 || old->physical_rows == 0) continue; /* 0: unknown, written by old Lance */
    bool same_ids = f->row_ids == NULL || old->row_ids == NULL || f->physical_rows != old->physical_rows ||
                    memcmp(f->row_ids, old->row_ids, f->physical_rows * sizeof *f->row_ids) == 0;
    if (f->physical_rows == old->physical_rows && same_ids && (f->row_ids == NULL) == (old->row_ids == NULL))
      continue;
    lfa_where w = {.version = n->version, .file = n->manifest_path, .has_fragment = true, .fragment_id = f->id};
    lfa_findings_add(c->findings, &w, "FA-LANCE-19", LFA_SEVERITY_ERROR,
                     "fragment %" PRIu64 " is in version %" PRIu64 " with %" PRIu64 " rows and in version %" PRIu64
                     " with %" PRIu64 "%s: one id must denote one fragment",
                     f->id, p->version, old->physical_rows, n->version, f->physical_rows,
                     f->physical_rows == old->physical_rows ? " and other row ids" : "");
    ok = false;
  }
  return ok;
}

/* ---- Restore and Clone --------------------------------------------------------------- */

/* [FA-RESTORE-1] [FA-CLONE-1] [FA-CLONE-2] N has `source`'s fragments,
 * tracked fields and state. */
static lfa_status check_copy(const vf_ctx *c, const vf_version *n, const vf_version *source, const char *rule,
                             lfa_error *err) {
  lfa_where w = {.version = n->version, .file = n->manifest_path};
  bool same = n->table.n_fragments == source->table.n_fragments;
  for (size_t i = 0; same && i < n->table.n_fragments; i++)
    same = n->table.fragments[i].id == source->table.fragments[i].id &&
           n->table.fragments[i].physical_rows == source->table.fragments[i].physical_rows;
  if (!same) {
    lfa_findings_add(c->findings, &w, rule, LFA_SEVERITY_ERROR,
                     "the fragments of version %" PRIu64 " are not those of version %" PRIu64 ", which it copies",
                     n->version, source->version);
    return LFA_OK;
  }
  lfa_table want;
  lfa_status st = lfa_table_copy(&want, &n->table, err);
  if (st != LFA_OK) return st;
  lfa_table_drop_state(&want);
  st = lfa_apply_copy_state(&want, &source->table, err);
  if (st == LFA_OK) {
    char what[64];
    snprintf(what, sizeof what, "version %" PRIu64 ", which it copies", source->version);
    rules r = {rule, rule, what};
    compare_tables(c, NULL, n, &want, &r);
  }
  lfa_table_free(&want);
  return st;
}

/* Loads `version` of the dataset at `dir` (quietly: its own findings are
 * reported when it is checked itself) and compares N with it. */
static lfa_status check_copy_of(const vf_ctx *c, const vf_version *n, const char *dir, uint64_t version,
                                const char *rule, lfa_error *err) {
  lfa_version_list list = {0};
  lfa_names names = {0};
  lfa_error e = {0};
  char why[LFA_ERROR_MSG_MAX + 64];
  const lfa_version_entry *entry = NULL;
  bool here = c->versions != NULL && strcmp(dir, c->dir) == 0; /* this dataset: listed once per run */
  if (!here) (void)lfa_dataset_versions(&list, &names, c->fs, dir, &e); /* a failure is in e */
  const lfa_version_list *l = here ? c->versions : &list;
  for (size_t i = 0; e.status == LFA_OK && i < l->count; i++)
    if (l->entries[i].version == version) entry = &l->entries[i];
  vf_version source = {0};
  lfa_status st = LFA_OK;
  if (entry != NULL) st = vf_load_quietly(&source, c, dir, entry, err);
  if (st == LFA_OK && (entry == NULL || !source.loadable)) {
    snprintf(why, sizeof why, "the version it copies (%" PRIu64 " of %s) is %s", version, dir,
             entry == NULL ? "not readable" : "not loadable");
    not_checked(c, n, true, why);
  } else if (st == LFA_OK) {
    st = check_copy(c, n, &source, rule, err);
  }
  vf_version_free(&source);
  if (!here && e.status == LFA_OK) {
    lfa_version_list_free(&list);
    lfa_fs_names_free(&names);
  }
  return st;
}

/* The dataset a Clone copies: its ref_path when that is a local directory
 * ("file://" stripped), else this dataset (the reference writer records
 * clones in the history they come from). */
static const char *clone_source(const vf_ctx *c, const Lance__Table__Transaction__Clone *op) {
  const char *path = op->ref_path;
  if (path != NULL && strncmp(path, "file://", 7) == 0) path += 7;
  return path != NULL && path[0] != '\0' && lfa_fs_is_dir_in(c->fs, path) ? path : c->dir;
}

/* ---- Rewrite: the independent mapping ----------------------------------------------- */

enum { NO_SOURCE = -1 };

/* Where one row of a new fragment comes from: an index into P's table
 * and an offset there; frag NO_SOURCE when it comes from nowhere. */
typedef struct src_row {
  int64_t frag;
  uint64_t offset;
} src_row;

typedef struct group {
  size_t n_old, n_new;
  size_t *old_idx; /* P's table */
  size_t *new_idx; /* N's table */
  src_row **src;   /* per new fragment, one per physical row */
} group;

static void group_free(group *g) {
  for (size_t k = 0; g->src != NULL && k < g->n_new; k++) free(g->src[k]);
  free(g->src);
  free(g->old_idx);
  free(g->new_idx);
  memset(g, 0, sizeof *g);
}

/* The fragment of N a group's new fragment became: fragment ids may be
 * handed out at commit, so it is matched by its first data file (as
 * FragmentStates are, FA-TXN-13), else by id; never a fragment of P. */
static size_t new_fragment(const vf_version *p, const vf_version *n, const Lance__Table__DataFragment *f) {
  for (size_t k = 0; f->n_files > 0 && k < n->table.n_fragments; k++) {
    const lfa_fragment *g = &n->table.fragments[k];
    if (g->n_files > 0 && strcmp(g->files[0].path, f->files[0]->path) == 0 &&
        lfa_table_fragment(&p->table, g->id) == SIZE_MAX)
      return k;
  }
  size_t k = lfa_table_fragment(&n->table, f->id);
  return k != SIZE_MAX && lfa_table_fragment(&p->table, f->id) == SIZE_MAX ? k : SIZE_MAX;
}

/* Resolves a group's fragments. False (reported) when one is missing. */
static bool resolve_group(group *g, const vf_ctx *c, const vf_version *p, const vf_version *n,
                          const Lance__Table__Transaction__Rewrite__RewriteGroup *rg, size_t gi, const char *rule) {
  lfa_where w = {.version = n->version, .file = n->manifest_path, .has_fragment = true};
  g->n_old = rg->n_old_fragments, g->n_new = rg->n_new_fragments;
  g->old_idx = calloc(g->n_old + 1, sizeof *g->old_idx);
  g->new_idx = calloc(g->n_new + 1, sizeof *g->new_idx);
  g->src = calloc(g->n_new + 1, sizeof *g->src);
  if (g->old_idx == NULL || g->new_idx == NULL || g->src == NULL) return vf_out_of_memory(c);
  for (size_t k = 0; k < g->n_old; k++) {
    w.fragment_id = rg->old_fragments[k]->id;
    if ((g->old_idx[k] = lfa_table_fragment(&p->table, w.fragment_id)) == SIZE_MAX) {
      lfa_findings_add(c->findings, &w, rule, LFA_SEVERITY_ERROR, "rewrite group %zu names old fragment %" PRIu64
                       ", which is not in version %" PRIu64, gi, w.fragment_id, p->version);
      return false;
    }
  }
  for (size_t k = 0; k < g->n_new; k++) {
    w.fragment_id = rg->new_fragments[k]->id;
    if ((g->new_idx[k] = new_fragment(p, n, rg->new_fragments[k])) == SIZE_MAX) {
      lfa_findings_add(c->findings, &w, rule, LFA_SEVERITY_ERROR, "new fragment %zu of rewrite group %zu is not a "
                       "fragment this commit created in version %" PRIu64, k, gi, n->version);
      return false;
    }
    uint64_t rows = n->table.fragments[g->new_idx[k]].physical_rows;
    if ((g->src[k] = malloc((rows ? rows : 1) * sizeof *g->src[k])) == NULL) return vf_out_of_memory(c);
    for (uint64_t j = 0; j < rows; j++) g->src[k][j] = (src_row){NO_SOURCE, 0};
  }
  return true;
}

/* One mapped row: new row new_offset of the group's new fragment
 * new_fragment comes from P's fragment old_idx[old], offset old_offset. */
static void place_address(void *ctx, const lfa_remap_row *r) {
  group *g = ctx;
  g->src[r->new_fragment][r->new_offset] = (src_row){(int64_t)g->old_idx[r->old], r->old_offset};
}

/* [FA-REMAP-1] the reference's plain loop (lfa_remap_rows) places every
 * live old row; the counts were checked, so it fails only on an old
 * fragment of more than 2^32 rows, or out of memory. */
static bool map_rows(group *g, const vf_ctx *c, const vf_version *p, const vf_version *n, size_t gi) {
  const lfa_fragment **old = malloc((g->n_old + 1) * sizeof *old);
  uint64_t *new_rows = malloc((g->n_new + 1) * sizeof *new_rows);
  lfa_error err = {0};
  bool ok = old != NULL && new_rows != NULL;
  for (size_t k = 0; ok && k < g->n_old; k++) old[k] = &p->table.fragments[g->old_idx[k]];
  for (size_t k = 0; ok && k < g->n_new; k++) new_rows[k] = n->table.fragments[g->new_idx[k]].physical_rows;
  if (!ok) vf_out_of_memory(c);
  else if (lfa_remap_rows(new_rows, g->n_new, old, g->n_old, place_address, g, &err) != LFA_OK) {
    lfa_where w = {.version = n->version, .file = n->manifest_path};
    lfa_findings_add(c->findings, &w, "FA-REMAP-1", LFA_SEVERITY_ERROR, "rewrite group %zu: %s", gi, err.msg);
    ok = false;
  }
  free(old);
  free(new_rows);
  return ok;
}

/* [FA-REMAP-1] [FA-REMAP-2] address mode: the k-th live old row, in group
 * order, becomes the k-th new row; new fragments have no deletions and
 * exactly as many rows as the old ones have live. */
static bool map_by_address(group *g, const vf_ctx *c, const vf_version *p, const vf_version *n, size_t gi) {
  uint64_t old_live = 0, new_rows = 0;
  lfa_where w = {.version = n->version, .file = n->manifest_path};
  for (size_t k = 0; k < g->n_old; k++) old_live += lfa_fragment_live_rows(&p->table.fragments[g->old_idx[k]]);
  for (size_t k = 0; k < g->n_new; k++) {
    const lfa_fragment *f = &n->table.fragments[g->new_idx[k]];
    new_rows += f->physical_rows;
    if (f->deleted != NULL && !roaring_bitmap_is_empty(f->deleted)) {
      w.has_fragment = true, w.fragment_id = f->id;
      lfa_findings_add(c->findings, &w, "FA-REMAP-2", LFA_SEVERITY_ERROR, "new fragment %" PRIu64 " of rewrite group %zu "
                       "has deleted rows: in address mode a rewrite writes only live rows", f->id, gi);
      return false;
    }
  }
  if (old_live != new_rows) {
    w.has_fragment = false;
    lfa_findings_add(c->findings, &w, "FA-REMAP-2", LFA_SEVERITY_ERROR, "rewrite group %zu: the old fragments have %" PRIu64
                     " live rows, the new ones %" PRIu64 ": no state can be carried across in address mode", gi,
                     old_live, new_rows);
    return false;
  }
  return map_rows(g, c, p, n, gi);
}

typedef struct id_src {
  uint64_t id;
  src_row at;
  bool used;
} id_src;

static int by_row_id(const void *a, const void *b) {
  uint64_t x = ((const id_src *)a)->id, y = ((const id_src *)b)->id;
  return (x > y) - (x < y);
}

/* The live rows of a group's old fragments, sorted by row id. */
static id_src *old_ids(size_t *count, const group *g, const vf_version *p) {
  size_t n = 0;
  for (size_t k = 0; k < g->n_old; k++) n += (size_t)p->table.fragments[g->old_idx[k]].physical_rows;
  id_src *ids = malloc((n ? n : 1) * sizeof *ids);
  if (ids == NULL) return NULL;
  n = 0;
  for (size_t k = 0; k < g->n_old; k++) {
    const lfa_fragment *f = &p->table.fragments[g->old_idx[k]];
    for (uint64_t off = 0; f->row_ids != NULL && off < f->physical_rows; off++)
      if (lfa_fragment_is_live(f, (uint32_t)off)) ids[n++] = (id_src){f->row_ids[off], {(int64_t)g->old_idx[k], off}, false};
  }
  qsort(ids, n, sizeof *ids, by_row_id);
  *count = n;
  return ids;
}

/* Places every live row of one new fragment by its row id. Rows whose id
 * is unknown or already placed are listed in *bad (up to the finding's
 * example count) and counted. */
static uint64_t place_rows(group *g, size_t k, id_src *ids, size_t n_ids, const lfa_fragment *f, cell_diff *bad) {
  uint64_t wrong = 0;
  for (uint64_t j = 0; f->row_ids != NULL && j < f->physical_rows; j++) {
    if (!lfa_fragment_is_live(f, (uint32_t)j)) continue;
    id_src key = {f->row_ids[j], {0, 0}, false};
    size_t at = lfa_search(&key, ids, n_ids, sizeof *ids, by_row_id);
    id_src *hit = at == SIZE_MAX ? NULL : &ids[at];
    if (hit != NULL && !hit->used) {
      hit->used = true;
      g->src[k][j] = hit->at;
      continue;
    }
    if (bad->n_rows < LFA_FINDING_ROWS_MAX) bad->rows[bad->n_rows++] = j;
    wrong++;
  }
  return wrong;
}

/* [FA-REMAP-3] stable row ids: a row keeps its id. Every live old id is
 * among the new fragments' live rows exactly once, and they hold no
 * other. (Old ids are unique: FA-LANCE-14 is checked per version.) */
static bool map_by_row_id(group *g, const vf_ctx *c, const vf_version *p, const vf_version *n, size_t gi) {
  size_t n_ids = 0;
  id_src *ids = old_ids(&n_ids, g, p);
  if (ids == NULL) return vf_out_of_memory(c);
  bool ok = true;
  for (size_t k = 0; k < g->n_new; k++) {
    const lfa_fragment *f = &n->table.fragments[g->new_idx[k]];
    cell_diff bad = {0};
    uint64_t wrong = place_rows(g, k, ids, n_ids, f, &bad);
    if (wrong == 0) continue;
    lfa_where w = {.version = n->version, .file = n->manifest_path, .has_fragment = true, .fragment_id = f->id,
                   .n_rows = bad.n_rows, .rows = bad.rows};
    lfa_findings_add(c->findings, &w, "FA-REMAP-3", LFA_SEVERITY_ERROR, "rewrite group %zu: %" PRIu64 " live rows of new "
                     "fragment %" PRIu64 " have a row id that no live row of the old fragments has, or one already "
                     "placed", gi, wrong, f->id);
    ok = false;
  }
  uint64_t lost = 0;
  const id_src *first = NULL;
  for (size_t i = 0; i < n_ids; i++)
    if (!ids[i].used && lost++ == 0) first = &ids[i];
  if (first != NULL) {
    const lfa_fragment *f = &p->table.fragments[first->at.frag];
    lfa_where w = {.version = n->version, .file = n->manifest_path, .has_fragment = true, .fragment_id = f->id,
                   .n_rows = 1, .rows = &first->at.offset};
    lfa_findings_add(c->findings, &w, "FA-REMAP-3", LFA_SEVERITY_ERROR, "rewrite group %zu drops %" PRIu64 " live rows: "
                     "row id %" PRIu64 " of old fragment %" PRIu64 " is not a live row of any new fragment",
                     gi, lost, first->id, f->id);
    ok = false;
  }
  free(ids);
  return ok;
}

/* [FA-REWRITE-1] each carried field's state in a new fragment is P's
 * state of the rows mapped onto it. */
static void compare_mapped(const vf_ctx *c, const group *g, const vf_version *p, const vf_version *n) {
  for (size_t s = 0; s < n->table.n_tracked; s++) {
    const lfa_field_state *now = &n->table.tracked[s];
    const lfa_field_state *before = lfa_table_tracked(&p->table, now->field_id);
    if (before == NULL) continue; /* not carried: the transition rule decides (FA-OP-2) */
    lfa_where w = at_field(n, now->field_id);
    for (size_t k = 0; k < g->n_new; k++) {
      const lfa_fragment *f = &n->table.fragments[g->new_idx[k]];
      lfa_cell want = {LFA_CELL_PARTIAL, roaring_bitmap_create()};
      if (want.rows == NULL) {
        vf_out_of_memory(c);
        return;
      }
      for (uint64_t j = 0; j < f->physical_rows; j++) {
        src_row r = g->src[k][j];
        if (r.frag != NO_SOURCE && lfa_cell_contains(&before->cells[r.frag], (uint32_t)r.offset))
          roaring_bitmap_add(want.rows, (uint32_t)j);
      }
      compare_cell(c, w, &want, &now->cells[g->new_idx[k]], f, "FA-REWRITE-1",
                   "the parent's state moved along the rewrite's row mapping");
      lfa_bitmap_free(want.rows);
    }
  }
}

static lfa_status check_rewrite(const vf_ctx *c, const vf_version *p, const vf_version *n, const Txn *t, lfa_error *err) {
  const Lance__Table__Transaction__Rewrite *op = t->rewrite;
  Lance__Table__Transaction__Rewrite__RewriteGroup legacy = LANCE__TABLE__TRANSACTION__REWRITE__REWRITE_GROUP__INIT;
  legacy.n_old_fragments = op->n_old_fragments, legacy.old_fragments = op->old_fragments;
  legacy.n_new_fragments = op->n_new_fragments, legacy.new_fragments = op->new_fragments;
  Lance__Table__Transaction__Rewrite__RewriteGroup *one[] = {&legacy};
  /* [FA-REMAP-4] the legacy form is one group, in listed order */
  size_t n_groups = op->n_groups > 0 ? op->n_groups : (op->n_old_fragments + op->n_new_fragments > 0);
  Lance__Table__Transaction__Rewrite__RewriteGroup **groups = op->n_groups > 0 ? op->groups : one;
  const char *rule = n->table.stable_row_ids ? "FA-REMAP-3" : "FA-REMAP-1";
  for (size_t gi = 0; gi < n_groups; gi++) {
    group g = {0};
    bool ok = resolve_group(&g, c, p, n, groups[gi], gi, rule);
    if (ok) ok = n->table.stable_row_ids ? map_by_row_id(&g, c, p, n, gi) : map_by_address(&g, c, p, n, gi);
    if (ok) compare_mapped(c, &g, p, n);
    group_free(&g);
  }
  return c->findings->lost ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory checking a rewrite") : LFA_OK;
}

/* ---- the commit ------------------------------------------------------------------------- */

static bool is_op(const Txn *t, Lance__Table__Transaction__OperationCase op) { return t->operation_case == op; }

lfa_status vf_check_commit(const vf_ctx *c, const vf_version *p, const vf_version *n, lfa_error *err) {
  bool tracked = n->tracked || (p != NULL && p->tracked);
  char why[LFA_ERROR_MSG_MAX];
  if (!n->loadable) {
    not_checked(c, n, tracked, "the version is not loadable (see its own findings)");
    return LFA_OK;
  }
  const Txn *t = n->snap.transaction;
  if (t == NULL) {
    lfa_where w = {.version = n->version, .file = n->manifest_path};
    if (tracked) /* [FA-LANCE-17] assignment needs T to know what the commit wrote */
      lfa_findings_add(c->findings, &w, "FA-LANCE-17", LFA_SEVERITY_ERROR,
                       "version %" PRIu64 " has no transaction, but it or its parent has assignment descriptors",
                       n->version);
    not_checked(c, n, tracked, "the version has no transaction (inline or in _transactions/)");
    return LFA_OK;
  }
  bool copy = is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_RESTORE) || is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_CLONE);
  if (copy) vf_check_copy_sidecar(c, n, t); /* [FA-TXN-15] */
  if (is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_CLONE) && !t->clone->is_shallow) vf_check_deep_clone(c, n);
  if (is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_RESTORE))
    return check_copy_of(c, n, c->dir, t->restore->version, "FA-RESTORE-1", err);
  if (is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_CLONE))
    return check_copy_of(c, n, clone_source(c, t->clone), t->clone->ref_version,
                         t->clone->is_shallow ? "FA-CLONE-1" : "FA-CLONE-2", err);
  bool overwrite = is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE);
  if (p == NULL && !overwrite) { /* an overwrite needs no parent: nothing of P survives it (FA-OVERWRITE-1) */
    if (n->version == 1) snprintf(why, sizeof why, "it has no parent, yet its operation (%s) is not an Overwrite",
                                  lfa_transaction_operation_name(t));
    else snprintf(why, sizeof why, "its parent, version %" PRIu64 ", is not in _versions/", n->version - 1);
    not_checked(c, n, tracked, why);
    return LFA_OK;
  }
  if (p != NULL && !p->loadable) {
    snprintf(why, sizeof why, "its parent, version %" PRIu64 ", is not loadable", p->version);
    not_checked(c, n, tracked, why);
    return LFA_OK;
  }
  if (p != NULL && !overwrite && !check_carried_fragments(c, p, n)) return LFA_OK;
  if (p != NULL && !overwrite) vf_check_commit_rules(c, p, n, t); /* commit_rules.c */
  lfa_status st = check_apply(c, overwrite ? NULL : p, n, t, err);
  if (st == LFA_OK && p != NULL && is_op(t, LANCE__TABLE__TRANSACTION__OPERATION_REWRITE))
    st = check_rewrite(c, p, n, t, err);
  if (st == LFA_OK && p != NULL && !overwrite) st = vf_check_update_rows(c, p, n, t, err);
  return st;
}
