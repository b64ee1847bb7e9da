/* search.h: binary search over a sorted array, the one lfa uses (fragment
 * ids, field ids, names, file identities).
 *
 * cmp(key, element) is bsearch's: negative when the key sorts before the
 * element, 0 when they are equal, positive after. The array must be sorted
 * in that order (every element the key sorts after comes first).
 */
#ifndef LFA_SEARCH_H
#define LFA_SEARCH_H

#include <stddef.h>
#include <stdint.h>

typedef int (*lfa_compare_fn)(const void *key, const void *element);

/* The first index of base[0 .. n) (elements of `size` bytes) whose element
 * the key does not sort after, or n: where the key is, or would go. */
size_t lfa_lower_bound(const void *key, const void *base, size_t n, size_t size, lfa_compare_fn cmp);

/* The first index whose element equals the key, or SIZE_MAX. */
size_t lfa_search(const void *key, const void *base, size_t n, size_t size, lfa_compare_fn cmp);

/* -1, 0 or 1 as a is below, equal to or above b: the body of most cmps. */
int lfa_order_u64(uint64_t a, uint64_t b);
int lfa_order_i64(int64_t a, int64_t b);

#endif
