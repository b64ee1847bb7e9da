/* fuzz_helpers.h: what every target in fuzz/ shares.
 *
 * A target is one file with only LLVMFuzzerTestOneInput: deterministic, no
 * global state, no file I/O. It must accept any bytes; it aborts only on a
 * bug, through FUZZ_ASSERT, which is always on (assert() is not: NDEBUG
 * removes it, and the release build defines NDEBUG).
 *
 * The decoder contract every target checks with fuzz_check_status:
 *  - the status is one of the lfa_status values;
 *  - a failure fills `err` (same status, a non-empty message) and cites
 *    either no requirement id or an "FA-" one;
 *  - a pure decoder never reports LFA_ERR_IO or LFA_ERR_USAGE (there is no
 *    file and the arguments are valid), nor LFA_ERR_NOMEM: every count is
 *    checked against ref/base/lfa/limits.h before allocating, so under a
 *    fuzzer an allocation within the limits succeeds, and lfa_bitmap_decode
 *    reports NOMEM only when CRoaring refuses bytes lfa's own validator
 *    accepted, which is a disagreement worth a crash.
 */
#ifndef LFA_FUZZ_HELPERS_H
#define LFA_FUZZ_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

/* The entry points every engine calls (libFuzzer, AFL++'s driver, replay.c). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

__attribute__((noreturn)) static inline void fuzz_fail(const char *file, int line, const char *cond,
                                                        const char *why) {
  fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed: %s\n", file, line, cond, why);
  fflush(stderr);
  abort();
}

/* Always-on check: a false `cond` is a bug found; `why` says which property. */
#define FUZZ_ASSERT(cond, why)                               \
  do {                                                       \
    if (!(cond)) fuzz_fail(__FILE__, __LINE__, #cond, why);  \
  } while (0)

/* Checks the status contract above for one decode that filled `err`. */
static inline void fuzz_check_status(lfa_status st, const lfa_error *err) {
  FUZZ_ASSERT((unsigned)st <= (unsigned)LFA_ERR_USAGE, "status outside lfa_status");
  FUZZ_ASSERT(st != LFA_ERR_IO && st != LFA_ERR_USAGE, "a pure decoder reported io or usage");
  FUZZ_ASSERT(st != LFA_ERR_NOMEM, "nomem within the limits (or CRoaring refused validated bytes)");
  if (st == LFA_OK) return;
  FUZZ_ASSERT(err->status == st, "err->status differs from the returned status");
  FUZZ_ASSERT(err->msg[0] != '\0', "a failure without a message");
  FUZZ_ASSERT(memchr(err->msg, '\0', sizeof err->msg) != NULL, "unterminated message");
  FUZZ_ASSERT(err->rule == NULL || strncmp(err->rule, "FA-", 3) == 0, "a rule that is not an FA- id");
}

/* A fresh error record: status OK, no rule, empty message. */
static inline lfa_error fuzz_error(void) {
  lfa_error err;
  memset(&err, 0, sizeof err);
  lfa_error_clear(&err);
  return err;
}

/* True when two buffers hold the same bytes. */
static inline int fuzz_same_bytes(const lfa_buf *a, const lfa_buf *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

#endif
