/* bytes.h: a growable output buffer and a bounds-checked little-endian
 * reader. Every decoder in ref/ reads input only through lfa_cursor, so no
 * read can pass the end of the bytes it was given. */
#ifndef LFA_BYTES_H
#define LFA_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"

/* OWNERSHIP: `data` is malloc'ed and owned by the buffer; lfa_buf_free
 * releases it. A zeroed lfa_buf is an empty buffer. */
typedef struct lfa_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
} lfa_buf;

/* Grows the buffer by n zero bytes and points *tail (if not NULL) at them. */
lfa_status lfa_buf_extend(lfa_buf *buf, size_t n, uint8_t **tail, lfa_error *err);
lfa_status lfa_buf_append(lfa_buf *buf, const void *bytes, size_t n, lfa_error *err);
lfa_status lfa_buf_put_u16le(lfa_buf *buf, uint16_t v, lfa_error *err);
lfa_status lfa_buf_put_u32le(lfa_buf *buf, uint32_t v, lfa_error *err);
lfa_status lfa_buf_put_u64le(lfa_buf *buf, uint64_t v, lfa_error *err);
void lfa_buf_free(lfa_buf *buf);

/* A read position over borrowed bytes. The getters return false (and do not
 * move) when fewer bytes remain than requested. */
typedef struct lfa_cursor {
  const uint8_t *data;
  size_t len;
  size_t pos;
} lfa_cursor;

lfa_cursor lfa_cursor_make(const uint8_t *data, size_t len);
size_t lfa_cursor_left(const lfa_cursor *c);
bool lfa_cursor_u16le(lfa_cursor *c, uint16_t *out);
bool lfa_cursor_u32le(lfa_cursor *c, uint32_t *out);
bool lfa_cursor_u64le(lfa_cursor *c, uint64_t *out);
/* Borrows the next n bytes (no copy). */
bool lfa_cursor_take(lfa_cursor *c, size_t n, const uint8_t **out);

uint16_t lfa_load_u16le(const uint8_t *p);
uint32_t lfa_load_u32le(const uint8_t *p);
uint64_t lfa_load_u64le(const uint8_t *p);
void lfa_store_u32le(uint8_t *p, uint32_t v);
void lfa_store_u64le(uint8_t *p, uint64_t v);

#endif
