/* html.c: the page of `lfa report`: one self-contained HTML file, with no
 * script, no external resource and no font, so it opens anywhere offline.
 *
 *   header     the dataset, the range, the verifier's summary (10§4)
 *   timeline   one row per version: operation, feature flags (03§1),
 *              fragments, live rows, tracked fields, its findings
 *   fields     per tracked field the grid of grid.c
 *   findings   each with its requirement's text from spec/ and a link to
 *              its cell (or its version's row when it names no cell)
 *
 * Every string from the dataset or the command line is written by the one
 * escaping writer (lfa_put_xml: character data and quoted attributes). */
#include <inttypes.h>
#include <string.h>

#include "lfa/escape.h"
#include "lfa/flags.h"
#include "lfa/report.h"

const char LFA_REPORT_STYLE[] =
    "body{font:14px/1.4 sans-serif;margin:1.5em;color:#24292f}"
    "table{border-collapse:collapse;font-size:12px}"
    "th,td{border:1px solid #d0d7de;padding:2px 6px;text-align:left;vertical-align:top}"
    "tr.bad td{background:#ffebe9}td.n{text-align:right}"
    ".scroll{max-height:32em;overflow:auto}.grid{overflow:auto}"
    "li.error{color:#a40e26}li.warning{color:#7d4e00}"
    "blockquote{margin:.3em 0 .8em 1em;color:#57606a;border-left:3px solid #d0d7de;padding-left:.6em}"
    ":target{outline:3px solid #cf222e}";

static void text(FILE *out, const char *s) { lfa_put_xml(out, s); }

/* Text from the dataset, at most LFA_REPORT_TEXT_MAX bytes of it, so no
 * name or message can make the page large; "..." says it was cut. */
static void text_cut(FILE *out, const char *s) {
  char cut[LFA_REPORT_TEXT_MAX + 1];
  size_t n = s ? strlen(s) : 0;
  if (n <= LFA_REPORT_TEXT_MAX) {
    text(out, s);
    return;
  }
  memcpy(cut, s, LFA_REPORT_TEXT_MAX);
  cut[LFA_REPORT_TEXT_MAX] = '\0';
  text(out, cut), fputs("...", out);
}

static void flags_cell(FILE *out, uint64_t flags, bool tracked) {
  fprintf(out, "<td class=\"n\">%" PRIu64, flags);
  const char *sep = " (";
  for (unsigned k = 0; k < 64; k++) {
    uint64_t bit = (uint64_t)1 << k;
    const char *name = (flags & bit) ? lfa_flag_name(bit, tracked) : NULL;
    if (name == NULL) continue;
    fputs(sep, out), text(out, name);
    sep = ", ";
  }
  fputs(sep[0] == ',' ? ")</td>" : "</td>", out);
}

/* The first finding of a version, for its timeline row's link. */
static size_t first_finding(const lfa_report *r, uint64_t version) {
  for (size_t i = 0; i < r->verified.findings.count; i++)
    if (r->verified.findings.items[i].version == version) return i;
  return SIZE_MAX;
}

static void timeline_row(FILE *out, const lfa_report *r, const lfa_report_version *v) {
  fprintf(out, "<tr id=\"v-%" PRIu64 "\"%s><td class=\"n\">%" PRIu64 "</td>", v->version,
          v->findings ? " class=\"bad\"" : "", v->version);
  if (v->unreadable) {
    fputs("<td colspan=\"6\">unreadable: ", out), text_cut(out, v->unreadable), fputs("</td>", out);
  } else {
    fputs("<td>", out), text(out, v->operation ? v->operation : "(no transaction)"), fputs("</td>", out);
    bool tracked = v->tracked && v->tracked[0];
    flags_cell(out, v->reader_flags, tracked);
    flags_cell(out, v->writer_flags, tracked);
    fprintf(out, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td><td>", v->fragments, v->live_rows);
    text_cut(out, v->tracked), fputs("</td>", out);
  }
  size_t f = first_finding(r, v->version);
  if (v->findings && f != SIZE_MAX && f < LFA_REPORT_FINDINGS_MAX)
    fprintf(out, "<td><a href=\"#f-%zu\">&#9679; %" PRIu32 "</a></td></tr>\n", f, v->findings);
  else if (v->findings) fprintf(out, "<td><a href=\"#findings\">&#9679; %" PRIu32 "</a></td></tr>\n", v->findings);
  else fputs("<td></td></tr>\n", out);
}

/* Every version when there are few; else a sample of rows, every version
 * with a finding among them, so each finding's link has its row. */
static void timeline(FILE *out, const lfa_report *r) {
  size_t every = (r->n_versions + LFA_REPORT_TIMELINE_MAX - 1) / LFA_REPORT_TIMELINE_MAX;
  fputs("<h2 id=\"timeline\">Timeline</h2>\n", out);
  if (every > 1) fprintf(out, "<p>Every %zu-th version, and versions with findings.</p>\n", every);
  fputs("<div class=\"scroll\"><table><thead><tr><th>version</th><th>operation</th><th>reader flags</th>"
        "<th>writer flags</th><th>fragments</th><th>live rows</th><th>tracked fields</th><th>findings</th>"
        "</tr></thead><tbody>\n",
        out);
  for (size_t i = 0; i < r->n_versions; i++)
    if (r->versions[i].shown) timeline_row(out, r, &r->versions[i]);
  fputs("</tbody></table></div>\n", out);
}

static void legend(FILE *out) {
  fputs("<p>Columns are versions, rows fragment ids. Fill: <b style=\"color:#1a7f37\">&#9632;</b> every live row "
        "assigned (all), &#9633; no live row assigned (none), <b style=\"color:#b0d349\">&#9632;</b> a share "
        "(partial: pale yellow few, green most), <b style=\"color:#6e7781\">&#9638;</b> hatched: the fragment "
        "left the manifest or has no live row (deleted), empty: no fragment (absent), <b style=\"color:#cf222e\">&#9633;</b> "
        "dashed pale red: the field stopped being tracked while its fragments stayed (ended). Blue curves: the paths "
        "rows took through compactions and row-moving updates. A red outline: a finding. Hover a cell for its "
        "numbers; a bucket of several versions or fragments names the options that zoom into it.</p>\n",
        out);
}

static void fields(FILE *out, const lfa_report *r) {
  fputs("<h2 id=\"fields\">Tracked fields</h2>\n", out);
  legend(out);
  if (r->n_grids == 0) fputs("<p>No version in range tracks a field.</p>\n", out);
  for (size_t k = 0; k < r->n_grids; k++) {
    const lfa_report_grid *g = &r->grids[k];
    fprintf(out, "<h3 id=\"field-%d\">field %d ", g->field_id, g->field_id);
    text_cut(out, g->name ? g->name : "(not in the schema)");
    fputs("</h3>\n<p>", out);
    fprintf(out, "%" PRIu64 " version%s per column, %" PRIu64 " fragment id%s per row", r->column_width,
            r->column_width == 1 ? "" : "s", g->row_width, g->row_width == 1 ? "" : "s");
    if (g->paths_dropped) fprintf(out, "; %zu row paths not drawn (over %d)", g->paths_dropped, LFA_REPORT_PATHS_MAX);
    fprintf(out, ".</p>\n<div class=\"grid\" data-field=\"%d\">", g->field_id);
    lfa_report_grid_svg(out, r, k, true);
    fputs("</div>\n", out);
  }
  if (r->grids_dropped)
    fprintf(out, "<p>%zu more tracked fields are not drawn (over %d).</p>\n", r->grids_dropped, LFA_REPORT_FIELDS_MAX);
}

static void finding_place(FILE *out, const lfa_finding *f) {
  fprintf(out, "version %" PRIu64, f->version);
  if (f->has_field) {
    fprintf(out, ", field %d", f->field_id);
    if (f->field_name) fputs(" (", out), text_cut(out, f->field_name), fputc(')', out);
  }
  if (f->has_fragment) fprintf(out, ", fragment %" PRIu64, f->fragment_id);
  if (f->n_rows) {
    fputs(", rows", out);
    for (size_t i = 0; i < f->n_rows; i++) fprintf(out, "%s%" PRIu64, i ? ", " : " ", f->rows[i]);
  }
}

void lfa_report_finding_html(FILE *out, const lfa_finding *f, size_t index, const char *href) {
  fprintf(out, "<li id=\"f-%zu\" class=\"%s\"><b>%s ", index, lfa_severity_name(f->severity),
          lfa_severity_name(f->severity));
  text(out, f->rule);
  fputs("</b> ", out);
  if (href) fputs("<a href=\"", out), text(out, href), fputs("\">", out);
  finding_place(out, f);
  if (href) fputs("</a>", out);
  if (f->file) fputs(" <code>", out), text_cut(out, f->file), fputs("</code>", out);
  fputs(": ", out), text_cut(out, f->message);
  const lfa_requirement_text *q = lfa_requirement_find(f->rule);
  fputs("<blockquote>", out);
  if (q == NULL) fputs("(no requirement text in this build's spec)", out);
  else text(out, q->id), fputs(" (", out), text(out, q->level), fputs(", ", out), text(out, q->where),
       fputs("): ", out), text(out, q->text);
  fputs("</blockquote></li>\n", out);
}

static void finding_item(FILE *out, const lfa_report *r, size_t i) {
  char anchor[96];
  anchor[0] = '#';
  lfa_report_finding_anchor(anchor + 1, sizeof anchor - 1, r, &r->verified.findings.items[i]);
  lfa_report_finding_html(out, &r->verified.findings.items[i], i, anchor);
}

static void findings(FILE *out, const lfa_report *r) {
  const lfa_findings *l = &r->verified.findings;
  fprintf(out, "<h2 id=\"findings\">Findings</h2>\n<p>%zu error%s, %zu warning%s, %zu info.</p>\n",
          lfa_findings_count(l, LFA_SEVERITY_ERROR), lfa_findings_count(l, LFA_SEVERITY_ERROR) == 1 ? "" : "s",
          lfa_findings_count(l, LFA_SEVERITY_WARNING), lfa_findings_count(l, LFA_SEVERITY_WARNING) == 1 ? "" : "s",
          lfa_findings_count(l, LFA_SEVERITY_INFO));
  if (l->count == 0) return;
  fputs("<ol start=\"0\">\n", out);
  for (size_t i = 0; i < l->count && i < LFA_REPORT_FINDINGS_MAX; i++) finding_item(out, r, i);
  fputs("</ol>\n", out);
  if (l->count > LFA_REPORT_FINDINGS_MAX)
    fprintf(out, "<p>%zu more findings are not listed (over %d): narrow --versions.</p>\n",
            l->count - LFA_REPORT_FINDINGS_MAX, LFA_REPORT_FINDINGS_MAX);
}

static void header(FILE *out, const lfa_report *r) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lfa report: ", out);
  text_cut(out, r->dataset);
  fprintf(out, "</title><style>%s</style></head><body>\n<h1>Field assignment report</h1>\n<p>Dataset <code>",
          LFA_REPORT_STYLE);
  text_cut(out, r->dataset);
  fprintf(out, "</code>: %zu version%s (%" PRIu64 " to %" PRIu64 ")", r->n_versions, r->n_versions == 1 ? "" : "s",
          r->versions[0].version, r->versions[r->n_versions - 1].version);
  if (r->options.has_fragments)
    fprintf(out, ", fragments %" PRIu64 " to %" PRIu64, r->options.fragment_lo, r->options.fragment_hi);
  fprintf(out, "; %zu finding%s. Metadata only: .lance data files are never read.</p>\n", r->verified.findings.count,
          r->verified.findings.count == 1 ? "" : "s");
  fputs("<p><a href=\"#timeline\">Timeline</a> &middot; <a href=\"#fields\">Tracked fields</a> &middot; "
        "<a href=\"#findings\">Findings</a></p>\n",
        out);
}

void lfa_report_write_html(FILE *out, const lfa_report *r) {
  header(out, r);
  timeline(out, r);
  fields(out, r);
  findings(out, r);
  fputs("</body></html>\n", out);
}
