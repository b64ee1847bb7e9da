/* error.h: the one error type of lfa.
 *
 * Every fallible function returns an lfa_status and takes a caller-owned
 * lfa_error as its last parameter. The innermost failure writes the message;
 * outer layers only prepend context ("version 3: _deletions/0-1-7.arrow: ")
 * with lfa_error_prefix, so a message reads from the outside in and names the
 * file, version, field and fragment where they are known. There is no global
 * last-error. `err` may be NULL when the caller only wants the status.
 *
 * The same place is also data, for programs (the verifier's findings, the
 * JSON of an error): no code reads it back out of the message text. Each
 * part is set with lfa_error_at_* by the innermost code that knows it, the
 * failure itself or a layer adding context; a part already set is kept, so
 * every part names the innermost place (the partial bitmap, not the root
 * that lists it). lfa_fail starts a new failure and clears them.
 */
#ifndef LFA_ERROR_H
#define LFA_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/limits.h"

#define LFA_ERROR_MSG_MAX 512
/* A relative object path of any length a reader resolves fits whole. */
#define LFA_ERROR_FILE_MAX LFA_PATH_BYTES_MAX

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
  /* where it failed; each part unknown (false, "") unless set */
  bool has_version;
  uint64_t version;
  bool has_field;
  int32_t field_id;
  bool has_fragment;
  uint64_t fragment_id;       /* the fragment's id, not its position in a list */
  char file[LFA_ERROR_FILE_MAX]; /* relative to the dataset directory */
} lfa_error;

/* Records a failure and returns `status`, so call sites read
 * `return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-2", "...", ...);`. */
lfa_status lfa_fail(lfa_error *err, lfa_status status, const char *rule,
                    const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prepends "<context>: " to the message already in `err` (no-op on NULL). */
void lfa_error_prefix(lfa_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Takes a leading "<head>: " off the message (no-op when it does not start
 * so, or on NULL): a caller that speaks to a user in its own words drops a
 * context the user never named (a mutation's name under `lfa invalidate`). */
void lfa_error_unprefix(lfa_error *err, const char *head);

/* Record a part of the place of the failure already in `err`, unless that
 * part is already set by code nearer the failure (no-op on NULL). A file
 * longer than LFA_ERROR_FILE_MAX - 1 bytes is cut there. */
void lfa_error_at_version(lfa_error *err, uint64_t version);
void lfa_error_at_field(lfa_error *err, int32_t field_id);
void lfa_error_at_fragment(lfa_error *err, uint64_t fragment_id);
void lfa_error_at_file(lfa_error *err, const char *file);

/* Resets `err` to LFA_OK with an empty message and no place. */
void lfa_error_clear(lfa_error *err);

/* A stable lowercase name for a status ("truncated", "rule", ...). */
const char *lfa_status_name(lfa_status status);

#endif
