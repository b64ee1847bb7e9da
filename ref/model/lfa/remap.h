/* remap.h: carrying one field's state across a compaction group
 * (spec 05-operations.md §5, Rewrite).
 *
 * [FA-REMAP-1] Old rows are listed fragment by fragment in the group's
 * order, each fragment's live offsets ascending; new rows fragment by
 * fragment, offsets 0 .. physical_rows - 1; the k-th old row becomes the
 * k-th new row and keeps its state [FA-REWRITE-1].
 *
 * So a group is one bit stream: each old fragment contributes its live
 * rows' bits, the runs between two deleted offsets moving whole, and each
 * new fragment takes the next physical_rows bits. The work is done on bit
 * arrays 64 rows at a time (lfa/materialize.h), never row by row: an
 * `all_assigned` or absent old fragment costs no bit work at all, and a
 * partial one costs one pass over its bits plus one step per deleted
 * offset. Cost: O(rows / 64 + deletions + containers) per field and group.
 */
#ifndef LFA_REMAP_H
#define LFA_REMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/table.h"

/* One old fragment of a group, in the group's order: its physical rows and
 * deletion set in P, and the field's cell in P. */
typedef struct lfa_remap_source {
  const lfa_fragment *fragment;
  const lfa_cell *cell;
} lfa_remap_source;

/* out[k] (k < n_new) = the field's state in the group's k-th new fragment,
 * which has new_rows[k] rows (1 .. 2^32), canonical (NONE, ALL, or a
 * PARTIAL that is neither empty nor full). [FA-REMAP-2] The old fragments'
 * live rows must number exactly the sum of new_rows (LFA_ERR_USAGE with
 * FA-REMAP-2 otherwise). On failure every out[k] is NONE.
 * OWNERSHIP: the caller frees each out[k].rows (lfa_bitmap_free). */
lfa_status lfa_remap_group(lfa_cell *out, const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old,
                           size_t n_old, lfa_error *err);

#endif
