/* test_search.c: binary search over a sorted array (lfa/search.h).
 *
 * Expectations by hand over the array {1, 3, 3, 5}: the lower bound of a
 * key is the count of elements below it; lfa_search finds the first equal
 * element or reports SIZE_MAX. Then every lower bound of a longer array
 * against a linear count. */
#include "testutil.h"

#include "lfa/search.h"

static int by_value(const void *key, const void *e) { return lfa_order_u64(*(const uint64_t *)key, *(const uint64_t *)e); }

static size_t lower(const uint64_t *a, size_t n, uint64_t key) {
  return lfa_lower_bound(&key, a, n, sizeof *a, by_value);
}

static size_t find(const uint64_t *a, size_t n, uint64_t key) { return lfa_search(&key, a, n, sizeof *a, by_value); }

static void test_lower_bound_by_hand(void **state) {
  (void)state;
  const uint64_t a[] = {1, 3, 3, 5};
  const size_t want[] = {0, 0, 1, 1, 3, 3, 4}; /* keys 0 .. 6 */
  for (uint64_t key = 0; key <= 6; key++) assert_int_equal(lower(a, 4, key), want[key]);
  assert_int_equal(lower(a, 0, 3), 0);
  assert_int_equal(lower(NULL, 0, 3), 0); /* an empty array is never read */
}

static void test_search_finds_the_first_equal(void **state) {
  (void)state;
  const uint64_t a[] = {1, 3, 3, 5};
  assert_int_equal(find(a, 4, 1), 0);
  assert_int_equal(find(a, 4, 3), 1);
  assert_int_equal(find(a, 4, 5), 3);
  assert_int_equal(find(a, 4, 0), SIZE_MAX);
  assert_int_equal(find(a, 4, 4), SIZE_MAX);
  assert_int_equal(find(a, 4, 6), SIZE_MAX);
  assert_int_equal(find(NULL, 0, 1), SIZE_MAX);
}

/* a[i] = 2 * (i / 3): each even value three times. The lower bound of key
 * k is the count of elements below k, counted one by one. */
static void test_lower_bound_against_a_count(void **state) {
  (void)state;
  enum { N = 301 };
  uint64_t a[N];
  for (size_t i = 0; i < N; i++) a[i] = 2 * (i / 3);
  for (uint64_t key = 0; key <= 2 * (N / 3) + 2; key++) {
    size_t below = 0;
    for (size_t i = 0; i < N; i++) below += a[i] < key;
    assert_int_equal(lower(a, N, key), below);
  }
}

static void test_order(void **state) {
  (void)state;
  assert_int_equal(lfa_order_u64(1, 2), -1);
  assert_int_equal(lfa_order_u64(UINT64_MAX, 0), 1);
  assert_int_equal(lfa_order_u64(7, 7), 0);
  assert_int_equal(lfa_order_i64(-1, 0), -1);
  assert_int_equal(lfa_order_i64(INT64_MIN, INT64_MAX), -1);
  assert_int_equal(lfa_order_i64(INT64_MAX, INT64_MIN), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lower_bound_by_hand),
      cmocka_unit_test(test_search_finds_the_first_equal),
      cmocka_unit_test(test_lower_bound_against_a_count),
      cmocka_unit_test(test_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
