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
  lfa_status st = w->o->disk ? lfa_history_open_in(&r->h, &r->fs.fs, DIR, 1, err) : lfa_history_open(&r->h, NULL, 1, err);
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
  lfa_snapshot_options opt = {.fs = &r->fs.fs, .version = head->version, .load_fields = true};
  if (lfa_snapshot_open(&snap, DIR, NULL, &opt, err) != LFA_OK)
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

/* Applies move `m` to the model and the judge, and checks the version
 * when `checked` (a replay of moves checked before only applies them). */
static lfa_status run_move(xstep *s, xwalk *w, xrun *r, const lfa_explore_move *m, bool checked, lfa_error *err) {
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
  if (!checked) {
    if (s->accepted && !w->j->apply(w->j->ctx, r->judge, &q, before)) failf(s, w, "the judge refused a replayed move");
    return LFA_OK;
  }
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
                             size_t n, bool checked, lfa_error *err) {
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
    if (run_move(&s, w, r, &moves[i], checked, err) != LFA_OK) return err->status;
    *failed = s.failed;
  }
  return LFA_OK;
}

/* A run with `moves` applied (all of them expected to commit); *failed
 * when one did not or a check failed. */
static lfa_status run_history(xrun **out, bool *failed, xwalk *w, const lfa_explore_move *moves, size_t n, bool checked,
                              lfa_error *err) {
  return run_scoped(out, failed, NULL, w, moves, n, checked, err);
}

/* ---- trying a move and taking it back ------------------------------------------------------ */

/* A run as it was: its versions and writer, its files, and (when the tried
 * moves may change it) its judge. Taking a tried commit back costs less
 * than replaying the history to where it was. */
typedef struct xmark {
  lfa_history_mark h;
  uint64_t files;
  void *judge; /* a clone, or NULL */
} xmark;

static lfa_status mark_run(xmark *m, xwalk *w, const xrun *r, bool judge, lfa_error *err) {
  memset(m, 0, sizeof *m);
  m->files = lfa_memfs_mark(&r->fs);
  if (judge && (m->judge = w->j->clone(w->j->ctx, r->judge)) == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  return lfa_history_mark_now(&m->h, &r->h, err);
}

/* Back to `m`, which stays valid; the judge too when `judged` (it took a move). */
static lfa_status rewind_run(xwalk *w, xrun *r, const xmark *m, bool judged, lfa_error *err) {
  lfa_memfs_rewind(&r->fs, m->files);
  if (judged && m->judge) {
    void *again = w->j->clone(w->j->ctx, m->judge);
    if (again == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    w->j->close(w->j->ctx, r->judge);
    r->judge = again;
  }
  return lfa_history_rewind(&r->h, &m->h, err);
}

static void drop_mark(xwalk *w, xmark *m) {
  if (m->judge) w->j->close(w->j->ctx, m->judge);
  lfa_history_mark_drop(&m->h);
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
 * then moves[n-1] built on that state and committed after it. The moves
 * before the pair are checked too when `checked` (a shrinker's candidate). */
static lfa_status pair_on(bool *failed, bool *committed, xwalk *w, xrun *r, const lfa_explore_move *moves, size_t n,
                          lfa_error *err);

static lfa_status check_pair(bool *failed, bool *committed, xwalk *w, const lfa_explore_move *moves, size_t n, bool checked,
                             lfa_error *err) {
  xrun *r = NULL;
  bool out_of_scope = false;
  *committed = false;
  lfa_status st = run_scoped(&r, failed, &out_of_scope, w, moves, n - 2, checked, err);
  if (out_of_scope) *failed = false;
  if (st == LFA_OK && !*failed && !out_of_scope) st = pair_on(failed, committed, w, r, moves, n, err);
  if (r) run_close(w, r);
  return st;
}

/* The pair's checks on run `r`, which stands at the state moves[0..n-2) reach. */
static lfa_status pair_on(bool *failed, bool *committed, xwalk *w, xrun *r, const lfa_explore_move *moves, size_t n,
                          lfa_error *err) {
  lfa_status st = LFA_OK;
  *committed = false;
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
  size_t n = xg_history(moves, g, s);
  bool failed = false;
  xrun *r = NULL;
  lfa_status st = run_history(&r, &failed, w, moves, n, false, err);
  xmoves c = {0};
  xmark mark = {0};
  if (st == LFA_OK && !failed) xmoves_concurrent(&c, lfa_history_head(&r->h), xnext_key(&r->h));
  if (st == LFA_OK && !failed) keep_buildable(&c, lfa_history_head(&r->h));
  if (st == LFA_OK && !failed) st = mark_run(&mark, w, r, false, err);
  uint64_t next_key = r && r->h.count ? xnext_key(&r->h) : 1;
  if (c.lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t a = 0; st == LFA_OK && !failed && a < c.count && !w->out->failed; a++)
    for (size_t b = 0; st == LFA_OK && b < c.count && !w->out->failed; b++) {
      bool committed = false, bad = false;
      moves[n] = c.items[a], moves[n + 1] = second_of(c.items[b], next_key);
      if (a == b && c.items[a].op == LFA_OP_UPDATE) moves[n + 1] = c.items[a]; /* the replayed commit */
      moves[n + 1].read_version = n; /* the state's version: one per move so far */
      st = pair_on(&bad, &committed, w, r, moves, n + 2, err);
      if (st == LFA_OK) st = rewind_run(w, r, &mark, false, err);
      w->out->pairs++, w->out->pairs_committed += committed;
      if (st == LFA_OK && bad) st = report_failure(w, moves, n + 2, true, err);
    }
  drop_mark(w, &mark);
  if (r) run_close(w, r);
  xmoves_free(&c);
  return st;
}

/* ---- the walk ------------------------------------------------------------------------------- */

/* The `index`-th move other than a restore of `l`, or NULL. */
static const lfa_explore_move *nth_plain(const xmoves *l, uint16_t index) {
  for (size_t i = 0, k = 0; i < l->count; i++)
    if (!xis_restore(&l->items[i]) && k++ == index) return &l->items[i];
  return NULL;
}

/* The run at node `s`: its path replayed without checks, each move having
 * been checked when first made. An alias that a pair's travel made learns
 * its move here, from its parent's head, and that move is checked: if the
 * head shows no such move or the move fails, two heads with one canonical
 * form had different futures, and the explorer says so. */
static lfa_status run_node(xrun **out, bool *failed, xwalk *w, xgraph *g, uint32_t s, lfa_error *err) {
  lfa_explore_move moves[LFA_EXPLORE_DEPTH_MAX + 3];
  xnode *node = &g->nodes[s];
  if (node->concrete) return run_history(out, failed, w, moves, xg_history(moves, g, s), false, err);
  size_t n = xg_history(moves, g, node->parent);
  lfa_status st = run_history(out, failed, w, moves, n, false, err);
  if (st != LFA_OK || *failed) return st;
  xmoves next = {0};
  xmoves_serial(&next, &(*out)->h, xnext_key(&(*out)->h));
  const lfa_explore_move *m = nth_plain(&next, node->index);
  xstep step = {0};
  if (next.lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  else if (m == NULL) failf(&step, w, "a head of the same canonical form lacks move %u", node->index);
  else {
    node->move = *m, node->concrete = true;
    st = run_move(&step, w, *out, m, true, err);
    if (st == LFA_OK && !step.failed && !step.accepted) failf(&step, w, "a head of the same canonical form refuses the move");
  }
  *failed = step.failed;
  xmoves_free(&next);
  return st;
}

/* Where move `m` of node `s` (at `depth`, reaching state `x` on the path
 * `ids`) led: `to`, or XG_NONE when refused. */
static lfa_status record(xgraph *g, uint32_t x, const uint32_t *ids, bool is_state, const lfa_explore_move *m,
                         uint16_t index, uint32_t to, lfa_error *err) {
  if (!xis_restore(m)) return is_state ? xg_edge(g, x, to, index, err) : LFA_OK;
  xpair *p = xg_pair(g, x, ids[m->number - 1]);
  if (p) p->to = to;
  return LFA_OK;
}

/* Node `s` expanded: a state's own node runs every move but the restores,
 * and every node the restores of the pairs it witnesses; all on one run,
 * each committed move taken back before the next. */
static lfa_status expand(xwalk *w, xgraph *g, uint32_t s, lfa_error *err) {
  lfa_explore_move moves[LFA_EXPLORE_DEPTH_MAX + 3];
  uint32_t ids[LFA_EXPLORE_DEPTH_MAX + 2];
  xrun *r = NULL;
  bool failed = false;
  lfa_status st = run_node(&r, &failed, w, g, s, err);
  size_t n = xg_history(moves, g, s);
  xg_path(ids, g, s);
  const uint32_t x = g->nodes[s].state;
  const unsigned depth = g->nodes[s].depth;
  const bool is_state = g->nodes[s].key != NULL;
  const uint8_t restores = g->nodes[s].restores;
  if (st == LFA_OK && failed) st = report_failure(w, moves, g->nodes[s].concrete ? n : n - 1, false, err);
  xmoves next = {0};
  if (st == LFA_OK && !w->out->failed) xmoves_serial(&next, &r->h, xnext_key(&r->h));
  if (next.lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  xmark mark = {0};
  if (st == LFA_OK && !w->out->failed) st = mark_run(&mark, w, r, true, err);
  uint16_t index = 0;
  for (size_t i = 0; st == LFA_OK && i < next.count && !w->out->failed; i++) {
    const lfa_explore_move *m = &next.items[i];
    uint16_t at = xis_restore(m) ? 0 : index++;
    if (xis_restore(m) ? !(restores & (1u << m->number)) : !is_state) continue;
    xstep step;
    if ((st = run_move(&step, w, r, m, true, err)) != LFA_OK) break;
    w->out->levels[depth + 1].runs++;
    moves[n] = *m;
    if (step.failed) {
      st = report_failure(w, moves, n + 1, false, err);
      break;
    }
    uint32_t to = XG_NONE;
    bool added = false;
    if (!step.accepted) count_rule(w->out->refusals, &w->out->n_refusals, step.rule);
    else {
      w->out->levels[depth + 1].accepted++;
      char *key = xcanonical(lfa_history_head(&r->h));
      st = key ? xg_arrive(&to, &added, g, s, m, at, key, err) : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
      w->out->levels[depth + 1].new_states += added;
    }
    if (st == LFA_OK) st = rewind_run(w, r, &mark, step.accepted, err);
    if (st == LFA_OK) st = record(g, x, ids, is_state, m, at, to, err);
  }
  drop_mark(w, &mark);
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
    st = run_history(&r, &failed, w, &s.items[i], 1, true, err);
    if (st == LFA_OK && failed) st = report_failure(w, &s.items[i], 1, false, err);
    char *key = st == LFA_OK && !w->out->failed ? xcanonical(lfa_history_head(&r->h)) : NULL;
    if (key) {
      uint32_t to = 0;
      bool added = false;
      st = xg_arrive(&to, &added, g, XG_NONE, &s.items[i], 0, key, err);
      w->out->levels[0].accepted++, w->out->levels[0].new_states += added;
    }
    if (r) run_close(w, r);
  }
  xmoves_free(&s);
  return st;
}

/* Level by level: every node of depth d expanded, then the pairs made at
 * d passed on, so each pair is first made at its least depth. With
 * `concurrent`, the pair of concurrent moves counts as two of the depth's
 * operations: pairs run from the states at most depth - 2 deep. */
static lfa_status walk(xwalk *w, xgraph *g, lfa_error *err) {
  lfa_status st = LFA_OK;
  if (w->o->address) st = start(w, g, false, err);
  if (st == LFA_OK && w->o->stable) st = start(w, g, true, err);
  for (unsigned d = 0; st == LFA_OK && d < w->o->depth && !w->out->failed; d++) {
    for (size_t s = 0; st == LFA_OK && s < g->n_nodes && !w->out->failed; s++)
      if (g->nodes[s].depth == d) st = expand(w, g, (uint32_t)s, err);
    if (st == LFA_OK && !w->out->failed) st = xg_propagate(g, d, err);
  }
  for (size_t s = 0; w->o->concurrent && st == LFA_OK && s < g->n_nodes && !w->out->failed; s++)
    if (g->nodes[s].key != NULL && g->nodes[s].depth + 2u <= w->o->depth) st = explore_pairs(w, g, (uint32_t)s, err);
  return st;
}

lfa_status lfa_explore(lfa_explore_result *out, const lfa_explore_options *o, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (o->depth < 1 || o->depth > LFA_EXPLORE_DEPTH_MAX || (!o->address && !o->stable) || o->judge == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "depth 1 to %d, at least one row-id mode and a judge", LFA_EXPLORE_DEPTH_MAX);
  if (o->concurrent && o->depth < 2)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "a concurrent pair is two operations: --concurrent needs depth 2 or more");
  struct timespec t0, t1;
  timespec_get(&t0, TIME_UTC); /* C11: wall time */
  xwalk w = {.o = o, .j = o->judge, .out = out};
  xgraph g = {.depth = o->depth, .max_states = o->max_states ? o->max_states : 4u << 20};
  lfa_status st = walk(&w, &g, err);
  if (st == LFA_OK && !out->failed) xg_count(out, &out->uncovered_restores, &g);
  out->distinct_states = g.n_states;
  out->paths_kept = g.n_nodes - g.n_states;
  xg_free(&g);
  timespec_get(&t1, TIME_UTC);
  out->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  return st;
}

/* ---- replaying a counterexample ---------------------------------------------------------------- */

/* Runs `moves` (moves[0] a create) on the model and judge from scratch and
 * reports whether they fail as the explorer checks them (the last move
 * with a read_version is checked as a concurrent commit): what shrinking
 * asks of each smaller candidate. */
static lfa_status replay(bool *failed, xwalk *w, const lfa_explore_move *moves, size_t n, bool concurrent, lfa_error *err) {
  if (concurrent) {
    bool committed = false;
    *failed = false;
    return n >= 3 ? check_pair(failed, &committed, w, moves, n, true, err) : LFA_OK;
  }
  xrun *r = NULL;
  bool out_of_scope = false;
  lfa_status st = run_scoped(&r, failed, &out_of_scope, w, moves, n, true, err);
  if (r) run_close(w, r);
  *failed &= !out_of_scope;
  return st;
}
