/* test_transaction.c: transactions and the Field Assignment sidecar
 * (ref/format/transaction.c). Requirement ids: FA-TXN-1, FA-TXN-2, FA-TXN-3,
 * FA-TXN-4, FA-BITMAP-2. */
#include "testutil.h"

#include "lfa/bitmap.h"
#include "lfa/pb_types.h"
#include "lfa/transaction.h"

/* Packs a transaction holding `side` and decodes it again. */
static lfa_status round_trip(Sidecar *side, Lance__Table__Transaction **out, lfa_error *err) {
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__Update op = LANCE__TABLE__TRANSACTION__UPDATE__INIT;
  op.update_mode = LANCE__TABLE__TRANSACTION__UPDATE_MODE__REWRITE_COLUMNS;
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE;
  txn.update = &op;
  txn.field_assignment_transaction = side;
  lfa_buf b = {0};
  assert_ok(lfa_transaction_encode(&b, &txn, err), err);
  lfa_status st = lfa_transaction_decode(out, b.data, b.len, err);
  lfa_buf_free(&b);
  return st;
}

static void expect_rejected(Sidecar *side, const char *rule) {
  Lance__Table__Transaction *t = NULL;
  lfa_error err = {0};
  lfa_status st = round_trip(side, &t, &err);
  if (st == LFA_OK) fail_msg("accepted; expected %s", rule);
  assert_null(t);
  assert_rule(&err, rule);
}

static lfa_buf treemap_of(const uint64_t *values, size_t n) {
  lfa_treemap t = {0};
  lfa_buf b = {0};
  lfa_error err = {0};
  for (size_t i = 0; i < n; i++) assert_ok(lfa_treemap_add(&t, values[i], &err), &err);
  assert_ok(lfa_treemap_encode(&b, &t, &err), &err);
  lfa_treemap_free(&t);
  return b;
}

static void test_FA_TXN_1_row_change_addresses(void **state) {
  (void)state;
  Sidecar side = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  RowChange rc = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__ROW_CHANGE__INIT;
  RowChange *rcs[] = {&rc};
  const uint64_t addrs[] = {(1ull << 32) | 3, 5};
  lfa_buf b = treemap_of(addrs, 2);
  rc.field_id = 2, rc.row_addresses = (ProtobufCBinaryData){b.len, b.data};
  side.row_changes = rcs, side.n_row_changes = 1;
  Lance__Table__Transaction *t = NULL;
  lfa_error err = {0};
  assert_ok(round_trip(&side, &t, &err), &err);
  assert_int_equal(t->field_assignment_transaction->n_row_changes, 1);
  assert_string_equal(lfa_transaction_operation_name(t), "Update");
  lfa_transaction_free(t);
  lfa_buf_free(&b);
  b = treemap_of(NULL, 0); /* an empty set changes nothing: upstream rejects it */
  rc.row_addresses = (ProtobufCBinaryData){b.len, b.data};
  expect_rejected(&side, "FA-TXN-1");
  lfa_buf_free(&b);
  uint8_t garbage[] = {1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0x3A, 0x30};
  rc.row_addresses = (ProtobufCBinaryData){sizeof garbage, garbage};
  expect_rejected(&side, "FA-BITMAP-2");
}

static void test_FA_TXN_2_fragment_states(void **state) {
  (void)state;
  Sidecar side = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  FragmentState fs = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__INIT;
  FragmentState *list[] = {&fs};
  side.fragment_states = list, side.n_fragment_states = 1;
  fs.fragment_path = "c4.lance", fs.field_id = 2;
  fs.state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED;
  fs.all_assigned = true;
  Lance__Table__Transaction *t = NULL;
  lfa_error err = {0};
  assert_ok(round_trip(&side, &t, &err), &err);
  lfa_transaction_free(t);
  fs.all_assigned = false; /* a false marker */
  expect_rejected(&side, "FA-TXN-2");
  fs.state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED;
  fs.none_assigned = false;
  expect_rejected(&side, "FA-TXN-2");
  fs.state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE__NOT_SET;
  expect_rejected(&side, "FA-TXN-2");
  fs.state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL;
  roaring_bitmap_t *empty = roaring_bitmap_create();
  lfa_buf b = {0};
  assert_ok(lfa_bitmap_encode(&b, empty, &err), &err);
  fs.partial = (ProtobufCBinaryData){b.len, b.data};
  expect_rejected(&side, "FA-TXN-2"); /* empty partial: that is none_assigned */
  roaring_bitmap_add(empty, 4);
  b.len = 0;
  assert_ok(lfa_bitmap_encode(&b, empty, &err), &err);
  fs.partial = (ProtobufCBinaryData){b.len, b.data};
  assert_ok(round_trip(&side, &t, &err), &err);
  lfa_transaction_free(t);
  fs.fragment_path = "";
  expect_rejected(&side, "FA-TXN-2");
  roaring_bitmap_free(empty);
  lfa_buf_free(&b);
}

static void test_FA_TXN_3_initial_state_known(void **state) {
  (void)state;
  Sidecar side = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization init =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIALIZATION__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization *list[] = {&init};
  side.initializations = list, side.n_initializations = 1;
  init.field_id = 3;
  init.initial_state = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__ASSIGNED;
  Lance__Table__Transaction *t = NULL;
  lfa_error err = {0};
  assert_ok(round_trip(&side, &t, &err), &err);
  lfa_transaction_free(t);
  init.initial_state = (Lance__Table__Transaction__FieldAssignmentTransaction__InitialState)2;
  expect_rejected(&side, "FA-TXN-3");
}

static void test_FA_TXN_4_transfer_between_two_ids(void **state) {
  (void)state;
  Sidecar side = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer tr =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__TRANSFER__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer *list[] = {&tr};
  side.transfers = list, side.n_transfers = 1;
  tr.source_field_id = 2, tr.target_field_id = 5;
  Lance__Table__Transaction *t = NULL;
  lfa_error err = {0};
  assert_ok(round_trip(&side, &t, &err), &err);
  assert_int_equal(t->field_assignment_transaction->transfers[0]->target_field_id, 5);
  lfa_transaction_free(t);
  tr.target_field_id = 2;
  expect_rejected(&side, "FA-TXN-4");
}

static void test_transaction_garbage_and_names(void **state) {
  (void)state;
  Lance__Table__Transaction *t = NULL;
  lfa_error err = {0};
  const uint8_t bad[] = {0x0A, 0x05, 0x01}; /* field 1 length 5, 1 byte present */
  assert_status(lfa_transaction_decode(&t, bad, sizeof bad, &err), LFA_ERR_PROTO, &err);
  assert_null(t);
  assert_ok(lfa_transaction_decode(&t, NULL, 0, &err), &err); /* empty: no operation */
  assert_string_equal(lfa_transaction_operation_name(t), "none");
  lfa_transaction_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_TXN_1_row_change_addresses),
      cmocka_unit_test(test_FA_TXN_2_fragment_states),
      cmocka_unit_test(test_FA_TXN_3_initial_state_known),
      cmocka_unit_test(test_FA_TXN_4_transfer_between_two_ids),
      cmocka_unit_test(test_transaction_garbage_and_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
