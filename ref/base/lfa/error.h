/* error.h: the one error type of lfa.
 *
 * Every fallible function returns an lfa_status and takes a caller-owned
 * lfa_error as its last parameter. The innermost failure writes the message;
 * outer layers only prepend context ("version 3: _deletions/0-1-7.arrow: ")
 * with lfa_error_prefix, so a message reads from the outside in and names the
 * file, version, field and fragment where they are known. There is no global
 * last-error. `err` may be NULL when the caller only wants the status.
 */
#ifndef LFA_ERROR_H
#define LFA_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define LFA_ERROR_MSG_MAX 512

typedef enum lfa_status {
  LFA_OK = 0,
  LFA_ERR_TRUNCATED,   /* the bytes end before their layout says they do */
  LFA_ERR_FORMAT,      /* framing is wrong: magic, length prefix, footer, Arrow layout */
  LFA_ERR_PROTO,       /* protobuf bytes do not decode */
  LFA_ERR_BITMAP,      /* Roaring bytes are malformed or hold an invalid set */
  LFA_ERR_COMPRESSION, /* a compressed body does not decompress as declared */
  LFA_ERR_RULE,        /* decodes, but breaks a rule a reader enforces */
  LFA_ERR_LIMIT,       /* a count or size read from input exceeds a named limit */
  LFA_ERR_NOMEM,       /* an allocation within the limits failed */
  LFA_ERR_IO,          /* the file system refused (never raised by pure decoders) */
  LFA_ERR_USAGE,       /* the caller asked for something meaningless */
  LFA_ERR_CONFLICT     /* a concurrent commit got there first: retry (FA-CONC) */
} lfa_status;

typedef struct lfa_error {
  lfa_status status;
  const char *rule; /* requirement id ("FA-STORE-3") or NULL; static storage */
  char msg[LFA_ERROR_MSG_MAX];
} lfa_error;

/* Records a failure and returns `status`, so call sites read
 * `return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-2", "...", ...);`. */
lfa_status lfa_fail(lfa_error *err, lfa_status status, const char *rule,
                    const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prepends "<context>: " to the message already in `err` (no-op on NULL). */
void lfa_error_prefix(lfa_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Resets `err` to LFA_OK with an empty message. */
void lfa_error_clear(lfa_error *err);

/* A stable lowercase name for a status ("truncated", "rule", ...). */
const char *lfa_status_name(lfa_status status);

#endif
