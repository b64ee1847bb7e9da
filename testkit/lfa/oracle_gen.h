/* oracle_gen.h: requests for the oracle tests, valid and invalid, over a
 * small nested schema, built from choices a caller supplies: fixed-seed
 * random numbers in tests/testkit/test_oracle.c, the fuzzer's input bytes in
 * fuzz/ops_differential_fuzz.c, every choice in turn in `lfa explore`. One
 * generator, so all of them explore the same requests. */
#ifndef LFA_ORACLE_GEN_H
#define LFA_ORACLE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/history.h"
#include "lfa/mutate.h"
#include "lfa/oracle.h"

/* Builds random requests, valid and invalid, over a small nested schema.
 * It only builds requests whose answer the spec and mutate.h fix; it avoids
 * the few the spec leaves open: keys
 * reused after insert, tracking a struct whose child is tracked already,
 * renaming a nested field, adding a child to an existing struct. */
typedef struct gen {
  unsigned (*choose)(void *src, unsigned n);  /* a value in [0, n) */
  bool (*coin)(void *src, unsigned percent);  /* yes with about this chance */
  void *src;                                  /* the source of choices */
  uint64_t next_key; /* keys are never reused within a sequence */
  unsigned next_name;
  const char *names[16], *inval[16];
  char buf[32][OR_PATH_MAX]; /* strings the current request points into */
  size_t n_buf;
  uint64_t rows[16], inserts[8];
  lfa_new_field nf[8];
} gen;

/* A value in [0, n) and a yes with about `percent` chance, from g's source. */
unsigned gen_choose(gen *g, unsigned n);
bool gen_chance(gen *g, unsigned percent);

/* The next request of a sequence: `op` (the first one creates), its
 * arguments drawn from the generator's source, over the oracle's head and
 * the model's history `h` (REPLACE and OVERLAY name its fragments). The
 * strings of *q point into g until the next call. */
void gen_request(gen *g, lfa_request *q, lfa_op op, const oracle *o, const lfa_history *h);

/* Appends one line describing `q` to `log` (cap bytes, *len so far; the
 * last byte stays for the terminating NUL): the logs printed on a
 * disagreement. */
void gen_describe(char *log, size_t cap, size_t *len, const lfa_request *q);

#endif
