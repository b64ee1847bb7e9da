/* remap.c: one field's state across a compaction group (lfa/remap.h).
 * Implements FA-REMAP-1 and FA-REMAP-2 for the reference compaction
 * (mutate_files.c), so that FA-REWRITE-1 holds for the states it commits.
 *
 * In order: the group's shape; the plain loop of 05§5, row by row, which
 * is the reference (the verifier maps rows with it, and the fast remap is
 * tested against it); then the fast remap: 64 rows at a time, a filled bit
 * array as a cell, the new fragments as a sink that fills one after the
 * other, and the group.
 */
#include "lfa/remap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/bits.h"
#include "lfa/roaring_layout.h"

enum {
  PAD = 16,                                /* bit arrays carry 16 spare zero bytes: u64 loads and stores never run off */
  CHUNK_BYTES = LFA_ROARING_BITSET_BYTES   /* one Roaring container spans 2^16 bits */
};

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

/* ---- 64 rows at a time ------------------------------------------------------------------ */

/* Little-endian u64 at any byte (compilers make this one load). */
static uint64_t load64(const uint8_t *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
         (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static void store64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t low_bits(unsigned n) { return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1; }

/* ORs v's n (1..64) bits, nothing above them, into dst at bit `at` (dst's
 * bits there are 0, and PAD spare bytes follow them). */
static void write_bits(uint8_t *dst, uint64_t at, uint64_t v, unsigned n) {
  uint8_t *d = dst + at / 8;
  unsigned shift = (unsigned)(at % 8);
  store64(d, load64(d) | (v << shift));
  if (shift > 0 && n + shift > 64) store64(d + 8, load64(d + 8) | (v >> (64 - shift)));
}

/* [FA-REMAP-1] A word's bits at its live offsets, in order, packed down:
 * each deleted offset is cut out, the highest first so that the lower ones
 * stay where they are. */
static uint64_t squeeze(uint64_t bits, uint64_t deleted) {
  while (deleted != 0) {
    uint64_t below = low_bits(63u - (unsigned)__builtin_clzll(deleted));
    bits = (bits & below) | ((bits >> 1) & ~below);
    deleted &= below;
  }
  return bits;
}

/* ---- a filled bit array as a cell --------------------------------------------------------- */

static uint32_t popcount_chunk(const uint8_t *bits, size_t len) {
  uint32_t n = 0;
  for (size_t i = 0; i < len; i += 8) n += (uint32_t)__builtin_popcountll(load64(bits + i));
  return n;
}

/* The values of one chunk, ascending, as u16 little-endian. */
static void write_array(uint8_t *out, const uint8_t *bits, size_t len) {
  for (size_t i = 0; i < len; i += 8)
    for (uint64_t w = load64(bits + i); w != 0; w &= w - 1) {
      uint32_t v = (uint32_t)(i * 8) + (uint32_t)__builtin_ctzll(w);
      out[0] = (uint8_t)v, out[1] = (uint8_t)(v >> 8), out += 2;
    }
}

/* The portable no-run bytes (lfa/roaring_layout.h) of the chunks with a
 * value, each as an array or a bitset as its cardinality says. */
static void write_portable(uint8_t *out, const uint8_t *bits, size_t len, const uint32_t *cards, size_t chunks,
                           uint32_t containers) {
  lfa_roaring_writer w;
  lfa_roaring_writer_start(&w, out, containers);
  for (size_t c = 0; c < chunks; c++) {
    if (cards[c] == 0) continue;
    size_t at = c * CHUNK_BYTES, span = len - at < CHUNK_BYTES ? len - at : CHUNK_BYTES;
    uint8_t *body = lfa_roaring_writer_container(&w, (uint32_t)c, cards[c]);
    if (cards[c] <= LFA_ROARING_ARRAY_MAX) {
      write_array(body, bits + at, span);
    } else { /* a bitset's bytes are the chunk's bits, LSB-first */
      memcpy(body, bits + at, span);
      memset(body + span, 0, CHUNK_BYTES - span);
    }
  }
}

/* The canonical cell of a fragment whose bits are `bits` [0, n_bits), the
 * bytes after them zero up to a multiple of 8: NONE, ALL, or a PARTIAL
 * built from its portable bytes in one copy. */
static lfa_status to_cell(lfa_cell *out, const uint8_t *bits, uint64_t n_bits, lfa_error *err) {
  size_t len = (size_t)((n_bits + 63) / 64 * 8), chunks = (len + CHUNK_BYTES - 1) / CHUNK_BYTES;
  uint32_t *cards = malloc(chunks * sizeof *cards);
  if (cards == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  uint64_t total = 0, body = 0;
  uint32_t containers = 0;
  for (size_t c = 0; c < chunks; c++) {
    size_t at = c * CHUNK_BYTES;
    cards[c] = popcount_chunk(bits + at, len - at < CHUNK_BYTES ? len - at : CHUNK_BYTES);
    total += cards[c];
    containers += cards[c] > 0;
    body += cards[c] == 0 ? 0 : lfa_roaring_body_bytes(cards[c]);
  }
  uint64_t bytes = lfa_roaring_no_run_bytes(containers, body);
  *out = (lfa_cell){total == 0 ? LFA_CELL_NONE : total == n_bits ? LFA_CELL_ALL : LFA_CELL_PARTIAL, NULL};
  uint8_t *portable = out->kind == LFA_CELL_PARTIAL ? malloc((size_t)bytes) : NULL;
  lfa_status st = LFA_OK;
  if (out->kind == LFA_CELL_PARTIAL && portable == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (portable != NULL) {
    write_portable(portable, bits, len, cards, chunks, containers);
    out->rows = roaring_bitmap_portable_deserialize_safe((const char *)portable, (size_t)bytes);
    if (out->rows == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot build a bitmap of %llu values",
                                         (unsigned long long)total);
  }
  if (st != LFA_OK) out->kind = LFA_CELL_NONE;
  free(portable);
  free(cards);
  return st;
}

/* ---- the new fragments, filled one after the other -------------------------------------- */

typedef struct sink {
  lfa_cell *out;
  const uint64_t *rows;
  size_t n;
  size_t k;      /* the new fragment being filled */
  uint64_t pos;  /* its rows filled so far */
  uint8_t *bits; /* its bits, PAD spare bytes, zero where not yet filled */
} sink;

static lfa_status sink_finish(sink *s, lfa_error *err) {
  lfa_status st = to_cell(&s->out[s->k], s->bits, s->rows[s->k], err);
  memset(s->bits, 0, (size_t)(s->rows[s->k] / 8) + PAD);
  s->k++, s->pos = 0;
  return st;
}

typedef enum fill { ZEROS, ONES, BITS } fill;

/* The next n live rows of the group: unassigned, assigned, or (BITS, n <=
 * 64) the low n bits of v. A new fragment that fills up becomes its cell
 * and the next one starts (check_shape made the totals equal). */
static lfa_status sink_put(sink *s, fill how, uint64_t v, uint64_t n, lfa_error *err) {
  lfa_status st = LFA_OK;
  while (st == LFA_OK && n > 0) {
    uint64_t room = s->rows[s->k] - s->pos, take = n < room ? n : room;
    if (how == ONES) lfa_bits_set_range(s->bits, s->pos, take);
    if (how == BITS && v != 0) write_bits(s->bits, s->pos, v & low_bits((unsigned)take), (unsigned)take);
    if (how == BITS) v = take < 64 ? v >> take : 0;
    s->pos += take, n -= take;
    if (s->pos == s->rows[s->k]) st = sink_finish(s, err);
  }
  return st;
}

/* ---- the group ------------------------------------------------------------------------------- */

/* [FA-REMAP-1] A partial old fragment, 64 offsets at a time: the bits of
 * its live offsets, in order (deleted ones squeezed out). */
static lfa_status put_partial(sink *s, uint64_t rows, const uint8_t *bits, const uint8_t *gone, lfa_error *err) {
  lfa_status st = LFA_OK;
  for (uint64_t at = 0; st == LFA_OK && at < rows; at += 64) {
    unsigned valid = rows - at < 64 ? (unsigned)(rows - at) : 64;
    uint64_t word = load64(bits + at / 8) & low_bits(valid);
    uint64_t deleted = gone != NULL ? load64(gone + at / 8) & low_bits(valid) : 0;
    uint64_t live = valid - (unsigned)__builtin_popcountll(deleted);
    if (deleted != 0 && word != 0) word = squeeze(word, deleted);
    st = sink_put(s, word != 0 ? BITS : ZEROS, word, live, err);
  }
  return st;
}

/* Bit arrays for one old fragment: its assigned and its deleted offsets. */
typedef struct scratch {
  uint8_t *bits, *gone;
} scratch;

/* One old fragment into the stream. ALL and NONE need no bits: their live
 * rows are assigned (or not) wherever they land. */
static lfa_status put_old(sink *s, const lfa_remap_source *src, const scratch *x, lfa_error *err) {
  const lfa_fragment *f = src->fragment;
  if (src->cell->kind == LFA_CELL_NONE) return sink_put(s, ZEROS, 0, lfa_fragment_live_rows(f), err);
  if (src->cell->kind == LFA_CELL_ALL) return sink_put(s, ONES, 0, lfa_fragment_live_rows(f), err);
  size_t len = (size_t)(f->physical_rows / 8 + (f->physical_rows % 8 != 0));
  bool deletions = f->deleted != NULL && !roaring_bitmap_is_empty(f->deleted);
  lfa_status st = lfa_bits_from_bitmap(x->bits, len, f->physical_rows, src->cell->rows, err);
  if (st == LFA_OK && deletions) st = lfa_bits_from_bitmap(x->gone, len, f->physical_rows, f->deleted, err);
  return st == LFA_OK ? put_partial(s, f->physical_rows, x->bits, deletions ? x->gone : NULL, err) : st;
}

lfa_status lfa_remap_group(lfa_cell *out, const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old,
                           size_t n_old, lfa_error *err) {
  for (size_t k = 0; k < n_new; k++) out[k] = (lfa_cell){LFA_CELL_NONE, NULL};
  lfa_status st = check_shape(new_rows, n_new, old, n_old, err);
  if (st != LFA_OK) return st;
  uint64_t most_new = 0, most_old = 0;
  for (size_t k = 0; k < n_new; k++) most_new = new_rows[k] > most_new ? new_rows[k] : most_new;
  for (size_t i = 0; i < n_old; i++)
    if (old[i].cell->kind == LFA_CELL_PARTIAL && old[i].fragment->physical_rows > most_old)
      most_old = old[i].fragment->physical_rows;
  sink s = {out, new_rows, n_new, 0, 0, calloc((size_t)(most_new / 8) + PAD, 1)};
  scratch x = {NULL, NULL};
  if (most_old > 0) x.bits = calloc((size_t)(most_old / 8) + PAD, 1), x.gone = calloc((size_t)(most_old / 8) + PAD, 1);
  if (s.bits == NULL || (most_old > 0 && (x.bits == NULL || x.gone == NULL)))
    st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < n_old; i++) st = put_old(&s, &old[i], &x, err);
  free(s.bits);
  free(x.bits);
  free(x.gone);
  for (size_t k = 0; st != LFA_OK && k < n_new; k++) {
    lfa_bitmap_free(out[k].rows);
    out[k] = (lfa_cell){LFA_CELL_NONE, NULL};
  }
  return st;
}
