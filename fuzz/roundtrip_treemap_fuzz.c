/* roundtrip_treemap: decode, encode, decode again, for 64-bit Roaring
 * treemaps (RowChange row addresses, FA-TXN-1).
 *
 * "Same value" here: the same buckets, i.e. the same high keys in the same
 * order, each with an equal 32-bit set (roaring_bitmap_equals). For inputs
 * lfa_treemap_decode accepts (T1), with B = encode(T1) and T2 = decode(B):
 * B decodes, T2 has T1's buckets, encode(T2) == B byte for byte, and when
 * every bucket of the input is in the no-run form (found with
 * lfa_bitmap_scan, which the decode already passed) B == input, since that
 * form has one encoding per set. Any difference aborts.
 */
#include "fuzz_helpers.h"
#include "lfa/bitmap.h"

enum { COOKIE_NO_RUN = 12346 };

static lfa_buf encode(const lfa_treemap *t) {
  lfa_buf out = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_treemap_encode(&out, t, &err) == LFA_OK, "a decoded treemap does not encode");
  return out;
}

/* True when every bucket of an accepted treemap uses cookie 12346. */
static int all_no_run(const uint8_t *data, size_t size) {
  size_t pos = 8;
  while (pos < size) {
    size_t used = 0;
    uint64_t card = 0;
    FUZZ_ASSERT(size - pos >= 12, "an accepted treemap ends inside a bucket");
    pos += 4; /* high key */
    if (lfa_load_u32le(data + pos) != COOKIE_NO_RUN) return 0;
    FUZZ_ASSERT(lfa_bitmap_scan(&used, &card, data + pos, size - pos, NULL) == LFA_OK,
                "a bucket of an accepted treemap does not scan");
    pos += used;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_treemap t1, t2;
  if (lfa_treemap_decode(&t1, data, size, NULL) != LFA_OK) return 0;
  lfa_buf b = encode(&t1);
  lfa_error err = fuzz_error();
  lfa_status st = lfa_treemap_decode(&t2, b.data, b.len, &err);
  if (st != LFA_OK) fprintf(stderr, "re-decode: %s\n", err.msg);
  FUZZ_ASSERT(st == LFA_OK, "the encoding of a decoded treemap does not decode");
  FUZZ_ASSERT(t1.count == t2.count, "the number of buckets changed");
  for (size_t i = 0; i < t1.count; i++) {
    FUZZ_ASSERT(t1.high[i] == t2.high[i], "a bucket key changed");
    FUZZ_ASSERT(roaring_bitmap_equals(t1.low[i], t2.low[i]), "a bucket's set changed");
  }
  lfa_buf c = encode(&t2);
  FUZZ_ASSERT(fuzz_same_bytes(&b, &c), "the encoding is not stable after one round");
  if (all_no_run(data, size)) {
    lfa_buf in = {(uint8_t *)(uintptr_t)data, size, size};
    FUZZ_ASSERT(fuzz_same_bytes(&in, &b), "an accepted no-run treemap is not the one encoding of its set");
  }
  lfa_buf_free(&b);
  lfa_buf_free(&c);
  lfa_treemap_free(&t1);
  lfa_treemap_free(&t2);
  return 0;
}
