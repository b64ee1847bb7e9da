/* decode_deletion_bin: lfa_deletion_decode with LFA_DELETION_BITMAP over any
 * bytes, as if they were a `_deletions/<fragment>-<read_version>-<id>.bin` file (FA-LANCE-3): one
 * portable 32-bit Roaring bitmap (FA-BITMAP-1, FA-BITMAP-2), nothing else,
 * after the FA-LIMIT-1 size check of the dispatcher.
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; lfa_bitmap_decode, called without an error record, gives
 * the same status and the same set; *out NULL on failure.
 */
#include "fuzz_helpers.h"
#include "lfa/bitmap.h"
#include "lfa/deletion.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  roaring_bitmap_t *direct = NULL;
  lfa_status direct_st = lfa_bitmap_decode(&direct, data, size, NULL);

  roaring_bitmap_t *bm = (roaring_bitmap_t *)&direct; /* must come back NULL on failure */
  lfa_error err = fuzz_error();
  lfa_status st = lfa_deletion_decode(&bm, LFA_DELETION_BITMAP, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == direct_st, "lfa_deletion_decode and lfa_bitmap_decode disagree");
  if (st != LFA_OK) {
    FUZZ_ASSERT(bm == NULL && direct == NULL, "a failed decode returned a bitmap");
    return 0;
  }
  FUZZ_ASSERT(bm != NULL && direct != NULL, "decoded without a bitmap");
  FUZZ_ASSERT(roaring_bitmap_equals(bm, direct), "the two decodes give different sets");
  roaring_bitmap_free(bm);
  roaring_bitmap_free(direct);
  return 0;
}
