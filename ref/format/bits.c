/* bits.c: bit arrays from bitmaps (lfa/bits.h), container by container.
 *
 * In order: the portable containers of a bitmap (a walker over CRoaring's
 * own serialization), bit ranges, and a bitmap into or out of a bit array.
 */
#include "lfa/bits.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bytes.h"
#include "lfa/roaring_layout.h"

enum { CHUNK_BYTES = LFA_ROARING_BITSET_BYTES }; /* one container spans 2^16 bits */

/* ---- the containers of a bitmap ------------------------------------------------ */

typedef lfa_roaring_container container;

/* The portable bytes of a bitmap and the next container to read. */
typedef struct walker {
  lfa_buf bytes;
  lfa_cursor c;
  lfa_roaring_header h;
  uint32_t next;
} walker;

/* Serializes `bitmap` (CRoaring's portable form, the documented layout) and
 * reads its header. The buffer is as large as the bitmap already in memory
 * (at most LFA_ROARING_CONTAINERS_MAX containers of 8 KiB). */
static lfa_status walker_open(walker *w, const roaring_bitmap_t *bitmap, lfa_error *err) {
  memset(w, 0, sizeof *w);
  size_t n = roaring_bitmap_portable_size_in_bytes(bitmap);
  uint8_t *at;
  lfa_status st = lfa_buf_extend(&w->bytes, n, &at, err);
  if (st != LFA_OK) return st;
  if (roaring_bitmap_portable_serialize(bitmap, (char *)at) != n)
    st = lfa_fail(err, LFA_ERR_BITMAP, NULL, "roaring serialization wrote an unexpected size");
  w->c = lfa_cursor_make(w->bytes.data, w->bytes.len);
  if (st == LFA_OK) st = lfa_roaring_read_header(&w->h, &w->c, err);
  if (st != LFA_OK) lfa_buf_free(&w->bytes);
  return st;
}

/* The next container, keys ascending; false after the last. */
static lfa_status walker_next(bool *more, container *k, walker *w, lfa_error *err) {
  *more = w->next < w->h.count;
  return *more ? lfa_roaring_read_container(k, &w->c, &w->h, w->next++, err) : LFA_OK;
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
      for (size_t i = 0; i < span; i++) out[at + i] &= (uint8_t)~k->data[i];
  } else if (k->kind == LFA_ROARING_ARRAY) {
    for (uint32_t i = 0; i < k->count; i++) {
      uint64_t bit = base + u16_at(k->data + 2 * i);
      if (bit >= n_bits) break; /* ascending: the rest are past it too */
      uint8_t mask = (uint8_t)(1u << (bit % 8));
      if (op == BITS_SET) out[bit / 8] |= mask;
      else out[bit / 8] &= (uint8_t)~mask;
    }
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
  walker w;
  if (st != LFA_OK || out_len == 0) return st;
  if ((st = walker_open(&w, bitmap, err)) != LFA_OK) return st;
  size_t done = 0; /* out[0 .. done) is final */
  container k;
  bool more = true;
  while (st == LFA_OK && (st = walker_next(&more, &k, &w, err)) == LFA_OK && more) {
    size_t at = (size_t)(((uint64_t)k.key << 16) / 8);
    if (at >= out_len) break; /* every later value is past n_bits */
    size_t end = out_len - at < CHUNK_BYTES ? out_len : at + CHUNK_BYTES;
    memset(out + done, 0, at - done);
    if (k.kind != LFA_ROARING_BITSET) memset(out + at, 0, end - at);
    apply_container(out, out_len, n_bits, &k, BITS_SET);
    done = end;
  }
  lfa_buf_free(&w.bytes);
  if (st != LFA_OK) return st;
  memset(out + done, 0, out_len - done);
  clear_tail(out, out_len, n_bits);
  return LFA_OK;
}

lfa_status lfa_bits_clear_bitmap(uint8_t *out, size_t out_len, uint64_t n_bits, const roaring_bitmap_t *bitmap,
                                 lfa_error *err) {
  lfa_status st = lfa_bits_check_len(out_len, n_bits, err);
  walker w;
  if (st != LFA_OK || out_len == 0) return st;
  if ((st = walker_open(&w, bitmap, err)) != LFA_OK) return st;
  container k;
  bool more = true;
  while ((st = walker_next(&more, &k, &w, err)) == LFA_OK && more) apply_container(out, out_len, n_bits, &k, BITS_CLEAR);
  lfa_buf_free(&w.bytes);
  return st;
}

void lfa_bits_fill(uint8_t *out, size_t out_len, uint64_t n_bits, bool value) {
  memset(out, value ? 0xFF : 0, out_len);
  clear_tail(out, out_len, n_bits);
}
