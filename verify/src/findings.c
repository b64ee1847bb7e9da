/* findings.c: the finding list of lfa/verify.h. Every finding carries its
 * requirement id, severity, version, file, field and fragment [FA-VERIFY-2];
 * the list is sorted by version for every report. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/verify.h"

/* Length of the well-formed UTF-8 sequence at p, or 0 (RFC 3629). */
static size_t utf8_len(const unsigned char *p) {
  size_t n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
  for (size_t i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0;
  if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) return 0;
  return n;
}

/* A printable copy: names and paths come from hostile files, and every
 * report (a terminal, JSON, XML) must be able to print them as they are.
 * Control bytes and invalid UTF-8 become '?'. NULL stays NULL. */
static char *printable_copy(const char *s, bool *lost) {
  if (s == NULL) return NULL;
  size_t len = strlen(s);
  char *out = malloc(len + 1);
  if (out == NULL) {
    *lost = true;
    return NULL;
  }
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    size_t n = *p < 0x80 ? 1 : utf8_len(p);
    if (n == 0 || *p < 0x20 || *p == 0x7F) {
      out[o++] = '?';
      p++;
      continue;
    }
    memcpy(out + o, p, n);
    o += n, p += n;
  }
  out[o] = '\0';
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
