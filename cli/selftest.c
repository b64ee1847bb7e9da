/* selftest.c: `lfa conformance --self-test` (selftest.h). The adapter
 * runs a handful of the suite's scenarios, chosen to exercise each duty of
 * the protocol (conformance/README.md, "Adapter protocol"): checks after
 * steps, refusals followed by further steps, a conflict built against an
 * older version, nested fields with stable row ids. Each protocol mistake
 * is explained in plain words, observations that differ from the bytes the
 * adapter left included; a writer that behaves differently from the spec
 * but reports it truly is no mistake here (the suite judges it). */
#define _XOPEN_SOURCE 700 /* strdup */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "selftest.h"
#include "lfa/escape.h"

static const char *const SELF_TEST[] = {
    "delete_changes_no_state",                     /* a check after every step, a refusal last */
    "refused_invalidate_untracked_or_unknown",     /* refusals, then steps that must still run */
    "conc_track_assigned_merge_insert",            /* read_version: a conflict */
    "append_multi_fragment_nested_stable_row_ids", /* nested fields, stable row ids */
};
enum { N_SELF_TEST = sizeof SELF_TEST / sizeof SELF_TEST[0] };

typedef struct explainer {
  size_t mistakes;
} explainer;

/* One mistake in one line; the adapter's words in it are shown escaped. */
static void mistake(explainer *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mistake(explainer *x, const char *fmt, ...) {
  char line[3 * LFA_CONFORMANCE_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  x->mistakes++;
  printf("  - "), lfa_put_text(stdout, line), putchar('\n');
}

/* What an abnormal finish means for the protocol. */
static bool explain_exit(explainer *x, const lfa_conformance_case *c) {
  if (c->verdict == LFA_VERDICT_CRASH)
    mistake(x, "it did not finish normally (%s). Exit 0 once OUT_DIR/observations.json is written, or 77 to skip%s",
            c->message, "; the log of everything it printed is OUT_DIR.log");
  else if (c->verdict == LFA_VERDICT_TIMEOUT)
    mistake(x, "it was still running when its time was up (%s). Each scenario is bounded by --timeout%s", c->message,
            "; does it wait for input, or for a lock it holds itself?");
  return c->verdict == LFA_VERDICT_CRASH || c->verdict == LFA_VERDICT_TIMEOUT;
}

static bool explain_skip(explainer *x, const lfa_conformance_case *c, const char *obs_path) {
  if (c->verdict != LFA_VERDICT_SKIPPED) return false;
  lfa_observations obs;
  lfa_error err = {0};
  bool reason = lfa_observations_load(&obs, obs_path, c->scenario.n_steps, &err) == LFA_OK && obs.skipped != NULL;
  if (reason) lfa_observations_free(&obs);
  if (!reason)
    mistake(x, "it exited 77 (skipped) without saying why: write {\"adapter\": ..., \"skipped\": \"the %s\"} to %s",
            "capability the writer lacks", "OUT_DIR/observations.json");
  else
    printf("  (skipped: "), lfa_put_text(stdout, c->message), printf("; a scenario skipped is not checked here)\n");
  return true;
}

static void explain_unusable(explainer *x, const lfa_conformance_case *c, const char *obs_path) {
  if (!lfa_fs_exists(obs_path)) {
    mistake(x, "it exited 0 but wrote no %s (OUT_DIR is its second argument%s)", "OUT_DIR/observations.json",
            ", and exists and is empty when it starts");
    return;
  }
  mistake(x, "its observations.json is not in the protocol's form: %s%s", c->message + strlen("unusable observations: "),
          ". The form: conformance/README.md and conformance/schema/observations.schema.json (check a file with "
          "scripts/check_schema.py); keys are JSON integers, steps are numbered from 0 (the setup)");
}

/* The observations parsed: every step reported, an observation after each
 * step with a check, a dataset left behind. */
static void explain_steps(explainer *x, const lfa_conformance_case *c) {
  const lfa_scenario *s = &c->scenario;
  const lfa_observations *o = &c->observations;
  char a[160], b[160];
  if (o->n_steps < s->n_steps) {
    lfa_scenario_step_label(b, sizeof b, s, o->n_steps);
    snprintf(a, sizeof a, "%zu of the %zu steps (setup included)", o->n_steps, s->n_steps);
    bool after_refusal = o->n_steps > 0 && o->steps[o->n_steps - 1].outcome != LFA_SCENARIO_OK;
    if (after_refusal)
      mistake(x, "it reported %s and stopped after a refusal or conflict, before %s: execute every step whatever "
                 "happens to the one before (the runner judges; the adapter only reports)", a, b);
    else
      mistake(x, "it reported %s, nothing from %s on: execute and report every step, in order", a, b);
  }
  size_t unobserved = 0;
  for (size_t i = 0; i < o->n_steps && i < s->n_steps; i++) {
    if (!s->steps[i].has_check || o->steps[i].has_observed) continue;
    if (unobserved++ == 0) lfa_scenario_step_label(a, sizeof a, s, i);
  }
  if (unobserved > 0)
    mistake(x, "%zu step%s with a check in the scenario ha%s no \"observed\" in %s report (the first: %s): after each "
               "such step report what the writer's own reader returns (live, tracked and assigned)",
            unobserved, unobserved == 1 ? "" : "s", unobserved == 1 ? "s" : "ve", unobserved == 1 ? "its" : "their", a);
  if (strstr(c->message, "the adapter left no dataset") != NULL)
    mistake(x, "it left no dataset in %s%s", "OUT_DIR/dataset", ": the runner verifies the files the writer wrote");
  /* "observed" is what the writer's reader returns for the bytes it left:
   * an adapter that reports its writer's model instead is judged by
   * another state than the one every other reader sees */
  if (c->disagreement[0] != '\0')
    mistake(x, "its observations are not what its dataset holds (%s): report what the writer's own reader returns "
               "when it reads that version back from OUT_DIR/dataset, not what the writer meant to write",
            c->disagreement);
}

static size_t explain(const lfa_conformance_case *c) {
  explainer x = {0};
  char obs_path[LFA_CONFORMANCE_PATH_MAX + 32];
  snprintf(obs_path, sizeof obs_path, "%s/observations.json", c->work_dir);
  lfa_put_text(stdout, c->name), putchar('\n');
  if (c->verdict == LFA_VERDICT_INVALID) {
    printf("  (the scenario file is invalid: "), lfa_put_text(stdout, c->message), printf(")\n");
    return 0;
  }
  if (explain_exit(&x, c) || explain_skip(&x, c, obs_path)) {
  } else if (!c->has_observations) {
    explain_unusable(&x, c, obs_path);
  } else {
    explain_steps(&x, c);
  }
  if (x.mistakes == 0) {
    printf("  protocol followed");
    if (!conf_is_pass(c->verdict) && c->verdict != LFA_VERDICT_SKIPPED)
      printf(" (the writer's behaviour differs from the scenario, which the suite judges: "), lfa_put_text(stdout, c->message),
          putchar(')');
    putchar('\n');
  }
  return x.mistakes;
}

int conf_self_test(suite_run *r) {
  lfa_conformance_case cases[N_SELF_TEST];
  memset(cases, 0, sizeof cases);
  for (size_t i = 0; i < N_SELF_TEST; i++) {
    if (conf_in_names(&r->all, SELF_TEST[i]) && (cases[i].name = strdup(SELF_TEST[i])) != NULL) continue;
    fprintf(stderr, "lfa conformance: --self-test needs scenario %s, which %s/scenarios/ does not have\n", SELF_TEST[i],
            r->a->suite);
    for (size_t k = 0; k < N_SELF_TEST; k++) lfa_conformance_case_free(&cases[k]);
    return LFA_EXIT_UNUSABLE;
  }
  lfa_conformance_case *suite_cases = r->cases;
  size_t suite_n = r->n_cases;
  r->cases = cases, r->n_cases = N_SELF_TEST, r->keep_all = true;
  printf("self-test of "), lfa_put_text(stdout, conf_adapter_name(r)), printf(" on %d scenarios:\n", N_SELF_TEST);
  size_t mistakes = 0;
  for (size_t i = 0; i < N_SELF_TEST; i++) {
    conf_run_case(r, &cases[i], r->a->timeout);
    mistakes += explain(&cases[i]);
  }
  printf("self-test: %d scenarios, %zu protocol mistake%s\n", N_SELF_TEST, mistakes, mistakes == 1 ? "" : "s");
  for (size_t i = 0; i < N_SELF_TEST; i++) lfa_conformance_case_free(&cases[i]);
  r->cases = suite_cases, r->n_cases = suite_n;
  if (r->temp_work) conf_remove_tree(r->work);
  else printf("work directory kept: "), lfa_put_text(stdout, r->work), putchar('\n');
  return mistakes > 0 ? LFA_EXIT_FINDINGS : LFA_EXIT_OK;
}
