/* roundtrip_deletion_arrow: decode, encode, decode again, for `.arrow`
 * deletion files (FA-LANCE-3).
 *
 * "Same value" here: the same set of deleted offsets (roaring_bitmap_equals);
 * the bytes of the input are not compared, since Arrow leaves the writer
 * free in padding, buffer order and compression. For inputs
 * lfa_deletion_arrow_decode accepts (S1), with both encodings lfa writes,
 * ZSTD (what Lance writes) and plain: B = encode(S1) decodes to a set equal
 * to S1, and encoding that set again gives B byte for byte. Any difference
 * aborts.
 */
#include <stdbool.h>

#include "fuzz_helpers.h"
#include "lfa/deletion.h"

static lfa_buf encode(const roaring_bitmap_t *bm, bool zstd) {
  lfa_buf out = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_deletion_arrow_encode(&out, bm, zstd, &err) == LFA_OK,
              "a decoded deletion set does not encode");
  return out;
}

static void round_trip(const roaring_bitmap_t *s1, bool zstd) {
  roaring_bitmap_t *s2 = NULL;
  lfa_buf b = encode(s1, zstd);
  lfa_error err = fuzz_error();
  lfa_status st = lfa_deletion_arrow_decode(&s2, b.data, b.len, &err);
  if (st != LFA_OK) fprintf(stderr, "re-decode (%s): %s\n", zstd ? "zstd" : "plain", err.msg);
  FUZZ_ASSERT(st == LFA_OK, "the encoding of a decoded deletion file does not decode");
  FUZZ_ASSERT(roaring_bitmap_equals(s1, s2), "the set changed in the round trip");
  lfa_buf c = encode(s2, zstd);
  FUZZ_ASSERT(fuzz_same_bytes(&b, &c), "the encoding is not stable after one round");
  lfa_buf_free(&b);
  lfa_buf_free(&c);
  roaring_bitmap_free(s2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  roaring_bitmap_t *s1 = NULL;
  if (lfa_deletion_arrow_decode(&s1, data, size, NULL) != LFA_OK) return 0;
  round_trip(s1, true);
  round_trip(s1, false);
  roaring_bitmap_free(s1);
  return 0;
}
