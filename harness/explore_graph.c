/* explore_graph.c: the states the explorer found, the paths it keeps to
 * them, and the histories they stand for (explore_internal.h).
 *
 * Why pairs. A head's canonical form decides every move's outcome but a
 * restore's, which brings back an earlier version: that one depends on
 * which states the path passed. So a state is expanded once, from its
 * first path, with every other move, and each (state, earlier state) pair
 * that any path shows is run once more, as that restore. Pairs travel
 * along moves: a path to Y through T, then a move to X, is a path to X
 * through T. Below depth 4 every path's pairs are found this way; from 4
 * on, a path that restores twice may need a path through two earlier
 * states at once that no kept node shows, and xg_count reports each such
 * restore as uncovered instead of counting it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "explore_internal.h"

bool xis_restore(const lfa_explore_move *m) { return m->op == LFA_OP_RESTORE; }

void xg_free(xgraph *g) {
  for (size_t i = 0; i < g->n_nodes; i++) free(g->nodes[i].key);
  free(g->nodes);
  free(g->pairs);
  free(g->edges);
  lfa_hash_free(&g->by_key);
  lfa_hash_free(&g->by_pair);
  memset(g, 0, sizeof *g);
}

/* ---- lookups: the hash table holds indexes + 1 ----------------------------------------------- */

typedef struct key_probe {
  const xgraph *g;
  const char *key;
} key_probe;

static bool same_key(const void *item, const void *probe) {
  const key_probe *p = probe;
  return strcmp(p->g->nodes[(uintptr_t)item - 1].key, p->key) == 0;
}

static uint32_t find_state(const xgraph *g, uint64_t hash, const char *key) {
  key_probe p = {g, key};
  void *item = lfa_hash_find(&g->by_key, hash, same_key, &p);
  return item ? (uint32_t)((uintptr_t)item - 1) : XG_NONE;
}

typedef struct pair_probe {
  const xgraph *g;
  uint32_t state, earlier;
} pair_probe;

static uint64_t pair_hash(uint32_t state, uint32_t earlier) {
  return lfa_hash_u64(LFA_HASH_START, (uint64_t)state << 32 | earlier);
}

static bool same_pair(const void *item, const void *probe) {
  const pair_probe *p = probe;
  const xpair *x = &p->g->pairs[(uintptr_t)item - 1];
  return x->state == p->state && x->earlier == p->earlier;
}

xpair *xg_pair(const xgraph *g, uint32_t state, uint32_t earlier) {
  pair_probe p = {g, state, earlier};
  void *item = lfa_hash_find(&g->by_pair, pair_hash(state, earlier), same_pair, &p);
  return item ? &g->pairs[(uintptr_t)item - 1] : NULL;
}

/* ---- growing ------------------------------------------------------------------------------ */

static bool grow(void **items, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t cap2 = *cap ? 2 * *cap : 1024;
  void *grown = realloc(*items, cap2 * size);
  if (grown == NULL) return false;
  *items = grown, *cap = cap2;
  return true;
}

static lfa_status add_node(uint32_t *out, xgraph *g, xnode n, lfa_error *err) {
  if (!grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof *g->nodes))
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  *out = (uint32_t)g->n_nodes;
  g->nodes[g->n_nodes++] = n;
  return LFA_OK;
}

static lfa_status add_pair(xgraph *g, uint32_t state, uint32_t earlier, uint32_t witness, lfa_error *err) {
  if (!grow((void **)&g->pairs, &g->cap_pairs, g->n_pairs + 1, sizeof *g->pairs))
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  size_t i = g->n_pairs;
  g->pairs[i] = (xpair){state, earlier, witness, g->nodes[witness].depth, XG_PENDING, g->nodes[state].first_pair};
  if (lfa_hash_add(&g->by_pair, pair_hash(state, earlier), (void *)(uintptr_t)(i + 1), LFA_HASH_ITEMS_MAX, err) != LFA_OK)
    return err->status;
  g->nodes[state].first_pair = (uint32_t)i;
  g->n_pairs++;
  return LFA_OK;
}

/* ---- paths ------------------------------------------------------------------------------- */

/* The path of node `s` from its start: into moves[] (its moves) and ids[]
 * (the states it passes), either NULL; its length. */
static size_t chain(lfa_explore_move *moves, uint32_t *ids, const xgraph *g, uint32_t s) {
  size_t n = 0;
  for (uint32_t at = s; at != XG_NONE; at = g->nodes[at].parent) n++;
  size_t i = n;
  for (uint32_t at = s; at != XG_NONE; at = g->nodes[at].parent) {
    --i;
    if (moves) moves[i] = g->nodes[at].move;
    if (ids) ids[i] = g->nodes[at].state;
  }
  return n;
}

size_t xg_history(lfa_explore_move *moves, const xgraph *g, uint32_t s) { return chain(moves, NULL, g, s); }

size_t xg_path(uint32_t *ids, const xgraph *g, uint32_t s) { return chain(NULL, ids, g, s); }

/* The versions (bit r: version r) of a path `ids` to state `x` (ids[n-1]) whose state makes a pair with x that
 * no node shows yet; the first version of each such state only. */
static uint8_t new_pairs(const xgraph *g, const uint32_t *ids, size_t n) {
  uint8_t mask = 0;
  uint32_t x = ids[n - 1];
  for (size_t j = 0; j + 1 < n; j++) {
    bool seen = xg_pair(g, x, ids[j]) != NULL;
    for (size_t k = 0; k < j && !seen; k++) seen = ids[k] == ids[j];
    if (!seen) mask |= (uint8_t)(1u << (j + 1));
  }
  return mask;
}

/* Node `n` (last of the path `ids`, n_ids long) is the witness of the pairs in `mask`. */
static lfa_status make_pairs(xgraph *g, uint32_t node, const uint32_t *ids, uint8_t mask, lfa_error *err) {
  g->nodes[node].restores = mask;
  for (unsigned r = 1; r <= LFA_EXPLORE_DEPTH_MAX; r++)
    if (mask & (1u << r) && add_pair(g, g->nodes[node].state, ids[r - 1], node, err) != LFA_OK) return err->status;
  return LFA_OK;
}

/* A path: `parent`, then a move, to state `x` (its node made already when new). */
static lfa_status arrive_at(xgraph *g, uint32_t x, bool fresh, uint32_t parent, xnode proto, lfa_error *err) {
  uint32_t ids[LFA_EXPLORE_DEPTH_MAX + 2];
  size_t n = parent == XG_NONE ? 0 : xg_path(ids, g, parent);
  ids[n++] = x;
  if (proto.depth >= g->depth) return LFA_OK; /* never expanded: no restore runs from it */
  uint8_t mask = new_pairs(g, ids, n);
  uint32_t node = x;
  if (!fresh && mask == 0) return LFA_OK;
  proto.key = NULL, proto.state = x, proto.parent = parent, proto.first_pair = XG_NONE;
  if (!fresh && add_node(&node, g, proto, err) != LFA_OK) return err->status;
  return make_pairs(g, node, ids, mask, err);
}

lfa_status xg_arrive(uint32_t *state, bool *added, xgraph *g, uint32_t parent, const lfa_explore_move *m, uint16_t index,
                     char *key, lfa_error *err) {
  uint64_t hash = lfa_hash_text(LFA_HASH_START, key);
  uint8_t depth = parent == XG_NONE ? 0 : (uint8_t)(g->nodes[parent].depth + 1);
  xnode proto = {.parent = parent, .depth = depth, .concrete = true, .index = index, .move = *m};
  *added = false;
  *state = find_state(g, hash, key);
  if (*state != XG_NONE) return free(key), arrive_at(g, *state, false, parent, proto, err);
  if (g->n_states >= g->max_states)
    return free(key), lfa_fail(err, LFA_ERR_LIMIT, NULL, "more than %" PRIu64 " distinct states", g->max_states);
  proto.key = key, proto.first_edge = (uint32_t)g->n_edges, proto.first_pair = XG_NONE;
  if (add_node(state, g, proto, err) != LFA_OK) return free(key), err->status;
  g->nodes[*state].state = *state;
  if (lfa_hash_add(&g->by_key, hash, (void *)(uintptr_t)(*state + 1), LFA_HASH_ITEMS_MAX, err) != LFA_OK) {
    g->n_nodes--;
    return free(key), err->status;
  }
  g->n_states++, *added = true;
  return arrive_at(g, *state, true, parent, proto, err);
}

lfa_status xg_edge(xgraph *g, uint32_t s, uint32_t to, uint16_t index, lfa_error *err) {
  if (!grow((void **)&g->edges, &g->cap_edges, g->n_edges + 1, sizeof *g->edges))
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (g->nodes[s].n_edges == 0) g->nodes[s].first_edge = (uint32_t)g->n_edges;
  g->edges[g->n_edges++] = (xedge){to, index};
  g->nodes[s].n_edges++;
  return LFA_OK;
}

/* ---- pairs travel along moves -------------------------------------------------------------- */

/* Where is state `t` on the path of node `w`: its version (1...), or 0. */
static unsigned version_on(const xgraph *g, uint32_t w, uint32_t t) {
  uint32_t ids[LFA_EXPLORE_DEPTH_MAX + 2];
  size_t n = xg_path(ids, g, w);
  for (size_t j = 0; j + 1 < n; j++)
    if (ids[j] == t) return (unsigned)j + 1;
  return 0;
}

/* Pair `pi` passed on along its state's moves. Indexes, not pointers:
 * arriving adds nodes and pairs, which may move the arrays. */
static lfa_status pass_on(xgraph *g, size_t pi, lfa_error *err) {
  const xpair p = g->pairs[pi];
  const uint32_t first = g->nodes[p.state].first_edge, n = g->nodes[p.state].n_edges;
  xnode proto = {.depth = (uint8_t)(p.depth + 1)};
  for (uint32_t e = 0; e < n; e++) { /* the move, found again from the witness's head when it is expanded */
    const xedge edge = g->edges[first + e];
    proto.index = edge.index, proto.concrete = false;
    if (edge.to != XG_NONE && arrive_at(g, edge.to, false, p.witness, proto, err) != LFA_OK) return err->status;
  }
  for (uint32_t q = g->nodes[p.state].first_pair; q != XG_NONE; q = g->pairs[q].next) {
    const xpair r = g->pairs[q];
    unsigned v = version_on(g, p.witness, r.earlier);
    if (r.to == XG_NONE || r.to == XG_PENDING || v == 0) continue; /* from 4 on: see the top of this file */
    proto.concrete = true, proto.index = 0;
    proto.move = (lfa_explore_move){.op = LFA_OP_RESTORE, .number = v};
    if (arrive_at(g, r.to, false, p.witness, proto, err) != LFA_OK) return err->status;
  }
  return LFA_OK;
}

lfa_status xg_propagate(xgraph *g, unsigned depth, lfa_error *err) {
  if (depth + 1 >= g->depth) return LFA_OK; /* its moves' nodes would never be expanded */
  for (size_t i = 0; i < g->n_pairs; i++) /* pairs made meanwhile come later in the array: deeper */
    if (g->pairs[i].depth == depth && pass_on(g, i, err) != LFA_OK) return err->status;
  return LFA_OK;
}

/* ---- counting ---------------------------------------------------------------------------- */

typedef struct counter {
  lfa_explore_result *out;
  uint64_t uncovered;
  const xgraph *g;
  uint32_t ids[LFA_EXPLORE_DEPTH_MAX + 2];
} counter;

/* The histories that continue the path ids[0..d] (d operations so far). */
static void count_from(counter *c, unsigned d) {
  const xgraph *g = c->g;
  const xnode *x = &g->nodes[c->ids[d]];
  c->out->levels[d + 1].histories += x->n_edges + d; /* every move, the d restores among them */
  if (d + 1 >= g->depth) return;
  for (uint32_t e = 0; e < x->n_edges; e++) {
    uint32_t to = g->edges[x->first_edge + e].to;
    if (to != XG_NONE) c->ids[d + 1] = to, count_from(c, d + 1);
  }
  for (unsigned r = 1; r <= d; r++) {
    const xpair *p = xg_pair(g, c->ids[d], c->ids[r - 1]);
    if (p == NULL || p->to == XG_PENDING) c->uncovered++;
    else if (p->to != XG_NONE) c->ids[d + 1] = p->to, count_from(c, d + 1);
  }
}

void xg_count(lfa_explore_result *out, uint64_t *uncovered, const xgraph *g) {
  counter c = {.out = out, .g = g};
  for (size_t s = 0; s < g->n_nodes; s++)
    if (g->nodes[s].key != NULL && g->nodes[s].depth == 0) c.ids[0] = (uint32_t)s, count_from(&c, 0);
  for (unsigned d = 1; d <= g->depth; d++) out->histories += out->levels[d].histories;
  *uncovered = c.uncovered;
}
