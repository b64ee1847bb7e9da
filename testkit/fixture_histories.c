/* fixture_histories.c: the hand-built histories and inputs of
 * lfa/fixtures.h that the tests, the fuzz corpus and the benchmarks share. */
#include <stdio.h>

#include "lfa/fixtures.h"
#include "lfa/pb.h"
#include "rowids.pb-c.h"

/* id (untracked), emb (tracked, unassigned), payload (a tracked struct)
 * with payload.value (tracked, unassigned), tag (tracked, assigned). */
static const lfa_new_field HISTORY_SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"payload", "struct", true, LFA_UNTRACKED},
    {"payload.value", "int32", true, LFA_UNASSIGNED},
    {"tag", "string", true, LFA_ASSIGNED},
};

void lfa_fixture_every_commit(lfa_request steps[LFA_FIXTURE_EVERY_COMMIT_STEPS], bool stable) {
  static const uint64_t k1_6[] = {1, 2, 3, 4, 5, 6}, k246[] = {2, 4, 6}, k78[] = {7, 8}, k12[] = {1, 2}, k3[] = {3},
                        k7[] = {7};
  static const char *id[] = {"id"}, *emb[] = {"emb"}, *id_emb[] = {"id", "emb"}, *value[] = {"payload.value"};
  const lfa_request all[LFA_FIXTURE_EVERY_COMMIT_STEPS] = {
      {.op = LFA_OP_CREATE, .new_fields = HISTORY_SCHEMA, .n_new_fields = 5, .stable_row_ids = stable,
       .rows = {6, k1_6}, .rows_per_file = 3, .fields = {1, id}},
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
  for (int i = 0; i < LFA_FIXTURE_EVERY_COMMIT_STEPS; i++) steps[i] = all[i];
}

lfa_status lfa_fixture_apply(lfa_history *h, const lfa_request *steps, size_t n, lfa_error *err) {
  for (size_t i = 0; i < n; i++) {
    lfa_status st = lfa_history_apply(h, &steps[i], 0, err);
    if (st != LFA_OK) {
      lfa_error_prefix(err, "history step %zu (%s)", i + 1, lfa_op_name(steps[i].op));
      return st;
    }
  }
  return LFA_OK;
}

lfa_status lfa_fixture_write_overlays(lfa_history *h, const lfa_fs *fs, const char *dir, size_t max_steps, uint64_t seed,
                                      lfa_error *err) {
  static const uint64_t K1_8[] = {1, 2, 3, 4, 5, 6, 7, 8};
  static const char *id[] = {"id"}, *emb[] = {"emb"}, *emb_payload[] = {"emb", "payload"}, *c0[] = {"c0"};
  static const lfa_new_field add[] = {{"c0", "int64", true, LFA_UNASSIGNED}};
  const lfa_request steps[] = {
      {.op = LFA_OP_CREATE, .new_fields = HISTORY_SCHEMA, .n_new_fields = 5, .rows = {8, K1_8}, .rows_per_file = 4,
       .fields = {1, id}},
      {.op = LFA_OP_ADD_COLUMNS, .new_fields = add, .n_new_fields = 1, .with_data = true},
      {.op = LFA_OP_OVERLAY, .fragment_id = 0, .rows = {2, (const uint64_t[]){1, 3}}, .fields = {1, emb}},
      {.op = LFA_OP_OVERLAY, .fragment_id = 1, .rows = {1, (const uint64_t[]){6}}, .fields = {2, emb_payload}},
      {.op = LFA_OP_REPLACE, .fragment_id = 1, .fields = {1, c0}},
      {.op = LFA_OP_MERGE_INSERT, .rows = {2, (const uint64_t[]){2, 7}}, .inserts = {1, (const uint64_t[]){9}},
       .fields = {1, emb}},
      {.op = LFA_OP_CAST, .field = "payload.value", .new_type = "int64"},
      {.op = LFA_OP_DROP, .fields = {1, c0}},
      {.op = LFA_OP_COMPACT},
  };
  size_t n = sizeof steps / sizeof steps[0];
  lfa_status st = lfa_history_open_in(h, fs, dir, seed, err);
  if (st != LFA_OK) return st;
  return lfa_fixture_apply(h, steps, n < max_steps ? n : max_steps, err);
}

lfa_status lfa_fixture_range_sequences(lfa_buf *out, size_t n, uint64_t len, lfa_error *err) {
  for (size_t i = 0; i < n; i++) {
    Lance__Table__U64Segment__Range range = LANCE__TABLE__U64_SEGMENT__RANGE__INIT;
    range.start = i * len, range.end = (i + 1) * len;
    Lance__Table__U64Segment segment = LANCE__TABLE__U64_SEGMENT__INIT, *segments[] = {&segment};
    segment.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE, segment.range = &range;
    Lance__Table__RowIdSequence sequence = LANCE__TABLE__ROW_ID_SEQUENCE__INIT;
    sequence.n_segments = 1, sequence.segments = segments;
    lfa_status st = lfa_pb_pack(&out[i], &sequence.base, err);
    if (st != LFA_OK) return st;
  }
  return LFA_OK;
}
