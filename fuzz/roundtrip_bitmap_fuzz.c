/* roundtrip_bitmap: decode, encode, decode again, for portable 32-bit
 * Roaring bitmaps (FA-BITMAP-1, FA-BITMAP-2).
 *
 * "Same value" here: the same set (roaring_bitmap_equals). For inputs
 * lfa_bitmap_decode accepts (S1), with B = encode(S1) and S2 = decode(B):
 *  - B decodes and S2 equals S1;
 *  - B is the no-run form (cookie 12346), the only form lfa writes;
 *  - encode(S2) == B byte for byte;
 *  - when the input is itself in the no-run form, B == input: lfa accepts
 *    only exact cardinalities, real offsets and the container type the
 *    cardinality implies, so that form has one encoding per set.
 * Any difference aborts.
 */
#include "fuzz_helpers.h"
#include "lfa/bitmap.h"

enum { COOKIE_NO_RUN = 12346 };

static lfa_buf encode(const roaring_bitmap_t *bm) {
  lfa_buf out = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_bitmap_encode(&out, bm, &err) == LFA_OK, "a decoded bitmap does not encode");
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  roaring_bitmap_t *s1 = NULL, *s2 = NULL;
  if (lfa_bitmap_decode(&s1, data, size, NULL) != LFA_OK) return 0;
  lfa_buf b = encode(s1);
  FUZZ_ASSERT(b.len >= 8 && lfa_load_u32le(b.data) == COOKIE_NO_RUN, "the encoder wrote a run-form cookie");
  lfa_error err = fuzz_error();
  lfa_status st = lfa_bitmap_decode(&s2, b.data, b.len, &err);
  if (st != LFA_OK) fprintf(stderr, "re-decode: %s\n", err.msg);
  FUZZ_ASSERT(st == LFA_OK, "the encoding of a decoded bitmap does not decode");
  FUZZ_ASSERT(roaring_bitmap_equals(s1, s2), "the set changed in the round trip");
  lfa_buf c = encode(s2);
  FUZZ_ASSERT(fuzz_same_bytes(&b, &c), "the encoding is not stable after one round");
  if (lfa_load_u32le(data) == COOKIE_NO_RUN) {
    lfa_buf in = {(uint8_t *)(uintptr_t)data, size, size};
    FUZZ_ASSERT(fuzz_same_bytes(&in, &b), "an accepted no-run bitmap is not the one encoding of its set");
  }
  lfa_buf_free(&b);
  lfa_buf_free(&c);
  roaring_bitmap_free(s1);
  roaring_bitmap_free(s2);
  return 0;
}
