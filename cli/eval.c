/* eval.c: `lfa eval`, the expression is_assigned(field) evaluated on every
 * live row of one snapshot, from the files on disk (spec/07-is-assigned.md).
 *
 * The work is lfa/expr.h's, in its order: plan against the manifest alone
 * (FA-EXPR-2 to FA-EXPR-4), bind (the root, FA-EXPR-9), open a scan of every
 * fragment (their bitmaps), then evaluate row by row. Everything that can
 * fail runs before the first byte is printed, so an error never leaves half
 * an answer on stdout. The argument is a field reference (--field) or a
 * Substrait ExtendedExpression (--substrait, FA-EXPR-12/13); --emit-substrait
 * writes the latter instead of evaluating. The JSON shape is documented in
 * docs/commands/eval.md and only grows: keys are never renamed or removed. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/escape.h"
#include "lfa/document.h"
#include "lfa/dataset.h"
#include "lfa/expr.h"
#include "lfa/fs.h"
#include "lfa/limits.h"
#include "dataset_arg.h"

static const char HELP[] =
    "usage: lfa eval DATASET --field NAME [--relation R] [--version N] [--json]\n"
    "                [--count [--by-fragment] | --ranges]\n"
    "       lfa eval DATASET --substrait FILE [--version N] [--json]\n"
    "       lfa eval DATASET (--field NAME | --substrait FILE) --emit-substrait OUT\n"
    "\n"
    "Evaluates is_assigned(NAME) on every live row of one snapshot of the Lance\n"
    "dataset at DATASET (default: the latest version), from the files on disk.\n"
    "Prints one line per live row, `fragment F offset O [row_id R]: true|false`,\n"
    "then the totals: live rows, and how many of them are assigned (true) and\n"
    "unassigned (false). Deleted rows are not live and are not listed. A row is true\n"
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
    "one is ambiguous. The first segment is a top-level field, unless --relation\n"
    "names the scanned relation: then `R.col` is the column col of R (when col\n"
    "resolves; else the whole path is a field path).\n"
    "\n"
    "Planning errors, found from the manifest before any assignment object is\n"
    "read: NAME is not a field reference (`42`, `id + 1`, `f(x)`, an empty\n"
    "name, or a system column: _rowid, _rowaddr, _rowoffset,\n"
    "_row_created_at_version, _row_last_updated_at_version); the snapshot has\n"
    "no such field; the snapshot does not track it (the message gives its\n"
    "stable field id). A missing or invalid root or bitmap is an error naming\n"
    "its path, never `false`. So is a fragment of unknown size (physical_rows 0,\n"
    "from old Lance): a snapshot with a tracked field has none (FA-LANCE-12).\n"
    "\n";

/* The options (one literal is at most 4095 bytes for ISO C) */
static const char HELP_OPTIONS[] =
    "  --field NAME          the field, exactly once (is_assigned takes one argument)\n"
    "  --relation R          the scanned relation's name, accepted as a qualifier\n"
    "  --substrait FILE      the call as a Substrait ExtendedExpression (binary\n"
    "                        protobuf): is_assigned of urn:lance:extension:functions\n"
    "                        with one field reference (positions into base_schema),\n"
    "                        or an Int32 literal stable field id (upstream's later form)\n"
    "  --emit-substrait OUT  write is_assigned(NAME) planned against the version as\n"
    "                        a Substrait ExtendedExpression to OUT (a new file), and\n"
    "                        print one line saying so instead of evaluating\n"
    "  --version N           evaluate version N instead of the latest\n"
    "  --count               the totals only, from the bitmaps' cardinalities: no row\n"
    "                        is visited, and nothing is read but the manifest, the\n"
    "                        deletion files, the root and the partial bitmaps\n"
    "  --by-fragment         with --count: one line per fragment too, `fragment F:\n"
    "                        P physical rows, D deleted, L live: A assigned, U\n"
    "                        unassigned` (P = L + D, L = A + U)\n"
    "  --ranges              runs instead of rows: one line per run of consecutive\n"
    "                        live rows of a fragment with the same value, `fragment F\n"
    "                        offsets A-B (addresses X-Y, N rows): true|false`; a\n"
    "                        deleted row ends a run\n"
    "  --json                one JSON document: {\"dataset\", \"version\", \"field\",\n"
    "                        \"stable_row_ids\", \"rows\", \"totals\"} (shape in\n"
    "                        docs/commands/eval.md);\n"
    "                        --count leaves out \"rows\" (--by-fragment adds \"fragments\"),\n"
    "                        --ranges puts \"ranges\" in its place\n"
    LFA_CLI_DATASET_HELP_OPTIONS
    "\n" LFA_CLI_DATASET_HELP_DATASET
    "\n"
    "Exit status: 0 success; 2 planning error, unusable input or bad usage, with\n"
    "one line on stderr naming the problem (and the version and file), and\n"
    "nothing on stdout.\n";

typedef struct eval_args {
  const char *dataset;
  const char *field;
  const char *relation;
  const char *substrait; /* read the call from this file */
  const char *emit;      /* write the call to this file */
  bool json;
  bool count, by_fragment, ranges; /* totals only; per fragment too; runs instead of rows */
  bool has_version;
  uint64_t version;
  bool stats, allow_http;
  lfa_cli_dataset *store; /* where DATASET is */
} eval_args;

typedef struct eval_totals {
  uint64_t live, assigned; /* live rows; live rows where is_assigned is true */
} eval_totals;

/* ---- planning ------------------------------------------------------------------------ */

/* [FA-EXPR-4] every planning error, from the manifest (and the Substrait
 * file) alone: no assignment object is read here [FA-EXPR-7]. */
static lfa_status plan(lfa_expr_plan *out, const eval_args *a, const lfa_snapshot *s, lfa_error *err) {
  if (a->substrait == NULL) return lfa_expr_plan_reference(out, a->dataset, s, a->field, a->relation, err);
  lfa_buf bytes = {0};
  lfa_status st = lfa_fs_read(&bytes, a->substrait, LFA_SUBSTRAIT_BYTES_MAX, err); /* names the file */
  if (st == LFA_OK) {
    st = lfa_expr_plan_substrait(out, a->dataset, s, bytes.data, bytes.len, err);
    if (st != LFA_OK) lfa_error_prefix(err, "%s", a->substrait);
  }
  lfa_buf_free(&bytes);
  return st;
}

/* --emit-substrait: the planned call as Substrait, in a new file. */
static lfa_status emit_substrait(const eval_args *a, const lfa_expr_plan *p, const lfa_snapshot *s, lfa_error *err) {
  lfa_buf bytes = {0};
  lfa_status st = lfa_expr_to_substrait(&bytes, p, a->dataset, s, err);
  if (st == LFA_OK) st = lfa_fs_write_new(a->emit, bytes.data, bytes.len, err);
  if (st == LFA_OK) {
    char path[1024];
    lfa_expr_field_path(path, sizeof path, s, p->field_id);
    lfa_put_text(stdout, a->emit), fputs(": is_assigned(", stdout), lfa_put_text(stdout, path);
    printf("), field %d, version %" PRIu64 ", as a Substrait ExtendedExpression (%zu bytes)\n", p->field_id,
           s->version, bytes.len);
  }
  lfa_buf_free(&bytes);
  return st;
}

/* ---- output ------------------------------------------------------------------------- */

/* A run of consecutive live rows of one fragment with the same value
 * (--ranges): a deleted row ends it. */
typedef struct eval_run {
  bool open, value;
  uint32_t first, last;
} eval_run;

/* What the rows go to: a text line or JSON object each (emit_row), or runs. */
typedef struct eval_out {
  lfa_json_writer *w; /* NULL: text */
  bool ranges;
  eval_run run;
  eval_totals t;
} eval_out;

static void emit_row(lfa_json_writer *w, const lfa_expr_fragment *f, uint32_t o, const uint64_t *row_id, bool v) {
  if (w == NULL) {
    printf("fragment %" PRIu64 " offset %" PRIu32, f->id, o);
    if (row_id != NULL) printf(" row_id %" PRIu64, *row_id);
    printf(": %s\n", v ? "true" : "false");
    return;
  }
  lfa_json_open_object(w, NULL);
  lfa_json_put_u64(w, "fragment", f->id);
  lfa_json_put_u64(w, "offset", o);
  lfa_json_put_u64(w, "address", (f->id << 32) | o);
  if (row_id != NULL) lfa_json_put_u64(w, "row_id", *row_id);
  lfa_json_put_bool(w, "assigned", v);
  lfa_json_close_object(w);
}

static void emit_run(eval_out *out, const lfa_expr_fragment *f) {
  const eval_run *r = &out->run;
  if (!r->open) return;
  uint64_t a = f->id << 32;
  if (out->w == NULL) {
    printf("fragment %" PRIu64 " offsets %" PRIu32 "-%" PRIu32 " (addresses %" PRIu64 "-%" PRIu64 ", %" PRIu32
           " rows): %s\n", f->id, r->first, r->last, a | r->first, a | r->last, r->last - r->first + 1,
           r->value ? "true" : "false");
  } else {
    lfa_json_open_object(out->w, NULL);
    lfa_json_put_u64(out->w, "fragment", f->id);
    lfa_json_put_u64(out->w, "first_offset", r->first);
    lfa_json_put_u64(out->w, "last_offset", r->last);
    lfa_json_put_u64(out->w, "first_address", a | r->first);
    lfa_json_put_u64(out->w, "last_address", a | r->last);
    lfa_json_put_u64(out->w, "rows", (uint64_t)r->last - r->first + 1);
    lfa_json_put_bool(out->w, "assigned", r->value);
    lfa_json_close_object(out->w);
  }
  out->run.open = false;
}

static void take_row(eval_out *out, const lfa_expr_fragment *f, uint32_t o, const uint64_t *row_id, bool v) {
  out->t.live++;
  out->t.assigned += v;
  if (!out->ranges) {
    emit_row(out->w, f, o, row_id, v);
    return;
  }
  eval_run *r = &out->run;
  if (r->open && r->value == v && r->last + 1 == o) r->last = o;
  else emit_run(out, f), *r = (eval_run){true, v, o, o};
}

/* Live rows in fragment id order, offsets ascending, each evaluated row by
 * row [FA-EXPR-5]. The scan was opened on every fragment, whose offsets
 * have row addresses (lfa_expr_bind), so no row can be refused. */
static void emit_rows(eval_out *out, const lfa_expr_scan *scan, const lfa_snapshot *s) {
  for (size_t k = 0; k < scan->count; k++) {
    const lfa_expr_fragment *f = &scan->fragments[k];
    for (uint64_t o = 0; o < f->physical_rows; o++) {
      uint32_t off = (uint32_t)o; /* below 2^32: lfa_expr_bind checked */
      if (f->deleted != NULL && roaring_bitmap_contains(f->deleted, off)) continue;
      bool v = false;
      lfa_expr_row(&v, scan, k, off, NULL);
      take_row(out, f, off, s->stable_row_ids ? &s->row_ids[f->index].ids[o] : NULL, v);
    }
    emit_run(out, f);
  }
}

/* --count: the totals (and each fragment's) from cardinalities alone: no
 * row is visited, and no bitmap is read that the rows would not need. */
static void count_rows(eval_out *out, const lfa_expr_scan *scan, bool by_fragment) {
  for (size_t k = 0; k < scan->count; k++) {
    lfa_row_counts c;
    lfa_expr_fragment_counts(&c, scan, k);
    out->t.live += c.live_rows;
    out->t.assigned += c.assigned;
    if (!by_fragment) continue;
    uint64_t id = scan->fragments[k].id;
    if (out->w == NULL) {
      printf("fragment %" PRIu64 ": %" PRIu64 " physical rows, %" PRIu64 " deleted, %" PRIu64 " live: %" PRIu64
             " assigned, %" PRIu64 " unassigned\n", id, c.physical_rows, c.deleted_rows, c.live_rows,
             c.assigned, c.unassigned);
      continue;
    }
    lfa_json_open_object(out->w, NULL);
    lfa_json_put_u64(out->w, "fragment", id);
    lfa_json_put_u64(out->w, "physical_rows", c.physical_rows);
    lfa_json_put_u64(out->w, "deleted_rows", c.deleted_rows);
    lfa_json_put_u64(out->w, "live_rows", c.live_rows);
    lfa_json_put_u64(out->w, "assigned", c.assigned);
    lfa_json_put_u64(out->w, "unassigned", c.unassigned);
    lfa_json_close_object(out->w);
  }
}

static void print_text(const eval_args *a, const lfa_expr_scan *scan, const lfa_snapshot *s, const char *path) {
  /* the dataset argument and field names may hold any bytes: shown escaped */
  fputs("dataset ", stdout), lfa_put_text(stdout, a->dataset);
  printf(", version %" PRIu64 ", is_assigned(", s->version), lfa_put_text(stdout, path);
  printf("): field %d, %s\n", scan->binding->plan.field_id,
         s->stable_row_ids ? "stable row ids" : "address mode (row ids are row addresses)");
  eval_out out = {.ranges = a->ranges};
  if (a->count) count_rows(&out, scan, a->by_fragment);
  else emit_rows(&out, scan, s);
  printf("totals: %" PRIu64 " live rows, %" PRIu64 " assigned, %" PRIu64 " unassigned\n", out.t.live, out.t.assigned,
         out.t.live - out.t.assigned);
}

static void print_json(const eval_args *a, const lfa_expr_scan *scan, const lfa_snapshot *s, const char *path) {
  int32_t id = scan->binding->plan.field_id;
  const Lance__File__Field *f = lfa_snapshot_field(s, id);
  lfa_json_writer w = {.out = stdout};
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "dataset", a->dataset);
  lfa_json_put_u64(&w, "version", s->version);
  lfa_json_open_object(&w, "field");
  lfa_json_put_i64(&w, "id", id);
  lfa_json_put_string(&w, "name", f && f->name ? f->name : "");
  lfa_json_put_string(&w, "path", path);
  lfa_json_close_object(&w);
  lfa_json_put_bool(&w, "stable_row_ids", s->stable_row_ids);
  eval_out out = {.w = &w, .ranges = a->ranges};
  if (a->count && a->by_fragment) lfa_json_open_array(&w, "fragments");
  if (!a->count) lfa_json_open_array(&w, a->ranges ? "ranges" : "rows");
  if (a->count) count_rows(&out, scan, a->by_fragment);
  else emit_rows(&out, scan, s);
  if (!a->count || a->by_fragment) lfa_json_close_array(&w);
  lfa_json_open_object(&w, "totals");
  lfa_json_put_u64(&w, "live_rows", out.t.live);
  lfa_json_put_u64(&w, "assigned", out.t.assigned);
  lfa_json_put_u64(&w, "unassigned", out.t.live - out.t.assigned);
  lfa_json_close_object(&w);
  lfa_cli_dataset_put_stats(a->store, &w);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}

/* ---- command ------------------------------------------------------------------------- */

/* Plan, bind, scan, then print: nothing is printed until every read and
 * check has passed. */
static lfa_status eval_snapshot(const eval_args *a, const lfa_snapshot *s, lfa_error *err) {
  lfa_expr_plan p;
  lfa_expr_binding b;
  lfa_expr_scan scan;
  lfa_status st = plan(&p, a, s, err);
  if (st != LFA_OK) return st;
  if (a->emit != NULL) return emit_substrait(a, &p, s, err);
  if ((st = lfa_expr_bind(&b, &p, a->dataset, s, err)) != LFA_OK) return st;
  st = lfa_expr_scan_open(&scan, &b, a->dataset, s, NULL, 0, err);
  if (st == LFA_OK) {
    char path[1024];
    lfa_expr_field_path(path, sizeof path, s, p.field_id);
    if (a->json) print_json(a, &scan, s, path);
    else print_text(a, &scan, s, path);
    lfa_expr_scan_close(&scan);
  }
  lfa_expr_unbind(&b);
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
  lfa_status st = lfa_snapshot_open(&snap, a->dataset, e, &(lfa_snapshot_options){.fs = a->store->d.fs}, err);
  if (st == LFA_OK) {
    st = eval_snapshot(a, &snap, err);
    lfa_snapshot_free(&snap);
  }
  if (st != LFA_OK) lfa_error_prefix(err, "version %" PRIu64, e->version), lfa_error_at_version(err, e->version);
  return st;
}

/* Bad usage is short: the reason, the usage lines (the help up to its
 * first blank line), and where the rest is. `arg` (may be NULL) is quoted. */
static int usage_error(const char *why, const char *arg) {
  char shown[LFA_CLI_SHOWN_BYTES];
  const char *end = strstr(HELP, "\n\n");
  int usage = end ? (int)(end - HELP) + 1 : (int)strlen(HELP);
  if (arg != NULL) fprintf(stderr, "lfa eval: %s '%s'\n", why, lfa_cli_shown(shown, sizeof shown, arg));
  else fprintf(stderr, "lfa eval: %s\n", why);
  fprintf(stderr, "%.*s(see lfa eval --help)\n", usage, HELP);
  return 0;
}

static int parse_args(eval_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  const char *fields[2] = {NULL, NULL};
  size_t n_fields = 0, has_version = 0;
  const lfa_cli_option opts[] = {
      {"--json", LFA_CLI_FLAG, &a->json, NULL, 1, 0, 0},
      {"--count", LFA_CLI_FLAG, &a->count, NULL, 1, 0, 0},
      {"--by-fragment", LFA_CLI_FLAG, &a->by_fragment, NULL, 1, 0, 0},
      {"--ranges", LFA_CLI_FLAG, &a->ranges, NULL, 1, 0, 0},
      {"--field", LFA_CLI_TEXT, fields, &n_fields, 2, 0, 0}, /* a second one is said below */
      {"--substrait", LFA_CLI_TEXT, &a->substrait, NULL, 1, 0, 0},
      {"--emit-substrait", LFA_CLI_TEXT, &a->emit, NULL, 1, 0, 0},
      {"--relation", LFA_CLI_TEXT, &a->relation, NULL, 1, 0, 0},
      {"--version", LFA_CLI_U64, &a->version, &has_version, 1, 0, 0},
      {"--stats", LFA_CLI_FLAG, &a->stats, NULL, 1, 0, 0},
      {"--allow-http", LFA_CLI_FLAG, &a->allow_http, NULL, 1, 0, 0},
  };
  if (lfa_cli_wants_help(argc, argv)) fputs(HELP, stdout), fputs(HELP_OPTIONS, stdout), exit(LFA_EXIT_OK);
  int r = lfa_cli_parse("eval", HELP, opts, sizeof opts / sizeof opts[0], &a->dataset, 1, argc, argv);
  if (r < 0) exit(LFA_EXIT_OK);
  if (r == 0) return 0;
  a->field = fields[0], a->has_version = has_version > 0;
  /* [FA-EXPR-4] item 1: is_assigned takes exactly one argument */
  if (n_fields > 1) return usage_error("is_assigned takes exactly one field, --field is given again:", fields[1]);
  if (a->dataset == NULL) return usage_error("missing DATASET", NULL);
  if (a->field != NULL && a->substrait != NULL)
    return usage_error("is_assigned takes exactly one argument: give --field or --substrait, not both", NULL);
  if (a->field == NULL && a->substrait == NULL)
    return usage_error("missing --field NAME (is_assigned takes exactly one field)", NULL);
  if (a->relation != NULL && a->substrait != NULL)
    return usage_error("--relation qualifies --field; a Substrait reference is positional", NULL);
  if (a->emit != NULL && (a->json || a->count || a->ranges))
    return usage_error("--emit-substrait writes a file; --json, --count and --ranges have nothing to print", NULL);
  if (a->count && a->ranges) return usage_error("--count prints totals, --ranges the rows: give one", NULL);
  if (a->by_fragment && !a->count) return usage_error("--by-fragment splits the totals of --count", NULL);
  return 1;
}

int lfa_cli_eval(int argc, char **argv) {
  eval_args a;
  if (!parse_args(&a, argc, argv)) return LFA_EXIT_UNUSABLE;
  lfa_error err = {0};
  lfa_version_list versions;
  lfa_names names;
  lfa_cli_dataset store;
  if (!lfa_cli_dataset_open(&store, "eval", a.dataset, a.allow_http, a.stats)) return LFA_EXIT_UNUSABLE;
  a.store = &store;
  lfa_status st = lfa_dataset_versions(&versions, &names, store.d.fs, a.dataset, &err);
  if (st == LFA_OK) {
    st = eval_version(&a, &versions, &err);
    lfa_version_list_free(&versions);
    lfa_fs_names_free(&names);
  }
  if (st != LFA_OK) lfa_cli_fail_error("eval", a.dataset, &err);
  lfa_cli_dataset_close(&store);
  return st == LFA_OK ? LFA_EXIT_OK : LFA_EXIT_UNUSABLE;
}
