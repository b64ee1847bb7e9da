/* test_bitmap.c: portable Roaring bitmaps and treemaps (ref/format/bitmap.c,
 * the layout module ref/format/roaring_layout.c).
 * Requirement ids: FA-BITMAP-1, FA-BITMAP-2, FA-TXN-1, FA-LIMIT-1. */
#include "testutil.h"

#include "lfa/bitmap.h"
#include "lfa/limits.h"
#include "lfa/roaring_layout.h"

/* Hand-built no-run bitmap: one array container, key 0, values as given.
 * Layout per RoaringFormatSpec: cookie, count, key/card-1, offset, values. */
static size_t hand_array(uint8_t *out, const uint16_t *values, uint16_t n) {
  size_t p = 0;
  lfa_store_u32le(out + p, 12346), p += 4;
  lfa_store_u32le(out + p, 1), p += 4;
  out[p++] = 0, out[p++] = 0;                                       /* key 0 */
  out[p++] = (uint8_t)(n - 1), out[p++] = (uint8_t)((n - 1) >> 8); /* card-1 */
  lfa_store_u32le(out + p, 16), p += 4;                            /* offset */
  for (uint16_t i = 0; i < n; i++) out[p++] = (uint8_t)values[i], out[p++] = (uint8_t)(values[i] >> 8);
  return p;
}

static roaring_bitmap_t *round_trip(const roaring_bitmap_t *in) {
  lfa_error err = {0};
  lfa_buf buf = {0};
  roaring_bitmap_t *out = NULL;
  assert_ok(lfa_bitmap_encode(&buf, in, &err), &err);
  assert_int_equal(lfa_load_u32le(buf.data), 12346); /* FA-BITMAP-1: no-run form written */
  assert_ok(lfa_bitmap_decode(&out, buf.data, buf.len, &err), &err);
  lfa_buf_free(&buf);
  assert_true(roaring_bitmap_equals(in, out));
  return out;
}

static void test_FA_BITMAP_1_round_trip_all_container_kinds(void **state) {
  (void)state;
  roaring_bitmap_t *bm = roaring_bitmap_create();
  roaring_bitmap_add(bm, 7);                          /* array container */
  roaring_bitmap_add_range(bm, 70000, 70000 + 5000);  /* bitset container */
  roaring_bitmap_add_range(bm, 200000, 260000);       /* becomes runs after optimize */
  roaring_bitmap_add(bm, UINT32_MAX);
  roaring_bitmap_run_optimize(bm);
  roaring_bitmap_t *back = round_trip(bm);
  roaring_bitmap_free(back);
  roaring_bitmap_free(bm);
  roaring_bitmap_t *empty = roaring_bitmap_create();
  back = round_trip(empty);
  assert_true(roaring_bitmap_is_empty(back));
  roaring_bitmap_free(back);
  roaring_bitmap_free(empty);
}

static void test_FA_BITMAP_1_run_form_accepted(void **state) {
  (void)state;
  lfa_error err = {0};
  roaring_bitmap_t *bm = roaring_bitmap_from_range(100, 5000, 1);
  roaring_bitmap_run_optimize(bm);
  size_t n = roaring_bitmap_portable_size_in_bytes(bm);
  uint8_t *bytes = malloc(n);
  roaring_bitmap_portable_serialize(bm, (char *)bytes);
  assert_int_equal(lfa_load_u32le(bytes) & 0xFFFF, 12347);
  roaring_bitmap_t *out = NULL;
  assert_ok(lfa_bitmap_decode(&out, bytes, n, &err), &err);
  assert_int_equal(roaring_bitmap_get_cardinality(out), 4900);
  roaring_bitmap_free(out);
  free(bytes);
  roaring_bitmap_free(bm);
}

static void expect_invalid(const uint8_t *bytes, size_t len, lfa_status want) {
  lfa_error err = {0};
  roaring_bitmap_t *out = NULL;
  assert_status(lfa_bitmap_decode(&out, bytes, len, &err), want, &err);
  assert_null(out);
  assert_non_null(err.rule);
}

/* Run containers of at most 4096 values that end at 65535 encode in the
 * no-run form. CRoaring 0.2.66's roaring_bitmap_remove_run_compression
 * writes past its array on them (a uint16_t loop counter wraps), so the
 * encoder must not use it. Found by fuzz/roundtrip_treemap; reproducer
 * corpus/roundtrip_treemap/FA-BITMAP-1-run-ending-at-65535.treemap. */
static void test_FA_BITMAP_1_run_ending_at_65535_encodes(void **state) {
  (void)state;
  roaring_bitmap_t *bm = roaring_bitmap_from_range(65000, 65536, 1); /* one run, ends at 65535 */
  roaring_bitmap_add_range(bm, 3 * 65536 + 65535, 4 * 65536);        /* a one-value run */
  roaring_bitmap_add_range(bm, UINT32_MAX - 9, (uint64_t)UINT32_MAX + 1);
  roaring_bitmap_run_optimize(bm);
  roaring_bitmap_t *back = round_trip(bm);
  assert_int_equal(roaring_bitmap_get_cardinality(back), 536 + 1 + 10);
  roaring_bitmap_free(back);
  roaring_bitmap_free(bm);

  /* The same from the bytes: cookie 12347 (one container, a run), key 0,
   * card-1 0, one run {start 65535, length-1 0}. */
  const uint8_t run_form[] = {0x3b, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                              0x01, 0x00, 0xff, 0xff, 0x00, 0x00};
  lfa_error err = {0};
  assert_ok(lfa_bitmap_decode(&bm, run_form, sizeof run_form, &err), &err);
  back = round_trip(bm);
  assert_int_equal(roaring_bitmap_get_cardinality(back), 1);
  assert_true(roaring_bitmap_contains(back, 65535));
  roaring_bitmap_free(back);
  roaring_bitmap_free(bm);
}

static void test_FA_BITMAP_2_unsorted_array_rejected(void **state) {
  (void)state;
  uint8_t b[64];
  const uint16_t unsorted[] = {500, 3, 3}; /* what CRoaring alone would accept */
  expect_invalid(b, hand_array(b, unsorted, 3), LFA_ERR_BITMAP);
  const uint16_t dup[] = {1, 2, 2};
  expect_invalid(b, hand_array(b, dup, 3), LFA_ERR_BITMAP);
  const uint16_t good[] = {1, 2, 3};
  size_t n = hand_array(b, good, 3);
  lfa_error err = {0};
  roaring_bitmap_t *out = NULL;
  assert_ok(lfa_bitmap_decode(&out, b, n, &err), &err);
  roaring_bitmap_free(out);
  b[n] = 0; /* one trailing byte */
  expect_invalid(b, n + 1, LFA_ERR_BITMAP);
}

static void test_FA_BITMAP_2_header_lies_rejected(void **state) {
  (void)state;
  uint8_t b[64];
  const uint16_t v[] = {1, 2, 3};
  size_t n = hand_array(b, v, 3);
  b[10] = 3; /* cardinality 4 declared, 3 present: bytes run out */
  expect_invalid(b, n, LFA_ERR_TRUNCATED);
  n = hand_array(b, v, 3);
  b[12] = 20; /* offset header disagrees with the real position */
  expect_invalid(b, n, LFA_ERR_BITMAP);
  n = hand_array(b, v, 3);
  b[0] = 0x39; /* cookie 12345 */
  expect_invalid(b, n, LFA_ERR_BITMAP);
  n = hand_array(b, v, 3);
  for (size_t cut = 0; cut < n; cut++) expect_invalid(b, cut, LFA_ERR_TRUNCATED);
}

static void test_FA_BITMAP_2_bitset_cardinality_checked(void **state) {
  (void)state;
  roaring_bitmap_t *bm = roaring_bitmap_from_range(0, 6000, 1);
  lfa_buf buf = {0};
  lfa_error err = {0};
  assert_ok(lfa_bitmap_encode(&buf, bm, &err), &err);
  buf.data[buf.len - 1] = 0xFF; /* sets bits the header does not count */
  expect_invalid(buf.data, buf.len, LFA_ERR_BITMAP);
  lfa_buf_free(&buf);
  roaring_bitmap_free(bm);
}

static void test_FA_BITMAP_2_overlapping_runs_rejected(void **state) {
  (void)state;
  /* run form, 1 container, runs [10,20] and [15,16]: 13 values claimed */
  uint8_t b[] = {0x3B, 0x30, 0, 0, /* cookie 12347, n-1 = 0 */
                 1,                /* run flag */
                 0, 0, 12, 0,      /* key 0, card-1 = 12 */
                 2, 0,             /* two runs */
                 10, 0, 10, 0, 15, 0, 1, 0};
  expect_invalid(b, sizeof b, LFA_ERR_BITMAP);
  uint8_t past[] = {0x3B, 0x30, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0xFF, 0xFF, 1, 0}; /* 65535 + 1 */
  expect_invalid(past, sizeof past, LFA_ERR_BITMAP);
}

/* A count over the limit is a limit only when the bytes could hold it
 * (12 bytes per bucket at least): a treemap too short for what it declares
 * is truncated whatever the count [FA-LIMIT-2]. */
static void test_FA_LIMIT_1_treemap_counts_bounded(void **state) {
  (void)state;
  uint8_t b[16] = {0};
  lfa_store_u64le(b, UINT64_MAX);
  lfa_treemap t;
  lfa_error err = {0};
  assert_status(lfa_treemap_decode(&t, b, sizeof b, &err), LFA_ERR_TRUNCATED, &err);
  lfa_store_u64le(b, 5); /* 5 buckets cannot fit in 8 remaining bytes */
  assert_status(lfa_treemap_decode(&t, b, sizeof b, &err), LFA_ERR_TRUNCATED, &err);
  size_t n = (size_t)LFA_TREEMAP_BUCKETS_MAX + 1, len = 8 + 12 * n; /* room for one bucket past the limit */
  uint8_t *big = calloc(len, 1);
  assert_non_null(big);
  lfa_store_u64le(big, n);
  assert_status(lfa_treemap_decode(&t, big, len, &err), LFA_ERR_LIMIT, &err);
  assert_rule(&err, "FA-LIMIT-1");
  free(big);
}

/* [FA-BITMAP-2] Keys are 16 bits and strictly ascending, so a 32-bit
 * bitmap has at most 65536 containers: a header declaring 65537 is no
 * valid encoding (only the no-run form can declare it: the run form
 * counts in 16 bits), and not a bitmap over a reader limit
 * (the verifier reported such a bitmap as a mere FA-LIMIT-2 warning; found
 * by the verifier_faults fuzz target, corpus/verifier_faults/
 * FA-BITMAP-2-flipped-container-count). */
static void test_FA_BITMAP_2_more_containers_than_keys(void **state) {
  (void)state;
  uint8_t no_run[8] = {0x3A, 0x30, 0, 0}; /* cookie 12346, then the count 65537 */
  lfa_store_u32le(no_run + 4, 65537);
  expect_invalid(no_run, sizeof no_run, LFA_ERR_BITMAP);
  lfa_error err = {0};
  roaring_bitmap_t *out = NULL;
  assert_status(lfa_bitmap_decode(&out, no_run, sizeof no_run, &err), LFA_ERR_BITMAP, &err);
  assert_rule(&err, "FA-BITMAP-2");
}

/* [FA-BITMAP-2] container keys strictly ascend: keys 0, 1 pass; 1, 1
 * (equal) and 1, 0 (descending) are no valid encoding. Two one-value
 * array containers, laid out by the layout module's writer. */
static void test_FA_BITMAP_2_equal_keys_rejected(void **state) {
  (void)state;
  const uint32_t keys[][2] = {{0, 1}, {1, 1}, {1, 0}};
  for (size_t c = 0; c < 3; c++) {
    size_t total = (size_t)lfa_roaring_no_run_bytes(2, 4);
    uint8_t *out = calloc(total, 1);
    assert_non_null(out);
    lfa_roaring_writer w;
    lfa_roaring_writer_start(&w, out, 2);
    lfa_roaring_writer_container(&w, keys[c][0], 1)[0] = 5;
    lfa_roaring_writer_container(&w, keys[c][1], 1)[0] = 6;
    lfa_error err = {0};
    roaring_bitmap_t *b = NULL;
    if (c == 0) {
      assert_ok(lfa_bitmap_decode(&b, out, total, &err), &err);
      assert_int_equal(roaring_bitmap_get_cardinality(b), 2);
      roaring_bitmap_free(b);
    } else {
      assert_status(lfa_bitmap_decode(&b, out, total, &err), LFA_ERR_BITMAP, &err);
      assert_rule(&err, "FA-BITMAP-2");
    }
    free(out);
  }
}

static void test_FA_TXN_1_treemap_round_trip_and_rules(void **state) {
  (void)state;
  lfa_error err = {0};
  lfa_treemap t = {0};
  const uint64_t addrs[] = {(3ull << 32) | 7, 5, (3ull << 32) | 1, (1ull << 40)};
  for (size_t i = 0; i < 4; i++) assert_ok(lfa_treemap_add(&t, addrs[i], &err), &err);
  assert_int_equal(t.count, 3);
  assert_int_equal(t.high[0], 0);
  assert_int_equal(t.high[1], 3);
  assert_int_equal(lfa_treemap_cardinality(&t), 4);
  lfa_buf buf = {0};
  assert_ok(lfa_treemap_encode(&buf, &t, &err), &err);
  lfa_treemap back;
  assert_ok(lfa_treemap_decode(&back, buf.data, buf.len, &err), &err);
  assert_int_equal(back.count, 3);
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(back.high[i], t.high[i]);
    assert_true(roaring_bitmap_equals(back.low[i], t.low[i]));
  }
  lfa_treemap_free(&back);
  /* swap the first two buckets' keys: no longer ascending */
  lfa_buf bad = {0};
  lfa_treemap swapped = t;
  uint32_t hs[3] = {3, 0, 256};
  swapped.high = hs;
  assert_ok(lfa_treemap_encode(&bad, &swapped, &err), &err);
  assert_status(lfa_treemap_decode(&back, bad.data, bad.len, &err), LFA_ERR_BITMAP, &err);
  assert_rule(&err, "FA-TXN-1");
  lfa_buf_free(&bad);
  /* an empty bucket is not canonical */
  roaring_bitmap_clear(t.low[0]);
  assert_ok(lfa_treemap_encode(&bad, &t, &err), &err);
  assert_status(lfa_treemap_decode(&back, bad.data, bad.len, &err), LFA_ERR_BITMAP, &err);
  lfa_buf_free(&bad);
  lfa_buf_free(&buf);
  lfa_treemap_free(&t);
}

/* The layout's writer, by hand: two containers, key 0 = {1, 5} (an array)
 * and key 3 = 196608 .. 196608 + 4999 (5000 values > 4096: a bitset).
 * Bytes: cookie 12346 = 3A 30 00 00, count 02 00 00 00; key table
 * {00 00, 01 00} {03 00, 87 13} (card-1 = 1 and 4999 = 0x1387); offsets
 * 8 + 2 * 8 = 24 and 24 + 2 * 2 = 28; then 01 00 05 00 and 8192 bytes
 * whose first 625 are FF (5000 bits). 28 + 8192 = 8220 bytes in all. */
static void test_FA_BITMAP_1_layout_writer_by_hand(void **state) {
  (void)state;
  enum { TOTAL = 8220 };
  assert_int_equal(lfa_roaring_body_bytes(2), 4);
  assert_int_equal(lfa_roaring_body_bytes(5000), 8192);
  assert_int_equal(lfa_roaring_no_run_bytes(2, 4 + 8192), TOTAL);
  uint8_t *out = calloc(TOTAL, 1);
  assert_non_null(out);
  lfa_roaring_writer w;
  lfa_roaring_writer_start(&w, out, 2);
  uint8_t *a = lfa_roaring_writer_container(&w, 0, 2);
  a[0] = 1, a[2] = 5;
  memset(lfa_roaring_writer_container(&w, 3, 5000), 0xFF, 625);
  const uint8_t head[] = {0x3A, 0x30, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 3, 0, 0x87, 0x13, 24, 0, 0, 0, 28, 0, 0, 0,
                          1,    0,    5, 0};
  assert_memory_equal(out, head, sizeof head);
  uint64_t card = 0;
  lfa_error err = {0};
  assert_ok(lfa_bitmap_check(&card, out, TOTAL, &err), &err);
  assert_int_equal(card, 5002);
  roaring_bitmap_t *b = NULL;
  assert_ok(lfa_bitmap_decode(&b, out, TOTAL, &err), &err);
  assert_true(roaring_bitmap_contains(b, 5) && roaring_bitmap_contains(b, 196608 + 4999));
  assert_false(roaring_bitmap_contains(b, 196608 + 5000));
  roaring_bitmap_free(b);
  free(out);
}

/* [FA-BITMAP-2] a container holds an array of at most 4096 values, else a
 * bitset: 4095 and 4096 values are arrays (2 bytes each), 4097 a bitset
 * (8192 bytes), each after a 16-byte header (cookie, count, key and
 * cardinality-1, offset), and each decodes to the same set. */
static void test_FA_BITMAP_2_array_limit_at_its_edge(void **state) {
  (void)state;
  const uint32_t counts[] = {LFA_ROARING_ARRAY_MAX - 1, LFA_ROARING_ARRAY_MAX, LFA_ROARING_ARRAY_MAX + 1};
  const size_t bytes[] = {16 + 2 * 4095, 16 + 2 * 4096, 16 + 8192};
  for (size_t c = 0; c < 3; c++) {
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t v = 0; v < counts[c]; v++) roaring_bitmap_add(bm, 3 * v + 1); /* no runs */
    lfa_error err = {0};
    lfa_buf buf = {0};
    assert_ok(lfa_bitmap_encode(&buf, bm, &err), &err);
    assert_int_equal(buf.len, bytes[c]);
    assert_int_equal(lfa_load_u16le(buf.data + 10), counts[c] - 1);
    roaring_bitmap_t *out = NULL;
    assert_ok(lfa_bitmap_decode(&out, buf.data, buf.len, &err), &err);
    assert_true(roaring_bitmap_equals(bm, out));
    uint64_t card = 0;
    assert_ok(lfa_bitmap_check(&card, buf.data, buf.len, &err), &err);
    assert_int_equal(card, counts[c]);
    roaring_bitmap_free(out);
    lfa_buf_free(&buf);
    roaring_bitmap_free(bm);
  }
}

/* [FA-BITMAP-2] [FA-LIMIT-1] the counts at their limits are accepted: a
 * bitmap of LFA_ROARING_CONTAINERS_MAX containers (one value in each of
 * the 65536 keys), and a treemap of LFA_TREEMAP_BUCKETS_MAX buckets (one
 * row each, laid out by hand: the count, then each key and its bitmap).
 * One past each is refused by the tests above. */
static void test_FA_LIMIT_1_counts_at_their_limit_accepted(void **state) {
  (void)state;
  lfa_error err = {0};
  roaring_bitmap_t *bm = roaring_bitmap_create();
  for (uint64_t k = 0; k < LFA_ROARING_CONTAINERS_MAX; k++) roaring_bitmap_add(bm, (uint32_t)(k << 16 | 7));
  lfa_buf buf = {0};
  assert_ok(lfa_bitmap_encode(&buf, bm, &err), &err);
  assert_int_equal(lfa_load_u32le(buf.data + 4), LFA_ROARING_CONTAINERS_MAX);
  roaring_bitmap_t *out = NULL;
  assert_ok(lfa_bitmap_decode(&out, buf.data, buf.len, &err), &err);
  assert_true(roaring_bitmap_equals(bm, out));
  roaring_bitmap_free(out);
  roaring_bitmap_free(bm);
  lfa_buf_free(&buf);

  roaring_bitmap_t *one = roaring_bitmap_from_range(3, 4, 1);
  lfa_buf low = {0};
  assert_ok(lfa_bitmap_encode(&low, one, &err), &err);
  roaring_bitmap_free(one);
  size_t n = LFA_TREEMAP_BUCKETS_MAX, len = 8 + n * (4 + low.len);
  uint8_t *t = malloc(len);
  assert_non_null(t);
  lfa_store_u64le(t, n);
  for (size_t i = 0; i < n; i++) {
    lfa_store_u32le(t + 8 + i * (4 + low.len), (uint32_t)i);
    memcpy(t + 8 + i * (4 + low.len) + 4, low.data, low.len);
  }
  lfa_treemap tm;
  assert_ok(lfa_treemap_decode(&tm, t, len, &err), &err);
  assert_int_equal(tm.count, n);
  lfa_treemap_free(&tm);
  free(t);
  lfa_buf_free(&low);
}

static void test_bitmap_random_corruption_never_crashes(void **state) {
  (void)state;
  roaring_bitmap_t *bm = roaring_bitmap_create();
  uint64_t seed = 42;
  for (int i = 0; i < 3000; i++) roaring_bitmap_add(bm, (uint32_t)(tu_rand(&seed) % 300000));
  lfa_buf buf = {0};
  lfa_error err = {0};
  assert_ok(lfa_bitmap_encode(&buf, bm, &err), &err);
  uint8_t *copy = malloc(buf.len);
  for (int round = 0; round < 3000; round++) {
    memcpy(copy, buf.data, buf.len);
    for (int k = 0; k < 3; k++) copy[tu_rand(&seed) % buf.len] ^= (uint8_t)(1u << (tu_rand(&seed) % 8));
    size_t len = buf.len - (size_t)(tu_rand(&seed) % 4);
    roaring_bitmap_t *out = NULL;
    if (lfa_bitmap_decode(&out, copy, len, &err) == LFA_OK) {
      /* whatever was accepted must be a set CRoaring agrees is well formed */
      assert_true(roaring_bitmap_get_cardinality(out) <= 300000);
      roaring_bitmap_free(out);
    }
  }
  free(copy);
  lfa_buf_free(&buf);
  roaring_bitmap_free(bm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_BITMAP_1_round_trip_all_container_kinds),
      cmocka_unit_test(test_FA_BITMAP_1_run_form_accepted),
      cmocka_unit_test(test_FA_BITMAP_1_run_ending_at_65535_encodes),
      cmocka_unit_test(test_FA_BITMAP_2_unsorted_array_rejected),
      cmocka_unit_test(test_FA_BITMAP_2_header_lies_rejected),
      cmocka_unit_test(test_FA_BITMAP_2_bitset_cardinality_checked),
      cmocka_unit_test(test_FA_BITMAP_2_overlapping_runs_rejected),
      cmocka_unit_test(test_FA_LIMIT_1_treemap_counts_bounded),
      cmocka_unit_test(test_FA_BITMAP_2_more_containers_than_keys),
      cmocka_unit_test(test_FA_BITMAP_2_equal_keys_rejected),
      cmocka_unit_test(test_FA_TXN_1_treemap_round_trip_and_rules),
      cmocka_unit_test(test_FA_BITMAP_1_layout_writer_by_hand),
      cmocka_unit_test(test_FA_BITMAP_2_array_limit_at_its_edge),
      cmocka_unit_test(test_FA_LIMIT_1_counts_at_their_limit_accepted),
      cmocka_unit_test(test_bitmap_random_corruption_never_crashes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
