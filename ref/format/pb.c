/* pb.c: bounded protobuf-c unpacking (see lfa/pb.h). Implements FA-LIMIT-1
 * for every protobuf object lfa reads. */
#include "lfa/pb.h"

#include <stdbool.h>
#include <stdlib.h>

#include "lfa/limits.h"

/* Unpack-time allocation budget. Frees are not credited back: protobuf-c
 * frees only on failure, and the budget lives only during one unpack. */
typedef struct budget {
  size_t left;
  bool exhausted;
} budget;

static void *budget_alloc(void *data, size_t size) {
  budget *b = data;
  if (size > b->left) {
    b->exhausted = true;
    return NULL;
  }
  b->left -= size;
  return malloc(size ? size : 1);
}

/* Must not touch `data`: messages are freed long after the budget is gone,
 * through the default allocator (also malloc/free). */
static void budget_free(void *data, void *ptr) {
  (void)data;
  free(ptr);
}

enum { WALK_DEPTH_MAX = 32 }; /* Lance's schemas nest far less deeply. */

static bool has_field_zero(const ProtobufCMessage *m, int depth);

static bool field_has_zero(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f, int depth) {
  const char *base = (const char *)m;
  if (f->type != PROTOBUF_C_TYPE_MESSAGE) return false;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    size_t n = *(const size_t *)(const void *)(base + f->quantifier_offset);
    ProtobufCMessage *const *items = *(ProtobufCMessage *const *const *)(const void *)(base + f->offset);
    for (size_t i = 0; i < n; i++)
      if (has_field_zero(items[i], depth + 1)) return true;
    return false;
  }
  if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
      *(const uint32_t *)(const void *)(base + f->quantifier_offset) != f->id)
    return false;
  const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)(const void *)(base + f->offset);
  return sub != NULL && has_field_zero(sub, depth + 1);
}

static bool has_field_zero(const ProtobufCMessage *m, int depth) {
  if (depth > WALK_DEPTH_MAX) return true;
  for (unsigned i = 0; i < m->n_unknown_fields; i++)
    if (m->unknown_fields[i].tag == 0) return true;
  for (unsigned i = 0; i < m->descriptor->n_fields; i++)
    if (field_has_zero(m, &m->descriptor->fields[i], depth)) return true;
  return false;
}

lfa_status lfa_pb_unpack(ProtobufCMessage **out, const ProtobufCMessageDescriptor *desc,
                         const uint8_t *data, size_t len, const char *what, lfa_error *err) {
  budget b = {LFA_PROTO_ALLOC_MAX, false};
  ProtobufCAllocator alloc = {budget_alloc, budget_free, &b};
  *out = NULL;
  ProtobufCMessage *m = protobuf_c_message_unpack(desc, &alloc, len, data);
  if (m == NULL && b.exhausted)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1",
                    "%s (%zu bytes) needs more than %u bytes of memory to decode", what, len,
                    (unsigned)LFA_PROTO_ALLOC_MAX);
  if (m == NULL)
    return lfa_fail(err, LFA_ERR_PROTO, NULL, "%s (%zu bytes) is not a valid %s protobuf", what, len,
                    desc->name);
  if (has_field_zero(m, 0)) {
    lfa_pb_free(m);
    return lfa_fail(err, LFA_ERR_PROTO, NULL, "%s holds a field numbered 0", what);
  }
  *out = m;
  return LFA_OK;
}

lfa_status lfa_pb_pack(lfa_buf *out, const ProtobufCMessage *msg, lfa_error *err) {
  size_t n = protobuf_c_message_get_packed_size(msg);
  uint8_t *tail;
  lfa_status st = lfa_buf_extend(out, n, &tail, err);
  if (st == LFA_OK && n > 0 && protobuf_c_message_pack(msg, tail) != n)
    st = lfa_fail(err, LFA_ERR_PROTO, NULL, "protobuf-c packed an unexpected size");
  return st;
}

void lfa_pb_free(void *msg) {
  if (msg != NULL) protobuf_c_message_free_unpacked(msg, NULL);
}

/* ---- the fields a message carries --------------------------------------------- */

static bool scalar_set(const ProtobufCFieldDescriptor *f, const char *at) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_ENUM:
  case PROTOBUF_C_TYPE_FLOAT:
    return *(const uint32_t *)(const void *)at != 0;
  case PROTOBUF_C_TYPE_BOOL:
    return *(const protobuf_c_boolean *)(const void *)at != 0;
  case PROTOBUF_C_TYPE_STRING: {
    const char *str = *(const char *const *)(const void *)at;
    return str != NULL && str[0] != '\0';
  }
  case PROTOBUF_C_TYPE_BYTES:
    return ((const ProtobufCBinaryData *)(const void *)at)->len > 0;
  case PROTOBUF_C_TYPE_MESSAGE:
    return *(const void *const *)(const void *)at != NULL;
  default: /* the 64-bit scalars and double */
    return *(const uint64_t *)(const void *)at != 0;
  }
}

static bool field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
  const char *base = (const char *)m;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) return *(const size_t *)(const void *)(base + f->quantifier_offset) > 0;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *)(const void *)(base + f->quantifier_offset) == f->id;
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_MESSAGE &&
      f->type != PROTOBUF_C_TYPE_STRING)
    return *(const protobuf_c_boolean *)(const void *)(base + f->quantifier_offset) != 0;
  return scalar_set(f, base + f->offset);
}

static int u32_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

lfa_status lfa_pb_present_fields(uint32_t **numbers, size_t *count, const ProtobufCMessage *msg, lfa_error *err) {
  size_t cap = (size_t)msg->descriptor->n_fields + msg->n_unknown_fields, n = 0;
  uint32_t *out = malloc((cap ? cap : 1) * sizeof *out);
  if (out == NULL) return lfa_fail(err, LFA_ERR_NOMEM, "FA-LIMIT-1", "out of memory listing a message's fields");
  for (unsigned i = 0; i < msg->descriptor->n_fields; i++)
    if (field_present(msg, &msg->descriptor->fields[i])) out[n++] = msg->descriptor->fields[i].id;
  for (unsigned i = 0; i < msg->n_unknown_fields; i++) out[n++] = msg->unknown_fields[i].tag;
  qsort(out, n, sizeof *out, u32_cmp);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (k == 0 || out[k - 1] != out[i]) out[k++] = out[i];
  *numbers = out, *count = k;
  return LFA_OK;
}
