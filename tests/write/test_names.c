/* test_names.c: data file names are unique across a history, also for
 * changes built against one read version and committed one after another
 * (FA-LANCE-20), so a created fragment is named by its first data file
 * alone (FA-TXN-13).
 *
 * Every expected name is derived by hand from lfa/mutate.h: a change built
 * to become version N names its data files v{N}-{k}.lance, k counting from
 * 0 in the order it writes them; lfa_history_apply builds every change to
 * become head + 1, whatever version it read. Before that rule a change
 * read at R named its files after R + 1, and two changes read at one R
 * listed the same path (conformance/scenarios/div_concurrent_appends_reconcile
 * held three fragments listing v2-0.lance).
 *
 * Requirement ids: FA-LANCE-20, FA-TXN-13. */
#include "testutil.h"

#include <stdlib.h>

#include "lfa/history.h"

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
enum { EMB = 1 };
static const uint64_t K1_6[] = {1, 2, 3, 4, 5, 6};
static const char *ID[] = {"id"}, *EMB_NAME[] = {"emb"}, *BOTH[] = {"id", "emb"};

/* Version 1: keys 1..6 in fragments 0 (1, 2, 3) and 1 (4, 5, 6), files
 * v1-0.lance and v1-1.lance (the create's files 0 and 1). Version 2 writes
 * emb on every row in place: fragment 0 gains v2-0.lance, fragment 1
 * v2-1.lance (one new file per matched fragment, in fragment order). */
static void setup(lfa_history *h) {
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, NULL, 1, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {6, K1_6}, .rows_per_file = 3,
                   .fields = {1, ID}};
  assert_ok(lfa_history_apply(h, &c, 0, &err), &err);
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = {6, K1_6}, .fields = {1, EMB_NAME}, .rewrite_columns = true};
  assert_ok(lfa_history_apply(h, &w, 0, &err), &err);
}

static int by_string(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Every data file path of `t`, sorted, against `want` (sorted by hand). */
static void assert_paths(const lfa_table *t, const char *const *want, size_t n_want) {
  const char *got[64];
  size_t n = 0;
  for (size_t i = 0; i < t->n_fragments; i++)
    for (size_t k = 0; k < t->fragments[i].n_files; k++) {
      assert_true(n < 64);
      got[n++] = t->fragments[i].files[k].path;
    }
  qsort(got, n, sizeof *got, by_string);
  for (size_t i = 1; i < n; i++) /* [FA-LANCE-20] no path twice */
    if (strcmp(got[i - 1], got[i]) == 0) fail_msg("data file %s is listed twice", got[i]);
  assert_int_equal(n, n_want);
  for (size_t i = 0; i < n; i++) assert_string_equal(got[i], want[i]);
}

/* The fragment of `t` holding live key `key`. */
static const lfa_fragment *holding(const lfa_table *t, uint64_t key) {
  for (size_t i = 0; i < t->n_fragments; i++)
    for (uint32_t o = 0; o < t->fragments[i].physical_rows; o++)
      if (t->fragments[i].keys[o] == key && lfa_fragment_is_live(&t->fragments[i], o)) return &t->fragments[i];
  fail_msg("key %llu is not live", (unsigned long long)key);
  return NULL;
}

/* [FA-LANCE-20] Two appends both read version 2. The first commits as
 * version 3 and names its file v3-0.lance; the second, rebased onto 3,
 * commits as 4 and names its file v4-0.lance, not v3-0.lance (R + 1, the
 * name the first one took). The head lists six files, each once. */
static void test_FA_LANCE_20_two_appends_read_at_one_version(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  setup(&h);
  lfa_request a = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}}, .fields = {2, BOTH}};
  lfa_request b = {.op = LFA_OP_APPEND, .rows = {1, (const uint64_t[]){9}}, .fields = {1, ID}};
  assert_ok(lfa_history_apply(&h, &a, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &b, 2, &err), &err);
  const lfa_table *head = lfa_history_head(&h);
  assert_int_equal(head->version, 4);
  assert_string_equal(holding(head, 7)->files[0].path, "v3-0.lance");
  assert_string_equal(holding(head, 9)->files[0].path, "v4-0.lance");
  /* the transaction stored with version 4 says it read version 2 and
   * appends the fragment of v4-0.lance */
  const Lance__Table__Transaction *t = h.changes[3].txn;
  assert_int_equal(t->read_version, 2);
  assert_string_equal(t->append->fragments[0]->files[0]->path, "v4-0.lance");
  static const char *const want[] = {"v1-0.lance", "v1-1.lance", "v2-0.lance",
                                     "v2-1.lance", "v3-0.lance", "v4-0.lance"};
  assert_paths(head, want, 6);
  lfa_history_close(&h);
}

/* [FA-TXN-13] Each FragmentState of version v names, by path, exactly one
 * fragment of v's whole manifest, and that one is a fragment v created
 * (absent from v - 1). A path unique only among the created fragments
 * would not do: a reader that matches by path alone then finds a carried
 * fragment too. */
static void assert_states_name_one_created_fragment(const lfa_history *h, uint64_t v, const char *path) {
  const Lance__Table__Transaction *t = h->changes[v - 1].txn;
  const lfa_table *n = lfa_history_version(h, v), *p = lfa_history_version(h, v - 1);
  assert_non_null(t->field_assignment_transaction);
  size_t states = t->field_assignment_transaction->n_fragment_states;
  assert_int_equal(states, 1); /* emb, the one tracked field, in the one created fragment (FA-TXN-14) */
  for (size_t s = 0; s < states; s++) {
    const char *named = t->field_assignment_transaction->fragment_states[s]->fragment_path;
    assert_string_equal(named, path);
    size_t matches = 0, at = 0;
    for (size_t i = 0; i < n->n_fragments; i++)
      if (n->fragments[i].n_files > 0 && strcmp(n->fragments[i].files[0].path, named) == 0) matches++, at = i;
    assert_int_equal(matches, 1);
    assert_int_equal(lfa_table_fragment(p, n->fragments[at].id), SIZE_MAX);
  }
}

/* Three writers read version 2: two appends, of 7, 8 and of 9 (committed
 * as 3 and 4), and a compaction of fragments 0 and 1 (committed as 5),
 * which rebases: it keeps the fragments it read and moves their six rows
 * to one fragment it creates, stating emb there in a FragmentState. That
 * fragment's first file is v5-0.lance, which no carried fragment lists.
 * (A compaction is rebased, not rebuilt, so it kept the names of its first
 * build: before FA-LANCE-20 all three created fragments had v3-0.lance,
 * and the state's path matched the appended fragments too.) */
static void test_FA_TXN_13_compaction_read_with_two_appends(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  setup(&h);
  lfa_request a = {.op = LFA_OP_APPEND, .rows = {2, (const uint64_t[]){7, 8}}, .fields = {2, BOTH}};
  lfa_request b = {.op = LFA_OP_APPEND, .rows = {1, (const uint64_t[]){9}}, .fields = {1, ID}};
  lfa_request compact = {.op = LFA_OP_COMPACT};
  assert_ok(lfa_history_apply(&h, &a, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &b, 2, &err), &err);
  assert_ok(lfa_history_apply(&h, &compact, 2, &err), &err);
  assert_states_name_one_created_fragment(&h, 5, "v5-0.lance");
  const lfa_table *head = lfa_history_head(&h);
  assert_string_equal(holding(head, 1)->files[0].path, "v5-0.lance");
  assert_string_equal(holding(head, 7)->files[0].path, "v3-0.lance");
  assert_string_equal(holding(head, 9)->files[0].path, "v4-0.lance");
  /* fragments 0 and 1 left with their four files */
  static const char *const want[] = {"v3-0.lance", "v4-0.lance", "v5-0.lance"};
  assert_paths(head, want, 3);
  lfa_history_close(&h);
}

/* lfa_mutate names after req->new_version when it is set (else R + 1) and
 * refuses one at or before R, whose files may already carry that name. */
static void test_FA_LANCE_20_mutate_names_after_the_new_version(void **state) {
  (void)state;
  lfa_history h;
  lfa_error err = {0};
  lfa_change c;
  setup(&h);
  const lfa_table *r = lfa_history_version(&h, 2);
  lfa_request ap = {.op = LFA_OP_APPEND, .rows = {1, (const uint64_t[]){7}}, .fields = {1, ID}};
  assert_ok(lfa_mutate(&c, r, &ap, &err), &err);
  assert_string_equal(c.txn->append->fragments[0]->files[0]->path, "v3-0.lance");
  lfa_change_free(&c);
  ap.new_version = 7;
  assert_ok(lfa_mutate(&c, r, &ap, &err), &err);
  assert_string_equal(c.txn->append->fragments[0]->files[0]->path, "v7-0.lance");
  lfa_change_free(&c);
  /* a delete's deletion file id is N as well: key 2 leaves fragment 0 */
  lfa_request del = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){2}}, .new_version = 7};
  assert_ok(lfa_mutate(&c, r, &del, &err), &err);
  assert_int_equal(c.txn->delete_->n_updated_fragments, 1);
  assert_int_equal(c.txn->delete_->updated_fragments[0]->deletion_file->id, 7);
  lfa_change_free(&c);
  ap.new_version = 2;
  assert_status(lfa_mutate(&c, r, &ap, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-LANCE-20");
  lfa_history_close(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_LANCE_20_two_appends_read_at_one_version),
      cmocka_unit_test(test_FA_TXN_13_compaction_read_with_two_appends),
      cmocka_unit_test(test_FA_LANCE_20_mutate_names_after_the_new_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
