/* json.c: see json.h. */
#include "json.h"

#include <inttypes.h>

#include "lfa/escape.h"

static void put_quoted(FILE *out, const char *s);

static void item(json_writer *w, const char *key) {
  if (w->depth > 0) {
    fputs(w->has_items[w->depth] ? ",\n" : "\n", w->out);
    w->has_items[w->depth] = true;
    for (int i = 0; i < w->depth; i++) fputs("  ", w->out);
  }
  if (key != NULL) {
    put_quoted(w->out, key);
    fputs(": ", w->out);
  }
}

static void open_scope(json_writer *w, const char *key, char c) {
  item(w, key);
  fputc(c, w->out);
  if (w->depth + 1 < JSON_DEPTH_MAX) w->depth++;
  w->has_items[w->depth] = false;
}

static void close_scope(json_writer *w, char c) {
  bool had = w->has_items[w->depth];
  if (w->depth > 0) w->depth--;
  if (had) {
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++) fputs("  ", w->out);
  }
  fputc(c, w->out);
}

void json_open_object(json_writer *w, const char *key) { open_scope(w, key, '{'); }
void json_close_object(json_writer *w) { close_scope(w, '}'); }
void json_open_array(json_writer *w, const char *key) { open_scope(w, key, '['); }
void json_close_array(json_writer *w) { close_scope(w, ']'); }

/* Names come from hostile files: the one JSON string writer (lfa/escape.h)
 * keeps the output valid JSON whatever their bytes. */
static void put_quoted(FILE *out, const char *s) { lfa_put_json(out, s); }

void json_string(json_writer *w, const char *key, const char *value) {
  item(w, key);
  if (value == NULL) fputs("null", w->out);
  else put_quoted(w->out, value);
}

void json_u64(json_writer *w, const char *key, uint64_t value) {
  item(w, key);
  fprintf(w->out, "%" PRIu64, value);
}

void json_i64(json_writer *w, const char *key, int64_t value) {
  item(w, key);
  fprintf(w->out, "%" PRId64, value);
}

void json_bool(json_writer *w, const char *key, bool value) {
  item(w, key);
  fputs(value ? "true" : "false", w->out);
}

void json_null(json_writer *w, const char *key) {
  item(w, key);
  fputs("null", w->out);
}

void json_open_numbers(json_writer *w, const char *key) {
  item(w, key);
  fputc('[', w->out);
  w->numbers = 0;
}

void json_number(json_writer *w, uint64_t value) {
  fprintf(w->out, w->numbers++ ? ",%" PRIu64 : "%" PRIu64, value);
}

void json_close_numbers(json_writer *w) { fputc(']', w->out); }

void json_error(json_writer *w, const char *key, const lfa_error *err) {
  json_open_object(w, key);
  json_string(w, "status", lfa_status_name(err->status));
  json_string(w, "rule", err->rule);
  json_string(w, "message", err->msg);
  if (err->has_version) json_u64(w, "version", err->version);
  else json_null(w, "version");
  if (err->has_field) json_i64(w, "field_id", err->field_id);
  else json_null(w, "field_id");
  if (err->has_fragment) json_u64(w, "fragment_id", err->fragment_id);
  else json_null(w, "fragment_id");
  json_string(w, "file", err->file[0] != '\0' ? err->file : NULL);
  json_close_object(w);
}

void json_finish(json_writer *w) { fputc('\n', w->out); }
