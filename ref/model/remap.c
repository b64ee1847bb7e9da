/* remap.c: one field's state across a compaction group (lfa/remap.h).
 * Implements FA-REMAP-1 and FA-REMAP-2 for the reference compaction
 * (mutate_files.c), so that FA-REWRITE-1 holds for the states it commits.
 *
 * In order: the group's shape; the plain loop of 05§5, row by row, which
 * is the reference (the verifier maps rows with it, and the fast remap is
 * tested against it); then the fast remap: a filled bit array as a cell,
 * the new fragments as a sink that fills one after the other, and the
 * group, its containers' words read in place and compacted a word at a
 * time (lfa/bits.h), so no bitmap is serialized or parsed on the way.
 */
#include "lfa/remap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/bits.h"
#include "lfa/roaring_layout.h"

enum { CHUNK_BYTES = LFA_ROARING_BITSET_BYTES }; /* one Roaring container spans 2^16 bits */

static const uint64_t ROWS_MAX = (uint64_t)UINT32_MAX + 1; /* offsets are 32-bit */

/* ---- the group's shape ------------------------------------------------------------- */

/* Old fragment i's live rows, added to *live. Its offsets are 32-bit, so
 * it has at most 2^32 rows. */
static lfa_status add_old(uint64_t *live, const lfa_fragment *f, size_t i, lfa_error *err) {
  if (f->physical_rows > ROWS_MAX) return lfa_fail(err, LFA_ERR_USAGE, NULL, "old fragment %zu has more than 2^32 rows", i);
  *live += lfa_fragment_live_rows(f);
  return LFA_OK;
}

/* [FA-REMAP-2] `live` old rows fill the new fragments exactly; each new
 * fragment has `least` .. 2^32 rows. */
static lfa_status check_new(uint64_t live, const uint64_t *new_rows, size_t n_new, uint64_t least, lfa_error *err) {
  uint64_t rows = 0;
  for (size_t k = 0; k < n_new; k++) {
    if (new_rows[k] < least || new_rows[k] > ROWS_MAX)
      return lfa_fail(err, LFA_ERR_USAGE, NULL, "new fragment %zu has %llu rows (%llu .. 2^32)", k,
                      (unsigned long long)new_rows[k], (unsigned long long)least);
    rows += new_rows[k];
  }
  if (live != rows)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-REMAP-2", "the old fragments have %llu live rows, the new ones %llu rows",
                    (unsigned long long)live, (unsigned long long)rows);
  return LFA_OK;
}

/* The shape lfa_remap_group requires: new fragments of 1 .. 2^32 rows. */
static lfa_status check_shape(const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old, size_t n_old,
                              lfa_error *err) {
  uint64_t live = 0;
  lfa_status st = LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < n_old; i++) st = add_old(&live, old[i].fragment, i, err);
  return st == LFA_OK ? check_new(live, new_rows, n_new, 1, err) : st;
}

/* ---- the plain loop (the reference) ------------------------------------------------ */

lfa_status lfa_remap_rows(const uint64_t *new_rows, size_t n_new, const lfa_fragment *const *old, size_t n_old,
                          lfa_remap_visit visit, void *ctx, lfa_error *err) {
  uint64_t live = 0;
  lfa_status st = LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < n_old; i++) st = add_old(&live, old[i], i, err);
  if (st == LFA_OK) st = check_new(live, new_rows, n_new, 0, err);
  if (st != LFA_OK) return st;
  /* [FA-REMAP-1] old rows in group order, offsets ascending, deleted ones
   * skipped; new rows fragment by fragment. The totals are equal, so a new
   * fragment with room is always found for the next live old row. */
  lfa_remap_row row = {0, 0, 0, 0};
  for (row.old = 0; row.old < n_old; row.old++)
    for (row.old_offset = 0; row.old_offset < old[row.old]->physical_rows; row.old_offset++) {
      if (!lfa_fragment_is_live(old[row.old], (uint32_t)row.old_offset)) continue;
      while (row.new_offset == new_rows[row.new_fragment]) row.new_fragment++, row.new_offset = 0;
      visit(ctx, &row);
      row.new_offset++;
    }
  return LFA_OK;
}

typedef struct carry {
  const lfa_remap_source *old;
  lfa_cell *out; /* PARTIAL cells being filled */
} carry;

/* [FA-REWRITE-1] a moved row keeps its state. */
static void carry_state(void *ctx, const lfa_remap_row *row) {
  const carry *c = ctx;
  if (lfa_cell_contains(c->old[row->old].cell, (uint32_t)row->old_offset))
    roaring_bitmap_add(c->out[row->new_fragment].rows, (uint32_t)row->new_offset);
}

lfa_status lfa_remap_group_plain(lfa_cell *out, const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old,
                                 size_t n_old, lfa_error *err) {
  for (size_t k = 0; k < n_new; k++) out[k] = (lfa_cell){LFA_CELL_NONE, NULL};
  lfa_status st = check_shape(new_rows, n_new, old, n_old, err);
  if (st != LFA_OK) return st;
  const lfa_fragment **frags = malloc((n_old + 1) * sizeof *frags);
  bool ok = frags != NULL;
  for (size_t i = 0; ok && i < n_old; i++) frags[i] = old[i].fragment;
  for (size_t k = 0; ok && k < n_new; k++) ok = (out[k] = (lfa_cell){LFA_CELL_PARTIAL, roaring_bitmap_create()}).rows != NULL;
  st = ok ? lfa_remap_rows(new_rows, n_new, frags, n_old, carry_state, &(carry){old, out}, err)
          : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; k < n_new; k++) {
    if (st == LFA_OK) lfa_cell_canonicalize(&out[k], new_rows[k]);
    else lfa_bitmap_free(out[k].rows), out[k] = (lfa_cell){LFA_CELL_NONE, NULL};
  }
  free(frags);
  return st;
}

/* ---- a filled bit array as a cell ------------------------------------------------------ */

static uint64_t low_bits(unsigned n) { return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1; }

/* The canonical cell of a fragment whose bits are words[0 .. n_bits), the
 * bits after them 0 to a whole word: NONE, ALL, or a PARTIAL whose
 * containers are built from the words directly (no bytes in between). The
 * bitmap is built first and counted on the way: only a full one, ALL, is
 * built for nothing. */
static lfa_status to_cell(lfa_cell *out, const uint64_t *words, uint64_t n_bits, lfa_error *err) {
  uint64_t total = 0;
  *out = (lfa_cell){LFA_CELL_PARTIAL, NULL};
  lfa_status st = lfa_bits_to_bitmap(&out->rows, &total, words, n_bits, err);
  if (st != LFA_OK || total == 0 || total == n_bits) {
    lfa_bitmap_free(out->rows);
    *out = (lfa_cell){st == LFA_OK && total == n_bits ? LFA_CELL_ALL : LFA_CELL_NONE, NULL};
  }
  return st;
}

/* ---- the new fragments, filled one after the other -------------------------------------- */

/* The group's live bits stream into `bits`, the new fragment being filled
 * at its start. A chunk of old bits may run past that fragment's end (by
 * less than a chunk): the overflow moves down to start the next one. */
typedef struct sink {
  lfa_cell *out;
  const uint64_t *rows;
  size_t n;
  size_t k;        /* the new fragment being filled */
  uint64_t pos;    /* bits in `bits`: its rows so far, and any overflow */
  uint64_t *bits;  /* the most rows of a new fragment + a chunk + 2 words; bits from pos on undefined */
  uint64_t *spare; /* a chunk + 2 words: the overflow, moved */
} sink;

/* Bits [from, from + n) of `src` to the start of `dst` (n <= one chunk). */
static void take_bits(uint64_t *dst, const uint64_t *src, uint64_t from, uint64_t n) {
  size_t words = (size_t)((n + 63) / 64), i0 = (size_t)(from / 64);
  unsigned shift = (unsigned)(from % 64);
  for (size_t i = 0; i < words; i++)
    dst[i] = shift == 0 ? src[i0 + i] : src[i0 + i] >> shift | src[i0 + i + 1] << (64 - shift);
  if (words > 0) dst[words - 1] &= low_bits((unsigned)(n - 64 * (uint64_t)(words - 1)));
}

/* Every full new fragment becomes its cell; the overflow starts the next. */
static lfa_status sink_drain(sink *s, lfa_error *err) {
  lfa_status st = LFA_OK;
  while (st == LFA_OK && s->k < s->n && s->pos >= s->rows[s->k]) {
    uint64_t rows = s->rows[s->k], over = s->pos - rows;
    take_bits(s->spare, s->bits, rows, over);
    if (rows % 64 != 0) s->bits[rows / 64] &= low_bits((unsigned)(rows % 64));
    st = to_cell(&s->out[s->k], s->bits, rows, err);
    memcpy(s->bits, s->spare, (size_t)((over + 63) / 64) * 8);
    s->pos = over, s->k++;
  }
  return st;
}

/* The next n live rows of the group, all unassigned or all assigned. */
static lfa_status sink_fill(sink *s, bool assigned, uint64_t n, lfa_error *err) {
  lfa_status st = LFA_OK;
  while (st == LFA_OK && n > 0 && s->k < s->n) {
    uint64_t room = s->rows[s->k] - s->pos, take = n < room ? n : room;
    lfa_bits_append_fill(s->bits, &s->pos, assigned, take);
    n -= take;
    st = sink_drain(s, err);
  }
  return st;
}

/* ---- the group ------------------------------------------------------------------------------- */

enum { CHUNK_BITS = CHUNK_BYTES * 8, CHUNK_WORDS = CHUNK_BYTES / 8 };

/* [FA-REMAP-1] A partial old fragment, one chunk of 2^16 offsets at a
 * time, the state and deletion words read in place: the bits of its live
 * offsets, in order, deleted ones compacted out word by word. */
static lfa_status put_partial(sink *s, const lfa_remap_source *src, uint64_t *scratch, lfa_error *err) {
  const lfa_fragment *f = src->fragment;
  lfa_bits_chunks bits, gone;
  lfa_bits_chunks_start(&bits, src->cell->rows), lfa_bits_chunks_start(&gone, f->deleted);
  lfa_status st = LFA_OK;
  for (uint64_t at = 0; st == LFA_OK && at < f->physical_rows; at += CHUNK_BITS) {
    uint32_t key = (uint32_t)(at / CHUNK_BITS);
    uint64_t n = f->physical_rows - at < CHUNK_BITS ? f->physical_rows - at : CHUNK_BITS;
    const uint64_t *b = lfa_bits_chunk(&bits, key, scratch), *d = lfa_bits_chunk(&gone, key, scratch + CHUNK_WORDS);
    lfa_bits_append_live(s->bits, &s->pos, b, d, n);
    st = sink_drain(s, err);
  }
  return st;
}

/* One old fragment into the stream. ALL and NONE need no bits: their live
 * rows are assigned (or not) wherever they land. */
static lfa_status put_old(sink *s, const lfa_remap_source *src, uint64_t *scratch, lfa_error *err) {
  const lfa_fragment *f = src->fragment;
  if (src->cell->kind != LFA_CELL_PARTIAL)
    return sink_fill(s, src->cell->kind == LFA_CELL_ALL, lfa_fragment_live_rows(f), err);
  return put_partial(s, src, scratch, err);
}

lfa_status lfa_remap_group(lfa_cell *out, const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old,
                           size_t n_old, lfa_error *err) {
  for (size_t k = 0; k < n_new; k++) out[k] = (lfa_cell){LFA_CELL_NONE, NULL};
  lfa_status st = check_shape(new_rows, n_new, old, n_old, err);
  if (st != LFA_OK) return st;
  uint64_t most_new = 0;
  for (size_t k = 0; k < n_new; k++) most_new = new_rows[k] > most_new ? new_rows[k] : most_new;
  sink s = {out, new_rows, n_new, 0, 0, calloc((size_t)((most_new + CHUNK_BITS) / 64) + 2, 8),
            calloc(CHUNK_WORDS + 2, 8)};
  uint64_t *scratch = malloc(2 * (size_t)CHUNK_BYTES);
  if (s.bits == NULL || s.spare == NULL || scratch == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < n_old; i++) st = put_old(&s, &old[i], scratch, err);
  free(s.bits);
  free(s.spare);
  free(scratch);
  for (size_t k = 0; st != LFA_OK && k < n_new; k++) {
    lfa_bitmap_free(out[k].rows);
    out[k] = (lfa_cell){LFA_CELL_NONE, NULL};
  }
  return st;
}
