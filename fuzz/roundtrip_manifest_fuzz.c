/* roundtrip_manifest: decode, encode, decode again, for manifest files
 * [FA-LANCE-1].
 *
 * "Same value" here: lfa_manifest_file_encode writes the manifest and the
 * inline transaction (never an index section: lfa writes no indices), and
 * sets the section offsets itself. So for inputs lfa_manifest_file_decode
 * accepts (F1), with B = encode(F1) and F2 = decode(B):
 *  - B decodes (the encoder writes only what the decoder accepts);
 *  - F2 has an inline transaction exactly when F1 had one, and no index
 *    section;
 *  - the manifest messages pack to the same bytes once both section
 *    offsets are cleared (they are framing, not value), and the
 *    transactions pack to the same bytes;
 *  - encode(F2) == B byte for byte (the encoding is stable after one round).
 * Any difference aborts.
 */
#include "fuzz_helpers.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/transaction.h"

/* The manifest packed without its section offsets. */
static lfa_buf pack_without_sections(const Lance__Table__Manifest *m) {
  Lance__Table__Manifest copy = *m; /* shallow: only the two oneof cases change */
  copy._index_section_case = LANCE__TABLE__MANIFEST___INDEX_SECTION__NOT_SET;
  copy._transaction_section_case = LANCE__TABLE__MANIFEST___TRANSACTION_SECTION__NOT_SET;
  lfa_buf out = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_pb_pack(&out, &copy.base, &err) == LFA_OK, "a decoded manifest does not pack");
  return out;
}

static lfa_buf pack_transaction(const Lance__Table__Transaction *txn) {
  lfa_buf out = {0};
  lfa_error err = fuzz_error();
  if (txn != NULL)
    FUZZ_ASSERT(lfa_transaction_encode(&out, txn, &err) == LFA_OK, "a decoded transaction does not pack");
  return out;
}

static lfa_buf encode(const lfa_manifest_file *f) {
  lfa_buf out = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_manifest_file_encode(&out, f->manifest, f->transaction, &err) == LFA_OK,
              "a decoded manifest file does not encode");
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_manifest_file f1, f2;
  if (lfa_manifest_file_decode(&f1, data, size, NULL) != LFA_OK) return 0;
  lfa_buf b = encode(&f1);
  lfa_error err = fuzz_error();
  lfa_status st = lfa_manifest_file_decode(&f2, b.data, b.len, &err);
  if (st != LFA_OK) fprintf(stderr, "re-decode: %s\n", err.msg);
  FUZZ_ASSERT(st == LFA_OK, "the encoding of a decoded manifest file does not decode");
  FUZZ_ASSERT((f1.transaction != NULL) == (f2.transaction != NULL), "the inline transaction came or went");
  FUZZ_ASSERT(f2.index_section == NULL, "an index section appeared");

  lfa_buf m1 = pack_without_sections(f1.manifest), m2 = pack_without_sections(f2.manifest);
  FUZZ_ASSERT(fuzz_same_bytes(&m1, &m2), "the manifest changed in the round trip");
  lfa_buf t1 = pack_transaction(f1.transaction), t2 = pack_transaction(f2.transaction);
  FUZZ_ASSERT(fuzz_same_bytes(&t1, &t2), "the inline transaction changed in the round trip");
  lfa_buf c = encode(&f2);
  FUZZ_ASSERT(fuzz_same_bytes(&b, &c), "the encoding is not stable after one round");

  lfa_buf_free(&m1);
  lfa_buf_free(&m2);
  lfa_buf_free(&t1);
  lfa_buf_free(&t2);
  lfa_buf_free(&b);
  lfa_buf_free(&c);
  lfa_manifest_file_free(&f1);
  lfa_manifest_file_free(&f2);
  return 0;
}
