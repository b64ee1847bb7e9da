/* conformance_case.c: the page `lfa conformance --html DIR` writes for a scenario that
 * did not pass: at its failing step, what the scenario expected drawn
 * against what the writer observed (conformance/SCENARIOS.md: outcome,
 * live rows, tracked fields, and per tracked field the keys whose
 * is_assigned is true, 07§1), then every verifier finding with its
 * requirement's text. Rows are named by the scenario's logical keys; a
 * key strip has one column per key in either side, two rows (expected,
 * observed), and a red outline where they differ. At most
 * LFA_CASE_KEYS_MAX keys are drawn per strip (the page says how many
 * more). Every string from a scenario or an adapter is escaped. */
#include <inttypes.h>
#include <string.h>

#include "conformance_out.h"
#include "lfa/escape.h"
#include "lfa/report.h"
#include "lfa/search.h"

enum { LFA_CASE_KEYS_MAX = 400, KEY_W = 14, KEY_H = 16, KEY_LABEL_W = 80 };

static void text(FILE *out, const char *s) { lfa_put_xml(out, s ? s : ""); }

static int key_order(const void *key, const void *element) {
  return lfa_order_u64(*(const uint64_t *)key, *(const uint64_t *)element);
}

static bool has_key(const lfa_keys *k, uint64_t key) {
  return k != NULL && lfa_search(&key, k->keys, k->count, sizeof key, key_order) != SIZE_MAX;
}

/* The keys of a strip: the union of up to four ascending lists, walked
 * in order with a position in each. */
typedef struct key_union {
  const lfa_keys *lists[4];
  size_t at[4];
} key_union;

static bool next_key(key_union *u, uint64_t *key) {
  bool any = false;
  for (int k = 0; k < 4; k++)
    if (u->lists[k] && u->at[k] < u->lists[k]->count && (!any || u->lists[k]->keys[u->at[k]] < *key))
      *key = u->lists[k]->keys[u->at[k]], any = true;
  for (int k = 0; any && k < 4; k++)
    if (u->lists[k] && u->at[k] < u->lists[k]->count && u->lists[k]->keys[u->at[k]] == *key) u->at[k]++;
  return any;
}

/* One strip: the keys of `expected`, `observed` and both live sets; a key
 * in a side is filled (`fill`), a live key not in it is white, and a key
 * that is not live on that side (when the live sets are given) is grey. */
typedef struct strip {
  const lfa_keys *expected, *observed;
  const lfa_keys *expected_live, *observed_live; /* NULL: every key counts as live */
  const char *fill;
} strip;

static void strip_cell(FILE *out, unsigned x, unsigned y, bool in, bool live, bool differs, const char *fill,
                       uint64_t key) {
  fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" stroke=\"%s\"%s><title>key %" PRIu64
               "</title></rect>\n",
          x, y, KEY_W - 2, KEY_H - 2, !live ? "#d0d7de" : in ? fill : "#ffffff", differs ? "#cf222e" : "#8c959f",
          differs ? " stroke-width=\"2\" class=\"differs\"" : "", key);
}

static void strip_svg(FILE *out, const strip *s) {
  size_t n = 0, differ = 0;
  uint64_t key;
  key_union all = {{s->expected, s->observed, s->expected_live, s->observed_live}, {0}};
  key_union u = all;
  while (next_key(&u, &key)) n++;
  size_t drawn = n < LFA_CASE_KEYS_MAX ? n : LFA_CASE_KEYS_MAX;
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%d\" role=\"img\">\n",
          (size_t)KEY_LABEL_W + drawn * KEY_W + 8, 3 * KEY_H + 14);
  fprintf(out, "<g font-family=\"sans-serif\" font-size=\"11\"><text x=\"0\" y=\"%d\">expected</text>"
               "<text x=\"0\" y=\"%d\">observed</text></g>\n",
          KEY_H + 10, 2 * KEY_H + 10);
  u = all;
  for (size_t k = 0; k < drawn && next_key(&u, &key); k++) {
    bool e = has_key(s->expected, key), o = has_key(s->observed, key);
    bool el = s->expected_live == NULL || has_key(s->expected_live, key) || e;
    bool ol = s->observed_live == NULL || has_key(s->observed_live, key) || o;
    unsigned x = KEY_LABEL_W + (unsigned)k * KEY_W;
    differ += e != o;
    if (k % 5 == 0)
      fprintf(out, "<text x=\"%u\" y=\"10\" font-family=\"sans-serif\" font-size=\"9\">%" PRIu64 "</text>\n", x, key);
    strip_cell(out, x, KEY_H, e, el, e != o, s->fill, key);
    strip_cell(out, x, 2 * KEY_H, o, ol, e != o, s->fill, key);
  }
  fputs("</svg>\n", out);
  fprintf(out, "<p>%zu keys, %zu differ%s", n, differ, differ == 1 ? "s" : "");
  if (n > drawn) fprintf(out, "; the first %zu are drawn", drawn);
  fputs(".</p>\n", out);
}

static const lfa_keys *assigned_of(const lfa_scenario_check *c, const char *path) {
  for (size_t k = 0; k < c->n_assigned; k++)
    if (strcmp(c->assigned[k].path, path) == 0) return &c->assigned[k].keys;
  return NULL;
}

static void tracked_lists(FILE *out, const lfa_scenario_check *e, const lfa_scenario_check *o) {
  fputs("<h3>Tracked fields</h3>\n<table><tr><th>expected</th><th>observed</th></tr><tr><td>", out);
  for (size_t k = 0; k < e->tracked.count; k++) fputs(k ? ", " : "", out), text(out, e->tracked.names[k]);
  fputs("</td><td>", out);
  for (size_t k = 0; k < o->tracked.count; k++) fputs(k ? ", " : "", out), text(out, o->tracked.names[k]);
  fputs("</td></tr></table>\n", out);
}

/* The check of the failing step, part by part as the scenario states it. */
static void check_parts(FILE *out, const lfa_scenario_check *e, const lfa_scenario_check *o) {
  static const lfa_keys NO_KEYS = {0, NULL};
  if (e->has_live) {
    fputs("<h3>Live rows</h3>\n", out);
    strip live = {&e->live, o->has_live ? &o->live : &NO_KEYS, NULL, NULL, "#0969da"};
    strip_svg(out, &live);
  }
  if (e->has_tracked) tracked_lists(out, e, o);
  for (size_t k = 0; k < e->n_assigned; k++) {
    const lfa_keys *seen = assigned_of(o, e->assigned[k].path);
    fputs("<h3>is_assigned(", out), text(out, e->assigned[k].path), fputs(")</h3>\n", out);
    if (seen == NULL) fputs("<p>The writer observed no such tracked field.</p>\n", out);
    strip s = {&e->assigned[k].keys, seen ? seen : &NO_KEYS, e->has_live ? &e->live : NULL,
               o->has_live ? &o->live : NULL, "#1a7f37"};
    strip_svg(out, &s);
  }
}

static void outcome_table(FILE *out, const lfa_conformance_case *c) {
  fputs("<h2>Outcome</h2>\n<table><tr><th></th><th>outcome</th><th>rule</th><th>version</th><th>message</th></tr>\n",
        out);
  const lfa_scenario_step *e = c->expected;
  fputs("<tr><td>expected</td><td>", out), text(out, lfa_scenario_outcome_name(e->expect));
  fputs("</td><td>", out), text(out, e->expect_rule), fputs("</td><td></td><td>", out), text(out, e->note);
  fputs("</td></tr>\n", out);
  const lfa_observed_step *o = c->observed;
  if (o == NULL) {
    fputs("<tr><td>observed</td><td colspan=\"4\">the adapter reported nothing for this step</td></tr>\n", out);
  } else {
    fputs("<tr><td>observed</td><td>", out), text(out, lfa_scenario_outcome_name(o->outcome));
    fputs("</td><td>", out), text(out, o->rule), fputs("</td><td>", out);
    if (o->has_version) fprintf(out, "%" PRIu64, o->version);
    fputs("</td><td>", out), text(out, o->message), fputs("</td></tr>\n", out);
  }
  fputs("</table>\n", out);
}

static void case_findings(FILE *out, const lfa_conformance_case *c, const char *dataset_page) {
  fprintf(out, "<h2 id=\"findings\">Verifier findings</h2>\n<p>%zu findings", c->findings.count);
  if (dataset_page) fputs("; the dataset's own report: <a href=\"", out), text(out, dataset_page),
      fputs("\">", out), text(out, dataset_page), fputs("</a>", out);
  fputs(".</p>\n<ol start=\"0\">\n", out);
  for (size_t i = 0; i < c->findings.count && i < LFA_REPORT_FINDINGS_MAX; i++)
    lfa_report_finding_html(out, &c->findings.items[i], i, NULL);
  fputs("</ol>\n", out);
}

void conf_case_html(FILE *out, const lfa_conformance_case *c, const char *adapter, const char *dataset_page) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", out);
  text(out, c->name);
  fprintf(out, ": %s</title><style>%s</style></head><body>\n<h1>", lfa_conformance_verdict_name(c->verdict),
          LFA_REPORT_STYLE);
  text(out, c->name), fprintf(out, ": %s</h1>\n<p>Writer: ", lfa_conformance_verdict_name(c->verdict));
  text(out, adapter), fputs(". ", out), text(out, c->message), fputs("</p>\n", out);
  if (c->has_scenario && c->scenario.description)
    fputs("<p>", out), text(out, c->scenario.description), fputs("</p>\n", out);
  if (c->has_failing_step && c->expected != NULL) {
    fputs("<h2>At ", out), text(out, c->failing_label), fputs("</h2>\n", out);
    outcome_table(out, c);
    if (c->expected->has_check && c->observed != NULL && c->observed->has_observed)
      check_parts(out, &c->expected->check, &c->observed->observed);
    else if (c->expected->has_check) fputs("<p>The writer observed no state at this step.</p>\n", out);
  }
  case_findings(out, c, dataset_page);
  fputs("</body></html>\n", out);
}
