/* remap.h: carrying one field's state across a compaction group
 * (05§5, Rewrite).
 *
 * [FA-REMAP-1] Old rows are listed fragment by fragment in the group's
 * order, each fragment's live offsets ascending; new rows fragment by
 * fragment, offsets 0 .. physical_rows - 1; the k-th old row becomes the
 * k-th new row and keeps its state [FA-REWRITE-1].
 *
 * lfa_remap_rows is that rule as the spec writes it, one row at a time: the
 * reference. The verifier maps a group's rows with it, and
 * lfa_remap_group_plain carries a field's state with it.
 *
 * lfa_remap_group, the one the reference compaction uses, is the fast way
 * to the same cells, tested against lfa_remap_group_plain on random groups.
 * It treats a group as one bit stream: each old fragment contributes its live
 * rows' bits and each new fragment takes the next physical_rows bits. The
 * work is done on 64-bit words (lfa/bits.h), never row by row and never
 * through serialized bytes: an old container's words are read where
 * CRoaring keeps them, each word's deleted offsets are compacted out (pext
 * where the CPU has it, else the plain squeeze), and each new fragment's
 * containers are built from its words. An `all_assigned` or absent old
 * fragment costs one fill of its live rows. Cost: O(rows / 64 +
 * containers) per field and group, with memory for one new fragment's bits
 * and one chunk, whatever the group's size.
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

/* One row of a group: live row old_offset of the group's old fragment
 * `old` (its position in the group) becomes row new_offset of new fragment
 * `new_fragment`. */
typedef struct lfa_remap_row {
  size_t old;
  uint64_t old_offset;
  size_t new_fragment;
  uint64_t new_offset;
} lfa_remap_row;

typedef void (*lfa_remap_visit)(void *ctx, const lfa_remap_row *row);

/* [FA-REMAP-1] Calls visit for every live old row, in order: old
 * fragments as listed, offsets ascending, deleted offsets skipped; the
 * k-th becomes the k-th new row, new fragment by new fragment (new_rows[k]
 * rows each, 0 .. 2^32; one with 0 rows takes none). Old fragments have at
 * most 2^32 rows. [FA-REMAP-2] their live rows must number exactly the sum
 * of new_rows (LFA_ERR_USAGE with FA-REMAP-2 otherwise, before any visit). */
lfa_status lfa_remap_rows(const uint64_t *new_rows, size_t n_new, const lfa_fragment *const *old, size_t n_old,
                          lfa_remap_visit visit, void *ctx, lfa_error *err);

/* out[k] (k < n_new) = the field's state in the group's k-th new fragment,
 * which has new_rows[k] rows (1 .. 2^32), canonical (NONE, ALL, or a
 * PARTIAL that is neither empty nor full). [FA-REMAP-2] The old fragments'
 * live rows must number exactly the sum of new_rows (LFA_ERR_USAGE with
 * FA-REMAP-2 otherwise). On failure every out[k] is NONE.
 * OWNERSHIP: the caller frees each out[k].rows (lfa_bitmap_free). */
lfa_status lfa_remap_group(lfa_cell *out, const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old,
                           size_t n_old, lfa_error *err);

/* lfa_remap_group by lfa_remap_rows, one row's state at a time: the same
 * contract and the same cells, at the cost of a bitmap lookup and insert
 * per live row. */
lfa_status lfa_remap_group_plain(lfa_cell *out, const uint64_t *new_rows, size_t n_new, const lfa_remap_source *old,
                                 size_t n_old, lfa_error *err);

#endif
