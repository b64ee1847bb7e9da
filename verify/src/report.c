/* report.c: the renderings of a verification (lfa/verify.h).
 *
 * Findings hold printable UTF-8 only (findings.c, with lfa/escape.h's
 * text escaping); the dataset argument may hold any bytes. Every string
 * goes through the one JSON or XML writer (lfa/document.h). The JSON shape is documented in
 * docs/commands/verify.md and only grows: keys are never renamed or
 * removed. Every finding shows its rule, severity, version, file, field
 * and fragment [FA-VERIFY-2]. */
#include <inttypes.h>
#include <string.h>

#include "lfa/document.h"
#include "lfa/escape.h"
#include "lfa/verify.h"

static const char *or_empty(const char *s) { return s ? s : ""; }

/* ---- text ---------------------------------------------------------------------- */

static void text_finding(FILE *out, const lfa_finding *f) {
  fprintf(out, "version %" PRIu64 ": %s %s", f->version, lfa_severity_name(f->severity), f->rule);
  if (f->file != NULL) fprintf(out, " %s", f->file);
  if (f->has_field) fprintf(out, " field %d (%s)", f->field_id, f->field_name ? f->field_name : "not in the schema");
  if (f->has_fragment) fprintf(out, " fragment %" PRIu64, f->fragment_id);
  if (f->n_rows > 0) {
    fputs(" rows [", out);
    for (size_t i = 0; i < f->n_rows; i++) fprintf(out, "%s%" PRIu64, i ? ", " : "", f->rows[i]);
    fputc(']', out);
  }
  fprintf(out, ":\n    %s\n", or_empty(f->message));
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

void lfa_verify_print_text(FILE *out, const lfa_verify_result *r, const char *dataset) {
  size_t errors = lfa_findings_count(&r->findings, LFA_SEVERITY_ERROR);
  size_t warnings = lfa_findings_count(&r->findings, LFA_SEVERITY_WARNING);
  size_t infos = lfa_findings_count(&r->findings, LFA_SEVERITY_INFO);
  for (size_t i = 0; i < r->findings.count; i++) text_finding(out, &r->findings.items[i]);
  if (r->findings.count > 0) fputc('\n', out);
  lfa_put_text(out, dataset); /* the argument as given: any bytes */
  fprintf(out, ": %zu version%s checked", r->versions_checked, plural(r->versions_checked));
  if (r->versions_checked > 0)
    fprintf(out, " (%" PRIu64 " to %" PRIu64 ")", r->versions[0], r->versions[r->versions_checked - 1]);
  fprintf(out, ": %zu error%s, %zu warning%s, %zu info\n", errors, plural(errors), warnings, plural(warnings), infos);
}

/* ---- JSON ------------------------------------------------------------------------ */

/* Three lines of one flow object in the findings array: what and where,
 * then the place in the table, then the message. */
void lfa_finding_put_json(lfa_json_writer *w, const lfa_finding *f) {
  lfa_json_put_string(w, "rule", f->rule);
  lfa_json_put_string(w, "severity", lfa_severity_name(f->severity));
  lfa_json_put_u64(w, "version", f->version);
  lfa_json_wrap(w);
  lfa_json_put_string(w, "file", f->file);
  if (f->has_field) lfa_json_put_i64(w, "field_id", f->field_id);
  else lfa_json_put_null(w, "field_id");
  lfa_json_put_string(w, "field", f->has_field ? f->field_name : NULL);
  if (f->has_fragment) lfa_json_put_u64(w, "fragment_id", f->fragment_id);
  else lfa_json_put_null(w, "fragment_id");
  lfa_json_open_flow_array(w, "rows");
  for (size_t i = 0; i < f->n_rows; i++) lfa_json_put_u64(w, NULL, f->rows[i]);
  lfa_json_close_array(w);
  lfa_json_wrap(w);
  lfa_json_put_string(w, "message", or_empty(f->message));
}

void lfa_verify_put_json(lfa_json_writer *w, const lfa_verify_result *r, const char *dataset) {
  lfa_json_put_string(w, "dataset", dataset);
  lfa_json_put_u64(w, "versions_checked", r->versions_checked);
  lfa_json_open_array(w, "findings");
  for (size_t i = 0; i < r->findings.count; i++) {
    lfa_json_open_flow_object(w, NULL);
    lfa_finding_put_json(w, &r->findings.items[i]);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
  lfa_json_open_flow_object(w, "summary");
  lfa_json_put_u64(w, "errors", lfa_findings_count(&r->findings, LFA_SEVERITY_ERROR));
  lfa_json_put_u64(w, "warnings", lfa_findings_count(&r->findings, LFA_SEVERITY_WARNING));
  lfa_json_put_u64(w, "info", lfa_findings_count(&r->findings, LFA_SEVERITY_INFO));
  lfa_json_close_object(w);
}

void lfa_verify_print_json(FILE *out, const lfa_verify_result *r, const char *dataset) {
  lfa_json_writer w = {.out = out};
  lfa_json_open_object(&w, NULL);
  lfa_verify_put_json(&w, r, dataset);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}

/* ---- JUnit XML ---------------------------------------------------------------------- */

static size_t count_in(const lfa_findings *l, uint64_t version, lfa_severity severity) {
  size_t n = 0;
  for (size_t i = 0; i < l->count; i++) n += l->items[i].version == version && l->items[i].severity == severity;
  return n;
}

/* The findings of one version and severity, one per line. */
static void xml_findings(lfa_xml_writer *x, const lfa_findings *l, uint64_t version, lfa_severity severity) {
  for (size_t i = 0; i < l->count; i++) {
    const lfa_finding *f = &l->items[i];
    if (f->version != version || f->severity != severity) continue;
    lfa_xml_textf(x, "%s %s", lfa_severity_name(f->severity), f->rule);
    if (f->file) lfa_xml_text(x, " "), lfa_xml_text(x, f->file);
    if (f->has_field) lfa_xml_textf(x, " field %d", f->field_id);
    if (f->has_fragment) lfa_xml_textf(x, " fragment %" PRIu64, f->fragment_id);
    lfa_xml_text(x, ": ");
    lfa_xml_text(x, f->message);
    lfa_xml_text(x, "\n");
  }
}

static void junit_case(lfa_xml_writer *x, const lfa_findings *l, uint64_t v, const char *dataset) {
  size_t errors = count_in(l, v, LFA_SEVERITY_ERROR);
  size_t others = count_in(l, v, LFA_SEVERITY_WARNING) + count_in(l, v, LFA_SEVERITY_INFO);
  char name[32];
  snprintf(name, sizeof name, "version %" PRIu64, v);
  lfa_junit_open_case(x, dataset, name, -1);
  if (errors > 0) {
    const char *first = NULL;
    for (size_t i = 0; i < l->count && first == NULL; i++)
      if (l->items[i].version == v && l->items[i].severity == LFA_SEVERITY_ERROR) first = l->items[i].rule;
    lfa_xml_open(x, "failure");
    lfa_xml_attr(x, "type", first);
    lfa_xml_attrf(x, "message", "%zu error finding%s", errors, plural(errors));
    xml_findings(x, l, v, LFA_SEVERITY_ERROR);
    lfa_xml_close(x);
  }
  if (others > 0) {
    lfa_xml_open(x, "system-out");
    xml_findings(x, l, v, LFA_SEVERITY_WARNING);
    xml_findings(x, l, v, LFA_SEVERITY_INFO);
    lfa_xml_close(x);
  }
  lfa_xml_close(x);
}

void lfa_verify_print_junit(FILE *out, const lfa_verify_result *r, const char *dataset) {
  size_t failures = 0;
  for (size_t i = 0; i < r->versions_checked; i++)
    failures += count_in(&r->findings, r->versions[i], LFA_SEVERITY_ERROR) > 0;
  lfa_xml_writer x = {.out = out};
  lfa_junit_begin(&x, "lfa verify", dataset, (lfa_junit_counts){r->versions_checked, failures, 0, 0});
  for (size_t i = 0; i < r->versions_checked; i++) junit_case(&x, &r->findings, r->versions[i], dataset);
  lfa_junit_end(&x);
}
