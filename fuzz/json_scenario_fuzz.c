/* json_scenario_fuzz.c: the strict JSON reader (lfa/json.h) and the
 * scenario parser and runner (lfa/scenario.h) on arbitrary bytes.
 *
 * Checks (FUZZ_ASSERT; a crash or a sanitizer report is a finding too):
 *  - lfa_json_parse succeeds, or fails as format or limit (json.h) with a
 *    message that starts "line L, column C: ", L and C from 1, L at most
 *    one more than the input's LF bytes;
 *  - an accepted document re-serializes: the canonical text written here
 *    (members in document order, no whitespace, strings escaped per RFC
 *    8259 with \u00XX for control bytes and NUL, integers as sign and
 *    magnitude, other numbers as their source text) parses again, and
 *    gives the same canonical text: the reader loses nothing it keeps
 *    (kinds, integer values, number text, string bytes with NULs, member
 *    order), and the text is a fixed point;
 *  - lfa_scenario_parse on the tree succeeds or fails as format or limit
 *    with "line L, column C: " as well, and gives the same status on the
 *    re-parsed tree (a scenario depends on values, not on layout);
 *  - an accepted scenario starts with its create and runs on an in-memory
 *    lfa_history (no file I/O) without crashing: lfa_scenario_run fails
 *    only with a message, never for lack of memory, and reports at most
 *    one result per step.
 * No globals; deterministic.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream: the canonical text into memory, not a file */
#include <inttypes.h>
#include <stdio.h>

#include "fuzz_helpers.h"
#include "lfa/history.h"
#include "lfa/json.h"
#include "lfa/scenario.h"

/* "line L, column C: ..." with L in [1, max_line] and C >= 1. */
static void check_position(const lfa_error *err, uint32_t max_line) {
  unsigned line = 0, column = 0;
  int used = 0;
  bool ok = sscanf(err->msg, "line %u, column %u: %n", &line, &column, &used) == 2 && used > 0;
  if (!ok) fprintf(stderr, "json_scenario: message without a position: %s\n", err->msg);
  FUZZ_ASSERT(ok, "a failure without its line and column");
  FUZZ_ASSERT(line >= 1 && line <= max_line && column >= 1, "a position outside the input");
}

static void check_failure(lfa_status st, const lfa_error *err, uint32_t max_line) {
  FUZZ_ASSERT(st == LFA_ERR_FORMAT || st == LFA_ERR_LIMIT, "refused with a status json.h and scenario.h do not give");
  FUZZ_ASSERT(err->status == st, "err->status differs from the returned status");
  check_position(err, max_line);
}

/* ---- the canonical text ------------------------------------------------------------- */

static void put_string(FILE *out, const char *s, size_t len) {
  fputc('"', out);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20) fprintf(out, "\\u%04x", c);
    else fputc(c, out); /* valid UTF-8 (json.h), written as it is */
  }
  fputc('"', out);
}

static void put_value(FILE *out, const lfa_json *v) {
  switch (v->kind) {
    case LFA_JSON_NULL: fputs("null", out); break;
    case LFA_JSON_BOOL: fputs(v->boolean ? "true" : "false", out); break;
    case LFA_JSON_INTEGER: fprintf(out, "%s%" PRIu64, v->negative ? "-" : "", v->magnitude); break;
    case LFA_JSON_NUMBER: fwrite(v->text, 1, v->length, out); break;
    case LFA_JSON_STRING: put_string(out, v->text, v->length); break;
    case LFA_JSON_ARRAY:
      fputc('[', out);
      for (size_t i = 0; i < v->count; i++) {
        if (i) fputc(',', out);
        put_value(out, &v->items[i]);
      }
      fputc(']', out);
      break;
    case LFA_JSON_OBJECT:
      fputc('{', out);
      for (size_t i = 0; i < v->count; i++) {
        if (i) fputc(',', out);
        put_string(out, v->members[i].key, v->members[i].key_length);
        fputc(':', out);
        put_value(out, &v->members[i].value);
      }
      fputc('}', out);
      break;
  }
}

/* The canonical text of `v`. OWNERSHIP: *text is the caller's (free). */
static void canonical(char **text, size_t *len, const lfa_json *v) {
  FILE *out = open_memstream(text, len);
  FUZZ_ASSERT(out != NULL, "open_memstream failed");
  put_value(out, v);
  FUZZ_ASSERT(fclose(out) == 0, "the memory stream did not close");
}

/* ---- the scenario ------------------------------------------------------------------------- */

/* Parses the scenario of `root`; runs it when it is accepted. The status
 * of the parse. */
static lfa_status scenario(const lfa_json *root, uint32_t max_line, bool run) {
  lfa_scenario s;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_scenario_parse(&s, root, &err);
  if (st != LFA_OK) {
    check_failure(st, &err, max_line);
    return st;
  }
  FUZZ_ASSERT(s.n_steps >= 1 && s.steps[0].request.op == LFA_OP_CREATE, "an accepted scenario without its create");
  for (size_t i = 0; i < s.n_steps; i++) {
    char label[128];
    lfa_scenario_step_label(label, sizeof label, &s, i);
    FUZZ_ASSERT(label[0] != '\0', "a step without a label");
  }
  if (run) {
    lfa_history h;
    lfa_scenario_report report;
    FUZZ_ASSERT(lfa_history_open(&h, NULL, 1, &err) == LFA_OK, "an in-memory history did not open");
    lfa_status ran = lfa_scenario_run(&report, &h, &s, &err);
    FUZZ_ASSERT(ran != LFA_ERR_NOMEM, "a scenario ran out of memory");
    FUZZ_ASSERT(ran == LFA_OK || err.msg[0] != '\0', "a failed run without a message");
    FUZZ_ASSERT(report.n_results <= s.n_steps, "more results than steps");
    lfa_scenario_report_free(&report);
    lfa_history_close(&h);
  }
  lfa_scenario_free(&s);
  return LFA_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint32_t lines = 1;
  for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
  lfa_json_doc doc, again;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_json_parse(&doc, data, size, &err);
  if (st != LFA_OK) {
    check_failure(st, &err, lines);
    return 0;
  }
  char *text = NULL, *text2 = NULL;
  size_t len = 0, len2 = 0;
  canonical(&text, &len, doc.root);
  st = lfa_json_parse(&again, (const uint8_t *)text, len, &err);
  if (st != LFA_OK) fprintf(stderr, "json_scenario: %s\ncanonical text: %s\n", err.msg, text);
  FUZZ_ASSERT(st == LFA_OK, "the canonical text of an accepted document does not parse");
  canonical(&text2, &len2, again.root);
  FUZZ_ASSERT(len == len2 && memcmp(text, text2, len) == 0, "the canonical text is not a fixed point");
  lfa_status first = scenario(doc.root, lines, true);
  lfa_status second = scenario(again.root, 1, false); /* the canonical text is one line */
  FUZZ_ASSERT(first == second, "the scenario parser depends on the layout of the document");
  free(text);
  free(text2);
  lfa_json_free(&doc);
  lfa_json_free(&again);
  return 0;
}
