/* pb.c: bounded protobuf-c unpacking (see lfa/pb.h). Implements FA-LIMIT-1
 * for every protobuf object lfa reads. */
#include "lfa/pb.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

bool lfa_pb_read_varint(uint64_t *out, const uint8_t *p, size_t *at, size_t end) {
  uint64_t v = 0;
  for (unsigned i = 0; i < LFA_PB_VARINT_BYTES_MAX && *at < end; i++) {
    uint8_t b = p[(*at)++];
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return *out = v, true;
  }
  return false;
}

bool lfa_pb_skip(const uint8_t *p, size_t *at, size_t end, unsigned wire, size_t *len) {
  uint64_t v = 0;
  *len = 0;
  if (wire == LFA_PB_VARINT) return lfa_pb_read_varint(&v, p, at, end);
  if (wire == LFA_PB_LEN && !lfa_pb_read_varint(&v, p, at, end)) return false;
  size_t n = wire == LFA_PB_LEN ? (size_t)v : wire == LFA_PB_I64 ? 8 : wire == LFA_PB_I32 ? 4 : SIZE_MAX;
  if (n == SIZE_MAX || v > end - *at || n > end - *at) return false;
  *at += n, *len = n;
  return true;
}

/* ---- moved fields ------------------------------------------------------------ */

static const lfa_pb_move *move_of(uint64_t field, const lfa_pb_move *moves, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (moves[i].from == field) return &moves[i];
  return NULL;
}

static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  do p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)), v >>= 7;
  while (v);
  return n;
}

/* The records set aside, in order: [tag varint][rest], each rest becoming
 * one unknown field. */
typedef struct aside {
  uint8_t *bytes; /* copies of the set-aside records */
  size_t len;
} aside;

/* copy := data with moved records renumbered and set-aside records cut
 * (appended to *set instead); with copy and set->bytes NULL, only the
 * lengths. False when the top level does not walk. */
static bool rewrite(uint8_t *copy, size_t *copy_len, aside *set, const uint8_t *data, size_t len,
                    const lfa_pb_move *moves, size_t n_moves) {
  size_t at = 0;
  *copy_len = 0, set->len = 0;
  while (at < len) {
    size_t first = at, payload;
    uint64_t tag = 0;
    if (!lfa_pb_read_varint(&tag, data, &at, len)) return false;
    size_t rest = at;
    if (!lfa_pb_skip(data, &at, len, (unsigned)(tag & 7), &payload)) return false;
    const lfa_pb_move *m = move_of(tag >> 3, moves, n_moves);
    uint8_t t[LFA_PB_VARINT_BYTES_MAX];
    size_t tl = m != NULL && m->to != 0 ? put_varint(t, (uint64_t)m->to << 3 | (tag & 7)) : 0;
    if (m == NULL) {
      if (copy) memcpy(copy + *copy_len, data + first, at - first);
      *copy_len += at - first;
    } else if (m->to == 0) {
      if (set->bytes) memcpy(set->bytes + set->len, data + first, at - first);
      set->len += at - first;
    } else {
      if (copy) memcpy(copy + *copy_len, t, tl), memcpy(copy + *copy_len + tl, data + rest, at - rest);
      *copy_len += tl + at - rest;
    }
  }
  return true;
}

/* Each record of `set` appended to m's unknown fields. */
static lfa_status keep_aside(ProtobufCMessage *m, const aside *set, lfa_error *err) {
  size_t at = 0, n = 0, payload;
  uint64_t tag = 0;
  while (at < set->len && lfa_pb_read_varint(&tag, set->bytes, &at, set->len) &&
         lfa_pb_skip(set->bytes, &at, set->len, (unsigned)(tag & 7), &payload))
    n++;
  ProtobufCMessageUnknownField *u = realloc(m->unknown_fields, (m->n_unknown_fields + n) * sizeof *u);
  if (u == NULL && n > 0) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory keeping unknown fields");
  if (n > 0) m->unknown_fields = u;
  for (at = 0; n > 0 && at < set->len; n--) {
    lfa_pb_read_varint(&tag, set->bytes, &at, set->len);
    size_t rest = at;
    lfa_pb_skip(set->bytes, &at, set->len, (unsigned)(tag & 7), &payload);
    uint8_t *data = malloc(at - rest ? at - rest : 1);
    if (data == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory keeping unknown fields");
    memcpy(data, set->bytes + rest, at - rest);
    m->unknown_fields[m->n_unknown_fields++] =
        (ProtobufCMessageUnknownField){(uint32_t)(tag >> 3), (ProtobufCWireType)(tag & 7), at - rest, data};
  }
  return LFA_OK;
}

lfa_status lfa_pb_unpack_moved(ProtobufCMessage **out, const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                               size_t len, const lfa_pb_move *moves, size_t n_moves, const char *what,
                               lfa_error *err) {
  size_t copy_len = 0;
  aside set = {NULL, 0};
  if (n_moves == 0 || !rewrite(NULL, &copy_len, &set, data, len, moves, n_moves))
    return lfa_pb_unpack(out, desc, data, len, what, err);
  uint8_t *copy = malloc(copy_len ? copy_len : 1), *set_bytes = malloc(set.len ? set.len : 1);
  set.bytes = set_bytes;
  lfa_status st = LFA_OK;
  if (copy == NULL || set_bytes == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory reading %s", what);
  else if (!rewrite(copy, &copy_len, &set, data, len, moves, n_moves)) st = lfa_pb_unpack(out, desc, data, len, what, err);
  else if ((st = lfa_pb_unpack(out, desc, copy, copy_len, what, err)) == LFA_OK && set.len > 0 &&
           (st = keep_aside(*out, &set, err)) != LFA_OK)
    lfa_pb_free(*out), *out = NULL;
  free(copy), free(set_bytes);
  return st;
}

/* The encoding of one unknown field: its tag, then its bytes. */
static lfa_status put_unknown(lfa_buf *out, const ProtobufCMessageUnknownField *u, lfa_error *err) {
  uint8_t t[LFA_PB_VARINT_BYTES_MAX];
  size_t n = put_varint(t, (uint64_t)u->tag << 3 | (uint64_t)u->wire_type);
  lfa_status st = lfa_buf_append(out, t, n, err);
  return st == LFA_OK ? lfa_buf_append(out, u->data, u->len, err) : st;
}

lfa_status lfa_pb_pack_moved(lfa_buf *out, const ProtobufCMessage *msg, const lfa_pb_move *moves, size_t n_moves,
                             lfa_error *err) {
  if (n_moves == 0) return lfa_pb_pack(out, msg, err);
  /* the message's own unknown fields under a moved number keep it: packed
   * apart. The shallow copy is of the whole message (protobuf-c packs by
   * the descriptor's offsets), sharing every part of it. */
  ProtobufCMessage *copy = malloc(msg->descriptor->sizeof_message);
  ProtobufCMessageUnknownField *kept = malloc((msg->n_unknown_fields ? msg->n_unknown_fields : 1) * sizeof *kept);
  if (copy == NULL || kept == NULL) return free(copy), free(kept), lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory packing");
  memcpy(copy, msg, msg->descriptor->sizeof_message);
  copy->n_unknown_fields = 0, copy->unknown_fields = kept;
  for (unsigned i = 0; i < msg->n_unknown_fields; i++)
    if (move_of(msg->unknown_fields[i].tag, moves, n_moves) == NULL) kept[copy->n_unknown_fields++] = msg->unknown_fields[i];
  lfa_buf tmp = {0};
  size_t len = 0;
  aside none = {NULL, 0};
  uint8_t *tail = NULL;
  lfa_status st = lfa_pb_pack(&tmp, copy, err);
  if (st == LFA_OK && !rewrite(NULL, &len, &none, tmp.data, tmp.len, moves, n_moves))
    st = lfa_fail(err, LFA_ERR_PROTO, NULL, "protobuf-c packed bytes that do not walk");
  if (st == LFA_OK) st = lfa_buf_extend(out, len, &tail, err);
  if (st == LFA_OK) rewrite(tail, &len, &none, tmp.data, tmp.len, moves, n_moves);
  for (unsigned i = 0; st == LFA_OK && i < msg->n_unknown_fields; i++)
    if (move_of(msg->unknown_fields[i].tag, moves, n_moves) != NULL) st = put_unknown(out, &msg->unknown_fields[i], err);
  lfa_buf_free(&tmp);
  free(kept), free(copy);
  return st;
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
