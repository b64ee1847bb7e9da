/* test_rowids.c: stable row id sequences (ref/format/rowids.c).
 * Requirement ids: FA-LANCE-11, FA-LIMIT-1.
 *
 * Hand-built inputs are made with the generated protobuf-c structs and packed
 * with lfa_pb_pack, so every byte under test is a real RowIdSequence
 * encoding unless a test breaks it on purpose. */
#include "testutil.h"

#include <inttypes.h>

#include "lfa/limits.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "lfa/rowids.h"
#include "rowids.pb-c.h"

/* ---- message kit: calloc'ed protobuf-c structs freed together -------------- */

enum { KIT_BLOCKS = 256 };
typedef struct kit {
  void *blocks[KIT_BLOCKS];
  size_t n;
} kit;

static void *kit_new(kit *k, size_t size) {
  assert_true(k->n < KIT_BLOCKS);
  void *p = calloc(1, size ? size : 1);
  assert_non_null(p);
  return k->blocks[k->n++] = p;
}

static void kit_free(kit *k) {
  for (size_t i = 0; i < k->n; i++) free(k->blocks[i]);
  k->n = 0;
}

static uint8_t *kit_bytes(kit *k, const void *src, size_t n) {
  uint8_t *p = kit_new(k, n);
  if (n > 0) memcpy(p, src, n);
  return p;
}

static U64Segment *seg_new(kit *k, Lance__Table__U64Segment__SegmentCase c) {
  static const U64Segment init = LANCE__TABLE__U64_SEGMENT__INIT;
  U64Segment *s = kit_new(k, sizeof *s);
  *s = init;
  s->segment_case = c;
  return s;
}

static U64Segment *seg_range(kit *k, uint64_t start, uint64_t end) {
  static const Lance__Table__U64Segment__Range init = LANCE__TABLE__U64_SEGMENT__RANGE__INIT;
  U64Segment *s = seg_new(k, LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE);
  s->range = kit_new(k, sizeof *s->range);
  *s->range = init;
  s->range->start = start, s->range->end = end;
  return s;
}

static U64Segment *seg_holes(kit *k, uint64_t start, uint64_t end, EncodedU64Array *holes) {
  static const Lance__Table__U64Segment__RangeWithHoles init = LANCE__TABLE__U64_SEGMENT__RANGE_WITH_HOLES__INIT;
  U64Segment *s = seg_new(k, LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_HOLES);
  s->range_with_holes = kit_new(k, sizeof *s->range_with_holes);
  *s->range_with_holes = init;
  s->range_with_holes->start = start, s->range_with_holes->end = end;
  s->range_with_holes->holes = holes;
  return s;
}

static U64Segment *seg_bitmap(kit *k, uint64_t start, uint64_t end, const uint8_t *bits, size_t n) {
  static const Lance__Table__U64Segment__RangeWithBitmap init = LANCE__TABLE__U64_SEGMENT__RANGE_WITH_BITMAP__INIT;
  U64Segment *s = seg_new(k, LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_BITMAP);
  s->range_with_bitmap = kit_new(k, sizeof *s->range_with_bitmap);
  *s->range_with_bitmap = init;
  s->range_with_bitmap->start = start, s->range_with_bitmap->end = end;
  s->range_with_bitmap->bitmap.data = kit_bytes(k, bits, n);
  s->range_with_bitmap->bitmap.len = n;
  return s;
}

static U64Segment *seg_sorted(kit *k, EncodedU64Array *a) {
  U64Segment *s = seg_new(k, LANCE__TABLE__U64_SEGMENT__SEGMENT_SORTED_ARRAY);
  s->sorted_array = a;
  return s;
}

static U64Segment *seg_array(kit *k, EncodedU64Array *a) {
  U64Segment *s = seg_new(k, LANCE__TABLE__U64_SEGMENT__SEGMENT_ARRAY);
  s->array = a;
  return s;
}

/* An EncodedU64Array of the given width (2, 4, 8) over raw bytes, so tests
 * can also give byte lengths that are not a multiple of the width. Width 0
 * leaves the oneof unset. */
static EncodedU64Array *arr_raw(kit *k, unsigned width, uint64_t base, const void *bytes, size_t n) {
  static const EncodedU64Array init = LANCE__TABLE__ENCODED_U64_ARRAY__INIT;
  static const Lance__Table__EncodedU64Array__U16Array i16 = LANCE__TABLE__ENCODED_U64_ARRAY__U16_ARRAY__INIT;
  static const Lance__Table__EncodedU64Array__U32Array i32 = LANCE__TABLE__ENCODED_U64_ARRAY__U32_ARRAY__INIT;
  static const Lance__Table__EncodedU64Array__U64Array i64 = LANCE__TABLE__ENCODED_U64_ARRAY__U64_ARRAY__INIT;
  EncodedU64Array *a = kit_new(k, sizeof *a);
  *a = init;
  ProtobufCBinaryData data = {n, kit_bytes(k, bytes, n)};
  if (width == 2) {
    a->array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY;
    a->u16_array = kit_new(k, sizeof *a->u16_array);
    *a->u16_array = i16, a->u16_array->base_value = base, a->u16_array->offsets = data;
  } else if (width == 4) {
    a->array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U32_ARRAY;
    a->u32_array = kit_new(k, sizeof *a->u32_array);
    *a->u32_array = i32, a->u32_array->base_value = base, a->u32_array->offsets = data;
  } else if (width == 8) {
    a->array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY;
    a->u64_array = kit_new(k, sizeof *a->u64_array);
    *a->u64_array = i64, a->u64_array->values = data;
  }
  return a;
}

/* Little-endian words of the given width, as upstream lays them out. */
static EncodedU64Array *arr_words(kit *k, unsigned width, uint64_t base, const uint64_t *words, size_t n) {
  uint8_t buf[512];
  assert_true(n * width <= sizeof buf);
  for (size_t i = 0; i < n; i++)
    for (unsigned b = 0; b < width; b++) buf[i * width + b] = (uint8_t)(words[i] >> (8 * b));
  return arr_raw(k, width, base, buf, n * width);
}

static lfa_buf pack_sequence(U64Segment **segs, size_t n) {
  RowIdSequence seq = LANCE__TABLE__ROW_ID_SEQUENCE__INIT;
  seq.n_segments = n;
  seq.segments = segs;
  lfa_buf out = {0};
  lfa_error err = {0};
  assert_ok(lfa_pb_pack(&out, &seq.base, &err), &err);
  return out;
}

/* ---- expectations --------------------------------------------------------- */

static void expect_ids(const lfa_buf *b, const uint64_t *want, size_t n) {
  lfa_error err = {0};
  lfa_row_ids got = {0};
  assert_ok(lfa_row_ids_decode(&got, b->data, b->len, &err), &err);
  assert_int_equal(got.count, n);
  for (size_t i = 0; i < n; i++)
    if (got.ids[i] != want[i]) fail_msg("id %zu: got %" PRIu64 ", want %" PRIu64, i, got.ids[i], want[i]);
  lfa_row_ids_free(&got);
}

static void expect_reject(const lfa_buf *b, lfa_status want, const char *rule, const char *needle) {
  lfa_error err = {0};
  lfa_row_ids got = {0};
  assert_status(lfa_row_ids_decode(&got, b->data, b->len, &err), want, &err);
  assert_rule(&err, rule);
  if (strstr(err.msg, needle) == NULL) fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
  assert_null(got.ids);
  assert_int_equal(got.count, 0);
}

/* Packs `segs`, expects the rejection, cleans up. */
static void reject_segments(kit *k, U64Segment **segs, size_t n, lfa_status want, const char *rule,
                            const char *needle) {
  lfa_buf b = pack_sequence(segs, n);
  expect_reject(&b, want, rule, needle);
  lfa_buf_free(&b);
  kit_free(k);
}

static void reject_one(kit *k, U64Segment *s, const char *needle) {
  reject_segments(k, &s, 1, LFA_ERR_RULE, "FA-LANCE-11", needle);
}

/* Encodes, decodes, compares; returns the unpacked message for shape checks. */
static RowIdSequence *round_trip(const uint64_t *ids, size_t n) {
  lfa_error err = {0};
  lfa_buf b = {0};
  assert_ok(lfa_row_ids_encode(&b, ids, n, &err), &err);
  expect_ids(&b, ids, n);
  ProtobufCMessage *m = NULL;
  assert_ok(lfa_pb_unpack(&m, &lance__table__row_id_sequence__descriptor, b.data ? b.data : (const uint8_t *)"",
                          b.len, "test", &err),
            &err);
  lfa_buf_free(&b);
  return (RowIdSequence *)(void *)m;
}

static Lance__Table__EncodedU64Array__ArrayCase array_width(const RowIdSequence *s, size_t i) {
  assert_true(i < s->n_segments);
  assert_int_equal(s->segments[i]->segment_case, LANCE__TABLE__U64_SEGMENT__SEGMENT_ARRAY);
  return s->segments[i]->array->array_case;
}

/* ---- round trips ---------------------------------------------------------- */

static void test_FA_LANCE_11_round_trip_contiguous_is_one_range(void **state) {
  (void)state;
  uint64_t ids[1000];
  for (size_t i = 0; i < 1000; i++) ids[i] = 5000 + i;
  RowIdSequence *s = round_trip(ids, 1000);
  assert_int_equal(s->n_segments, 1);
  assert_int_equal(s->segments[0]->segment_case, LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE);
  assert_int_equal(s->segments[0]->range->start, 5000);
  assert_int_equal(s->segments[0]->range->end, 6000);
  lfa_pb_free(s);
  /* A short run alone is still one range: an array could not be smaller. */
  s = round_trip(ids, 3);
  assert_int_equal(s->n_segments, 1);
  assert_int_equal(s->segments[0]->segment_case, LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE);
  lfa_pb_free(s);
}

static void test_FA_LANCE_11_round_trip_mixed_runs(void **state) {
  (void)state;
  uint64_t ids[300];
  size_t n = 0;
  for (uint64_t v = 0; v < 100; v++) ids[n++] = v;      /* range [0, 100) */
  ids[n++] = 500, ids[n++] = 7000, ids[n++] = 300;      /* array */
  ids[n++] = 301, ids[n++] = 302;                       /* short run: stays in the array */
  for (uint64_t v = 1000; v < 1100; v++) ids[n++] = v;  /* range [1000, 1100) */
  ids[n++] = 99999;                                     /* array */
  RowIdSequence *s = round_trip(ids, n);
  assert_int_equal(s->n_segments, 4);
  assert_int_equal(s->segments[0]->segment_case, LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE);
  assert_int_equal(array_width(s, 1), LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY);
  assert_int_equal(s->segments[1]->array->u16_array->base_value, 300);
  assert_int_equal(s->segments[2]->segment_case, LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE);
  assert_int_equal(s->segments[2]->range->start, 1000);
  assert_int_equal(array_width(s, 3), LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY);
  lfa_pb_free(s);
}

/* The narrowest width that holds max - min, at each boundary. */
static void test_FA_LANCE_11_round_trip_array_widths(void **state) {
  (void)state;
  static const struct {
    uint64_t spread;
    Lance__Table__EncodedU64Array__ArrayCase want;
  } cases[] = {
      {UINT16_MAX, LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY},
      {UINT16_MAX + 1ull, LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U32_ARRAY},
      {UINT32_MAX, LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U32_ARRAY},
      {UINT32_MAX + 1ull, LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY},
      {UINT64_MAX - 10, LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    uint64_t lo = 10, ids[] = {lo + cases[c].spread, lo + 5, lo, lo + cases[c].spread / 2};
    RowIdSequence *s = round_trip(ids, 4);
    assert_int_equal(s->n_segments, 1);
    assert_int_equal(array_width(s, 0), cases[c].want);
    if (cases[c].want != LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY)
      assert_int_equal(cases[c].want == LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY
                           ? s->segments[0]->array->u16_array->base_value
                           : s->segments[0]->array->u32_array->base_value,
                       lo);
    lfa_pb_free(s);
  }
}

static void test_FA_LANCE_11_round_trip_near_uint64_max(void **state) {
  (void)state;
  uint64_t ids[32];
  for (size_t i = 0; i < 21; i++) ids[i] = UINT64_MAX - 20 + i; /* ends at UINT64_MAX */
  /* [MAX-20, MAX) is a range; MAX itself cannot be (end is exclusive). */
  RowIdSequence *s = round_trip(ids, 21);
  assert_int_equal(s->n_segments, 2);
  assert_int_equal(s->segments[0]->range->end, UINT64_MAX);
  assert_int_equal(array_width(s, 1), LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY);
  assert_int_equal(s->segments[1]->array->u16_array->base_value, UINT64_MAX);
  lfa_pb_free(s);
  uint64_t one = UINT64_MAX;
  lfa_pb_free(round_trip(&one, 1));
  uint64_t ends[] = {UINT64_MAX, 0, UINT64_MAX - 1, 1};
  lfa_pb_free(round_trip(ends, 4));
  lfa_pb_free(round_trip(ids + 18, 2)); /* MAX-2, MAX-1: a range ending at MAX */
}

static void test_FA_LANCE_11_round_trip_zero_ids(void **state) {
  (void)state;
  lfa_error err = {0};
  lfa_buf b = {0};
  assert_ok(lfa_row_ids_encode(&b, NULL, 0, &err), &err);
  assert_int_equal(b.len, 0); /* a RowIdSequence without segments */
  lfa_row_ids got = {0};
  assert_ok(lfa_row_ids_decode(&got, b.data, b.len, &err), &err);
  assert_int_equal(got.count, 0);
  assert_null(got.ids);
  lfa_row_ids_free(&got);
  lfa_buf_free(&b);
}

static void test_FA_LANCE_11_round_trip_random(void **state) {
  (void)state;
  uint64_t seed = 0x5eed0011u;
  enum { N = 4000 };
  uint64_t *ids = malloc(N * sizeof *ids);
  assert_non_null(ids);
  for (int iter = 0; iter < 50; iter++) {
    size_t n = 0, want = tu_rand(&seed) % N;
    while (n < want) {
      /* Stretches of one flavour each: runs, u16/u32/u64 spreads, ids at the top. */
      uint64_t kind = tu_rand(&seed) % 5, base = tu_rand(&seed) % (1ull << 50);
      size_t len = 1 + tu_rand(&seed) % 40;
      for (size_t i = 0; i < len && n < want; i++) {
        uint64_t r = tu_rand(&seed);
        ids[n++] = kind == 0   ? base + i
                   : kind == 1 ? base + r % (1u << 16)
                   : kind == 2 ? base + r % (1ull << 33)
                   : kind == 3 ? r
                               : UINT64_MAX - r % 64;
      }
    }
    RowIdSequence *s = round_trip(ids, n);
    lfa_pb_free(s);
  }
  free(ids);
}

static void test_FA_LIMIT_1_encode_refuses_over_limit(void **state) {
  (void)state;
  lfa_error err = {0};
  lfa_buf b = {0};
  uint64_t id = 1;
  assert_status(lfa_row_ids_encode(&b, &id, (uint64_t)LFA_ROW_IDS_MAX + 1, &err), LFA_ERR_LIMIT, &err);
  assert_rule(&err, "FA-LIMIT-1");
  assert_int_equal(b.len, 0);
}

/* Runs of 8 between lone ids would give 2 segments per 9 ids, more than the
 * decoder accepts; the encoder must fall back to fewer, longer segments. */
static void test_FA_LIMIT_1_encode_stays_within_segment_limit(void **state) {
  (void)state;
  size_t groups = LFA_ROW_ID_SEGMENTS_MAX / 2 + 1000, n = groups * 9;
  uint64_t *ids = malloc(n * sizeof *ids);
  assert_non_null(ids);
  for (size_t g = 0; g < groups; g++) {
    for (size_t i = 0; i < 8; i++) ids[g * 9 + i] = g * 100 + i;
    ids[g * 9 + 8] = g * 100 + 50;
  }
  RowIdSequence *s = round_trip(ids, n);
  assert_true(s->n_segments <= LFA_ROW_ID_SEGMENTS_MAX);
  lfa_pb_free(s);
  free(ids);
}

/* ---- hand-built segments of each kind -------------------------------------- */

static void test_FA_LANCE_11_decode_range(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *segs[] = {seg_range(&k, 7, 10), seg_range(&k, 0, 0), seg_range(&k, 3, 4)};
  lfa_buf b = pack_sequence(segs, 3);
  expect_ids(&b, (const uint64_t[]){7, 8, 9, 3}, 4);
  lfa_buf_free(&b);
  kit_free(&k);
}

/* [FA-LANCE-7] A reader decodes a fragment's sequence knowing its
 * physical rows: the right length decodes as without them; another length
 * is refused once counted, so a few bytes claiming 2^26 ids are refused
 * for a 10-row fragment without expanding them (the fuzz targets'
 * slow_ranges_* inputs took seconds and 1 GiB when they were expanded). */
static void test_FA_LANCE_7_decode_rows_counts_before_expanding(void **state) {
  (void)state;
  kit k = {0};
  lfa_error err = {0};
  lfa_row_ids got = {0};
  U64Segment *segs[] = {seg_range(&k, 7, 10), seg_range(&k, 3, 4)};
  lfa_buf b = pack_sequence(segs, 2);
  assert_ok(lfa_row_ids_decode_rows(&got, b.data, b.len, 4, &err), &err);
  assert_int_equal(got.count, 4);
  assert_true(got.ids[0] == 7 && got.ids[1] == 8 && got.ids[2] == 9 && got.ids[3] == 3);
  lfa_row_ids_free(&got);
  assert_status(lfa_row_ids_decode_rows(&got, b.data, b.len, 5, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-LANCE-7");
  assert_non_null(strstr(err.msg, "holds 4 ids for 5 physical rows"));
  assert_null(got.ids);
  lfa_buf_free(&b);
  U64Segment *huge[] = {seg_range(&k, 0, 1u << 26)};
  b = pack_sequence(huge, 1);
  assert_true(b.len < 16);
  assert_status(lfa_row_ids_decode_rows(&got, b.data, b.len, 10, &err), LFA_ERR_RULE, &err);
  assert_non_null(strstr(err.msg, "holds 67108864 ids for 10 physical rows"));
  assert_null(got.ids);
  assert_int_equal(got.count, 0);
  lfa_buf_free(&b);
  kit_free(&k);
}

/* Upstream writes Range(0..0) when every id of a sequence is deleted. */
static void test_FA_LANCE_11_decode_empty_ranges_accepted(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *segs[] = {seg_range(&k, 0, 0), seg_holes(&k, 5, 5, arr_raw(&k, 2, 0, NULL, 0)),
                        seg_bitmap(&k, 9, 9, NULL, 0), seg_array(&k, arr_raw(&k, 8, 0, NULL, 0))};
  lfa_buf b = pack_sequence(segs, 4);
  lfa_error err = {0};
  lfa_row_ids got = {0};
  assert_ok(lfa_row_ids_decode(&got, b.data, b.len, &err), &err);
  assert_int_equal(got.count, 0);
  lfa_row_ids_free(&got);
  lfa_buf_free(&b);
  kit_free(&k);
}

static void test_FA_LANCE_11_decode_range_with_holes(void **state) {
  (void)state;
  kit k = {0};
  /* Holes are absolute values (upstream: range 50..60, holes [53, 54]). */
  U64Segment *segs[] = {seg_holes(&k, 50, 60, arr_words(&k, 2, 53, (const uint64_t[]){0, 1}, 2)),
                        seg_holes(&k, 100, 105, arr_words(&k, 8, 0, (const uint64_t[]){100, 104}, 2)),
                        seg_holes(&k, 1, 3, arr_words(&k, 4, 0, (const uint64_t[]){2}, 1))};
  lfa_buf b = pack_sequence(segs, 3);
  expect_ids(&b, (const uint64_t[]){50, 51, 52, 55, 56, 57, 58, 59, 101, 102, 103, 1}, 12);
  lfa_buf_free(&b);
  kit_free(&k);
}

/* Upstream Bitmap::get is data[i / 8] & (1 << (i % 8)): LSB-first. Its own
 * test sets [true, false, true, false, true] over 10..15, i.e. byte 0x15. */
static void test_FA_LANCE_11_decode_range_with_bitmap_lsb_first(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *segs[] = {seg_bitmap(&k, 10, 15, (const uint8_t[]){0x15}, 1),
                        seg_bitmap(&k, 100, 110, (const uint8_t[]){0x81, 0x02}, 2),
                        seg_bitmap(&k, 0, 16, (const uint8_t[]){0xff, 0x00}, 2)};
  lfa_buf b = pack_sequence(segs, 3);
  expect_ids(&b, (const uint64_t[]){10, 12, 14, 100, 107, 109, 0, 1, 2, 3, 4, 5, 6, 7}, 14);
  lfa_buf_free(&b);
  kit_free(&k);
}

static void test_FA_LANCE_11_decode_sorted_array_and_array(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *segs[] = {
      seg_sorted(&k, arr_words(&k, 2, 200, (const uint64_t[]){1, 2, 3}, 3)),
      seg_sorted(&k, arr_words(&k, 4, 1ull << 40, (const uint64_t[]){0, 70000, UINT32_MAX}, 3)),
      seg_sorted(&k, arr_words(&k, 8, 0, (const uint64_t[]){5, UINT64_MAX}, 2)),
      seg_array(&k, arr_words(&k, 2, 30, (const uint64_t[]){0, 9, 5}, 3)),
      seg_array(&k, arr_words(&k, 8, 0, (const uint64_t[]){3, 2, 1}, 3)),
  };
  lfa_buf b = pack_sequence(segs, 5);
  const uint64_t want[] = {201, 202, 203, 1ull << 40, (1ull << 40) + 70000, (1ull << 40) + UINT32_MAX,
                           5,   UINT64_MAX, 30, 39, 35, 3, 2, 1};
  expect_ids(&b, want, sizeof want / sizeof want[0]);
  lfa_buf_free(&b);
  kit_free(&k);
}

/* ---- rejections ----------------------------------------------------------- */

static void test_FA_LANCE_11_message_names_segment_and_fault(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *segs[] = {seg_range(&k, 0, 3), seg_range(&k, 3, 4), seg_range(&k, 4, 5),
                        seg_holes(&k, 10, 15, arr_words(&k, 8, 0, (const uint64_t[]){17}, 1))};
  reject_segments(&k, segs, 4, LFA_ERR_RULE, "FA-LANCE-11",
                  "segment 3 (range_with_holes): hole 17 is outside [10, 15)");
}

static void test_FA_LANCE_11_rejects_inverted_ranges(void **state) {
  (void)state;
  kit k = {0};
  reject_one(&k, seg_range(&k, 10, 9), "segment 0 (range): end 9 is before start 10");
  reject_one(&k, seg_holes(&k, 10, 2, arr_raw(&k, 2, 0, NULL, 0)), "segment 0 (range_with_holes): end 2");
  reject_one(&k, seg_bitmap(&k, UINT64_MAX, 0, NULL, 0), "segment 0 (range_with_bitmap): end 0");
}

static void test_FA_LANCE_11_rejects_hole_outside(void **state) {
  (void)state;
  kit k = {0};
  reject_one(&k, seg_holes(&k, 10, 15, arr_words(&k, 8, 0, (const uint64_t[]){9}, 1)), "hole 9 is outside");
  reject_one(&k, seg_holes(&k, 10, 15, arr_words(&k, 8, 0, (const uint64_t[]){15}, 1)), "hole 15 is outside");
  reject_one(&k, seg_holes(&k, 10, 15, arr_words(&k, 2, 20, (const uint64_t[]){0}, 1)), "hole 20 is outside");
}

static void test_FA_LANCE_11_rejects_unsorted_holes(void **state) {
  (void)state;
  kit k = {0};
  reject_one(&k, seg_holes(&k, 10, 20, arr_words(&k, 2, 10, (const uint64_t[]){1, 5, 3}, 3)),
             "segment 0 (range_with_holes): holes are not strictly ascending (hole 2 is 13 after 15)");
  reject_one(&k, seg_holes(&k, 10, 20, arr_words(&k, 8, 0, (const uint64_t[]){12, 12}, 2)),
             "holes are not strictly ascending");
}

static void test_FA_LANCE_11_rejects_missing_holes(void **state) {
  (void)state;
  kit k = {0};
  reject_one(&k, seg_holes(&k, 10, 20, NULL), "segment 0 (range_with_holes): holes is missing");
}

static void test_FA_LANCE_11_rejects_bad_bitmap_length(void **state) {
  (void)state;
  kit k = {0};
  reject_one(&k, seg_bitmap(&k, 0, 9, (const uint8_t[]){0xff}, 1),
             "segment 0 (range_with_bitmap): bitmap has 1 bytes, the 9 ids of the range need 2");
  /* A range of 2^40 ids needs 2^37 bitmap bytes: short, not a limit. */
  reject_one(&k, seg_bitmap(&k, 0, 1ull << 40, (const uint8_t[]){0xff}, 1), "bitmap has 1 bytes");
  /* Upstream writes exactly ceil(len / 8) bytes and counts ones in all of them. */
  reject_one(&k, seg_bitmap(&k, 0, 8, (const uint8_t[]){0xff, 0x00}, 2), "more than the 1 its range needs");
  reject_one(&k, seg_bitmap(&k, 0, 10, (const uint8_t[]){0xff, 0x04}, 2), "bitmap sets bits past the end 10");
}

static void test_FA_LANCE_11_rejects_unsorted_sorted_array(void **state) {
  (void)state;
  kit k = {0};
  reject_one(&k, seg_sorted(&k, arr_words(&k, 4, 0, (const uint64_t[]){1, 7, 6}, 3)),
             "segment 0 (sorted_array): value 2 is 6 after 7, not strictly ascending");
  reject_one(&k, seg_sorted(&k, arr_words(&k, 8, 0, (const uint64_t[]){4, 4}, 2)), "value 1 is 4 after 4");
}

static void test_FA_LANCE_11_rejects_ragged_array_bytes(void **state) {
  (void)state;
  kit k = {0};
  static const uint8_t raw[16] = {0};
  reject_one(&k, seg_array(&k, arr_raw(&k, 2, 0, raw, 3)),
             "segment 0 (array): values: 3 bytes of u16 words, not a multiple of 2");
  reject_one(&k, seg_sorted(&k, arr_raw(&k, 4, 0, raw, 6)), "6 bytes of u32 words, not a multiple of 4");
  reject_one(&k, seg_array(&k, arr_raw(&k, 8, 0, raw, 12)), "12 bytes of u64 words, not a multiple of 8");
  reject_one(&k, seg_holes(&k, 0, 9, arr_raw(&k, 2, 0, raw, 1)), "segment 0 (range_with_holes): holes: 1 bytes");
}

static void test_FA_LANCE_11_rejects_base_overflow(void **state) {
  (void)state;
  kit k = {0};
  reject_one(&k, seg_array(&k, arr_words(&k, 4, UINT64_MAX - 5, (const uint64_t[]){0, 6}, 2)),
             "segment 0 (array): values: base 18446744073709551610 + offset 6 overflows u64");
  reject_one(&k, seg_sorted(&k, arr_words(&k, 2, UINT64_MAX, (const uint64_t[]){1}, 1)), "overflows u64");
}

static void test_FA_LANCE_11_rejects_unset_kinds(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *segs[] = {seg_range(&k, 0, 1), seg_new(&k, LANCE__TABLE__U64_SEGMENT__SEGMENT__NOT_SET)};
  reject_segments(&k, segs, 2, LFA_ERR_RULE, "FA-LANCE-11", "segment 1 (unset): has no kind");
  reject_one(&k, seg_array(&k, arr_raw(&k, 0, 0, NULL, 0)), "segment 0 (array): values has no width");
  reject_one(&k, seg_sorted(&k, arr_raw(&k, 0, 0, NULL, 0)), "segment 0 (sorted_array): values has no width");
  reject_one(&k, seg_holes(&k, 0, 4, arr_raw(&k, 0, 0, NULL, 0)), "holes has no width");
}

static void test_FA_LANCE_11_rejects_non_protobuf(void **state) {
  (void)state;
  lfa_buf b = {0};
  lfa_buf_append(&b, "\x0a\x05\x0a", 3, NULL); /* length 5 with 1 byte left */
  expect_reject(&b, LFA_ERR_PROTO, "FA-LANCE-11", "row id sequence");
  lfa_buf_free(&b);
}

/* A range of 2^40 ids would need 8 TiB; ASan aborts on such a malloc, so
 * passing shows the count was refused before any allocation. */
static void test_FA_LIMIT_1_huge_range_refused_before_allocation(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *big = seg_range(&k, 1, (1ull << 40) + 1);
  reject_segments(&k, &big, 1, LFA_ERR_LIMIT, "FA-LIMIT-1", "segment 0 (range): 1099511627776 ids");
  /* Two ranges whose sum wraps u64 must not look small. */
  U64Segment *wrap[] = {seg_range(&k, 0, 1ull << 63), seg_range(&k, 0, 1ull << 63)};
  reject_segments(&k, wrap, 2, LFA_ERR_LIMIT, "FA-LIMIT-1", "segment 0 (range)");
  U64Segment *edge[] = {seg_range(&k, 0, LFA_ROW_IDS_MAX), seg_range(&k, 5, 6)};
  char needle[64];
  snprintf(needle, sizeof needle, "segment 1 (range): 1 ids after %u", (unsigned)LFA_ROW_IDS_MAX);
  reject_segments(&k, edge, 2, LFA_ERR_LIMIT, "FA-LIMIT-1", needle);
}

static void test_FA_LIMIT_1_too_many_segments(void **state) {
  (void)state;
  kit k = {0};
  size_t n = (size_t)LFA_ROW_ID_SEGMENTS_MAX + 1;
  U64Segment **segs = malloc(n * sizeof *segs);
  assert_non_null(segs);
  U64Segment *empty = seg_range(&k, 0, 0); /* every slot shares it: only the count matters */
  for (size_t i = 0; i < n; i++) segs[i] = empty;
  reject_segments(&k, segs, n, LFA_ERR_LIMIT, "FA-LIMIT-1", "1048577 segments (limit 1048576)");
  free(segs);
}

/* ---- robustness ----------------------------------------------------------- */

static void test_FA_LANCE_11_byte_flips_never_crash(void **state) {
  (void)state;
  kit k = {0};
  U64Segment *segs[] = {
      seg_range(&k, 0, 40),
      seg_holes(&k, 100, 140, arr_words(&k, 2, 100, (const uint64_t[]){1, 7, 30}, 3)),
      seg_bitmap(&k, 200, 220, (const uint8_t[]){0x5a, 0xff, 0x03}, 3),
      seg_sorted(&k, arr_words(&k, 4, 1000, (const uint64_t[]){0, 70000, 80000}, 3)),
      seg_array(&k, arr_words(&k, 8, 0, (const uint64_t[]){9, UINT64_MAX, 3}, 3)),
      seg_array(&k, arr_words(&k, 2, 500, (const uint64_t[]){4, 2, 0}, 3)),
  };
  lfa_buf good = pack_sequence(segs, 6);
  kit_free(&k);
  uint8_t *copy = malloc(good.len);
  assert_non_null(copy);
  uint64_t seed = 0xF11F5u, accepted = 0;
  for (int iter = 0; iter < 2000; iter++) {
    memcpy(copy, good.data, good.len);
    int flips = 1 + (int)(tu_rand(&seed) % 3);
    for (int f = 0; f < flips; f++) copy[tu_rand(&seed) % good.len] ^= (uint8_t)(1 + tu_rand(&seed) % 255);
    lfa_error err = {0};
    lfa_row_ids got = {0};
    lfa_status st = lfa_row_ids_decode(&got, copy, good.len, &err);
    if (st == LFA_OK) {
      accepted++;
      assert_true(got.count <= LFA_ROW_IDS_MAX);
      assert_true(got.count == 0 || got.ids != NULL);
    } else {
      assert_true(st == LFA_ERR_PROTO || st == LFA_ERR_RULE || st == LFA_ERR_LIMIT);
      assert_true(err.msg[0] != '\0');
      assert_null(got.ids);
    }
    lfa_row_ids_free(&got);
  }
  print_message("byte flips: %" PRIu64 " of 2000 still decode\n", accepted);
  free(copy);
  lfa_buf_free(&good);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_LANCE_11_round_trip_contiguous_is_one_range),
      cmocka_unit_test(test_FA_LANCE_11_round_trip_mixed_runs),
      cmocka_unit_test(test_FA_LANCE_11_round_trip_array_widths),
      cmocka_unit_test(test_FA_LANCE_11_round_trip_near_uint64_max),
      cmocka_unit_test(test_FA_LANCE_11_round_trip_zero_ids),
      cmocka_unit_test(test_FA_LANCE_11_round_trip_random),
      cmocka_unit_test(test_FA_LIMIT_1_encode_refuses_over_limit),
      cmocka_unit_test(test_FA_LIMIT_1_encode_stays_within_segment_limit),
      cmocka_unit_test(test_FA_LANCE_11_decode_range),
      cmocka_unit_test(test_FA_LANCE_7_decode_rows_counts_before_expanding),
      cmocka_unit_test(test_FA_LANCE_11_decode_empty_ranges_accepted),
      cmocka_unit_test(test_FA_LANCE_11_decode_range_with_holes),
      cmocka_unit_test(test_FA_LANCE_11_decode_range_with_bitmap_lsb_first),
      cmocka_unit_test(test_FA_LANCE_11_decode_sorted_array_and_array),
      cmocka_unit_test(test_FA_LANCE_11_message_names_segment_and_fault),
      cmocka_unit_test(test_FA_LANCE_11_rejects_inverted_ranges),
      cmocka_unit_test(test_FA_LANCE_11_rejects_hole_outside),
      cmocka_unit_test(test_FA_LANCE_11_rejects_unsorted_holes),
      cmocka_unit_test(test_FA_LANCE_11_rejects_missing_holes),
      cmocka_unit_test(test_FA_LANCE_11_rejects_bad_bitmap_length),
      cmocka_unit_test(test_FA_LANCE_11_rejects_unsorted_sorted_array),
      cmocka_unit_test(test_FA_LANCE_11_rejects_ragged_array_bytes),
      cmocka_unit_test(test_FA_LANCE_11_rejects_base_overflow),
      cmocka_unit_test(test_FA_LANCE_11_rejects_unset_kinds),
      cmocka_unit_test(test_FA_LANCE_11_rejects_non_protobuf),
      cmocka_unit_test(test_FA_LIMIT_1_huge_range_refused_before_allocation),
      cmocka_unit_test(test_FA_LIMIT_1_too_many_segments),
      cmocka_unit_test(test_FA_LANCE_11_byte_flips_never_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
