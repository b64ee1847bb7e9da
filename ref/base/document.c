/* document.c: the JSON and XML writers (lfa/document.h). */
#include "lfa/document.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

#include "lfa/escape.h"

/* ---- JSON ------------------------------------------------------------------------------ */

enum { BLOCK, FLOW, NUMBERS }; /* a scope's layout; the top level is a block */

static void indent(FILE *out, int spaces) {
  for (int i = 0; i < spaces; i++) fputc(' ', out);
}

/* What goes before a member: its separator and line, then its key. */
static void item(lfa_json_writer *w, const char *key) {
  int d = w->depth;
  if (d > 0 && w->layout[d] == BLOCK) {
    fputs(w->has_items[d] ? ",\n" : "\n", w->out);
    indent(w->out, 2 * d);
  } else if (d > 0 && w->has_items[d] && w->wrap) {
    fputs(",\n", w->out);
    indent(w->out, 2 * (d - 1) + 1);
  } else if (d > 0 && w->has_items[d]) {
    fputs(w->layout[d] == NUMBERS ? "," : ", ", w->out);
  }
  w->wrap = false;
  if (d > 0) w->has_items[d] = true;
  if (key != NULL) {
    lfa_put_json(w->out, key); /* keys may be names from hostile files */
    fputs(": ", w->out);
  }
}

static void open_scope(lfa_json_writer *w, const char *key, char c, unsigned char layout) {
  item(w, key);
  fputc(c, w->out);
  unsigned char outer = w->layout[w->depth];
  if (w->depth > 0 && outer != BLOCK && layout == BLOCK) layout = FLOW; /* inside a flow, a flow */
  if (w->depth + 1 < LFA_JSON_WRITER_DEPTH_MAX) w->depth++;
  w->has_items[w->depth] = false;
  w->layout[w->depth] = layout;
}

static void close_scope(lfa_json_writer *w, char c) {
  bool had = w->has_items[w->depth];
  unsigned char layout = w->layout[w->depth];
  if (w->depth > 0) w->depth--;
  if (had && layout == BLOCK) {
    fputc('\n', w->out);
    indent(w->out, 2 * w->depth);
  }
  w->wrap = false;
  fputc(c, w->out);
}

void lfa_json_open_object(lfa_json_writer *w, const char *key) { open_scope(w, key, '{', BLOCK); }
void lfa_json_open_array(lfa_json_writer *w, const char *key) { open_scope(w, key, '[', BLOCK); }
void lfa_json_open_flow_object(lfa_json_writer *w, const char *key) { open_scope(w, key, '{', FLOW); }
void lfa_json_open_flow_array(lfa_json_writer *w, const char *key) { open_scope(w, key, '[', FLOW); }
void lfa_json_open_numbers(lfa_json_writer *w, const char *key) { open_scope(w, key, '[', NUMBERS); }
void lfa_json_close_object(lfa_json_writer *w) { close_scope(w, '}'); }
void lfa_json_close_array(lfa_json_writer *w) { close_scope(w, ']'); }
void lfa_json_wrap(lfa_json_writer *w) { w->wrap = w->depth > 0 && w->layout[w->depth] != BLOCK; }

void lfa_json_put_string(lfa_json_writer *w, const char *key, const char *value) {
  item(w, key);
  lfa_put_json(w->out, value); /* NULL is null */
}

void lfa_json_put_u64(lfa_json_writer *w, const char *key, uint64_t value) {
  item(w, key);
  fprintf(w->out, "%" PRIu64, value);
}

void lfa_json_put_i64(lfa_json_writer *w, const char *key, int64_t value) {
  item(w, key);
  fprintf(w->out, "%" PRId64, value);
}

void lfa_json_put_real(lfa_json_writer *w, const char *key, double value) {
  item(w, key);
  if (isfinite(value)) fprintf(w->out, "%.6g", value);
  else fputs("null", w->out);
}

void lfa_json_put_fixed(lfa_json_writer *w, const char *key, double value, int decimals) {
  item(w, key);
  if (isfinite(value)) fprintf(w->out, "%.*f", decimals, value);
  else fputs("null", w->out);
}

void lfa_json_put_bool(lfa_json_writer *w, const char *key, bool value) {
  item(w, key);
  fputs(value ? "true" : "false", w->out);
}

void lfa_json_put_null(lfa_json_writer *w, const char *key) {
  item(w, key);
  fputs("null", w->out);
}

void lfa_json_number(lfa_json_writer *w, uint64_t value) { lfa_json_put_u64(w, NULL, value); }

void lfa_json_put_error(lfa_json_writer *w, const char *key, const lfa_error *err) {
  lfa_json_open_object(w, key);
  lfa_json_put_string(w, "status", lfa_status_name(err->status));
  lfa_json_put_string(w, "rule", err->rule);
  lfa_json_put_string(w, "message", err->msg);
  if (err->has_version) lfa_json_put_u64(w, "version", err->version);
  else lfa_json_put_null(w, "version");
  if (err->has_field) lfa_json_put_i64(w, "field_id", err->field_id);
  else lfa_json_put_null(w, "field_id");
  if (err->has_fragment) lfa_json_put_u64(w, "fragment_id", err->fragment_id);
  else lfa_json_put_null(w, "fragment_id");
  lfa_json_put_string(w, "file", err->file[0] != '\0' ? err->file : NULL);
  lfa_json_close_object(w);
}

void lfa_json_finish(lfa_json_writer *w) { fputc('\n', w->out); }

/* ---- XML ------------------------------------------------------------------------------- */

/* Ends the start tag of the innermost element when it is still open. */
static void end_start_tag(lfa_xml_writer *x) {
  if (x->in_tag) fputc('>', x->out);
  x->in_tag = false;
}

void lfa_xml_declaration(lfa_xml_writer *x) { fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", x->out); }

void lfa_xml_open(lfa_xml_writer *x, const char *tag) {
  end_start_tag(x);
  int d = x->depth;
  if (d > 0) x->has_children[d] = true;
  if (d > 0 && !x->has_text[d]) fputc('\n', x->out), indent(x->out, 2 * d);
  fprintf(x->out, "<%s", tag);
  if (d + 1 < LFA_XML_WRITER_DEPTH_MAX) x->depth++;
  x->tag[x->depth] = tag;
  x->has_children[x->depth] = x->has_text[x->depth] = false;
  x->in_tag = true;
}

void lfa_xml_attr(lfa_xml_writer *x, const char *name, const char *value) {
  fprintf(x->out, " %s=\"", name);
  lfa_put_xml(x->out, value);
  fputc('"', x->out);
}

void lfa_xml_attrf(lfa_xml_writer *x, const char *name, const char *fmt, ...) {
  char value[LFA_XML_FORMATTED_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  lfa_xml_attr(x, name, value);
}

void lfa_xml_text(lfa_xml_writer *x, const char *text) {
  end_start_tag(x);
  x->has_text[x->depth] = true;
  lfa_put_xml(x->out, text);
}

void lfa_xml_textf(lfa_xml_writer *x, const char *fmt, ...) {
  char text[LFA_XML_FORMATTED_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  lfa_xml_text(x, text);
}

void lfa_xml_close(lfa_xml_writer *x) {
  int d = x->depth;
  if (x->in_tag) fputs("/>", x->out);
  else if (!x->has_text[d] && x->has_children[d]) fputc('\n', x->out), indent(x->out, 2 * (d - 1));
  if (!x->in_tag) fprintf(x->out, "</%s>", x->tag[d]);
  x->in_tag = false;
  if (x->depth > 0) x->depth--;
  if (x->depth == 0) fputc('\n', x->out);
}

/* ---- JUnit ----------------------------------------------------------------------------- */

void lfa_junit_begin(lfa_xml_writer *x, const char *suites, const char *suite, lfa_junit_counts c) {
  lfa_xml_declaration(x);
  lfa_xml_open(x, "testsuites");
  lfa_xml_attr(x, "name", suites);
  lfa_xml_attrf(x, "tests", "%zu", c.tests);
  lfa_xml_attrf(x, "failures", "%zu", c.failures);
  lfa_xml_open(x, "testsuite");
  lfa_xml_attr(x, "name", suite);
  lfa_xml_attrf(x, "tests", "%zu", c.tests);
  lfa_xml_attrf(x, "failures", "%zu", c.failures);
  lfa_xml_attrf(x, "errors", "%zu", c.errors);
  lfa_xml_attrf(x, "skipped", "%zu", c.skipped);
}

void lfa_junit_open_case(lfa_xml_writer *x, const char *classname, const char *name, double seconds) {
  lfa_xml_open(x, "testcase");
  lfa_xml_attr(x, "classname", classname);
  lfa_xml_attr(x, "name", name);
  if (seconds >= 0) lfa_xml_attrf(x, "time", "%.3f", seconds);
}

void lfa_junit_end(lfa_xml_writer *x) {
  lfa_xml_close(x); /* testsuite */
  lfa_xml_close(x); /* testsuites */
}
