/* decode_transaction: lfa_transaction_decode over any bytes, as if they
 * were a `_transactions/<read_version>-<uuid>.txn` file: the Transaction protobuf and the Field
 * Assignment sidecar rules (FA-TXN-1..4), with every RowChange treemap and
 * FragmentState bitmap validated.
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the same status without an error record; *out NULL on
 * failure; on success the sidecar passes lfa_transaction_check_sidecar
 * again and the operation has a name.
 */
#include "fuzz_helpers.h"
#include "lfa/transaction.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Lance__Table__Transaction *quiet = NULL;
  lfa_status quiet_st = lfa_transaction_decode(&quiet, data, size, NULL);
  lfa_transaction_free(quiet);

  Lance__Table__Transaction *txn = (Lance__Table__Transaction *)&quiet; /* must come back NULL */
  lfa_error err = fuzz_error();
  lfa_status st = lfa_transaction_decode(&txn, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == quiet_st, "the status depends on whether an error record is passed");
  if (st != LFA_OK) {
    FUZZ_ASSERT(txn == NULL, "a failed decode returned a transaction");
    return 0;
  }
  FUZZ_ASSERT(txn != NULL, "decoded without a transaction");
  if (txn->field_assignment_transaction != NULL) {
    lfa_error again = fuzz_error();
    FUZZ_ASSERT(lfa_transaction_check_sidecar(txn->field_assignment_transaction, &again) == LFA_OK,
                "the sidecar of a decoded transaction fails its own check");
  }
  FUZZ_ASSERT(lfa_transaction_operation_name(txn) != NULL, "an operation without a name");
  lfa_transaction_free(txn);
  return 0;
}
