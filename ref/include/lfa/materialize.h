/* materialize.h: `is_assigned(f)` of a whole fragment as a bit-packed
 * Boolean array (spec 07-is-assigned.md, FA-EXPR-5), the form a scan
 * hands to an engine: one bit per physical offset, LSB-first (bit o is bit
 * o % 8 of byte o / 8, as in an Arrow Boolean buffer).
 *
 * It works container by container, never row by row: an `all_assigned`
 * fragment is a memset, a Roaring bitset container is a copy of its 8 KiB
 * (its portable bytes are already that bit layout), array and run
 * containers set their values or ranges. The containers are read through
 * CRoaring's portable serialization, the documented layout lfa/bitmap.h
 * draws, so nothing here depends on CRoaring's in-memory structs.
 */
#ifndef LFA_MATERIALIZE_H
#define LFA_MATERIALIZE_H

#include <roaring/roaring.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/dataset.h"
#include "lfa/error.h"

/* [FA-EXPR-5] Bit o of `out` = is_assigned(f) on the row at physical offset
 * o of the fragment at manifest index `fragment_index`, for tracked field
 * `tracked_index` (index into snap->tracked, which must be loaded:
 * lfa_snapshot_load_field). Deleted offsets get 0: they are no rows of the
 * snapshot (FA-SEM-1 speaks of live rows only), and bits past
 * physical_rows in the last byte are 0. `out_len` must be exactly
 * ceil(physical_rows / 8); anything else is LFA_ERR_USAGE and `out` is left
 * untouched. */
lfa_status lfa_assigned_bits(uint8_t *out, size_t out_len, const lfa_snapshot *snap, size_t tracked_index,
                             size_t fragment_index, lfa_error *err);

/* The building blocks, shared with the compaction remap (lfa/remap.h).
 * Bit arrays are LSB-first; `n_bits` bounds them and out_len must be
 * ceil(n_bits / 8). Values of `bitmap` at or past n_bits are ignored. */

/* out = the members of `bitmap` below n_bits (every other bit 0). */
lfa_status lfa_bits_from_bitmap(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                                lfa_error *err);
/* Clears in `out` every member of `bitmap` below n_bits. */
lfa_status lfa_bits_clear_bitmap(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                                 lfa_error *err);
/* Sets bits [from, from + n) of `bits` (the caller keeps them in bounds). */
void lfa_bits_set_range(uint8_t *bits, uint64_t from, uint64_t n);

#endif
