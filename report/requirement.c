/* requirement.c: the requirement texts of spec/, looked up by id. The
 * table is generated at build time from the Markdown of spec/ by
 * scripts/gen_requirement_text.py, so a report quotes the spec of the
 * build that drew it and never reads spec/ when it runs (FA-VERIFY-2:
 * every finding names its requirement; the page also says what it asks). */
#include <string.h>

#include "lfa/report.h"
#include "lfa/search.h"

static int by_id(const void *key, const void *element) {
  return strcmp((const char *)key, ((const lfa_requirement_text *)element)->id);
}

const lfa_requirement_text *lfa_requirement_find(const char *id) {
  if (id == NULL) return NULL;
  size_t i = lfa_search(id, LFA_REQUIREMENT_TEXTS, LFA_REQUIREMENT_TEXTS_COUNT, sizeof *LFA_REQUIREMENT_TEXTS, by_id);
  return i == SIZE_MAX ? NULL : &LFA_REQUIREMENT_TEXTS[i];
}
