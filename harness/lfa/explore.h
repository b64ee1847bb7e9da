/* explore.h: every small history, checked (the small-scope guarantee).
 *
 * The explorer enumerates every history of at most `depth` operations over
 * a tiny table, breadth first, in one or both row-id modes. A history
 * starts with one of the create requests of the start set (1 row, or 3
 * rows in 1 or 2 fragments; field `a` tracked from the start, assigned or
 * unassigned, supplied or not; field `b` untracked) and grows by the moves
 * below, each a choice the spec distinguishes:
 *
 *   append      one new row, every non-empty set of supplied fields (FA-APPEND-1, FA-SEM-3)
 *   delete      one row, a fragment's live rows, every live row, a dead key (FA-DELETE-1)
 *   update      one row of each fragment or every live row; no, one or every field
 *               written; no or one field invalidated (tracked or not); both modes
 *               (FA-UPDATE-*, FA-SEM-5, FA-INVAL-2)
 *   merge_insert  no, one or every row matched; an insert or none; every field or
 *               one; an invalidation or none; a matched delete (FA-MERGEINSERT-*)
 *   add_columns untracked, unassigned or assigned, with data or without (FA-OP-2)
 *   track       every field, assigned or unassigned (FA-TXN-8 on a tracked one)
 *   rename, cast, drop   every field (FA-ID-*, FA-DROP-*); never a drop of the last
 *               field (that a table keeps one is Lance's schema rule, not the spec's)
 *   compact     Lance's planning with 1, 2 or the default rows per fragment (FA-REWRITE-*)
 *   replace, overlay     every data file; every field on a fragment's first row
 *   restore     every earlier version (FA-RESTORE-*); clone shallow and deep
 *   overwrite   the start schema, `a` unassigned or assigned; create_index; update_config
 *
 * Names come from a fixed universe (a, b, c, d): add_columns and rename take
 * the first free one, so the schema grows to at most four top-level fields.
 * Keys are never reused: a new row takes one more than any key the history
 * ever held.
 *
 * States. Equal states are explored once: a state is the canonical form of
 * the head (row-id mode; schema in order with types, nullability and
 * tracking; every fragment in order with its data files by field, its rows
 * in offset order, each with the label of its key, its deletion, the rank
 * of its row id and its bit in every tracked field). Field names, key
 * values, version numbers, fragment ids and file names are left out: no
 * rule's outcome depends on them, only on the schema's order, on which
 * rows share a key (a key's label is the number of distinct keys met
 * before it, fragment by fragment) and on the row ids' order. Two paths
 * to one head therefore have the same futures but for a restore, which
 * also depends on the states the path passed: each (state, earlier state)
 * pair some path shows is run once more as that restore, from a path kept
 * for it (explore_internal.h). Below depth 4 this covers every history;
 * from depth 4 a history that restores twice may not be, and the report
 * counts each such restore as uncovered.
 *
 * What every transition must satisfy (one history = a state's first
 * history plus one move):
 *   - the judge (an independent second opinion, lfa_explore_judge) agrees
 *     with the reference model (lfa_history_apply) on accept or refuse, and
 *     on the head: schema, tracking, live keys, every tracked bit;
 *   - an accepted move's version, written to an in-memory file system,
 *     verifies with no error finding (lfa/verify.h, from that version:
 *     its static rules and the transition that made it, FA-VERIFY-1), the
 *     verifier's loaded head agrees with the judge, and is_assigned read
 *     back from disk (lfa/expr.h) agrees with the model on every live row of
 *     every tracked field (FA-EXPR-5).
 *
 * Concurrency (`concurrent`): the pair counts as two of the `depth`
 * operations. From every state reached with at most `depth` - 2
 * operations, every ordered pair (m1, m2) of the concurrent
 * moves (appends, single-row deletes and updates of both modes with
 * writes and invalidations, a merge_insert, a compaction, a track) is
 * committed concurrently: both built against the state, m1 committed
 * first, m2 rebased onto it (spec 06). The pair with m1 = m2 is the
 * replayed commit. m2 must then either be refused (a retryable conflict,
 * FA-CONC-*, counted by rule; or refused as invalid where some serial
 * order refuses it too), or yield a head equal, row by row, to the judge's
 * state after one of the serial orders m1;m2 or m2;m1 (where the judge
 * refuses the later of the two, it is moot: two deletes of one row, an
 * update of a row the other deleted): no write and no invalidation of a
 * live row is lost (FA-CONC-1, FA-CONC-4, FA-CONC-5).
 * Its version must verify clean too.
 *
 * A failure is shrunk (fewer steps, then fewer rows and fields per step,
 * while the failure persists) and returned as the moves of the shortest
 * history, for a caller to write as a conformance scenario.
 */
#ifndef LFA_EXPLORE_H
#define LFA_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/mutate.h"
#include "lfa/table.h"

enum {
  LFA_EXPLORE_DEPTH_MAX = 6,  /* operations after the create */
  LFA_EXPLORE_ROWS_MAX = 8,   /* keys one move names */
  LFA_EXPLORE_NAMES = 4,      /* the field-name universe: a, b, c, d */
  LFA_EXPLORE_RULES_MAX = 64, /* distinct rules counted */
  LFA_EXPLORE_DIFF_MAX = 1024
};

/* One move: a request in the explorer's own terms, by value (no pointers),
 * so histories can be stored, shrunk and replayed. Fields are bit sets
 * over the name universe (bit i: lfa_explore_name(i)). */
typedef struct lfa_explore_move {
  lfa_op op;
  uint64_t read_version; /* 0: built on the head; else a concurrent commit built on that version */
  uint8_t n_rows, n_inserts;
  uint64_t rows[LFA_EXPLORE_ROWS_MAX];    /* keys inserted (create, append, overwrite) or selected */
  uint64_t inserts[LFA_EXPLORE_ROWS_MAX]; /* merge_insert: new keys */
  uint8_t fields;     /* supplied / written / replaced / dropped */
  uint8_t invalidate; /* update, merge_insert */
  uint8_t field;      /* track, rename, cast: the field; add_columns: the new name */
  uint8_t new_name;   /* rename */
  uint8_t type;       /* cast, add_columns: index into the type universe */
  lfa_assignment assignment; /* create, overwrite: `a`'s; track; add_columns */
  bool flag; /* create: stable row ids; update: rewrite_columns; merge_insert: delete_matched;
                add_columns: with_data; clone: deep */
  uint64_t number; /* create, compact: rows per file; restore: version; replace, overlay: fragment id */
} lfa_explore_move;

/* The name of universe field `i` ("a"...), and of type `t` ("int64"...). */
const char *lfa_explore_name(unsigned i);
const char *lfa_explore_type(unsigned t);

/* What a request built from a move points into. */
typedef struct lfa_explore_request_storage {
  const char *fields[LFA_EXPLORE_NAMES];
  const char *invalidate[LFA_EXPLORE_NAMES];
  lfa_new_field new_fields[LFA_EXPLORE_NAMES];
} lfa_explore_request_storage;

/* The request of move `m` (pointing into `m` and `s`, which must outlive it). */
void lfa_explore_request(lfa_request *q, lfa_explore_request_storage *s, const lfa_explore_move *m);

/* The second opinion the model is held to: the independent oracle in
 * `lfa explore` (testkit/oracle.c). An instance holds one history's state.
 * `head` is the model's head before the request, for structure only
 * (which rows share a fragment: replace and overlay name a fragment).
 * Every function gets `ctx`. */
typedef struct lfa_explore_judge {
  void *ctx;
  void *(*open)(void *ctx);                        /* an empty history; NULL: out of memory */
  void *(*clone)(void *ctx, const void *instance); /* a copy; NULL: out of memory */
  void (*close)(void *ctx, void *instance);
  /* Judges the model's answer (st, err) to `q` and commits the judge's own
   * next state when the model committed; false with `diff` on a mismatch. */
  bool (*step)(void *ctx, void *instance, const lfa_request *q, const lfa_table *head, lfa_status st,
               const lfa_error *err, char *diff, size_t cap);
  /* Applies `q` on the judge's own answer: true when it accepts (and commits). */
  bool (*apply)(void *ctx, void *instance, const lfa_request *q, const lfa_table *head);
  /* Does table `t` (keys from `keys_from`) show the judge's head? */
  bool (*agree)(void *ctx, const void *instance, const lfa_table *t, const lfa_table *keys_from, char *diff,
                size_t cap);
} lfa_explore_judge;

typedef struct lfa_explore_options {
  unsigned depth;         /* 1..LFA_EXPLORE_DEPTH_MAX */
  bool address, stable;   /* the row-id modes explored */
  bool concurrent;        /* also every concurrent pair (above) */
  bool disk;              /* write, verify and read back every accepted version */
  uint64_t max_states;    /* a bound on distinct states (0: 4Mi): past it, LFA_ERR_LIMIT */
  const lfa_explore_judge *judge;
} lfa_explore_options;

typedef struct lfa_explore_rule_count {
  const char *rule; /* requirement id, or "-" when the refusal named none */
  uint64_t count;
} lfa_explore_rule_count;

/* Per depth d (1..depth): what ran from the states first reached with d - 1 operations. */
typedef struct lfa_explore_level {
  uint64_t runs;       /* transitions executed */
  uint64_t accepted;   /* ... of which committed */
  uint64_t new_states; /* states first reached at this depth */
  uint64_t histories;  /* histories of exactly d operations (each accepted but maybe the last) */
} lfa_explore_level;

typedef struct lfa_explore_result {
  lfa_explore_level levels[LFA_EXPLORE_DEPTH_MAX + 1]; /* [0]: the start states */
  uint64_t distinct_states;
  uint64_t paths_kept;         /* alias nodes: later paths kept for the restores they show (explore_internal.h) */
  uint64_t uncovered_restores; /* restores of counted histories no pair stands for: 0 below depth 4 */
  uint64_t histories;        /* every history of 1..depth operations, counted through the state graph */
  uint64_t verified;         /* versions written and verified */
  size_t n_refusals;
  lfa_explore_rule_count refusals[LFA_EXPLORE_RULES_MAX]; /* serial refusals by rule */
  uint64_t pairs, pairs_committed; /* concurrent pairs run, and those whose second commit landed */
  size_t n_conflicts;
  lfa_explore_rule_count conflicts[LFA_EXPLORE_RULES_MAX]; /* concurrent refusals by rule */
  double seconds;
  /* The first failure, shrunk: its moves (moves[0] the create) and what differed. */
  bool failed;
  bool failed_concurrent; /* the last move is the second of a concurrent pair */
  size_t n_moves;
  lfa_explore_move moves[LFA_EXPLORE_DEPTH_MAX + 3];
  char diff[LFA_EXPLORE_DIFF_MAX];
  size_t unshrunk_moves; /* the history's length as first found */
} lfa_explore_result;

/* Explores as `o` says. A failure found is no error: LFA_OK with
 * out->failed. Errors: LFA_ERR_USAGE (bad options), LFA_ERR_LIMIT
 * (max_states), LFA_ERR_NOMEM, or what the model failed with other than a
 * refusal or conflict (which is also reported as a failure). */
lfa_status lfa_explore(lfa_explore_result *out, const lfa_explore_options *o, lfa_error *err);

#endif
