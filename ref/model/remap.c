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

/* ---- the new fragments, a chunk at a time ------------------------------------------------ */

enum { CHUNK_BITS = CHUNK_BYTES * 8, CHUNK_WORDS = CHUNK_BYTES / 8, BUF_WORDS = 2 * CHUNK_WORDS + 2 };

static uint64_t low_bits(unsigned n) { return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* [FA-REMAP-1] The group's live bits stream into the new fragments in
 * order, one chunk of 2^16 rows (one container) of a new fragment at a
 * time: `buf` holds the chunk being filled from its first bit, and at most
 * a chunk more, the overflow of the last old chunk put, which moves down
 * to start the next. A full chunk becomes its container straight from the
 * words, so no new fragment is ever a whole bit array, and a chunk that
 * only zeros were put into costs nothing: the state's absent containers,
 * most of a clustered or sparse one, are never written or read. */
typedef struct sink {
  lfa_cell *out;
  const uint64_t *rows;
  size_t n;
  size_t k;             /* the new fragment being filled */
  uint64_t done;        /* its rows already in containers: whole chunks */
  roaring_bitmap_t *bm; /* its containers so far */
  uint64_t count;       /* their values */
  uint64_t pos;         /* bits in buf: the chunk's rows so far, then any overflow */
  bool any;             /* buf[0 .. pos) may hold a set bit */
  size_t dirty;         /* words of buf from here on are 0; below, the bits from pos on are undefined */
  uint64_t *buf;        /* BUF_WORDS */
} sink;

/* The rows of the chunk being filled: a whole chunk, or the fragment's last. */
static uint64_t chunk_rows(const sink *s) { return min_u64(CHUNK_BITS, s->rows[s->k] - s->done); }

static lfa_status start_fragment(sink *s, lfa_error *err) {
  s->done = 0, s->count = 0;
  s->bm = roaring_bitmap_create_with_capacity((uint32_t)((s->rows[s->k] + CHUNK_BITS - 1) / CHUNK_BITS));
  return s->bm != NULL ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
}

/* [FA-REWRITE-1] The filled fragment as its canonical cell: NONE, ALL, or
 * the PARTIAL bitmap of its containers. */
static void end_fragment(sink *s) {
  uint64_t rows = s->rows[s->k];
  if (s->count == 0 || s->count == rows) {
    lfa_bitmap_free(s->bm);
    s->out[s->k] = (lfa_cell){s->count == 0 ? LFA_CELL_NONE : LFA_CELL_ALL, NULL};
  } else {
    s->out[s->k] = (lfa_cell){LFA_CELL_PARTIAL, s->bm};
  }
  s->bm = NULL;
}

/* Bits [from, from + n) of buf moved down to its start (in place: each
 * word is read before it is written over). */
static void move_down(uint64_t *buf, uint64_t from, uint64_t n) {
  size_t words = (size_t)((n + 63) / 64), i0 = (size_t)(from / 64);
  unsigned shift = (unsigned)(from % 64);
  for (size_t i = 0; i < words; i++)
    buf[i] = shift == 0 ? buf[i0 + i] : buf[i0 + i] >> shift | buf[i0 + i + 1] << (64 - shift);
}

/* Every full chunk becomes its container (none if only zeros went in),
 * every full fragment its cell; the overflow starts the next chunk. */
static lfa_status sink_drain(sink *s, lfa_error *err) {
  lfa_status st = LFA_OK;
  while (st == LFA_OK && s->k < s->n && s->pos >= chunk_rows(s)) {
    uint64_t rows = chunk_rows(s), over = s->pos - rows, last = s->buf[rows / 64];
    if (rows % 64 != 0) s->buf[rows / 64] &= low_bits((unsigned)(rows % 64)); /* the overflow's first bits, for now */
    if (s->any) st = lfa_bits_add_chunk(s->bm, &s->count, (uint32_t)(s->done / CHUNK_BITS), s->buf, (size_t)((rows + 63) / 64), err);
    s->buf[rows / 64] = last;
    move_down(s->buf, rows, over);
    s->pos = over, s->any = over > 0, s->done += rows;
    if (st == LFA_OK && s->done == s->rows[s->k]) {
      end_fragment(s);
      if (++s->k < s->n) st = start_fragment(s, err);
    }
  }
  return st;
}

/* Records that buf's words below pos's next two may now be written. */
static void touched(sink *s) {
  size_t end = (size_t)(s->pos / 64) + 2;
  if (end > s->dirty) s->dirty = end;
}

/* The next n live rows of the group, all unassigned or all assigned: zeros
 * are written only over words that may not be 0 already. */
static lfa_status sink_fill(sink *s, bool assigned, uint64_t n, lfa_error *err) {
  lfa_status st = LFA_OK;
  while (st == LFA_OK && n > 0 && s->k < s->n) {
    uint64_t take = min_u64(n, chunk_rows(s) - s->pos), at = s->pos;
    if (assigned) {
      lfa_bits_append_fill(s->buf, &s->pos, true, take);
      s->any = true, touched(s);
    } else {
      if (at < 64 * (uint64_t)s->dirty) lfa_bits_append_fill(s->buf, &at, false, min_u64(take, 64 * (uint64_t)s->dirty - at));
      s->pos += take;
    }
    n -= take;
    st = sink_drain(s, err);
  }
  return st;
}

/* The words of a uniform run: at least this many words all 0 or all 1. */
enum { RUN_WORDS = 32 };

/* How many of words[0 .. n) from the first are equal to it. */
static size_t run_length(const uint64_t *words, size_t n) {
  size_t j = 1;
  while (j < n && words[j] == words[0]) j++;
  return j;
}

/* Where words[0 .. n) first has a uniform run of RUN_WORDS words (n if nowhere). */
static size_t next_run(const uint64_t *words, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t len = words[i] == 0 || words[i] == ~UINT64_C(0) ? run_length(words + i, n - i) : 1;
    if (len >= RUN_WORDS) return i;
    i += len; /* a shorter run: none starts inside it either */
  }
  return n;
}

/* The live offsets among 64 * n offsets whose deletion words are `deleted` (NULL: none). */
static uint64_t live_in(const uint64_t *deleted, size_t n) {
  return 64 * (uint64_t)n - (deleted != NULL ? lfa_bits_count(deleted, 64 * (uint64_t)n) : 0);
}

/* Old words compacted (deleted NULL: none), appended after pos (< a chunk,
 * as after a drain); n_bits <= a chunk. */
static lfa_status sink_words(sink *s, const uint64_t *bits, const uint64_t *deleted, uint64_t n_bits, lfa_error *err) {
  lfa_bits_append_live(s->buf, &s->pos, bits, deleted, n_bits);
  s->any = true, touched(s);
  return sink_drain(s, err);
}

/* The live bits of one old chunk (n_bits <= a chunk; deleted NULL: none).
 * A run of state words all 0 or all 1, as a clustered state's are, is that
 * many unassigned or assigned live rows, the deletion words only counted;
 * the words between are compacted word by word. */
static lfa_status sink_live(sink *s, const uint64_t *bits, const uint64_t *deleted, uint64_t n_bits, lfa_error *err) {
  size_t words = (size_t)(n_bits / 64);
  lfa_status st = LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < words;) {
    size_t mixed = next_run(bits + i, words - i);
    if (mixed > 0) st = sink_words(s, bits + i, deleted != NULL ? deleted + i : NULL, 64 * (uint64_t)mixed, err);
    i += mixed;
    if (st != LFA_OK || i == words) break;
    size_t run = run_length(bits + i, words - i);
    st = sink_fill(s, bits[i] != 0, live_in(deleted != NULL ? deleted + i : NULL, run), err);
    i += run;
  }
  if (st == LFA_OK && n_bits % 64 != 0)
    st = sink_words(s, bits + words, deleted != NULL ? deleted + words : NULL, n_bits % 64, err);
  return st;
}

/* ---- the group ------------------------------------------------------------------------------- */

/* [FA-REMAP-1] A partial old fragment, one chunk of 2^16 offsets at a
 * time, the state and deletion words read in place, deleted offsets
 * compacted out word by word (lfa/bits.h). A chunk where the state has no
 * container is that many unassigned live rows, counted from the deletion
 * bitmap's container, its bits never read. */
static lfa_status put_partial(sink *s, const lfa_remap_source *src, uint64_t *scratch, lfa_error *err) {
  const lfa_fragment *f = src->fragment;
  lfa_bits_chunks bits, gone;
  lfa_bits_chunks_start(&bits, src->cell->rows), lfa_bits_chunks_start(&gone, f->deleted);
  lfa_status st = LFA_OK;
  for (uint64_t at = 0; st == LFA_OK && at < f->physical_rows; at += CHUNK_BITS) {
    uint32_t key = (uint32_t)(at / CHUNK_BITS);
    uint64_t n = min_u64(f->physical_rows - at, CHUNK_BITS);
    const uint64_t *b = lfa_bits_chunk(&bits, key, scratch);
    if (b == NULL) st = sink_fill(s, false, n - lfa_bits_chunk_count(&gone, key, n), err);
    else st = sink_live(s, b, lfa_bits_chunk(&gone, key, scratch + CHUNK_WORDS), n, err);
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
  sink s = {out, new_rows, n_new, 0, 0, NULL, 0, 0, false, BUF_WORDS, malloc(BUF_WORDS * 8)};
  uint64_t *scratch = malloc(2 * (size_t)CHUNK_BYTES);
  if (s.buf == NULL || scratch == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK && n_new > 0) st = start_fragment(&s, err);
  for (size_t i = 0; st == LFA_OK && i < n_old; i++) st = put_old(&s, &old[i], scratch, err);
  lfa_bitmap_free(s.bm); /* a fragment left unfilled: only on failure */
  free(s.buf);
  free(scratch);
  for (size_t k = 0; st != LFA_OK && k < n_new; k++) {
    lfa_bitmap_free(out[k].rows);
    out[k] = (lfa_cell){LFA_CELL_NONE, NULL};
  }
  return st;
}
