/* report.c: the renderings of a verification (lfa/verify.h).
 *
 * Findings hold printable UTF-8 only (findings.c, with lfa/escape.h's
 * text escaping); the dataset argument may hold any bytes. Every string
 * goes through the one JSON or XML writer of lfa/escape.h. The JSON shape is documented in
 * docs/commands/verify.md and only grows: keys are never renamed or
 * removed. Every finding shows its rule, severity, version, file, field
 * and fragment [FA-VERIFY-2]. */
#include <inttypes.h>
#include <string.h>

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

static void json_str(FILE *out, const char *s) { lfa_put_json(out, s); }

static void json_finding(FILE *out, const lfa_finding *f, bool last) {
  fputs("    {\"rule\": ", out);
  json_str(out, f->rule);
  fprintf(out, ", \"severity\": \"%s\", \"version\": %" PRIu64 ",\n     \"file\": ", lfa_severity_name(f->severity),
          f->version);
  json_str(out, f->file);
  if (f->has_field) fprintf(out, ", \"field_id\": %d, \"field\": ", f->field_id);
  else fputs(", \"field_id\": null, \"field\": ", out);
  json_str(out, f->has_field ? f->field_name : NULL);
  if (f->has_fragment) fprintf(out, ", \"fragment_id\": %" PRIu64, f->fragment_id);
  else fputs(", \"fragment_id\": null", out);
  fputs(", \"rows\": [", out);
  for (size_t i = 0; i < f->n_rows; i++) fprintf(out, "%s%" PRIu64, i ? ", " : "", f->rows[i]);
  fputs("],\n     \"message\": ", out);
  json_str(out, or_empty(f->message));
  fprintf(out, "}%s\n", last ? "" : ",");
}

void lfa_verify_print_json(FILE *out, const lfa_verify_result *r, const char *dataset) {
  fputs("{\n  \"dataset\": ", out);
  json_str(out, dataset);
  fprintf(out, ",\n  \"versions_checked\": %zu,\n  \"findings\": [%s", r->versions_checked,
          r->findings.count ? "\n" : "");
  for (size_t i = 0; i < r->findings.count; i++) json_finding(out, &r->findings.items[i], i + 1 == r->findings.count);
  fprintf(out, "%s],\n  \"summary\": {\"errors\": %zu, \"warnings\": %zu, \"info\": %zu}\n}\n",
          r->findings.count ? "  " : "", lfa_findings_count(&r->findings, LFA_SEVERITY_ERROR),
          lfa_findings_count(&r->findings, LFA_SEVERITY_WARNING), lfa_findings_count(&r->findings, LFA_SEVERITY_INFO));
}

/* ---- JUnit XML ---------------------------------------------------------------------- */

static void xml_str(FILE *out, const char *s) { lfa_put_xml(out, s); }

static size_t count_in(const lfa_findings *l, uint64_t version, lfa_severity severity) {
  size_t n = 0;
  for (size_t i = 0; i < l->count; i++) n += l->items[i].version == version && l->items[i].severity == severity;
  return n;
}

/* The findings of one version and severity, one per line. */
static void xml_findings(FILE *out, const lfa_findings *l, uint64_t version, lfa_severity severity) {
  for (size_t i = 0; i < l->count; i++) {
    const lfa_finding *f = &l->items[i];
    if (f->version != version || f->severity != severity) continue;
    fprintf(out, "%s %s", lfa_severity_name(f->severity), f->rule);
    if (f->file) fputc(' ', out), xml_str(out, f->file);
    if (f->has_field) fprintf(out, " field %d", f->field_id);
    if (f->has_fragment) fprintf(out, " fragment %" PRIu64, f->fragment_id);
    fputs(": ", out);
    xml_str(out, f->message);
    fputc('\n', out);
  }
}

static void junit_case(FILE *out, const lfa_findings *l, uint64_t v, const char *dataset) {
  size_t errors = count_in(l, v, LFA_SEVERITY_ERROR);
  size_t others = count_in(l, v, LFA_SEVERITY_WARNING) + count_in(l, v, LFA_SEVERITY_INFO);
  fputs("    <testcase classname=\"", out);
  xml_str(out, dataset);
  fprintf(out, "\" name=\"version %" PRIu64 "\"%s>\n", v, errors + others ? "" : "/");
  if (errors > 0) {
    const char *first = NULL;
    for (size_t i = 0; i < l->count && first == NULL; i++)
      if (l->items[i].version == v && l->items[i].severity == LFA_SEVERITY_ERROR) first = l->items[i].rule;
    fprintf(out, "      <failure type=\"%s\" message=\"%zu error finding%s\">", first, errors, plural(errors));
    xml_findings(out, l, v, LFA_SEVERITY_ERROR);
    fputs("</failure>\n", out);
  }
  if (others > 0) {
    fputs("      <system-out>", out);
    xml_findings(out, l, v, LFA_SEVERITY_WARNING);
    xml_findings(out, l, v, LFA_SEVERITY_INFO);
    fputs("</system-out>\n", out);
  }
  if (errors + others > 0) fputs("    </testcase>\n", out);
}

void lfa_verify_print_junit(FILE *out, const lfa_verify_result *r, const char *dataset) {
  size_t failures = 0;
  for (size_t i = 0; i < r->versions_checked; i++)
    failures += count_in(&r->findings, r->versions[i], LFA_SEVERITY_ERROR) > 0;
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"lfa verify\" tests=\"%zu\" "
               "failures=\"%zu\">\n  <testsuite name=\"",
          r->versions_checked, failures);
  xml_str(out, dataset);
  fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", r->versions_checked, failures);
  for (size_t i = 0; i < r->versions_checked; i++) junit_case(out, &r->findings, r->versions[i], dataset);
  fputs("  </testsuite>\n</testsuites>\n", out);
}
