/* test_arena.c: the arena message trees are built in (lfa/arena.h).
 *
 *  - every piece is zeroed, aligned for any type, and disjoint from every
 *    other, whether it shares a block or gets one of its own;
 *  - overflowing sizes fail, mark the arena, and lfa_arena_check reports
 *    it; freeing resets the mark;
 *  - under AddressSanitizer (the sanitizer build), the bytes after a piece
 *    are poisoned, so an overrun is reported as for a separate malloc.
 */
#include "testutil.h"

#include <stdalign.h>

#include "lfa/arena.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

enum { PIECES = 600 };

static bool all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != 0) return false;
  return true;
}

/* Sizes from 0 to past a block, small and large mixed: each piece is
 * zeroed and aligned; filling each with its own byte and then reading all
 * of them back shows no two overlap. */
static void test_pieces_zeroed_aligned_disjoint(void **state) {
  (void)state;
  lfa_arena a = {0};
  unsigned char *piece[PIECES];
  size_t size[PIECES];
  for (size_t i = 0; i < PIECES; i++) {
    size[i] = i % 7 == 6 ? 1500 + 37 * i : i % 50; /* every 7th is over a quarter block */
    piece[i] = lfa_arena_alloc(&a, size[i]);
    assert_non_null(piece[i]);
    assert_int_equal((uintptr_t)piece[i] % alignof(max_align_t), 0);
    assert_true(all_zero(piece[i], size[i]));
    memset(piece[i], (int)(i % 251) + 1, size[i]);
  }
  for (size_t i = 0; i < PIECES; i++)
    for (size_t k = 0; k < size[i]; k++) assert_int_equal(piece[i][k], (int)(i % 251) + 1);
  assert_int_equal(lfa_arena_check(&a, NULL), LFA_OK);
  lfa_arena_free(&a);
  assert_null(a.blocks);
}

static void test_copies(void **state) {
  (void)state;
  lfa_arena a = {0};
  assert_string_equal(lfa_arena_strdup(&a, "field"), "field");
  assert_string_equal(lfa_arena_strdup(&a, NULL), "");
  const int32_t ids[] = {3, -1, 7};
  int32_t *copy = lfa_arena_memdup(&a, ids, sizeof ids);
  assert_memory_equal(copy, ids, sizeof ids);
  uint64_t *zeros = lfa_arena_array(&a, 3, sizeof *zeros);
  assert_true(zeros[0] == 0 && zeros[1] == 0 && zeros[2] == 0);
  lfa_arena_free(&a);
}

static void test_overflow_marks_the_arena(void **state) {
  (void)state;
  lfa_arena a = {0};
  lfa_error err = {0};
  assert_null(lfa_arena_array(&a, SIZE_MAX / 2, 3));
  assert_true(a.failed);
  assert_int_equal(lfa_arena_check(&a, &err), LFA_ERR_NOMEM);
  lfa_arena_free(&a);
  assert_false(a.failed);
  assert_null(lfa_arena_alloc(&a, SIZE_MAX - 8));
  assert_true(a.failed);
  lfa_arena_free(&a);
}

static void test_overrun_is_poisoned(void **state) {
  (void)state;
#ifdef TEST_ASAN
  lfa_arena a = {0};
  char *s = lfa_arena_strdup(&a, "abc"); /* 4 bytes, in a shared block */
  char *t = lfa_arena_strdup(&a, "next");
  assert_false(__asan_address_is_poisoned(s + 3));
  assert_true(__asan_address_is_poisoned(s + 4));
  assert_true(__asan_address_is_poisoned(t - 1));
  unsigned char *big = lfa_arena_alloc(&a, 3000); /* a block of its own */
  assert_false(__asan_address_is_poisoned(big + 2999));
  assert_true(__asan_address_is_poisoned(big + 3000));
  lfa_arena_free(&a);
#else
  skip(); /* only the sanitizer build can see poisoning */
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pieces_zeroed_aligned_disjoint),
      cmocka_unit_test(test_copies),
      cmocka_unit_test(test_overflow_marks_the_arena),
      cmocka_unit_test(test_overrun_is_poisoned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
