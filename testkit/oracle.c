/* oracle.c: the independent oracle (oracle.h). Every rule below is read
 * from the spec and from the meaning of the request fields in
 * ref/mutate/lfa/mutate.h; none from the model's code.
 *
 * The four things that change a row's state (FA-SEM-4): a write of a field
 * on the row (assigned), an invalidation (unassigned), the start of
 * tracking (the initial state, FA-OP-2 step 1) and the end of tracking.
 * Everything else (deletes, compaction, renames, casts, nullability,
 * metadata) leaves every surviving row as it was.
 */
#include "lfa/oracle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct field_set {
  bool in[OR_MAX_FIELDS];
} field_set;

/* ---- memory and lookups ------------------------------------------------- */

static void *or_xrealloc(void *ptr, size_t size) {
  void *q = realloc(ptr, size > 0 ? size : 1);
  if (q == NULL) {
    fprintf(stderr, "oracle: out of memory\n");
    abort();
  }
  return q;
}

static void state_copy(or_state *dst, const or_state *src) {
  *dst = *src;
  dst->cap_rows = src->n_rows;
  dst->rows = or_xrealloc(NULL, src->n_rows * sizeof *src->rows);
  if (src->n_rows > 0) memcpy(dst->rows, src->rows, src->n_rows * sizeof *src->rows);
}

void or_state_free(or_state *s) {
  free(s->rows);
  memset(s, 0, sizeof *s);
}

void or_init(oracle *o) { memset(o, 0, sizeof *o); }

void or_free(oracle *o) {
  or_state_free(&o->head);
  for (size_t i = 0; i < o->n_versions; i++) or_state_free(&o->versions[i]);
  free(o->versions);
  memset(o, 0, sizeof *o);
}

void or_copy(oracle *dst, const oracle *src) {
  *dst = *src;
  dst->cap_versions = src->n_versions;
  dst->versions = or_xrealloc(NULL, (src->n_versions ? src->n_versions : 1) * sizeof *dst->versions);
  state_copy(&dst->head, &src->head);
  for (size_t i = 0; i < src->n_versions; i++) state_copy(&dst->versions[i], &src->versions[i]);
}

void or_commit(oracle *o, or_state *next) {
  or_state_free(&o->head);
  o->head = *next;
  memset(next, 0, sizeof *next);
  if (o->n_versions == o->cap_versions) {
    o->cap_versions = o->cap_versions ? 2 * o->cap_versions : 4; /* a state is 5 KB: start small */
    o->versions = or_xrealloc(o->versions, o->cap_versions * sizeof *o->versions);
  }
  state_copy(&o->versions[o->n_versions++], &o->head);
}

int or_field_index(const or_state *s, const char *path) {
  for (size_t i = 0; i < s->n_fields; i++)
    if (strcmp(s->fields[i].path, path) == 0) return (int)i;
  return -1;
}

int or_row_index(const or_state *s, uint64_t key) {
  for (size_t i = 0; i < s->n_rows; i++)
    if (s->rows[i].key == key) return (int)i;
  return -1;
}

/* True when `path` lies strictly below `ancestor` ("a.b" below "a"). */
static bool is_below(const char *path, const char *ancestor) {
  size_t n = strlen(ancestor);
  return strncmp(path, ancestor, n) == 0 && path[n] == '.';
}

static bool refuse(or_prediction *p, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool refuse(or_prediction *p, const char *rule, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  p->refuse = true;
  p->rule = rule;
  vsnprintf(p->why, sizeof p->why, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- rows and fields ------------------------------------------------------ */

/* A new live row: assigned exactly for the tracked fields in `w`. */
static void add_row(or_state *s, uint64_t key, const field_set *w) {
  if (s->n_rows == s->cap_rows) {
    s->cap_rows = s->cap_rows ? 2 * s->cap_rows : 16;
    s->rows = or_xrealloc(s->rows, s->cap_rows * sizeof *s->rows);
  }
  or_row *r = &s->rows[s->n_rows++];
  memset(r, 0, sizeof *r);
  r->key = key;
  for (size_t i = 0; i < s->n_fields; i++) r->assigned[i] = s->fields[i].tracked && w->in[i];
}

static void remove_row(or_state *s, size_t i) { s->rows[i] = s->rows[--s->n_rows]; }

/* Appends a field; when tracked, every live row gets `initial`. */
static void add_field(or_state *s, const char *path, const char *type, bool tracked, bool initial) {
  if (s->n_fields == OR_MAX_FIELDS || strlen(path) >= OR_PATH_MAX || strlen(type) >= OR_TYPE_MAX) {
    fprintf(stderr, "oracle: schema too large for the oracle (%s)\n", path);
    abort();
  }
  or_field *f = &s->fields[s->n_fields];
  snprintf(f->path, sizeof f->path, "%s", path);
  snprintf(f->type, sizeof f->type, "%s", type);
  f->tracked = tracked;
  for (size_t r = 0; r < s->n_rows; r++) s->rows[r].assigned[s->n_fields] = tracked && initial;
  s->n_fields++;
}

/* Removes field `i` from the schema and its column from every row: its
 * tracking ends (FA-PROJECT-2, FA-ID-2). */
static void remove_field(or_state *s, size_t i) {
  size_t tail = s->n_fields - i - 1;
  memmove(&s->fields[i], &s->fields[i + 1], tail * sizeof s->fields[0]);
  for (size_t r = 0; r < s->n_rows; r++)
    memmove(&s->rows[r].assigned[i], &s->rows[r].assigned[i + 1], tail * sizeof(bool));
  s->n_fields--;
}

/* ---- the sets a request names -------------------------------------------- */

/* The fields a write of `names` writes (FA-NEST-2): each named field, every
 * descendant (the written data holds the whole subtree of a named field),
 * and every ancestor (a file holding a child holds its struct column and
 * lists the struct's id). Unknown names are refused. */
static bool written_set(const or_state *s, lfa_names_list names, field_set *w, or_prediction *p) {
  memset(w, 0, sizeof *w);
  for (size_t k = 0; k < names.count; k++) {
    const char *name = names.names[k];
    if (or_field_index(s, name) < 0) return refuse(p, NULL, "writes unknown field '%s'", name);
    for (size_t i = 0; i < s->n_fields; i++) {
      const char *path = s->fields[i].path;
      if (strcmp(path, name) == 0 || is_below(path, name) || is_below(name, path)) w->in[i] = true;
    }
  }
  return true;
}

/* The fields an invalidation of `names` clears: each named field, which must
 * exist and be tracked (FA-INVAL-2), and its tracked descendants, never an
 * ancestor (FA-NEST-3). */
static bool invalidated_set(const or_state *s, lfa_names_list names, field_set *inv, or_prediction *p) {
  memset(inv, 0, sizeof *inv);
  for (size_t k = 0; k < names.count; k++) {
    const char *name = names.names[k];
    int f = or_field_index(s, name);
    if (f < 0) return refuse(p, "FA-INVAL-2", "invalidates unknown field '%s'", name);
    if (!s->fields[f].tracked) return refuse(p, "FA-INVAL-2", "invalidates untracked field '%s'", name);
    for (size_t i = 0; i < s->n_fields; i++)
      if (i == (size_t)f || (s->fields[i].tracked && is_below(s->fields[i].path, name))) inv->in[i] = true;
  }
  return true;
}

/* A commit never writes and invalidates one field (FA-SEM-5, FA-NEST-5). */
static bool disjoint(const or_state *s, const field_set *w, const field_set *inv, or_prediction *p) {
  for (size_t i = 0; i < s->n_fields; i++)
    if (w->in[i] && inv->in[i])
      return refuse(p, "FA-SEM-5", "writes and invalidates '%s'", s->fields[i].path);
  return true;
}

/* Every key names a live row (mutate.h: "a key that names no live row"). */
static bool keys_live(const or_state *s, lfa_keys keys, or_prediction *p) {
  for (size_t k = 0; k < keys.count; k++)
    if (or_row_index(s, keys.keys[k]) < 0)
      return refuse(p, NULL, "key %llu names no live row", (unsigned long long)keys.keys[k]);
  return true;
}

/* On the rows `keys`: tracked fields of `w` become assigned, fields of
 * `inv` unassigned (FA-OP-2 steps 2 and 4). */
static void write_rows(or_state *s, lfa_keys keys, const field_set *w, const field_set *inv) {
  for (size_t k = 0; k < keys.count; k++) {
    or_row *r = &s->rows[or_row_index(s, keys.keys[k])];
    for (size_t i = 0; i < s->n_fields; i++) {
      if (s->fields[i].tracked && w->in[i]) r->assigned[i] = true;
      if (inv->in[i]) r->assigned[i] = false;
    }
  }
}

static void remove_rows(or_state *s, lfa_keys keys) {
  for (size_t k = 0; k < keys.count; k++) {
    int r = or_row_index(s, keys.keys[k]);
    if (r >= 0) remove_row(s, (size_t)r);
  }
}

/* ---- schema changes ----------------------------------------------------- */

/* The path of a field's parent ("" at the top level). */
static void parent_path(const char *path, char *out, size_t cap) {
  const char *dot = strrchr(path, '.');
  size_t n = dot ? (size_t)(dot - path) : 0;
  snprintf(out, cap, "%.*s", (int)n, path);
}

/* Adds the request's new fields to `s` (CREATE, OVERWRITE, ADD_COLUMNS),
 * each tracked per its assignment with its initial state on every live row
 * (FA-MERGE-2: the initial state stands whatever the Merge stores;
 * FA-OVERWRITE-1). A path must be new and its parent a struct that exists
 * or comes earlier (mutate.h). */
static bool add_new_fields(or_state *s, const lfa_request *q, or_prediction *p) {
  if (q->n_new_fields == 0) return refuse(p, NULL, "no field to add");
  for (size_t k = 0; k < q->n_new_fields; k++) {
    const lfa_new_field *nf = &q->new_fields[k];
    char parent[OR_PATH_MAX];
    if (nf->path == NULL || nf->path[0] == '\0' || nf->type == NULL)
      return refuse(p, NULL, "new field %zu has no path or type", k);
    if (or_field_index(s, nf->path) >= 0) return refuse(p, NULL, "field '%s' exists already", nf->path);
    parent_path(nf->path, parent, sizeof parent);
    if (parent[0] != '\0') {
      int pi = or_field_index(s, parent);
      if (pi < 0) return refuse(p, NULL, "'%s' has no parent '%s'", nf->path, parent);
      if (strcmp(s->fields[pi].type, "struct") != 0)
        return refuse(p, NULL, "parent '%s' of '%s' is no struct", parent, nf->path);
    }
    add_field(s, nf->path, nf->type, nf->assignment != LFA_UNTRACKED, nf->assignment == LFA_ASSIGNED);
  }
  return true;
}

/* TRACK: the field and each untracked descendant start at the initial state
 * on every live row (FA-PROJECT-4, FA-NEST-6); tracking twice is refused
 * (FA-TXN-8). */
static bool predict_track(const lfa_request *q, or_state *n, or_prediction *p) {
  int f = q->field ? or_field_index(n, q->field) : -1;
  if (f < 0) return refuse(p, NULL, "tracks unknown field '%s'", q->field ? q->field : "(null)");
  if (n->fields[f].tracked) return refuse(p, "FA-TXN-8", "'%s' is tracked already", q->field);
  if (q->assignment == LFA_UNTRACKED) return refuse(p, NULL, "track without an assignment");
  for (size_t i = 0; i < n->n_fields; i++) {
    if (i != (size_t)f && !is_below(n->fields[i].path, q->field)) continue;
    if (n->fields[i].tracked) continue;
    n->fields[i].tracked = true;
    for (size_t r = 0; r < n->n_rows; r++) n->rows[r].assigned[i] = q->assignment == LFA_ASSIGNED;
  }
  return true;
}

/* RENAME: `new_name` is the field's new name within its parent. The id and
 * so the state stay (FA-PROJECT-1); the subtree's paths follow. */
static bool predict_rename(const lfa_request *q, or_state *n, or_prediction *p) {
  int f = q->field ? or_field_index(n, q->field) : -1;
  if (f < 0) return refuse(p, "FA-PROJECT-6", "renames unknown field '%s'", q->field ? q->field : "(null)");
  if (q->new_name == NULL || q->new_name[0] == '\0' || strchr(q->new_name, '.') != NULL)
    return refuse(p, NULL, "bad new name");
  char old[OR_PATH_MAX], fresh[OR_PATH_MAX];
  snprintf(old, sizeof old, "%s", q->field);
  parent_path(old, fresh, sizeof fresh);
  size_t plen = strlen(fresh);
  snprintf(fresh + plen, sizeof fresh - plen, "%s%s", plen ? "." : "", q->new_name);
  if (strcmp(fresh, old) != 0 && or_field_index(n, fresh) >= 0)
    return refuse(p, NULL, "a field '%s' exists already", fresh);
  for (size_t i = 0; i < n->n_fields; i++) {
    char *path = n->fields[i].path;
    if (i != (size_t)f && !is_below(path, old)) continue;
    char renamed[2 * OR_PATH_MAX];
    snprintf(renamed, sizeof renamed, "%s%s", fresh, path + strlen(old));
    if (strlen(renamed) >= OR_PATH_MAX) abort();
    memcpy(path, renamed, strlen(renamed) + 1);
  }
  return true;
}

/* DROP: each named field and its descendants leave the schema; their
 * tracking ends (FA-PROJECT-2, FA-NEST-4). */
static bool predict_drop(const lfa_request *q, or_state *n, or_prediction *p) {
  if (q->fields.count == 0) return refuse(p, NULL, "drops nothing");
  field_set gone = {{false}};
  for (size_t k = 0; k < q->fields.count; k++) {
    const char *name = q->fields.names[k];
    if (or_field_index(n, name) < 0) return refuse(p, "FA-PROJECT-6", "drops unknown field '%s'", name);
    for (size_t i = 0; i < n->n_fields; i++)
      if (strcmp(n->fields[i].path, name) == 0 || is_below(n->fields[i].path, name)) gone.in[i] = true;
  }
  for (size_t i = n->n_fields; i-- > 0;)
    if (gone.in[i]) remove_field(n, i);
  return true;
}

/* CAST: a new id, tracking carried by a Transfer; the target's state equals
 * the source's (FA-CAST-1); the copied data is no write (00-terms "Write"). */
static bool predict_cast(const lfa_request *q, or_state *n, or_prediction *p) {
  int f = q->field ? or_field_index(n, q->field) : -1;
  if (f < 0) return refuse(p, "FA-PROJECT-6", "casts unknown field '%s'", q->field ? q->field : "(null)");
  if (q->new_type == NULL || q->new_type[0] == '\0') return refuse(p, NULL, "cast without a type");
  snprintf(n->fields[f].type, sizeof n->fields[f].type, "%s", q->new_type);
  return true;
}

/* RENAME, CAST, SET_NULLABLE, TRACK, DROP, ADD_COLUMNS. */
static bool predict_schema(const lfa_request *q, or_state *n, or_prediction *p) {
  switch (q->op) {
  case LFA_OP_ADD_COLUMNS: /* [FA-MERGE-2] with_data or not: the initial state stands */
    return add_new_fields(n, q, p);
  case LFA_OP_TRACK:
    return predict_track(q, n, p);
  case LFA_OP_RENAME:
    return predict_rename(q, n, p);
  case LFA_OP_CAST:
    return predict_cast(q, n, p);
  case LFA_OP_SET_NULLABLE: /* [FA-PROJECT-3] [FA-PROJECT-6] */
    if (q->field == NULL || or_field_index(n, q->field) < 0)
      return refuse(p, q->field ? "FA-PROJECT-6" : NULL, "unknown field '%s'", q->field ? q->field : "(null)");
    return true;
  case LFA_OP_DROP:
    return predict_drop(q, n, p);
  default:
    return refuse(p, NULL, "not a schema operation");
  }
}

/* ---- row operations ------------------------------------------------------ */

/* CREATE and OVERWRITE: a fresh schema whose fields start at their
 * initialization on every row; supplied fields must exist but write nothing,
 * since initialized fields take no writes in their first commit (FA-OP-2
 * step 2, FA-OVERWRITE-1). Creating is an Overwrite without a parent
 * (FA-OVERWRITE-2), so an OVERWRITE of no dataset creates it. An empty
 * `fields` supplies all. */
static bool predict_fresh(const oracle *o, const lfa_request *q, or_state *n, or_prediction *p) {
  bool overwrite = q->op == LFA_OP_OVERWRITE && o->head.created;
  if (q->op == LFA_OP_CREATE && o->head.created) return refuse(p, NULL, "the dataset exists already");
  memset(n, 0, sizeof *n);
  n->created = true;
  n->stable_row_ids = overwrite ? o->head.stable_row_ids : q->stable_row_ids; /* the mode is fixed */
  if (!add_new_fields(n, q, p)) return false;
  field_set w, initial = {{false}};
  if (!written_set(n, q->fields, &w, p)) return false;
  for (size_t i = 0; i < n->n_fields; i++) initial.in[i] = q->new_fields[i].assignment == LFA_ASSIGNED;
  for (size_t k = 0; k < q->rows.count; k++) {
    if (or_row_index(n, q->rows.keys[k]) >= 0) return refuse(p, NULL, "duplicate key");
    add_row(n, q->rows.keys[k], &initial);
  }
  return true;
}

/* APPEND: new rows, assigned exactly for the fields they supply
 * (FA-APPEND-1, FA-NEST-2). */
static bool predict_append(const lfa_request *q, or_state *n, or_prediction *p) {
  field_set w;
  if (!written_set(n, q->fields, &w, p)) return false;
  if (q->rows.count == 0) return refuse(p, NULL, "appends no row");
  for (size_t k = 0; k < q->rows.count; k++) {
    if (or_row_index(n, q->rows.keys[k]) >= 0) return refuse(p, NULL, "key %llu is live already",
                                                             (unsigned long long)q->rows.keys[k]);
    add_row(n, q->rows.keys[k], &w);
  }
  return true;
}

/* UPDATE: selected rows get the written fields assigned and the invalidated
 * ones cleared; both modes give the same logical result (FA-UPDATE-1,
 * FA-UPDATE-6, FA-INVAL-1, FA-INVAL-2, FA-SEM-5). */
static bool predict_update(const lfa_request *q, or_state *n, or_prediction *p) {
  field_set w, inv;
  if (!keys_live(n, q->rows, p)) return false;
  if (q->rows.count == 0) return refuse(p, NULL, "updates no row");
  if (!written_set(n, q->fields, &w, p) || !invalidated_set(n, q->invalidate, &inv, p)) return false;
  if (q->fields.count == 0 && q->invalidate.count == 0)
    return refuse(p, "FA-INVAL-2", "neither writes nor invalidations");
  if (!disjoint(n, &w, &inv, p)) return false;
  write_rows(n, q->rows, &w, &inv);
  return true;
}

/* MERGE_INSERT: matched rows written for the source's fields and cleared
 * for the invalidated ones, or deleted; inserts assigned exactly for the
 * source's fields (FA-MERGEINSERT-1, FA-MERGEINSERT-3, FA-MERGEINSERT-4,
 * FA-MERGEINSERT-5, FA-MERGEINSERT-6). */
static bool predict_merge_insert(const lfa_request *q, or_state *n, or_prediction *p) {
  field_set w, inv;
  if (!keys_live(n, q->rows, p)) return false;
  if (q->on_row_id && (q->inserts.count > 0 || q->delete_matched))
    return refuse(p, "FA-MERGEINSERT-1", "_rowid as key is update-only");
  if (!written_set(n, q->fields, &w, p) || !invalidated_set(n, q->invalidate, &inv, p)) return false;
  /* A merge that deletes its matched rows updates none. One that updates them
   * but matched no row invalidates nothing, and is no error: the request
   * cannot tell it from an update merge whose source matched nothing. */
  if (q->invalidate.count > 0 && q->delete_matched)
    return refuse(p, "FA-MERGEINSERT-5", "invalidation needs a matched-row update");
  if (!disjoint(n, &w, &inv, p)) return false;
  for (size_t k = 0; k < q->inserts.count; k++)
    if (or_row_index(n, q->inserts.keys[k]) >= 0) return refuse(p, NULL, "insert of a live key");
  if (q->delete_matched)
    remove_rows(n, q->rows);
  else
    write_rows(n, q->rows, &w, &inv);
  for (size_t k = 0; k < q->inserts.count; k++) add_row(n, q->inserts.keys[k], &w);
  return true;
}

static bool in_keys(const uint64_t *keys, size_t n, uint64_t key) {
  for (size_t i = 0; i < n; i++)
    if (keys[i] == key) return true;
  return false;
}

/* REPLACE: every live row of the fragment is written for the fields of the
 * new file (FA-REPLACE-1). OVERLAY: the covered rows are written, NULL
 * values included (FA-OVERLAY-1). Nested fields as any write (FA-NEST-2). */
static bool predict_fragment_write(const lfa_request *q, const or_fragment *frag, or_state *n,
                                   or_prediction *p) {
  field_set w, none = {{false}};
  if (frag == NULL || !frag->exists)
    return refuse(p, NULL, "fragment %llu does not exist", (unsigned long long)q->fragment_id);
  if (q->fields.count == 0) return refuse(p, NULL, "writes no field");
  if (!written_set(n, q->fields, &w, p)) return false;
  if (q->op == LFA_OP_REPLACE) {
    write_rows(n, (lfa_keys){frag->n_keys, frag->keys}, &w, &none);
    return true;
  }
  if (q->rows.count == 0) return refuse(p, NULL, "overlays no row");
  if (!keys_live(n, q->rows, p)) return false;
  for (size_t k = 0; k < q->rows.count; k++)
    if (!in_keys(frag->keys, frag->n_keys, q->rows.keys[k]))
      return refuse(p, NULL, "key %llu is not in fragment %llu", (unsigned long long)q->rows.keys[k],
                    (unsigned long long)q->fragment_id);
  write_rows(n, q->rows, &w, &none);
  return true;
}

/* Every operation on an existing dataset that keeps the head's schema as
 * its starting point. */
static bool predict_on_head(const lfa_request *q, const or_fragment *frag, or_state *n, or_prediction *p) {
  switch (q->op) {
  case LFA_OP_APPEND:
    return predict_append(q, n, p);
  case LFA_OP_DELETE: /* [FA-DELETE-1] rows leave; nothing else changes */
    if (q->rows.count == 0) return refuse(p, NULL, "deletes no row");
    if (!keys_live(n, q->rows, p)) return false;
    remove_rows(n, q->rows);
    return true;
  case LFA_OP_UPDATE:
    return predict_update(q, n, p);
  case LFA_OP_MERGE_INSERT:
    return predict_merge_insert(q, n, p);
  case LFA_OP_REPLACE:
  case LFA_OP_OVERLAY:
    return predict_fragment_write(q, frag, n, p);
  case LFA_OP_COMPACT:       /* [FA-REWRITE-1] rows keep their state */
  case LFA_OP_CLONE:         /* [FA-CLONE-1, FA-CLONE-2] the state of the cloned version */
  case LFA_OP_CREATE_INDEX:  /* [FA-META-1] */
  case LFA_OP_UPDATE_CONFIG: /* [FA-META-1] */
    return true;
  default:
    return predict_schema(q, n, p);
  }
}

void or_predict(const oracle *o, const lfa_request *req, const or_fragment *frag, or_state *next,
                or_prediction *p) {
  bool ok;
  memset(p, 0, sizeof *p);
  memset(next, 0, sizeof *next);
  if (req->op == LFA_OP_CREATE || req->op == LFA_OP_OVERWRITE) {
    ok = predict_fresh(o, req, next, p);
  } else if (!o->head.created) {
    ok = refuse(p, NULL, "no dataset yet");
  } else if (req->op == LFA_OP_RESTORE) { /* [FA-RESTORE-1] */
    ok = req->version >= 1 && req->version <= o->n_versions;
    if (ok)
      state_copy(next, &o->versions[req->version - 1]);
    else
      refuse(p, NULL, "version %llu does not exist", (unsigned long long)req->version);
  } else {
    state_copy(next, &o->head);
    ok = predict_on_head(req, frag, next, p);
  }
  if (!ok) or_state_free(next);
}
