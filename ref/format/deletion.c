/* deletion.c: deletion-file dispatch by DeletionFile.file_type [FA-LANCE-3].
 * The Arrow IPC codec is deletion_arrow.c; `.bin` is a bare bitmap. */
#include "lfa/deletion.h"

#include "lfa/bitmap.h"
#include "lfa/limits.h"

lfa_status lfa_deletion_decode(roaring_bitmap_t **out, lfa_deletion_kind kind, const uint8_t *data,
                               size_t len, lfa_error *err) {
  *out = NULL;
  if (len > LFA_DELETION_FILE_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "deletion file of %zu bytes exceeds %u", len,
                    (unsigned)LFA_DELETION_FILE_BYTES_MAX);
  if (kind == LFA_DELETION_ARROW) return lfa_deletion_arrow_decode(out, data, len, err);
  if (kind == LFA_DELETION_BITMAP) return lfa_bitmap_decode(out, data, len, err);
  return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "unknown deletion file type %d", (int)kind);
}

lfa_status lfa_deletion_encode(lfa_buf *out, lfa_deletion_kind kind, const roaring_bitmap_t *offsets,
                               lfa_error *err) {
  /* Lance writes `.arrow` with a ZSTD-compressed body. */
  if (kind == LFA_DELETION_ARROW) return lfa_deletion_arrow_encode(out, offsets, true, err);
  if (kind == LFA_DELETION_BITMAP) return lfa_bitmap_encode(out, offsets, err);
  return lfa_fail(err, LFA_ERR_USAGE, NULL, "unknown deletion file type %d", (int)kind);
}

uint64_t lfa_live_rows(uint64_t physical_rows, const roaring_bitmap_t *deleted) {
  if (deleted == NULL || physical_rows == 0) return physical_rows;
  return physical_rows - roaring_bitmap_range_cardinality(deleted, 0, physical_rows);
}
