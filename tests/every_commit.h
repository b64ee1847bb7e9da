/* every_commit.h: one history with every kind of commit, written the same
 * way by tests/test_verify.c (on disk, verified) and fuzz/make_corpus.c (in
 * memory, as whole_dataset seeds): create, column update, append,
 * row-moving update with an invalidation, delete, compaction, invalidation
 * only, restore of version 3 (as version 8), rename, index. No cmocka:
 * callers say how a refused step fails. */
#ifndef LFA_EVERY_COMMIT_H
#define LFA_EVERY_COMMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "lfa/mutate.h"

enum { EVERY_COMMIT_STEPS = 10 };

/* The requests, in order; they point into static storage. */
static inline void every_commit_steps(lfa_request steps[EVERY_COMMIT_STEPS], bool stable) {
  static const lfa_new_field schema[] = {
      {"id", "int64", false, LFA_UNTRACKED},
      {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
      {"payload", "struct", true, LFA_UNTRACKED},
      {"payload.value", "int32", true, LFA_UNASSIGNED},
      {"tag", "string", true, LFA_ASSIGNED},
  };
  static const uint64_t k1_6[] = {1, 2, 3, 4, 5, 6}, k246[] = {2, 4, 6}, k78[] = {7, 8}, k12[] = {1, 2}, k3[] = {3},
                        k7[] = {7};
  static const char *id[] = {"id"}, *emb[] = {"emb"}, *id_emb[] = {"id", "emb"}, *value[] = {"payload.value"};
  const lfa_request all[EVERY_COMMIT_STEPS] = {
      {.op = LFA_OP_CREATE, .new_fields = schema, .n_new_fields = 5, .stable_row_ids = stable, .rows = {6, k1_6},
       .rows_per_file = 3, .fields = {1, id}},
      {.op = LFA_OP_UPDATE, .rows = {3, k246}, .fields = {1, emb}, .rewrite_columns = true},
      {.op = LFA_OP_APPEND, .rows = {2, k78}, .fields = {2, id_emb}},
      {.op = LFA_OP_UPDATE, .rows = {2, k12}, .fields = {1, value}, .invalidate = {1, emb}},
      {.op = LFA_OP_DELETE, .rows = {1, k3}},
      {.op = LFA_OP_COMPACT},
      {.op = LFA_OP_UPDATE, .rows = {1, k7}, .invalidate = {1, emb}},
      {.op = LFA_OP_RESTORE, .version = 3},
      {.op = LFA_OP_RENAME, .field = "emb", .new_name = "vec"},
      {.op = LFA_OP_CREATE_INDEX},
  };
  for (int i = 0; i < EVERY_COMMIT_STEPS; i++) steps[i] = all[i];
}

#endif
