/* decode_bitmap: lfa_bitmap_decode over any bytes, as if they were a
 * field-assignment partial bitmap object (`.rbm`): a portable 32-bit
 * Roaring bitmap in either form (FA-BITMAP-1), exactly one valid encoding
 * with nothing trailing (FA-BITMAP-2).
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h (NOMEM here would mean CRoaring refused bytes lfa's
 * validator accepted); the same status without an error record; *out NULL
 * on failure; lfa_bitmap_check agrees with the decode; and on success a
 * differential check against CRoaring: it spans exactly the input
 * (roaring_bitmap_portable_deserialize_size) and holds exactly the
 * cardinality lfa's own parser counted.
 */
#include "fuzz_helpers.h"
#include "lfa/bitmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t card = 0;
  lfa_status check_st = lfa_bitmap_check(&card, data, size, NULL);

  roaring_bitmap_t *bm = (roaring_bitmap_t *)&card; /* must come back NULL on failure */
  lfa_error err = fuzz_error();
  lfa_status st = lfa_bitmap_decode(&bm, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == check_st, "lfa_bitmap_check and lfa_bitmap_decode disagree");
  if (st != LFA_OK) {
    FUZZ_ASSERT(bm == NULL, "a failed decode returned a bitmap");
    return 0;
  }
  FUZZ_ASSERT(bm != NULL, "decoded without a bitmap");
  FUZZ_ASSERT(roaring_bitmap_portable_deserialize_size((const char *)data, size) == size,
              "CRoaring spans a different number of bytes than lfa accepted");
  FUZZ_ASSERT(roaring_bitmap_get_cardinality(bm) == card,
              "CRoaring holds a different cardinality than lfa counted");
  roaring_bitmap_free(bm);
  return 0;
}
