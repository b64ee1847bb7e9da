/* history_util.h: a history of tables in memory, and readers of its state
 * by logical key, for the mutation tests (test_mutate*.c). Expectations in
 * those tests are strings of keys written by hand; these helpers only
 * build and read, they never decide. */
#ifndef LFA_HISTORY_UTIL_H
#define LFA_HISTORY_UTIL_H

#include "testutil.h"

#include "lfa/bitmap.h"
#include "lfa/commit.h"
#include "lfa/mutate.h"

typedef struct hist {
  lfa_table v[32];
  size_t n;
} hist;

/* Builds q against the head and commits it; `restored` as lfa_commit takes it. */
static inline lfa_status step_with(hist *h, const lfa_request *q, const lfa_table *restored, lfa_error *err) {
  lfa_change c;
  const lfa_table *head = h->n ? &h->v[h->n - 1] : NULL;
  if (h->n == sizeof h->v / sizeof h->v[0]) fail_msg("test history is full");
  lfa_status st = lfa_mutate(&c, head, q, err);
  if (st == LFA_OK) st = lfa_commit(&h->v[h->n], head, &c, restored, err);
  if (st == LFA_OK) h->n++;
  if (c.txn != NULL) lfa_change_free(&c);
  return st;
}

static inline lfa_status step(hist *h, const lfa_request *q, lfa_error *err) { return step_with(h, q, NULL, err); }

static inline void must(hist *h, const lfa_request *q) {
  lfa_error err = {0};
  if (step(h, q, &err) != LFA_OK) fail_msg("%s: %s", lfa_op_name(q->op), err.msg);
}

/* Refused as a usage error (with `rule` unless NULL); nothing committed. */
static inline void refused(hist *h, const lfa_request *q, const char *rule) {
  lfa_error err = {0};
  size_t before = h->n;
  assert_status(step(h, q, &err), LFA_ERR_USAGE, &err);
  if (rule != NULL) assert_rule(&err, rule);
  assert_int_equal(h->n, before);
}

static inline void free_hist(hist *h) {
  for (size_t i = 0; i < h->n; i++) lfa_table_free(&h->v[i]);
}

static inline const lfa_table *head(const hist *h) { return &h->v[h->n - 1]; }

/* "key key ..." of the live rows (field < 0) or of the live rows assigned
 * for `field`, in key order. */
static inline void keys_of(char *out, size_t cap, const lfa_table *t, int32_t field) {
  uint64_t keys[256];
  size_t n = 0, used = 0;
  const lfa_field_state *s = field >= 0 ? lfa_table_tracked(t, field) : NULL;
  if (field >= 0 && s == NULL) fail_msg("field %d is not tracked", field);
  for (size_t i = 0; i < t->n_fragments; i++)
    for (uint32_t o = 0; o < t->fragments[i].physical_rows; o++)
      if (lfa_fragment_is_live(&t->fragments[i], o) && (s == NULL || lfa_cell_contains(&s->cells[i], o)) && n < 256)
        keys[n++] = t->fragments[i].keys[o];
  for (size_t a = 1; a < n; a++) /* insertion sort: tiny */
    for (size_t b = a; b > 0 && keys[b - 1] > keys[b]; b--) {
      uint64_t x = keys[b];
      keys[b] = keys[b - 1], keys[b - 1] = x;
    }
  out[0] = '\0';
  for (size_t k = 0; k < n; k++) used += (size_t)snprintf(out + used, cap - used, "%llu ", (unsigned long long)keys[k]);
}

static inline void assigned_keys(char *out, size_t cap, const lfa_table *t, int32_t field) {
  if (field < 0) fail_msg("no such field");
  keys_of(out, cap, t, field);
}

static inline void check_assigned(const lfa_table *t, int32_t field, const char *want) {
  char got[512];
  assigned_keys(got, sizeof got, t, field);
  assert_string_equal(got, want);
}

static inline void check_live(const lfa_table *t, const char *want) {
  char got[512];
  keys_of(got, sizeof got, t, -1);
  assert_string_equal(got, want);
}

#endif
