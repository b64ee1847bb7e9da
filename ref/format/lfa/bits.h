/* bits.h: bit-packed Boolean arrays from Roaring bitmaps, the form a scan
 * hands to an engine and the compaction remap works on: one bit per
 * offset, LSB-first (bit o is bit o % 8 of byte o / 8, as in an Arrow
 * Boolean buffer).
 *
 * It works container by container, never row by row: a Roaring bitset
 * container is a copy of its 8 KiB (its words are already that bit
 * layout), array and run containers set their values or ranges. The
 * containers are read in place, never serialized first: CRoaring 0.2's
 * in-memory bodies are the portable layout of lfa/roaring_layout.h on a
 * little-endian machine (bits.c checks both at build time).
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

/* [FA-EXPR-5] out = the members of `bitmap` (NULL: every offset) that
 * `deleted` (NULL: none) does not hold, below n_bits: the state and the
 * deletion mask in one pass, chunk by chunk. */
lfa_status lfa_bits_live(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                         const roaring_bitmap_t *deleted, lfa_error *err);

/* ---- chunks of 2^16 bits as words ------------------------------------------------ */

/* A bitmap read chunk by chunk, keys ascending from call to call. */
typedef struct lfa_bits_chunks {
  const roaring_bitmap_t *bitmap; /* NULL: no values */
  int32_t next;
} lfa_bits_chunks;

void lfa_bits_chunks_start(lfa_bits_chunks *c, const roaring_bitmap_t *bitmap);
/* The 1024 words of chunk `key` (values key * 2^16 ..): a bitset
 * container's own words, read in place, or an array or run container's
 * values laid out in `scratch` (1024 words); NULL when the bitmap has no
 * value there. Keys must not descend from one call to the next. */
const uint64_t *lfa_bits_chunk(lfa_bits_chunks *c, uint32_t key, uint64_t *scratch);

/* The values of chunk `key` below n_bits (<= 2^16): the container's own
 * cardinality for a whole chunk, its values never read. Keys must not
 * descend from one call to the next (lfa_bits_chunk's too, on the same c). */
uint64_t lfa_bits_chunk_count(lfa_bits_chunks *c, uint32_t key, uint64_t n_bits);

/* ---- live bits, packed (FA-REMAP-1) ---------------------------------------------- */

/* A word's bits at the offsets `deleted` does not hold, in order, packed
 * down: the plain loop, one step per deleted offset (the reference). */
uint64_t lfa_bits_squeeze(uint64_t bits, uint64_t deleted);

/* Appends to the bit stream `dst`, at bit *pos (advanced), the bits of the
 * n_bits offsets of `bits` that `deleted` (NULL: none) does not hold, in
 * order. The stream's bits below *pos are kept; those from
 * *pos on need not be 0 (they are overwritten), and one spare word follows
 * the last bit the stream gets. lfa_bits_append_live uses the CPU's
 * parallel bit extract where it has one (BMI2); _plain is the portable
 * word loop with lfa_bits_squeeze it is tested against. */
void lfa_bits_append_live(uint64_t *dst, uint64_t *pos, const uint64_t *bits, const uint64_t *deleted, uint64_t n_bits);
void lfa_bits_append_live_plain(uint64_t *dst, uint64_t *pos, const uint64_t *bits, const uint64_t *deleted,
                                uint64_t n_bits);
/* Appends n_bits bits all equal to `value`, on the same terms. */
void lfa_bits_append_fill(uint64_t *dst, uint64_t *pos, bool value, uint64_t n_bits);

/* ---- a bit array back into a bitmap ---------------------------------------------- */

/* The set bits among the first n_bits of `words` (the bits after them up
 * to a whole word are 0). */
uint64_t lfa_bits_count(const uint64_t *words, uint64_t n_bits);
/* *out = a new bitmap of those bits and *count their number, built
 * container by container in CRoaring's memory: a bitset above
 * LFA_ROARING_ARRAY_MAX values, an array otherwise (the no-run form the
 * encoder writes), each chunk's words copied and counted in one pass.
 * n_bits <= 2^32. OWNERSHIP: the caller frees *out (NULL on failure). */
lfa_status lfa_bits_to_bitmap(roaring_bitmap_t **out, uint64_t *count, const uint64_t *words, uint64_t n_bits,
                              lfa_error *err);

/* Appends chunk `key`'s n_words words (at most 1024; the bits after them
 * up to the chunk's end are 0) to `bitmap` as one container, as
 * lfa_bits_to_bitmap builds them, and adds its values to *count; nothing
 * when the words are all 0. LFA_ERR_USAGE unless key is above every key
 * the bitmap has (containers are appended in order) and below 2^16, and
 * the bitmap has room for one more container (it was created with the
 * capacity it needs: roaring_bitmap_create_with_capacity). */
lfa_status lfa_bits_add_chunk(roaring_bitmap_t *bitmap, uint64_t *count, uint32_t key, const uint64_t *words,
                              size_t n_words, lfa_error *err);

#endif
