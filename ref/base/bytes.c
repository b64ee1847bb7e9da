/* bytes.c: output buffers and bounds-checked little-endian reads. */
#include "lfa/bytes.h"

#include <stdlib.h>
#include <string.h>

lfa_status lfa_buf_extend(lfa_buf *buf, size_t n, uint8_t **tail, lfa_error *err) {
  if (tail != NULL) *tail = NULL;
  if (n == 0) return LFA_OK; /* and no arithmetic on a NULL data pointer */
  if (n > SIZE_MAX - buf->len)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "output buffer size overflows");
  size_t need = buf->len + n;
  if (need > buf->cap) {
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *grown = realloc(buf->data, cap);
    if (grown == NULL)
      return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot grow output buffer to %zu bytes", cap);
    buf->data = grown;
    buf->cap = cap;
  }
  memset(buf->data + buf->len, 0, n);
  if (tail != NULL) *tail = buf->data + buf->len;
  buf->len = need;
  return LFA_OK;
}

lfa_status lfa_buf_append(lfa_buf *buf, const void *bytes, size_t n, lfa_error *err) {
  uint8_t *tail;
  if (n == 0) return LFA_OK;
  lfa_status st = lfa_buf_extend(buf, n, &tail, err);
  if (st == LFA_OK) memcpy(tail, bytes, n);
  return st;
}

lfa_status lfa_buf_put_u16le(lfa_buf *buf, uint16_t v, lfa_error *err) {
  uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  return lfa_buf_append(buf, b, sizeof b, err);
}

lfa_status lfa_buf_put_u32le(lfa_buf *buf, uint32_t v, lfa_error *err) {
  uint8_t b[4];
  lfa_store_u32le(b, v);
  return lfa_buf_append(buf, b, sizeof b, err);
}

lfa_status lfa_buf_put_u64le(lfa_buf *buf, uint64_t v, lfa_error *err) {
  uint8_t b[8];
  lfa_store_u64le(b, v);
  return lfa_buf_append(buf, b, sizeof b, err);
}

void lfa_buf_free(lfa_buf *buf) {
  free(buf->data);
  buf->data = NULL;
  buf->len = buf->cap = 0;
}

lfa_cursor lfa_cursor_make(const uint8_t *data, size_t len) {
  lfa_cursor c = {data, len, 0};
  return c;
}

size_t lfa_cursor_left(const lfa_cursor *c) { return c->len - c->pos; }

bool lfa_cursor_take(lfa_cursor *c, size_t n, const uint8_t **out) {
  if (lfa_cursor_left(c) < n) return false;
  *out = c->data + c->pos;
  c->pos += n;
  return true;
}

bool lfa_cursor_u16le(lfa_cursor *c, uint16_t *out) {
  const uint8_t *p;
  if (!lfa_cursor_take(c, 2, &p)) return false;
  *out = lfa_load_u16le(p);
  return true;
}

bool lfa_cursor_u32le(lfa_cursor *c, uint32_t *out) {
  const uint8_t *p;
  if (!lfa_cursor_take(c, 4, &p)) return false;
  *out = lfa_load_u32le(p);
  return true;
}

bool lfa_cursor_u64le(lfa_cursor *c, uint64_t *out) {
  const uint8_t *p;
  if (!lfa_cursor_take(c, 8, &p)) return false;
  *out = lfa_load_u64le(p);
  return true;
}

uint16_t lfa_load_u16le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

uint32_t lfa_load_u32le(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t lfa_load_u64le(const uint8_t *p) {
  return (uint64_t)lfa_load_u32le(p) | (uint64_t)lfa_load_u32le(p + 4) << 32;
}

void lfa_store_u32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void lfa_store_u64le(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
