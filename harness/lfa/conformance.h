/* conformance.h: the conformance protocol between `lfa conformance` and
 * the writer under test (conformance/README.md, "Adapter protocol").
 *
 * For each scenario the runner starts an adapter with the scenario file and
 * an empty directory OUT. The adapter executes every step with its own
 * writer, leaves the dataset at OUT/dataset, and writes OUT/observations.json:
 * what happened at each step (committed, refused, conflict) and, at each
 * step whose scenario entry carries a check, what its own reader returns
 * for the live rows, the tracked fields and is_assigned. The runner judges
 * the observations against the scenario's expectations with the rule
 * `lfa run` uses (lfa_scenario_judge), then verifies the dataset.
 *
 * This file is the part both sides share: reading observations, judging
 * them, and the reference adapter's way of observing, which reads the
 * written version back from disk.
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
 * unknown keys, a step out of order, an observed state missing a part, are
 * errors with their line and column (LFA_ERR_FORMAT). `max_steps` bounds
 * the steps (the scenario's step count). */
lfa_status lfa_observations_parse(lfa_observations *out, const uint8_t *bytes, size_t len, size_t max_steps,
                                  lfa_error *err);
lfa_status lfa_observations_load(lfa_observations *out, const char *path, size_t max_steps, lfa_error *err);
void lfa_observations_free(lfa_observations *obs);

/* Judges the observations step by step, as lfa_scenario_run judges the
 * reference writer: results[i] for step i, stopping at the first step that
 * did not behave as expected (a step the adapter did not report is one).
 * A rule is compared only when the adapter names one: writers outside
 * this project need not know requirement ids. OWNERSHIP:
 * lfa_scenario_report_free. */
lfa_status lfa_conformance_judge(lfa_scenario_report *out, const lfa_scenario *s, const lfa_observations *obs,
                                 lfa_error *err);

/* The reference adapter's observation of version `version`: the dataset
 * at `dir` read back from disk with every reader rule (live rows from its
 * deletion files, tracked fields from its manifest, is_assigned from its
 * roots and bitmaps), its rows named by the logical keys `model` gives the
 * same fragment (the writer's own map from keys to rows, like a key column
 * of a writer under test). A fragment the model does not have, or has with
 * another physical_rows, is an error (LFA_ERR_RULE). Arrays live in
 * `arena`. */
lfa_status lfa_conformance_observe_disk(lfa_scenario_check *out, lfa_arena *arena, const char *dir, uint64_t version,
                                        const lfa_table *model, lfa_error *err);

#endif
