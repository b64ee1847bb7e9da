/* versions.c: version file naming (lfa/versions.h); implements FA-LANCE-2. */
#include "lfa/versions.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/limits.h"

static const char SUFFIX[] = ".manifest";
enum { SUFFIX_LEN = sizeof SUFFIX - 1, V2_DIGITS = 20 };

/* Parses exactly `n` decimal digits into *out; false on overflow or a
 * non-digit. */
static bool parse_digits(uint64_t *out, const char *s, size_t n) {
  uint64_t v = 0;
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

lfa_naming lfa_version_parse_name(uint64_t *version_out, const char *name) {
  size_t len = strlen(name);
  if (len <= SUFFIX_LEN || strcmp(name + len - SUFFIX_LEN, SUFFIX) != 0) return LFA_NAMING_NONE;
  size_t digits = len - SUFFIX_LEN;
  uint64_t v;
  if (!parse_digits(&v, name, digits)) return LFA_NAMING_NONE;
  if (digits == V2_DIGITS) {
    if (v == UINT64_MAX) return LFA_NAMING_NONE; /* would be version 0 */
    *version_out = UINT64_MAX - v;
    return LFA_NAMING_V2;
  }
  if (v == 0 || name[0] == '0') return LFA_NAMING_NONE;
  *version_out = v;
  return LFA_NAMING_V1;
}

static bool is_uuid(const char *s) {
  for (size_t i = 0; i < 36; i++) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    char c = s[i];
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return s[36] == '\0';
}

bool lfa_version_is_lfa_temporary(const char *name) {
  if (strncmp(name, ".tmp_hint_", 10) == 0 && strlen(name) == 46) return is_uuid(name + 10);
  return strncmp(name, ".tmp_", 5) == 0 && strlen(name) == 41 && is_uuid(name + 5);
}

void lfa_version_format_name(char *out, size_t cap, uint64_t version, lfa_naming naming) {
  if (naming == LFA_NAMING_V2)
    snprintf(out, cap, "%020" PRIu64 "%s", UINT64_MAX - version, SUFFIX);
  else
    snprintf(out, cap, "%" PRIu64 "%s", version, SUFFIX);
}

static int by_version(const void *a, const void *b) {
  uint64_t x = ((const lfa_version_entry *)a)->version, y = ((const lfa_version_entry *)b)->version;
  return (x > y) - (x < y);
}

lfa_status lfa_version_list_make(lfa_version_list *out, const char *const *names, size_t count,
                                 lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->entries = calloc(count ? count : 1, sizeof *out->entries);
  if (out->entries == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot list %zu names", count);
  for (size_t i = 0; i < count; i++) {
    uint64_t v;
    lfa_naming naming = lfa_version_parse_name(&v, names[i]);
    if (naming == LFA_NAMING_NONE) continue;
    if (out->naming != LFA_NAMING_NONE && naming != out->naming) {
      lfa_version_list_free(out);
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-2",
                      "_versions/ mixes V1 and V2 manifest names ('%s')", names[i]);
    }
    if (out->count == LFA_VERSIONS_MAX) {
      lfa_version_list_free(out);
      return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "more than %u versions", (unsigned)LFA_VERSIONS_MAX);
    }
    out->naming = naming;
    out->entries[out->count++] = (lfa_version_entry){v, names[i]};
  }
  /* No two names can hold one version: V1 names have no leading zeros and
   * V2 names have a fixed width, and one directory uses one scheme. */
  qsort(out->entries, out->count, sizeof *out->entries, by_version);
  return LFA_OK;
}

void lfa_version_list_free(lfa_version_list *list) {
  free(list->entries);
  memset(list, 0, sizeof *list);
}
