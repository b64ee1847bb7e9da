/* deletion.h: Lance deletion files, `_deletions/{fragment}-{read_version}-{id}.{arrow|bin}`.
 *
 * A deletion file holds the cumulative set of deleted physical row offsets of
 * one fragment. Two encodings exist (DeletionFile.file_type):
 *   ARROW_ARRAY (0, `.arrow`): an Arrow IPC *file* ("ARROW1" magic, footer),
 *     exactly one record batch, schema exactly one non-nullable UInt32 field
 *     named `row_id`, no nulls, values unsorted and unique; the body buffers
 *     may be ZSTD-compressed (Lance writes ZSTD) or uncompressed.
 *   BITMAP (1, `.bin`): one portable 32-bit Roaring bitmap, nothing else.
 * Both decode to a roaring bitmap of offsets. Checks against the fragment
 * (offsets below physical_rows, count equal to num_deleted_rows) belong to
 * the caller, which knows the fragment.
 */
#ifndef LFA_DELETION_H
#define LFA_DELETION_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

typedef enum lfa_deletion_kind {
  LFA_DELETION_ARROW = 0, /* DeletionFile.FileType ARROW_ARRAY */
  LFA_DELETION_BITMAP = 1 /* DeletionFile.FileType BITMAP */
} lfa_deletion_kind;

/* Decodes an Arrow IPC deletion file. Rejects: bad magic or footer, schema
 * other than one non-nullable uint32 `row_id`, not exactly one record batch,
 * nulls, duplicate offsets, buffers outside the body, compression other than
 * ZSTD, a ZSTD frame that does not inflate to exactly the declared length,
 * and counts beyond LFA_DELETION_ARROW_ROWS_MAX / LFA_ZSTD_OUTPUT_BYTES_MAX.
 * OWNERSHIP: *out is the caller's (roaring_bitmap_free). */
lfa_status lfa_deletion_arrow_decode(roaring_bitmap_t **out, const uint8_t *data, size_t len,
                                     lfa_error *err);

/* Encodes `offsets` as an Arrow IPC file with values ascending; `zstd`
 * selects ZSTD body compression (what Lance writes) or none. Messages are
 * 8-aligned, the IPC format's minimum. */
lfa_status lfa_deletion_arrow_encode(lfa_buf *out, const roaring_bitmap_t *offsets, bool zstd,
                                     lfa_error *err);

/* The same with every message and buffer on an `align` boundary, 8 or 64:
 * 64 is arrow-rs's alignment, the layout Lance 8 and 12 write (the magic
 * padded with zeros to byte 64). */
lfa_status lfa_deletion_arrow_encode_aligned(lfa_buf *out, const roaring_bitmap_t *offsets,
                                             bool zstd, size_t align, lfa_error *err);

/* Dispatches on `kind`; BITMAP is lfa_bitmap_decode. */
lfa_status lfa_deletion_decode(roaring_bitmap_t **out, lfa_deletion_kind kind,
                               const uint8_t *data, size_t len, lfa_error *err);
lfa_status lfa_deletion_encode(lfa_buf *out, lfa_deletion_kind kind,
                               const roaring_bitmap_t *offsets, lfa_error *err);

/* The live rows of a fragment of `physical_rows` rows whose deletion set is
 * `deleted` (NULL: none): its offsets below physical_rows that are not
 * deleted, the rows FA-REMAP-1 walks. A deleted offset at or past
 * physical_rows deletes no row (readers refuse one, FA-LANCE-4, unless
 * physical_rows is 0, "unknown", which has no live row). */
uint64_t lfa_live_rows(uint64_t physical_rows, const roaring_bitmap_t *deleted);

#endif
