/* bits.c: bit arrays from bitmaps (lfa/bits.h), container by container.
 *
 * In order: the containers of a bitmap (read in place), bit ranges, a
 * bitmap into or out of a bit array, chunks of words, the live bits of a
 * word (FA-REMAP-1), and a bit array back into a bitmap.
 */
#include "lfa/bits.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bytes.h"
#include "lfa/roaring_layout.h"

enum { CHUNK_BYTES = LFA_ROARING_BITSET_BYTES }; /* one container spans 2^16 bits */

/* ---- the containers of a bitmap, in place --------------------------------------- */

/* CRoaring 0.2.66 keeps a container's body in memory in the very layout its
 * portable serialization writes (lfa/roaring_layout.h) on a little-endian
 * machine: a bitset's 1024 u64 words, an array's ascending u16 values, a
 * run container's {u16 start, u16 length-1} pairs. So the containers are
 * read where they are, through the structs its installed headers declare,
 * and a bitmap is never serialized to be read: the copy that cost as much
 * as the work itself. The version and byte order are checked at build
 * time: another layout would be a build failure, never a wrong bit. */
_Static_assert(ROARING_VERSION_MAJOR == 0 && ROARING_VERSION_MINOR == 2,
               "bits.c reads CRoaring 0.2's containers in place; check their layout before building on another");
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bits.c reads CRoaring's containers as their little-endian portable layout"
#endif

typedef lfa_roaring_container container;

/* A bitmap's containers and the next one to read. */
typedef struct walker {
  const roaring_array_t *ra;
  int32_t next;
} walker;

static void walker_open(walker *w, const roaring_bitmap_t *bitmap) { *w = (walker){&bitmap->high_low_container, 0}; }

/* Container i as the layout module describes one; a shared container (a
 * copy-on-write bitmap's) is the one it wraps. */
static void container_at(container *k, const roaring_array_t *ra, int32_t i) {
  const void *c = ra->containers[i];
  uint8_t type = ra->typecodes[i];
  if (type == SHARED_CONTAINER_TYPE_CODE) {
    const shared_container_t *sc = c;
    c = sc->container, type = sc->typecode;
  }
  k->key = ra->keys[i];
  if (type == BITSET_CONTAINER_TYPE_CODE) {
    const bitset_container_t *bc = c;
    *k = (container){k->key, (uint32_t)bc->cardinality, LFA_ROARING_BITSET, CHUNK_BYTES / 8, (const uint8_t *)bc->array};
  } else if (type == ARRAY_CONTAINER_TYPE_CODE) {
    const array_container_t *ac = c;
    *k = (container){k->key, (uint32_t)ac->cardinality, LFA_ROARING_ARRAY, (uint32_t)ac->cardinality,
                     (const uint8_t *)ac->array};
  } else {
    const run_container_t *rc = c;
    *k = (container){k->key, 0, LFA_ROARING_RUNS, (uint32_t)rc->n_runs, (const uint8_t *)rc->runs};
  }
}

/* The next container, keys ascending; false after the last. */
static bool walker_next(container *k, walker *w) {
  if (w->next >= w->ra->size) return false;
  container_at(k, w->ra, w->next++);
  return true;
}

/* Little-endian u16 of a container (inline: it runs once per value). */
static uint32_t u16_at(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

/* ---- bit ranges ---------------------------------------------------------------- */

void lfa_bits_set_range(uint8_t *bits, uint64_t from, uint64_t n) {
  if (n == 0) return;
  uint64_t last_bit = from + n - 1;
  size_t first = (size_t)(from / 8), last = (size_t)(last_bit / 8);
  uint8_t head = (uint8_t)(0xFFu << (from % 8)), tail = (uint8_t)(0xFFu >> (7 - last_bit % 8));
  if (first == last) {
    bits[first] |= (uint8_t)(head & tail);
    return;
  }
  bits[first] |= head;
  memset(bits + first + 1, 0xFF, last - first - 1);
  bits[last] |= tail;
}

static void clear_range(uint8_t *bits, uint64_t from, uint64_t n) {
  if (n == 0) return;
  uint64_t last_bit = from + n - 1;
  size_t first = (size_t)(from / 8), last = (size_t)(last_bit / 8);
  uint8_t head = (uint8_t)(0xFFu << (from % 8)), tail = (uint8_t)(0xFFu >> (7 - last_bit % 8));
  if (first == last) {
    bits[first] &= (uint8_t)~(head & tail);
    return;
  }
  bits[first] &= (uint8_t)~head;
  memset(bits + first + 1, 0, last - first - 1);
  bits[last] &= (uint8_t)~tail;
}

/* Bits at or past n_bits in the last byte are 0. */
static void clear_tail(uint8_t *out, size_t out_len, uint64_t n_bits) {
  if (out_len > 0 && n_bits % 8 != 0) out[out_len - 1] &= (uint8_t)(0xFFu >> (8 - n_bits % 8));
}

/* ---- a bitmap into or out of a bit array --------------------------------------------- */

typedef enum bits_op { BITS_SET, BITS_CLEAR } bits_op;

/* out = bits & ~mask over len bytes (bits NULL: all ones; bits == out:
 * in place), 16 bytes at a time as one GNU vector (an SSE2 register on
 * x86-64, NEON on arm64): a bitset of deletions costs one AND per 128 rows. */
typedef uint64_t block16 __attribute__((vector_size(16)));
enum { PREFETCH_AHEAD = 2048 };

static void and_not(uint8_t *out, const uint8_t *bits, const uint8_t *mask, size_t len) {
  block16 ones = {~UINT64_C(0), ~UINT64_C(0)};
  size_t i = 0;
  for (; i + 16 <= len; i += 16) {
    if (i % 64 == 0) { /* a cache line: the next ones asked for early (they are on other pages than the output's) */
      __builtin_prefetch(mask + i + PREFETCH_AHEAD);
      if (bits != NULL) __builtin_prefetch(bits + i + PREFETCH_AHEAD);
    }
    block16 b = ones, m;
    if (bits != NULL) memcpy(&b, bits + i, 16);
    memcpy(&m, mask + i, 16);
    b &= ~m;
    memcpy(out + i, &b, 16);
  }
  for (; i < len; i++) out[i] = (uint8_t)((bits != NULL ? bits[i] : 0xFF) & ~mask[i]);
}

/* How many of an array container's values are below n (ascending: those
 * at or past it are the last ones). */
static uint32_t values_below(const container *k, uint64_t n) {
  uint32_t c = k->count;
  while (c > 0 && u16_at(k->data + 2 * (c - 1)) >= n) c--;
  return c;
}

/* Bits of o at an array's first n values set (those where the deletions'
 * bitset `gone` has a bit left out; NULL: none), or cleared: the loops that
 * one value costs a few instructions in (offsets within the chunk, no
 * 64-bit base added per value). Beside a bitset of deletions a sparse state
 * costs its own values; the deletions' 8 KiB are never read through. */
static void set_values(uint8_t *o, const uint8_t *values, uint32_t n, const uint8_t *gone) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = u16_at(values + 2 * i);
    uint8_t live = gone != NULL ? (uint8_t)~gone[v / 8] : 0xFF;
    o[v / 8] |= (uint8_t)(live & (1u << (v % 8)));
  }
}
static void clear_values(uint8_t *o, const uint8_t *values, uint32_t n) {
  static const uint8_t keep[8] = {0xFE, 0xFD, 0xFB, 0xF7, 0xEF, 0xDF, 0xBF, 0x7F}; /* ~(1 << bit), looked up */
  for (const uint8_t *p = values, *end = values + 2 * (size_t)n; p != end; p += 2) {
    uint32_t v = u16_at(p);
    o[v / 8] &= keep[v % 8];
  }
}

/* Sets or clears the values of one container, those below n_bits. For
 * BITS_SET the container's region must be zero beforehand. */
static void apply_container(uint8_t *out, size_t out_len, uint64_t n_bits, const container *k, bits_op op) {
  uint64_t base = (uint64_t)k->key << 16;
  size_t at = (size_t)(base / 8);
  if (base >= n_bits || at >= out_len) return;
  if (k->kind == LFA_ROARING_BITSET) { /* its bytes are this region's bits, LSB-first */
    size_t span = out_len - at < CHUNK_BYTES ? out_len - at : CHUNK_BYTES;
    if (op == BITS_SET) memcpy(out + at, k->data, span);
    else
      and_not(out + at, out + at, k->data, span);
  } else if (k->kind == LFA_ROARING_ARRAY) {
    uint32_t n = values_below(k, n_bits - base);
    if (op == BITS_SET) set_values(out + at, k->data, n, NULL);
    else clear_values(out + at, k->data, n);
  } else {
    for (uint32_t i = 0; i < k->count; i++) {
      uint64_t from = base + u16_at(k->data + 4 * i), n = (uint64_t)u16_at(k->data + 4 * i + 2) + 1;
      if (from >= n_bits) break;
      if (from + n > n_bits) n = n_bits - from;
      if (op == BITS_SET) lfa_bits_set_range(out, from, n);
      else clear_range(out, from, n);
    }
  }
}

lfa_status lfa_bits_check_len(size_t out_len, uint64_t n_bits, lfa_error *err) {
  uint64_t need = n_bits / 8 + (n_bits % 8 != 0);
  if (out_len != need)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%llu bits need %llu bytes, the output has %zu",
                    (unsigned long long)n_bits, (unsigned long long)need, out_len);
  return LFA_OK;
}

/* One pass over the containers, keys ascending: the gap before each
 * container is zeroed, a bitset container is copied over its region, an
 * array or run container zeroes its region and sets its values; so each
 * byte of `out` is written once or twice, never read first. */
lfa_status lfa_bits_from_bitmap(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                                lfa_error *err) {
  lfa_status st = lfa_bits_check_len(out_len, n_bits, err);
  if (st != LFA_OK || out_len == 0) return st;
  walker w;
  walker_open(&w, bitmap);
  size_t done = 0; /* out[0 .. done) is final */
  container k;
  while (walker_next(&k, &w)) {
    size_t at = (size_t)(((uint64_t)k.key << 16) / 8);
    if (at >= out_len) break; /* every later value is past n_bits */
    size_t end = out_len - at < CHUNK_BYTES ? out_len : at + CHUNK_BYTES;
    memset(out + done, 0, at - done);
    if (k.kind != LFA_ROARING_BITSET) memset(out + at, 0, end - at);
    apply_container(out, out_len, n_bits, &k, BITS_SET);
    done = end;
  }
  memset(out + done, 0, out_len - done);
  clear_tail(out, out_len, n_bits);
  return LFA_OK;
}

lfa_status lfa_bits_clear_bitmap(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                                 lfa_error *err) {
  lfa_status st = lfa_bits_check_len(out_len, n_bits, err);
  if (st != LFA_OK || out_len == 0) return st;
  walker w;
  walker_open(&w, bitmap);
  container k;
  while (walker_next(&k, &w)) apply_container(out, out_len, n_bits, &k, BITS_CLEAR);
  return LFA_OK;
}

/* ---- chunks of words ------------------------------------------------------------- */

void lfa_bits_chunks_start(lfa_bits_chunks *c, const roaring_bitmap_t *bitmap) { *c = (lfa_bits_chunks){bitmap, 0}; }

const uint64_t *lfa_bits_chunk(lfa_bits_chunks *c, uint32_t key, uint64_t *scratch) {
  if (c->bitmap == NULL) return NULL;
  const roaring_array_t *ra = &c->bitmap->high_low_container;
  while (c->next < ra->size && ra->keys[c->next] < key) c->next++;
  if (c->next >= ra->size || ra->keys[c->next] != key) return NULL;
  container k;
  container_at(&k, ra, c->next++);
  if (k.kind == LFA_ROARING_BITSET) return (const uint64_t *)(const void *)k.data;
  memset(scratch, 0, CHUNK_BYTES);
  k.key = 0; /* laid out from bit 0 of the scratch words */
  apply_container((uint8_t *)scratch, CHUNK_BYTES, (uint64_t)CHUNK_BYTES * 8, &k, BITS_SET);
  return scratch;
}

/* The values of container k below n (<= 2^16): its cardinality for a
 * whole chunk, else counted (a bitset's words, an array's values, runs). */
static uint64_t container_count_below(const container *k, uint64_t n) {
  if (k->kind != LFA_ROARING_RUNS && n >= (uint64_t)CHUNK_BYTES * 8) return k->cardinality;
  uint64_t c = 0;
  if (k->kind == LFA_ROARING_BITSET) {
    const uint8_t *w = k->data;
    for (size_t i = 0; i < (size_t)(n / 64); i++) c += (uint64_t)__builtin_popcountll(lfa_load_u64le(w + 8 * i));
    if (n % 64 != 0) c += (uint64_t)__builtin_popcountll(lfa_load_u64le(w + 8 * (n / 64)) & ((UINT64_C(1) << (n % 64)) - 1));
  } else if (k->kind == LFA_ROARING_ARRAY) {
    while (c < k->count && u16_at(k->data + 2 * c) < n) c++; /* ascending */
  } else {
    for (uint32_t i = 0; i < k->count; i++) {
      uint64_t from = u16_at(k->data + 4 * i), len = (uint64_t)u16_at(k->data + 4 * i + 2) + 1;
      if (from < n) c += from + len <= n ? len : n - from;
    }
  }
  return c;
}

uint64_t lfa_bits_chunk_count(lfa_bits_chunks *c, uint32_t key, uint64_t n_bits) {
  if (c->bitmap == NULL) return 0;
  const roaring_array_t *ra = &c->bitmap->high_low_container;
  while (c->next < ra->size && ra->keys[c->next] < key) c->next++;
  if (c->next >= ra->size || ra->keys[c->next] != key) return 0;
  container k;
  container_at(&k, ra, c->next++);
  return container_count_below(&k, n_bits);
}

/* The container of `w` at `key`, if it has one (keys asked ascending). */
static bool walker_at(container *k, walker *w, uint32_t key) {
  while (w->next < w->ra->size && w->ra->keys[w->next] < key) w->next++;
  if (w->next >= w->ra->size || w->ra->keys[w->next] != key) return false;
  container_at(k, w->ra, w->next++);
  return true;
}

/* One chunk of lfa_bits_live: `state` false is no value there; k NULL is
 * every value (all_assigned); g the deleted offsets' container or NULL.
 * A bitset of deletions is folded into the pass that writes the state (an
 * AND NOT beside a bitset or all_assigned, a test per value beside an
 * array); other deletions are cleared after, while the chunk is in cache. */
static void put_chunk(uint8_t *o, size_t span, uint64_t chunk_bits, const container *k, bool state, const container *g) {
  bool gone_bitset = g != NULL && g->kind == LFA_ROARING_BITSET;
  if (!state) {
    memset(o, 0, span);
    return;
  }
  if (gone_bitset && (k == NULL || k->kind == LFA_ROARING_BITSET)) {
    and_not(o, k == NULL ? NULL : k->data, g->data, span);
    return;
  }
  if (gone_bitset && k->kind == LFA_ROARING_ARRAY) {
    memset(o, 0, span);
    set_values(o, k->data, values_below(k, chunk_bits), g->data);
    return;
  }
  if (k == NULL) {
    memset(o, 0xFF, span);
  } else if (k->kind == LFA_ROARING_BITSET) {
    memcpy(o, k->data, span);
  } else {
    memset(o, 0, span);
    apply_container(o, span, chunk_bits, k, BITS_SET);
  }
  if (g != NULL) apply_container(o, span, chunk_bits, g, BITS_CLEAR);
}

/* [FA-EXPR-5] Chunk by chunk: the state's container written over the
 * chunk (a bitset copied, an array or runs set on zeros, all_assigned
 * ones) with the deleted offsets' container folded in or, while the chunk
 * is still in cache, cleared from it (put_chunk): one pass over the
 * output, no scratch. */
lfa_status lfa_bits_live(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                         const roaring_bitmap_t *deleted, lfa_error *err) {
  lfa_status st = lfa_bits_check_len(out_len, n_bits, err);
  if (st != LFA_OK || out_len == 0) return st;
  walker b, d;
  if (bitmap != NULL) walker_open(&b, bitmap);
  if (deleted != NULL) walker_open(&d, deleted);
  for (size_t at = 0; at < out_len; at += CHUNK_BYTES) {
    uint32_t key = (uint32_t)(at / CHUNK_BYTES);
    size_t span = out_len - at < CHUNK_BYTES ? out_len - at : CHUNK_BYTES;
    uint64_t chunk_bits = n_bits - (uint64_t)at * 8 < (uint64_t)CHUNK_BYTES * 8 ? n_bits - (uint64_t)at * 8 : (uint64_t)CHUNK_BYTES * 8;
    container k, g;
    bool state = bitmap == NULL || walker_at(&k, &b, key);
    bool gone = state && deleted != NULL && walker_at(&g, &d, key);
    g.key = 0, k.key = 0; /* both applied from the chunk's first bit */
    put_chunk(out + at, span, chunk_bits, bitmap == NULL ? NULL : &k, state, gone ? &g : NULL);
  }
  clear_tail(out, out_len, n_bits);
  return LFA_OK;
}

/* ---- the live bits of a word ----------------------------------------------------- */

#define HOT static inline __attribute__((always_inline)) /* inlined into the CPU-specific loops too */

HOT uint64_t low_bits(unsigned n) { return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1; }

/* Each deleted offset is cut out, the highest first so that the lower ones
 * stay where they are: one step per deleted offset. */
uint64_t lfa_bits_squeeze(uint64_t bits, uint64_t deleted) {
  while (deleted != 0) {
    uint64_t below = low_bits(63u - (unsigned)__builtin_clzll(deleted));
    bits = (bits & below) | ((bits >> 1) & ~below);
    deleted &= below;
  }
  return bits;
}

/* Writes the n (0..64) low bits of v, nothing above them, into the stream
 * at bit *pos: the bits below *pos in that word are kept, those above it
 * and the next word's are overwritten (one spare word follows the stream).
 * No branch: whether a word has deletions is a coin toss at 1% deleted
 * rows, and a mispredicted branch costs more than the store. */
HOT void append_bits(uint64_t *dst, uint64_t *pos, uint64_t v, unsigned n) {
  uint64_t i = *pos / 64;
  unsigned shift = (unsigned)(*pos % 64);
  dst[i] = (dst[i] & low_bits(shift)) | v << shift;
  dst[i + 1] = shift != 0 ? v >> (64 - shift) : 0;
  *pos += n;
}

/* n_bits bits of `w`, none deleted, appended: whole words copied, or
 * shifted into place with the spill of each carried in a register (the
 * stream is 0 from *pos on). */
HOT void append_words(uint64_t *dst, uint64_t *pos, const uint64_t *w, uint64_t n_bits) {
  size_t words = (size_t)(n_bits / 64), i0 = (size_t)(*pos / 64);
  unsigned shift = (unsigned)(*pos % 64);
  if (shift == 0) {
    memcpy(dst + i0, w, words * 8);
  } else {
    uint64_t carry = dst[i0] & low_bits(shift);
    for (size_t j = 0; j < words; j++) dst[i0 + j] = carry | w[j] << shift, carry = w[j] >> (64 - shift);
    dst[i0 + words] = carry;
  }
  *pos += (uint64_t)words * 64;
  if (n_bits % 64 != 0) append_bits(dst, pos, w[words] & low_bits((unsigned)(n_bits % 64)), (unsigned)(n_bits % 64));
}

/* The bit writer of the word loop: the word being filled is kept in a
 * register and stored every step (a store, never a load: no chain through
 * memory from one word to the next). */
typedef struct writer {
  uint64_t *at;  /* the word being filled */
  unsigned fill; /* its bits so far, 0 .. 63 */
  uint64_t acc;
} writer;

/* The writer at bit `pos` of dst, the bits below it kept. */
HOT writer writer_at(uint64_t *dst, uint64_t pos) {
  return (writer){dst + pos / 64, (unsigned)(pos % 64), dst[pos / 64] & low_bits((unsigned)(pos % 64))};
}

/* Appends the n (0 .. 64) low bits of v (nothing above them), no branch:
 * the spill past the word is v >> (64 - fill), written as two shifts so
 * that a fill of 0 spills nothing. */
HOT void writer_put(writer *w, uint64_t v, unsigned n) {
  w->acc |= v << w->fill;
  *w->at = w->acc;
  uint64_t spill = (v >> 1) >> (63 - w->fill);
  unsigned fill = w->fill + n;
  w->at += fill / 64;
  w->acc = fill >= 64 ? spill : w->acc;
  w->fill = fill % 64;
}

/* The bits written since dst: where the writer is, as a bit count. */
HOT uint64_t writer_bits(const writer *w, const uint64_t *dst) {
  *w->at = w->acc;
  return (uint64_t)(w->at - dst) * 64 + w->fill;
}

/* The word loop of lfa_bits_append_live, the deleted offsets cut out by
 * SQUEEZE(w, gone) and counted by POPCOUNT: expanded once portable and once
 * for a CPU with BMI2 and POPCNT, where each is one instruction. Every
 * word costs the same, deletions or not: whether a word has one is a coin
 * toss at 1% deleted rows, and a mispredicted branch costs more than the
 * work it would skip.
 *
 * A word's place in the output depends on every word before it, a chain
 * of a few cycles a word. So a block of up to BLOCK_WORDS words is cut in
 * two halves written side by side, each with its own writer (two
 * independent chains): the first straight into the stream, the second
 * into a side buffer from bit 0, then appended behind it a whole word at a
 * time (append_words, about a cycle a word). Two, not more: each writer
 * is three registers, and a third and fourth no longer fit in x86-64's
 * sixteen, so every step would wait on a spilled one. */
enum { BLOCK_WORDS = 1024, SIDE_WORDS = BLOCK_WORDS / 2 + 4 };

/* One word k of the block (state words B, deletion words D) into writer W:
 * its live offsets' mask, their count and their bits. */
#define APPEND_LIVE_WORD(W, B, D, k, SQUEEZE, POPCOUNT)                                       \
  do {                                                                                     \
    uint64_t live_ = ~(D)[k];                                                              \
    writer_put(&(W), SQUEEZE((B)[k], live_), (unsigned)POPCOUNT(live_));                   \
  } while (0)

#define APPEND_LIVE_BLOCK(B, D, words, SQUEEZE, POPCOUNT)                                    \
  do {                                                                                     \
    uint64_t side[SIDE_WORDS];                                                             \
    writer o0 = writer_at(dst, *pos), o1 = {side, 0, 0};                                   \
    size_t half = (words) / 2;                                                             \
    for (size_t i = 0; i < half; i++) {                                                    \
      APPEND_LIVE_WORD(o0, B, D, i, SQUEEZE, POPCOUNT);                                    \
      APPEND_LIVE_WORD(o1, B, D, half + i, SQUEEZE, POPCOUNT);                             \
    }                                                                                      \
    if ((words) % 2 != 0) APPEND_LIVE_WORD(o1, B, D, (words) - 1, SQUEEZE, POPCOUNT);      \
    *pos = writer_bits(&o0, dst);                                                          \
    append_words(dst, pos, side, writer_bits(&o1, side));                                  \
  } while (0)

/* The whole words block by block, then the last bits of a partial word
 * (those past n_bits masked off as deleted). */
#define APPEND_LIVE_LOOP(SQUEEZE, POPCOUNT)                                                  \
  do {                                                                                     \
    if (deleted == NULL) {                                                                 \
      append_words(dst, pos, bits, n_bits);                                                \
      return;                                                                              \
    }                                                                                      \
    size_t all = (size_t)(n_bits / 64);                                                    \
    for (size_t at = 0; at < all; at += BLOCK_WORDS) {                                     \
      size_t words = all - at < BLOCK_WORDS ? all - at : BLOCK_WORDS;                      \
      APPEND_LIVE_BLOCK(bits + at, deleted + at, words, SQUEEZE, POPCOUNT);                \
    }                                                                                      \
    if (n_bits % 64 != 0) {                                                                \
      uint64_t tail_[1] = {deleted[all] | ~low_bits((unsigned)(n_bits % 64))};             \
      writer o = writer_at(dst, *pos);                                                     \
      APPEND_LIVE_WORD(o, bits + all, tail_, 0, SQUEEZE, POPCOUNT);                        \
      *pos = writer_bits(&o, dst);                                                         \
    }                                                                                      \
  } while (0)

#define PLAIN_SQUEEZE(w, live) lfa_bits_squeeze(w, ~(live))

void lfa_bits_append_live_plain(uint64_t *dst, uint64_t *pos, const uint64_t *bits, const uint64_t *deleted,
                                uint64_t n_bits) {
  APPEND_LIVE_LOOP(PLAIN_SQUEEZE, __builtin_popcountll);
}

static uint64_t count_plain(const uint64_t *w, size_t n) {
  uint64_t c = 0;
  for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcountll(w[i]);
  return c;
}

/* dst = src (n words), and the set bits counted on the way: one pass. */
static uint32_t copy_count_plain(uint64_t *dst, const uint64_t *src, size_t n) {
  uint32_t c = 0;
  for (size_t i = 0; i < n; i++) dst[i] = src[i], c += (uint32_t)__builtin_popcountll(src[i]);
  return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FAST_BITS __attribute__((target("bmi2,popcnt")))
#define PEXT_SQUEEZE(w, live) _pext_u64(w, live)

FAST_BITS static void append_live_fast(uint64_t *dst, uint64_t *pos, const uint64_t *bits, const uint64_t *deleted,
                                       uint64_t n_bits) {
  APPEND_LIVE_LOOP(PEXT_SQUEEZE, __builtin_popcountll);
}
FAST_BITS static uint64_t count_fast(const uint64_t *w, size_t n) {
  uint64_t c = 0;
  for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcountll(w[i]);
  return c;
}
FAST_BITS static uint32_t copy_count_fast(uint64_t *dst, const uint64_t *src, size_t n) {
  uint32_t c = 0;
  for (size_t i = 0; i < n; i++) dst[i] = src[i], c += (uint32_t)__builtin_popcountll(src[i]);
  return c;
}
/* Whether the CPU has the instructions (libgcc's CPU probe; no state of ours). */
static bool fast_bits(void) { return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt"); }
#else
#define append_live_fast lfa_bits_append_live_plain
#define count_fast count_plain
#define copy_count_fast copy_count_plain
static bool fast_bits(void) { return false; }
#endif

void lfa_bits_append_fill(uint64_t *dst, uint64_t *pos, bool value, uint64_t n_bits) {
  uint64_t v = value ? ~UINT64_C(0) : 0;
  unsigned head = (unsigned)((64 - *pos % 64) % 64);
  if (head > n_bits) head = (unsigned)n_bits;
  append_bits(dst, pos, v & low_bits(head), head); /* to a word boundary */
  uint64_t words = (n_bits - head) / 64;
  memset(dst + *pos / 64, value ? 0xFF : 0, (size_t)words * 8);
  *pos += words * 64;
  unsigned tail = (unsigned)(n_bits - head - words * 64);
  append_bits(dst, pos, v & low_bits(tail), tail);
}

void lfa_bits_append_live(uint64_t *dst, uint64_t *pos, const uint64_t *bits, const uint64_t *deleted, uint64_t n_bits) {
  if (fast_bits()) append_live_fast(dst, pos, bits, deleted, n_bits);
  else lfa_bits_append_live_plain(dst, pos, bits, deleted, n_bits);
}

/* ---- a bit array back into a bitmap ---------------------------------------------- */

uint64_t lfa_bits_count(const uint64_t *words, uint64_t n_bits) {
  size_t n = (size_t)((n_bits + 63) / 64);
  return fast_bits() ? count_fast(words, n) : count_plain(words, n);
}

/* A chunk's words (n_words, not all 0) as a new container: a bitset above
 * LFA_ROARING_ARRAY_MAX values, else an array of them; NULL when out of
 * memory. The words are copied into a bitset and counted in one pass; a
 * chunk of few values then becomes an array instead. */
static void *new_container(uint8_t *type, const uint64_t *w, size_t n_words) {
  bitset_container_t *bc = bitset_container_create();
  if (bc == NULL) return NULL;
  uint32_t card = fast_bits() ? copy_count_fast(bc->array, w, n_words) : copy_count_plain(bc->array, w, n_words);
  memset(bc->array + n_words, 0, CHUNK_BYTES - n_words * 8);
  bc->cardinality = (int32_t)card;
  *type = BITSET_CONTAINER_TYPE_CODE;
  if (card > LFA_ROARING_ARRAY_MAX) return bc;
  bitset_container_free(bc);
  array_container_t *ac = array_container_create_given_capacity((int32_t)card);
  if (ac == NULL) return NULL;
  for (size_t i = 0; i < n_words; i++)
    for (uint64_t v = w[i]; v != 0; v &= v - 1) ac->array[ac->cardinality++] = (uint16_t)(i * 64 + (unsigned)__builtin_ctzll(v));
  *type = ARRAY_CONTAINER_TYPE_CODE;
  return ac;
}

lfa_status lfa_bits_add_chunk(roaring_bitmap_t *bitmap, uint64_t *count, uint32_t key, const uint64_t *words,
                              size_t n_words, lfa_error *err) {
  roaring_array_t *ra = &bitmap->high_low_container;
  if (key > UINT16_MAX || n_words > CHUNK_BYTES / 8 || (ra->size > 0 && ra->keys[ra->size - 1] >= key))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "chunk %u of %zu words does not follow the bitmap's last container", key,
                    n_words);
  size_t first = 0;
  while (first < n_words && words[first] == 0) first++;
  if (first == n_words) return LFA_OK; /* no value: no container */
  if (ra->size >= ra->allocation_size) /* ra_append would grow the arrays, and it cannot say it failed */
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "the bitmap has room for %d containers", ra->allocation_size);
  uint8_t type = 0;
  void *k = new_container(&type, words, n_words);
  if (k == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot build a bitmap's container %u", key);
  ra_append(ra, (uint16_t)key, k, type);
  *count += type == BITSET_CONTAINER_TYPE_CODE ? (uint64_t)((bitset_container_t *)k)->cardinality
                                               : (uint64_t)((array_container_t *)k)->cardinality;
  return LFA_OK;
}

lfa_status lfa_bits_to_bitmap(roaring_bitmap_t **out, uint64_t *count, const uint64_t *words, uint64_t n_bits,
                              lfa_error *err) {
  *count = 0;
  size_t n_words = (size_t)((n_bits + 63) / 64), per = CHUNK_BYTES / 8, chunks = (n_words + per - 1) / per;
  *out = roaring_bitmap_create_with_capacity((uint32_t)chunks); /* ra_append then never grows the arrays */
  if (*out == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  lfa_status st = LFA_OK;
  for (size_t c = 0; st == LFA_OK && c < chunks; c++)
    st = lfa_bits_add_chunk(*out, count, (uint32_t)c, words + c * per, n_words - c * per < per ? n_words - c * per : per,
                            err);
  if (st != LFA_OK) roaring_bitmap_free(*out), *out = NULL;
  return st;
}

void lfa_bits_fill(uint8_t *out, size_t out_len, uint64_t n_bits, bool value) {
  memset(out, value ? 0xFF : 0, out_len);
  clear_tail(out, out_len, n_bits);
}
