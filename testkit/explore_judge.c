/* explore_judge.c: the oracle as the explorer's judge (lfa/explore_judge.h). */

#include <stdlib.h>
#include <string.h>

#include "lfa/explore_judge.h"

#include "lfa/oracle_compare.h"


void *ej_open(void *ctx) {
  (void)ctx;
  ej_instance *j = calloc(1, sizeof *j);
  if (j) or_init(&j->o);
  return j;
}

static void *ej_clone(void *ctx, const void *instance) {
  (void)ctx;
  ej_instance *j = calloc(1, sizeof *j);
  if (j) or_copy(&j->o, &((const ej_instance *)instance)->o);
  return j;
}

void ej_close(void *ctx, void *instance) {
  (void)ctx;
  ej_instance *j = instance;
  or_free(&j->o);
  free(j->frag_keys);
  free(j);
}

/* The oracle's prediction for `q` on its head (*next to commit or free). */
void ej_predict(ej_context *c, ej_instance *j, const lfa_request *q, const lfa_table *head, or_state *next,
                              or_prediction *p) {
  lfa_request seen = *q;
  or_fragment frag = {false, 0, NULL};
  if (c && c->doctor) c->doctor(&seen);
  if (q->op == LFA_OP_REPLACE || q->op == LFA_OP_OVERLAY)
    frag = or_fragment_keys(head, q->fragment_id, &j->frag_keys, &j->cap_frag_keys);
  or_predict(&j->o, &seen, &frag, next, p);
}

static bool ej_step(void *ctx, void *instance, const lfa_request *q, const lfa_table *head, lfa_status st,
                           const lfa_error *err, char *diff, size_t cap) {
  ej_instance *j = instance;
  or_state next;
  or_prediction p;
  ej_predict(ctx, j, q, head, &next, &p);
  bool no_work = q->op == LFA_OP_COMPACT && !p.refuse && st == LFA_ERR_USAGE && strstr(err->msg, "nothing to compact");
  bool ok = no_work || or_judge_answer(diff, cap, &p, st, err);
  if (ok && !no_work && st == LFA_OK) or_commit(&j->o, &next);
  else or_state_free(&next);
  return ok;
}

static bool ej_apply(void *ctx, void *instance, const lfa_request *q, const lfa_table *head) {
  ej_instance *j = instance;
  or_state next;
  or_prediction p;
  ej_predict(ctx, j, q, head, &next, &p);
  if (!p.refuse) or_commit(&j->o, &next);
  else or_state_free(&next);
  return !p.refuse;
}

static bool ej_agree(void *ctx, const void *instance, const lfa_table *t, const lfa_table *keys_from, char *diff,
                            size_t cap) {
  (void)ctx;
  return or_agree(&((const ej_instance *)instance)->o.head, t, keys_from, diff, cap);
}

/* A known-bad oracle, to show the explorer catches one: its delete
 * forgets the last of several rows. */
void ej_forget_last_deleted_row(lfa_request *q) {
  if (q->op == LFA_OP_DELETE && q->rows.count > 1) q->rows.count--;
}

/* The judge over context `c` (which must outlive it). */
lfa_explore_judge ej_judge(ej_context *c) {
  return (lfa_explore_judge){c, ej_open, ej_clone, ej_close, ej_step, ej_apply, ej_agree};
}

static int ej_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The oracle's head as a scenario check (every part), in `arena`. */
bool ej_observe(lfa_scenario_check *out, lfa_arena *arena, const ej_instance *j) {
  const or_state *s = &j->o.head;
  uint64_t *live = lfa_arena_alloc(arena, (s->n_rows + 1) * sizeof *live);
  const char **tracked = lfa_arena_alloc(arena, (s->n_fields + 1) * sizeof *tracked);
  lfa_scenario_assigned *assigned = lfa_arena_alloc(arena, (s->n_fields + 1) * sizeof *assigned);
  if (!live || !tracked || !assigned) return false;
  memset(out, 0, sizeof *out);
  for (size_t r = 0; r < s->n_rows; r++) live[r] = s->rows[r].key;
  qsort(live, s->n_rows, sizeof *live, ej_cmp_u64);
  out->has_live = true, out->live = (lfa_keys){s->n_rows, live};
  size_t nt = 0;
  for (size_t f = 0; f < s->n_fields; f++) {
    if (!s->fields[f].tracked) continue;
    uint64_t *keys = lfa_arena_alloc(arena, (s->n_rows + 1) * sizeof *keys);
    if (!keys) return false;
    size_t n = 0;
    for (size_t r = 0; r < s->n_rows; r++)
      if (s->rows[r].assigned[f]) keys[n++] = s->rows[r].key;
    qsort(keys, n, sizeof *keys, ej_cmp_u64);
    tracked[nt] = s->fields[f].path;
    assigned[nt++] = (lfa_scenario_assigned){s->fields[f].path, {n, keys}};
  }
  out->has_tracked = true, out->tracked = (lfa_names_list){nt, tracked};
  out->n_assigned = nt, out->assigned = assigned;
  return true;
}
