/* bitmap.h: portable 32-bit Roaring bitmaps and 64-bit treemaps.
 *
 * Used for field-assignment partial bitmaps, `.bin` deletion files, overlay
 * coverage, update offset bitmaps (32-bit) and RowChange row addresses
 * (64-bit treemap). CRoaring 0.2.66 does not validate what it deserializes,
 * so lfa parses the portable layout itself first and rejects anything that
 * is not a valid set encoding; only then does it hand the bytes to CRoaring.
 *
 * The portable 32-bit layout is drawn in lfa/roaring_layout.h, the module
 * that reads and writes it.
 *
 * Treemap (roaring-rs RoaringTreemap / CRoaring portable 64-bit):
 *   u64 bucket count, then per bucket u32 high key + a portable bitmap.
 */
#ifndef LFA_BITMAP_H
#define LFA_BITMAP_H

#include <roaring/roaring.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

/* Validates the portable bitmap at the start of `data` without building it:
 * keys strictly ascending, values strictly ascending, cardinalities exact,
 * runs in bounds and disjoint, offsets (when present) equal to the real
 * container positions. Reports the bytes it spans and its cardinality.
 * Bytes after the bitmap are not looked at. */
lfa_status lfa_bitmap_scan(size_t *len_out, uint64_t *cardinality_out,
                           const uint8_t *data, size_t len, lfa_error *err);

/* lfa_bitmap_scan that must span exactly `len` bytes (no trailing bytes). */
lfa_status lfa_bitmap_check(uint64_t *cardinality_out, const uint8_t *data, size_t len,
                            lfa_error *err);

/* Decodes exactly `len` bytes as one portable bitmap (either cookie);
 * trailing bytes are an error. OWNERSHIP: *out is the caller's
 * (roaring_bitmap_free). */
lfa_status lfa_bitmap_decode(roaring_bitmap_t **out, const uint8_t *data, size_t len,
                             lfa_error *err);

/* Appends the no-run-container form (cookie 12346), the only form upstream
 * writers emit. `bitmap` is not modified. */
lfa_status lfa_bitmap_encode(lfa_buf *out, const roaring_bitmap_t *bitmap, lfa_error *err);

/* roaring_bitmap_free that accepts NULL (CRoaring 0.2.66 crashes on it). */
void lfa_bitmap_free(roaring_bitmap_t *bitmap);

/* A set of u64 values split by their high 32 bits. Buckets are sorted by
 * `high`, strictly ascending, and none is empty. OWNERSHIP: the treemap owns
 * its arrays and bitmaps; lfa_treemap_free releases them. */
typedef struct lfa_treemap {
  size_t count;
  uint32_t *high;
  roaring_bitmap_t **low;
} lfa_treemap;

lfa_status lfa_treemap_decode(lfa_treemap *out, const uint8_t *data, size_t len, lfa_error *err);
lfa_status lfa_treemap_encode(lfa_buf *out, const lfa_treemap *treemap, lfa_error *err);
/* Adds one value; buckets are created in order. */
lfa_status lfa_treemap_add(lfa_treemap *treemap, uint64_t value, lfa_error *err);
uint64_t lfa_treemap_cardinality(const lfa_treemap *treemap);
void lfa_treemap_free(lfa_treemap *treemap);

#endif
