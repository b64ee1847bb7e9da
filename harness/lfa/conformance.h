/* conformance.h: the conformance protocol between `lfa conformance` and
 * the writer under test (conformance/README.md, "Adapter protocol").
 *
 * For each scenario the runner starts an adapter with the scenario file and
 * an empty directory OUT. The adapter executes every step with its own
 * writer, leaves the dataset at OUT/dataset, and writes OUT/observations.json:
 * what happened at each step (committed, refused, conflict) and, at each
 * step whose scenario entry carries a check, what its own reader returns
 * for the live rows, the tracked fields and is_assigned, with the version
 * observed and the writer's key map. The runner reads each checked version
 * from the dataset with lfa's reader, names its rows by that key map, and
 * judges those bytes against the scenario's expectations and then the
 * observation against the bytes, with the rule `lfa run` uses
 * (lfa_scenario_judge); then it verifies the dataset.
 *
 * This file is the runner's side: reading observations, judging them with
 * the bytes, and one scenario's verdict. Reading a version back by key is
 * lfa_scenario_observe_disk (scenario.h), which the reference adapter
 * observes with too.
 */
#ifndef LFA_CONFORMANCE_H
#define LFA_CONFORMANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/arena.h"
#include "lfa/error.h"
#include "lfa/scenario.h"
#include "lfa/table.h"
#include "lfa/verify.h"

/* What the adapter reports for one step (steps[i] is step i: the setup is
 * step 0). */
typedef struct lfa_observed_step {
  lfa_scenario_outcome outcome;
  bool has_version;
  uint64_t version;    /* the version the step committed, or the head after a refusal */
  const char *rule;    /* a requirement id the writer named for a refusal, or NULL */
  const char *message; /* the writer's own words, or NULL */
  bool has_observed;
  lfa_scenario_check observed; /* every part present: live, tracked, assigned */
  /* The adapter's key map of the version the step left ("rows"): with it
   * the runner reads that version's bytes by key, and names the rows of
   * verifier findings. Required with `observed` (and so is `version`). */
  bool has_rows;
  size_t n_fragments;
  lfa_scenario_fragment_keys *fragments;
} lfa_observed_step;

/* OWNERSHIP: everything lives in `arena`; lfa_observations_free. */
typedef struct lfa_observations {
  lfa_arena arena;
  const char *adapter; /* the adapter's name for itself (writer, version) */
  const char *skipped; /* non-NULL: the adapter skipped the scenario, and why */
  size_t n_steps;
  lfa_observed_step *steps;
} lfa_observations;

/* Reads an observations document as strictly as a scenario (lfa/json.h):
 * unknown keys, a step out of order, an observed state missing a part, an
 * observed state without the version and key map it is of, are errors
 * with their line and column (LFA_ERR_FORMAT). `max_steps` bounds
 * the steps (the scenario's step count). */
lfa_status lfa_observations_parse(lfa_observations *out, const uint8_t *bytes, size_t len, size_t max_steps,
                                  lfa_error *err);
lfa_status lfa_observations_load(lfa_observations *out, const char *path, size_t max_steps, lfa_error *err);
void lfa_observations_free(lfa_observations *obs);

/* Judges the observations step by step, as lfa_scenario_run judges the
 * reference writer: results[i] for step i, stopping at the first step that
 * did not behave as expected (a step the adapter did not report is one).
 * After each checked step the version it names is read from the dataset
 * at `dataset` with lfa's reader, its rows named by the adapter's key map,
 * and judged against the check before the adapter's observation is
 * judged against it (lfa_scenario_judge). A rule is compared only when
 * the adapter names one: writers outside this project need not know
 * requirement ids. OWNERSHIP: lfa_scenario_report_free. */
lfa_status lfa_conformance_judge(lfa_scenario_report *out, const lfa_scenario *s, const lfa_observations *obs,
                                 const char *dataset, lfa_error *err);

/* ---- one scenario's verdict --------------------------------------------------------------
 * What the runner knows about one scenario once it has run: the verdict,
 * the one-line reason, the failing step with what was expected and what
 * was observed there, every verifier finding, and the scenario's work
 * directory. Every report (text, TAP, JUnit, JSON, HTML) renders this. */

typedef enum lfa_conformance_verdict {
  LFA_VERDICT_PASS,
  LFA_VERDICT_REFUSED_AS_EXPECTED, /* a pass in which the writer turned down what it had to */
  LFA_VERDICT_FAIL,
  LFA_VERDICT_CRASH,
  LFA_VERDICT_TIMEOUT,
  LFA_VERDICT_SKIPPED,
  LFA_VERDICT_INVALID, /* the scenario file itself is unusable: not the writer's fault */
  LFA_VERDICT_NOT_RUN  /* never started: --max-failures or the suite deadline stopped the run */
} lfa_conformance_verdict;

/* "pass", "refused-as-expected", "fail", "crash", "timeout", "skipped",
 * "invalid", "not-run". */
const char *lfa_conformance_verdict_name(lfa_conformance_verdict v);

enum { LFA_CONFORMANCE_MESSAGE_MAX = 2048, LFA_CONFORMANCE_PATH_MAX = 4096, LFA_CONFORMANCE_LABEL_MAX = 128 };

/* OWNERSHIP: lfa_conformance_case_free releases name, scenario,
 * observations and findings; `expected` and `observed` point into them. */
typedef struct lfa_conformance_case {
  char *name; /* the scenario file's name without ".json" */
  lfa_conformance_verdict verdict;
  bool listed; /* in the expected-failures list */
  double seconds;
  size_t steps, checks, versions;            /* steps that behaved, checks held, versions the verifier read */
  size_t errors, warnings;                   /* verifier findings by severity */
  /* The first step whose observation differs from the bytes the adapter
   * wrote (lfa_scenario_result.disagrees), label and how; "" when none. */
  char disagreement[LFA_CONFORMANCE_MESSAGE_MAX];
  char message[LFA_CONFORMANCE_MESSAGE_MAX]; /* the one-line reason; "" on a pass */
  /* The step that did not behave as expected (verdict fail, at a step). */
  bool has_failing_step;
  size_t failing_step; /* 0 is the setup */
  char failing_label[LFA_CONFORMANCE_LABEL_MAX]; /* "step 3 (update, line 41)" */
  const lfa_scenario_step *expected;             /* the scenario's step: expect, expect_rule, check */
  const lfa_observed_step *observed;             /* the adapter's report of it, or NULL: none */
  lfa_findings findings;                         /* every verifier finding, all severities */
  char work_dir[LFA_CONFORMANCE_PATH_MAX];       /* OUT_DIR; "" when there is none */
  bool kept;                                     /* work_dir is left on disk */
  bool has_scenario;
  lfa_scenario scenario;
  bool has_observations;
  lfa_observations observations;
} lfa_conformance_case;

/* Judges a case whose adapter finished normally: c->scenario is loaded,
 * and c->observations when they were usable (else the verdict is already
 * fail, with the reason). Sets the verdict, the message and the failing
 * step, then verifies the dataset at `dataset` and keeps every finding,
 * also when the case already failed (evidence beside it). When the steps
 * behaved, an error finding fails the case; the message names how many
 * and the first, rows by key. */
void lfa_conformance_judge_case(lfa_conformance_case *c, const char *dataset);

/* One finding in a line: "version V, FILE: RULE: MESSAGE", then its rows
 * named by the scenario's keys when the adapter gave its key map for that
 * version ("rows with keys {2, 5}"), else by offset. */
void lfa_conformance_finding_text(char *out, size_t cap, const lfa_conformance_case *c, const lfa_finding *f);

/* The keys of finding f's rows, when the adapter's key map for its
 * version and fragment names every one: keys[i] for f->rows[i]. */
bool lfa_conformance_finding_keys(uint64_t keys[LFA_FINDING_ROWS_MAX], const lfa_conformance_case *c,
                                  const lfa_finding *f);

void lfa_conformance_case_free(lfa_conformance_case *c);

#endif
