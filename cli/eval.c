/* eval.c: `lfa eval`, the expression is_assigned(field) evaluated on every
 * live row of one snapshot, from the files on disk (spec/07-is-assigned.md).
 *
 * The order is the spec's: plan against the manifest alone (FA-EXPR-2 to
 * FA-EXPR-4), and only then read the one referenced field's root and
 * bitmaps (FA-EXPR-7, FA-EXPR-9). Everything that can fail runs before the
 * first byte is printed, so an error never leaves half an answer on stdout.
 * The JSON shape is documented in README.md ("lfa eval") and only grows:
 * keys are never renamed or removed. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "lfa/dataset.h"

static const char HELP[] =
    "usage: lfa eval DATASET --field NAME [--version N] [--json]\n"
    "\n"
    "Evaluates is_assigned(NAME) on every live row of one snapshot of the Lance\n"
    "dataset at DATASET (default: the latest version), from the files on disk.\n"
    "Prints one line per live row, `fragment F offset O [row_id R]: true|false`,\n"
    "then the totals. Deleted rows are not live and are not listed. A row is true\n"
    "exactly when its fragment's entry is all_assigned or its partial bitmap\n"
    "holds the offset; the row id is never consulted. With stable row ids\n"
    "(reader feature bit 2) each row's id is shown too, from the fragment's\n"
    "row id sequence, which must hold one id per physical row.\n"
    "\n"
    "NAME is a direct field reference: a dotted path of field names, resolved\n"
    "from the top level through each field's children (parent_id):\n"
    "  embedding           a top-level field\n"
    "  meta.source         the child `source` of the struct `meta`\n"
    "  \"my col\".\"a.b\"      any other name in double quotes (\"\" is a quote)\n"
    "A bare name is letters, digits, '_' and non-ASCII bytes, and does not start\n"
    "with a digit. Nothing else is allowed, not even spaces around the name.\n"
    "Each segment matches a field name exactly, else ignoring ASCII case, like\n"
    "an ordinary column reference; two case-insensitive matches and no exact\n"
    "one is ambiguous. There is no relation qualifier: the first segment is\n"
    "always a top-level field.\n"
    "\n"
    "Planning errors, found from the manifest before any assignment object is\n"
    "read: NAME is not a field reference (`42`, `id + 1`, `f(x)`, an empty\n"
    "name, or a system column: _rowid, _rowaddr, _rowoffset,\n"
    "_row_created_at_version, _row_last_updated_at_version); the snapshot has\n"
    "no such field; the snapshot does not track it (the message gives its\n"
    "stable field id). A missing or invalid root or bitmap is an error naming\n"
    "its path, never `false`. So is a fragment of unknown size (physical_rows 0,\n"
    "from old Lance): a snapshot with a tracked field has none (FA-LANCE-12).\n"
    "\n"
    "  --field NAME  the field, exactly once (is_assigned takes one argument)\n"
    "  --version N   evaluate version N instead of the latest\n"
    "  --json        one JSON document: {\"dataset\", \"version\", \"field\",\n"
    "                \"stable_row_ids\", \"rows\", \"totals\"} (shape in README.md)\n"
    "\n"
    "Exit status: 0 success; 2 planning error, unusable input or bad usage, with\n"
    "one line on stderr naming the problem (and the version and file), and\n"
    "nothing on stdout.\n";

/* How much of a hostile argument or name an error message quotes. */
enum { SHOWN_BYTES_MAX = 96 };

/* Columns a Lance scan offers besides the schema's fields: FA-EXPR-2 says
 * they are not fields. */
static const char *const SYSTEM_COLUMNS[] = {"_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version",
                                             "_row_last_updated_at_version"};

typedef struct eval_args {
  const char *dataset;
  const char *field;
  bool json;
  bool has_version;
  uint64_t version;
} eval_args;

/* A bound plan: one snapshot, one stable field id [FA-EXPR-3]. */
typedef struct eval_plan {
  int32_t field_id;
  size_t tracked; /* index into snap->tracked */
} eval_plan;

typedef struct eval_totals {
  uint64_t live, assigned;
} eval_totals;

/* ---- the reference grammar [FA-EXPR-2] ---------------------------------------- */

/* Copies at most SHOWN_BYTES_MAX bytes of `s`, control bytes as '?', so a
 * message quoting hostile input stays one short line. */
static void shown(char out[SHOWN_BYTES_MAX + 4], const char *s, size_t len) {
  size_t n = 0;
  for (; n < len && n < SHOWN_BYTES_MAX; n++) {
    unsigned char c = (unsigned char)s[n];
    out[n] = c < 0x20 || c == 0x7F ? '?' : (char)c;
  }
  if (n < len) out[n++] = '.', out[n++] = '.', out[n++] = '.';
  out[n] = '\0';
}

static lfa_status not_a_reference(const char *arg, const char *why, lfa_error *err) {
  char a[SHOWN_BYTES_MAX + 4];
  shown(a, arg, strlen(arg));
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4",
                  "is_assigned requires a direct field reference (FA-EXPR-2), got '%s': %s", a, why);
}

static bool bare_byte(unsigned char c, bool first) {
  if (c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return !first && c >= '0' && c <= '9';
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

/* Reads the segment at *p into `out` (room for strlen(arg) + 1 bytes) and
 * moves *p past it. A quoted segment is "..." with "" for a quote. */
static lfa_status read_segment(char *out, const char **p, const char *arg, lfa_error *err) {
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
  *p = s;
  return LFA_OK;
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

/* The whole argument is checked before any name is looked up, so `nope + 1`
 * is "not a reference", not "unknown field". */
static lfa_status check_syntax(char *scratch, const char *arg, lfa_error *err) {
  if (arg[0] == '\0') return not_a_reference(arg, "the name is empty", err);
  size_t segments = 0;
  for (const char *p = arg;; p++) {
    lfa_status st = read_segment(scratch, &p, arg, err);
    if (st != LFA_OK) return st;
    segments++;
    if (*p == '\0') break;
    if (*p != '.') return unexpected(arg, p, err);
  }
  for (size_t i = 0; segments == 1 && i < sizeof SYSTEM_COLUMNS / sizeof SYSTEM_COLUMNS[0]; i++)
    if (same_ignoring_ascii_case(scratch, SYSTEM_COLUMNS[i]))
      return not_a_reference(arg, "a system column is not a field", err);
  return LFA_OK;
}

/* ---- resolution against the snapshot's schema [FA-EXPR-3] --------------------- */

/* `head` bytes of `arg` resolved before the failing segment (0: none). */
static lfa_status unknown_field(const char *arg, size_t head, bool ambiguous, lfa_error *err) {
  char a[SHOWN_BYTES_MAX + 4], h[SHOWN_BYTES_MAX + 4];
  shown(a, arg, strlen(arg));
  shown(h, arg, head);
  if (ambiguous)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4",
                    "is_assigned references ambiguous field '%s': no name matches exactly, several ignoring case", a);
  if (head == 0) return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references unknown field '%s'", a);
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references unknown field '%s' ('%s' has no such child)",
                  a, h);
}

/* The child of `parent` (-1: the top level) called `name`: an exact match
 * first, else the only one equal ignoring ASCII case. `head` is how much of
 * `arg` is already resolved, for the message. */
static lfa_status find_child(int32_t *out, const Lance__Table__Manifest *m, int32_t parent, const char *name,
                             const char *arg, size_t head, lfa_error *err) {
  size_t folded = 0;
  for (size_t i = 0; i < m->n_fields; i++) {
    const Lance__File__Field *f = m->fields[i];
    if (f->parent_id != parent || f->name == NULL) continue;
    if (strcmp(f->name, name) == 0) {
      *out = f->id;
      return LFA_OK;
    }
    if (same_ignoring_ascii_case(f->name, name) && folded++ == 0) *out = f->id;
  }
  if (folded == 1) return LFA_OK;
  return unknown_field(arg, head, folded > 1, err);
}

static lfa_status resolve(int32_t *field_id, char *scratch, const Lance__Table__Manifest *m, const char *arg,
                          lfa_error *err) {
  int32_t parent = -1;
  for (const char *p = arg;; p++) {
    size_t head = p == arg ? 0 : (size_t)(p - arg) - 1;
    lfa_status st = read_segment(scratch, &p, arg, err);
    if (st == LFA_OK) st = find_child(&parent, m, parent, scratch, arg, head, err);
    if (st != LFA_OK) return st;
    if (*p == '\0') break;
  }
  *field_id = parent;
  return LFA_OK;
}

/* [FA-EXPR-4] every planning error, from the manifest alone: no assignment
 * object is read here [FA-EXPR-7]. */
static lfa_status plan(eval_plan *out, const lfa_snapshot *s, const char *arg, lfa_error *err) {
  char *scratch = malloc(strlen(arg) + 1);
  if (scratch == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  lfa_status st = check_syntax(scratch, arg, err);
  if (st == LFA_OK) st = resolve(&out->field_id, scratch, s->file.manifest, arg, err);
  free(scratch);
  if (st != LFA_OK) return st;
  out->tracked = lfa_snapshot_tracked(s, out->field_id);
  if (out->tracked == SIZE_MAX) {
    char a[SHOWN_BYTES_MAX + 4];
    shown(a, arg, strlen(arg));
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned references untracked field '%s' (stable field id %d)",
                    a, out->field_id);
  }
  return LFA_OK;
}

/* ---- the snapshot's rows --------------------------------------------------------- */

/* Every live row needs a row address (fragment id < 2^32 [FA-LANCE-13],
 * offset < 2^32), and a tracked snapshot has no fragment of unknown size:
 * old manifests' physical_rows 0 breaks FA-LANCE-12 here, it is not a
 * fragment to skip, since this snapshot has at least the descriptor being
 * evaluated. With stable row ids the reader has decoded one sequence per
 * fragment and checked its length [FA-LANCE-7]; the check is repeated
 * because the rows below index it. */
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
    if (s->stable_row_ids && s->row_ids[i].count != f->physical_rows)
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-7",
                      "fragment %" PRIu64 ": %" PRIu64 " row ids for %" PRIu64 " physical rows", f->id,
                      s->row_ids[i].count, f->physical_rows);
  }
  return LFA_OK;
}

/* ---- evaluation [FA-EXPR-5] --------------------------------------------------------- */

/* The field's entry for a fragment, or NULL (no assigned row there). */
static const lfa_fragment_assignment *entry_of(const lfa_tracked_field *t, uint64_t fragment_id) {
  size_t lo = 0, hi = t->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->fragments[mid].fragment_id == fragment_id) return &t->fragments[mid];
    if (t->fragments[mid].fragment_id < fragment_id) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* [FA-EXPR-5] (F, o) is true exactly when F's entry is all_assigned or its
 * partial bitmap holds o; without an entry it is false. Never NULL, and the
 * row id plays no part. */
static bool assigned_at(const lfa_fragment_assignment *entry, uint32_t offset) {
  if (entry == NULL) return false;
  return entry->all || roaring_bitmap_contains(entry->rows, offset);
}

static void emit_row(json_writer *w, const Lance__Table__DataFragment *f, uint32_t o, const uint64_t *row_id, bool v) {
  if (w == NULL) {
    printf("fragment %" PRIu64 " offset %" PRIu32, f->id, o);
    if (row_id != NULL) printf(" row_id %" PRIu64, *row_id);
    printf(": %s\n", v ? "true" : "false");
    return;
  }
  json_open_object(w, NULL);
  json_u64(w, "fragment", f->id);
  json_u64(w, "offset", o);
  json_u64(w, "address", (f->id << 32) | o);
  if (row_id != NULL) json_u64(w, "row_id", *row_id);
  json_bool(w, "assigned", v);
  json_close_object(w);
}

/* Live rows in fragment id order, offsets ascending. `w` is NULL for text. */
static void emit_rows(json_writer *w, eval_totals *t, const eval_plan *p, const lfa_snapshot *s) {
  const lfa_tracked_field *tf = &s->tracked[p->tracked];
  for (size_t k = 0; k < s->file.manifest->n_fragments; k++) {
    size_t i = s->by_id[k].index;
    const Lance__Table__DataFragment *f = s->file.manifest->fragments[i];
    const lfa_fragment_assignment *entry = entry_of(tf, f->id);
    for (uint64_t o = 0; o < f->physical_rows; o++) {
      uint32_t off = (uint32_t)o; /* check_fragments: below 2^32 */
      if (s->deleted[i] != NULL && roaring_bitmap_contains(s->deleted[i], off)) continue;
      bool v = assigned_at(entry, off);
      emit_row(w, f, off, s->stable_row_ids ? &s->row_ids[i].ids[o] : NULL, v);
      t->live++;
      t->assigned += v;
    }
  }
}

/* ---- output ------------------------------------------------------------------------- */

/* The field's path from the top level, in the --field grammar, so it can be
 * pasted back; names that are not bare are quoted. Control bytes become '?'
 * so the text header stays one line. Cut at `cap`. */
static void field_path(char *out, size_t cap, const lfa_snapshot *s, int32_t id) {
  const Lance__File__Field *chain[64];
  size_t n = 0;
  for (const Lance__File__Field *f = lfa_snapshot_field(s, id); f != NULL && n < 64;
       f = f->parent_id < 0 ? NULL : lfa_snapshot_field(s, f->parent_id))
    chain[n++] = f;
  size_t len = 0;
  out[0] = '\0';
  while (n-- > 0 && len + 1 < cap) {
    const char *name = chain[n]->name ? chain[n]->name : "";
    bool bare = name[0] != '\0';
    for (const char *c = name; *c; c++) bare = bare && bare_byte((unsigned char)*c, c == name);
    if (len > 0) out[len++] = '.';
    if (!bare && len + 1 < cap) out[len++] = '"';
    for (const char *c = name; *c && len + 2 < cap; c++) {
      if (*c == '"') out[len++] = '"';
      out[len++] = (unsigned char)*c < 0x20 || *c == 0x7F ? '?' : *c;
    }
    if (!bare && len + 1 < cap) out[len++] = '"';
    out[len] = '\0';
  }
}

static void print_text(const eval_args *a, const eval_plan *p, const lfa_snapshot *s, const char *path) {
  printf("dataset %s, version %" PRIu64 ", is_assigned(%s): field %d, %s\n", a->dataset, s->version, path, p->field_id,
         s->stable_row_ids ? "stable row ids" : "address mode (row ids are row addresses)");
  eval_totals t = {0, 0};
  emit_rows(NULL, &t, p, s);
  printf("totals: %" PRIu64 " live rows, %" PRIu64 " assigned, %" PRIu64 " unassigned\n", t.live, t.assigned,
         t.live - t.assigned);
}

static void print_json(const eval_args *a, const eval_plan *p, const lfa_snapshot *s, const char *path) {
  const Lance__File__Field *f = lfa_snapshot_field(s, p->field_id);
  json_writer w = {stdout, 0, {false}};
  json_open_object(&w, NULL);
  json_string(&w, "dataset", a->dataset);
  json_u64(&w, "version", s->version);
  json_open_object(&w, "field");
  json_i64(&w, "id", p->field_id);
  json_string(&w, "name", f && f->name ? f->name : "");
  json_string(&w, "path", path);
  json_close_object(&w);
  json_bool(&w, "stable_row_ids", s->stable_row_ids);
  eval_totals t = {0, 0};
  json_open_array(&w, "rows");
  emit_rows(&w, &t, p, s);
  json_close_array(&w);
  json_open_object(&w, "totals");
  json_u64(&w, "live_rows", t.live);
  json_u64(&w, "assigned", t.assigned);
  json_u64(&w, "unassigned", t.live - t.assigned);
  json_close_object(&w);
  json_close_object(&w);
  json_finish(&w);
}

/* ---- command ------------------------------------------------------------------------- */

/* Plan, check, load, then print: nothing is printed until every read and
 * check has passed. */
static lfa_status eval_snapshot(const eval_args *a, lfa_snapshot *s, lfa_error *err) {
  eval_plan p = {0, 0};
  lfa_status st = plan(&p, s, a->field, err);
  if (st == LFA_OK) st = check_fragments(s, err);
  if (st == LFA_OK) {
    st = lfa_snapshot_load_field(s, a->dataset, p.tracked, err);
    /* [FA-EXPR-9] a missing or unreadable object fails the query, never false */
    if (st != LFA_OK && st != LFA_ERR_NOMEM && err->rule == NULL) err->rule = "FA-EXPR-9";
  }
  if (st == LFA_OK) {
    char path[1024];
    field_path(path, sizeof path, s, p.field_id);
    if (a->json) print_json(a, &p, s, path);
    else print_text(a, &p, s, path);
  }
  return st;
}

static lfa_status eval_version(const eval_args *a, const lfa_version_list *versions, lfa_error *err) {
  const lfa_version_entry *e = &versions->entries[versions->count - 1]; /* ascending: the latest */
  if (a->has_version) {
    e = NULL;
    for (size_t i = 0; i < versions->count; i++)
      if (versions->entries[i].version == a->version) e = &versions->entries[i];
    if (e == NULL) return lfa_fail(err, LFA_ERR_USAGE, NULL, "version %" PRIu64 " does not exist", a->version);
  }
  lfa_snapshot snap;
  /* opens the manifest, transaction and deletion files, no assignment object [FA-EXPR-7] */
  lfa_status st = lfa_snapshot_open(&snap, a->dataset, e, err);
  if (st == LFA_OK) {
    st = eval_snapshot(a, &snap, err);
    lfa_snapshot_free(&snap);
  }
  if (st != LFA_OK) lfa_error_prefix(err, "version %" PRIu64, e->version);
  return st;
}

/* Bad usage teaches: the reason, then the help. `arg` (may be NULL) is quoted. */
static int usage_error(const char *why, const char *arg) {
  if (arg != NULL) fprintf(stderr, "lfa eval: %s '%s'\n%s", why, arg, HELP);
  else fprintf(stderr, "lfa eval: %s\n%s", why, HELP);
  return 0;
}

static int parse_args(eval_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    char *end;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(HELP, stdout);
      exit(LFA_EXIT_OK);
    } else if (strcmp(argv[i], "--json") == 0) {
      a->json = true;
    } else if (strcmp(argv[i], "--field") == 0 && i + 1 < argc) {
      /* [FA-EXPR-4] item 1: is_assigned takes exactly one argument */
      if (a->field != NULL)
        return usage_error("is_assigned takes exactly one field, --field is given again:", argv[i + 1]);
      a->field = argv[++i];
    } else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc) {
      a->version = strtoull(argv[++i], &end, 10);
      if (*end != '\0' || argv[i][0] == '\0' || argv[i][0] == '-')
        return usage_error("--version needs a version number, got", argv[i]);
      a->has_version = true;
    } else if (argv[i][0] != '-' && a->dataset == NULL) {
      a->dataset = argv[i];
    } else {
      return usage_error("unexpected argument", argv[i]);
    }
  }
  if (a->dataset == NULL) return usage_error("missing DATASET", NULL);
  if (a->field == NULL) return usage_error("missing --field NAME (is_assigned takes exactly one field)", NULL);
  return 1;
}

int lfa_cli_eval(int argc, char **argv) {
  eval_args a;
  if (!parse_args(&a, argc, argv)) return LFA_EXIT_UNUSABLE;
  lfa_error err = {0};
  lfa_version_list versions;
  lfa_names names;
  lfa_status st = lfa_dataset_versions(&versions, &names, a.dataset, &err);
  if (st == LFA_OK) {
    st = eval_version(&a, &versions, &err);
    lfa_version_list_free(&versions);
    lfa_fs_names_free(&names);
  }
  if (st == LFA_OK) return LFA_EXIT_OK;
  /* one line; the rule goes last unless the message already cites it */
  if (err.rule != NULL && strstr(err.msg, err.rule) == NULL)
    fprintf(stderr, "lfa eval: %s: %s [%s]\n", a.dataset, err.msg, err.rule);
  else fprintf(stderr, "lfa eval: %s: %s\n", a.dataset, err.msg);
  return LFA_EXIT_UNUSABLE;
}
