/* report.h: `lfa report`, one self-contained HTML page of a dataset's
 * history: a version timeline, per tracked field a grid of fragments by
 * versions coloured by the assigned share of live rows (00§1: the
 * assignment set of the live rows), the paths rows took through
 * compactions and row-moving updates, and the verifier's findings (10§4),
 * each with its requirement's text and a link to its cell.
 *
 *   collect.c      reads every version once with the reader (lfa/dataset.h)
 *                  and sums it into bounded buckets
 *   html.c         the page: timeline, findings, legend
 *   grid.c         the SVG grid of one field (also the spec's figures)
 *   requirement.c  the requirement texts generated from spec/ at build time
 *
 * Memory and output are bounded whatever the history: versions are summed
 * into at most LFA_REPORT_COLUMNS_MAX columns and fragments into at most
 * LFA_REPORT_ROWS_MAX rows per field (a bucket spans a range; the page
 * says which and how to zoom with --versions and --fragments).
 */
#ifndef LFA_REPORT_H
#define LFA_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/verify.h"

/* A requirement as spec/ states it (generated table, sorted by id). */
typedef struct lfa_requirement_text {
  const char *id;    /* "FA-DELETE-1" */
  const char *level; /* "MUST", "SHOULD", "MAY" */
  const char *where; /* "05§3" */
  const char *text;
} lfa_requirement_text;

extern const lfa_requirement_text LFA_REQUIREMENT_TEXTS[];
extern const size_t LFA_REQUIREMENT_TEXTS_COUNT;

/* The requirement with this id, or NULL. */
const lfa_requirement_text *lfa_requirement_find(const char *id);

/* Drawing bounds: what keeps a page of any history under a few MB. */
enum {
  LFA_REPORT_COLUMNS_MAX = 100,  /* version columns per grid */
  LFA_REPORT_ROWS_MAX = 64,      /* fragment rows per grid (one bit each in a word: collect.c) */
  LFA_REPORT_CELLS_MAX = 10000,  /* cells of all grids together */
  LFA_REPORT_FIELDS_MAX = 32,    /* tracked fields drawn (the others counted) */
  LFA_REPORT_FINDINGS_MAX = 400, /* findings listed (the others counted) */
  LFA_REPORT_PATHS_MAX = 4000,   /* row paths drawn per grid */
  LFA_REPORT_TIMELINE_MAX = 1000,/* timeline rows sampled evenly, and as many again with findings */
  LFA_REPORT_TEXT_MAX = 240      /* bytes of one name, path or message from the dataset shown */
};

/* What a cell shows (00§1, 05§3): every live row assigned, none, some; a
 * fragment that left the manifest or has no live row; no fragment; or the
 * version where the field stopped being tracked while its fragments stayed
 * (the state an older writer drops, FA-FLAG-6, or a drop, FA-PROJECT-2). */
typedef enum lfa_report_mark {
  LFA_MARK_ABSENT = 0,
  LFA_MARK_ALL,
  LFA_MARK_NONE,
  LFA_MARK_PARTIAL,
  LFA_MARK_DELETED,
  LFA_MARK_ENDED
} lfa_report_mark;

/* One bucket of one field: sums over the (version, fragment) pairs in it. */
typedef struct lfa_report_cell {
  uint64_t live, assigned; /* live rows, and those assigned */
  uint32_t present;        /* pairs whose fragment is in the manifest */
  uint32_t deleted;        /* pairs whose fragment left or has no live row */
  uint32_t ended;          /* fragments of the version where tracking ended */
  uint32_t findings;       /* findings located here */
} lfa_report_cell;

/* A path rows took between column c-1 and c (from row `from` to row `to`). */
typedef struct lfa_report_path {
  uint32_t column, from, to;
} lfa_report_path;

typedef struct lfa_report_grid {
  int32_t field_id;
  char *name;           /* the schema's name (owned), or NULL */
  uint64_t row_width;   /* fragment ids per row; doubles as ids grow */
  lfa_report_cell *cells; /* [row * columns + column], LFA_REPORT_ROWS_MAX rows */
  size_t n_paths, cap_paths;
  lfa_report_path *paths;
  size_t paths_dropped;
  bool tracked_before;  /* tracked at the last readable version */
} lfa_report_grid;

/* One version of the timeline. */
typedef struct lfa_report_version {
  uint64_t version;
  const char *operation; /* static; NULL: no transaction */
  uint64_t reader_flags, writer_flags;
  uint64_t fragments, live_rows;
  char *tracked;      /* "id name, ..." of the tracked fields (owned) */
  char *unreadable;   /* the reader's error when the version cannot be read (owned) */
  uint32_t findings;  /* findings at this version */
  bool shown;         /* has a timeline row (an anchor "v-N") */
} lfa_report_version;

typedef struct lfa_report_options {
  bool has_versions; /* only versions [version_lo, version_hi] */
  uint64_t version_lo, version_hi;
  bool has_fragments; /* only fragment ids [fragment_lo, fragment_hi] */
  uint64_t fragment_lo, fragment_hi;
  const lfa_fs *fs; /* NULL: POSIX */
} lfa_report_options;

/* OWNERSHIP: everything is owned; lfa_report_free, also after a failure. */
typedef struct lfa_report {
  const char *dataset; /* borrowed: the argument as given */
  lfa_report_options options;
  size_t n_versions;
  lfa_report_version *versions; /* in range, ascending */
  uint64_t column_width;        /* versions per column */
  size_t columns;
  uint64_t fragment_base;       /* the first fragment id of row 0 */
  size_t n_grids;
  lfa_report_grid *grids;       /* ascending by field id */
  size_t grids_dropped;
  lfa_verify_result verified;
} lfa_report;

/* Reads and verifies `dir` within the options' ranges. Fails only when the
 * dataset cannot be listed, no version is in range, or memory runs out;
 * an unreadable version is a timeline entry with its reason. */
lfa_status lfa_report_collect(lfa_report *out, const char *dir, const lfa_report_options *options,
                              lfa_error *err);
void lfa_report_free(lfa_report *report);

/* The grid of a field, or NULL when no version in range tracks it. */
lfa_report_grid *lfa_report_grid_of(const lfa_report *r, int32_t field_id);
/* The column of a version and the row of a fragment id, or SIZE_MAX. */
size_t lfa_report_column(const lfa_report *r, uint64_t version);
size_t lfa_report_row(const lfa_report *r, const lfa_report_grid *g, uint64_t fragment_id);
/* The rows a grid draws: up to its highest row with a cell in use. */
size_t lfa_report_rows_used(const lfa_report *r, const lfa_report_grid *g);
lfa_report_mark lfa_report_cell_mark(const lfa_report_cell *cell);

/* The whole page; `out` is written with the one escaping writer. */
void lfa_report_write_html(FILE *out, const lfa_report *r);
/* One field's grid as a standalone SVG document (the spec's figures):
 * deterministic, no date, no path of this machine. */
void lfa_report_write_svg(FILE *out, const lfa_report *r, const lfa_report_grid *g, const char *title);
/* The grid inline in a page: `anchors` gives cells with findings their ids. */
void lfa_report_grid_svg(FILE *out, const lfa_report *r, size_t grid_index, bool anchors);

/* One finding as a list item (id "f-INDEX"): severity, rule, place (a
 * link to `href` when not NULL), file, message, and its requirement's
 * text from spec/. LFA_REPORT_STYLE is the pages' one style sheet. */
void lfa_report_finding_html(FILE *out, const lfa_finding *f, size_t index, const char *href);
extern const char LFA_REPORT_STYLE[];

/* The anchor of the cell a finding is located at ("c-2-5-7"), or of its
 * version's timeline row ("v-12") when it names no tracked field's cell. */
void lfa_report_finding_anchor(char *out, size_t cap, const lfa_report *r, const lfa_finding *f);

#endif
