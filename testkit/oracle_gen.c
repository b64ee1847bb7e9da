/* oracle_gen.c: the request generator of lfa/oracle_gen.h. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/oracle_gen.h"

#include "lfa/oracle_compare.h"

unsigned gen_choose(gen *g, unsigned n) { return g->choose(g->src, n); }
bool gen_chance(gen *g, unsigned percent) { return g->coin(g->src, percent); }

static unsigned rnd(gen *g, unsigned n) { return gen_choose(g, n); }
static bool chance(gen *g, unsigned percent) { return gen_chance(g, percent); }

static const char *keep(gen *g, const char *s) {
  if (g->n_buf >= 32) { /* a generator bug, never input-dependent */
    fputs("oracle_gen: string buffer overflow\n", stderr);
    abort();
  }
  snprintf(g->buf[g->n_buf], OR_PATH_MAX, "%s", s);
  return g->buf[g->n_buf++];
}

static bool below(const char *path, const char *ancestor) {
  size_t n = strlen(ancestor);
  return strncmp(path, ancestor, n) == 0 && path[n] == '.';
}

typedef bool (*field_pred)(const or_state *s, size_t i);
static bool any_field(const or_state *s, size_t i) { return (void)s, (void)i, true; }
static bool tracked_field(const or_state *s, size_t i) { return s->fields[i].tracked; }
static bool untracked_field(const or_state *s, size_t i) { return !s->fields[i].tracked; }
static bool leaf_field(const or_state *s, size_t i) { return strcmp(s->fields[i].type, "struct") != 0; }
static bool top_field(const or_state *s, size_t i) { return strchr(s->fields[i].path, '.') == NULL; }

/* TRACK is well defined on a tracked field (refused, FA-TXN-8) and on an
 * untracked one with no tracked descendant (FA-NEST-6). */
static bool trackable(const or_state *s, size_t i) {
  if (s->fields[i].tracked) return true;
  for (size_t j = 0; j < s->n_fields; j++)
    if (s->fields[j].tracked && below(s->fields[j].path, s->fields[i].path)) return false;
  return true;
}

static bool startable(const or_state *s, size_t i) { return !s->fields[i].tracked && trackable(s, i); }

static size_t count_fields(const or_state *s, field_pred want) {
  size_t n = 0;
  for (size_t i = 0; i < s->n_fields; i++) n += want(s, i);
  return n;
}

/* A random field meeting `want`, or -1. */
static int pick_field(gen *g, const or_state *s, field_pred want) {
  size_t n = count_fields(s, want);
  if (n == 0) return -1;
  size_t k = rnd(g, (unsigned)n);
  for (size_t i = 0; i < s->n_fields; i++)
    if (want(s, i) && k-- == 0) return (int)i;
  return -1;
}

/* A random subset of the fields meeting `want` (at least one when asked). */
static lfa_names_list pick_names(gen *g, const or_state *s, field_pred want, bool nonempty, const char **out) {
  size_t n = 0;
  for (size_t i = 0; i < s->n_fields && n < 6; i++)
    if (want(s, i) && chance(g, 30)) out[n++] = keep(g, s->fields[i].path);
  int f = n == 0 && nonempty ? pick_field(g, s, want) : -1;
  if (f >= 0) out[n++] = keep(g, s->fields[f].path);
  return (lfa_names_list){n, out};
}

static lfa_names_list add_name(lfa_names_list l, const char **storage, const char *name) {
  storage[l.count] = name;
  return (lfa_names_list){l.count + 1, storage};
}

/* 1..max distinct live keys (none when no row is live). */
static lfa_keys pick_live(gen *g, const or_state *s, size_t max, uint64_t *out) {
  size_t n = 0;
  if (s->n_rows == 0) return (lfa_keys){0, out};
  size_t want = 1 + rnd(g, (unsigned)(max < s->n_rows ? max : s->n_rows));
  for (int tries = 0; n < want && tries < 64; tries++) {
    uint64_t key = s->rows[rnd(g, (unsigned)s->n_rows)].key;
    bool dup = false;
    for (size_t k = 0; k < n; k++) dup |= out[k] == key;
    if (!dup) out[n++] = key;
  }
  return (lfa_keys){n, out};
}

static lfa_keys fresh_keys(gen *g, size_t n, uint64_t *out) {
  for (size_t k = 0; k < n; k++) out[k] = g->next_key++;
  return (lfa_keys){n, out};
}

static uint64_t dead_key(gen *g) { return 1000000 + rnd(g, 1000); }

static lfa_keys add_key(lfa_keys k, uint64_t *storage, uint64_t key) {
  storage[k.count] = key;
  return (lfa_keys){k.count + 1, storage};
}

/* CREATE / OVERWRITE: id, emb, payload{value, note}, each with a random
 * assignment (a tracked struct's children take its assignment, FA-NEST-6);
 * OVERWRITE may leave emb or the payload subtree out. */
static void gen_fresh(gen *g, lfa_request *q, const or_state *head) {
  static const char *const paths[] = {"id", "emb", "payload", "payload.value", "payload.note"};
  static const char *const types[] = {"int64", "fixed_size_list:float:4", "struct", "int32", "string"};
  bool overwrite = q->op == LFA_OP_OVERWRITE;
  bool keep_emb = !overwrite || chance(g, 70), keep_payload = !overwrite || chance(g, 70);
  size_t n = 0, nf = 0;
  lfa_assignment payload = LFA_UNTRACKED;
  for (size_t i = 0; i < 5; i++) {
    if ((i == 1 && !keep_emb) || (i >= 2 && !keep_payload)) continue;
    lfa_assignment a = (lfa_assignment)((int)rnd(g, 3) - 1);
    if (i == 2) payload = a;
    if (i >= 3 && payload != LFA_UNTRACKED) a = payload; /* the struct's children follow it */
    g->nf[nf++] = (lfa_new_field){paths[i], types[i], i != 0, a};
  }
  q->n_new_fields = nf, q->new_fields = g->nf;
  q->stable_row_ids = overwrite ? head->stable_row_ids : chance(g, 50);
  q->rows = fresh_keys(g, 1 + rnd(g, 8), g->rows);
  q->rows_per_file = rnd(g, 4);
  if (chance(g, 50)) /* else (or when none is picked): every field supplied */
    for (size_t i = 0; i < nf; i++)
      if (chance(g, 50)) g->names[n++] = g->nf[i].path;
  q->fields = (lfa_names_list){n, g->names};
  if (chance(g, 2)) q->fields = add_name(q->fields, g->names, "nope");
}

static void gen_append(gen *g, lfa_request *q, const or_state *s) {
  q->rows = fresh_keys(g, 1 + rnd(g, 4), g->rows);
  q->rows_per_file = rnd(g, 3);
  q->fields = pick_names(g, s, any_field, true, g->names);
  if (chance(g, 8)) q->fields = add_name(q->fields, g->names, "nope");
}

static void gen_delete(gen *g, lfa_request *q, const or_state *s) {
  q->rows = pick_live(g, s, 3, g->rows);
  if (q->rows.count == 0 || chance(g, 8)) q->rows = add_key(q->rows, g->rows, dead_key(g));
}

/* Tracked fields a write of `w` does not reach (FA-NEST-2): invalidating
 * them with that write is valid. */
static lfa_names_list pick_invalidations(gen *g, const or_state *s, lfa_names_list w, const char **out) {
  lfa_names_list all = pick_names(g, s, tracked_field, false, out);
  if (chance(g, 15)) return all; /* may clash with the write: FA-SEM-5 */
  size_t n = 0;
  for (size_t i = 0; i < all.count; i++) {
    bool reached = false;
    for (size_t k = 0; k < w.count; k++)
      reached |= strcmp(all.names[i], w.names[k]) == 0 || below(all.names[i], w.names[k]) || below(w.names[k], all.names[i]);
    if (!reached) out[n++] = all.names[i];
  }
  return (lfa_names_list){n, out};
}

/* UPDATE: writes, invalidations or both, on live rows; now and then an
 * unknown field, an untracked invalidation, a clash or a dead key. */
static void gen_update(gen *g, lfa_request *q, const or_state *s) {
  q->rows = pick_live(g, s, 3, g->rows);
  q->rewrite_columns = chance(g, 50);
  if (chance(g, 65)) q->fields = pick_names(g, s, any_field, true, g->names);
  if (chance(g, 50)) q->invalidate = pick_invalidations(g, s, q->fields, g->inval);
  if (q->fields.count == 0 && q->invalidate.count == 0 && !chance(g, 10)) /* else FA-INVAL-2 */
    q->fields = pick_names(g, s, any_field, true, g->names);
  unsigned bad = chance(g, 15) ? 1 + rnd(g, 3) : 0;
  if (q->rows.count == 0 || bad == 1) q->rows = add_key(q->rows, g->rows, dead_key(g));
  if (bad == 2) q->fields = add_name(q->fields, g->names, "nope");
  int u = bad == 3 ? pick_field(g, s, untracked_field) : -1;
  if (u >= 0) q->invalidate = add_name(q->invalidate, g->inval, keep(g, s->fields[u].path));
}

/* MERGE_INSERT: on _rowid (update-only) or on a key, with matched rows,
 * inserts, matched deletes and invalidations; invalid mixes now and then. */
static void gen_merge_insert(gen *g, lfa_request *q, const or_state *s) {
  q->on_row_id = chance(g, 30);
  q->delete_matched = !q->on_row_id && chance(g, 20);
  q->rows = chance(g, 85) ? pick_live(g, s, 3, g->rows) : (lfa_keys){0, g->rows};
  if (!q->on_row_id || chance(g, 10)) q->inserts = fresh_keys(g, rnd(g, 3), g->inserts);
  if (q->rows.count == 0 && q->inserts.count == 0) q->inserts = fresh_keys(g, 1, g->inserts);
  q->fields = pick_names(g, s, any_field, true, g->names);
  if (chance(g, 35)) q->invalidate = pick_invalidations(g, s, q->fields, g->inval);
  if (chance(g, 5)) q->fields = add_name(q->fields, g->names, "nope");
}

/* ADD_COLUMNS: a new top-level leaf, or a new struct with two children. */
static void gen_add_columns(gen *g, lfa_request *q, const or_state *s) {
  static const char *const leaf_types[] = {"int64", "string", "int32", "double"};
  char path[OR_PATH_MAX];
  unsigned k = g->next_name++;
  lfa_assignment a = (lfa_assignment)((int)rnd(g, 3) - 1);
  size_t n = 0;
  if (chance(g, 60)) {
    snprintf(path, sizeof path, "c%u", k);
    g->nf[n++] = (lfa_new_field){keep(g, path), leaf_types[rnd(g, 4)], true, a};
  } else {
    snprintf(path, sizeof path, "s%u", k);
    g->nf[n++] = (lfa_new_field){keep(g, path), "struct", true, a};
    for (size_t c = 0; c < 2; c++) {
      lfa_assignment ca = a != LFA_UNTRACKED ? a : (lfa_assignment)((int)rnd(g, 3) - 1);
      snprintf(path, sizeof path, "s%u.%s", k, c ? "b" : "a");
      g->nf[n++] = (lfa_new_field){keep(g, path), c ? "string" : "int32", true, ca};
    }
  }
  int clash = chance(g, 8) ? pick_field(g, s, top_field) : -1;
  if (clash >= 0) g->nf[0].path = keep(g, s->fields[clash].path);
  q->n_new_fields = n, q->new_fields = g->nf, q->with_data = chance(g, 50);
}

static void gen_alter(gen *g, lfa_request *q, const or_state *s) {
  static const char *const casts[][2] = {
      {"int64", "int32"},   {"int32", "int64"}, {"string", "large_string"}, {"large_string", "string"},
      {"double", "float"},  {"float", "double"}, {"fixed_size_list:float:4", "fixed_size_list:double:4"},
      {"fixed_size_list:double:4", "fixed_size_list:float:4"}};
  field_pred want = q->op == LFA_OP_RENAME ? top_field : q->op == LFA_OP_CAST ? leaf_field : any_field;
  if (q->op == LFA_OP_TRACK) /* mostly a field tracking can start on; else FA-TXN-8 */
    want = chance(g, 90) && count_fields(s, startable) > 0 ? startable : trackable;
  int f = pick_field(g, s, want);
  q->field = f < 0 || chance(g, 6) ? "nope" : keep(g, s->fields[f].path);
  q->assignment = chance(g, 50) ? LFA_ASSIGNED : LFA_UNASSIGNED;
  q->nullable = true; /* relaxing nullability is always possible */
  if (q->op == LFA_OP_RENAME) {
    char name[OR_PATH_MAX];
    snprintf(name, sizeof name, "r%u", g->next_name++);
    int other = chance(g, 10) ? pick_field(g, s, top_field) : -1; /* may clash */
    q->new_name = keep(g, other >= 0 ? s->fields[other].path : name);
    if (f >= 0 && other == f) q->new_name = keep(g, name);
  }
  if (q->op == LFA_OP_CAST) {
    q->new_type = "string";
    for (size_t i = 0; f >= 0 && i < sizeof casts / sizeof casts[0]; i++)
      if (strcmp(s->fields[f].type, casts[i][0]) == 0) q->new_type = casts[i][1];
  }
}

/* The parent of field `i` when `i` is its only child, else -1. */
static int sole_child_of(const or_state *s, size_t i) {
  char parent[OR_PATH_MAX];
  const char *dot = strrchr(s->fields[i].path, '.');
  if (dot == NULL) return -1;
  snprintf(parent, sizeof parent, "%.*s", (int)(dot - s->fields[i].path), s->fields[i].path);
  size_t children = 0;
  for (size_t j = 0; j < s->n_fields; j++)
    if (below(s->fields[j].path, parent) && strchr(s->fields[j].path + strlen(parent) + 1, '.') == NULL) children++;
  return children == 1 ? or_field_index(s, parent) : -1;
}

/* DROP: one field, never the last top-level one, never a struct's last
 * child (whether the struct stays, empty, is Lance's schema rule, not the
 * spec's: the struct itself is dropped instead). */
static void gen_drop(gen *g, lfa_request *q, const or_state *s) {
  int f = pick_field(g, s, any_field);
  for (int up = f >= 0 ? sole_child_of(s, (size_t)f) : -1; up >= 0; up = sole_child_of(s, (size_t)f)) f = up;
  if (f >= 0 && top_field(s, (size_t)f) && count_fields(s, top_field) == 1) f = -1;
  if (f < 0) { /* nothing may go: drop an unknown name instead (refused) */
    q->fields = (lfa_names_list){1, g->names}, g->names[0] = "nope";
    return;
  }
  g->names[0] = chance(g, 6) ? "nope" : keep(g, s->fields[f].path);
  q->fields = (lfa_names_list){1, g->names};
}

/* The oracle index of model field `id`, or -1 (a dropped id, a tombstone). */
static int oracle_field_of(const or_state *s, const lfa_table *t, int32_t id) {
  const lfa_field *mf = id >= 0 ? lfa_table_field(t, id) : NULL;
  char path[2 * OR_PATH_MAX];
  if (mf == NULL) return -1;
  or_model_path(t, (size_t)(mf - t->fields), path, sizeof path);
  return or_field_index(s, path);
}

/* The paths data file `df` lists, when they form a closed set (with each
 * field its ancestors and descendants, as a write names them, FA-NEST-2):
 * replacing that file is well defined. 0 otherwise, and 0 for a file of
 * more than FILE_NAMES_MAX fields: a list cut short names no file, and the
 * request would be refused (ops_differential found the generator cutting a
 * 15-field file to 12 and predicting acceptance). */
enum { FILE_NAMES_MAX = 12 }; /* g->names keeps room for the additions of gen_replace */
static size_t file_names(gen *g, const or_state *s, const lfa_table *t, const lfa_data_file *df, const char **out) {
  bool in[OR_MAX_FIELDS] = {false};
  size_t n = 0;
  if (df->n_fields > FILE_NAMES_MAX) return 0;
  for (size_t k = 0; k < df->n_fields; k++) {
    int i = oracle_field_of(s, t, df->fields[k]);
    if (i < 0) return 0;
    in[i] = true;
  }
  for (size_t i = 0; i < s->n_fields; i++)
    for (size_t j = 0; in[i] && j < s->n_fields; j++)
      if (!in[j] && (below(s->fields[j].path, s->fields[i].path) || below(s->fields[i].path, s->fields[j].path)))
        return 0;
  for (size_t i = 0; i < s->n_fields; i++)
    if (in[i]) out[n++] = keep(g, s->fields[i].path);
  return n;
}

/* Does any data file of `f` list `path` or a field below it? */
static bool stored_in(const or_state *s, const lfa_table *t, const lfa_fragment *f, const char *path) {
  for (size_t k = 0; k < f->n_files; k++)
    for (size_t m = 0; m < f->files[k].n_fields; m++) {
      int i = oracle_field_of(s, t, f->files[k].fields[m]);
      if (i >= 0 && (strcmp(s->fields[i].path, path) == 0 || below(s->fields[i].path, path))) return true;
    }
  return false;
}

/* REPLACE: Lance replaces a data file by one with exactly its fields, or adds
 * one for fields no file holds. Which files a fragment has is structure: the
 * generator reads it from the model's head to build only well-formed
 * replacements (or an unknown fragment, refused); the oracle needs none of it. */
static void gen_replace(gen *g, lfa_request *q, const or_state *s, const lfa_table *t) {
  size_t n = 0;
  const lfa_fragment *f = t && t->n_fragments && !chance(g, 6) ? &t->fragments[rnd(g, (unsigned)t->n_fragments)] : NULL;
  q->fragment_id = f ? f->id : 999999;
  for (int tries = 0; f != NULL && f->n_files > 0 && n == 0 && tries < 3 && chance(g, 85); tries++)
    n = file_names(g, s, t, &f->files[rnd(g, (unsigned)f->n_files)], g->names);
  int top = n == 0 ? pick_field(g, s, top_field) : -1;
  if (top >= 0 && (f == NULL || !stored_in(s, t, f, s->fields[top].path))) g->names[n++] = keep(g, s->fields[top].path);
  if (n == 0) /* nothing well-formed here: an unknown fragment instead (refused) */
    q->fragment_id = 999999, g->names[n++] = keep(g, s->fields[0].path);
  q->fields = (lfa_names_list){n, g->names};
  if (chance(g, 5)) q->fields = add_name(q->fields, g->names, "nope");
}

/* OVERLAY: a fragment of the model's head (structure only), the fields
 * written and some of its live rows; now and then an unknown fragment or a
 * row outside it. */
static void gen_overlay(gen *g, lfa_request *q, const or_state *s, const lfa_table *t) {
  q->fields = pick_names(g, s, any_field, true, g->names);
  if (chance(g, 5)) q->fields = add_name(q->fields, g->names, "nope");
  if (t == NULL || t->n_fragments == 0 || chance(g, 6)) {
    q->fragment_id = 999999;
    q->rows = pick_live(g, s, 2, g->rows);
    return;
  }
  const lfa_fragment *f = &t->fragments[rnd(g, (unsigned)t->n_fragments)];
  q->fragment_id = f->id;
  size_t n = 0, want = 1 + rnd(g, 3);
  for (int tries = 0; n < want && tries < 32; tries++) {
    uint32_t o = (uint32_t)rnd(g, (unsigned)f->physical_rows);
    bool dup = false;
    for (size_t k = 0; k < n; k++) dup |= g->rows[k] == f->keys[o];
    if (lfa_fragment_is_live(f, o) && !dup) g->rows[n++] = f->keys[o];
  }
  q->rows = (lfa_keys){n, g->rows};
  if (n == 0 || chance(g, 10)) { /* a row of another fragment, or a dead key */
    uint64_t key = s->n_rows ? s->rows[rnd(g, (unsigned)s->n_rows)].key : 0;
    for (uint32_t o = 0; o < f->physical_rows; o++)
      if (f->keys[o] == key) key = 0; /* in this fragment after all */
    q->rows = add_key(q->rows, g->rows, key != 0 && chance(g, 50) ? key : dead_key(g));
  }
}

/* The next request of a sequence: `op` (the first one creates), its
 * arguments drawn from the generator's source. */
void gen_request(gen *g, lfa_request *q, lfa_op op, const oracle *o, const lfa_history *h) {
  const or_state *s = &o->head;
  memset(q, 0, sizeof *q);
  g->n_buf = 0;
  q->op = op;
  if (q->op == LFA_OP_ADD_COLUMNS && s->n_fields + 4 > OR_MAX_FIELDS) q->op = LFA_OP_COMPACT;
  switch (q->op) {
  case LFA_OP_CREATE:
  case LFA_OP_OVERWRITE: gen_fresh(g, q, s); break;
  case LFA_OP_APPEND: gen_append(g, q, s); break;
  case LFA_OP_DELETE: gen_delete(g, q, s); break;
  case LFA_OP_UPDATE: gen_update(g, q, s); break;
  case LFA_OP_MERGE_INSERT: gen_merge_insert(g, q, s); break;
  case LFA_OP_ADD_COLUMNS: gen_add_columns(g, q, s); break;
  case LFA_OP_TRACK:
  case LFA_OP_RENAME:
  case LFA_OP_CAST:
  case LFA_OP_SET_NULLABLE: gen_alter(g, q, s); break;
  case LFA_OP_DROP: gen_drop(g, q, s); break;
  case LFA_OP_COMPACT: q->rows_per_file = rnd(g, 4); break; /* 0: Lance's default */
  case LFA_OP_REPLACE: gen_replace(g, q, s, lfa_history_head(h)); break;
  case LFA_OP_OVERLAY: gen_overlay(g, q, s, lfa_history_head(h)); break;
  case LFA_OP_RESTORE: /* an earlier version; restoring the head itself is left open by the spec */
    q->version = o->n_versions < 2 || chance(g, 8) ? o->n_versions + 1 + rnd(g, 3)
                                                      : 1 + rnd(g, (unsigned)o->n_versions - 1);
    break;
  case LFA_OP_CLONE: q->deep = chance(g, 50); break;
  case LFA_OP_CREATE_INDEX:
  case LFA_OP_UPDATE_CONFIG: break;
  }
}

/* ---- describing requests, for the logs printed on a disagreement -------------------- */

/* Appends to `out` (cap bytes, *used so far); *used never passes cap. */
static void gen_put(char *out, size_t cap, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void gen_put(char *out, size_t cap, size_t *used, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (*used < cap) *used += (size_t)vsnprintf(out + *used, cap - *used, fmt, ap);
  if (*used > cap) *used = cap;
  va_end(ap);
}

static void gen_put_names(char *out, size_t cap, size_t *used, const char *label, lfa_names_list l) {
  for (size_t i = 0; i < l.count; i++) gen_put(out, cap, used, "%s%s", i ? "," : label, l.names[i]);
}

static void gen_put_keys(char *out, size_t cap, size_t *used, const char *label, lfa_keys k) {
  for (size_t i = 0; i < k.count; i++) gen_put(out, cap, used, "%s%" PRIu64, i ? "," : label, k.keys[i]);
}

/* Appends one line describing `q` to `log` (cap bytes, *len so far; the
 * last byte stays for the terminating NUL). */
void gen_describe(char *log, size_t cap, size_t *len, const lfa_request *q) {
  char l[1024];
  size_t n = 0, lc = sizeof l;
  gen_put(l, lc, &n, "  %s", lfa_op_name(q->op));
  for (size_t i = 0; i < q->n_new_fields; i++)
    gen_put(l, lc, &n, " new=%s:%s:%d", q->new_fields[i].path, q->new_fields[i].type, (int)q->new_fields[i].assignment);
  gen_put_keys(l, lc, &n, " rows=", q->rows);
  gen_put_keys(l, lc, &n, " inserts=", q->inserts);
  gen_put_names(l, lc, &n, " fields=", q->fields);
  gen_put_names(l, lc, &n, " invalidate=", q->invalidate);
  if (q->field) gen_put(l, lc, &n, " field=%s", q->field);
  if (q->new_name) gen_put(l, lc, &n, " new_name=%s", q->new_name);
  if (q->new_type) gen_put(l, lc, &n, " new_type=%s", q->new_type);
  if (q->op == LFA_OP_TRACK) gen_put(l, lc, &n, " assignment=%d", (int)q->assignment);
  if (q->op == LFA_OP_CREATE) gen_put(l, lc, &n, " stable_row_ids=%d", q->stable_row_ids);
  if (q->op == LFA_OP_ADD_COLUMNS) gen_put(l, lc, &n, " with_data=%d", q->with_data);
  if (q->op == LFA_OP_UPDATE) gen_put(l, lc, &n, " rewrite_columns=%d", q->rewrite_columns);
  if (q->op == LFA_OP_MERGE_INSERT)
    gen_put(l, lc, &n, " on_row_id=%d delete_matched=%d", q->on_row_id, q->delete_matched);
  if (q->op == LFA_OP_REPLACE || q->op == LFA_OP_OVERLAY) gen_put(l, lc, &n, " fragment=%" PRIu64, q->fragment_id);
  if (q->op == LFA_OP_RESTORE) gen_put(l, lc, &n, " version=%" PRIu64, q->version);
  if (q->op == LFA_OP_CLONE) gen_put(l, lc, &n, " deep=%d", q->deep);
  if (q->rows_per_file) gen_put(l, lc, &n, " rows_per_file=%" PRIu64, q->rows_per_file);
  gen_put(log, cap, len, "%s\n", l);
  if (*len >= cap) *len = cap - 1;
}
