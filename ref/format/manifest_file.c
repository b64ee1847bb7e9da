/* manifest_file.c: manifest file framing and the descriptor reader rules.
 * Implements FA-LANCE-1, FA-STORE-1, FA-STORE-3, FA-STORE-4; layout in
 * lfa/manifest.h. */
#include "lfa/manifest.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/limits.h"
#include "lfa/pb.h"
#include "lfa/search.h"
#include "lfa/transaction.h"
#include "manifest_internal.h"

enum { FOOTER_BYTES = 16, PREFIX_BYTES = 4 };
static const char MAGIC[4] = {'L', 'A', 'N', 'C'};

/* Finds the protobuf of a u32-length-prefixed section at `at` that must end
 * no later than `end`. */
static lfa_status section_at(const uint8_t **body, size_t *body_len, const uint8_t *data,
                             uint64_t at, uint64_t end, const char *what, lfa_error *err) {
  if (at > end || end - at < PREFIX_BYTES)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1",
                    "%s offset %" PRIu64 " is not before the manifest at %" PRIu64, what, at, end);
  uint32_t n = lfa_load_u32le(data + at);
  if (n > end - at - PREFIX_BYTES)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1",
                    "%s at %" PRIu64 " declares %u bytes but only %" PRIu64 " precede the manifest", what,
                    at, (unsigned)n, end - at - PREFIX_BYTES);
  *body = data + at + PREFIX_BYTES;
  *body_len = n;
  return LFA_OK;
}

/* [FA-LANCE-1] footer and the manifest's length prefix. */
static lfa_status read_footer(lfa_manifest_file *out, const uint8_t **body, size_t *body_len,
                              const uint8_t *data, size_t len, lfa_error *err) {
  if (len > LFA_MANIFEST_FILE_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "manifest file of %zu bytes exceeds %u", len,
                    (unsigned)LFA_MANIFEST_FILE_BYTES_MAX);
  if (len < FOOTER_BYTES + PREFIX_BYTES)
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-LANCE-1", "manifest file of %zu bytes has no room for its footer", len);
  const uint8_t *footer = data + len - FOOTER_BYTES;
  if (memcmp(footer + 12, MAGIC, sizeof MAGIC) != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest file does not end with \"LANC\"");
  uint64_t pos = lfa_load_u64le(footer);
  out->footer_major = lfa_load_u16le(footer + 8);
  out->footer_minor = lfa_load_u16le(footer + 10);
  uint64_t end = len - FOOTER_BYTES;
  if (pos > end || end - pos < PREFIX_BYTES)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1",
                    "footer points at byte %" PRIu64 ", outside the %zu-byte file", pos, len);
  uint32_t n = lfa_load_u32le(data + pos);
  if ((uint64_t)n != end - pos - PREFIX_BYTES)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1",
                    "manifest at %" PRIu64 " declares %u bytes but %" PRIu64 " lie before the footer", pos,
                    (unsigned)n, end - pos - PREFIX_BYTES);
  out->manifest_offset = pos;
  *body = data + pos + PREFIX_BYTES;
  *body_len = n;
  return LFA_OK;
}

static lfa_status read_sections(lfa_manifest_file *out, const uint8_t *data, lfa_error *err) {
  const Lance__Table__Manifest *m = out->manifest;
  const uint8_t *body = NULL;
  size_t n = 0;
  lfa_status st = LFA_OK;
  if (m->_index_section_case == LANCE__TABLE__MANIFEST___INDEX_SECTION_INDEX_SECTION) {
    st = section_at(&body, &n, data, m->index_section, out->manifest_offset, "index section", err);
    if (st == LFA_OK)
      st = lfa_pb_unpack((ProtobufCMessage **)&out->index_section, &lance__table__index_section__descriptor,
                         body, n, "index section", err);
  }
  if (st == LFA_OK &&
      m->_transaction_section_case == LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION) {
    st = section_at(&body, &n, data, m->transaction_section, out->manifest_offset,
                    "transaction section", err);
    if (st == LFA_OK) st = lfa_transaction_decode_beside(&out->transaction, body, n, m, err);
    if (st != LFA_OK) lfa_error_prefix(err, "inline transaction");
  }
  return st;
}

/* The decode both entry points share: the manifest message plainly, or
 * beside `prev` when `after` is set. */
static lfa_status decode(lfa_manifest_file *out, const uint8_t *data, size_t len, bool after,
                         const lfa_manifest_file *prev, lfa_error *err) {
  const uint8_t *body = NULL;
  size_t n = 0;
  memset(out, 0, sizeof *out);
  lfa_status st = read_footer(out, &body, &n, data, len, err);
  if (st == LFA_OK && after) st = lfa_manifest_unpack_after(out, data, len, prev, err);
  else if (st == LFA_OK)
    st = lfa_manifest_unpack_body(&out->manifest, body, n, err);
  if (st == LFA_OK) st = read_sections(out, data, err);
  if (st == LFA_OK) st = lfa_manifest_check_descriptors(out->manifest, err);
  if (st != LFA_OK) lfa_manifest_file_free(out);
  return st;
}

lfa_status lfa_manifest_file_decode(lfa_manifest_file *out, const uint8_t *data, size_t len,
                                    lfa_error *err) {
  return decode(out, data, len, false, NULL, err);
}

lfa_status lfa_manifest_file_decode_after(lfa_manifest_file *out, lfa_buf *bytes, const lfa_manifest_file *prev,
                                          lfa_error *err) {
  lfa_status st = decode(out, bytes->data, bytes->len, true, prev, err);
  if (st == LFA_OK) out->bytes = *bytes, *bytes = (lfa_buf){0};
  return st;
}

void lfa_manifest_file_free(lfa_manifest_file *file) {
  lfa_manifest_fragments_release(file);
  lfa_buf_free(&file->bytes);
  lfa_pb_free(file->manifest);
  lfa_pb_free(file->index_section);
  lfa_transaction_free(file->transaction);
  memset(file, 0, sizeof *file);
}

/* A field id and where it was listed; sorted by (id, index). */
typedef struct id_index {
  int32_t id;
  size_t index;
} id_index;

static int by_id_index(const void *a, const void *b) {
  const id_index *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static int by_field(const void *a, const void *b) {
  const Lance__File__Field *x = *(const Lance__File__Field *const *)a, *y = *(const Lance__File__Field *const *)b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x > y) - (x < y); /* the list is in memory order: the first listed first */
}

lfa_status lfa_field_index_make(lfa_field_index *out, const Lance__Table__Manifest *m, lfa_error *err) {
  out->n = m->n_fields;
  out->by_id = malloc((out->n ? out->n : 1) * sizeof *out->by_id);
  if (out->by_id == NULL) return out->n = 0, lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory indexing fields");
  for (size_t i = 0; i < out->n; i++) out->by_id[i] = m->fields[i];
  if (out->n > 1) qsort(out->by_id, out->n, sizeof *out->by_id, by_field);
  return LFA_OK;
}

static int field_by_id(const void *key, const void *field) {
  return lfa_order_i64(*(const int32_t *)key, (*(const Lance__File__Field *const *)field)->id);
}

const Lance__File__Field *lfa_field_index_find(const lfa_field_index *x, int32_t id) {
  size_t i = lfa_search(&id, x->by_id, x->n, sizeof *x->by_id, field_by_id);
  return i != SIZE_MAX ? x->by_id[i] : NULL;
}

void lfa_field_index_free(lfa_field_index *x) {
  free(x->by_id);
  memset(x, 0, sizeof *x);
}

lfa_status lfa_manifest_first_same_field(size_t **first, const Lance__Table__Manifest *m, lfa_error *err) {
  size_t n = m->n_field_assignment_states;
  id_index *byid = malloc((n ? n : 1) * sizeof *byid);
  *first = malloc((n ? n : 1) * sizeof **first);
  if (byid == NULL || *first == NULL) {
    free(byid), free(*first), *first = NULL;
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory checking descriptors");
  }
  for (size_t i = 0; i < n; i++) byid[i] = (id_index){m->field_assignment_states[i]->field_id, i};
  if (n > 1) qsort(byid, n, sizeof *byid, by_id_index);
  for (size_t k = 0; k < n; k++)
    (*first)[byid[k].index] = k > 0 && byid[k - 1].id == byid[k].id ? (*first)[byid[k - 1].index] : byid[k].index;
  free(byid);
  return LFA_OK;
}

static lfa_status check_one_descriptor(const Lance__Table__Manifest *m, size_t i, size_t first_same,
                                       const lfa_field_index *fields, lfa_error *err) {
  const Lance__Table__FieldAssignmentState *d = m->field_assignment_states[i];
  /* [FA-STORE-1] "unique within a manifest": a reader cannot pick one. */
  if (first_same != i)
    return lfa_fail(err, LFA_ERR_RULE, "FA-STORE-1", "field %d has two assignment descriptors (entries %zu and %zu)",
                    d->field_id, first_same, i);
  if (lfa_field_index_find(fields, d->field_id) == NULL)
    return lfa_fail(err, LFA_ERR_RULE, "FA-STORE-3",
                    "assignment descriptor %zu names field %d, which is not in the schema", i, d->field_id);
  if (d->root == NULL)
    return lfa_fail(err, LFA_ERR_RULE, "FA-STORE-4", "assignment descriptor of field %d has no root", d->field_id);
  if (d->root->path == NULL || d->root->path[0] == '\0')
    return lfa_fail(err, LFA_ERR_RULE, "FA-STORE-4", "assignment root of field %d has an empty path", d->field_id);
  return LFA_OK;
}

/* O((D + F) log(D + F)): sorted, not pairwise. */
lfa_status lfa_manifest_check_descriptors(const Lance__Table__Manifest *m, lfa_error *err) {
  if (m->n_field_assignment_states == 0) return LFA_OK;
  size_t *first = NULL;
  lfa_field_index fields = {0};
  lfa_status st = lfa_manifest_first_same_field(&first, m, err);
  if (st == LFA_OK) st = lfa_field_index_make(&fields, m, err);
  for (size_t i = 0; st == LFA_OK && i < m->n_field_assignment_states; i++)
    if ((st = check_one_descriptor(m, i, first[i], &fields, err)) != LFA_OK)
      lfa_error_at_field(err, m->field_assignment_states[i]->field_id);
  free(first);
  lfa_field_index_free(&fields);
  return st;
}

/* One u32-length-prefixed section holding `msg`; its offset from `start`
 * in *at. */
static lfa_status put_section(lfa_buf *out, uint64_t *at, size_t start, const ProtobufCMessage *msg,
                              const lfa_pb_move *move, lfa_error *err) {
  size_t pos = out->len;
  *at = pos - start;
  lfa_status st = lfa_buf_put_u32le(out, 0, err);
  if (st == LFA_OK) st = lfa_pb_pack_moved(out, msg, move, move != NULL, err);
  if (st == LFA_OK && out->len - pos - PREFIX_BYTES > UINT32_MAX)
    st = lfa_fail(err, LFA_ERR_LIMIT, "FA-LANCE-1", "a section of %zu bytes does not fit its u32 length",
                  out->len - pos - PREFIX_BYTES);
  if (st == LFA_OK) lfa_store_u32le(out->data + pos, (uint32_t)(out->len - pos - PREFIX_BYTES));
  return st;
}

lfa_status lfa_manifest_file_encode(lfa_buf *out, const Lance__Table__Manifest *manifest,
                                    const Lance__Table__Transaction *transaction, lfa_error *err) {
  return lfa_manifest_file_encode_sections(out, manifest, NULL, transaction, err);
}

/* [FA-FLAG-7] Where a manifest of an earlier layout (and its inline
 * transaction) keeps the state: field 22 (and 5), so that it reads back as
 * it was read. */
static const lfa_pb_move DESCRIPTORS_EARLIER = {LFA_MANIFEST_FIELD_DESCRIPTORS, LFA_MANIFEST_FIELD_DESCRIPTORS_BEFORE};

/* [FA-LANCE-1] sections in Lance's order (index, transaction), then the
 * manifest pointing at them, then the footer. */
lfa_status lfa_manifest_file_encode_sections(lfa_buf *out, const Lance__Table__Manifest *manifest,
                                             const Lance__Table__IndexSection *index_section,
                                             const Lance__Table__Transaction *transaction, lfa_error *err) {
  Lance__Table__Manifest m = *manifest; /* shallow: only the section offsets differ */
  m._index_section_case = LANCE__TABLE__MANIFEST___INDEX_SECTION__NOT_SET;
  m._transaction_section_case = LANCE__TABLE__MANIFEST___TRANSACTION_SECTION__NOT_SET;
  size_t start = out->len;
  lfa_status st = LFA_OK;
  if (index_section != NULL) {
    st = put_section(out, &m.index_section, start, &index_section->base, NULL, err);
    m._index_section_case = LANCE__TABLE__MANIFEST___INDEX_SECTION_INDEX_SECTION;
  }
  if (st == LFA_OK && transaction != NULL) {
    st = put_section(out, &m.transaction_section, start, &transaction->base, lfa_sidecar_move(manifest), err);
    m._transaction_section_case = LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION;
  }
  uint64_t pos = 0;
  if (st == LFA_OK) st = put_section(out, &pos, start, &m.base, lfa_sidecar_move(manifest) ? &DESCRIPTORS_EARLIER : NULL, err);
  if (st == LFA_OK) st = lfa_buf_put_u64le(out, pos, err);
  if (st == LFA_OK) st = lfa_buf_put_u16le(out, LFA_MANIFEST_FOOTER_MAJOR, err);
  if (st == LFA_OK) st = lfa_buf_put_u16le(out, LFA_MANIFEST_FOOTER_MINOR, err);
  if (st == LFA_OK) st = lfa_buf_append(out, MAGIC, sizeof MAGIC, err);
  return st;
}
