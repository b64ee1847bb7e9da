/* grid.c: one tracked field's fragments-by-versions grid as inline SVG.
 *
 * A column is a version (or a bucket of them), a row a fragment id (or a
 * range). The fill says the assigned share of the live rows (00§1): dark
 * green every live row, white none, a yellow-to-green ramp for a part;
 * hatched grey a fragment that left the manifest or has no live row left
 * (05§3); nothing for no fragment; pale red with a dashed outline the
 * fragments of the version where the field stopped being tracked. Curves between columns are the paths
 * rows took: a compaction's groups (FA-REMAP-1) and a row-rewriting
 * update's moves (FA-UPDATE-6). A cell with a finding has a red outline
 * and, in a page, the id its finding links to. Every text from the dataset
 * goes through the one escaping writer (lfa_put_xml), and the output
 * depends on the report alone, so a figure is the same on every machine. */
#include <inttypes.h>

#include "lfa/escape.h"
#include "lfa/report.h"

enum { LABEL_W = 96, HEAD_H = 30, LEGEND_H = 28 };

typedef struct geometry {
  unsigned cell_w, gap, pitch, row_h, rows, columns;
} geometry;

static unsigned clamp(unsigned v, unsigned lo, unsigned hi) { return v < lo ? lo : v > hi ? hi : v; }

static geometry geometry_of(const lfa_report *r, const lfa_report_grid *g) {
  geometry m = {0};
  m.columns = (unsigned)r->columns;
  m.rows = (unsigned)lfa_report_rows_used(r, g);
  if (m.rows == 0) m.rows = 1;
  m.pitch = clamp(900 / m.columns, 9, 48);
  m.gap = m.pitch / 3, m.cell_w = m.pitch - m.gap;
  m.row_h = clamp(384 / m.rows, 6, 20);
  return m;
}

static const char *mark_name(lfa_report_mark mark) {
  static const char *const names[] = {"absent", "all", "none", "partial", "deleted", "ended"};
  return names[mark];
}

/* The ramp from pale yellow (few rows assigned) to mid green (almost all). */
static void partial_fill(char out[8], const lfa_report_cell *c) {
  static const unsigned lo[3] = {0xf5, 0xdf, 0x4d}, hi[3] = {0x6c, 0xc6, 0x44};
  double share = (double)c->assigned / (double)c->live;
  unsigned rgb[3];
  for (int k = 0; k < 3; k++) rgb[k] = (unsigned)((double)lo[k] + share * ((double)hi[k] - (double)lo[k]) + 0.5);
  snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 0xff, rgb[1] & 0xff, rgb[2] & 0xff);
}

/* "versions 3..9" or "version 3", from the columns' first and last. */
static void span_text(FILE *out, const char *one, const char *many, uint64_t lo, uint64_t hi) {
  if (lo == hi) fprintf(out, "%s %" PRIu64, one, lo);
  else fprintf(out, "%s %" PRIu64 "..%" PRIu64, many, lo, hi);
}

static void version_span(const lfa_report *r, size_t column, uint64_t *lo, uint64_t *hi) {
  size_t first = column * r->column_width, last = first + r->column_width - 1;
  if (last >= r->n_versions) last = r->n_versions - 1;
  *lo = r->versions[first].version, *hi = r->versions[last].version;
}

static void cell_title(FILE *out, const lfa_report *r, const lfa_report_grid *g, size_t row, size_t column,
                       const lfa_report_cell *c) {
  uint64_t vlo, vhi, flo = r->fragment_base + row * g->row_width, fhi = flo + g->row_width - 1;
  version_span(r, column, &vlo, &vhi);
  fputs("<title>", out);
  span_text(out, "version", "versions", vlo, vhi);
  fputs(", ", out);
  span_text(out, "fragment", "fragments", flo, fhi);
  lfa_report_mark mark = lfa_report_cell_mark(c);
  fprintf(out, ": %s, %" PRIu64 " of %" PRIu64 " live rows assigned", mark_name(mark), c->assigned, c->live);
  if (c->deleted) fprintf(out, ", %" PRIu32 " left the manifest", c->deleted);
  if (c->ended) fprintf(out, ", tracking ended on %" PRIu32, c->ended);
  if (c->findings) fprintf(out, ", %" PRIu32 " finding%s", c->findings, c->findings == 1 ? "" : "s");
  if (vlo != vhi || flo != fhi)
    fprintf(out, " (zoom: --versions %" PRIu64 "..%" PRIu64 " --fragments %" PRIu64 "..%" PRIu64 ")", vlo, vhi, flo,
            fhi);
  fputs("</title>", out);
}

/* One cell: its mark as class and fill, the pairs it holds (data-p), and
 * at full resolution its version and fragment (data-v, data-f). */
static void cell_svg(FILE *out, const lfa_report *r, size_t gi, size_t row, size_t column, const geometry *m,
                     bool anchors) {
  const lfa_report_grid *g = &r->grids[gi];
  const lfa_report_cell *c = &g->cells[row * r->columns + column];
  lfa_report_mark mark = lfa_report_cell_mark(c);
  if (mark == LFA_MARK_ABSENT && c->findings == 0) return;
  unsigned x = LABEL_W + (unsigned)column * m->pitch, y = HEAD_H + (unsigned)row * m->row_h;
  char fill[16] = "#1a7f37";
  if (mark == LFA_MARK_NONE) snprintf(fill, sizeof fill, "#ffffff");
  else if (mark == LFA_MARK_PARTIAL) partial_fill(fill, c);
  else if (mark == LFA_MARK_DELETED) snprintf(fill, sizeof fill, "url(#h%zu)", gi);
  else if (mark == LFA_MARK_ABSENT) snprintf(fill, sizeof fill, "none");
  else if (mark == LFA_MARK_ENDED) snprintf(fill, sizeof fill, "#ffebe9");
  fputs("<rect", out);
  if (anchors && c->findings) fprintf(out, " id=\"c-%zu-%zu-%zu\"", gi, row, column);
  fprintf(out, " class=\"m-%s%s\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\"", mark_name(mark),
          c->findings ? " bad" : "", x, y, m->cell_w, m->row_h - 1, fill);
  if (c->findings) fputs(" stroke=\"#cf222e\" stroke-width=\"2\"", out);
  else if (mark == LFA_MARK_NONE) fputs(" stroke=\"#8c959f\" stroke-width=\"1\"", out);
  else if (mark == LFA_MARK_ENDED) fputs(" stroke=\"#cf222e\" stroke-dasharray=\"2 2\"", out);
  if (c->present) fprintf(out, " data-p=\"%" PRIu32 "\"", c->present);
  if (r->column_width == 1 && g->row_width == 1)
    fprintf(out, " data-v=\"%" PRIu64 "\" data-f=\"%" PRIu64 "\"", r->versions[column].version,
            r->fragment_base + row);
  fputc('>', out);
  cell_title(out, r, g, row, column, c);
  fputs("</rect>\n", out);
}

static void labels_svg(FILE *out, const lfa_report *r, const lfa_report_grid *g, const geometry *m) {
  unsigned every = clamp((36 + m->pitch - 1) / m->pitch, 1, 1000);
  fputs("<g font-family=\"sans-serif\" font-size=\"10\" fill=\"#24292f\">\n", out);
  for (size_t c = 0; c < r->columns; c += every) {
    uint64_t lo, hi;
    version_span(r, c, &lo, &hi);
    fprintf(out, "<text x=\"%u\" y=\"%u\">%" PRIu64 "</text>\n", LABEL_W + (unsigned)c * m->pitch, HEAD_H - 6, lo);
  }
  unsigned every_row = clamp(12 / m->row_h + 1, 1, 1000);
  for (unsigned row = 0; row < m->rows; row += every_row)
    fprintf(out, "<text x=\"4\" y=\"%u\">fragment %" PRIu64 "</text>\n", HEAD_H + row * m->row_h + m->row_h - 2,
            r->fragment_base + row * g->row_width);
  fputs("</g>\n", out);
}

static void paths_svg(FILE *out, const lfa_report_grid *g, const geometry *m) {
  fputs("<g fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\" stroke-opacity=\"0.7\" class=\"paths\">\n", out);
  for (size_t i = 0; i < g->n_paths; i++) {
    const lfa_report_path *p = &g->paths[i];
    if (p->from >= m->rows || p->to >= m->rows) continue;
    unsigned x1 = LABEL_W + (p->column - 1) * m->pitch + m->cell_w, x2 = LABEL_W + p->column * m->pitch;
    unsigned y1 = HEAD_H + p->from * m->row_h + m->row_h / 2, y2 = HEAD_H + p->to * m->row_h + m->row_h / 2;
    fprintf(out, "<path d=\"M%u %uC%u %u %u %u %u %u\"/>\n", x1, y1, x1 + m->gap / 2, y1, x2 - m->gap / 2, y2, x2,
            y2);
  }
  fputs("</g>\n", out);
}

static void svg_open(FILE *out, size_t gi, unsigned width, unsigned height) {
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
          "role=\"img\">\n<defs><pattern id=\"h%zu\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\">"
          "<rect width=\"4\" height=\"4\" fill=\"#6e7781\"/><path d=\"M0 4L4 0\" stroke=\"#ffffff\"/>"
          "</pattern></defs>\n",
          width, height, width, height, gi);
}

static void grid_body(FILE *out, const lfa_report *r, size_t gi, const geometry *m, bool anchors) {
  const lfa_report_grid *g = &r->grids[gi];
  fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#f6f8fa\"/>\n", LABEL_W, HEAD_H,
          m->columns * m->pitch, m->rows * m->row_h);
  labels_svg(out, r, g, m);
  for (size_t row = 0; row < m->rows; row++)
    for (size_t c = 0; c < r->columns; c++) cell_svg(out, r, gi, row, c, m, anchors);
  paths_svg(out, g, m);
}

void lfa_report_grid_svg(FILE *out, const lfa_report *r, size_t gi, bool anchors) {
  geometry m = geometry_of(r, &r->grids[gi]);
  svg_open(out, gi, LABEL_W + m.columns * m.pitch + 8, HEAD_H + m.rows * m.row_h + 8);
  grid_body(out, r, gi, &m, anchors);
  fputs("</svg>\n", out);
}

/* The legend of a standalone figure, below its grid. */
static void legend_svg(FILE *out, size_t gi, unsigned y) {
  static const char *const names[] = {"all", "none", "partial", "deleted", "tracking ended", "row path"};
  char fills[6][16] = {"#1a7f37", "#ffffff", "#b0d349", "", "#ffebe9", ""};
  snprintf(fills[3], sizeof fills[3], "url(#h%zu)", gi);
  fputs("<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#24292f\">\n", out);
  for (unsigned k = 0; k < 6; k++) {
    unsigned x = LABEL_W + k * 90 + (k == 5 ? 30 : 0);
    if (k < 5)
      fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#8c959f\"/>\n", x, y,
              fills[k]);
    else fprintf(out, "<path d=\"M%u %uH%u\" stroke=\"#0969da\" stroke-width=\"2\"/>\n", x, y + 6, x + 12);
    fprintf(out, "<text x=\"%u\" y=\"%u\">%s</text>\n", x + 16, y + 10, names[k]);
  }
  fputs("</g>\n", out);
}

void lfa_report_write_svg(FILE *out, const lfa_report *r, const lfa_report_grid *g, const char *title) {
  size_t gi = (size_t)(g - r->grids);
  geometry m = geometry_of(r, g);
  unsigned width = LABEL_W + m.columns * m.pitch + 8;
  if (width < LABEL_W + 590) width = LABEL_W + 590;
  unsigned grid_bottom = HEAD_H + m.rows * m.row_h;
  svg_open(out, gi, width, grid_bottom + LEGEND_H + 8);
  fputs("<title>", out), lfa_put_xml(out, title), fputs("</title>\n", out);
  grid_body(out, r, gi, &m, false);
  legend_svg(out, gi, grid_bottom + 12);
  fputs("</svg>\n", out);
}
