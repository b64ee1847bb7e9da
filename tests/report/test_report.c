/* test_report.c: the report layer (lfa/report.h). The requirement table
 * generated from spec/ against spec/requirements.tsv read here; a history
 * written by the reference writer (150 fragments of 4 rows, one write on
 * the first row of every fragment, then 130 one-row writes) summed into
 * buckets, every sum checked against what the history's own parameters
 * give; the page bounded; unusable input refused. Requirement ids:
 * FA-VERIFY-2 (a finding names its requirement, whose text the page
 * quotes), FA-SEM-1 (the assigned share of the live rows). */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lfa/history.h"
#include "lfa/report.h"

enum { FRAGMENTS = 150, ROWS = 4, COMMITS = 130, VERSIONS = COMMITS + 2 };

static void requirement_table_matches_the_tsv(void **state) {
  (void)state;
  FILE *f = fopen("spec/requirements.tsv", "r");
  assert_non_null(f);
  char line[1024];
  size_t seen = 0;
  assert_non_null(fgets(line, sizeof line, f)); /* the header */
  while (fgets(line, sizeof line, f)) {
    char id[64], level[16], file[64];
    if (sscanf(line, "%63[^\t]\t%15[^\t]\t%63[^\t]", id, level, file) != 3) continue;
    const lfa_requirement_text *q = lfa_requirement_find(id);
    assert_non_null(q);
    assert_string_equal(q->level, level);
    assert_int_equal(strncmp(q->where, file, 2), 0); /* "05§3" is in 05-operations.md */
    assert_true(strlen(q->text) > 10);
    seen++;
  }
  fclose(f);
  assert_int_equal(seen, LFA_REQUIREMENT_TEXTS_COUNT);
  assert_null(lfa_requirement_find("FA-" "ZZZ-1")); /* no such id */
  assert_null(lfa_requirement_find(NULL));
}

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
static const char *ID[] = {"id"}, *EMB[] = {"emb"};

static void write_emb(lfa_history *h, const uint64_t *keys, size_t n) {
  lfa_error err = {0};
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = {n, keys}, .fields = {1, EMB}, .rewrite_columns = true};
  assert_int_equal(lfa_history_apply(h, &w, 0, &err), LFA_OK);
}

static void write_history(const char *dir) {
  uint64_t keys[FRAGMENTS * ROWS];
  for (size_t k = 0; k < FRAGMENTS * ROWS; k++) keys[k] = k + 1;
  lfa_history h;
  lfa_error err = {0};
  assert_int_equal(lfa_history_open(&h, dir, 42, &err), LFA_OK);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {FRAGMENTS * ROWS, keys},
                   .rows_per_file = ROWS, .fields = {1, ID}};
  assert_int_equal(lfa_history_apply(&h, &c, 0, &err), LFA_OK);
  for (size_t f = 0; f < FRAGMENTS; f++) keys[f] = f * ROWS + 1;
  write_emb(&h, keys, FRAGMENTS);
  for (uint64_t j = 0; j < COMMITS; j++) { /* row 1 + j / FRAGMENTS of fragment j % FRAGMENTS */
    uint64_t key = (j % FRAGMENTS) * ROWS + 2 + j / FRAGMENTS;
    write_emb(&h, &key, 1);
  }
  lfa_history_close(&h);
}

static void sums(const lfa_report *r, const lfa_report_grid *g, uint64_t *live, uint64_t *assigned, uint64_t *present) {
  *live = *assigned = *present = 0;
  for (size_t i = 0; i < (size_t)LFA_REPORT_ROWS_MAX * r->columns; i++)
    *live += g->cells[i].live, *assigned += g->cells[i].assigned, *present += g->cells[i].present;
}

static void history_in_buckets(void **state) {
  (void)state;
  char dir[] = "/tmp/lfa-test-report-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char data[64];
  snprintf(data, sizeof data, "%s/d", dir);
  write_history(data);
  lfa_report r;
  lfa_error err = {0};
  assert_int_equal(lfa_report_collect(&r, data, NULL, &err), LFA_OK);
  assert_int_equal(r.n_versions, VERSIONS);
  assert_int_equal(r.column_width, 2); /* 132 versions in at most 100 columns */
  assert_int_equal(r.columns, VERSIONS / 2);
  assert_int_equal(r.n_grids, 1);
  const lfa_report_grid *g = &r.grids[0];
  assert_int_equal(g->field_id, 1);
  assert_int_equal(g->row_width, 4); /* 150 ids in at most 64 rows */
  assert_true(lfa_report_rows_used(&r, g) * r.columns <= LFA_REPORT_CELLS_MAX);
  uint64_t live, assigned, present;
  sums(&r, g, &live, &assigned, &present);
  assert_int_equal(present, (uint64_t)VERSIONS * FRAGMENTS);
  assert_int_equal(live, (uint64_t)VERSIONS * FRAGMENTS * ROWS);
  /* version 1 none, version 2 one per fragment, then one more per commit */
  uint64_t want = 0;
  for (uint64_t v = 2; v <= VERSIONS; v++) want += FRAGMENTS + (v - 2);
  assert_int_equal(assigned, want);
  assert_int_equal(lfa_report_cell_mark(&g->cells[0]), LFA_MARK_PARTIAL); /* v1..2, fragments 0..3: 4 of 32 */
  assert_int_equal(r.verified.findings.count, 0);
  assert_int_equal(g->n_paths, 0); /* in-place writes move no row */

  char page[96];
  snprintf(page, sizeof page, "%s/page.html", dir);
  FILE *f = fopen(page, "w");
  assert_non_null(f);
  lfa_report_write_html(f, &r);
  long size = ftell(f);
  fclose(f);
  assert_true(size > 1000 && size < 5 * 1024 * 1024);
  lfa_report_free(&r);

  lfa_report_options narrow = {.has_versions = true, .version_lo = 10, .version_hi = 19,
                               .has_fragments = true, .fragment_lo = 100, .fragment_hi = 109};
  assert_int_equal(lfa_report_collect(&r, data, &narrow, &err), LFA_OK);
  assert_int_equal(r.n_versions, 10);
  assert_int_equal(r.column_width, 1);
  assert_int_equal(r.grids[0].row_width, 1);
  sums(&r, &r.grids[0], &live, &assigned, &present);
  assert_int_equal(present, 10 * 10);
  lfa_report_free(&r);

  lfa_report_options none = {.has_versions = true, .version_lo = 1000, .version_hi = 2000};
  assert_int_not_equal(lfa_report_collect(&r, data, &none, &err), LFA_OK);
  lfa_report_free(&r);
  snprintf(data, sizeof data, "%s/missing", dir);
  assert_int_not_equal(lfa_report_collect(&r, data, NULL, &err), LFA_OK);
  lfa_report_free(&r);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(requirement_table_matches_the_tsv),
      cmocka_unit_test(history_in_buckets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
