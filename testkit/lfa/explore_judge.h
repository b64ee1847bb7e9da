/* explore_judge.h: the independent oracle (lfa/oracle.h) as the
 * explorer's judge (harness/lfa/explore.h), for `lfa explore` and
 * the tests. The oracle is written from the spec, never from
 * the model's code: holding the model to it on every small history is
 * the explorer's point, which is why `lfa` links it.
 *
 * One judgement is the differential fuzzer's (fuzz/fuzz_history.h): the
 * answer against the prediction (lfa/oracle_compare.h or_judge_answer), and a
 * compaction the model finds no work for commits nothing and changes no
 * row's state (FA-REWRITE-1), whatever the oracle predicted.
 *
 * `doctor` (NULL in `lfa explore`) lets a test hand the oracle another
 * request than the model got: a known-bad oracle the explorer must catch. */
#ifndef LFA_EXPLORE_JUDGE_H
#define LFA_EXPLORE_JUDGE_H

#include <stdbool.h>

#include "lfa/arena.h"
#include "lfa/explore.h"
#include "lfa/oracle.h"
#include "lfa/scenario.h"
#include "lfa/table.h"

typedef struct ej_context {
  void (*doctor)(lfa_request *q); /* NULL: the oracle sees the model's request */
} ej_context;

typedef struct ej_instance {
  oracle o;
  uint64_t *frag_keys;
  size_t cap_frag_keys;
} ej_instance;

/* One oracle for the explorer, empty (NULL when out of memory); freed by ej_close. */
void *ej_open(void *ctx);
void ej_close(void *ctx, void *instance);

/* The oracle's prediction for `q` on its head (*next to commit or free). */
void ej_predict(ej_context *c, ej_instance *j, const lfa_request *q, const lfa_table *head, or_state *next,
                or_prediction *p);

/* A known-bad oracle, to show the explorer catches one: its delete
 * forgets the last of several rows. */
void ej_forget_last_deleted_row(lfa_request *q);

/* The judge over context `c` (which must outlive it). */
lfa_explore_judge ej_judge(ej_context *c);

/* The oracle's head as a scenario check (every part), in `arena`. */
bool ej_observe(lfa_scenario_check *out, lfa_arena *arena, const ej_instance *j);

#endif
