/* random_set.h: random Roaring sets for the tests that check a fast path
 * against a plain loop (test_remap.c, test_materialize.c). */
#ifndef TEST_RANDOM_SET_H
#define TEST_RANDOM_SET_H

#include <roaring/roaring.h>

#include "testutil.h"

/* A random set of values below `limit`: sparse, dense (bitset containers),
 * in runs (run containers once run-optimized, as half of them are), or
 * empty. */
static inline roaring_bitmap_t *tu_random_set(uint64_t *rng, uint64_t limit) {
  roaring_bitmap_t *b = roaring_bitmap_create();
  uint64_t kind = tu_rand(rng) % 4;
  if (kind == 0)
    for (uint64_t n = tu_rand(rng) % 60; n > 0; n--) roaring_bitmap_add(b, (uint32_t)(tu_rand(rng) % limit));
  else if (kind == 1)
    for (uint64_t o = 0; o < limit; o++) {
      if (tu_rand(rng) % 2) roaring_bitmap_add(b, (uint32_t)o);
    }
  else if (kind == 2)
    for (uint64_t n = tu_rand(rng) % 6; n > 0; n--) {
      uint64_t from = tu_rand(rng) % limit, len = 1 + tu_rand(rng) % 70000;
      roaring_bitmap_add_range(b, from, from + len < limit ? from + len : limit);
    }
  if (tu_rand(rng) % 2) roaring_bitmap_run_optimize(b);
  return b;
}

/* Each value below `limit` in the set with probability `density` (0 .. 1),
 * as a random column of that density holds it; run-optimized half the
 * time, and half of those as a copy-on-write copy, whose containers are
 * shared (the form a bitmap shared by two versions takes). */
static inline roaring_bitmap_t *tu_density_set(uint64_t *rng, uint64_t limit, double density) {
  roaring_bitmap_t *b = roaring_bitmap_create();
  uint64_t cut = density >= 1 ? UINT64_MAX : (uint64_t)(density * 18446744073709549568.0); /* below 2^64 */
  for (uint64_t o = 0; o < limit; o++)
    if (density >= 1 || tu_rand(rng) < cut) roaring_bitmap_add(b, (uint32_t)o);
  uint64_t form = tu_rand(rng) % 4;
  if (form >= 2) roaring_bitmap_run_optimize(b);
  if (form == 3) {
    roaring_bitmap_set_copy_on_write(b, true);
    roaring_bitmap_t *shared = roaring_bitmap_copy(b);
    roaring_bitmap_free(b);
    b = shared;
  }
  return b;
}

#endif
