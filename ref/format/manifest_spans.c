/* manifest_spans.c: where each fragment's encoded bytes are in a manifest
 * file (lfa/manifest.h), so that a reader of consecutive versions can tell
 * an unchanged fragment by its bytes alone (10§5). A walk over the top
 * level of the Manifest message: each field's tag, and its payload skipped
 * by its wire type, every length checked against what is left. */
#include <inttypes.h>

#include "lfa/bytes.h"
#include "lfa/manifest.h"

enum { FRAGMENTS_FIELD = 2, WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5, VARINT_BYTES_MAX = 10 };

/* A base-128 varint at p[*at .. end); false when it runs past end or is too long. */
static bool read_varint(uint64_t *out, const uint8_t *p, size_t *at, size_t end) {
  uint64_t v = 0;
  for (unsigned i = 0; i < VARINT_BYTES_MAX && *at < end; i++) {
    uint8_t b = p[(*at)++];
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return *out = v, true;
  }
  return false;
}

/* Skips one payload of wire type `wire`; false when it does not fit. */
static bool skip(const uint8_t *p, size_t *at, size_t end, unsigned wire, size_t *len) {
  uint64_t v = 0;
  *len = 0;
  if (wire == WIRE_VARINT) return read_varint(&v, p, at, end);
  if (wire == WIRE_LEN && !read_varint(&v, p, at, end)) return false;
  size_t n = wire == WIRE_LEN ? (size_t)v : wire == WIRE_I64 ? 8 : wire == WIRE_I32 ? 4 : SIZE_MAX;
  if (n == SIZE_MAX || v > end - *at || n > end - *at) return false;
  *at += n, *len = n;
  return true;
}

lfa_status lfa_manifest_fragment_spans(lfa_span *spans, size_t n, const uint8_t *data, size_t len,
                                       uint64_t manifest_offset, lfa_error *err) {
  if (manifest_offset > len || len - manifest_offset < 4)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest offset %" PRIu64 " outside the file", manifest_offset);
  size_t at = (size_t)manifest_offset + 4, body = lfa_load_u32le(data + manifest_offset);
  if (body > len - at) return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest length past the file");
  size_t end = at + body, found = 0;
  while (at < end) {
    uint64_t tag = 0;
    size_t payload;
    if (!read_varint(&tag, data, &at, end)) break;
    if (!skip(data, &at, end, (unsigned)(tag & 7), &payload)) break;
    if (tag >> 3 != FRAGMENTS_FIELD || (tag & 7) != WIRE_LEN) continue;
    if (found < n) spans[found] = (lfa_span){at - payload, payload};
    found++;
  }
  if (at != end || found != n)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest fields do not walk to %zu fragments", n);
  return LFA_OK;
}
