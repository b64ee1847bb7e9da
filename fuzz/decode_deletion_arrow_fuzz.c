/* decode_deletion_arrow: lfa_deletion_arrow_decode over any bytes, as if
 * they were a `_deletions/<fragment>-<read_version>-<id>.arrow` file (FA-LANCE-3): the Arrow IPC file
 * framing and flatbuffers, the exact `row_id: UInt32 not null` schema, one
 * record batch, ZSTD or plain buffers (inflation bounded by FA-LIMIT-1),
 * no nulls and no duplicate offsets.
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the dispatcher lfa_deletion_decode(LFA_DELETION_ARROW),
 * called without an error record, gives the same status and the same set;
 * *out NULL on failure; on success at most LFA_DELETION_ARROW_ROWS_MAX rows.
 */
#include "fuzz_helpers.h"
#include "lfa/deletion.h"
#include "lfa/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  roaring_bitmap_t *via_dispatch = NULL;
  lfa_status dispatch_st = lfa_deletion_decode(&via_dispatch, LFA_DELETION_ARROW, data, size, NULL);

  roaring_bitmap_t *bm = (roaring_bitmap_t *)&via_dispatch; /* must come back NULL on failure */
  lfa_error err = fuzz_error();
  lfa_status st = lfa_deletion_arrow_decode(&bm, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == dispatch_st, "lfa_deletion_decode and lfa_deletion_arrow_decode disagree");
  if (st != LFA_OK) {
    FUZZ_ASSERT(bm == NULL && via_dispatch == NULL, "a failed decode returned a bitmap");
    return 0;
  }
  FUZZ_ASSERT(bm != NULL && via_dispatch != NULL, "decoded without a bitmap");
  FUZZ_ASSERT(roaring_bitmap_get_cardinality(bm) <= LFA_DELETION_ARROW_ROWS_MAX, "more rows than the limit");
  FUZZ_ASSERT(roaring_bitmap_equals(bm, via_dispatch), "the two decodes give different sets");
  roaring_bitmap_free(bm);
  roaring_bitmap_free(via_dispatch);
  return 0;
}
