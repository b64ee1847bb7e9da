/* json.h: a small streaming JSON writer for the machine-readable outputs of
 * `lfa`. Keys are written in call order; strings are escaped per RFC 8259;
 * output is indented two spaces per level so it diffs well. */
#ifndef LFA_CLI_JSON_H
#define LFA_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lfa/error.h"

enum { JSON_DEPTH_MAX = 32 };

typedef struct json_writer {
  FILE *out;
  int depth;
  bool has_items[JSON_DEPTH_MAX];
  uint64_t numbers; /* written since json_open_numbers */
} json_writer;

/* `key` is NULL for array items and the top-level value. */
void json_open_object(json_writer *w, const char *key);
void json_close_object(json_writer *w);
void json_open_array(json_writer *w, const char *key);
void json_close_array(json_writer *w);
void json_string(json_writer *w, const char *key, const char *value); /* NULL writes null */
void json_u64(json_writer *w, const char *key, uint64_t value);
void json_i64(json_writer *w, const char *key, int64_t value);
void json_bool(json_writer *w, const char *key, bool value);
void json_null(json_writer *w, const char *key);
/* An array of numbers on one line, written piece by piece, so long lists of
 * rows stay compact and need no memory: open, one json_number per value,
 * close. */
void json_open_numbers(json_writer *w, const char *key);
void json_number(json_writer *w, uint64_t value);
void json_close_numbers(json_writer *w);
/* An error as an object under `key`: "status", "rule" (null when none),
 * "message", then where it is, from the place it carries as data
 * (lfa/error.h): "version", "field_id", "fragment_id", "file", each null
 * when unknown. */
void json_error(json_writer *w, const char *key, const lfa_error *err);
/* Ends the document with a newline. */
void json_finish(json_writer *w);

#endif
