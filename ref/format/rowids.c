/* rowids.c: stable row id sequences (lfa/rowids.h); implements FA-LANCE-11
 * (RowIdSequence decoding, validation and compact encoding) and FA-LIMIT-1
 * for the segment and id counts.
 *
 * Decoding runs in two passes over the unpacked message: the first validates
 * every segment and sums the ids it holds (with overflow and limit checks),
 * the second allocates exactly that many ids and expands. So a hostile count
 * is refused before anything proportional to it is allocated.
 *
 * Upstream facts this file relies on (lancedb/lance rust/lance-table/src/
 * rowids/{serde,segment,bitmap,encoded_array}.rs and rowids.rs):
 *  - RangeWithBitmap bit i is `data[i / 8] & (1 << (i % 8))`: LSB-first in
 *    each byte. (rowids.h and rowids.proto say MSB-first; upstream's code and
 *    tests, e.g. [true, false, true, false, true] -> 0x15, say LSB-first, and
 *    the bytes on disk are upstream's, so LSB-first is what is read here.)
 *  - Holes are absolute values, not offsets from start.
 *  - An empty range is written upstream: deleting every id of a sequence
 *    yields `Range(0..0)` (rowids.rs test_row_id_sequence_delete). So
 *    start == end is accepted (zero ids) for all three range kinds; only
 *    start > end is rejected.
 *  - Upstream writes bitmaps of exactly ceil(len / 8) bytes with the bits past
 *    the range cleared (Bitmap::new_full), and counts a segment's length from
 *    the ones in every byte. Extra bytes or stray padding bits would make that
 *    length disagree with the ids the segment lists, so both are rejected.
 */
#include "lfa/rowids.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lfa/limits.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "rowids.pb-c.h"

#define RULE "FA-LANCE-11"
#define LIMIT_RULE "FA-LIMIT-1"

/* A run shorter than this costs more as a `range` segment (two varints and
 * two message headers) than as a few more u16 offsets in an array. */
enum { RUN_MIN = 8 };

/* ---- EncodedU64Array ------------------------------------------------------ */

/* An array's values in place: value k is base + the k-th `width`-byte LE
 * word (u16/u32), or the raw k-th u64 (width 8, base 0). */
typedef struct array_view {
  const uint8_t *bytes;
  size_t nbytes, n; /* n = nbytes / width */
  unsigned width;
  uint64_t base;
} array_view;

static uint64_t view_get(const array_view *v, size_t k) {
  const uint8_t *p = v->bytes + k * v->width;
  if (v->width == 2) return v->base + lfa_load_u16le(p);
  if (v->width == 4) return v->base + lfa_load_u32le(p);
  return lfa_load_u64le(p);
}

/* Sets up the view without checking; the caller checked with check_array,
 * or the width is unset and n stays 0. */
static array_view view_of(const EncodedU64Array *a) {
  array_view v = {NULL, 0, 0, 8, 0};
  const ProtobufCBinaryData *b = NULL;
  if (a->array_case == LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY) {
    v.width = 2, v.base = a->u16_array->base_value, b = &a->u16_array->offsets;
  } else if (a->array_case == LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U32_ARRAY) {
    v.width = 4, v.base = a->u32_array->base_value, b = &a->u32_array->offsets;
  } else if (a->array_case == LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY) {
    b = &a->u64_array->values;
  }
  if (b != NULL) v.bytes = b->data, v.nbytes = b->len, v.n = b->len / v.width;
  return v;
}

static lfa_status check_array(array_view *out, const EncodedU64Array *a, size_t seg, const char *kind,
                              const char *what, lfa_error *err) {
  if (a == NULL) /* upstream: "missing hole" */
    return lfa_fail(err, LFA_ERR_RULE, RULE, "segment %zu (%s): %s is missing", seg, kind, what);
  if (a->array_case != LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY &&
      a->array_case != LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U32_ARRAY &&
      a->array_case != LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY) /* upstream: "missing array type" */
    return lfa_fail(err, LFA_ERR_RULE, RULE,
                    "segment %zu (%s): %s has no width (none of u16_array, u32_array, u64_array)",
                    seg, kind, what);
  array_view v = view_of(a);
  /* Upstream asserts (panics) on a ragged tail; here it is a rejection. */
  if (v.nbytes % v.width != 0)
    return lfa_fail(err, LFA_ERR_RULE, RULE, "segment %zu (%s): %s: %zu bytes of u%u words, not a multiple of %u",
                    seg, kind, what, v.nbytes, v.width * 8, v.width);
  /* Upstream adds base + offset in u64; a sum past 2^64 has no meaning. */
  if (v.width != 8) {
    uint64_t max = 0;
    for (size_t k = 0; k < v.n; k++) {
      uint64_t off = v.width == 2 ? lfa_load_u16le(v.bytes + 2 * k) : lfa_load_u32le(v.bytes + 4 * k);
      if (off > max) max = off;
    }
    if (max > UINT64_MAX - v.base)
      return lfa_fail(err, LFA_ERR_RULE, RULE,
                      "segment %zu (%s): %s: base %" PRIu64 " + offset %" PRIu64 " overflows u64", seg,
                      kind, what, v.base, max);
  }
  *out = v;
  return LFA_OK;
}

/* ---- U64Segment: validation and counting ----------------------------------- */

static const char *kind_name(Lance__Table__U64Segment__SegmentCase c) {
  switch (c) {
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE: return "range";
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_HOLES: return "range_with_holes";
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_BITMAP: return "range_with_bitmap";
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_SORTED_ARRAY: return "sorted_array";
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_ARRAY: return "array";
    default: return "unset";
  }
}

/* start == end is an empty segment upstream writes (see the header comment). */
static lfa_status check_bounds(uint64_t start, uint64_t end, size_t seg, const char *kind, lfa_error *err) {
  if (start > end)
    return lfa_fail(err, LFA_ERR_RULE, RULE, "segment %zu (%s): end %" PRIu64 " is before start %" PRIu64,
                    seg, kind, end, start);
  return LFA_OK;
}

static lfa_status count_range(uint64_t *count, const Lance__Table__U64Segment__Range *r, size_t seg,
                              lfa_error *err) {
  lfa_status st = check_bounds(r->start, r->end, seg, "range", err);
  if (st == LFA_OK) *count = r->end - r->start;
  return st;
}

/* Upstream finds holes by binary search, so they must be strictly ascending,
 * and each must remove an id of the range for the count to hold. */
static lfa_status count_holes(uint64_t *count, const Lance__Table__U64Segment__RangeWithHoles *r, size_t seg,
                              lfa_error *err) {
  static const char kind[] = "range_with_holes";
  array_view v;
  lfa_status st = check_bounds(r->start, r->end, seg, kind, err);
  if (st == LFA_OK) st = check_array(&v, r->holes, seg, kind, "holes", err);
  if (st != LFA_OK) return st;
  for (size_t k = 0; k < v.n; k++) {
    uint64_t h = view_get(&v, k), prev = k > 0 ? view_get(&v, k - 1) : 0;
    if (h < r->start || h >= r->end)
      return lfa_fail(err, LFA_ERR_RULE, RULE,
                      "segment %zu (%s): hole %" PRIu64 " is outside [%" PRIu64 ", %" PRIu64 ")", seg, kind,
                      h, r->start, r->end);
    if (k > 0 && h <= prev)
      return lfa_fail(err, LFA_ERR_RULE, RULE,
                      "segment %zu (%s): holes are not strictly ascending (hole %zu is %" PRIu64
                      " after %" PRIu64 ")",
                      seg, kind, k, h, prev);
  }
  *count = (r->end - r->start) - v.n; /* v.n distinct holes inside the range */
  return LFA_OK;
}

static int popcount8(uint8_t b) {
  int n = 0;
  for (; b != 0; b &= (uint8_t)(b - 1)) n++;
  return n;
}

static lfa_status count_bitmap(uint64_t *count, const Lance__Table__U64Segment__RangeWithBitmap *r, size_t seg,
                               lfa_error *err) {
  static const char kind[] = "range_with_bitmap";
  lfa_status st = check_bounds(r->start, r->end, seg, kind, err);
  if (st != LFA_OK) return st;
  uint64_t span = r->end - r->start, need = span / 8 + (span % 8 != 0); /* no overflow near 2^64 */
  const ProtobufCBinaryData *b = &r->bitmap;
  if ((uint64_t)b->len < need)
    return lfa_fail(err, LFA_ERR_RULE, RULE,
                    "segment %zu (%s): bitmap has %zu bytes, the %" PRIu64 " ids of the range need %" PRIu64,
                    seg, kind, b->len, span, need);
  if ((uint64_t)b->len > need)
    return lfa_fail(err, LFA_ERR_RULE, RULE,
                    "segment %zu (%s): bitmap has %zu bytes, more than the %" PRIu64 " its range needs", seg,
                    kind, b->len, need);
  if (span % 8 != 0 && ((unsigned)b->data[b->len - 1] >> (span % 8)) != 0)
    return lfa_fail(err, LFA_ERR_RULE, RULE, "segment %zu (%s): bitmap sets bits past the end %" PRIu64,
                    seg, kind, r->end);
  uint64_t ones = 0;
  for (size_t k = 0; k < b->len; k++) ones += (uint64_t)popcount8(b->data[k]);
  *count = ones;
  return LFA_OK;
}

static lfa_status count_sorted(uint64_t *count, const EncodedU64Array *a, size_t seg, lfa_error *err) {
  static const char kind[] = "sorted_array";
  array_view v;
  lfa_status st = check_array(&v, a, seg, kind, "values", err);
  if (st != LFA_OK) return st;
  for (size_t k = 1; k < v.n; k++) {
    uint64_t x = view_get(&v, k), prev = view_get(&v, k - 1);
    if (x <= prev)
      return lfa_fail(err, LFA_ERR_RULE, RULE,
                      "segment %zu (%s): value %zu is %" PRIu64 " after %" PRIu64 ", not strictly ascending",
                      seg, kind, k, x, prev);
  }
  *count = v.n;
  return LFA_OK;
}

static lfa_status count_segment(uint64_t *count, const U64Segment *s, size_t seg, lfa_error *err) {
  array_view v;
  lfa_status st;
  switch (s->segment_case) {
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE: return count_range(count, s->range, seg, err);
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_HOLES:
      return count_holes(count, s->range_with_holes, seg, err);
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_BITMAP:
      return count_bitmap(count, s->range_with_bitmap, seg, err);
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_SORTED_ARRAY: return count_sorted(count, s->sorted_array, seg, err);
    case LANCE__TABLE__U64_SEGMENT__SEGMENT_ARRAY:
      st = check_array(&v, s->array, seg, "array", "values", err);
      if (st == LFA_OK) *count = v.n;
      return st;
    default:
      /* Upstream: "missing segment type". */
      return lfa_fail(err, LFA_ERR_RULE, RULE,
                      "segment %zu (unset): has no kind (none of range, range_with_holes, "
                      "range_with_bitmap, sorted_array, array)",
                      seg);
  }
}

/* ---- RowIdSequence: counting, then expansion ------------------------------- */

static lfa_status count_all(uint64_t *total, const Lance__Table__RowIdSequence *seq, lfa_error *err) {
  if (seq->n_segments > LFA_ROW_ID_SEGMENTS_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, LIMIT_RULE, "row id sequence has %zu segments (limit %u)",
                    seq->n_segments, (unsigned)LFA_ROW_ID_SEGMENTS_MAX);
  *total = 0;
  for (size_t i = 0; i < seq->n_segments; i++) {
    uint64_t n = 0;
    lfa_status st = count_segment(&n, seq->segments[i], i, err);
    if (st != LFA_OK) return st;
    /* Compared against what is left of the limit, so the sum cannot wrap. */
    if (n > LFA_ROW_IDS_MAX - *total)
      return lfa_fail(err, LFA_ERR_LIMIT, LIMIT_RULE,
                      "segment %zu (%s): %" PRIu64 " ids after %" PRIu64 " exceed the limit of %u ids", i,
                      kind_name(seq->segments[i]->segment_case), n, *total, (unsigned)LFA_ROW_IDS_MAX);
    *total += n;
  }
  return LFA_OK;
}

/* Writes the ids of a segment count_segment accepted; returns how many. */
static size_t expand_segment(uint64_t *dst, const U64Segment *s) {
  size_t k = 0;
  if (s->segment_case == LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE) {
    for (uint64_t x = s->range->start; x < s->range->end; x++) dst[k++] = x;
  } else if (s->segment_case == LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_HOLES) {
    const Lance__Table__U64Segment__RangeWithHoles *r = s->range_with_holes;
    array_view holes = view_of(r->holes);
    size_t h = 0; /* next hole: they ascend, so one pass merges them out */
    for (uint64_t x = r->start; x < r->end; x++) {
      if (h < holes.n && view_get(&holes, h) == x) h++;
      else dst[k++] = x;
    }
  } else if (s->segment_case == LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_BITMAP) {
    const Lance__Table__U64Segment__RangeWithBitmap *r = s->range_with_bitmap;
    for (uint64_t i = 0; i < r->end - r->start; i++)
      if (((unsigned)r->bitmap.data[i / 8] >> (i % 8)) & 1u) dst[k++] = r->start + i; /* LSB-first, as upstream */
  } else {
    const EncodedU64Array *a = s->segment_case == LANCE__TABLE__U64_SEGMENT__SEGMENT_SORTED_ARRAY ? s->sorted_array
                                                                                           : s->array;
    array_view v = view_of(a);
    for (; k < v.n; k++) dst[k] = view_get(&v, k);
  }
  return k;
}

static lfa_status expand_all(lfa_row_ids *out, const Lance__Table__RowIdSequence *seq, uint64_t total,
                             lfa_error *err) {
  if (total == 0) return LFA_OK; /* ids stays NULL */
  uint64_t *ids = malloc((size_t)total * sizeof *ids); /* total <= LFA_ROW_IDS_MAX */
  if (ids == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate %" PRIu64 " row ids", total);
  size_t k = 0;
  for (size_t i = 0; i < seq->n_segments; i++) k += expand_segment(ids + k, seq->segments[i]);
  out->ids = ids;
  out->count = k;
  return LFA_OK;
}

/* Decodes, counts, checks the count against *rows (when not NULL), then
 * expands. */
static lfa_status decode(lfa_row_ids *out, const uint8_t *data, size_t len, const uint64_t *rows, lfa_error *err) {
  static const uint8_t none[1];
  out->count = 0;
  out->ids = NULL;
  if (data == NULL && len != 0) return lfa_fail(err, LFA_ERR_USAGE, NULL, "row id sequence: NULL bytes");
  ProtobufCMessage *m = NULL;
  lfa_status st = lfa_pb_unpack(&m, &lance__table__row_id_sequence__descriptor, data ? data : none, len,
                                "row id sequence", err);
  if (st != LFA_OK) {
    /* Bytes that are no RowIdSequence break FA-LANCE-11 too. */
    if (st == LFA_ERR_PROTO && err != NULL && err->rule == NULL) err->rule = RULE;
    return st;
  }
  const Lance__Table__RowIdSequence *seq = (const Lance__Table__RowIdSequence *)(const void *)m;
  uint64_t total = 0;
  st = count_all(&total, seq, err);
  /* [FA-LANCE-7] one id per physical row: refused before any id is expanded */
  if (st == LFA_OK && rows != NULL && total != *rows)
    st = lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-7", "row id sequence holds %" PRIu64 " ids for %" PRIu64 " physical rows",
                  total, *rows);
  if (st == LFA_OK) st = expand_all(out, seq, total, err);
  lfa_pb_free(m);
  return st;
}

lfa_status lfa_row_ids_decode(lfa_row_ids *out, const uint8_t *data, size_t len, lfa_error *err) {
  return decode(out, data, len, NULL, err);
}

lfa_status lfa_row_ids_decode_rows(lfa_row_ids *out, const uint8_t *data, size_t len, uint64_t physical_rows,
                                   lfa_error *err) {
  return decode(out, data, len, &physical_rows, err);
}

void lfa_row_ids_free(lfa_row_ids *ids) {
  if (ids == NULL) return;
  free(ids->ids);
  ids->ids = NULL;
  ids->count = 0;
}

/* ---- encoding -------------------------------------------------------------- */

/* One segment to write: ids[at, at + len) as a range or as an array. */
typedef struct piece {
  size_t at, len;
  bool is_range;
} piece;

/* Consecutive ids from i that one range can hold: end is exclusive, so
 * UINT64_MAX itself never fits in a range. */
static size_t run_at(const uint64_t *ids, size_t i, size_t n) {
  if (ids[i] == UINT64_MAX) return 0;
  size_t j = i + 1;
  while (j < n && ids[j] != UINT64_MAX && ids[j] == ids[j - 1] + 1) j++;
  return j - i;
}

/* The segment starting at *pos: a run of at least run_min ids (or one run
 * covering everything) is a range; ids before the next such run form an
 * array. Returns false at the end. */
static bool next_piece(piece *p, const uint64_t *ids, size_t n, size_t run_min, size_t *pos) {
  if (*pos >= n) return false;
  size_t i = *pos;
  while (i < n) {
    size_t r = run_at(ids, i, n);
    if (r > 0 && (r >= run_min || r == n)) {
      if (i > *pos) *p = (piece){*pos, i - *pos, false};
      else *p = (piece){i, r, true};
      *pos = p->at + p->len;
      return true;
    }
    i += r > 0 ? r : 1;
  }
  *p = (piece){*pos, n - *pos, false};
  *pos = n;
  return true;
}

/* The smallest run length (from RUN_MIN, doubling) that keeps the output
 * within the segments the decoder accepts. Once run_min exceeds n there is
 * at most one segment, so this ends. */
static size_t pick_run_min(const uint64_t *ids, size_t n) {
  size_t run_min = RUN_MIN;
  for (;;) {
    size_t pos = 0, segments = 0;
    piece p;
    while (segments <= LFA_ROW_ID_SEGMENTS_MAX && next_piece(&p, ids, n, run_min, &pos)) segments++;
    if (segments <= LFA_ROW_ID_SEGMENTS_MAX) return run_min;
    run_min *= 2;
  }
}

/* Packs a one-segment RowIdSequence. Concatenated, these are byte for byte
 * the packing of the whole sequence (field 1 is a repeated message, written
 * as one tag-length-value per element), and only one segment's offsets are
 * ever held in memory. */
static lfa_status pack_segment(lfa_buf *out, U64Segment *s, lfa_error *err) {
  Lance__Table__RowIdSequence seq = LANCE__TABLE__ROW_ID_SEQUENCE__INIT;
  seq.n_segments = 1;
  seq.segments = &s;
  return lfa_pb_pack(out, &seq.base, err);
}

static lfa_status emit_range(lfa_buf *out, uint64_t start, size_t len, lfa_error *err) {
  Lance__Table__U64Segment__Range r = LANCE__TABLE__U64_SEGMENT__RANGE__INIT;
  U64Segment s = LANCE__TABLE__U64_SEGMENT__INIT;
  r.start = start;
  r.end = start + len; /* run_at kept start + len <= UINT64_MAX */
  s.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE;
  s.range = &r;
  return pack_segment(out, &s, err);
}

static lfa_status emit_array(lfa_buf *out, const uint64_t *ids, size_t n, lfa_error *err) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t k = 0; k < n; k++) lo = ids[k] < lo ? ids[k] : lo, hi = ids[k] > hi ? ids[k] : hi;
  unsigned width = hi - lo <= UINT16_MAX ? 2 : hi - lo <= UINT32_MAX ? 4 : 8;
  uint8_t *bytes = malloc(n * width); /* n <= LFA_ROW_IDS_MAX: no overflow */
  if (bytes == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate %zu array bytes", n * width);
  for (size_t k = 0; k < n; k++) {
    uint8_t *p = bytes + k * width;
    if (width == 2) p[0] = (uint8_t)(ids[k] - lo), p[1] = (uint8_t)((ids[k] - lo) >> 8);
    else if (width == 4) lfa_store_u32le(p, (uint32_t)(ids[k] - lo));
    else lfa_store_u64le(p, ids[k]);
  }
  Lance__Table__EncodedU64Array__U16Array a16 = LANCE__TABLE__ENCODED_U64_ARRAY__U16_ARRAY__INIT;
  Lance__Table__EncodedU64Array__U32Array a32 = LANCE__TABLE__ENCODED_U64_ARRAY__U32_ARRAY__INIT;
  Lance__Table__EncodedU64Array__U64Array a64 = LANCE__TABLE__ENCODED_U64_ARRAY__U64_ARRAY__INIT;
  EncodedU64Array arr = LANCE__TABLE__ENCODED_U64_ARRAY__INIT;
  ProtobufCBinaryData data = {n * width, bytes};
  if (width == 2) {
    a16.base_value = lo, a16.offsets = data, arr.u16_array = &a16;
    arr.array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY;
  } else if (width == 4) {
    a32.base_value = lo, a32.offsets = data, arr.u32_array = &a32;
    arr.array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U32_ARRAY;
  } else {
    a64.values = data, arr.u64_array = &a64;
    arr.array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY;
  }
  U64Segment s = LANCE__TABLE__U64_SEGMENT__INIT;
  s.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_ARRAY;
  s.array = &arr;
  lfa_status st = pack_segment(out, &s, err);
  free(bytes);
  return st;
}

lfa_status lfa_row_ids_encode(lfa_buf *out, const uint64_t *ids, uint64_t count, lfa_error *err) {
  if (count > 0 && ids == NULL) return lfa_fail(err, LFA_ERR_USAGE, NULL, "row ids: NULL ids");
  /* Refuse what lfa_row_ids_decode would refuse. */
  if (count > LFA_ROW_IDS_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, LIMIT_RULE, "%" PRIu64 " row ids exceed the limit of %u", count,
                    (unsigned)LFA_ROW_IDS_MAX);
  size_t n = (size_t)count, pos = 0, start_len = out->len;
  size_t run_min = n > 0 ? pick_run_min(ids, n) : RUN_MIN;
  piece p;
  lfa_status st = LFA_OK;
  while (st == LFA_OK && next_piece(&p, ids, n, run_min, &pos))
    st = p.is_range ? emit_range(out, ids[p.at], p.len, err) : emit_array(out, ids + p.at, p.len, err);
  if (st != LFA_OK) out->len = start_len; /* no half-written sequence */
  return st;
}
