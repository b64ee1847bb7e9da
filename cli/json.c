/* json.c: see json.h. */
#include "json.h"

#include <inttypes.h>

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

/* Length of the well-formed UTF-8 sequence at p, or 0 (RFC 3629). */
static int utf8_len(const unsigned char *p) {
  int n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0;
  if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) return 0;
  return n;
}

/* Names come from hostile files: control bytes are escaped and invalid
 * UTF-8 becomes U+FFFD, so the output is always valid JSON. */
static void put_quoted(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", out);
    else if (*p < 0x20 || *p == 0x7F) fprintf(out, "\\u%04x", *p);
    else if (*p < 0x80) fputc(*p, out);
    else {
      int n = utf8_len(p);
      if (n == 0) {
        fputs("\\ufffd", out);
        p++;
        continue;
      }
      fwrite(p, 1, (size_t)n, out);
      p += n;
      continue;
    }
    p++;
  }
  fputc('"', out);
}

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

void json_finish(json_writer *w) { fputc('\n', w->out); }
