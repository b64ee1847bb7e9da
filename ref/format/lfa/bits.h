/* bits.h: bit-packed Boolean arrays from Roaring bitmaps, the form a scan
 * hands to an engine and the compaction remap works on: one bit per
 * offset, LSB-first (bit o is bit o % 8 of byte o / 8, as in an Arrow
 * Boolean buffer).
 *
 * It works container by container, never row by row: a Roaring bitset
 * container is a copy of its 8 KiB (its portable bytes are already that bit
 * layout), array and run containers set their values or ranges. The
 * containers are read through CRoaring's portable serialization, the
 * documented layout lfa/roaring_layout.h reads, so nothing here depends on
 * CRoaring's in-memory structs.
 */
#ifndef LFA_BITS_H
#define LFA_BITS_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"

/* Bit arrays are LSB-first; `n_bits` bounds them and out_len must be
 * ceil(n_bits / 8). Values of `bitmap` at or past n_bits are ignored. */

/* LFA_ERR_USAGE unless out_len == ceil(n_bits / 8). */
lfa_status lfa_bits_check_len(size_t out_len, uint64_t n_bits, lfa_error *err);
/* Every one of the n_bits bits = value; the bits past n_bits in the last
 * byte 0. */
void lfa_bits_fill(uint8_t *out, size_t out_len, uint64_t n_bits, bool value);

/* out = the members of `bitmap` below n_bits (every other bit 0). */
lfa_status lfa_bits_from_bitmap(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                                lfa_error *err);
/* Clears in `out` every member of `bitmap` below n_bits. */
lfa_status lfa_bits_clear_bitmap(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                                 lfa_error *err);
/* Sets bits [from, from + n) of `bits` (the caller keeps them in bounds). */
void lfa_bits_set_range(uint8_t *bits, uint64_t from, uint64_t n);

#endif
