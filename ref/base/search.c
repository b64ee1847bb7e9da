/* search.c: binary search over a sorted array (lfa/search.h). */
#include "lfa/search.h"

static const void *element(const void *base, size_t size, size_t i) { return (const char *)base + i * size; }

/* Invariant: every element before lo sorts before the key, none from hi on
 * does; the gap halves each step. */
size_t lfa_lower_bound(const void *key, const void *base, size_t n, size_t size, lfa_compare_fn cmp) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp(key, element(base, size, mid)) > 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

size_t lfa_search(const void *key, const void *base, size_t n, size_t size, lfa_compare_fn cmp) {
  size_t i = lfa_lower_bound(key, base, n, size, cmp);
  return i < n && cmp(key, element(base, size, i)) == 0 ? i : SIZE_MAX;
}

int lfa_order_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

int lfa_order_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
