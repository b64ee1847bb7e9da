/* json.h: a small, strict JSON reader (RFC 8259), for the files lfa reads
 * as input: conformance scenarios (lfa/scenario.h) and, later, adapter
 * observations. The output side is lfa/document.h.
 *
 * Strict on purpose: a scenario is a contract between the people who wrote
 * it and every writer that runs it, so anything a lenient reader would
 * guess at is an error with its line and column. Refused: trailing commas,
 * comments, single quotes, a byte order mark, leading zeros, escapes other
 * than RFC 8259's, lone or misordered surrogates, unescaped control bytes,
 * invalid UTF-8 (overlong forms, surrogates, past U+10FFFF), a key twice in
 * one object, anything after the document. Limits (lfa/limits.h):
 * LFA_JSON_DOCUMENT_BYTES_MAX, LFA_JSON_STRING_BYTES_MAX, LFA_JSON_DEPTH_MAX,
 * LFA_JSON_VALUES_MAX; past one, LFA_ERR_LIMIT.
 *
 * Numbers that are integers (no fraction, no exponent) and fit int64 or
 * uint64 are kept exactly as integers; every other number keeps its source
 * text and is refused wherever an integer is expected (1.0 and 1e2 are not
 * integers here). Lines count LF bytes from 1; columns count characters
 * (UTF-8 sequences) from 1, a tab being one.
 */
#ifndef LFA_JSON_H
#define LFA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/arena.h"
#include "lfa/error.h"

typedef enum lfa_json_kind {
  LFA_JSON_NULL,
  LFA_JSON_BOOL,
  LFA_JSON_INTEGER, /* fits int64 or uint64: `negative` and `magnitude` */
  LFA_JSON_NUMBER,  /* any other number: `text` only */
  LFA_JSON_STRING,
  LFA_JSON_ARRAY,
  LFA_JSON_OBJECT
} lfa_json_kind;

typedef struct lfa_json lfa_json;
typedef struct lfa_json_member lfa_json_member;

struct lfa_json {
  lfa_json_kind kind;
  uint32_t line, column; /* where the value starts */
  bool boolean;          /* BOOL */
  bool negative;         /* INTEGER: the value is -magnitude (never -0) */
  uint64_t magnitude;    /* INTEGER */
  /* STRING: the decoded bytes (valid UTF-8, may hold NUL bytes), followed
   * by a NUL; NUMBER, INTEGER: the source text */
  const char *text;
  size_t length;
  size_t count;             /* ARRAY: items; OBJECT: members */
  lfa_json *items;          /* ARRAY */
  lfa_json_member *members; /* OBJECT, in document order, keys distinct */
};

struct lfa_json_member {
  const char *key; /* decoded, NUL-terminated */
  size_t key_length;
  uint32_t line, column; /* of the key */
  lfa_json value;
};

/* OWNERSHIP: every node and string lives in `arena`; lfa_json_free. */
typedef struct lfa_json_doc {
  lfa_arena arena;
  lfa_json *root;
} lfa_json_doc;

/* Parses one whole document. On failure *out is empty and the message
 * starts with "line L, column C: ". */
lfa_status lfa_json_parse(lfa_json_doc *out, const uint8_t *bytes, size_t len, lfa_error *err);
void lfa_json_free(lfa_json_doc *doc);

/* The member `key` of an object, or NULL (also when `object` is not one). */
const lfa_json *lfa_json_find(const lfa_json *object, const char *key);

/* "null", "a boolean", "an integer", "a number", "a string", "an array",
 * "an object": for messages. */
const char *lfa_json_kind_name(lfa_json_kind kind);

/* Records a failure at `at`'s position: "line L, column C: <message>". */
lfa_status lfa_json_fail(lfa_error *err, lfa_status status, const lfa_json *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Typed reads. Each fails with LFA_ERR_FORMAT at the value's position,
 * naming `what` (the caller's name for the value, e.g. "steps[2].rows[0]")
 * and what was found instead. */
lfa_status lfa_json_want(const lfa_json *v, lfa_json_kind kind, const char *what, lfa_error *err);
lfa_status lfa_json_u64(uint64_t *out, const lfa_json *v, const char *what, lfa_error *err);
lfa_status lfa_json_i64(int64_t *out, const lfa_json *v, const char *what, lfa_error *err);
lfa_status lfa_json_bool(bool *out, const lfa_json *v, const char *what, lfa_error *err);
/* A string usable as a C string: no NUL byte inside. Borrowed from the doc. */
lfa_status lfa_json_string(const char **out, const lfa_json *v, const char *what, lfa_error *err);

#endif
