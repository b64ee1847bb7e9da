/* roundtrip_transaction: decode, encode, decode again, for transactions
 * (`.txn` files, FA-TXN-1..4 on the sidecar).
 *
 * "Same value" here: a decoded Transaction is its protobuf message, and two
 * messages are the same when they pack to the same bytes (protobuf-c packs
 * known fields in field order, then the unknown fields it kept). So for
 * inputs lfa_transaction_decode accepts (T1), with B = encode(T1) and
 * T2 = decode(B): B decodes, and encode(T2) == B byte for byte. Any
 * difference aborts.
 */
#include "fuzz_helpers.h"
#include "lfa/transaction.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Lance__Table__Transaction *t1 = NULL, *t2 = NULL;
  if (lfa_transaction_decode(&t1, data, size, NULL) != LFA_OK) return 0;
  lfa_buf b = {0}, c = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_transaction_encode(&b, t1, &err) == LFA_OK, "a decoded transaction does not encode");
  lfa_status st = lfa_transaction_decode(&t2, b.data, b.len, &err);
  if (st != LFA_OK) fprintf(stderr, "re-decode: %s\n", err.msg);
  FUZZ_ASSERT(st == LFA_OK, "the encoding of a decoded transaction does not decode");
  FUZZ_ASSERT(lfa_transaction_encode(&c, t2, &err) == LFA_OK, "a re-decoded transaction does not encode");
  FUZZ_ASSERT(fuzz_same_bytes(&b, &c), "the transaction changed in the round trip");
  FUZZ_ASSERT(t1->operation_case == t2->operation_case, "the operation changed in the round trip");
  lfa_buf_free(&b);
  lfa_buf_free(&c);
  lfa_transaction_free(t1);
  lfa_transaction_free(t2);
  return 0;
}
