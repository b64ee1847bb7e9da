/* test_mutate.c: mutations built against R and committed (the files of ref/mutate/
 * with ref/commit/commit.c), each checked against states derived by hand from
 * the spec. Requirement ids: FA-OVERWRITE-2, FA-APPEND-1, FA-DELETE-1,
 * FA-DELETE-2, FA-UPDATE-1, FA-UPDATE-6, FA-INVAL-1, FA-INVAL-2, FA-SEM-5,
 * FA-NEST-3, FA-NEST-5. */
#include "history_util.h"

static const uint64_t K1_6[] = {1, 2, 3, 4, 5, 6};
static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"payload", "struct", true, LFA_UNTRACKED},
    {"payload.value", "int32", true, LFA_UNASSIGNED},
};
enum { ID = 0, EMB = 1, PAYLOAD = 2, VALUE = 3 };

static void create(hist *h, bool stable) {
  const char *id_only[] = {"id"};
  lfa_request q = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 4, .stable_row_ids = stable,
                   .rows = {6, K1_6}, .rows_per_file = 3, .fields = {1, id_only}};
  must(h, &q);
}

static void test_FA_OVERWRITE_2_create_tracks_from_the_start(void **state) {
  (void)state;
  hist h = {0};
  char got[256];
  create(&h, false);
  const lfa_table *t = &h.v[0];
  assert_int_equal(t->version, 1);
  assert_int_equal(t->n_fragments, 2); /* 3 rows per fragment */
  assert_int_equal(t->n_tracked, 2);   /* emb and payload.value */
  assigned_keys(got, sizeof got, t, EMB);
  assert_string_equal(got, "");
  free_hist(&h);
}

static void test_FA_APPEND_1_supplied_and_omitted(void **state) {
  (void)state;
  hist h = {0};
  char got[256];
  create(&h, false);
  static const uint64_t K7_8[] = {7, 8}, K9[] = {9};
  const char *with_emb[] = {"id", "emb"}, *only_id[] = {"id"}, *value[] = {"payload.value"};
  lfa_request a = {.op = LFA_OP_APPEND, .rows = {2, K7_8}, .fields = {2, with_emb}};
  must(&h, &a); /* emb supplied (even if NULL): assigned */
  lfa_request b = {.op = LFA_OP_APPEND, .rows = {1, K9}, .fields = {1, only_id}};
  must(&h, &b); /* emb omitted: unassigned */
  lfa_request c = {.op = LFA_OP_APPEND, .rows = {1, (const uint64_t[]){10}}, .fields = {1, value}};
  must(&h, &c); /* the child supplied: it and its struct are stored */
  assigned_keys(got, sizeof got, &h.v[3], EMB);
  assert_string_equal(got, "7 8 ");
  assigned_keys(got, sizeof got, &h.v[3], VALUE);
  assert_string_equal(got, "10 ");
  free_hist(&h);
}

static void test_FA_UPDATE_1_and_FA_INVAL_1_in_place(void **state) {
  (void)state;
  hist h = {0};
  char got[256];
  create(&h, false);
  const char *emb[] = {"emb"}, *payload[] = {"payload"};
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = {3, (const uint64_t[]){2, 4, 6}}, .fields = {1, emb},
                   .rewrite_columns = true};
  must(&h, &w);
  assigned_keys(got, sizeof got, &h.v[1], EMB);
  assert_string_equal(got, "2 4 6 ");
  lfa_request inv = {.op = LFA_OP_UPDATE, .rows = {1, (const uint64_t[]){4}}, .invalidate = {1, emb}};
  must(&h, &inv); /* invalidation only: metadata only */
  assigned_keys(got, sizeof got, &h.v[2], EMB);
  assert_string_equal(got, "2 6 ");
  assert_int_equal(h.v[2].n_fragments, h.v[1].n_fragments);
  /* [FA-NEST-3] a write of the struct writes its child; invalidating the
   * struct is refused (it is not tracked), invalidating the child works */
  lfa_request ws = {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){1, 5}}, .fields = {1, payload},
                    .rewrite_columns = true};
  must(&h, &ws);
  assigned_keys(got, sizeof got, &h.v[3], VALUE);
  assert_string_equal(got, "1 5 ");
  free_hist(&h);
}

static void test_FA_UPDATE_6_rows_move_with_their_state(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    hist h = {0};
    char got[256];
    create(&h, stable);
    const char *emb[] = {"emb"}, *value[] = {"payload.value"}, *id[] = {"id"};
    lfa_request w = {.op = LFA_OP_UPDATE, .rows = {3, (const uint64_t[]){1, 2, 3}}, .fields = {1, emb},
                     .rewrite_columns = true};
    must(&h, &w); /* emb: 1 2 3 */
    lfa_request move = {.op = LFA_OP_UPDATE, .rows = {3, (const uint64_t[]){2, 3, 4}}, .fields = {1, value},
                        .invalidate = {1, emb}};
    must(&h, &move); /* rows 2 3 4 move: value written, emb invalidated */
    assigned_keys(got, sizeof got, &h.v[2], EMB);
    assert_string_equal(got, "1 ");
    assigned_keys(got, sizeof got, &h.v[2], VALUE);
    assert_string_equal(got, "2 3 4 ");
    lfa_request keep = {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){1, 2}}, .fields = {1, id}};
    must(&h, &keep); /* rows 1 2 move again: id written, the rest kept */
    assigned_keys(got, sizeof got, &h.v[3], EMB);
    assert_string_equal(got, "1 ");
    assigned_keys(got, sizeof got, &h.v[3], VALUE);
    assert_string_equal(got, "2 3 4 ");
    if (stable) /* moved rows keep their row ids */
      for (size_t i = 0; i < h.v[3].n_fragments; i++)
        for (uint32_t o = 0; o < h.v[3].fragments[i].physical_rows; o++)
          if (lfa_fragment_is_live(&h.v[3].fragments[i], o))
            assert_int_equal(h.v[3].fragments[i].row_ids[o], h.v[3].fragments[i].keys[o] - 1);
    free_hist(&h);
  }
}

static void test_FA_DELETE_1_and_2(void **state) {
  (void)state;
  hist h = {0};
  char got[256];
  create(&h, false);
  const char *emb[] = {"emb"};
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){3, 4}}, .fields = {1, emb}, .rewrite_columns = true};
  must(&h, &w);
  lfa_request d = {.op = LFA_OP_DELETE, .rows = {4, (const uint64_t[]){1, 2, 3, 5}}};
  must(&h, &d); /* fragment 0 (keys 1 2 3) leaves whole; key 5 deleted in fragment 1 */
  assert_int_equal(h.v[2].n_fragments, 1);
  assigned_keys(got, sizeof got, &h.v[2], EMB);
  assert_string_equal(got, "4 ");
  free_hist(&h);
}

static void test_FA_INVAL_2_and_FA_SEM_5_refused(void **state) {
  (void)state;
  hist h = {0};
  create(&h, false);
  const char *emb[] = {"emb"}, *id[] = {"id"}, *nope[] = {"nope"}, *payload[] = {"payload"}, *value[] = {"payload.value"};
  const uint64_t k1[] = {1};
  lfa_error err = {0};
  lfa_request q = {.op = LFA_OP_UPDATE, .rows = {1, k1}, .invalidate = {1, nope}};
  assert_status(step(&h, &q, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-INVAL-2");
  q.invalidate = (lfa_names_list){1, id}; /* untracked */
  assert_status(step(&h, &q, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-INVAL-2");
  assert_non_null(strstr(err.msg, "stable field id 0"));
  q.invalidate = (lfa_names_list){0, NULL}; /* nothing at all */
  assert_status(step(&h, &q, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-INVAL-2");
  q.fields = (lfa_names_list){1, emb}, q.invalidate = (lfa_names_list){1, emb};
  assert_status(step(&h, &q, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-SEM-5");
  q.fields = (lfa_names_list){1, payload}, q.invalidate = (lfa_names_list){1, value}; /* [FA-NEST-5] */
  assert_status(step(&h, &q, &err), LFA_ERR_USAGE, &err);
  assert_rule(&err, "FA-SEM-5");
  assert_int_equal(h.n, 1); /* nothing was committed */
  free_hist(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_OVERWRITE_2_create_tracks_from_the_start),
      cmocka_unit_test(test_FA_APPEND_1_supplied_and_omitted),
      cmocka_unit_test(test_FA_UPDATE_1_and_FA_INVAL_1_in_place),
      cmocka_unit_test(test_FA_UPDATE_6_rows_move_with_their_state),
      cmocka_unit_test(test_FA_DELETE_1_and_2),
      cmocka_unit_test(test_FA_INVAL_2_and_FA_SEM_5_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
