/* decode_row_ids: lfa_row_ids_decode over any bytes, as if they were a
 * fragment's inline_row_ids or the bytes its ExternalFile points at: a
 * RowIdSequence of the five segment kinds in every array width
 * (FA-LANCE-11), with the segment and id limits (FA-LIMIT-1) applied before
 * anything is expanded.
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the same status without an error record (the two decodes
 * run one after the other, so a sequence near LFA_ROW_IDS_MAX is held
 * once); a failed decode leaves no ids; on success at most LFA_ROW_IDS_MAX
 * ids, and ids present exactly when the count is not 0.
 */
#include "fuzz_helpers.h"
#include "lfa/limits.h"
#include "lfa/rowids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_row_ids quiet;
  lfa_status quiet_st = lfa_row_ids_decode(&quiet, data, size, NULL);
  lfa_row_ids_free(&quiet);

  lfa_row_ids ids;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_row_ids_decode(&ids, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == quiet_st, "the status depends on whether an error record is passed");
  if (st != LFA_OK) {
    FUZZ_ASSERT(ids.count == 0 && ids.ids == NULL, "a failed decode left ids behind");
    return 0;
  }
  FUZZ_ASSERT(ids.count <= LFA_ROW_IDS_MAX, "more ids than the limit");
  FUZZ_ASSERT((ids.ids != NULL) == (ids.count != 0), "ids present exactly when the count is not 0");
  lfa_row_ids_free(&ids);
  return 0;
}
