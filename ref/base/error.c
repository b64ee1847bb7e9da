/* error.c: formatting of lfa_error (see error.h for the conventions). */
#include "lfa/error.h"

#include <stdio.h>
#include <string.h>

lfa_status lfa_fail(lfa_error *err, lfa_status status, const char *rule,
                    const char *fmt, ...) {
  if (err == NULL) return status;
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

void lfa_error_clear(lfa_error *err) {
  if (err == NULL) return;
  err->status = LFA_OK;
  err->rule = NULL;
  err->msg[0] = '\0';
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
