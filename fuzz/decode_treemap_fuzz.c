/* decode_treemap: lfa_treemap_decode over any bytes, as if they were a
 * RowChange's row_addresses (FA-TXN-1): a u64 bucket count, then per bucket
 * a u32 high key and a portable 32-bit Roaring bitmap, nothing trailing.
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the same status without an error record; a failed decode
 * leaves an empty treemap; on success the shape bitmap.h promises: at most
 * LFA_TREEMAP_BUCKETS_MAX buckets, high keys strictly ascending, no bucket
 * empty, and lfa_treemap_cardinality the sum of the buckets.
 */
#include "fuzz_helpers.h"
#include "lfa/bitmap.h"
#include "lfa/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_treemap quiet;
  lfa_status quiet_st = lfa_treemap_decode(&quiet, data, size, NULL);
  if (quiet_st == LFA_OK) lfa_treemap_free(&quiet);

  lfa_treemap t;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_treemap_decode(&t, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == quiet_st, "the status depends on whether an error record is passed");
  if (st != LFA_OK) {
    FUZZ_ASSERT(t.count == 0 && t.high == NULL && t.low == NULL, "a failed decode left buckets behind");
    return 0;
  }
  FUZZ_ASSERT(t.count <= LFA_TREEMAP_BUCKETS_MAX, "more buckets than the limit");
  uint64_t sum = 0;
  for (size_t i = 0; i < t.count; i++) {
    FUZZ_ASSERT(i == 0 || t.high[i] > t.high[i - 1], "bucket keys not strictly ascending");
    FUZZ_ASSERT(t.low[i] != NULL && !roaring_bitmap_is_empty(t.low[i]), "an empty bucket");
    sum += roaring_bitmap_get_cardinality(t.low[i]);
  }
  FUZZ_ASSERT(lfa_treemap_cardinality(&t) == sum, "cardinality is not the sum of the buckets");
  lfa_treemap_free(&t);
  return 0;
}
