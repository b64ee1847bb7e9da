/* lance_releases.c: see lfa/lance_releases.h. The tables themselves are
 * generated from spec/lance-releases.json into the build directory. */
#include "lfa/lance_releases.h"

#include <stdlib.h>
#include <string.h>

/* Release order of two registry versions ("0.19.1", "1.0.0-beta.1"):
 * numerically by part, a pre-release before its release. */
static int release_cmp(const char *a, const char *b) {
  for (int part = 0; part < 3; part++) {
    unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);
    if (x != y) return x < y ? -1 : 1;
    if (*a == '.') a++;
    if (*b == '.') b++;
  }
  bool pa = *a == '-', pb = *b == '-';
  if (pa != pb) return pa ? -1 : 1;
  return strcmp(a, b);
}

const lfa_lance_field *lfa_lance_field_find(lfa_lance_message message, uint32_t number) {
  const lfa_lance_field *best = NULL;
  for (size_t i = 0; i < LFA_LANCE_FIELDS_COUNT; i++) {
    const lfa_lance_field *f = &LFA_LANCE_FIELDS[i];
    if (f->message != message || f->number != number || number == 0) continue;
    if (best == NULL || (f->confirmed && !best->confirmed) ||
        (f->confirmed == best->confirmed && release_cmp(f->first, best->first) > 0))
      best = f;
  }
  return best;
}

const char *lfa_lance_field_first_release(lfa_lance_message message, uint32_t number) {
  const char *first = NULL;
  for (size_t i = 0; i < LFA_LANCE_FIELDS_COUNT; i++) {
    const lfa_lance_field *f = &LFA_LANCE_FIELDS[i];
    if (f->message == message && f->number == number && f->confirmed &&
        (first == NULL || release_cmp(f->first, first) < 0))
      first = f->first;
  }
  return first;
}

const lfa_lance_bit *lfa_lance_bit_find(uint64_t value) {
  for (size_t i = 0; i < LFA_LANCE_BITS_COUNT; i++)
    if (LFA_LANCE_BITS[i].value == value) return &LFA_LANCE_BITS[i];
  return NULL;
}

const char *lfa_lance_bit_first_release(uint64_t value) {
  const lfa_lance_bit *b = lfa_lance_bit_find(value);
  return b != NULL && b->confirmed ? b->first : NULL;
}

const char *lfa_lance_newest_release(void) { return LFA_LANCE_NEWEST_RELEASE; }
