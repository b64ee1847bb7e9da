/* bitmap.c: portable 32-bit Roaring bitmaps and 64-bit treemaps.
 * Implements FA-BITMAP-1 (both cookies read, no-run form written),
 * FA-BITMAP-2 (one valid encoding, nothing trailing) and FA-TXN-1 (treemap
 * layout). The 32-bit layout is lfa/roaring_layout.h's, the treemap is
 * drawn in lfa/bitmap.h.
 *
 * CRoaring 0.2.66 only guards against reading past the buffer; it accepts
 * unsorted or duplicated values and wrong cardinalities. So every byte is
 * checked here first, and CRoaring only ever sees a valid encoding.
 */
#include "lfa/bitmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/limits.h"
#include "lfa/roaring_layout.h"

/* [FA-BITMAP-2] an array container's values strictly ascending. */
static lfa_status check_array(const lfa_roaring_container *k, uint32_t i, lfa_error *err) {
  for (uint32_t j = 1; j < k->count; j++)
    if (lfa_load_u16le(k->data + 2 * j) <= lfa_load_u16le(k->data + 2 * (j - 1)))
      return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                      "roaring array container %u is not strictly ascending at position %u",
                      (unsigned)i, (unsigned)j);
  return LFA_OK;
}

/* [FA-BITMAP-2] a bitset container holds exactly its declared cardinality. */
static lfa_status check_bitset(const lfa_roaring_container *k, uint32_t i, lfa_error *err) {
  uint32_t ones = 0;
  for (size_t j = 0; j < k->count; j++) ones += (uint32_t)__builtin_popcountll(lfa_load_u64le(k->data + 8 * j));
  if (ones != k->cardinality)
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                    "roaring bitset container %u holds %u values, header says %u",
                    (unsigned)i, (unsigned)ones, (unsigned)k->cardinality);
  return LFA_OK;
}

/* [FA-BITMAP-2] runs ascending, disjoint, within the container, and
 * covering exactly its declared cardinality. */
static lfa_status check_runs(const lfa_roaring_container *k, uint32_t i, lfa_error *err) {
  uint32_t total = 0;
  int64_t prev_end = -1; /* last value covered by the previous run */
  for (uint32_t j = 0; j < k->count; j++) {
    uint32_t start = lfa_load_u16le(k->data + 4 * j), end = start + lfa_load_u16le(k->data + 4 * j + 2);
    if (end > 0xFFFFu || (int64_t)start <= prev_end)
      return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                      "roaring run container %u: run %u overlaps, is out of order or passes 65535",
                      (unsigned)i, (unsigned)j);
    total += end - start + 1;
    prev_end = end;
  }
  if (total != k->cardinality)
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                    "roaring run container %u holds %u values, header says %u",
                    (unsigned)i, (unsigned)total, (unsigned)k->cardinality);
  return LFA_OK;
}

/* Container i: its frame (lfa_roaring_read_container), then its values. */
static lfa_status check_container(lfa_cursor *c, const lfa_roaring_header *h, uint32_t i, lfa_error *err) {
  lfa_roaring_container k;
  lfa_status st = lfa_roaring_read_container(&k, c, h, i, err);
  if (st != LFA_OK) return st;
  if (k.kind == LFA_ROARING_RUNS) return check_runs(&k, i, err);
  if (k.kind == LFA_ROARING_ARRAY) return check_array(&k, i, err);
  return check_bitset(&k, i, err);
}

lfa_status lfa_bitmap_scan(size_t *len_out, uint64_t *cardinality_out, const uint8_t *data,
                           size_t len, lfa_error *err) {
  lfa_cursor c = lfa_cursor_make(data, len);
  lfa_roaring_header h;
  lfa_status st = lfa_roaring_read_header(&h, &c, err);
  if (st != LFA_OK) return st;
  uint64_t total = 0;
  for (uint32_t i = 0; i < h.count; i++) {
    if ((st = check_container(&c, &h, i, err)) != LFA_OK) return st;
    total += (uint64_t)lfa_load_u16le(h.key_cards + 4 * i + 2) + 1;
  }
  *len_out = c.pos;
  *cardinality_out = total;
  return LFA_OK;
}

lfa_status lfa_bitmap_check(uint64_t *cardinality_out, const uint8_t *data, size_t len,
                            lfa_error *err) {
  size_t used;
  lfa_status st = lfa_bitmap_scan(&used, cardinality_out, data, len, err);
  if (st == LFA_OK && used != len)
    st = lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                  "roaring bitmap ends at byte %zu but the object has %zu bytes", used, len);
  return st;
}

lfa_status lfa_bitmap_decode(roaring_bitmap_t **out, const uint8_t *data, size_t len,
                             lfa_error *err) {
  uint64_t card;
  *out = NULL;
  lfa_status st = lfa_bitmap_check(&card, data, len, err);
  if (st != LFA_OK) return st;
  roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe((const char *)data, len);
  if (bm == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot build a roaring bitmap of %llu values",
                    (unsigned long long)card);
  *out = bm;
  return LFA_OK;
}

lfa_status lfa_bitmap_encode(lfa_buf *out, const roaring_bitmap_t *bitmap, lfa_error *err) {
  /* [FA-BITMAP-1] run containers must be expanded: upstream writers and
   * older readers know only the 12346 form. The run-free copy is built
   * value by value (add_many makes only array and bitset containers), not
   * with roaring_bitmap_remove_run_compression: in CRoaring 0.2.66 that
   * writes past its array for a run container of at most 4096 values ending
   * at 65535 (a uint16_t loop counter wraps; found by roundtrip_treemap). */
  roaring_bitmap_t *plain = roaring_bitmap_create();
  if (plain == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot copy a roaring bitmap");
  roaring_uint32_iterator_t it;
  uint32_t chunk[1024];
  roaring_init_iterator(bitmap, &it);
  for (uint32_t got; (got = roaring_read_uint32_iterator(&it, chunk, 1024)) > 0;)
    roaring_bitmap_add_many(plain, got, chunk);
  size_t n = roaring_bitmap_portable_size_in_bytes(plain);
  uint8_t *tail;
  lfa_status st = lfa_buf_extend(out, n, &tail, err);
  if (st == LFA_OK && roaring_bitmap_portable_serialize(plain, (char *)tail) != n)
    st = lfa_fail(err, LFA_ERR_BITMAP, NULL, "roaring serialization wrote an unexpected size");
  roaring_bitmap_free(plain);
  return st;
}

void lfa_bitmap_free(roaring_bitmap_t *bitmap) {
  if (bitmap != NULL) roaring_bitmap_free(bitmap);
}

/* ---- 64-bit treemaps ---------------------------------------------------- */

void lfa_treemap_free(lfa_treemap *treemap) {
  for (size_t i = 0; i < treemap->count; i++) roaring_bitmap_free(treemap->low[i]);
  free(treemap->high);
  free(treemap->low);
  memset(treemap, 0, sizeof *treemap);
}

static lfa_status treemap_bucket(lfa_treemap *t, lfa_cursor *c, uint64_t i, lfa_error *err) {
  uint32_t high;
  size_t used;
  uint64_t card;
  if (!lfa_cursor_u32le(c, &high))
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-TXN-1", "treemap ends in the key of bucket %llu",
                    (unsigned long long)i);
  if (i > 0 && high <= t->high[i - 1])
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-TXN-1", "treemap bucket keys are not ascending at bucket %llu",
                    (unsigned long long)i);
  lfa_status st = lfa_bitmap_scan(&used, &card, c->data + c->pos, lfa_cursor_left(c), err);
  if (st == LFA_OK && card == 0)
    st = lfa_fail(err, LFA_ERR_BITMAP, "FA-TXN-1", "treemap bucket is empty");
  if (st == LFA_OK) st = lfa_bitmap_decode(&t->low[i], c->data + c->pos, used, err);
  if (st != LFA_OK) {
    lfa_error_prefix(err, "treemap bucket %llu (high key %u)", (unsigned long long)i, (unsigned)high);
    return st;
  }
  t->high[i] = high;
  t->count = (size_t)i + 1;
  c->pos += used;
  return LFA_OK;
}

lfa_status lfa_treemap_decode(lfa_treemap *out, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_cursor c = lfa_cursor_make(data, len);
  uint64_t n;
  memset(out, 0, sizeof *out);
  if (!lfa_cursor_u64le(&c, &n))
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-TXN-1", "treemap shorter than its bucket count");
  /* Each bucket needs at least 12 bytes, so the count is also bounded by
   * len. Bytes that cannot hold the buckets they declare are truncated
   * whatever the limit: only a treemap that might be valid is over a limit
   * [FA-LIMIT-2]. */
  if (n > len / 12)
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-TXN-1", "treemap declares %llu buckets in %zu bytes",
                    (unsigned long long)n, len);
  if (n > LFA_TREEMAP_BUCKETS_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "treemap declares %llu buckets (limit %u)",
                    (unsigned long long)n, (unsigned)LFA_TREEMAP_BUCKETS_MAX);
  if (n > 0) {
    out->high = calloc((size_t)n, sizeof *out->high);
    out->low = calloc((size_t)n, sizeof *out->low);
    if (out->high == NULL || out->low == NULL) {
      lfa_treemap_free(out);
      return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate %llu treemap buckets", (unsigned long long)n);
    }
  }
  for (uint64_t i = 0; i < n; i++) {
    lfa_status st = treemap_bucket(out, &c, i, err);
    if (st != LFA_OK) {
      lfa_treemap_free(out);
      return st;
    }
  }
  if (lfa_cursor_left(&c) != 0) {
    lfa_treemap_free(out);
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-TXN-1", "treemap ends at byte %zu of %zu", c.pos, len);
  }
  return LFA_OK;
}

lfa_status lfa_treemap_encode(lfa_buf *out, const lfa_treemap *treemap, lfa_error *err) {
  lfa_status st = lfa_buf_put_u64le(out, (uint64_t)treemap->count, err);
  for (size_t i = 0; st == LFA_OK && i < treemap->count; i++) {
    st = lfa_buf_put_u32le(out, treemap->high[i], err);
    if (st == LFA_OK) st = lfa_bitmap_encode(out, treemap->low[i], err);
  }
  return st;
}

/* Finds the bucket for `high`, inserting an empty one in order if needed. */
static lfa_status bucket_for(roaring_bitmap_t **out, lfa_treemap *t, uint32_t high, lfa_error *err) {
  size_t i = 0;
  while (i < t->count && t->high[i] < high) i++;
  if (i < t->count && t->high[i] == high) {
    *out = t->low[i];
    return LFA_OK;
  }
  uint32_t *hs = realloc(t->high, (t->count + 1) * sizeof *hs);
  if (hs != NULL) t->high = hs;
  roaring_bitmap_t **ls = realloc(t->low, (t->count + 1) * sizeof *ls);
  if (ls != NULL) t->low = ls;
  roaring_bitmap_t *bm = roaring_bitmap_create();
  if (hs == NULL || ls == NULL || bm == NULL) {
    if (bm != NULL) roaring_bitmap_free(bm);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot grow a treemap");
  }
  memmove(hs + i + 1, hs + i, (t->count - i) * sizeof *hs);
  memmove(ls + i + 1, ls + i, (t->count - i) * sizeof *ls);
  hs[i] = high;
  ls[i] = bm;
  t->count++;
  *out = bm;
  return LFA_OK;
}

lfa_status lfa_treemap_add(lfa_treemap *treemap, uint64_t value, lfa_error *err) {
  roaring_bitmap_t *bm = NULL;
  lfa_status st = bucket_for(&bm, treemap, (uint32_t)(value >> 32), err);
  if (st == LFA_OK) roaring_bitmap_add(bm, (uint32_t)value);
  return st;
}

uint64_t lfa_treemap_cardinality(const lfa_treemap *treemap) {
  uint64_t n = 0;
  for (size_t i = 0; i < treemap->count; i++) n += roaring_bitmap_get_cardinality(treemap->low[i]);
  return n;
}
