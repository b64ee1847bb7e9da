/* conformance_out.c: the reports of `lfa conformance` (conformance_out.h):
 * text, TAP version 13, JUnit XML and JSON, each rendering the suite's
 * lfa_conformance_case results. The JSON shape is documented in
 * docs/commands/conformance.md and conformance/schema/report.schema.json,
 * and only grows: keys are never renamed or removed. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "conformance_out.h"
#include "lfa/document.h"
#include "lfa/escape.h"
#include "lfa/fs.h"

static const char STALE[] = "listed as an expected failure, but it passes";

/* The one-line reason of a case that did not simply pass. */
static const char *reason(const lfa_conformance_case *c) { return conf_is_pass(c->verdict) ? STALE : c->message; }

/* What the run verified, summed over its scenarios: steps that behaved,
 * checks that held (on disk and in the writer's observation), versions
 * the verifier read and what it found in them. */
typedef struct verified {
  size_t steps, checks, versions, errors, warnings;
} verified;

static verified summary_counts(const suite_run *r) {
  verified v = {0};
  for (size_t i = 0; i < r->n_cases; i++) {
    const lfa_conformance_case *c = &r->cases[i];
    v.steps += c->steps, v.checks += c->checks, v.versions += c->versions;
    v.errors += c->errors, v.warnings += c->warnings;
  }
  return v;
}

/* The closing lines every text-like report ends with; `prefix` is "# "
 * for TAP. */
static void print_summary(const suite_run *r, const tally *t, const char *prefix) {
  verified v = summary_counts(r);
  printf("%s%zu steps behaved as expected, %zu checks held on disk and in the writer's observations, %zu versions "
         "verified (error findings: %zu, warnings: %zu)\n",
         prefix, v.steps, v.checks, v.versions, v.errors, v.warnings);
  printf("%sconformance: %zu scenarios against ", prefix, r->n_cases), lfa_put_text(stdout, conf_adapter_name(r));
  printf(": %zu passed (%zu refused as expected), %zu failed, %zu skipped, %zu crashed, %zu timed out, "
         "%zu expected failures, %zu stale, %zu invalid, %zu not run\n",
         t->passed, t->refused, t->failed, t->skipped, t->crashed, t->timed_out, t->expected, t->stale, t->invalid,
         t->not_run);
  if (!r->temp_work) printf("%swork directory kept: ", prefix), lfa_put_text(stdout, r->work), putchar('\n');
}

/* The folders kept as evidence, one per line. */
static void print_kept(const suite_run *r, const char *prefix) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_cases; i++) n += r->cases[i].kept;
  if (n == 0 || !r->temp_work) return;
  printf("%skept the folders of %zu scenario%s that did not pass (OUT_DIR and OUT_DIR.log):\n", prefix, n,
         n == 1 ? "" : "s");
  for (size_t i = 0; i < r->n_cases; i++)
    if (r->cases[i].kept) printf("%s  ", prefix), lfa_put_text(stdout, r->cases[i].work_dir), putchar('\n');
}

static void print_findings(const lfa_conformance_case *c) {
  char text[LFA_CONFORMANCE_MESSAGE_MAX];
  for (size_t i = 0; i < c->findings.count; i++) {
    const lfa_finding *f = &c->findings.items[i];
    lfa_conformance_finding_text(text, sizeof text, c, f);
    printf("      %s: ", lfa_severity_name(f->severity)), lfa_put_text(stdout, text), putchar('\n');
  }
}

static void print_unknown_listed(const suite_run *r, const char *prefix) {
  for (size_t i = 0; i < r->listed.count; i++) {
    if (!conf_in_names(&r->all, r->listed.names[i]))
      printf("%sFAIL     ", prefix), lfa_put_text(stdout, r->listed.names[i]),
          puts(": STALE (listed as an expected failure, but the suite has no such scenario)");
  }
}

/* One line per scenario that did not simply pass, and its message, then
 * every verifier finding below it; a pass with verifier warnings is a
 * WARN line with its warnings. A name is a file name of the suite: any
 * bytes, shown escaped like the message. Scenarios not run are one line
 * together. */
void conf_print_text(const suite_run *r, const tally *t) {
  const char *not_run = NULL;
  for (size_t i = 0; i < r->n_cases; i++) {
    const lfa_conformance_case *c = &r->cases[i];
    lfa_conformance_verdict v = c->verdict;
    if (v == LFA_VERDICT_NOT_RUN) not_run = not_run ? not_run : c->message;
    if (conf_is_pass(v) && !c->listed && c->findings.count > 0) {
      printf("WARN  "), lfa_put_text(stdout, c->name);
      printf(": %s, with %zu verifier finding%s (%zu warning%s)\n", lfa_conformance_verdict_name(v), c->findings.count,
             c->findings.count == 1 ? "" : "s", c->warnings, c->warnings == 1 ? "" : "s");
      print_findings(c);
    }
    if ((conf_is_pass(v) && !c->listed) || v == LFA_VERDICT_NOT_RUN) continue;
    fputs(conf_is_pass(v)                 ? "FAIL  "
          : v == LFA_VERDICT_SKIPPED      ? "SKIP  "
          : v == LFA_VERDICT_INVALID      ? "INVALID "
          : c->listed && conf_is_bad(v) ? "XFAIL "
                                          : "FAIL  ",
          stdout);
    lfa_put_text(stdout, c->name);
    if (conf_is_pass(v)) printf(": stale: ");
    else if (v == LFA_VERDICT_SKIPPED || v == LFA_VERDICT_INVALID) printf(": ");
    else printf(": %s: ", lfa_conformance_verdict_name(v));
    lfa_put_text(stdout, reason(c)), putchar('\n'); /* the adapter's words: any bytes */
    if (!conf_is_pass(v)) print_findings(c);
  }
  print_unknown_listed(r, "");
  if (not_run != NULL) printf("NOT RUN %zu scenarios: %s\n", t->not_run, not_run);
  print_kept(r, "");
  print_summary(r, t, "");
}

void conf_print_tap(const suite_run *r, const tally *t) {
  printf("TAP version 13\n1..%zu\n", r->n_cases);
  for (size_t i = 0; i < r->n_cases; i++) {
    const lfa_conformance_case *c = &r->cases[i];
    lfa_conformance_verdict v = c->verdict;
    bool ok = (conf_is_pass(v) && !c->listed) || v == LFA_VERDICT_SKIPPED;
    printf("%s %zu - ", ok ? "ok" : "not ok", i + 1), lfa_put_text(stdout, c->name);
    if (v == LFA_VERDICT_SKIPPED) printf(" # SKIP "), lfa_put_text(stdout, c->message);
    else if (c->listed && conf_is_bad(v)) printf(" # TODO expected failure");
    printf("\n");
    if (ok) continue;
    printf("  ---\n  verdict: %s\n  message: ", conf_is_pass(v) ? "stale" : lfa_conformance_verdict_name(v));
    lfa_put_json(stdout, reason(c)); /* a JSON string is a YAML double-quoted scalar: valid for any bytes */
    printf("\n  ...\n");
  }
  print_kept(r, "# ");
  print_summary(r, t, "# ");
}

/* ---- JUnit ---------------------------------------------------------------------------------- */

/* The element a case is reported as, or NULL for a plain pass. */
static const char *junit_tag(const lfa_conformance_case *c) {
  lfa_conformance_verdict v = c->verdict;
  if (v == LFA_VERDICT_SKIPPED || v == LFA_VERDICT_NOT_RUN || (c->listed && conf_is_bad(v))) return "skipped";
  if (conf_is_pass(v)) return c->listed ? "failure" : NULL;
  return v == LFA_VERDICT_FAIL ? "failure" : "error";
}

/* `message` is the one-line reason; the body says the verdict again. */
static void junit_case(lfa_xml_writer *x, const lfa_conformance_case *c) {
  lfa_junit_open_case(x, "conformance", c->name, c->seconds);
  const char *tag = junit_tag(c);
  if (tag != NULL) {
    lfa_xml_open(x, tag);
    lfa_xml_attr(x, "message", reason(c));
    lfa_xml_textf(x, "%s%s: ", c->listed && conf_is_bad(c->verdict) ? "expected failure, " : "",
                  conf_is_pass(c->verdict) ? "stale" : lfa_conformance_verdict_name(c->verdict));
    lfa_xml_text(x, reason(c));
    char text[LFA_CONFORMANCE_MESSAGE_MAX];
    for (size_t i = 0; i < c->findings.count; i++) {
      lfa_conformance_finding_text(text, sizeof text, c, &c->findings.items[i]);
      lfa_xml_textf(x, "\n%s: ", lfa_severity_name(c->findings.items[i].severity));
      lfa_xml_text(x, text);
    }
    lfa_xml_close(x);
  }
  lfa_xml_close(x);
}

/* Written beside its name and renamed over it once whole (lfa/fs.h
 * lfa_fs_out, FA-CLEAN-14): a failed write leaves no half file. */
lfa_status conf_write_junit(const suite_run *r, const tally *t, lfa_error *err) {
  lfa_fs_out out;
  lfa_status st = lfa_fs_out_open(&out, r->a->junit, err);
  if (st != LFA_OK) return st;
  lfa_xml_writer x = {.out = out.f};
  lfa_junit_counts counts = {r->n_cases, t->failed + t->stale, t->crashed + t->timed_out + t->invalid,
                             t->skipped + t->expected + t->not_run};
  lfa_junit_begin(&x, "lfa conformance", "lfa conformance", counts);
  for (size_t i = 0; i < r->n_cases; i++) junit_case(&x, &r->cases[i]);
  lfa_junit_end(&x);
  return lfa_fs_out_commit(&out, err);
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static void json_keys(lfa_json_writer *w, const char *key, const lfa_keys *keys) {
  lfa_json_open_numbers(w, key);
  for (size_t i = 0; i < keys->count; i++) lfa_json_number(w, keys->keys[i]);
  lfa_json_close_array(w);
}

/* A check or an observed state: the parts it states, null the others. */
static void json_state(lfa_json_writer *w, const char *key, const lfa_scenario_check *s) {
  lfa_json_open_object(w, key);
  if (s->has_live) json_keys(w, "live", &s->live);
  else lfa_json_put_null(w, "live");
  if (s->has_tracked) {
    lfa_json_open_array(w, "tracked");
    for (size_t i = 0; i < s->tracked.count; i++) lfa_json_put_string(w, NULL, s->tracked.names[i]);
    lfa_json_close_array(w);
  } else {
    lfa_json_put_null(w, "tracked");
  }
  lfa_json_open_object(w, "assigned");
  for (size_t i = 0; i < s->n_assigned; i++) json_keys(w, s->assigned[i].path, &s->assigned[i].keys);
  lfa_json_close_object(w);
  lfa_json_close_object(w);
}

static void json_failing_step(lfa_json_writer *w, const lfa_conformance_case *c) {
  if (!c->has_failing_step) {
    lfa_json_put_null(w, "failing_step");
    return;
  }
  const lfa_scenario_step *e = c->expected;
  const lfa_observed_step *o = c->observed;
  lfa_json_open_object(w, "failing_step");
  lfa_json_put_u64(w, "step", c->failing_step);
  lfa_json_put_string(w, "label", c->failing_label);
  lfa_json_put_u64(w, "line", e->line);
  lfa_json_open_object(w, "expected");
  lfa_json_put_string(w, "outcome", lfa_scenario_outcome_name(e->expect));
  lfa_json_put_string(w, "rule", e->expect_rule);
  if (e->has_check) json_state(w, "check", &e->check);
  else lfa_json_put_null(w, "check");
  lfa_json_close_object(w);
  if (o == NULL) {
    lfa_json_put_null(w, "observed");
  } else {
    lfa_json_open_object(w, "observed");
    lfa_json_put_string(w, "outcome", lfa_scenario_outcome_name(o->outcome));
    if (o->has_version) lfa_json_put_u64(w, "version", o->version);
    else lfa_json_put_null(w, "version");
    lfa_json_put_string(w, "rule", o->rule);
    lfa_json_put_string(w, "message", o->message);
    if (o->has_observed) json_state(w, "state", &o->observed);
    else lfa_json_put_null(w, "state");
    lfa_json_close_object(w);
  }
  lfa_json_close_object(w);
}

/* A finding in the one shape of `lfa verify --json` (lfa/verify.h
 * lfa_finding_put_json), then what only a scenario knows: "keys", the
 * scenario's key of each row (null when the rows are not the table's),
 * and "text", the finding as the text report says it, with those keys. */
static void json_finding(lfa_json_writer *w, const lfa_conformance_case *c, const lfa_finding *f) {
  uint64_t keys[LFA_FINDING_ROWS_MAX];
  char text[LFA_CONFORMANCE_MESSAGE_MAX];
  bool by_key = lfa_conformance_finding_keys(keys, c, f);
  lfa_json_open_flow_object(w, NULL);
  lfa_finding_put_json(w, f);
  lfa_json_wrap(w);
  if (by_key) {
    lfa_json_open_flow_array(w, "keys");
    for (size_t i = 0; i < f->n_rows; i++) lfa_json_put_u64(w, NULL, keys[i]);
    lfa_json_close_array(w);
  } else {
    lfa_json_put_null(w, "keys");
  }
  lfa_conformance_finding_text(text, sizeof text, c, f);
  lfa_json_put_string(w, "text", text);
  lfa_json_close_object(w);
}

static void json_case(lfa_json_writer *w, const lfa_conformance_case *c) {
  lfa_json_open_object(w, NULL);
  lfa_json_put_string(w, "name", c->name);
  lfa_json_put_string(w, "verdict", lfa_conformance_verdict_name(c->verdict));
  lfa_json_put_bool(w, "listed", c->listed);
  lfa_json_put_bool(w, "stale", c->listed && conf_is_pass(c->verdict));
  lfa_json_put_u64(w, "milliseconds", (uint64_t)(c->seconds * 1000 + 0.5));
  lfa_json_put_string(w, "message", conf_is_pass(c->verdict) && !c->listed ? NULL : reason(c));
  json_failing_step(w, c);
  lfa_json_put_string(w, "disagreement", c->disagreement[0] ? c->disagreement : NULL);
  lfa_json_open_array(w, "findings");
  for (size_t i = 0; i < c->findings.count; i++) json_finding(w, c, &c->findings.items[i]);
  lfa_json_close_array(w);
  lfa_json_put_string(w, "work_dir", c->kept ? c->work_dir : NULL);
  lfa_json_close_object(w);
}

static void json_summary(lfa_json_writer *w, const suite_run *r, const tally *t) {
  verified v = summary_counts(r);
  lfa_json_open_object(w, "summary");
  lfa_json_put_u64(w, "scenarios", r->n_cases);
  lfa_json_put_u64(w, "passed", t->passed);
  lfa_json_put_u64(w, "refused_as_expected", t->refused);
  lfa_json_put_u64(w, "failed", t->failed);
  lfa_json_put_u64(w, "skipped", t->skipped);
  lfa_json_put_u64(w, "crashed", t->crashed);
  lfa_json_put_u64(w, "timed_out", t->timed_out);
  lfa_json_put_u64(w, "expected_failures", t->expected);
  lfa_json_put_u64(w, "stale", t->stale);
  lfa_json_put_u64(w, "invalid", t->invalid);
  lfa_json_put_u64(w, "not_run", t->not_run);
  lfa_json_put_u64(w, "steps", v.steps);
  lfa_json_put_u64(w, "checks", v.checks);
  lfa_json_put_u64(w, "versions", v.versions);
  lfa_json_put_u64(w, "errors", v.errors);
  lfa_json_put_u64(w, "warnings", v.warnings);
  lfa_json_close_object(w);
}

void conf_print_json(const suite_run *r, const tally *t) {
  lfa_json_writer w = {.out = stdout};
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "suite", r->a->suite);
  lfa_json_put_string(&w, "adapter", conf_adapter_name(r));
  lfa_json_put_string(&w, "work_dir", r->temp_work ? NULL : r->work);
  json_summary(&w, r, t);
  lfa_json_open_array(&w, "unknown_listed");
  for (size_t i = 0; i < r->listed.count; i++)
    if (!conf_in_names(&r->all, r->listed.names[i])) lfa_json_put_string(&w, NULL, r->listed.names[i]);
  lfa_json_close_array(&w);
  lfa_json_open_array(&w, "scenarios");
  for (size_t i = 0; i < r->n_cases; i++) json_case(&w, &r->cases[i]);
  lfa_json_close_array(&w);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}
