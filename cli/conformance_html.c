/* conformance_html.c: `lfa conformance --html DIR`. For every scenario
 * that failed, crashed or timed out, DIR/NAME.html draws expected against
 * observed at its failing step (cli/conformance_case.c) and, when its dataset was
 * kept, DIR/NAME.dataset.html is that dataset's `lfa report` page, where
 * each finding links to its cell. DIR/index.html lists them all. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance_out.h"
#include "lfa/escape.h"
#include "lfa/fs.h"
#include "lfa/report.h"

/* A scenario's name as a file name: letters, digits, '_', '-', '.' as
 * they are, anything else '_' (names come from the suite's files). */
static void file_stem(char *out, size_t cap, const char *name) {
  size_t n = 0;
  for (; name[n] != '\0' && n + 1 < cap; n++) {
    char ch = name[n];
    bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                 ch == '-' || (ch == '.' && n > 0);
    out[n] = plain ? ch : '_';
  }
  out[n] = '\0';
}

/* A page is written beside its name and renamed over it once whole
 * (lfa/fs.h lfa_fs_out, FA-CLEAN-14): a failed write leaves no half page,
 * and a link planted at its name is replaced, never written through. */
static lfa_status open_page(lfa_fs_out *page, const char *dir, const char *stem, const char *suffix,
                            lfa_error *err) {
  char path[LFA_CONFORMANCE_PATH_MAX];
  int n = snprintf(path, sizeof path, "%s/%s%s", dir, stem, suffix);
  if (n < 0 || (size_t)n >= sizeof path)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%.256s: the path is too long", dir);
  return lfa_fs_out_open(page, path, err);
}

/* The kept dataset's own report, when there is one: true when written. */
static bool dataset_page(const char *dir, const char *stem, const lfa_conformance_case *c, lfa_error *err) {
  char dataset[LFA_CONFORMANCE_PATH_MAX];
  int n = snprintf(dataset, sizeof dataset, "%s/dataset", c->work_dir);
  if (!c->kept || n < 0 || (size_t)n >= sizeof dataset || !lfa_fs_is_dir(dataset)) return false;
  lfa_report report;
  lfa_error why = {0};
  lfa_fs_out page;
  bool ok = lfa_report_collect(&report, dataset, NULL, &why) == LFA_OK &&
            open_page(&page, dir, stem, ".dataset.html", err) == LFA_OK;
  if (ok) lfa_report_write_html(page.f, &report), ok = lfa_fs_out_commit(&page, err) == LFA_OK;
  lfa_report_free(&report);
  return ok;
}

static lfa_status case_page(const suite_run *r, const char *dir, const lfa_conformance_case *c, lfa_error *err) {
  char stem[256], link[300];
  file_stem(stem, sizeof stem, c->name);
  bool has_dataset = dataset_page(dir, stem, c, err);
  snprintf(link, sizeof link, "%s.dataset.html", stem);
  lfa_fs_out page;
  lfa_status st = open_page(&page, dir, stem, ".html", err);
  if (st != LFA_OK) return st;
  conf_case_html(page.f, c, conf_adapter_name(r), has_dataset ? link : NULL);
  return lfa_fs_out_commit(&page, err);
}

static lfa_status index_page(const suite_run *r, const tally *t, const char *dir, lfa_error *err) {
  lfa_fs_out page;
  lfa_status st = open_page(&page, dir, "index", ".html", err);
  if (st != LFA_OK) return st;
  FILE *f = page.f;
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lfa conformance</title>"
             "<style>%s</style></head><body>\n<h1>Conformance</h1>\n<p>Writer: ", LFA_REPORT_STYLE);
  lfa_put_xml(f, conf_adapter_name(r));
  fprintf(f, ". %zu scenarios: %zu passed, %zu failed, %zu crashed, %zu timed out, %zu skipped.</p>\n<ul>\n",
          r->n_cases, t->passed, t->failed, t->crashed, t->timed_out, t->skipped);
  for (size_t i = 0; i < r->n_cases; i++) {
    const lfa_conformance_case *c = &r->cases[i];
    if (!conf_is_bad(c->verdict)) continue;
    char stem[256];
    file_stem(stem, sizeof stem, c->name);
    fputs("<li><a href=\"", f), lfa_put_xml(f, stem), fputs(".html\">", f), lfa_put_xml(f, c->name);
    fprintf(f, "</a>: %s%s. ", lfa_conformance_verdict_name(c->verdict), c->listed ? " (listed)" : "");
    lfa_put_xml(f, c->message), fputs("</li>\n", f);
  }
  fputs("</ul>\n</body></html>\n", f);
  return lfa_fs_out_commit(&page, err);
}

lfa_status conf_write_html(const suite_run *r, const tally *t, const char *dir, lfa_error *err) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return lfa_fail(err, LFA_ERR_IO, NULL, "%.1024s: %s", dir, strerror(errno));
  lfa_status st = index_page(r, t, dir, err);
  for (size_t i = 0; st == LFA_OK && i < r->n_cases; i++)
    if (conf_is_bad(r->cases[i].verdict)) st = case_page(r, dir, &r->cases[i], err);
  return st;
}
