/* roundtrip_root: decode, encode, decode again, for field-assignment roots
 * (FA-ROOT-1..7).
 *
 * "Same value" here: the same entries, i.e. the same fragment ids with the
 * same physical_rows and state, and more strictly the same packed bytes.
 * For inputs lfa_root_decode accepts (R1), with B = encode(R1) and
 * R2 = decode(B): B decodes; R1 and R2 list the same fragment ids and
 * physical_rows with the same state; encode(R2) == B byte for byte; and a
 * root with no entries and no unknown fields encodes to 0 bytes, the empty
 * root (FA-ROOT-1). Any difference aborts.
 */
#include "fuzz_helpers.h"
#include "lfa/root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_root *r1 = NULL, *r2 = NULL;
  if (lfa_root_decode(&r1, data, size, NULL) != LFA_OK) return 0;
  lfa_buf b = {0}, c = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_root_encode(&b, r1, &err) == LFA_OK, "a decoded root does not encode");
  if (r1->n_fragments == 0 && r1->base.n_unknown_fields == 0)
    FUZZ_ASSERT(b.len == 0, "an empty root does not encode to 0 bytes");
  lfa_status st = lfa_root_decode(&r2, b.data, b.len, &err);
  if (st != LFA_OK) fprintf(stderr, "re-decode: %s\n", err.msg);
  FUZZ_ASSERT(st == LFA_OK, "the encoding of a decoded root does not decode");
  FUZZ_ASSERT(r1->n_fragments == r2->n_fragments, "the number of entries changed");
  for (size_t i = 0; i < r1->n_fragments; i++) {
    const lfa_root_entry *e1 = r1->fragments[i], *e2 = r2->fragments[i];
    FUZZ_ASSERT(e1->fragment_id == e2->fragment_id, "a fragment id changed");
    FUZZ_ASSERT(e1->physical_rows == e2->physical_rows, "physical_rows changed");
    FUZZ_ASSERT(e1->state_case == e2->state_case, "an entry's state changed");
  }
  FUZZ_ASSERT(lfa_root_encode(&c, r2, &err) == LFA_OK, "a re-decoded root does not encode");
  FUZZ_ASSERT(fuzz_same_bytes(&b, &c), "the root changed in the round trip");
  lfa_buf_free(&b);
  lfa_buf_free(&c);
  lfa_root_free(r1);
  lfa_root_free(r2);
  return 0;
}
