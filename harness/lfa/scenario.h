/* scenario.h: scenario files, the data-only form of a history of
 * mutations with hand-derived expectations (conformance/SCENARIOS.md).
 *
 * A scenario is a setup (the create request) and steps; each step is one
 * lfa_request (mutate.h), optionally built against an older read version,
 * with what must happen: committed, refused (with which rule), or a
 * retryable conflict; and optionally a check of the state after it: the
 * live rows, the tracked fields, and for each tracked field the rows whose
 * is_assigned is true. Rows are named by logical keys (lfa_fragment.keys),
 * fields by path ("payload.value").
 *
 * `lfa run` executes one on the reference writer (lfa_scenario_run); the
 * conformance runner reuses the parsed form, and compares what another
 * writer observed with lfa_scenario_compare.
 */
#ifndef LFA_SCENARIO_H
#define LFA_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/arena.h"
#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/json.h"
#include "lfa/mutate.h"
#include "lfa/table.h"

/* What a step does, expected or observed. */
typedef enum lfa_scenario_outcome {
  LFA_SCENARIO_OK,      /* committed as the next version */
  LFA_SCENARIO_REFUSED, /* rejected before anything was committed */
  LFA_SCENARIO_CONFLICT /* a concurrent commit got there first: retryable */
} lfa_scenario_outcome;

/* The live keys assigned for one tracked field. */
typedef struct lfa_scenario_assigned {
  const char *path;
  lfa_keys keys; /* ascending, distinct */
} lfa_scenario_assigned;

/* A statement about one snapshot. Each part is checked only when present:
 * a check says as much as its author chose to derive. */
typedef struct lfa_scenario_check {
  bool has_live;
  lfa_keys live; /* ascending, distinct: keys of the live rows */
  bool has_tracked;
  lfa_names_list tracked; /* the paths of exactly the tracked fields */
  size_t n_assigned;
  lfa_scenario_assigned *assigned; /* paths distinct */
} lfa_scenario_check;

/* A step names an earlier version by the step that committed it, never by
 * its number, so a writer that commits more versions than one per step
 * (extra ReserveFragments, say) is judged alike (SCENARIOS.md). */
#define LFA_SCENARIO_HEAD SIZE_MAX

typedef struct lfa_scenario_step {
  lfa_request request; /* a restore's request.version is set from to_step when the step runs */
  size_t read_step;    /* build against the version this earlier step committed; LFA_SCENARIO_HEAD: the head */
  size_t to_step;      /* restore: the version this earlier step committed; LFA_SCENARIO_HEAD: request.version */
  lfa_scenario_outcome expect;
  const char *expect_rule; /* checked against lfa_error.rule when not committed; NULL: any */
  const char *note;        /* the author's remark, or NULL */
  bool has_check;
  lfa_scenario_check check;
  uint32_t line; /* where the step starts in its file */
} lfa_scenario_step;

/* OWNERSHIP: everything lives in `arena` (strings copied: the JSON tree
 * may be freed); lfa_scenario_free. */
typedef struct lfa_scenario {
  lfa_arena arena;
  const char *name;
  const char *description;
  lfa_names_list requirements;
  size_t n_steps;
  lfa_scenario_step *steps; /* steps[0] is the setup (a create); then the file's steps */
} lfa_scenario;

/* Builds a scenario from a parsed document, refusing anything the format
 * does not define (unknown keys included) with the position and the path
 * of the offending value, as LFA_ERR_FORMAT. */
lfa_status lfa_scenario_parse(lfa_scenario *out, const lfa_json *root, lfa_error *err);
/* Reads, parses and builds the scenario at `path`. */
lfa_status lfa_scenario_load(lfa_scenario *out, const char *path, lfa_error *err);
void lfa_scenario_free(lfa_scenario *s);

/* The format's name of an operation ("append", "drop", "replace"...). */
const char *lfa_scenario_op_name(lfa_op op);
const char *lfa_scenario_outcome_name(lfa_scenario_outcome outcome);
/* "setup (create, line 7)" or "step 3 (update, line 41)". */
void lfa_scenario_step_label(char *out, size_t cap, const lfa_scenario *s, size_t step);

/* What a snapshot shows, in a check's terms: every part present, every
 * tracked field listed. Keys come from lfa_fragment.keys. OWNERSHIP: the
 * arrays live in `arena`. */
lfa_status lfa_scenario_observe(lfa_scenario_check *out, lfa_arena *arena, const lfa_table *t, lfa_error *err);

/* True when `got` agrees with every part `want` states. Otherwise `diff`
 * says what differed, part by part, with the missing and unexpected keys. */
bool lfa_scenario_compare(char *diff, size_t cap, const lfa_scenario_check *want, const lfa_scenario_check *got);

/* A writer's key map for one fragment of a version: keys.keys[o] is the
 * key of the row at physical offset o (a deleted row keeps its key). */
typedef struct lfa_scenario_fragment_keys {
  uint64_t id;
  lfa_keys keys;
} lfa_scenario_fragment_keys;

/* The key map of a table whose fragments carry keys (lfa_fragment.keys):
 * the entries point into `t`. Arrays live in `arena`. */
lfa_status lfa_scenario_key_map(lfa_scenario_fragment_keys **out, size_t *n, lfa_arena *arena, const lfa_table *t,
                                lfa_error *err);

/* What version `version` of the dataset at `dir` holds on disk, read with
 * lfa's reader and every reader rule (live rows from its deletion files,
 * tracked fields from its manifest, is_assigned from its roots and
 * bitmaps), its rows named through the writer's key map. A fragment the
 * map does not name, or names with another row count, is an error
 * (LFA_ERR_RULE). Arrays live in `arena`. */
lfa_status lfa_scenario_observe_disk(lfa_scenario_check *out, lfa_arena *arena, const lfa_fs *fs, const char *dir,
                                     uint64_t version, const lfa_scenario_fragment_keys *map, size_t n_map,
                                     lfa_error *err);

enum { LFA_SCENARIO_FAILURE_MAX = 1024 };

typedef struct lfa_scenario_result {
  lfa_scenario_outcome outcome;
  uint64_t head;                          /* the head version after the step (0: none yet) */
  const char *rule;                       /* not committed: the rule the refusal named, or NULL */
  char reason[LFA_ERROR_MSG_MAX];         /* not committed: why; else "" */
  bool checked;                           /* the step had a check, and it was compared */
  bool passed;                            /* outcome, rule and check as expected */
  char failure[LFA_SCENARIO_FAILURE_MAX]; /* !passed: what differed */
  /* The writer's observation differs from the bytes it wrote, on the parts
   * the check states (also when the bytes differ from the check too). */
  bool disagrees;
  char disagreement[LFA_SCENARIO_FAILURE_MAX]; /* disagrees: how */
} lfa_scenario_result;

/* OWNERSHIP: lfa_scenario_report_free. */
typedef struct lfa_scenario_report {
  bool passed;
  size_t n_results;
  lfa_scenario_result *results; /* the steps run, in order; when !passed the last one failed */
} lfa_scenario_report;

/* Judges one step from what happened (r->outcome, r->rule, r->reason and
 * r->head, already set) and, when the step has a check, what the writer
 * observed after it (NULL: nothing, which fails a check) and what the
 * bytes of version r->head hold (`on_disk`, read by lfa's reader; NULL
 * with `unreadable`: why they could not be read, which fails a check;
 * NULL without: there are no bytes, a history in memory only). The bytes
 * are judged first ("on disk: ..."), then the observation against them
 * ("the writer's reader disagrees with what it wrote: ..."). Sets
 * r->checked, r->passed, r->disagrees and, when not passed, r->failure
 * naming the parts and keys that differ. Shared by lfa_scenario_run and
 * the conformance runner, so the reference writer and a writer under test
 * are judged by one rule. */
void lfa_scenario_judge(lfa_scenario_result *r, const lfa_scenario_step *step, const lfa_scenario_check *observed,
                        const lfa_scenario_check *on_disk, const char *unreadable);

/* The request of step i with the versions it names by step resolved:
 * `left[j]` is the head after step j (j < i), the version step j
 * committed when it committed. *read_version is the version to build
 * against (0: the head), req->version a restore's target. */
void lfa_scenario_resolve(lfa_request *req, uint64_t *read_version, const lfa_scenario *s, size_t i,
                          const uint64_t *left);

/* Reads a check object ({"live", "tracked", "assigned"}, the format of
 * conformance/SCENARIOS.md) from a parsed JSON value, as strictly as a
 * scenario's; `what` names the value in messages. Arrays live in `arena`. */
lfa_status lfa_scenario_check_parse(lfa_scenario_check *out, lfa_arena *arena, const lfa_json *v, const char *what,
                                    lfa_error *err);

/* Applies every step to `h` (an empty history) in order and compares each
 * outcome and check with the scenario's, stopping at the first difference:
 * the state a check states is read back from the bytes `h` wrote (its
 * writer's directory) and compared with the check, and the history's own
 * head with the bytes. A difference is a verdict (report->passed false),
 * not an error: the status is LFA_OK. An error is input the run cannot
 * use: a failure to write, memory; its message names the step. */
lfa_status lfa_scenario_run(lfa_scenario_report *out, lfa_history *h, const lfa_scenario *s, lfa_error *err);
void lfa_scenario_report_free(lfa_scenario_report *r);

#endif
