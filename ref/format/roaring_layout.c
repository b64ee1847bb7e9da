/* roaring_layout.c: the portable Roaring layout (lfa/roaring_layout.h),
 * read and written. Implements the frame of FA-BITMAP-1 (both cookies
 * read, the no-run form written) and FA-BITMAP-2 (every table in bounds,
 * keys ascending, offsets exact).
 */
#include "lfa/roaring_layout.h"

#include <string.h>

#include "lfa/limits.h"

/* ---- reading ----------------------------------------------------------------------- */

lfa_status lfa_roaring_read_header(lfa_roaring_header *h, lfa_cursor *c, lfa_error *err) {
  uint32_t cookie;
  bool has_offsets;
  memset(h, 0, sizeof *h);
  if (!lfa_cursor_u32le(c, &cookie))
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-BITMAP-2", "roaring bitmap shorter than its cookie");
  if (cookie == LFA_ROARING_COOKIE_NO_RUN) {
    if (!lfa_cursor_u32le(c, &h->count))
      return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-BITMAP-2", "roaring bitmap ends in its container count");
    has_offsets = true;
  } else if ((cookie & 0xFFFFu) == LFA_ROARING_COOKIE_RUN) {
    h->count = (cookie >> 16) + 1;
    if (!lfa_cursor_take(c, (h->count + 7) / 8, &h->run_flags))
      return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-BITMAP-2", "roaring bitmap ends in its run flags");
    has_offsets = h->count >= LFA_ROARING_OFFSETS_FROM;
  } else {
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-1",
                    "roaring cookie %u is neither 12346 nor 12347", (unsigned)(cookie & 0xFFFFu));
  }
  /* [FA-BITMAP-2] keys are 16 bits and strictly ascending: more containers
   * than keys is no valid encoding, not a bitmap over a reader limit
   * (FA-LIMIT-2 would let a verifier take it for a valid one) */
  if (h->count > LFA_ROARING_CONTAINERS_MAX)
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                    "roaring bitmap declares %u containers; a 32-bit bitmap has at most %u (one per 16-bit key)",
                    (unsigned)h->count, (unsigned)LFA_ROARING_CONTAINERS_MAX);
  if (!lfa_cursor_take(c, (size_t)h->count * 4, &h->key_cards))
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-BITMAP-2", "roaring bitmap ends in its key table");
  if (has_offsets && !lfa_cursor_take(c, (size_t)h->count * 4, &h->offsets))
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-BITMAP-2", "roaring bitmap ends in its offset table");
  return LFA_OK;
}

static uint32_t key_of(const lfa_roaring_header *h, uint32_t i) { return lfa_load_u16le(h->key_cards + 4 * i); }

static bool is_run(const lfa_roaring_header *h, uint32_t i) {
  return h->run_flags != NULL && (h->run_flags[i / 8] >> (i % 8)) & 1;
}

/* The body of container i: its size follows from its kind. */
static bool take_body(lfa_roaring_container *k, lfa_cursor *c, const lfa_roaring_header *h, uint32_t i) {
  if (is_run(h, i)) {
    uint16_t runs;
    k->kind = LFA_ROARING_RUNS;
    if (!lfa_cursor_u16le(c, &runs)) return false;
    k->count = runs;
    return lfa_cursor_take(c, (size_t)runs * 4, &k->data);
  }
  if (k->cardinality <= LFA_ROARING_ARRAY_MAX) {
    k->kind = LFA_ROARING_ARRAY, k->count = k->cardinality;
    return lfa_cursor_take(c, (size_t)k->cardinality * 2, &k->data);
  }
  k->kind = LFA_ROARING_BITSET, k->count = LFA_ROARING_BITSET_BYTES / 8;
  return lfa_cursor_take(c, LFA_ROARING_BITSET_BYTES, &k->data);
}

static const char *kind_name(const lfa_roaring_container *k) {
  return k->kind == LFA_ROARING_RUNS ? "run" : k->kind == LFA_ROARING_ARRAY ? "array" : "bitset";
}

/* [FA-BITMAP-2] container i's offset (when recorded) is where it really
 * starts, its key is above the one before, its body is in the bytes. */
lfa_status lfa_roaring_read_container(lfa_roaring_container *k, lfa_cursor *c, const lfa_roaring_header *h,
                                      uint32_t i, lfa_error *err) {
  if (h->offsets != NULL && lfa_load_u32le(h->offsets + 4 * i) != c->pos)
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                    "roaring offset of container %u is %u, container starts at %zu", (unsigned)i,
                    (unsigned)lfa_load_u32le(h->offsets + 4 * i), c->pos);
  if (i > 0 && key_of(h, i) <= key_of(h, i - 1))
    return lfa_fail(err, LFA_ERR_BITMAP, "FA-BITMAP-2",
                    "roaring container keys are not strictly ascending at container %u", (unsigned)i);
  k->key = key_of(h, i);
  k->cardinality = (uint32_t)lfa_load_u16le(h->key_cards + 4 * i + 2) + 1;
  if (!take_body(k, c, h, i))
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-BITMAP-2", "roaring %s container %u is cut short", kind_name(k),
                    (unsigned)i);
  return LFA_OK;
}

/* ---- writing the no-run form -------------------------------------------------------- */

size_t lfa_roaring_body_bytes(uint32_t cardinality) {
  return cardinality <= LFA_ROARING_ARRAY_MAX ? 2 * (size_t)cardinality : LFA_ROARING_BITSET_BYTES;
}

/* cookie, count, then per container a key-table entry and an offset */
uint64_t lfa_roaring_no_run_bytes(uint32_t containers, uint64_t body_bytes) {
  return 8 + 8 * (uint64_t)containers + body_bytes;
}

void lfa_roaring_writer_start(lfa_roaring_writer *w, uint8_t *out, uint32_t containers) {
  *w = (lfa_roaring_writer){out, containers, 0, (size_t)lfa_roaring_no_run_bytes(containers, 0)};
  lfa_store_u32le(out, LFA_ROARING_COOKIE_NO_RUN);
  lfa_store_u32le(out + 4, containers);
}

uint8_t *lfa_roaring_writer_container(lfa_roaring_writer *w, uint32_t key, uint32_t cardinality) {
  uint8_t *entry = w->out + 8 + 4 * (size_t)w->next, *offset = w->out + 8 + 4 * ((size_t)w->count + w->next);
  entry[0] = (uint8_t)key, entry[1] = (uint8_t)(key >> 8);
  entry[2] = (uint8_t)(cardinality - 1), entry[3] = (uint8_t)((cardinality - 1) >> 8);
  lfa_store_u32le(offset, (uint32_t)w->pos);
  uint8_t *body = w->out + w->pos;
  w->pos += lfa_roaring_body_bytes(cardinality);
  w->next++;
  return body;
}
