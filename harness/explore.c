/* explore.c: the walk over every small history and its checks (lfa/explore.h). */
#include "lfa/explore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore_internal.h"
#include "lfa/expr.h"
#include "lfa/memfs.h"
#include "lfa/verify.h"

#define DIR "." /* the history's directory: the root of its memfs */

/* ---- one run: model, judge and memfs, from scratch ---------------------------------------------- */

typedef struct xrun {
  lfa_memfs fs;
  lfa_history h;
  void *judge;
} xrun;

typedef struct xwalk {
  const lfa_explore_options *o;
  const lfa_explore_judge *j;
  lfa_explore_result *out;
  char diff[LFA_EXPLORE_DIFF_MAX];
} xwalk;

static void run_close(xwalk *w, xrun *r) {
  lfa_history_close(&r->h);
  if (r->judge) w->j->close(w->j->ctx, r->judge);
  lfa_memfs_free(&r->fs);
  free(r);
}

static xrun *run_open(xwalk *w, lfa_error *err) {
  xrun *r = calloc(1, sizeof *r);
  if (r == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory"), NULL;
  lfa_memfs_init(&r->fs);
  lfa_status st = w->o->disk ? lfa_history_open_fs(&r->h, &r->fs.fs, DIR, 1, err) : lfa_history_open(&r->h, NULL, 1, err);
  if (st == LFA_OK && (r->judge = w->j->open(w->j->ctx)) == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st != LFA_OK) run_close(w, r);
  return st == LFA_OK ? r : NULL;
}

/* What one move did. */
typedef struct xstep {
  bool failed;   /* a check failed: w->diff says which */
  bool accepted; /* committed */
  lfa_status status;
  const char *rule; /* the refusal's rule, or NULL */
} xstep;

static bool failf(xstep *s, xwalk *w, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool failf(xstep *s, xwalk *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->diff, sizeof w->diff, fmt, ap);
  va_end(ap);
  s->failed = true;
  return false;
}

/* The first error finding, or NULL. */
static const lfa_finding *first_error(const lfa_verify_result *r) {
  for (size_t i = 0; i < r->findings.count; i++)
    if (r->findings.items[i].severity == LFA_SEVERITY_ERROR) return &r->findings.items[i];
  return NULL;
}

/* is_assigned, read back from disk, on every live row of every tracked
 * field of the head, against the model (FA-EXPR-5). */
static bool eval_agrees(xstep *s, xwalk *w, xrun *r, const lfa_table *head, lfa_error *err) {
  lfa_snapshot snap;
  if (lfa_snapshot_load_version(&snap, &r->fs.fs, DIR, head->version, err) != LFA_OK)
    return failf(s, w, "version %" PRIu64 " does not load: %s", head->version, err->msg);
  bool ok = true;
  for (size_t t = 0; t < head->n_tracked && ok; t++) {
    lfa_expr_plan plan;
    lfa_expr_binding b;
    lfa_expr_scan scan;
    int32_t id = head->tracked[t].field_id;
    if (lfa_expr_plan_field_id(&plan, DIR, &snap, id, err) != LFA_OK || lfa_expr_bind(&b, &plan, DIR, &snap, err) != LFA_OK) {
      ok = failf(s, w, "is_assigned of field %d: %s", (int)id, err->msg);
      break;
    }
    if (lfa_expr_scan_open(&scan, &b, DIR, &snap, NULL, 0, err) != LFA_OK) ok = failf(s, w, "scan: %s", err->msg);
    for (size_t k = 0; ok && k < scan.count; k++) {
      size_t fi = lfa_table_fragment(head, scan.fragments[k].id);
      for (uint32_t o = 0; ok && fi != SIZE_MAX && o < scan.fragments[k].physical_rows; o++) {
        bool got = false, want = lfa_cell_contains(&head->tracked[t].cells[fi], o);
        if (!lfa_fragment_is_live(&head->fragments[fi], o)) continue;
        if (lfa_expr_row(&got, &scan, k, o, err) != LFA_OK || got != want)
          ok = failf(s, w, "is_assigned(field %d) read back at fragment %" PRIu64 " offset %u: %s, model %s", (int)id,
                     scan.fragments[k].id, o, got ? "true" : "false", want ? "true" : "false");
      }
      if (fi == SIZE_MAX) ok = failf(s, w, "fragment %" PRIu64 " is on disk only", scan.fragments[k].id);
    }
    if (scan.binding) lfa_expr_scan_close(&scan);
    lfa_expr_unbind(&b);
  }
  lfa_snapshot_free(&snap);
  return ok;
}

/* The versions written from `from` on: they verify with no error (their
 * static rules and the commits that made them), the verifier's head shows
 * the state of `judge`, and is_assigned reads back the model's. */
static bool disk_agrees(xstep *s, xwalk *w, xrun *r, const void *judge, uint64_t from, lfa_error *err) {
  const lfa_table *head = lfa_history_head(&r->h);
  lfa_verify_options vo = {.fs = &r->fs.fs, .has_from = true, .from = from};
  lfa_verify_result res;
  bool ok = true;
  w->out->verified++;
  if (lfa_verify_dataset(&res, DIR, &vo, err) != LFA_OK) ok = failf(s, w, "the verifier could not run: %s", err->msg);
  const lfa_finding *f = ok ? first_error(&res) : NULL;
  if (f) ok = failf(s, w, "verifier: %s at version %" PRIu64 ": %s", f->rule, f->version, f->message);
  if (ok && !res.last_loaded) ok = failf(s, w, "the verifier did not load version %" PRIu64, head->version);
  if (ok && !w->j->agree(w->j->ctx, judge, &res.last, head, w->diff, sizeof w->diff))
    ok = failf(s, w, "read back from disk: %.900s", w->diff);
  lfa_verify_result_free(&res);
  return ok && eval_agrees(s, w, r, head, err);
}

/* Applies move `m` to the model and the judge, and checks the version. */
static lfa_status run_move(xstep *s, xwalk *w, xrun *r, const lfa_explore_move *m, lfa_error *err) {
  lfa_request q;
  lfa_explore_request_storage store;
  lfa_error e = {0};
  lfa_explore_request(&q, &store, m);
  size_t count = r->h.count;
  *s = (xstep){0};
  s->status = lfa_history_apply(&r->h, &q, m->read_version, &e);
  s->accepted = s->status == LFA_OK, s->rule = s->accepted ? NULL : e.rule;
  if (s->status == LFA_ERR_NOMEM) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (!s->accepted && s->status != LFA_ERR_USAGE && s->status != LFA_ERR_CONFLICT)
    return failf(s, w, "model failed with %s: %s", lfa_status_name(s->status), e.msg), LFA_OK;
  if (s->accepted && r->h.count != count + 1) return failf(s, w, "model committed no version"), LFA_OK;
  /* after the commit: it may have moved the versions */
  const lfa_table *before = lfa_history_version(&r->h, count), *after = lfa_history_head(&r->h);
  if (!w->j->step(w->j->ctx, r->judge, &q, before, s->status, &e, w->diff, sizeof w->diff)) s->failed = true;
  else if (!w->j->agree(w->j->ctx, r->judge, after, after, w->diff, sizeof w->diff)) s->failed = true;
  else if (s->accepted && w->o->disk) disk_agrees(s, w, r, r->judge, lfa_history_head(&r->h)->version, err);
  return LFA_OK;
}

static bool same_move(const lfa_explore_move *a, const lfa_explore_move *b) {
  return a->op == b->op && a->n_rows == b->n_rows && a->n_inserts == b->n_inserts &&
         memcmp(a->rows, b->rows, a->n_rows * sizeof a->rows[0]) == 0 &&
         memcmp(a->inserts, b->inserts, a->n_inserts * sizeof a->inserts[0]) == 0 && a->fields == b->fields &&
         a->invalidate == b->invalidate && a->field == b->field && a->new_name == b->new_name && a->type == b->type &&
         a->assignment == b->assignment && a->flag == b->flag && a->number == b->number;
}

/* Is `m` a move the explorer makes from the head of `r` (a create: of the start set)? */
static bool in_scope(xrun *r, const lfa_explore_move *m, bool *lost) {
  xmoves all = {0};
  if (r->h.count == 0) xmoves_start(&all, m->flag);
  else xmoves_serial(&all, &r->h, xnext_key(&r->h));
  bool found = false;
  for (size_t i = 0; i < all.count && !found; i++) found = same_move(&all.items[i], m);
  *lost = all.lost;
  xmoves_free(&all);
  return found;
}

/* A run with `moves` applied; *failed when a check failed. With `scoped`
 * (a shrinker's candidate), *out_of_scope instead when a move is not one
 * the explorer makes from where it is applied: a candidate must stay a
 * history the explorer could have enumerated. */
static lfa_status run_scoped(xrun **out, bool *failed, bool *out_of_scope, xwalk *w, const lfa_explore_move *moves,
                             size_t n, lfa_error *err) {
  xrun *r = run_open(w, err);
  *failed = false, *out = r;
  if (r == NULL) return err->status;
  for (size_t i = 0; i < n && !*failed; i++) {
    xstep s;
    bool lost = false;
    if (out_of_scope && !in_scope(r, &moves[i], &lost)) {
      *out_of_scope = true;
      return lost ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory") : LFA_OK;
    }
    if (run_move(&s, w, r, &moves[i], err) != LFA_OK) return err->status;
    *failed = s.failed;
  }
  return LFA_OK;
}

/* A run with `moves` applied (all of them expected to commit); *failed
 * when one did not or a check failed. */
static lfa_status run_history(xrun **out, bool *failed, xwalk *w, const lfa_explore_move *moves, size_t n, lfa_error *err) {
  return run_scoped(out, failed, NULL, w, moves, n, err);
}

/* ---- counting ---------------------------------------------------------------------------- */

static void count_rule(lfa_explore_rule_count *list, size_t *n, const char *rule) {
  const char *name = rule ? rule : "-";
  for (size_t i = 0; i < *n; i++)
    if (strcmp(list[i].rule, name) == 0) {
      list[i].count++;
      return;
    }
  if (*n < LFA_EXPLORE_RULES_MAX) list[(*n)++] = (lfa_explore_rule_count){name, 1};
}

/* ---- the state graph ---------------------------------------------------------------------------- */

typedef struct xstate {
  uint64_t hash;
  char *key;
  uint32_t parent; /* UINT32_MAX: a start state */
  uint8_t depth;
  lfa_explore_move move; /* the move from the parent (a start state: its create) */
} xstate;

typedef struct xedge {
  uint32_t from, to; /* to == UINT32_MAX: refused */
} xedge;

typedef struct xgraph {
  size_t n_states, cap_states;
  xstate *states;
  size_t cap_slots;
  uint32_t *slots; /* open addressing by hash: state index + 1, 0 empty */
  size_t n_edges, cap_edges;
  xedge *edges;
} xgraph;

static void graph_free(xgraph *g) {
  for (size_t i = 0; i < g->n_states; i++) free(g->states[i].key);
  free(g->states);
  free(g->slots);
  free(g->edges);
}

static size_t slot_of(const xgraph *g, uint64_t hash, const char *key) {
  size_t i = (size_t)hash & (g->cap_slots - 1);
  while (g->slots[i] && (g->states[g->slots[i] - 1].hash != hash || strcmp(g->states[g->slots[i] - 1].key, key) != 0))
    i = (i + 1) & (g->cap_slots - 1);
  return i;
}

static bool grow_slots(xgraph *g) {
  size_t cap = g->cap_slots ? 2 * g->cap_slots : 1024;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (slots == NULL) return false;
  free(g->slots);
  g->slots = slots, g->cap_slots = cap;
  for (size_t s = 0; s < g->n_states; s++) g->slots[slot_of(g, g->states[s].hash, g->states[s].key)] = (uint32_t)(s + 1);
  return true;
}

/* The state with canonical form `key` (taken over), added when new: *index, *added. */
static lfa_status graph_find_add(uint32_t *index, bool *added, xgraph *g, char *key, xstate proto, uint64_t max,
                                 lfa_error *err) {
  uint64_t hash = xhash(key);
  *added = false;
  if (g->cap_slots && g->slots[slot_of(g, hash, key)]) {
    *index = g->slots[slot_of(g, hash, key)] - 1;
    free(key);
    return LFA_OK;
  }
  if (g->n_states >= max) return free(key), lfa_fail(err, LFA_ERR_LIMIT, NULL, "more than %" PRIu64 " distinct states", max);
  if ((g->n_states + 1) * 2 > g->cap_slots && !grow_slots(g)) return free(key), lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (g->n_states == g->cap_states) {
    size_t cap = g->cap_states ? 2 * g->cap_states : 256;
    xstate *grown = realloc(g->states, cap * sizeof *grown);
    if (grown == NULL) return free(key), lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    g->states = grown, g->cap_states = cap;
  }
  proto.hash = hash, proto.key = key;
  g->states[g->n_states] = proto;
  g->slots[slot_of(g, hash, key)] = (uint32_t)(g->n_states + 1);
  *index = (uint32_t)g->n_states++;
  *added = true;
  return LFA_OK;
}

static lfa_status graph_edge(xgraph *g, uint32_t from, uint32_t to, lfa_error *err) {
  if (g->n_edges == g->cap_edges) {
    size_t cap = g->cap_edges ? 2 * g->cap_edges : 4096;
    xedge *grown = realloc(g->edges, cap * sizeof *grown);
    if (grown == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    g->edges = grown, g->cap_edges = cap;
  }
  g->edges[g->n_edges++] = (xedge){from, to};
  return LFA_OK;
}

/* The moves from the start to state `s` (moves[0] its create); their count. */
static size_t history_of(lfa_explore_move *moves, const xgraph *g, uint32_t s) {
  size_t n = 0;
  for (uint32_t at = s; at != UINT32_MAX; at = g->states[at].parent) n++;
  size_t i = n;
  for (uint32_t at = s; at != UINT32_MAX; at = g->states[at].parent) moves[--i] = g->states[at].move;
  return n;
}

/* Histories of exactly d operations, d = 1..depth, through the graph: a
 * history is accepted at every step but maybe its last. Every state a
 * history of fewer than `depth` operations reaches was expanded (it was
 * first reached no later), so its edges are all known. */
static lfa_status count_histories(lfa_explore_result *out, const xgraph *g, unsigned depth, lfa_error *err) {
  uint64_t *now = calloc(g->n_states ? g->n_states : 1, sizeof *now);
  uint64_t *next = calloc(g->n_states ? g->n_states : 1, sizeof *next);
  lfa_status st = now && next ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t s = 0; st == LFA_OK && s < g->n_states; s++) now[s] = g->states[s].depth == 0;
  for (unsigned d = 1; st == LFA_OK && d <= depth; d++) {
    memset(next, 0, g->n_states * sizeof *next);
    for (size_t e = 0; e < g->n_edges; e++) {
      uint64_t paths = now[g->edges[e].from];
      out->levels[d].histories += paths;
      if (g->edges[e].to != UINT32_MAX) next[g->edges[e].to] += paths;
    }
    out->histories += out->levels[d].histories;
    uint64_t *t = now;
    now = next, next = t;
  }
  free(now);
  free(next);
  return st;
}

/* ---- shrinking ----------------------------------------------------------------------------- */

static lfa_status replay(bool *failed, xwalk *w, const lfa_explore_move *moves, size_t n, bool concurrent, lfa_error *err);

/* Tries `cand` (n moves) in place of the failure: kept when it still fails. */
static lfa_status try_smaller(bool *kept, xwalk *w, lfa_explore_move *moves, size_t *n, const lfa_explore_move *cand,
                              size_t cn, bool concurrent, lfa_error *err) {
  bool failed = false;
  char saved[LFA_EXPLORE_DIFF_MAX];
  memcpy(saved, w->diff, sizeof saved);
  lfa_status st = replay(&failed, w, cand, cn, concurrent, err);
  *kept = st == LFA_OK && failed;
  if (*kept) memmove(moves, cand, cn * sizeof *cand), *n = cn;
  else memcpy(w->diff, saved, sizeof saved);
  return st;
}

/* Drops the element at `i` of a key list. */
static void drop_key(uint64_t *keys, uint8_t *n, size_t i) {
  memmove(&keys[i], &keys[i + 1], (size_t)(*n - i - 1) * sizeof *keys);
  (*n)--;
}

/* One pass: each step left out (never the create, nor a concurrent pair),
 * then each key and each field of each step. */
static lfa_status shrink_pass(bool *changed, xwalk *w, lfa_explore_move *moves, size_t *n, bool concurrent, lfa_error *err) {
  lfa_explore_move cand[LFA_EXPLORE_DEPTH_MAX + 3];
  bool kept = false;
  *changed = false;
  size_t fixed_tail = concurrent ? 2 : 0;
  for (size_t i = 1; i + fixed_tail < *n; i++) {
    memcpy(cand, moves, i * sizeof *cand);
    memcpy(cand + i, moves + i + 1, (*n - i - 1) * sizeof *cand);
    if (try_smaller(&kept, w, moves, n, cand, *n - 1, concurrent, err) != LFA_OK) return err->status;
    if (kept) return *changed = true, LFA_OK;
  }
  for (size_t i = 0; i + fixed_tail < *n; i++) {
    for (size_t k = 0; k < moves[i].n_rows + moves[i].n_inserts; k++) {
      memcpy(cand, moves, *n * sizeof *cand);
      if (k < moves[i].n_rows) drop_key(cand[i].rows, &cand[i].n_rows, k);
      else drop_key(cand[i].inserts, &cand[i].n_inserts, k - moves[i].n_rows);
      if (cand[i].op == LFA_OP_CREATE && cand[i].n_rows == 0) continue;
      if (try_smaller(&kept, w, moves, n, cand, *n, concurrent, err) != LFA_OK) return err->status;
      if (kept) return *changed = true, LFA_OK;
    }
    for (unsigned b = 0; b < 2 * LFA_EXPLORE_NAMES; b++) {
      uint8_t *set = b < LFA_EXPLORE_NAMES ? &cand[i].fields : &cand[i].invalidate;
      memcpy(cand, moves, *n * sizeof *cand);
      uint8_t bit = (uint8_t)(1u << (b % LFA_EXPLORE_NAMES));
      if (!(*set & bit) || *set == bit) continue; /* keep at least one */
      *set &= (uint8_t)~bit;
      if (try_smaller(&kept, w, moves, n, cand, *n, concurrent, err) != LFA_OK) return err->status;
      if (kept) return *changed = true, LFA_OK;
    }
  }
  return LFA_OK;
}

/* Records the failure of `moves` in the result, shrunk. */
static lfa_status report_failure(xwalk *w, const lfa_explore_move *moves, size_t n, bool concurrent, lfa_error *err) {
  lfa_explore_result *out = w->out;
  out->failed = true, out->failed_concurrent = concurrent, out->unshrunk_moves = n;
  memcpy(out->moves, moves, n * sizeof *moves);
  out->n_moves = n;
  memcpy(out->diff, w->diff, sizeof out->diff);
  for (bool changed = true; changed;)
    if (shrink_pass(&changed, w, out->moves, &out->n_moves, concurrent, err) != LFA_OK) return err->status;
  bool failed = false; /* once more, for the shrunk history's own difference */
  if (replay(&failed, w, out->moves, out->n_moves, concurrent, err) != LFA_OK) return err->status;
  memcpy(out->diff, w->diff, sizeof out->diff);
  return LFA_OK;
}

/* ---- concurrency ----------------------------------------------------------------------------- */

/* m2 with its new keys moved past m1's, so the two never insert one key. */
static lfa_explore_move second_of(lfa_explore_move m2, uint64_t next_key) {
  for (size_t k = 0; k < m2.n_rows; k++)
    if (m2.op == LFA_OP_APPEND && m2.rows[k] >= next_key) m2.rows[k] += LFA_EXPLORE_ROWS_MAX;
  for (size_t k = 0; k < m2.n_inserts; k++) m2.inserts[k] += LFA_EXPLORE_ROWS_MAX;
  return m2;
}

/* The judge's state after `first` then `second` from `at` (a second it
 * refuses there is moot: its rows are gone, say): *usable when it accepts
 * the first, *both when also the second. */
static void *serial(bool *usable, bool *both, xwalk *w, const void *at, const lfa_explore_move *first,
                    const lfa_explore_move *second, const lfa_table *head) {
  void *j = w->j->clone(w->j->ctx, at);
  lfa_request q;
  lfa_explore_request_storage store;
  *both = false;
  if (j == NULL) return NULL;
  lfa_explore_move a = *first, b = *second;
  a.read_version = b.read_version = 0;
  lfa_explore_request(&q, &store, &a);
  *usable = w->j->apply(w->j->ctx, j, &q, head);
  lfa_explore_request(&q, &store, &b);
  *both = *usable && w->j->apply(w->j->ctx, j, &q, head);
  return j;
}

/* Checks the pair: moves[n-2] committed on the state moves[0..n-2) reach,
 * then moves[n-1] built on that state and committed after it. */
static lfa_status check_pair(bool *failed, bool *committed, xwalk *w, const lfa_explore_move *moves, size_t n, lfa_error *err) {
  xrun *r = NULL;
  bool out_of_scope = false;
  *committed = false;
  lfa_status st = run_scoped(&r, failed, &out_of_scope, w, moves, n - 2, err);
  if (out_of_scope) *failed = false;
  if (st != LFA_OK || *failed || out_of_scope) return r ? (run_close(w, r), st) : st;
  lfa_explore_move m1 = moves[n - 2], m2 = moves[n - 1];
  m1.read_version = 0, m2.read_version = r->h.count;
  const lfa_table *at = lfa_history_head(&r->h);
  bool both12 = false, both21 = false, use12 = false, use21 = false;
  void *s12 = serial(&use12, &both12, w, r->judge, &m1, &m2, at), *s21 = serial(&use21, &both21, w, r->judge, &m2, &m1, at);
  lfa_request q;
  lfa_explore_request_storage store;
  lfa_error e = {0};
  lfa_explore_request(&q, &store, &m1);
  lfa_status s1 = s12 && s21 ? lfa_history_apply(&r->h, &q, 0, &e) : LFA_ERR_NOMEM;
  lfa_explore_request(&q, &store, &m2);
  lfa_status s2 = s1 == LFA_OK ? lfa_history_apply(&r->h, &q, m2.read_version, &e) : s1;
  char d12[480] = "", d21[480] = "";
  if (s1 == LFA_ERR_NOMEM || s2 == LFA_ERR_NOMEM) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  else if (s1 != LFA_OK) *failed = true, snprintf(w->diff, sizeof w->diff, "the first commit alone failed: %s", e.msg);
  else if (s2 == LFA_ERR_CONFLICT) count_rule(w->out->conflicts, &w->out->n_conflicts, e.rule);
  else if ((s2 == LFA_ERR_USAGE || s2 == LFA_ERR_RULE) && (!both12 || !both21)) /* refused as some serial order is */
    count_rule(w->out->conflicts, &w->out->n_conflicts, e.rule);
  else if (s2 != LFA_OK)
    *failed = true, snprintf(w->diff, sizeof w->diff, "the concurrent commit failed with %s (%s)%s", lfa_status_name(s2),
                             e.msg, both12 && both21 ? " though both serial orders accept both" : "");
  else {
    const lfa_table *head = lfa_history_head(&r->h);
    bool ok12 = use12 && w->j->agree(w->j->ctx, s12, head, head, d12, sizeof d12);
    bool ok21 = use21 && w->j->agree(w->j->ctx, s21, head, head, d21, sizeof d21);
    *committed = true;
    if (!ok12 && !ok21)
      *failed = true, snprintf(w->diff, sizeof w->diff, "the concurrent commit matches no serial order: first;second %s, second;first %s",
                               use12 ? d12 : "refuses the first", use21 ? d21 : "refuses the first");
    xstep s = {0};
    if (!*failed && w->o->disk) disk_agrees(&s, w, r, ok12 ? s12 : s21, m2.read_version + 1, err);
    *failed |= s.failed;
  }
  if (s12) w->j->close(w->j->ctx, s12);
  if (s21) w->j->close(w->j->ctx, s21);
  run_close(w, r);
  return st;
}

/* Keeps the moves the model builds a change for on `t` alone (a
 * compaction with no work is refused before any concurrency,
 * FA-REWRITE-1): a pair is about two changes that each stand alone. */
static void keep_buildable(xmoves *c, const lfa_table *t) {
  size_t kept = 0;
  for (size_t i = 0; i < c->count; i++) {
    lfa_request q;
    lfa_explore_request_storage store;
    lfa_change change;
    lfa_error e = {0};
    lfa_explore_request(&q, &store, &c->items[i]);
    q.new_version = t->version + 1;
    if (lfa_mutate(&change, t, &q, &e) == LFA_OK) c->items[kept++] = c->items[i];
    if (change.txn != NULL) lfa_change_free(&change);
  }
  c->count = kept;
}

/* Every pair of concurrent moves from state `s`. */
static lfa_status explore_pairs(xwalk *w, const xgraph *g, uint32_t s, lfa_error *err) {
  lfa_explore_move moves[LFA_EXPLORE_DEPTH_MAX + 3];
  size_t n = history_of(moves, g, s);
  bool failed = false;
  xrun *r = NULL;
  lfa_status st = run_history(&r, &failed, w, moves, n, err);
  xmoves c = {0};
  if (st == LFA_OK && !failed) xmoves_concurrent(&c, lfa_history_head(&r->h), xnext_key(&r->h));
  if (st == LFA_OK && !failed) keep_buildable(&c, lfa_history_head(&r->h));
  uint64_t next_key = r && r->h.count ? xnext_key(&r->h) : 1;
  if (r) run_close(w, r);
  if (c.lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t a = 0; st == LFA_OK && a < c.count && !w->out->failed; a++)
    for (size_t b = 0; st == LFA_OK && b < c.count && !w->out->failed; b++) {
      bool committed = false;
      moves[n] = c.items[a], moves[n + 1] = second_of(c.items[b], next_key);
      if (a == b && c.items[a].op == LFA_OP_UPDATE) moves[n + 1] = c.items[a]; /* the replayed commit */
      moves[n + 1].read_version = n; /* the state's version: one per move so far */
      st = check_pair(&failed, &committed, w, moves, n + 2, err);
      w->out->pairs++, w->out->pairs_committed += committed;
      if (st == LFA_OK && failed) st = report_failure(w, moves, n + 2, true, err);
    }
  xmoves_free(&c);
  return st;
}

/* ---- the walk ------------------------------------------------------------------------------- */

/* Every move from state `s`: one run per committed move (a refused one
 * leaves the run as it was, so the next move reuses it). */
static lfa_status expand(xwalk *w, xgraph *g, uint32_t s, lfa_error *err) {
  lfa_explore_move moves[LFA_EXPLORE_DEPTH_MAX + 3];
  size_t n = history_of(moves, g, s);
  unsigned depth = g->states[s].depth;
  xrun *r = NULL;
  bool failed = false;
  lfa_status st = run_history(&r, &failed, w, moves, n, err);
  if (st == LFA_OK && failed) st = report_failure(w, moves, n, false, err);
  xmoves next = {0};
  if (st == LFA_OK && !w->out->failed) xmoves_serial(&next, &r->h, xnext_key(&r->h));
  if (next.lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < next.count && !w->out->failed; i++) {
    if (r == NULL && (st = run_history(&r, &failed, w, moves, n, err)) != LFA_OK) break;
    xstep step;
    if ((st = run_move(&step, w, r, &next.items[i], err)) != LFA_OK) break;
    w->out->levels[depth + 1].runs++;
    moves[n] = next.items[i];
    if (step.failed) {
      st = report_failure(w, moves, n + 1, false, err);
      break;
    }
    if (!step.accepted) {
      count_rule(w->out->refusals, &w->out->n_refusals, step.rule);
      st = graph_edge(g, s, UINT32_MAX, err);
      continue;
    }
    w->out->levels[depth + 1].accepted++;
    char *key = xcanonical(&r->h);
    uint32_t to = 0;
    bool added = false;
    xstate proto = {.parent = s, .depth = (uint8_t)(depth + 1), .move = next.items[i]};
    st = key ? graph_find_add(&to, &added, g, key, proto, w->o->max_states ? w->o->max_states : 4u << 20, err)
             : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    if (st == LFA_OK) st = graph_edge(g, s, to, err);
    w->out->levels[depth + 1].new_states += added;
    run_close(w, r), r = NULL;
  }
  if (r) run_close(w, r);
  xmoves_free(&next);
  return st;
}

/* The start states of one mode. */
static lfa_status start(xwalk *w, xgraph *g, bool stable, lfa_error *err) {
  xmoves s = {0};
  xmoves_start(&s, stable);
  lfa_status st = s.lost ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory") : LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < s.count && !w->out->failed; i++) {
    xrun *r = NULL;
    bool failed = false;
    w->out->levels[0].runs++;
    st = run_history(&r, &failed, w, &s.items[i], 1, err);
    if (st == LFA_OK && failed) st = report_failure(w, &s.items[i], 1, false, err);
    char *key = st == LFA_OK && !w->out->failed ? xcanonical(&r->h) : NULL;
    if (key) {
      uint32_t to = 0;
      bool added = false;
      xstate proto = {.parent = UINT32_MAX, .depth = 0, .move = s.items[i]};
      st = graph_find_add(&to, &added, g, key, proto, UINT64_MAX, err);
      w->out->levels[0].accepted++, w->out->levels[0].new_states += added;
    }
    if (r) run_close(w, r);
  }
  xmoves_free(&s);
  return st;
}

static lfa_status walk(xwalk *w, xgraph *g, lfa_error *err) {
  lfa_status st = LFA_OK;
  if (w->o->address) st = start(w, g, false, err);
  if (st == LFA_OK && w->o->stable) st = start(w, g, true, err);
  /* breadth first: states are appended as found, so index order is depth order */
  for (size_t s = 0; st == LFA_OK && s < g->n_states && !w->out->failed; s++)
    if (g->states[s].depth < w->o->depth) st = expand(w, g, (uint32_t)s, err);
  for (size_t s = 0; w->o->concurrent && st == LFA_OK && s < g->n_states && !w->out->failed; s++)
    if (g->states[s].depth + 1u <= w->o->depth) st = explore_pairs(w, g, (uint32_t)s, err);
  return st;
}

lfa_status lfa_explore(lfa_explore_result *out, const lfa_explore_options *o, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (o->depth < 1 || o->depth > LFA_EXPLORE_DEPTH_MAX || (!o->address && !o->stable) || o->judge == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "depth 1 to %d, at least one row-id mode and a judge", LFA_EXPLORE_DEPTH_MAX);
  struct timespec t0, t1;
  timespec_get(&t0, TIME_UTC); /* C11: wall time */
  xwalk w = {.o = o, .j = o->judge, .out = out};
  xgraph g = {0};
  lfa_status st = walk(&w, &g, err);
  if (st == LFA_OK && !out->failed) st = count_histories(out, &g, o->depth, err);
  out->distinct_states = g.n_states;
  graph_free(&g);
  timespec_get(&t1, TIME_UTC);
  out->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  return st;
}

/* ---- replaying a counterexample ---------------------------------------------------------------- */

static lfa_status replay(bool *failed, xwalk *w, const lfa_explore_move *moves, size_t n, bool concurrent, lfa_error *err) {
  if (concurrent) {
    bool committed = false;
    *failed = false;
    return n >= 3 ? check_pair(failed, &committed, w, moves, n, err) : LFA_OK;
  }
  xrun *r = NULL;
  bool out_of_scope = false;
  lfa_status st = run_scoped(&r, failed, &out_of_scope, w, moves, n, err);
  if (r) run_close(w, r);
  *failed &= !out_of_scope;
  return st;
}

lfa_status lfa_explore_replay(bool *failed, char *diff, size_t cap, const lfa_explore_options *o,
                              const lfa_explore_move *moves, size_t n_moves, lfa_error *err) {
  lfa_explore_result scratch;
  memset(&scratch, 0, sizeof scratch);
  xwalk w = {.o = o, .j = o->judge, .out = &scratch};
  bool concurrent = n_moves >= 3 && moves[n_moves - 1].read_version != 0;
  lfa_status st = replay(failed, &w, moves, n_moves, concurrent, err);
  snprintf(diff, cap, "%s", *failed ? w.diff : "");
  return st;
}
