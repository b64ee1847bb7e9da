/* decode_manifest_after: two manifest files of consecutive versions, the
 * second decoded beside the first (lfa_manifest_file_decode_after, 10§5),
 * against the plain decode of the second.
 *
 * Input: a u32 LE length L, then L bytes of the earlier file (fewer when
 * the input is shorter), then the later file. The earlier one is decoded
 * beside nothing; the later beside it when it decoded, else beside
 * nothing.
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the same status and message as the plain decode (the
 * shortcut never changes an error); on success the same manifest, field
 * for field (their packed bytes), the same sections; every fragment said
 * to be shared has the earlier fragment's bytes and is its message; and
 * the later file still packs the same after the earlier one is freed.
 */
#include <string.h>

#include "fuzz_helpers.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"

static lfa_buf copy_of(const uint8_t *data, size_t len) {
  lfa_buf b = {0};
  uint8_t *tail = NULL;
  FUZZ_ASSERT(lfa_buf_extend(&b, len, &tail, NULL) == LFA_OK, "out of memory copying the input");
  if (len > 0) memcpy(tail, data, len);
  return b;
}

static lfa_buf packed(const Lance__Table__Manifest *m) {
  lfa_buf b = {0};
  FUZZ_ASSERT(lfa_pb_pack(&b, &m->base, NULL) == LFA_OK, "a decoded manifest does not pack");
  return b;
}

static bool same_bytes(const lfa_buf *a, const lfa_buf *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Every fragment said to be shared is the earlier file's, with its bytes. */
static void check_shared(const lfa_manifest_file *f, const lfa_manifest_file *prev) {
  const Lance__Table__Manifest *m = f->manifest;
  if (f->same_as_prev == NULL) return;
  FUZZ_ASSERT(f->spans != NULL && f->cells != NULL, "matches without spans or cells");
  for (size_t i = 0; i < m->n_fragments; i++) {
    size_t k = f->same_as_prev[i];
    FUZZ_ASSERT(f->cells[i]->msg == m->fragments[i] && f->cells[i]->refs > 0, "a cell not holding its fragment");
    if (k == SIZE_MAX) continue;
    FUZZ_ASSERT(prev != NULL && prev->spans != NULL && k < prev->manifest->n_fragments, "shared with nothing");
    FUZZ_ASSERT(m->fragments[i] == prev->manifest->fragments[k], "shared but not the earlier message");
    const lfa_span *a = &f->spans[i], *b = &prev->spans[k];
    FUZZ_ASSERT(a->len == b->len && memcmp(f->bytes.data + a->offset, prev->bytes.data + b->offset, a->len) == 0,
                "shared without equal bytes");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  size_t first = lfa_load_u32le(data);
  if (first > size - 4) first = size - 4;
  const uint8_t *later = data + 4 + first;
  size_t later_len = size - 4 - first;

  lfa_manifest_file prev = {0}, plain, after;
  lfa_buf a = copy_of(data + 4, first), b = copy_of(later, later_len);
  lfa_error e0 = fuzz_error(), e1 = fuzz_error(), e2 = fuzz_error();
  bool have_prev = lfa_manifest_file_decode_after(&prev, &a, NULL, &e0) == LFA_OK;
  lfa_status st_plain = lfa_manifest_file_decode(&plain, later, later_len, &e1);
  lfa_status st = lfa_manifest_file_decode_after(&after, &b, have_prev ? &prev : NULL, &e2);
  fuzz_check_status(st, &e2);
  FUZZ_ASSERT(st == st_plain, "decoding beside the earlier version changed the status");
  FUZZ_ASSERT(strcmp(e1.msg, e2.msg) == 0, "decoding beside the earlier version changed the message");
  if (st == LFA_OK) {
    FUZZ_ASSERT(b.data == NULL && after.bytes.len == later_len, "the bytes were not taken over");
    lfa_buf x = packed(plain.manifest), y = packed(after.manifest);
    FUZZ_ASSERT(same_bytes(&x, &y), "decoding beside the earlier version changed the manifest");
    FUZZ_ASSERT((plain.transaction == NULL) == (after.transaction == NULL) &&
                    (plain.index_section == NULL) == (after.index_section == NULL) &&
                    plain.manifest_offset == after.manifest_offset,
                "decoding beside the earlier version changed the sections");
    check_shared(&after, have_prev ? &prev : NULL);
    lfa_manifest_file_free(&prev), have_prev = false; /* what it shared lives on in `after` */
    lfa_buf z = packed(after.manifest);
    FUZZ_ASSERT(same_bytes(&x, &z), "the later manifest changed when the earlier one was freed");
    lfa_buf_free(&x), lfa_buf_free(&y), lfa_buf_free(&z);
    lfa_manifest_file_free(&plain);
    lfa_manifest_file_free(&after);
  } else {
    FUZZ_ASSERT(b.data != NULL || later_len == 0, "a failed decode took the bytes");
    FUZZ_ASSERT(after.manifest == NULL && after.cells == NULL && after.spans == NULL, "a failed decode left objects");
  }
  if (have_prev) lfa_manifest_file_free(&prev);
  lfa_buf_free(&a), lfa_buf_free(&b);
  return 0;
}
