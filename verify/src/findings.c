/* findings.c: the finding list of lfa/verify.h. Every finding carries its
 * requirement id, severity, version, file, field and fragment [FA-VERIFY-2];
 * the list is sorted by version for every report. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/escape.h"
#include "lfa/verify.h"

/* A printable copy: names and paths come from hostile files, and every
 * report (a terminal, JSON, XML) must be able to print them as they are.
 * Control bytes and invalid UTF-8 are shown escaped ("\x0a"), by the one
 * text escaper (lfa/escape.h). NULL stays NULL. */
static char *printable_copy(const char *s, bool *lost) {
  if (s == NULL) return NULL;
  size_t cap = 4 * strlen(s) + 1; /* the most escaping can take */
  char *out = malloc(cap);
  if (out == NULL) {
    *lost = true;
    return NULL;
  }
  lfa_text_escape(out, cap, s);
  return out;
}

static bool grow(lfa_findings *list) {
  if (list->count < list->cap) return true;
  size_t cap = list->cap ? list->cap * 2 : 16;
  lfa_finding *items = realloc(list->items, cap * sizeof *items);
  if (items == NULL) return false;
  list->items = items, list->cap = cap;
  return true;
}

void lfa_findings_add(lfa_findings *list, const lfa_where *where, const char *rule, lfa_severity severity,
                      const char *fmt, ...) {
  static const lfa_where NOWHERE = {0};
  if (where == NULL) where = &NOWHERE;
  if (!grow(list)) {
    list->lost = true;
    return;
  }
  char msg[LFA_ERROR_MSG_MAX + 256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lfa_finding *f = &list->items[list->count];
  memset(f, 0, sizeof *f);
  f->rule = rule, f->severity = severity, f->version = where->version;
  f->file = printable_copy(where->file, &list->lost);
  f->has_field = where->has_field, f->field_id = where->field_id;
  f->field_name = where->has_field ? printable_copy(where->field_name, &list->lost) : NULL;
  f->has_fragment = where->has_fragment, f->fragment_id = where->fragment_id;
  f->n_rows = where->n_rows < LFA_FINDING_ROWS_MAX ? where->n_rows : LFA_FINDING_ROWS_MAX;
  if (f->n_rows > 0) memcpy(f->rows, where->rows, f->n_rows * sizeof *f->rows);
  f->message = printable_copy(msg, &list->lost);
  f->seq = list->count++;
}

static int by_version(const void *a, const void *b) {
  const lfa_finding *x = a, *y = b;
  if (x->version != y->version) return x->version < y->version ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq); /* stable: discovery order */
}

void lfa_findings_sort(lfa_findings *list) {
  if (list->count > 1) qsort(list->items, list->count, sizeof *list->items, by_version);
}

size_t lfa_findings_count(const lfa_findings *list, lfa_severity severity) {
  size_t n = 0;
  for (size_t i = 0; i < list->count; i++) n += list->items[i].severity == severity;
  return n;
}

const lfa_finding *lfa_findings_find(const lfa_findings *list, const char *rule, lfa_severity severity) {
  for (size_t i = 0; i < list->count; i++)
    if (list->items[i].severity == severity && strcmp(list->items[i].rule, rule) == 0) return &list->items[i];
  return NULL;
}

void lfa_findings_free(lfa_findings *list) {
  for (size_t i = 0; i < list->count; i++) {
    free(list->items[i].file);
    free(list->items[i].field_name);
    free(list->items[i].message);
  }
  free(list->items);
  memset(list, 0, sizeof *list);
}

const char *lfa_severity_name(lfa_severity severity) {
  switch (severity) {
    case LFA_SEVERITY_ERROR: return "error";
    case LFA_SEVERITY_WARNING: return "warning";
    default: return "info";
  }
}
