/* testutil.h: what every cmocka test in tests/ shares. */
#ifndef LFA_TESTUTIL_H
#define LFA_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lfa/error.h"

/* Tests run with the repository root as working directory (CMakeLists.txt),
 * so the shared read-only data sits beside it. */
#define SHARED_DIR "../shared"

/* Reads a whole file the test needs; fails the test when it cannot. */
static inline uint8_t *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  assert_non_null(buf);
  if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) fail_msg("cannot read %s", path);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* Asserts a status and, when `rule` is given, the requirement id; prints the
 * message on mismatch so a failing test says why. */
#define assert_status(st, want, err)                                                   \
  do {                                                                                 \
    lfa_status got_ = (st);                                                            \
    if (got_ != (want))                                                                \
      fail_msg("status %s, expected %s (%s)", lfa_status_name(got_),                   \
               lfa_status_name(want), (err)->msg);                                     \
  } while (0)

#define assert_rule(err, id)                                                           \
  do {                                                                                 \
    if ((err)->rule == NULL || strcmp((err)->rule, (id)) != 0)                         \
      fail_msg("rule %s, expected %s (%s)", (err)->rule ? (err)->rule : "(none)", (id), \
               (err)->msg);                                                            \
  } while (0)

#define assert_ok(st, err) assert_status((st), LFA_OK, (err))

/* Asserts the place an error carries as data (lfa/error.h): the version,
 * field id, fragment id and file; a negative number or a NULL file means
 * "not set". */
static inline void tu_assert_place(const lfa_error *e, int64_t version, int64_t field_id, int64_t fragment_id,
                                   const char *file) {
  if (e->has_version != (version >= 0) || (version >= 0 && e->version != (uint64_t)version))
    fail_msg("version %s%llu, expected %lld (%s)", e->has_version ? "" : "unset ", (unsigned long long)e->version,
             (long long)version, e->msg);
  if (e->has_field != (field_id >= 0) || (field_id >= 0 && e->field_id != field_id))
    fail_msg("field %s%d, expected %lld (%s)", e->has_field ? "" : "unset ", e->field_id, (long long)field_id, e->msg);
  if (e->has_fragment != (fragment_id >= 0) || (fragment_id >= 0 && e->fragment_id != (uint64_t)fragment_id))
    fail_msg("fragment %s%llu, expected %lld (%s)", e->has_fragment ? "" : "unset ",
             (unsigned long long)e->fragment_id, (long long)fragment_id, e->msg);
  if (strcmp(e->file, file != NULL ? file : "") != 0)
    fail_msg("file '%s', expected '%s' (%s)", e->file, file != NULL ? file : "", e->msg);
}

/* Deterministic generator for fuzz-style loops (xorshift64*). */
static inline uint64_t tu_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

#endif
