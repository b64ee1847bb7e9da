/* materialize.c: is_assigned of a whole fragment as a bit array
 * (lfa/materialize.h). Implements FA-EXPR-5 for a scan that wants one
 * Boolean per physical offset.
 *
 * The bit arrays themselves are built by lfa/bits.h, the deleted offsets
 * cleared in the same pass that writes the state.
 */
#include "lfa/materialize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bits.h"

/* ---- one fragment of a snapshot ------------------------------------------------------ */

/* The root entry of fragment `id` (entries ascend by id, FA-ROOT-2), or NULL. */
static const lfa_fragment_assignment *entry_of(const lfa_tracked_field *t, uint64_t id) {
  size_t i = lfa_assignment_entry(t->fragments, t->count, id);
  return i != SIZE_MAX ? &t->fragments[i] : NULL;
}

static lfa_status check_request(const lfa_snapshot *snap, size_t tracked_index, size_t fragment_index, lfa_error *err) {
  if (snap == NULL || snap->file.manifest == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "no snapshot to materialize from");
  if (tracked_index >= snap->n_tracked)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "no tracked field at index %zu (%zu tracked)", tracked_index,
                    snap->n_tracked);
  if (fragment_index >= snap->file.manifest->n_fragments)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "no fragment at index %zu (%zu fragments)", fragment_index,
                    snap->file.manifest->n_fragments);
  if (snap->tracked[tracked_index].root == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "field %d is not loaded (lfa_snapshot_load_field)",
                    snap->tracked[tracked_index].field_id);
  return LFA_OK;
}

/* [FA-EXPR-5] (F, o) is true exactly when F's entry is all_assigned or its
 * partial bitmap holds o; a fragment without an entry is all false. Row ids
 * play no part. Deleted offsets are no rows of the snapshot: 0. */
lfa_status lfa_assigned_bits(uint8_t *out, size_t out_len, const lfa_snapshot *snap, size_t tracked_index,
                             size_t fragment_index, lfa_error *err) {
  lfa_status st = check_request(snap, tracked_index, fragment_index, err);
  if (st != LFA_OK) return st;
  const Lance__Table__DataFragment *f = snap->file.manifest->fragments[fragment_index];
  if ((st = lfa_bits_check_len(out_len, f->physical_rows, err)) != LFA_OK || out_len == 0) return st;
  const lfa_fragment_assignment *e = entry_of(&snap->tracked[tracked_index], f->id);
  const roaring_bitmap_t *deleted = snap->deleted != NULL ? snap->deleted[fragment_index] : NULL;
  if (e == NULL) {
    memset(out, 0, out_len);
    return LFA_OK;
  }
  if (e->all && (deleted == NULL || roaring_bitmap_is_empty(deleted))) {
    lfa_bits_fill(out, out_len, f->physical_rows, true);
    return LFA_OK;
  }
  /* the state and the deletion mask in one pass (an entry is all or has rows) */
  return lfa_bits_live(out, out_len, f->physical_rows, e->all ? NULL : e->rows, deleted, err);
}
