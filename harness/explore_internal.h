/* explore_internal.h: what explore.c (the walk and its checks) and
 * explore_moves.c (moves and canonical states) share. Not public. */
#ifndef LFA_EXPLORE_INTERNAL_H
#define LFA_EXPLORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/explore.h"
#include "lfa/history.h"

/* A list of moves, grown as needed; bounded by the caller's loops. */
typedef struct xmoves {
  size_t count, cap;
  lfa_explore_move *items;
  bool lost; /* an allocation failed: the list is short */
} xmoves;

void xmoves_free(xmoves *l);

/* The start set of one row-id mode (explore.h). */
void xmoves_start(xmoves *out, bool stable);

/* Every move of explore.h from head `t` of `h`; new rows take `next_key`. */
void xmoves_serial(xmoves *out, const lfa_history *h, uint64_t next_key);

/* The concurrent moves from head `t` (explore.h). */
void xmoves_concurrent(xmoves *out, const lfa_table *t, uint64_t next_key);

/* One more than every key any version of `h` held. */
uint64_t xnext_key(const lfa_history *h);

/* The canonical state of `h` (explore.h) as a string, or NULL when out of
 * memory. OWNERSHIP: free() it. */
char *xcanonical(const lfa_history *h);

/* 64-bit FNV-1a of a string. */
uint64_t xhash(const char *s);

#endif
