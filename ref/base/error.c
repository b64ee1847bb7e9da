/* error.c: formatting of lfa_error (see error.h for the conventions). */
#include "lfa/error.h"

#include <stdio.h>
#include <string.h>

lfa_status lfa_fail(lfa_error *err, lfa_status status, const char *rule,
                    const char *fmt, ...) {
  if (err == NULL) return status;
  lfa_error_clear(err); /* a new failure: no place from an earlier one */
  err->status = status;
  err->rule = rule;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return status;
}

void lfa_error_prefix(lfa_error *err, const char *fmt, ...) {
  if (err == NULL) return;
  char head[LFA_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  /* Shift the message right and put "head: " in front; the tail of an
   * over-long message is cut, never the context. */
  size_t h = strlen(head), m = strlen(err->msg), cap = sizeof err->msg - 1;
  if (h + 2 > cap) h = cap - 2;
  if (h + 2 + m > cap) m = cap - h - 2;
  memmove(err->msg + h + 2, err->msg, m);
  memcpy(err->msg, head, h);
  err->msg[h] = ':';
  err->msg[h + 1] = ' ';
  err->msg[h + 2 + m] = '\0';
}

void lfa_error_at_version(lfa_error *err, uint64_t version) {
  if (err == NULL || err->has_version) return;
  err->has_version = true, err->version = version;
}

void lfa_error_at_field(lfa_error *err, int32_t field_id) {
  if (err == NULL || err->has_field) return;
  err->has_field = true, err->field_id = field_id;
}

void lfa_error_at_fragment(lfa_error *err, uint64_t fragment_id) {
  if (err == NULL || err->has_fragment) return;
  err->has_fragment = true, err->fragment_id = fragment_id;
}

void lfa_error_at_file(lfa_error *err, const char *file) {
  if (err == NULL || err->file[0] != '\0' || file == NULL) return;
  snprintf(err->file, sizeof err->file, "%s", file);
}

void lfa_error_clear(lfa_error *err) {
  if (err == NULL) return;
  err->status = LFA_OK;
  err->rule = NULL;
  err->msg[0] = '\0';
  err->has_version = err->has_field = err->has_fragment = false;
  err->version = 0, err->field_id = 0, err->fragment_id = 0;
  err->file[0] = '\0';
}

const char *lfa_status_name(lfa_status status) {
  switch (status) {
    case LFA_OK: return "ok";
    case LFA_ERR_TRUNCATED: return "truncated";
    case LFA_ERR_FORMAT: return "format";
    case LFA_ERR_PROTO: return "proto";
    case LFA_ERR_BITMAP: return "bitmap";
    case LFA_ERR_COMPRESSION: return "compression";
    case LFA_ERR_RULE: return "rule";
    case LFA_ERR_LIMIT: return "limit";
    case LFA_ERR_NOMEM: return "nomem";
    case LFA_ERR_IO: return "io";
    case LFA_ERR_USAGE: return "usage";
    case LFA_ERR_CONFLICT: return "conflict";
  }
  return "unknown";
}

void lfa_error_unprefix(lfa_error *err, const char *head) {
  if (err == NULL) return;
  size_t h = strlen(head), m = strlen(err->msg);
  if (m < h + 2 || strncmp(err->msg, head, h) != 0 || err->msg[h] != ':' || err->msg[h + 1] != ' ') return;
  memmove(err->msg, err->msg + h + 2, m - h - 1); /* with its NUL */
}
