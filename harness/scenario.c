/* scenario.c: scenario files (lfa/scenario.h; the format is
 * conformance/SCENARIOS.md).
 *
 * Parsing is strict the way the JSON reader is: every key the format does
 * not define is refused, and so is a request key the step's operation does
 * not take, so a typo can never turn a step into a different one that
 * happens to pass. Each step maps onto exactly one lfa_request, its keys
 * named like the request's fields.
 *
 * Running applies the steps to an lfa_history in order and compares, step
 * by step, what happened with what the author expected: the outcome
 * (committed, refused, conflict), the rule a refusal names, and the state
 * after the step (live keys, tracked fields, assigned keys per field),
 * which is read back from the bytes the history wrote, by logical key,
 * and compared with the check; the head table in memory is then compared
 * with those bytes. Versions a step names (read_step, a restore's
 * to_step) are named by the step that committed them, so a writer that
 * commits more than one version for a step is judged alike. */
#include "lfa/scenario.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/snapshot_model.h"

/* ---- the operations and the request keys each takes ------------------------ */

enum {
  K_NEW_FIELDS = 1u << 0,
  K_WITH_DATA = 1u << 1,
  K_ROWS = 1u << 2,
  K_INSERTS = 1u << 3,
  K_ROWS_PER_FILE = 1u << 4,
  K_FIELDS = 1u << 5,
  K_INVALIDATE = 1u << 6,
  K_REWRITE_COLUMNS = 1u << 7,
  K_ON_ROW_ID = 1u << 8,
  K_DELETE_MATCHED = 1u << 9,
  K_FIELD = 1u << 10,
  K_ASSIGNMENT = 1u << 11,
  K_NEW_NAME = 1u << 12,
  K_NEW_TYPE = 1u << 13,
  K_NULLABLE = 1u << 14,
  K_FRAGMENT_ID = 1u << 15,
  K_VERSION = 1u << 16,
  K_DEEP = 1u << 17,
  K_TO_STEP = 1u << 18,
  N_REQUEST_KEYS = 19
};

/* Bit k of a key set is REQUEST_KEYS[k], named like lfa_request's field;
 * to_step names restore's version by the step that committed it, and
 * becomes request.version when the step runs. */
static const char *const REQUEST_KEYS[N_REQUEST_KEYS] = {
    "new_fields", "with_data",       "rows",      "inserts",        "rows_per_file", "fields",  "invalidate",
    "rewrite_columns", "on_row_id", "delete_matched", "field",       "assignment",    "new_name", "new_type",
    "nullable",   "fragment_id",     "version",   "deep",           "to_step"};

/* Keys every step may carry besides its request's. */
static const char *const STEP_KEYS[] = {"op", "read_step", "expect", "expect_rule", "check", "note"};

typedef struct op_form {
  const char *name;
  lfa_op op;
  unsigned keys;     /* the request keys it takes */
  unsigned required; /* ...and those it cannot do without */
  /* `fields` lists the supplied fields, and an empty list would mean every
   * field to lfa_request: the file says so by leaving `fields` out. */
  bool fields_supplied;
} op_form;

/* mutate.h says which request field each operation reads. */
static const op_form OPS[] = {
    {"create", LFA_OP_CREATE, 0, 0, true}, /* the setup only */
    {"append", LFA_OP_APPEND, K_ROWS | K_FIELDS | K_ROWS_PER_FILE, 0, true},
    {"add_columns", LFA_OP_ADD_COLUMNS, K_NEW_FIELDS | K_WITH_DATA, K_NEW_FIELDS, false},
    {"track", LFA_OP_TRACK, K_FIELD | K_ASSIGNMENT, K_FIELD | K_ASSIGNMENT, false},
    {"rename", LFA_OP_RENAME, K_FIELD | K_NEW_NAME, K_FIELD | K_NEW_NAME, false},
    {"cast", LFA_OP_CAST, K_FIELD | K_NEW_TYPE, K_FIELD | K_NEW_TYPE, false},
    {"set_nullable", LFA_OP_SET_NULLABLE, K_FIELD | K_NULLABLE, K_FIELD | K_NULLABLE, false},
    {"drop", LFA_OP_DROP, K_FIELDS, K_FIELDS, false},
    {"update", LFA_OP_UPDATE, K_ROWS | K_FIELDS | K_INVALIDATE | K_REWRITE_COLUMNS, 0, false},
    /* merge_insert chooses its update mode itself (full or partial source),
     * and an empty `fields` is a source with no field (delete-only, or an
     * invalidation on _rowid), not every field */
    {"merge_insert", LFA_OP_MERGE_INSERT, K_ROWS | K_INSERTS | K_FIELDS | K_INVALIDATE | K_ON_ROW_ID | K_DELETE_MATCHED,
     0, false},
    {"delete", LFA_OP_DELETE, K_ROWS, 0, false},
    {"compact", LFA_OP_COMPACT, K_ROWS_PER_FILE, 0, false},
    {"replace", LFA_OP_REPLACE, K_FRAGMENT_ID | K_FIELDS, K_FRAGMENT_ID | K_FIELDS, false},
    {"overlay", LFA_OP_OVERLAY, K_FRAGMENT_ID | K_ROWS | K_FIELDS, K_FRAGMENT_ID | K_FIELDS, false},
    /* one of the two: to_step, or version for one that does not exist */
    {"restore", LFA_OP_RESTORE, K_VERSION | K_TO_STEP, 0, false},
    {"overwrite", LFA_OP_OVERWRITE, K_NEW_FIELDS | K_ROWS | K_FIELDS | K_ROWS_PER_FILE, K_NEW_FIELDS, true},
    {"clone", LFA_OP_CLONE, K_DEEP, 0, false},
    {"create_index", LFA_OP_CREATE_INDEX, 0, 0, false},
    {"update_config", LFA_OP_UPDATE_CONFIG, 0, 0, false},
};
enum { N_OPS = sizeof OPS / sizeof OPS[0] };

const char *lfa_scenario_op_name(lfa_op op) {
  for (size_t i = 0; i < N_OPS; i++)
    if (OPS[i].op == op) return OPS[i].name;
  return "unknown";
}

const char *lfa_scenario_outcome_name(lfa_scenario_outcome outcome) {
  switch (outcome) {
    case LFA_SCENARIO_OK: return "ok";
    case LFA_SCENARIO_REFUSED: return "refused";
    case LFA_SCENARIO_CONFLICT: return "conflict";
  }
  return "unknown";
}

/* ---- text helpers -------------------------------------------------------------- */

/* A bounded string being appended to; the tail of an over-long text is cut. */
typedef struct sink {
  char *buf;
  size_t cap, used;
} sink;

static void sink_put(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sink_put(sink *s, const char *fmt, ...) {
  if (s->cap == 0 || s->used >= s->cap - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(s->buf + s->used, s->cap - s->used, fmt, ap);
  va_end(ap);
  if (n > 0) s->used = s->used + (size_t)n < s->cap ? s->used + (size_t)n : s->cap - 1;
}

/* "a, b, c" of `n` names, for "known keys" messages. */
static void sink_names(sink *s, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++) sink_put(s, "%s%s", i ? ", " : "", names[i]);
}

/* "{1, 2, 3}", at most 16 keys shown. */
static void sink_keys(sink *s, const uint64_t *keys, size_t n) {
  enum { SHOWN = 16 };
  sink_put(s, "{");
  for (size_t i = 0; i < n && i < SHOWN; i++) sink_put(s, "%s%" PRIu64, i ? ", " : "", keys[i]);
  if (n > SHOWN) sink_put(s, ", ... %zu keys in all", n);
  sink_put(s, "}");
}

/* FA-<TOPIC>-<n>, as spec/ numbers requirements. */
static bool is_rule_id(const char *s) {
  if (strncmp(s, "FA-", 3) != 0) return false;
  const char *p = s + 3;
  size_t letters = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  if (letters == 0 || p[letters] != '-') return false;
  p += letters + 1;
  size_t digits = strspn(p, "0123456789");
  return digits > 0 && p[digits] == '\0';
}

static int by_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* ---- parsing: values ------------------------------------------------------------------ */

typedef struct ctx {
  lfa_arena *arena;
  lfa_error *err;
} ctx;

static lfa_status nomem(ctx *c) { return lfa_fail(c->err, LFA_ERR_NOMEM, NULL, "out of memory"); }

/* A string copied into the scenario; `nonempty` for names and paths. */
static lfa_status text(const char **out, ctx *c, const lfa_json *v, const char *what, bool nonempty) {
  const char *s;
  lfa_status st = lfa_json_string(&s, v, what, c->err);
  if (st != LFA_OK) return st;
  if (nonempty && s[0] == '\0') return lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s must not be empty", what);
  *out = lfa_arena_strdup(c->arena, s);
  return *out ? LFA_OK : nomem(c);
}

static lfa_status rule_id(const char **out, ctx *c, const lfa_json *v, const char *what) {
  lfa_status st = text(out, c, v, what, true);
  if (st == LFA_OK && !is_rule_id(*out))
    st = lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s must be a requirement id like \"FA-SEM-5\", not \"%.64s\"", what,
                       *out);
  return st;
}

/* A list of row keys. As a set (checks): distinct, kept ascending. As a
 * request's list: kept as written, since naming a row twice is something
 * a scenario may want to see refused. */
static lfa_status key_list(lfa_keys *out, ctx *c, const lfa_json *v, const char *what, bool as_set) {
  char item[128];
  lfa_status st = lfa_json_want(v, LFA_JSON_ARRAY, what, c->err);
  uint64_t *keys = st == LFA_OK ? lfa_arena_array(c->arena, v->count + 1, sizeof *keys) : NULL;
  if (st == LFA_OK && keys == NULL) return nomem(c);
  for (size_t i = 0; st == LFA_OK && i < v->count; i++) {
    snprintf(item, sizeof item, "%s[%zu]", what, i);
    st = lfa_json_u64(&keys[i], &v->items[i], item, c->err);
  }
  if (st != LFA_OK) return st;
  *out = (lfa_keys){v->count, keys};
  if (!as_set) return LFA_OK;
  qsort(keys, v->count, sizeof *keys, by_u64);
  for (size_t i = 1; i < v->count; i++) {
    if (keys[i] != keys[i - 1]) continue;
    size_t at = v->count; /* the second place it is written, for the message */
    for (size_t k = 0, seen = 0; k < v->count && at == v->count; k++)
      if (v->items[k].magnitude == keys[i] && seen++ == 1) at = k;
    return lfa_json_fail(c->err, LFA_ERR_FORMAT, &v->items[at < v->count ? at : 0], "%s lists key %" PRIu64 " twice",
                         what, keys[i]);
  }
  return LFA_OK;
}

/* A list of field paths (or requirement ids with `rules`). */
static lfa_status name_list(lfa_names_list *out, ctx *c, const lfa_json *v, const char *what, bool distinct,
                            bool rules) {
  char item[128];
  lfa_status st = lfa_json_want(v, LFA_JSON_ARRAY, what, c->err);
  const char **names = st == LFA_OK ? lfa_arena_array(c->arena, v->count + 1, sizeof *names) : NULL;
  if (st == LFA_OK && names == NULL) return nomem(c);
  for (size_t i = 0; st == LFA_OK && i < v->count; i++) {
    snprintf(item, sizeof item, "%s[%zu]", what, i);
    st = rules ? rule_id(&names[i], c, &v->items[i], item) : text(&names[i], c, &v->items[i], item, true);
    for (size_t k = 0; st == LFA_OK && distinct && k < i; k++)
      if (strcmp(names[k], names[i]) == 0)
        st = lfa_json_fail(c->err, LFA_ERR_FORMAT, &v->items[i], "%s lists \"%.64s\" twice", what, names[i]);
  }
  if (st == LFA_OK) *out = (lfa_names_list){v->count, names};
  return st;
}

/* Supplied fields: an empty list would read as "every field". */
static lfa_status supplied_list(lfa_names_list *out, ctx *c, const lfa_json *v, const char *what) {
  lfa_status st = name_list(out, c, v, what, true, false);
  if (st == LFA_OK && out->count == 0)
    st = lfa_json_fail(c->err, LFA_ERR_FORMAT, v,
                       "%s is empty; to supply every field leave it out (a request cannot supply no field)", what);
  return st;
}

static lfa_status assignment(lfa_assignment *out, ctx *c, const lfa_json *v, const char *what, bool untracked_ok) {
  const char *s;
  lfa_status st = lfa_json_string(&s, v, what, c->err);
  if (st != LFA_OK) return st;
  if (strcmp(s, "assigned") == 0) *out = LFA_ASSIGNED;
  else if (strcmp(s, "unassigned") == 0) *out = LFA_UNASSIGNED;
  else if (strcmp(s, "untracked") == 0 && untracked_ok) *out = LFA_UNTRACKED;
  else
    return lfa_json_fail(
        c->err, LFA_ERR_FORMAT, v, "%s must be %s, not \"%.32s\"", what,
        untracked_ok ? "\"untracked\", \"unassigned\" or \"assigned\"" : "\"unassigned\" or \"assigned\"", s);
  return LFA_OK;
}

/* Refuses a key of `obj` that is not in `known`. */
static lfa_status known_keys(ctx *c, const lfa_json *obj, const char *what, const char *const *known, size_t n) {
  for (size_t i = 0; i < obj->count; i++) {
    const lfa_json_member *m = &obj->members[i];
    bool ok = false;
    for (size_t k = 0; k < n && !ok; k++)
      ok = strlen(known[k]) == m->key_length && memcmp(known[k], m->key, m->key_length) == 0;
    if (ok) continue;
    char list[256];
    sink s = {list, sizeof list, 0};
    sink_names(&s, known, n);
    return lfa_fail(c->err, LFA_ERR_FORMAT, NULL,
                    "line %" PRIu32 ", column %" PRIu32 ": %s: unknown key \"%.64s\" (known: %s)", m->line, m->column,
                    what, m->key, list);
  }
  return LFA_OK;
}

/* One of setup.fields or a step's new_fields. */
static lfa_status new_field(lfa_new_field *out, ctx *c, const lfa_json *v, const char *what) {
  static const char *const KEYS[] = {"path", "type", "nullable", "assignment"};
  char sub[160];
  lfa_status st = lfa_json_want(v, LFA_JSON_OBJECT, what, c->err);
  if (st == LFA_OK) st = known_keys(c, v, what, KEYS, 4);
  *out = (lfa_new_field){NULL, NULL, true, LFA_UNTRACKED}; /* Arrow fields are nullable unless said */
  for (size_t k = 0; st == LFA_OK && k < 2; k++) {
    const lfa_json *req = lfa_json_find(v, KEYS[k]);
    snprintf(sub, sizeof sub, "%s.%s", what, KEYS[k]);
    if (req == NULL) return lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s needs \"%s\"", what, KEYS[k]);
    st = text(k == 0 ? &out->path : &out->type, c, req, sub, true);
  }
  const lfa_json *nullable = lfa_json_find(v, "nullable"), *assign = lfa_json_find(v, "assignment");
  snprintf(sub, sizeof sub, "%s.nullable", what);
  if (st == LFA_OK && nullable) st = lfa_json_bool(&out->nullable, nullable, sub, c->err);
  snprintf(sub, sizeof sub, "%s.assignment", what);
  if (st == LFA_OK && assign) st = assignment(&out->assignment, c, assign, sub, true);
  return st;
}

static lfa_status new_fields(lfa_request *q, ctx *c, const lfa_json *v, const char *what) {
  char item[128];
  lfa_status st = lfa_json_want(v, LFA_JSON_ARRAY, what, c->err);
  if (st == LFA_OK && v->count == 0)
    st = lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s must list at least one field", what);
  lfa_new_field *fields = st == LFA_OK ? lfa_arena_array(c->arena, v->count, sizeof *fields) : NULL;
  if (st == LFA_OK && fields == NULL) return nomem(c);
  for (size_t i = 0; st == LFA_OK && i < v->count; i++) {
    snprintf(item, sizeof item, "%s[%zu]", what, i);
    st = new_field(&fields[i], c, &v->items[i], item);
  }
  q->new_fields = fields;
  q->n_new_fields = st == LFA_OK ? v->count : 0;
  return st;
}

/* ---- parsing: checks ---------------------------------------------------------------------- */

static lfa_status check_assigned(lfa_scenario_check *out, ctx *c, const lfa_json *v, const char *what) {
  char sub[256];
  lfa_status st = lfa_json_want(v, LFA_JSON_OBJECT, what, c->err);
  out->assigned = st == LFA_OK ? lfa_arena_array(c->arena, v->count + 1, sizeof *out->assigned) : NULL;
  if (st == LFA_OK && out->assigned == NULL) return nomem(c);
  for (size_t i = 0; st == LFA_OK && i < v->count; i++) {
    const lfa_json_member *m = &v->members[i];
    snprintf(sub, sizeof sub, "%s.\"%.64s\"", what, m->key);
    if (m->key_length == 0 || memchr(m->key, '\0', m->key_length) != NULL)
      return lfa_fail(c->err, LFA_ERR_FORMAT, NULL,
                      "line %" PRIu32 ", column %" PRIu32 ": %s: a field path is not empty and holds no NUL", m->line,
                      m->column, what);
    lfa_scenario_assigned *a = &out->assigned[out->n_assigned++];
    a->path = lfa_arena_strdup(c->arena, m->key);
    st = a->path ? key_list(&a->keys, c, &m->value, sub, true) : nomem(c);
  }
  return st;
}

static lfa_status parse_check(lfa_scenario_check *out, ctx *c, const lfa_json *v, const char *what) {
  static const char *const KEYS[] = {"live", "tracked", "assigned"};
  char sub[160];
  memset(out, 0, sizeof *out);
  lfa_status st = lfa_json_want(v, LFA_JSON_OBJECT, what, c->err);
  if (st == LFA_OK) st = known_keys(c, v, what, KEYS, 3);
  if (st == LFA_OK && v->count == 0)
    return lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s states nothing: give \"live\", \"tracked\" or \"assigned\"",
                         what);
  const lfa_json *live = lfa_json_find(v, "live"), *tracked = lfa_json_find(v, "tracked"),
                 *assigned = lfa_json_find(v, "assigned");
  snprintf(sub, sizeof sub, "%s.live", what);
  if (st == LFA_OK && live) st = key_list(&out->live, c, live, sub, true), out->has_live = true;
  snprintf(sub, sizeof sub, "%s.tracked", what);
  if (st == LFA_OK && tracked) st = name_list(&out->tracked, c, tracked, sub, true, false), out->has_tracked = true;
  snprintf(sub, sizeof sub, "%s.assigned", what);
  if (st == LFA_OK && assigned) st = check_assigned(out, c, assigned, sub);
  return st;
}

/* ---- parsing: steps ------------------------------------------------------------------------ */

static const op_form *find_op(const char *name) {
  for (size_t i = 1; i < N_OPS; i++) /* OPS[0], create, is the setup's */
    if (strcmp(OPS[i].name, name) == 0) return &OPS[i];
  return NULL;
}

static int request_key(const lfa_json_member *m) {
  for (int k = 0; k < N_REQUEST_KEYS; k++)
    if (strlen(REQUEST_KEYS[k]) == m->key_length && memcmp(REQUEST_KEYS[k], m->key, m->key_length) == 0) return k;
  return -1;
}

/* A step number (read_step, to_step): 0 is the setup. Whether it names an
 * earlier step that commits is checked once every step is read
 * (earlier_steps). */
static lfa_status step_number(size_t *out, ctx *c, const lfa_json *v, const char *what) {
  uint64_t n;
  lfa_status st = lfa_json_u64(&n, v, what, c->err);
  if (st == LFA_OK && n >= LFA_SCENARIO_HEAD)
    st = lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s: %" PRIu64 " is no step", what, n);
  if (st == LFA_OK) *out = (size_t)n;
  return st;
}

/* Reads request key `bit` of a step into its lfa_request. */
static lfa_status request_value(lfa_request *q, size_t *to_step, ctx *c, const op_form *form, unsigned bit,
                                const lfa_json *v, const char *what) {
  lfa_error *e = c->err;
  switch (bit) {
    case K_NEW_FIELDS: return new_fields(q, c, v, what);
    case K_WITH_DATA: return lfa_json_bool(&q->with_data, v, what, e);
    case K_ROWS: return key_list(&q->rows, c, v, what, false);
    case K_INSERTS: return key_list(&q->inserts, c, v, what, false);
    case K_ROWS_PER_FILE: return lfa_json_u64(&q->rows_per_file, v, what, e);
    case K_FIELDS:
      return form->fields_supplied ? supplied_list(&q->fields, c, v, what)
                                   : name_list(&q->fields, c, v, what, false, false);
    case K_INVALIDATE: return name_list(&q->invalidate, c, v, what, false, false);
    case K_REWRITE_COLUMNS: return lfa_json_bool(&q->rewrite_columns, v, what, e);
    case K_ON_ROW_ID: return lfa_json_bool(&q->on_row_id, v, what, e);
    case K_DELETE_MATCHED: return lfa_json_bool(&q->delete_matched, v, what, e);
    case K_FIELD: return text(&q->field, c, v, what, true);
    case K_ASSIGNMENT: return assignment(&q->assignment, c, v, what, false);
    case K_NEW_NAME: return text(&q->new_name, c, v, what, true);
    case K_NEW_TYPE: return text(&q->new_type, c, v, what, true);
    case K_NULLABLE: return lfa_json_bool(&q->nullable, v, what, e);
    case K_FRAGMENT_ID: return lfa_json_u64(&q->fragment_id, v, what, e);
    case K_VERSION: return lfa_json_u64(&q->version, v, what, e);
    case K_DEEP: return lfa_json_bool(&q->deep, v, what, e);
    case K_TO_STEP: return step_number(to_step, c, v, what);
    default: return lfa_json_fail(e, LFA_ERR_FORMAT, v, "%s: no such request key", what);
  }
}

static lfa_status expect_value(lfa_scenario_step *out, ctx *c, const lfa_json *v, const char *what) {
  const char *s;
  lfa_status st = lfa_json_string(&s, v, what, c->err);
  if (st != LFA_OK) return st;
  if (strcmp(s, "ok") == 0) out->expect = LFA_SCENARIO_OK;
  else if (strcmp(s, "refused") == 0) out->expect = LFA_SCENARIO_REFUSED;
  else if (strcmp(s, "conflict") == 0) out->expect = LFA_SCENARIO_CONFLICT;
  else
    return lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s must be \"ok\", \"refused\" or \"conflict\", not \"%.32s\"",
                         what, s);
  return LFA_OK;
}

/* The keys every step may carry: op (read already), read_step, expect,
 * expect_rule, check, note. */
static lfa_status step_value(lfa_scenario_step *out, ctx *c, const lfa_json_member *m, const char *what) {
  const char *k = m->key;
  if (strcmp(k, "op") == 0) return LFA_OK;
  if (strcmp(k, "expect") == 0) return expect_value(out, c, &m->value, what);
  if (strcmp(k, "expect_rule") == 0) return rule_id(&out->expect_rule, c, &m->value, what);
  if (strcmp(k, "note") == 0) return text(&out->note, c, &m->value, what, false);
  if (strcmp(k, "check") == 0) {
    out->has_check = true;
    return parse_check(&out->check, c, &m->value, what);
  }
  return step_number(&out->read_step, c, &m->value, what); /* read_step */
}

/* One member of a step: a step key, or a request key its op takes. */
static lfa_status step_member(lfa_scenario_step *out, unsigned *seen, ctx *c, const op_form *form,
                              const lfa_json_member *m, const char *step) {
  char what[160];
  snprintf(what, sizeof what, "%s.%.64s", step, m->key);
  for (size_t k = 0; k < sizeof STEP_KEYS / sizeof STEP_KEYS[0]; k++)
    if (strlen(STEP_KEYS[k]) == m->key_length && memcmp(STEP_KEYS[k], m->key, m->key_length) == 0)
      return step_value(out, c, m, what);
  int k = request_key(m);
  if (k >= 0 && (form->keys & 1u << k)) {
    *seen |= 1u << k;
    return request_value(&out->request, &out->to_step, c, form, 1u << k, &m->value, what);
  }
  char list[512];
  sink s = {list, sizeof list, 0};
  sink_names(&s, STEP_KEYS, sizeof STEP_KEYS / sizeof STEP_KEYS[0]);
  for (int b = 0; b < N_REQUEST_KEYS; b++)
    if (form->keys & 1u << b) sink_put(&s, ", %s", REQUEST_KEYS[b]);
  if (k >= 0)
    return lfa_fail(c->err, LFA_ERR_FORMAT, NULL,
                    "line %" PRIu32 ", column %" PRIu32 ": %s: %s does not take \"%s\" (it takes: %s)", m->line,
                    m->column, step, form->name, REQUEST_KEYS[k], list);
  return lfa_fail(c->err, LFA_ERR_FORMAT, NULL,
                  "line %" PRIu32 ", column %" PRIu32 ": %s: unknown key \"%.64s\" (%s takes: %s)", m->line, m->column,
                  step, m->key, form->name, list);
}

static lfa_status parse_step(lfa_scenario_step *out, ctx *c, const lfa_json *v, size_t index) {
  char step[48], what[64];
  snprintf(step, sizeof step, "steps[%zu]", index);
  snprintf(what, sizeof what, "%s.op", step);
  memset(out, 0, sizeof *out);
  out->line = v->line;
  out->read_step = out->to_step = LFA_SCENARIO_HEAD;
  lfa_status st = lfa_json_want(v, LFA_JSON_OBJECT, step, c->err);
  const lfa_json *op = st == LFA_OK ? lfa_json_find(v, "op") : NULL;
  if (st == LFA_OK && op == NULL) return lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s needs \"op\"", step);
  const char *name = NULL;
  if (st == LFA_OK) st = lfa_json_string(&name, op, what, c->err);
  const op_form *form = st == LFA_OK ? find_op(name) : NULL;
  if (st == LFA_OK && form == NULL) {
    char list[512];
    sink s = {list, sizeof list, 0};
    for (size_t i = 1; i < N_OPS; i++) sink_put(&s, "%s%s", i > 1 ? ", " : "", OPS[i].name);
    return lfa_json_fail(c->err, LFA_ERR_FORMAT, op, "%s: unknown operation \"%.64s\" (known: %s)", what, name, list);
  }
  if (st != LFA_OK) return st;
  out->request.op = form->op;
  unsigned seen = 0;
  for (size_t i = 0; st == LFA_OK && i < v->count; i++) st = step_member(out, &seen, c, form, &v->members[i], step);
  for (int b = 0; st == LFA_OK && b < N_REQUEST_KEYS; b++)
    if ((form->required & 1u << b) && !(seen & 1u << b))
      st = lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s: %s needs \"%s\"", step, form->name, REQUEST_KEYS[b]);
  if (st == LFA_OK && out->expect_rule != NULL && out->expect == LFA_SCENARIO_OK)
    st = lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "%s: \"expect_rule\" needs \"expect\": \"refused\" or \"conflict\"",
                       step);
  if (st == LFA_OK && form->op == LFA_OP_RESTORE && !(seen & K_VERSION) == !(seen & K_TO_STEP))
    st = lfa_json_fail(c->err, LFA_ERR_FORMAT, v,
                       "%s: restore needs exactly one of \"to_step\" (the version a step committed) or \"version\" (a "
                       "number, for a version that does not exist)",
                       step);
  return st;
}

/* A step named by number (read_step, to_step) is an earlier one, and one
 * expected to commit: a refused step commits no version to name. */
static lfa_status earlier_step(ctx *c, const lfa_scenario *s, size_t i, size_t named, const lfa_json *v,
                               const char *key) {
  const lfa_json *at = lfa_json_find(v, key);
  if (named == LFA_SCENARIO_HEAD || at == NULL) return LFA_OK;
  if (named >= i)
    return lfa_json_fail(c->err, LFA_ERR_FORMAT, at,
                         "steps[%zu].%s: %zu is not an earlier step (this is step %zu; 0 is the setup)", i - 1, key,
                         named, i);
  if (s->steps[named].expect != LFA_SCENARIO_OK)
    return lfa_json_fail(c->err, LFA_ERR_FORMAT, at,
                         "steps[%zu].%s: step %zu is expected to be %s, so it commits no version to name", i - 1, key,
                         named, lfa_scenario_outcome_name(s->steps[named].expect));
  return LFA_OK;
}

/* The setup is the create request: the schema, the row-id mode, the
 * initial rows and the fields they supply. */
static lfa_status parse_setup(lfa_scenario_step *out, ctx *c, const lfa_json *v) {
  static const char *const KEYS[] = {"stable_row_ids", "fields", "rows", "supplied", "rows_per_fragment", "check"};
  memset(out, 0, sizeof *out);
  out->request.op = LFA_OP_CREATE;
  out->read_step = out->to_step = LFA_SCENARIO_HEAD;
  out->line = v->line;
  lfa_status st = lfa_json_want(v, LFA_JSON_OBJECT, "setup", c->err);
  if (st == LFA_OK) st = known_keys(c, v, "setup", KEYS, sizeof KEYS / sizeof KEYS[0]);
  const lfa_json *stable = lfa_json_find(v, "stable_row_ids"), *fields = lfa_json_find(v, "fields"),
                 *rows = lfa_json_find(v, "rows"), *supplied = lfa_json_find(v, "supplied"),
                 *per = lfa_json_find(v, "rows_per_fragment"), *check = lfa_json_find(v, "check");
  if (st == LFA_OK && fields == NULL) return lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "setup needs \"fields\"");
  lfa_request *q = &out->request;
  if (st == LFA_OK && stable) st = lfa_json_bool(&q->stable_row_ids, stable, "setup.stable_row_ids", c->err);
  if (st == LFA_OK) st = new_fields(q, c, fields, "setup.fields");
  if (st == LFA_OK && rows) st = key_list(&q->rows, c, rows, "setup.rows", false);
  if (st == LFA_OK && supplied) st = supplied_list(&q->fields, c, supplied, "setup.supplied");
  if (st == LFA_OK && per) st = lfa_json_u64(&q->rows_per_file, per, "setup.rows_per_fragment", c->err);
  if (st == LFA_OK && check) {
    out->has_check = true;
    st = parse_check(&out->check, c, check, "setup.check");
  }
  return st;
}

/* name: lowercase letters, digits and '_', so that it can name its file. */
static lfa_status scenario_name(const char **out, ctx *c, const lfa_json *v) {
  lfa_status st = text(out, c, v, "name", true);
  if (st == LFA_OK && (*out)[strspn(*out, "abcdefghijklmnopqrstuvwxyz0123456789_")] != '\0')
    st =
        lfa_json_fail(c->err, LFA_ERR_FORMAT, v, "name must be lowercase letters, digits and '_', not \"%.64s\"", *out);
  return st;
}

static lfa_status parse_top(lfa_scenario *out, ctx *c, const lfa_json *root) {
  static const char *const KEYS[] = {"name", "description", "requirements", "setup", "steps"};
  lfa_status st = lfa_json_want(root, LFA_JSON_OBJECT, "the scenario", c->err);
  if (st == LFA_OK) st = known_keys(c, root, "the scenario", KEYS, sizeof KEYS / sizeof KEYS[0]);
  for (size_t k = 0; st == LFA_OK && k < sizeof KEYS / sizeof KEYS[0]; k++)
    if (lfa_json_find(root, KEYS[k]) == NULL)
      return lfa_json_fail(c->err, LFA_ERR_FORMAT, root, "the scenario needs \"%s\"", KEYS[k]);
  const lfa_json *reqs = lfa_json_find(root, "requirements"), *steps = lfa_json_find(root, "steps");
  if (st == LFA_OK) st = scenario_name(&out->name, c, lfa_json_find(root, "name"));
  if (st == LFA_OK) st = text(&out->description, c, lfa_json_find(root, "description"), "description", true);
  if (st == LFA_OK) st = name_list(&out->requirements, c, reqs, "requirements", true, true);
  if (st == LFA_OK && out->requirements.count == 0)
    st = lfa_json_fail(c->err, LFA_ERR_FORMAT, reqs, "requirements must name at least one requirement id");
  if (st == LFA_OK) st = lfa_json_want(steps, LFA_JSON_ARRAY, "steps", c->err);
  if (st != LFA_OK) return st;
  out->steps = lfa_arena_array(c->arena, steps->count + 1, sizeof *out->steps);
  if (out->steps == NULL) return nomem(c);
  st = parse_setup(&out->steps[0], c, lfa_json_find(root, "setup"));
  for (size_t i = 0; st == LFA_OK && i < steps->count; i++) {
    st = parse_step(&out->steps[i + 1], c, &steps->items[i], i);
    if (st == LFA_OK) st = earlier_step(c, out, i + 1, out->steps[i + 1].read_step, &steps->items[i], "read_step");
    if (st == LFA_OK) st = earlier_step(c, out, i + 1, out->steps[i + 1].to_step, &steps->items[i], "to_step");
  }
  out->n_steps = st == LFA_OK ? steps->count + 1 : 0;
  return st;
}

lfa_status lfa_scenario_parse(lfa_scenario *out, const lfa_json *root, lfa_error *err) {
  memset(out, 0, sizeof *out);
  ctx c = {&out->arena, err};
  lfa_status st = parse_top(out, &c, root);
  if (st == LFA_OK) st = lfa_arena_check(&out->arena, err);
  if (st != LFA_OK) lfa_scenario_free(out);
  return st;
}

lfa_status lfa_scenario_load(lfa_scenario *out, const char *path, lfa_error *err) {
  memset(out, 0, sizeof *out);
  lfa_buf bytes;
  lfa_json_doc doc;
  lfa_status st = lfa_fs_read(&bytes, path, LFA_JSON_DOCUMENT_BYTES_MAX, err);
  if (st != LFA_OK) return st; /* the message names the path */
  st = lfa_json_parse(&doc, bytes.data, bytes.len, err);
  if (st == LFA_OK) st = lfa_scenario_parse(out, doc.root, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", path);
  lfa_json_free(&doc);
  lfa_buf_free(&bytes);
  return st;
}

void lfa_scenario_free(lfa_scenario *s) {
  lfa_arena_free(&s->arena);
  memset(s, 0, sizeof *s);
}

void lfa_scenario_step_label(char *out, size_t cap, const lfa_scenario *s, size_t step) {
  const lfa_scenario_step *st = &s->steps[step];
  if (step == 0) snprintf(out, cap, "setup (create, line %" PRIu32 ")", st->line);
  else snprintf(out, cap, "step %zu (%s, line %" PRIu32 ")", step, lfa_scenario_op_name(st->request.op), st->line);
}

/* ---- observing a snapshot ---------------------------------------------------------------- */

/* "payload.value": the names from the top level down (parents first). */
static char *field_path(lfa_arena *arena, const lfa_table *t, int32_t id) {
  const lfa_field *chain[64];
  size_t n = 0, len = 0;
  for (const lfa_field *f = lfa_table_field(t, id); f != NULL && n < 64;
       f = f->parent_id >= 0 ? lfa_table_field(t, f->parent_id) : NULL) {
    chain[n++] = f;
    len += strlen(f->name) + 1;
  }
  char *path = lfa_arena_alloc(arena, len + 1);
  if (path == NULL) return NULL;
  for (size_t i = n; i-- > 0;) {
    if (i + 1 < n) strcat(path, ".");
    strcat(path, chain[i]->name);
  }
  return path;
}

/* The keys of the live rows of `t`, ascending; with `state`, only those
 * assigned for it. */
static lfa_status live_keys(lfa_keys *out, lfa_arena *arena, const lfa_table *t, const lfa_field_state *state,
                            lfa_error *err) {
  size_t n = 0, cap = 0;
  for (size_t i = 0; i < t->n_fragments; i++) cap += (size_t)t->fragments[i].physical_rows;
  uint64_t *keys = lfa_arena_array(arena, cap + 1, sizeof *keys);
  if (keys == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < t->n_fragments; i++) {
    const lfa_fragment *f = &t->fragments[i];
    if (f->keys == NULL && f->physical_rows > 0)
      return lfa_fail(err, LFA_ERR_USAGE, NULL, "fragment %" PRIu64 " has no logical keys: its rows cannot be named",
                      f->id);
    for (uint32_t o = 0; o < f->physical_rows; o++)
      if (lfa_fragment_is_live(f, o) && (state == NULL || lfa_cell_contains(&state->cells[i], o)))
        keys[n++] = f->keys[o];
  }
  qsort(keys, n, sizeof *keys, by_u64);
  for (size_t i = 1; i < n; i++)
    if (keys[i] == keys[i - 1])
      return lfa_fail(err, LFA_ERR_RULE, NULL, "key %" PRIu64 " names two live rows", keys[i]);
  *out = (lfa_keys){n, keys};
  return LFA_OK;
}

lfa_status lfa_scenario_observe(lfa_scenario_check *out, lfa_arena *arena, const lfa_table *t, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->has_live = out->has_tracked = true;
  const char **paths = lfa_arena_array(arena, t->n_tracked + 1, sizeof *paths);
  out->assigned = lfa_arena_array(arena, t->n_tracked + 1, sizeof *out->assigned);
  if (paths == NULL || out->assigned == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  lfa_status st = live_keys(&out->live, arena, t, NULL, err);
  for (size_t s = 0; st == LFA_OK && s < t->n_tracked; s++) {
    lfa_scenario_assigned *a = &out->assigned[s];
    a->path = paths[s] = field_path(arena, t, t->tracked[s].field_id);
    st = a->path ? live_keys(&a->keys, arena, t, &t->tracked[s], err)
                 : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    out->n_assigned = s + 1;
  }
  out->tracked = (lfa_names_list){st == LFA_OK ? t->n_tracked : 0, paths};
  return st;
}

/* The key map's entry for fragment `id`, or NULL. */
static const lfa_scenario_fragment_keys *map_entry(const lfa_scenario_fragment_keys *map, size_t n, uint64_t id) {
  for (size_t i = 0; i < n; i++)
    if (map[i].id == id) return &map[i];
  return NULL;
}

/* Gives every fragment read from disk the keys the writer's map holds for
 * it: the reader's rows, the writer's names. */
static lfa_status name_rows(lfa_table *disk, const lfa_scenario_fragment_keys *map, size_t n, lfa_error *err) {
  for (size_t i = 0; i < disk->n_fragments; i++) {
    lfa_fragment *f = &disk->fragments[i];
    const lfa_scenario_fragment_keys *m = map_entry(map, n, f->id);
    if (m == NULL || m->keys.count != f->physical_rows)
      return lfa_fail(err, LFA_ERR_RULE, NULL,
                      "fragment %" PRIu64 " on disk has %" PRIu64 " rows; the writer's key map %s", f->id,
                      f->physical_rows, m == NULL ? "does not name it" : "gives it another number of keys");
    if (f->physical_rows == 0) continue;
    f->keys = malloc((size_t)f->physical_rows * sizeof *f->keys);
    if (f->keys == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    memcpy(f->keys, m->keys.keys, (size_t)f->physical_rows * sizeof *f->keys);
  }
  return LFA_OK;
}

lfa_status lfa_scenario_observe_disk(lfa_scenario_check *out, lfa_arena *arena, const lfa_fs *fs, const char *dir,
                                     uint64_t version, const lfa_scenario_fragment_keys *map, size_t n_map,
                                     lfa_error *err) {
  lfa_table disk;
  lfa_status st = lfa_table_load_version(&disk, fs, dir, version, err);
  if (st != LFA_OK) return lfa_error_prefix(err, "version %" PRIu64, version), lfa_error_at_version(err, version), st;
  st = name_rows(&disk, map, n_map, err);
  if (st == LFA_OK) st = lfa_scenario_observe(out, arena, &disk, err);
  lfa_table_free(&disk);
  if (st != LFA_OK) lfa_error_prefix(err, "version %" PRIu64, version), lfa_error_at_version(err, version);
  return st;
}

lfa_status lfa_scenario_key_map(lfa_scenario_fragment_keys **out, size_t *n, lfa_arena *arena, const lfa_table *t,
                                lfa_error *err) {
  *out = lfa_arena_array(arena, t->n_fragments + 1, sizeof **out), *n = 0;
  if (*out == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < t->n_fragments; i++) {
    const lfa_fragment *f = &t->fragments[i];
    if (f->keys == NULL && f->physical_rows > 0)
      return lfa_fail(err, LFA_ERR_USAGE, NULL, "fragment %" PRIu64 " has no logical keys: its rows cannot be named",
                      f->id);
    (*out)[(*n)++] = (lfa_scenario_fragment_keys){f->id, {(size_t)f->physical_rows, f->keys}};
  }
  return LFA_OK;
}

/* ---- comparing ----------------------------------------------------------------------------- */

/* The words a comparison's messages use for its two sides. */
typedef struct sides {
  const char *want, *got;    /* "expected", "got" */
  const char *not_in_got;    /* a tracked path only `want` lists */
  const char *not_in_want;   /* a tracked path only `got` lists */
} sides;

static const sides CHECK_SIDES = {"expected", "got", "is not tracked", "is tracked, but the check does not list it"};
static const sides BYTES_SIDES = {"on disk", "its reader returned", "is tracked on disk, but its reader does not list it",
                                  "is not tracked on disk, but its reader lists it"};

/* Compares two ascending key sets; on a difference writes
 * `<what>: expected {..}, got {..} (missing {..}, unexpected {..})`. */
static bool keys_agree(sink *s, const sides *w, const char *what, const lfa_keys *want, const lfa_keys *got) {
  size_t i = 0, j = 0, n_missing = 0, n_extra = 0;
  uint64_t *missing = calloc(want->count + 1, sizeof *missing), *extra = calloc(got->count + 1, sizeof *extra);
  if (missing == NULL || extra == NULL) {
    free(missing), free(extra);
    sink_put(s, "%s%s: out of memory while comparing", s->used ? "; " : "", what);
    return false;
  }
  while (i < want->count || j < got->count) {
    if (j == got->count || (i < want->count && want->keys[i] < got->keys[j])) missing[n_missing++] = want->keys[i++];
    else if (i == want->count || got->keys[j] < want->keys[i]) extra[n_extra++] = got->keys[j++];
    else i++, j++;
  }
  bool same = n_missing == 0 && n_extra == 0;
  if (!same) {
    sink_put(s, "%s%s: %s ", s->used ? "; " : "", what, w->want);
    sink_keys(s, want->keys, want->count);
    sink_put(s, ", %s ", w->got);
    sink_keys(s, got->keys, got->count);
    sink_put(s, " (");
    if (n_missing) sink_put(s, "missing "), sink_keys(s, missing, n_missing);
    if (n_extra) sink_put(s, "%sunexpected ", n_missing ? ", " : ""), sink_keys(s, extra, n_extra);
    sink_put(s, ")");
  }
  free(missing);
  free(extra);
  return same;
}

static bool listed(const lfa_names_list *names, const char *name) {
  for (size_t i = 0; i < names->count; i++)
    if (strcmp(names->names[i], name) == 0) return true;
  return false;
}

/* The tracked fields, as sets of paths. */
static bool tracked_agree(sink *s, const sides *w, const lfa_names_list *want, const lfa_names_list *got) {
  bool same = true;
  for (size_t i = 0; i < want->count; i++)
    if (!listed(got, want->names[i]))
      sink_put(s, "%s\"%s\" %s", s->used ? "; " : "", want->names[i], w->not_in_got), same = false;
  for (size_t i = 0; i < got->count; i++)
    if (!listed(want, got->names[i]))
      sink_put(s, "%s\"%s\" %s", s->used ? "; " : "", got->names[i], w->not_in_want), same = false;
  return same;
}

static bool compare(char *diff, size_t cap, const sides *w, const lfa_scenario_check *want,
                    const lfa_scenario_check *got) {
  sink s = {diff, cap, 0};
  if (cap) diff[0] = '\0';
  bool same = true;
  if (want->has_live)
    same &= keys_agree(&s, w, "live", &want->live, got->has_live ? &got->live : &(lfa_keys){0, NULL});
  if (want->has_tracked)
    same &= tracked_agree(&s, w, &want->tracked, got->has_tracked ? &got->tracked : &(lfa_names_list){0, NULL});
  for (size_t i = 0; i < want->n_assigned; i++) {
    const lfa_scenario_assigned *a = &want->assigned[i], *g = NULL;
    for (size_t k = 0; k < got->n_assigned && g == NULL; k++)
      if (strcmp(got->assigned[k].path, a->path) == 0) g = &got->assigned[k];
    char what[96];
    snprintf(what, sizeof what, "assigned \"%.64s\"", a->path);
    if (g == NULL) sink_put(&s, "%s%s: the field %s", s.used ? "; " : "", what, w->not_in_got), same = false;
    else same &= keys_agree(&s, w, what, &a->keys, &g->keys);
  }
  return same;
}

bool lfa_scenario_compare(char *diff, size_t cap, const lfa_scenario_check *want, const lfa_scenario_check *got) {
  return compare(diff, cap, &CHECK_SIDES, want, got);
}

/* The parts of `got` that `want` states: what the bytes say about the
 * check's parts, to judge an observation by. `assigned` (want's count at
 * most) is the caller's. */
static void stated_parts(lfa_scenario_check *out, lfa_scenario_assigned *assigned, const lfa_scenario_check *want,
                         const lfa_scenario_check *got) {
  *out = (lfa_scenario_check){want->has_live, got->live, want->has_tracked, got->tracked, 0, assigned};
  for (size_t i = 0; i < want->n_assigned; i++)
    for (size_t k = 0; k < got->n_assigned; k++)
      if (strcmp(got->assigned[k].path, want->assigned[i].path) == 0) assigned[out->n_assigned++] = got->assigned[k];
}

/* Whether the observation agrees with the bytes on the parts the check
 * states; r->disagreement says how not. */
static void observation_against_bytes(lfa_scenario_result *r, const lfa_scenario_check *check,
                                      const lfa_scenario_check *observed, const lfa_scenario_check *on_disk) {
  lfa_scenario_check bytes;
  lfa_scenario_assigned *assigned = calloc(check->n_assigned + 1, sizeof *assigned);
  char diff[LFA_SCENARIO_FAILURE_MAX - 96];
  r->disagrees = true;
  if (assigned == NULL) {
    snprintf(r->disagreement, sizeof r->disagreement, "out of memory while comparing");
    return;
  }
  stated_parts(&bytes, assigned, check, on_disk);
  r->disagrees = !compare(diff, sizeof diff, &BYTES_SIDES, &bytes, observed);
  if (r->disagrees) snprintf(r->disagreement, sizeof r->disagreement, "version %" PRIu64 ": %s", r->head, diff);
  free(assigned);
}

/* ---- running ---------------------------------------------------------------------------------- */

/* Compares the step's outcome (and rule) with the expected one. */
static bool outcome_as_expected(lfa_scenario_result *r, const lfa_scenario_step *step) {
  sink s = {r->failure, sizeof r->failure, 0};
  const char *want = lfa_scenario_outcome_name(step->expect);
  if (r->outcome == step->expect) {
    if (r->outcome == LFA_SCENARIO_OK || step->expect_rule == NULL ||
        (r->rule && strcmp(r->rule, step->expect_rule) == 0))
      return true;
    sink_put(&s, "%s as expected, but under rule %s, not %s: %s", want, r->rule ? r->rule : "(none)", step->expect_rule,
             r->reason);
  } else if (r->outcome == LFA_SCENARIO_OK) {
    sink_put(&s, "expected %s%s%s, but it committed version %" PRIu64, want, step->expect_rule ? " under " : "",
             step->expect_rule ? step->expect_rule : "", r->head);
  } else {
    sink_put(&s, "expected %s, but it was %s%s%s%s: %s", step->expect == LFA_SCENARIO_OK ? "it to commit" : want,
             r->outcome == LFA_SCENARIO_REFUSED ? "refused" : "in conflict (retryable)", r->rule ? " [" : "",
             r->rule ? r->rule : "", r->rule ? "]" : "", r->reason);
  }
  return false;
}

void lfa_scenario_judge(lfa_scenario_result *r, const lfa_scenario_step *step, const lfa_scenario_check *observed,
                        const lfa_scenario_check *on_disk, const char *unreadable) {
  r->failure[0] = r->disagreement[0] = '\0';
  r->checked = r->disagrees = false;
  r->passed = outcome_as_expected(r, step);
  if (!r->passed || !step->has_check) return;
  r->checked = true;
  char diff[LFA_SCENARIO_FAILURE_MAX - 96];
  if (observed == NULL)
    snprintf(r->failure, sizeof r->failure, "check: nothing was observed (there is no version to check)");
  else if (on_disk == NULL && unreadable != NULL)
    snprintf(r->failure, sizeof r->failure, "on disk: lfa's reader cannot read what the writer wrote: %.900s", unreadable);
  if (r->failure[0] != '\0') {
    r->passed = false;
    return;
  }
  if (on_disk != NULL) observation_against_bytes(r, &step->check, observed, on_disk);
  /* The bytes first: they are what every other reader of the dataset sees. */
  if (on_disk != NULL && !lfa_scenario_compare(diff, sizeof diff, &step->check, on_disk))
    snprintf(r->failure, sizeof r->failure, "on disk: version %" PRIu64 ": %s", r->head, diff);
  else if (r->disagrees)
    snprintf(r->failure, sizeof r->failure, "the writer's reader disagrees with what it wrote: %.900s", r->disagreement);
  else if (on_disk == NULL && !lfa_scenario_compare(diff, sizeof diff, &step->check, observed))
    snprintf(r->failure, sizeof r->failure, "check of version %" PRIu64 ": %s", r->head, diff);
  r->passed = r->failure[0] == '\0';
}

void lfa_scenario_resolve(lfa_request *req, uint64_t *read_version, const lfa_scenario *s, size_t i,
                          const uint64_t *left) {
  const lfa_scenario_step *step = &s->steps[i];
  *req = step->request;
  *read_version = step->read_step < i ? left[step->read_step] : 0;
  if (step->to_step < i) req->version = left[step->to_step];
}

lfa_status lfa_scenario_check_parse(lfa_scenario_check *out, lfa_arena *arena, const lfa_json *v, const char *what,
                                    lfa_error *err) {
  ctx c = {arena, err};
  return parse_check(out, &c, v, what);
}

/* What the bytes of the head hold, read back from the writer's directory
 * with the history's own key map; NULL when the history writes nowhere.
 * A failure to read them is a verdict (`unreadable`), memory an error. */
static lfa_status head_on_disk(const lfa_scenario_check **out, lfa_scenario_check *state, char *unreadable, size_t cap,
                               lfa_arena *arena, const lfa_history *h, lfa_error *err) {
  lfa_scenario_fragment_keys *map;
  size_t n = 0;
  lfa_error e = {0};
  *out = NULL;
  if (h->writer == NULL) return LFA_OK;
  lfa_status st = lfa_scenario_key_map(&map, &n, arena, lfa_history_head(h), &e);
  if (st == LFA_OK) st = lfa_scenario_observe_disk(state, arena, lfa_writer_fs(h->writer), lfa_writer_dir(h->writer),
                                                   h->count, map, n, &e);
  if (st == LFA_ERR_NOMEM) return *err = e, st;
  if (st == LFA_OK) *out = state;
  else snprintf(unreadable, cap, "%s", e.msg);
  return LFA_OK;
}

static lfa_status run_step(lfa_scenario_result *r, lfa_history *h, const lfa_scenario *s, size_t i,
                           const uint64_t *left, lfa_error *err) {
  const lfa_scenario_step *step = &s->steps[i];
  char label[96];
  lfa_scenario_step_label(label, sizeof label, s, i);
  lfa_error e = {0};
  lfa_request req;
  uint64_t read_version;
  lfa_scenario_resolve(&req, &read_version, s, i, left);
  lfa_status st = lfa_history_apply(h, &req, read_version, &e);
  /* Refused: the request was turned down before anything was committed
   * (a planning error, or a rule the committer enforces). */
  if (st == LFA_OK) r->outcome = LFA_SCENARIO_OK;
  else if (st == LFA_ERR_USAGE || st == LFA_ERR_RULE) r->outcome = LFA_SCENARIO_REFUSED;
  else if (st == LFA_ERR_CONFLICT) r->outcome = LFA_SCENARIO_CONFLICT;
  else {
    if (err != NULL) *err = e;
    lfa_error_prefix(err, "%s", label);
    return st;
  }
  r->head = h->count;
  if (st != LFA_OK) {
    r->rule = e.rule;
    snprintf(r->reason, sizeof r->reason, "%s", e.msg);
  }
  /* the state after the step: the history's head by logical key, and what
   * its bytes hold, read back from disk */
  lfa_arena arena = {0};
  lfa_scenario_check got, bytes;
  const lfa_scenario_check *on_disk = NULL;
  char unreadable[LFA_ERROR_MSG_MAX] = "";
  const lfa_table *head = lfa_history_head(h);
  bool observe = step->has_check && head != NULL;
  st = observe ? lfa_scenario_observe(&got, &arena, head, err) : LFA_OK;
  if (st == LFA_OK && observe) st = head_on_disk(&on_disk, &bytes, unreadable, sizeof unreadable, &arena, h, err);
  if (st == LFA_OK)
    lfa_scenario_judge(r, step, observe ? &got : NULL, on_disk, on_disk == NULL && unreadable[0] ? unreadable : NULL);
  else lfa_error_prefix(err, "%s: check", label);
  lfa_arena_free(&arena);
  return st;
}

lfa_status lfa_scenario_run(lfa_scenario_report *out, lfa_history *h, const lfa_scenario *s, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->results = calloc(s->n_steps + 1, sizeof *out->results);
  uint64_t *left = calloc(s->n_steps + 1, sizeof *left); /* the head after each step */
  lfa_status st = out->results && left ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < s->n_steps; i++) {
    st = run_step(&out->results[i], h, s, i, left, err);
    out->n_results = i + 1, left[i] = h->count;
    if (st == LFA_OK && !out->results[i].passed) break;
    out->passed = st == LFA_OK && i + 1 == s->n_steps;
  }
  free(left);
  return st;
}

void lfa_scenario_report_free(lfa_scenario_report *r) {
  free(r->results);
  memset(r, 0, sizeof *r);
}
