/* hash.h: the one hash function and the one hash table of lfa.
 *
 * The function is 64-bit FNV-1a, fed piece by piece: start from
 * LFA_HASH_START and pass the running value to each call. It is a filter,
 * never an identity: whoever finds an item by its hash compares the key
 * itself as well.
 *
 * The table indexes items the caller owns by that hash: open addressing
 * with linear probing over a power-of-two array of slots, at most half
 * full, so a probe ends at an empty slot within a few steps. Removal shifts
 * the following slots back (no tombstones), so a table that items enter
 * and leave for a whole run stays as fast as a fresh one. The table holds
 * at most LFA_HASH_ITEMS_MAX items (limits.h); a caller with a smaller
 * bound of its own passes that.
 */
#ifndef LFA_HASH_H
#define LFA_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"

/* The FNV-1a offset basis: the hash of no bytes. */
#define LFA_HASH_START 0xCBF29CE484222325ULL

/* The running hash `h` continued over `len` bytes. */
uint64_t lfa_hash_bytes(uint64_t h, const void *data, size_t len);
/* ... over the bytes of a C string (not its NUL). */
uint64_t lfa_hash_text(uint64_t h, const char *s);
/* ... over the 8 bytes of `v`, least significant first. */
uint64_t lfa_hash_u64(uint64_t h, uint64_t v);

/* One slot: an item and its hash; `item` NULL is an empty slot. */
typedef struct lfa_hash_slot {
  uint64_t hash;
  void *item;
} lfa_hash_slot;

/* A zeroed lfa_hash is an empty table. OWNERSHIP: the table owns its slots
 * (lfa_hash_free), never the items. */
typedef struct lfa_hash {
  size_t count, cap; /* cap is 0 or a power of two */
  lfa_hash_slot *slots;
} lfa_hash;

/* Whether `item` is the one `key` names (the hashes already agree). */
typedef bool (*lfa_hash_same)(const void *item, const void *key);

/* The item with this hash that `same` matches to `key`, or NULL. */
void *lfa_hash_find(const lfa_hash *t, uint64_t hash, lfa_hash_same same, const void *key);

/* Adds `item` (not NULL, not already in the table) under `hash`.
 * LFA_ERR_LIMIT when the table already holds `max_items` items (at most
 * LFA_HASH_ITEMS_MAX whatever is asked), LFA_ERR_NOMEM when it cannot
 * grow; the table is unchanged on failure. */
lfa_status lfa_hash_add(lfa_hash *t, uint64_t hash, void *item, size_t max_items, lfa_error *err);

/* Takes the item `same` matches out of the table and returns it; NULL when
 * there is none. */
void *lfa_hash_remove(lfa_hash *t, uint64_t hash, lfa_hash_same same, const void *key);

/* The items in slot order: start with *cursor = 0; NULL after the last.
 * The table must not change during the walk. */
void *lfa_hash_next(const lfa_hash *t, size_t *cursor);

void lfa_hash_free(lfa_hash *t);

#endif
