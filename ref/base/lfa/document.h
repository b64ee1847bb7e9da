/* document.h: the one writer of the documents lfa prints: JSON (every
 * --json, the verifier's report, conformance, the benchmarks' lines) and
 * XML (JUnit). Every string and name goes through the one escaper
 * (lfa/escape.h), so a document stays valid whatever bytes a hostile file
 * put in its names. Both write to a FILE in call order and hold no memory.
 *
 * JSON layout. A scope (object or array) is either a block, one member a
 * line indented two spaces per level so it diffs well, or a flow, its
 * members on one line separated by ", " (a scope opened inside a flow is a
 * flow too). lfa_json_wrap starts the next member of a flow on a new line,
 * one column past the indentation of the line the flow opened on. A
 * numbers array is a flow of integers separated by "," alone, so long
 * lists of rows stay compact. */
#ifndef LFA_DOCUMENT_H
#define LFA_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lfa/error.h"

/* Deeper documents are written flattened (valid, misindented): lfa's own
 * documents are at most six deep. */
enum { LFA_JSON_WRITER_DEPTH_MAX = 32 };

typedef struct lfa_json_writer {
  FILE *out;
  int depth;
  bool has_items[LFA_JSON_WRITER_DEPTH_MAX];
  unsigned char layout[LFA_JSON_WRITER_DEPTH_MAX];
  bool wrap; /* the next member of the current flow starts a new line */
} lfa_json_writer;

/* `key` is NULL for array items and the top-level value. */
void lfa_json_open_object(lfa_json_writer *w, const char *key);
void lfa_json_open_array(lfa_json_writer *w, const char *key);
void lfa_json_open_flow_object(lfa_json_writer *w, const char *key);
void lfa_json_open_flow_array(lfa_json_writer *w, const char *key);
void lfa_json_open_numbers(lfa_json_writer *w, const char *key);
void lfa_json_close_object(lfa_json_writer *w);
void lfa_json_close_array(lfa_json_writer *w); /* also ends a numbers array */
void lfa_json_wrap(lfa_json_writer *w);
void lfa_json_put_string(lfa_json_writer *w, const char *key, const char *value); /* NULL writes null */
void lfa_json_put_u64(lfa_json_writer *w, const char *key, uint64_t value);
void lfa_json_put_i64(lfa_json_writer *w, const char *key, int64_t value);
/* Six significant digits (%.6g); null for an infinity or NaN, which JSON
 * cannot hold. */
void lfa_json_put_real(lfa_json_writer *w, const char *key, double value);
/* `decimals` digits after the point (%.*f); null as above. */
void lfa_json_put_fixed(lfa_json_writer *w, const char *key, double value, int decimals);
void lfa_json_put_bool(lfa_json_writer *w, const char *key, bool value);
void lfa_json_put_null(lfa_json_writer *w, const char *key);
/* One item of a numbers array. */
void lfa_json_number(lfa_json_writer *w, uint64_t value);
/* An error as an object under `key`: "status", "rule" (null when none),
 * "message", then where it is, from the place it carries as data
 * (lfa/error.h): "version", "field_id", "fragment_id", "file", each null
 * when unknown. */
void lfa_json_put_error(lfa_json_writer *w, const char *key, const lfa_error *err);
/* Ends the document with a newline. */
void lfa_json_finish(lfa_json_writer *w);

/* XML layout. An element starts on its own line, indented two spaces per
 * level, unless its parent holds text, where it stays inline; an element
 * with text closes on its line, one with only elements on a line of its
 * own, an empty one as "<tag/>". Tag and attribute names are the caller's
 * constants; attribute values and text are escaped. */
enum { LFA_XML_WRITER_DEPTH_MAX = 16, LFA_XML_FORMATTED_MAX = 1024 };

typedef struct lfa_xml_writer {
  FILE *out;
  int depth;
  bool in_tag; /* the start tag is still open: attributes may follow */
  const char *tag[LFA_XML_WRITER_DEPTH_MAX];
  bool has_children[LFA_XML_WRITER_DEPTH_MAX];
  bool has_text[LFA_XML_WRITER_DEPTH_MAX];
} lfa_xml_writer;

void lfa_xml_declaration(lfa_xml_writer *x);
void lfa_xml_open(lfa_xml_writer *x, const char *tag);
void lfa_xml_attr(lfa_xml_writer *x, const char *name, const char *value);
void lfa_xml_attrf(lfa_xml_writer *x, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void lfa_xml_text(lfa_xml_writer *x, const char *text);
/* Formatted text (at most LFA_XML_FORMATTED_MAX bytes), escaped too. */
void lfa_xml_textf(lfa_xml_writer *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Closes the innermost element; the root's close ends the line. */
void lfa_xml_close(lfa_xml_writer *x);

/* JUnit XML, the one shape every lfa report in it has: a declaration,
 * <testsuites name tests failures> holding one <testsuite name tests
 * failures errors skipped>, and its <testcase> elements. */
typedef struct lfa_junit_counts {
  size_t tests, failures, errors, skipped;
} lfa_junit_counts;

void lfa_junit_begin(lfa_xml_writer *x, const char *suites, const char *suite, lfa_junit_counts counts);
/* Opens <testcase classname name [time]>, time in seconds when `seconds`
 * is not negative; the caller adds its failure, error, skipped or
 * system-out and closes it with lfa_xml_close. */
void lfa_junit_open_case(lfa_xml_writer *x, const char *classname, const char *name, double seconds);
void lfa_junit_end(lfa_xml_writer *x);

#endif
