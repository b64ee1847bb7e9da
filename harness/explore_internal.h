/* explore_internal.h: what explore.c (the walk and its checks),
 * explore_moves.c (moves and canonical states) and explore_graph.c (the
 * states found and the paths to them) share. Not public. */
#ifndef LFA_EXPLORE_INTERNAL_H
#define LFA_EXPLORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/explore.h"
#include "lfa/hash.h"
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

/* The canonical form of a head (explore.h) as a string, or NULL when out
 * of memory. OWNERSHIP: free() it. */
char *xcanonical(const lfa_table *head);

/* Is `m` a restore (the moves whose outcome depends on the path, not
 * only on the head)? */
bool xis_restore(const lfa_explore_move *m);

/* ---- the state graph (explore_graph.c) ------------------------------------------------------
 *
 * A state is a head in canonical form. A node is a path to a state: the
 * first path that reached it (the state's own node, which is expanded with
 * every move) or an alias, a later path kept only because it passes
 * through an earlier state that no path of the state's so far did: what a
 * restore can bring back is all that depends on the path (explore.h).
 * A pair (state X, earlier state T) says that some path to X passes
 * through T; each pair is run once, as the restore of T's version from its
 * witness, the node whose path shows it. */

#define XG_NONE UINT32_MAX         /* no node, no state: a start's parent, a refused move */
#define XG_PENDING (UINT32_MAX - 1) /* a pair's restore not run yet */

typedef struct xnode {
  char *key;       /* the canonical form (owned); NULL for an alias */
  uint32_t parent; /* XG_NONE: a start */
  uint32_t state;  /* the node of the state this path reaches (itself unless an alias) */
  uint8_t depth;   /* operations after the create */
  uint8_t restores; /* bit r: expanding this node runs the restore of version r */
  bool concrete;   /* `move` is known; an alias made by propagation learns it when expanded */
  uint16_t index;  /* ... until then: its index among its parent's moves other than restores */
  uint32_t first_edge, n_edges; /* a state: its moves other than restores, in order */
  uint32_t first_pair;          /* a state: its pairs, linked by xpair.next */
  lfa_explore_move move;        /* the move from the parent (a start: its create) */
} xnode;

typedef struct xpair {
  uint32_t state, earlier; /* the state, and the earlier state a path to it passes */
  uint32_t witness;        /* the node whose path shows it */
  uint8_t depth;           /* the witness's */
  uint32_t to;             /* the restore of `earlier`: its state, XG_NONE refused, XG_PENDING not run */
  uint32_t next;           /* the state's next pair, XG_NONE */
} xpair;

typedef struct xedge {
  uint32_t to;    /* XG_NONE: refused */
  uint16_t index; /* the move's index among the state's moves other than restores */
} xedge;

typedef struct xgraph {
  unsigned depth; /* the walk's: no node deeper than depth - 1 is ever expanded */
  uint64_t max_states;
  size_t n_nodes, cap_nodes, n_states;
  xnode *nodes;
  lfa_hash by_key; /* states by canonical form */
  size_t n_pairs, cap_pairs;
  xpair *pairs;
  lfa_hash by_pair;
  size_t n_edges, cap_edges;
  xedge *edges;
} xgraph;

void xg_free(xgraph *g);

/* The moves from the start to node `s` (moves[0] its create); their count.
 * Every node on the way must be concrete. */
size_t xg_history(lfa_explore_move *moves, const xgraph *g, uint32_t s);

/* The states along the path of node `s`, ids[0] the start's; their count (depth + 1). */
size_t xg_path(uint32_t *ids, const xgraph *g, uint32_t s);

/* Node `parent`'s move `m` (index `index` among its moves other than
 * restores; any for a restore) reached the head with canonical form `key`
 * (taken over): *state is its state, *added when new. The path's pairs are
 * made, and a node for it when it is the state's first path or the
 * witness of a new pair. */
lfa_status xg_arrive(uint32_t *state, bool *added, xgraph *g, uint32_t parent, const lfa_explore_move *m, uint16_t index,
                     char *key, lfa_error *err);

/* The next move of state `s` other than a restore went to `to` (XG_NONE: refused). */
lfa_status xg_edge(xgraph *g, uint32_t s, uint32_t to, uint16_t index, lfa_error *err);

/* The pair (state, earlier), or NULL. */
xpair *xg_pair(const xgraph *g, uint32_t state, uint32_t earlier);

/* Every pair made at `depth` passed on along its state's moves: a path to
 * the state through the earlier one, then a move, is a path to the move's
 * state through it (an alias node where that pair is new). Run after every
 * node of `depth` was expanded. */
lfa_status xg_propagate(xgraph *g, unsigned depth, lfa_error *err);

/* Every history of 1..depth operations (each accepted but maybe its last),
 * counted through the graph per length into levels[d].histories; *uncovered
 * counts restores no pair stands for (none below depth 4: explore.h). */
void xg_count(lfa_explore_result *out, uint64_t *uncovered, const xgraph *g);

#endif
