/* oracle_compare.c: the model's state held to the oracle's (lfa/oracle_compare.h). */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/oracle_compare.h"

/* The dotted path of model field `i` (names from the top level; "?" marks
 * a parent id the schema lacks). */
void or_model_path(const lfa_table *t, size_t i, char *out, size_t cap) {
  size_t chain[16], depth = 0, used = 0;
  for (size_t at = i; depth < 16;) {
    chain[depth++] = at;
    int32_t parent = t->fields[at].parent_id;
    size_t next = SIZE_MAX;
    for (size_t j = 0; parent >= 0 && j < t->n_fields; j++)
      if (t->fields[j].id == parent) next = j;
    if (parent < 0) break;
    if (next == SIZE_MAX) {
      used += (size_t)snprintf(out, cap, "?.");
      break;
    }
    at = next;
  }
  out[used] = '\0';
  while (depth-- > 0) { /* appended by hand: agree builds every path of every head */
    const char *name = t->fields[chain[depth]].name;
    size_t n = strlen(name), dot = used && out[used - 1] != '.';
    if (used + dot + n >= cap) break;
    if (dot) out[used++] = '.';
    memcpy(out + used, name, n + 1);
    used += n;
  }
}

size_t or_model_field(const lfa_table *t, const char *path) {
  char p[2 * OR_PATH_MAX];
  for (size_t i = 0; i < t->n_fields; i++) {
    or_model_path(t, i, p, sizeof p);
    if (strcmp(p, path) == 0) return i;
  }
  return SIZE_MAX;
}

/* The model index of every oracle field, matched by path: each model
 * path is built once per comparison, not once per oracle field. False with
 * `diff` when the field counts differ or a path has no match. */
static bool match_fields(size_t at[OR_MAX_FIELDS], const or_state *o, const lfa_table *t, char *diff,
                                size_t cap) {
  if (t->n_fields != o->n_fields) {
    snprintf(diff, cap, "schema: model has %zu fields, oracle %zu", t->n_fields, o->n_fields);
    return false;
  }
  char paths[OR_MAX_FIELDS][2 * OR_PATH_MAX];
  for (size_t m = 0; m < t->n_fields; m++) or_model_path(t, m, paths[m], sizeof paths[m]);
  for (size_t i = 0; i < o->n_fields; i++) {
    at[i] = SIZE_MAX;
    for (size_t m = 0; m < t->n_fields && at[i] == SIZE_MAX; m++)
      if (strcmp(paths[m], o->fields[i].path) == 0) at[i] = m;
    if (at[i] == SIZE_MAX) {
      snprintf(diff, cap, "schema: model has no field '%s'", o->fields[i].path);
      return false;
    }
  }
  return true;
}

/* Same field paths, same tracked fields (FA-OP-1); `at` from match_fields. */
static bool same_schema(const or_state *o, const lfa_table *t, const size_t at[OR_MAX_FIELDS], char *diff,
                               size_t cap) {
  size_t tracked = 0;
  for (size_t i = 0; i < o->n_fields; i++) {
    const or_field *f = &o->fields[i];
    bool model_tracked = lfa_table_tracked(t, t->fields[at[i]].id) != NULL;
    if (model_tracked != f->tracked) {
      snprintf(diff, cap, "field '%s': model %s, oracle %s", f->path, model_tracked ? "tracked" : "untracked",
               f->tracked ? "tracked" : "untracked");
      return false;
    }
    tracked += f->tracked;
  }
  if (t->n_tracked != tracked) {
    snprintf(diff, cap, "model tracks %zu fields, oracle %zu", t->n_tracked, tracked);
    return false;
  }
  return true;
}

typedef struct live_row {
  uint64_t key;
  size_t frag;
  uint32_t offset;
} live_row;

static int cmp_live(const void *a, const void *b) {
  uint64_t x = ((const live_row *)a)->key, y = ((const live_row *)b)->key;
  return (x > y) - (x < y);
}

/* The live rows of `t`, sorted by key; keys come from the fragment with the
 * same id in `keys_from` (a table read from disk has no keys). */
static live_row *model_rows(const lfa_table *t, const lfa_table *keys_from, size_t *n, char *diff, size_t cap) {
  size_t total = 0, k = 0;
  for (size_t i = 0; i < t->n_fragments; i++) total += (size_t)t->fragments[i].physical_rows;
  live_row *rows = malloc((total ? total : 1) * sizeof *rows);
  if (rows == NULL) {
    snprintf(diff, cap, "out of memory reading the model's rows");
    return NULL;
  }
  for (size_t i = 0; i < t->n_fragments; i++) {
    const lfa_fragment *f = &t->fragments[i];
    size_t j = lfa_table_fragment(keys_from, f->id);
    const lfa_fragment *kf = j == SIZE_MAX ? NULL : &keys_from->fragments[j];
    if (kf == NULL || kf->keys == NULL || kf->physical_rows != f->physical_rows) {
      snprintf(diff, cap, "fragment %" PRIu64 ": no keys for its rows", f->id);
      free(rows);
      return NULL;
    }
    for (uint32_t o = 0; o < f->physical_rows; o++)
      if (lfa_fragment_is_live(f, o)) rows[k++] = (live_row){kf->keys[o], i, o};
  }
  qsort(rows, k, sizeof *rows, cmp_live);
  *n = k;
  return rows;
}

static const live_row *find_live(const live_row *rows, size_t n, uint64_t key) {
  live_row probe = {key, 0, 0};
  return bsearch(&probe, rows, n, sizeof *rows, cmp_live);
}

/* The same live keys, and on each the same state of every tracked field.
 * Each oracle field's model state is looked up once (`at` from
 * match_fields), not once per row. */
static bool same_rows(const or_state *o, const lfa_table *t, const size_t at[OR_MAX_FIELDS],
                             const live_row *rows, size_t n, char *diff, size_t cap) {
  const lfa_field_state *state[OR_MAX_FIELDS] = {NULL};
  for (size_t i = 0; i < o->n_fields; i++)
    if (o->fields[i].tracked) state[i] = lfa_table_tracked(t, t->fields[at[i]].id);
  for (size_t i = 1; i < n; i++)
    if (rows[i].key == rows[i - 1].key) {
      snprintf(diff, cap, "key %" PRIu64 " is live twice in the model", rows[i].key);
      return false;
    }
  if (n != o->n_rows) {
    snprintf(diff, cap, "model has %zu live rows, oracle %zu", n, o->n_rows);
    return false;
  }
  for (size_t r = 0; r < o->n_rows; r++) {
    const live_row *m = find_live(rows, n, o->rows[r].key);
    if (m == NULL) {
      snprintf(diff, cap, "key %" PRIu64 " is live in the oracle only", o->rows[r].key);
      return false;
    }
    for (size_t i = 0; i < o->n_fields; i++) {
      if (!o->fields[i].tracked) continue;
      bool got = lfa_cell_contains(&state[i]->cells[m->frag], m->offset);
      if (got != o->rows[r].assigned[i]) {
        snprintf(diff, cap, "key %" PRIu64 " field '%s': model %s, oracle %s (fragment %" PRIu64 " offset %u)",
                 o->rows[r].key, o->fields[i].path, got ? "assigned" : "unassigned",
                 o->rows[r].assigned[i] ? "assigned" : "unassigned", t->fragments[m->frag].id, m->offset);
        return false;
      }
    }
  }
  return true;
}

/* Model table `t` (keys from `keys_from`) against oracle state `o`. */
bool or_agree(const or_state *o, const lfa_table *t, const lfa_table *keys_from, char *diff, size_t cap) {
  if (t == NULL || !o->created) {
    if ((t == NULL) == !o->created) return true;
    snprintf(diff, cap, "model %s a dataset, oracle %s", t ? "has" : "lacks", o->created ? "has" : "lacks");
    return false;
  }
  if (t->stable_row_ids != o->stable_row_ids) {
    snprintf(diff, cap, "row-id mode differs");
    return false;
  }
  size_t at[OR_MAX_FIELDS];
  if (!match_fields(at, o, t, diff, cap) || !same_schema(o, t, at, diff, cap)) return false;
  size_t n = 0;
  live_row *rows = model_rows(t, keys_from, &n, diff, cap);
  if (rows == NULL) return false;
  bool ok = same_rows(o, t, at, rows, n, diff, cap);
  free(rows);
  return ok;
}

/* The model's answer `st` (with `err`) against the oracle's prediction:
 * false with `diff` on a mismatch. */
bool or_judge_answer(char *diff, size_t cap, const or_prediction *p, lfa_status st, const lfa_error *err) {
  if (p->refuse && st == LFA_OK) {
    snprintf(diff, cap, "model accepted; oracle expected a refusal [%s]: %s", p->rule ? p->rule : "-", p->why);
    return false;
  }
  if (p->refuse && st != LFA_ERR_USAGE) {
    snprintf(diff, cap, "model failed with %s (%s); oracle expected LFA_ERR_USAGE: %s", lfa_status_name(st), err->msg,
             p->why);
    return false;
  }
  if (!p->refuse && st != LFA_OK) {
    snprintf(diff, cap, "model refused with %s [%s] %s; oracle expected acceptance", lfa_status_name(st),
             err->rule ? err->rule : "-", err->msg);
    return false;
  }
  return true;
}

/* The live keys of fragment `id` of model table `t` (NULL: none), kept in
 * *keys (grown as needed, *cap entries; the caller frees it): structure
 * the oracle cannot know by itself (which rows share a fragment), never
 * state. Out of memory aborts. */
or_fragment or_fragment_keys(const lfa_table *t, uint64_t id, uint64_t **keys, size_t *cap) {
  size_t i = t ? lfa_table_fragment(t, id) : SIZE_MAX;
  if (i == SIZE_MAX) return (or_fragment){false, 0, NULL};
  const lfa_fragment *f = &t->fragments[i];
  if (*cap < f->physical_rows) {
    uint64_t *grown = realloc(*keys, (size_t)f->physical_rows * sizeof *grown);
    if (grown == NULL) {
      fprintf(stderr, "oracle_compare: out of memory\n");
      abort();
    }
    *keys = grown, *cap = (size_t)f->physical_rows;
  }
  size_t n = 0;
  for (uint32_t o = 0; o < f->physical_rows; o++)
    if (lfa_fragment_is_live(f, o)) (*keys)[n++] = f->keys[o];
  return (or_fragment){true, n, *keys};
}
