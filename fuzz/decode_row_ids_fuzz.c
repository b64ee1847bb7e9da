/* decode_row_ids: the row id sequence decoder over any bytes, as a reader
 * meets them: bytes 0-1 (little-endian) are the fragment's physical_rows,
 * the rest its inline_row_ids or the bytes its ExternalFile points at. A
 * RowIdSequence of the five segment kinds in every array width
 * (FA-LANCE-11), with the segment and id limits (FA-LIMIT-1) and the
 * length (FA-LANCE-7) checked before anything is expanded:
 * lfa_row_ids_decode_rows, which every reader calls. A 2-byte row count
 * keeps expansions small; the limits themselves are tested in
 * tests/format/test_rowids.c (a sequence of LFA_ROW_IDS_MAX ids takes a second
 * and 1 GiB under ASan, which is why the decoder now counts first).
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the same status without an error record; a failed decode
 * leaves no ids; on success exactly physical_rows ids, present exactly
 * when that is not 0; the unbounded lfa_row_ids_decode agrees on every
 * sequence the bounded one accepts.
 */
#include "fuzz_helpers.h"
#include "lfa/limits.h"
#include "lfa/rowids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  uint64_t rows = (uint64_t)data[0] | (uint64_t)data[1] << 8;
  data += 2, size -= 2;
  lfa_row_ids quiet;
  lfa_status quiet_st = lfa_row_ids_decode_rows(&quiet, data, size, rows, NULL);
  lfa_row_ids_free(&quiet);

  lfa_row_ids ids;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_row_ids_decode_rows(&ids, data, size, rows, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == quiet_st, "the status depends on whether an error record is passed");
  if (st != LFA_OK) {
    FUZZ_ASSERT(ids.count == 0 && ids.ids == NULL, "a failed decode left ids behind");
    return 0;
  }
  FUZZ_ASSERT(ids.count == rows, "a sequence of another length than the fragment's rows was accepted");
  FUZZ_ASSERT((ids.ids != NULL) == (ids.count != 0), "ids present exactly when the count is not 0");
  lfa_row_ids any;
  FUZZ_ASSERT(lfa_row_ids_decode(&any, data, size, NULL) == LFA_OK, "the unbounded decoder refuses the sequence");
  FUZZ_ASSERT(any.count == ids.count && (ids.count == 0 || memcmp(any.ids, ids.ids, ids.count * sizeof *ids.ids) == 0),
              "the two decoders disagree");
  lfa_row_ids_free(&any);
  lfa_row_ids_free(&ids);
  return 0;
}
