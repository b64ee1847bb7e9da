/* report.c: `lfa report`, a dataset's history as one self-contained HTML
 * page (report/, lfa/report.h), or one field's grid as an SVG figure. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/fs.h"
#include "lfa/report.h"
#include "dataset_arg.h"

static const char HELP[] =
    "usage: lfa report DATASET -o FILE [--versions A..B] [--fragments A..B]\n"
    "                  [--svg FIELD_ID] [--title TEXT] [--stats] [--allow-http]\n"
    "\n"
    "Draws the history of the Lance dataset at DATASET as one HTML file with\n"
    "no script and nothing fetched from a network: a timeline of the versions\n"
    "(operation, feature flags, fragments, live rows, tracked fields, findings),\n"
    "per tracked field a grid of fragments by versions coloured by the share of\n"
    "live rows assigned (all, none, partial, deleted, absent), with the paths\n"
    "rows took through compactions and row-moving updates, and every finding of\n"
    "`lfa verify` with its requirement's text and a link to its cell.\n"
    "\n"
    "A long history or a wide table is drawn in buckets (several versions per\n"
    "column, a range of fragment ids per row), so the page stays a few MB;\n"
    "each bucket's tooltip names the options that zoom into it.\n"
    "\n"
    "  -o FILE           where the page (or the figure) is written\n"
    "  --versions A..B   only versions A to B (verified, drawn)\n"
    "  --fragments A..B  only fragment ids A to B\n"
    "  --svg FIELD_ID    write only that field's grid, as a standalone SVG\n"
    "  --title TEXT      the SVG's title (default: the dataset and field)\n"
    "  --stats           requests, bytes read, retries: what reaching DATASET\n"
    "                    cost, one line on stderr\n"
    "  --allow-http      allow a plain http:// endpoint for s3:// (AWS_ALLOW_HTTP=true)\n"
    "\n"
    "The page names DATASET as given: the report of s3://B/P and that of a\n"
    "local copy of it differ only there (the two are otherwise the same bytes).\n"
    "\n"
    LFA_CLI_DATASET_HELP_DATASET
    "\n"
    "Exit status: 0 written, no error finding; 1 written, with error findings;\n"
    "2 the dataset cannot be listed, no version in range, the field is not\n"
    "tracked, FILE cannot be written, or bad usage, with one line on stderr.\n";

typedef struct report_args {
  const char *dataset, *out, *versions, *fragments, *title;
  uint64_t svg_field;
  size_t has_svg;
  bool stats, allow_http;
  lfa_report_options options;
} report_args;

/* "A..B" with A <= B, both decimal. */
static bool parse_range(const char *opt, const char *text, bool *has, uint64_t *lo, uint64_t *hi) {
  const char *dots = text ? strstr(text, "..") : NULL;
  char first[32];
  if (dots == NULL || (size_t)(dots - text) >= sizeof first) {
    fprintf(stderr, "lfa report: %s wants A..B\n", opt);
    return false;
  }
  memcpy(first, text, (size_t)(dots - text));
  first[dots - text] = '\0';
  if (!lfa_cli_u64(lo, "report", opt, first, 0, UINT64_MAX) || !lfa_cli_u64(hi, "report", opt, dots + 2, 0, UINT64_MAX))
    return false;
  if (*lo > *hi) {
    fprintf(stderr, "lfa report: %s %" PRIu64 "..%" PRIu64 " is empty\n", opt, *lo, *hi);
    return false;
  }
  *has = true;
  return true;
}

static bool parse_args(report_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  const lfa_cli_option opts[] = {
      {"-o", LFA_CLI_TEXT, &a->out, NULL, 1, 0, 0},
      {"--versions", LFA_CLI_TEXT, &a->versions, NULL, 1, 0, 0},
      {"--fragments", LFA_CLI_TEXT, &a->fragments, NULL, 1, 0, 0},
      {"--svg", LFA_CLI_U64, &a->svg_field, &a->has_svg, 1, 0, INT32_MAX},
      {"--title", LFA_CLI_TEXT, &a->title, NULL, 1, 0, 0},
      {"--stats", LFA_CLI_FLAG, &a->stats, NULL, 1, 0, 0},
      {"--allow-http", LFA_CLI_FLAG, &a->allow_http, NULL, 1, 0, 0},
  };
  int r = lfa_cli_parse("report", HELP, opts, sizeof opts / sizeof opts[0], &a->dataset, 1, argc, argv);
  if (r < 0) exit(LFA_EXIT_OK);
  if (r == 0) return false;
  if (a->dataset == NULL || a->out == NULL) {
    fprintf(stderr, "lfa report: missing %s (see lfa report --help)\n", a->dataset ? "-o FILE" : "DATASET");
    return false;
  }
  lfa_report_options *o = &a->options;
  if (a->versions && !parse_range("--versions", a->versions, &o->has_versions, &o->version_lo, &o->version_hi))
    return false;
  return !a->fragments || parse_range("--fragments", a->fragments, &o->has_fragments, &o->fragment_lo, &o->fragment_hi);
}

static int write_out(const report_args *a, const lfa_report *r) {
  const lfa_report_grid *g = a->has_svg ? lfa_report_grid_of(r, (int32_t)a->svg_field) : NULL;
  if (a->has_svg && g == NULL) {
    lfa_cli_fail("report", a->dataset, "that field is not tracked in any version in range");
    return LFA_EXIT_UNUSABLE;
  }
  lfa_fs_out out; /* written beside --out, then renamed over it: a link there is replaced, not followed */
  lfa_error err = {0};
  if (lfa_fs_out_open(&out, a->out, &err) != LFA_OK) {
    lfa_cli_fail("report", a->out, err.msg);
    return LFA_EXIT_UNUSABLE;
  }
  FILE *f = out.f;
  if (g == NULL) lfa_report_write_html(f, r);
  else {
    char title[256];
    snprintf(title, sizeof title, "field %d", g->field_id);
    lfa_report_write_svg(f, r, g, a->title ? a->title : title);
  }
  if (lfa_fs_out_commit(&out, &err) != LFA_OK) {
    lfa_cli_fail("report", a->out, err.msg);
    return LFA_EXIT_UNUSABLE;
  }
  return lfa_findings_count(&r->verified.findings, LFA_SEVERITY_ERROR) ? LFA_EXIT_FINDINGS : LFA_EXIT_OK;
}

int lfa_cli_report(int argc, char **argv) {
  report_args a;
  if (!parse_args(&a, argc, argv)) return LFA_EXIT_UNUSABLE;
  lfa_cli_dataset store;
  if (!lfa_cli_dataset_open(&store, "report", a.dataset, a.allow_http, a.stats)) return LFA_EXIT_UNUSABLE;
  a.options.fs = store.d.fs;
  lfa_report r;
  lfa_error err = {0};
  int code = LFA_EXIT_UNUSABLE;
  if (lfa_report_collect(&r, a.dataset, &a.options, &err) != LFA_OK) lfa_cli_fail("report", a.dataset, err.msg);
  else code = write_out(&a, &r);
  lfa_report_free(&r);
  lfa_cli_dataset_close(&store);
  return code;
}
