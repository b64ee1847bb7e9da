/* manifest_walk.c: the top level of a manifest's message walked without
 * decoding it (lfa/manifest.h): where its sections are, where each
 * fragment's bytes are, and with them a manifest file decoded beside the
 * version before it (10§5).
 *
 * Consecutive versions of a table share almost all their fragments: an
 * append adds one, a delete changes one. A fragment's message is a length-
 * delimited record of field 2 of the Manifest, and equal bytes decode to
 * equal fields, so a fragment whose bytes equal one of the previous
 * version's is not decoded again: the previous decoded message is shared.
 * The decode then costs what the commit changed.
 *
 * The walk below reads the top level of the Manifest message only: each
 * field's tag, its payload skipped by wire type, every length checked
 * against what is left. The records of shared fragments are cut out of a
 * copy of the manifest's bytes, the copy is unpacked, and the fragment
 * list is put back together in its order. Whenever the walk and the
 * decoder could disagree (a walk that fails, a count that differs, an
 * unpack that fails), the manifest is decoded whole instead, so errors are
 * those of lfa_manifest_file_decode, word for word.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bytes.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/search.h"
#include "manifest_internal.h"

enum { FRAGMENTS_FIELD = 2, FRAGMENT_ID_FIELD = 1, INDEX_SECTION_FIELD = 6, TRANSACTION_SECTION_FIELD = 21 };
enum { READER_FLAGS_FIELD = 9, WRITER_FLAGS_FIELD = 10, WRITER_VERSION_FIELD = 13 };
enum { WIRE_VARINT = LFA_PB_VARINT, WIRE_LEN = LFA_PB_LEN };

/* ---- the walk over the top level ------------------------------------------- */

/* One fragment's record: where its tag starts, and its payload. */
typedef struct record {
  size_t start;
  lfa_span payload;
} record;

/* Every record of field 2 in body [start, end) of `data`, appended to
 * *records (capacity *cap, grown as needed). False when the walk does not
 * reach `end` exactly, or memory runs out (*nomem). */
static bool walk(record **records, size_t *cap, size_t *n, bool *nomem, const uint8_t *data, size_t start,
                 size_t end) {
  size_t at = start;
  while (at < end) {
    size_t first = at, payload;
    uint64_t tag = 0;
    if (!lfa_pb_read_varint(&tag, data, &at, end) || !lfa_pb_skip(data, &at, end, (unsigned)(tag & 7), &payload)) return false;
    if (tag >> 3 != FRAGMENTS_FIELD || (tag & 7) != WIRE_LEN) continue;
    if (*n == *cap) { /* n < end - start: every record takes 2 bytes */
      size_t grown = *cap ? 2 * *cap : 64;
      record *r = realloc(*records, grown * sizeof *r);
      if (r == NULL) return *nomem = true, false;
      *records = r, *cap = grown;
    }
    (*records)[(*n)++] = (record){first, {at - payload, payload}};
  }
  return true;
}

/* The fragment records of the manifest message at `manifest_offset`. */
static lfa_status fragment_records(record **out, size_t *n, const uint8_t *data, size_t len,
                                   uint64_t manifest_offset, lfa_error *err) {
  *out = NULL, *n = 0;
  if (manifest_offset > len || len - manifest_offset < 4)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest offset %" PRIu64 " outside the file", manifest_offset);
  size_t start = (size_t)manifest_offset + 4, body = lfa_load_u32le(data + manifest_offset), cap = 0;
  bool nomem = false;
  if (body > len - start) return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest length past the file");
  if (walk(out, &cap, n, &nomem, data, start, start + body)) return LFA_OK;
  free(*out), *out = NULL, *n = 0;
  if (nomem) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory listing fragments");
  return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest fields do not walk to the manifest's end");
}

bool lfa_manifest_sections_from(uint64_t *lowest, const uint8_t *body, size_t len, uint64_t bound) {
  size_t at = 0, skipped;
  bool index = false, txn = false;
  uint64_t index_at = 0, txn_at = 0;
  while (at < len) {
    uint64_t tag = 0, *v = NULL;
    if (!lfa_pb_read_varint(&tag, body, &at, len)) return false;
    if (tag >> 3 == INDEX_SECTION_FIELD) v = &index_at, index = true;
    if (tag >> 3 == TRANSACTION_SECTION_FIELD) v = &txn_at, txn = true;
    if (v != NULL && (tag & 7) != WIRE_VARINT) return false; /* the decoder refuses it: nothing is known */
    if (v != NULL ? !lfa_pb_read_varint(v, body, &at, len) : !lfa_pb_skip(body, &at, len, (unsigned)(tag & 7), &skipped))
      return false; /* each occurrence replaces the one before, as in the decoder */
  }
  *lowest = bound;
  if (index && index_at < *lowest) *lowest = index_at;
  if (txn && txn_at < *lowest) *lowest = txn_at;
  return true;
}

lfa_status lfa_manifest_fragment_spans(lfa_span *spans, size_t n, const uint8_t *data, size_t len,
                                       uint64_t manifest_offset, lfa_error *err) {
  record *r = NULL;
  size_t found = 0;
  lfa_status st = fragment_records(&r, &found, data, len, manifest_offset, err);
  if (st == LFA_OK && found != n)
    st = lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest fields walk to %zu fragments, not %zu", found, n);
  for (size_t i = 0; st == LFA_OK && i < n; i++) spans[i] = r[i].payload;
  free(r);
  return st;
}

/* ---- which layout the manifest's state has (FA-FLAG-7) ----------------------------- */

/* What the layout depends on, read from the top level before decoding:
 * the feature words and the writer's library and version (the last
 * occurrence of each wins, as in the decoder). */
typedef struct layout_facts {
  uint64_t reader, writer;
  lfa_span library, version; /* in the writer_version payload; len 0: absent */
} layout_facts;

static void writer_version_facts(layout_facts *f, const uint8_t *p, size_t at, size_t end) {
  while (at < end) {
    uint64_t tag = 0, n = 0;
    size_t len;
    if (!lfa_pb_read_varint(&tag, p, &at, end)) return;
    if ((tag >> 3 == 1 || tag >> 3 == 2) && (tag & 7) == WIRE_LEN) {
      size_t mark = at;
      if (!lfa_pb_read_varint(&n, p, &at, end) || n > end - at) return;
      *(tag >> 3 == 1 ? &f->library : &f->version) = (lfa_span){at, (size_t)n};
      at = mark;
    }
    if (!lfa_pb_skip(p, &at, end, (unsigned)(tag & 7), &len)) return;
  }
}

static bool scan_layout(layout_facts *f, const uint8_t *body, size_t len) {
  size_t at = 0, payload;
  *f = (layout_facts){0};
  while (at < len) {
    uint64_t tag = 0, field;
    if (!lfa_pb_read_varint(&tag, body, &at, len)) return false;
    field = tag >> 3;
    if ((field == READER_FLAGS_FIELD || field == WRITER_FLAGS_FIELD) && (tag & 7) == WIRE_VARINT) {
      if (!lfa_pb_read_varint(field == READER_FLAGS_FIELD ? &f->reader : &f->writer, body, &at, len)) return false;
      continue;
    }
    if (!lfa_pb_skip(body, &at, len, (unsigned)(tag & 7), &payload)) return false;
    if (field == WRITER_VERSION_FIELD && (tag & 7) == WIRE_LEN) {
      f->library = f->version = (lfa_span){0};
      writer_version_facts(f, body, at - payload, at);
    }
  }
  return true;
}

/* [FA-FLAG-7] The current layout decodes field 1022 as descriptors and
 * leaves 22 alone. A manifest without 2^52 keeps 1022 aside, undecoded
 * (someone else's field: never state, never corrupt); the two earlier
 * layouts read their field 22 as descriptors. */
lfa_status lfa_manifest_unpack_body(Lance__Table__Manifest **out, const uint8_t *body, size_t len, lfa_error *err) {
  layout_facts f;
  lfa_layout layout = LFA_LAYOUT_CURRENT;
  if (scan_layout(&f, body, len))
    layout = lfa_layout_of(f.reader, f.writer,
                           lfa_writer_is_lance_from((const char *)body + f.library.offset, f.library.len,
                                                    (const char *)body + f.version.offset, f.version.len,
                                                    LFA_LANCE_MAJOR_FIELD_22));
  lfa_pb_move moves[2] = {{LFA_MANIFEST_FIELD_DESCRIPTORS, 0},
                          {LFA_MANIFEST_FIELD_DESCRIPTORS_BEFORE, LFA_MANIFEST_FIELD_DESCRIPTORS}};
  size_t n = layout == LFA_LAYOUT_CURRENT ? 0 : layout == LFA_LAYOUT_NONE ? 1 : 2;
  lfa_status st = lfa_pb_unpack_moved((ProtobufCMessage **)out, &lance__table__manifest__descriptor, body, len, moves, n,
                                      "manifest", err);
  if (st != LFA_OK && n == 2) lfa_error_prefix(err, "read as %s", lfa_layout_name(layout));
  return st;
}

bool lfa_manifest_writer_is_lance_from(const Lance__Table__Manifest *m, unsigned major) {
  const Lance__Table__Manifest__WriterVersion *wv = m->writer_version;
  return wv != NULL && wv->library != NULL && wv->version != NULL &&
         lfa_writer_is_lance_from(wv->library, strlen(wv->library), wv->version, strlen(wv->version), major);
}

lfa_layout lfa_manifest_layout(const Lance__Table__Manifest *m) {
  lfa_layout layout = lfa_layout_of(m->reader_feature_flags, m->writer_feature_flags,
                                    lfa_manifest_writer_is_lance_from(m, LFA_LANCE_MAJOR_FIELD_22));
  return layout == LFA_LAYOUT_CURRENT || m->n_field_assignment_states > 0 ? layout : LFA_LAYOUT_NONE;
}

bool lfa_manifest_reads_field_22(const Lance__Table__Manifest *m) {
  uint64_t any = m->reader_feature_flags | m->writer_feature_flags;
  return !(any & (LFA_FLAG_FIELD_ASSIGNMENT | LFA_LANCE_FLAG_FRAGMENT_TREE)) &&
         !lfa_manifest_writer_is_lance_from(m, LFA_LANCE_MAJOR_FIELD_22);
}

/* ---- finding the previous version's equal fragment ----------------------------- */

/* What is known of the previous version while matching. */
typedef struct before {
  const lfa_manifest_file *file; /* NULL: nothing to share */
  int ids_ascend;                /* -1 not yet looked at, else 0 or 1 */
} before;

static bool equal_bytes(const before *b, size_t k, const uint8_t *data, lfa_span s) {
  const lfa_span *t = &b->file->spans[k];
  return t->len == s.len && memcmp(b->file->bytes.data + t->offset, data + s.offset, s.len) == 0;
}

/* The id the fragment's bytes name (field 1, the last one written wins),
 * or false when they name none the walk can read. Only a hint of where to
 * look: whatever it finds is compared byte for byte. */
static bool id_hint(uint64_t *id, const uint8_t *data, lfa_span s) {
  size_t at = s.offset, end = s.offset + s.len, len;
  bool found = false;
  while (at < end) {
    uint64_t tag = 0;
    if (!lfa_pb_read_varint(&tag, data, &at, end)) return false;
    if (tag == (FRAGMENT_ID_FIELD << 3 | WIRE_VARINT)) {
      if (!lfa_pb_read_varint(id, data, &at, end)) return false;
      found = true;
    } else if (!lfa_pb_skip(data, &at, end, (unsigned)(tag & 7), &len)) {
      return false;
    }
  }
  return found;
}

/* The index of the previous version's fragment with id `id`, by binary
 * search when its ids ascend (Lance's order), else SIZE_MAX: a lookup
 * that only saves a decode is not worth a sort per version. */
static int fragment_by_id(const void *key, const void *fragment) {
  return lfa_order_u64(*(const uint64_t *)key, (*(const Lance__Table__DataFragment *const *)fragment)->id);
}

static size_t by_id(before *b, uint64_t id) {
  const Lance__Table__Manifest *m = b->file->manifest;
  if (b->ids_ascend < 0) {
    b->ids_ascend = 1;
    for (size_t i = 1; i < m->n_fragments && b->ids_ascend; i++)
      b->ids_ascend = m->fragments[i - 1]->id < m->fragments[i]->id;
  }
  return b->ids_ascend ? lfa_search(&id, m->fragments, m->n_fragments, sizeof *m->fragments, fragment_by_id) : SIZE_MAX;
}

/* The previous version's fragment with the bytes of span `s` (fragment i),
 * or SIZE_MAX. Tried in turn: the one after the last match (fragments
 * keep their order), the same position, the same id. */
static size_t match(before *b, size_t next, size_t i, const uint8_t *data, lfa_span s) {
  size_t n = b->file != NULL ? b->file->manifest->n_fragments : 0;
  uint64_t id = 0;
  if (next < n && equal_bytes(b, next, data, s)) return next;
  if (i != next && i < n && equal_bytes(b, i, data, s)) return i;
  if (n == 0 || !id_hint(&id, data, s)) return SIZE_MAX;
  size_t k = by_id(b, id);
  return k != SIZE_MAX && k != next && k != i && equal_bytes(b, k, data, s) ? k : SIZE_MAX;
}

/* ---- decoding with the matches cut out ------------------------------------------ */

/* The manifest body [start, end) with the records of matched fragments cut out. */
static lfa_status cut(lfa_buf *out, const uint8_t *data, size_t start, size_t end, const record *r, size_t n,
                      const size_t *same, lfa_error *err) {
  uint8_t *p = malloc(end - start ? end - start : 1);
  if (p == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory copying the manifest");
  size_t len = 0, from = start;
  for (size_t i = 0; i < n; i++) {
    if (same[i] == SIZE_MAX) continue;
    memcpy(p + len, data + from, r[i].start - from), len += r[i].start - from;
    from = r[i].payload.offset + r[i].payload.len;
  }
  memcpy(p + len, data + from, end - from), len += end - from;
  *out = (lfa_buf){.data = p, .len = len, .cap = end - start};
  return LFA_OK;
}

/* out->manifest, unpacked without the matched fragments, gets its whole
 * list back in order: the fragments it decoded, each in a new cell, and
 * the previous version's, shared. Every cell is made before the list
 * changes, so running out of memory leaves the manifest as unpacked. */
static lfa_status splice(lfa_manifest_file *out, const before *b, size_t n, lfa_error *err) {
  Lance__Table__Manifest *m = out->manifest;
  size_t own = m->n_fragments, made = 0;
  Lance__Table__DataFragment **all = malloc((n ? n : 1) * sizeof *all);
  lfa_shared_fragment **cells = malloc((n ? n : 1) * sizeof *cells);
  for (size_t i = 0; all != NULL && cells != NULL && i < n; i++) {
    if (out->same_as_prev[i] != SIZE_MAX) continue;
    if ((cells[i] = malloc(sizeof **cells)) == NULL) break;
    *cells[i] = (lfa_shared_fragment){0, m->fragments[made++]};
  }
  if (all == NULL || cells == NULL || made < own) {
    for (size_t i = 0; cells != NULL && made > 0; i++)
      if (out->same_as_prev[i] == SIZE_MAX) free(cells[i]), made--;
    return free(all), free(cells), lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory sharing fragments");
  }
  for (size_t i = 0; i < n; i++) {
    size_t k = out->same_as_prev[i];
    if (k != SIZE_MAX) cells[i] = b->file->cells[k];
    cells[i]->refs++;
    all[i] = cells[i]->msg;
  }
  free(m->fragments); /* its own list; the messages live on in the cells */
  m->fragments = all, m->n_fragments = n;
  out->cells = cells;
  return LFA_OK;
}

/* The fragments of the file being decoded: where each is, and which of
 * the previous version's has its bytes. A walk that fails leaves
 * out->spans NULL: the decoder then says what is wrong, or the file shares
 * nothing. */
static lfa_status find_matches(lfa_manifest_file *out, record **r, size_t *n, size_t *matched, before *b,
                               const uint8_t *data, size_t len, lfa_error *err) {
  *matched = 0;
  lfa_status st = fragment_records(r, n, data, len, out->manifest_offset, NULL);
  if (st == LFA_ERR_NOMEM) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory listing fragments");
  if (st != LFA_OK) return LFA_OK;
  out->spans = malloc((*n ? *n : 1) * sizeof *out->spans);
  out->same_as_prev = malloc((*n ? *n : 1) * sizeof *out->same_as_prev);
  if (out->spans == NULL || out->same_as_prev == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0, next = 0; i < *n; i++) {
    size_t k = match(b, next, i, data, (*r)[i].payload);
    out->spans[i] = (*r)[i].payload, out->same_as_prev[i] = k;
    if (k != SIZE_MAX) next = k + 1, ++*matched;
  }
  return LFA_OK;
}

/* Unpacks `body` (cut or whole) as the manifest. */
static lfa_status unpack(lfa_manifest_file *out, const uint8_t *body, size_t len, lfa_error *err) {
  return lfa_manifest_unpack_body(&out->manifest, body, len, err);
}

/* Unpacks the body without the matched fragments. When that fails, the
 * matches are dropped (out->manifest stays NULL): the whole body is
 * unpacked instead, so its error is the one a plain decode gives. */
static lfa_status unpack_cut(lfa_manifest_file *out, size_t *matched, const uint8_t *data, size_t start, size_t end,
                             const record *r, size_t n, lfa_error *err) {
  lfa_buf body = {0};
  lfa_status st = cut(&body, data, start, end, r, n, out->same_as_prev, err);
  if (st == LFA_OK && unpack(out, body.data, body.len, NULL) != LFA_OK) {
    for (size_t i = 0; i < n; i++) out->same_as_prev[i] = SIZE_MAX;
    *matched = 0;
  }
  lfa_buf_free(&body);
  return st;
}

/* Forgets what find_matches found: the file is an ordinary one. */
static void share_nothing(lfa_manifest_file *out) {
  free(out->spans), free(out->same_as_prev);
  out->spans = NULL, out->same_as_prev = NULL;
}

lfa_status lfa_manifest_unpack_after(lfa_manifest_file *out, const uint8_t *data, size_t len,
                                     const lfa_manifest_file *prev, lfa_error *err) {
  size_t start = (size_t)out->manifest_offset + 4, end = len - 16, n = 0, matched = 0; /* as read_footer found them */
  bool can = prev != NULL && prev->spans != NULL && prev->cells != NULL && prev->bytes.data != NULL;
  before b = {can ? prev : NULL, -1};
  record *r = NULL;
  lfa_status st = find_matches(out, &r, &n, &matched, &b, data, len, err);
  if (st == LFA_OK && matched > 0) st = unpack_cut(out, &matched, data, start, end, r, n, err);
  if (st == LFA_OK && out->manifest == NULL) st = unpack(out, data + start, end - start, err);
  if (st == LFA_OK && out->spans != NULL && out->manifest->n_fragments + matched != n) {
    lfa_pb_free(out->manifest); /* the walk and the decoder disagree: the file shares nothing */
    out->manifest = NULL;
    share_nothing(out);
    st = unpack(out, data + start, end - start, err);
  }
  if (st == LFA_OK && out->spans != NULL) st = splice(out, &b, n, err);
  if (st != LFA_OK) share_nothing(out);
  free(r);
  return st;
}

void lfa_manifest_fragments_release(lfa_manifest_file *file) {
  Lance__Table__Manifest *m = file->manifest;
  if (file->cells != NULL && m != NULL) {
    for (size_t i = 0; i < m->n_fragments; i++) {
      lfa_shared_fragment *c = file->cells[i];
      if (--c->refs == 0) lfa_pb_free(c->msg), free(c);
    }
    free(m->fragments);
    m->fragments = NULL, m->n_fragments = 0;
  }
  free(file->cells);
  file->cells = NULL;
  share_nothing(file);
}
