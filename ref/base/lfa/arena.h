/* arena.h: one owner for the many small allocations of a message tree.
 *
 * Transactions built by mutations are protobuf-c message trees: every
 * message, array and string of one tree comes from one arena and is
 * released with it at once. Allocations are zeroed. A failed allocation
 * returns NULL and marks the arena, so builders may check once at the end
 * (lfa_arena_check) instead of after every call.
 */
#ifndef LFA_ARENA_H
#define LFA_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "lfa/error.h"

typedef struct lfa_arena_block lfa_arena_block;

typedef struct lfa_arena {
  lfa_arena_block *blocks;
  bool failed;
} lfa_arena;

/* n zeroed bytes aligned for any type, or NULL (and the arena marked). */
void *lfa_arena_alloc(lfa_arena *arena, size_t n);
/* count elements of size bytes each, overflow-checked. */
void *lfa_arena_array(lfa_arena *arena, size_t count, size_t size);
char *lfa_arena_strdup(lfa_arena *arena, const char *s);
void *lfa_arena_memdup(lfa_arena *arena, const void *p, size_t n);

/* LFA_ERR_NOMEM if any allocation failed. */
lfa_status lfa_arena_check(const lfa_arena *arena, lfa_error *err);
void lfa_arena_free(lfa_arena *arena);

#endif
