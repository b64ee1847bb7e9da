/* oracle.h: an independent oracle for the assignment state, written from
 * the spec (spec/00-terms.md, 04-transaction.md, 05-operations.md,
 * 08-nested-and-ids.md) and the request API (ref/mutate/lfa/mutate.h),
 * never from the model's code (ref/).
 *
 * The state is dense and naive on purpose: a list of fields by PATH, a list
 * of live rows by logical key, and per row one bool per field. No bitmaps,
 * no fragments, no sharing. A field's bools mean something only while the
 * field is tracked (FA-SEM-1); a field that starts being tracked sets them
 * on every live row (FA-OP-2 step 1).
 *
 * One piece of structure the oracle cannot know by itself: which live rows a
 * fragment holds (REPLACE and OVERLAY name a fragment). The caller asks the
 * model's head table for that mapping (fragment id -> keys) and passes it in
 * an or_fragment. It is structure, never state.
 */
#ifndef LFA_ORACLE_H
#define LFA_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/mutate.h"

#define OR_MAX_FIELDS 48
#define OR_PATH_MAX 64
#define OR_TYPE_MAX 40

typedef struct or_field {
  char path[OR_PATH_MAX]; /* "payload.value": names from the top level */
  char type[OR_TYPE_MAX]; /* Lance logical type; "struct" has children */
  bool tracked;
} or_field;

typedef struct or_row {
  uint64_t key;
  bool assigned[OR_MAX_FIELDS]; /* indexed like or_state.fields */
} or_row;

/* One snapshot: schema, live rows, their state. */
typedef struct or_state {
  bool created;
  bool stable_row_ids;
  size_t n_fields;
  or_field fields[OR_MAX_FIELDS];
  size_t n_rows, cap_rows;
  or_row *rows; /* live rows only, in no particular order */
} or_state;

/* The head and a copy of every committed version (RESTORE reads them). */
typedef struct oracle {
  or_state head;
  size_t n_versions, cap_versions;
  or_state *versions; /* versions[i] is version i + 1 */
} oracle;

/* The live keys of the fragment a REPLACE or OVERLAY names, taken from the
 * model's head (structure only, see above). */
typedef struct or_fragment {
  bool exists;
  size_t n_keys;
  const uint64_t *keys;
} or_fragment;

/* What the oracle expects of the model for one request. */
typedef struct or_prediction {
  bool refuse;
  const char *rule; /* requirement id behind a refusal, or NULL */
  char why[200];
} or_prediction;

void or_init(oracle *o);
void or_free(oracle *o);
void or_state_free(or_state *s);

/* Predicts the model's answer to `req` on the head. When the request must
 * be accepted, *next receives the new snapshot (the caller frees it with
 * or_state_free, or hands it to or_commit). `frag` may be NULL except for
 * REPLACE and OVERLAY. Always fills *p. */
void or_predict(const oracle *o, const lfa_request *req, const or_fragment *frag, or_state *next,
                or_prediction *p);

/* A copy of `src` (its head and every version) in `dst`; free it with or_free. */
void or_copy(oracle *dst, const oracle *src);

/* Makes `next` the head and records it as the next version; takes it. */
void or_commit(oracle *o, or_state *next);

/* Index of the field with this path, or -1. */
int or_field_index(const or_state *s, const char *path);
/* Index of the live row with this key, or -1. */
int or_row_index(const or_state *s, uint64_t key);

#endif
