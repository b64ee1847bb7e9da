/* rowids.h: stable row id sequences (DataFragment.inline_row_ids, or the
 * bytes an ExternalFile points at): a protobuf RowIdSequence whose segments,
 * concatenated, list the row id of every physical row in offset order
 * [FA-LANCE-11].
 *
 * Segment kinds (lance.table.U64Segment):
 *   range               every id in [start, end)
 *   range_with_holes    [start, end) minus `holes` (ascending, inside the range)
 *   range_with_bitmap   ids start+i whose bit i is set (LSB-first: bit i is
 *                       byte i/8, mask 1 << i%8)
 *   sorted_array        strictly ascending ids
 *   array               ids in any order
 * Arrays (EncodedU64Array): u16 or u32 little-endian offsets added to a base,
 * or raw little-endian u64 values.
 */
#ifndef LFA_ROWIDS_H
#define LFA_ROWIDS_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

/* A decoded sequence, expanded. OWNERSHIP: `ids` is malloc'ed and owned. */
typedef struct lfa_row_ids {
  uint64_t count;
  uint64_t *ids; /* count entries, physical offset order */
} lfa_row_ids;

/* Decodes and expands a RowIdSequence. Rejects invalid segments: inverted
 * ranges (an empty range is valid: upstream writes 0..0 once every row is
 * gone), holes outside or unsorted, a bitmap of the wrong length or with
 * bits past its range, a sorted array that is not strictly ascending, array bytes that
 * are not a multiple of the width, base + offset overflowing u64; more than
 * LFA_ROW_ID_SEGMENTS_MAX segments, and more than LFA_ROW_IDS_MAX ids (the
 * count is computed before anything is expanded). */
lfa_status lfa_row_ids_decode(lfa_row_ids *out, const uint8_t *data, size_t len, lfa_error *err);

/* lfa_row_ids_decode for the sequence of a fragment of `physical_rows`
 * rows, as every reader holds one: a sequence of another length is
 * refused [FA-LANCE-7] once counted, before any id is expanded, so a few
 * hostile bytes claiming millions of ids cost no memory unless the
 * manifest claims as many rows. */
lfa_status lfa_row_ids_decode_rows(lfa_row_ids *out, const uint8_t *data, size_t len, uint64_t physical_rows,
                                   lfa_error *err);

/* Encodes ids compactly: runs of at least 8 consecutive ids become `range`
 * segments, other stretches `array` segments with the narrowest width
 * (u16/u32 offsets from their minimum, else raw u64). Decoding the result
 * gives back exactly `ids`. */
lfa_status lfa_row_ids_encode(lfa_buf *out, const uint64_t *ids, uint64_t count, lfa_error *err);

void lfa_row_ids_free(lfa_row_ids *ids);

#endif
