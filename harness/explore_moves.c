/* explore_moves.c: the explorer's moves, the requests they stand for, and
 * the canonical form of a state (lfa/explore.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_internal.h"
#include "lfa/bitmap.h"
#include "lfa/search.h"

static const char *const NAMES[LFA_EXPLORE_NAMES] = {"a", "b", "c", "d"};
/* The types of the universe and what a cast turns each into (a cast Lance allows). */
static const char *const TYPES[] = {"int64", "int32", "string", "large_string"};
static const uint8_t CAST_TO[] = {1, 0, 3, 2};
enum { N_TYPES = sizeof TYPES / sizeof TYPES[0], ALL_NAMES = (1u << LFA_EXPLORE_NAMES) - 1 };

const char *lfa_explore_name(unsigned i) { return i < LFA_EXPLORE_NAMES ? NAMES[i] : "?"; }
const char *lfa_explore_type(unsigned t) { return t < N_TYPES ? TYPES[t] : "?"; }

/* ---- requests ------------------------------------------------------------------------ */

static lfa_names_list names_of(const char **out, uint8_t set) {
  size_t n = 0;
  for (unsigned i = 0; i < LFA_EXPLORE_NAMES; i++)
    if (set & (1u << i)) out[n++] = NAMES[i];
  return (lfa_names_list){n, out};
}

/* The start schema: `a` tracked as the move says, `b` untracked (CREATE, OVERWRITE). */
static void start_schema(lfa_request *q, lfa_explore_request_storage *s, const lfa_explore_move *m) {
  s->new_fields[0] = (lfa_new_field){"a", "int64", true, m->assignment};
  s->new_fields[1] = (lfa_new_field){"b", "string", true, LFA_UNTRACKED};
  q->n_new_fields = 2, q->new_fields = s->new_fields;
}

void lfa_explore_request(lfa_request *q, lfa_explore_request_storage *s, const lfa_explore_move *m) {
  memset(q, 0, sizeof *q);
  q->op = m->op;
  q->rows = (lfa_keys){m->n_rows, m->rows};
  q->inserts = (lfa_keys){m->n_inserts, m->inserts};
  q->fields = names_of(s->fields, m->fields);
  q->invalidate = names_of(s->invalidate, m->invalidate);
  q->field = m->op == LFA_OP_TRACK || m->op == LFA_OP_RENAME || m->op == LFA_OP_CAST ? lfa_explore_name(m->field) : NULL;
  q->assignment = m->assignment;
  switch (m->op) {
  case LFA_OP_CREATE:
  case LFA_OP_OVERWRITE:
    start_schema(q, s, m);
    q->stable_row_ids = m->flag, q->rows_per_file = m->number;
    break;
  case LFA_OP_ADD_COLUMNS:
    s->new_fields[0] = (lfa_new_field){lfa_explore_name(m->field), lfa_explore_type(m->type), true, m->assignment};
    q->n_new_fields = 1, q->new_fields = s->new_fields, q->with_data = m->flag;
    break;
  case LFA_OP_RENAME: q->new_name = lfa_explore_name(m->new_name); break;
  case LFA_OP_CAST: q->new_type = lfa_explore_type(m->type); break;
  case LFA_OP_UPDATE: q->rewrite_columns = m->flag; break;
  case LFA_OP_MERGE_INSERT: q->delete_matched = m->flag; break;
  case LFA_OP_COMPACT: q->rows_per_file = m->number; break;
  case LFA_OP_REPLACE:
  case LFA_OP_OVERLAY: q->fragment_id = m->number; break;
  case LFA_OP_RESTORE: q->version = m->number; break;
  case LFA_OP_CLONE: q->deep = m->flag; break;
  default: break;
  }
}

/* ---- move lists ------------------------------------------------------------------------ */

void xmoves_free(xmoves *l) {
  free(l->items);
  *l = (xmoves){0};
}

static void put(xmoves *l, lfa_explore_move m) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    lfa_explore_move *grown = realloc(l->items, cap * sizeof *grown);
    if (grown == NULL) {
      l->lost = true;
      return;
    }
    l->items = grown, l->cap = cap;
  }
  l->items[l->count++] = m;
}

static lfa_explore_move move(lfa_op op) { return (lfa_explore_move){.op = op}; }

static lfa_explore_move with_rows(lfa_explore_move m, const uint64_t *keys, size_t n) {
  m.n_rows = (uint8_t)n;
  memcpy(m.rows, keys, n * sizeof *keys);
  return m;
}

/* The start set: 1 row, or 3 rows in 1 fragment or in 2 (2 + 1); `a`
 * unassigned or assigned; the rows supplying both fields or only `b`. */
void xmoves_start(xmoves *out, bool stable) {
  static const uint64_t keys[] = {1, 2, 3};
  static const struct { size_t rows; uint64_t per_file; } layouts[] = {{1, 0}, {3, 0}, {3, 2}};
  for (size_t l = 0; l < 3; l++)
    for (int a = LFA_UNASSIGNED; a <= LFA_ASSIGNED; a++)
      for (uint8_t supplied = 2; supplied <= 3; supplied++) {
        lfa_explore_move m = with_rows(move(LFA_OP_CREATE), keys, layouts[l].rows);
        m.flag = stable, m.number = layouts[l].per_file, m.assignment = (lfa_assignment)a, m.fields = supplied;
        put(out, m);
      }
}

/* What the moves of one head need to know about it. */
typedef struct view {
  const lfa_table *t;
  uint8_t present, tracked; /* name sets */
  uint8_t type[LFA_EXPLORE_NAMES];
  size_t n_live;
  uint64_t live[64];              /* every live key, fragment by fragment */
  size_t first_of[64], n_frag_live[64]; /* per fragment: index of its first live key in live[], and count */
  uint64_t next_key;
} view;

static int name_index(const char *name) {
  for (int i = 0; i < LFA_EXPLORE_NAMES; i++)
    if (strcmp(NAMES[i], name) == 0) return i;
  return -1;
}

static uint8_t type_index(const char *type) {
  for (uint8_t i = 0; i < N_TYPES; i++)
    if (strcmp(TYPES[i], type) == 0) return i;
  return 0;
}

static void view_of(view *v, const lfa_table *t, uint64_t next_key) {
  memset(v, 0, sizeof *v);
  v->t = t, v->next_key = next_key;
  for (size_t i = 0; i < t->n_fields; i++) {
    int k = t->fields[i].parent_id < 0 ? name_index(t->fields[i].name) : -1;
    if (k < 0) continue;
    v->present |= (uint8_t)(1u << k);
    v->type[k] = type_index(t->fields[i].logical_type);
    if (lfa_table_tracked(t, t->fields[i].id) != NULL) v->tracked |= (uint8_t)(1u << k);
  }
  for (size_t f = 0; f < t->n_fragments && f < 64; f++) {
    v->first_of[f] = v->n_live;
    for (uint32_t o = 0; o < t->fragments[f].physical_rows && v->n_live < 64; o++)
      if (lfa_fragment_is_live(&t->fragments[f], o) && t->fragments[f].keys) v->live[v->n_live++] = t->fragments[f].keys[o];
    v->n_frag_live[f] = v->n_live - v->first_of[f];
  }
}

static int first_free(const view *v) {
  for (int i = 0; i < LFA_EXPLORE_NAMES; i++)
    if (!(v->present & (1u << i))) return i;
  return -1;
}

/* Row selections: one row of each fragment (its first live one), and
 * every live row when that is more than one. */
static size_t row_choices(const view *v, uint64_t sel[][LFA_EXPLORE_ROWS_MAX], size_t *n_sel, size_t max) {
  size_t k = 0;
  for (size_t f = 0; f < v->t->n_fragments && f < 64 && k < max; f++)
    if (v->n_frag_live[f] > 0) sel[k][0] = v->live[v->first_of[f]], n_sel[k++] = 1;
  if (v->n_live > 1 && v->n_live <= LFA_EXPLORE_ROWS_MAX && k < max) {
    memcpy(sel[k], v->live, v->n_live * sizeof v->live[0]);
    n_sel[k++] = v->n_live;
  }
  return k;
}

/* Subsets of `set`: none (when `empty`), each single member, and all of it when that is more than one. */
static size_t set_choices(uint8_t out[], uint8_t set, bool empty) {
  size_t n = 0, members = 0;
  if (empty) out[n++] = 0;
  for (unsigned i = 0; i < LFA_EXPLORE_NAMES; i++)
    if (set & (1u << i)) out[n++] = (uint8_t)(1u << i), members++;
  if (members > 1) out[n++] = set;
  return n;
}

static void gen_append(xmoves *out, const view *v) {
  for (unsigned s = 1; s <= ALL_NAMES; s++)
    if ((s & v->present) == s) {
      lfa_explore_move m = with_rows(move(LFA_OP_APPEND), &v->next_key, 1);
      m.fields = (uint8_t)s;
      put(out, m);
    }
}

static void gen_delete(xmoves *out, const view *v) {
  for (size_t k = 0; k < v->n_live; k++) put(out, with_rows(move(LFA_OP_DELETE), &v->live[k], 1));
  for (size_t f = 0; f < v->t->n_fragments && f < 64; f++)
    if (v->n_frag_live[f] > 1 && v->n_frag_live[f] <= LFA_EXPLORE_ROWS_MAX)
      put(out, with_rows(move(LFA_OP_DELETE), &v->live[v->first_of[f]], v->n_frag_live[f]));
  if (v->t->n_fragments > 1 && v->n_live > 1 && v->n_live <= LFA_EXPLORE_ROWS_MAX)
    put(out, with_rows(move(LFA_OP_DELETE), v->live, v->n_live));
  uint64_t dead = v->next_key + 100; /* names no row: refused */
  put(out, with_rows(move(LFA_OP_DELETE), &dead, 1));
}

/* The rows, fields written and fields invalidated an update or a merge_insert chooses among. */
typedef struct choices {
  uint64_t sel[66][LFA_EXPLORE_ROWS_MAX];
  size_t n_sel[66], nr, nw, ni;
  uint8_t writes[8], invals[8];
} choices;

static void choices_of(choices *c, const view *v, bool write_none, uint8_t invalidatable) {
  c->nr = row_choices(v, c->sel, c->n_sel, 66);
  c->nw = set_choices(c->writes, v->present, write_none);
  c->ni = set_choices(c->invals, invalidatable, true);
}

static void gen_update(xmoves *out, const view *v) {
  choices c;
  choices_of(&c, v, true, v->present);
  c.ni -= c.ni > 2 && c.invals[c.ni - 1] == v->present; /* one invalidated field at a time: the clash and FA-INVAL-2 cases */
  for (size_t r = 0; r < c.nr; r++)
    for (size_t w = 0; w < c.nw; w++)
      for (size_t i = 0; i < c.ni; i++)
        for (int mode = 0; mode < 2; mode++) {
          if (c.writes[w] == 0 && c.invals[i] == 0 && (r > 0 || mode > 0)) continue; /* nothing asked: once */
          lfa_explore_move m = with_rows(move(LFA_OP_UPDATE), c.sel[r], c.n_sel[r]);
          m.fields = c.writes[w], m.invalidate = c.invals[i], m.flag = mode;
          put(out, m);
        }
}

static void gen_merge_insert(xmoves *out, const view *v) {
  choices c;
  choices_of(&c, v, false, v->tracked);
  size_t nr = c.nr, nw = c.nw, ni = c.ni;
  uint8_t *writes = c.writes, *invals = c.invals;
  uint64_t (*sel)[LFA_EXPLORE_ROWS_MAX] = c.sel;
  size_t *n_sel = c.n_sel;
  for (size_t r = 0; r <= nr; r++) /* r == nr: no row matched */
    for (int ins = 0; ins < 2; ins++)
      for (size_t w = 0; w < nw; w++)
        for (size_t i = 0; i < ni; i++) {
          if (r == nr && !ins) continue;
          lfa_explore_move m = r < nr ? with_rows(move(LFA_OP_MERGE_INSERT), sel[r], n_sel[r]) : move(LFA_OP_MERGE_INSERT);
          if (ins) m.n_inserts = 1, m.inserts[0] = v->next_key;
          m.fields = writes[w] & (uint8_t)~invals[i], m.invalidate = invals[i];
          if (m.fields == 0) continue;
          put(out, m);
        }
  for (size_t r = 0; r < nr; r++) { /* matched rows deleted (delete-only source) */
    lfa_explore_move m = with_rows(move(LFA_OP_MERGE_INSERT), sel[r], n_sel[r]);
    m.flag = true;
    put(out, m);
  }
}

static void gen_schema(xmoves *out, const view *v) {
  int free_name = first_free(v);
  for (int a = LFA_UNTRACKED; free_name >= 0 && a <= LFA_ASSIGNED; a++)
    for (int data = 0; data < 2; data++) {
      lfa_explore_move m = move(LFA_OP_ADD_COLUMNS);
      m.field = (uint8_t)free_name, m.type = 0, m.assignment = (lfa_assignment)a, m.flag = data;
      put(out, m);
    }
  for (uint8_t i = 0; i < LFA_EXPLORE_NAMES; i++) {
    if (!(v->present & (1u << i))) continue;
    bool tracked = v->tracked & (1u << i);
    for (int a = LFA_UNASSIGNED; a <= (tracked ? LFA_UNASSIGNED : LFA_ASSIGNED); a++) {
      lfa_explore_move m = move(LFA_OP_TRACK);
      m.field = i, m.assignment = (lfa_assignment)a;
      put(out, m);
    }
    lfa_explore_move m = move(LFA_OP_RENAME);
    m.field = i, m.new_name = (uint8_t)free_name;
    if (free_name >= 0) put(out, m);
    m = move(LFA_OP_CAST);
    m.field = i, m.type = CAST_TO[v->type[i]];
    put(out, m);
    m = move(LFA_OP_DROP); /* never the last field: whether a table may have none is Lance's schema rule, not the spec's */
    m.fields = (uint8_t)(1u << i);
    if (v->present != m.fields) put(out, m);
  }
}

/* The universe set of the schema's fields a data file stores; *whole
 * when it stores no other (no replaced or dropped column). */
static uint8_t file_set(const lfa_table *t, const lfa_data_file *df, bool *whole) {
  uint8_t set = 0;
  *whole = true;
  for (size_t k = 0; k < df->n_fields; k++) {
    const lfa_field *f = lfa_table_field(t, df->fields[k]);
    int i = f && f->parent_id < 0 ? name_index(f->name) : -1;
    if (i < 0) *whole = false;
    else set |= (uint8_t)(1u << i);
  }
  return set;
}

static void gen_files(xmoves *out, const view *v) {
  for (size_t f = 0; f < v->t->n_fragments && f < 64; f++) {
    const lfa_fragment *fr = &v->t->fragments[f];
    uint8_t stored = 0;
    for (size_t k = 0; k < fr->n_files; k++) {
      bool whole = false;
      uint8_t set = file_set(v->t, &fr->files[k], &whole);
      stored |= set;
      lfa_explore_move m = move(LFA_OP_REPLACE); /* a file replaced by one with exactly its fields */
      m.number = fr->id, m.fields = set;
      if (set && whole) put(out, m);
    }
    for (uint8_t i = 0; i < LFA_EXPLORE_NAMES; i++) {
      lfa_explore_move m = move(LFA_OP_REPLACE); /* a file for a field no file holds */
      m.number = fr->id, m.fields = (uint8_t)(1u << i);
      if ((v->present & ~stored) & (1u << i)) put(out, m);
      m = with_rows(move(LFA_OP_OVERLAY), &v->live[v->first_of[f]], v->n_frag_live[f] ? 1 : 0);
      m.number = fr->id, m.fields = (uint8_t)(1u << i);
      if ((v->present & (1u << i)) && v->n_frag_live[f]) put(out, m);
    }
  }
}

static void gen_whole(xmoves *out, const view *v, uint64_t versions) {
  for (uint64_t per = 0; per <= 2; per++) {
    lfa_explore_move m = move(LFA_OP_COMPACT);
    m.number = per;
    put(out, m);
  }
  for (uint64_t r = 1; r < versions; r++) {
    lfa_explore_move m = move(LFA_OP_RESTORE);
    m.number = r;
    put(out, m);
  }
  for (int deep = 0; deep < 2; deep++) {
    lfa_explore_move m = move(LFA_OP_CLONE);
    m.flag = deep;
    put(out, m);
  }
  for (int a = LFA_UNASSIGNED; a <= LFA_ASSIGNED; a++) {
    lfa_explore_move m = with_rows(move(LFA_OP_OVERWRITE), &v->next_key, 1);
    m.assignment = (lfa_assignment)a, m.flag = v->t->stable_row_ids;
    put(out, m);
  }
  put(out, move(LFA_OP_CREATE_INDEX));
  put(out, move(LFA_OP_UPDATE_CONFIG));
}

void xmoves_serial(xmoves *out, const lfa_history *h, uint64_t next_key) {
  view v;
  view_of(&v, lfa_history_head(h), next_key);
  gen_append(out, &v);
  gen_delete(out, &v);
  gen_update(out, &v);
  gen_merge_insert(out, &v);
  gen_schema(out, &v);
  gen_files(out, &v);
  gen_whole(out, &v, h->count);
}

/* The concurrent moves: appends (every field, or none tracked), each live
 * row deleted, each live row updated in both modes writing every field,
 * writing the untracked ones and invalidating a tracked one, or only
 * invalidating it; a merge_insert matching the first row and inserting
 * one; a compaction; tracking an untracked field. */
void xmoves_concurrent(xmoves *out, const lfa_table *t, uint64_t next_key) {
  view v;
  view_of(&v, t, next_key);
  lfa_explore_move m = with_rows(move(LFA_OP_APPEND), &v.next_key, 1);
  m.fields = v.present;
  put(out, m);
  m.fields = v.present & (uint8_t)~v.tracked;
  if (m.fields) put(out, m);
  int tracked = -1;
  for (int i = 0; i < LFA_EXPLORE_NAMES && tracked < 0; i++)
    if (v.tracked & (1u << i)) tracked = i;
  for (size_t k = 0; k < v.n_live; k++) {
    put(out, with_rows(move(LFA_OP_DELETE), &v.live[k], 1));
    for (int mode = 0; mode < 2; mode++) {
      m = with_rows(move(LFA_OP_UPDATE), &v.live[k], 1);
      m.flag = mode, m.fields = v.present;
      put(out, m);
      if (tracked < 0) continue;
      m.invalidate = (uint8_t)(1u << tracked), m.fields = v.present & (uint8_t)~m.invalidate;
      if (m.fields) put(out, m);
      m.fields = 0;
      put(out, m);
    }
  }
  if (v.n_live) {
    m = with_rows(move(LFA_OP_MERGE_INSERT), v.live, 1);
    m.n_inserts = 1, m.inserts[0] = v.next_key, m.fields = v.present;
    put(out, m);
  }
  put(out, move(LFA_OP_COMPACT));
  for (uint8_t i = 0; i < LFA_EXPLORE_NAMES; i++)
    if ((v.present & ~v.tracked) & (1u << i)) {
      m = move(LFA_OP_TRACK);
      m.field = i, m.assignment = LFA_UNASSIGNED;
      put(out, m);
      break;
    }
}

uint64_t xnext_key(const lfa_history *h) {
  uint64_t next = 1;
  for (size_t v = 0; v < h->count; v++)
    for (size_t f = 0; f < h->versions[v].n_fragments; f++) {
      const lfa_fragment *fr = &h->versions[v].fragments[f];
      for (uint64_t o = 0; fr->keys && o < fr->physical_rows; o++)
        if (fr->keys[o] >= next) next = fr->keys[o] + 1;
    }
  return next;
}

/* ---- canonical states -------------------------------------------------------------------- */

typedef struct text {
  char *s;
  size_t len, cap;
  bool lost;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...) {
  for (int tries = 0; tries < 2 && !t->lost; tries++) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) t->lost = true;
    if (n < 0 || (t->s && t->len + (size_t)n < t->cap)) {
      if (n >= 0) t->len += (size_t)n;
      return;
    }
    size_t cap = (t->cap + (size_t)n + 1) * 2;
    char *grown = realloc(t->s, cap);
    if (grown == NULL) t->lost = true;
    else t->s = grown, t->cap = cap;
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The rank of `x` among the sorted `all` (n of them). */
static size_t rank(const uint64_t *all, size_t n, uint64_t x) {
  size_t at = lfa_search(&x, all, n, sizeof x, cmp_u64);
  return at == SIZE_MAX ? n : at;
}

/* Every key (or row id) the table's fragments hold, sorted; NULL when none or out of memory. */
static uint64_t *sorted_ids(const lfa_table *t, bool row_ids, size_t *n) {
  size_t total = 0;
  *n = 0;
  for (size_t f = 0; f < t->n_fragments; f++) total += (size_t)t->fragments[f].physical_rows;
  uint64_t *all = malloc((total ? total : 1) * sizeof *all);
  for (size_t f = 0; all && f < t->n_fragments; f++) {
    const uint64_t *src = row_ids ? t->fragments[f].row_ids : t->fragments[f].keys;
    for (uint64_t o = 0; src && o < t->fragments[f].physical_rows; o++) all[(*n)++] = src[o];
  }
  if (all) qsort(all, *n, sizeof *all, cmp_u64);
  return all;
}

/* The schema index of field id `id` ('x' when the schema lacks it). */
static void add_field_ref(text *out, const lfa_table *t, int32_t id) {
  const lfa_field *f = lfa_table_field(t, id);
  if (f) add(out, "%zu,", (size_t)(f - t->fields));
  else add(out, "x,");
}

/* Keys by first appearance: the label of a key is the number of distinct
 * keys met before it, fragment by fragment and offset by offset. Two heads
 * whose keys differ by a renaming get one form; equal keys (a row an
 * update moved, its old copy deleted) keep one label. */
typedef struct key_labels {
  uint64_t *sorted; /* every key of the head, ascending */
  size_t n, next;
  size_t *label; /* per sorted key: its label + 1, 0 before it is met */
} key_labels;

static size_t key_label(key_labels *k, uint64_t key) {
  size_t at = rank(k->sorted, k->n, key);
  if (at == k->n) return SIZE_MAX;
  if (k->label[at] == 0) k->label[at] = ++k->next;
  return k->label[at] - 1;
}

/* The head in its canonical form (explore.h): names and key values are
 * left out, since no rule's outcome depends on them, only on the schema's
 * order and on which rows share a key. */
static void canonical_head(text *out, const lfa_table *t) {
  size_t n_ids = 0;
  key_labels k = {0};
  k.sorted = sorted_ids(t, false, &k.n);
  k.label = calloc(k.n ? k.n : 1, sizeof *k.label);
  uint64_t *ids = sorted_ids(t, true, &n_ids);
  if (k.sorted == NULL || k.label == NULL || ids == NULL) out->lost = true;
  add(out, "%c|", t->stable_row_ids ? 'S' : 'A');
  for (size_t i = 0; i < t->n_fields; i++) {
    const lfa_field *f = &t->fields[i];
    const lfa_field *p = f->parent_id >= 0 ? lfa_table_field(t, f->parent_id) : NULL;
    add(out, "%s:%d:%d:%ld;", f->logical_type, f->nullable, lfa_table_tracked(t, f->id) != NULL,
        p ? (long)(p - t->fields) : -1L);
  }
  for (size_t fi = 0; fi < t->n_fragments && !out->lost; fi++) {
    const lfa_fragment *fr = &t->fragments[fi];
    add(out, "|F");
    for (size_t j = 0; j < fr->n_files; j++) {
      add(out, "[");
      for (size_t m = 0; m < fr->files[j].n_fields; m++) add_field_ref(out, t, fr->files[j].fields[m]);
      add(out, "]");
    }
    add(out, "o%zu:", fr->n_overlays);
    for (uint32_t o = 0; o < fr->physical_rows; o++) {
      add(out, " %zu%s", fr->keys ? key_label(&k, fr->keys[o]) : 0, lfa_fragment_is_live(fr, o) ? "" : "d");
      if (fr->row_ids) add(out, "r%zu", rank(ids, n_ids, fr->row_ids[o]));
      for (size_t s = 0; s < t->n_tracked; s++) add(out, "%d", lfa_cell_contains(&t->tracked[s].cells[fi], o));
    }
  }
  free(k.sorted);
  free(k.label);
  free(ids);
}

char *xcanonical(const lfa_table *head) {
  text out = {0};
  canonical_head(&out, head);
  if (out.lost) free(out.s);
  return out.lost ? NULL : out.s;
}
