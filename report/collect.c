/* collect.c: a dataset's history summed into the buckets of lfa/report.h.
 *
 * Every version in range is loaded once with the reader every tool shares
 * (lfa_snapshot_open with load_fields: every load-time rule applies), summed into its
 * column, and freed before the next, so memory follows the largest version
 * plus the bounded grids, never the history. Fragment rows start one id
 * wide and double (neighbouring rows summed) whenever an id would need a
 * row past LFA_REPORT_ROWS_MAX; at the end all grids are coarsened together
 * until their cells fit LFA_REPORT_CELLS_MAX. Sums merge exactly, so a
 * bucket's share is the share over all live rows it holds. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/dataset.h"
#include "lfa/report.h"
#include "lfa/search.h"
#include "lfa/transaction.h"

static char *copy_text(const char *s) {
  size_t n = strlen(s) + 1;
  char *out = malloc(n);
  if (out != NULL) memcpy(out, s, n);
  return out;
}

static lfa_status nomem(lfa_error *err) { return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory"); }

/* ---- buckets ------------------------------------------------------------------ */

static lfa_report_cell *cell_at(const lfa_report *r, lfa_report_grid *g, size_t row, size_t column) {
  return &g->cells[row * r->columns + column];
}

static void cell_add(lfa_report_cell *into, const lfa_report_cell *c) {
  into->live += c->live, into->assigned += c->assigned;
  into->present += c->present, into->deleted += c->deleted, into->findings += c->findings;
  into->ended += c->ended;
}

static int path_order(const void *a, const void *b) {
  const lfa_report_path *x = a, *y = b;
  if (x->column != y->column) return x->column < y->column ? -1 : 1;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  return (x->to > y->to) - (x->to < y->to);
}

/* Sorts the paths and keeps one of each. */
static void paths_unique(lfa_report_grid *g) {
  if (g->n_paths < 2) return;
  qsort(g->paths, g->n_paths, sizeof *g->paths, path_order);
  size_t n = 1;
  for (size_t i = 1; i < g->n_paths; i++)
    if (path_order(&g->paths[i], &g->paths[n - 1]) != 0) g->paths[n++] = g->paths[i];
  g->n_paths = n;
}

/* Rows twice as wide: row r's sums go to r / 2, and so do its paths. */
static void grid_double(const lfa_report *r, lfa_report_grid *g) {
  for (size_t row = 0; row < LFA_REPORT_ROWS_MAX; row++)
    for (size_t c = 0; c < r->columns; c++) {
      lfa_report_cell cell = *cell_at(r, g, row, c);
      memset(cell_at(r, g, row, c), 0, sizeof cell);
      cell_add(cell_at(r, g, row / 2, c), &cell);
    }
  for (size_t i = 0; i < g->n_paths; i++) g->paths[i].from /= 2, g->paths[i].to /= 2;
  paths_unique(g);
  g->row_width *= 2;
}

size_t lfa_report_row(const lfa_report *r, const lfa_report_grid *g, uint64_t fragment_id) {
  if (fragment_id < r->fragment_base) return SIZE_MAX;
  if (r->options.has_fragments && fragment_id > r->options.fragment_hi) return SIZE_MAX;
  uint64_t row = (fragment_id - r->fragment_base) / g->row_width;
  return row < LFA_REPORT_ROWS_MAX ? (size_t)row : SIZE_MAX;
}

/* The row of an id in range, widening the grid's rows until it has one. */
static size_t row_for(const lfa_report *r, lfa_report_grid *g, uint64_t fragment_id) {
  if (fragment_id < r->fragment_base) return SIZE_MAX;
  if (r->options.has_fragments && fragment_id > r->options.fragment_hi) return SIZE_MAX;
  while ((fragment_id - r->fragment_base) / g->row_width >= LFA_REPORT_ROWS_MAX) grid_double(r, g);
  return lfa_report_row(r, g, fragment_id);
}

static int version_order(const void *key, const void *element) {
  return lfa_order_u64(*(const uint64_t *)key, ((const lfa_report_version *)element)->version);
}

size_t lfa_report_column(const lfa_report *r, uint64_t version) {
  size_t i = lfa_search(&version, r->versions, r->n_versions, sizeof *r->versions, version_order);
  return i == SIZE_MAX ? SIZE_MAX : (size_t)(i / r->column_width);
}

size_t lfa_report_rows_used(const lfa_report *r, const lfa_report_grid *g) {
  size_t used = 0;
  for (size_t row = 0; row < LFA_REPORT_ROWS_MAX; row++)
    for (size_t c = 0; c < r->columns; c++) {
      const lfa_report_cell *cell = &g->cells[row * r->columns + c];
      if (cell->present + cell->deleted + cell->ended + cell->findings > 0) used = row + 1;
    }
  return used;
}

lfa_report_mark lfa_report_cell_mark(const lfa_report_cell *c) {
  if (c->present == 0) return c->ended ? LFA_MARK_ENDED : c->deleted ? LFA_MARK_DELETED : LFA_MARK_ABSENT;
  if (c->live == 0) return LFA_MARK_DELETED; /* only rows no longer live: nothing to assign */
  if (c->assigned == 0) return LFA_MARK_NONE;
  return c->assigned >= c->live ? LFA_MARK_ALL : LFA_MARK_PARTIAL;
}

/* The grid of a field, added in field id order when first tracked; NULL
 * when LFA_REPORT_FIELDS_MAX are drawn already (counted) or memory ran out. */
static lfa_report_grid *grid_for(lfa_report *r, int32_t field_id, const char *name, bool *nomem_out) {
  size_t at = 0;
  while (at < r->n_grids && r->grids[at].field_id < field_id) at++;
  if (at < r->n_grids && r->grids[at].field_id == field_id) return &r->grids[at];
  if (r->n_grids == LFA_REPORT_FIELDS_MAX) {
    r->grids_dropped++;
    return NULL;
  }
  lfa_report_grid g = {.field_id = field_id, .row_width = 1};
  g.cells = calloc((size_t)LFA_REPORT_ROWS_MAX * r->columns, sizeof *g.cells);
  g.name = name ? copy_text(name) : NULL;
  lfa_report_grid *grown = realloc(r->grids, (r->n_grids + 1) * sizeof *grown);
  if (g.cells == NULL || (name && g.name == NULL) || grown == NULL) {
    free(g.cells), free(g.name);
    if (grown) r->grids = grown;
    *nomem_out = true;
    return NULL;
  }
  r->grids = grown;
  memmove(&r->grids[at + 1], &r->grids[at], (r->n_grids - at) * sizeof *r->grids);
  r->grids[at] = g;
  r->n_grids++;
  return &r->grids[at];
}

/* ---- paths (05§6 compaction, 05§10 row-moving update) ------------------------- */

static void path_add(lfa_report_grid *g, size_t column, size_t from, size_t to) {
  if (from == SIZE_MAX || to == SIZE_MAX) return;
  if (g->n_paths == g->cap_paths) paths_unique(g);
  if (g->n_paths == g->cap_paths && g->cap_paths < LFA_REPORT_PATHS_MAX) {
    size_t cap = g->cap_paths ? 2 * g->cap_paths : 64;
    lfa_report_path *p = realloc(g->paths, cap * sizeof *p);
    if (p != NULL) g->paths = p, g->cap_paths = cap;
  }
  if (g->n_paths == g->cap_paths) {
    g->paths_dropped++;
    return;
  }
  g->paths[g->n_paths++] = (lfa_report_path){(uint32_t)column, (uint32_t)from, (uint32_t)to};
}

/* The fragments a commit added: in this version, not in the one before,
 * ascending. A transaction's new fragments carry no id yet (the commit
 * hands them out in the order it lists them, 05§6), so its k-th new
 * fragment is the k-th of these. */
typedef struct id_set {
  size_t count, cap;
  uint64_t *ids;
} id_set;

typedef struct moves {
  const uint64_t *from_ids;
  size_t n_from_ids;
  Lance__Table__DataFragment *const *from;
  size_t n_from, n_to;
} moves;

static uint64_t row_bit(const lfa_report *r, const lfa_report_grid *g, uint64_t fragment_id) {
  size_t row = lfa_report_row(r, g, fragment_id);
  return row == SIZE_MAX ? 0 : (uint64_t)1 << row;
}

/* Rows of `m`'s old fragments reach its n_to new ones, the next of
 * `added`. Rows are taken as sets first (LFA_REPORT_ROWS_MAX fits one
 * word), so a group of thousands of fragments costs one pass, not a
 * product. */
static void moves_draw(const lfa_report *r, lfa_report_grid *g, size_t column, const moves *m, const id_set *added,
                       size_t *next) {
  uint64_t from = 0, to = 0;
  for (size_t j = 0; j < m->n_to && *next < added->count; j++) to |= row_bit(r, g, added->ids[(*next)++]);
  for (size_t i = 0; i < m->n_from; i++) from |= row_bit(r, g, m->from[i]->id);
  for (size_t i = 0; i < m->n_from_ids; i++) from |= row_bit(r, g, m->from_ids[i]);
  for (size_t a = 0; a < LFA_REPORT_ROWS_MAX; a++)
    for (size_t b = 0; (from >> a & 1) && b < LFA_REPORT_ROWS_MAX; b++)
      if (to >> b & 1) path_add(g, column, a, b);
}

/* A compaction moves each group's old fragments' rows to its new ones
 * (FA-REMAP-1); a row-rewriting update moves the updated rows of the
 * fragments it touched into its new fragments (FA-UPDATE-6). */
static void paths_of(const lfa_report *r, lfa_report_grid *g, size_t column, const Lance__Table__Transaction *t,
                     const id_set *added) {
  size_t next = 0;
  if (t == NULL) return;
  if (t->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_REWRITE) {
    const Lance__Table__Transaction__Rewrite *w = t->rewrite;
    for (size_t k = 0; k < w->n_groups; k++) {
      const Lance__Table__Transaction__Rewrite__RewriteGroup *grp = w->groups[k];
      moves one = {NULL, 0, grp->old_fragments, grp->n_old_fragments, grp->n_new_fragments};
      moves_draw(r, g, column, &one, added, &next);
    }
    moves all = {NULL, 0, w->old_fragments, w->n_old_fragments, w->n_new_fragments};
    moves_draw(r, g, column, &all, added, &next);
  } else if (t->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_UPDATE) {
    const Lance__Table__Transaction__Update *u = t->update;
    moves m = {u->removed_fragment_ids, u->n_removed_fragment_ids, u->updated_fragments, u->n_updated_fragments,
               u->n_new_fragments};
    moves_draw(r, g, column, &m, added, &next);
  }
}

/* ---- one version ------------------------------------------------------------------ */

static int id_order(const void *key, const void *element) {
  return lfa_order_u64(*(const uint64_t *)key, *(const uint64_t *)element);
}

/* The snapshot's fragment ids, ascending; with `except`, only those not in it. */
static bool id_set_take(id_set *set, const lfa_snapshot *s, const id_set *except) {
  size_t n = s->file.manifest->n_fragments;
  if (n > set->cap) {
    uint64_t *ids = realloc(set->ids, n * sizeof *ids);
    if (ids == NULL) return false;
    set->ids = ids, set->cap = n;
  }
  set->count = 0;
  for (size_t k = 0; k < n; k++) {
    uint64_t id = s->file.manifest->fragments[s->by_id[k].index]->id;
    if (except == NULL || lfa_search(&id, except->ids, except->count, sizeof id, id_order) == SIZE_MAX)
      set->ids[set->count++] = id;
  }
  return true;
}

/* The two fragment id sets a version is compared with. */
typedef struct id_sets {
  id_set before, added;
} id_sets;

static void field_sum(lfa_report *r, lfa_report_grid *g, size_t column, const lfa_snapshot *s, size_t t,
                      const id_sets *sets) {
  const id_set *before = &sets->before;
  const Lance__Table__Manifest *m = s->file.manifest;
  for (size_t k = 0; k < m->n_fragments; k++) {
    size_t i = s->by_id[k].index;
    size_t row = row_for(r, g, m->fragments[i]->id);
    if (row == SIZE_MAX) continue;
    lfa_report_cell c = {.live = lfa_snapshot_live_rows(s, i), .present = 1};
    lfa_row_counts counts; /* assigned: live rows only (00§1) */
    lfa_snapshot_row_counts(&counts, s, &s->tracked[t], i);
    c.assigned = counts.assigned;
    cell_add(cell_at(r, g, row, column), &c);
  }
  for (size_t k = 0; k < before->count; k++) /* left the manifest at this version (05§3, 05§6) */
    if (lfa_snapshot_fragment(s, before->ids[k]) == SIZE_MAX) {
      size_t row = row_for(r, g, before->ids[k]);
      if (row != SIZE_MAX) cell_at(r, g, row, column)->deleted++;
    }
  if (column > 0) paths_of(r, g, column, s->transaction, &sets->added); /* from the column before */
}

/* The field was tracked at the version before and is not at this one,
 * while fragments stay: the column where its state ended. */
static void tracking_ended(const lfa_report *r, lfa_report_grid *g, size_t column, const lfa_snapshot *s) {
  const Lance__Table__Manifest *m = s->file.manifest;
  for (size_t i = 0; i < m->n_fragments; i++) {
    size_t row = lfa_report_row(r, g, m->fragments[i]->id);
    if (row != SIZE_MAX) cell_at(r, g, row, column)->ended++;
  }
}

/* "3 name, 5 other": the tracked fields, for the timeline. */
static char *tracked_list(const lfa_snapshot *s) {
  size_t cap = 16 * s->n_tracked + 1, used = 0;
  for (size_t t = 0; t < s->n_tracked; t++) {
    const Lance__File__Field *f = lfa_snapshot_field(s, s->tracked[t].field_id);
    cap += f && f->name ? strlen(f->name) : 0;
  }
  char *out = malloc(cap);
  if (out == NULL) return NULL;
  out[0] = '\0';
  for (size_t t = 0; t < s->n_tracked; t++) {
    const Lance__File__Field *f = lfa_snapshot_field(s, s->tracked[t].field_id);
    int n = snprintf(out + used, cap - used, "%s%d %s", t ? ", " : "", s->tracked[t].field_id,
                     f && f->name ? f->name : "?");
    if (n > 0) used += (size_t)n < cap - used ? (size_t)n : cap - used - 1;
  }
  return out;
}

static lfa_status take_version(lfa_report *r, lfa_report_version *v, size_t column, const lfa_snapshot *s,
                               id_sets *sets, lfa_error *err) {
  if (!id_set_take(&sets->added, s, &sets->before)) return nomem(err);
  const Lance__Table__Manifest *m = s->file.manifest;
  v->operation = s->transaction ? lfa_transaction_operation_name(s->transaction) : NULL;
  v->reader_flags = m->reader_feature_flags, v->writer_flags = m->writer_feature_flags;
  v->fragments = m->n_fragments;
  for (size_t i = 0; i < m->n_fragments; i++) v->live_rows += lfa_snapshot_live_rows(s, i);
  if ((v->tracked = tracked_list(s)) == NULL) return nomem(err);
  bool now[LFA_REPORT_FIELDS_MAX] = {false};
  for (size_t t = 0; t < s->n_tracked; t++) {
    const Lance__File__Field *f = lfa_snapshot_field(s, s->tracked[t].field_id);
    bool lost = false;
    lfa_report_grid *g = grid_for(r, s->tracked[t].field_id, f ? f->name : NULL, &lost);
    if (lost) return nomem(err);
    if (g == NULL) continue;
    field_sum(r, g, column, s, t, sets);
  }
  for (size_t k = 0; k < r->n_grids; k++) now[k] = lfa_snapshot_tracked(s, r->grids[k].field_id) != SIZE_MAX;
  for (size_t k = 0; k < r->n_grids; k++) {
    if (r->grids[k].tracked_before && !now[k]) tracking_ended(r, &r->grids[k], column, s);
    r->grids[k].tracked_before = now[k];
  }
  return LFA_OK;
}

/* ---- the walk ------------------------------------------------------------------------ */

static bool in_range(const lfa_report_options *o, uint64_t version) {
  return !o->has_versions || (version >= o->version_lo && version <= o->version_hi);
}

static lfa_status list_versions(lfa_report *r, const lfa_version_list *list, lfa_error *err) {
  size_t n = 0;
  for (size_t i = 0; i < list->count; i++) n += in_range(&r->options, list->entries[i].version);
  if (n == 0) return lfa_fail(err, LFA_ERR_USAGE, NULL, "no version in the range asked for");
  if ((r->versions = calloc(n, sizeof *r->versions)) == NULL) return nomem(err);
  for (size_t i = 0; i < list->count; i++)
    if (in_range(&r->options, list->entries[i].version)) r->versions[r->n_versions++].version = list->entries[i].version;
  r->column_width = (r->n_versions + LFA_REPORT_COLUMNS_MAX - 1) / LFA_REPORT_COLUMNS_MAX;
  r->columns = (r->n_versions + r->column_width - 1) / r->column_width;
  r->fragment_base = r->options.has_fragments ? r->options.fragment_lo : 0;
  return LFA_OK;
}

static lfa_status walk(lfa_report *r, const char *dir, const lfa_version_list *list, lfa_error *err) {
  id_sets sets = {0};
  size_t at = 0;
  lfa_status st = LFA_OK;
  for (size_t i = 0; i < list->count && st == LFA_OK; i++) {
    if (!in_range(&r->options, list->entries[i].version)) continue;
    lfa_report_version *v = &r->versions[at];
    lfa_snapshot snap;
    lfa_error why = {0};
    lfa_snapshot_options opt = {.fs = r->options.fs, .load_fields = true};
    if (lfa_snapshot_open(&snap, dir, &list->entries[i], &opt, &why) != LFA_OK) {
      if ((v->unreadable = copy_text(why.msg)) == NULL) st = nomem(err);
      sets.before.count = 0; /* nothing known to leave at the next version */
    } else {
      st = take_version(r, v, at / r->column_width, &snap, &sets, err);
      if (st == LFA_OK && !id_set_take(&sets.before, &snap, NULL)) st = nomem(err);
      lfa_snapshot_free(&snap);
    }
    at++;
  }
  free(sets.before.ids), free(sets.added.ids);
  return st;
}

/* ---- findings ---------------------------------------------------------------------------- */

lfa_report_grid *lfa_report_grid_of(const lfa_report *r, int32_t field_id) {
  for (size_t k = 0; k < r->n_grids; k++)
    if (r->grids[k].field_id == field_id) return &r->grids[k];
  return NULL;
}

/* The cell of a finding that names a tracked field and fragment, or NULL. */
static lfa_report_cell *finding_cell(const lfa_report *r, const lfa_finding *f, size_t *grid, size_t *row,
                                     size_t *column) {
  if (!f->has_field || !f->has_fragment) return NULL;
  lfa_report_grid *g = lfa_report_grid_of(r, f->field_id);
  if (g == NULL) return NULL;
  *column = lfa_report_column(r, f->version);
  *row = lfa_report_row(r, g, f->fragment_id);
  if (*column == SIZE_MAX || *row == SIZE_MAX) return NULL;
  *grid = (size_t)(g - r->grids);
  return cell_at(r, g, *row, *column);
}

static bool version_shown(const lfa_report *r, uint64_t version) {
  size_t i = lfa_search(&version, r->versions, r->n_versions, sizeof *r->versions, version_order);
  return i != SIZE_MAX && r->versions[i].shown;
}

/* The timeline's rows: every version when there are few, else an even
 * sample, then versions with findings while the rows stay within twice
 * the budget (a finding whose version has no row links the timeline). */
static void choose_timeline(lfa_report *r) {
  size_t every = (r->n_versions + LFA_REPORT_TIMELINE_MAX - 1) / LFA_REPORT_TIMELINE_MAX, rows = 0;
  for (size_t i = 0; i < r->n_versions; i++) rows += r->versions[i].shown = i % every == 0;
  for (size_t i = 0; i < r->n_versions && rows < 2 * LFA_REPORT_TIMELINE_MAX; i++)
    if (!r->versions[i].shown && r->versions[i].findings) r->versions[i].shown = true, rows++;
}

void lfa_report_finding_anchor(char *out, size_t cap, const lfa_report *r, const lfa_finding *f) {
  size_t grid = 0, row = 0, column = 0;
  if (finding_cell(r, f, &grid, &row, &column) != NULL) snprintf(out, cap, "c-%zu-%zu-%zu", grid, row, column);
  else if (version_shown(r, f->version)) snprintf(out, cap, "v-%" PRIu64, f->version);
  else snprintf(out, cap, "timeline"); /* a version the walk did not list */
}

static void place_findings(lfa_report *r) {
  for (size_t i = 0; i < r->verified.findings.count; i++) {
    const lfa_finding *f = &r->verified.findings.items[i];
    size_t grid = 0, row = 0, column = 0;
    lfa_report_cell *c = finding_cell(r, f, &grid, &row, &column);
    if (c != NULL) c->findings++;
    size_t v = lfa_search(&f->version, r->versions, r->n_versions, sizeof *r->versions, version_order);
    if (v != SIZE_MAX) r->versions[v].findings++;
  }
}

/* Coarser rows in every grid until all cells together fit the budget. */
static void fit_cells(lfa_report *r) {
  for (;;) {
    size_t cells = 0;
    for (size_t k = 0; k < r->n_grids; k++) cells += lfa_report_rows_used(r, &r->grids[k]) * r->columns;
    if (cells <= LFA_REPORT_CELLS_MAX) return;
    for (size_t k = 0; k < r->n_grids; k++)
      if (lfa_report_rows_used(r, &r->grids[k]) > 1) grid_double(r, &r->grids[k]);
  }
}

lfa_status lfa_report_collect(lfa_report *out, const char *dir, const lfa_report_options *options, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->dataset = dir;
  if (options) out->options = *options;
  lfa_version_list list;
  lfa_names names;
  if (lfa_dataset_versions(&list, &names, out->options.fs, dir, err) != LFA_OK) return err ? err->status : LFA_ERR_IO;
  lfa_status st = list_versions(out, &list, err);
  if (st == LFA_OK) st = walk(out, dir, &list, err);
  lfa_version_list_free(&list);
  lfa_fs_names_free(&names);
  if (st != LFA_OK) return st;
  lfa_verify_options v = {.has_from = true, .from = out->versions[0].version, .has_to = true,
                          .to = out->versions[out->n_versions - 1].version, .fs = out->options.fs};
  if ((st = lfa_verify_dataset(&out->verified, dir, &v, err)) != LFA_OK) return st;
  fit_cells(out);
  for (size_t k = 0; k < out->n_grids; k++) paths_unique(&out->grids[k]); /* one order, whatever the walk's */
  place_findings(out);
  choose_timeline(out);
  return LFA_OK;
}

void lfa_report_free(lfa_report *r) {
  for (size_t i = 0; i < r->n_versions; i++) free(r->versions[i].tracked), free(r->versions[i].unreadable);
  free(r->versions);
  for (size_t k = 0; k < r->n_grids; k++) free(r->grids[k].cells), free(r->grids[k].name), free(r->grids[k].paths);
  free(r->grids);
  lfa_verify_result_free(&r->verified);
  memset(r, 0, sizeof *r);
}
