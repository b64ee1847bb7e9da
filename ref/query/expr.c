/* expr.c: is_assigned(field) planned, bound and evaluated (lfa/expr.h),
 * in the order of spec/07-is-assigned.md: the argument's grammar
 * [FA-EXPR-2], its resolution against the snapshot's schema [FA-EXPR-3],
 * the planning errors [FA-EXPR-4] (all from the manifest, FA-EXPR-7), the
 * binding to one snapshot [FA-EXPR-10] that reads the root once and checks
 * it [FA-EXPR-8, FA-EXPR-9], and the evaluation over a scan, row by row or
 * pushed down [FA-EXPR-5, FA-EXPR-6, FA-EXPR-11]. The Substrait form is in
 * expr_substrait.c. */
#include "lfa/expr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/escape.h"
#include "lfa/fs.h"
#include "lfa/root.h"

/* How much of a hostile argument or name an error message quotes. */
enum { SHOWN_BYTES_MAX = LFA_TEXT_SHOWN_MAX };

/* How deep a field's chain of parents is followed when spelling its path. */
enum { PATH_DEPTH_MAX = 64 };

/* Columns a Lance scan offers besides the schema's fields: FA-EXPR-2 says
 * they are not fields. */
static const char *const SYSTEM_COLUMNS[] = {"_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version",
                                             "_row_last_updated_at_version"};

/* ---- quoting ---------------------------------------------------------------------- */

/* A short, escaped quotation of hostile input, so a message stays one
 * line (lfa/escape.h). */
static void shown(char out[SHOWN_BYTES_MAX + 4], const char *s, size_t len) {
  lfa_text_shown(out, SHOWN_BYTES_MAX + 4, s, len);
}

static bool bare_byte(unsigned char c, bool first) {
  if (c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return !first && c >= '0' && c <= '9';
}

/* The canonical spelling of a path of names in the reference grammar: a
 * name that is not bare is quoted ("" for a quote); its bytes are kept as
 * they are (every output escapes them). Cut at `cap` (at least 1). */
static void spell(char *out, size_t cap, const char *const *names, size_t n) {
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n && len + 1 < cap; i++) {
    const char *name = names[i] ? names[i] : "";
    bool bare = name[0] != '\0';
    for (const char *c = name; *c; c++) bare = bare && bare_byte((unsigned char)*c, c == name);
    if (i > 0) out[len++] = '.';
    if (!bare && len + 1 < cap) out[len++] = '"';
    for (const char *c = name; *c && len + 2 < cap; c++) {
      if (*c == '"') out[len++] = '"';
      out[len++] = *c;
    }
    if (!bare && len + 1 < cap) out[len++] = '"';
    out[len] = '\0';
  }
}

/* spell(), then shortened for a message. */
static void spell_shown(char out[SHOWN_BYTES_MAX + 4], const char *const *names, size_t n) {
  char full[SHOWN_BYTES_MAX * 2];
  spell(full, sizeof full, names, n);
  shown(out, full, strlen(full));
}

static bool same_ignoring_ascii_case(const char *a, const char *b) {
  for (;; a++, b++) {
    unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
    if (x >= 'A' && x <= 'Z') x = (unsigned char)(x + 32);
    if (y >= 'A' && y <= 'Z') y = (unsigned char)(y + 32);
    if (x != y) return false;
    if (x == '\0') return true;
  }
}

/* The length of `text`, refused past LFA_EXPR_TEXT_BYTES_MAX. */
static lfa_status text_length(size_t *out, const char *text, lfa_error *err) {
  *out = 0;
  while (*out <= LFA_EXPR_TEXT_BYTES_MAX && text[*out] != '\0') (*out)++;
  if (*out > LFA_EXPR_TEXT_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "is_assigned argument text exceeds %u bytes",
                    (unsigned)LFA_EXPR_TEXT_BYTES_MAX);
  return LFA_OK;
}

/* ---- the reference grammar [FA-EXPR-2] ---------------------------------------- */

static lfa_status not_a_reference(const char *arg, const char *why, lfa_error *err) {
  char a[SHOWN_BYTES_MAX + 4];
  shown(a, arg, strlen(arg));
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4",
                  "is_assigned requires a direct field reference (FA-EXPR-2), got '%s': %s", a, why);
}

/* Why the byte at `at` cannot be where it is. */
static lfa_status unexpected(const char *arg, const char *at, lfa_error *err) {
  char why[96];
  if (*at == '\0') snprintf(why, sizeof why, "a name is missing at the end");
  else if (*at >= '0' && *at <= '9' && (at == arg || at[-1] == '.'))
    snprintf(why, sizeof why, "a name does not start with a digit (a literal is not a field)");
  else if ((unsigned char)*at < 0x20 || *at == 0x7F)
    snprintf(why, sizeof why, "control byte 0x%02x at byte %zu", (unsigned)(unsigned char)*at, (size_t)(at - arg));
  else snprintf(why, sizeof why, "unexpected '%c' at byte %zu", *at, (size_t)(at - arg));
  return not_a_reference(arg, why, err);
}

/* Reads the segment at *p into `out` (NUL-terminated, *len bytes) and
 * moves *p past it. A quoted segment is "..." with "" for a quote. */
static lfa_status read_segment(char *out, size_t *len, const char **p, const char *arg, lfa_error *err) {
  const char *s = *p;
  size_t n = 0;
  if (*s == '"') {
    for (s++; s[0] != '"' || s[1] == '"'; s++) {
      if (*s == '\0') return not_a_reference(arg, "a double quote is not closed", err);
      if (*s == '"') s++; /* "" stands for one quote */
      out[n++] = *s;
    }
    s++;
    if (n == 0) return not_a_reference(arg, "a quoted name is empty", err);
  } else {
    while (bare_byte((unsigned char)*s, n == 0)) out[n++] = *s++;
    if (n == 0) return unexpected(arg, s, err);
  }
  out[n] = '\0';
  *len = n;
  *p = s;
  return LFA_OK;
}

/* A reference split into its names; names[i] point into buf. */
typedef struct ref_names {
  char *buf;
  const char **names;
  size_t n;
} ref_names;

static void ref_names_free(ref_names *r) {
  free(r->buf);
  free(r->names);
  memset(r, 0, sizeof *r);
}

static bool is_system_column(const char *name) {
  for (size_t i = 0; i < sizeof SYSTEM_COLUMNS / sizeof SYSTEM_COLUMNS[0]; i++)
    if (same_ignoring_ascii_case(name, SYSTEM_COLUMNS[i])) return true;
  return false;
}

/* The whole argument is checked before any name is looked up, so `nope + 1`
 * is "not a reference", not "unknown field". A segment takes at least one
 * byte and a separator, so there are at most (len + 1) / 2 of them. */
static lfa_status split_reference(ref_names *out, const char *arg, size_t len, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (len == 0) return not_a_reference(arg, "the name is empty", err);
  out->buf = malloc(len + 1);
  out->names = malloc(((len + 1) / 2 + 1) * sizeof *out->names);
  if (out->buf == NULL || out->names == NULL) {
    ref_names_free(out);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  size_t used = 0;
  for (const char *p = arg;; p++) {
    size_t n = 0;
    lfa_status st = read_segment(out->buf + used, &n, &p, arg, err);
    if (st == LFA_OK && *p != '\0' && *p != '.') st = unexpected(arg, p, err);
    if (st != LFA_OK) {
      ref_names_free(out);
      return st;
    }
    out->names[out->n++] = out->buf + used;
    used += n + 1;
    if (*p == '\0') return LFA_OK;
  }
}

/* ---- resolution against the snapshot's schema [FA-EXPR-3] --------------------- */

/* Names[0..n) could not be resolved at names[head]. */
static lfa_status unknown_field(const char *const *names, size_t n, size_t head, bool ambiguous, lfa_error *err) {
  char a[SHOWN_BYTES_MAX + 4], h[SHOWN_BYTES_MAX + 4];
  spell_shown(a, names, n);
  spell_shown(h, names, head);
  if (ambiguous)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4",
                    "is_assigned references ambiguous field '%s': no name matches exactly, several ignoring case", a);
  if (head == 0) return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references unknown field '%s'", a);
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references unknown field '%s' ('%s' has no such child)",
                  a, h);
}

/* The child of `parent` (-1: the top level) called names[i]: an exact
 * match first, else the only one equal ignoring ASCII case, as an ordinary
 * column reference resolves. */
static lfa_status find_child(int32_t *out, const Lance__Table__Manifest *m, int32_t parent, const char *const *names,
                             size_t n, size_t i, lfa_error *err) {
  size_t folded = 0;
  for (size_t k = 0; k < m->n_fields; k++) {
    const Lance__File__Field *f = m->fields[k];
    if (f->parent_id != parent || f->name == NULL) continue;
    if (strcmp(f->name, names[i]) == 0) {
      *out = f->id;
      return LFA_OK;
    }
    if (same_ignoring_ascii_case(f->name, names[i]) && folded++ == 0) *out = f->id;
  }
  if (folded == 1) return LFA_OK;
  return unknown_field(names, n, i, folded > 1, err);
}

static lfa_status resolve(int32_t *field_id, const Lance__Table__Manifest *m, const char *const *names, size_t n,
                          lfa_error *err) {
  int32_t parent = -1;
  for (size_t i = 0; i < n; i++) {
    lfa_status st = find_child(&parent, m, parent, names, n, i, err);
    if (st != LFA_OK) return st;
  }
  *field_id = parent;
  return LFA_OK;
}

/* Records the resolved field and the snapshot it was resolved against. */
static lfa_status make_plan(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap, int32_t field_id,
                            lfa_error *err) {
  out->field_id = field_id;
  out->version = snap->version;
  int n = snprintf(out->dataset, sizeof out->dataset, "%s", dataset);
  if (n < 0 || (size_t)n >= sizeof out->dataset)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "dataset path exceeds %u bytes", (unsigned)LFA_PATH_BYTES_MAX);
  return LFA_OK;
}

/* [FA-EXPR-4] item 4: a field the snapshot does not track. */
static lfa_status untracked(const char *const *names, size_t n, int32_t field_id, lfa_error *err) {
  char a[SHOWN_BYTES_MAX + 4];
  spell_shown(a, names, n);
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references untracked field '%s' (stable field id %d)",
                  a, field_id);
}

/* A path qualified by the scanned relation, `tbl.col`: the qualifier is
 * tried first when it names the relation and the rest resolves, as engines
 * resolve a compound name; otherwise the whole path is a field path. */
static lfa_status plan_names(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                             const char *const *names, size_t n, const char *relation, lfa_error *err) {
  const Lance__Table__Manifest *m = snap->file.manifest;
  int32_t id = -1;
  bool qualified = relation != NULL && n >= 2 && (strcmp(names[0], relation) == 0 ||
                                                  same_ignoring_ascii_case(names[0], relation));
  if (!qualified || resolve(&id, m, names + 1, n - 1, NULL) != LFA_OK) {
    lfa_status st = resolve(&id, m, names, n, err);
    if (st != LFA_OK) return st;
  }
  if (lfa_snapshot_tracked(snap, id) == SIZE_MAX) return untracked(names, n, id, err);
  return make_plan(out, dataset, snap, id, err);
}

/* ---- planning [FA-EXPR-4]: from the manifest alone [FA-EXPR-7] ----------------- */

lfa_status lfa_expr_plan_reference(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                   const char *ref, const char *relation, lfa_error *err) {
  memset(out, 0, sizeof *out);
  size_t len;
  ref_names r;
  lfa_status st = text_length(&len, ref, err);
  if (st == LFA_OK) st = split_reference(&r, ref, len, err);
  if (st != LFA_OK) return st;
  bool qualifier = relation != NULL && r.n == 2 &&
                   (strcmp(r.names[0], relation) == 0 || same_ignoring_ascii_case(r.names[0], relation));
  if ((r.n == 1 && is_system_column(r.names[0])) || (qualifier && is_system_column(r.names[1])))
    st = not_a_reference(ref, "a system column is not a field", err);
  if (st == LFA_OK) st = plan_names(out, dataset, snap, r.names, r.n, relation, err);
  ref_names_free(&r);
  return st;
}

lfa_status lfa_expr_plan_path(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                              const char *const *names, size_t n, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (n == 0) return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned requires a field reference, got none");
  return plan_names(out, dataset, snap, names, n, NULL, err);
}

lfa_status lfa_expr_plan_field_id(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                  int32_t field_id, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (lfa_snapshot_field(snap, field_id) == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references unknown field id %d", field_id);
  if (lfa_snapshot_tracked(snap, field_id) == SIZE_MAX) {
    char path[SHOWN_BYTES_MAX * 2], a[SHOWN_BYTES_MAX + 4];
    lfa_expr_field_path(path, sizeof path, snap, field_id);
    shown(a, path, strlen(path));
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4",
                    "is_assigned references untracked field '%s' (stable field id %d)", a, field_id);
  }
  return make_plan(out, dataset, snap, field_id, err);
}

/* ---- the call text [FA-EXPR-1] ------------------------------------------------- */

static const char *skip_spaces(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* The arguments between the parentheses that open at `open`: their count
 * (commas at depth 0, outside quotes), the first one's bounds, and where
 * the closing parenthesis is (NULL when it is missing). */
typedef struct call_args {
  size_t count;
  const char *first, *first_end;
  const char *close;
} call_args;

static call_args split_args(const char *open) {
  call_args a = {0, open + 1, NULL, NULL};
  size_t depth = 0;
  bool any = false;
  for (const char *p = open + 1; *p; p++) {
    if (*p == '"' || *p == '\'') { /* a quoted name or string; doubled quotes stay inside */
      char q = *p;
      for (p++; *p && (*p != q || p[1] == q); p++)
        if (*p == q) p++;
      if (*p == '\0') return a;
      any = true;
    } else if (*p == '(') {
      depth++;
    } else if (*p == ')' && depth > 0) {
      depth--;
    } else if (*p == ')' || (*p == ',' && depth == 0)) {
      if (a.count == 0) a.first_end = p;
      if (*p == ',' || any || a.count > 0) a.count++; /* `f()` has none, `f(a,)` two */
      if (*p == ')') {
        a.close = p;
        return a;
      }
      any = false;
      continue;
    }
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') any = true;
  }
  return a;
}

lfa_status lfa_expr_plan_call(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap, const char *call,
                              const char *relation, lfa_error *err) {
  memset(out, 0, sizeof *out);
  size_t len;
  lfa_status st = text_length(&len, call, err);
  if (st != LFA_OK) return st;
  char c[SHOWN_BYTES_MAX + 4];
  shown(c, call, len);
  const char *name = skip_spaces(call), *p = name;
  while (bare_byte((unsigned char)*p, p == name) && (unsigned char)*p < 0x80) p++;
  size_t name_len = (size_t)(p - name);
  /* [FA-EXPR-1] the name is matched without regard to case */
  char got[sizeof LFA_EXPR_FUNCTION];
  if (name_len != strlen(LFA_EXPR_FUNCTION))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "'%s' is not a call of is_assigned", c);
  memcpy(got, name, name_len);
  got[name_len] = '\0';
  if (!same_ignoring_ascii_case(got, LFA_EXPR_FUNCTION))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "'%s' is not a call of is_assigned", c);
  p = skip_spaces(p);
  call_args a = *p == '(' ? split_args(p) : (call_args){0, NULL, NULL, NULL};
  if (a.close == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "'%s' is not a call of is_assigned: unbalanced parentheses or quotes", c);
  if (*skip_spaces(a.close + 1) != '\0')
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "'%s': is_assigned(...) is planned alone, text follows it", c);
  /* [FA-EXPR-4] item 1, [FA-EXPR-1]: exactly one argument */
  if (a.count != 1)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4",
                    "is_assigned takes exactly one argument (FA-EXPR-1), got %zu in '%s'", a.count, c);
  const char *from = skip_spaces(a.first), *to = a.first_end;
  while (to > from && (to[-1] == ' ' || to[-1] == '\t' || to[-1] == '\n' || to[-1] == '\r')) to--;
  char *arg = malloc((size_t)(to - from) + 1);
  if (arg == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  memcpy(arg, from, (size_t)(to - from));
  arg[to - from] = '\0';
  st = lfa_expr_plan_reference(out, dataset, snap, arg, relation, err);
  free(arg);
  return st;
}

void lfa_expr_field_path(char *out, size_t cap, const lfa_snapshot *snap, int32_t field_id) {
  const char *chain[PATH_DEPTH_MAX];
  size_t n = 0;
  for (const Lance__File__Field *f = lfa_snapshot_field(snap, field_id); f != NULL && n < PATH_DEPTH_MAX;
       f = f->parent_id < 0 ? NULL : lfa_snapshot_field(snap, f->parent_id))
    chain[n++] = f->name ? f->name : "";
  for (size_t i = 0; i < n / 2; i++) { /* root first */
    const char *x = chain[i];
    chain[i] = chain[n - 1 - i], chain[n - 1 - i] = x;
  }
  spell(out, cap, chain, n);
}

/* ---- one snapshot [FA-EXPR-10, FA-EXPR-11] ------------------------------------- */

lfa_status lfa_expr_same_snapshot(const lfa_expr_plan *plan, const char *dataset, const lfa_snapshot *snap,
                                  lfa_error *err) {
  /* [FA-EXPR-11] without a snapshot and row addresses there is no state */
  if (snap == NULL || dataset == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-11",
                    "is_assigned is evaluated outside a scan of a snapshot: there is no state to read");
  if (plan->version == snap->version && strcmp(plan->dataset, dataset) == 0) return LFA_OK;
  char a[SHOWN_BYTES_MAX + 4], b[SHOWN_BYTES_MAX + 4];
  shown(a, plan->dataset, strlen(plan->dataset));
  shown(b, dataset, strlen(dataset));
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-10",
                  "is_assigned was planned for version %" PRIu64 " of '%s' and belongs to it; version %" PRIu64
                  " of '%s' needs a plan of its own",
                  plan->version, a, snap->version, b);
}

/* Every live row needs a row address (fragment id < 2^32 [FA-LANCE-13],
 * offset < 2^32), and a tracked snapshot has no fragment of unknown size:
 * old manifests' physical_rows 0 breaks FA-LANCE-12 here, it is not a
 * fragment to skip, since this snapshot has at least the descriptor being
 * evaluated. With stable row ids the reader has decoded one sequence per
 * fragment and checked its length [FA-LANCE-7]; the check is repeated
 * because callers index it by offset. */
static lfa_status check_fragments(const lfa_snapshot *s, lfa_error *err) {
  const Lance__Table__Manifest *m = s->file.manifest;
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    if (f->id > UINT32_MAX)
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-13", "fragment %" PRIu64 ": id does not fit a row address", f->id);
    if (f->physical_rows == 0)
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-12",
                      "fragment %" PRIu64 ": physical_rows is unknown (0) in a manifest with tracked fields", f->id);
    if (f->physical_rows > (uint64_t)UINT32_MAX + 1)
      return lfa_fail(err, LFA_ERR_RULE, NULL,
                      "fragment %" PRIu64 ": %" PRIu64 " physical rows: offsets past 2^32 have no row address", f->id,
                      f->physical_rows);
    if (!lfa_snapshot_row_ids_read(s, i)) /* [FA-VERIFY-8] spilled: no id to give a row */
      return lfa_fail(err, LFA_ERR_USAGE, NULL,
                      "fragment %" PRIu64 ": its row ids are not in metadata (spilled row lineage, feature bit 2048: "
                      "hidden columns of its data files, which lfa never reads)",
                      f->id);
    if (s->stable_row_ids && s->row_ids[i].count != f->physical_rows)
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-7",
                      "fragment %" PRIu64 ": %" PRIu64 " row ids for %" PRIu64 " physical rows", f->id,
                      s->row_ids[i].count, f->physical_rows);
  }
  return LFA_OK;
}

/* ---- assignment objects [FA-EXPR-9] -------------------------------------------- */

/* Where an assignment object is: its resolved path, the cache key. */
static lfa_status object_path(char *path, size_t cap, const char *dataset, const lfa_snapshot *snap,
                              const Lance__Table__FieldAssignmentFile *f, lfa_anchor a, lfa_error *err) {
  lfa_status st = lfa_path_resolve(path, cap, dataset, snap->file.manifest, a, true, "", f->path, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", f->path), lfa_error_at_file(err, f->path);
  return st;
}

/* [FA-EXPR-9] an object that cannot be used fails the query; the error
 * keeps the rule it broke, or cites FA-EXPR-9 when the file system failed
 * (an object missing or unreadable: the query's rule, whatever the
 * reader's). */
static lfa_status object_failed(lfa_status st, lfa_error *err) {
  if (st != LFA_OK && st != LFA_ERR_NOMEM && err != NULL && (err->rule == NULL || st == LFA_ERR_IO))
    err->rule = "FA-EXPR-9";
  return st;
}

/* What a load cost: read and decoded, or lent by the cache. */
static void count_load(lfa_expr_binding *b, uint64_t *read, bool decoded, bool loaded) {
  if (decoded) (*read)++;
  else if (loaded) b->cache_hits++;
}

static lfa_status load_root(lfa_expr_binding *b, const char *dataset, const lfa_snapshot *snap,
                            const Lance__Table__FieldAssignmentFile *rf, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  bool decoded = false;
  lfa_status st = object_path(path, sizeof path, dataset, snap, rf, b->root_anchor, err);
  if (st == LFA_OK) st = lfa_object_load_root(&b->root, &decoded, b->objects, path, rf, err);
  count_load(b, &b->roots_read, decoded, st == LFA_OK);
  return st;
}

/* Each entry against the snapshot: its fragment is there [FA-ROOT-5] with
 * the physical rows the entry records [FA-ROOT-3]. Bitmaps wait for a scan. */
static lfa_status take_entries(lfa_expr_binding *b, const lfa_snapshot *snap, lfa_error *err) {
  if (b->root->n_fragments == 0) return LFA_OK;
  b->entries = calloc(b->root->n_fragments, sizeof *b->entries);
  if (b->entries == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate root entries");
  b->count = b->root->n_fragments;
  for (size_t i = 0; i < b->count; i++) {
    const lfa_root_entry *e = b->root->fragments[i];
    size_t k = SIZE_MAX;
    lfa_status st = lfa_snapshot_entry_fragment(&k, snap, e, err);
    if (st != LFA_OK) {
      lfa_error_prefix(err, "root entry %zu (fragment %" PRIu64 ")", i, e->fragment_id);
      return lfa_error_at_fragment(err, e->fragment_id), st;
    }
    b->entries[i].fragment_id = e->fragment_id;
    b->entries[i].all = e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED;
  }
  return LFA_OK;
}

/* Reads the partial bitmap of entry i, checked against the snapshot cached
 * or not; on failure the entry stays unread. */
static lfa_status load_bitmap(lfa_expr_binding *b, size_t i, const char *dataset, const lfa_snapshot *snap,
                              uint64_t physical_rows, lfa_error *err) {
  const Lance__Table__FieldAssignmentFile *f = b->root->fragments[i]->partial;
  /* [FA-STORE-6] a partial without its own base inherits the root's */
  lfa_anchor a = f->has_base_id ? (lfa_anchor){true, f->base_id} : b->root_anchor;
  char path[LFA_PATH_BYTES_MAX];
  bool decoded = false;
  lfa_status st = object_path(path, sizeof path, dataset, snap, f, a, err);
  if (st == LFA_OK)
    st = lfa_object_load_partial(&b->entries[i].rows, &decoded, b->objects, path, f, physical_rows, err);
  count_load(b, &b->bitmaps_read, decoded, st == LFA_OK);
  return st;
}

/* ---- bind ------------------------------------------------------------------------ */

lfa_status lfa_expr_bind(lfa_expr_binding *out, const lfa_expr_plan *plan, const char *dataset,
                         const lfa_snapshot *snap, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (plan == NULL) return lfa_fail(err, LFA_ERR_USAGE, NULL, "no plan to bind");
  lfa_status st = lfa_expr_same_snapshot(plan, dataset, snap, err);
  if (st == LFA_OK) st = check_fragments(snap, err);
  if (st != LFA_OK) return st;
  size_t t = lfa_snapshot_tracked(snap, plan->field_id);
  if (t == SIZE_MAX)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references untracked field id %d", plan->field_id);
  const Lance__Table__FieldAssignmentFile *rf = snap->tracked[t].root_file;
  out->plan = *plan;
  out->objects = (lfa_objects){snap->fs, snap->cache}; /* [FA-EXPR-9] read where the snapshot is read */
  out->root_anchor = (lfa_anchor){rf->has_base_id, rf->base_id};
  st = load_root(out, dataset, snap, rf, err);
  if (st == LFA_OK) st = take_entries(out, snap, err);
  if (st != LFA_OK) {
    lfa_error_prefix(err, "field %d: root %s", plan->field_id, rf->path);
    lfa_error_at_field(err, plan->field_id), lfa_error_at_file(err, rf->path);
    lfa_expr_unbind(out);
    return object_failed(st, err);
  }
  out->bound = true;
  return LFA_OK;
}

void lfa_expr_unbind(lfa_expr_binding *b) {
  for (size_t i = 0; i < b->count; i++) lfa_object_release(b->objects.cache, LFA_OBJECT_BITMAP, b->entries[i].rows);
  lfa_object_release(b->objects.cache, LFA_OBJECT_ROOT, b->root);
  free(b->entries);
  memset(b, 0, sizeof *b);
}

/* ---- scan ------------------------------------------------------------------------ */

/* The index of the binding's entry for a fragment, or SIZE_MAX (no
 * assigned row there). Entries ascend by fragment id [FA-ROOT-2]. */
static size_t entry_index(const lfa_expr_binding *b, uint64_t fragment_id) {
  return lfa_assignment_entry(b->entries, b->count, fragment_id);
}

/* The scan's k-th fragment, the one with manifest index `index`; its
 * partial bitmap is read now unless an earlier scan read it [FA-EXPR-8]. */
static lfa_status take_fragment(lfa_expr_fragment *out, lfa_expr_binding *b, const char *dataset,
                                const lfa_snapshot *snap, size_t index, lfa_error *err) {
  const Lance__Table__DataFragment *f = snap->file.manifest->fragments[index];
  *out = (lfa_expr_fragment){f->id, f->physical_rows, index, snap->deleted[index], NULL};
  size_t e = entry_index(b, f->id);
  if (e == SIZE_MAX) return LFA_OK;
  lfa_status st = LFA_OK;
  if (!b->entries[e].all && b->entries[e].rows == NULL) st = load_bitmap(b, e, dataset, snap, f->physical_rows, err);
  if (st != LFA_OK) {
    size_t t = lfa_snapshot_tracked(snap, b->plan.field_id);
    lfa_error_prefix(err, "field %d: root %s: root entry %zu (fragment %" PRIu64 ")", b->plan.field_id,
                     t != SIZE_MAX ? snap->tracked[t].root_file->path : "?", e, f->id);
    lfa_error_at_field(err, b->plan.field_id), lfa_error_at_fragment(err, f->id);
    return object_failed(st, err);
  }
  out->entry = &b->entries[e];
  return LFA_OK;
}

/* The manifest index of each fragment the scan asks for, in its order. */
static lfa_status scan_fragments(lfa_expr_scan *out, lfa_expr_binding *b, const char *dataset,
                                 const lfa_snapshot *snap, const uint64_t *ids, size_t n, lfa_error *err) {
  size_t total = snap->file.manifest->n_fragments;
  if (ids == NULL) n = total;
  else if (n > total)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "a scan of %zu fragments in version %" PRIu64 ", which has %zu", n,
                    snap->version, total);
  out->fragments = calloc(n ? n : 1, sizeof *out->fragments);
  bool *seen = calloc(total ? total : 1, sizeof *seen);
  lfa_status st = out->fragments && seen ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; st == LFA_OK && k < n; k++) {
    size_t index = ids == NULL ? snap->by_id[k].index : lfa_snapshot_fragment(snap, ids[k]);
    if (index == SIZE_MAX)
      st = lfa_fail(err, LFA_ERR_USAGE, NULL, "fragment %" PRIu64 " is not in version %" PRIu64, ids[k],
                    snap->version);
    else if (seen[index])
      st = lfa_fail(err, LFA_ERR_USAGE, NULL, "fragment %" PRIu64 " is scanned twice", ids[k]);
    else {
      seen[index] = true;
      st = take_fragment(&out->fragments[k], b, dataset, snap, index, err);
      out->count = k + 1;
    }
  }
  free(seen);
  return st;
}

lfa_status lfa_expr_scan_open(lfa_expr_scan *out, lfa_expr_binding *b, const char *dataset,
                              const lfa_snapshot *snap, const uint64_t *fragment_ids, size_t n, lfa_error *err) {
  memset(out, 0, sizeof *out);
  /* [FA-EXPR-11] unbound: no snapshot, so no state to read */
  if (b == NULL || !b->bound)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-11",
                    "is_assigned is evaluated without being bound to a snapshot: there is no state to read");
  lfa_status st = lfa_expr_same_snapshot(&b->plan, dataset, snap, err);
  if (st == LFA_OK) st = scan_fragments(out, b, dataset, snap, fragment_ids, n, err);
  if (st != LFA_OK) {
    lfa_expr_scan_close(out);
    return st;
  }
  out->binding = b;
  return LFA_OK;
}

void lfa_expr_scan_close(lfa_expr_scan *s) {
  free(s->fragments);
  memset(s, 0, sizeof *s);
}

/* ---- evaluation [FA-EXPR-5, FA-EXPR-6] -------------------------------------------- */

static lfa_status check_fragment(const lfa_expr_scan *s, size_t k, lfa_error *err) {
  if (s == NULL || s->binding == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-11",
                    "is_assigned is evaluated outside a scan of a bound snapshot: there is no state to read");
  if (k >= s->count)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "the scan reads %zu fragments, not a fragment at %zu", s->count, k);
  return LFA_OK;
}

/* [FA-EXPR-5] (F, o) is true exactly when F's entry is all_assigned or its
 * partial bitmap holds o; without an entry it is false. Never NULL, and the
 * row id plays no part. */
lfa_status lfa_expr_row(bool *out, const lfa_expr_scan *s, size_t k, uint32_t offset, lfa_error *err) {
  *out = false;
  lfa_status st = check_fragment(s, k, err);
  if (st != LFA_OK) return st;
  const lfa_expr_fragment *f = &s->fragments[k];
  if (offset >= f->physical_rows)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "fragment %" PRIu64 " has no offset %" PRIu32 " (%" PRIu64 " rows)",
                    f->id, offset, f->physical_rows);
  *out = f->entry != NULL && (f->entry->all || roaring_bitmap_contains(f->entry->rows, offset));
  return LFA_OK;
}

/* The live offsets of a fragment: [0, physical_rows) without the deleted. */
static roaring_bitmap_t *live_offsets(const lfa_expr_fragment *f) {
  roaring_bitmap_t *live = roaring_bitmap_from_range(0, f->physical_rows, 1);
  if (live != NULL && f->deleted != NULL) roaring_bitmap_andnot_inplace(live, f->deleted);
  return live;
}

/* The same answer as lfa_expr_row on every live row [FA-EXPR-6], as sets:
 * an all_assigned entry selects every live row, a partial its bitmap's
 * live offsets, no entry none; NOT is_assigned selects the rest. */
lfa_status lfa_expr_select(roaring_bitmap_t **out, const lfa_expr_scan *s, size_t k, bool want, lfa_error *err) {
  *out = NULL;
  lfa_status st = check_fragment(s, k, err);
  if (st != LFA_OK) return st;
  const lfa_expr_fragment *f = &s->fragments[k];
  roaring_bitmap_t *live = live_offsets(f);
  if (live == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (f->entry == NULL || f->entry->all) {
    bool all = f->entry != NULL;
    *out = want == all ? live : roaring_bitmap_create();
    if (*out != live) roaring_bitmap_free(live);
  } else {
    *out = want ? roaring_bitmap_and(f->entry->rows, live) : roaring_bitmap_andnot(live, f->entry->rows);
    roaring_bitmap_free(live);
  }
  return *out != NULL ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
}

/* Counts from cardinalities: a fragment's live rows are physical_rows less
 * its deletion set; an all_assigned entry counts all of them, a partial
 * its bitmap less the deleted offsets it holds. */
void lfa_expr_fragment_counts(lfa_row_counts *out, const lfa_expr_scan *s, size_t k) {
  const lfa_expr_fragment *f = &s->fragments[k];
  lfa_row_counts_of(out, f->physical_rows, f->deleted, f->entry);
}

lfa_status lfa_expr_counts(uint64_t *assigned, uint64_t *unassigned, const lfa_expr_scan *s, lfa_error *err) {
  *assigned = *unassigned = 0;
  if (s == NULL || s->binding == NULL) return check_fragment(s, 0, err);
  for (size_t k = 0; k < s->count; k++) {
    lfa_row_counts c;
    lfa_expr_fragment_counts(&c, s, k);
    *assigned += c.assigned;
    *unassigned += c.unassigned;
  }
  return LFA_OK;
}
